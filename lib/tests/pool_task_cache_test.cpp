// The pool's per-thread task block cache (detail/task_block_cache.hpp): a block freed on one thread
// is reused by that thread only (or, past its bound, parked in the depot for any thread), the cache is bounded, a throwing task constructor gives its block
// back, and tasks made through it run exactly once. Under AddressSanitizer the cache is off (ASan
// must see every free): the cache's own tests skip there, the pool test still runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pilfer/detail/task_block_cache.hpp"
#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;
using pilfer::detail::task_block_cache;
using pilfer::detail::task_memory;

namespace {

struct small_task {
  std::uint64_t words[4] = {};
};
struct throwing_task {
  explicit throwing_task(bool fail) {
    if (fail) throw std::runtime_error("constructor failed");
  }
  std::uint64_t words[4] = {};
};
constexpr std::size_t small_class = task_block_cache::class_of(sizeof(small_task));

bool cache_on() { return task_memory<pilfer::std_sync>::cached<small_task>(); }

// @verifies POOL-9
TEST(PoolTaskCache, BlockFreedOnAnotherThreadIsReusedByThatThreadOnly) {
  if (!cache_on()) GTEST_SKIP() << "task block cache off under AddressSanitizer";
  small_task* made = task_memory<pilfer::std_sync>::make<small_task>();
  const unsigned mine_before = task_block_cache::cached(small_class);
  void* reused = nullptr;
  unsigned theirs_after_free = 0;
  std::thread other([&] {
    const unsigned before = task_block_cache::cached(small_class);
    task_memory<pilfer::std_sync>::destroy(made);
    theirs_after_free = task_block_cache::cached(small_class) - before;
    small_task* again = task_memory<pilfer::std_sync>::make<small_task>();
    reused = again;
    task_memory<pilfer::std_sync>::destroy(again);
  });
  other.join();
  EXPECT_EQ(theirs_after_free, 1u) << "the free went to the freeing thread's cache";
  EXPECT_EQ(reused, static_cast<void*>(made)) << "that thread's next allocation reused it";
  EXPECT_EQ(task_block_cache::cached(small_class), mine_before) << "the allocating thread's cache is untouched";
}

// @verifies POOL-9
TEST(PoolTaskCache, BoundedPerClassAndEveryBlockDistinct) {
  if (!cache_on()) GTEST_SKIP() << "task block cache off under AddressSanitizer";
  std::thread t([] {
    const unsigned n = task_block_cache::per_class_limit * 2;
    std::vector<small_task*> v;
    std::set<small_task*> distinct;
    for (unsigned i = 0; i < n; ++i) {
      v.push_back(task_memory<pilfer::std_sync>::make<small_task>());
      distinct.insert(v.back());
    }
    EXPECT_EQ(distinct.size(), n) << "a block handed out twice";
    for (small_task* p : v) task_memory<pilfer::std_sync>::destroy(p);
    EXPECT_EQ(task_block_cache::cached(small_class), task_block_cache::per_class_limit);
    // Reuse drains the cache before asking the global allocator; again all distinct.
    distinct.clear();
    v.clear();
    for (unsigned i = 0; i < n; ++i) {
      v.push_back(task_memory<pilfer::std_sync>::make<small_task>());
      distinct.insert(v.back());
    }
    EXPECT_EQ(distinct.size(), n);
    EXPECT_EQ(task_block_cache::cached(small_class), 0u);
    for (small_task* p : v) task_memory<pilfer::std_sync>::destroy(p);
  });
  t.join();
}

// Tasks made on one thread and freed on another (an outside submitter and the workers): the freeing
// thread's full lists go to the depot, and the making thread, its own class empty, takes them before
// it asks the global allocator. Before, the maker paid malloc for every task and the freer sent every
// block past its 256 to free.
// @verifies POOL-9
TEST(PoolTaskCache, FullListsFreedOnOneThreadServeAnotherThreadsAllocations) {
  if (!cache_on()) GTEST_SKIP() << "task block cache off under AddressSanitizer";
  const unsigned limit = task_block_cache::per_class_limit;
  std::vector<small_task*> made;
  std::set<void*> freed;
  std::thread maker([&] {  // a fresh thread: its cache starts empty
    for (unsigned i = 0; i < 3 * limit; ++i) made.push_back(task_memory<pilfer::std_sync>::make<small_task>());
  });
  maker.join();
  std::thread freer([&] {  // fills its cache (limit), parks four half lists, keeps the rest
    for (small_task* p : made) {
      freed.insert(p);
      task_memory<pilfer::std_sync>::destroy(p);
    }
    EXPECT_EQ(task_block_cache::cached(small_class), limit);
  });
  freer.join();
  std::thread again([&] {  // empty cache: the depot's four lists come first (the newest parked)
    std::vector<small_task*> v;
    for (unsigned i = 0; i < 2 * limit; ++i) v.push_back(task_memory<pilfer::std_sync>::make<small_task>());
    unsigned reused = 0;
    for (small_task* p : v) reused += freed.count(p) != 0 ? 1u : 0u;
    EXPECT_EQ(reused, 2 * limit) << "allocations that went to the global allocator while the depot held blocks";
    for (small_task* p : v) task_memory<pilfer::std_sync>::destroy(p);
  });
  again.join();
}

// A burst: one thread makes far more tasks than a cache holds and other threads free them (an outside
// submitter feeding the workers). The freed blocks must come back to the maker through the depot, up to
// the depot's bound in bytes, instead of going to the global allocator one by one; with the depot's old
// bound of 32 lists (4 096 blocks) the maker paid malloc for all but 4 096 of them, and a million tasks
// submitted from outside spent half their time in malloc, page faults and the allocator's lock.
// @verifies POOL-9
TEST(PoolTaskCache, ABurstFreedElsewhereIsReusedUpToTheDepotsBound) {
  if (!cache_on()) GTEST_SKIP() << "task block cache off under AddressSanitizer";
  const std::size_t burst = 200'000;  // 12.8 MB of 64-byte blocks, well inside the depot's bound
  static_assert(burst * task_block_cache::smallest <= pilfer::detail::task_block_depot::max_bytes);
  std::vector<small_task*> made;
  made.reserve(burst);
  std::thread maker([&] {
    for (std::size_t i = 0; i < burst; ++i) made.push_back(task_memory<pilfer::std_sync>::make<small_task>());
  });
  maker.join();
  std::set<void*> freed(made.begin(), made.end());
  std::thread freer([&] {
    for (small_task* p : made) task_memory<pilfer::std_sync>::destroy(p);
  });
  freer.join();
  std::thread again([&] {
    std::vector<small_task*> v;
    v.reserve(burst);
    for (std::size_t i = 0; i < burst; ++i) v.push_back(task_memory<pilfer::std_sync>::make<small_task>());
    std::size_t reused = 0;
    for (small_task* p : v) reused += freed.count(p) != 0 ? 1u : 0u;
    // The freer's own cache keeps per_class_limit of them; the depot may also hold a few lists parked
    // by earlier tests, which are handed out first.
    EXPECT_GE(reused, burst - task_block_cache::per_class_limit - 16 * task_block_cache::list_size)
        << "blocks of the burst that went to the global allocator instead of back to the maker";
    for (small_task* p : v) task_memory<pilfer::std_sync>::destroy(p);
  });
  again.join();
}

// A thread that just parked a list keeps half of its blocks, so balanced bursts (make 2, free 2) stay
// in its own cache. Before, parking left it one block: every other operation then took a list from the
// depot or parked one, under the depot's mutex (an outside tester: 9x the cache's own cost, slower than
// malloc; a task_group round 25% slower, stuck there for 200,000 rounds).
// @verifies POOL-9
TEST(PoolTaskCache, AThreadThatParkedAListKeepsHalfItsBlocks) {
  if (!cache_on()) GTEST_SKIP() << "task block cache off under AddressSanitizer";
  std::thread t([] {
    const unsigned limit = task_block_cache::per_class_limit;
    std::vector<small_task*> v;  // more than a full cache, wherever they come from (the depot may hold lists)
    for (unsigned i = 0; i < 3 * limit; ++i) v.push_back(task_memory<pilfer::std_sync>::make<small_task>());
    bool parked = false;
    while (!v.empty() && !parked) {  // free one at a time until a free parks a list
      const unsigned before = task_block_cache::cached(small_class);
      task_memory<pilfer::std_sync>::destroy(v.back());
      v.pop_back();
      parked = task_block_cache::cached(small_class) < before;
    }
    ASSERT_TRUE(parked);
    const unsigned kept = task_block_cache::cached(small_class);
    EXPECT_GE(kept, limit / 2) << "a park left the thread almost no blocks";
    for (int round = 0; round < 1000; ++round) {
      small_task* a = task_memory<pilfer::std_sync>::make<small_task>();
      small_task* b = task_memory<pilfer::std_sync>::make<small_task>();
      task_memory<pilfer::std_sync>::destroy(a);
      task_memory<pilfer::std_sync>::destroy(b);
    }
    EXPECT_EQ(task_block_cache::cached(small_class), kept) << "balanced bursts left the thread's own cache";
    for (small_task* p : v) task_memory<pilfer::std_sync>::destroy(p);
  });
  t.join();
}

// @verifies POOL-9
TEST(PoolTaskCache, ThrowingConstructorGivesItsBlockBack) {
  if (!task_memory<pilfer::std_sync>::cached<throwing_task>()) GTEST_SKIP() << "task block cache off";
  constexpr std::size_t c = task_block_cache::class_of(sizeof(throwing_task));
  task_memory<pilfer::std_sync>::destroy(task_memory<pilfer::std_sync>::make<throwing_task>(false));
  const unsigned before = task_block_cache::cached(c);
  EXPECT_THROW((void)task_memory<pilfer::std_sync>::make<throwing_task>(true), std::runtime_error);
  EXPECT_EQ(task_block_cache::cached(c), before);
}

std::uint64_t fib_group(pilfer::pool& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  pilfer::task_group g(p);
  g.run([&] { a = fib_group(p, n - 1); });
  g.run([&] { b = fib_group(p, n - 2); });
  g.wait();
  return a + b;
}

// Tasks of every kind made through the cache, freed on whichever worker ran them, reused there:
// each runs once and the pool's counts balance.
// @verifies POOL-9
TEST(PoolTaskCache, TasksThroughTheCacheRunExactlyOnce) {
  pilfer::pool p({.threads = 2});
  counter ran{0};
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(p.submit([&] { return fib_group(p, 18); }).get(), 2584u);
    std::vector<pilfer::task_handle<int>> hs;
    for (int i = 0; i < 2000; ++i) {
      p.spawn([&] { add(ran); });
      hs.push_back(p.submit([i] { return i; }));
    }
    for (int i = 0; i < 2000; ++i) EXPECT_EQ(hs[static_cast<std::size_t>(i)].get(), i);
  }
  p.wait_idle();
  EXPECT_EQ(load(ran), 6000u);
  EXPECT_EQ(p.stats().pending, 0u);
}

}  // namespace
