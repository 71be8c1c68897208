// conformance/mutants/graph_exec.hpp — a small reference task-graph executor (seed 001's design:
// per-task counters of unfinished predecessors, ready successors spawned onto the finishing
// worker's own deque) on the reference pool ws_pool, and its mutants:
//   early_release           a task with two or more predecessors is released when its
//                           second-to-last predecessor finishes (GRAPH-1)
//   no_reset                counters are set when the graph is built and never reset: a rerun
//                           starts from the counts the previous run left (GRAPH-2)
//   successors_to_injector  ready successors go to the pool's shared queue instead of the
//                           finishing worker's own deque (GRAPH-3)
// Deliberately simple (a std::function spawn per ready task); only the mutations differ.
#pragma once

#include <pilfer/sync.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "ws_pool.hpp"

namespace pilfer::conformance::mutants {

enum class graph_mutation { none, early_release, no_reset, successors_to_injector };

template <graph_mutation M>
class graph_exec {
  using S = pilfer::std_sync;
  static constexpr pool_mutation pool_kind =
      M == graph_mutation::successors_to_injector ? pool_mutation::spawn_to_injector : pool_mutation::none;
  struct node {
    std::function<void()> f;
    std::vector<std::size_t> succ;
    int preds = 0;
    S::atomic<int> count{0};  // signed: a mutant may drive it below zero
  };
  struct graph {
    std::vector<std::unique_ptr<node>> nodes;
    S::atomic<std::int64_t> inflight{0};
    S::atomic<int> done{1};
    S::atomic<bool> failed{false};
    std::exception_ptr error;
    bool built = false;
  };

 public:
  static constexpr const char* name = "graph_exec";
  static constexpr bool has_condition = false, has_cycle_check = false, has_subflow = false;

  explicit graph_exec(unsigned n) : pool_(n) {}
  ~graph_exec() { pool_.wait_idle(); }
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;

  std::size_t make_graph() {
    graphs_.push_back(std::make_unique<graph>());
    return graphs_.size() - 1;
  }
  std::size_t add(std::size_t g, std::function<void()> f) {
    auto n = std::make_unique<node>();
    n->f = std::move(f);
    graphs_[g]->nodes.push_back(std::move(n));
    return graphs_[g]->nodes.size() - 1;
  }
  void edge(std::size_t g, std::size_t from, std::size_t to) {
    graphs_[g]->nodes[from]->succ.push_back(to);
    ++graphs_[g]->nodes[to]->preds;
  }
  void start(std::size_t gi) {
    graph& g = *graphs_[gi];
    std::int64_t sources = 0;
    for (auto& n : g.nodes) {
      int initial = n->preds;
      if constexpr (M == graph_mutation::early_release) initial = n->preds >= 2 ? n->preds - 1 : n->preds;
      // [relaxed: published by the submits below]
      if (M != graph_mutation::no_reset || !g.built) n->count.store(initial, PILFER_SITE("graphexec.reset", relaxed));
      sources += n->preds == 0;
    }
    g.built = true;
    g.error = nullptr;
    g.failed.store(false, PILFER_SITE("graphexec.failed", relaxed));
    if (sources == 0) return;
    g.done.store(0, PILFER_SITE("graphexec.done", relaxed));
    g.inflight.store(sources, PILFER_SITE("graphexec.inflight", relaxed));
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i]->preds == 0) pool_.submit([this, &g, i] { run_node(g, i); });
  }
  void wait(std::size_t gi) {
    graph& g = *graphs_[gi];
    while (g.done.load(PILFER_SITE("graphexec.done", acquire)) == 0) g.done.wait(0, PILFER_SITE("graphexec.done", acquire));
    if (g.error) std::rethrow_exception(g.error);
  }

 private:
  void run_node(graph& g, std::size_t i) {
    node& n = *g.nodes[i];
    bool ok = !g.failed.load(PILFER_SITE("graphexec.failed", relaxed));
    if (ok) {
      try {
        n.f();
      } catch (...) {
        if (!g.failed.exchange(true, PILFER_SITE("graphexec.failed", relaxed))) g.error = std::current_exception();
        ok = false;
      }
    }
    if (ok) {
      for (std::size_t s : n.succ) {
        // acq_rel: the successor's runner sees every predecessor's writes
        const int before = g.nodes[s]->count.fetch_sub(1, PILFER_SITE("graphexec.count", acq_rel));
        const bool ready = M == graph_mutation::no_reset ? before <= 1 : before == 1;
        if (ready) {
          g.inflight.fetch_add(1, PILFER_SITE("graphexec.inflight", relaxed));
          pool_.spawn([this, &g, s] { run_node(g, s); });  // own deque (or the injector: mutant)
        }
      }
    }
    if (g.inflight.fetch_sub(1, PILFER_SITE("graphexec.inflight", acq_rel)) == 1) {
      g.done.store(1, PILFER_SITE("graphexec.done", release));
      g.done.notify_all();
    }
  }

  ws_pool<pool_kind> pool_;
  std::vector<std::unique_ptr<graph>> graphs_;
};

}  // namespace pilfer::conformance::mutants
