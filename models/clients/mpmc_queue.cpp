// models/clients/mpmc_queue.cpp — GenMC's bounded MPMC queue client (CDSChecker's mpmc-queue).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/mpmc-queue (mpmc-queue.c,
// mpmc-queue.h, variants/main0.c) at the commit in expected.tsv. GenMC's run: -unroll=3, default
// parameters: the main thread first writes one element (17), then one writer thread writes one
// element and one reader thread reads until the queue looks empty; main joins both.
//
// Shape: a queue of sizeof(int32_t) = 4 slots; m_rdwr packs the read index (high 16 bits) and the
// write index (low 16 bits); m_read / m_written count consumed / published elements. write_prepare:
// m_rdwr acquire, then CAS it (acq_rel) to claim a write index, returning null when full; await
// m_read == the read index (acquire). read_fetch: the same claiming a read index (null when empty),
// await m_written == the write index read. Publish / consume are fetch_add release. GenMC's
// spin-assume turns both awaits into assume() and both claim loops — which write nothing when their
// CAS fails — into a single try with assume(CAS succeeded); the reader's loop runs at most 3 times
// (-unroll=3). Slots are checker cells. No assertion in GenMC's program.
#include "client.hpp"

#include <cstdint>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr unsigned slots = sizeof(std::int32_t);
constexpr unsigned unroll = 3;

struct mpmc_queue : scenario {
  S::cell<std::int32_t> array[slots];
  S::atomic<unsigned> rdwr{0u}, read{0u}, written{0u};

  mpmc_queue() : scenario(2) {}

  // nullptr when the queue is full. (CAS failure order acq_rel in GenMC's source: clang lowers it
  // to acquire.)
  S::cell<std::int32_t>* write_prepare() {
    unsigned word = rdwr.load(PILFER_SITE("mpmc.wp.rdwr", acquire));
    const unsigned rd = (word >> 16) & 0xFFFF, wr = word & 0xFFFF;
    if (wr == ((rd + slots) & 0xFFFF)) return nullptr;
    assume(rdwr.compare_exchange_weak(word, (rd << 16) | ((wr + 1) & 0xFFFF), PILFER_SITE("mpmc.wp.claim", acq_rel),
                                      PILFER_SITE("mpmc.wp.claim_fail", acquire)));
    (void)spin_until(read, [rd](unsigned v) { return (v & 0xFFFF) == rd; }, PILFER_SITE("mpmc.wp.await", acquire));
    return &array[wr % slots];
  }
  void write_publish() { (void)written.fetch_add(1, PILFER_SITE("mpmc.publish", release)); }

  // nullptr when the queue is empty.
  S::cell<std::int32_t>* read_fetch() {
    unsigned word = rdwr.load(PILFER_SITE("mpmc.rf.rdwr", acquire));
    const unsigned rd = (word >> 16) & 0xFFFF, wr = word & 0xFFFF;
    if (wr == rd) return nullptr;
    assume(rdwr.compare_exchange_weak(word, word + (1u << 16), PILFER_SITE("mpmc.rf.claim", acq_rel),
                                      PILFER_SITE("mpmc.rf.claim_fail", acquire)));
    (void)spin_until(written, [wr](unsigned v) { return (v & 0xFFFF) == wr; }, PILFER_SITE("mpmc.rf.await", acquire));
    return &array[rd % slots];
  }
  void read_consume() { (void)read.fetch_add(1, PILFER_SITE("mpmc.consume", release)); }

  void before() override {
    S::cell<std::int32_t>* bin = write_prepare();
    bin->write() = 17;
    write_publish();
  }
  void thread(unsigned index) override {
    if (index == 0) {
      S::cell<std::int32_t>* bin = write_prepare();
      bin->write() = 1;
      write_publish();
    } else {
      loop_bound bound(unroll);
      for (;;) {
        bound.enter();
        if (read_fetch() == nullptr) break;
        read_consume();
      }
    }
  }
};

}  // namespace

client mpmc_queue_client() {
  return {.name = "mpmc_queue",
          .genmc_path = "tests/correct/data-structures/mpmc-queue",
          .parameters = "-unroll=3; 4 slots, 1 element from main, 1 writer, 1 reader (reads until empty)",
          .make = [] { return std::make_unique<mpmc_queue>(); }};
}

}  // namespace pilfer::model::clients
