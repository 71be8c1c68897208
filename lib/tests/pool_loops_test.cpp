// parallel_for / parallel_reduce: coverage of every index exactly once,
// empty ranges, grain edge cases, order-preserving reduction, adaptive
// chunking (few pieces when nobody is hungry).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <mutex>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;

namespace {

// @verifies POOL-16
TEST(PoolLoops, ParallelForCoversEachIndexOnceAcrossSizesAndGrains) {
  pilfer::pool p({.threads = 3});
  const std::size_t sizes[] = {0, 1, 2, 3, 17, 1000, under_tsan() ? 20000u : 100000u};
  const std::size_t grains[] = {0, 1, 3, 7, 1000, std::size_t{1} << 40};
  for (std::size_t n : sizes)
    for (std::size_t g : grains) {
      std::unique_ptr<counter[]> hits(new counter[n + 1]);
      pilfer::parallel_for(p, std::size_t{0}, n, [&](std::size_t i) { add(hits[i]); }, g);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) bad += load(hits[i]) != 1;
      EXPECT_EQ(bad, 0u) << "n=" << n << " grain=" << g;
      EXPECT_EQ(load(hits[n]), 0u);
    }
}

// @verifies POOL-16
TEST(PoolLoops, EmptyAndReversedAndSignedRanges) {
  pilfer::pool p({.threads = 2});
  counter calls{0};
  pilfer::parallel_for(p, 5, 5, [&](int) { add(calls); });
  pilfer::parallel_for(p, 10, 3, [&](int) { add(calls); });
  EXPECT_EQ(load(calls), 0u);
  EXPECT_EQ(pilfer::parallel_reduce(p, 7, 7, 42L, [](int) { return 1L; }, [](long a, long b) { return a + b; }), 42L);
  EXPECT_EQ(pilfer::parallel_reduce(p, 9, 2, -1, [](int) { return 1; }, [](int a, int b) { return a + b; }), -1);
  // Signed range across zero.
  const long s = pilfer::parallel_reduce(p, -500, 500, 0L, [](int i) { return static_cast<long>(i); },
                                         [](long a, long b) { return a + b; }, 7);
  EXPECT_EQ(s, -500L);
  // 64-bit indices.
  const std::int64_t base = std::int64_t{1} << 40;
  const std::int64_t cnt = pilfer::parallel_reduce(p, base, base + 1000, std::int64_t{0},
                                                   [](std::int64_t) { return std::int64_t{1}; },
                                                   [](std::int64_t a, std::int64_t b) { return a + b; });
  EXPECT_EQ(cnt, 1000);
}

// @verifies POOL-16
TEST(PoolLoops, ReduceKeepsOperandOrder) {
  pilfer::pool p({.threads = 3});
  std::string expect;
  for (int i = 0; i < 300; ++i) expect += std::to_string(i) + ",";
  for (std::size_t g : {std::size_t{0}, std::size_t{1}, std::size_t{13}, std::size_t{1000}}) {
    const std::string got = pilfer::parallel_reduce(
        p, 0, 300, std::string{}, [](int i) { return std::to_string(i) + ","; },
        [](std::string a, const std::string& b) { return a + b; }, g);
    EXPECT_EQ(got, expect) << "grain " << g;
  }
  const std::uint64_t n = under_tsan() ? 100000 : 1000000;
  const std::uint64_t sq = pilfer::parallel_reduce(p, std::uint64_t{0}, n, std::uint64_t{0},
                                                   [](std::uint64_t i) { return i * i; },
                                                   [](std::uint64_t a, std::uint64_t b) { return a + b; });
  EXPECT_EQ(sq, (n - 1) * n * (2 * n - 1) / 6);
}

