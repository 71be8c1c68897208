// fuzz/injector_fuzz.cpp — pilfer::basic_injector against a sequential FIFO model.
//
// First byte: block size (2 or 63: the small one crosses a block boundary every other push). Then one
// operation per byte, one thread acting as producer, consumer and the consumer's own deque owner:
//   0,1 push (next value)   2 steal   3 steal_batch(dest, m)   4 steal_batch_and_pop(dest, m)
//   5 dest.pop()            6 steal from dest                  (m = next byte % 9; 0 counts as 1)
// Checked: steal returns the oldest; a batch moves k oldest items, 1 <= k <= min(ceil(n/2), m) (it may stop
// early at a block's end), into dest in order; nothing answers "retry" with one thread; size() and empty()
// agree with the model; allocated blocks stay within size/B + 3 (freed blocks are reclaimed, INJ-4); every
// block is freed at destruction (ASan's leak check).
// @verifies INJ-1 INJ-4
#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>

#include <algorithm>
#include <deque>

#include "deque_model_check.hpp"

namespace {

using pilfer::fuzz::fuzz_input;

template <std::size_t B>
void run_injector_program(fuzz_input& in) {
  pilfer::basic_injector<std::uint64_t, pilfer::std_sync, B> inj;
  pilfer::deque<std::uint64_t> dest(1);
  std::deque<std::uint64_t> im, dm;
  std::uint64_t next = 1;
  while (in.more()) {
    const std::uint8_t op = in.byte() % 7;
    switch (op) {
      case 0:
      case 1: inj.push(next); im.push_back(next++); break;
      case 2: pilfer::fuzz::expect_oldest(inj.steal(), im); break;
      case 3:
      case 4: {
        const std::size_t m = in.byte() % 9;
        const std::size_t bound = im.empty() ? 0 : std::min((im.size() + 1) / 2, m == 0 ? 1 : m);
        if (op == 3) {
          const auto r = inj.steal_batch(dest, m);
          PILFER_FUZZ_EXPECT(!r.is_retry());
          if (bound == 0) {
            PILFER_FUZZ_EXPECT(r.is_empty());
          } else {
            PILFER_FUZZ_EXPECT(r.is_success() && r.value >= 1 && r.value <= bound);
            for (std::size_t i = 0; i < r.value; ++i) {
              dm.push_back(im.front());
              im.pop_front();
            }
          }
        } else {
          const std::size_t before = dest.size();
          const auto r = inj.steal_batch_and_pop(dest, m);
          PILFER_FUZZ_EXPECT(!r.is_retry());
          if (bound == 0) {
            PILFER_FUZZ_EXPECT(r.is_empty());
          } else {
            PILFER_FUZZ_EXPECT(r.is_success() && r.value == im.front());
            im.pop_front();
            const std::size_t moved = dest.size() - before;
            PILFER_FUZZ_EXPECT(moved + 1 <= bound);
            for (std::size_t i = 0; i < moved; ++i) {
              dm.push_back(im.front());
              im.pop_front();
            }
          }
        }
        break;
      }
      case 5: pilfer::fuzz::expect_newest(dest.pop(), dm); break;
      case 6: pilfer::fuzz::expect_oldest(dest.steal(), dm); break;
      default: break;
    }
    PILFER_FUZZ_EXPECT(inj.size() == im.size());
    PILFER_FUZZ_EXPECT(inj.empty() == im.empty());
    PILFER_FUZZ_EXPECT(dest.size() == dm.size());
    PILFER_FUZZ_EXPECT(inj.live_blocks() <= im.size() / B + 3);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input in(data, size);
  if (in.byte() % 2 == 0)
    run_injector_program<2>(in);
  else
    run_injector_program<63>(in);
  return 0;
}
