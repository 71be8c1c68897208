#!/usr/bin/env bash
# scripts/bench.sh [--quick|--full] — pilfer next to its peers, written to bench/results/:
#   report.md (targets of issues 11 and 12, every row with median, cv and ratio to the best peer, memory, latency,
#   instruction counts), results.json, ratios.png and speedup.png (gnuplot), raw/ (every sample).
# Builds the release preset's bench programs, the OpenMP peers (g++/libgomp, clang++-14/libomp) and the Rust
# peers (bench/rust/, cargo --offline against Debian's packaged crates), then runs ROUNDS interleaved rounds —
# every program once per round, in a different order each round — so that a burst of load on the shared
# machine spreads over all implementations instead of hitting one.
#   --quick (default)  3 rounds x 3 repetitions, 100 latency samples: a few minutes
#   --full             5 rounds x 5 repetitions, 300 latency samples
# Installs the bench-only Debian packages when missing (scripts/bootstrap.sh --bench).
# A workload whose pilfer row or best peer's row came out noisy (cv >= 0.2) is measured again, every
# implementation of it in ROUNDS interleaved rounds of its own, up to RERUNS times (quick 1, full 2); the report
# keeps, per workload, the measurement whose worst cv (pilfer rows and best peer) is lowest and says so. Samples
# of different measurements are never mixed: each is one window of time shared by all implementations.
# Environment: BENCH_PROGRAMS="pool deque" runs a subset (of: deque pool graph gomp llvm rust memory latency);
# BENCH_OUT=dir writes there instead of bench/results; BENCH_ROUNDS=N overrides the number of rounds;
# BENCH_RERUNS=N the number of re-measurements of noisy workloads (0: none); BENCH_NOISY_CV=X the cv from which
# a row counts as noisy (0.2); PILFER_BENCH_BUILD=dir builds there instead of build/release (apart from other
# release work).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=quick
case "${1:-}" in
  ""|--quick) mode=quick ;;
  --full) mode=full ;;
  *) echo "usage: scripts/bench.sh [--quick|--full]" >&2; exit 2 ;;
esac
if [ "$mode" = quick ]; then ROUNDS=3 REPS=3 LAT_SAMPLES=100 DEQUE_MIN=0.1 RERUNS=1; else ROUNDS=5 REPS=5 LAT_SAMPLES=300 DEQUE_MIN=0.3 RERUNS=2; fi
ROUNDS="${BENCH_ROUNDS:-$ROUNDS}"
case "$ROUNDS" in ''|*[!0-9]*|0) echo "bench: BENCH_ROUNDS must be a positive integer" >&2; exit 2 ;; esac
RERUNS="${BENCH_RERUNS:-$RERUNS}"
case "$RERUNS" in ''|*[!0-9]*) echo "bench: BENCH_RERUNS must be a non-negative integer" >&2; exit 2 ;; esac
NOISY_CV="${BENCH_NOISY_CV:-0.2}"
if ! python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(0 if v >= 0 else 1)' "$NOISY_CV" 2>/dev/null; then
  echo "bench: BENCH_NOISY_CV must be a non-negative number" >&2; exit 2
fi
ICOUNT_OPS=1000
start=$(date +%s)
# The commit the programs are built from (recorded before the build, not at the end of the run).
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib bench || echo '+local changes')"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

scripts/bootstrap.sh --bench
export CCACHE_DIR="${CCACHE_DIR:-/work/.ccache}"
B="${PILFER_BENCH_BUILD:-build/release}"
JOBS="${PILFER_JOBS:-2}"
cmake --preset release -B "$B" -DPILFER_BUILD_BENCH=ON >/dev/null
cmake --build "$B" -j "$JOBS" --target bench_deque bench_pool bench_graph bench_memory bench_latency bench_icount \
  bench_omp_gomp bench_omp_llvm parallel_capacity
RUST_TARGET="$PWD/$B/bench/rust-target"
(cd bench/rust && CARGO_TARGET_DIR="$RUST_TARGET" cargo build --release --offline --quiet)
RUST="$RUST_TARGET/release/pilfer-rust-peers"

out="${BENCH_OUT:-bench/results}"
raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw/callgrind"

