// Sleep/wake and fairness: deep idle, randomised back-off, no lost wake-up
// (external and local pushes), injector fairness. Prints the figures the
// design notes quote (wake latency median/p99, idle CPU, fairness delay).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/resource.h>

#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;
using clk = std::chrono::steady_clock;

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clk::now().time_since_epoch()).count());
}

double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// @verifies POOL-4
TEST(PoolSleep, DeepIdleCostsNoCpu) {
  constexpr unsigned n = 3;
  pilfer::pool p({.threads = n});
  // Each worker reports its own CPU clock (affinity tasks).
  std::vector<clockid_t> clocks(n);
  for (unsigned i = 0; i < n; ++i)
    p.submit([&clocks, i] { pthread_getcpuclockid(pthread_self(), &clocks[i]); }, {.affinity = i}).get();
  // Some work, then measure how long until every worker is parked.
  p.submit([&] { pilfer::parallel_for(p, 0, 10000, [](int) {}); }).get();
  const auto t0 = clk::now();
  ASSERT_TRUE(eventually([&] { return all_parked(p); }));
  const double park_ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  // `sleeping` counts linked waiters; a linked worker may still be in its pre-park re-check (after a
  // membarrier with asymmetric fences, a few microseconds) and counts its park after that: at most one
  // park per worker can still be in progress. A CI run under load saw one wake-up when the counters
  // were read the moment every thread first looked parked (not reproduced in 40 local runs beside
  // two busy loops); a re-check still in progress that finds a queue entry searches, and a worker
  // that stops searching with work in sight wakes another (worker_main). So the quiet second starts
  // once the counters have held still for 50 ms with every thread parked: a wake-up after that is
  // what would be spurious.
  pilfer::pool_stats idle_before = p.stats();
  ASSERT_TRUE(eventually(
      [&] {
        const pilfer::pool_stats a = p.stats();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        idle_before = p.stats();
        return all_parked(p) && a.total.parks == idle_before.total.parks &&
               a.total.wakeups == idle_before.total.wakeups;
      },
      std::chrono::seconds(10)));
  // Quiet period (a measurement interval, not synchronisation).
  double before = 0, after = 0;
  for (auto c : clocks) before += cpu_seconds(c);
  const double proc_before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  for (auto c : clocks) after += cpu_seconds(c);
  const double proc_after = process_cpu_seconds();
  const double pool_pct = (after - before) * 100.0;  // over 1 s, % of one core
  std::printf("[figure] idle: all %u workers parked %.3f ms after the last task; "
              "pool threads used %.4f%% of a core over a quiet second (process %.4f%%)\n",
              n, park_ms, pool_pct, (proc_after - proc_before) * 100.0);
  EXPECT_LT(pool_pct, 1.0);
  EXPECT_TRUE(all_parked(p));
  const pilfer::pool_stats idle_after = p.stats();
  EXPECT_EQ(idle_after.total.wakeups, idle_before.total.wakeups) << "no spurious wake-ups while idle";
  EXPECT_LE(idle_after.total.parks - idle_before.total.parks, n) << "a park after the quiet period began is one in progress";
}

