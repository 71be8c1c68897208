// pilfer/injector.hpp — unbounded MPMC FIFO queue (the pool's global "injector").
//
// Design after crossbeam-deque's `Injector` (crossbeam-deque/src/deque.rs):
// a linked list of blocks of `BlockSize` slots; `head` and `tail` each hold a
// position index and the block that index lives in. Indices count in steps of
// 2 (bit 0 of head is HAS_NEXT: "the head block is not the last one", which
// lets a consumer skip the fence and the tail read). Each lap of the index
// has BlockSize + 1 positions: offsets 0..BlockSize-1 are slots and offset
// BlockSize is a transition marker, held while the thread that took the last
// slot installs the next block. Every slot carries state bits WRITE (value
// written), READ (value consumed) and DESTROY (the block's destroyer left the
// rest of the destruction to this slot's reader). The thread that reads the
// last slot of a block starts freeing it; readers still busy in that block
// finish the job (cooperative destruction), so blocks are freed without epochs.
//
// Design note: lib/docs/injector.md (every order below carries its table tag).
//
// Progress (INJ-3): push and steal never take a lock and never wait for a lock
// holder. Two short windows are waited out with back-off, as in crossbeam:
// (1) a consumer that claimed a slot waits for its producer's write (the
// producer claimed the slot two instructions earlier); (2) a producer that
// reaches a block end waits for the thread that claimed the last slot to
// install the next block. A consumer that meets window (2) on the head side
// returns retry instead of waiting.
#pragma once

#include <pilfer/deque.hpp>
#include <pilfer/detail/backoff.hpp>
#include <pilfer/steal.hpp>
#include <pilfer/sync.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace pilfer {

