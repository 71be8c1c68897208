// models/clients/linuxrwlocks.cpp — GenMC's Linux reader-writer spinlock client.
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/linuxrwlocks (linuxrwlocks.c,
// variants/linuxrwlocks0.c) at the commit in expected.tsv. GenMC's run: -unroll=3
// -DCONFIG_RWLOCK_READERS=0 -DCONFIG_RWLOCK_WRITERS=0 -DCONFIG_RWLOCK_RDWR=2: two threads, each takes
// the lock for reading (reads the shared datum), releases it, then takes it for writing (writes
// the datum), releases it.
//
// Shape: one counter starting at the bias 0x100000. read_lock: fetch_sub 1 acquire; while the old
// value was <= 0 { fetch_add 1 relaxed; await counter > 0 (relaxed; GenMC's spin-assume: an assume
// here); fetch_sub 1 acquire again }. write_lock: the same with the whole bias and "== bias".
// Unlocks are fetch_add release. The retry loops run at most 3 times (-unroll=3). The shared datum
// is a checker cell: a reader and a writer inside together would be a data race.
#include "client.hpp"

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr int bias = 0x00100000;
constexpr unsigned unroll = 3;

struct linuxrwlocks : scenario {
  S::atomic<int> lock{bias};
  S::cell<int> shared{0};
  // true: a failed attempt (take, undo, await) blocks the execution — its writes cancel out, and
  // GenMC (since v0.6) turns such a loop into assume(the first take succeeded); false: it retries
  // (GenMC <= v0.5).
  bool block_failed_attempts;

  explicit linuxrwlocks(bool block_failed) : scenario(2), block_failed_attempts(block_failed) {}

  void read_lock() {
    int prior = lock.fetch_sub(1, PILFER_SITE("rw.rlock", acquire));
    assume(prior > 0 || !block_failed_attempts);
    for (loop_bound bound(unroll); prior <= 0;) {
      bound.enter();
      (void)lock.fetch_add(1, PILFER_SITE("rw.rlock.undo", relaxed));
      (void)spin_until(lock, [](int v) { return v > 0; }, PILFER_SITE("rw.rlock.await", relaxed));
      prior = lock.fetch_sub(1, PILFER_SITE("rw.rlock.retry", acquire));
    }
  }
  void write_lock() {
    int prior = lock.fetch_sub(bias, PILFER_SITE("rw.wlock", acquire));
    assume(prior == bias || !block_failed_attempts);
    for (loop_bound bound(unroll); prior != bias;) {
      bound.enter();
      (void)lock.fetch_add(bias, PILFER_SITE("rw.wlock.undo", relaxed));
      (void)spin_until(lock, [](int v) { return v == bias; }, PILFER_SITE("rw.wlock.await", relaxed));
      prior = lock.fetch_sub(bias, PILFER_SITE("rw.wlock.retry", acquire));
    }
  }
  void read_unlock() { (void)lock.fetch_add(1, PILFER_SITE("rw.runlock", release)); }
  void write_unlock() { (void)lock.fetch_add(bias, PILFER_SITE("rw.wunlock", release)); }

  void thread(unsigned) override {
    read_lock();
    (void)shared.read();
    read_unlock();
    write_lock();
    shared.write() = 1;
    write_unlock();
  }
};

}  // namespace

client linuxrwlocks_client() {
  return {.name = "linuxrwlocks",
          .genmc_path = "tests/correct/data-structures/linuxrwlocks",
          .parameters = "-unroll=3; RDWR=2: 2 threads, each read-lock/read/unlock then write-lock/write/unlock",
          .make = [] { return std::make_unique<linuxrwlocks>(true); }};
}

client linuxrwlocks_loops_client() {
  return {.name = "linuxrwlocks_loops",
          .genmc_path = "tests/correct/data-structures/linuxrwlocks",
          .parameters = "-unroll=3; RDWR=2; failed attempts retry (GenMC <= v0.5)",
          .make = [] { return std::make_unique<linuxrwlocks>(false); }};
}

}  // namespace pilfer::model::clients
