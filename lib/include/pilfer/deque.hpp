// pilfer/deque.hpp — the Chase–Lev work-stealing deque.
//
// Algorithm: D. Chase, Y. Lev, "Dynamic circular work-stealing deque", SPAA 2005,
// with the C11 orders of N. M. Lê, A. Pop, A. Cohen, F. Zappa Nardelli,
// "Correct and efficient work-stealing for weak memory models", PPoPP 2013,
// including their fix for growth (the buffer pointer is published with release
// and read by thieves with acquire). Design note: lib/docs/deque.md — every
// order below carries the tag of its row in that note's table.
//
// Roles are types. `basic_deque` is the OWNER's handle: one thread pushes and
// pops at the bottom (LIFO). `basic_deque::stealer` is a cheap copyable handle
// any thread may use to take from the top (FIFO). A debug build (!NDEBUG)
// aborts with a message when an owner operation comes from a second thread.
//
// Field layout: `top_` (written by thieves' CAS and the owner's last-item CAS),
// `bottom_` (written only by the owner) and `buffer_` (read by everyone,
// written only on growth) share one cache line. A steal reads all three and a
// pop writes one and reads another, so one line moves per operation where
// separate lines moved two or three. Measured with one owner and one thief
// (bench_deque's steal rows, binaries alternated on the quiet machine, 5
// rounds): top/bottom/buffer on one line 1.3-1.9 ms per 65 536 items singly
// and 1.2-1.5 ms in batches; top and bottom on one line, the buffer pointer
// on the next, 1.5-1.7 and 1.5-1.9 ms; all three on separate lines (before)
// 2.7-9.8 and 2.6-9.0 ms, bimodal (crossbeam-deque 4.0-6.0 and 1.8-4.0 ms in
// the same period). Owner-only push/pop and fib by join and by task group on
// 2 workers did not move.
//
// Fences (deque_fences): the owner's pop and a thief's steal each need a store-load fence, [T1] and
// [S2], a Dekker pair. Symmetric (the default, the paper's algorithm): a seq_cst fence on each side.
// Asymmetric: the pop's fence is a compiler-only barrier [T1L], and thieves pay instead:
// - a single steal that finds the deque non-empty pays a process-wide barrier [S2H]
//   (Sync::fence_heavy: Linux membarrier) in place of [S2];
// - a batch steal counts itself in `batch_thieves_` [B1], pays one heavy barrier [B2H], then takes
//   its items as the symmetric algorithm does ([S2] per item), and uncounts itself [B3]. A pop
//   reads the count after [T1L] [T8] and pays the full fence [T1] while it is not 0: either the pop
//   sees the count (and pairs with [S2] as in the symmetric deque), or the thief's loads after
//   [B2H] see the pop's bottom; a count of 0 read from [B3] brings the thief's CASes with it.
// Either kind of steal that sees top >= bottom in an unfenced look [S7] reports empty with no fence.
// Pops are the frequent side in fork-join (one per join or spawn), steals the rare one. Measured
// (2-core VM, fib(30) by join, 1 worker): 21.9 ms with the [T1] fence, 13.2 ms with [T1L]. A heavy
// fence costs 0.2 us when no other thread of the process runs and ~10 us when one does (an IPI),
// and the kernel serialises concurrent membarrier calls: a workload that steals often (every few
// microseconds) on many cores pays more than it gains. The pool uses asymmetric deques when its
// pool_options::asymmetric_fences holds (lib/docs/deque.md, "Asymmetric fences").
//
// Reclamation: growth retires the old buffer into an owner-held list that is
// freed in the destructor. Thieves may still read an old buffer (they loaded the
// pointer before the swap), so it cannot be freed earlier without epochs or
// hazard pointers (deferred; see the note). Geometric growth bounds the retired
// memory by the current capacity: 1 + 2 + ... + c/2 < c slots.
#pragma once

#include <pilfer/detail/hot_inline.hpp>
#include <pilfer/detail/owner_check.hpp>
#include <pilfer/steal.hpp>
#include <pilfer/sync.hpp>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace pilfer {

template <class T, class Sync, std::size_t BlockSize>
class basic_injector;

/// How the owner's pop and the thieves' steals pair their store-load fences (see the header note).
enum class deque_fences {
  symmetric,   ///< a seq_cst fence in every pop and every steal
  asymmetric,  ///< pop: a compiler-only barrier; a steal that finds items: a process-wide barrier
};

