// Injector scenarios on the real pilfer::basic_injector<int, checker_sync, 2>.
#include "scenarios.hpp"

namespace pilfer::model::scenarios {
std::vector<entry> injector_scenarios() { return {}; }
}  // namespace pilfer::model::scenarios
