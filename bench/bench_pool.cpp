// bench/bench_pool.cpp — pilfer's pool next to oneTBB, seed 002's mutex-per-worker pool and a single-queue pool,
// in one process, each written the way its users write it (workloads and sizes: workloads.hpp; the OpenMP peers
// run the same workloads in bench_omp.cpp, Rayon in bench/rust/). Every pool has 2 executing threads unless the
// name says t:1. Rows are named group[impl]; scripts/bench.sh turns them into ratios to the best peer.
//   pool.fib30_spawn2   fib(30), both children spawned through a task group, no cutoff (2.7M spawns)
//   pool.fib30_call     fib(30) as plain recursive calls on one thread (what a spawn is compared with)
//   pool.fib30_join     fib(30), one child spawned and one run inline (pilfer::join, tbb task_group run+inline)
//   pool.external_1M    1M empty tasks submitted from the main thread (outside the pool), then waited for
//   pool.skewed         1000 tasks, 1% of them 1000x heavier; [serial] is the same work on one thread (ideal =
//                       serial / 2)
//   pool.pfor_1e7       uniform parallel_for over 10^7 cheap items
//   pool.qsort_1e7      parallel quicksort of 10^7 ints (partition, fork both halves, std::sort below 4096)
// Every body checks its result and reports an error instead of a time when it is wrong.
// Every pool lives for the whole process, as a user's pool does (kept_pool), and each row runs its body once
// untimed before its first repetition (warm_up_once), as the Rust harness does: no row times a pool's thread
// start-up or its first touch of memory.
#include <benchmark/benchmark.h>

#include <pilfer/pool.hpp>

#ifdef PILFER_BENCH_TBB
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#endif

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mutex_queue.hpp"
#include "mutex_worker_pool.hpp"
#include "row_check.hpp"
#include "workloads.hpp"

namespace {

using pilfer::std_sync;
namespace pb = pilfer::bench;
constexpr unsigned threads = 2;

/// Completion signal for pools whose users block the main thread on a flag: the task that brings `left` to
/// zero wakes the waiting thread. One process-wide instance (the last arrive() may still be in notify_all()
/// when the waiter returns).
struct countdown {
  std_sync::atomic<std::uint64_t> left{0};
  std_sync::atomic<std::uint32_t> done{0};
  void reset(std::uint64_t n) {
    left.store(n, PILFER_SITE("bench.count", relaxed));
    done.store(0, PILFER_SITE("bench.count", relaxed));
  }
  void arrive() {
    if (left.fetch_sub(1, PILFER_SITE("bench.count", acq_rel)) == 1) {
      done.store(1, PILFER_SITE("bench.count", release));
      done.notify_all();
    }
  }
  void wait() {
    while (done.load(PILFER_SITE("bench.count", acquire)) == 0) done.wait(0, PILFER_SITE("bench.count", acquire));
  }
};
countdown& finished() {
  static countdown c;
  return c;
}

/// Runs f() on one of the pool's threads and blocks the caller until it returned (for the mutex pools).
template <class Pool, class F>
void run_inside(Pool& p, F&& f) {
  countdown& c = finished();
  c.reset(1);
  p.submit([&] {
    f();
    c.arrive();
  });
  c.wait();
}

using pb::check;

/// The process's pool of type Pool with `t` threads, made on first use and kept until exit (rows, their
/// repetitions and their t:1/t:2 variants share it, as the threads of oneTBB and Rayon are shared).
template <class Pool>
Pool& kept_pool(unsigned t) {
  static std::map<unsigned, std::unique_ptr<Pool>> pools;
  std::unique_ptr<Pool>& p = pools[t];
  if (!p) {
    if constexpr (std::is_constructible_v<Pool, pilfer::pool_options>)
      p = std::make_unique<Pool>(pilfer::pool_options{.threads = t});
    else
      p = std::make_unique<Pool>(t);
  }
  return *p;
}

/// True the first time the row (`row`: the calling function's __PRETTY_FUNCTION__, `arg`: its thread count)
/// runs in this process: it then runs its body once untimed (warm-up: thread start-up, first touch of memory).
bool first_run(const char* row, std::int64_t arg) {
  static std::set<std::pair<std::string, std::int64_t>> warmed;
  return warmed.emplace(row, arg).second;
}

/// A row's repetition: `body` once per iteration, timed, after the row's warm-up (first_run).
template <class Body>
void timed_row(benchmark::State& state, const char* row, std::int64_t arg, Body&& body) {
  if (first_run(row, arg)) body();
  for (auto _ : state) body();
}

/// Iterations per repetition: about 50-400 ms of work each (1 in smoke mode).
benchmark::IterationCount iters(benchmark::IterationCount n) { return pb::smoke() ? 1 : n; }

std::uint64_t fib_expected() { return pb::fib_serial(pb::size().fib_n); }

// ------------------------------------------------------------------------------------------- spawn-both fib
template <class Group, class Pool>
std::uint64_t fib_spawn2(Pool& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  Group g(p);
  g.run([&] { a = fib_spawn2<Group>(p, n - 1); });
  g.run([&] { b = fib_spawn2<Group>(p, n - 2); });
  g.wait();
  return a + b;
}

void fib_spawn2_pilfer(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  auto& p = kept_pool<pilfer::pool>(t);
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    const auto r = p.submit([&] { return fib_spawn2<pilfer::task_group>(p, pb::size().fib_n); }).get();
    check(state, r == fib_expected(), "wrong fib");
  });
}

