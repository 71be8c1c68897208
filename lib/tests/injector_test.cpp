// Unit tests of pilfer::basic_injector: FIFO across block boundaries (block
// sizes 1, 2, 3, 63), size()/live_blocks() bookkeeping, batch steals into a
// deque, deterministic retry through a fence hook, and MPMC exactly-once runs
// with per-producer FIFO checks.
//
// Randomised tests print `seed=N` and take PILFER_SEED=N from the environment.
#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/sync.hpp>
#include <pilfer/testing/seed.hpp>
#include <pilfer/testing/hook_sync.hpp>

#include <gtest/gtest.h>


#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <vector>

namespace {

using pilfer::testing::test_seed;
using pilfer::testing::hook_sync;

using sync = pilfer::std_sync;
using value = std::uint64_t;


template <std::size_t B>
void sequential_fifo_roundtrip() {
  pilfer::basic_injector<value, sync, B> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.live_blocks(), 1u);
  EXPECT_TRUE(q.steal().is_empty());
  constexpr value n = 5 * B + 3;  // several block boundaries and a partial block
  for (value i = 1; i <= n; ++i) {
    q.push(i);
    ASSERT_EQ(q.size(), i);
  }
  EXPECT_FALSE(q.empty());
  EXPECT_GE(q.live_blocks(), n / B);
  for (value i = 1; i <= n; ++i) {
    auto r = q.steal();
    ASSERT_TRUE(r.is_success()) << "i=" << i;
    ASSERT_EQ(r.value, i);
    ASSERT_EQ(q.size(), n - i);
  }
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.live_blocks(), 1u);  // every consumed block was freed by its last reader
}

// @verifies INJ-1 INJ-4
TEST(Injector, FifoAcrossBlockBoundaries) {
  sequential_fifo_roundtrip<1>();
  sequential_fifo_roundtrip<2>();
  sequential_fifo_roundtrip<3>();
  sequential_fifo_roundtrip<63>();
}

// Interleaved push/steal/batch against a std::deque model with BlockSize 3.
// @verifies INJ-1 INJ-4
TEST(Injector, MatchesSequentialModel) {
  std::mt19937_64 rng(test_seed());
  pilfer::basic_injector<value, sync, 3> q;
  pilfer::deque<value> dest(1);
  std::deque<value> model, model_dest;
  value next = 1;
  for (int step = 0; step < 20'000; ++step) {
    const auto op = rng() % 10;
    if (op < 5) {
      q.push(next);
      model.push_back(next++);
    } else if (op < 7) {
      auto r = q.steal();
      if (model.empty()) {
        ASSERT_TRUE(r.is_empty());
      } else {
        ASSERT_TRUE(r.is_success());
        ASSERT_EQ(r.value, model.front());
        model.pop_front();
      }
    } else if (op < 8) {
      const std::size_t max = 1 + rng() % 4;
      auto r = q.steal_batch(dest, max);
      if (model.empty()) {
        ASSERT_TRUE(r.is_empty());
      } else {
        ASSERT_TRUE(r.is_success());
        ASSERT_GE(r.value, 1u);
        ASSERT_LE(r.value, max);
        ASSERT_LE(r.value, (model.size() + 1) / 2);
        for (std::size_t i = 0; i < r.value; ++i) {
          model_dest.push_back(model.front());
          model.pop_front();
        }
      }
    } else if (op < 9) {
      auto r = q.steal_batch_and_pop(dest, 1 + rng() % 4);
      if (model.empty()) {
        ASSERT_TRUE(r.is_empty());
      } else {
        ASSERT_TRUE(r.is_success());
        ASSERT_EQ(r.value, model.front());
        model.pop_front();
        while (model_dest.size() < dest.size()) {
          model_dest.push_back(model.front());
          model.pop_front();
        }
      }
    } else {
      while (auto v = dest.pop()) {
        ASSERT_EQ(*v, model_dest.back());
        model_dest.pop_back();
      }
    }
    ASSERT_EQ(q.size(), model.size());
    ASSERT_EQ(q.empty(), model.empty());
    ASSERT_EQ(dest.size(), model_dest.size());
    // Bounded memory: the blocks alive cover the items plus the head block.
    ASSERT_LE(q.live_blocks(), model.size() / 3 + 2);
  }
}

// @verifies INJ-1
TEST(Injector, BatchStopsAtBlockEndAndKeepsOrder) {
  pilfer::basic_injector<value, sync, 4> q;
  pilfer::deque<value> dest;
  for (value i = 1; i <= 20; ++i) q.push(i);
  // 20 items, head at offset 0 of a 4-slot block: min(ceil(20/2), 32, 4) = 4.
  auto r = q.steal_batch(dest);
  ASSERT_TRUE(r.is_success());
  EXPECT_EQ(r.value, 4u);
  EXPECT_EQ(q.live_blocks(), 5u);  // 6 blocks (the 6th installed by the 20th push), first one freed
  EXPECT_EQ(dest.steal().value, 1u);  // oldest at dest's FIFO end
  EXPECT_EQ(dest.pop().value(), 4u);  // newest at dest's LIFO end
  EXPECT_EQ(q.steal().value, 5u);
  // Half bound: 15 left, head at offset 1: min(ceil(15/2)=8, 3 left in block) = 3.
  auto r2 = q.steal_batch_and_pop(dest, 32);
  EXPECT_EQ(r2.value, 6u);
  EXPECT_EQ(dest.size(), 2u + 2u);
  // max bound
  auto r3 = q.steal_batch(dest, 1);
  EXPECT_EQ(r3.value, 1u);
  EXPECT_EQ(q.size(), 20u - 4 - 1 - 3 - 1);
}

