// Unit tests of pilfer::basic_deque (Chase–Lev): sequential semantics against a
// std::deque model, deterministic interleavings through a fence-hook policy,
// growth/wrap-around at tiny capacities, batch steals, and multi-threaded
// exactly-once runs (owner push/pop + 1..3 thieves).
//
// Randomised tests print `seed=N` and take PILFER_SEED=N from the environment.
#include <pilfer/deque.hpp>
#include <pilfer/sync.hpp>
#include <pilfer/testing/seed.hpp>
#include <pilfer/testing/hook_sync.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

namespace {

using pilfer::testing::test_seed;
using pilfer::testing::hook_sync;

using sync = pilfer::std_sync;
using pilfer::steal_result;
using pilfer::steal_status;
using value = std::uint64_t;


// ---------------------------------------------------------------- sequential

// @verifies DQ-1
TEST(Deque, PopIsLifo) {
  pilfer::deque<value> d(4);
  for (value i = 1; i <= 100; ++i) d.push(i);
  EXPECT_EQ(d.size(), 100u);
  for (value i = 100; i >= 1; --i) {
    auto v = d.pop();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, i);
  }
  EXPECT_FALSE(d.pop().has_value());
  EXPECT_TRUE(d.empty());
}

// @verifies DQ-2
TEST(Deque, StealIsFifo) {
  pilfer::deque<value> d(4);
  auto s = d.get_stealer();
  for (value i = 1; i <= 100; ++i) d.push(i);
  for (value i = 1; i <= 100; ++i) {
    auto r = s.steal();
    ASSERT_TRUE(r.is_success());
    EXPECT_EQ(r.value, i);
  }
  EXPECT_TRUE(s.steal().is_empty());
  EXPECT_TRUE(s.empty());
}

// @verifies DQ-1 DQ-2
TEST(Deque, PopAndStealMeetInTheMiddle) {
  pilfer::deque<value> d(2);
  for (value i = 1; i <= 6; ++i) d.push(i);
  EXPECT_EQ(d.steal().value, 1u);
  EXPECT_EQ(d.pop().value(), 6u);
  EXPECT_EQ(d.steal().value, 2u);
  EXPECT_EQ(d.pop().value(), 5u);
  EXPECT_EQ(d.steal().value, 3u);
  EXPECT_EQ(d.pop().value(), 4u);
  EXPECT_TRUE(d.steal().is_empty());
  EXPECT_FALSE(d.pop().has_value());
  // Reusable after being emptied from both ends.
  d.push(7);
  EXPECT_EQ(d.pop().value(), 7u);
}

// @verifies DQ-5
TEST(Deque, StealResultTriState) {
  auto e = steal_result<int>::empty();
  auto r = steal_result<int>::retry();
  auto s = steal_result<int>::success(42);
  EXPECT_TRUE(e.is_empty() && !e.is_success() && !e.is_retry() && !e);
  EXPECT_TRUE(r.is_retry() && !r.is_success() && !r.is_empty() && !r);
  EXPECT_TRUE(s.is_success() && !s.is_empty() && !s.is_retry() && static_cast<bool>(s));
  EXPECT_EQ(s.value, 42);
  EXPECT_STREQ(pilfer::to_string(steal_status::retry), "retry");
}

// @verifies DQ-4
TEST(Deque, CapacityRoundsUpAndGrowsGeometrically) {
  EXPECT_EQ(pilfer::deque<value>(0).capacity(), 1u);
  EXPECT_EQ(pilfer::deque<value>(1).capacity(), 1u);
  EXPECT_EQ(pilfer::deque<value>(3).capacity(), 4u);
  EXPECT_EQ(pilfer::deque<value>(64).capacity(), 64u);
  pilfer::deque<value> d(1);
  EXPECT_EQ(d.retired_buffers(), 0u);
  for (value i = 0; i < 1000; ++i) d.push(i);
  EXPECT_EQ(d.capacity(), 1024u);
  // 1 -> 2 -> ... -> 1024: ten growths, each retiring one buffer; the retired
  // slots (1+2+...+512 = 1023) stay below the live capacity.
  EXPECT_EQ(d.retired_buffers(), 10u);
  for (value i = 1000; i-- > 0;) ASSERT_EQ(d.pop().value(), i);
}