template <class Pool>
void fib_spawn2_mutex(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  auto& p = kept_pool<Pool>(t);
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    std::uint64_t r = 0;
    run_inside(p, [&] { r = fib_spawn2<typename Pool::group>(p, pb::size().fib_n); });
    check(state, r == fib_expected(), "wrong fib");
  });
}

// The same recursion as plain function calls: the "a spawn costs about a function call" anchor.
void fib_call(benchmark::State& state) {
  for (auto _ : state) {
    unsigned n = pb::size().fib_n;
    benchmark::DoNotOptimize(n);
    check(state, pb::fib_serial(n) == fib_expected(), "wrong fib");
  }
}

// ---------------------------------------------------------------------------------------------- join fib
std::uint64_t fib_join_pilfer(pilfer::pool& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  pilfer::join(p, [&] { a = fib_join_pilfer(p, n - 1); }, [&] { b = fib_join_pilfer(p, n - 2); });
  return a + b;
}

void fib_join_pilfer_bm(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  auto& p = kept_pool<pilfer::pool>(t);
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    const auto r = p.submit([&] { return fib_join_pilfer(p, pb::size().fib_n); }).get();
    check(state, r == fib_expected(), "wrong fib");
  });
}

// ------------------------------------------------------------------------------------------ external 1M
// The task body: one relaxed increment, so the count proves every task ran exactly once.
std_sync::atomic<std::uint64_t>& ran() {
  static std_sync::atomic<std::uint64_t> r{0};
  return r;
}
void tiny_task() { ran().fetch_add(1, PILFER_SITE("bench.count", relaxed)); }
bool ran_all(std::uint64_t n) { return ran().exchange(0, PILFER_SITE("bench.count", relaxed)) == n; }

