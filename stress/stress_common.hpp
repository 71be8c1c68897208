// stress/stress_common.hpp — shared plumbing of the stress programs.
//
// Every program takes
//   --seconds N     run the randomised phase for about N seconds (default per program)
//   --iterations N  ... or for exactly N rounds (submits in submit_while_parking); --seconds is then ignored
//   --seed N        (or PILFER_SEED=N in the environment) replay a run; the seed is printed as seed=N
// and exits non-zero, naming the broken invariant, when a check fails.
// Threads are pilfer::std_sync::thread and counters pilfer::std_sync::atomic, as everywhere outside sync.hpp.
#pragma once

#include <pilfer/sync.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

namespace pilfer::stress {

struct options {
  double seconds = 5.0;
  std::uint64_t iterations = 0;  // 0 = bounded by time only
  std::uint64_t seed = 0;
};

/// Parses --seconds/--iterations/--seed (both `--x N` and `--x=N`) and PILFER_SEED; prints seed=N.
inline options parse(int argc, char** argv, const char* program, double default_seconds) {
  options o;
  o.seconds = default_seconds;
  bool have_seed = false;
  if (const char* env = std::getenv("PILFER_SEED"); env != nullptr && *env != '\0') {
    o.seed = std::strtoull(env, nullptr, 10);
    have_seed = true;
  }
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    std::string_view value;
    std::string_view key = a;
    if (const auto eq = a.find('='); eq != std::string_view::npos) {
      key = a.substr(0, eq);
      value = a.substr(eq + 1);
    } else if (a != "--help" && i + 1 < argc) {
      value = argv[++i];
    }
    const std::string v(value);
    if (key == "--seconds") {
      o.seconds = std::strtod(v.c_str(), nullptr);
    } else if (key == "--iterations") {
      o.iterations = std::strtoull(v.c_str(), nullptr, 10);
    } else if (key == "--seed") {
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
      have_seed = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--seconds N] [--iterations N] [--seed N]\n"
                   "       (PILFER_SEED=N is accepted as well)\n",
                   program);
      std::exit(key == "--help" ? 0 : 2);
    }
  }
  if (!have_seed) o.seed = std::random_device{}();
  std::printf("%s: seed=%llu seconds=%.1f iterations=%llu\n", program,
              static_cast<unsigned long long>(o.seed), o.seconds,
              static_cast<unsigned long long>(o.iterations));
  std::fflush(stdout);
  return o;
}

/// A small, seedable per-thread generator (splitmix64 seeding + xorshift64*).
class rng {
 public:
  explicit rng(std::uint64_t seed, std::uint64_t stream = 0) noexcept {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    state_ = (z ^ (z >> 31)) | 1u;
  }
  std::uint64_t next() noexcept {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  /// Uniform in [0, bound), bound > 0.
  std::uint64_t below(std::uint64_t bound) noexcept { return next() % bound; }

 private:
  std::uint64_t state_;
};

/// Wall-clock bound of the randomised phase.
class deadline {
 public:
  explicit deadline(double seconds)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(seconds))),
        start_(std::chrono::steady_clock::now()) {}
  bool passed() const { return std::chrono::steady_clock::now() >= end_; }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point end_;
  std::chrono::steady_clock::time_point start_;
};

/// Counts failed checks (any thread), printing the first few.
class failures {
 public:
  void fail(const char* what, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    // The first few are printed (stderr is unbuffered; lines may interleave between threads).
    if (count_.fetch_add(1, PILFER_SITE("stress.fail", acq_rel)) < 8) {
      std::fprintf(stderr, "FAILED: %s (%llu, %llu)\n", what, static_cast<unsigned long long>(a),
                   static_cast<unsigned long long>(b));
    }
  }
  bool any() const noexcept { return count_.load(PILFER_SITE("stress.fail", acquire)) != 0; }
  std::uint64_t count() const noexcept { return count_.load(PILFER_SITE("stress.fail", acquire)); }

 private:
  std_sync::atomic<std::uint64_t> count_{0};
};

/// Final verdict line; returns the process exit code.
inline int verdict(const char* program, const failures& f, std::uint64_t seed) {
  if (f.any()) {
    std::printf("%s: FAIL (%llu failed checks) — replay with PILFER_SEED=%llu\n", program,
                static_cast<unsigned long long>(f.count()), static_cast<unsigned long long>(seed));
    return 1;
  }
  std::printf("%s: OK\n", program);
  return 0;
}

}  // namespace pilfer::stress
