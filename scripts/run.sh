#!/usr/bin/env bash
# The main command: build pilfer (release), then print its vetting report and run the examples.
#
# The report has four parts, each produced by a program built here from the same headers users link:
#   1. traceability  — every SPEC.md requirement and its evidence (model / property / stress / unit)
#   2. model checker — RC11 litmus corpus verdicts, deque/injector/pool scenarios (executions, time), and
#                      the order-sensitivity table (which weakened order the checker catches)
#   3. conformance   — requirement x implementation (pilfer, references, oneTBB, moodycamel, mutants)
#   4. examples      — programs using the deque, injector and pool, each checking its own result
# Everything is written under build/release/report/ as Markdown (+ JSON for conformance).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"
JOBS="${PILFER_JOBS:-$(nproc)}"
cmake --preset release -DPILFER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset release -j "$JOBS"
B=build/release
OUT=$B/report
mkdir -p "$OUT"
status=0
section() { printf '\n==================== %s ====================\n' "$1"; }

section "1. traceability (SPEC.md requirement -> evidence)"
$B/spec/pilfer_spec_check --root . --markdown "$OUT/traceability.md" || status=1

section "2a. model checker: litmus corpus under RC11"
$B/models/tools/pilfer-litmus --check models/litmus/expected.tsv | tail -n 70 || status=1
section "2b. model checker: scenarios on the real headers"
$B/models/scenarios/pilfer_model_summary || status=1
section "2c. model checker: order sensitivity (weaken one tagged order at a time)"
$B/models/scenarios/pilfer_model_sensitivity "$OUT/sensitivity.tsv" || status=1

section "3. conformance (requirement x implementation, mutants)"
$B/conformance/pilfer_conformance_report --out "$OUT" || status=1

section "4. examples"
shopt -s nullglob
for ex in $B/examples/example_*; do
  [ -x "$ex" ] || continue
  echo "--> $(basename "$ex")"
  "$ex" || status=1
done

section "summary"
echo "report files: $OUT"
if [ $status -eq 0 ]; then echo "pilfer vetting: every check passed"; else echo "pilfer vetting: SOME CHECK FAILED (see above)"; fi
exit $status