void external_pilfer_group(benchmark::State& state) {
  auto& p = kept_pool<pilfer::pool>(threads);
  const auto n = pb::size().external_tasks;
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    pilfer::task_group g(p);
    for (std::uint64_t i = 0; i < n; ++i) g.run(tiny_task);
    g.wait();
    check(state, ran_all(n), "tasks lost");
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void external_pilfer_spawn(benchmark::State& state) {
  auto& p = kept_pool<pilfer::pool>(threads);
  const auto n = pb::size().external_tasks;
  countdown& c = finished();
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    c.reset(n);
    for (std::uint64_t i = 0; i < n; ++i) p.spawn([&c] {
      tiny_task();
      c.arrive();
    });
    c.wait();
    check(state, ran_all(n), "tasks lost");
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class Pool>
void external_mutex(benchmark::State& state) {
  auto& p = kept_pool<Pool>(threads);
  const auto n = pb::size().external_tasks;
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    typename Pool::group g(p);
    for (std::uint64_t i = 0; i < n; ++i) g.run(tiny_task);
    g.wait();
    check(state, ran_all(n), "tasks lost");
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

// ------------------------------------------------------------------------------------------------ skewed
std_sync::atomic<std::uint64_t>& sink() {
  static std_sync::atomic<std::uint64_t> s{0};
  return s;
}
void skewed_task(std::uint64_t i) { sink().fetch_add(pb::work(pb::skewed_steps(i), i), PILFER_SITE("bench.count", relaxed)); }

void skewed_serial(benchmark::State& state) {
  timed_row(state, __PRETTY_FUNCTION__, 1, [] {
    for (std::uint64_t i = 0; i < pb::size().skewed_tasks; ++i) skewed_task(i);
  });
}

void skewed_pilfer(benchmark::State& state) {
  auto& p = kept_pool<pilfer::pool>(threads);
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    p.submit([&] {
       pilfer::task_group g(p);
       for (std::uint64_t i = 0; i < pb::size().skewed_tasks; ++i) g.run([i] { skewed_task(i); });
       g.wait();
     }).get();
  });
}

template <class Pool>
void skewed_mutex(benchmark::State& state) {
  auto& p = kept_pool<Pool>(threads);
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    run_inside(p, [&] {
      typename Pool::group g(p);
      for (std::uint64_t i = 0; i < pb::size().skewed_tasks; ++i) g.run([i] { skewed_task(i); });
      g.wait();
    });
  });
}

// ---------------------------------------------------------------------------------------- parallel_for
std::vector<std::uint32_t>& pfor_data() {
  static std::vector<std::uint32_t> a(pb::size().pfor_items, 1u);
  return a;
}

void pfor_pilfer(benchmark::State& state) {
  auto& p = kept_pool<pilfer::pool>(threads);
  auto* a = pfor_data().data();
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    pilfer::parallel_for(p, std::uint64_t{0}, pb::size().pfor_items, [a](std::uint64_t i) { pb::pfor_body(a, i); });
  });
  benchmark::DoNotOptimize(pfor_data()[pb::size().pfor_items / 2]);
}

// ------------------------------------------------------------------------------------------- quicksort
/// `row`: the caller's __PRETTY_FUNCTION__ (first_run); the copy of the input is not timed.
template <class Sort>
void sort_bm(benchmark::State& state, const char* row, Sort&& sort) {
  const auto input = pb::sort_input();
  std::vector<std::int32_t> v;
  if (first_run(row, threads)) {
    v = input;
    sort(v);
  }
  for (auto _ : state) {
    state.PauseTiming();
    v = input;
    state.ResumeTiming();
    sort(v);
    state.PauseTiming();
    check(state, std::is_sorted(v.begin(), v.end()), "not sorted");
    state.ResumeTiming();
  }
}

void qsort_pilfer(benchmark::State& state) {
  auto& p = kept_pool<pilfer::pool>(threads);
  sort_bm(state, __PRETTY_FUNCTION__, [&](std::vector<std::int32_t>& v) {
    p.submit([&] {
       auto fork = [&](auto&& l, auto&& r) { pilfer::join(p, l, r); };
       pb::quicksort(v.begin(), v.end(), fork);
     }).get();
  });
}

void qsort_serial(benchmark::State& state) {
  sort_bm(state, __PRETTY_FUNCTION__, [](std::vector<std::int32_t>& v) {
    auto fork = [](auto&& l, auto&& r) {
      l();
      r();
    };
    pb::quicksort(v.begin(), v.end(), fork);
  });
}

// ---------------------------------------------------------------------------------------------- oneTBB
#ifdef PILFER_BENCH_TBB
// TBB counts the calling thread in max_allowed_parallelism; 3 lets a 2-slot arena have 2 workers when the
// caller only submits. Arenas created with (2, 1) run the caller + 1 worker.
void tbb_limit() {
  static tbb::global_control g(tbb::global_control::max_allowed_parallelism, threads + 1);
  (void)g;
}