/// Chase–Lev work-stealing deque: owner handle. Non-copyable, non-movable
/// (stealers point at it). T must be trivially copyable (task pointers).
template <class T, class Sync = std_sync>
class basic_deque {
  static_assert(std::is_trivially_copyable_v<T>,
                "pilfer::basic_deque<T>: T must be trivially copyable (store task pointers)");
  static_assert(std::is_default_constructible_v<T>, "pilfer::basic_deque<T>: T must be default constructible");

 public:
  using value_type = T;
  using sync_type = Sync;

  /// A thief's handle. Cheap to copy; valid while the deque lives; any thread.
  class stealer {
   public:
    stealer() noexcept = default;

    /// Take the oldest item (top, FIFO end).
    /// Lock-free; linearizes at the CAS on top [S5] (success) or at the load
    /// of bottom [S3] (empty; asymmetric fences: or at the look [S7]). retry: lost the CAS to another thief or to the
    /// owner taking the last item.
    steal_result<T> steal() const {
      assert(q_ != nullptr && "pilfer: stealer not bound to a deque (default-constructed; use get_stealer())");
      return q_->steal_();
    }

    /// Move up to min(ceil(n/2), max) of the oldest items into `dest`, where n
    /// is the size seen at the first attempt. Items keep the victim's FIFO
    /// order: the oldest goes first into dest, so dest's thieves see them
    /// oldest-first and dest's owner pops the newest first. `dest` must be
    /// owned by the calling thread and must not be this deque. max == 0 counts
    /// as 1. Lock-free: a sequence of single steals ([S1]–[S5] each) written
    /// into dest and published once ([P2], [P4]).
    /// Returns success(k) with k >= 1 items moved, empty, or retry.
    /// Linearizes item by item at each [S5] (asymmetric fences: one heavy barrier per batch). Throws std::bad_alloc when dest
    /// must grow and cannot; dest grows before the first [S5], so the victim
    /// and dest are then unchanged. O(k) plus dest's growth.
    steal_result<std::size_t> steal_batch(basic_deque& dest, std::size_t max = 32) const {
      assert(q_ != nullptr && "pilfer: stealer not bound to a deque (default-constructed; use get_stealer())");
      return q_->steal_batch_(dest, max, false).count;
    }

    /// Like steal_batch but returns the oldest item instead of moving it; the
    /// rest (up to min(ceil(n/2), max) - 1 items) go to dest in FIFO order.
    steal_result<T> steal_batch_and_pop(basic_deque& dest, std::size_t max = 32) const {
      assert(q_ != nullptr && "pilfer: stealer not bound to a deque (default-constructed; use get_stealer())");
      auto r = q_->steal_batch_(dest, max, true);
      if (!r.count.is_success()) return r.count.is_retry() ? steal_result<T>::retry() : steal_result<T>::empty();
      return steal_result<T>::success(r.first);
    }

    /// Racy snapshots: exact only while no other thread operates.
    bool empty() const noexcept { return q_->size() == 0; }
    std::size_t size() const noexcept { return q_->size(); }

    friend bool operator==(const stealer& a, const stealer& b) noexcept { return a.q_ == b.q_; }

   private:
    friend class basic_deque;
    explicit stealer(basic_deque* q) noexcept : q_(q) {}
    basic_deque* q_ = nullptr;
  };

  /// Capacity is rounded up to a power of two (minimum 1); the deque grows
  /// without bound. Thread-safety: the object must be published to other
  /// threads (e.g. by starting them) after construction. Throws
  /// std::length_error (capacity > 2^63 on 64-bit) or std::bad_alloc.
  /// `fences`: deque_fences::asymmetric takes effect where Sync::asymmetric_fences() holds (Linux
  /// with membarrier; the checker always) and is symmetric elsewhere — fences() tells which.
  explicit basic_deque(std::size_t initial_capacity = 64, deque_fences fences = deque_fences::symmetric)
      : buffer_(Sync::template make<buffer>(round_up_pow2(initial_capacity))),
        asym_(fences == deque_fences::asymmetric && Sync::asymmetric_fences()) {}

  basic_deque(const basic_deque&) = delete;
  basic_deque& operator=(const basic_deque&) = delete;

  /// Frees the live buffer and every retired one. No operation may be running.
  /// Items still inside are dropped (they are trivially copyable).
  ~basic_deque() {
    // [X1] relaxed: no operation may run concurrently; the caller's join (or
    // other hand-over) already ordered every earlier access before us.
    Sync::template destroy<buffer>(buffer_.load(PILFER_SITE("deque.X1", relaxed)));
    while (retired_ != nullptr) {
      buffer* next = retired_->next_retired;
      Sync::template destroy<buffer>(retired_);
      retired_ = next;
    }
  }

