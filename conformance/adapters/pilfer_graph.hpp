// conformance/adapters/pilfer_graph.hpp — pilfer's task graphs (pilfer/graph.hpp) as a graph_adapter.
#pragma once

#include <pilfer/graph.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace pilfer::conformance {

class pilfer_graph {
 public:
  static constexpr const char* name = "pilfer.graph";
  static constexpr bool has_condition = true, has_cycle_check = true, has_subflow = true;

  explicit pilfer_graph(unsigned threads) : pool_(make_options(threads)) {}
  ~pilfer_graph() {
    for (auto& r : runs_)
      if (r && r->valid()) r->wait();
  }
  pilfer_graph(const pilfer_graph&) = delete;
  pilfer_graph& operator=(const pilfer_graph&) = delete;

  std::size_t make_graph() {
    graphs_.push_back(std::make_unique<pilfer::graph>("conformance" + std::to_string(graphs_.size())));
    tasks_.emplace_back();
    runs_.emplace_back();
    return graphs_.size() - 1;
  }
  std::size_t add(std::size_t g, std::function<void()> f) { return keep(g, graphs_[g]->emplace(std::move(f))); }
  std::size_t add_condition(std::size_t g, std::function<int()> f) { return keep(g, graphs_[g]->emplace(std::move(f))); }
  std::size_t add_subflow(std::size_t g, int k, std::function<void(int)> child) {
    return keep(g, graphs_[g]->emplace([k, child = std::move(child)](pilfer::subflow& sf) {
      for (int i = 0; i < k; ++i) sf.emplace([&child, i] { child(i); });
    }));
  }
  void edge(std::size_t g, std::size_t from, std::size_t to) { tasks_[g][from].precede(tasks_[g][to]); }
  void start(std::size_t g) { runs_[g].emplace(pilfer::run(pool_, *graphs_[g])); }
  void wait(std::size_t g) {
    auto h = std::move(*runs_[g]);
    runs_[g].reset();
    h.get();
  }

 private:
  static pilfer::pool_options make_options(unsigned threads) {
    pilfer::pool_options o;
    o.threads = threads;
    o.on_uncaught = [](std::exception_ptr) {};  // later exceptions of a failed run: expected here
    return o;
  }
  std::size_t keep(std::size_t g, pilfer::graph_task t) {
    tasks_[g].push_back(t);
    return tasks_[g].size() - 1;
  }
  pilfer::pool pool_;
  std::vector<std::unique_ptr<pilfer::graph>> graphs_;
  std::vector<std::vector<pilfer::graph_task>> tasks_;
  std::vector<std::optional<pilfer::graph_run>> runs_;
};

}  // namespace pilfer::conformance
