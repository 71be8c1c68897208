// spsc_ring.hpp — a bounded single-producer single-consumer ring buffer, the outside project's own
// lock-free structure. Written against pilfer's synchronisation policy (pilfer/sync.hpp), like
// pilfer::basic_deque: production code uses the default `pilfer::std_sync` (plain std::atomic, zero
// cost); spsc_ring_check.cpp instantiates this same header with `pilfer::model::checker_sync`, so the
// checker explores the code the program runs, not a copy of it.
//
// Design. Two counters that only grow: `tail_` (items ever pushed; written by the producer only) and
// `head_` (items ever popped; written by the consumer only). Item i lives in slot i % Capacity. The
// producer owns slots [tail_, head_ + Capacity), the consumer owns [head_, tail_); each counter store
// hands slots from one side to the other, so each must publish what was done to the slot before it.
//
//   tag      operation            order    pairs with  if weakened to relaxed
//   ring.P0  push: load tail_     relaxed  -           (own counter: only the producer writes it)
//   ring.P1  push: load head_     acquire  ring.C2     the producer may overwrite a slot the consumer is
//                                                      still reading: data race on the slot
//   ring.P2  push: store tail_    release  ring.C1     the consumer may read a slot before the value
//                                                      written into it: data race on the slot
//   ring.C0  pop: load head_      relaxed  -           (own counter: only the consumer writes it)
//   ring.C1  pop: load tail_      acquire  ring.P2     as ring.P2
//   ring.C2  pop: store head_     release  ring.P1     as ring.P1
//
// Counters are std::size_t: at one push per nanosecond they wrap after 584 years.
#pragma once

#include <pilfer/sync.hpp>

#include <cstddef>
#include <optional>

namespace outside {

template <class T, std::size_t Capacity, class Sync = pilfer::std_sync>
class basic_spsc_ring {
  static_assert(Capacity > 0, "a ring holds at least one item");

 public:
  basic_spsc_ring() = default;
  basic_spsc_ring(const basic_spsc_ring&) = delete;
  basic_spsc_ring& operator=(const basic_spsc_ring&) = delete;

  /// Producer thread only. Wait-free, O(1). Appends `v` and returns true, or returns false when the
  /// ring is full. Linearization point: the ring.P2 store (success) or the ring.P1 load (full).
  [[nodiscard]] bool try_push(const T& v) {
    const std::size_t tail = tail_.load(PILFER_SITE("ring.P0", relaxed));
    // [ring.P1] acquire: pairs with [ring.C2]; the consumer's read of the slot we may reuse happens-before
    // our write to it.
    const std::size_t head = head_.load(PILFER_SITE("ring.P1", acquire));
    if (tail - head == Capacity) return false;
    slots_[tail % Capacity].write() = v;
    // [ring.P2] release: publishes the slot written above; pairs with [ring.C1].
    tail_.store(tail + 1, PILFER_SITE("ring.P2", release));
    return true;
  }

  /// Consumer thread only. Wait-free, O(1). Removes and returns the oldest item, or nothing when the
  /// ring is empty. Linearization point: the ring.C2 store (success) or the ring.C1 load (empty).
  [[nodiscard]] std::optional<T> try_pop() {
    const std::size_t head = head_.load(PILFER_SITE("ring.C0", relaxed));
    // [ring.C1] acquire: pairs with [ring.P2]; the producer's write of slot `head` happens-before our read.
    const std::size_t tail = tail_.load(PILFER_SITE("ring.C1", acquire));
    if (head == tail) return std::nullopt;
    T v = slots_[head % Capacity].read();
    // [ring.C2] release: hands the slot back after our read; pairs with [ring.P1].
    head_.store(head + 1, PILFER_SITE("ring.C2", release));
    return v;
  }

 private:
  alignas(pilfer::cache_line) typename Sync::template atomic<std::size_t> head_{0};
  alignas(pilfer::cache_line) typename Sync::template atomic<std::size_t> tail_{0};
  alignas(pilfer::cache_line) typename Sync::template cell<T> slots_[Capacity];
};

/// The ring as production code uses it.
template <class T, std::size_t Capacity>
using spsc_ring = basic_spsc_ring<T, Capacity>;

}  // namespace outside
