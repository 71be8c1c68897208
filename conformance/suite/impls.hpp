// conformance/suite/impls.hpp — registration functions of the in-tree suite (one per TU, so
// the heavy template instantiations compile in parallel).
#pragma once

#include "pilfer/conformance/suite.hpp"

namespace pilfer::conformance::suite {
void add_deques(registry& r);
void add_injectors(registry& r);
void add_pools(registry& r);
void add_deque_mutants(registry& r);
void add_other_mutants(registry& r);
void add_graphs(registry& r);  // graph executors and their mutants (graphs.cpp)
}  // namespace pilfer::conformance::suite
