// models/clients/spinlock.cpp — GenMC's test-and-test-and-set spinlock client.
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/spinlock (main.c, spinlock.c,
// variants/main0.c) at the commit in expected.tsv; default N = 2 threads, no loop bound.
//
// Shape: acquire = do { await lock == 0 (relaxed) } while (!CAS 0 -> 1 acquire/acquire); release =
// store 0 release. Inside, each thread writes its index to a plain shared int and asserts it reads
// it back (GenMC's assertion: mutual exclusion). GenMC's spin-assume turns the await into an assume
// and, since a failed CAS writes nothing, the retry loop into assume(CAS succeeded). The shared int
// is a checker cell: two threads inside together would also be a data race.
#include "client.hpp"

namespace pilfer::model::clients {
namespace {

using S = checker_sync;

struct spinlock : scenario {
  S::atomic<int> lock{0};
  S::cell<int> shared{0};

  spinlock() : scenario(2) {}

  void thread(unsigned index) override {
    (void)spin_until(lock, [](int v) { return v == 0; }, PILFER_SITE("spin.await", relaxed));
    cas_until(lock, 0, 1, PILFER_SITE("spin.cas", acquire), PILFER_SITE("spin.cas_fail", acquire));
    shared.write() = static_cast<int>(index);
    PILFER_MODEL_ASSERT(shared.read() == static_cast<int>(index));
    lock.store(0, PILFER_SITE("spin.release", release));
  }
};

}  // namespace

client spinlock_client() {
  return {.name = "spinlock",
          .genmc_path = "tests/correct/data-structures/spinlock",
          .parameters = "N=2 threads, one critical section each",
          .make = [] { return std::make_unique<spinlock>(); }};
}

}  // namespace pilfer::model::clients