// Two consumers: the second runs entirely between the first's fence [S3] and
// its CAS [S5]. The first reports retry; nothing is lost or duplicated.
// @verifies INJ-2 INJ-3 DQ-5
TEST(InjectorInterleaving, LosingConsumerGetsRetry) {
  pilfer::basic_injector<value, hook_sync, 2> q;
  q.push(1);
  q.push(2);
  pilfer::steal_result<value> inner = pilfer::steal_result<value>::empty();
  hook_sync::arm("injector.S3", [&] { inner = q.steal(); });
  auto outer = q.steal();
  EXPECT_TRUE(outer.is_retry());
  ASSERT_TRUE(inner.is_success());
  EXPECT_EQ(inner.value, 1u);
  EXPECT_EQ(q.steal().value, 2u);
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_EQ(q.live_blocks(), 1u);
}

// A push that completes between a consumer's fence and its tail read is seen.
// @verifies INJ-1
TEST(InjectorInterleaving, PushBeforeTailReadIsSeen) {
  pilfer::basic_injector<value, hook_sync, 2> q;
  hook_sync::arm("injector.S3", [&] { q.push(9); });
  auto r = q.steal();
  ASSERT_TRUE(r.is_success());
  EXPECT_EQ(r.value, 9u);
}

// ------------------------------------------------------------ concurrency

constexpr value producer_shift = 40;

struct mpmc_config {
  int producers;
  int consumers;
  value per_producer;
  bool batch;
};

template <std::size_t B>
void run_mpmc(const mpmc_config& cfg) {
  pilfer::basic_injector<value, sync, B> q;
  sync::atomic<int> producers_done{0};
  sync::atomic<int> ready{0};
  std::vector<std::vector<value>> got(static_cast<std::size_t>(cfg.consumers));
  std::vector<sync::thread> threads;
  const int total_threads = cfg.producers + cfg.consumers;
  for (int c = 0; c < cfg.consumers; ++c) {
    threads.emplace_back([&, c] {
      auto& mine = got[static_cast<std::size_t>(c)];
      pilfer::basic_deque<value, sync> local(2);
      ready.fetch_add(1, PILFER_SITE("test.ready", acq_rel));
      for (;;) {
        const bool done = producers_done.load(PILFER_SITE("test.done", acquire)) == cfg.producers;
        pilfer::steal_status st;
        if (cfg.batch) {
          auto r = q.steal_batch_and_pop(local, 8);
          st = r.status;
          if (r.is_success()) {
            mine.push_back(r.value);
            // local's FIFO end keeps the injector's order.
            for (auto x = local.steal(); x.is_success(); x = local.steal()) mine.push_back(x.value);
          }
        } else {
          auto r = q.steal();
          st = r.status;
          if (r.is_success()) mine.push_back(r.value);
        }
        if (st == pilfer::steal_status::empty) {
          if (done) break;
          sync::yield();
        }
      }
    });
  }
  for (int p = 0; p < cfg.producers; ++p) {
    threads.emplace_back([&, p] {
      ready.fetch_add(1, PILFER_SITE("test.ready", acq_rel));
      while (ready.load(PILFER_SITE("test.ready", acquire)) < total_threads) sync::yield();
      for (value i = 1; i <= cfg.per_producer; ++i) q.push((static_cast<value>(p) << producer_shift) | i);
      producers_done.fetch_add(1, PILFER_SITE("test.done", release));
    });
  }
  for (auto& t : threads) t.join();

  // Exactly once, and per-producer FIFO as seen by each consumer.
  std::vector<std::vector<unsigned>> seen(static_cast<std::size_t>(cfg.producers),
                                          std::vector<unsigned>(cfg.per_producer + 1, 0));
  std::size_t total = 0;
  for (const auto& mine : got) {
    std::vector<value> last(static_cast<std::size_t>(cfg.producers), 0);
    for (value v : mine) {
      const auto p = static_cast<std::size_t>(v >> producer_shift);
      const value i = v & ((value{1} << producer_shift) - 1);
      ASSERT_LT(p, static_cast<std::size_t>(cfg.producers));
      ASSERT_GE(i, 1u);
      ASSERT_LE(i, cfg.per_producer);
      ASSERT_LT(last[p], i) << "consumer saw producer " << p << " out of order";
      last[p] = i;
      ++seen[p][i];
      ++total;
    }
  }
  EXPECT_EQ(total, static_cast<std::size_t>(cfg.producers) * cfg.per_producer);
  for (std::size_t p = 0; p < seen.size(); ++p)
    for (value i = 1; i <= cfg.per_producer; ++i) ASSERT_EQ(seen[p][i], 1u) << "producer " << p << " item " << i;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_LE(q.live_blocks(), 1u);  // INJ-4: drained and quiescent
}

// @verifies INJ-1 INJ-2 INJ-4
TEST(InjectorConcurrent, MpmcExactlyOnceSmallBlocks) {
  for (int producers = 1; producers <= 3; ++producers) {
    for (int consumers = 1; consumers <= 3; ++consumers) {
      SCOPED_TRACE(testing::Message() << "producers=" << producers << " consumers=" << consumers);
      run_mpmc<2>({producers, consumers, 3'000, false});
    }
  }
}

// @verifies INJ-1 INJ-2 INJ-4
TEST(InjectorConcurrent, MpmcExactlyOnceDefaultBlocks) {
  run_mpmc<63>({2, 2, 20'000, false});
  run_mpmc<63>({3, 1, 10'000, false});
}

// @verifies INJ-1 INJ-2 INJ-4 DQ-6
TEST(InjectorConcurrent, MpmcExactlyOnceBatchConsumers) {
  run_mpmc<3>({2, 2, 10'000, true});
  run_mpmc<63>({2, 3, 10'000, true});
}

}  // namespace
