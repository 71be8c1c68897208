// stress/stress_pool_waits.cpp — work conservation and waits inside the pool, at scale, under TSan.
//
// The shapes of the conformance tests POOL-18 … POOL-21 (and POOL-8 under join), larger and longer:
//   barrier          k tasks that can only finish together (a k-party spin barrier) on a k-worker pool,
//                    submitted from outside or spawned by a task, after random gaps (and right after a
//                    one-task probe, so one worker searches while the others park): every round completes
//                    (POOL-18). With --oversubscribe / --workers N, k = N workers on fewer cores.
//   blocked_barrier  the same barrier with 1 .. k-1 workers blocked in waits for its first party: the waits' spares
//                    must be activated for the other parties, queued before or after the waits block (POOL-20).
//   wait_graph       random acyclic wait-for graphs of 10-60 tasks on 1-4 workers through task handles
//                    (wait() from several dependants), task groups, join and nested submit+get; some tasks sleep
//                    so a waited-for task is often running elsewhere: every task runs once, values exact (POOL-19).
//   many_waiters     one long task L and N tasks waiting for L's handle: all finish, no waiter ever nests on top
//                    of another on one thread, spare workers stay within max_spare_workers (POOL-20).
//   join_fairness    1 worker computing fib by join; an outside task X must start before the recursion ends (POOL-8).
//   dropped_handles  throwing tasks whose handles are dropped before they run, after they finish, or collected
//                    with get(); fire-and-forget throwers: on_uncaught counts exactly the lost ones (POOL-21, POOL-10).
//   heap_group       a task group on the heap, made by a task A that never waits for it: a wait for A must not run
//                    the group's work on its frame (POOL-19: an acyclic wait-for graph through it deadlocked).
//   reused_group     one task_group reused for many rounds on 1-4 workers: a driver runs rounds (some tasks throw) while
//                    outside threads and pool tasks wait at random moments: each wait returns only after the tasks
//                    counted when it began, rethrows if one of those threw, and never sleeps through a later round (POOL-11).
// Every pool is a basic_pool<chaos_sync>: --chaos N injects seeded yields/sleeps at about one in N atomic
// operations. A watchdog fails the run, printing every worker's state (pool.snapshot()), when no task
// completes for --watchdog seconds (default 30).
// --mutant old_sleep|old_helping|silent_requeue builds the same scenarios on pilfer's pool compiled with its old sleep
// protocol, its old helping waits, or without announcing a batch steal's rest (the pool's pool_mutation hook): they must fail there (a watchdog dump, a deadlock, a
// depth check) — the evidence that these stress scenarios can fail. --mutant wait_on_live_count|forget_before_count
// compiles task_group with a wait that ends on the live count (it sleeps through a later round: reused_group's
// handoff hangs, a watchdog dump) or a run() that forgets the kept exception before counting (check W3 fails).
// --mutant no_spare_on_demand: a blocked wait's spare only for work queued when it blocks (blocked_barrier hangs).
// --mutant unscoped_creator: a group's tasks are linked to the task that made it wherever the group lives (heap_group
// deadlocks: a watchdog dump).
// Usage: stress_pool_waits [--scenario NAME] [--mutant none|MUTANT] [common options: stress_common.hpp]
#include <pilfer/pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "stress_common.hpp"

namespace {

using pilfer::std_sync;
using namespace pilfer::stress;
pilfer::pool_options pool_opts(unsigned workers) {
  pilfer::pool_options o;
  o.threads = workers;
  return o;
}

void spin_until(const std_sync::atomic<unsigned>& v, unsigned target) {
  for (unsigned n = 0; v.load(PILFER_SITE("stress.barrier", acquire)) < target; ++n) {
    if (n < 64) std_sync::spin_hint(); else std_sync::yield();
  }
}

void gap(rng& r) {  // 0 … ~2^17 spins: lands in every phase of the idle path
  const auto spins = r.below(std::uint64_t{1} << r.below(18));
  for (std::uint64_t i = 0; i < spins; ++i) std_sync::spin_hint();
}

/// A k-party spin barrier: party() returns once k parties arrived. A party that never comes (queued beside
/// idle or blocked workers) leaves the others spinning: the watchdog reports it.
struct spin_barrier {
  explicit spin_barrier(unsigned parties) : k(parties) {}
  void party() {
    arrived.fetch_add(1, PILFER_SITE("stress.barrier", acq_rel));
    spin_until(arrived, k);
    finished.fetch_add(1, PILFER_SITE("stress.barrier", acq_rel));
    progress();
  }
  void wait_all_finished() const { spin_until(finished, k); }
  unsigned k;
  std_sync::atomic<unsigned> arrived{0}, finished{0};
};

/// The scenarios on basic_pool<S>: S = chaos_sync normally; --mutant compiles pilfer's own pool with an old,
/// known-wrong behaviour (pool-core's pool_mutation hook) to show these scenarios catch it.
template <class S>
struct scenarios {
  using pool_type = pilfer::basic_pool<S>;
  template <class R>
  using handle_type = pilfer::basic_task_handle<R, S>;
  using group_type = pilfer::basic_task_group<S>;

