// pilfer/conformance/pool_tests.hpp — black-box requirement tests for thread pools (POOL-*).
//
// Every wait is bounded. A pool that never finishes a case (a lost wake-up, a worker
// blocked in a nested wait) fails the case and is deliberately leaked (kept reachable
// in a graveyard) — it cannot be joined, and leaking keeps the rest of the run alive.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

namespace detail {

inline std::vector<std::shared_ptr<void>>& pool_graveyard() {
  static std::vector<std::shared_ptr<void>> g;
  return g;
}

/// Owns a heap pool; `abandon()` leaks it (for pools stuck in a failed case).
template <class P>
class pool_box {
 public:
  explicit pool_box(unsigned n) : p_(new P(n)) {}
  ~pool_box() {
    if (!abandoned_) delete p_;
  }
  pool_box(const pool_box&) = delete;
  pool_box& operator=(const pool_box&) = delete;
  P& operator*() { return *p_; }
  P* operator->() { return p_; }
  void abandon() {
    // p_ itself is left untouched: tasks of the stuck pool may still read it through this box.
    // Only the owning thread reads abandoned_ (in the destructor).
    pool_graveyard().push_back(std::shared_ptr<void>(static_cast<void*>(p_), [](void*) {}));
    abandoned_ = true;
  }

 private:
  P* p_;
  bool abandoned_ = false;
};

/// A fixed log of small integers that tasks on any thread append to.
class order_log {
 public:
  explicit order_log(std::size_t cap) : slots_(new atomic<int>[cap]), cap_(cap) {}
  void add(int v) {
    const auto i = n_.fetch_add(1, PILFER_SITE("conformance.log", acq_rel));
    if (i < cap_) slots_[i].store(v, PILFER_SITE("conformance.log", release));
  }
  std::size_t size() const { return std::min(n_.load(PILFER_SITE("conformance.log", acquire)), cap_); }
  std::vector<int> snapshot() const {
    std::vector<int> v;
    for (std::size_t i = 0; i < size(); ++i) v.push_back(slots_[i].load(PILFER_SITE("conformance.log", acquire)));
    return v;
  }

 private:
  std::unique_ptr<atomic<int>[]> slots_;
  std::size_t cap_;
  atomic<std::size_t> n_{0};
};

inline std::string show(const std::vector<int>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
  os << "]";
  return os.str();
}

inline double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// Measurement window (not synchronisation): the calling thread sleeps.
inline void quiet_for(std::chrono::milliseconds d) {
  timespec ts{static_cast<time_t>(d.count() / 1000), static_cast<long>((d.count() % 1000) * 1000000)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

constexpr auto case_limit = std::chrono::milliseconds(5000);

}  // namespace detail

template <pool_adapter P>
verdict pool_fairness_join(const run_config& cfg);  // pool_wait_tests.hpp

/// POOL-1: on one worker, tasks spawned by a task run newest first.
template <pool_adapter P>
verdict pool_lifo_local(const run_config& cfg) {
  if (!P::has_local_spawn) return verdict::na("no spawn from inside a task");
  const int k = 8;
  for (int round = 0; round < cfg.scaled(20); ++round) {
    detail::pool_box<P> pool(1);
    detail::order_log log(64);
    atomic<int> done{0};
    (*pool).submit([&] {
      for (int i = 1; i <= k; ++i)
        (*pool).spawn([&, i] {
          log.add(i);
          done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
        });
    });
    if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == k; }, detail::case_limit)) {
      pool.abandon();
      return verdict::fail(cfg.seed, "spawned tasks did not all run within 5 s; ran " + detail::show(log.snapshot()));
    }
    const auto got = log.snapshot();
    std::vector<int> want;
    for (int i = k; i >= 1; --i) want.push_back(i);
    if (got != want)
      return verdict::fail(cfg.seed, "1 worker, a task spawns 1..8: they ran " + detail::show(got) + ", LIFO is " +
                                         detail::show(want));
  }
  return verdict::pass("20 rounds, 1 worker");
}

