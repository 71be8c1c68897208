// bench/bench_icount.cpp — instruction counts per deque/injector operation, and per join and per task
// group spawn on a 1-worker pool, under valgrind's callgrind (repeatable where wall time is not). Each operation runs `ops` times between CALLGRIND_ZERO_STATS and
// CALLGRIND_DUMP_STATS_AT("op[impl]"); scripts/bench.sh divides each dump's total Ir by `ops`.
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=DIR/cg.out bench_icount [OPS]
// Outside valgrind the client requests are no-ops, so the program also runs as a plain smoke test.
#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/mutex_deque.hpp>
#include <pilfer/pool.hpp>
#include <valgrind/callgrind.h>

#ifdef PILFER_BENCH_MOODYCAMEL
#include <concurrentqueue/concurrentqueue.h>
#endif

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace {

using pilfer::std_sync;
using item = std::uint64_t;
volatile item sink_value = 0;

/// Runs body() between zeroed counters and a labelled dump: the dump's Ir is the cost of body alone.
template <class F>
void measure(const char* label, F&& body) {
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  body();
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT(label);
}

template <class Deque>
void deque_ops(const char* impl, item ops) {
  char label[96];
  Deque dq(64);
  auto st = dq.get_stealer();
  Deque dest(64);
  // Warm: grow the buffers to their final size so no measured push reallocates.
  for (item i = 0; i < ops; ++i) dq.push(i);
  while (dq.pop()) {}
  std::snprintf(label, sizeof label, "push[%s]", impl);
  measure(label, [&] { for (item i = 0; i < ops; ++i) dq.push(i); });
  std::snprintf(label, sizeof label, "pop[%s]", impl);
  measure(label, [&] {
    for (item i = 0; i < ops; ++i)
      if (const auto v = dq.pop()) sink_value = *v;
  });
  for (item i = 0; i < ops; ++i) dq.push(i);
  std::snprintf(label, sizeof label, "steal[%s]", impl);
  measure(label, [&] { for (item i = 0; i < ops; ++i) sink_value = st.steal().value; });
  for (item i = 0; i < ops; ++i) dq.push(i);
  for (item i = 0; i < ops; ++i) dest.push(i);
  while (dest.pop()) {}
  std::snprintf(label, sizeof label, "steal_batch_per_item[%s]", impl);
  measure(label, [&] {
    for (;;) {
      auto r = st.steal_batch_and_pop(dest, 32);
      if (!r.is_success()) break;
      sink_value = r.value;
      while (auto v = dest.pop()) sink_value = *v;
    }
  });
}

void injector_ops(item ops) {
  pilfer::basic_injector<item, std_sync> q;
  for (item i = 0; i < ops; ++i) q.push(i);
  while (q.steal().is_success()) {}
  measure("injector_push[pilfer]", [&] { for (item i = 0; i < ops; ++i) q.push(i); });
  measure("injector_take[pilfer]", [&] { for (item i = 0; i < ops; ++i) sink_value = q.steal().value; });
#ifdef PILFER_BENCH_MOODYCAMEL
  moodycamel::ConcurrentQueue<item> m;
  for (item i = 0; i < ops; ++i) m.enqueue(i);
  item v = 0;
  while (m.try_dequeue(v)) {}
  measure("injector_push[moodycamel]", [&] { for (item i = 0; i < ops; ++i) m.enqueue(i); });
  measure("injector_take[moodycamel]", [&] {
    for (item i = 0; i < ops; ++i) {
      if (m.try_dequeue(v)) sink_value = v;
    }
  });
#endif
}

/// join[pilfer]: `ops` joins of two empty branches; group_spawn[pilfer]: ops/2 task groups of two empty
/// tasks each, run and waited (`ops` spawns). One worker: every branch is popped back, every group task
/// taken by its wait, so the rows are the whole per-join / per-spawn path without steals. The dump also
/// holds one submit and get() (a few thousand instructions; a few per operation at the default 1000).
void pool_ops(item ops) {
  pilfer::pool p(pilfer::pool_options{.threads = 1});
  auto joins = [&] {
    for (item i = 0; i < ops; ++i) pilfer::join(p, [] { sink_value = 1; }, [] { sink_value = 2; });
  };
  auto groups = [&] {
    for (item i = 0; i < ops / 2; ++i) {
      pilfer::task_group g(p);
      g.run([] { sink_value = 1; });
      g.run([] { sink_value = 2; });
      g.wait();
    }
  };
  p.submit(joins).get();  // warm: deque, task block cache
  p.submit(groups).get();
  measure("join[pilfer]", [&] { p.submit(joins).get(); });
  measure("group_spawn[pilfer]", [&] { p.submit(groups).get(); });
}

}  // namespace

int main(int argc, char** argv) {
  item ops = 1000;
  if (argc > 2 || (argc == 2 && (std::from_chars(argv[1], argv[1] + std::string_view(argv[1]).size(), ops).ec != std::errc{} || ops == 0))) {
    std::fprintf(stderr, "usage: bench_icount [OPS]   (OPS a positive integer, default 1000)\n");
    return 2;
  }
  deque_ops<pilfer::basic_deque<item, std_sync>>("pilfer", ops);
  deque_ops<pilfer::basic_mutex_deque<item, std_sync>>("mutex_deque", ops);
  injector_ops(ops);
  pool_ops(ops);
  std::printf("bench_icount: %llu operations per measurement\n", static_cast<unsigned long long>(ops));
  return 0;
}
