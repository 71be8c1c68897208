// pilfer/detail/backoff.hpp — bounded spin-then-yield back-off for the short
// waits inside the injector (a producer between claiming a slot and writing it).
#pragma once

#include <cstdint>

namespace pilfer::detail {

/// Exponential spin (Sync::spin_hint) for a few rounds, then Sync::yield().
/// Under the model checker both calls are scheduling points, so a waiting
/// loop never starves the thread it waits for.
///
/// Under a model policy (`Sync::is_model`) each call is exactly one
/// `Sync::spin_hint()`: the checker parks the thread until another thread
/// writes, so a second hint in a row could wait for a write that never comes.
template <class Sync>
class backoff {
 public:
  void spin() noexcept {
    if constexpr (Sync::is_model) {
      Sync::spin_hint();
      return;
    }
    for (std::uint32_t i = 0; i < (1u << step_); ++i) Sync::spin_hint();
    if (step_ < spin_limit) ++step_;
  }
  void snooze() noexcept {
    if constexpr (Sync::is_model) {
      Sync::spin_hint();
      return;
    }
    if (step_ < spin_limit) {
      for (std::uint32_t i = 0; i < (1u << step_); ++i) Sync::spin_hint();
      ++step_;
    } else {
      Sync::yield();
    }
  }
  void reset() noexcept { step_ = 0; }

 private:
  static constexpr std::uint32_t spin_limit = 6;
  std::uint32_t step_ = 0;
};

}  // namespace pilfer::detail
