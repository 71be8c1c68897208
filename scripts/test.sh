#!/usr/bin/env bash
# The test command: every test of pilfer, in the dev (g++ debug + assertions)
# and tsan (clang++-14 ThreadSanitizer) builds, plus the outside-consumer
# example against an installed pilfer. Fails on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"
JOBS="${PILFER_JOBS:-$(nproc)}"
for preset in dev tsan; do
  echo "==> [$preset] configure + build" >&2
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$JOBS"
  echo "==> [$preset] ctest" >&2
  ctest --preset "$preset" -j "$JOBS" --timeout 900
done
if [ -x scripts/consumer-check.sh ]; then
  echo "==> outside consumer of an installed pilfer" >&2
  scripts/consumer-check.sh
fi
echo "==> all tests passed" >&2
