// pilfer/detail/pool_worker.hpp — per-worker state and statistics counters.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "pilfer/deque.hpp"
#include "pilfer/detail/event_count.hpp"
#include "pilfer/detail/pool_task.hpp"
#include "pilfer/injector.hpp"
#include "pilfer/sync.hpp"

namespace pilfer {

/// Counters of one worker (or their sum). Snapshots: each field is read
/// relaxed while the pool runs, so a snapshot is not atomic as a whole; once
/// the pool is idle (wait_idle() returned) the identities in pool.md hold.
struct worker_stats {
  std::uint64_t tasks_run = 0;       // tasks executed (heap tasks and join branches)
  std::uint64_t tasks_cancelled = 0; // tasks discarded by shutdown(cancel)
  std::uint64_t local_pops = 0;      // taken from the own deque (LIFO end)
  std::uint64_t injector_pops = 0;   // taken from the global injector
  std::uint64_t priority_pops = 0;   // taken from the high-priority queue or own mailbox
  std::uint64_t steals = 0;          // taken from another worker's deque (FIFO end)
  std::uint64_t failed_steals = 0;   // steal attempts on a victim that gave empty/retry
  std::uint64_t local_pushes = 0;    // spawn/submit from a task into the own deque
  std::uint64_t join_pushes = 0;     // join() branches pushed (stack tasks)
  std::uint64_t backoff_rounds = 0;  // randomised back-off rounds while searching
  std::uint64_t parks = 0;           // times the worker went to sleep
  std::uint64_t wakeups = 0;         // times it was woken from sleep

  worker_stats& operator+=(const worker_stats& o) noexcept {
    tasks_run += o.tasks_run;
    tasks_cancelled += o.tasks_cancelled;
    local_pops += o.local_pops;
    injector_pops += o.injector_pops;
    priority_pops += o.priority_pops;
    steals += o.steals;
    failed_steals += o.failed_steals;
    local_pushes += o.local_pushes;
    join_pushes += o.join_pushes;
    backoff_rounds += o.backoff_rounds;
    parks += o.parks;
    wakeups += o.wakeups;
    return *this;
  }
};

/// pool::stats(): per worker, total, and pool-wide counters.
struct pool_stats {
  std::vector<worker_stats> workers;
  worker_stats total;
  std::uint64_t injector_pushes = 0;  // submit/spawn from outside the pool
  std::uint64_t priority_pushes = 0;  // high-priority or affinity submissions
  std::uint64_t submitted = 0;        // accepted heap tasks: local + injector + priority pushes
  std::uint64_t pending = 0;          // accepted and not yet finished
  std::uint32_t sleeping = 0;         // workers currently parked (or about to)
};

namespace detail {

enum class counter : unsigned {
  tasks_run, tasks_cancelled, local_pops, injector_pops, priority_pops, steals, failed_steals,
  local_pushes, join_pushes, backoff_rounds, parks, wakeups, count_
};

template <class Sync>
struct alignas(cache_line) pool_worker {
  using deque_type = basic_deque<task_base*, Sync>;
  using stealer_type = typename deque_type::stealer;

  pool_worker(const void* owner_pool, unsigned i)
      : pool(owner_pool), index(i), deque(Sync::is_model ? 4 : 256), stealer(deque.get_stealer()) {}

  const void* pool;  // the basic_pool<Sync> this worker belongs to
  unsigned index;
  deque_type deque;
  stealer_type stealer;
  basic_injector<task_base*, Sync> mailbox;         // affinity tasks for this worker only
  typename event_count<Sync>::waiter waiter;
  std::vector<std::vector<unsigned>> victims;       // grouped nearest first (topology)
  unsigned tick = 0;                                // owner only: tasks since last injector check
  typename Sync::thread thread;
  int pinned_cpu = -1;                              // set by the constructor thread before start

  // Relaxed counters: written by the owner only (load + store, no RMW),
  // read by stats() from any thread.
  std::array<atomic_t<Sync, std::uint64_t>, static_cast<unsigned>(counter::count_)> counters{};

  void bump(counter c, std::uint64_t by = 1) noexcept {
    auto& a = counters[static_cast<unsigned>(c)];
    // [pool.C1] relaxed: owner-only writer; readers want a recent value only.
    a.store(a.load(PILFER_SITE("pool.C1", relaxed)) + by, PILFER_SITE("pool.C1", relaxed));
  }
  std::uint64_t get(counter c) const noexcept {
    return counters[static_cast<unsigned>(c)].load(PILFER_SITE("pool.C1", relaxed));
  }
  worker_stats snapshot() const noexcept {
    worker_stats s;
    s.tasks_run = get(counter::tasks_run);
    s.tasks_cancelled = get(counter::tasks_cancelled);
    s.local_pops = get(counter::local_pops);
    s.injector_pops = get(counter::injector_pops);
    s.priority_pops = get(counter::priority_pops);
    s.steals = get(counter::steals);
    s.failed_steals = get(counter::failed_steals);
    s.local_pushes = get(counter::local_pushes);
    s.join_pushes = get(counter::join_pushes);
    s.backoff_rounds = get(counter::backoff_rounds);
    s.parks = get(counter::parks);
    s.wakeups = get(counter::wakeups);
    return s;
  }
};

}  // namespace detail
}  // namespace pilfer