/// The process's arena with `t` slots, `reserved` of them for the calling thread, kept until exit (as
/// kept_pool; applies tbb_limit first).
tbb::task_arena& kept_arena(unsigned t, unsigned reserved) {
  tbb_limit();
  static std::map<std::pair<unsigned, unsigned>, std::unique_ptr<tbb::task_arena>> arenas;
  std::unique_ptr<tbb::task_arena>& a = arenas[{t, reserved}];
  if (!a) a = std::make_unique<tbb::task_arena>(static_cast<int>(t), reserved);
  return *a;
}

struct tbb_group {
  explicit tbb_group(int) {}
  tbb::task_group g;
  template <class F>
  void run(F&& f) {
    g.run(std::forward<F>(f));
  }
  void wait() { g.wait(); }
};

void fib_spawn2_tbb(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  tbb::task_arena& arena = kept_arena(t, 1);
  int unused = 0;
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    std::uint64_t r = 0;
    arena.execute([&] { r = fib_spawn2<tbb_group>(unused, pb::size().fib_n); });
    check(state, r == fib_expected(), "wrong fib");
  });
}

std::uint64_t fib_join_tbb(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib_join_tbb(n - 1); });
  b = fib_join_tbb(n - 2);
  g.wait();
  return a + b;
}

void fib_join_tbb_bm(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  tbb::task_arena& arena = kept_arena(t, 1);
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    std::uint64_t r = 0;
    arena.execute([&] { r = fib_join_tbb(pb::size().fib_n); });
    check(state, r == fib_expected(), "wrong fib");
  });
}

std::uint64_t fib_invoke_tbb(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = fib_invoke_tbb(n - 1); }, [&] { b = fib_invoke_tbb(n - 2); });
  return a + b;
}

void fib_invoke_tbb_bm(benchmark::State& state) {
  const auto t = static_cast<unsigned>(state.range(0));
  tbb::task_arena& arena = kept_arena(t, 1);
  timed_row(state, __PRETTY_FUNCTION__, t, [&] {
    std::uint64_t r = 0;
    arena.execute([&] { r = fib_invoke_tbb(pb::size().fib_n); });
    check(state, r == fib_expected(), "wrong fib");
  });
}

// task_group::run from the main thread: it queues into the main thread's slot of the default arena (2 workers
// steal from it); wait() makes the main thread run the rest.
void external_tbb_group(benchmark::State& state) {
  tbb_limit();
  const auto n = pb::size().external_tasks;
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    tbb::task_group g;
    for (std::uint64_t i = 0; i < n; ++i) g.run(tiny_task);
    g.wait();
    check(state, ran_all(n), "tasks lost");
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

// task_arena::enqueue from the main thread into an arena of 2 workers; the main thread blocks on a flag.
void external_tbb_enqueue(benchmark::State& state) {
  tbb::task_arena& arena = kept_arena(threads, 0);
  const auto n = pb::size().external_tasks;
  countdown& c = finished();
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    c.reset(n);
    for (std::uint64_t i = 0; i < n; ++i) arena.enqueue([&c] {
      tiny_task();
      c.arrive();
    });
    c.wait();
    check(state, ran_all(n), "tasks lost");
  });
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void skewed_tbb(benchmark::State& state) {
  tbb::task_arena& arena = kept_arena(threads, 1);
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    arena.execute([&] {
      tbb::task_group g;
      for (std::uint64_t i = 0; i < pb::size().skewed_tasks; ++i) g.run([i] { skewed_task(i); });
      g.wait();
    });
  });
}

void pfor_tbb(benchmark::State& state) {
  tbb::task_arena& arena = kept_arena(threads, 1);
  auto* a = pfor_data().data();
  timed_row(state, __PRETTY_FUNCTION__, threads, [&] {
    arena.execute([&] {
      tbb::parallel_for(std::uint64_t{0}, pb::size().pfor_items, [a](std::uint64_t i) { pb::pfor_body(a, i); });
    });
  });
  benchmark::DoNotOptimize(pfor_data()[pb::size().pfor_items / 2]);
}

