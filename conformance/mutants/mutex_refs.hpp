// conformance/mutants/mutex_refs.hpp — mutex-based reference deque (seed-002 design: std::deque +
// mutex, thieves try_lock and report "retry" on contention) and reference injector (mutex +
// std::deque), each with an optional one-change mutation.
#pragma once

#include <pilfer/sync.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "pilfer/conformance/adapters.hpp"

namespace pilfer::conformance::mutants {

enum class mx_mutation { none, lifo_steal, lifo_injector, keep_blocks };

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

/// A mutex-protected FIFO of linked blocks of `B` slots (the shape of pilfer's injector, without its lock-free
/// protocol): the reference for INJ-4's memory bound. A block is freed as soon as its last slot was taken;
/// the keep_blocks mutant never frees a drained block (memory grows with the items ever pushed).
template <mx_mutation M, std::size_t B = 4>
class mutex_block_injector_ref {
  using S = pilfer::std_sync;
  struct block {
    value_t slot[B] = {};
    std::size_t head = 0, tail = 0;  // taken / written slots
  };

 public:
  static constexpr const char* name = "mutex_block_injector_ref";
  static constexpr std::size_t block_size = B;
  void push(value_t v) {
    std::lock_guard<S::mutex> g(m_);
    if (first_ == blocks_.size() || blocks_.back()->tail == B) blocks_.push_back(std::make_unique<block>());
    block& b = *blocks_.back();
    b.slot[b.tail++] = v;
  }
  steal_outcome steal() {
    std::lock_guard<S::mutex> g(m_);
    if (first_ == blocks_.size()) return steal_outcome::empty();
    block& b = *blocks_[first_];
    if (b.head == b.tail) return steal_outcome::empty();  // only the last block can be partly written
    const value_t v = b.slot[b.head++];
    if (b.head == B) {  // the block's last slot was taken: nobody reads it again
      if constexpr (M == mx_mutation::keep_blocks) {
        ++first_;
      } else {
        blocks_.pop_front();
      }
    }
    return steal_outcome::success(v);
  }
  std::size_t live_blocks() const {
    std::lock_guard<S::mutex> g(m_);
    return blocks_.size();
  }

 private:
  mutable S::mutex m_;
  std::deque<std::unique_ptr<block>> blocks_;
  std::size_t first_ = 0;  // index of the head block (always 0 unless keep_blocks)
};

}  // namespace pilfer::conformance::mutants
