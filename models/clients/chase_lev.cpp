// models/clients/chase_lev.cpp — GenMC's Chase–Lev client (work-stealing deque, fixed buffer).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/chase-lev (chase-lev.c,
// deque.h, variants/chase-lev0.c) at the commit in expected.tsv; GenMC runs it with
// -disable-race-detection. Parameters: buffer of 10, N = 10; the owner pushes 5 times, pops 3 times,
// pushes 2 times; one thief steals once. GenMC's count: expected.tsv (65 under rc11, both v0.11
// and the commit read).
//
// Shape: push reads bottom relaxed and top acquire, writes the slot and publishes bottom + 1 with a
// release store; pop decrements bottom (relaxed), seq_cst fence, reads top relaxed, and for the last
// element races the thieves with an acq_rel CAS on top; steal reads top relaxed, seq_cst fence, bottom
// acquire, reads the slot and claims it with a release CAS. The buffer is plain memory in GenMC's
// program, read by a thief concurrently with the owner's writes (the run disables race detection),
// so here its slots are relaxed atomics. No assertion (GenMC's program has none): the test is the
// execution count.
#include "client.hpp"

#include <cstdint>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr std::uint64_t slots = 10;

struct chase_lev : scenario {
  S::atomic<std::uint64_t> bottom{0}, top{0};
  S::atomic<std::int64_t> buffer[slots];

  chase_lev() : scenario(2) {}

  bool try_push(std::int64_t v) {
    const std::uint64_t b = bottom.load(PILFER_SITE("cl.push.b", relaxed));
    const std::uint64_t t = top.load(PILFER_SITE("cl.push.t", acquire));
    if (static_cast<std::int64_t>(b - t) >= static_cast<std::int64_t>(slots)) return false;
    buffer[b % slots].store(v, PILFER_SITE("cl.push.slot", relaxed));
    bottom.store(b + 1, PILFER_SITE("cl.push.publish", release));
    return true;
  }
  bool try_pop(std::int64_t* v) {
    const std::uint64_t b = bottom.load(PILFER_SITE("cl.pop.b", relaxed));
    bottom.store(b - 1, PILFER_SITE("cl.pop.reserve", relaxed));
    S::fence(PILFER_SITE("cl.pop.fence", seq_cst));
    std::uint64_t t = top.load(PILFER_SITE("cl.pop.t", relaxed));
    const auto len = static_cast<std::int64_t>(b - t);
    if (len <= 0) {
      bottom.store(b, PILFER_SITE("cl.pop.restore_empty", relaxed));
      return false;
    }
    *v = buffer[(b - 1) % slots].load(PILFER_SITE("cl.pop.slot", relaxed));
    if (len > 1) return true;
    // GenMC's source asks acq_rel for the failure order too; clang lowers it to acquire.
    const bool won = top.compare_exchange_strong(t, t + 1, PILFER_SITE("cl.pop.cas", acq_rel),
                                                 PILFER_SITE("cl.pop.cas_fail", acquire));
    bottom.store(b, PILFER_SITE("cl.pop.restore", relaxed));
    return won;
  }
  bool try_steal(std::int64_t* v) {
    std::uint64_t t = top.load(PILFER_SITE("cl.steal.t", relaxed));
    S::fence(PILFER_SITE("cl.steal.fence", seq_cst));
    const std::uint64_t b = bottom.load(PILFER_SITE("cl.steal.b", acquire));
    if (static_cast<std::int64_t>(b - t) <= 0) return false;
    *v = buffer[t % slots].load(PILFER_SITE("cl.steal.slot", relaxed));
    // Failure order release in GenMC's source: clang lowers it to relaxed.
    return top.compare_exchange_strong(t, t + 1, PILFER_SITE("cl.steal.cas", release),
                                       PILFER_SITE("cl.steal.cas_fail", relaxed));
  }

  void thread(unsigned index) override {
    std::int64_t v = 0;
    if (index == 0) {
      std::int64_t next = 1;
      for (int i = 0; i < 5; ++i)
        if (try_push(next)) ++next;
      for (int i = 0; i < 3; ++i) (void)try_pop(&v);
      for (int i = 0; i < 2; ++i)
        if (try_push(next)) ++next;
    } else {
      (void)try_steal(&v);
    }
  }
};

}  // namespace

client chase_lev_client() {
  return {.name = "chase_lev",
          .genmc_path = "tests/correct/data-structures/chase-lev",
          .parameters = "N=10; owner push x5, pop x3, push x2; 1 thief steal x1",
          .make = [] { return std::make_unique<chase_lev>(); }};
}

}  // namespace pilfer::model::clients
