// bench/bench_deque.cpp — pilfer's Chase–Lev deque against the mutex deque (seed 002's design), and pilfer's
// injector against moodycamel::ConcurrentQueue and a mutex-guarded std::deque, side by side in one run.
//
// Names carry the implementation in brackets ("deque.push_pop[pilfer]"); scripts/bench.sh compares rows that
// differ only there (crossbeam-deque's rows come from bench/rust/, same workloads). All timings are wall-clock
// (UseRealTime); every multi-threaded body checks its item count and reports an error instead of a time if
// anything went missing.
#include <benchmark/benchmark.h>

#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/mutex_deque.hpp>

#ifdef PILFER_BENCH_MOODYCAMEL
#include <concurrentqueue/concurrentqueue.h>
#endif

#include <cstdint>
#include <optional>
#include <string>

#include "bench_harness.hpp"
#include "mutex_queue.hpp"
#include "row_check.hpp"

namespace {

using pilfer::std_sync;
using item = std::uint64_t;
using chase_lev = pilfer::basic_deque<item, std_sync>;
using mutex_deque = pilfer::basic_mutex_deque<item, std_sync>;

constexpr std::size_t batch = 1024;

#ifdef PILFER_BENCH_MOODYCAMEL
/// moodycamel::ConcurrentQueue behind the deque interface the benchmarks use: it has no LIFO end, so the owner's
/// pop() takes the oldest item too; batch steals are try_dequeue_bulk. A peer for raw queue speed, not a
/// drop-in work-stealing deque.
class moodycamel_deque {
 public:
  explicit moodycamel_deque(std::size_t) {}
  void push(item v) { q_.enqueue(v); }
  std::optional<item> pop() {
    item v = 0;
    if (q_.try_dequeue(v)) return v;
    return std::nullopt;
  }
  class stealer {
   public:
    explicit stealer(moodycamel_deque* d) : d_(d) {}
    pilfer::steal_result<item> steal() const {
      item v = 0;
      return d_->q_.try_dequeue(v) ? pilfer::steal_result<item>::success(v) : pilfer::steal_result<item>::empty();
    }
    pilfer::steal_result<item> steal_batch_and_pop(moodycamel_deque& dest, std::size_t max) const {
      item buf[32];
      const std::size_t n = d_->q_.try_dequeue_bulk(buf, max < 32 ? max : 32);
      if (n == 0) return pilfer::steal_result<item>::empty();
      dest.q_.enqueue_bulk(buf + 1, n - 1);
      return pilfer::steal_result<item>::success(buf[0]);
    }

   private:
    moodycamel_deque* d_;
  };
  stealer get_stealer() { return stealer(this); }

 private:
  moodycamel::ConcurrentQueue<item> q_;
};
#endif

// ---------------------------------------------------------------------------------------------- owner side
// Owner pushes `batch` items then pops them all (LIFO): the work-first path of a worker.
template <class Deque>
void push_pop(benchmark::State& state) {
  Deque dq(64);
  for (auto _ : state) {
    for (item i = 0; i < batch; ++i) dq.push(i);
    item sum = 0;
    while (auto v = dq.pop()) sum += *v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch * 2));
}

// push(x); pop() → x, repeatedly on an empty deque: spawn-then-run-it-yourself.
template <class Deque>
void push_pop_one(benchmark::State& state) {
  Deque dq(64);
  for (auto _ : state) {
    for (item i = 0; i < batch; ++i) {
      dq.push(i);
      auto v = dq.pop();
      benchmark::DoNotOptimize(v);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch * 2));
}

// ---------------------------------------------------------------------------------------------- thief side
// One thread pushes `batch` items then takes them through the stealer: the cost of the steal path itself.
template <class Deque>
void steal_uncontended(benchmark::State& state) {
  Deque dq(64);
  auto s = dq.get_stealer();
  for (auto _ : state) {
    for (item i = 0; i < batch; ++i) dq.push(i);
    item sum = 0;
    for (;;) {
      auto r = s.steal();
      if (r.is_success()) sum += r.value;
      else if (r.is_empty()) break;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch * 2));
}

