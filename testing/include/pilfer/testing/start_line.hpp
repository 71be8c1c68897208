// pilfer/testing/start_line.hpp — threads of one repetition wait here so they start their work together,
// widening the windows in which their operations overlap.
#pragma once

#include <pilfer/sync.hpp>

namespace pilfer::testing {

class start_line {
 public:
  explicit start_line(int parties) noexcept : parties_(parties) {}
  void arrive_and_wait() noexcept {
    // acq_rel / acquire: every party's writes before arriving are visible to every party after the line.
    arrived_.fetch_add(1, PILFER_SITE("testing.start", acq_rel));
    // Spin briefly, then yield: with more threads than cores a pure spin would burn whole time slices.
    for (int n = 0; arrived_.load(PILFER_SITE("testing.start", acquire)) < parties_; ++n) {
      if (n < 256) {
        pilfer::std_sync::spin_hint();
      } else {
        pilfer::std_sync::yield();
      }
    }
  }

 private:
  int parties_;
  pilfer::std_sync::atomic<int> arrived_{0};
};

}  // namespace pilfer::testing
