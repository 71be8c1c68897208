// pilfer/conformance/harness.hpp — threads, a start line, stamps and bounded waits for the tests.
#pragma once

#include <pilfer/sync.hpp>
#include <pilfer/testing/random.hpp>
#include <pilfer/testing/start_line.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace pilfer::conformance {

using sync = pilfer::std_sync;
template <class T>
using atomic = sync::atomic<T>;

/// All threads of one repetition wait here so they start their programs together (pilfer/testing/start_line.hpp).
using pilfer::testing::start_line;

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

/// splitmix64: deterministic per-seed randomness for non-rapidcheck tests (pilfer/testing/random.hpp).
using rng = pilfer::testing::splitmix64;

}  // namespace pilfer::conformance
