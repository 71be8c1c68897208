// bench/bench_omp.cpp — the pool workloads (workloads.hpp) written with OpenMP tasks, as OpenMP users write
// them. Built twice: bench_omp_gomp (g++ -fopenmp, GCC's libgomp) and bench_omp_llvm (clang++-14
// -fopenmp=libomp, LLVM's libomp); PILFER_OMP_IMPL names the runtime in the rows. 2 threads everywhere.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "row_check.hpp"
#include "workloads.hpp"

#ifndef PILFER_OMP_IMPL
#error "PILFER_OMP_IMPL must name the OpenMP runtime (omp_gomp or omp_llvm)"
#endif
#define PILFER_STR2(x) #x
#define PILFER_STR(x) PILFER_STR2(x)
#define PILFER_ROW(group) group "[" PILFER_STR(PILFER_OMP_IMPL) "]"

namespace {

namespace pb = pilfer::bench;
constexpr int threads = 2;

using pb::check;
benchmark::IterationCount iters(benchmark::IterationCount n) { return pb::smoke() ? 1 : n; }

// Counters are updated with `omp atomic`, as OpenMP users write it; they are read after the parallel region,
// whose closing barrier orders every task before the read.
std::uint64_t ran = 0;

std::uint64_t fib_spawn2(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
#pragma omp task shared(a)
  a = fib_spawn2(n - 1);
#pragma omp task shared(b)
  b = fib_spawn2(n - 2);
#pragma omp taskwait
  return a + b;
}

std::uint64_t fib_join(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
#pragma omp task shared(a)
  a = fib_join(n - 1);
  b = fib_join(n - 2);
#pragma omp taskwait
  return a + b;
}

template <std::uint64_t (*Fib)(unsigned)>
void fib_bm(benchmark::State& state) {
  const int t = static_cast<int>(state.range(0));
  const auto expected = pb::fib_serial(pb::size().fib_n);
  for (auto _ : state) {
    std::uint64_t r = 0;
#pragma omp parallel num_threads(t)
#pragma omp single
    r = Fib(pb::size().fib_n);
    check(state, r == expected, "wrong fib");
  }
}

// One thread of the team submits every task; the other executes (and, in libomp, the submitter runs tasks
// itself once its queue is full). The implicit barrier at the end of single waits for all of them.
void external_bm(benchmark::State& state) {
  const auto n = pb::size().external_tasks;
  for (auto _ : state) {
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (std::uint64_t i = 0; i < n; ++i) {
#pragma omp task
      {
#pragma omp atomic
        ran += 1;
      }
    }
    check(state, ran == n, "tasks lost");
    ran = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

std::uint64_t sink = 0;

void skewed_bm(benchmark::State& state) {
  for (auto _ : state) {
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (std::uint64_t i = 0; i < pb::size().skewed_tasks; ++i) {
#pragma omp task
      {
        const std::uint64_t v = pb::work(pb::skewed_steps(i), i);
#pragma omp atomic
        sink += v;
      }
    }
  }
  benchmark::DoNotOptimize(sink);
}

void pfor_bm(benchmark::State& state) {
  static std::vector<std::uint32_t> a(pb::size().pfor_items, 1u);
  const auto n = static_cast<std::int64_t>(pb::size().pfor_items);
  auto* d = a.data();
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) pb::pfor_body(d, static_cast<std::uint64_t>(i));
  }
  benchmark::DoNotOptimize(a[a.size() / 2]);
}

void qsort_bm(benchmark::State& state) {
  const auto input = pb::sort_input();
  std::vector<std::int32_t> v;
  for (auto _ : state) {
    state.PauseTiming();
    v = input;
    state.ResumeTiming();
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
      auto fork = [](auto&& l, auto&& r) {
#pragma omp task
        l();
        r();
#pragma omp taskwait
      };
      pb::quicksort(v.begin(), v.end(), fork);
    }
    state.PauseTiming();
    check(state, std::is_sorted(v.begin(), v.end()), "not sorted");
    state.ResumeTiming();
  }
}

}  // namespace

#define PILFER_OMP_BM(fn, group, n) \
  BENCHMARK(fn)->Name(PILFER_ROW(group))->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(iters(n))

PILFER_OMP_BM(fib_bm<fib_spawn2>, "pool.fib30_spawn2", 1)->Arg(2)->ArgName("t");
PILFER_OMP_BM(fib_bm<fib_spawn2>, "pool.fib30_spawn2", 1)->Arg(1)->ArgName("t");
PILFER_OMP_BM(fib_bm<fib_join>, "pool.fib30_join", 1)->Arg(2)->ArgName("t");
PILFER_OMP_BM(external_bm, "pool.external_1M", 1);
PILFER_OMP_BM(skewed_bm, "pool.skewed", 4);
PILFER_OMP_BM(pfor_bm, "pool.pfor_1e7", 10);
PILFER_OMP_BM(qsort_bm, "pool.qsort_1e7", 1);

BENCHMARK_MAIN();
