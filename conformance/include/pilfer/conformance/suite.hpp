// pilfer/conformance/suite.hpp — requirement lists per adapter kind, the registry of
// implementations, and the command-line driver (src/driver.cpp).
//
//   registry r;
//   r.add_deque<my_adapter>("mine");           // or add_injector / add_pool
//   return pilfer::conformance::main(r, argc, argv);
//
// Command line: [--req ID] [--impl NAME] [--seed N] [--thorough] [--out DIR] [--report]
// [--kill-rate N] [--time-limit SECONDS] [--in-process]. With --req/--impl the exit code is 0 pass, 1 fail,
// 77 n/a (ctest skip); bad options exit 2 with one line on stderr. Each requirement run happens in a child
// process (default limit 300 s): a crash or a timeout is a FAIL verdict, and the report always completes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/deque_tests.hpp"
#include "pilfer/conformance/graph_tests.hpp"
#include "pilfer/conformance/injector_tests.hpp"
#include "pilfer/conformance/pool_tests.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

struct requirement_test {
  std::string id;
  std::string title;
  std::function<verdict(const run_config&)> run;
};

/// Run parts in order; the first failure (or n/a) is the verdict.
inline verdict all_of(std::initializer_list<std::function<verdict()>> parts) {
  std::string what;
  for (auto& p : parts) {
    verdict v = p();
    if (!v.passed()) return v;
    what += (what.empty() ? "" : "; ") + v.detail;
  }
  return verdict::pass(what);
}

template <deque_adapter A>
std::vector<requirement_test> deque_requirements() {
  std::vector<requirement_test> t;
  // @verifies DQ-1
  t.push_back({"DQ-1", "LIFO local pop", [](const run_config& c) {
                 return all_of({[&] { return dq_sequential<A>(c, "DQ-1 sequential", dq_mix::lifo, {64}, 150); },
                                [&] {
                                  return dq_concurrent<A>(c, "DQ-1 concurrent", dq_check::owner_lifo, false, 10, 10);
                                }});
               }});
  // @verifies DQ-2
  t.push_back({"DQ-2", "FIFO steal", [](const run_config& c) {
                 return all_of({[&] { return dq_sequential<A>(c, "DQ-2 sequential", dq_mix::fifo, {64}, 150); },
                                [&] {
                                  return dq_concurrent<A>(c, "DQ-2 concurrent", dq_check::thief_fifo, false, 10, 10);
                                }});
               }});
  // @verifies DQ-3
  t.push_back({"DQ-3", "exactly-once under concurrency", [](const run_config& c) {
                 return dq_concurrent<A>(c, "DQ-3", dq_check::exactly_once, A::has_batch_steal, 30, 20);
               }});
  // @verifies DQ-4
  t.push_back({"DQ-4", "unbounded growth, wrap-around", [](const run_config& c) {
                 return dq_sequential<A>(c, "DQ-4", dq_mix::growth, {1, 2, 4}, 300);
               }});
  // @verifies DQ-5
  t.push_back({"DQ-5", "retry distinct from empty", [](const run_config& c) {
                 return dq_retry_not_empty<A>(c, "DQ-5", 1500);
               }});
  // @verifies DQ-6
  t.push_back({"DQ-6", "batch steal: <= half, order kept", [](const run_config& c) {
                 if constexpr (!batch_deque_adapter<A>) {
                   return verdict::na("adapter has no batch steal");
                 } else {
                   if (!A::has_batch_steal) return verdict::na("adapter has no batch steal");
                   return all_of({[&] { return dq_sequential<A>(c, "DQ-6 sequential", dq_mix::batch, {1, 4, 64}, 200); },
                                  [&] {
                                    return dq_concurrent<A>(c, "DQ-6 concurrent", dq_check::batch_order, true, 10, 10);
                                  }});
                 }
               }});
  return t;
}

template <injector_adapter A>
std::vector<requirement_test> injector_requirements() {
  std::vector<requirement_test> t;
  // @verifies INJ-1
  t.push_back({"INJ-1", "FIFO per producer", [](const run_config& c) {
                 return all_of({[&] { return inj_sequential<A>(c, "INJ-1 sequential", 150); },
                                [&] { return inj_concurrent<A>(c, "INJ-1 concurrent", inj_check::producer_fifo, 15, 5); }});
               }});
  // @verifies INJ-2
  t.push_back({"INJ-2", "exactly-once MPMC", [](const run_config& c) {
                 return inj_concurrent<A>(c, "INJ-2", inj_check::exactly_once, 30, 10);
               }});
  // @verifies INJ-4
  t.push_back({"INJ-4", "bounded memory after drain", [](const run_config& c) { return inj_bounded_memory<A>(c); }});
  return t;
}