# Google Benchmark programs run one row per process: a row that crashes or hangs (a peer's helping
# waits can overflow the stack) is recorded in failures.tsv as that row's verdict, and every other row
# still runs. $1 = binary, $2 = output prefix, $3 = round, the rest = extra arguments. Writes into $dir
# (the first measurement: $raw); with ROW_GROUPS set (workload groups, one per line: the row name before
# its "[impl]"), only the rows of those groups run.
ROW_TIMEOUT="${BENCH_ROW_TIMEOUT:-600}"
ROW_GROUPS=""
dir=""
round_prefix=""
in_groups() {  # $1 = row name: is its group listed in ROW_GROUPS (or is no list set)?
  [ -z "$ROW_GROUPS" ] && return 0
  grep -qxF -- "${1%%\[*}" <<< "$ROW_GROUPS"
}
run_rows() {
  local bin=$1 prefix=$2 r=$3 name i=0 rc
  local raw=$dir
  shift 3
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    in_groups "$name" || continue
    i=$((i + 1))
    # The filter is a regular expression: anchor the exact name, every bracket as a one-character wildcard.
    rc=0
    timeout "$ROW_TIMEOUT" "$bin" "$@" --benchmark_filter="^$(printf '%s' "$name" | sed 's/[][]/./g')\$" \
      --benchmark_out="$raw/$prefix-r$r-$i.json" --benchmark_out_format=json >/dev/null 2>"$raw/$prefix-r$r-$i.err" || rc=$?
    if [ "$rc" -ne 0 ]; then
      rm -f "$raw/$prefix-r$r-$i.json"
      local what="exit $rc"
      [ "$rc" -eq 124 ] && what="timed out after ${ROW_TIMEOUT} s"
      [ "$rc" -gt 128 ] && [ "$rc" -ne 124 ] && what="killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo '?'))"
      # A wrong result the row reported itself (bench/row_check.hpp) comes first: the crash may follow from it.
      local verdict
      verdict=$(grep -m1 '^bench-verdict: ' "$raw/$prefix-r$r-$i.err" | sed 's/^bench-verdict: //' || true)
      [ -n "$verdict" ] && what="wrong result: $verdict; then $what"
      printf '%s\t%sround %s\t%s\n' "$name" "$round_prefix" "$r" "$what" >> "$failures"
      echo "bench: $name (round $r): $what" >&2
    elif grep -q '^bench-verdict: ' "$raw/$prefix-r$r-$i.err"; then
      # The row finished but reported a wrong result: its timings are not kept (report.py drops errored
      # runs), the verdict is.
      printf '%s\t%sround %s\twrong result: %s\n' "$name" "$round_prefix" "$r" \
        "$(grep -m1 '^bench-verdict: ' "$raw/$prefix-r$r-$i.err" | sed 's/^bench-verdict: //' || true)" >> "$failures"
      echo "bench: $name (round $r): wrong result" >&2
    else
      rm -f "$raw/$prefix-r$r-$i.err"
    fi
  done < <("$bin" --benchmark_list_tests)
}

