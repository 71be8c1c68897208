// conformance/suite/impls.hpp — registration functions of the in-tree suite (one per TU, so
// the heavy template instantiations compile in parallel).
#pragma once

#include "pilfer/conformance/suite.hpp"

namespace pilfer::conformance::suite {
void add_deques(registry& r);
void add_injectors(registry& r);
void add_pools(registry& r);
void add_graphs(registry& r);  // graph executors (graphs.cpp)
// The mutants, built when PILFER_CONFORMANCE_MUTANTS is on (conformance/CMakeLists.txt).
void add_deque_mutants(registry& r);
void add_other_mutants(registry& r);
void add_graph_mutants(registry& r);
}  // namespace pilfer::conformance::suite
