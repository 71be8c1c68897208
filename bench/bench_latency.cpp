// bench/bench_latency.cpp — submit-to-start latency on a parked pool: the pool is left idle long enough for its
// workers to park (GAP_MS), then one task is submitted from outside and stamps the time it starts. One
// implementation per process.
//   bench_latency IMPL [SAMPLES [GAP_MS]]     defaults 200 samples, 10 ms gap
// Prints one JSON object: {"name": "latency.parked[IMPL]", "median_us": ..., "p99_us": ..., "samples": [...]}.
#include <pilfer/sync.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "outside_submit.hpp"

namespace {

using pilfer::std_sync;
using clock_type = std::chrono::steady_clock;

bool parse_positive(const char* arg, std::uint64_t& out) {
  const std::string_view s(arg);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size() && out > 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4 || std::string_view(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: bench_latency IMPL [SAMPLES [GAP_MS]]   IMPL one of: %s\n",
                 pilfer::bench::outside_pool_names(false));
    return 2;
  }
  std::uint64_t samples = 200, gap_ms = 10;
  if ((argc >= 3 && !parse_positive(argv[2], samples)) || (argc == 4 && !parse_positive(argv[3], gap_ms))) {
    std::fprintf(stderr, "bench_latency: SAMPLES and GAP_MS must be positive integers\n");
    return 2;
  }
  std::vector<double> us;
  us.reserve(samples);
  std_sync::atomic<std::uint32_t> started{0};
  std_sync::atomic<std::int64_t> start_ns{0};
  const bool known = pilfer::bench::with_outside_pool(argv[1], false, [&](auto& pool) {
    for (std::uint64_t s = 0; s < samples; ++s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
      started.store(0, PILFER_SITE("bench.lat", relaxed));
      const auto t0 = clock_type::now();
      pool.submit([&] {
        start_ns.store(clock_type::now().time_since_epoch().count(), PILFER_SITE("bench.lat", relaxed));
        started.store(1, PILFER_SITE("bench.lat", release));
        started.notify_all();
      });
      while (started.load(PILFER_SITE("bench.lat", acquire)) == 0) started.wait(0, PILFER_SITE("bench.lat", acquire));
      const auto t1 = start_ns.load(PILFER_SITE("bench.lat", relaxed));
      us.push_back(static_cast<double>(t1 - t0.time_since_epoch().count()) / 1000.0);
    }
    pool.wait_all();
  });
  if (!known) {
    std::fprintf(stderr, "bench_latency: unknown implementation '%s'; one of: %s\n", argv[1],
                 pilfer::bench::outside_pool_names(false));
    return 2;
  }
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double q) { return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sorted.size())))]; };
  std::printf("{\"name\": \"latency.parked[%s]\", \"median_us\": %.2f, \"p99_us\": %.2f, \"samples\": [", argv[1], pct(0.5), pct(0.99));
  for (std::size_t i = 0; i < us.size(); ++i) std::printf("%s%.2f", i ? ", " : "", us[i]);
  std::printf("]}\n");
  return 0;
}
