// models/clients/fib_bench.cpp — GenMC's fib_bench (SV-COMP's fib_bench with relaxed atomics): a
// program with a reachable assertion failure.
//
// Provenance: github.com/MPI-SWS/genmc, tests/wrong/safety/fib_bench (fib_bench.c,
// variants/fib_bench0.c) at the commit in expected.tsv. NUM = 5.
//
// Shape: i = j = 1. Thread 1 five times reads i and j (relaxed) and stores i + j to i; thread 2 the
// same storing to j; thread 3 reads i, then (if i < 144) j, and fails when either is >= 144 — which
// some interleaving reaches (i, j = 89, 144). The check stops at the first failure; how many
// executions it takes depends on the order the search tries alternatives (models/README.md).
#include "client.hpp"

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr int rounds = 5;

struct fib_bench : scenario {
  S::atomic<int> i{1}, j{1};

  fib_bench() : scenario(3) {}

  void thread(unsigned index) override {
    if (index < 2) {
      S::atomic<int>& target = index == 0 ? i : j;
      for (int k = 0; k < rounds; ++k) {
        const int a = i.load(PILFER_SITE("fib.i", relaxed));
        const int b = j.load(PILFER_SITE("fib.j", relaxed));
        target.store(a + b, PILFER_SITE("fib.store", relaxed));
      }
    } else {
      const bool reached = i.load(PILFER_SITE("fib.check_i", relaxed)) >= 144 ||
                           j.load(PILFER_SITE("fib.check_j", relaxed)) >= 144;
      PILFER_MODEL_ASSERT(!reached);
    }
  }
};

}  // namespace

client fib_bench_client() {
  return {.name = "fib_bench",
          .genmc_path = "tests/wrong/safety/fib_bench",
          .parameters = "NUM=5: 2 writers x 5 rounds, 1 checker thread",
          .make = [] { return std::make_unique<fib_bench>(); },
          .expected_failure = "assertion"};
}

}  // namespace pilfer::model::clients
