// bench/workloads.hpp — the workloads every pool benchmark runs (pilfer, oneTBB, OpenMP, the mutex pools; the
// Rust program bench/rust/ mirrors them): sizes, the unit of work, inputs and expected results, in one place.
// PILFER_BENCH_SMOKE=1 in the environment shrinks every size (the bench.smoke ctest: builds and runs, no timing).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

namespace pilfer::bench {

inline bool smoke() {
  static const bool s = [] {
    const char* v = std::getenv("PILFER_BENCH_SMOKE");
    return v != nullptr && v[0] != '\0' && v[0] != '0';
  }();
  return s;
}

struct sizes {
  unsigned fib_n;                 // fib(30): 1.3M calls, 2.7M spawns in the spawn-both form
  std::uint64_t external_tasks;   // tasks submitted from a thread outside the pool
  std::uint64_t skewed_tasks;     // tasks of the skewed load
  std::uint64_t skewed_light;     // LCG steps of a light task; heavy ones take 1000x
  std::uint64_t pfor_items;       // parallel_for range
  std::size_t sort_items;         // parallel quicksort input
};

inline const sizes& size() {
  static const sizes full{30, 1'000'000, 1'000, 5'000, 10'000'000, 10'000'000};
  static const sizes tiny{15, 1'000, 100, 50, 10'000, 20'000};
  return smoke() ? tiny : full;
}

inline std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

/// The unit of work of the skewed load: a dependent LCG chain, one multiply-add per step on every compiler.
/// The empty asm hides x from the optimiser at each step: without it clang/LLVM (and so Rust) compose 8 steps
/// into one affine map, or reduce the chain to its parity when only the low bit is used, and the peers would
/// no longer do the same work.
inline std::uint64_t work(std::uint64_t steps, std::uint64_t x) {
  for (std::uint64_t i = 0; i < steps; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}
/// 1% of the tasks (every 100th, starting at 37) are 1000x heavier.
inline std::uint64_t skewed_steps(std::uint64_t i) {
  return i % 100 == 37 ? size().skewed_light * 1000 : size().skewed_light;
}

/// The cheap parallel_for body: one read-modify-write of a 32-bit element.
inline void pfor_body(std::uint32_t* a, std::uint64_t i) { a[i] = a[i] * 3u + static_cast<std::uint32_t>(i); }

/// Quicksort input: the same pseudo-random ints on every call.
inline std::vector<std::int32_t> sort_input() {
  std::vector<std::int32_t> v(size().sort_items);
  std::uint64_t x = 42;
  for (auto& e : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    e = static_cast<std::int32_t>(x >> 33);
  }
  return v;
}
constexpr std::ptrdiff_t sort_cutoff = 4096;  // below this a range is sorted with std::sort

/// One partition step of the parallel quicksort (median of three, then std::partition around it, then the
/// pivot's equals are moved next to it so both halves shrink). Returns the [lo, hi) of the two halves.
template <class It>
std::pair<It, It> sort_partition(It b, It e) {
  const auto n = e - b;
  auto a = *b, m = *(b + n / 2), z = *(e - 1);
  const auto pivot = std::max(std::min(a, m), std::min(std::max(a, m), z));
  It mid1 = std::partition(b, e, [pivot](auto v) { return v < pivot; });
  It mid2 = std::partition(mid1, e, [pivot](auto v) { return !(pivot < v); });
  return {mid1, mid2};
}

/// Parallel quicksort written once over a fork primitive: fork(left, right) runs both and returns.
template <class It, class Fork>
void quicksort(It b, It e, Fork& fork) {
  if (e - b <= sort_cutoff) {
    std::sort(b, e);
    return;
  }
  const std::pair<It, It> halves = sort_partition(b, e);
  const It m1 = halves.first, m2 = halves.second;
  fork([&] { quicksort(b, m1, fork); }, [&] { quicksort(m2, e, fork); });
}

}  // namespace pilfer::bench
