#include "../adapters/pilfer_adapters.hpp"
#include "../adapters/single_queue_pool.hpp"
#include "../adapters/tbb_pool.hpp"
#include "../mutants/ws_pool.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_pools(registry& r) {
  r.add_pool<pilfer_pool>("pilfer.pool", "pilfer");
  r.add_pool<tbb_pool>("peer.oneTBB", "peer");
  r.add_pool<single_queue_pool>("peer.single_queue_pool", "peer");
  r.add_pool<mutants::ws_pool<mutants::pool_mutation::none>>("ref.ws_pool", "reference", {}, "mutants' correct base");
}
}  // namespace pilfer::conformance::suite