// @verifies POOL-16 POOL-11
TEST(PoolLoops, NestedLoopsOnOneWorkerAndAdaptiveSplitting) {
  pilfer::pool one({.threads = 1});
  counter c{0};
  pilfer::parallel_for(one, 0, 20, [&](int) { pilfer::parallel_for(one, 0, 50, [&](int) { add(c); }); });
  EXPECT_EQ(load(c), 1000u);
  // Nobody is hungry on one worker: the budget (size() == 1) allows one split
  // per top-level call, not n/grain pieces.
  const auto before = one.stats().total.join_pushes;
  pilfer::parallel_for(one, 0, 100000, [&](int) {});
  EXPECT_LE(one.stats().total.join_pushes - before, 1u);
  // An explicit grain cannot force more pieces than the budget; a large
  // grain stops splitting early.
  const auto b2 = one.stats().total.join_pushes;
  pilfer::parallel_for(one, 0, 100000, [&](int) {}, 1 << 20);
  EXPECT_EQ(one.stats().total.join_pushes - b2, 0u);

  // With several workers the pieces multiply only when halves get stolen;
  // they stay far below n.
  pilfer::pool p({.threads = 3});
  const auto b3 = p.stats().total.join_pushes;
  counter work{0};
  pilfer::parallel_for(p, 0, 100000, [&](int) { add(work); });
  const auto pieces = p.stats().total.join_pushes - b3 + 1;
  std::printf("[figure] parallel_for n=100000 on 3 workers, auto grain: %llu pieces, %llu steals\n",
              static_cast<unsigned long long>(pieces), static_cast<unsigned long long>(p.stats().total.steals));
  EXPECT_EQ(load(work), 100000u);
  EXPECT_GE(pieces, 2u);
  EXPECT_LT(pieces, 100000u / 16);
}

/// A pool whose loops keep the old rule: a running piece never splits what it has left.
struct unsplit_leaves_sync : pilfer::std_sync {
  static constexpr pilfer::detail::pool_mutation pool_mutation = pilfer::detail::pool_mutation::unsplit_leaves;
};

/// parallel_for over 256 indices on 2 workers, started inside a task. The piece its worker keeps for
/// itself with the budget spent (a quarter, never stolen) is slow: 2 ms per index; the rest is
/// cheap. Returns how many workers ran indices of that slow piece (every index checked once).
template <class Sync>
std::size_t workers_on_the_slow_piece() {
  pilfer::basic_pool<Sync> p({.threads = 2});
  constexpr int n = 256;
  std::vector<int> ran_on(n, -1);
  std::vector<int> calls(n, 0);
  std::mutex m;
  p.submit([&] {
     const unsigned me = *p.current_worker_index();
     // Home ranges (parallel.hpp): worker 0 keeps [0, n/2) then [0, n/4); worker 1 keeps
     // [n/2, n) then [n/2, 3n/4).
     const int lo = me == 0 ? 0 : n / 2;
     pilfer::parallel_for(p, 0, n, [&](int i) {
       if (i >= lo && i < lo + n / 4) std::this_thread::sleep_for(std::chrono::milliseconds(2));
       std::lock_guard<std::mutex> g(m);
       ran_on[static_cast<std::size_t>(i)] = static_cast<int>(p.current_worker_index().value_or(99));
       ++calls[static_cast<std::size_t>(i)];
     });
     std::vector<int> slow(ran_on.begin() + lo, ran_on.begin() + lo + n / 4);
     std::sort(slow.begin(), slow.end());
     ran_on.assign(slow.begin(), std::unique(slow.begin(), slow.end()));
   }).get();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), 1), n);
  return ran_on.size();
}

// A piece that is running splits what it has left when its worker has nothing queued and another
// worker is idle: the slow quarter is shared. With the old rule (mutant) its 64 indices all run on
// the worker that kept it, 128 ms, while the other worker is idle.
// @verifies POOL-16
TEST(PoolLoops, RunningPieceSharesWhatIsLeftWithAnIdleWorker) {
  EXPECT_EQ(workers_on_the_slow_piece<pilfer::std_sync>(), 2u);
  EXPECT_EQ(workers_on_the_slow_piece<unsplit_leaves_sync>(), 1u) << "mutant unsplit_leaves not caught";
}