/// POOL-2: with two workers, the idle one steals the oldest spawned task first.
template <pool_adapter P>
verdict pool_fifo_steal(const run_config& cfg) {
  if (!P::has_local_spawn) return verdict::na("no spawn from inside a task");
  const int k = 16;
  for (int round = 0; round < cfg.scaled(20); ++round) {
    detail::pool_box<P> pool(2);
    detail::order_log stolen(64);
    atomic<int> done{0};
    atomic<bool> root_done{false};
    (*pool).submit([&] {
      const auto me = sync::thread_id();
      for (int i = 1; i <= k; ++i)
        (*pool).spawn([&, i, me] {
          if (sync::thread_id() != me) stolen.add(i);
          done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
        });
      // Keep this worker busy until the other one has stolen something (bounded).
      wait_until([&] { return stolen.size() > 0; }, std::chrono::milliseconds(2000));
      root_done.store(true, PILFER_SITE("conformance.done", release));
    });
    if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == k &&
                                 root_done.load(PILFER_SITE("conformance.done", acquire)); },
                    detail::case_limit)) {
      pool.abandon();
      return verdict::fail(cfg.seed, "spawned tasks did not all run within 5 s");
    }
    const auto got = stolen.snapshot();
    if (got.empty()) return verdict::fail(cfg.seed, "2 workers: the idle worker stole nothing in 2 s");
    if (got.front() != 1)
      return verdict::fail(cfg.seed, "2 workers, a task spawns 1..16 and stays busy: the other worker ran " +
                                         detail::show(got) + " — its first steal was not the oldest task (1)");
  }
  return verdict::pass("20 rounds, 2 workers");
}

/// POOL-3: injector before idle. One worker runs task A (held behind a gate); meanwhile task B is submitted
/// from outside, so it waits in the injector while the worker's own deque is empty. When A ends, the worker
/// MUST take B without parking: the park count B reads when it starts equals the count A read when it
/// started (nothing can park in between except a worker that went to sleep beside a queued task). Even rounds
/// submit A to a worker that has already parked once, odd rounds to a fresh one.
template <pool_adapter P>
verdict pool_injector_before_idle(const run_config& cfg) {
  if constexpr (!pool_with_park_count<P>) {
    return verdict::na("the adapter reports no park count");
  } else {
    struct state {
      atomic<int> a_started{0}, open{0}, b_done{0};
      atomic<std::uint64_t> parks_a{0}, parks_b{0};
    };
    const int rounds = cfg.scaled(20);
    for (int round = 0; round < rounds; ++round) {
      detail::pool_box<P> pool(1);
      P* p = &*pool;
      auto st = std::make_shared<state>();
      // Even rounds start from a parked worker (A then wakes it), odd rounds from a fresh, searching one.
      if (round % 2 == 0)
        wait_until([&] { return (*pool).parks() > 0; }, std::chrono::milliseconds(500));
      (*pool).submit([st, p] {
        st->parks_a.store(p->parks(), PILFER_SITE("conformance.flag", relaxed));
        st->a_started.store(1, PILFER_SITE("conformance.flag", release));
        wait_until([&] { return st->open.load(PILFER_SITE("conformance.flag", acquire)) != 0; }, detail::case_limit);
      });
      if (!wait_until([&] { return st->a_started.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
                      detail::case_limit)) {
        const std::uint64_t now = (*pool).parks();
        pool.abandon();
        return verdict::fail(cfg.seed, "1 worker, round " + std::to_string(round) +
                                           ": task A, submitted to the idle pool, did not start within 5 s (parks so "
                                           "far: " + std::to_string(now) + ") — the worker sleeps beside it in the injector");
      }
      (*pool).submit([st, p] {
        st->parks_b.store(p->parks(), PILFER_SITE("conformance.flag", relaxed));
        st->b_done.store(1, PILFER_SITE("conformance.flag", release));
      });
      st->open.store(1, PILFER_SITE("conformance.flag", release));
      const std::uint64_t a = st->parks_a.load(PILFER_SITE("conformance.flag", relaxed));
      if (!wait_until([&] { return st->b_done.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
                      detail::case_limit)) {
        const std::uint64_t now = (*pool).parks();
        pool.abandon();
        return verdict::fail(cfg.seed, "1 worker, round " + std::to_string(round) +
                                           ": task B, queued in the injector while the worker ran A, did not run within "
                                           "5 s after A ended; parks: " + std::to_string(a) + " when A started, " +
                                           std::to_string(now) + " now — the worker went to sleep beside it");
      }
      const std::uint64_t b = st->parks_b.load(PILFER_SITE("conformance.flag", relaxed));
      if (b != a)
        return verdict::fail(cfg.seed, "1 worker, round " + std::to_string(round) + ": the worker parked " +
                                           std::to_string(b - a) +
                                           " time(s) between finishing A and taking B from the injector");
    }
    return verdict::pass(std::to_string(rounds) + " rounds, 1 worker: the injector task ran next, without a park");
  }
}

/// POOL-4: an idle pool uses (almost) no CPU: after a short settle, under 10% of one core over a quiet second.
template <pool_adapter P>
verdict pool_deep_idle(const run_config& cfg) {
  detail::pool_box<P> pool(2);
  atomic<int> done{0};
  for (int i = 0; i < 200; ++i) (*pool).submit([&] { done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel)); });
  if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == 200; }, detail::case_limit)) {
    pool.abandon();
    return verdict::fail(cfg.seed, "warm-up tasks did not finish");
  }
  detail::quiet_for(std::chrono::milliseconds(200));
  const double before = detail::process_cpu_seconds();
  const auto window = std::chrono::milliseconds(cfg.thorough ? 3000 : 1000);
  detail::quiet_for(window);
  const double used = detail::process_cpu_seconds() - before;
  const double limit = 0.10 * static_cast<double>(window.count()) / 1000.0;
  std::ostringstream os;
  os << "2 idle workers used " << used * 1000 << " ms CPU over a quiet " << window.count() << " ms (limit "
     << limit * 1000 << " ms)";
  if (used > limit) return verdict::fail(cfg.seed, os.str());
  return verdict::pass(os.str());
}

