// pilfer/task_group.hpp — basic_task_group: tasks waited for together.
#pragma once

#include <cstdint>
#include <exception>
#include <utility>

#include "pilfer/detail/backoff.hpp"
#include "pilfer/pool.hpp"

namespace pilfer {

/// A set of tasks waited for together. run() from any thread; wait() on a
/// worker of the pool runs the group's tasks still on top of its own deque,
/// then only tasks descending from the group's, then sleeps (a spare keeps
/// the pool busy); elsewhere it blocks. wait() rethrows the first exception
/// (task_cancelled for cancelled tasks). The destructor waits; an exception
/// nobody collected goes to the pool's on_uncaught handler.
///
/// No lock: completion is one RMW on `state_` (count of unfinished tasks plus
/// a waiter bit); the first exception is kept by whoever wins `error_claimed_`.
template <class Sync>
class basic_task_group {
 public:
  explicit basic_task_group(basic_pool<Sync>& p) noexcept
      : pool_(p), creator_(detail::pool_access<Sync>::current_task(p)) {}
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;
  ~basic_task_group() {
    wait_all();
    if (std::exception_ptr e = take_error()) detail::pool_access<Sync>::sink(pool_).report(e);
  }

  template <class F>
  void run(F&& f, task_options o = {}) {
    using T = detail::group_task<std::decay_t<F>, Sync>;
    T* t = Sync::template make<T>(std::forward<F>(f), this, creator_);
    // [pool.G1] relaxed: ordered before the task's decrement by the queue's
    // publication (push release / steal acquire).
    state_.fetch_add(1, PILFER_SITE("pool.G1", relaxed));
    try {
      detail::pool_access<Sync>::enqueue(pool_, t, o);
    } catch (...) {
      Sync::destroy(t);
      complete(nullptr);
      throw;
    }
  }

  void wait() {
    wait_all();
    if (std::exception_ptr e = take_error()) std::rethrow_exception(e);
  }

 private:
  template <class, class>
  friend struct detail::group_task;

  static constexpr std::uint64_t waiter_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t count_mask = waiter_bit - 1;

  // [pool.G2] acquire: pairs with the completers' acq_rel decrement: the tasks'
  // effects (and the kept exception) are visible once the count reads 0.
  bool done() const noexcept { return (state_.load(PILFER_SITE("pool.G2", acquire)) & count_mask) == 0; }

  std::exception_ptr take_error() noexcept {
    // After wait_all(): every completer is done with error_ (count 0 read
    // with acquire), so the cell is ours. Reset for a later round of run().
    std::exception_ptr e = std::exchange(error_.write(), nullptr);
    error_claimed_.store(0, PILFER_SITE("pool.G4", relaxed));
    return e;
  }

  /// Sleep until the count is 0 (any thread). The completer that brings it to
  /// 0 while waiter_bit is set notifies, then sets wake_done_ as its very
  /// last touch of the group; we do not return before that.
  void block() noexcept {
    // [pool.G3] acq_rel: announce the sleeper; the completers' RMWs read it.
    const std::uint64_t old = state_.fetch_or(waiter_bit, PILFER_SITE("pool.G3", acq_rel));
    if ((old & count_mask) != 0) {
      for (;;) {
        const std::uint64_t v = state_.load(PILFER_SITE("pool.G2", acquire));
        if ((v & count_mask) == 0) break;
        state_.wait(v, PILFER_SITE("pool.G2", acquire));
      }
      detail::backoff<Sync> b;
      // [pool.G5] acquire: pairs with the notifier's release store.
      while (wake_done_.load(PILFER_SITE("pool.G5", acquire)) == 0) b.snooze();
      wake_done_.store(0, PILFER_SITE("pool.G5", relaxed));
    }
    state_.fetch_and(count_mask, PILFER_SITE("pool.G3", relaxed));
  }

  void wait_all() {
    if (done()) return;
    using access = detail::pool_access<Sync>;
    if (auto* w = access::current(pool_)) {
      access::wait_group(pool_, *w, this, [this] { return done(); }, [this] { block(); });
    } else {
      block();
    }
  }

  // Called by a finished or cancelled group_task after it freed itself.
  void complete(std::exception_ptr e) noexcept {
    if (e) {
      // [pool.G4] relaxed: the winner's write of error_ is published by its
      // decrement below (release), read after the waiter's acquire of 0.
      if (error_claimed_.exchange(1, PILFER_SITE("pool.G4", relaxed)) == 0) error_.write() = std::move(e);
    }
    // [pool.G2] acq_rel: release publishes the task's effects; acquire reads
    // the waiter bit.
    const std::uint64_t old = state_.fetch_sub(1, PILFER_SITE("pool.G2", acq_rel));
    if (old == (waiter_bit | 1)) {
      state_.notify_all();
      // [pool.G5] release: last touch of the group by this completer.
      wake_done_.store(1, PILFER_SITE("pool.G5", release));
    }
  }

  basic_pool<Sync>& pool_;
  detail::task_base* creator_;  // the task whose execution owns this group (parent of its tasks)
  atomic_t<Sync, std::uint64_t> state_{0};
  atomic_t<Sync, std::uint32_t> error_claimed_{0};
  atomic_t<Sync, std::uint32_t> wake_done_{0};
  cell_t<Sync, std::exception_ptr> error_{};
};

using task_group = basic_task_group<>;

}  // namespace pilfer