/// Unbounded lock-free MPMC FIFO of trivially copyable T (task pointers).
template <class T, class Sync = std_sync, std::size_t BlockSize = 63>
class basic_injector {
  static_assert(std::is_trivially_copyable_v<T>, "pilfer::basic_injector<T>: T must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>, "pilfer::basic_injector<T>: T must be default constructible");
  static_assert(BlockSize >= 1, "pilfer::basic_injector: BlockSize must be at least 1");

 public:
  using value_type = T;
  using sync_type = Sync;
  static constexpr std::size_t block_size = BlockSize;

  basic_injector() {
    block* b = new_block_();
    // [X1] relaxed: the object is published to other threads after construction
    // (thread start or a release store of the caller), which orders these.
    head_.blk.store(b, PILFER_SITE("injector.X1", relaxed));
    tail_.blk.store(b, PILFER_SITE("injector.X1", relaxed));
  }
  basic_injector(const basic_injector&) = delete;
  basic_injector& operator=(const basic_injector&) = delete;

  /// Frees every remaining block. No operation may be running.
  ~basic_injector() {
    // [X1] relaxed: no operation may run concurrently (see above).
    block* b = head_.blk.load(PILFER_SITE("injector.X1", relaxed));
    while (b != nullptr) {
      block* next = b->next.load(PILFER_SITE("injector.X1", relaxed));
      free_block_(b);
      b = next;
    }
  }

  /// Any thread. Append at the tail. Linearizes at the CAS on tail [P3].
  /// Progress: lock-free except window (2) above. O(1); every BlockSize-th
  /// push allocates a block, before claiming: a std::bad_alloc leaves the
  /// queue unchanged (v is not enqueued).
  void push(T v) {
    detail::backoff<Sync> bo;
    // [P1]/[P2] acquire: pair with [P4]/[P5] of the thread that installed the
    // tail block, so the block we are about to write into is initialised.
    std::size_t tail = tail_.index.load(PILFER_SITE("injector.P1", acquire));
    block* blk = tail_.blk.load(PILFER_SITE("injector.P2", acquire));
    block* spare = nullptr;
    for (;;) {
      const std::size_t offset = (tail >> shift) % lap;
      if (offset == BlockSize) {  // another producer is installing the next block
        bo.snooze();
        tail = tail_.index.load(PILFER_SITE("injector.P1", acquire));
        blk = tail_.blk.load(PILFER_SITE("injector.P2", acquire));
        continue;
      }
      // Allocate the next block before claiming the last slot, so the window
      // in which other producers wait is a few stores long.
      if (offset + 1 == BlockSize && spare == nullptr) spare = new_block_();
      const std::size_t new_tail = tail + (std::size_t{1} << shift);
      // [P3] seq_cst: claims the slot; seq_cst so that a push and a consumer's
      // emptiness check ([S3] fence + [S4]) are ordered in the single total
      // order (the pool's sleep protocol relies on it: no lost wake-up).
      // Failure acquire: as [P1].
      if (tail_.index.compare_exchange_weak(tail, new_tail, PILFER_SITE("injector.P3", seq_cst),
                                            PILFER_SITE("injector.P3", acquire))) {
        if (offset + 1 == BlockSize) {
          const std::size_t next_index = new_tail + (std::size_t{1} << shift);
          // [P4] release: the new block's initialisation is visible to [P2].
          tail_.blk.store(spare, PILFER_SITE("injector.P4", release));
          // [P5] release: ends the transition; pairs with [P1].
          tail_.index.store(next_index, PILFER_SITE("injector.P5", release));
          // [P6] release: pairs with the consumer's [S6] acquire in wait_next.
          blk->next.store(spare, PILFER_SITE("injector.P6", release));
          spare = nullptr;
        }
        slot& s = blk->slots[offset];
        s.value.write() = v;
        // [P7] release: publishes the value; pairs with [S10] acquire.
        s.state.fetch_or(write_bit, PILFER_SITE("injector.P7", release));
        if (spare != nullptr) free_block_(spare);
        return;
      }
      // tail was reloaded by the failed CAS; reload the block to match.
      blk = tail_.blk.load(PILFER_SITE("injector.P2", acquire));
      bo.spin();
    }
  }

  /// Any thread. Take the oldest item. Returns empty when head == tail at [S4],
  /// retry when another consumer won the CAS [S5] or is moving head to the next
  /// block. Linearizes at [S5] (success) or [S4] (empty). Lock-free except
  /// window (1); O(1); never throws, never allocates.
  steal_result<T> steal() {
    auto c = claim_(1, false);
    if (!c.status_is_success) return c.retry ? steal_result<T>::retry() : steal_result<T>::empty();
    slot& s = c.blk->slots[c.offset];
    wait_write_(s);
    const T v = s.value.read();
    release_slots_(c.blk, c.offset, 1);
    return steal_result<T>::success(v);
  }

  /// Any thread; `dest` owned by the caller. Move up to
  /// min(ceil(n/2), max, slots left in the head block) of the oldest items into
  /// dest (n = size seen), oldest first, so dest's owner pops the newest of
  /// them first. max == 0 counts as 1. Linearizes at [S5] (all k items leave
  /// at once) or [S4] (empty); progress as steal(); O(k). Throws std::bad_alloc
  /// when dest must grow and cannot; that happens before [S5], so the injector
  /// and dest are unchanged.
  steal_result<std::size_t> steal_batch(basic_deque<T, Sync>& dest, std::size_t max = 32) {
    dest.owner_.check("injector::steal_batch (dest)");
    auto c = claim_(max == 0 ? 1 : max, true, &dest, 0);
    if (!c.status_is_success) return c.retry ? steal_result<std::size_t>::retry() : steal_result<std::size_t>::empty();
    move_to_(dest, c, 0);
    return steal_result<std::size_t>::success(c.count);
  }

  /// Like steal_batch, but the oldest item is returned and the rest go to dest.
  /// Same linearization, progress and exception guarantee as steal_batch.
  steal_result<T> steal_batch_and_pop(basic_deque<T, Sync>& dest, std::size_t max = 32) {
    dest.owner_.check("injector::steal_batch_and_pop (dest)");
    auto c = claim_(max == 0 ? 1 : max, true, &dest, 1);
    if (!c.status_is_success) return c.retry ? steal_result<T>::retry() : steal_result<T>::empty();
    slot& s0 = c.blk->slots[c.offset];
    wait_write_(s0);
    const T first = s0.value.read();
    move_to_(dest, c, 1);
    return steal_result<T>::success(first);
  }

  /// Racy snapshots (exact when no operation runs concurrently). [Z1]
  /// seq_cst: the pool's has_work() re-check after the [sleep.W2] fence must
  /// not miss a push whose [P3] precedes the fence in S (sleep.md).
  bool empty() const noexcept {
    const std::size_t h = head_.index.load(PILFER_SITE("injector.Z1", seq_cst));
    const std::size_t t = tail_.index.load(PILFER_SITE("injector.Z1", seq_cst));
    return (h >> shift) == (t >> shift);
  }
  std::size_t size() const noexcept {
    for (;;) {
      const std::size_t t = tail_.index.load(PILFER_SITE("injector.Z1", seq_cst));
      const std::size_t h = head_.index.load(PILFER_SITE("injector.Z1", seq_cst));
      if (tail_.index.load(PILFER_SITE("injector.Z1", seq_cst)) == t) return count_between_(h, t);
    }
  }
  /// Blocks currently allocated (INJ-4: back to 1 once drained and quiescent,
  /// plus transiently a producer's pre-allocated spare).
  std::size_t live_blocks() const noexcept { return live_.load(PILFER_SITE("injector.L1", relaxed)); }

 private:
  static constexpr std::size_t shift = 1;
  static constexpr std::size_t has_next = 1;
  static constexpr std::size_t lap = BlockSize + 1;
  static constexpr unsigned write_bit = 1;
  static constexpr unsigned read_bit = 2;
  static constexpr unsigned destroy_bit = 4;

  struct slot {
    atomic_t<Sync, unsigned> state{0u};
    cell_t<Sync, T> value;  // plain memory, ordered by the WRITE/READ bits
  };
  struct block {
    atomic_t<Sync, block*> next{nullptr};
    slot slots[BlockSize];
  };
  struct position {
    atomic_t<Sync, std::size_t> index{0};
    atomic_t<Sync, block*> blk{nullptr};
  };
  struct claim {
    bool status_is_success = false;
    bool retry = false;
    block* blk = nullptr;
    std::size_t offset = 0;
    std::size_t count = 0;
  };

  /// Items between head index h and tail index t (both raw, with flag bits).
  static std::size_t count_between_(std::size_t h, std::size_t t) noexcept {
    std::size_t hp = h >> shift;
    std::size_t tp = t >> shift;
    if (hp % lap == BlockSize) ++hp;  // a transition marker counts as the next block's start
    if (tp % lap == BlockSize) ++tp;
    const std::size_t base = (hp / lap) * lap;
    hp -= base;
    tp -= base;
    hp -= hp / lap;  // remove the marker positions
    tp -= tp / lap;
    return tp > hp ? tp - hp : 0;
  }

  // [L1] relaxed: a statistic (INJ-4 tests read it when quiescent); nothing
  // is published through it.
  block* new_block_() {
    block* b = Sync::template make<block>();
    live_.fetch_add(1, PILFER_SITE("injector.L1", relaxed));
    return b;
  }
  void free_block_(block* b) noexcept {
    Sync::template destroy<block>(b);
    live_.fetch_sub(1, PILFER_SITE("injector.L1", relaxed));
  }

  /// Claim up to `want` consecutive slots of the head block (want == 1 for a
  /// single steal). On success the slots are ours; the block stays alive until
  /// we set their READ bits. A batch passes its destination: room for the
  /// k - skip items it will move is made BEFORE the claiming CAS [S5], so a
  /// throwing growth (std::bad_alloc) leaves the queue untouched; after [S5]
  /// nothing may throw (claimed slots that are never read lose their items and
  /// keep their block alive forever).
  claim claim_(std::size_t want, bool halve, basic_deque<T, Sync>* dest = nullptr, std::size_t skip = 0) {
    claim c;
    // [S1] acquire: pairs with [S5]/[S9] of the consumer that moved head here,
    // so its tail observation is not newer than ours; [S2] acquire pairs with
    // [S8] so the head block is the one head's index lives in.
    const std::size_t head = head_.index.load(PILFER_SITE("injector.S1", acquire));
    block* blk = head_.blk.load(PILFER_SITE("injector.S2", acquire));
    const std::size_t offset = (head >> shift) % lap;
    if (offset == BlockSize) {  // a consumer is moving head to the next block
      c.retry = true;
      return c;
    }
    std::size_t k = want;
    if (k > BlockSize - offset) k = BlockSize - offset;
    std::size_t new_head = head;
    if ((head & has_next) == 0 || halve) {
      // [S3] seq_cst fence: orders our emptiness check with pushes' [P3] in
      // the single total order.
      Sync::fence(PILFER_SITE("injector.S3", seq_cst));
      // [S4] relaxed: only compared; the slot's value is ordered by [P7]/[S10].
      const std::size_t tail = tail_.index.load(PILFER_SITE("injector.S4", relaxed));
      if ((head >> shift) == (tail >> shift)) return c;  // empty
      const std::size_t n = count_between_(head, tail);
      if (n == 0) return c;
      if (halve) {
        const std::size_t half = (n + 1) / 2;
        if (k > half) k = half;
      } else if (k > n) {
        k = n;
      }
      // Head and tail in different blocks: remember that the head block is not last.
      if ((head >> shift) / lap != (tail >> shift) / lap) new_head |= has_next;
    }
    if (k == 0) k = 1;
    // May throw; nothing is claimed yet. move_to_'s reserve_ then finds the room
    // (dest's size can only have shrunk meanwhile: only thieves run on it).
    if (dest != nullptr && k > skip)
      (void)dest->reserve_(dest->bottom_.load(PILFER_SITE("deque.P0", relaxed)), k - skip);
    new_head += k << shift;
    std::size_t expected = head;
    // [S5] seq_cst: claims slots offset..offset+k-1. Failure acquire (unused).
    if (!head_.index.compare_exchange_strong(expected, new_head, PILFER_SITE("injector.S5", seq_cst),
                                             PILFER_SITE("injector.S5", acquire))) {
      c.retry = true;
      return c;
    }
    if (offset + k == BlockSize) {  // we took the last slot: move head to the next block
      block* next = wait_next_(blk);
      std::size_t next_index = (new_head & ~has_next) + (std::size_t{1} << shift);
      // [S7] relaxed: only a hint for HAS_NEXT; a stale null just costs a fence later.
      if (next->next.load(PILFER_SITE("injector.S7", relaxed)) != nullptr) next_index |= has_next;
      // [S8] release: pairs with [S2]; [S9] release pairs with [S1].
      head_.blk.store(next, PILFER_SITE("injector.S8", release));
      head_.index.store(next_index, PILFER_SITE("injector.S9", release));
    }
    c.status_is_success = true;
    c.blk = blk;
    c.offset = offset;
    c.count = k;
    return c;
  }

  block* wait_next_(block* b) {
    detail::backoff<Sync> bo;
    for (;;) {
      // [S6] acquire: pairs with [P6]; the next block is initialised.
      block* n = b->next.load(PILFER_SITE("injector.S6", acquire));
      if (n != nullptr) return n;
      bo.snooze();
    }
  }

  static void wait_write_(slot& s) {
    detail::backoff<Sync> bo;
    // [S10] acquire: pairs with [P7]; the value written before it is visible.
    while ((s.state.load(PILFER_SITE("injector.S10", acquire)) & write_bit) == 0) bo.snooze();
  }

  /// Copy claimed slots [c.offset + skip, c.offset + c.count) into dest, then
  /// release all c.count slots.
  void move_to_(basic_deque<T, Sync>& dest, const claim& c, std::size_t skip) {
    const std::size_t moved = c.count - skip;
    if (moved > 0) {
      const std::int64_t db = dest.bottom_.load(PILFER_SITE("deque.P0", relaxed));
      auto* da = dest.reserve_(db, moved);
      for (std::size_t i = 0; i < moved; ++i) {
        slot& s = c.blk->slots[c.offset + skip + i];
        wait_write_(s);
        da->put(db + static_cast<std::int64_t>(i), s.value.read(), PILFER_SITE("deque.P3", relaxed));
      }
      dest.publish_(db + static_cast<std::int64_t>(moved));
    }
    release_slots_(c.blk, c.offset, c.count);
  }

  /// Mark slots [offset, offset+k) read, and free the block if we are its last user.
  void release_slots_(block* blk, std::size_t offset, std::size_t k) noexcept {
    if (offset + k == BlockSize) {
      // We consumed the last slot: start destruction from the slots before ours.
      destroy_(blk, offset);
      return;
    }
    for (std::size_t i = offset; i < offset + k; ++i) {
      // [S11] acq_rel: release orders our read of the value before a
      // destroyer's free; acquire sees the destroyer's DESTROY bit.
      if (blk->slots[i].state.fetch_or(read_bit, PILFER_SITE("injector.S11", acq_rel)) & destroy_bit) {
        // The destroyer stopped at our slot (necessarily our highest one: it
        // scans downward and we mark upward); continue below our range.
        destroy_(blk, offset);
        return;
      }
    }
  }

  /// Free `blk` once slots [0, count) are all READ; if one is still being
  /// read, leave a DESTROY mark there and let its reader finish.
  void destroy_(block* blk, std::size_t count) noexcept {
    for (std::size_t i = count; i-- > 0;) {
      slot& s = blk->slots[i];
      // [D1] acquire / [D2] acq_rel: pair with the reader's [S11] release, so
      // its read of the value happens before the free.
      if ((s.state.load(PILFER_SITE("injector.D1", acquire)) & read_bit) == 0 &&
          (s.state.fetch_or(destroy_bit, PILFER_SITE("injector.D2", acq_rel)) & read_bit) == 0) {
        return;  // that slot's reader will continue the destruction
      }
    }
    free_block_(blk);
  }

  alignas(cache_line) position head_;
  alignas(cache_line) position tail_;
  alignas(cache_line) atomic_t<Sync, std::size_t> live_{0};
};

/// The injector over the standard-library policy.
template <class T>
using injector = basic_injector<T, std_sync>;

}  // namespace pilfer
