#!/usr/bin/env bash
# Build conformance/examples/outside_consumer against an INSTALLED pilfer: a release build of
# the library only, `cmake --install` into a temporary prefix, then configure the example with
# -DCMAKE_PREFIX_PATH=<prefix>, build it and run its ctest (the conformance suite on its deque).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS="${PILFER_JOBS:-$(nproc)}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pilfer-consumer.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
echo "==> consumer-check: install pilfer into $WORK/prefix" >&2
cmake -S "$ROOT" -B "$WORK/pilfer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
  -DPILFER_BUILD_TESTS=OFF -DPILFER_BUILD_MODELS=OFF -DPILFER_BUILD_CONFORMANCE=OFF \
  -DPILFER_BUILD_STRESS=OFF -DPILFER_BUILD_BENCH=OFF -DPILFER_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$WORK/pilfer-build" -j "$JOBS" >/dev/null
cmake --install "$WORK/pilfer-build" --prefix "$WORK/prefix" >/dev/null
echo "==> consumer-check: build conformance/examples/outside_consumer against it" >&2
cmake -S "$ROOT/conformance/examples/outside_consumer" -B "$WORK/consumer-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/consumer-build" -j "$JOBS"
ctest --test-dir "$WORK/consumer-build" --output-on-failure -j "$JOBS" --timeout 300
echo "==> consumer-check: passed" >&2
