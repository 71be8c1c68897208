// pilfer/detail/backoff.hpp — bounded spin-then-yield back-off for the short
// waits inside the injector (a producer between claiming a slot and writing it),
// and the poll a thread outside the pool does before it blocks on a result.
#pragma once

#include <chrono>
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

/// A thread outside the pool is about to block until `done()` (a handle's
/// get(), a task group's wait): poll it first, for up to `outside_poll` of
/// wall time, because a futex sleep and its wake-up cost ~15 us on each side.
/// It yields between looks, never spins: the worker it just woke may be queued
/// on this very core (the scheduler places a wakee beside its waker when that
/// looks cheaper than waking an idle CPU, which on a VM means waking a halted
/// vCPU), and a spinning poller keeps it off the core for the whole poll.
/// Measured, 2 workers on the 2-core VM with one core taken by another job
/// (2026-11-28, medians; binaries alternated, 3 runs each): submit() of an empty
/// task then get() 107 us when the poll spun while a worker was parked (the
/// task started only when the poll gave up), 6.3 us yielding; a 10^5-item
/// parallel_for from outside 76-148 us against 44-45 us; with both cores free
/// the task's start, 101.6 against 1.8 us.
/// `done` must be an acquire read of the result's state, as the waits' own
/// first check is. Under a model policy it polls nothing: a poll that
/// succeeds returns the way the waits' own first check does (explored
/// there), and a yield would only add states. Returns whether done() was seen.
inline constexpr std::chrono::microseconds outside_poll{100};
template <class Sync, class Done>
bool poll_before_blocking(Done&& done) {
  if constexpr (Sync::is_model) {
    (void)done;
    return false;
  } else {
    const auto until = std::chrono::steady_clock::now() + outside_poll;
    for (;;) {
      if (done()) return true;
      Sync::yield();
      if (std::chrono::steady_clock::now() >= until) return done();
    }
  }
}

}  // namespace pilfer::detail
