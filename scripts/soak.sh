#!/usr/bin/env bash
# scripts/soak.sh MINUTES — soak every stress program under ThreadSanitizer for MINUTES minutes.
#
# Builds the stress programs in build/tsan (clang++-14 -fsanitize=thread; only the stress targets) unless
# PILFER_SOAK_BUILD names a directory that has them, then cycles through every program and scenario — plain,
# with --chaos (seeded yields/sleeps at atomic operations) and with --oversubscribe (4 x cores workers) —
# in runs of PILFER_SOAK_RUN_SECONDS (default 30) with a fresh seed each, until the time is up.
# After every run it prints a progress line (elapsed, runs, operations, failures); at the end a summary
# table per program/configuration, and the replay command of every failed run (logs kept in the log dir).
# Exit status: 0 when no run failed, 1 otherwise, 2 on bad input.
set -uo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/soak.sh MINUTES   (a whole number of minutes >= 1)"
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt 100000 ]; then
  echo "soak.sh: bad arguments '$*' — $usage" >&2
  exit 2
fi
minutes=$1
run_seconds=${PILFER_SOAK_RUN_SECONDS:-30}
if ! [[ "$run_seconds" =~ ^[0-9]+$ ]] || [ "$run_seconds" -lt 1 ]; then
  echo "soak.sh: PILFER_SOAK_RUN_SECONDS='$run_seconds' is not a whole number >= 1" >&2
  exit 2
fi

build=${PILFER_SOAK_BUILD:-build/tsan}
bin=$build/stress
programs=(stress_deque stress_injector stress_pool stress_pool_waits stress_graph)
missing=0
for p in "${programs[@]}"; do [ -x "$bin/$p" ] || missing=1; done
if [ $missing -eq 1 ]; then
  if [ -n "${PILFER_SOAK_BUILD:-}" ]; then
    echo "soak.sh: PILFER_SOAK_BUILD=$build lacks the stress programs in $bin" >&2
    exit 2
  fi
  echo "==> building the stress programs under TSan in $build" >&2
  export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"
  cmake --preset tsan -DPILFER_BUILD_TESTS=OFF -DPILFER_BUILD_MODELS=OFF -DPILFER_BUILD_BENCH=OFF \
        -DPILFER_BUILD_CONFORMANCE=OFF -DPILFER_BUILD_EXAMPLES=OFF -DPILFER_BUILD_STRESS=ON >/dev/null || exit 1
  for p in "${programs[@]}"; do
    cmake --build "$build" --target "$p" -j "${PILFER_JOBS:-2}" >/dev/null || { echo "soak.sh: building $p failed" >&2; exit 1; }
  done
fi

# One configuration per line: program and its arguments (each run adds --seconds and --seed).
configs=(
  "stress_deque --impl chase_lev"
  "stress_deque --impl chase_lev --topology chain"
  "stress_deque --impl mutex"
  "stress_injector --block small"
  "stress_injector --block large"
  "stress_pool --scenario spawn_storm"
  "stress_pool --scenario fork_join"
  "stress_pool --scenario submit_while_parking"
  "stress_pool --scenario shutdown_race"
  "stress_pool --scenario parallel_loops"
  "stress_pool_waits --scenario barrier"
  "stress_pool_waits --scenario wait_graph"
  "stress_pool_waits --scenario many_waiters"
  "stress_pool_waits --scenario join_fairness"
  "stress_pool_waits --scenario dropped_handles"
  "stress_graph --scenario dag"
  "stress_graph --scenario nested"
  "stress_deque --impl chase_lev --chaos 32"
  "stress_injector --block small --chaos 32"
  "stress_pool --scenario spawn_storm --chaos 32"
  "stress_pool --scenario submit_while_parking --oversubscribe"
  "stress_pool_waits --scenario barrier --oversubscribe"
  "stress_pool_waits --scenario barrier --chaos 32"
  "stress_pool_waits --scenario wait_graph --chaos 32"
  "stress_pool_waits --scenario wait_graph --oversubscribe"
  "stress_pool_waits --scenario many_waiters --chaos 32"
)

logdir=$(mktemp -d "${TMPDIR:-/tmp}/pilfer-soak.XXXXXX")
declare -A runs=() ops=() fails=() secs=()
failed_cmds=()
total_ops=0 total_fail=0 total_runs=0
start=$(date +%s)
end=$((start + minutes * 60))
i=0
fmt() { printf '%02d:%02d:%02d' $(($1 / 3600)) $(($1 % 3600 / 60)) $(($1 % 60)); }
echo "soak: $minutes min, runs of ${run_seconds}s, ${#configs[@]} configurations, logs in $logdir"
while [ "$(date +%s)" -lt "$end" ]; do
  cfg=${configs[$((i % ${#configs[@]}))]}
  i=$((i + 1))
  left=$((end - $(date +%s)))
  [ "$left" -lt 1 ] && break
  s=$run_seconds
  [ "$left" -lt "$s" ] && s=$left
  seed=$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))
  log="$logdir/run$i.log"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout --signal=KILL $((s * 4 + 120)) "$bin/"$cfg --seconds "$s" --seed "$seed" >"$log" 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  n=$(grep -oE 'ops=[0-9]+' "$log" | tail -1 | cut -d= -f2)
  n=${n:-0}
  runs[$cfg]=$(( ${runs[$cfg]:-0} + 1 ))
  ops[$cfg]=$(( ${ops[$cfg]:-0} + n ))
  secs[$cfg]=$(( ${secs[$cfg]:-0} + dt ))
  total_runs=$((total_runs + 1))
  total_ops=$((total_ops + n))
  if [ $rc -ne 0 ] || grep -q "WARNING: ThreadSanitizer" "$log"; then
    fails[$cfg]=$(( ${fails[$cfg]:-0} + 1 ))
    total_fail=$((total_fail + 1))
    failed_cmds+=("PILFER_SEED=$seed $bin/$cfg --seconds $s   (exit $rc, log $log)")
    status="FAIL (exit $rc)"
  else
    status=ok
    rm -f "$log"
  fi
  printf '[soak] %s / %s  runs=%d  ops=%d  failures=%d   last: %s: %s\n' "$(fmt $(( $(date +%s) - start )))" \
         "$(fmt $((minutes * 60)))" "$total_runs" "$total_ops" "$total_fail" "$cfg" "$status"
done

echo
echo "| program and options | runs | seconds | operations | failures |"
echo "|---|---:|---:|---:|---:|"
for cfg in "${configs[@]}"; do
  [ -n "${runs[$cfg]:-}" ] || continue
  printf '| `%s` | %d | %d | %d | %d |\n' "$cfg" "${runs[$cfg]}" "${secs[$cfg]}" "${ops[$cfg]}" "${fails[$cfg]:-0}"
done
printf '| **total** | %d | %d | %d | %d |\n' "$total_runs" "$(( $(date +%s) - start ))" "$total_ops" "$total_fail"
if [ "$total_fail" -ne 0 ]; then
  echo
  echo "failed runs (replay):"
  for c in "${failed_cmds[@]}"; do echo "  $c"; done
  exit 1
fi
rmdir "$logdir" 2>/dev/null || true
exit 0