void qsort_tbb(benchmark::State& state) {
  tbb::task_arena& arena = kept_arena(threads, 1);
  sort_bm(state, __PRETTY_FUNCTION__, [&](std::vector<std::int32_t>& v) {
    arena.execute([&] {
      auto fork = [](auto&& l, auto&& r) { tbb::parallel_invoke(l, r); };
      pb::quicksort(v.begin(), v.end(), fork);
    });
  });
}
#endif

}  // namespace

#define PILFER_POOL_BM(fn, name, n) \
  BENCHMARK(fn)->Name(name)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(iters(n))
#define PILFER_POOL_BM_T(fn, name, n, t) PILFER_POOL_BM(fn, name, n)->Arg(t)->ArgName("t")

PILFER_POOL_BM(fib_call, "pool.fib30_call[serial]", 10);
PILFER_POOL_BM_T(fib_spawn2_pilfer, "pool.fib30_spawn2[pilfer]", 1, 2);
PILFER_POOL_BM_T(fib_spawn2_mutex<pb::mutex_worker_pool>, "pool.fib30_spawn2[mutex_worker_pool]", 1, 2);
PILFER_POOL_BM_T(fib_spawn2_mutex<pb::mutex_pool>, "pool.fib30_spawn2[single_queue_pool]", 1, 2);
PILFER_POOL_BM_T(fib_spawn2_pilfer, "pool.fib30_spawn2[pilfer]", 1, 1);
PILFER_POOL_BM_T(fib_join_pilfer_bm, "pool.fib30_join[pilfer]", 4, 2);
PILFER_POOL_BM_T(fib_join_pilfer_bm, "pool.fib30_join[pilfer]", 4, 1);
PILFER_POOL_BM(external_pilfer_group, "pool.external_1M[pilfer]", 1);
PILFER_POOL_BM(external_pilfer_spawn, "pool.external_1M[pilfer_spawn]", 1);
PILFER_POOL_BM(external_mutex<pb::mutex_worker_pool>, "pool.external_1M[mutex_worker_pool]", 1);
PILFER_POOL_BM(external_mutex<pb::mutex_pool>, "pool.external_1M[single_queue_pool]", 1);
PILFER_POOL_BM(skewed_serial, "pool.skewed[serial]", 2);
PILFER_POOL_BM(skewed_pilfer, "pool.skewed[pilfer]", 4);
PILFER_POOL_BM(skewed_mutex<pb::mutex_worker_pool>, "pool.skewed[mutex_worker_pool]", 4);
PILFER_POOL_BM(skewed_mutex<pb::mutex_pool>, "pool.skewed[single_queue_pool]", 4);
PILFER_POOL_BM(pfor_pilfer, "pool.pfor_1e7[pilfer]", 10);
PILFER_POOL_BM(qsort_serial, "pool.qsort_1e7[serial]", 1);
PILFER_POOL_BM(qsort_pilfer, "pool.qsort_1e7[pilfer]", 1);
#ifdef PILFER_BENCH_TBB
PILFER_POOL_BM_T(fib_spawn2_tbb, "pool.fib30_spawn2[tbb_task_group]", 1, 2);
PILFER_POOL_BM_T(fib_spawn2_tbb, "pool.fib30_spawn2[tbb_task_group]", 1, 1);
PILFER_POOL_BM_T(fib_join_tbb_bm, "pool.fib30_join[tbb_task_group]", 1, 2);
PILFER_POOL_BM_T(fib_invoke_tbb_bm, "pool.fib30_join[tbb_parallel_invoke]", 1, 2);
PILFER_POOL_BM(external_tbb_group, "pool.external_1M[tbb_task_group]", 1);
PILFER_POOL_BM(external_tbb_enqueue, "pool.external_1M[tbb_arena_enqueue]", 1);
PILFER_POOL_BM(skewed_tbb, "pool.skewed[tbb_task_group]", 4);
PILFER_POOL_BM(pfor_tbb, "pool.pfor_1e7[tbb_parallel_for]", 10);
PILFER_POOL_BM(qsort_tbb, "pool.qsort_1e7[tbb_parallel_invoke]", 1);
#endif

BENCHMARK_MAIN();