  // ------------------------------------------------------------------------------------------- barrier
  // @verifies POOL-18
  static void barrier(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 11);
    std::uint64_t rounds = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      const unsigned k = o.workers ? o.workers : 2 + static_cast<unsigned>(r.below(3));
      pool_type p(pool_opts(k));
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      for (int round = 0; round < 50 && !fail.any(); ++round, ++rounds) {
        spin_barrier b(k);  // hangs (the watchdog reports it) if a worker stays idle beside a queued party
        auto party = [&b] { b.party(); };
        gap(r);
        if (round % 2 == 1) {
          std_sync::atomic<unsigned> probe{0};
          p.spawn([&] { probe.store(1, PILFER_SITE("stress.barrier", release)); });
          spin_until(probe, 1);
          gap(r);
        }
        if (r.below(2) == 0) {
          p.spawn([&] {
            for (unsigned i = 1; i < k; ++i) p.spawn(party);
            party();
          });
        } else {
          for (unsigned i = 0; i < k; ++i) p.spawn(party);
        }
        b.wait_all_finished();
      }
      p.wait_idle();
    }
    std::printf("barrier: rounds=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds), d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- blocked_barrier
  // k workers: L, party 1 of a k-party barrier, runs; w (1 .. k-1) tasks wait for L's handle and block (L runs
  // elsewhere, nothing of it is queued); the other k-1 parties come from outside after a random gap, or are
  // spawned by L as it starts (then they are queued while the waits block). The k parties need k threads at
  // once, so every blocked wait's owed spare must be activated: by the wait when it sees the parties, else by
  // the push of a party that finds nobody parked (pool.hpp, invariant C). A hang is a watchdog report.
  // @verifies POOL-20 POOL-18
  static void blocked_barrier(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 17);
    std::uint64_t rounds = 0, blocked_waits = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      const unsigned k = o.workers ? o.workers : 2 + static_cast<unsigned>(r.below(3));
      pool_type p(pool_opts(k));
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      for (int round = 0; round < 20 && !fail.any(); ++round, ++rounds) {
        spin_barrier b(k);  // hangs (the watchdog reports it) if a party stays queued for want of a thread
        auto party = [&b] { b.party(); };
        std_sync::atomic<unsigned> l_started{0};
        const bool from_l = r.below(2) == 0;
        auto l = p.submit([&] {
          l_started.store(1, PILFER_SITE("stress.barrier", release));
          if (from_l)
            for (unsigned i = 1; i < k; ++i) p.spawn(party);
          party();
        });
        spin_until(l_started, 1);
        const unsigned waiters = 1 + static_cast<unsigned>(r.below(k - 1));
        std::vector<handle_type<void>> ws;
        for (unsigned i = 0; i < waiters; ++i) ws.push_back(p.submit([&l] { l.wait(); }));
        gap(r);
        if (!from_l)
          for (unsigned i = 1; i < k; ++i) p.spawn(party);
        b.wait_all_finished();
        for (auto& w : ws) w.get();
        l.get();
      }
      p.wait_idle();
      blocked_waits += p.stats().total.blocked_waits;
    }
    std::printf("blocked_barrier: rounds=%llu blocked_waits=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds),
                static_cast<unsigned long long>(blocked_waits), d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- wait_graph
  struct graph_node {
    int how = 0;  // 0 plain, 1 wait handles, 2 join, 3 group, 4 nested submit+get
    std::vector<std::size_t> deps;
    unsigned sleep_us = 0;
  };

  // @verifies POOL-19 POOL-9 POOL-17
  static void wait_graph(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 12);
    std::uint64_t graphs = 0, tasks = 0;
    while (!fail.any() && (o.iterations ? graphs < o.iterations : !d.passed())) {
      const unsigned workers = o.workers ? o.workers : 1 + static_cast<unsigned>(r.below(4));
      const std::size_t n = 10 + r.below(51);
      std::vector<graph_node> nodes(n);
      for (std::size_t i = 0; i < n; ++i) {
        nodes[i].sleep_us = r.below(4) == 0 ? static_cast<unsigned>(r.below(500)) : 0;
        if (i == 0 || r.below(5) == 0) continue;
        nodes[i].how = 1 + static_cast<int>(r.below(4));
        const std::size_t m = 1 + r.below(std::min<std::size_t>(i, 4));
        for (std::size_t k = 0; k < m; ++k) {
          const std::size_t back = r.below(3) != 0 ? 1 + r.below(2) : 1 + r.below(i);
          const std::size_t dep = back > i ? 0 : i - back;
          if (std::find(nodes[i].deps.begin(), nodes[i].deps.end(), dep) == nodes[i].deps.end()) nodes[i].deps.push_back(dep);
        }
      }
      auto runs = std::make_unique<std_sync::atomic<std::uint32_t>[]>(n);
      {
        pool_type p(pool_opts(workers));
        watchdog::guard g(wd, [&p] { return describe_pool(p); });
        std::vector<std::unique_ptr<handle_type<std::uint64_t>>> handles(n);
        auto value_of = [](std::size_t i) { return std::uint64_t{i} * 7919 + 1; };
        for (std::size_t i = 0; i < n; ++i) {
          const graph_node& nd = nodes[i];
          std::vector<const handle_type<std::uint64_t>*> deps;
          for (std::size_t dep : nd.deps) deps.push_back(handles[dep].get());
          auto wait_deps = [deps](std::size_t lo, std::size_t hi) {
            for (std::size_t k = lo; k < hi && k < deps.size(); ++k) deps[k]->wait();
          };
          auto body = [&p, &runs, &nd, deps, wait_deps, i, value_of]() -> std::uint64_t {
            if (nd.sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(nd.sleep_us));
            switch (nd.how) {
              case 1: wait_deps(0, deps.size()); break;
              case 2: pilfer::join(p, [&] { wait_deps(0, deps.size() / 2); }, [&] { wait_deps(deps.size() / 2, deps.size()); }); break;
              case 3: {
                group_type grp(p);
                for (std::size_t k = 0; k < deps.size(); ++k) grp.run([&, k] { wait_deps(k, k + 1); });
                grp.wait();
                break;
              }
              case 4: {
                auto child = p.submit([&] { wait_deps(0, deps.size()); return 1; });
                (void)child.get();
                break;
              }
              default: break;
            }
            runs[i].fetch_add(1, PILFER_SITE("stress.count", relaxed));
            progress();
            return value_of(i);
          };
          handles[i] = std::make_unique<handle_type<std::uint64_t>>(p.submit(body));
        }
        p.wait_idle();  // every task (and dependants' wait() calls) finished before get() moves the values out
        for (std::size_t i = 0; i < n; ++i) {
          const auto v = handles[i]->get();
          if (v != value_of(i)) fail.fail("POOL-17: wrong value from a graph task", i, v);
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        const auto c = runs[i].load(PILFER_SITE("stress.count", relaxed));
        if (c != 1) fail.fail("POOL-9/POOL-19: graph task did not run exactly once", i, c);
      }
      ++graphs;
      tasks += n;
    }
    std::printf("wait_graph: graphs=%llu tasks=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(graphs),
                static_cast<unsigned long long>(tasks), d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- many_waiters
  static inline thread_local int waiter_depth = 0;

  // @verifies POOL-20
  static void many_waiters(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 13);
    std::uint64_t rounds = 0, waiters = 0;
    std::size_t max_spares = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      const unsigned workers = o.workers ? o.workers : 1 + static_cast<unsigned>(r.below(3));
      const std::uint32_t n = 1000 + static_cast<std::uint32_t>(r.below(20000));
      pilfer::pool_options po = pool_opts(workers);
      po.max_spare_workers = 4 + r.below(60);
      std_sync::atomic<int> limit_reports{0};
      po.on_uncaught = [&](std::exception_ptr) { limit_reports.fetch_add(1, PILFER_SITE("stress.count", relaxed)); };
      const std::size_t spare_bound = po.max_spare_workers;
      pool_type p(po);
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      std_sync::atomic<std::uint32_t> started{0}, finished{0};
      std_sync::atomic<int> deepest{0};
      std_sync::atomic<unsigned> all_submitted{0};
      auto l = std::make_shared<handle_type<int>>(p.submit([&] {
        spin_until(all_submitted, 1);
        for (int k = 0; k < 2000 && started.load(PILFER_SITE("stress.count", relaxed)) < n; ++k)
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        return 7;
      }));
      for (std::uint32_t i = 0; i < n; ++i) {
        p.spawn([&, l] {
          const int depth = ++waiter_depth;
          for (int m = deepest.load(PILFER_SITE("stress.count", relaxed)); depth > m;)
            if (deepest.compare_exchange_weak(m, depth, PILFER_SITE("stress.count", relaxed), PILFER_SITE("stress.count", relaxed))) break;
          started.fetch_add(1, PILFER_SITE("stress.count", relaxed));
          l->wait();
          --waiter_depth;
          finished.fetch_add(1, PILFER_SITE("stress.count", acq_rel));
          progress();
        });
        max_spares = std::max(max_spares, p.spare_workers());
      }
      all_submitted.store(1, PILFER_SITE("stress.barrier", release));
      p.wait_idle();
      max_spares = std::max(max_spares, p.spare_workers());
      if (l->get() != 7) fail.fail("POOL-17: long task's value");
      if (finished.load(PILFER_SITE("stress.count", acquire)) != n) fail.fail("POOL-20: waiters lost", finished.load(PILFER_SITE("stress.count", acquire)), n);
      if (deepest.load(PILFER_SITE("stress.count", relaxed)) > 1)
        fail.fail("POOL-20: a wait ran another waiter on top of itself (depth)", static_cast<std::uint64_t>(deepest.load(PILFER_SITE("stress.count", relaxed))), n);
      if (p.spare_workers() > spare_bound) fail.fail("POOL-20: more spare workers than max_spare_workers", p.spare_workers(), spare_bound);
      if (limit_reports.load(PILFER_SITE("stress.count", relaxed)) > 1) fail.fail("POOL-20: spare limit reported more than once per pool");
      ++rounds;
      waiters += n;
    }
    std::printf("many_waiters: rounds=%llu waiters=%llu max_spares_seen=%zu elapsed=%.1fs\n",
                static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(waiters), max_spares, d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- join_fairness
  static std::uint64_t fib(pool_type& p, unsigned n, std_sync::atomic<std::uint64_t>& arms) {
    arms.fetch_add(1, PILFER_SITE("stress.count", relaxed));
    if (n < 2) return n;
    std::uint64_t a = 0, b = 0;
    pilfer::join(p, [&] { a = fib(p, n - 1, arms); }, [&] { b = fib(p, n - 2, arms); });
    return a + b;
  }

  // @verifies POOL-8
  static void join_fairness(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 14);
    std::uint64_t rounds = 0, measured = 0, worst = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      pool_type p(pool_opts(1));
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      std_sync::atomic<std::uint64_t> arms{0}, x_at{0};
      std_sync::atomic<unsigned> x_ran{0};
      const unsigned n = 22 + static_cast<unsigned>(r.below(4));
      auto root = p.submit([&] { return fib(p, n, arms); });
      const std::uint64_t start_after = 100 + r.below(2000);
      while (arms.load(PILFER_SITE("stress.count", relaxed)) < start_after && !root.ready()) std_sync::yield();
      const std::uint64_t at = arms.load(PILFER_SITE("stress.count", relaxed));
      const auto submitted = std::chrono::steady_clock::now();
      p.spawn([&] {
        x_at.store(arms.load(PILFER_SITE("stress.count", relaxed)), PILFER_SITE("stress.count", relaxed));
        x_ran.store(1, PILFER_SITE("stress.barrier", release));
        progress();
      });
      (void)root.get();
      const double window = std::chrono::duration<double>(std::chrono::steady_clock::now() - submitted).count();
      const std::uint64_t total = arms.load(PILFER_SITE("stress.count", relaxed));
      progress();
      spin_until(x_ran, 1);
      const std::uint64_t xa = x_at.load(PILFER_SITE("stress.count", relaxed));
      // Measurable when the recursion ran on for a while after X came: 0.5 s is ages for a hand-off (SPEC POOL-8:
      // within N arms X is handed to a woken or spare worker), even under TSan on a loaded machine.
      if (window > 0.5) {
        ++measured;
        worst = std::max(worst, xa - at);
        if (xa >= total) fail.fail("POOL-8: outside task started only after the join recursion ended", xa - at, total);
      }
      ++rounds;
    }
    std::printf("join_fairness: rounds=%llu measured=%llu worst_arms_before_outside_task=%llu elapsed=%.1fs\n",
                static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(measured),
                static_cast<unsigned long long>(worst), d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- dropped_handles
  // @verifies POOL-21 POOL-10
  static void dropped_handles(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 15);
    std::uint64_t rounds = 0, lost_total = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      const unsigned workers = o.workers ? o.workers : 1 + static_cast<unsigned>(r.below(3));
      std_sync::atomic<std::uint64_t> reported{0}, foreign{0};
      pilfer::pool_options po = pool_opts(workers);
      po.on_uncaught = [&](std::exception_ptr e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::runtime_error& x) {
          if (std::string_view(x.what()) == "stress-dropped") {
            reported.fetch_add(1, PILFER_SITE("stress.count", relaxed));
            return;
          }
        } catch (...) {
        }
        foreign.fetch_add(1, PILFER_SITE("stress.count", relaxed));
      };
      std::uint64_t expect = 0;
      {
        pool_type p(po);
        watchdog::guard g(wd, [&p] { return describe_pool(p); });
        std::vector<handle_type<int>> kept;
        const unsigned tasks = 200 + static_cast<unsigned>(r.below(800));
        for (unsigned i = 0; i < tasks; ++i) {
          const bool throws = r.below(2) == 0;
          auto body = [throws] {
            progress();
            if (throws) throw std::runtime_error("stress-dropped");
            return 1;
          };
          switch (r.below(4)) {
            case 0:  // dropped at once
              (void)p.submit(body);
              expect += throws;
              break;
            case 1:  // kept, dropped later (after the pool is idle)
              kept.push_back(p.submit(body));
              expect += throws;
              break;
            case 2: {  // collected: get() rethrows, nothing lost
              auto h = p.submit(body);
              try {
                (void)h.get();
              } catch (const std::runtime_error&) {
              }
              break;
            }
            default:  // fire and forget (POOL-10)
              p.spawn([throws] {
                progress();
                if (throws) throw std::runtime_error("stress-dropped");
              });
              expect += throws;
          }
          if (r.below(16) == 0) gap(r);
        }
        p.wait_idle();
        kept.clear();
      }
      const auto got = reported.load(PILFER_SITE("stress.count", relaxed));
      if (got != expect) fail.fail("POOL-21: on_uncaught calls != exceptions nobody collected", got, expect);
      if (foreign.load(PILFER_SITE("stress.count", relaxed)) != 0) fail.fail("POOL-21: on_uncaught got an unexpected exception");
      lost_total += expect;
      ++rounds;
    }
    std::printf("dropped_handles: rounds=%llu uncaught_reported=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds),
                static_cast<unsigned long long>(lost_total), d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- reused_group
  // One task_group reused for 20-100 rounds on 1-4 workers. A driver thread runs rounds of 1-4 tasks (some throw,
  // some spin or sleep) and waits for some of them itself; 1-3 outside threads and (half the sets) tasks spawned
  // into the pool wait for the same group at random moments. Tasks are numbered in run() order: `begun` counts
  // run() calls begun, `issued` those returned, so the tasks below `issued` were counted before a wait that reads
  // it. Each wait checks on return (POOL-11, POOL-10):
  //   W1 every task counted before it began has finished;
  //   W2 it threw if a task below `issued` that had not finished when it began threw — checked when no run() was
  //      in progress from its start to its return (such a task is covered, or finished before the wait's first
  //      touch with no run() since to forget its exception);
  //   W3 in a set whose every task throws, it threw if any task had finished when it began: the kept exception
  //      is forgotten only in one step with a new round's count, whose task throws too;
  //   W4 handoff: a gate task keeps a round open until a wait inside the pool is seen blocked on it (its worker
  //      `waiting`); once the driver's wait saw that round end, a task of the next round spins until that wait
  //      has returned. A wait that sleeps through a round run() started after its own round ended hangs there:
  //      the watchdog reports it.
  // The group is destroyed only after every wait of it returned.
  struct reuse_error {};  // what the tasks throw
  struct reuse_task {
    std_sync::atomic<unsigned> finished{0};
    bool throws = false;
    std::uint64_t spins = 0;
    unsigned sleep_us = 0;
    const std_sync::atomic<unsigned>* until = nullptr;  // spin first until *until >= until_value (gate, handoff)
    unsigned until_value = 0;
  };
  struct reuse_waiter {                   // an in-pool wait (a handoff task may spin until it returned)
    std_sync::atomic<unsigned> phase{0};  // 1 calling wait(), 2 returned
    unsigned worker = ~0u;                // written before phase 1
  };
  struct reuse_set {
    group_type* grp = nullptr;
    bool all_throw = false;
    std::unique_ptr<reuse_task[]> tasks;
    std_sync::atomic<std::uint64_t> begun{0}, issued{0};  // run() calls begun / returned (driver only)
  };
  struct reuse_stats {
    std_sync::atomic<std::uint64_t> waits{0}, threw{0}, w2{0}, w3{0};
    void add(std_sync::atomic<std::uint64_t>& c) { c.fetch_add(1, PILFER_SITE("stress.count", relaxed)); }
  };

  /// One checked wait of the set's group (W1-W3), from any thread.
  static void checked_wait(reuse_set& s, reuse_stats& st, failures& fail, reuse_waiter* me = nullptr) {
    const std::uint64_t issued = s.issued.load(PILFER_SITE("stress.reuse", seq_cst));
    const std::uint64_t begun = s.begun.load(PILFER_SITE("stress.reuse", seq_cst));
    bool covers_thrower = false, one_finished = false;
    for (std::uint64_t i = 0; i < issued; ++i) {
      const bool f = s.tasks[i].finished.load(PILFER_SITE("stress.reuse", acquire)) != 0;
      one_finished |= f;
      covers_thrower |= !f && s.tasks[i].throws;
    }
    if (me) me->phase.store(1, PILFER_SITE("stress.reuse", release));
    bool threw = false;
    try {
      s.grp->wait();
    } catch (const reuse_error&) {  // not read: TSan does not see libstdc++'s exception_ptr reference counts
      threw = true;
    } catch (...) {
      fail.fail("POOL-10: a wait rethrew an exception no task threw");
    }
    if (me) me->phase.store(2, PILFER_SITE("stress.reuse", release));
    const bool quiet = issued == begun && s.begun.load(PILFER_SITE("stress.reuse", seq_cst)) == begun;
    for (std::uint64_t i = 0; i < issued; ++i)  // W1
      if (s.tasks[i].finished.load(PILFER_SITE("stress.reuse", acquire)) == 0)
        fail.fail("POOL-11: a wait returned before a task counted when it began had finished (task, counted)", i, issued);
    if (quiet && covers_thrower) {  // W2
      st.add(st.w2);
      if (!threw) fail.fail("POOL-11/POOL-10: a wait returned normally though a task it covered threw (counted)", issued);
    }
    if (s.all_throw && one_finished) {  // W3
      st.add(st.w3);
      if (!threw)
        fail.fail("POOL-11: a wait returned normally while the group kept an exception (all throw; counted)", issued);
    }
    st.add(st.waits);
    if (threw) st.add(st.threw);
  }

  // @verifies POOL-11 POOL-10
  static void reused_group(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 16);
    std::uint64_t sets = 0, rounds = 0, tasks = 0, handoffs = 0, handoff_tries = 0;
    unsigned min_workers = ~0u, max_workers = 0;
    reuse_stats st;
    while (!fail.any() && (o.iterations ? sets < o.iterations : !d.passed())) {
      const unsigned workers = o.workers ? o.workers : 1 + static_cast<unsigned>(r.below(4));
      min_workers = std::min(min_workers, workers);
      max_workers = std::max(max_workers, workers);
      const unsigned n_rounds = 20 + static_cast<unsigned>(r.below(81));
      const bool in_pool = r.below(2) == 0;
      pool_type p(pool_opts(workers));
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      group_type grp(p);
      reuse_set s;
      s.grp = &grp;
      s.all_throw = r.below(4) == 0;
      s.tasks = std::make_unique<reuse_task[]>(std::size_t{n_rounds} * 4);
      std::uint64_t n = 0;  // tasks run so far (the driver alone runs them)
      auto add_task = [&](bool throws, const std_sync::atomic<unsigned>* until, unsigned until_value) {
        reuse_task& t = s.tasks[n];
        t.throws = s.all_throw || throws;
        t.spins = r.below(std::uint64_t{1} << r.below(14));
        t.sleep_us = r.below(8) == 0 ? static_cast<unsigned>(r.below(200)) : 0;
        t.until = until;
        t.until_value = until_value;
        s.begun.store(n + 1, PILFER_SITE("stress.reuse", seq_cst));
        grp.run([&t] {
          if (t.until)
            while (t.until->load(PILFER_SITE("stress.reuse", acquire)) < t.until_value) std_sync::yield();
          for (std::uint64_t i = 0; i < t.spins; ++i) std_sync::spin_hint();
          if (t.sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(t.sleep_us));
          progress();
          t.finished.store(1, PILFER_SITE("stress.reuse", release));  // the last action (but the throw)
          if (t.throws) throw reuse_error{};
        });
        s.issued.store(++n, PILFER_SITE("stress.reuse", seq_cst));
      };
      // In-pool waits: records live until the set ends; `pool_waits_done` counts those returned.
      std::vector<std::unique_ptr<reuse_waiter>> pool_waiters;
      std_sync::atomic<std::uint64_t> pool_waits_done{0};
      auto spawn_waiter = [&]() -> reuse_waiter& {
        auto& w = *pool_waiters.emplace_back(std::make_unique<reuse_waiter>());
        p.spawn([&s, &st, &fail, &p, &w, &pool_waits_done] {
          w.worker = p.current_worker_index().value_or(~0u);
          checked_wait(s, st, fail, &w);
          pool_waits_done.fetch_add(1, PILFER_SITE("stress.reuse", release));
        });
        return w;
      };
      // Outside waiters: 1-3 threads waiting at random moments until the driver is done.
      std_sync::atomic<unsigned> stop{0};
      std::vector<std_sync::thread> outside;
      const unsigned n_outside = 1 + static_cast<unsigned>(r.below(3));
      for (unsigned k = 0; k < n_outside; ++k) {
        outside.emplace_back([&, k, seed = r.next()] {
          rng wr(seed, k);
          while (stop.load(PILFER_SITE("stress.reuse", acquire)) == 0) {
            if (wr.below(2) == 0) gap(wr);
            if (wr.below(16) == 0) std::this_thread::sleep_for(std::chrono::microseconds(wr.below(300)));
            checked_wait(s, st, fail);
          }
        });
      }
      std_sync::atomic<unsigned> gate{0};
      unsigned gates = 0;
      for (unsigned round = 0; round < n_rounds && !fail.any(); ++round, ++rounds) {
        if (workers >= 2 && in_pool && r.below(6) == 0) {
          // W4: gate task G, then a wait inside the pool that covers it; seen blocked (or given up after 100 ms)?
          ++handoff_tries;
          add_task(r.below(3) == 0, &gate, ++gates);
          reuse_waiter& w = spawn_waiter();
          bool blocked = false;
          for (const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
               !blocked && std::chrono::steady_clock::now() < until; std_sync::yield()) {
            if (w.phase.load(PILFER_SITE("stress.reuse", acquire)) != 1) continue;
            const auto snap = p.snapshot();
            blocked = w.worker < snap.size() && snap[w.worker].state == pilfer::worker_state::waiting;
          }
          gate.store(gates, PILFER_SITE("stress.reuse", release));
          if (blocked) {
            // Its round ends: a wait that covers every task run so far returns (a task's `finished` flag is not
            // enough: the group counts the task out after it). Then a task of the next round waits for its return.
            checked_wait(s, st, fail);
            add_task(r.below(3) == 0, &w.phase, 2);
            ++handoffs;
          }
        } else {
          for (std::uint64_t k = 1 + r.below(4); k > 0; --k) add_task(r.below(3) == 0, nullptr, 0);
        }
        if (in_pool && r.below(4) == 0) spawn_waiter();
        switch (r.below(4)) {
          case 0: case 1: checked_wait(s, st, fail); break;  // the driver waits for its round
          case 2: gap(r); break;
          default: break;  // the next round comes at once (overlapping waits merge rounds)
        }
      }
      // Every wait of the group returns before it is destroyed (POOL-11's contract).
      stop.store(1, PILFER_SITE("stress.reuse", release));
      for (auto& t : outside) t.join();
      while (pool_waits_done.load(PILFER_SITE("stress.reuse", acquire)) < pool_waiters.size()) std_sync::yield();
      checked_wait(s, st, fail);
      tasks += n;
      ++sets;
    }
    const auto get = [](const std_sync::atomic<std::uint64_t>& c) {
      return static_cast<unsigned long long>(c.load(PILFER_SITE("stress.count", relaxed)));
    };
    std::printf("reused_group: sets=%llu rounds=%llu tasks=%llu waits=%llu threw=%llu w2_checked=%llu w3_checked=%llu "
                "handoffs=%llu/%llu workers=%u-%u elapsed=%.1fs\n",
                static_cast<unsigned long long>(sets), static_cast<unsigned long long>(rounds),
                static_cast<unsigned long long>(tasks), get(st.waits), get(st.threw), get(st.w2), get(st.w3),
                static_cast<unsigned long long>(handoffs), static_cast<unsigned long long>(handoff_tries),
                sets ? min_workers : 0u, max_workers, d.elapsed());
  }

  // ------------------------------------------------------------------------------------------- heap_group
  // A task A makes a task group on the heap and does not wait for it (the group outlives A); the group's
  // task m joins: its first branch holds m's worker until A may return, its second branch j waits for T,
  // and T waits for A. The wait-for graph (T -> A, m -> j, j -> T) is acyclic, so every wait returns
  // (POOL-19). T's wait must not take j for A's descendant (m is no part of A: the group is not in A's
  // frames, invariant P at detail::descends_from); run on T's frame, j would wait for T below it: a
  // deadlock, which the watchdog reports (pool_mutation::unscoped_creator, the old parent link). Spares 0
  // or 2; A, m and T on workers 1, 2, 0 by affinity.
  // @verifies POOL-19
  static void heap_group(const options& o, failures& fail, watchdog& wd) {
    deadline d(o.seconds);
    rng r(o.seed, 23);
    std::uint64_t rounds = 0;
    while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
      pilfer::pool_options po = pool_opts(3);
      po.max_spare_workers = r.below(2) == 0 ? 0 : 2;
      po.on_uncaught = [&fail](std::exception_ptr e) {
        try {
          std::rethrow_exception(e);
        } catch (const pilfer::spare_limit_reached&) {  // expected once without spares: T's wait blocks
        } catch (...) {
          fail.fail("heap_group: an exception reached on_uncaught");
        }
      };
      pool_type p(po);
      watchdog::guard g(wd, [&p] { return describe_pool(p); });
      for (int round = 0; round < 20 && !fail.any(); ++round, ++rounds) {
        std_sync::atomic<unsigned> in_join{0}, a_may_return{0}, t_made{0};
        std::unique_ptr<group_type> heap;  // made by A, waited for and destroyed here
        handle_type<int>* t_handle = nullptr;
        handle_type<int> a = p.submit(
            [&] {
              heap = std::make_unique<group_type>(p);
              heap->run(
                  [&] {
                    pilfer::join(
                        p,
                        [&] {
                          in_join.store(1, PILFER_SITE("stress.barrier", release));
                          spin_until(a_may_return, 1);
                        },
                        [&] {
                          spin_until(t_made, 1);
                          t_handle->wait();
                        });
                  },
                  {.affinity = 2u});
              spin_until(a_may_return, 1);
              return 1;
            },
            {.affinity = 1u});
        spin_until(in_join, 1);
        handle_type<int> t = p.submit([&] { return a.get() + 1; }, {.affinity = 0u});
        t_handle = &t;
        t_made.store(1, PILFER_SITE("stress.barrier", release));
        gap(r);  // T's wait looks for work meanwhile: j is on m's worker's deque
        a_may_return.store(1, PILFER_SITE("stress.barrier", release));
        if (const int v = t.get(); v != 2) fail.fail("POOL-19: heap_group: T's result (T waits for A) is wrong", static_cast<std::uint64_t>(v), 2);
        heap->wait();
        heap.reset();
      }
      p.wait_idle();
    }
    std::printf("heap_group: rounds=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds), d.elapsed());
  }

  static void run(const std::string& scenario, const options& o, failures& fail, watchdog& wd) {
    auto want = [&](std::string_view s) { return (scenario.empty() || scenario == s) && !fail.any(); };
    if (want("barrier")) barrier(o, fail, wd);
    if (want("blocked_barrier")) blocked_barrier(o, fail, wd);
    if (want("wait_graph")) wait_graph(o, fail, wd);
    if (want("many_waiters")) many_waiters(o, fail, wd);
    if (want("join_fairness")) join_fairness(o, fail, wd);
    if (want("dropped_handles")) dropped_handles(o, fail, wd);
    if (want("reused_group")) reused_group(o, fail, wd);
    if (want("heap_group")) heap_group(o, fail, wd);
  }
};

/// chaos_sync with pilfer's pool (and task groups) compiled with one old, known-wrong behaviour.
template <pilfer::detail::pool_mutation M>
struct mutant_sync : chaos_sync {
  static constexpr pilfer::detail::pool_mutation pool_mutation = M;
};

}  // namespace

