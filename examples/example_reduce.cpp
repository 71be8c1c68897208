// example_reduce: data-parallel loops with automatic (adaptive) chunking.
//
// parallel_reduce: sum of squares of [0, n) against the closed form, and an
// order-sensitive reduction (concatenation) against the sequential one;
// parallel_for: a histogram with one atomic per bucket. Then a wake-latency
// measurement from a parked pool. Exits non-zero on a wrong result.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "pilfer/pool.hpp"

int main() {
  using clk = std::chrono::steady_clock;
  int failures = 0;
  pilfer::pool p({.name = "reduce"});
  std::printf("pool with %u workers (%u NUMA node(s), %u core(s) in the topology)\n", p.size(),
              p.topology().num_numa_nodes(), p.topology().num_cores());

  const std::uint64_t n = 1'000'000;  // sum stays below 2^64
  auto t0 = clk::now();
  const std::uint64_t sq = pilfer::parallel_reduce(
      p, std::uint64_t{0}, n, std::uint64_t{0}, [](std::uint64_t i) { return i * i; },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  const double ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  const std::uint64_t expect = (n - 1) * n * (2 * n - 1) / 6;
  std::printf("sum of squares [0, %llu) = %llu in %.1f ms (closed form %llu) %s\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(sq), ms,
              static_cast<unsigned long long>(expect), sq == expect ? "ok" : "WRONG");
  failures += sq != expect;

  std::string seq;
  for (int i = 0; i < 2000; ++i) seq += std::to_string(i) + ' ';
  const std::string par = pilfer::parallel_reduce(
      p, 0, 2000, std::string{}, [](int i) { return std::to_string(i) + ' '; },
      [](std::string a, const std::string& b) { return a + b; }, 16);
  std::printf("ordered concatenation of 2000 numbers: %s\n", par == seq ? "ok" : "WRONG");
  failures += par != seq;

  constexpr int buckets = 16;
  std::vector<pilfer::std_sync::atomic<std::uint64_t>> hist(buckets);
  pilfer::parallel_for(p, 0, 1'000'000, [&](int i) {
    hist[static_cast<std::size_t>(i % buckets)].fetch_add(1, PILFER_SITE("example.hist", relaxed));
  });
  bool hist_ok = true;
  for (auto& h : hist) hist_ok = hist_ok && h.load(PILFER_SITE("example.hist", relaxed)) == 1'000'000 / buckets;
  std::printf("histogram of 1e6 indices into %d buckets: %s\n", buckets, hist_ok ? "ok" : "WRONG");
  failures += !hist_ok;

  const std::uint64_t empty = pilfer::parallel_reduce(p, 5, 5, std::uint64_t{7}, [](int) { return std::uint64_t{1}; },
                                                      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  std::printf("empty range returns the identity: %s\n", empty == 7 ? "ok" : "WRONG");
  failures += empty != 7;

  // Wake latency from a parked pool.
  std::vector<double> us;
  for (int i = 0; i < 300; ++i) {
    while (p.stats().sleeping != p.size()) pilfer::std_sync::yield();
    const auto s0 = clk::now();
    auto h = p.submit([] { return clk::now(); });
    us.push_back(std::chrono::duration<double, std::micro>(h.get() - s0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("wake latency from a parked pool (300 submits): median %.1f us, p99 %.1f us\n", us[150], us[297]);

  const auto s = p.stats();
  std::printf("stats: tasks_run %llu, join branches %llu, steals %llu, parks %llu, wake-ups %llu\n",
              static_cast<unsigned long long>(s.total.tasks_run), static_cast<unsigned long long>(s.total.join_pushes),
              static_cast<unsigned long long>(s.total.steals), static_cast<unsigned long long>(s.total.parks),
              static_cast<unsigned long long>(s.total.wakeups));
  std::printf(failures ? "example_reduce: FAILED\n" : "example_reduce: all results correct\n");
  return failures ? 1 : 0;
}
