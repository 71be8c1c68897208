// pilfer/testing/hook_sync.hpp — std_sync plus a one-shot hook run right after the fence with a given tag:
// a single thread can play a precise interleaving ("a second thief runs entirely between [S2] and [S5] of the
// first").
#pragma once

#include <pilfer/sync.hpp>

#include <cstring>
#include <functional>
#include <utility>

namespace pilfer::testing {

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

}  // namespace pilfer::testing