// Random push/pop/steal/steal_batch sequences against a std::deque model, at
// tiny capacities so that growth and index wrap-around happen constantly.
// @verifies DQ-1 DQ-2 DQ-4 DQ-6
TEST(Deque, MatchesSequentialModelAtTinyCapacities) {
  std::mt19937_64 rng(test_seed());
  for (std::size_t cap : {1u, 2u, 4u}) {
    for (int round = 0; round < 50; ++round) {
      pilfer::deque<value> d(cap), dest(cap);
      auto s = d.get_stealer();
      std::deque<value> model, model_dest;
      value next = 1;
      for (int step = 0; step < 400; ++step) {
        const auto op = rng() % 10;
        if (op < 4) {
          d.push(next);
          model.push_back(next);
          ++next;
        } else if (op < 6) {
          auto v = d.pop();
          if (model.empty()) {
            ASSERT_FALSE(v.has_value());
          } else {
            ASSERT_TRUE(v.has_value());
            ASSERT_EQ(*v, model.back());
            model.pop_back();
          }
        } else if (op < 8) {
          auto r = s.steal();
          ASSERT_FALSE(r.is_retry()) << "no race in a single thread";
          if (model.empty()) {
            ASSERT_TRUE(r.is_empty());
          } else {
            ASSERT_TRUE(r.is_success());
            ASSERT_EQ(r.value, model.front());
            model.pop_front();
          }
        } else if (op < 9) {
          const std::size_t max = 1 + rng() % 5;
          auto r = s.steal_batch(dest, max);
          if (model.empty()) {
            ASSERT_TRUE(r.is_empty());
          } else {
            ASSERT_TRUE(r.is_success());
            const std::size_t want = std::min((model.size() + 1) / 2, max);
            ASSERT_EQ(r.value, want);
            for (std::size_t i = 0; i < want; ++i) {
              model_dest.push_back(model.front());
              model.pop_front();
            }
          }
        } else {
          // drain a little of dest from both ends
          if (!model_dest.empty()) {
            ASSERT_EQ(dest.pop().value(), model_dest.back());
            model_dest.pop_back();
          }
          if (!model_dest.empty()) {
            ASSERT_EQ(dest.steal().value, model_dest.front());
            model_dest.pop_front();
          }
        }
        ASSERT_EQ(d.size(), model.size());
        ASSERT_EQ(dest.size(), model_dest.size());
        ASSERT_GE(d.capacity(), d.size());
      }
    }
  }
}

// ------------------------------------------------------------------ batches

// @verifies DQ-6
TEST(Deque, StealBatchMovesHalfInFifoOrder) {
  pilfer::deque<value> d(8), dest(1);
  for (value i = 1; i <= 10; ++i) d.push(i);
  auto r = d.get_stealer().steal_batch(dest);
  ASSERT_TRUE(r.is_success());
  EXPECT_EQ(r.value, 5u);  // ceil(10/2)
  EXPECT_EQ(d.size(), 5u);
  EXPECT_EQ(dest.size(), 5u);
  // dest's thieves see the oldest first, dest's owner pops the newest first.
  EXPECT_EQ(dest.steal().value, 1u);
  EXPECT_EQ(dest.pop().value(), 5u);
  EXPECT_EQ(dest.steal().value, 2u);
  EXPECT_EQ(dest.pop().value(), 4u);
  EXPECT_EQ(dest.pop().value(), 3u);
  // The victim keeps the newer half.
  EXPECT_EQ(d.steal().value, 6u);
  EXPECT_EQ(d.pop().value(), 10u);
}

