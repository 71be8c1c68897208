#!/usr/bin/env bash
# Build the outside-project examples against an INSTALLED pilfer: a release build of the library and the
# model checker only (targets pilfer_model, pilfer-litmus), `cmake --install` into a temporary prefix, then
# for each example configure it with -DCMAKE_PREFIX_PATH=<prefix>, build it and run its ctest:
#   conformance/examples/outside_consumer   the conformance suite on the example's own deque
#   models/examples/outside_model_check     the model checker on the example's own SPSC ring (MC-10)
# Last, a package installed without models must refuse find_package(pilfer COMPONENTS model), naming the option.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS="${PILFER_JOBS:-$(nproc)}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pilfer-consumer.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Paths under the temporary directory differ every run: ccache hashes them relative to it, so it still hits.
export CCACHE_BASEDIR="$WORK"
ONLY_LIB=(-DPILFER_BUILD_TESTS=OFF -DPILFER_BUILD_CONFORMANCE=OFF -DPILFER_BUILD_STRESS=OFF
          -DPILFER_BUILD_BENCH=OFF -DPILFER_BUILD_EXAMPLES=OFF)

echo "==> consumer-check: install pilfer (with the model checker) into $WORK/prefix" >&2
cmake -S "$ROOT" -B "$WORK/pilfer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
  "${ONLY_LIB[@]}" -DPILFER_BUILD_MODELS=ON >/dev/null
cmake --build "$WORK/pilfer-build" -j "$JOBS" --target pilfer_model pilfer-litmus >/dev/null
cmake --install "$WORK/pilfer-build" --prefix "$WORK/prefix" >/dev/null

for example in conformance/examples/outside_consumer models/examples/outside_model_check; do
  name=$(basename "$example")
  echo "==> consumer-check: build $example against it" >&2
  cmake -S "$ROOT/$example" -B "$WORK/$name-build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
  cmake --build "$WORK/$name-build" -j "$JOBS"
  ctest --test-dir "$WORK/$name-build" --output-on-failure -j "$JOBS" --timeout 300
done
# The verdicts with the failing trace, for the log (the ctests above already passed on them).
"$WORK/outside_model_check-build/spsc_ring_check" --all
"$WORK/prefix/bin/pilfer-litmus" -q "$ROOT/models/litmus/MP+rel+acq.litmus"

echo "==> consumer-check: a package installed without models refuses COMPONENTS model" >&2
cmake -S "$ROOT" -B "$WORK/pilfer-nomodel-build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
  "${ONLY_LIB[@]}" -DPILFER_BUILD_MODELS=OFF >/dev/null
cmake --install "$WORK/pilfer-nomodel-build" --prefix "$WORK/prefix-nomodel" >/dev/null
if cmake -S "$ROOT/models/examples/outside_model_check" -B "$WORK/nomodel-build" -G Ninja \
     -DCMAKE_PREFIX_PATH="$WORK/prefix-nomodel" >"$WORK/nomodel.log" 2>&1; then
  echo "consumer-check: error: find_package(pilfer COMPONENTS model) succeeded without the model component" >&2
  exit 1
fi
if ! grep -q "PILFER_BUILD_MODELS" "$WORK/nomodel.log"; then
  echo "consumer-check: error: find_package failed without naming PILFER_BUILD_MODELS:" >&2
  cat "$WORK/nomodel.log" >&2
  exit 1
fi
grep -A3 "Reason given by package" "$WORK/nomodel.log" >&2
echo "==> consumer-check: passed" >&2
