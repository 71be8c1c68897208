// pilfer/detail/event_count.hpp — the pool's parking primitive.
//
// An event count in the style of Eigen's / Taskflow's notifier, with one
// futex word per waiter (C++20 atomic wait/notify through the Sync policy)
// so that a notifier wakes exactly ONE chosen sleeper.
// Protocol and proof: lib/docs/sleep.md. Tags "sleep.*" name its table rows.
//
//   waiter:   prepare_wait(w); fence(seq_cst)[sleep.W2]; re-check every queue;
//             found work -> cancel_wait(w)   else -> commit_wait(w)
//   notifier: push(item); fence(seq_cst)[sleep.N1]; notify_one()
//
// The caller issues [sleep.W2] (the pool's fence_before_recheck: a membarrier
// when it uses asymmetric fences, whose local pushes then issue a compiler
// barrier [sleep.N1L] instead of [sleep.N1]; sleep.md, "Asymmetric fences").
//
// The sleeper list is a stack guarded by a mutex: only the slow paths (going
// to sleep, waking someone) take it. The fast path of a notifier with nobody
// asleep is one fence plus one relaxed load of `waiters_` [sleep.N2].
#pragma once

#include <cstdint>
#include <mutex>

#include "pilfer/detail/hot_inline.hpp"
#include "pilfer/sync.hpp"

namespace pilfer::detail {

template <class Sync>
class event_count {
 public:
  /// One per thread that may sleep. Lives as long as the event count.
  struct waiter {
    atomic_t<Sync, std::uint32_t> signal{0};  // 1 = woken; the futex word
    cell_t<Sync, waiter*> next{nullptr};      // guarded by mu_
    cell_t<Sync, bool> in_list{false};        // guarded by mu_
  };

  event_count() = default;
  event_count(const event_count&) = delete;
  event_count& operator=(const event_count&) = delete;

  /// Step W1: announce "I am about to sleep". The caller must then issue
  /// the seq_cst fence [sleep.W2] (or its heavy form) and re-check every source of work.
  void prepare_wait(waiter& w) {
    std::lock_guard<typename Sync::mutex> g(mu_);
    // [sleep.W0] relaxed: the signal word is reset inside the critical
    // section; notifiers set it only inside the same critical section, so no
    // stale "1" from an earlier round can survive.
    w.signal.store(0, PILFER_SITE("sleep.W0", relaxed));
    w.next.write() = top_.read();
    w.in_list.write() = true;
    top_.write() = &w;
    // [sleep.W1] relaxed store under the mutex; the seq_cst fence [sleep.W2]
    // that follows orders it before the waiter's re-check of the queues.
    waiters_.store(count_.write() += 1, PILFER_SITE("sleep.W1", relaxed));
  }

  /// Step W3a: work was found after prepare_wait; leave the list. Returns
  /// true when we were still linked; false when a notifier already picked us
  /// (its wake-up, and whatever its `on_wake` accounted for us, is ours: we
  /// are awake and about to look for work anyway).
  bool cancel_wait(waiter& w) {
    std::lock_guard<typename Sync::mutex> g(mu_);
    if (!w.in_list.read()) return false;
    unlink(w);
    return true;
  }

  /// Step W3b: sleep until a notifier picks this waiter.
  void commit_wait(waiter& w) {
    for (;;) {
      // [sleep.W3] acquire: pairs with [sleep.N3]; everything the notifier
      // pushed before notifying is visible once we see the signal.
      if (w.signal.load(PILFER_SITE("sleep.W3", acquire)) != 0) return;
      w.signal.wait(0, PILFER_SITE("sleep.W3", acquire));
    }
  }