int main(int argc, char** argv) {
  const char* program = "stress_pool_waits";
  std::string scenario;
  std::vector<char*> rest{argv[0]};
  std::string mutant = "none";
  for (int i = 1; i < argc; ++i) {
    if (!take_option(argc, argv, i, "--scenario", scenario, program) && !take_option(argc, argv, i, "--mutant", mutant, program))
      rest.push_back(argv[i]);
  }
  const char* mutants =
      "none|old_sleep|old_helping|silent_requeue|wait_on_live_count|forget_before_count|no_spare_on_demand|unscoped_creator";
  if (!one_of(mutant, mutants)) {
    std::fprintf(stderr, "%s: unknown --mutant '%s' (%s)\n", program, mutant.c_str(), mutants);
    return 2;
  }
  const char* names = "barrier|blocked_barrier|wait_graph|many_waiters|join_fairness|dropped_handles|reused_group|heap_group";
  if (!scenario.empty() && !one_of(scenario, names)) {
    std::fprintf(stderr, "%s: unknown --scenario '%s' (%s)\n", program, scenario.c_str(), names);
    return 2;
  }
  const std::string usage = std::string("[--scenario NAME] [--mutant ") + mutants + "] ";
  const auto o = parse(static_cast<int>(rest.size()), rest.data(), program, 4.0, usage.c_str());
  chaos_control::configure(o.chaos, o.seed);
  failures fail;
  watchdog wd(program, o.watchdog, o.seed);
  using M = pilfer::detail::pool_mutation;
  if (mutant == "old_sleep") {
    scenarios<mutant_sync<M::old_sleep_protocol>>::run(scenario, o, fail, wd);
  } else if (mutant == "old_helping") {
    scenarios<mutant_sync<M::old_helping>>::run(scenario, o, fail, wd);
  } else if (mutant == "silent_requeue") {
    scenarios<mutant_sync<M::silent_requeue>>::run(scenario, o, fail, wd);
  } else if (mutant == "wait_on_live_count") {
    scenarios<mutant_sync<M::wait_on_live_count>>::run(scenario, o, fail, wd);
  } else if (mutant == "forget_before_count") {
    scenarios<mutant_sync<M::forget_before_count>>::run(scenario, o, fail, wd);
  } else if (mutant == "no_spare_on_demand") {
    scenarios<mutant_sync<M::no_spare_on_demand>>::run(scenario, o, fail, wd);
  } else if (mutant == "unscoped_creator") {
    scenarios<mutant_sync<M::unscoped_creator>>::run(scenario, o, fail, wd);
  } else {
    scenarios<chaos_sync>::run(scenario, o, fail, wd);
  }
  return verdict(program, fail, o.seed);
}