// The owner pushes 65536 items (popping one after every 4th push) while one thief steals from the other end
// (singly, or in batches of up to 32 into its own deque); an iteration ends when every item is taken. The owner
// starts only once the thief is running, so the time is contention, not the thief's wake-up.
template <class Deque, bool Batch>
void steal_contended(benchmark::State& state) {
  constexpr item n = 1 << 16;
  Deque dq(64);
  auto s = dq.get_stealer();
  pilfer::bench::team thief(1);
  std_sync::atomic<bool> owner_done{false};
  std_sync::atomic<bool> thief_ready{false};
  std_sync::atomic<std::uint64_t> stolen_total{0};
  std::uint64_t popped_total = 0, iterations = 0;
  for (auto _ : state) {
    owner_done.store(false, PILFER_SITE("bench.flag", relaxed));
    thief_ready.store(false, PILFER_SITE("bench.flag", relaxed));
    thief.start([&](unsigned) {
      Deque dest(64);
      std::uint64_t got = 0;
      thief_ready.store(true, PILFER_SITE("bench.flag", release));
      for (;;) {
        if constexpr (Batch) {
          auto r = s.steal_batch_and_pop(dest, 32);
          if (r.is_success()) {
            ++got;
            while (auto v = dest.pop()) ++got;
            continue;
          }
          if (r.is_retry()) continue;
        } else {
          auto r = s.steal();
          if (r.is_success()) {
            ++got;
            continue;
          }
          if (r.is_retry()) continue;
        }
        if (owner_done.load(PILFER_SITE("bench.flag", acquire))) break;
        std_sync::spin_hint();
      }
      stolen_total.fetch_add(got, PILFER_SITE("bench.count", relaxed));
    });
    while (!thief_ready.load(PILFER_SITE("bench.flag", acquire))) std_sync::yield();
    std::uint64_t popped = 0;
    for (item i = 0; i < n; ++i) {
      dq.push(i);
      if ((i & 3) == 3 && dq.pop()) ++popped;
    }
    while (dq.pop()) ++popped;
    owner_done.store(true, PILFER_SITE("bench.flag", release));
    thief.wait();
    popped_total += popped;
    ++iterations;
  }
  const auto stolen = stolen_total.load(PILFER_SITE("bench.count", relaxed));
  pilfer::bench::check(state, popped_total + stolen == iterations * n, "items lost or duplicated");
  state.counters["stolen%"] =
      iterations ? 100.0 * static_cast<double>(stolen) / static_cast<double>(iterations * n) : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(iterations * n));
}

// ---------------------------------------------------------------------------------------------- injector
struct pilfer_injector {
  pilfer::basic_injector<item, std_sync> q;
  void push(item v) { q.push(v); }
  // 1 = got one, 0 = empty, -1 = lost a race (try again)
  int take(item& out) {
    auto r = q.steal();
    if (r.is_success()) {
      out = r.value;
      return 1;
    }
    return r.is_retry() ? -1 : 0;
  }
};
struct locked_queue {
  pilfer::bench::mutex_queue<item> q;
  void push(item v) { q.push(v); }
  int take(item& out) {
    auto r = q.pop();
    if (!r) return 0;
    out = *r;
    return 1;
  }
};
#ifdef PILFER_BENCH_MOODYCAMEL
struct moodycamel_queue {
  moodycamel::ConcurrentQueue<item> q;
  void push(item v) { q.enqueue(v); }
  int take(item& out) { return q.try_dequeue(out) ? 1 : 0; }
};
#endif

// Single thread: push `batch` then take them all.
template <class Q>
void injector_push_take(benchmark::State& state) {
  Q q;
  for (auto _ : state) {
    for (item i = 0; i < batch; ++i) q.push(i);
    item v = 0, sum = 0;
    for (;;) {
      const int r = q.take(v);
      if (r == 1) sum += v;
      else if (r == 0) break;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch * 2));
}