// @verifies DQ-6
TEST(Deque, StealBatchBounds) {
  pilfer::deque<value> d, dest;
  auto s = d.get_stealer();
  EXPECT_TRUE(s.steal_batch(dest).is_empty());
  d.push(1);
  EXPECT_EQ(s.steal_batch(dest).value, 1u);  // ceil(1/2) = 1
  for (value i = 2; i <= 8; ++i) d.push(i);  // 7 items
  EXPECT_EQ(s.steal_batch(dest).value, 4u);  // ceil(7/2)
  EXPECT_EQ(s.steal_batch(dest, 2).value, 2u);  // max bound
  EXPECT_EQ(s.steal_batch(dest, 0).value, 1u);  // max 0 counts as 1
  EXPECT_TRUE(s.steal_batch(dest).is_empty());
  EXPECT_EQ(dest.size(), 8u);
  for (value i = 1; i <= 8; ++i) EXPECT_EQ(dest.steal().value, i);  // global FIFO kept across batches
}

// @verifies DQ-6
TEST(Deque, StealBatchAndPopReturnsOldest) {
  pilfer::deque<value> d, dest;
  auto s = d.get_stealer();
  EXPECT_TRUE(s.steal_batch_and_pop(dest).is_empty());
  for (value i = 1; i <= 9; ++i) d.push(i);
  auto r = s.steal_batch_and_pop(dest);  // takes ceil(9/2) = 5: returns 1, moves 2..5
  ASSERT_TRUE(r.is_success());
  EXPECT_EQ(r.value, 1u);
  EXPECT_EQ(dest.size(), 4u);
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(dest.pop().value(), 5u);
  EXPECT_EQ(dest.steal().value, 2u);
  auto r2 = s.steal_batch_and_pop(dest, 1);  // max 1: nothing moves
  EXPECT_EQ(r2.value, 6u);
  EXPECT_EQ(dest.size(), 2u);
}

// dest grows during the batch and its old buffer is retired, not freed.
// @verifies DQ-4 DQ-6
TEST(Deque, StealBatchGrowsDestination) {
  pilfer::deque<value> d(64), dest(1);
  dest.push(100);
  for (value i = 1; i <= 64; ++i) d.push(i);
  EXPECT_EQ(d.get_stealer().steal_batch(dest, 32).value, 32u);
  EXPECT_GE(dest.capacity(), 33u);
  EXPECT_GT(dest.retired_buffers(), 0u);
  EXPECT_EQ(dest.steal().value, 100u);
  for (value i = 1; i <= 32; ++i) EXPECT_EQ(dest.steal().value, i);
}

// ------------------------------------------- deterministic interleavings

using hdeque = pilfer::basic_deque<value, hook_sync>;

// A second thief runs entirely between the first thief's fence [S2] and its
// CAS [S5]: the first must report retry (not empty, not a duplicate).
// @verifies DQ-3 DQ-5
TEST(DequeInterleaving, LosingThiefGetsRetry) {
  hdeque d;
  d.push(1);
  d.push(2);
  auto s = d.get_stealer();
  steal_result<value> inner = steal_result<value>::empty();
  hook_sync::arm("deque.S2", [&] { inner = s.steal(); });
  auto outer = s.steal();
  ASSERT_TRUE(inner.is_success());
  EXPECT_EQ(inner.value, 1u);
  EXPECT_TRUE(outer.is_retry());
  auto again = s.steal();
  ASSERT_TRUE(again.is_success());
  EXPECT_EQ(again.value, 2u);
  EXPECT_TRUE(s.steal().is_empty());
}

// The owner pops the last item while a thief sits between [S2] and [S5]: the
// owner wins the CAS [T2] and the thief reports retry — the item is handed out once.
// @verifies DQ-3 DQ-5
TEST(DequeInterleaving, OwnerWinsLastItemAgainstThief) {
  hdeque d;
  d.push(7);
  std::optional<value> popped;
  hook_sync::arm("deque.S2", [&] { popped = d.pop(); });
  auto r = d.steal();
  ASSERT_TRUE(popped.has_value());
  EXPECT_EQ(*popped, 7u);
  EXPECT_TRUE(r.is_retry());
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(d.pop().has_value());
}

