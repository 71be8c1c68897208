// stress/stress_graph.cpp — task graphs on real threads (built with ThreadSanitizer in the tsan preset).
//
// Scenarios (--scenario NAME, default dag):
//   dag     random DAGs of 1000-4000 tasks (random fan-in 0-4, so random fan-out), each rerun many
//           times with run() and run_n(); every task checks that each predecessor has stamped the
//           current pass (a PLAIN variable: a missing happens-before is a TSan report, a wrong value a
//           failed check), stamps its own, and counts its runs; after each run every task ran exactly
//           once per pass.
//   nested  tasks of a pool run graphs and wait for them inside the task (helping waits), while
//           outside threads run other graphs on the same pool.
//   stuck   the watchdog's own check: one task of a 3-task graph does not return (it yields until
//           --seconds have passed), so progress stops and the watchdog must fire and dump the stuck
//           run (ctest stress.graph.watchdog_dump greps the dump); if it does not fire, FAIL.
//
// Progress (ops=N) counts tasks run (dag) and graph runs completed (nested); a watchdog fails the program
// when it stops moving for --watchdog seconds, and dumps the pool's workers (describe_pool) and every
// graph run being waited for: its graph, its snapshot (tasks in flight, stopping), and how many of its
// tasks have run.
// Usage: stress_graph [--scenario NAME] [--seconds N] [--iterations ROUNDS] [--seed N] [--watchdog S]
// @verifies GRAPH-1 GRAPH-2 GRAPH-10
#include <pilfer/graph.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "stress_common.hpp"

namespace {

using pilfer::stress::failures;
using pilfer::stress::rng;

/// A random DAG with stamping tasks. stamp/runs are plain: written only by their own task.
struct stamped_dag {
  pilfer::graph g;
  std::vector<std::vector<std::size_t>> pred;
  std::vector<std::uint64_t> stamp;
  std::vector<std::uint64_t> runs;
  std::uint64_t pass = 0;  // written by the driver between runs, read by the tasks
  /// Task bodies executed over all runs (for the watchdog's dump: the plain counters above are
  /// not readable while a run is in progress).
  pilfer::std_sync::atomic<std::uint64_t> bodies{0};

  stamped_dag(rng& r, std::size_t n, failures& f, std::string name)
      : g(std::move(name)), pred(n), stamp(n, 0), runs(n, 0) {
    std::vector<pilfer::graph_task> t;
    t.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      t.push_back(g.emplace([this, i, &f] {
        for (std::size_t p : pred[i])
          if (stamp[p] != pass) f.fail("task started before a predecessor finished this pass", i, p);
        stamp[i] = pass;
        ++runs[i];
        bodies.fetch_add(1, PILFER_SITE("stress.graph_bodies", relaxed));  // a diagnostic count
      }));
    }
    for (std::size_t i = 1; i < n; ++i) {
      const std::size_t k = r.below(5);
      for (std::size_t j = 0; j < k; ++j) {
        // mostly near predecessors (long chains), sometimes far ones (wide fan-out)
        const std::size_t back = r.below(4) == 0 ? r.below(i) : r.below(std::min<std::size_t>(i, 16));
        const std::size_t p = i - 1 - back;
        bool dup = false;
        for (std::size_t q : pred[i]) dup = dup || q == p;
        if (dup) continue;
        pred[i].push_back(p);
        t[p].precede(t[i]);
      }
    }
  }

  void check(std::uint64_t passes, failures& f) const {
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (runs[i] != passes) f.fail("task ran a wrong number of times", runs[i], passes);
  }
};

/// The graph runs being waited for, for the watchdog's dump. A waiter registers its run for as long
/// as it holds the handle (watched_run); the dump prints, per run, the graph, how it was started,
/// the run's snapshot and the task bodies its graph has executed. Registration and the dump take
/// the mutex; the dump reads only the handle's snapshot (atomics) and the atomic body count.
class run_watch {
  struct entry {
    const stamped_dag* dag;
    const pilfer::graph_run* run;
    std::string how;
    std::uint64_t bodies_before;
  };

