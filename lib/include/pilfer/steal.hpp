// pilfer/steal.hpp — the three-way result of a steal.
//
// A thief can come back with an item, find nothing there, or lose a race with
// another thread. The last two are different answers: "empty" lets a worker go
// idle, "retry" says the victim had work a moment ago and trying again (or
// elsewhere) is worthwhile. Collapsing them (a nullptr for both) is how workers
// go to sleep next to runnable work. The type is [[nodiscard]] so that a lost
// item is a compiler warning, not a silent leak.
#pragma once

#include <cstdint>
#include <utility>

namespace pilfer {

/// Outcome of a steal attempt.
enum class steal_status : unsigned char {
  empty,    ///< the source held no item at the linearization point
  success,  ///< an item was taken; it is now owned by the caller
  retry,    ///< lost a race with another thread; the source may still hold items
};

/// Result of steal()/steal_batch(): a status and, on success, the value.
/// `value` is meaningful only when `status == steal_status::success`.
template <class T>
struct [[nodiscard]] steal_result {
  steal_status status{steal_status::empty};
  T value{};

  bool is_success() const noexcept { return status == steal_status::success; }
  bool is_empty() const noexcept { return status == steal_status::empty; }
  bool is_retry() const noexcept { return status == steal_status::retry; }
  explicit operator bool() const noexcept { return is_success(); }

  static steal_result empty() { return steal_result{steal_status::empty, T{}}; }
  static steal_result retry() { return steal_result{steal_status::retry, T{}}; }
  static steal_result success(T v) { return steal_result{steal_status::success, std::move(v)}; }
};

/// Printable name of a status (tests, traces).
inline const char* to_string(steal_status s) noexcept {
  switch (s) {
    case steal_status::empty: return "empty";
    case steal_status::success: return "success";
    case steal_status::retry: return "retry";
  }
  return "?";
}

}  // namespace pilfer
