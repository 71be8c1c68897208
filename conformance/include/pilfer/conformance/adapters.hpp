// pilfer/conformance/adapters.hpp — the three adapter concepts.
//
// The suite reaches an implementation only through an adapter: a small class that
// maps the implementation's API onto the operations below. Values are
// std::uint64_t (never 0: the suite uses 0 to detect invented values). Static
// capability flags say which optional operations exist; a requirement whose
// operation is missing is reported "n/a".
//
// deque_adapter A (one owner thread, any number of thieves):
//   A(std::size_t initial_capacity)      capacity hint (powers of two; 1 = tiny, to force growth)
//   void a.push(v)                       owner only
//   std::optional<u64> a.pop()           owner only; newest first (DQ-1)
//   A::stealer s = a.get_stealer()       copyable; used from thief threads
//   steal_outcome s.steal()              oldest first (DQ-2); empty / success / retry
//   if A::has_batch_steal:
//     batch_outcome s.steal_batch(A& dest, std::size_t max)
//     steal_outcome s.steal_batch_and_pop(A& dest, std::size_t max)   (dest: the thief's own deque)
//   static constexpr const char* name
//   static constexpr bool has_retry      steal can report "retry" (lost a race) distinct from empty
//
// injector_adapter A (any number of producers and consumers):
//   A(), void a.push(v), steal_outcome a.steal(), name
//
// graph_adapter G: see graph_tests.hpp.
//
// pool_adapter P:
//   P(unsigned threads)
//   void submit(std::function<void()>)          from outside the pool
//   void spawn(std::function<void()>)           from inside a task (local submission if supported)
//   std::function<void()> submit_waitable(f)    returns a waiter: blocks until f ran, rethrows its exception
//   void fork_join(f, g)                        inside a task: run f and g, return when both finished
//   void wait_idle()                            from outside: every task submitted so far has finished
//   void shutdown()                             drain; afterwards submit() throws
//   static flags: has_local_spawn, has_handles, has_fork_join, has_shutdown
//   The waiter returned by submit_waitable may be copied and called from many threads (each call waits
//   and rethrows the task's exception), from outside or from inside tasks.
//   Optional (detected; a requirement that needs a missing one is "n/a"):
//   void run_group(std::vector<std::function<void()>>)    inside or outside: run all as one group, wait for all
//   void set_on_uncaught(std::function<void(std::exception_ptr)>)   before any task: where lost exceptions go
//   void submit_dropped(f)                      submit with a result handle and drop the handle at once
//   value_handle submit_value(std::function<value_t()>)   a typed, move-only result handle (POOL-17):
//                                               bool h.ready() const, void h.wait(), value_t h.get()
//   void submit_with(f, task_opts)              a task with a priority or an affinity (POOL-15); from outside
//                                               or inside a task; throws when the affinity names no worker
//   std::optional<unsigned> worker_index()      index of the calling worker (nullopt outside the pool)
//   std::uint64_t parks() const                 times any worker went to sleep so far (POOL-3)
//   void parallel_for(b, e, f, grain)           f(i) for i in [b, e) (POOL-16); grain 0 = automatic
//   std::string parallel_reduce(b, e, identity, map, reduce, grain)   left fold, partials in index order
//   std::uint64_t tasks_created() const         tasks (and join branches) created so far (POOL-16 chunking)
//   static placement_view placement_on(synthetic, workers)   (POOL-13) a pool on a synthetic topology (hwloc
//                                               syntax, PUs numbered depth-first): each worker's home PU and
//                                               victim groups, nearest first
//   static pinned_view run_pinned(workers, tasks)  (POOL-13) a pinned pool on this machine runs `tasks` tasks
//
// injector_adapter, optional: static block_size, std::size_t live_blocks() const   (INJ-4)
#pragma once

#include <exception>
#include <vector>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace pilfer::conformance {

using value_t = std::uint64_t;

enum class outcome { empty, success, retry };

struct steal_outcome {
  outcome status = outcome::empty;
  value_t value = 0;
  static steal_outcome empty() { return {outcome::empty, 0}; }
  static steal_outcome retry() { return {outcome::retry, 0}; }
  static steal_outcome success(value_t v) { return {outcome::success, v}; }
};

struct batch_outcome {
  outcome status = outcome::empty;
  std::size_t count = 0;  // items moved into dest on success
};

enum class kind { deque, injector, pool, graph };

inline const char* to_string(kind k) noexcept {
  return k == kind::deque ? "deque" : k == kind::injector ? "injector" : k == kind::pool ? "pool" : "graph";
}

template <class A>
concept deque_adapter = requires(A& a, A& dest, typename A::stealer& s, value_t v) {
  requires std::constructible_from<A, std::size_t>;
  requires std::copy_constructible<typename A::stealer>;
  { A::name } -> std::convertible_to<const char*>;
  { A::has_batch_steal } -> std::convertible_to<bool>;
  { A::has_retry } -> std::convertible_to<bool>;
  a.push(v);
  { a.pop() } -> std::same_as<std::optional<value_t>>;
  { a.get_stealer() } -> std::same_as<typename A::stealer>;
  { s.steal() } -> std::same_as<steal_outcome>;
};