// A thief runs entirely between the owner's fence [T1] and its read of top [T3]:
// the owner sees the moved top and, for the last item, loses — never a duplicate.
// @verifies DQ-3
TEST(DequeInterleaving, ThiefBetweenOwnerFenceAndTopRead) {
  hdeque d;
  d.push(7);
  steal_result<value> stolen = steal_result<value>::empty();
  hook_sync::arm("deque.T1", [&] { stolen = d.steal(); });
  auto popped = d.pop();
  // The owner already moved bottom below top before the fence, so the thief sees empty
  // ([T0] -> [T1] -> thief [S2] -> [S3]): exactly one side gets the item.
  EXPECT_TRUE(stolen.is_empty());
  ASSERT_TRUE(popped.has_value());
  EXPECT_EQ(*popped, 7u);

  // With two items the owner takes the newer without a CAS and the thief the older.
  d.push(1);
  d.push(2);
  hook_sync::arm("deque.T1", [&] { stolen = d.steal(); });
  popped = d.pop();
  ASSERT_TRUE(stolen.is_success());
  EXPECT_EQ(stolen.value, 1u);
  EXPECT_EQ(popped.value(), 2u);
  EXPECT_TRUE(d.empty());
}

// A batch thief that loses the race after moving some items keeps those and
// reports success with the count it got.
// @verifies DQ-3 DQ-6
TEST(DequeInterleaving, BatchInterruptedByOtherThief) {
  hdeque d, dest;
  for (value i = 1; i <= 8; ++i) d.push(i);
  auto s = d.get_stealer();
  steal_result<value> inner = steal_result<value>::empty();
  // The batch's first attempt fences once ([S2]); the hook fires in its first
  // attempt, so the other thief takes item 1 and the batch's first CAS fails.
  hook_sync::arm("deque.S2", [&] { inner = s.steal(); });
  auto r = s.steal_batch(dest);
  EXPECT_TRUE(r.is_retry());
  EXPECT_EQ(inner.value, 1u);
  EXPECT_EQ(dest.size(), 0u);
  // Now interrupt the batch's second attempt: it keeps the first item.
  int fences = 0;
  std::function<void()> second;
  second = [&] {
    if (++fences == 1) {
      hook_sync::arm("deque.S2", second);  // let the first attempt through
    } else {
      inner = s.steal();
    }
  };
  hook_sync::arm("deque.S2", second);
  auto r2 = s.steal_batch(dest);  // 7 items: would take 4
  ASSERT_TRUE(r2.is_success());
  EXPECT_EQ(r2.value, 1u);
  EXPECT_EQ(dest.pop().value(), 2u);
  EXPECT_EQ(inner.value, 3u);
  EXPECT_EQ(d.size(), 5u);
}

#ifndef NDEBUG
// @verifies DQ-5
TEST(DequeDeathTest, OwnerOperationFromSecondThreadAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        pilfer::deque<value> d;
        d.push(1);
        sync::thread t([&] { d.push(2); });
        t.join();
      },
      "owner-only operation push");
}

TEST(Deque, ReleaseOwnerHandsOver) {
  pilfer::deque<value> d;
  d.push(1);
  d.release_owner();
  sync::thread t([&] {
    d.push(2);
    EXPECT_EQ(d.pop().value(), 2u);
    d.release_owner();
  });
  t.join();
  EXPECT_EQ(d.pop().value(), 1u);
}
#endif

// ------------------------------------------------------------ concurrency

struct run_config {
  int thieves;
  bool batch;             // thieves use steal_batch into their own deque
  std::size_t capacity;   // owner's initial capacity (small: growth under theft)
  value items;
  pilfer::deque_fences fences = pilfer::deque_fences::symmetric;  // the owner's deque (DQ-7)
};

struct run_outcome {
  std::vector<value> owner;
  std::vector<std::vector<value>> thief;
  std::uint64_t retries = 0;
};