  /// Owner only. Wait-free except when the buffer is full (then O(n) copy into
  /// a buffer twice as large; amortised O(1)). Linearizes at the store of
  /// bottom [P4]. Throws std::bad_alloc only from growth, before anything is
  /// published: the deque is unchanged and v stays the caller's.
  PILFER_HOT_INLINE void push(T v) {
    owner_.check("push");
    // [P0] relaxed: bottom is written only by the owner (this thread).
    const std::int64_t b = bottom_.load(PILFER_SITE("deque.P0", relaxed));
    // owner-only field: only this thread writes buffer_.
    buffer* a = buffer_.load(PILFER_SITE("deque.P5", relaxed));
    // top_seen_ is the value an earlier [P1] returned; top only grows, so when
    // it already proves room (b - top_seen_ < cap) top itself would too, and
    // push does not touch the line thieves CAS on.
    if (b - top_seen_ >= static_cast<std::int64_t>(a->cap)) {
      // [P1] acquire: pairs with the thieves' CAS on top [S5] so that their
      // read of a slot [S6] happens before we overwrite that slot after
      // wrap-around (the overwrite follows this load in program order, also
      // when a later push relies on the value cached here).
      top_seen_ = top_.load(PILFER_SITE("deque.P1", acquire));
      if (b - top_seen_ >= static_cast<std::int64_t>(a->cap)) a = grow_(a, b, top_seen_, a->cap * 2);
    }
    // [P3] relaxed: published by the release fence [P2] before bottom moves.
    a->put(b, v, PILFER_SITE("deque.P3", relaxed));
    // [P2] release fence: a thief that reads the new bottom with acquire [S3]
    // also sees the slot written above.
    Sync::fence(PILFER_SITE("deque.P2", release));
    // [P4] relaxed: ordered after the slot by the fence [P2].
    bottom_.store(b + 1, PILFER_SITE("deque.P4", relaxed));
  }

  /// Owner only. Take the newest item (bottom, LIFO end). Wait-free.
  /// Linearizes at the fence [T1] or [T1L] (several items) or the CAS [T2] (last item).
  PILFER_HOT_INLINE std::optional<T> pop() {
    owner_.check("pop");
    // [T5]/[T6] relaxed: owner-only fields: bottom and buffer are written only by this thread.
    const std::int64_t b = bottom_.load(PILFER_SITE("deque.T5", relaxed)) - 1;
    buffer* a = buffer_.load(PILFER_SITE("deque.T6", relaxed));
    // [T0] relaxed: made visible before the read of top by the fence [T1].
    bottom_.store(b, PILFER_SITE("deque.T0", relaxed));
    // [T1] seq_cst fence: with the thieves' fence [S2] this is a Dekker pair —
    // either we see a thief's increment of top, or that thief sees our
    // decremented bottom; never both miss (which would hand one item out twice).
    // [T1L] asymmetric: compiler-only; every thief that may take an item pays [S2H] heavy, which
    // acts as a seq_cst fence here.
    // [T8] acquire: a batch thief counted itself [B1] before its heavy fence [B2H]; if that fence
    // came before [T1L], this load sees the count (then [T1] pairs with the thief's [S2]); a 0
    // read from a thief's uncount [B3] (release) brings that thief's CASes on top with it.
    bool full_fence = true;
    if (asym_) {
      Sync::fence_light(PILFER_SITE("deque.T1L", seq_cst));
      full_fence = batch_thieves_.load(PILFER_SITE("deque.T8", acquire)) != 0;
    }
    if (full_fence) Sync::fence(PILFER_SITE("deque.T1", seq_cst));
    // [T3] relaxed: ordered by the fence [T1].
    std::int64_t t = top_.load(PILFER_SITE("deque.T3", relaxed));
    if (t > b) {  // empty: undo the reservation
      // [T4] relaxed: owner-only field; thieves that see b < top report empty.
      bottom_.store(b + 1, PILFER_SITE("deque.T4", relaxed));
      return std::nullopt;
    }
    // [T7] relaxed: the owner reads a slot it wrote itself (or copied in [R0]).
    const T x = a->get(b, PILFER_SITE("deque.T7", relaxed));
    if (t == b) {
      // Last item: race the thieves for it with a CAS on top.
      // [T2] seq_cst: totally ordered with the thieves' [S5] CAS on the same index.
      const bool won = top_.compare_exchange_strong(t, t + 1, PILFER_SITE("deque.T2", seq_cst),
                                                    PILFER_SITE("deque.T2", relaxed));
      // [T4] relaxed: restore bottom == top (empty) after the race.
      bottom_.store(b + 1, PILFER_SITE("deque.T4", relaxed));
      if (!won) return std::nullopt;
    }
    return x;
  }