# One round: every program once, in the order given (into $dir; with ROW_GROUPS, only those rows).
run_program() {  # $1 = program id, $2 = round
  local r=$2 raw=$dir
  case "$1" in
    deque) run_rows "$B/bench/bench_deque" deque "$r" --benchmark_repetitions="$REPS" --benchmark_min_time="$DEQUE_MIN" ;;
    pool) run_rows "$B/bench/bench_pool" pool "$r" --benchmark_repetitions="$REPS" ;;
    graph) run_rows "$B/bench/bench_graph" graph "$r" --benchmark_repetitions="$REPS" ;;
    gomp) run_rows "$B/bench/bench_omp_gomp" omp_gomp "$r" --benchmark_repetitions="$REPS" ;;
    llvm) run_rows "$B/bench/omp_llvm/bench_omp_llvm" omp_llvm "$r" --benchmark_repetitions="$REPS" ;;
    rust) if [ -z "$ROW_GROUPS" ]; then
            "$RUST" --reps "$REPS" > "$raw/rust-r$r.jsonl"
          else
            local g
            while IFS= read -r g; do
              [ -n "$g" ] && "$RUST" --reps "$REPS" --filter "$g[" >> "$raw/rust-r$r.jsonl"
            done <<< "$ROW_GROUPS"
          fi ;;
    memory) [ -n "$ROW_GROUPS" ] && return 0
            for impl in pilfer pilfer_task_group tbb_arena_enqueue mutex_worker_pool single_queue_pool; do
              "$B/bench/bench_memory" "$impl" >> "$raw/memory-r$r.jsonl"
            done ;;
    latency) [ -n "$ROW_GROUPS" ] && return 0
             for impl in pilfer tbb_arena_enqueue mutex_worker_pool single_queue_pool; do
               "$B/bench/bench_latency" "$impl" "$LAT_SAMPLES" 5 >> "$raw/latency-r$r.jsonl"
             done ;;
  esac
}
read -r -a programs <<< "${BENCH_PROGRAMS:-deque pool graph gomp llvm rust memory latency}"
for p in "${programs[@]}"; do
  case "$p" in deque|pool|graph|gomp|llvm|rust|memory|latency) ;; *) echo "bench: unknown program '$p' in BENCH_PROGRAMS" >&2; exit 2 ;; esac
done
# The machine's parallel speed now and after the rows (bench/parallel_capacity.cpp): the report warns when it
# is well below the core count, since then no multi-threaded row measures scaling.
capacity_start=$("$B/bench/parallel_capacity" | sed -n 's/^capacity=\([0-9.]*\).*/\1/p')
failures="$raw/failures.tsv"
run_rounds() {  # $1 = label for the progress lines
  local r p
  for r in $(seq 1 "$ROUNDS"); do
    # Rotate the order each round.
    local order=("${programs[@]:$(( (r - 1) % ${#programs[@]} ))}" "${programs[@]:0:$(( (r - 1) % ${#programs[@]} ))}")
    for p in "${order[@]}"; do
      echo "bench: $1round $r/$ROUNDS: $p" >&2
      run_program "$p" "$r"
    done
  done
}
dir=$raw
run_rounds ""
# Noisy workloads, measured again (raw/rerun-K/; report.py keeps the least noisy measurement of each).
for k in $(seq 1 "$RERUNS"); do
  ROW_GROUPS=$(python3 bench/report.py --noisy "$NOISY_CV" "$raw")
  [ -n "$ROW_GROUPS" ] || break
  dir="$raw/rerun-$k"
  round_prefix="re-measure $k, "
  mkdir -p "$dir"
  printf '%s\n' "$ROW_GROUPS" > "$dir/groups.txt"
  echo "bench: re-measuring noisy workloads ($k/$RERUNS): $(tr '\n' ' ' <<< "$ROW_GROUPS")" >&2
  run_rounds "re-measure $k: "
done
ROW_GROUPS=""
round_prefix=""
dir=$raw

echo "bench: callgrind instruction counts" >&2
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$raw/callgrind/cg.out" \
  "$B/bench/bench_icount" "$ICOUNT_OPS" >/dev/null 2>"$raw/callgrind/valgrind.log"

{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit=$commit"
  echo "mode=--$mode${BENCH_PROGRAMS:+ (BENCH_PROGRAMS=$BENCH_PROGRAMS)}"
  echo "rounds=$ROUNDS"
  echo "reps=$REPS"
  echo "reruns=$RERUNS"
  echo "noisy_cv=$NOISY_CV"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cores=$(nproc)"
  echo "kernel=$(uname -sr)"
  echo "compilers=$(g++ --version | head -1), $(clang++-14 --version | head -1), $(rustc --version)"
  echo "load_start=$load_start"
  echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "capacity_start=$capacity_start"
  echo "capacity_end=$("$B/bench/parallel_capacity" | sed -n 's/^capacity=\([0-9.]*\).*/\1/p')"
  echo "seconds=$(( $(date +%s) - start ))"
  echo "icount_ops=$ICOUNT_OPS"
} > "$raw/meta.env"

python3 bench/report.py "$raw" "$out"
(cd "$out" && gnuplot plots.gp)
echo "bench: wrote $out/report.md, results.json, ratios.png, speedup.png in $(( $(date +%s) - start )) s" >&2
