// bench/outside_submit.hpp — one shape of adapter for every pool that accepts work from a thread outside it, for the
// programs that measure pools at rest (bench_memory: bytes per queued task; bench_latency: submit-to-start on a
// parked pool). Each adapter submits the way its users do from outside: pilfer spawn() / task_group::run,
// oneTBB task_arena::enqueue, the mutex pools' submit().
#pragma once

#include <pilfer/pool.hpp>

#ifdef PILFER_BENCH_TBB
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#endif

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mutex_queue.hpp"
#include "mutex_worker_pool.hpp"

namespace pilfer::bench {

constexpr unsigned outside_threads = 2;

// Every adapter: a pool with 2 workers, submit(f) hands it a callable from outside (as a template, so the task
// stores the lambda itself, not a std::function), wait_all() waits for every task handed so far (needed by the
// task_group forms; the others count completions in their tasks).

class pilfer_spawn_pool {
 public:
  template <class F>
  void submit(F&& f) { p_.spawn(std::forward<F>(f)); }
  void wait_all() {}

 private:
  pilfer::pool p_{pilfer::pool_options{.threads = outside_threads}};
};

class pilfer_group_pool {
 public:
  template <class F>
  void submit(F&& f) { g_.run(std::forward<F>(f)); }
  void wait_all() { g_.wait(); }

 private:
  pilfer::pool p_{pilfer::pool_options{.threads = outside_threads}};
  pilfer::task_group g_{p_};
};

template <class Pool>
class mutex_outside_pool {
 public:
  template <class F>
  void submit(F&& f) { p_.submit(std::forward<F>(f)); }
  void wait_all() {}

 private:
  Pool p_{outside_threads};
};

#ifdef PILFER_BENCH_TBB
inline void tbb_allow_workers() {
  static tbb::global_control g(tbb::global_control::max_allowed_parallelism, outside_threads + 1);
  (void)g;
}

class tbb_enqueue_pool {
 public:
  tbb_enqueue_pool() { tbb_allow_workers(); }
  template <class F>
  void submit(F&& f) { arena_.enqueue(std::forward<F>(f)); }
  void wait_all() {}

 private:
  tbb::task_arena arena_{static_cast<int>(outside_threads), 0};
};

#endif

/// Calls fn(pool) with the adapter named `impl`; false for an unknown name (the caller prints the names).
template <class Fn>
bool with_outside_pool(std::string_view impl, bool allow_group, Fn&& fn) {
  auto run = [&](auto* tag) {
    using P = std::remove_pointer_t<decltype(tag)>;
    auto p = std::make_unique<P>();
    fn(*p);
    return true;
  };
  if (impl == "pilfer") return run(static_cast<pilfer_spawn_pool*>(nullptr));
  if (impl == "pilfer_task_group" && allow_group) return run(static_cast<pilfer_group_pool*>(nullptr));
  if (impl == "mutex_worker_pool") return run(static_cast<mutex_outside_pool<mutex_worker_pool>*>(nullptr));
  if (impl == "single_queue_pool") return run(static_cast<mutex_outside_pool<mutex_pool>*>(nullptr));
#ifdef PILFER_BENCH_TBB
  if (impl == "tbb_arena_enqueue") return run(static_cast<tbb_enqueue_pool*>(nullptr));
#endif
  return false;
}

inline const char* outside_pool_names(bool allow_group) {
#ifdef PILFER_BENCH_TBB
  return allow_group ? "pilfer pilfer_task_group mutex_worker_pool single_queue_pool tbb_arena_enqueue"
                     : "pilfer mutex_worker_pool single_queue_pool tbb_arena_enqueue";
#else
  return allow_group ? "pilfer pilfer_task_group mutex_worker_pool single_queue_pool"
                     : "pilfer mutex_worker_pool single_queue_pool";
#endif
}

}  // namespace pilfer::bench
