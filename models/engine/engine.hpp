// models/engine/engine.hpp — internal data structures of pilfer's model checker.
//
// Vocabulary (RC11, Lahav et al. PLDI 2017; graph layout as in RCMC/GenMC):
//   event   one operation of one modelled thread: atomic access, fence, cell access,
//           spawn/join, notify, yield, ... Identified by gid (order of addition) and by
//           (thread, index) — the canonical name used in traces, hashes and rf.
//   rf      reads-from: every read event names the write event it took its value from
//           (the location's init write included).
//   mo      modification order: per atomic location, the list of its write events.
//   view    a vector clock: view[u] = number of events of thread u that happen-before
//           (and including) the event. hb(x, y)  <=>  x.index < y.view[x.thread], x != y.
//   relv    a write's release view: what an acquire read of it (or a later acquire fence
//           after a relaxed read of it) adds to its thread's view. Encodes RC11's sw with
//           release sequences rs = [W]; sb|loc?; [W]; (rf; rmw)* and fences.
//   key     position on a location used for eco: a write has key 2*mo_pos, a pure read has
//           2*mo_pos(rf)+1; eco(x, y) <=> same location and key(x) < key(y).
#pragma once

#include <pilfer/model/checker.hpp>

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace pilfer::model::engine {

inline constexpr std::size_t max_threads = 16;

/// Makes the fiber stacks' guard pages accessible again and restores the SIGSEGV handling that
/// was there before; check() calls it before the checker, and with it the stacks, is destroyed
/// (fibers.cpp).
void release_stack_guards() noexcept;
inline constexpr std::uint32_t none = 0xFFFFFFFFu;

struct view {
  std::array<std::uint32_t, max_threads> c;
  // (a constructor, not a default member initialiser: g++ zeroed a whole event, two views and
  // all, with one `rep stos`, whose start-up cost made make_event 6-9 % of an exploration's
  // time; a view zeroed on its own is four vector stores)
  view() noexcept : c{} {}
  void join(const view& o) noexcept {
    for (std::size_t i = 0; i < max_threads; ++i)
      if (o.c[i] > c[i]) c[i] = o.c[i];
  }
};

enum class ek : std::uint8_t {
  init, uninit, load, store, rmw, cas_fail, fence, cell_init, cell_read, cell_write,
  spawn, join, yield, notify, wait_block, lock, trylock_fail, unlock, finish
};

struct event {
  ek kind = ek::load;
  std::uint16_t thread = 0;
  std::uint32_t index = 0;
  std::uint32_t loc = none;
  std::memory_order order = std::memory_order_relaxed;  // effective order
  std::memory_order declared = std::memory_order_relaxed;
  bool sc = false;       // seq_cst access or fence (psc node)
  bool rd = false;       // reads an atomic location (has rf)
  bool wr = false;       // writes an atomic location (in mo)
  bool acq = false;      // acquire semantics (read part / fence)
  bool rel = false;      // release semantics (write part / fence)
  const char* tag = "";
  const char* file = "";
  unsigned line = 0;
  std::uint64_t rval = 0, wval = 0;
  std::uint32_t rf = none;      // gid of the write read from
  std::uint32_t mo_pos = none;  // index in its location's mo list (writes)
  std::int32_t sc_idx = -1;     // index among psc nodes
  std::uint32_t other = none;   // spawn: child; join: target; notify: woken thread
  view v;     // hb view including this event
  view relv;  // writes: release view
};

struct location {
  enum kind_t : std::uint8_t { atomic_loc, cell_loc, mutex_loc } kind = atomic_loc;
  bool alive = true;
  detail::value_info info{64, false, false};
  std::uint64_t key = 0;
  std::uint32_t creator = 0;
  const char* file = "";
  unsigned line = 0;
  std::vector<std::uint32_t> mo;   // write gids in modification order
  std::vector<std::uint32_t> acc;  // every access gid
  std::uint64_t last_value = 0;    // value of the mo-last write (teardown after an abort)
  std::uint64_t mo_ha = 0, mo_hb = 0;
  // symmetry reduction (symmetry.cpp): key and mo hash under each other labeling of the threads
  std::vector<std::uint64_t> alt_key, alt_mo_ha, alt_mo_hb;
  std::uint32_t owner = 0xFFFFFFFFu;  // mutex: the thread holding it (none = free)
  // Where it was made and destroyed, for reports (checker::location_name). An object made inside
  // make<T> or destroyed by a destructor has no place of its own: the place is then the thread's
  // operation before it (`made_after`, and always for the destruction).
  bool made_after = false;
  std::uint32_t destroyer = none;
  const char* dead_file = "";
  unsigned dead_line = 0;
  bool dead_at = false;  // dead_file:dead_line is the destroy() that ended it, not the operation before
};

/// `stranded`: the thread stopped for good where it found a failure or a false assume(); it is
/// never resumed, not even to finish the execution (see finishing.cpp).
enum class tstatus : std::uint8_t { runnable, blocked_wait, yielded, finished, stranded };
enum class pending : std::uint8_t { idle, lock, join, await };

struct mthread {
  tstatus status = tstatus::runnable;
  pending pend = pending::idle;
  std::uint32_t pend_arg = 0;
  std::source_location pend_src{};  // where the pending (or blocked) operation is: deadlock reports name it
  bool (*await_accept)(std::uint64_t, const void*) = nullptr;  // pending::await: the predicate
  const void* await_ctx = nullptr;                              // (on the awaiting thread's stack)
  bool await_rmw = false;                                       // an await_exchange: its RMW must follow the store
  std::size_t await_stale = ~std::size_t{0};  // events_.size() when its await last found no consistent accepted store
  bool started = false;
  void* sp = nullptr;  // saved stack pointer (x86-64 switch; elsewhere checker::contexts_)
  std::unique_ptr<detail::task> body;
  std::uint64_t key = 0;
  std::uint32_t parent = none;
  std::uint32_t children = 0, locs = 0;
  std::vector<std::uint32_t> events;
  view cur, fence_rel, acq_pending;
  std::vector<std::pair<std::uint32_t, view>> loc_rel;  // same-location release bases
  std::uint64_t ha = 0, hb = 0;                         // running hash of the event sequence
  // symmetry reduction (symmetry.cpp): `key`, `ha`, `hb` under each other labeling of the
  // threads; `sym_key`, what names the thread where its role, not its identity, matters (the
  // key of its group's first thread for a thread of a symmetric group; seeds `rng`).
  std::vector<std::uint64_t> alt_key, alt_ha, alt_hb;
  std::uint64_t sym_key = 0;
  std::uint32_t group_member = none;  // a thread of a symmetric group: its scenario index
  std::uint32_t sym_pred = none;      // revisit mode with symmetry: the group's previous member's thread
  /// The thread's term of the state hash (memo.cpp) and the inputs it was computed from.
  struct hash_term {
    std::uint64_t key = 0, ha = 0, hb = 0, extra = 0, ry = 0;
    std::uint64_t a = 0, b = 0;
    bool valid = false;
  };
  mutable hash_term term;
  /// Symmetry reduction: the thread's terms under every labeling (a, b interleaved) and the inputs
  /// they were computed from (symmetry.cpp).
  mutable hash_term sym_inputs;
  mutable std::vector<std::uint64_t> sym_terms;
  std::map<const void*, void*> slots;
  std::uint64_t rng = 0;
  // after a spin hint / yield: the locations of the spinning reads (those the thread read
  // since its previous hint — one loop iteration); its next read of each of them reads the
  // mo-latest store. Other locations are not affected.
  std::vector<std::uint32_t> spin_locs;
  std::uint32_t wait_loc = none, wait_x = none;
  std::uint32_t fresh_loc = none;  // woken waiter: next read of this location reads the latest
  const void* last_made = nullptr;  // the memory checker_sync::make* made last (names the objects in it)
  std::uint32_t spurious_at = none;  // its last read was a weak CAS that failed spuriously here (not again at once)
  unsigned observing = 0;          // inside pilfer::model::observe(): reads take the newest consistent store
  std::size_t finishing_ops = 0;   // operations performed while the execution is being finished
};

struct region {
  std::size_t bytes = 0, align = 0;
  bool array = false, freed = false;
  const char* what = "";
  const char* file = "";
  unsigned line = 0;
  bool after = false;  // make<T>: file:line is the making thread's operation before it (see made_at)
  std::uint32_t thread = 0;
};

struct hash128 {
  std::uint64_t a, b;
  bool operator==(const hash128&) const = default;
};
struct hash128_hasher {
  std::size_t operator()(const hash128& h) const noexcept { return static_cast<std::size_t>(h.a ^ (h.b * 31)); }
};

// Hashing: the mixers behind thread / location keys and the two halves of a state hash.
inline std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
inline std::uint64_t combine(std::uint64_t h, std::uint64_t v) noexcept {
  return mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
}
inline std::uint64_t combine_b(std::uint64_t h, std::uint64_t v) noexcept {
  return mix64((h * 0xD6E8FEB86659FD93ull) ^ (v * 0xA0761D6478BD642Full) ^ 0x5851F42D4C957F2Dull);
}

/// One decision of an execution: the alternative taken among `count`, and for rf / mo
/// decisions its outcome (`aux`: the rf write's gid or the mo position) so that replaying a
/// prefix does not have to recompute and re-filter the candidates. `state`: the number of the
/// execution's state (scheduling point, counted from 0) after which it was taken — the same in
/// every replay of a prefix that includes it, since a replay repeats the run that took it.
struct decision {
  std::uint32_t chosen, count;
  std::uint32_t aux = 0xFFFFFFFFu;
  std::uint32_t state = 0;
};


}  // namespace pilfer::model::engine