/// POOL-5: a task's spawns go to its worker's own deque: they run before an older outside submission.
template <pool_adapter P>
verdict pool_local_submission(const run_config& cfg) {
  if (!P::has_local_spawn) return verdict::na("no spawn from inside a task");
  const int k = 4;
  for (int round = 0; round < cfg.scaled(20); ++round) {
    detail::pool_box<P> pool(1);
    detail::order_log log(64);
    atomic<int> done{0}, phase{0};
    auto count = [&] { done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel)); };
    (*pool).submit([&] {
      phase.store(1, PILFER_SITE("conformance.phase", release));  // ask outside to submit E
      wait_until([&] { return phase.load(PILFER_SITE("conformance.phase", acquire)) == 2; },
                 std::chrono::milliseconds(2000));
      for (int i = 1; i <= k; ++i)
        (*pool).spawn([&, i] {
          log.add(i);
          count();
        });
    });
    wait_until([&] { return phase.load(PILFER_SITE("conformance.phase", acquire)) == 1; }, detail::case_limit);
    (*pool).submit([&] {
      log.add(0);
      count();
    });
    phase.store(2, PILFER_SITE("conformance.phase", release));
    if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == k + 1; }, detail::case_limit)) {
      pool.abandon();
      return verdict::fail(cfg.seed, "tasks did not all run within 5 s");
    }
    const auto got = log.snapshot();
    if (got.front() == 0)
      return verdict::fail(cfg.seed, "1 worker: outside task E (0) was submitted, then a running task spawned 1..4; "
                                     "order was " + detail::show(got) +
                                         " — spawned tasks did not go to the worker's own deque");
  }
  return verdict::pass("20 rounds, 1 worker");
}

/// POOL-7: no lost wake-up. Submit after a random idle time (log-uniform 1 us..2 ms, so it lands
/// in every phase of spinning, back-off and parking); each task must run within 2 s. Rounds run
/// for a time budget (4 s on 1 worker, 1 s on 2; x10 with --thorough).
template <pool_adapter P>
verdict pool_no_lost_wakeup(const run_config& cfg) {
  rng g{cfg.seed};
  long total = 0;
  for (unsigned n : {1u, 2u}) {
    // Time-budgeted: as many rounds as fit (more under light load), at least 500.
    const deadline budget(std::chrono::milliseconds(cfg.scaled(n == 1 ? 4000 : 1000)));
    detail::pool_box<P> pool(n);
    atomic<int> done{0};
    for (int round = 0; round < 500 || !budget.passed(); ++round, ++total) {
      const double u = static_cast<double>(g.below(1u << 20)) / double(1u << 20);
      busy_for(std::chrono::nanoseconds(static_cast<long long>(1000.0 * std::pow(2000.0, u))));
      (*pool).submit([&] { done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel)); });
      if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == round + 1; },
                      std::chrono::milliseconds(2000))) {
        std::ostringstream os;
        os << n << " worker(s): task submitted to an idle pool (round " << round << ") did not run within 2 s";
        return verdict::fail(cfg.seed, os.str());
      }
    }
  }
  return verdict::pass(std::to_string(total) + " idle submissions on 1 and 2 workers, each ran within 2 s");
}

