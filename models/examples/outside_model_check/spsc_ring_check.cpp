// spsc_ring_check.cpp — model-checks spsc_ring.hpp with pilfer's checker. pilfer_add_model_check() in
// CMakeLists.txt builds this program and registers one ctest per scenario listed in main():
//
//   ring.conservation     the ring as written: proved (every execution C++20 allows is checked)
//   ring.publish_relaxed  the same ring with [ring.P2] weakened release -> relaxed: the checker must
//                         report the data race on the slot, with its trace
//
// Run by hand: ./spsc_ring_check --all, or one scenario with --replay=TOKEN to print a failing trace.
#include "spsc_ring.hpp"

#include <pilfer/model/checker.hpp>
#include <pilfer/model/runner.hpp>

#include <memory>
#include <vector>

namespace {

using pilfer::model::checker_sync;

// Invariant (conservation and FIFO order): the producer offers 1, 2, 3 to a ring of capacity 2 and
// stops at the first "full" (the third push succeeds only by reusing the slot the consumer freed); the
// consumer tries to pop twice. Every value pushed is taken exactly once, in order: the consumer's values,
// then those still in the ring (drained in after(), which happens-after both threads), are 1, 2, ..., n
// where n is the number of successful pushes. Slots are checker cells, so an unordered write/read of one
// slot is reported as a data race.
struct ring_conservation : pilfer::model::scenario {
  outside::basic_spsc_ring<int, 2, checker_sync> ring;
  int pushed = 0;   // producer's successful pushes (thread 0 only, then after())
  int got[2] = {};  // consumer's values (thread 1 only, then after())
  int got_count = 0;

  ring_conservation() : scenario(2) {}
  void thread(unsigned index) override {
    if (index == 0) {
      for (int x = 1; x <= 3 && ring.try_push(x); ++x) pushed = x;
    } else {
      for (int k = 0; k < 2; ++k)
        if (auto v = ring.try_pop()) got[got_count++] = *v;
    }
  }
  void after() override {
    int next = 1;
    for (int k = 0; k < got_count; ++k) PILFER_MODEL_ASSERT(got[k] == next++);
    while (auto v = ring.try_pop()) PILFER_MODEL_ASSERT(*v == next++);
    PILFER_MODEL_ASSERT(next - 1 == pushed);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto make = [] { return std::make_unique<ring_conservation>(); };
  pilfer::model::options publish_relaxed;  // exhaustive, C++20 (the defaults) ...
  publish_relaxed.weaken["ring.P2"] = std::memory_order_relaxed;  // ... with ring.P2 as relaxed
  const std::vector<pilfer::model::scenario_entry> scenarios{
      {.name = "ring.conservation", .make = make},
      {.name = "ring.publish_relaxed", .make = make, .opts = publish_relaxed,
       .expected_failure = "data race"},
  };
  return pilfer::model::scenario_main(scenarios, argc, argv);
}
