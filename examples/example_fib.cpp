// example_fib: nested fork-join on the work-stealing pool.
//
// Computes fib(n) three ways — pilfer::join (stack tasks, no allocation),
// task handles (submit + get, helping), task_group — on a pool with one
// worker per hardware thread and on a ONE-worker pool (waits help, so nested
// fork-join cannot deadlock). Prints results, times and the pool's counters;
// exits non-zero when any result is wrong.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "pilfer/pool.hpp"

namespace {

long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

long fib_join(pilfer::pool& p, int n) {
  if (n < 20) return fib_seq(n);  // sequential cut-off
  long a = 0, b = 0;
  pilfer::join(p, [&] { a = fib_join(p, n - 1); }, [&] { b = fib_join(p, n - 2); });
  return a + b;
}

long fib_handle(pilfer::pool& p, int n) {
  if (n < 20) return fib_seq(n);
  auto h = p.submit([&p, n] { return fib_handle(p, n - 1); });
  const long b = fib_handle(p, n - 2);
  return h.get() + b;
}

long fib_group(pilfer::pool& p, int n) {
  if (n < 20) return fib_seq(n);
  long a = 0, b = 0;
  pilfer::task_group g(p);
  g.run([&] { a = fib_group(p, n - 1); });
  b = fib_group(p, n - 2);
  g.wait();
  return a + b;
}

template <class F>
double timed_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  long expect = 0;
  const double seq_ms = timed_ms([&] { expect = fib_seq(n); });
  std::printf("fib(%d) = %ld sequentially in %.1f ms\n", n, expect, seq_ms);
  int failures = 0;
  for (unsigned threads : {0u, 1u}) {
    pilfer::pool p({.threads = threads, .name = "fib"});
    struct {
      const char* name;
      long (*fn)(pilfer::pool&, int);
    } ways[] = {{"join", &fib_join}, {"handles", &fib_handle}, {"task_group", &fib_group}};
    for (auto& w : ways) {
      long got = 0;
      const double ms = timed_ms([&] { got = w.fn(p, n); });
      const bool ok = got == expect;
      failures += !ok;
      std::printf("  %u worker(s), %-10s fib(%d) = %ld in %.1f ms %s\n", p.size(), w.name, n, got, ms,
                  ok ? "ok" : "WRONG");
    }
    p.wait_idle();
    const auto s = p.stats();
    std::printf("  stats: tasks_run %llu (join branches %llu), local pops %llu, injector pops %llu, steals %llu, "
                "failed steals %llu, parks %llu, wake-ups %llu\n",
                static_cast<unsigned long long>(s.total.tasks_run),
                static_cast<unsigned long long>(s.total.join_pushes),
                static_cast<unsigned long long>(s.total.local_pops),
                static_cast<unsigned long long>(s.total.injector_pops),
                static_cast<unsigned long long>(s.total.steals),
                static_cast<unsigned long long>(s.total.failed_steals),
                static_cast<unsigned long long>(s.total.parks), static_cast<unsigned long long>(s.total.wakeups));
    if (s.total.tasks_run != s.submitted + s.total.join_pushes) {
      std::printf("  WRONG: statistics inconsistent\n");
      ++failures;
    }
  }
  std::printf(failures ? "example_fib: FAILED\n" : "example_fib: all results correct\n");
  return failures ? 1 : 0;
}
