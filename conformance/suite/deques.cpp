#include "../adapters/pilfer_adapters.hpp"
#include "../mutants/cl_deque.hpp"
#include "../mutants/mutex_refs.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_deques(registry& r) {
  r.add_deque<pilfer_deque>("pilfer.deque", "pilfer");
  r.add_deque<pilfer_mutex_deque>("pilfer.mutex_deque", "pilfer");
  // @verifies DQ-7 (DQ-1 to DQ-6, property-tested on the deque with asymmetric fences)
  r.add_deque<pilfer_asymmetric_deque>("pilfer.deque_asymmetric", "pilfer");
  r.add_deque<mutants::cl_deque<mutants::dq_mutation::none>>("ref.chase_lev", "reference", {},
                                                              "mutants' correct base");
  r.add_deque<mutants::mutex_deque_ref<mutants::mx_mutation::none>>("ref.mutex_deque", "reference", {},
                                                                     "mutants' correct base");
}
}  // namespace pilfer::conformance::suite
