// pilfer/conformance/graph_tests.hpp — the graph_adapter concept and black-box requirement tests
// any task-graph executor can be pointed at (GRAPH-*; SPEC.md section 8).
//
// graph_adapter G (one executor with `threads` workers, any number of graphs):
//   G(unsigned threads)
//   std::size_t g.make_graph()                            a new empty graph; its id
//   std::size_t g.add(graph, std::function<void()>)       a task; its id within that graph
//   void g.edge(graph, from, to)                          `from` runs before `to`
//   void g.start(graph)                                   run it once, from outside; returns at once
//                                                         (may throw for an invalid graph)
//   void g.wait(graph)                                    wait for that run; rethrow its first exception
//   static name; flags has_condition, has_cycle_check, has_subflow; when set:
//   std::size_t g.add_condition(graph, std::function<int()>)   runs successor #k (edge order)
//   std::size_t g.add_subflow(graph, k, std::function<void(int)>) a task that runs child(0..k-1) as a
//                                                         subgraph and joins it before its successors
// Requirements whose operation the adapter lacks are n/a, never pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

template <class G>
concept graph_adapter = requires(G& g, std::size_t n, std::function<void()> f) {
  requires std::constructible_from<G, unsigned>;
  { G::name } -> std::convertible_to<const char*>;
  { G::has_condition } -> std::convertible_to<bool>;
  { G::has_cycle_check } -> std::convertible_to<bool>;
  { G::has_subflow } -> std::convertible_to<bool>;
  { g.make_graph() } -> std::same_as<std::size_t>;
  { g.add(n, f) } -> std::same_as<std::size_t>;
  g.edge(n, n, n);
  g.start(n);
  g.wait(n);
};

namespace graph_detail {

/// A random DAG: node i's predecessors are drawn among 0..i-1 (fan-in 0..max_in).
struct dag {
  std::size_t n = 0;
  std::vector<std::vector<std::size_t>> pred;
  static dag random(rng& r, std::size_t n, std::size_t max_in) {
    dag d;
    d.n = n;
    d.pred.resize(n);
    for (std::size_t i = 1; i < n; ++i) {
      const std::size_t k = r.below(std::min(i, max_in) + 1);
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t p = r.below(i);
        if (std::find(d.pred[i].begin(), d.pred[i].end(), p) == d.pred[i].end()) d.pred[i].push_back(p);
      }
    }
    return d;
  }
};

/// What a task of a DAG run records: how often it ran in the current pass, and whether every
/// predecessor had finished (its count for this pass) when it started.
struct dag_probe {
  explicit dag_probe(std::size_t n) : runs(n), late(n) {
    for (auto& x : runs) x.store(0, PILFER_SITE("conformance.graph", relaxed));
    for (auto& x : late) x.store(0, PILFER_SITE("conformance.graph", relaxed));
  }
  std::vector<atomic<int>> runs;  // finished bodies per task (all passes)
  std::vector<atomic<int>> late;  // starts before a predecessor had finished this pass
};

template <graph_adapter G>
std::size_t build(G& g, const dag& d, dag_probe& pr, const int* pass) {
  const std::size_t gid = g.make_graph();
  for (std::size_t i = 0; i < d.n; ++i) {
    const std::size_t id = g.add(gid, [&pr, &d, i, pass] {
      for (std::size_t p : d.pred[i])  // acquire: pairs with the predecessor's release below
        if (pr.runs[p].load(PILFER_SITE("conformance.graph", acquire)) < *pass)
          pr.late[i].fetch_add(1, PILFER_SITE("conformance.graph", relaxed));
      pr.runs[i].fetch_add(1, PILFER_SITE("conformance.graph", release));
    });
    if (id != i) throw std::logic_error("graph adapter: task ids must be 0, 1, 2, ... in add() order");
  }
  for (std::size_t i = 0; i < d.n; ++i)
    for (std::size_t p : d.pred[i]) g.edge(gid, p, i);
  return gid;
}

/// "" or a description of the first violation after `pass` passes.
inline std::string check_dag(const dag& d, dag_probe& pr, int pass) {
  for (std::size_t i = 0; i < d.n; ++i) {
    const int r = pr.runs[i].load(PILFER_SITE("conformance.graph", acquire));
    if (r != pass)
      return "task " + std::to_string(i) + " ran " + std::to_string(r) + " times in " + std::to_string(pass) +
             " passes (expected exactly once per pass)";
    if (pr.late[i].load(PILFER_SITE("conformance.graph", relaxed)) != 0)
      return "task " + std::to_string(i) + " started before one of its " + std::to_string(d.pred[i].size()) +
             " predecessors had finished";
  }
  return {};
}

}  // namespace graph_detail

