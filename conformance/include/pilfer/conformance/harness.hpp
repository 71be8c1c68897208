// pilfer/conformance/harness.hpp — threads, a start line, stamps and bounded waits for the tests.
#pragma once

#include <pilfer/sync.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace pilfer::conformance {

using sync = pilfer::std_sync;
template <class T>
using atomic = sync::atomic<T>;

/// All threads of one repetition spin here so they start their programs together
/// (widening the windows where operations overlap).
class start_line {
 public:
  explicit start_line(int parties) : parties_(parties) {}
  void arrive_and_wait() noexcept {
    arrived_.fetch_add(1, PILFER_SITE("conformance.start", acq_rel));
    // Spin briefly, then yield: with more threads than cores a pure spin would burn whole time slices.
    for (int n = 0; arrived_.load(PILFER_SITE("conformance.start", acquire)) < parties_; ++n) {
      if (n < 256) sync::spin_hint(); else sync::yield();
    }
  }

 private:
  int parties_;
  atomic<int> arrived_{0};
};

/// Run each body on its own thread behind a common start line; join all.
inline void run_threads(std::vector<std::function<void()>> bodies) {
  start_line line(static_cast<int>(bodies.size()));
  std::vector<sync::thread> threads;
  threads.reserve(bodies.size());
  for (auto& b : bodies) {
    threads.emplace_back([&line, &b] {
      line.arrive_and_wait();
      b();
    });
  }
  for (auto& t : threads) t.join();
}

/// Poll `done` until it holds or `limit` passes (no sleeps: yields between polls).
template <class Pred>
bool wait_until(Pred done, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    sync::yield();
  }
  return true;
}

/// Busy-wait for roughly `d` (input jitter for wake-up tests; not synchronisation).
inline void busy_for(std::chrono::nanoseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) sync::spin_hint();
}

/// splitmix64: deterministic per-seed randomness for non-rapidcheck tests.
struct rng {
  std::uint64_t s;
  std::uint64_t next() noexcept {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
};

}  // namespace pilfer::conformance
