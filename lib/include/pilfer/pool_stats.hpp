// pilfer/pool_stats.hpp — what a pool reports about itself: counters
// (pool::stats()) and each worker's state (pool::snapshot()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pilfer {

/// Counters of one worker (or their sum). Snapshots: each field is read
/// relaxed while the pool runs, so a snapshot is not atomic as a whole; once
/// the pool is idle (wait_idle() returned) the identities in pool.md hold.
struct worker_stats {
  std::uint64_t tasks_run = 0;       // tasks executed (heap tasks, join branches, tasks a wait ran itself)
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
  std::uint64_t priority_pushes = 0; // high-priority or affinity submissions made from this worker
  std::uint64_t rerouted = 0;        // tasks a wait or join moved to the injector instead of running them on its frame
  std::uint64_t claimed = 0;         // tasks a wait claimed and ran inline (their queue entry became a tombstone)
  std::uint64_t tombstones = 0;      // queue entries skipped because a wait had claimed the task
  std::uint64_t blocked_waits = 0;   // waits that blocked (target running elsewhere, nothing of it to run)
  std::uint64_t handoffs = 0;        // due injector/priority work handed to another thread from inside a wait or join

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
    priority_pushes += o.priority_pushes;
    rerouted += o.rerouted;
    claimed += o.claimed;
    tombstones += o.tombstones;
    blocked_waits += o.blocked_waits;
    handoffs += o.handoffs;
    return *this;
  }
};

/// pool::stats(): per worker (spares after the workers), total, pool-wide figures.
struct pool_stats {
  std::vector<worker_stats> workers;
  worker_stats total;
  std::uint64_t injector_pushes = 0;  // submit/spawn from outside the pool
  std::uint64_t priority_pushes = 0;  // high-priority or affinity submissions (from outside + total.priority_pushes)
  std::uint64_t submitted = 0;        // accepted heap tasks: local + injector + priority pushes
  std::uint64_t pending = 0;          // accepted and not yet finished
  std::uint32_t sleeping = 0;         // workers currently parked (or about to)
  std::size_t spare_workers = 0;      // spare threads alive (compensation for blocked waits)
};

/// What a worker thread is doing (pool::snapshot(); advisory, racy).
enum class worker_state : std::uint8_t {
  running,      ///< executing a task
  searching,    ///< looking for a task (counted as a searcher by the sleep protocol)
  backing_off,  ///< searching, inside a randomised back-off between rounds
  parked,       ///< asleep in the pool's event count (or a spare's idle list)
  waiting,      ///< blocked inside a wait (handle/group/join) with nothing it may run
  stopped       ///< not started yet, or exited
};

const char* to_string(worker_state s) noexcept;

inline const char* to_string(worker_state s) noexcept {
  switch (s) {
    case worker_state::running: return "running";
    case worker_state::searching: return "searching";
    case worker_state::backing_off: return "backing_off";
    case worker_state::parked: return "parked";
    case worker_state::waiting: return "waiting";
    case worker_state::stopped: return "stopped";
  }
  return "unknown";
}

/// One worker in pool::snapshot().
struct worker_snapshot {
  unsigned index;           ///< 0..size()-1 workers, then spares
  worker_state state;
  std::size_t queued;       ///< items in its deque and mailbox (approximate)
  std::uint64_t tasks_run;
};

}  // namespace pilfer
