// pilfer/pool_options.hpp — what a pool and a task can be told, and the
// errors the pool throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "pilfer/topology.hpp"

namespace pilfer {

enum class shutdown_mode {
  drain,  ///< run every accepted task (and the tasks they spawn), then stop
  cancel  ///< discard queued tasks (handles report cancelled), then stop
};

struct pool_options {
  unsigned threads = 0;            ///< 0: default_thread_count() (affinity mask and cgroup CPU quota)
  bool pin = false;                ///< pin worker i to the PU topology().place() gives it
  unsigned spin_rounds = 8;        ///< failed search rounds (with back-off) before parking
  unsigned backoff_cap = 10;       ///< back-off spins are < 2^min(round+1, cap)
  unsigned injector_interval = 61; ///< check the injector first every N tasks or join arms (fairness)
  /// Spare threads the pool may start to keep `threads` workers running while
  /// others are blocked inside a wait (handle/group/join) on a task that runs
  /// elsewhere (POOL-20). Past the bound a wait blocks without a spare and the
  /// pool reports `spare_limit_reached` once to on_uncaught.
  std::size_t max_spare_workers = 256;
  /// A push onto a worker's own deque (spawn, join, a group's run() inside a task) announces
  /// itself with a compiler-only barrier, and a worker about to park (or a wait about to block)
  /// pays a process-wide barrier instead (Linux membarrier; lib/docs/sleep.md, "Asymmetric
  /// fences"). Ignored where the system has no such barrier: both sides then use a seq_cst fence.
  bool asymmetric_fences = true;
  /// With asymmetric_fences, the workers' deques pair their fences the same way: a pop (one per
  /// join or spawn) issues no fence and a steal that finds items pays the process-wide barrier
  /// (SPEC DQ-7, lib/docs/deque.md). A program whose workers steal from each other every few
  /// microseconds on many cores may set it false.
  bool asymmetric_deques = true;
  std::string name = "pilfer";     ///< thread names "<name>-<i>", error messages
  std::function<void(std::exception_ptr)> on_uncaught{};///< default: print to stderr
  std::optional<pilfer::topology> topo{};                ///< default: topology::detect()
  /// Diagnostics hook: called by a searching worker before each back-off
  /// round with (worker, round, spins). Leave empty in production.
  std::function<void(unsigned, unsigned, std::uint64_t)> on_backoff{};
};

enum class task_priority : unsigned char { normal, high };

/// Per-task options. `affinity` pins the task to one worker (index < size()).
struct task_options {
  task_priority priority = task_priority::normal;
  std::optional<unsigned> affinity{};
};

/// Thrown by submit()/spawn() from outside the pool after shutdown() began.
class pool_closed : public std::runtime_error {
 public:
  explicit pool_closed(const std::string& pool_name)
      : std::runtime_error("pilfer pool '" + pool_name +
                           "': task submitted after shutdown() began; the pool accepts no new work") {}
};

/// Thrown by task_handle::get(), task_group::wait() and join() for a task the
/// pool discarded without running it (shutdown(shutdown_mode::cancel)).
class task_cancelled : public std::runtime_error {
 public:
  task_cancelled() : std::runtime_error("pilfer: task was cancelled by shutdown(shutdown_mode::cancel)") {}
};

/// Reported (once per pool) to on_uncaught when more waits are blocked at
/// once than pool_options::max_spare_workers can compensate, or when the
/// system refused the thread of a spare (`thread_refused`: a thread or memory
/// limit): from then on a blocked wait may cost the pool one running worker
/// until it returns.
class spare_limit_reached : public std::runtime_error {
 public:
  spare_limit_reached(const std::string& pool_name, std::size_t limit, bool thread_refused = false)
      : std::runtime_error(
            thread_refused
                ? "pilfer pool '" + pool_name +
                      "': the system refused a new thread for a spare worker (a thread or memory limit; "
                      "max_spare_workers = " + std::to_string(limit) +
                      "); this wait blocks without a spare and parallelism drops until it returns"
                : "pilfer pool '" + pool_name + "': " + std::to_string(limit) +
                      " spare workers (max_spare_workers) are all in use by blocked waits; further waits "
                      "block without a spare and parallelism drops until they return") {}
};

}  // namespace pilfer
