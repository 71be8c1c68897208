// Task-graph executors under the GRAPH-* requirements: pilfer's, oneTBB's flow graph (peer), the
// reference executor on ws_pool (the mutants' correct base) and its three mutants.
#include "../adapters/pilfer_graph.hpp"
#include "../adapters/tbb_flow_graph.hpp"
#include "../mutants/graph_exec.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_graphs(registry& r) {
  using mutants::graph_exec;
  using M = mutants::graph_mutation;
  r.add_graph<pilfer_graph>("pilfer.graph", "pilfer");
  r.add_graph<tbb_flow_graph>("peer.oneTBB.flow_graph", "peer");
  r.add_graph<graph_exec<M::none>>("ref.graph_exec", "reference", {}, "graph mutants' correct base");
  r.add_graph<graph_exec<M::early_release>>("mutant.graph.early_release", "mutant", "GRAPH-1",
                                            "a successor is released when its second-to-last predecessor finishes");
  r.add_graph<graph_exec<M::no_reset>>("mutant.graph.no_reset", "mutant", "GRAPH-2",
                                       "dependency counters are not reset between runs");
  r.add_graph<graph_exec<M::successors_to_injector>>("mutant.graph.successors_to_injector", "mutant", "GRAPH-3",
                                                     "ready successors go to the shared injector, not the own deque");
}
}  // namespace pilfer::conformance::suite
