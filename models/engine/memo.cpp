// models/engine/memo.cpp — pruning: the canonical state hash and the memo table of states seen.
//
// Pruning (see exploration.cpp): a state seen before is not explored again.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

/// The memo table is a cache, not a set: forgetting a state only means exploring it again, so
/// exploration stays complete while memory stays bounded by options::memo_entries. A state lives
/// in the first free slot of its probe sequence: its home bucket of 4 slots, then the next
/// buckets in turn, `probe_buckets` in all (open addressing; nothing is ever deleted, an
/// eviction overwrites in place, so a probe may stop at the first empty slot). Below the cap the
/// table doubles at half load, or when a probe sequence is full (or one overflows while
/// rehashing), so nothing is forgotten and each distinct graph is completed exactly once. At
/// the cap the table fills up to its last slots before it forgets: a state whose probe
/// sequence is full replaces one in its home bucket (result::forgotten), and then a graph may
/// be completed more than once. (Until conf_loop without symmetry, a state was forgotten as
/// soon as its 4-slot bucket was full: 923 316 states of 2.8 million at the 2²¹ cap, 3 034 at
/// 2²⁴ with the table 17 % full.)
bool checker::memo_seen(hash128 h) {
  if (opt_.memo_entries == 0) return false;
  if (h.a == 0 && h.b == 0) h.b = 1;  // {0,0} marks an empty slot
  constexpr std::size_t ways = 4, probe_buckets = 16;
  const std::size_t cap = std::max<std::size_t>(opt_.memo_entries, 64);
  const auto is_empty = [](const hash128& x) { return x.a == 0 && x.b == 0; };
  const auto bucket = [&](const hash128& x) { return (x.a & (memo_.size() - 1)) & ~(ways - 1); };
  // The i-th slot of x's probe sequence (i < probes()): bucket after bucket, wrapping around.
  const auto probes = [&] { return std::min(probe_buckets, memo_.size() / ways) * ways; };
  const auto slot_of = [&](std::size_t base, std::size_t i) { return (base + i) & (memo_.size() - 1); };
  // Rehash into a table twice as large; doubles again while an entry does not fit (below the cap).
  const auto grow = [&] {
    std::vector<hash128> old;
    old.swap(memo_);
    std::size_t size = old.size() * 2;
    for (bool fits = false; !fits; size *= 2) {
      memo_.assign(size, hash128{0, 0});
      memo_used_ = 0;
      fits = true;
      const std::size_t n = probes();
      for (const hash128& x : old) {
        if (is_empty(x)) continue;
        const std::size_t base = bucket(x);
        std::size_t i = 0;
        while (i < n && !is_empty(memo_[slot_of(base, i)])) ++i;
        if (i < n) {
          memo_[slot_of(base, i)] = x;
          ++memo_used_;
        } else if (size * 2 <= cap) {
          fits = false;  // try twice the size
          break;
        } else {
          ++res_.forgotten;  // at the cap: the table is a cache
        }
      }
    }
  };
  if (memo_.empty()) memo_.assign(std::min<std::size_t>(cap, std::size_t{1} << 14), hash128{0, 0});
  // grow (rehash) while the table is at most half full and below the cap
  if (memo_used_ * 2 > memo_.size() && memo_.size() * 2 <= cap) grow();
  for (;;) {
    const std::size_t base = bucket(h), n = probes();
    for (std::size_t i = 0; i < n; ++i) {
      hash128& slot = memo_[slot_of(base, i)];
      if (slot == h) return true;
      if (is_empty(slot)) {
        slot = h;
        ++memo_used_;
        return false;
      }
    }
    if (memo_.size() * 2 > cap) break;
    grow();  // below the cap a full probe sequence grows the table: no state is forgotten
  }
  memo_[bucket(h) + (h.b % ways)] = h;  // at the cap, probe sequence full: forget a state of its home bucket
  ++res_.forgotten;
  return false;
}

hash128 checker::state_hash() const {
  if (alt_active_) return symmetric_state_hash();  // the least over the labelings (symmetry.cpp)
  std::uint64_t a = 0, b = 0;
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    std::uint64_t extra = thread_state_bits(th) |
                          (static_cast<std::uint64_t>(th.fresh_loc == none ? 0 : locs_[th.fresh_loc].key) << 20);
    std::uint64_t ry = 0;
    for (auto l : th.spin_locs) ry = mix64(ry + locs_[l].key);  // (in order: the order decides which reads are forced)
    // Most threads did not move since the previous state: their term is reused.
    mthread::hash_term& term = th.term;
    if (!term.valid || term.key != th.key || term.ha != th.ha || term.hb != th.hb || term.extra != extra ||
        term.ry != ry) {
      term = mthread::hash_term{th.key,
                                th.ha,
                                th.hb,
                                extra,
                                ry,
                                combine(combine(combine(th.key, th.ha), extra), ry),
                                combine_b(combine_b(combine_b(th.key, th.hb), extra), ry),
                                true};
    }
    a += term.a;
    b += term.b;
  }
  // Σ over atomic and mutex locations of (key, mo hash), kept by new_location() and commit().
  a += loc_hash_sum_a_;
  b += loc_hash_sum_b_;
  if (unbranched_) {
    // The same graph with branching on and off has different futures; and with it off, the one
    // schedule lets the thread that ran last go on, so that thread (named by its canonical key)
    // is part of the state.
    const std::uint64_t last = last_run_ == none ? 0 : threads_[last_run_].key;
    a = combine(a, 0x5eed'0000'0001ull ^ last);
    b = combine_b(b, 0x5eed'0000'0001ull ^ last);
  }
  if (opt_.preemption_bound) {
    a = combine(a, (static_cast<std::uint64_t>(preemptions_) << 32) | last_run_);
    b = combine_b(b, (static_cast<std::uint64_t>(preemptions_) << 32) | last_run_);
  }
  return hash128{a, b};
}

}  // namespace pilfer::model::engine
