// pilfer/testing/seed.hpp — the seed of a randomised test: printed as `seed=N`, replayed with PILFER_SEED=N.
// Part of the test-support room (testing/): tests, conformance, stress, models and bench may include it;
// lib/ never does.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string_view>

namespace pilfer::testing {

/// A whole-string unsigned decimal number (no sign, no blanks, no overflow), or nothing.
inline std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

/// PILFER_SEED=N when set and not empty (a malformed value is one line on stderr and exit status 2, never a
/// silent 0), otherwise nothing.
inline std::optional<std::uint64_t> env_seed() {
  if (const char* e = std::getenv("PILFER_SEED"); e != nullptr && *e != '\0') {
    if (const auto v = parse_u64(e)) return v;
    std::fprintf(stderr, "error: PILFER_SEED must be an unsigned decimal number, got '%s'\n", e);
    std::exit(2);
  }
  return std::nullopt;
}

/// A seed nobody chose: a new one every run.
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

/// PILFER_SEED=N when set (malformed: one line on stderr, exit status 2), otherwise a fresh random seed.
inline std::uint64_t seed_from_env() {
  if (const auto s = env_seed()) return *s;
  return fresh_seed();
}

/// `seed=N` on its own line of stdout, flushed (so it is there even if the run then crashes).
inline void print_seed(std::uint64_t seed) {
  std::printf("seed=%llu\n", static_cast<unsigned long long>(seed));
  std::fflush(stdout);
}

/// The process's test seed: seed_from_env() on first use, printed once as `seed=N`.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = seed_from_env();
    print_seed(s);
    return s;
  }();
  return seed;
}

}  // namespace pilfer::testing
