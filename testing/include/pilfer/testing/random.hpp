// pilfer/testing/random.hpp — small, fast generators, deterministic per seed (test data, schedules, jitter):
// splitmix64, and xorshift64* for per-thread streams derived from one run seed.
#pragma once

#include <cstdint>

namespace pilfer::testing {

/// 2^64 / golden ratio: splitmix64's increment, also a good odd multiplier for spreading a counter over 64 bits.
inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;

struct splitmix64 {
  std::uint64_t state;

  std::uint64_t next() noexcept {
    std::uint64_t z = (state += golden_gamma);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform-ish in [0, n) (modulo bias is irrelevant for tests); 0 when n == 0.
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
};

/// The seed of stream number `stream` of a run seeded with `seed`: distinct streams get unrelated values.
inline std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) noexcept {
  return splitmix64{seed + golden_gamma * stream}.next();
}

/// xorshift64*: one generator per thread, seeded from the run seed and the thread's stream number.
class xorshift64star {
 public:
  explicit xorshift64star(std::uint64_t seed, std::uint64_t stream = 0) noexcept
      : state_(stream_seed(seed, stream) | 1u) {}
  std::uint64_t next() noexcept {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  /// Uniform-ish in [0, n) (modulo bias is irrelevant for tests); 0 when n == 0.
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }

 private:
  std::uint64_t state_;
};

}  // namespace pilfer::testing
