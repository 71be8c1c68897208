// conformance/mutants/cl_deque.hpp — a Chase–Lev deque (Lê et al., PPoPP'13 orders) with an
// optional ONE-change mutation. `mutation::none` is the correct base: it must pass every DQ
// requirement (evidence that the suite does not reject correct code); each other value is a
// mutant the suite must kill. The base follows the same steps as lib/include/pilfer/deque.hpp
// (push/pop/steal, grow by copying [top, bottom) into a twice-as-large buffer, retired
// buffers kept until destruction) so each mutation is a realistic one-line slip.
#pragma once

#include <pilfer/sync.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "pilfer/conformance/adapters.hpp"

namespace pilfer::conformance::mutants {

enum class dq_mutation {
  none,
  fifo_pop,        // DQ-1: pop takes from the top (oldest) end
  lost_last,       // DQ-3: a thief that won the CAS backs off if the owner is popping too — item dropped
  dup_last,        // DQ-3: pop takes the last element with a plain store to top instead of a CAS
  stale_grow,      // DQ-4: grow copies physical slots to the same physical index (wrong after wrap-around)
  batch_reorder,   // DQ-6: batch steal pushes the stolen run into dest newest-first
  retry_as_empty,  // DQ-5: a thief that lost the CAS reports "empty" instead of "retry"
};

template <dq_mutation M>
class cl_deque {
  using S = pilfer::std_sync;
  struct buffer {
    explicit buffer(std::int64_t c) : cap(c), mask(c - 1), slots(new S::atomic<value_t>[static_cast<std::size_t>(c)]) {}
    std::int64_t cap, mask;
    std::unique_ptr<S::atomic<value_t>[]> slots;
    value_t get(std::int64_t i) const { return slots[static_cast<std::size_t>(i & mask)].load(PILFER_SITE("mutant.slot", relaxed)); }
    void put(std::int64_t i, value_t v) { slots[static_cast<std::size_t>(i & mask)].store(v, PILFER_SITE("mutant.slot", relaxed)); }
  };

 public:
  static constexpr const char* name = "cl_deque";
  static constexpr bool has_batch_steal = true;
  static constexpr bool has_retry = true;

  explicit cl_deque(std::size_t cap = 64) {
    std::int64_t c = 1;
    while (c < static_cast<std::int64_t>(cap)) c <<= 1;
    buffers_.push_back(std::make_unique<buffer>(c));
    buf_.store(buffers_.back().get(), PILFER_SITE("mutant.init", relaxed));
  }

  void push(value_t v) {
    const auto b = bottom_.load(PILFER_SITE("mutant.P1", relaxed));
    const auto t = top_.load(PILFER_SITE("mutant.P2", acquire));
    buffer* a = buf_.load(PILFER_SITE("mutant.P3", relaxed));
    if (b - t > a->cap - 1) a = grow(a, t, b);
    a->put(b, v);
    S::fence(PILFER_SITE("mutant.P4", release));
    bottom_.store(b + 1, PILFER_SITE("mutant.P5", relaxed));
  }

  std::optional<value_t> pop() {
    if constexpr (M == dq_mutation::fifo_pop) {
      for (;;) {
        auto r = steal_impl();
        if (r.status == outcome::success) return r.value;
        if (r.status == outcome::empty) return std::nullopt;
      }
    } else {
      const auto b = bottom_.load(PILFER_SITE("mutant.O1", relaxed)) - 1;
      buffer* a = buf_.load(PILFER_SITE("mutant.O2", relaxed));
      bottom_.store(b, PILFER_SITE("mutant.O3", relaxed));
      S::fence(PILFER_SITE("mutant.O4", seq_cst));
      auto t = top_.load(PILFER_SITE("mutant.O5", relaxed));
      if (t <= b) {
        const value_t x = a->get(b);
        if (t == b) {
          if constexpr (M == dq_mutation::dup_last) {
            top_.store(t + 1, PILFER_SITE("mutant.O6", seq_cst));
          } else if (!top_.compare_exchange_strong(t, t + 1, PILFER_SITE("mutant.O6", seq_cst),
                                                   PILFER_SITE("mutant.O6f", relaxed))) {
            bottom_.store(b + 1, PILFER_SITE("mutant.O7", relaxed));
            return std::nullopt;
          }
          bottom_.store(b + 1, PILFER_SITE("mutant.O7", relaxed));
        }
        return x;
      }
      bottom_.store(b + 1, PILFER_SITE("mutant.O8", relaxed));
      return std::nullopt;
    }
  }

