#include "../adapters/moodycamel_injector.hpp"
#include "../adapters/pilfer_adapters.hpp"
#include "../mutants/mutex_refs.hpp"
#include "impls.hpp"

namespace pilfer::conformance::suite {
void add_injectors(registry& r) {
  r.add_injector<pilfer_injector>("pilfer.injector", "pilfer");
  r.add_injector<moodycamel_injector>("peer.moodycamel", "peer");
  r.add_injector<mutants::mutex_injector_ref<mutants::mx_mutation::none>>("ref.mutex_queue", "reference", {},
                                                                           "mutants' correct base");
  r.add_injector<mutants::mutex_block_injector_ref<mutants::mx_mutation::none>>(
      "ref.block_queue", "reference", {}, "INJ-4 mutant's correct base: mutex + linked blocks of 4 slots");
}
}  // namespace pilfer::conformance::suite
