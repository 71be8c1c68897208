// pilfer/testing/random.hpp — splitmix64: small, fast, deterministic per seed (test data, schedules, jitter).
#pragma once

#include <cstdint>

namespace pilfer::testing {

struct splitmix64 {
  std::uint64_t state;

  std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform-ish in [0, n) (modulo bias is irrelevant for tests); 0 when n == 0.
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
};

}  // namespace pilfer::testing
