// Helpers shared by lib/tests/pool_*_test.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pilfer/sync.hpp"

namespace pilfer_test {

using flag = pilfer::std_sync::atomic<int>;
using counter = pilfer::std_sync::atomic<std::uint64_t>;

/// Generous bound for "this must happen": a failure, never a hang.
inline constexpr std::chrono::seconds deadline{20};

/// Spin (yielding) until pred() or the deadline; returns pred().
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = deadline) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return pred();
    pilfer::std_sync::yield();
  }
  return true;
}

inline int load(const flag& f) { return f.load(PILFER_SITE("test.load", acquire)); }
inline void store(flag& f, int v) { f.store(v, PILFER_SITE("test.store", release)); }
inline std::uint64_t load(const counter& c) { return c.load(PILFER_SITE("test.load", acquire)); }
inline void c_store(counter& c, std::uint64_t v) { c.store(v, PILFER_SITE("test.store", release)); }
inline std::uint64_t add(counter& c, std::uint64_t d = 1) { return c.fetch_add(d, PILFER_SITE("test.add", acq_rel)); }

/// seed=N printed, PILFER_SEED=N accepted.
inline std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* e = std::getenv("PILFER_SEED");
    const std::uint64_t v =
        e ? std::strtoull(e, nullptr, 10)
          : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::printf("seed=%llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

constexpr bool under_tsan() {
#if defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace pilfer_test
