// Deque and injector under allocation failure in the middle of a batch steal or a push, and
// out-of-range capacities. "Bad input gets a clear error and loses nothing."
//
// failing_sync is std_sync whose make_array (the deque's slot array) can be
// told to throw std::bad_alloc once: a destination deque that must grow during
// steal_batch then fails exactly where the library allocates. Single-threaded:
// every test here is deterministic (no seed).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <new>
#include <stdexcept>

#include "pilfer/deque.hpp"
#include "pilfer/injector.hpp"

namespace {

struct failing_sync : pilfer::std_sync {
  // Only touched by the test's one thread.
  static inline int fail_next_arrays = 0;
  template <class T>
  static T* make_array(std::size_t n) {
    if (fail_next_arrays > 0) {
      --fail_next_arrays;
      throw std::bad_alloc();
    }
    return pilfer::std_sync::make_array<T>(n);
  }
};

using value = std::uint64_t;
using fdeque = pilfer::basic_deque<value, failing_sync>;
template <std::size_t B>
using finjector = pilfer::basic_injector<value, failing_sync, B>;

/// Drain injector and deque; count how often each value came out.
template <class Q>
std::map<value, int> drain(Q& q, fdeque& d) {
  std::map<value, int> seen;
  while (auto v = d.pop()) ++seen[*v];
  for (;;) {
    auto r = q.steal();
    if (r.is_empty()) break;
    if (r.is_success()) ++seen[r.value];
  }
  return seen;
}

void expect_each_once(const std::map<value, int>& seen, value n) {
  EXPECT_EQ(seen.size(), n) << "items lost";
  for (value i = 1; i <= n; ++i) {
    auto it = seen.find(i);
    if (it == seen.end()) {
      ADD_FAILURE() << "item " << i << " lost";
    } else {
      EXPECT_EQ(it->second, 1) << "item " << i << " duplicated";
    }
  }
}

// Bug (found in review): injector::steal_batch claimed slots with its CAS [S5]
// and only then grew the destination deque; a throwing growth lost the claimed
// items and leaked their block (its READ bits were never set).
// @verifies INJ-2 INJ-4 DQ-3
TEST(InjectorAllocFailure, StealBatchGrowthFailureLosesNothing) {
  finjector<63> q;
  for (value i = 1; i <= 10; ++i) q.push(i);
  fdeque dest(1);  // must grow to receive more than one item
  failing_sync::fail_next_arrays = 1;
  EXPECT_THROW((void)q.steal_batch(dest, 32), std::bad_alloc);
  failing_sync::fail_next_arrays = 0;
  expect_each_once(drain(q, dest), 10);
  EXPECT_EQ(q.live_blocks(), 1u);
}

// @verifies INJ-2 INJ-4 DQ-3
TEST(InjectorAllocFailure, StealBatchAndPopGrowthFailureLosesNothing) {
  finjector<63> q;
  for (value i = 1; i <= 10; ++i) q.push(i);
  fdeque dest(1);
  failing_sync::fail_next_arrays = 1;
  EXPECT_THROW((void)q.steal_batch_and_pop(dest, 32), std::bad_alloc);
  failing_sync::fail_next_arrays = 0;
  expect_each_once(drain(q, dest), 10);
  EXPECT_EQ(q.live_blocks(), 1u);
}

// The claimed range ends a block: the failed batch must neither lose the
// items nor leave the block unfreed (INJ-4: one block once drained).
// @verifies INJ-2 INJ-4
TEST(InjectorAllocFailure, StealBatchGrowthFailureAtBlockEndFreesBlock) {
  finjector<4> q;
  for (value i = 1; i <= 6; ++i) q.push(i);  // block 0: 1..4, block 1: 5,6
  fdeque dest(1);
  // Take 1 and 2 so that the next batch (up to half of 4 = 2) ends the block.
  ASSERT_EQ(q.steal().value, 1u);
  ASSERT_EQ(q.steal().value, 2u);
  failing_sync::fail_next_arrays = 1;
  EXPECT_THROW((void)q.steal_batch(dest, 32), std::bad_alloc);
  failing_sync::fail_next_arrays = 0;
  auto seen = drain(q, dest);
  seen[1] = 1;
  seen[2] = 1;
  expect_each_once(seen, 6);
  EXPECT_EQ(q.live_blocks(), 1u);
}

// Regression guard: the deque's batch steal already grows dest before its
// first CAS; a failure there must leave the victim untouched.
// @verifies DQ-3 DQ-6
TEST(DequeAllocFailure, StealBatchGrowthFailureLosesNothing) {
  fdeque victim(16);
  for (value i = 1; i <= 10; ++i) victim.push(i);
  fdeque dest(1);
  failing_sync::fail_next_arrays = 1;
  EXPECT_THROW((void)victim.get_stealer().steal_batch(dest, 32), std::bad_alloc);
  failing_sync::fail_next_arrays = 0;
  EXPECT_EQ(victim.size(), 10u);
  EXPECT_EQ(dest.size(), 0u);
}

// A throwing growth in push leaves the deque as it was (the item is the
// caller's to keep) and the next push succeeds.
// @verifies DQ-3 DQ-4
TEST(DequeAllocFailure, PushGrowthFailureKeepsContents) {
  fdeque d(2);
  d.push(1);
  d.push(2);
  failing_sync::fail_next_arrays = 1;
  EXPECT_THROW(d.push(3), std::bad_alloc);
  failing_sync::fail_next_arrays = 0;
  EXPECT_EQ(d.size(), 2u);
  d.push(3);
  EXPECT_EQ(d.pop().value(), 3u);
  EXPECT_EQ(d.pop().value(), 2u);
  EXPECT_EQ(d.pop().value(), 1u);
  EXPECT_FALSE(d.pop().has_value());
}

// Bug (found in review): a capacity above the largest power of two of size_t
// made round_up_pow2 loop forever (the shifted value wraps to 0). It must be
// a clear error instead.
// @verifies DQ-4
TEST(DequeCapacity, HugeInitialCapacityIsAnError) {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_THROW(pilfer::deque<value>{max}, std::length_error);
  EXPECT_THROW(pilfer::deque<value>{max / 2 + 2}, std::length_error);
  pilfer::deque<value> small(0);  // 0 rounds up to 1
  EXPECT_EQ(small.capacity(), 1u);
}

}  // namespace