  class stealer {
   public:
    explicit stealer(cl_deque* d) : d_(d) {}
    steal_outcome steal() const { return d_->steal_impl(); }
    batch_outcome steal_batch(cl_deque& dest, std::size_t max) const {
      std::size_t n = 0;
      auto r = d_->steal_run(dest, max, n, false);
      if (r.status != outcome::success) return {r.status, 0};
      return {outcome::success, n};
    }
    steal_outcome steal_batch_and_pop(cl_deque& dest, std::size_t max) const {
      std::size_t n = 0;
      return d_->steal_run(dest, max, n, true);
    }

   private:
    cl_deque* d_;
  };
  stealer get_stealer() { return stealer(this); }

 private:
  steal_outcome steal_impl() {
    auto t = top_.load(PILFER_SITE("mutant.S1", acquire));
    S::fence(PILFER_SITE("mutant.S2", seq_cst));
    const auto b = bottom_.load(PILFER_SITE("mutant.S3", acquire));
    if (t >= b) return steal_outcome::empty();
    buffer* a = buf_.load(PILFER_SITE("mutant.S4", acquire));
    const value_t x = a->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, PILFER_SITE("mutant.S5", seq_cst), PILFER_SITE("mutant.S5f", relaxed)))
      return M == dq_mutation::retry_as_empty ? steal_outcome::empty() : steal_outcome::retry();
    if constexpr (M == dq_mutation::lost_last) {
      // "Back off if the owner is popping the same element" — but the CAS already took it.
      if (bottom_.load(PILFER_SITE("mutant.S6", acquire)) <= t) return steal_outcome::retry();
    }
    return steal_outcome::success(x);
  }

  /// Batch: steal up to min(max, ceil(size/2)) items one by one, oldest first; with `and_pop`
  /// the first is returned and the rest go to dest, in source order.
  steal_outcome steal_run(cl_deque& dest, std::size_t max, std::size_t& moved, bool and_pop) {
    const auto t = top_.load(PILFER_SITE("mutant.B1", acquire));
    S::fence(PILFER_SITE("mutant.B2", seq_cst));
    const auto b = bottom_.load(PILFER_SITE("mutant.B3", acquire));
    if (t >= b) return steal_outcome::empty();
    std::size_t n = std::min<std::size_t>(max, static_cast<std::size_t>((b - t + 1) / 2));
    if (n == 0) n = 1;
    std::vector<value_t> run;
    steal_outcome first = steal_impl();
    if (first.status != outcome::success) return first;
    if (!and_pop) run.push_back(first.value);
    for (std::size_t i = 1; i < n; ++i) {
      auto r = steal_impl();
      if (r.status != outcome::success) break;
      run.push_back(r.value);
    }
    if constexpr (M == dq_mutation::batch_reorder)
      for (auto it = run.rbegin(); it != run.rend(); ++it) dest.push(*it);
    else
      for (auto v : run) dest.push(v);
    moved = run.size();
    return and_pop ? first : steal_outcome::success(0);
  }

  buffer* grow(buffer* a, std::int64_t t, std::int64_t b) {
    buffers_.push_back(std::make_unique<buffer>(a->cap * 2));
    buffer* n = buffers_.back().get();
    if constexpr (M == dq_mutation::stale_grow) {
      for (std::int64_t i = 0; i < a->cap; ++i) n->put(i, a->get(i));
    } else {
      for (std::int64_t i = t; i < b; ++i) n->put(i, a->get(i));
    }
    buf_.store(n, PILFER_SITE("mutant.G1", release));
    return n;
  }

  alignas(cache_line) S::atomic<std::int64_t> top_{0};
  alignas(cache_line) S::atomic<std::int64_t> bottom_{0};
  S::atomic<buffer*> buf_{nullptr};
  std::vector<std::unique_ptr<buffer>> buffers_;  // owner only; retired buffers live until destruction
};

}  // namespace pilfer::conformance::mutants