// P producers push n/P items each while C consumers take until the producers are done and the queue is empty.
template <class Q>
void injector_mpmc(benchmark::State& state) {
  const auto producers = static_cast<unsigned>(state.range(0));
  const auto consumers = static_cast<unsigned>(state.range(1));
  constexpr item n = 1 << 16;
  Q q;
  pilfer::bench::team helpers(producers + consumers);
  std_sync::atomic<unsigned> producing{0};
  std_sync::atomic<std::uint64_t> taken{0};
  std::uint64_t expected = 0;
  for (auto _ : state) {
    producing.store(producers, PILFER_SITE("bench.flag", relaxed));
    helpers.run([&](unsigned i) {
      if (i < producers) {
        const item per = n / producers;
        for (item k = 0; k < per; ++k) q.push(k);
        producing.fetch_sub(1, PILFER_SITE("bench.flag", release));
        return;
      }
      std::uint64_t got = 0;
      item v = 0;
      for (;;) {
        const int r = q.take(v);
        if (r == 1) {
          ++got;
          continue;
        }
        if (r < 0) continue;
        // acquire: every push happened before the producers' decrement, so an empty take now means drained.
        if (producing.load(PILFER_SITE("bench.flag", acquire)) == 0) {
          const int last = q.take(v);
          if (last == 0) break;
          if (last == 1) ++got;  // -1: lost a race to another consumer; look again
          continue;
        }
        std_sync::spin_hint();
      }
      taken.fetch_add(got, PILFER_SITE("bench.count", relaxed));
    });
    expected += (n / producers) * producers;
  }
  pilfer::bench::check(state, taken.load(PILFER_SITE("bench.count", relaxed)) == expected, "items lost or duplicated");
  state.SetItemsProcessed(static_cast<std::int64_t>(expected));
}

}  // namespace

BENCHMARK_TEMPLATE(push_pop, chase_lev)->Name("deque.push_pop[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(push_pop, mutex_deque)->Name("deque.push_pop[mutex_deque]")->UseRealTime();
BENCHMARK_TEMPLATE(push_pop_one, chase_lev)->Name("deque.push_pop_one[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(push_pop_one, mutex_deque)->Name("deque.push_pop_one[mutex_deque]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_uncontended, chase_lev)->Name("deque.steal_uncontended[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_uncontended, mutex_deque)->Name("deque.steal_uncontended[mutex_deque]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, chase_lev, false)->Name("deque.steal_1thief[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, mutex_deque, false)->Name("deque.steal_1thief[mutex_deque]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, chase_lev, true)->Name("deque.steal_batch_1thief[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, mutex_deque, true)->Name("deque.steal_batch_1thief[mutex_deque]")->UseRealTime();

#ifdef PILFER_BENCH_MOODYCAMEL
BENCHMARK_TEMPLATE(push_pop, moodycamel_deque)->Name("deque.push_pop[moodycamel]")->UseRealTime();
BENCHMARK_TEMPLATE(push_pop_one, moodycamel_deque)->Name("deque.push_pop_one[moodycamel]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_uncontended, moodycamel_deque)->Name("deque.steal_uncontended[moodycamel]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, moodycamel_deque, false)->Name("deque.steal_1thief[moodycamel]")->UseRealTime();
BENCHMARK_TEMPLATE(steal_contended, moodycamel_deque, true)->Name("deque.steal_batch_1thief[moodycamel]")->UseRealTime();
#endif

BENCHMARK_TEMPLATE(injector_push_take, pilfer_injector)->Name("injector.push_take_1thread[pilfer]")->UseRealTime();
BENCHMARK_TEMPLATE(injector_push_take, locked_queue)->Name("injector.push_take_1thread[mutex_queue]")->UseRealTime();
#ifdef PILFER_BENCH_MOODYCAMEL
BENCHMARK_TEMPLATE(injector_push_take, moodycamel_queue)->Name("injector.push_take_1thread[moodycamel]")->UseRealTime();
#endif
#define PILFER_MPMC(Q, label)                                                                      \
  BENCHMARK_TEMPLATE(injector_mpmc, Q)->Name("injector.mpmc[" label "]")->ArgNames({"p", "c"}) \
      ->Args({1, 1})->Args({2, 2})->UseRealTime()
PILFER_MPMC(pilfer_injector, "pilfer");
PILFER_MPMC(locked_queue, "mutex_queue");
#ifdef PILFER_BENCH_MOODYCAMEL
PILFER_MPMC(moodycamel_queue, "moodycamel");
#endif

BENCHMARK_MAIN();
