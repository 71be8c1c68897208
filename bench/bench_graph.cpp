// bench/bench_graph.cpp — task graphs: pilfer's graph (pilfer/graph.hpp) against oneTBB's flow graph,
// in the same run. Shapes from seed 001 (wide: 1000 independent tasks; deep: 100 stages x 10 tasks,
// every task of a stage after every task of the previous one) plus a random DAG (2000 tasks, fan-in
// 0-4) and a linear chain (1000 tasks). Each graph is built once; one iteration is one run of it
// from outside the pool, waited for. Every task does the same small amount of arithmetic (~100 ns).
// Rows per shape:
//   [pilfer]      pilfer::run(p, g).get() from outside: 2 workers, the caller blocks
//   [tbb]         the same footing: an arena of 2 worker slots, none for the caller; the run is started
//                 with arena.enqueue and the caller blocks in wait_for_all
//   [tbb_caller]  oneTBB's usual setup: 2 slots, one reserved for the caller, which runs tasks itself in
//                 wait_for_all (no hand-off to another thread: on a loaded machine the hand-off's wake-up
//                 latency dominates a run of ~1000 small tasks)
// and a `x100` group: 100 passes per iteration (pilfer run_n(100), which keeps the workers in the graph
// between passes; oneTBB 100 x put + wait_for_all inside the arena), i.e. the per-pass scheduling cost.
// pilfer runs with per-task profiling off (two clock reads per task; oneTBB has no such feature).
// PILFER_BENCH_SMOKE=1 (the bench.smoke ctest): one iteration of each row, and every task counts its runs:
// a row whose graph did not run each task once per pass reports an error (SkipWithError).
#include <benchmark/benchmark.h>
#include <pilfer/graph.hpp>

#include "row_check.hpp"
#include "workloads.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#if PILFER_BENCH_TBB
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#endif

namespace {

namespace pb = pilfer::bench;
constexpr unsigned threads = 2;

/// Task bodies run (smoke mode only: the timed runs do not pay for a shared counter).
pilfer::std_sync::atomic<std::uint64_t>& bodies_run() {
  static pilfer::std_sync::atomic<std::uint64_t> n{0};
  return n;
}
void count_body() {
  if (pb::smoke()) bodies_run().fetch_add(1, PILFER_SITE("bench.bodies", relaxed));
}
/// Smoke mode: each task ran once per pass of every iteration since `before`.
void check_bodies(benchmark::State& st, std::uint64_t before, std::uint64_t expected) {
  if (!pb::smoke()) return;
  pb::check(st, bodies_run().load(PILFER_SITE("bench.bodies", relaxed)) - before == expected,
            "a task did not run exactly once per pass");
}
/// Timing: at least 0.5 s per row; one iteration in smoke mode.
void timing(benchmark::internal::Benchmark* b) {
  if (pb::smoke()) b->Iterations(1);
  else b->MinTime(0.5);
}

/// A graph shape: predecessors of each task (task ids in topological order).
struct shape {
  std::vector<std::vector<std::uint32_t>> pred;
};

shape wide() {
  shape s;
  s.pred.resize(1000);
  return s;
}
shape deep() {
  shape s;
  s.pred.resize(100 * 10);
  for (std::uint32_t st = 1; st < 100; ++st)
    for (std::uint32_t j = 0; j < 10; ++j)
      for (std::uint32_t k = 0; k < 10; ++k) s.pred[st * 10 + j].push_back((st - 1) * 10 + k);
  return s;
}
shape chain() {
  shape s;
  s.pred.resize(1000);
  for (std::uint32_t i = 1; i < 1000; ++i) s.pred[i].push_back(i - 1);
  return s;
}
shape random_dag() {
  shape s;
  s.pred.resize(2000);
  std::uint64_t x = 0x2545F4914F6CDD1Dull;  // fixed: the same DAG for both executors and every run
  const auto next = [&x] {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1Dull;
  };
  for (std::uint32_t i = 1; i < 2000; ++i) {
    const std::uint32_t k = static_cast<std::uint32_t>(next() % 5);
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint32_t p = static_cast<std::uint32_t>(next() % i);
      bool dup = false;
      for (auto q : s.pred[i]) dup = dup || q == p;
      if (!dup) s.pred[i].push_back(p);
    }
  }
  return s;
}

/// The work of one task: ~100 ns of dependent arithmetic the compiler cannot remove.
inline void work(std::uint64_t seed) {
  std::uint64_t v = seed;
  for (int i = 0; i < 40; ++i) v = v * 6364136223846793005ull + 1442695040888963407ull;
  benchmark::DoNotOptimize(v);
}

void build_pilfer(pilfer::graph& g, const shape& s) {
  g.profile(false);
  std::vector<pilfer::graph_task> t;
  t.reserve(s.pred.size());
  for (std::size_t i = 0; i < s.pred.size(); ++i)
    t.push_back(g.emplace([i] {
      work(i);
      count_body();
    }));
  for (std::size_t i = 0; i < s.pred.size(); ++i)
    for (auto q : s.pred[i]) t[q].precede(t[i]);
}