 public:
  class watched_run {
   public:
    watched_run(run_watch& w, const stamped_dag& d, const pilfer::graph_run& h, std::string how)
        : w_(w), e_{&d, &h, std::move(how), d.bodies.load(PILFER_SITE("stress.graph_bodies", relaxed))} {
      std::lock_guard<pilfer::std_sync::mutex> g(w_.m_);
      w_.runs_.push_back(&e_);
    }
    ~watched_run() {
      std::lock_guard<pilfer::std_sync::mutex> g(w_.m_);
      w_.runs_.erase(std::find(w_.runs_.begin(), w_.runs_.end(), &e_));
    }
    watched_run(const watched_run&) = delete;
    watched_run& operator=(const watched_run&) = delete;

   private:
    run_watch& w_;
    run_watch::entry e_;
  };

  std::string describe() {
    std::lock_guard<pilfer::std_sync::mutex> g(m_);
    std::ostringstream os;
    os << "  graph runs being waited for: " << runs_.size() << "\n";
    for (const entry* e : runs_) {
      const pilfer::graph_run_snapshot s = e->run->snapshot();
      const std::uint64_t ran = e->dag->bodies.load(PILFER_SITE("stress.graph_bodies", relaxed)) - e->bodies_before;
      os << "    graph '" << e->dag->g.name() << "' (" << e->dag->g.size() << " tasks), " << e->how << ": "
         << (s.done ? "done" : "in progress") << ", in flight " << s.in_flight << (s.stopping ? ", stopping" : "")
         << (s.failed ? ", failed" : "") << (s.cancelled ? ", cancelled" : "") << "; task bodies run so far " << ran << "\n";
    }
    return os.str();
  }

 private:
  pilfer::std_sync::mutex m_;
  std::vector<entry*> runs_;
};

/// The watchdog's dump while a scenario runs on p: its workers, then the graph runs waited for.
pilfer::stress::watchdog::guard watch_pool(pilfer::stress::watchdog& wd, pilfer::pool& p, run_watch& runs) {
  return pilfer::stress::watchdog::guard(wd, [&p, &runs] { return pilfer::stress::describe_pool(p) + runs.describe(); });
}

int run_dag(const pilfer::stress::options& o, pilfer::stress::watchdog& wd) {
  failures f;
  rng r(o.seed, 1);
  pilfer::pool p(pilfer::pool_options{.threads = 4, .name = "stress-graph"});
  run_watch watch;
  const auto watching = watch_pool(wd, p, watch);
  pilfer::stress::deadline dl(o.seconds);
  std::uint64_t rounds = 0, tasks = 0, steals = 0;
  while (o.iterations ? rounds < o.iterations : !dl.passed()) {
    stamped_dag d(r, 1000 + r.below(3000), f, "dag" + std::to_string(rounds));
    d.g.profile(r.below(2) == 0);
    std::uint64_t passes = 0;
    const std::uint64_t reruns = 3 + r.below(8);
    for (std::uint64_t k = 0; k < reruns && !f.any(); ++k) {
      ++d.pass;
      ++passes;
      auto h = pilfer::run(p, d.g);
      {
        run_watch::watched_run w(watch, d, h, "run() " + std::to_string(k + 1) + " of " + std::to_string(reruns));
        h.get();
      }
      const auto s = h.stats();
      tasks += s.tasks_run;
      pilfer::stress::progress(s.tasks_run);
      steals += s.steals;
      if (s.tasks_run != d.runs.size()) f.fail("stats: tasks_run", s.tasks_run, d.runs.size());
    }
    d.check(passes, f);
    // run_until: the predicate, called by the finisher of each pass before the next one starts
    // (after every task of the previous pass, before any of the next), advances the pass number
    // the tasks check their predecessors' stamps against.
    if (!f.any()) {
      pilfer::graph& g = d.g;
      const std::uint64_t n = 1 + r.below(4);
      std::uint64_t* pass_ptr = &d.pass;
      std::uint64_t left = n;
      auto h = pilfer::run_until(p, g, [&left, pass_ptr] {
        if (left == 0) return true;
        --left;
        ++*pass_ptr;
        return false;
      });
      {
        run_watch::watched_run w(watch, d, h, "run_until() over " + std::to_string(n) + " passes");
        h.get();
      }
      passes += n;
      d.check(passes, f);
      if (h.stats().iterations != n) f.fail("run_until: iterations", h.stats().iterations, n);
    }
    ++rounds;
    if (f.any()) break;
  }
  std::printf("stress_graph dag: %llu graphs, %llu tasks run, %llu steals, %.1fs\n",
              static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(tasks),
              static_cast<unsigned long long>(steals), dl.elapsed());
  return pilfer::stress::verdict("stress_graph", f, o.seed);
}

