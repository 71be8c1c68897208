// conformance/adapters/tbb_flow_graph.hpp — oneTBB's flow graph as a graph_adapter: every task is a
// continue_node (it fires once all its predecessors have sent a continue_msg, and re-arms itself,
// so reruns need no reset); a run puts a message into each source. The graph lives in a task_arena
// with n worker slots (none reserved for the caller), like the oneTBB pool adapter: a run started
// from outside is arena.enqueue (TBB's shared FIFO); successors are spawned by the finishing
// worker. oneTBB's flow graph has no condition tasks, no cycle check (a cycle of continue_nodes
// simply never fires) and no subflows: GRAPH-6/7 are n/a.
#pragma once

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace pilfer::conformance {

class tbb_flow_graph {
  using msg = tbb::flow::continue_msg;
  using node = tbb::flow::continue_node<msg>;
  struct one {
    std::unique_ptr<tbb::flow::graph> g;
    std::vector<std::unique_ptr<node>> nodes;
    std::vector<int> preds;
  };

 public:
  static constexpr const char* name = "oneTBB.flow_graph";
  static constexpr bool has_condition = false, has_cycle_check = false, has_subflow = false;

  explicit tbb_flow_graph(unsigned n)
      : gc_(tbb::global_control::max_allowed_parallelism, n + 1), arena_(static_cast<int>(n), 0) {}
  ~tbb_flow_graph() {
    for (auto& o : graphs_) {
      try {
        arena_.execute([&] { o->g->wait_for_all(); });
      } catch (...) {
      }
    }
  }
  tbb_flow_graph(const tbb_flow_graph&) = delete;
  tbb_flow_graph& operator=(const tbb_flow_graph&) = delete;

  std::size_t make_graph() {
    auto o = std::make_unique<one>();
    arena_.execute([&] { o->g = std::make_unique<tbb::flow::graph>(); });  // attached to arena_
    graphs_.push_back(std::move(o));
    return graphs_.size() - 1;
  }
  std::size_t add(std::size_t g, std::function<void()> f) {
    one& o = *graphs_[g];
    o.nodes.push_back(std::make_unique<node>(*o.g, [f = std::move(f)](const msg&) {
      f();
      return msg();
    }));
    o.preds.push_back(0);
    return o.nodes.size() - 1;
  }
  void edge(std::size_t g, std::size_t from, std::size_t to) {
    one& o = *graphs_[g];
    tbb::flow::make_edge(*o.nodes[from], *o.nodes[to]);
    ++o.preds[to];
  }
  void start(std::size_t g) {
    one& o = *graphs_[g];
    o.g->reserve_wait();  // wait() must not return before the enqueued start has put its messages
    arena_.enqueue([&o] {
      for (std::size_t i = 0; i < o.nodes.size(); ++i)
        if (o.preds[i] == 0) o.nodes[i]->try_put(msg());
      o.g->release_wait();
    });
  }
  void wait(std::size_t g) {
    one& o = *graphs_[g];
    std::exception_ptr e;
    arena_.execute([&] {
      try {
        o.g->wait_for_all();
      } catch (...) {
        e = std::current_exception();
      }
    });
    if (e) {
      arena_.execute([&] { o.g->reset(); });  // a cancelled graph must be reset before it runs again
      std::rethrow_exception(e);
    }
  }

 private:
  tbb::global_control gc_;
  tbb::task_arena arena_;
  std::vector<std::unique_ptr<one>> graphs_;
};

}  // namespace pilfer::conformance
