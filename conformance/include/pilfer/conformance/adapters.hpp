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
#pragma once

#include <exception>
#include <vector>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

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

}  // namespace pilfer::conformance