template <pool_adapter P>
std::vector<requirement_test> pool_requirements() {
  std::vector<requirement_test> t;
  // @verifies POOL-1
  t.push_back({"POOL-1", "LIFO local (1 worker)", [](const run_config& c) { return pool_lifo_local<P>(c); }});
  // @verifies POOL-2
  t.push_back({"POOL-2", "FIFO steal (2 workers)", [](const run_config& c) { return pool_fifo_steal<P>(c); }});
  // @verifies POOL-3
  t.push_back({"POOL-3", "injector before idle (no park beside it)",
               [](const run_config& c) { return pool_injector_before_idle<P>(c); }});
  // @verifies POOL-4
  t.push_back({"POOL-4", "deep idle (CPU over a quiet second)", [](const run_config& c) { return pool_deep_idle<P>(c); }});
  // @verifies POOL-5
  t.push_back({"POOL-5", "local submission", [](const run_config& c) { return pool_local_submission<P>(c); }});
  // @verifies POOL-7
  t.push_back({"POOL-7", "no lost wake-up", [](const run_config& c) { return pool_no_lost_wakeup<P>(c); }});
  // @verifies POOL-8
  t.push_back({"POOL-8", "injector not starved", [](const run_config& c) { return pool_fairness<P>(c); }});
  // @verifies POOL-9
  t.push_back({"POOL-9", "exactly-once under spawn storms", [](const run_config& c) { return pool_exactly_once<P>(c); }});
  // @verifies POOL-10
  t.push_back({"POOL-10", "exception reaches the waiter", [](const run_config& c) { return pool_exceptions<P>(c); }});
  // @verifies POOL-11
  t.push_back({"POOL-11", "nested fork-join on 1 worker", [](const run_config& c) { return pool_helping_waits<P>(c); }});
  // @verifies POOL-12
  t.push_back({"POOL-12", "shutdown drains; submit after is an error", [](const run_config& c) { return pool_shutdown<P>(c); }});
  add_pool_feature_requirements<P>(t);  // POOL-13, POOL-15 … POOL-17 (pool_feature_tests.hpp)
  add_pool_wait_requirements<P>(t);     // POOL-18 … POOL-21 (pool_wait_tests.hpp)
  return t;
}

template <graph_adapter G>
std::vector<requirement_test> graph_requirements() {
  std::vector<requirement_test> t;
  // @verifies GRAPH-1
  t.push_back({"GRAPH-1", "exactly once, after predecessors", [](const run_config& c) {
                 return graph_dag_runs<G>(c, "GRAPH-1", 1, 30);
               }});
  // @verifies GRAPH-2
  t.push_back({"GRAPH-2", "reruns of one graph", [](const run_config& c) {
                 return graph_dag_runs<G>(c, "GRAPH-2", 4, 15);
               }});
  // @verifies GRAPH-3
  t.push_back({"GRAPH-3", "ready successors to the own deque", [](const run_config& c) { return graph_own_deque<G>(c); }});
  // @verifies GRAPH-4
  t.push_back({"GRAPH-4", "first exception reaches the waiter", [](const run_config& c) { return graph_exceptions<G>(c); }});
  // @verifies GRAPH-6
  t.push_back({"GRAPH-6", "condition loops; cycle reported", [](const run_config& c) { return graph_conditions<G>(c); }});
  // @verifies GRAPH-7
  t.push_back({"GRAPH-7", "subflow joined before successors", [](const run_config& c) { return graph_subflow<G>(c); }});
  return t;
}

/// One implementation under test.
struct implementation {
  std::string name;
  kind k = kind::deque;
  std::string role;    // "pilfer" (must pass), "peer", "reference", "mutant"
  std::string target;  // mutant: the requirement it breaks
  std::string description;
  std::vector<requirement_test> tests;
};

class registry {
 public:
  template <deque_adapter A>
  void add_deque(std::string name, std::string role = "peer", std::string target = {}, std::string desc = {}) {
    impls_.push_back({std::move(name), kind::deque, std::move(role), std::move(target), std::move(desc),
                      deque_requirements<A>()});
  }
  template <injector_adapter A>
  void add_injector(std::string name, std::string role = "peer", std::string target = {}, std::string desc = {}) {
    impls_.push_back({std::move(name), kind::injector, std::move(role), std::move(target), std::move(desc),
                      injector_requirements<A>()});
  }
  template <pool_adapter P>
  void add_pool(std::string name, std::string role = "peer", std::string target = {}, std::string desc = {}) {
    impls_.push_back({std::move(name), kind::pool, std::move(role), std::move(target), std::move(desc),
                      pool_requirements<P>()});
  }
  template <graph_adapter G>
  void add_graph(std::string name, std::string role = "peer", std::string target = {}, std::string desc = {}) {
    impls_.push_back({std::move(name), kind::graph, std::move(role), std::move(target), std::move(desc),
                      graph_requirements<G>()});
  }
  const std::vector<implementation>& impls() const { return impls_; }

 private:
  std::vector<implementation> impls_;
};

/// The command-line driver (conformance/src/driver.cpp).
int main(const registry& r, int argc, char** argv);

}  // namespace pilfer::conformance
