// bench/bench_graph.cpp — task graphs: pilfer's graph (pilfer/graph.hpp) against oneTBB's flow graph,
// in the same run. Shapes from seed 001 (wide: 1000 independent tasks; deep: 100 stages x 10 tasks,
// every task of a stage after every task of the previous one) plus a random DAG (2000 tasks, fan-in
// 0-4) and a linear chain (1000 tasks). Each graph is built once; one iteration is one run of it
// from outside the pool, waited for. Every task does the same small amount of arithmetic (~100 ns).
// Both executors use 2 executing threads: pilfer 2 workers (the caller blocks), oneTBB an arena of
// 2 slots with one reserved for the caller (which waits in wait_for_all and works). pilfer runs with
// per-task profiling off (two clock reads per task; oneTBB has no such feature).
#include <benchmark/benchmark.h>
#include <pilfer/graph.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#if PILFER_BENCH_TBB
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#endif

namespace {

constexpr unsigned threads = 2;

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

void pilfer_graph_bm(benchmark::State& st, shape (*make)()) {
  const shape s = make();
  pilfer::pool p(pilfer::pool_options{.threads = threads, .name = "bench-graph"});
  pilfer::graph g("bench");
  g.profile(false);
  std::vector<pilfer::graph_task> t;
  t.reserve(s.pred.size());
  for (std::size_t i = 0; i < s.pred.size(); ++i) t.push_back(g.emplace([i] { work(i); }));
  for (std::size_t i = 0; i < s.pred.size(); ++i)
    for (auto q : s.pred[i]) t[q].precede(t[i]);
  for (auto _ : st) pilfer::run(p, g).get();
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(s.pred.size()));
}

#if PILFER_BENCH_TBB
tbb::global_control& tbb_limit() {
  static tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads + 1);
  return gc;
}

void tbb_graph_bm(benchmark::State& st, shape (*make)()) {
  tbb_limit();
  const shape s = make();
  using msg = tbb::flow::continue_msg;
  using node = tbb::flow::continue_node<msg>;
  tbb::task_arena arena(static_cast<int>(threads), 1);  // the caller + 1 worker
  arena.execute([&] {
    tbb::flow::graph g;
    std::vector<std::unique_ptr<node>> n;
    n.reserve(s.pred.size());
    for (std::size_t i = 0; i < s.pred.size(); ++i)
      n.push_back(std::make_unique<node>(g, [i](const msg&) {
        work(i);
        return msg();
      }));
    std::vector<node*> sources;
    for (std::size_t i = 0; i < s.pred.size(); ++i) {
      if (s.pred[i].empty()) sources.push_back(n[i].get());
      for (auto q : s.pred[i]) tbb::flow::make_edge(*n[q], *n[i]);
    }
    for (auto _ : st) {
      for (node* src : sources) src->try_put(msg());
      g.wait_for_all();
    }
  });
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(s.pred.size()));
}
#endif

}  // namespace

BENCHMARK_CAPTURE(pilfer_graph_bm, wide, wide)->Name("graph.wide1000[pilfer]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(pilfer_graph_bm, deep, deep)->Name("graph.deep100x10[pilfer]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(pilfer_graph_bm, random, random_dag)->Name("graph.random2000[pilfer]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(pilfer_graph_bm, chain, chain)->Name("graph.chain1000[pilfer]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
#if PILFER_BENCH_TBB
BENCHMARK_CAPTURE(tbb_graph_bm, wide, wide)->Name("graph.wide1000[tbb]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(tbb_graph_bm, deep, deep)->Name("graph.deep100x10[tbb]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(tbb_graph_bm, random, random_dag)->Name("graph.random2000[tbb]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK_CAPTURE(tbb_graph_bm, chain, chain)->Name("graph.chain1000[tbb]")->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
#endif

BENCHMARK_MAIN();
