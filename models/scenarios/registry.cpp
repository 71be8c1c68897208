// The scenario registry: every deque and injector scenario in summary order.
#include "scenarios.hpp"

namespace pilfer::model::scenarios {
std::vector<entry> deque_scenarios();
std::vector<entry> injector_scenarios();
std::vector<entry> pool_scenarios();
std::vector<entry> graph_scenarios();

std::vector<entry> all_scenarios() {
  auto v = deque_scenarios();
  auto w = injector_scenarios();
  v.insert(v.end(), w.begin(), w.end());
  auto pl = pool_scenarios();
  v.insert(v.end(), pl.begin(), pl.end());
  auto gr = graph_scenarios();
  v.insert(v.end(), gr.begin(), gr.end());
  return v;
}
}  // namespace pilfer::model::scenarios
