// bench/bench_pool.cpp — pilfer::pool against oneTBB (task_group / task_arena) and a single-queue mutex pool
// (bench/mutex_queue.hpp), all with 2 executing threads, in the same run:
//   pool.fib30            recursive fork-join fib(30), no cutoff (1.6M joins): spawn/steal/helping-wait cost;
//   pool.external_1M      1M tiny tasks submitted from a thread outside the pool: the injector + wake-up path;
//   pool.skewed           20k tasks spawned from inside one task, 1% of them 1000x heavier: load balancing.
// Names carry the implementation in brackets; bench_report prints median(pilfer) / median(peer).
#include <benchmark/benchmark.h>

#include <pilfer/pool.hpp>

#ifdef PILFER_BENCH_TBB
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#endif

#include <cstdint>

#include "mutex_queue.hpp"

namespace {

using pilfer::std_sync;
constexpr unsigned threads = 2;
constexpr unsigned fib_n = 30;
constexpr std::uint64_t fib_expected = 832040;
constexpr std::uint64_t external_tasks = 1'000'000;
constexpr std::uint64_t skewed_tasks = 20'000;

// The unit of work of the skewed load: a dependent LCG chain (not foldable by the optimiser).
std::uint64_t work(std::uint64_t steps, std::uint64_t x) {
  for (std::uint64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}
// 1% heavy, spread deterministically over the index range.
std::uint64_t steps_of(std::uint64_t i) { return (i * 0x9E3779B97F4A7C15ull >> 32) % 100 == 0 ? 64'000 : 64; }

/// Completion signal shared by all peers: the task that brings `left` to zero wakes the waiting thread.
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
/// One process-wide instance: the last arrive() may still be inside notify_all() when the waiter returns, so
/// the object must outlive every benchmark (and every pool's worker threads).
countdown& finished() {
  static countdown c;
  return c;
}

// ------------------------------------------------------------------------------------------------ pilfer
std::uint64_t fib_pilfer(pilfer::pool& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  pilfer::join(p, [&] { a = fib_pilfer(p, n - 1); }, [&] { b = fib_pilfer(p, n - 2); });
  return a + b;
}

void fib_pilfer_bm(benchmark::State& state) {
  pilfer::pool p(pilfer::pool_options{.threads = threads});
  for (auto _ : state) {
    const auto r = p.submit([&] { return fib_pilfer(p, fib_n); }).get();
    if (r != fib_expected) state.SkipWithError("wrong fib");
  }
}

void external_pilfer_bm(benchmark::State& state) {
  pilfer::pool p(pilfer::pool_options{.threads = threads});
  countdown& c = finished();
  for (auto _ : state) {
    c.reset(external_tasks);
    for (std::uint64_t i = 0; i < external_tasks; ++i) p.spawn([&c] { c.arrive(); });
    c.wait();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * external_tasks));
}

void skewed_pilfer_bm(benchmark::State& state) {
  pilfer::pool p(pilfer::pool_options{.threads = threads});
  std_sync::atomic<std::uint64_t> sink{0};
  for (auto _ : state) {
    p.submit([&] {
       pilfer::task_group g(p);
       for (std::uint64_t i = 0; i < skewed_tasks; ++i)
         g.run([&sink, i] { sink.fetch_add(work(steps_of(i), i) & 1, PILFER_SITE("bench.count", relaxed)); });
       g.wait();
     }).get();
  }
  benchmark::DoNotOptimize(sink.load(PILFER_SITE("bench.count", relaxed)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * skewed_tasks));
}

// ------------------------------------------------------------------------------------------------ mutex pool
std::uint64_t fib_mutex(pilfer::bench::mutex_pool& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  p.join([&] { a = fib_mutex(p, n - 1); }, [&] { b = fib_mutex(p, n - 2); });
  return a + b;
}

void fib_mutex_bm(benchmark::State& state) {
  pilfer::bench::mutex_pool p(threads);
  for (auto _ : state) {
    std::uint64_t r = 0;
    countdown& c = finished();
    c.reset(1);
    p.submit([&] {
      r = fib_mutex(p, fib_n);
      c.arrive();
    });
    c.wait();
    if (r != fib_expected) state.SkipWithError("wrong fib");
  }
}

void external_mutex_bm(benchmark::State& state) {
  pilfer::bench::mutex_pool p(threads);
  countdown& c = finished();
  for (auto _ : state) {
    c.reset(external_tasks);
    for (std::uint64_t i = 0; i < external_tasks; ++i) p.submit([&c] { c.arrive(); });
    c.wait();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * external_tasks));
}

void skewed_mutex_bm(benchmark::State& state) {
  pilfer::bench::mutex_pool p(threads);
  std_sync::atomic<std::uint64_t> sink{0};
  for (auto _ : state) {
    countdown& c = finished();
    c.reset(1);
    p.submit([&] {
      std_sync::atomic<std::uint64_t> remaining{skewed_tasks};
      for (std::uint64_t i = 0; i < skewed_tasks; ++i)
        p.submit([&sink, &remaining, i] {
          sink.fetch_add(work(steps_of(i), i) & 1, PILFER_SITE("bench.count", relaxed));
          remaining.fetch_sub(1, PILFER_SITE("bench.count", acq_rel));
        });
      p.help_until_zero(remaining);
      c.arrive();
    });
    c.wait();
  }
  benchmark::DoNotOptimize(sink.load(PILFER_SITE("bench.count", relaxed)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * skewed_tasks));
}

// ------------------------------------------------------------------------------------------------ oneTBB
#ifdef PILFER_BENCH_TBB
// TBB counts the calling thread in max_allowed_parallelism; allow 3 so that an arena of 2 can have 2 workers
// when the caller only enqueues. Every arena below has 2 executing threads.
tbb::global_control& tbb_limit() {
  static tbb::global_control g(tbb::global_control::max_allowed_parallelism, threads + 1);
  return g;
}

std::uint64_t fib_tbb(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1); });
  b = fib_tbb(n - 2);
  g.wait();
  return a + b;
}

