// models/clients/symmetric_loops.cpp — GenMC's symmetry-reduction clients: ainc, conf-loop-small,
// conf-loop.
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/sr/{ainc,conf-loop-small,conf-loop}
// (variants/*.c) at the commit in expected.tsv. GenMC (symmetry reduction on by default since
// v0.10) treats two threads as symmetric when the program says so (__VERIFIER_spawn_symmetric) or
// when the same parent spawns them with the same function and argument and no memory access in
// between (GenMCDriver::isSymmetricToSR); here the scenario declares the same groups with
// scenario::symmetric (pilfer_model_clients --no-symmetry explores every permutation instead).
//
// Shape. ainc: N = 2 threads, each fetch_add(x, 1) relaxed. conf-loop(-small): x is an atomic_int
// accessed with C's default seq_cst; thread_n = `do r = x; while (!CAS(x, r, 42))`, thread_1 =
// `do r = x; while (!CAS(x, r, 0))`, thread_2 = one CAS(x, 42 -> 0). A failed CAS writes nothing,
// so GenMC's spin-assume turns each retry loop into `r = x; assume(CAS(x, r, v))`. conf-loop-small
// spawns thread_2, three symmetric thread_n, thread_1; conf-loop spawns thread_1, thread_2, three
// symmetric thread_n, thread_1, thread_2.
#include "client.hpp"

#include <vector>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;

struct ainc : scenario {
  S::atomic<int> x{0};
  ainc() : scenario(2) { symmetric(0, 2); }
  void thread(unsigned) override { x.fetch_add(1, PILFER_SITE("ainc.add", relaxed)); }
};

enum class body { n, one, two };

struct conf_loop : scenario {
  S::atomic<int> x{0};
  std::vector<body> bodies;
  /// Each body that occurs more than once forms a group, as GenMC finds them.
  explicit conf_loop(std::vector<body> b) : scenario(static_cast<unsigned>(b.size())), bodies(std::move(b)) {
    for (body kind : {body::n, body::one, body::two}) {
      std::vector<unsigned> same;
      for (unsigned i = 0; i < bodies.size(); ++i)
        if (bodies[i] == kind) same.push_back(i);
      if (same.size() > 1) symmetric(same);
    }
  }
  /// `do r = x; while (!CAS(x, r, v))` as GenMC explores it: the last iteration only.
  void swap_in(int v) {
    int r = x.load(PILFER_SITE("conf.read", seq_cst));
    assume(x.compare_exchange_strong(r, v, PILFER_SITE("conf.cas", seq_cst), PILFER_SITE("conf.cas_fail", seq_cst)));
  }
  void thread(unsigned i) override {
    switch (bodies[i]) {
      case body::n: swap_in(42); break;
      case body::one: swap_in(0); break;
      case body::two: {
        int r = 42;
        (void)x.compare_exchange_strong(r, 0, PILFER_SITE("conf.once", seq_cst), PILFER_SITE("conf.once_fail", seq_cst));
        break;
      }
    }
  }
};

}  // namespace

client ainc_client() {
  return {.name = "ainc",
          .genmc_path = "tests/correct/sr/ainc",
          .parameters = "N=2 symmetric threads",
          .make = [] { return std::make_unique<ainc>(); }};
}

client conf_loop_small_client() {
  return {.name = "conf_loop_small",
          .genmc_path = "tests/correct/sr/conf-loop-small",
          .parameters = "thread_2, 3 symmetric thread_n, thread_1",
          .make = [] { return std::make_unique<conf_loop>(std::vector{body::two, body::n, body::n, body::n, body::one}); }};
}

client conf_loop_client() {
  return {.name = "conf_loop",
          .genmc_path = "tests/correct/sr/conf-loop",
          .parameters = "thread_1, thread_2, 3 symmetric thread_n, thread_1, thread_2",
          .make =
              [] {
                return std::make_unique<conf_loop>(
                    std::vector{body::one, body::two, body::n, body::n, body::n, body::one, body::two});
              },
          // Without symmetry (--no-symmetry) the run visits 2.8 million states: more than the
          // default table's 2^21 entries hold, and a table at its cap forgets states, so a graph
          // may be completed twice (at 2^21 it counted 14 graphs twice: 128 174 for GenMC's
          // 128 160). 2^23 entries (128 MiB, reached only without symmetry) forget none.
          .opts = [] {
            options o;
            o.memo_entries = std::size_t{1} << 23;
            return o;
          }()};
}

}  // namespace pilfer::model::clients