  /// Wake one sleeper if there is one. The caller has pushed its item and
  /// issued fence_before_notify(). `on_wake()` runs under the mutex for the
  /// chosen sleeper before it is signalled (the pool counts it as a searcher
  /// there). Returns whether somebody was woken.
  /// The check is inline (every push of the pool makes it); the wake-up is not.
  template <class OnWake>
  PILFER_HOT_INLINE bool notify_one(OnWake&& on_wake) {
    // [sleep.N2] relaxed: ordered after the push by the caller's [sleep.N1].
    if (waiters_.load(PILFER_SITE("sleep.N2", relaxed)) == 0) return false;
    return wake_top(on_wake);
  }

 private:
  /// notify_one()'s slow half: pop the top sleeper and signal it.
  template <class OnWake>
  PILFER_NOINLINE bool wake_top(OnWake& on_wake) {
    waiter* w = nullptr;
    {
      std::lock_guard<typename Sync::mutex> g(mu_);
      w = top_.read();
      if (w == nullptr) return false;
      unlink(*w);
      on_wake();
      // [sleep.N3] release: publishes the caller's push to the woken waiter.
      w->signal.store(1, PILFER_SITE("sleep.N3", release));
    }
    // Outside the lock: at worst a spurious futex wake of a thread that has
    // already been signalled (waiters live as long as the event count).
    w->signal.notify_one();
    return true;
  }

 public:
  /// Wake `w` if it is asleep (affinity mailbox: a specific worker must
  /// look). The caller pushed to w's mailbox and issued fence_before_notify().
  /// If `w` is not linked it is awake, or it links itself later under the
  /// same mutex and then re-checks its mailbox after [sleep.W2].
  template <class OnWake>
  bool notify_target(waiter& w, OnWake&& on_wake) {
    {
      std::lock_guard<typename Sync::mutex> g(mu_);
      if (!w.in_list.read()) return false;
      unlink(w);
      on_wake();
      w.signal.store(1, PILFER_SITE("sleep.N3", release));
    }
    w.signal.notify_one();
    return true;
  }

  /// Wake every sleeper (shutdown, cancel). Issues its own [sleep.N1] fence.
  template <class OnWake>
  void notify_all(OnWake&& on_wake) {
    Sync::fence(PILFER_SITE("sleep.N1", seq_cst));
    if (waiters_.load(PILFER_SITE("sleep.N2", relaxed)) == 0) return;
    std::lock_guard<typename Sync::mutex> g(mu_);
    // The futex wakes happen under the lock here: a woken waiter may re-enter
    // prepare_wait at once and relink itself, so the list must not be walked
    // after unlocking. This is the rare path.
    for (waiter* w = top_.read(); w != nullptr;) {
      waiter* next = w->next.read();
      w->in_list.write() = false;
      on_wake();
      w->signal.store(1, PILFER_SITE("sleep.N3", release));
      w->signal.notify_one();
      w = next;
    }
    top_.write() = nullptr;
    count_.write() = 0;
    waiters_.store(0, PILFER_SITE("sleep.W1", relaxed));
  }

  /// The caller's half of the handshake, after its push.
  static void fence_before_notify() noexcept {
    // [sleep.N1] seq_cst: see [sleep.W2].
    Sync::fence(PILFER_SITE("sleep.N1", seq_cst));
  }

  /// Number of threads between prepare_wait and their wake-up (a gauge).
  std::uint32_t waiters() const noexcept { return waiters_.load(PILFER_SITE("sleep.G1", relaxed)); }

 private:
  void unlink(waiter& w) {
    waiter** p = &top_.write();
    while (*p != &w) p = &(*p)->next.write();
    *p = w.next.read();
    w.in_list.write() = false;
    waiters_.store(count_.write() -= 1, PILFER_SITE("sleep.W1", relaxed));
  }

  typename Sync::mutex mu_;
  cell_t<Sync, waiter*> top_{nullptr};          // guarded by mu_
  cell_t<Sync, std::uint32_t> count_{0u};       // guarded by mu_
  atomic_t<Sync, std::uint32_t> waiters_{0};   // == count_, readable without mu_
};

}  // namespace pilfer::detail
