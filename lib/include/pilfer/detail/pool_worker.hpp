// pilfer/detail/pool_worker.hpp — per-worker state and statistics counters.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "pilfer/deque.hpp"
#include "pilfer/detail/event_count.hpp"
#include "pilfer/detail/hot_inline.hpp"
#include "pilfer/detail/pool_task.hpp"
#include "pilfer/injector.hpp"
#include "pilfer/pool_stats.hpp"
#include "pilfer/sync.hpp"

namespace pilfer::detail {

enum class counter : unsigned {
  tasks_run, tasks_cancelled, local_pops, injector_pops, priority_pops, steals, failed_steals,
  local_pushes, join_pushes, backoff_rounds, parks, wakeups, priority_pushes, rerouted, claimed, tombstones,
  blocked_waits, handoffs,
  // A join whose branch was popped back and run by the joiner (the common case): one increment that the
  // snapshot adds to join_pushes, local_pops and tasks_run, instead of three on join's fast path. The
  // joins that take another path count those three (as they happen) instead.
  joins_popped_back,
  count_
};

/// One worker thread (a core worker or a spare). Fields written by the owner
/// thread only are grouped first; the fields other threads write (the deque's
/// and mailbox's own indices live in those objects) are on their own lines.
template <class Sync>
struct alignas(cache_line) pool_worker {
  using deque_type = basic_deque<task_base*, Sync>;
  using stealer_type = typename deque_type::stealer;

  /// `fences`: the pool's choice (asymmetric with pool_options::asymmetric_fences: a pop per join
  /// or spawn, a steal rarely; deque.hpp, "Fences").
  pool_worker(const basic_pool<Sync>* owner_pool, unsigned i, bool is_spare, deque_fences fences)
      : pool(owner_pool),
        index(i),
        spare(is_spare),
        deque(Sync::is_model ? 4 : 256, fences),
        stealer(deque.get_stealer()) {}

  const basic_pool<Sync>* pool;  // the pool this worker belongs to
  unsigned index;
  bool spare;                    // started to compensate for blocked waits
  deque_type deque;
  stealer_type stealer;
  basic_injector<task_base*, Sync> mailbox;         // affinity tasks for this worker only
  typename event_count<Sync>::waiter waiter;
  std::vector<std::vector<unsigned>> victims;       // grouped nearest first (topology); spares: empty
  unsigned tick = 0;                                // owner only: tasks/join arms since last injector check
  task_base* current = nullptr;                     // owner only: the task being executed (parent of new branches)
  const void* current_frame = nullptr;              // owner only: a frame address above `current`'s own frames
  // Deferred group completions (owner only; protocol note at basic_pool::run_top): the top-level task
  // whose completion may be deferred, whether it just was, and the group and number of tasks deferred.
  task_base* defer_for = nullptr;
  bool deferred_now = false;
  basic_task_group<Sync>* deferred_group = nullptr;
  std::uint64_t deferred_n = 0;
  typename Sync::thread thread;
  int pinned_cpu = -1;                              // set by the constructor thread before start

  /// The joiner's futex word for join branches stolen from this worker
  /// (detail::join_branch::block) — lives as long as the pool.
  alignas(cache_line) atomic_t<Sync, std::uint32_t> join_signal{0};
  /// Spare idle list: 1 = activated (or stopping), written under the pool's spare mutex.
  atomic_t<Sync, std::uint32_t> spare_signal{0};
  /// worker_state, for snapshot(): relaxed owner stores, racy reads.
  atomic_t<Sync, std::uint8_t> state{static_cast<std::uint8_t>(worker_state::stopped)};

  // Relaxed counters: written by the owner only (load + store, no RMW),
  // read by stats() from any thread.
  alignas(cache_line) std::array<atomic_t<Sync, std::uint64_t>, static_cast<unsigned>(counter::count_)> counters{};
  // Pending-task accounting (basic_pool::pending_count, wait_idle): counted tasks this thread enqueued
  // and counted tasks it finished. Owner-only writers (load + store, no RMW); see the protocol note at
  // basic_pool::pending_count.
  atomic_t<Sync, std::uint64_t> accepted{0};
  atomic_t<Sync, std::uint64_t> finished{0};

  /// The owner counts one more (or, to undo a failed enqueue, one less) accepted task.
  void add_accepted(std::uint64_t v) noexcept {
    // [pool.P0] relaxed: sequenced before the push that publishes the task (release); whoever
    // finishes it (and stores `finished` with release after taking it with acquire) is ordered
    // after this store.
    accepted.store(v, PILFER_SITE("pool.P0", relaxed));
  }
  std::uint64_t accepted_count() const noexcept { return accepted.load(PILFER_SITE("pool.P0", relaxed)); }
  /// The owner finished `n` more counted tasks.
  void count_finished(std::uint64_t n = 1) noexcept {
    // [pool.P2] release: publishes the task's effects, and (through the chain push -> take) the
    // `accepted` stores of every task it descends from, to pending_count's acquire loads.
    finished.store(finished.load(PILFER_SITE("pool.P2", relaxed)) + n, PILFER_SITE("pool.P2", release));
  }

  void set_state(worker_state s) noexcept {
    // [pool.C3] relaxed: advisory (snapshot()); guards nothing.
    state.store(static_cast<std::uint8_t>(s), PILFER_SITE("pool.C3", relaxed));
  }
  worker_state get_state() const noexcept {
    return static_cast<worker_state>(state.load(PILFER_SITE("pool.C3", relaxed)));
  }

  PILFER_HOT_INLINE void bump(counter c, std::uint64_t by = 1) noexcept {
    auto& a = counters[static_cast<unsigned>(c)];
    // [pool.C1] relaxed: owner-only writer; readers want a recent value only.
    a.store(a.load(PILFER_SITE("pool.C1", relaxed)) + by, PILFER_SITE("pool.C1", relaxed));
  }
  std::uint64_t get(counter c) const noexcept {
    return counters[static_cast<unsigned>(c)].load(PILFER_SITE("pool.C1", relaxed));
  }
  worker_stats snapshot() const noexcept {
    worker_stats s;
    // Read first: the counters it is added to only grow, so the sums stay monotonic.
    const std::uint64_t popped_back = get(counter::joins_popped_back);
    s.tasks_run = get(counter::tasks_run) + popped_back;
    s.tasks_cancelled = get(counter::tasks_cancelled);
    s.local_pops = get(counter::local_pops) + popped_back;
    s.injector_pops = get(counter::injector_pops);
    s.priority_pops = get(counter::priority_pops);
    s.steals = get(counter::steals);
    s.failed_steals = get(counter::failed_steals);
    s.local_pushes = get(counter::local_pushes);
    s.join_pushes = get(counter::join_pushes) + popped_back;
    s.backoff_rounds = get(counter::backoff_rounds);
    s.parks = get(counter::parks);
    s.wakeups = get(counter::wakeups);
    s.priority_pushes = get(counter::priority_pushes);
    s.rerouted = get(counter::rerouted);
    s.claimed = get(counter::claimed);
    s.tombstones = get(counter::tombstones);
    s.blocked_waits = get(counter::blocked_waits);
    s.handoffs = get(counter::handoffs);
    return s;
  }
};

}  // namespace pilfer::detail
