// conformance/mutants/pilfer_pool_mutants.hpp — pilfer's own pool compiled with its OLD behaviour, through the
// pool's compile-time pool_mutation hook (lib/include/pilfer/pool.hpp): the sleep protocol in which a woken
// worker is not counted as searching (issue 8 point 1) and the helping waits that run any queued task on top of
// the waiting frame (issue 8 points 2 and 3); and a blocked wait whose spare is started only for work queued
// when it blocks, never for work that comes later. The suite must kill each, as it kills the ws_pool mutants.
#pragma once

#include <pilfer/pool.hpp>
#include <pilfer/sync.hpp>

#include <string>

#include "../adapters/pilfer_adapters.hpp"

namespace pilfer::conformance::mutants {

struct old_sleep_sync : pilfer::std_sync {
  static constexpr pilfer::detail::pool_mutation pool_mutation = pilfer::detail::pool_mutation::old_sleep_protocol;
};
struct old_helping_sync : pilfer::std_sync {
  static constexpr pilfer::detail::pool_mutation pool_mutation = pilfer::detail::pool_mutation::old_helping;
};

struct no_spare_on_demand_sync : pilfer::std_sync {
  static constexpr pilfer::detail::pool_mutation pool_mutation = pilfer::detail::pool_mutation::no_spare_on_demand;
};

using pilfer_pool_old_sleep = basic_pilfer_pool<old_sleep_sync>;
using pilfer_pool_old_helping = basic_pilfer_pool<old_helping_sync>;
using pilfer_pool_no_spare_on_demand = basic_pilfer_pool<no_spare_on_demand_sync>;

/// pilfer's pool handed a flat topology whatever the machine (the fallback path taken when it should not be):
/// placement and victim order ignore caches and NUMA nodes (POOL-13).
class pilfer_pool_flat_topology : public pilfer_pool {
 public:
  using pilfer_pool::pilfer_pool;
  static placement_view placement_on(const std::string& synthetic, unsigned workers) {
    return placement_with(pilfer::topology::flat(pilfer::topology::synthetic(synthetic).num_pus()), workers);
  }
};

}  // namespace pilfer::conformance::mutants