/// GRAPH-1 (passes = 1) / GRAPH-2 (passes > 1, same graph rerun): random DAGs, exactly once per
/// pass, each task after all its predecessors.
template <graph_adapter G>
verdict graph_dag_runs(const run_config& c, const char* what, int passes, int graphs) {
  rng r{c.seed};
  for (int k = 0; k < c.scaled(graphs); ++k) {
    const std::uint64_t case_seed = r.next();
    rng cr{case_seed};
    const unsigned threads = 1 + static_cast<unsigned>(cr.below(3));
    const std::size_t n = 20 + cr.below(180);
    const graph_detail::dag d = graph_detail::dag::random(cr, n, 1 + cr.below(4));
    graph_detail::dag_probe pr(n);
    int pass = 0;
    G g(threads);
    const std::size_t gid = graph_detail::build(g, d, pr, &pass);
    for (pass = 1; pass <= passes; ++pass) {
      g.start(gid);
      g.wait(gid);
      const std::string bad = graph_detail::check_dag(d, pr, pass);
      if (!bad.empty())
        return verdict::fail(c.seed, std::string(what) + ": " + std::to_string(threads) + " workers, " +
                                         std::to_string(n) + "-task random DAG (case seed " + std::to_string(case_seed) +
                                         "), pass " + std::to_string(pass) + ": " + bad);
    }
  }
  return verdict::pass(std::to_string(c.scaled(graphs)) + " random DAGs (20-200 tasks, 1-3 workers) x " +
                       std::to_string(passes) + " passes");
}

/// GRAPH-3: one worker runs a source with `fan` successors; while the source runs, `fan`
/// one-task graphs are started from outside. Successors pushed to the worker's own deque run
/// before the outside runs (which wait in the shared queue), except for at most a fairness poll
/// or two; successors sent to a shared FIFO run after all of them.
template <graph_adapter G>
verdict graph_own_deque(const run_config& c) {
  const int fan = 20, reps = c.scaled(5);
  for (int rep = 0; rep < reps; ++rep) {
    G g(1);
    atomic<int> started{0}, gate{0};
    std::vector<int> order;  // one worker: written by one thread at a time, read after wait()
    const std::size_t main_g = g.make_graph();
    const std::size_t src = g.add(main_g, [&] {
      started.store(1, PILFER_SITE("conformance.graph", release));
      while (gate.load(PILFER_SITE("conformance.graph", acquire)) == 0) sync::yield();
    });
    for (int i = 0; i < fan; ++i) {
      const std::size_t t = g.add(main_g, [&order, i] { order.push_back(i); });
      g.edge(main_g, src, t);
    }
    std::vector<std::size_t> outs;
    for (int i = 0; i < fan; ++i) {
      outs.push_back(g.make_graph());
      g.add(outs.back(), [&order, i] { order.push_back(1000 + i); });
    }
    g.start(main_g);
    if (!wait_until([&] { return started.load(PILFER_SITE("conformance.graph", acquire)) != 0; },
                    std::chrono::seconds(20)))
      return verdict::fail(c.seed, "GRAPH-3: the source did not start within 20 s");
    for (auto o : outs) g.start(o);
    gate.store(1, PILFER_SITE("conformance.graph", release));
    g.wait(main_g);
    for (auto o : outs) g.wait(o);
    if (order.size() != static_cast<std::size_t>(2 * fan))
      return verdict::fail(c.seed, "GRAPH-3: " + std::to_string(order.size()) + " tasks ran, expected " +
                                       std::to_string(2 * fan));
    std::size_t last_succ = 0;
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] < 1000) last_succ = i;
    int overtaken = 0;
    for (std::size_t i = 0; i < last_succ; ++i) overtaken += order[i] >= 1000;
    if (overtaken > 3)
      return verdict::fail(c.seed, "GRAPH-3: 1 worker, source with " + std::to_string(fan) + " successors: " +
                                       std::to_string(overtaken) + " of " + std::to_string(fan) +
                                       " runs started from outside during the source ran before its last "
                                       "successor (ready successors did not go to the worker's own deque)");
  }
  return verdict::pass(std::to_string(reps) + " x (1 worker, fan-out " + std::to_string(fan) + " vs " +
                       std::to_string(fan) + " outside runs)");
}

