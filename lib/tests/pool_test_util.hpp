// Helpers shared by lib/tests/pool_*_test.cpp.
#pragma once

#include <chrono>
#include <cstdint>

#include "pilfer/sync.hpp"
#include "pilfer/testing/sanitizers.hpp"
#include "pilfer/testing/seed.hpp"

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

/// seed=N printed, PILFER_SEED=N accepted (the room's helper; a malformed value is an error, exit 2).
using pilfer::testing::test_seed;

/// A function, as the tests call it (`under_tsan() ? small : large`).
constexpr bool under_tsan() { return pilfer::testing::under_tsan; }

}  // namespace pilfer_test