// Owner pushes 1..items in random bursts and pops some back; thieves steal
// until the owner is done and they find the deque empty.
run_outcome run_concurrent(const run_config& cfg, std::uint64_t seed) {
  pilfer::deque<value> d(cfg.capacity, cfg.fences);
  auto s = d.get_stealer();
  sync::atomic<bool> owner_done{false};
  sync::atomic<std::uint64_t> retries{0};
  sync::atomic<int> ready{0};
  run_outcome out;
  out.thief.resize(static_cast<std::size_t>(cfg.thieves));
  std::vector<sync::thread> threads;
  for (int k = 0; k < cfg.thieves; ++k) {
    threads.emplace_back([&, k] {
      auto& mine = out.thief[static_cast<std::size_t>(k)];
      pilfer::deque<value> own(2);
      std::uint64_t my_retries = 0;
      ready.fetch_add(1, PILFER_SITE("test.ready", release));
      for (;;) {
        // Read the flag before trying: "done, then empty" proves nothing is left.
        const bool done = owner_done.load(PILFER_SITE("test.done", acquire));
        if (cfg.batch) {
          auto r = s.steal_batch(own, 4);
          if (r.is_success()) {
            // own's FIFO end keeps the victim's order.
            while (true) {
              auto x = own.steal();
              if (!x.is_success()) break;
              mine.push_back(x.value);
            }
            continue;
          }
          if (r.is_retry()) {
            ++my_retries;
            continue;
          }
        } else {
          auto r = s.steal();
          if (r.is_success()) {
            mine.push_back(r.value);
            continue;
          }
          if (r.is_retry()) {
            ++my_retries;
            continue;
          }
        }
        if (done) break;
        sync::yield();  // 2-core CI: let the owner run
      }
      retries.fetch_add(my_retries, PILFER_SITE("test.count", relaxed));
    });
  }
  // Start only once every thief is running, so the owner cannot finish alone.
  while (ready.load(PILFER_SITE("test.ready", acquire)) < cfg.thieves) sync::yield();
  std::mt19937_64 rng(seed);
  value next = 1;
  while (next <= cfg.items) {
    const auto burst = 1 + rng() % 16;
    for (std::uint64_t i = 0; i < burst && next <= cfg.items; ++i) d.push(next++);
    // Often let the thieves drain the deque down to its last items, so that
    // the owner's pops race them for the last item ([T2] vs [S5]). Bounded:
    // progress of the test never depends on the thieves.
    if (rng() % 8 == 0) {
      for (int spins = 0; spins < 64 && d.size() > 1; ++spins) sync::yield();
    }
    const auto pops = rng() % 8;
    for (std::uint64_t i = 0; i < pops; ++i) {
      if (auto v = d.pop()) out.owner.push_back(*v);
    }
  }
  while (auto v = d.pop()) out.owner.push_back(*v);
  owner_done.store(true, PILFER_SITE("test.done", release));
  for (auto& t : threads) t.join();
  out.retries = retries.load(PILFER_SITE("test.count", relaxed));
  return out;
}

void check_exactly_once(const run_config& cfg, const run_outcome& out) {
  std::vector<unsigned> seen(cfg.items + 1, 0);
  value sum = 0;
  std::size_t total = 0;
  auto take = [&](value v) {
    ASSERT_GE(v, 1u);
    ASSERT_LE(v, cfg.items);
    ++seen[v];
    sum += v;
    ++total;
  };
  for (value v : out.owner) take(v);
  for (const auto& t : out.thief) {
    for (value v : t) take(v);
    // FIFO per thief: the top index only grows, and a later index holds a later push.
    for (std::size_t i = 1; i < t.size(); ++i) ASSERT_LT(t[i - 1], t[i]) << "thief saw values out of order";
  }
  EXPECT_EQ(total, cfg.items);
  EXPECT_EQ(sum, cfg.items * (cfg.items + 1) / 2);
  for (value v = 1; v <= cfg.items; ++v) ASSERT_EQ(seen[v], 1u) << "value " << v;
}

