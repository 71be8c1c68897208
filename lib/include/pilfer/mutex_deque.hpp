// pilfer/mutex_deque.hpp — the reference deque of seed 002: a std::deque
// guarded by one mutex.
//
// The owner locks for push/pop (blocking). Thieves try_lock and report retry
// when the lock is busy, so a thief never waits on another thread — but the
// owner can, and a thread preempted while holding the lock stalls everyone:
// this design is blocking, not lock-free (it does not meet DQ-5). It exists as
// the yardstick the Chase–Lev deque is compared with (benchmarks, conformance
// suite) and as a simple correct implementation for the model checker.
// Design note: lib/docs/mutex_deque.md.
#pragma once

#include <pilfer/detail/owner_check.hpp>
#include <pilfer/steal.hpp>
#include <pilfer/sync.hpp>

#include <cassert>
#include <cstddef>
#include <deque>
#include <optional>
#include <type_traits>
#include <vector>

namespace pilfer {

namespace detail {
/// Scoped lock over any Sync::mutex (lock/try_lock/unlock); keeps <mutex> out
/// of this header (only sync.hpp names it).
template <class M>
class scoped_lock {
 public:
  explicit scoped_lock(M& m) : m_(&m) { m_->lock(); }
  struct try_tag {};
  scoped_lock(M& m, try_tag) : m_(m.try_lock() ? &m : nullptr) {}
  ~scoped_lock() {
    if (m_ != nullptr) m_->unlock();
  }
  scoped_lock(const scoped_lock&) = delete;
  scoped_lock& operator=(const scoped_lock&) = delete;
  bool owns_lock() const noexcept { return m_ != nullptr; }

 private:
  M* m_;
};
}  // namespace detail

/// Mutex-guarded deque with the same owner/stealer API as basic_deque.
template <class T, class Sync = std_sync>
class basic_mutex_deque {
  static_assert(std::is_trivially_copyable_v<T>, "pilfer::basic_mutex_deque<T>: T must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>, "pilfer::basic_mutex_deque<T>: T must be default constructible");

 public:
  using value_type = T;
  using sync_type = Sync;

  class stealer {
   public:
    stealer() noexcept = default;
    /// Any thread. Take the oldest item; retry when the lock is busy. Never blocks.
    steal_result<T> steal() const { return q_->steal_(); }
    /// Any thread; dest owned by the caller. Moves min(ceil(n/2), max) oldest
    /// items (max == 0 counts as 1) into dest, oldest first. Both locks are
    /// only tried (retry when either is busy), so two owners stealing from
    /// each other cannot deadlock. Never blocks; O(k). Throws std::bad_alloc
    /// with both deques unchanged.
    steal_result<std::size_t> steal_batch(basic_mutex_deque& dest, std::size_t max = 32) const {
      return q_->steal_batch_(dest, max, nullptr);
    }
    steal_result<T> steal_batch_and_pop(basic_mutex_deque& dest, std::size_t max = 32) const {
      T first{};
      auto r = q_->steal_batch_(dest, max, &first);
      if (!r.is_success()) return r.is_retry() ? steal_result<T>::retry() : steal_result<T>::empty();
      return steal_result<T>::success(first);
    }
    bool empty() const noexcept { return q_->size() == 0; }
    std::size_t size() const noexcept { return q_->size(); }
    friend bool operator==(const stealer& a, const stealer& b) noexcept { return a.q_ == b.q_; }

   private:
    friend class basic_mutex_deque;
    explicit stealer(basic_mutex_deque* q) noexcept : q_(q) {}
    basic_mutex_deque* q_ = nullptr;
  };

  /// initial_capacity is accepted for API parity and ignored (std::deque grows by chunks).
  explicit basic_mutex_deque(std::size_t initial_capacity = 64) { (void)initial_capacity; }
  basic_mutex_deque(const basic_mutex_deque&) = delete;
  basic_mutex_deque& operator=(const basic_mutex_deque&) = delete;
  ~basic_mutex_deque() = default;

  /// Owner only. Blocking (takes the lock).
  void push(T v) {
    owner_.check("push");
    lock_type g(m_);
    q_.write().push_back(v);
    publish_size_();
  }
  /// Owner only. Blocking (takes the lock). Newest item (LIFO).
  std::optional<T> pop() {
    owner_.check("pop");
    lock_type g(m_);
    auto& q = q_.write();
    if (q.empty()) return std::nullopt;
    const T v = q.back();
    q.pop_back();
    publish_size_();
    return v;
  }

  stealer get_stealer() noexcept { return stealer(this); }
  steal_result<T> steal() { return steal_(); }

  bool empty() const noexcept { return size() == 0; }
  /// Racy snapshot of the count (a relaxed mirror written under the lock).
  std::size_t size() const noexcept { return size_.load(PILFER_SITE("mutex_deque.Z1", relaxed)); }
  /// std::deque has no capacity; reports the current size (API parity).
  std::size_t capacity() const noexcept { return size(); }
  std::size_t retired_buffers() const noexcept { return 0; }
  void release_owner() noexcept { owner_.release(); }

 private:
  using lock_type = detail::scoped_lock<typename Sync::mutex>;

  // Called with m_ held. [Z1] relaxed: a statistic; the lock orders the data.
  void publish_size_() noexcept { size_.store(q_.read().size(), PILFER_SITE("mutex_deque.Z1", relaxed)); }

  steal_result<T> steal_() {
    lock_type g(m_, typename lock_type::try_tag{});
    if (!g.owns_lock()) return steal_result<T>::retry();
    auto& q = q_.write();
    if (q.empty()) return steal_result<T>::empty();
    const T v = q.front();
    q.pop_front();
    publish_size_();
    return steal_result<T>::success(v);
  }

  // Both locks are only TRIED (never waited for), so two owners stealing from
  // each other cannot deadlock; a busy lock is a retry. Items move into dest
  // (std::deque::insert at the end: strong guarantee) BEFORE they leave the
  // victim (erase at the front of trivially copyable T: no-throw), so a
  // std::bad_alloc leaves both deques unchanged and loses nothing.
  steal_result<std::size_t> steal_batch_(basic_mutex_deque& dest, std::size_t max, T* first) {
    assert(&dest != this && "pilfer: steal_batch into the victim itself");
    dest.owner_.check("steal_batch (dest)");
    if (max == 0) max = 1;
    lock_type g(m_, typename lock_type::try_tag{});
    if (!g.owns_lock()) return steal_result<std::size_t>::retry();
    auto& q = q_.write();
    if (q.empty()) return steal_result<std::size_t>::empty();
    std::size_t k = (q.size() + 1) / 2;
    if (k > max) k = max;
    const std::size_t skip = first != nullptr ? 1 : 0;
    if (k > skip) {
      lock_type gd(dest.m_, typename lock_type::try_tag{});
      if (!gd.owns_lock()) return steal_result<std::size_t>::retry();
      auto& dq = dest.q_.write();
      dq.insert(dq.end(), q.begin() + static_cast<std::ptrdiff_t>(skip), q.begin() + static_cast<std::ptrdiff_t>(k));
      dest.publish_size_();
    }
    if (first != nullptr) *first = q.front();
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(k));
    publish_size_();
    return steal_result<std::size_t>::success(k);
  }

  mutable typename Sync::mutex m_;
  cell_t<Sync, std::deque<T>> q_;
  atomic_t<Sync, std::size_t> size_{0};
  detail::owner_check<Sync> owner_;
};

template <class T>
using mutex_deque = basic_mutex_deque<T, std_sync>;

}  // namespace pilfer
