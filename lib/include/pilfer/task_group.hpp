// pilfer/task_group.hpp — basic_task_group: tasks waited for together.
#pragma once

#include <cstdint>
#include <exception>
#include <mutex>
#include <utility>

#include "pilfer/detail/backoff.hpp"
#include "pilfer/pool.hpp"

namespace pilfer {

/// A set of tasks waited for together. run() from any thread; wait() on a
/// worker of the pool runs the group's tasks still on top of its own deque,
/// then claims and runs every task of the group that has not started,
/// wherever it is queued (a task with affinity to another worker is left to
/// that worker), then runs only tasks descending from the group's and
/// sleeps while they run elsewhere (a spare keeps the pool busy); elsewhere
/// it blocks. Any number of threads may wait at once: all are released.
/// wait() rethrows the first exception (task_cancelled for cancelled tasks)
/// in every waiter; it is forgotten when run() starts a new round.
/// The destructor waits; an exception nobody collected goes to the pool's
/// on_uncaught handler.
///
/// Completion is one CAS on `state_` (count of unfinished tasks, a waiter
/// bit, a count of completers still notifying); the first exception is kept
/// by whoever wins `error_claimed_`. The member list (for claims) is kept
/// under a mutex: run() appends, a wait claims or prunes started members.
template <class Sync>
class basic_task_group {
  using member = detail::group_member<Sync>;

 public:
  explicit basic_task_group(basic_pool<Sync>& p) noexcept
      : pool_(p), creator_(detail::pool_access<Sync>::current_task(p)) {}
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;
  ~basic_task_group() {
    wait_all();
    prune(true);
    if (std::exception_ptr e = uncollected_error()) detail::pool_access<Sync>::sink(pool_).report(e);
  }

