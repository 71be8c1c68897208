// conformance/adapters/moodycamel_injector.hpp — moodycamel::ConcurrentQueue as an injector.
// Its FIFO guarantee is per producer token / implicit producer (per thread), which is exactly
// INJ-1's per-producer FIFO; try_dequeue has no "retry": a miss is reported as empty.
#pragma once

#include <concurrentqueue/concurrentqueue.h>

#include "pilfer/conformance/adapters.hpp"

namespace pilfer::conformance {

class moodycamel_injector {
 public:
  static constexpr const char* name = "moodycamel::ConcurrentQueue";
  void push(value_t v) { q_.enqueue(v); }
  steal_outcome steal() {
    value_t v = 0;
    return q_.try_dequeue(v) ? steal_outcome::success(v) : steal_outcome::empty();
  }

 private:
  moodycamel::ConcurrentQueue<value_t> q_;
};

}  // namespace pilfer::conformance