void fib_tbb_bm(benchmark::State& state) {
  tbb_limit();
  tbb::task_arena arena(static_cast<int>(threads), 1);  // the caller + 1 worker
  for (auto _ : state) {
    std::uint64_t r = 0;
    arena.execute([&] { r = fib_tbb(fib_n); });
    if (r != fib_expected) state.SkipWithError("wrong fib");
  }
}

void external_tbb_bm(benchmark::State& state) {
  tbb_limit();
  tbb::task_arena arena(static_cast<int>(threads), 0);  // 2 workers; the caller only enqueues
  countdown& c = finished();
  for (auto _ : state) {
    c.reset(external_tasks);
    for (std::uint64_t i = 0; i < external_tasks; ++i) arena.enqueue([&c] { c.arrive(); });
    c.wait();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * external_tasks));
}

void skewed_tbb_bm(benchmark::State& state) {
  tbb_limit();
  tbb::task_arena arena(static_cast<int>(threads), 1);
  std_sync::atomic<std::uint64_t> sink{0};
  for (auto _ : state) {
    arena.execute([&] {
      tbb::task_group g;
      for (std::uint64_t i = 0; i < skewed_tasks; ++i)
        g.run([&sink, i] { sink.fetch_add(work(steps_of(i), i) & 1, PILFER_SITE("bench.count", relaxed)); });
      g.wait();
    });
  }
  benchmark::DoNotOptimize(sink.load(PILFER_SITE("bench.count", relaxed)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * skewed_tasks));
}
#endif

}  // namespace

BENCHMARK(fib_pilfer_bm)->Name("pool.fib30[pilfer]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(fib_mutex_bm)->Name("pool.fib30[mutex_pool]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(external_pilfer_bm)->Name("pool.external_1M[pilfer]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(external_mutex_bm)->Name("pool.external_1M[mutex_pool]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(skewed_pilfer_bm)->Name("pool.skewed[pilfer]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(skewed_mutex_bm)->Name("pool.skewed[mutex_pool]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(10);
#ifdef PILFER_BENCH_TBB
BENCHMARK(fib_tbb_bm)->Name("pool.fib30[tbb]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(external_tbb_bm)->Name("pool.external_1M[tbb]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(skewed_tbb_bm)->Name("pool.skewed[tbb]")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(10);
#endif

BENCHMARK_MAIN();