  /// A thief handle for this deque (any thread; cheap).
  stealer get_stealer() noexcept { return stealer(this); }
  /// Convenience: get_stealer().steal().
  steal_result<T> steal() { return steal_(); }

  /// Owner view (also safe, as a racy snapshot, from other threads).
  bool empty() const noexcept { return size() == 0; }
  std::size_t size() const noexcept {
    // [Q1]/[Q2] relaxed: a snapshot for heuristics (has_work, stats); the two
    // loads are not atomic together, and no data is read on their strength.
    const std::int64_t b = bottom_.load(PILFER_SITE("deque.Q1", relaxed));
    const std::int64_t t = top_.load(PILFER_SITE("deque.Q2", relaxed));
    return b > t ? static_cast<std::size_t>(b - t) : 0;
  }
  /// The fences in use (deque_fences::asymmetric only where it was asked for and is available).
  deque_fences fences() const noexcept { return asym_ ? deque_fences::asymmetric : deque_fences::symmetric; }
  /// Owner only: slots in the current buffer. [Q3] relaxed: only the owner
  /// writes buffer_, so the owner reads its own latest store.
  std::size_t capacity() const noexcept { return buffer_.load(PILFER_SITE("deque.Q3", relaxed))->cap; }
  /// Owner only: buffers retired by growth and not yet freed (tests of DQ-4).
  std::size_t retired_buffers() const noexcept { return retired_count_; }

  /// Debug aid: forget the recorded owner thread; the next owner operation
  /// binds the new owner. The hand-over itself must happen-before that call.
  void release_owner() noexcept { owner_.release(); }

 private:
  template <class, class, std::size_t>
  friend class basic_injector;

  using slot_type = atomic_t<Sync, T>;

  /// A power-of-two ring of atomic slots, addressed by logical index mod cap.
  struct buffer {
    explicit buffer(std::size_t c) : cap(c), mask(c - 1), slots(Sync::template make_array<slot_type>(c)) {}
    ~buffer() { Sync::template destroy_array<slot_type>(slots, cap); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;

    T get(std::int64_t i, order_site s) const noexcept {
      return slots[static_cast<std::size_t>(i) & mask].load(s);
    }
    void put(std::int64_t i, T v, order_site s) noexcept { slots[static_cast<std::size_t>(i) & mask].store(v, s); }

    std::size_t cap;
    std::size_t mask;
    slot_type* slots;
    buffer* next_retired = nullptr;  // owner-only list of retired buffers
  };

  struct batch_outcome {
    steal_result<std::size_t> count;
    T first{};
  };

  /// Smallest power of two >= n (n == 0 gives 1). Throws std::length_error
  /// when there is none in size_t (the doubling would wrap to 0 and never end).
  static std::size_t round_up_pow2(std::size_t n) {
    constexpr std::size_t top_bit = (std::numeric_limits<std::size_t>::max() >> 1) + 1;
    if (n > top_bit) throw std::length_error("pilfer::basic_deque: capacity larger than the largest power of two");
    std::size_t c = 1;
    while (c < n) c <<= 1;
    return c;
  }

  /// Owner only: copy the live range [t, b) into a buffer of `new_cap` slots,
  /// retire the old one, publish the new one.
  PILFER_NOINLINE buffer* grow_(buffer* old, std::int64_t b, std::int64_t t, std::size_t new_cap) {
    auto* fresh = Sync::template make<buffer>(new_cap);
    // [R0] relaxed both ways: the owner reads slots it wrote itself; the new
    // buffer is private until [R1].
    for (std::int64_t i = t; i < b; ++i) fresh->put(i, old->get(i, PILFER_SITE("deque.R0", relaxed)), PILFER_SITE("deque.R0", relaxed));
    old->next_retired = retired_;
    retired_ = old;
    ++retired_count_;
    // [R1] release: pairs with the thieves' acquire load [S4]; a thief that
    // sees the new buffer sees its copied slots (and its cap/mask).
    buffer_.store(fresh, PILFER_SITE("deque.R1", release));
    return fresh;
  }