int run_nested(const pilfer::stress::options& o, pilfer::stress::watchdog& wd) {
  failures f;
  rng r(o.seed, 2);
  pilfer::pool p(pilfer::pool_options{.threads = 3, .name = "stress-nest"});
  run_watch watch;
  const auto watching = watch_pool(wd, p, watch);
  pilfer::stress::deadline dl(o.seconds);
  std::uint64_t rounds = 0;
  while (o.iterations ? rounds < o.iterations : !dl.passed()) {
    // 4 graphs: 2 run by tasks of the pool (inside), 2 by outside threads, concurrently
    std::vector<std::unique_ptr<stamped_dag>> ds;
    for (int i = 0; i < 4; ++i)
      ds.push_back(std::make_unique<stamped_dag>(r, 200 + r.below(800), f,
                                                 "nest" + std::to_string(rounds) + "." + std::to_string(i)));
    const auto run_three = [&](std::size_t i, const char* where) {
      for (int k = 0; k < 3; ++k) {
        ++ds[i]->pass;
        auto h = pilfer::run(p, ds[i]->g);
        run_watch::watched_run w(watch, *ds[i], h, std::string(where) + ", run " + std::to_string(k + 1) + " of 3");
        h.get();
        pilfer::stress::progress();
      }
    };
    std::vector<pilfer::task_handle<void>> inside;
    for (std::size_t i = 0; i < 2; ++i)
      inside.push_back(p.submit([&, i] { run_three(i, "waited for inside a task (helping wait)"); }));
    std::vector<pilfer::std_sync::thread> outside;
    for (std::size_t i = 2; i < 4; ++i) outside.emplace_back([&, i] { run_three(i, "waited for by an outside thread"); });
    for (auto& h : inside) h.get();
    for (auto& t : outside) t.join();
    for (auto& d : ds) d->check(3, f);
    ++rounds;
    if (f.any()) break;
  }
  std::printf("stress_graph nested: %llu rounds, %.1fs\n", static_cast<unsigned long long>(rounds), dl.elapsed());
  return pilfer::stress::verdict("stress_graph", f, o.seed);
}

int run_stuck(const pilfer::stress::options& o, pilfer::stress::watchdog& wd) {
  failures f;
  rng r(o.seed, 3);
  pilfer::pool p(pilfer::pool_options{.threads = 2, .name = "stress-stuck"});
  run_watch watch;
  const auto watching = watch_pool(wd, p, watch);
  pilfer::stress::deadline dl(o.seconds);
  stamped_dag d(r, 1, f, "stuck");
  auto stuck = d.g.emplace([&dl] {
    while (!dl.passed()) pilfer::std_sync::yield();  // no progress: the watchdog fires meanwhile
  });
  stuck.name("stuck_task");
  auto after = d.g.emplace([] {});
  stuck.precede(after);
  ++d.pass;
  auto h = pilfer::run(p, d.g);
  {
    run_watch::watched_run w(watch, d, h, "run() of a graph whose task does not return");
    h.get();
  }
  f.fail("the watchdog did not fire while a task was stuck (seconds)", static_cast<std::uint64_t>(o.seconds), 0);
  return pilfer::stress::verdict("stress_graph", f, o.seed);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = "dag";
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--scenario" && i + 1 < argc) {
      scenario = argv[++i];
    } else if (a.rfind("--scenario=", 0) == 0) {
      scenario = std::string(a.substr(11));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (scenario != "dag" && scenario != "nested" && scenario != "stuck") {
    std::fprintf(stderr, "stress_graph: unknown scenario '%s' (dag, nested, stuck)\n", scenario.c_str());
    return 2;
  }
  const auto o = pilfer::stress::parse(static_cast<int>(rest.size()), rest.data(), "stress_graph", 5.0);
  // Fails the program when no graph run completes for --watchdog seconds (a hang is a verdict), with
  // a dump of the pool's workers and the graph runs being waited for.
  pilfer::stress::watchdog wd("stress_graph", o.watchdog, o.seed);
  if (scenario == "stuck") return run_stuck(o, wd);
  return scenario == "dag" ? run_dag(o, wd) : run_nested(o, wd);
}
