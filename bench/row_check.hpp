// bench/row_check.hpp — a row whose result is wrong (items lost, a task run twice) is that
// implementation's verdict on the workload, and must be readable as one.
//
// Google Benchmark 1.7.1 (Debian bookworm) can crash in ComputeStats when a repetition was skipped with
// an error (google/benchmark#1406, fixed upstream in 2026): the row then dies with SIGSEGV and its
// console line is lost. So the reason goes to stderr first, which scripts/bench.sh keeps in raw/ and
// quotes in the failure table of the report, whatever happens next.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>

namespace pilfer::bench {

/// Report `what` as this row's wrong result unless `ok`: one "bench-verdict:" line on stderr, then
/// SkipWithError.
inline void check(benchmark::State& state, bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "bench-verdict: %s\n", what);
  std::fflush(stderr);
  state.SkipWithError(what);
}

}  // namespace pilfer::bench
