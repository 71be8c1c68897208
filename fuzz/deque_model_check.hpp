// fuzz/deque_model_check.hpp — the model checks shared by the fuzz targets (expect_newest / expect_oldest),
// and one byte-encoded program of deque operations, run on a work-stealing deque
// (basic_deque or basic_mutex_deque: the same API) and on a sequential model (two std::deque).
//
// Two deques: the victim and the thief's own deque `dest`. One thread plays the victim's owner and a thief
// in turn, so the operations interleave at operation granularity (the concurrent interleavings inside one
// operation are the model checker's job, models/). Each byte is an operation:
//   0 push (next value)      1 pop (owner: newest)        2 steal (thief: oldest)
//   3 steal_batch(dest, m)   4 steal_batch_and_pop(dest, m)  (m = next byte % 9; 0 counts as 1)
//   5 dest.pop()             6 dest.push (next value)     7 steal from dest
// Every answer is compared with the model: pop returns the newest, steal the oldest; a batch takes
// exactly min(ceil(n/2), m) of the oldest and appends them to dest in order; with one thread nothing may
// answer "retry"; the sizes agree after every operation; destruction with items left frees everything
// (ASan's leak check).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>

#include "fuzz_input.hpp"

namespace pilfer::fuzz {

/// An owner's pop: the model's newest item, or nothing when the model is empty.
inline void expect_newest(std::optional<std::uint64_t> got, std::deque<std::uint64_t>& model) {
  if (model.empty()) {
    PILFER_FUZZ_EXPECT(!got.has_value());
  } else {
    PILFER_FUZZ_EXPECT(got.has_value() && *got == model.back());
    model.pop_back();
  }
}

/// A steal with one thread: never retry; the model's oldest item, or empty.
template <class StealResult>
void expect_oldest(const StealResult& got, std::deque<std::uint64_t>& model) {
  PILFER_FUZZ_EXPECT(!got.is_retry());
  if (model.empty()) {
    PILFER_FUZZ_EXPECT(got.is_empty());
  } else {
    PILFER_FUZZ_EXPECT(got.is_success() && got.value == model.front());
    model.pop_front();
  }
}

template <class Deque>
void run_deque_program(fuzz_input& in) {
  const std::size_t cap = std::size_t{1} << (in.byte() % 8);  // 1 .. 128: growth early and often
  Deque victim(cap);
  Deque dest(cap);
  auto thief = victim.get_stealer();
  auto dest_thief = dest.get_stealer();
  std::deque<std::uint64_t> vm, dm;
  std::uint64_t next = 1;
  while (in.more()) {
    const std::uint8_t op = in.byte() % 8;
    switch (op) {
      case 0: victim.push(next); vm.push_back(next++); break;
      case 1: expect_newest(victim.pop(), vm); break;
      case 2: expect_oldest(thief.steal(), vm); break;
      case 3:
      case 4: {
        std::size_t m = in.byte() % 9;
        const std::size_t want = vm.empty() ? 0 : std::min((vm.size() + 1) / 2, m == 0 ? 1 : m);
        if (op == 3) {
          const auto r = thief.steal_batch(dest, m);
          PILFER_FUZZ_EXPECT(!r.is_retry());
          PILFER_FUZZ_EXPECT(want == 0 ? r.is_empty() : (r.is_success() && r.value == want));
          for (std::size_t i = 0; i < want; ++i) {
            dm.push_back(vm.front());
            vm.pop_front();
          }
        } else {
          const auto r = thief.steal_batch_and_pop(dest, m);
          PILFER_FUZZ_EXPECT(!r.is_retry());
          if (want == 0) {
            PILFER_FUZZ_EXPECT(r.is_empty());
          } else {
            PILFER_FUZZ_EXPECT(r.is_success() && r.value == vm.front());
            vm.pop_front();
            for (std::size_t i = 1; i < want; ++i) {
              dm.push_back(vm.front());
              vm.pop_front();
            }
          }
        }
        break;
      }
      case 5: expect_newest(dest.pop(), dm); break;
      case 6: dest.push(next); dm.push_back(next++); break;
      case 7: expect_oldest(dest_thief.steal(), dm); break;
      default: break;
    }
    PILFER_FUZZ_EXPECT(victim.size() == vm.size());
    PILFER_FUZZ_EXPECT(dest.size() == dm.size());
  }
}

}  // namespace pilfer::fuzz
