// conformance/suite/main.cpp — the in-tree runner: pilfer's components, peers, references and (when
// built: PILFER_CONFORMANCE_MUTANTS) mutants.
// Built twice: pilfer_conformance (ctest entry point) and pilfer_conformance_report (the report).
#include "impls.hpp"

int main(int argc, char** argv) {
  pilfer::conformance::registry r;
  pilfer::conformance::suite::add_deques(r);
  pilfer::conformance::suite::add_injectors(r);
  pilfer::conformance::suite::add_pools(r);
  pilfer::conformance::suite::add_graphs(r);
#if PILFER_CONFORMANCE_MUTANTS
  pilfer::conformance::suite::add_deque_mutants(r);
  pilfer::conformance::suite::add_other_mutants(r);
  pilfer::conformance::suite::add_graph_mutants(r);
#endif
  return pilfer::conformance::main(r, argc, argv);
}