/// POOL-8: fairness — an outside submission runs while a task keeps re-spawning itself locally, and
/// while a worker is deep in fork_join recursion (pool_fairness_join).
template <pool_adapter P>
verdict pool_fairness_spawn(const run_config& cfg) {
  if (!P::has_local_spawn) return verdict::na("no spawn from inside a task");
  detail::pool_box<P> pool(1);
  atomic<bool> outside_ran{false}, chain_started{false}, starved{false};
  atomic<int> chain_done{0};
  struct chain {
    P* p;
    atomic<bool>* outside;
    atomic<bool>* started;
    atomic<bool>* starved;
    atomic<int>* finished;
    std::chrono::steady_clock::time_point end;
    void operator()() const {
      started->store(true, PILFER_SITE("conformance.flag", release));
      if (outside->load(PILFER_SITE("conformance.flag", acquire))) {
        finished->store(1, PILFER_SITE("conformance.flag", release));
        return;
      }
      if (std::chrono::steady_clock::now() > end) {
        starved->store(true, PILFER_SITE("conformance.flag", relaxed));
        finished->store(1, PILFER_SITE("conformance.flag", release));
        return;
      }
      p->spawn(*this);
    }
  };
  (*pool).submit(chain{&*pool, &outside_ran, &chain_started, &starved, &chain_done,
                       std::chrono::steady_clock::now() + std::chrono::milliseconds(2000)});
  wait_until([&] { return chain_started.load(PILFER_SITE("conformance.flag", acquire)); }, detail::case_limit);
  (*pool).submit([&] { outside_ran.store(true, PILFER_SITE("conformance.flag", release)); });
  if (!wait_until([&] { return chain_done.load(PILFER_SITE("conformance.flag", acquire)) == 1 &&
                               outside_ran.load(PILFER_SITE("conformance.flag", acquire)); },
                  detail::case_limit)) {
    pool.abandon();
    return verdict::fail(cfg.seed, "1 worker running a self-spawning task chain: an outside submission never ran");
  }
  if (starved.load(PILFER_SITE("conformance.flag", relaxed)))
    return verdict::fail(cfg.seed, "1 worker running a self-spawning task chain: an outside submission waited until "
                                   "the chain gave up (2 s) — the injector is starved by local work");
  return verdict::pass("outside task ran while a local chain kept spawning");
}

// @verifies POOL-8
template <pool_adapter P>
verdict pool_fairness(const run_config& cfg) {
  // Both parts always run, so the report shows each (a peer may fail one and pass the other).
  verdict a = pool_fairness_spawn<P>(cfg);
  verdict b = pool_fairness_join<P>(cfg);
  if (a.kind == verdict_kind::na) return a;
  const std::string both = "self-spawning chain: " + a.detail + "; fork_join: " + b.detail;
  if (a.failed() || b.failed()) return verdict::fail(cfg.seed, both);
  return verdict::pass(both);
}

/// POOL-9: exactly-once execution under spawn storms (2 outside submitters, trees of spawns, 3 workers).
template <pool_adapter P>
verdict pool_exactly_once(const run_config& cfg) {
  const int roots = cfg.scaled(60), fan = 4, depth = 3;  // 85 tasks per root
  const int per_root = 1 + 4 + 16 + 64;
  detail::pool_box<P> pool(3);
  std::unique_ptr<atomic<int>[]> hits(new atomic<int>[static_cast<std::size_t>(roots * per_root)]);
  atomic<int> ran{0};
  // Heap numbering per root: node ids 0..84 relative, offset by root * per_root.
  std::function<void(int, int, int)> rnode = [&](int root, int rel, int level) {
    hits[static_cast<std::size_t>(root * per_root + rel)].fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
    if (level < depth)
      for (int c = 1; c <= fan; ++c) {
        const int child = rel * fan + c;
        auto body = [&rnode, root, child, level] { rnode(root, child, level + 1); };
        if (P::has_local_spawn) (*pool).spawn(body); else (*pool).submit(body);
      }
    ran.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
  };
  run_threads({[&] { for (int r = 0; r < roots; r += 2) (*pool).submit([&rnode, r] { rnode(r, 0, 0); }); },
               [&] { for (int r = 1; r < roots; r += 2) (*pool).submit([&rnode, r] { rnode(r, 0, 0); }); }});
  const int total = roots * per_root;
  if (!wait_until([&] { return ran.load(PILFER_SITE("conformance.done", acquire)) >= total; }, detail::case_limit)) {
    pool.abandon();
    return verdict::fail(cfg.seed, "only " + std::to_string(ran.load(PILFER_SITE("conformance.done", acquire))) +
                                       " of " + std::to_string(total) + " tasks ran within 5 s");
  }
  (*pool).wait_idle();
  for (int i = 0; i < total; ++i) {
    const int h = hits[static_cast<std::size_t>(i)].load(PILFER_SITE("conformance.hits", relaxed));
    if (h != 1)
      return verdict::fail(cfg.seed, "task " + std::to_string(i) + " ran " + std::to_string(h) + " times (" +
                                         std::to_string(roots) + " roots x 85-task spawn trees, 3 workers)");
  }
  return verdict::pass(std::to_string(total) + " tasks each ran once");
}

