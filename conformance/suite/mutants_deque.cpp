#include "../mutants/cl_deque.hpp"
#include "../mutants/mutex_refs.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_deque_mutants(registry& r) {
  using mutants::cl_deque;
  using M = mutants::dq_mutation;
  r.add_deque<cl_deque<M::fifo_pop>>("mutant.dq.fifo_pop", "mutant", "DQ-1", "pop() takes the oldest item (top end)");
  r.add_deque<mutants::mutex_deque_ref<mutants::mx_mutation::lifo_steal>>(
      "mutant.dq.lifo_steal", "mutant", "DQ-2", "steal() takes the newest item (mutex deque)");
  r.add_deque<cl_deque<M::lost_last>>("mutant.dq.lost_last", "mutant", "DQ-3",
                                      "thief backs off after winning the CAS when the owner pops too: item lost");
  r.add_deque<cl_deque<M::dup_last>>("mutant.dq.dup_last", "mutant", "DQ-3",
                                     "pop takes the last item with a store to top instead of a CAS: duplicated");
  r.add_deque<cl_deque<M::stale_grow>>("mutant.dq.stale_grow", "mutant", "DQ-4",
                                       "grow copies physical slots 0..cap-1 in place: stale reads after wrap-around");
  r.add_deque<cl_deque<M::retry_as_empty>>("mutant.dq.retry_as_empty", "mutant", "DQ-5",
                                           "a thief that lost the CAS reports empty instead of retry");
  r.add_deque<cl_deque<M::batch_reorder>>("mutant.dq.batch_reorder", "mutant", "DQ-6",
                                          "batch steal pushes the stolen run into dest newest-first");
}
}  // namespace pilfer::conformance::suite