// @verifies POOL-16 POOL-10
TEST(PoolLoops, BodyExceptionPropagates) {
  pilfer::pool p({.threads = 2});
  EXPECT_THROW(pilfer::parallel_for(p, 0, 1000,
                                    [](int i) {
                                      if (i == 777) throw std::runtime_error("777");
                                    }),
               std::runtime_error);
  EXPECT_THROW((void)pilfer::parallel_reduce(
                   p, 0, 100, 0,
                   [](int i) {
                     if (i == 50) throw std::logic_error("50");
                     return i;
                   },
                   [](int a, int b) { return a + b; }),
               std::logic_error);
  EXPECT_EQ(p.submit([] { return 1; }).get(), 1);
}

// Every index throws its own value: the exception that propagates is the one of
// the leftmost piece (join order), index `begin`, whichever worker ran which
// half — a worker whose home is the right half runs that half inline and
// exposes the left one (parallel.hpp, home_range), and the left exception
// still wins. Many rounds, 2 and 3 workers, called from outside and from a
// task.
// @verifies POOL-16 POOL-10
TEST(PoolLoops, LeftmostExceptionWinsWhateverWorkerRunsWhichHalf) {
  for (unsigned workers : {2u, 3u}) {
    pilfer::pool p({.threads = workers});
    for (int round = 0; round < 200; ++round) {
      const bool inside = round % 2 == 1;
      int caught_for = -1, caught_reduce = -1;
      auto run = [&] {
        try {
          pilfer::parallel_for(p, 100, 100 + 4096, [](int i) { throw i; });
        } catch (int i) {
          caught_for = i;
        }
        try {
          (void)pilfer::parallel_reduce(
              p, 100, 100 + 4096, 0, [](int i) -> int { throw i; }, [](int a, int b) { return a + b; });
        } catch (int i) {
          caught_reduce = i;
        }
      };
      if (inside)
        p.submit(run).get();
      else
        run();
      ASSERT_EQ(caught_for, 100) << workers << " workers, round " << round << (inside ? " (inside a task)" : "");
      ASSERT_EQ(caught_reduce, 100) << workers << " workers, round " << round << (inside ? " (inside a task)" : "");
    }
  }
}

}  // namespace

// Issue 8 point 6: the whole range of a signed index type is split without
// signed overflow (before: `e - b` overflowed, UB). One worker, one split:
// the halves are [INT_MIN, -1) and [-1, INT_MAX); each leaf records its first
// index and throws, so the 2^32 iterations never run.
// @verifies POOL-16
TEST(PoolLoops, FullSignedRangeSplitsWithoutOverflow) {
  pilfer::pool p({.threads = 1});
  std::mutex m;
  std::vector<int> firsts;
  EXPECT_THROW(pilfer::parallel_for(p, INT_MIN, INT_MAX, [&](int i) {
                 {
                   std::lock_guard<std::mutex> g(m);
                   firsts.push_back(i);
                 }
                 throw std::runtime_error("stop");
               }),
               std::runtime_error);
  std::sort(firsts.begin(), firsts.end());
  EXPECT_EQ(firsts, (std::vector<int>{INT_MIN, -1}));
  std::vector<long long> lfirsts;
  EXPECT_THROW(pilfer::parallel_reduce(p, LLONG_MIN, LLONG_MAX, 0LL,
                                       [&](long long i) -> long long {
                                         {
                                           std::lock_guard<std::mutex> g(m);
                                           lfirsts.push_back(i);
                                         }
                                         throw std::runtime_error("stop");
                                       },
                                       [](long long a, long long b) { return a + b; }),
               std::runtime_error);
  std::sort(lfirsts.begin(), lfirsts.end());
  EXPECT_EQ(lfirsts, (std::vector<long long>{LLONG_MIN, -1}));
}
