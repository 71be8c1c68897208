#!/usr/bin/env bash
# The main command: build pilfer (release), then print its vetting report
# (conformance table, model-checker summary) and run the examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"
JOBS="${PILFER_JOBS:-$(nproc)}"
cmake --preset release -DPILFER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset release -j "$JOBS"
B=build/release
shopt -s nullglob
if [ -x $B/conformance/pilfer_conformance_report ]; then
  echo "==> conformance report" ; $B/conformance/pilfer_conformance_report --out $B/report
fi
if [ -x $B/models/pilfer_model_summary ]; then
  echo "==> model checker summary" ; $B/models/pilfer_model_summary
fi
for ex in $B/examples/example_*; do
  echo "==> $(basename "$ex")"; "$ex"
done
