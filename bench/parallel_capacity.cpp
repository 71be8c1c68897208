// bench/parallel_capacity.cpp — how much parallel speed the machine gives right now.
//
// Runs the same CPU-bound chain (a dependent multiply-add loop: no memory traffic, no synchronisation)
// on one thread, then on N threads at once, and prints the capacity: N × (one thread's time) / (N threads'
// time). On N idle cores it is close to N; on a machine whose cores are shared with other jobs, or whose
// virtual CPUs get less than one core each, it is lower, and every multi-threaded row of the same run
// (speed-ups, ratios between a 2-thread and a 1-thread row) measures the machine as much as the code.
// scripts/bench.sh runs it before and after the rows and the report prints both readings.
//
// Usage: parallel_capacity [THREADS]   (default: the number of CPUs this process may run on)
// Output: one line, "capacity=C threads=N one_ms=T1 all_ms=TN" (the medians of 5 trials).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// A dependent chain of multiply-adds; the empty asm keeps the compiler from folding it.
std::uint64_t chain(std::uint64_t steps, std::uint64_t x) {
  for (std::uint64_t i = 0; i < steps; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  unsigned n = std::thread::hardware_concurrency();
  if (argc > 1) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || v == 0 || v > 1024) {
      std::fprintf(stderr, "usage: parallel_capacity [THREADS]  (THREADS: 1..1024, got '%s')\n", argv[1]);
      return 2;
    }
    n = static_cast<unsigned>(v);
  }
  if (n == 0) n = 1;
  constexpr std::uint64_t steps = 100'000'000;  // about 0.1-0.3 s per thread
  std::vector<std::uint64_t> sink(n);
  std::vector<double> one, all;
  for (int trial = 0; trial < 5; ++trial) {
    auto t0 = std::chrono::steady_clock::now();
    sink[0] = chain(steps, static_cast<std::uint64_t>(trial));
    one.push_back(ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> team;
    for (unsigned i = 0; i < n; ++i) team.emplace_back([&sink, i, trial] { sink[i] = chain(steps, i + trial); });
    for (auto& t : team) t.join();
    all.push_back(ms_since(t0));
  }
  std::uint64_t folded = 0;
  for (const std::uint64_t v : sink) folded ^= v;
  const double t1 = median(one), tn = median(all);
  std::printf("capacity=%.2f threads=%u one_ms=%.1f all_ms=%.1f check=%llu\n", n * t1 / tn, n, t1, tn,
              static_cast<unsigned long long>(folded & 1u));
  return 0;
}