// @verifies POOL-6 POOL-4
TEST(PoolSleep, BackoffIsRandomisedExponentialAndCapped) {
  struct sample {
    unsigned round;
    std::uint64_t spins;
  };
  pilfer::std_sync::mutex mu;
  std::vector<sample> samples;
  constexpr unsigned cap = 6;
  {
    pilfer::pool p({.threads = 2,
                    .spin_rounds = 8,
                    .backoff_cap = cap,
                    .on_backoff = [&](unsigned, unsigned round, std::uint64_t spins) {
                      std::lock_guard<pilfer::std_sync::mutex> g(mu);
                      samples.push_back({round, spins});
                    }});
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(eventually([&] { return all_parked(p); }));
      p.submit([] {}).get();
    }
    ASSERT_TRUE(eventually([&] { return all_parked(p); }));
    std::lock_guard<pilfer::std_sync::mutex> g(mu);
    EXPECT_EQ(p.stats().total.backoff_rounds, samples.size());
  }
  std::map<unsigned, std::vector<std::uint64_t>> by_round;
  for (const auto& s : samples) by_round[s.round].push_back(s.spins);
  ASSERT_GE(by_round.size(), 8u) << "every round before parking is taken";
  double mean0 = 0, mean_last = 0;
  for (auto& [r, v] : by_round) {
    const std::uint64_t bound = std::uint64_t{1} << std::min(r + 1, cap);
    for (auto s : v) {
      EXPECT_GE(s, 1u);
      EXPECT_LE(s, bound) << "round " << r;
    }
    std::sort(v.begin(), v.end());
    const auto distinct = std::unique(v.begin(), v.end()) - v.begin();
    if (r >= 2 && v.size() >= 20) {
      EXPECT_GT(distinct, 1) << "round " << r << " not randomised";
    }
    double m = 0;
    for (auto s : v) m += static_cast<double>(s);
    m /= static_cast<double>(v.size());
    if (r == 0) mean0 = m;
    if (r == by_round.rbegin()->first) mean_last = m;
    std::printf("[figure] back-off round %u: %zu samples, %ld distinct, mean %.1f spins (bound %llu)\n", r,
                v.size(), static_cast<long>(distinct), m, static_cast<unsigned long long>(bound));
  }
  EXPECT_GT(mean_last, 2 * mean0) << "back-off grows with the round";
}

