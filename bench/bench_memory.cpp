// bench/bench_memory.cpp — memory per queued task and peak RSS with 1M tasks queued, one implementation per
// process (a fresh heap each time; scripts/bench.sh runs it once per implementation and round).
//   bench_memory IMPL [TASKS]     IMPL: see --help; TASKS default 1000000
// Both workers are first held inside a blocking task, so every submitted task stays queued; the resident set
// is read before and after submitting them. Each task captures two pointers (16 bytes), like a typical closure.
// Prints one JSON object per line: {"name": "memory.queued_1M[IMPL]", "bytes_per_task": ..., "peak_rss_mb": ...}.
#include <pilfer/sync.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "outside_submit.hpp"

namespace {

using pilfer::std_sync;

/// Resident set size and its peak (VmRSS, VmHWM) in bytes, from /proc/self/status.
struct rss {
  std::uint64_t now = 0, peak = 0;
};
rss read_rss() {
  std::ifstream f("/proc/self/status");
  std::string line;
  rss r;
  while (std::getline(f, line)) {
    auto kb = [&](const char* key) -> std::uint64_t { return std::strtoull(line.c_str() + std::strlen(key), nullptr, 10) * 1024; };
    if (line.rfind("VmRSS:", 0) == 0) r.now = kb("VmRSS:");
    if (line.rfind("VmHWM:", 0) == 0) r.peak = kb("VmHWM:");
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bool group_ok = true;
  if (argc < 2 || argc > 3 || std::string_view(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: bench_memory IMPL [TASKS]   IMPL one of: %s\n", pilfer::bench::outside_pool_names(group_ok));
    return 2;
  }
  std::uint64_t tasks = 1'000'000;
  if (argc == 3) {
    const std::string_view s(argv[2]);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), tasks);
    if (ec != std::errc{} || p != s.data() + s.size() || tasks == 0) {
      std::fprintf(stderr, "bench_memory: TASKS must be a positive integer, got '%s'\n", argv[2]);
      return 2;
    }
  }
  std_sync::atomic<std::uint32_t> gate{0};
  std_sync::atomic<std::uint32_t> held{0};
  std_sync::atomic<std::uint64_t> ran{0};
  std::uint64_t* a = nullptr;
  std::uint64_t* b = nullptr;
  rss before, after;
  const bool known = pilfer::bench::with_outside_pool(argv[1], group_ok, [&](auto& pool) {
    for (unsigned i = 0; i < pilfer::bench::outside_threads; ++i)
      pool.submit([&] {
        held.fetch_add(1, PILFER_SITE("bench.mem", acq_rel));
        held.notify_all();
        while (gate.load(PILFER_SITE("bench.mem", acquire)) == 0) gate.wait(0, PILFER_SITE("bench.mem", acquire));
      });
    for (;;) {
      const auto h = held.load(PILFER_SITE("bench.mem", acquire));
      if (h == pilfer::bench::outside_threads) break;
      held.wait(h, PILFER_SITE("bench.mem", acquire));
    }
    before = read_rss();
    for (std::uint64_t i = 0; i < tasks; ++i)
      pool.submit([&ran, a, b] {
        ran.fetch_add(1, PILFER_SITE("bench.mem", relaxed));
        (void)a;
        (void)b;
      });
    after = read_rss();
    gate.store(1, PILFER_SITE("bench.mem", release));
    gate.notify_all();
    pool.wait_all();
    while (ran.load(PILFER_SITE("bench.mem", acquire)) != tasks) std_sync::yield();
  });
  if (!known) {
    std::fprintf(stderr, "bench_memory: unknown implementation '%s'; one of: %s\n", argv[1],
                 pilfer::bench::outside_pool_names(group_ok));
    return 2;
  }
  const double per_task = after.now > before.now ? static_cast<double>(after.now - before.now) / static_cast<double>(tasks) : 0.0;
  std::printf("{\"name\": \"memory.queued_1M[%s]\", \"bytes_per_task\": %.1f, \"peak_rss_mb\": %.1f, \"tasks\": %llu}\n",
              argv[1], per_task, static_cast<double>(after.peak) / (1024.0 * 1024.0), static_cast<unsigned long long>(tasks));
  return 0;
}