/// POOL-10: an exception thrown by a task reaches whoever waits for it.
template <pool_adapter P>
verdict pool_exceptions(const run_config& cfg) {
  if (!P::has_handles) return verdict::na("no result handles");
  detail::pool_box<P> pool(2);
  auto waiter = (*pool).submit_waitable([] { throw std::runtime_error("pilfer-conformance-boom"); });
  try {
    waiter();
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()) != "pilfer-conformance-boom")
      return verdict::fail(cfg.seed, std::string("waiter rethrew a different message: ") + e.what());
    return verdict::pass("runtime_error rethrown to the waiter");
  } catch (...) {
    return verdict::fail(cfg.seed, "waiter threw an exception of another type");
  }
  return verdict::fail(cfg.seed, "the task threw, the waiter returned normally");
}

/// POOL-11: waits inside tasks help: nested fork-join (fib(12)) completes on ONE worker.
template <pool_adapter P>
verdict pool_helping_waits(const run_config& cfg) {
  if (!P::has_fork_join) return verdict::na("no fork-join inside tasks");
  detail::pool_box<P> pool(1);
  atomic<int> result{0}, done{0};
  std::function<int(int)> fib = [&](int n) -> int {
    if (n < 2) return n;
    int a = 0, b = 0;
    (*pool).fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
    return a + b;
  };
  (*pool).submit([&] {
    result.store(fib(12), PILFER_SITE("conformance.done", relaxed));
    done.store(1, PILFER_SITE("conformance.done", release));
  });
  if (!wait_until([&] { return done.load(PILFER_SITE("conformance.done", acquire)) == 1; }, detail::case_limit)) {
    pool.abandon();
    return verdict::fail(cfg.seed, "nested fork-join fib(12) on 1 worker did not finish within 5 s (a wait blocked "
                                   "the only worker)");
  }
  if (result.load(PILFER_SITE("conformance.done", relaxed)) != 144)
    return verdict::fail(cfg.seed, "fib(12) computed " + std::to_string(result.load(PILFER_SITE("conformance.done", relaxed))));
  return verdict::pass("fib(12) fork-join on 1 worker");
}

/// POOL-12: shutdown drains what was submitted; submitting afterwards is a clear error (an exception).
template <pool_adapter P>
verdict pool_shutdown(const run_config& cfg) {
  if (!P::has_shutdown) return verdict::na("no shutdown operation");
  detail::pool_box<P> pool(2);
  atomic<int> ran{0};
  for (int i = 0; i < 300; ++i) (*pool).submit([&] { ran.fetch_add(1, PILFER_SITE("conformance.done", acq_rel)); });
  (*pool).shutdown();
  const int r = ran.load(PILFER_SITE("conformance.done", acquire));
  if (r != 300) return verdict::fail(cfg.seed, "shutdown (drain) returned after " + std::to_string(r) + " of 300 tasks");
  try {
    (*pool).submit([] {});
  } catch (const std::exception&) {
    return verdict::pass("drained 300 tasks; submit after shutdown threw");
  }
  return verdict::fail(cfg.seed, "submit after shutdown neither threw nor reported an error");
}

}  // namespace pilfer::conformance

#include "pilfer/conformance/pool_wait_tests.hpp"
#include "pilfer/conformance/pool_feature_tests.hpp"