/// Batch operations, required only when A::has_batch_steal.
template <class A>
concept batch_deque_adapter =
    deque_adapter<A> && requires(A& dest, typename A::stealer& s, std::size_t n) {
      { s.steal_batch(dest, n) } -> std::same_as<batch_outcome>;
      { s.steal_batch_and_pop(dest, n) } -> std::same_as<steal_outcome>;
    };

template <class A>
concept injector_adapter = requires(A& a, value_t v) {
  requires std::default_initializable<A>;
  { A::name } -> std::convertible_to<const char*>;
  a.push(v);
  { a.steal() } -> std::same_as<steal_outcome>;
};

template <class P>
concept pool_adapter = requires(P& p, std::function<void()> f) {
  requires std::constructible_from<P, unsigned>;
  { P::name } -> std::convertible_to<const char*>;
  { P::has_local_spawn } -> std::convertible_to<bool>;
  { P::has_handles } -> std::convertible_to<bool>;
  { P::has_fork_join } -> std::convertible_to<bool>;
  { P::has_shutdown } -> std::convertible_to<bool>;
  p.submit(f);
  p.spawn(f);
  { p.submit_waitable(f) } -> std::same_as<std::function<void()>>;
  p.fork_join(f, f);
  p.wait_idle();
  p.shutdown();
};

/// Optional: task groups (POOL-19 builds wait-for graphs through them; fork_join stands in without).
template <class P>
concept pool_with_groups = pool_adapter<P> && requires(P& p, std::vector<std::function<void()>> fs) {
  p.run_group(std::move(fs));
};

/// Optional: an uncaught-exception handler and dropped result handles (POOL-21).
template <class P>
concept pool_with_uncaught =
    pool_adapter<P> && requires(P& p, std::function<void()> f, std::function<void(std::exception_ptr)> h) {
      p.set_on_uncaught(std::move(h));
      p.submit_dropped(std::move(f));
    };

/// Optional: typed, move-only result handles (POOL-17).
template <class P>
concept pool_with_value_handles =
    pool_adapter<P> && requires(P& p, std::function<value_t()> f, typename P::value_handle& h,
                                const typename P::value_handle& ch) {
      { p.submit_value(std::move(f)) } -> std::same_as<typename P::value_handle>;
      { ch.ready() } -> std::same_as<bool>;
      h.wait();
      { h.get() } -> std::same_as<value_t>;
    };

/// Per-task options of POOL-15.
struct task_opts {
  bool high_priority = false;
  std::optional<unsigned> affinity{};
};

/// Optional: task priorities and affinity, and the calling worker's index (POOL-15).
template <class P>
concept pool_with_task_options = pool_adapter<P> && requires(P& p, std::function<void()> f, task_opts o) {
  p.submit_with(std::move(f), o);
  { p.worker_index() } -> std::same_as<std::optional<unsigned>>;
};

/// Optional: a count of the workers' parks (POOL-3).
template <class P>
concept pool_with_park_count = pool_adapter<P> && requires(const P& p) {
  { p.parks() } -> std::same_as<std::uint64_t>;
};

/// Optional: parallel loops and a count of the tasks they create (POOL-16).
template <class P>
concept pool_with_parallel_loops =
    pool_adapter<P> && requires(P& p, const P& cp, std::int64_t i, std::function<void(std::int64_t)> f,
                                std::function<std::string(std::int64_t)> m,
                                std::function<std::string(std::string, std::string)> r) {
      p.parallel_for(i, i, f, std::size_t{0});
      { p.parallel_reduce(i, i, std::string(), m, r, std::size_t{0}) } -> std::same_as<std::string>;
      { cp.tasks_created() } -> std::same_as<std::uint64_t>;
    };

/// What a pool built on a synthetic topology reports about its placement (POOL-13).
struct placement_view {
  std::vector<unsigned> home_pu;                        // per worker: index of its home PU (depth-first)
  std::vector<std::vector<std::vector<unsigned>>> victims;  // per worker: victim groups, nearest first
};
/// What a pinned pool on this machine did (POOL-13).
struct pinned_view {
  int tasks_ran = 0;
  unsigned cores = 0;              // cores of the machine as the pool sees it
  std::vector<int> pinned_core;    // per worker: the core it is pinned to, or -1
};

/// Optional: topology-aware placement (POOL-13).
template <class P>
concept pool_with_topology = pool_adapter<P> && requires(const std::string& desc, unsigned n, int k) {
  { P::placement_on(desc, n) } -> std::same_as<placement_view>;
  { P::run_pinned(n, k) } -> std::same_as<pinned_view>;
};

/// Optional: the injector's block size and its count of allocated blocks (INJ-4).
template <class A>
concept injector_with_blocks = injector_adapter<A> && requires(const A& a) {
  { A::block_size } -> std::convertible_to<std::size_t>;
  { a.live_blocks() } -> std::same_as<std::size_t>;
};

}  // namespace pilfer::conformance
