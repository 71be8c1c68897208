// The graph mutants: the reference executor on ws_pool (graphs.cpp) with one rule broken each, each
// killed by the requirement it breaks (CONF-1).
#include "../mutants/graph_exec.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_graph_mutants(registry& r) {
  using mutants::graph_exec;
  using M = mutants::graph_mutation;
  r.add_graph<graph_exec<M::early_release>>("mutant.graph.early_release", "mutant", "GRAPH-1",
                                            "a successor is released when its second-to-last predecessor finishes");
  r.add_graph<graph_exec<M::no_reset>>("mutant.graph.no_reset", "mutant", "GRAPH-2",
                                       "dependency counters are not reset between runs");
  r.add_graph<graph_exec<M::successors_to_injector>>("mutant.graph.successors_to_injector", "mutant", "GRAPH-3",
                                                     "ready successors go to the shared injector, not the own deque");
}
}  // namespace pilfer::conformance::suite
