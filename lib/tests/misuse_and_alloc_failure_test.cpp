// Misuse and allocation failure: pool construction under allocation failure, debug-build misuse checks of
// the pool and the deque (death tests, dev build only: not NDEBUG, not under sanitizers), and a mutex_deque
// batch steal whose allocation fails.
//
// Global operator new is replaced (pilfer/testing/failing_new.hpp; not under sanitizers, which own it) by one
// that fails the k-th allocation of the calling thread. Deterministic: the
// sweep over k covers every allocation the constructor makes (no seed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"
#include "pilfer/testing/failing_new.hpp"

using namespace pilfer_test;


namespace {

#if defined(PILFER_TESTING_FAILING_NEW)
// Bug (found in review): the constructor's catch joined only the workers
// before `started`; when configure_thread() threw after worker `started`'s
// thread had been created (it allocates the thread name), that thread was
// left joinable and ~thread called std::terminate. Every failing allocation
// of the constructor must surface as std::bad_alloc, and the pool built right
// after must work.
// @verifies POOL-12
TEST(PoolConstructorAllocFailure, ConstructorAllocationFailureThrowsCleanly) {
  int threw = 0, built = 0;
  for (int k = 0; k < 400; ++k) {
    pilfer::pool_options o;
    o.threads = 2;
    o.name = std::string(40, 'n');  // long: the per-thread name allocates
    o.topo = pilfer::topology::flat(2);
    try {
      pilfer::testing::fail_allocation_in = k;
      pilfer::pool p(std::move(o));
      pilfer::testing::fail_allocation_in = -1;
      ++built;
      EXPECT_EQ(p.submit([] { return 7; }).get(), 7);
    } catch (const std::bad_alloc&) {
      pilfer::testing::fail_allocation_in = -1;
      ++threw;
    }
  }
  EXPECT_GT(threw, 0);
  EXPECT_GT(built, 0);
  std::printf("constructor allocation sweep: %d threw bad_alloc, %d built\n", threw, built);
}
#endif

#if !defined(NDEBUG) && defined(PILFER_TESTING_FAILING_NEW)
// @verifies POOL-12
TEST(PoolMisuseDeathTest, ShutdownFromOwnTaskAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::pool p({.threads = 1});
        p.submit([&] { p.shutdown(); }).get();
      },
      "shutdown\\(\\) from a task of the same pool");
}

// @verifies POOL-12
TEST(PoolMisuseDeathTest, WaitIdleFromOwnTaskAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::pool p({.threads = 1});
        p.submit([&] { p.wait_idle(); }).get();
      },
      "wait_idle\\(\\) from a task of the same pool");
}

// A second get() is std::logic_error in every build (POOL-17), whatever the outcome was: a value,
// void, an exception. Before, a value or an error aborted on an assertion in a build without
// NDEBUG, and a void handle returned normally.
// @verifies POOL-17
TEST(PoolMisuse, GetTwiceThrowsLogicError) {
  pilfer::pool p({.threads = 1});
  auto value = p.submit([] { return std::string("x"); });
  EXPECT_EQ(value.get(), "x");
  EXPECT_THROW((void)value.get(), std::logic_error);
  auto nothing = p.submit([] {});
  nothing.get();
  EXPECT_THROW(nothing.get(), std::logic_error);
  auto failing = p.submit([] { throw std::runtime_error("once"); });
  EXPECT_THROW(failing.get(), std::runtime_error);
  EXPECT_THROW(failing.get(), std::logic_error);
}

// @verifies DQ-5
TEST(DequeMisuseDeathTest, PopFromSecondThreadAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::deque<int> d;
        d.push(1);
        pilfer::std_sync::thread t([&] { (void)d.pop(); });
        t.join();
      },
      "owner-only operation pop");
}

// @verifies DQ-5 DQ-6
TEST(DequeMisuseDeathTest, BatchStealIntoForeignDequeAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::deque<int> victim;
        pilfer::deque<int> dest;
        victim.push(1);
        victim.push(2);
        dest.push(0);  // binds dest to this thread
        pilfer::std_sync::thread t([&] { (void)victim.get_stealer().steal_batch(dest); });
        t.join();
      },
      "owner-only operation steal_batch \\(dest\\)");
}

// @verifies DQ-5
TEST(DequeMisuseDeathTest, DefaultStealerAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::deque<int>::stealer s;
        (void)s.steal();
      },
      "stealer not bound to a deque");
}
#endif

}  // namespace

// ---- mutex_deque (uses the operator new hook above) ----
#include "pilfer/mutex_deque.hpp"

#include <map>

namespace {
#if defined(PILFER_TESTING_FAILING_NEW)
// Bug (found in review): basic_mutex_deque::steal_batch removed the items from
// the victim, unlocked, and then inserted them into dest; a std::bad_alloc
// from that insertion lost them. Every allocation of the batch is failed in
// turn; afterwards every item must still be in the victim or in dest, once.
// @verifies DQ-3 DQ-6
TEST(MutexDequeAllocFailure, StealBatchAllocationFailureLosesNothing) {
  int threw = 0;
  for (int k = 0; k < 6; ++k) {
    for (int pop_first = 0; pop_first < 2; ++pop_first) {
      pilfer::mutex_deque<int> victim;
      pilfer::mutex_deque<int> dest;
      for (int i = 1; i <= 10; ++i) victim.push(i);
      for (int i = 1001; i <= 1127; ++i) dest.push(i);  // the next insert needs a new std::deque node
      std::map<int, int> seen;
      try {
        pilfer::testing::fail_allocation_in = k;
        if (pop_first) {
          auto r = victim.get_stealer().steal_batch_and_pop(dest);
          pilfer::testing::fail_allocation_in = -1;
          if (r.is_success()) ++seen[r.value];
        } else {
          (void)victim.get_stealer().steal_batch(dest);
          pilfer::testing::fail_allocation_in = -1;
        }
      } catch (const std::bad_alloc&) {
        pilfer::testing::fail_allocation_in = -1;
        ++threw;
      }
      while (auto v = dest.pop()) ++seen[*v];
      while (auto v = victim.pop()) ++seen[*v];
      EXPECT_EQ(seen.size(), 137u) << "k=" << k << " pop_first=" << pop_first;
      for (const auto& [v, n] : seen) EXPECT_EQ(n, 1) << v;
    }
  }
  EXPECT_GT(threw, 0);
}
#endif
}  // namespace
