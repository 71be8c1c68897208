// models/clients/ticketlock.cpp — GenMC's ticket lock client.
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/ticketlock (main.c,
// ticketlock.c, variants/main0.c) at the commit in expected.tsv; default N = 2 threads.
//
// Shape: acquire = ticket = fetch_add(next, 1) relaxed, await owner == ticket (acquire; an assume,
// GenMC's spin-assume); release = owner relaxed, store owner + 1 release. Inside, each thread writes
// a plain shared int and asserts it reads its own value back (GenMC's program passes a null argument
// to both threads, so both write 0). The shared int is a checker cell.
#include "client.hpp"

namespace pilfer::model::clients {
namespace {

using S = checker_sync;

struct ticketlock : scenario {
  S::atomic<int> next{0}, owner{0};
  S::cell<int> shared{0};

  ticketlock() : scenario(2) {}

  void thread(unsigned) override {
    const int ticket = next.fetch_add(1, PILFER_SITE("ticket.take", relaxed));
    (void)spin_until(owner, [ticket](int v) { return v == ticket; }, PILFER_SITE("ticket.await", acquire));
    shared.write() = 0;
    PILFER_MODEL_ASSERT(shared.read() == 0);
    const int o = owner.load(PILFER_SITE("ticket.owner", relaxed));
    owner.store(o + 1, PILFER_SITE("ticket.release", release));
  }
};

}  // namespace

client ticketlock_client() {
  return {.name = "ticketlock",
          .genmc_path = "tests/correct/data-structures/ticketlock",
          .parameters = "N=2 threads, one critical section each",
          .make = [] { return std::make_unique<ticketlock>(); }};
}

}  // namespace pilfer::model::clients