  /// Owner only: make room for k more items beyond bottom b.
  buffer* reserve_(std::int64_t b, std::size_t k) {
    // [P1] acquire, as in push: thieves' slot reads happen before we reuse the slots.
    const std::int64_t t = top_.load(PILFER_SITE("deque.P1", acquire));
    top_seen_ = t;
    buffer* a = buffer_.load(PILFER_SITE("deque.P5", relaxed));
    const std::size_t need = static_cast<std::size_t>(b - t) + k;
    if (need > a->cap) {
      std::size_t c = a->cap * 2;
      while (c < need) c <<= 1;
      a = grow_(a, b, t, c);
    }
    return a;
  }

  /// Owner only: publish items written at [b, new_b) by reserve_ + put.
  /// [P2] release fence then [P4] relaxed store, exactly as in push().
  void publish_(std::int64_t new_b) {
    Sync::fence(PILFER_SITE("deque.P2", release));
    bottom_.store(new_b, PILFER_SITE("deque.P4", relaxed));
  }

  /// An asymmetric deque's batch thief, counted in `batch_thieves_` from enter() to the end of
  /// its scope (also when dest's growth throws).
  class batch_count {
   public:
    explicit batch_count(basic_deque& q) noexcept : q_(q) {}
    batch_count(const batch_count&) = delete;
    batch_count& operator=(const batch_count&) = delete;
    void enter() {
      // [B1] relaxed: ordered before the pops' [T8] by the heavy fence [B2H] (or seen by nobody).
      q_.batch_thieves_.fetch_add(1, PILFER_SITE("deque.B1", relaxed));
      // [B2H] heavy (membarrier): the pair with every pop's [T1L]: a pop whose [T1L] comes later
      // reads the count [T8]; one whose [T1L] came earlier has its bottom seen by our [S3].
      Sync::fence_heavy(PILFER_SITE("deque.B2H", seq_cst));
      entered_ = true;
    }
    ~batch_count() {
      // [B3] release: our CASes on top [S5] happen before a pop that reads the count we leave.
      if (entered_) q_.batch_thieves_.fetch_sub(1, PILFER_SITE("deque.B3", release));
    }

   private:
    basic_deque& q_;
    bool entered_ = false;
  };

  /// Asymmetric fences: a thief's unfenced look before it pays a heavy barrier, after its load of
  /// top `t`. [S7] relaxed: a hint. Reading an older bottom than [S3] would read can only report
  /// empty where [S3] might have missed a concurrent push too (a push has no seq_cst fence of its
  /// own), or send the thief on to its heavy barrier and [S3].
  bool looks_empty_(std::int64_t t) const noexcept { return t >= bottom_.load(PILFER_SITE("deque.S7", relaxed)); }

  /// A thief's half of the Dekker pair, after its load of top `t` [S1] and before its load of
  /// bottom [S3]. Symmetric: [S2] seq_cst fence. Asymmetric: an unfenced look at bottom [S7] first —
  /// nothing to take, so report empty with no fence (returns false) — else [S2H] heavy.
  PILFER_HOT_INLINE bool fence_before_bottom_(std::int64_t t) {
    if (!asym_) {
      // [S2] seq_cst fence: the thief side of the Dekker pair with [T1].
      Sync::fence(PILFER_SITE("deque.S2", seq_cst));
      return true;
    }
    if (looks_empty_(t)) return false;
    // [S2H] heavy (membarrier): the thief side of the pair with the owner's light [T1L].
    Sync::fence_heavy(PILFER_SITE("deque.S2H", seq_cst));
    return true;
  }

  steal_result<T> steal_() {
    // [S1] acquire: pairs with the release part of the [S5]/[T2] CAS that moved
    // top here (Lê et al.'s C11 proof; under RC11 the Dekker argument needs only
    // coherence — lib/docs/deque.md, "Verdicts under RC11 vs C11").
    std::int64_t t = top_.load(PILFER_SITE("deque.S1", acquire));
    if (!fence_before_bottom_(t)) return steal_result<T>::empty();
    // [S3] acquire: pairs with the owner's release fence [P2]: slot b-1 is visible.
    const std::int64_t b = bottom_.load(PILFER_SITE("deque.S3", acquire));
    if (t >= b) return steal_result<T>::empty();
    // [S4] acquire: pairs with [R1]; the buffer we read holds index t.
    buffer* a = buffer_.load(PILFER_SITE("deque.S4", acquire));
    // [S6] relaxed, speculative: the value is used only if the CAS below wins;
    // it may race with the owner overwriting the slot (hence an atomic slot).
    const T x = a->get(t, PILFER_SITE("deque.S6", relaxed));
    // [S5] seq_cst: claims index t; exactly one CAS (thief [S5] or owner [T2])
    // wins. Release pairs with [P1] (our read [S6] happens before the owner
    // re-uses the slot); seq_cst orders it before the owner's [T1] in C11.
    if (!top_.compare_exchange_strong(t, t + 1, PILFER_SITE("deque.S5", seq_cst), PILFER_SITE("deque.S5", relaxed)))
      return steal_result<T>::retry();
    return steal_result<T>::success(x);
  }

