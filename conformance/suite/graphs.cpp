// Task-graph executors under the GRAPH-* requirements: pilfer's, oneTBB's flow graph (peer) and the
// reference executor on ws_pool (the graph mutants' correct base, mutants_graph.cpp).
#include "../adapters/pilfer_graph.hpp"
#include "../adapters/tbb_flow_graph.hpp"
#include "../mutants/graph_exec.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_graphs(registry& r) {
  using mutants::graph_exec;
  r.add_graph<pilfer_graph>("pilfer.graph", "pilfer");
  r.add_graph<tbb_flow_graph>("peer.oneTBB.flow_graph", "peer");
  r.add_graph<graph_exec<mutants::graph_mutation::none>>("ref.graph_exec", "reference", {}, "graph mutants' correct base");
}
}  // namespace pilfer::conformance::suite