// @verifies POOL-7
TEST(PoolSleep, NoLostWakeupExternalSubmitToParkedPool) {
  constexpr int reps = 1000;
  pilfer::pool p({.threads = 2});
  std::vector<double> lat_us;
  lat_us.reserve(reps);
  double worst_wait_ms = 0;
  for (int i = 0; i < reps; ++i) {
    ASSERT_TRUE(eventually([&] { return all_parked(p); })) << "rep " << i;
    counter started{0};
    const std::uint64_t t0 = now_ns();
    p.spawn([&] { c_store(started, now_ns()); });
    const auto w0 = clk::now();
    ASSERT_TRUE(eventually([&] { return load(started) != 0; })) << "lost wake-up at rep " << i;
    worst_wait_ms = std::max(worst_wait_ms, std::chrono::duration<double, std::milli>(clk::now() - w0).count());
    lat_us.push_back(static_cast<double>(load(started) - t0) / 1000.0);
  }
  std::sort(lat_us.begin(), lat_us.end());
  std::printf("[figure] wake latency from a parked pool (%d reps): median %.1f us, p99 %.1f us, max %.1f us; "
              "bound allowed %lld s, worst observed %.3f ms\n",
              reps, lat_us[reps / 2], lat_us[reps * 99 / 100], lat_us.back(),
              static_cast<long long>(deadline.count()), worst_wait_ms);
  EXPECT_EQ(p.stats().total.tasks_run, static_cast<std::uint64_t>(reps));

  // Deeply parked: give the workers 2 ms past their last check (a measuring
  // interval, not synchronisation) so they sit in the futex, not in the
  // wait's initial spin.
  std::vector<double> deep;
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(eventually([&] { return all_parked(p); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    counter started{0};
    const std::uint64_t t0 = now_ns();
    p.spawn([&] { c_store(started, now_ns()); });
    ASSERT_TRUE(eventually([&] { return load(started) != 0; })) << "lost wake-up (deep) at rep " << i;
    deep.push_back(static_cast<double>(load(started) - t0) / 1000.0);
  }
  std::sort(deep.begin(), deep.end());
  std::printf("[figure] wake latency from a deeply parked pool (200 reps, 2 ms quiet): median %.1f us, "
              "p99 %.1f us, max %.1f us\n",
              deep[100], deep[198], deep.back());
}

// The root blocks without helping, so only the parked peer can run the child: its wake-up must
// come from the local push. `asymmetric`: the pool option (a compiler barrier on the push and
// membarrier before parking, or seq_cst fences on both sides as on a system without membarrier).
void local_spawn_to_parked_peer(bool asymmetric) {
  const int reps = under_tsan() ? 300 : 1000;
  pilfer::pool p({.threads = 2, .asymmetric_fences = asymmetric});
  for (int i = 0; i < reps; ++i) {
    ASSERT_TRUE(eventually([&] { return all_parked(p); })) << "rep " << i;
    flag child{0}, ok{0};
    p.submit([&] {
       p.spawn([&] { store(child, 1); });
       store(ok, eventually([&] { return load(child) == 1; }) ? 1 : 0);
     }).get();
    ASSERT_EQ(load(ok), 1) << "lost wake-up for a local push at rep " << i;
  }
  const auto s = p.stats();
  EXPECT_EQ(s.total.local_pushes, static_cast<std::uint64_t>(reps));
  EXPECT_GE(s.total.steals, static_cast<std::uint64_t>(reps));
}

// @verifies POOL-7
TEST(PoolSleep, NoLostWakeupLocalSpawnToParkedPeer) { local_spawn_to_parked_peer(true); }

// @verifies POOL-7
TEST(PoolSleep, NoLostWakeupLocalSpawnToParkedPeerSymmetricFences) { local_spawn_to_parked_peer(false); }

// Storm of self-replicating local tasks on every worker; external tasks must
// start within a bounded number of local tasks (measured).
std::uint64_t fairness_worst(unsigned threads, unsigned interval, int reps) {
  pilfer::pool p({.threads = threads, .injector_interval = interval});
  counter local{0};
  std::vector<counter> per_worker(threads);  // local tasks each worker ran
  flag stop{0};
  struct chain {
    pilfer::pool& p;
    counter& local;
    std::vector<counter>& per_worker;
    flag& stop;
    void operator()() const {
      add(local);
      add(per_worker[*p.current_worker_index()]);
      if (load(stop) == 0) p.spawn(*this);
    }
  };
  for (unsigned c = 0; c < threads; ++c) p.spawn(chain{p, local, per_worker, stop});
  EXPECT_TRUE(eventually([&] { return load(local) > 1000; }));
  std::uint64_t worst = 0;
  int kept = 0;
  for (int i = 0; i < 50 * reps && kept < reps; ++i) {
    // Counted per worker: the delay is the number of local tasks the worker that took the injected
    // task ran after the push (a worker the OS preempts runs none meanwhile; its peer's count says
    // nothing about the worker that took the task).
    counter seen{0};
    flag seen_by{-1};
    // c0 .. c0_after brackets both the per-worker reads and the push: a submitting thread preempted
    // anywhere in between (seen under TSan with other tests running: 2000-8000 "delay" from a gap
    // between these reads and the push) is a discarded sample, not a measured delay.
    const std::uint64_t c0 = load(local);
    std::vector<std::uint64_t> c0_per(threads);
    for (unsigned k = 0; k < threads; ++k) c0_per[k] = load(per_worker[k]);
    p.spawn([&] {
      const unsigned me = *p.current_worker_index();
      c_store(seen, load(per_worker[me]) + 1);
      store(seen_by, static_cast<int>(me));
    });
    const std::uint64_t c0_after = load(local);
    EXPECT_TRUE(eventually([&] { return load(seen_by) >= 0; })) << "injected task starved";
    // The submitting thread competes for the CPUs with the storm; a sample in
    // which it was preempted around the push says nothing about the pool.
    if (c0_after - c0 > 8) continue;
    ++kept;
    worst = std::max(worst, load(seen) - 1 - c0_per[static_cast<unsigned>(load(seen_by))]);
  }
  EXPECT_EQ(kept, reps);
  store(stop, 1);
  p.wait_idle();
  return worst;
}

// @verifies POOL-8
TEST(PoolFairness, InjectedTaskStartsWithinBoundedLocalTasks) {
  const int reps = under_tsan() ? 40 : 100;
  for (unsigned threads : {1u, 2u})
    for (unsigned interval : {5u, 61u}) {
      const std::uint64_t worst = fairness_worst(threads, interval, reps);
      std::printf("[figure] fairness: %u worker(s), injector_interval %u: worst delay %llu local tasks "
                  "(%d injected tasks)\n",
                  threads, interval, static_cast<unsigned long long>(worst), reps);
      // The worker that took it ran at most `interval` local tasks first; slack for tasks run while
      // the submitting thread was between reading the counters and pushing.
      EXPECT_LE(worst, static_cast<std::uint64_t>(threads) * interval + 64u * threads);
    }
}

}  // namespace
