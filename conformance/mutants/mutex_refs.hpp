// conformance/mutants/mutex_refs.hpp — mutex-based reference deque (seed-002 design: std::deque +
// mutex, thieves try_lock and report "retry" on contention) and reference injector (mutex +
// std::deque), each with an optional one-change mutation.
#pragma once

#include <pilfer/sync.hpp>

#include <deque>
#include <mutex>
#include <optional>

#include "pilfer/conformance/adapters.hpp"

namespace pilfer::conformance::mutants {

enum class mx_mutation { none, lifo_steal, lifo_injector };

template <mx_mutation M>
class mutex_deque_ref {
  using S = pilfer::std_sync;

 public:
  static constexpr const char* name = "mutex_deque_ref";
  static constexpr bool has_batch_steal = false;
  static constexpr bool has_retry = true;
  explicit mutex_deque_ref(std::size_t = 64) {}
  void push(value_t v) {
    std::lock_guard<S::mutex> g(m_);
    q_.push_back(v);
  }
  std::optional<value_t> pop() {
    std::lock_guard<S::mutex> g(m_);
    if (q_.empty()) return std::nullopt;
    const value_t v = q_.back();
    q_.pop_back();
    return v;
  }
  class stealer {
   public:
    explicit stealer(mutex_deque_ref* d) : d_(d) {}
    steal_outcome steal() const {
      std::unique_lock<S::mutex> g(d_->m_, std::try_to_lock);
      if (!g) return steal_outcome::retry();
      if (d_->q_.empty()) return steal_outcome::empty();
      value_t v;
      if constexpr (M == mx_mutation::lifo_steal) {
        v = d_->q_.back();
        d_->q_.pop_back();
      } else {
        v = d_->q_.front();
        d_->q_.pop_front();
      }
      return steal_outcome::success(v);
    }

   private:
    mutex_deque_ref* d_;
  };
  stealer get_stealer() { return stealer(this); }

 private:
  S::mutex m_;
  std::deque<value_t> q_;
};

template <mx_mutation M>
class mutex_injector_ref {
  using S = pilfer::std_sync;

 public:
  static constexpr const char* name = "mutex_injector_ref";
  void push(value_t v) {
    std::lock_guard<S::mutex> g(m_);
    q_.push_back(v);
  }
  steal_outcome steal() {
    std::lock_guard<S::mutex> g(m_);
    if (q_.empty()) return steal_outcome::empty();
    value_t v;
    if constexpr (M == mx_mutation::lifo_injector) {
      v = q_.back();
      q_.pop_back();
    } else {
      v = q_.front();
      q_.pop_front();
    }
    return steal_outcome::success(v);
  }

 private:
  S::mutex m_;
  std::deque<value_t> q_;
};

}  // namespace pilfer::conformance::mutants
