// Build check, compiled (not run) by the ctest graph.sanitizer_build_warnings with the asan preset's
// flags plus -Werror: g++ 12 checks a compare-exchange's orders only where it is inlined, so a pair
// it rejects (-Winvalid-memory-model: the failure order stronger than the success order) breaks a
// user's sanitizer build but not the dev build. The graph's destructor is where the claim word's
// CAS ([graph.G4]/[graph.G2]) is inlined; the rest instantiates a run and a wait.
// Before: mark_waiter's relaxed/acquire CAS failed this check.
// @verifies GRAPH-10: a graph destroyed while its run goes on (the destructor's claim-word mark)
#include <pilfer/graph.hpp>

void destroy_a_graph_after_its_run(pilfer::pool& p) {
  pilfer::graph g("check");
  g.emplace([] {});
  pilfer::run(p, g).get();
}