  template <class F>
  void run(F&& f, task_options o = {}) {
    using T = detail::group_task<std::decay_t<F>, Sync>;
    T* t = Sync::template make<T>(std::forward<F>(f), this, creator_);
    if (o.affinity) t->affinity = *o.affinity;
    {
      std::lock_guard<typename Sync::mutex> g(members_mu_);
      // A new round after a collected error: forget it. Count 0 (acquire):
      // every completer of the last round is done with error_; waiters read
      // it under this mutex.
      if (collected_.read() && (state_.load(PILFER_SITE("pool.G2", acquire)) & count_mask) == 0) {
        error_.write() = nullptr;
        error_claimed_.store(0, PILFER_SITE("pool.G4", relaxed));
        collected_.write() = false;
      }
      t->next = members_.read();
      members_.write() = t;
    }
    // [pool.G1] relaxed: ordered before the task's decrement by the queue's
    // publication (push release / steal acquire) or by the member list's mutex.
    state_.fetch_add(1, PILFER_SITE("pool.G1", relaxed));
    try {
      detail::pool_access<Sync>::enqueue(pool_, t, o);
    } catch (...) {
      // Not queued: the list keeps it as a started member (pruned later).
      t->claim();
      t->f.reset();
      t->release();
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
  friend struct detail::pool_access<Sync>;

  static constexpr std::uint64_t waiter_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t notifier_one = std::uint64_t{1} << 40;  // completers still notifying
  static constexpr std::uint64_t notifier_mask = waiter_bit - notifier_one;
  static constexpr std::uint64_t count_mask = notifier_one - 1;

  // [pool.G2] acquire: pairs with the completers' acq_rel CAS: the tasks'
  // effects (and the kept exception) are visible once the count reads 0.
  bool done() const noexcept {
    const std::uint64_t v = state_.load(PILFER_SITE("pool.G2", acquire));
    return (v & count_mask) == 0 && (v & notifier_mask) == 0;
  }

  /// After wait_all(): every completer is done with error_ (count 0 read
  /// with acquire). Every waiter gets the error (a copy, under the mutex:
  /// several threads may wait at once); it is forgotten when run() starts a
  /// new round.
  std::exception_ptr take_error() {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    std::exception_ptr e = error_.read();
    if (e) collected_.write() = true;
    return e;
  }

  std::exception_ptr uncollected_error() {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    return collected_.read() ? nullptr : error_.read();
  }

  /// Claim one member that has not started and that `worker_index` may run
  /// (no affinity, or affinity to it); started members met on the way are
  /// unlinked and their list reference dropped. The caller owns the list's
  /// reference of the returned member (release() after running it).
  member* claim_member(unsigned worker_index) {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    member** link = &members_.write();
    while (member* m = *link) {
      if (m->started()) {
        *link = m->next;
        m->release();
        continue;
      }
      if ((m->affinity == ~0u || m->affinity == worker_index) && m->claim()) {
        *link = m->next;
        return m;
      }
      link = &m->next;
    }
    return nullptr;
  }

  /// Drop the list's reference of started members (all: at destruction).
  void prune(bool all) noexcept {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    member** link = &members_.write();
    while (member* m = *link) {
      if (all || m->started()) {
        *link = m->next;
        m->release();
      } else {
        link = &m->next;
      }
    }
  }

  /// Sleep until the count is 0 (any thread, any number of them). The
  /// completer that brings the count to 0 while waiter_bit is set clears the
  /// bit and counts itself as notifying in the same CAS, notifies, and
  /// uncounts itself as its very last touch of the group; a waiter returns
  /// only once no completer is notifying.
  void block() noexcept {
    // [pool.G3] acq_rel: announce the sleeper; the completers' CAS reads it.
    std::uint64_t v = state_.fetch_or(waiter_bit, PILFER_SITE("pool.G3", acq_rel)) | waiter_bit;
    detail::backoff<Sync> b;
    for (;;) {
      // Crossed: the count reached 0 since we set the bit (the bit is
      // cleared only by the completer that brings the count to 0).
      const bool crossed = (v & count_mask) == 0 || (v & waiter_bit) == 0;
      if (crossed) {
        if ((v & notifier_mask) == 0) return;
        b.snooze();  // a completer between its CAS and its last touch
      } else {
        state_.wait(v, PILFER_SITE("pool.G2", acquire));
      }
      v = state_.load(PILFER_SITE("pool.G2", acquire));
    }
  }

  void wait_all() {
    if (done()) return;
    using access = detail::pool_access<Sync>;
    if (auto* w = access::current(pool_)) {
      access::wait_group(pool_, *w, this, [this] { return done(); }, [this] { block(); });
    } else {
      block();
    }
    prune(false);
  }

  // Called by a finished or cancelled group_task after it destroyed its callable.
  void complete(std::exception_ptr e) noexcept {
    if (e) {
      // [pool.G4] relaxed: the winner's write of error_ is published by its
      // CAS below (release), read after the waiter's acquire of 0.
      if (error_claimed_.exchange(1, PILFER_SITE("pool.G4", relaxed)) == 0) error_.write() = std::move(e);
    }
    // [pool.G2] acq_rel: release publishes the task's effects; acquire reads
    // the waiter bit. The last decrement with a waiter clears the bit and
    // counts this completer as notifying.
    std::uint64_t old = state_.load(PILFER_SITE("pool.G2", relaxed));
    std::uint64_t next;
    do {
      next = old - 1;
      if ((next & count_mask) == 0 && (next & waiter_bit) != 0) next = (next & ~waiter_bit) + notifier_one;
    } while (!state_.compare_exchange_weak(old, next, PILFER_SITE("pool.G2", acq_rel), PILFER_SITE("pool.G2", relaxed)));
    if ((old & waiter_bit) != 0 && (next & waiter_bit) == 0) {
      state_.notify_all();
      // [pool.G5] release: last touch of the group by this completer; a
      // waiter that reads no notifier may destroy the group.
      state_.fetch_sub(notifier_one, PILFER_SITE("pool.G5", release));
    }
  }

  basic_pool<Sync>& pool_;
  detail::task_base* creator_;  // the task whose execution owns this group (parent of its tasks)
  atomic_t<Sync, std::uint64_t> state_{0};
  atomic_t<Sync, std::uint32_t> error_claimed_{0};
  cell_t<Sync, std::exception_ptr> error_{};
  typename Sync::mutex members_mu_;
  cell_t<Sync, member*> members_{nullptr};
  cell_t<Sync, bool> collected_{false};  // a wait() rethrew error_ (under members_mu_)
};

using task_group = basic_task_group<>;

}  // namespace pilfer
