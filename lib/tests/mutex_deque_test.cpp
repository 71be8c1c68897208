// Unit tests of pilfer::basic_mutex_deque (seed 002's design): the same
// owner/stealer contract as basic_deque — LIFO pop, FIFO steal, batch half
// bound, retry when the lock is busy — and a multi-threaded exactly-once run.
//
// Randomised tests print `seed=N` and take PILFER_SEED=N from the environment.
#include <pilfer/mutex_deque.hpp>
#include <pilfer/sync.hpp>
#include <pilfer/testing/seed.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

namespace {

using pilfer::testing::test_seed;

using sync = pilfer::std_sync;
using value = std::uint64_t;

// std_sync with a mutex whose try_lock can be made to fail, standing in for
// "another thread holds the lock" without a second thread.
struct busy_sync : sync {
  static inline bool force_busy = false;
  class mutex {
   public:
    void lock() { m_.lock(); }
    bool try_lock() { return !force_busy && m_.try_lock(); }
    void unlock() { m_.unlock(); }

   private:
    sync::mutex m_;
  };
};

// @verifies DQ-1 DQ-2
TEST(MutexDeque, LifoPopFifoSteal) {
  pilfer::mutex_deque<value> d;
  auto s = d.get_stealer();
  EXPECT_FALSE(d.pop().has_value());
  EXPECT_TRUE(s.steal().is_empty());
  for (value i = 1; i <= 6; ++i) d.push(i);
  EXPECT_EQ(d.size(), 6u);
  EXPECT_EQ(s.size(), 6u);
  EXPECT_EQ(s.steal().value, 1u);
  EXPECT_EQ(d.pop().value(), 6u);
  EXPECT_EQ(d.steal().value, 2u);
  EXPECT_EQ(d.pop().value(), 5u);
  EXPECT_EQ(d.pop().value(), 4u);
  EXPECT_EQ(s.steal().value, 3u);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(d.retired_buffers(), 0u);
}

// @verifies DQ-5
TEST(MutexDeque, BusyLockGivesRetryNotEmpty) {
  pilfer::basic_mutex_deque<value, busy_sync> d, dest;
  d.push(1);
  busy_sync::force_busy = true;
  EXPECT_TRUE(d.steal().is_retry());
  EXPECT_TRUE(d.get_stealer().steal_batch(dest).is_retry());
  EXPECT_TRUE(d.get_stealer().steal_batch_and_pop(dest).is_retry());
  busy_sync::force_busy = false;
  EXPECT_EQ(d.steal().value, 1u);
  EXPECT_TRUE(d.steal().is_empty());
}

// @verifies DQ-6
TEST(MutexDeque, BatchHalfBoundAndOrder) {
  pilfer::mutex_deque<value> d, dest;
  auto s = d.get_stealer();
  EXPECT_TRUE(s.steal_batch(dest).is_empty());
  for (value i = 1; i <= 9; ++i) d.push(i);
  EXPECT_EQ(s.steal_batch(dest).value, 5u);  // ceil(9/2)
  EXPECT_EQ(dest.pop().value(), 5u);
  EXPECT_EQ(dest.steal().value, 1u);
  EXPECT_EQ(s.steal_batch(dest, 1).value, 1u);  // max bound: item 6
  auto r = s.steal_batch_and_pop(dest, 2);     // 3 left: takes 2, returns 7, moves 8
  EXPECT_EQ(r.value, 7u);
  EXPECT_EQ(dest.size(), 3u + 1u + 1u);
  EXPECT_EQ(dest.pop().value(), 8u);
  EXPECT_EQ(d.size(), 1u);
}

// Random sequences against a std::deque model.
// @verifies DQ-1 DQ-2 DQ-6
TEST(MutexDeque, MatchesSequentialModel) {
  std::mt19937_64 rng(test_seed());
  pilfer::mutex_deque<value> d, dest;
  auto s = d.get_stealer();
  std::deque<value> model, model_dest;
  value next = 1;
  for (int step = 0; step < 5'000; ++step) {
    const auto op = rng() % 8;
    if (op < 3) {
      d.push(next);
      model.push_back(next++);
    } else if (op < 5) {
      auto v = d.pop();
      ASSERT_EQ(v.has_value(), !model.empty());
      if (v) {
        ASSERT_EQ(*v, model.back());
        model.pop_back();
      }
    } else if (op < 7) {
      auto r = s.steal();
      ASSERT_EQ(r.is_success(), !model.empty());
      if (r) {
        ASSERT_EQ(r.value, model.front());
        model.pop_front();
      }
    } else {
      const std::size_t max = 1 + rng() % 4;
      auto r = s.steal_batch(dest, max);
      if (model.empty()) {
        ASSERT_TRUE(r.is_empty());
      } else {
        ASSERT_EQ(r.value, std::min((model.size() + 1) / 2, max));
        for (std::size_t i = 0; i < r.value; ++i) {
          model_dest.push_back(model.front());
          model.pop_front();
        }
      }
    }
    ASSERT_EQ(d.size(), model.size());
    ASSERT_EQ(dest.size(), model_dest.size());
  }
  for (value v : model_dest) ASSERT_EQ(dest.steal().value, v);
}

// Owner push/pop + 1..3 thieves: every item taken exactly once, FIFO per thief.
// @verifies DQ-3
TEST(MutexDequeConcurrent, ExactlyOnceWithThieves) {
  const auto seed = test_seed();
  constexpr value items = 20'000;
  for (int thieves = 1; thieves <= 3; ++thieves) {
    pilfer::mutex_deque<value> d;
    auto s = d.get_stealer();
    sync::atomic<bool> owner_done{false};
    sync::atomic<int> ready{0};
    std::vector<std::vector<value>> got(static_cast<std::size_t>(thieves));
    std::vector<value> owner_got;
    std::vector<sync::thread> threads;
    for (int k = 0; k < thieves; ++k) {
      threads.emplace_back([&, k] {
        auto& mine = got[static_cast<std::size_t>(k)];
        pilfer::mutex_deque<value> own;
        ready.fetch_add(1, PILFER_SITE("test.ready", release));
        for (;;) {
          const bool done = owner_done.load(PILFER_SITE("test.done", acquire));
          auto r = (k % 2 == 0) ? s.steal_batch_and_pop(own, 4) : s.steal();
          if (r.is_success()) {
            mine.push_back(r.value);
            for (auto x = own.steal(); x.is_success(); x = own.steal()) mine.push_back(x.value);
            continue;
          }
          if (r.is_retry()) continue;
          if (done) break;
          sync::yield();
        }
      });
    }
    while (ready.load(PILFER_SITE("test.ready", acquire)) < thieves) sync::yield();
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(thieves));
    value next = 1;
    while (next <= items) {
      const auto burst = 1 + rng() % 16;
      for (std::uint64_t i = 0; i < burst && next <= items; ++i) d.push(next++);
      for (auto pops = rng() % 8; pops > 0; --pops)
        if (auto v = d.pop()) owner_got.push_back(*v);
    }
    while (auto v = d.pop()) owner_got.push_back(*v);
    owner_done.store(true, PILFER_SITE("test.done", release));
    for (auto& t : threads) t.join();

    std::vector<unsigned> seen(items + 1, 0);
    value sum = 0;
    for (value v : owner_got) {
      ++seen[v];
      sum += v;
    }
    for (const auto& mine : got) {
      for (std::size_t i = 0; i < mine.size(); ++i) {
        ++seen[mine[i]];
        sum += mine[i];
        if (i > 0) {
          ASSERT_LT(mine[i - 1], mine[i]) << "thief saw values out of order";
        }
      }
    }
    EXPECT_EQ(sum, items * (items + 1) / 2);
    for (value v = 1; v <= items; ++v) ASSERT_EQ(seen[v], 1u) << "value " << v << " thieves=" << thieves;
  }
}

}  // namespace
