#include "../mutants/mutex_refs.hpp"
#include "../mutants/pilfer_pool_mutants.hpp"
#include "../mutants/ws_pool.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_other_mutants(registry& r) {
  using mutants::ws_pool;
  using M = mutants::pool_mutation;
  r.add_injector<mutants::mutex_injector_ref<mutants::mx_mutation::lifo_injector>>(
      "mutant.inj.lifo", "mutant", "INJ-1", "steal() takes the newest item");
  r.add_injector<mutants::mutex_block_injector_ref<mutants::mx_mutation::keep_blocks>>(
      "mutant.inj.keep_blocks", "mutant", "INJ-4", "a drained block is never freed (memory grows with items ever pushed)");
  r.add_pool<ws_pool<M::spawn_to_injector>>("mutant.pool.spawn_to_injector", "mutant", "POOL-5",
                                            "spawn() inside a task pushes to the shared injector");
  r.add_pool<ws_pool<M::park_no_recheck>>("mutant.pool.park_no_recheck", "mutant", "POOL-7",
                                          "parks after the last back-off without re-checking the queues");
  r.add_pool<ws_pool<M::spin_idle>>("mutant.pool.spin_idle", "mutant", "POOL-4", "idle workers never park");
  r.add_pool<ws_pool<M::blocking_wait>>("mutant.pool.blocking_wait", "mutant", "POOL-11",
                                        "a wait inside a task blocks the worker instead of running the awaited queued task");
  r.add_pool<ws_pool<M::sleep_no_handoff>>("mutant.pool.sleep_no_handoff", "mutant", "POOL-18",
                                           "old sleep protocol: a push wakes nobody while a worker searches; the woken "
                                           "worker is not counted as searching and hands the search on to nobody");
  r.add_pool<ws_pool<M::help_any>>("mutant.pool.help_any", "mutant", "POOL-19",
                                   "old helping waits: a wait runs any queued task on top of its frame (deadlock)");
  r.add_pool<ws_pool<M::help_any>>("mutant.pool.help_any_deep", "mutant", "POOL-20",
                                   "old helping waits: every waiter runs the next queued waiter on top of itself");
  r.add_pool<ws_pool<M::join_ignores_injector>>("mutant.pool.join_ignores_injector", "mutant", "POOL-8",
                                                "fork_join takes its own arm back without the injector interval");
  r.add_pool<ws_pool<M::drop_swallows>>("mutant.pool.drop_swallows", "mutant", "POOL-21",
                                        "a dropped handle's exception is discarded silently");
  r.add_pool<ws_pool<M::injector_after_park>>("mutant.pool.injector_after_park", "mutant", "POOL-3",
                                              "an idle worker parks before looking at the injector");
  r.add_pool<ws_pool<M::priority_ignored>>("mutant.pool.priority_ignored", "mutant", "POOL-15",
                                           "a high-priority task is queued like a normal one");
  r.add_pool<ws_pool<M::affinity_stealable>>("mutant.pool.affinity_stealable", "mutant", "POOL-15",
                                             "an affinity task goes to the shared injector (any worker takes it)");
  r.add_pool<ws_pool<M::eager_split>>("mutant.pool.eager_split", "mutant", "POOL-16",
                                      "parallel loops split every range down to the grain (no split budget)");
  r.add_pool<ws_pool<M::reduce_swapped>>("mutant.pool.reduce_swapped", "mutant", "POOL-16",
                                         "parallel_reduce combines the right half first (assumes commutativity)");
  r.add_pool<ws_pool<M::early_ready>>("mutant.pool.early_ready", "mutant", "POOL-17",
                                      "a result handle is ready() once its task started, before it finished");
  r.add_pool<mutants::pilfer_pool_flat_topology>("mutant.pilfer_pool.flat_topology", "mutant", "POOL-13",
                                                 "pilfer's pool handed a flat topology: placement ignores nodes, caches");
  r.add_pool<mutants::pilfer_pool_old_sleep>("mutant.pilfer_pool.old_sleep", "mutant", "POOL-18",
                                             "pilfer's pool with its old sleep protocol (pool_mutation hook)");
  r.add_pool<mutants::pilfer_pool_old_helping>("mutant.pilfer_pool.old_helping", "mutant", "POOL-19",
                                               "pilfer's pool with its old helping waits (pool_mutation hook)");
  r.add_pool<mutants::pilfer_pool_old_helping>("mutant.pilfer_pool.old_helping_deep", "mutant", "POOL-20",
                                               "pilfer's pool with its old helping waits: waiters nest on one stack");
  r.add_pool<mutants::pilfer_pool_no_spare_on_demand>(
      "mutant.pilfer_pool.no_spare_on_demand", "mutant", "POOL-20",
      "pilfer's pool whose blocked wait starts a spare only for work queued when it blocks");
}
}  // namespace pilfer::conformance::suite