// @verifies DQ-3 DQ-2 DQ-4
TEST(DequeConcurrent, ExactlyOnceWithThieves) {
  const auto seed = test_seed();
  for (int thieves = 1; thieves <= 3; ++thieves) {
    for (std::size_t cap : {1u, 64u}) {
      run_config cfg{thieves, false, cap, 50'000};
      auto out = run_concurrent(cfg, seed + static_cast<std::uint64_t>(thieves));
      SCOPED_TRACE(testing::Message() << "thieves=" << thieves << " cap=" << cap << " seed=" << seed);
      check_exactly_once(cfg, out);
      std::size_t stolen = 0;
      for (const auto& t : out.thief) stolen += t.size();
      std::printf("thieves=%d cap=%zu owner=%zu stolen=%zu retries=%llu\n", thieves, cap, out.owner.size(), stolen,
                  static_cast<unsigned long long>(out.retries));
    }
  }
}

// @verifies DQ-3 DQ-6
TEST(DequeConcurrent, ExactlyOnceWithBatchThieves) {
  const auto seed = test_seed();
  for (int thieves = 1; thieves <= 3; ++thieves) {
    run_config cfg{thieves, true, 2, 50'000};
    auto out = run_concurrent(cfg, seed ^ 0x5bd1e995u);
    SCOPED_TRACE(testing::Message() << "thieves=" << thieves << " seed=" << seed);
    check_exactly_once(cfg, out);
  }
}

// The deque with asymmetric fences: light pops, heavy steals (SPEC DQ-7).

// @verifies DQ-7
TEST(DequeAsymmetric, ReportsTheModeInEffect) {
  pilfer::deque<int> plain(4);
  EXPECT_EQ(plain.fences(), pilfer::deque_fences::symmetric);
  pilfer::deque<int> asym(4, pilfer::deque_fences::asymmetric);
  // Linux with membarrier (every CI machine): asymmetric; elsewhere the safe fallback.
  EXPECT_EQ(asym.fences(), sync::asymmetric_fences() ? pilfer::deque_fences::asymmetric : pilfer::deque_fences::symmetric);
}

// @verifies DQ-7 DQ-1 DQ-2 DQ-6
TEST(DequeAsymmetric, SequentialSemanticsUnchanged) {
  pilfer::deque<int> d(2, pilfer::deque_fences::asymmetric);
  pilfer::deque<int> dest(2);
  for (int i = 1; i <= 9; ++i) d.push(i);  // grows 2 -> 16
  EXPECT_EQ(d.pop().value(), 9);            // LIFO
  EXPECT_EQ(d.steal().value, 1);            // FIFO
  auto r = d.get_stealer().steal_batch_and_pop(dest, 32);  // 7 left: takes ceil(7/2) = 4
  ASSERT_TRUE(r.is_success());
  EXPECT_EQ(r.value, 2);
  EXPECT_EQ(dest.size(), 3u);
  EXPECT_EQ(dest.steal().value, 3);  // dest keeps the victim's order
  for (int want = 8; want >= 6; --want) EXPECT_EQ(d.pop().value(), want);
  EXPECT_FALSE(d.pop().has_value());
  EXPECT_TRUE(d.steal().is_empty());
  EXPECT_TRUE(d.get_stealer().steal_batch(dest, 4).is_empty());
  d.push(10);  // the last-item race path, alone
  EXPECT_EQ(d.pop().value(), 10);
  EXPECT_TRUE(d.empty());
}

// @verifies DQ-7 DQ-3 DQ-2 DQ-4
TEST(DequeAsymmetricConcurrent, ExactlyOnceWithThieves) {
  const auto seed = test_seed();
  for (int thieves = 1; thieves <= 3; ++thieves) {
    run_config cfg{thieves, false, 1, 20'000, pilfer::deque_fences::asymmetric};
    auto out = run_concurrent(cfg, seed + static_cast<std::uint64_t>(thieves));
    SCOPED_TRACE(testing::Message() << "thieves=" << thieves << " seed=" << seed);
    check_exactly_once(cfg, out);
  }
}

// @verifies DQ-7 DQ-3 DQ-6
TEST(DequeAsymmetricConcurrent, ExactlyOnceWithBatchThieves) {
  const auto seed = test_seed();
  for (int thieves = 1; thieves <= 3; ++thieves) {
    run_config cfg{thieves, true, 2, 20'000, pilfer::deque_fences::asymmetric};
    auto out = run_concurrent(cfg, seed ^ 0x5bd1e995u);
    SCOPED_TRACE(testing::Message() << "thieves=" << thieves << " seed=" << seed);
    check_exactly_once(cfg, out);
  }
}

}  // namespace