  /// A batch is a sequence of single steals ([S1]..[S5] each, so the argument
  /// for exactly-once is the one for steal()), written into dest's slots past
  /// its bottom and published once with [P2]/[P4].
  batch_outcome steal_batch_(basic_deque& dest, std::size_t max, bool pop_first) {
    assert(&dest != this && "pilfer: steal_batch into the victim itself");
    dest.owner_.check("steal_batch (dest)");
    if (max == 0) max = 1;
    batch_outcome out;
    std::size_t limit = 0;  // decided at the first attempt
    std::size_t taken = 0;
    std::size_t moved = 0;
    const std::int64_t db = dest.bottom_.load(PILFER_SITE("deque.P0", relaxed));
    buffer* da = nullptr;
    batch_count counted(*this);
    if (asym_) {
      if (looks_empty_(top_.load(PILFER_SITE("deque.S1", acquire)))) {
        out.count = steal_result<std::size_t>::empty();
        return out;
      }
      counted.enter();
    }
    for (;;) {
      std::int64_t t = top_.load(PILFER_SITE("deque.S1", acquire));
      // [S2] seq_cst fence: the thief side of the Dekker pair with [T1] (asymmetric: a pop pays
      // [T1] while this batch is counted).
      Sync::fence(PILFER_SITE("deque.S2", seq_cst));
      const std::int64_t b = bottom_.load(PILFER_SITE("deque.S3", acquire));
      if (t >= b) break;
      if (taken == 0) {
        const auto n = static_cast<std::size_t>(b - t);
        limit = (n + 1) / 2;
        if (limit > max) limit = max;
        const std::size_t to_dest = pop_first ? limit - 1 : limit;
        if (to_dest > 0) da = dest.reserve_(db, to_dest);
      }
      buffer* a = buffer_.load(PILFER_SITE("deque.S4", acquire));
      const T x = a->get(t, PILFER_SITE("deque.S6", relaxed));
      if (!top_.compare_exchange_strong(t, t + 1, PILFER_SITE("deque.S5", seq_cst),
                                        PILFER_SITE("deque.S5", relaxed))) {
        if (taken == 0) {
          out.count = steal_result<std::size_t>::retry();
          return out;
        }
        break;  // keep what we have; someone else is taking from the top
      }
      if (pop_first && taken == 0) {
        out.first = x;
      } else {
        da->put(db + static_cast<std::int64_t>(moved), x, PILFER_SITE("deque.P3", relaxed));
        ++moved;
      }
      if (++taken == limit) break;
    }
    if (taken == 0) {
      out.count = steal_result<std::size_t>::empty();
      return out;
    }
    if (moved > 0) dest.publish_(db + static_cast<std::int64_t>(moved));
    out.count = steal_result<std::size_t>::success(pop_first ? taken : moved);
    return out;
  }

  // Thieves CAS top; the owner writes bottom and (on growth) buffer: one line ("Field layout").
  alignas(cache_line) atomic_t<Sync, std::int64_t> top_{0};
  atomic_t<Sync, std::int64_t> bottom_{0};
  atomic_t<Sync, buffer*> buffer_;
  const bool asym_;  // deque_fences::asymmetric in effect (constant; read by the owner and every thief)
  atomic_t<Sync, std::uint32_t> batch_thieves_{0};  // asymmetric: batch steals in progress (pops fence while > 0)
  // Owner-only bookkeeping.
  buffer* retired_ = nullptr;
  std::size_t retired_count_ = 0;
  std::int64_t top_seen_ = 0;  // owner-only: top as last read by [P1] (a lower bound of top)
  detail::owner_check<Sync> owner_;
};

/// The deque over the standard-library policy.
template <class T>
using deque = basic_deque<T, std_sync>;

}  // namespace pilfer