/// GRAPH-4: A -> B -> C where B throws: wait() rethrows B's exception, C never runs; independent
/// tasks may run; the same executor runs a good graph afterwards.
template <graph_adapter G>
verdict graph_exceptions(const run_config& c) {
  const int reps = c.scaled(20);
  for (int rep = 0; rep < reps; ++rep) {
    G g(2);
    atomic<int> c_ran{0};
    const std::size_t gid = g.make_graph();
    const std::size_t a = g.add(gid, [] {});
    const std::size_t b = g.add(gid, [] { throw std::runtime_error("graph-4 marker"); });
    const std::size_t cc = g.add(gid, [&] { c_ran.fetch_add(1, PILFER_SITE("conformance.graph", relaxed)); });
    g.edge(gid, a, b);
    g.edge(gid, b, cc);
    std::string got;
    try {
      g.start(gid);
      g.wait(gid);
    } catch (const std::runtime_error& e) {
      got = e.what();
    } catch (...) {
      got = "<other exception>";
    }
    if (got != "graph-4 marker")
      return verdict::fail(c.seed, "GRAPH-4: wait() " + (got.empty() ? std::string("returned normally") : "threw '" + got + "'") +
                                       " for a graph whose task threw 'graph-4 marker'");
    if (c_ran.load(PILFER_SITE("conformance.graph", relaxed)) != 0)
      return verdict::fail(c.seed, "GRAPH-4: the successor of the throwing task ran");
    atomic<int> ok{0};
    const std::size_t g2 = g.make_graph();
    g.add(g2, [&] { ok.store(1, PILFER_SITE("conformance.graph", relaxed)); });
    g.start(g2);
    g.wait(g2);
    if (ok.load(PILFER_SITE("conformance.graph", relaxed)) != 1)
      return verdict::fail(c.seed, "GRAPH-4: a graph run after the failed one did not run");
  }
  return verdict::pass(std::to_string(reps) + " runs with a throwing middle task");
}

/// GRAPH-6: a loop through a condition task runs its body the chosen number of times; a cycle
/// without a condition task is an error at start/wait, not a hang.
template <graph_adapter G>
verdict graph_conditions(const run_config& c) {
  if constexpr (!G::has_condition && !G::has_cycle_check) {
    (void)c;
    return verdict::na("no condition tasks and no cycle check");
  } else {
    std::string what;
    if constexpr (G::has_condition) {
      for (int rounds : {1, 5, 17}) {
        G g(2);
        int i = 0, body = 0, done = 0;  // the loop is sequential: each task after the previous
        const std::size_t gid = g.make_graph();
        const std::size_t init = g.add(gid, [&] { i = 0; });
        const std::size_t work = g.add(gid, [&] { ++body, ++i; });
        const std::size_t cond = g.add_condition(gid, [&, rounds] { return i < rounds ? 0 : 1; });
        const std::size_t fin = g.add(gid, [&] { ++done; });
        g.edge(gid, init, work);
        g.edge(gid, work, cond);
        g.edge(gid, cond, work);
        g.edge(gid, cond, fin);
        g.start(gid);
        g.wait(gid);
        if (body != rounds || done != 1)
          return verdict::fail(c.seed, "GRAPH-6: loop through a condition task for " + std::to_string(rounds) +
                                           " rounds ran the body " + std::to_string(body) + " times, the exit " +
                                           std::to_string(done) + " times");
      }
      what = "condition loops of 1, 5, 17 rounds";
    }
    if constexpr (G::has_cycle_check) {
      G g(1);
      const std::size_t gid = g.make_graph();
      const std::size_t s = g.add(gid, [] {});
      const std::size_t x = g.add(gid, [] {});
      const std::size_t y = g.add(gid, [] {});
      g.edge(gid, s, x);
      g.edge(gid, x, y);
      g.edge(gid, y, x);
      bool threw = false;
      try {
        g.start(gid);
        g.wait(gid);
      } catch (...) {
        threw = true;
      }
      if (!threw) return verdict::fail(c.seed, "GRAPH-6: a cycle without a condition task was run without an error");
      what += what.empty() ? "cycle reported" : "; cycle reported";
    }
    return verdict::pass(what);
  }
}

/// GRAPH-7: a subflow task's children all run before the task's successor.
template <graph_adapter G>
verdict graph_subflow(const run_config& c) {
  if constexpr (!G::has_subflow) {
    (void)c;
    return verdict::na("no subflow tasks");
  } else {
    const int reps = c.scaled(20);
    for (int rep = 0; rep < reps; ++rep) {
      G g(2);
      const int k = 1 + rep % 8;
      atomic<int> children{0};
      int seen = -1;
      const std::size_t gid = g.make_graph();
      const std::size_t p = g.add_subflow(gid, k, [&](int) { children.fetch_add(1, PILFER_SITE("conformance.graph", release)); });
      const std::size_t after = g.add(gid, [&] { seen = children.load(PILFER_SITE("conformance.graph", acquire)); });
      g.edge(gid, p, after);
      g.start(gid);
      g.wait(gid);
      if (seen != k)
        return verdict::fail(c.seed, "GRAPH-7: the successor of a subflow task with " + std::to_string(k) +
                                         " children saw " + std::to_string(seen) + " of them finished");
    }
    return verdict::pass(std::to_string(reps) + " subflows of 1-8 children");
  }
}

}  // namespace pilfer::conformance