void pilfer_graph_bm(benchmark::State& st, shape (*make)(), std::size_t passes) {
  const shape s = make();
  pilfer::pool p(pilfer::pool_options{.threads = threads, .name = "bench-graph"});
  pilfer::graph g("bench");
  build_pilfer(g, s);
  const std::uint64_t before = bodies_run().load(PILFER_SITE("bench.bodies", relaxed));
  for (auto _ : st) {
    if (passes == 1) pilfer::run(p, g).get();
    else pilfer::run_n(p, g, passes).get();
  }
  check_bodies(st, before, static_cast<std::uint64_t>(st.iterations()) * passes * s.pred.size());
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * passes * s.pred.size()));
}

#if PILFER_BENCH_TBB
tbb::global_control& tbb_limit() {
  static tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads + 1);
  return gc;
}

/// caller_slot: the caller occupies one of the 2 slots and works in wait_for_all; else the arena
/// has 2 worker slots, the run is enqueued and the caller only waits.
void tbb_graph_bm(benchmark::State& st, shape (*make)(), std::size_t passes, bool caller_slot) {
  tbb_limit();
  const shape s = make();
  using msg = tbb::flow::continue_msg;
  using node = tbb::flow::continue_node<msg>;
  tbb::task_arena arena(static_cast<int>(threads), caller_slot ? 1 : 0);
  std::unique_ptr<tbb::flow::graph> g;
  std::vector<std::unique_ptr<node>> n;
  std::vector<node*> sources;
  arena.execute([&] {
    g = std::make_unique<tbb::flow::graph>();
    n.reserve(s.pred.size());
    for (std::size_t i = 0; i < s.pred.size(); ++i)
      n.push_back(std::make_unique<node>(*g, [i](const msg&) {
        work(i);
        count_body();
        return msg();
      }));
    for (std::size_t i = 0; i < s.pred.size(); ++i) {
      if (s.pred[i].empty()) sources.push_back(n[i].get());
      for (auto q : s.pred[i]) tbb::flow::make_edge(*n[q], *n[i]);
    }
  });
  pilfer::std_sync::atomic<int> done{0};  // outlives every notify below
  const std::uint64_t before = bodies_run().load(PILFER_SITE("bench.bodies", relaxed));
  for (auto _ : st) {
    if (caller_slot) {
      arena.execute([&] {
        for (std::size_t k = 0; k < passes; ++k) {
          for (node* src : sources) src->try_put(msg());
          g->wait_for_all();
        }
      });
    } else if (passes == 1) {
      g->reserve_wait();  // wait_for_all must not return before the enqueued puts happened
      arena.enqueue([&] {
        for (node* src : sources) src->try_put(msg());
        g->release_wait();
      });
      arena.execute([&] { g->wait_for_all(); });
    } else {
      // all passes in one enqueued task (a worker waits between passes); the caller blocks on a flag
      done.store(0, PILFER_SITE("bench.done", relaxed));
      arena.enqueue([&] {
        for (std::size_t k = 0; k < passes; ++k) {
          for (node* src : sources) src->try_put(msg());
          g->wait_for_all();
        }
        done.store(1, PILFER_SITE("bench.done", release));
        done.notify_all();
      });
      while (done.load(PILFER_SITE("bench.done", acquire)) == 0) done.wait(0, PILFER_SITE("bench.done", acquire));
    }
  }
  check_bodies(st, before, static_cast<std::uint64_t>(st.iterations()) * passes * s.pred.size());
  arena.execute([&] {
    n.clear();
    g.reset();
  });
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * passes * s.pred.size()));
}
#endif

}  // namespace

#define PILFER_GRAPH_BENCH(shape_fn, label)                                                              \
  BENCHMARK_CAPTURE(pilfer_graph_bm, label, shape_fn, 1)->Name("graph." #label "[pilfer]")->UseRealTime()      \
      ->Unit(benchmark::kMicrosecond)->Apply(timing);                                                        \
  BENCHMARK_CAPTURE(pilfer_graph_bm, label##x100, shape_fn, 100)->Name("graph." #label "x100[pilfer]")      \
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Apply(timing);
PILFER_GRAPH_BENCH(wide, wide1000)
PILFER_GRAPH_BENCH(deep, deep100x10)
PILFER_GRAPH_BENCH(random_dag, random2000)
PILFER_GRAPH_BENCH(chain, chain1000)
#if PILFER_BENCH_TBB
#define PILFER_GRAPH_TBB(shape_fn, label)                                                                   \
  BENCHMARK_CAPTURE(tbb_graph_bm, label, shape_fn, 1, false)->Name("graph." #label "[tbb]")->UseRealTime()     \
      ->Unit(benchmark::kMicrosecond)->Apply(timing);                                                        \
  BENCHMARK_CAPTURE(tbb_graph_bm, label##c, shape_fn, 1, true)->Name("graph." #label "[tbb_caller]")        \
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->Apply(timing);                                         \
  BENCHMARK_CAPTURE(tbb_graph_bm, label##x100, shape_fn, 100, false)->Name("graph." #label "x100[tbb]")     \
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Apply(timing);                                         \
  BENCHMARK_CAPTURE(tbb_graph_bm, label##x100c, shape_fn, 100, true)->Name("graph." #label "x100[tbb_caller]") \
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Apply(timing);
PILFER_GRAPH_TBB(wide, wide1000)
PILFER_GRAPH_TBB(deep, deep100x10)
PILFER_GRAPH_TBB(random_dag, random2000)
PILFER_GRAPH_TBB(chain, chain1000)
#endif

BENCHMARK_MAIN();
