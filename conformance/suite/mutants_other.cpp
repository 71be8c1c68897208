#include "../mutants/mutex_refs.hpp"
#include "../mutants/ws_pool.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_other_mutants(registry& r) {
  using mutants::ws_pool;
  using M = mutants::pool_mutation;
  r.add_injector<mutants::mutex_injector_ref<mutants::mx_mutation::lifo_injector>>(
      "mutant.inj.lifo", "mutant", "INJ-1", "steal() takes the newest item");
  r.add_pool<ws_pool<M::spawn_to_injector>>("mutant.pool.spawn_to_injector", "mutant", "POOL-5",
                                            "spawn() inside a task pushes to the shared injector");
  r.add_pool<ws_pool<M::park_no_recheck>>("mutant.pool.park_no_recheck", "mutant", "POOL-7",
                                          "parks after the last back-off without re-checking the queues");
  r.add_pool<ws_pool<M::spin_idle>>("mutant.pool.spin_idle", "mutant", "POOL-4", "idle workers never park");
  r.add_pool<ws_pool<M::blocking_wait>>("mutant.pool.blocking_wait", "mutant", "POOL-11",
                                        "a wait inside a task blocks the worker instead of helping");
}
}  // namespace pilfer::conformance::suite
