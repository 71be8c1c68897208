// Shared helpers of the lib/ unit tests (not a test itself: only *_test.cpp files are registered).
#pragma once

#include <pilfer/sync.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <utility>

namespace pilfer_test {

/// The randomised tests' seed: PILFER_SEED=N if set, else random; printed once as `seed=N`.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = std::random_device{}();
    if (const char* e = std::getenv("PILFER_SEED")) s = std::strtoull(e, nullptr, 10);
    std::printf("seed=%llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

/// std_sync plus a one-shot hook run right after the fence with a given tag. Lets a single thread play a
/// precise interleaving (e.g. "a second thief runs entirely between [S2] and [S5] of the first").
struct hook_sync : pilfer::std_sync {
  static inline const char* hook_tag = nullptr;
  static inline std::function<void()> hook;
  static void fence(pilfer::order_site s) noexcept {
    pilfer::std_sync::fence(s);
    if (hook_tag != nullptr && std::strcmp(hook_tag, s.tag) == 0) {
      hook_tag = nullptr;
      auto h = std::move(hook);
      hook = nullptr;
      h();
    }
  }
  static void arm(const char* tag, std::function<void()> h) {
    hook = std::move(h);
    hook_tag = tag;
  }
};

}  // namespace pilfer_test
