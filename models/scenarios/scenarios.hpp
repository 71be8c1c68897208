// models/scenarios/scenarios.hpp — model scenarios on pilfer's REAL deque and injector headers,
// instantiated with checker_sync. Each scenario states the invariant it checks and asserts
// conservation: every value pushed is taken exactly once (no loss, no duplicate).
//
// The registry (all_scenarios()) is shared by the per-scenario ctests, the sensitivity table
// and pilfer_model_summary.
#pragma once

#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/model/checker.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pilfer::model::scenarios {

using S = checker_sync;
using deque_t = pilfer::basic_deque<int, S>;

/// Values taken by one thread; written only by that thread, read in after() (hb-after).
struct taken {
  int v[8] = {};
  int n = 0;
  void add(int x) {
    if (n < 8) v[n] = x;
    ++n;
  }
};

/// after(): each of 1..count taken exactly once over all threads.
inline void assert_exactly_once(const taken* t, unsigned threads, int count) {
  int seen[16] = {};
  for (unsigned i = 0; i < threads; ++i) {
    PILFER_MODEL_ASSERT(t[i].n <= 8);
    for (int k = 0; k < t[i].n; ++k) {
      const int x = t[i].v[k];
      PILFER_MODEL_ASSERT(x >= 1 && x <= count);
      ++seen[x];
    }
  }
  for (int x = 1; x <= count; ++x) PILFER_MODEL_ASSERT(seen[x] == 1);  // DQ-3 / INJ-2: no loss, no duplicate
}

struct entry {
  std::string name;   // ctest name suffix
  std::string ids;    // requirement IDs (also tagged at the scenario in its .cpp)
  std::function<std::unique_ptr<scenario>()> make;
  options opts;       // bounds used by ctest / summary / sensitivity
  bool in_sensitivity = true;  // false: too large to re-run once per weakened tag
};

/// Every scenario, in summary order.
std::vector<entry> all_scenarios();

}  // namespace pilfer::model::scenarios
