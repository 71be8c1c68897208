// An outside project's own deque (mutex + std::deque) and its conformance adapter.
// It has no batch steal, so DQ-6 is reported n/a (ctest: skipped).
#pragma once

#include <pilfer/conformance/adapters.hpp>
#include <pilfer/sync.hpp>

#include <deque>
#include <mutex>
#include <optional>

namespace outside {

class locked_deque {
 public:
  void push(std::uint64_t v) {
    std::lock_guard<pilfer::std_sync::mutex> g(m_);
    q_.push_back(v);
  }
  std::optional<std::uint64_t> pop_back() {
    std::lock_guard<pilfer::std_sync::mutex> g(m_);
    if (q_.empty()) return std::nullopt;
    auto v = q_.back();
    q_.pop_back();
    return v;
  }
  std::optional<std::uint64_t> pop_front() {
    std::lock_guard<pilfer::std_sync::mutex> g(m_);
    if (q_.empty()) return std::nullopt;
    auto v = q_.front();
    q_.pop_front();
    return v;
  }

 private:
  pilfer::std_sync::mutex m_;
  std::deque<std::uint64_t> q_;
};

struct locked_deque_adapter {
  static constexpr const char* name = "outside::locked_deque";
  static constexpr bool has_batch_steal = false;
  static constexpr bool has_retry = false;  // steals block on the mutex; never "retry"

  explicit locked_deque_adapter(std::size_t) {}
  void push(pilfer::conformance::value_t v) { d_.push(v); }
  std::optional<pilfer::conformance::value_t> pop() { return d_.pop_back(); }

  struct stealer {
    locked_deque* d;
    pilfer::conformance::steal_outcome steal() const {
      auto v = d->pop_front();
      return v ? pilfer::conformance::steal_outcome::success(*v) : pilfer::conformance::steal_outcome::empty();
    }
  };
  stealer get_stealer() { return stealer{&d_}; }

  locked_deque d_;
};

}  // namespace outside
