// models/engine/checker.hpp — engine::checker, the state of one check() in progress, and what the
// files that define its members (its rooms) share.
//
// How an execution runs
//   Modelled threads are fibers (ucontext) on the calling OS thread. Every atomic operation,
//   fence, mutex operation, wait/notify, spawn/join and yield is a SCHEDULING POINT: the fiber
//   stops before it and the scheduler picks which enabled thread performs its next operation.
//   When the operation runs it becomes an EVENT of the execution graph, and further DECISIONS
//   are taken inline: which write a read reads from (rf), where a write goes in modification
//   order (mo), which waiter a notify_one wakes. Cell (plain memory) accesses are events
//   checked for data races, not scheduling points.
//
// The checker's members are defined in rooms, one concept a file:
//   exploration.cpp     run(): decisions, the DFS / random loop, one execution from start to end
//   memo.cpp            canonical state hash and the memo table (pruning)
//   revisit.cpp         the revisit exploration (GenMC style): scripts, backward revisits
//   revisit_shards.cpp  options::shard_* under revisits: a common start, then the scripts dealt
//   estimate.cpp        estimate(): random probes down the revisit exploration's tree (Knuth)
//   symmetry.cpp        symmetry reduction: the state hash under every permutation of a group
//   revisit_symmetry.cpp  symmetry reduction under revisits: GenMC's rule on the graph
//   fibers.cpp          fibers, context switching, scheduling points, failures and stranding
//   finishing.cpp       running a cut-short execution's threads to their end
//   graph.cpp           events: adding / removing them, views (hb), release bookkeeping, hashes
//   consistency.cpp     coherence bound and the incremental psc check (rc11 / c++20)
//   rf_mo_choices.cpp   the rf and mo decisions, filtered by consistency
//   orders.cpp          effective orders: tags and weakening
//   atomics.cpp         atomic locations: access, fence, wait, notify
//   races.cpp           plain cells and data races
//   mutexes.cpp         mutexes and their misuse
//   threads.cpp         spawn, join, yield / spin hints, per-thread randomness
//   tracked_objects.cpp memory made by checker_sync::make (leaks, double / invalid frees)
//   traces.cpp          printing events and traces
//   public_api.cpp      check() and the detail:: entry points (forward to the running checker)
#pragma once

#include "engine.hpp"
#include "exploration_mode.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_set>
#include <random>
#include <set>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#define PILFER_MODEL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PILFER_MODEL_ASAN 1
#endif
#endif
#if defined(PILFER_MODEL_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace pilfer::model::engine {

// Order classification for the engine's own bookkeeping (these are not atomic operations): which orders
// carry acquire semantics (consume is modelled as acquire, see README) and which carry release semantics.
inline bool is_acquire(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_consume ||
         o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
inline bool is_release(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
const char* order_name(std::memory_order o);
const char* kind_name(ek k);

// -------------------------------------------------------------------------------------------
// The engine state (one check() at a time per process; fibers share it)
// -------------------------------------------------------------------------------------------
class checker;
extern checker* g;  // the running check (exploration.cpp)
/// The tags seen by the last check (seen_tags()).
extern std::set<std::string> g_last_tags;
/// Counts the executions started in this process (detail::execution_serial: which execution an object belongs to).
extern std::uint64_t g_execution_serial;
/// fibers.cpp, where the checker's own events are made (a scenario thread's spawn and join by
/// the main thread, every thread's finish): a trace names no place in the engine for them.
extern const char* const engine_source_file;
/// "file:line" with the file's directories dropped: how every report and trace names a place (traces.cpp).
std::string file_line(const char* file, unsigned line);
/// A replay token as messages show it: at most 96 characters, then its length (revisit_tokens.cpp).
std::string shown_token(const std::string& tok);
/// A place in the checker's public header (pilfer/model/checker.hpp): an object made there was made
/// inside make<T>, whose caller's place it cannot know (traces.cpp).
bool made_by_the_checker_header(const char* file) noexcept;
/// A place in engine_source_file: one of the checker's own operations, no place of the user's.
bool engine_place(const char* file) noexcept;
/// An event the checker made itself (engine_place): it names no place of the user's.
bool engine_made(const event& e) noexcept;
/// One of the six std::memory_order values (an integer cast to the enum may be none; traces.cpp).
bool is_memory_order(std::memory_order o) noexcept;
/// The smallest options::stack_size accepted: the checker's own frames run on a modelled thread's stack too.
inline constexpr std::size_t min_stack_size = 16 * 1024;
/// The largest options::stack_size accepted (each modelled thread has one such stack).
inline constexpr std::size_t max_stack_size = std::size_t{1} << 30;
/// Why `o` (or `make`) cannot be checked, or empty: an option out of its range or an enum value
/// no enumerator names is a model error before anything runs (exploration.cpp).
std::string invalid_options(const options& o, const std::function<std::unique_ptr<scenario>()>& make);
/// A check() or estimate() (`call`) made while a check runs: inside a modelled thread it is the
/// running check's failure (the thread stops there); elsewhere (an on_progress callback, another
/// OS thread) the call's own model error, whose message this returns. Empty: no check is running.
std::string refuse_nested(const char* call);

// A failure ends the execution: the message temporaries die with the full-expression that
// records them, before the fiber is stranded (stranded frames are never unwound).
#define PILFER_MODEL_FAIL(kind, message) \
  do {                                   \
    record_failure(kind, message);       \
    abandon();                           \
  } while (false)

/// psc_ rows are bit sets: row u has bit v when the committed psc has the edge u -> v.
inline void bit_set(std::vector<std::uint64_t>& row, std::uint32_t v) {
  if (row.size() <= v / 64) row.resize(v / 64 + 1, 0);
  row[v / 64] |= std::uint64_t{1} << (v % 64);
}

class checker {
 public:
  checker(std::function<std::unique_ptr<scenario>()> make, const options& o) : make_(std::move(make)), opt_(o) {}
  result run();
  /// estimate(): random probes down the revisit exploration's tree (estimate.cpp).
  estimate_result estimate(std::size_t probes);
  /// count_probe_tree() (estimate.hpp): every path of the probes' tree; false: unsupported.
  bool walk_probe_tree(std::size_t* complete, std::size_t* blocked, std::size_t* runs);

  // --- hooks used by the detail:: entry points (called on fibers) ---
  /// Exploring: operations are events.
  bool live() const noexcept { return running_ && !over_; }
  /// The execution is over and its threads are being run to their end (see "Finishing").
  bool finishing() const noexcept { return finishing_; }
  /// live() or finishing(): a modelled thread is running.
  bool engaged() const noexcept { return live() || finishing_; }
  /// An await's predicate is running (a call into the checker from it is refused: public_api.cpp).
  bool in_predicate() const noexcept { return in_predicate_; }
  /// Whether an await accepts the store `w` of location `l` (wval masked): the predicate, run with
  /// calls into the checker refused; a store an uninitialised location starts with is accepted (its
  /// read is reported), and so is a value the predicate throws on (the thread reads it and the
  /// predicate, evaluated again in the thread, throws there).
  bool await_accepts(bool (*accept)(std::uint64_t, const void*), const void* ctx, const location& l,
                     std::uint32_t w) const noexcept;
  /// Runs an await's predicate on `v` with calls into the checker refused; true if it throws.
  bool call_predicate(bool (*accept)(std::uint64_t, const void*), const void* ctx, std::uint64_t v) const noexcept;
  std::uint32_t new_location(location::kind_t k, const void* addr, std::uint64_t init, bool initialised,
                             detail::value_info info, const std::source_location& src);
  void end_location(std::uint32_t id) noexcept;
  detail::access_result access(std::uint32_t id, const detail::access& a, const std::source_location& src);
  detail::access_result access_once(std::uint32_t id, const detail::access& a, const std::source_location& src,
                                    bool* again);
  detail::access_result passthrough(std::uint32_t id, const detail::access& a);
  void wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src);
  void notify(std::uint32_t id, bool all, const std::source_location& src);
  void fence(order_site s, const std::source_location& src);
  void fence_heavy(order_site s, const std::source_location& src);
  std::uint32_t add_fence(unsigned t, order_site s, std::memory_order o, const std::source_location& src);
  void cell_access(std::uint32_t id, bool write, const std::source_location& src);
  void mutex_lock(std::uint32_t id, const std::source_location& src);
  bool mutex_try_lock(std::uint32_t id, const std::source_location& src);
  void mutex_unlock(std::uint32_t id, const std::source_location& src);
  void mutex_misuse_check(std::uint32_t id, const char* op, const std::source_location& src);
  unsigned spawn(std::unique_ptr<detail::task> t, const std::source_location& src);
  void join(unsigned t, const std::source_location& src);
  void yield(const std::source_location& src, bool spin);
  std::uint64_t random(std::uint64_t bound);
  void*& thread_slot(const void* key) { return threads_[cur_].slots[key]; }
  unsigned thread_id() const noexcept { return cur_; }
  /// A checker_sync::thread misused as std::thread forbids (detail::thread_misuse): the failure, not yet the stop.
  void record_thread_misuse(const char* what, const std::source_location& src);
  void* alloc(std::size_t bytes, std::size_t align, bool array, const char* what, const std::source_location& src);
  bool check_free(const void* p, bool array, const std::source_location& src);
  void release(void* p) noexcept;
  /// Record a failure (arguments are destroyed before the fiber is stranded: no leak).
  void record_failure(std::string kind, std::string message);
  /// An atomic, cell or mutex the execution did not make is used at `src`: a model error
  /// (detail::foreign_object; the caller then abandons the execution).
  void record_foreign_object(const char* what, const std::source_location& src);
  /// End the execution from a fiber that found a failure; the fiber is stranded.
  [[noreturn]] void abandon();
  /// assume(false): the execution is blocked (not an error); the fiber is stranded.
  [[noreturn]] void block();
  /// pilfer::model::stop_branching() / resume_branching(): while off, every decision takes alternative 0.
  void set_branching(bool on) noexcept {
    if (revisit_ && !on && live()) rv_unsupported("stop_branching()");
    unbranched_ = !on;
    if (finishing_) return;  // (finishing a cut execution explores nothing)
    if (!on) res_.one_way_stretches = true;
    // The call is not an event, yet it changes what follows: it goes into the calling thread's
    // sequence hash, so a state where the thread has made it differs from one where it has not.
    mthread& th = threads_[cur_];
    const std::uint64_t mark = on ? 0x5eed'0000'0002ull : 0x5eed'0000'0003ull;
    th.ha = combine(th.ha, mark);
    th.hb = combine_b(th.hb, mark);
    for (std::size_t q = 0; q < th.alt_ha.size(); ++q) {
      th.alt_ha[q] = combine(th.alt_ha[q], mark);
      th.alt_hb[q] = combine_b(th.alt_hb[q], mark);
    }
  }
  /// pilfer::model::observe(): the running thread's reads take the newest consistent store.
  void observe(bool begin) noexcept { threads_[cur_].observing += begin ? 1 : -1; }
  /// This thread stops here for good: it is never resumed, its frames are never unwound.
  [[noreturn]] void strand();
  std::size_t execution_index() const noexcept { return exec_index_; }

 private:
  friend struct consistency;
  // execution driving
  enum class outcome { complete, failed, pruned, blocked, other_shard };
  bool rc11() const noexcept { return opt_.model == memory_model::rc11; }
  bool memo_seen(hash128 h);  // insert; true if it was there
  bool visit_state(const hash128& h, bool memoise);  // a scheduling point's state: false = seen before (pruned)
  outcome run_execution();
  void reset_execution();
  bool report_progress(std::chrono::steady_clock::time_point t0, bool final, bool exhausted);
  void cleanup_execution();
  void main_body();
  static void fiber_entry();
  /// `for_good`: the fiber ended or is stranded (ASan may free its fake stack).
  void switch_to_scheduler(bool for_good = false);
  void switch_to(std::uint32_t t);
  /// Scheduling point before a visible operation. false: the execution was cut short while
  /// this thread waited here; the caller performs the operation in finishing mode.
  [[nodiscard]] bool begin_op(const std::source_location& src);
  /// No consistent choice here (pruned): end the execution; returns once this thread is
  /// resumed to finish, and the caller performs its operation in finishing mode.
  void cut_here();

  // finishing (see "Finishing an execution")
  bool finish_execution();  // false: some thread was stranded
  void finish_threads();    // round-robin until every thread ended or none can go on (stranded)
  void strand_unfinished();
  void finishing_op();      // counts the thread's operations against its budget
  void finishing_pause();   // lets the other threads run
  detail::access_result finish_access(std::uint32_t id, const detail::access& a);
  void finish_wait(std::uint32_t id, std::uint64_t old);
  detail::access_result finish_await(std::uint32_t id, const detail::access& a);
  void finish_join(std::uint32_t t);
  void finish_lock(std::uint32_t id);
  bool finish_try_lock(std::uint32_t id);
  void finish_unlock(std::uint32_t id);
  bool enabled(std::uint32_t t) const;
  /// The n threads that may run (en) are all at awaits whose location's newest store the predicate
  /// rejects: once that store is visible to them, none can go on (a hang; exploration.cpp).
  bool only_stale_awaits(const std::uint32_t* en, std::uint32_t n) const;
  bool await_satisfiable(std::uint32_t t) const;
  std::uint32_t choose(std::uint32_t n);
  /// The execution's latest state (its number): a new decision is taken after it.
  std::uint32_t last_state() const noexcept { return states_seen_ == 0 ? 0 : states_seen_ - 1; }
  std::uint32_t choose_recorded(const std::vector<std::uint32_t>& aux);
  bool fast_replay(std::uint32_t* aux);
  hash128 state_hash() const;
  /// The part of a thread's state-hash term that is neither a key nor a hash: status, pending
  /// operation, observing depth, an await waiting for the graph to change (memo.cpp, symmetry.cpp).
  std::uint64_t thread_state_bits(const mthread& th) const noexcept {
    return static_cast<std::uint64_t>(th.status) | (static_cast<std::uint64_t>(th.pend) << 8) |
           (static_cast<std::uint64_t>(th.observing) << 16) |
           (static_cast<std::uint64_t>(th.pend == pending::await && th.await_stale == events_.size()) << 63);
  }
  void finish_thread();

  // symmetry reduction (symmetry.cpp): besides its own labels (keys), every thread and location
  // carries its labels under each other permutation of the scenario's symmetric groups, and the
  // state hash is the least over all labelings
  void start_symmetry(const scenario& s);       // main thread: the scenario was just made
  void check_symmetry_kept(const scenario& s);  // main thread, after after(): no late symmetric()
  /// Labelings the state is hashed under: 1 (the threads' own keys) + one per other permutation.
  std::size_t labelings() const noexcept { return alt_active_ ? 1 + alt_perms_.size() : 1; }
  std::uint64_t thread_key(std::uint32_t t, std::size_t labeling) const noexcept {
    return labeling == 0 ? threads_[t].key : threads_[t].alt_key[labeling - 1];
  }
  std::uint64_t loc_key(std::uint32_t l, std::size_t labeling) const noexcept {
    return labeling == 0 ? locs_[l].key : locs_[l].alt_key[labeling - 1];
  }
  /// What an event adds to its thread's sequence hash under a labeling: kind, location, rf
  /// source, other thread (for a symmetric group's spawn or join, the group, not the thread).
  std::uint64_t event_descriptor(const event& e, std::size_t labeling) const noexcept;
  /// The keys event_descriptor(e, labeling) reads are the threads' own: it equals labeling 0's.
  bool labels_agree(const event& e, std::size_t labeling) const noexcept;
  void label_spawned(mthread& child, const mthread& parent) const;  // spawn(): sym_key, alt keys
  void label_location(location& l, const mthread& creator);         // new_location(): alt keys, alt sums
  void rehash_mo(location& l, std::uint32_t gid);                   // commit(): mo chains, loc sums
  hash128 symmetric_state_hash() const;                             // state_hash(): the least over labelings

  // symmetry reduction under revisits (revisit_symmetry.cpp; GenMC's SR): of the graphs that differ
  // by permuting a group's threads, the revisit exploration keeps those in which no thread's event is
  // eco-before the event at the same place of an earlier member with the same history so far
  bool rv_sym_on_ = false;                   // this revisit exploration reduces by symmetry
  std::vector<std::uint32_t> rv_sym_link_;   // gid -> the earlier member's event its porf-prefix takes in
  std::size_t rv_sym_pruned_ = 0;            // runs cut because their revisited event was not canonical
  void rv_sym_added(std::uint32_t gid);      // commit(): the event's link
  void rv_sym_mark(std::uint32_t gid);       // rv_porf(): the step of gid's link joins the prefix
  std::uint32_t rv_sym_pending_step();       // rv_conflicts(): the link's step of the running thread's next event
  std::uint32_t rv_sym_skip(std::uint32_t lid) const;  // read_choose(): a source left to the earlier member
  bool rv_sym_ok(std::uint32_t gid) const;   // a revisited / alternative event: canonical
  void rv_sym_cut();                         // ... or not: the run is cut (counted as pruned)
  void rv_sym_unordered_write();             // a store with a choice of mo position: unsupported if a member runs

  // revisit exploration (revisit.cpp). An exploration item is a SCRIPT: a sequence of steps (the
  // thread that runs, by canonical key) and the outcomes of the rf / mo decisions they take (a
  // read's source, a write's mo predecessor, by canonical name), replayed from scratch; then the
  // execution goes on with the fixed scheduler. A step is one scheduling point: the operation the
  // thread performs there and the code it runs up to its next scheduling point.
  struct rv_name {
    std::uint64_t tkey;  // the thread's canonical key
    std::uint32_t idx;   // the event's index in its thread (rv_unsat_idx: an await found nothing)
    /// As an outcome: the decision took its first choice (TruSt's "added maximally": the newest
    /// consistent source / mo position when it was taken). Unused when naming an event.
    bool max = true;
  };
  struct rv_step {
    std::uint64_t tkey;
    std::uint32_t out_begin;  // its first outcome in `outs`
    /// Its place in the order events were ADDED in (TruSt's <_G), which is not the order the
    /// script runs them in: a revisited read keeps its place before the write it now reads.
    std::uint32_t rank = 0;
    /// Its read may not be revisited: it is in the porf-prefix of a write that revisited a read.
    bool settled = false;
  };
  struct rv_script {
    std::vector<rv_step> steps;
    std::vector<rv_name> outs;
    std::uint32_t validate_from = none;  // outcomes from this one on are checked against the candidates
    /// The last outcome is a pending RMW whose revisit left the lock it took the store from blocked
    /// (rv_conflicts): it makes no revisits of its own (it is the revisiting write).
    bool quiet_last = false;
  };
  static constexpr std::uint32_t rv_unsat_idx = 0xFFFFFFFEu;
  bool run_revisit(std::chrono::steady_clock::time_point t0, bool* exhausted);  // false: unsupported, use DFS
  [[noreturn]] void rv_unsupported(const char* what);
  void rv_begin_step(std::uint32_t t, std::uint32_t rank, bool settled);
  /// Inside the script: the current step still has scripted outcomes, or is not the script's last.
  bool rv_in_script() const noexcept { return rv_oi_ < rv_oend_ || rv_si_ < rv_cur_.steps.size(); }
  rv_name rv_name_of(std::uint32_t gid, bool max = true) const noexcept {
    const event& e = events_[gid];
    return rv_name{threads_[e.thread].key, e.index, max};
  }
  std::uint32_t rv_lookup(const rv_name& n) const noexcept;
  /// The running script as a replay token ("pr1…"): it names this run (revisit_tokens.cpp).
  std::string rv_token() const;
  /// A fence's order must be one of the six: otherwise failure "invalid order" (atomics.cpp).
  void fence_order_check(order_site s, const std::source_location& src);
  void replay_revisit_token(std::chrono::steady_clock::time_point t0);
  /// rv_token()'s inverse: fills `out`, or returns what is wrong with `tok`.
  std::string parse_rv_token(const std::string& tok, rv_script& out) const;
  void rv_push_alternative(const rv_name& n);
  void rv_index_events();
  void rv_porf(std::uint32_t seed1, std::uint32_t seed2, std::uint32_t seed3 = none);
  bool rv_build(std::uint32_t r, rv_script& sc, std::uint32_t* r_rank) const;
  void rv_backward(std::uint32_t w);
  void rv_conflicts(std::uint32_t lid, std::uint32_t s, std::uint32_t p);
  /// Mutexes (mutexes.cpp): r is a lock (an await of 0); revisited by a lock, it is not a read of a
  /// locked value but a thread waiting for an unlock (GenMC's blocked lock).
  bool rv_is_lock(std::uint32_t r) const noexcept;
  /// A failed try_lock of the running thread may read the lock L (no spurious failure, as the DFS):
  /// L's unlock, if any, does not reach the thread's last event through porf and the earlier failed
  /// try_locks' "before that unlock" edges (then an interleaving runs it while L is held).
  bool rv_trylock_fail_ok(std::uint32_t L) const;
  static bool rv_mutant_lock_reads_locked() noexcept;
  /// Before each scheduling decision beyond the script: a thread waiting at a lock of a held mutex
  /// is GenMC's blocked lock read. Its pending-RMW revisits (the graphs where it takes a store
  /// another lock took) are made now, once per store; then it waits, and reads the unlock later.
  void rv_lock_attempts();
  /// Event a was added before event b (TruSt's <_G: the steps' ranks, then gids within a step).
  bool rv_added_before(std::uint32_t a, std::uint32_t b) const noexcept {
    const std::uint32_t ra = rv_rec_.steps[rv_evstep_[a]].rank, rb = rv_rec_.steps[rv_evstep_[b]].rank;
    return ra != rb ? ra < rb : a < b;
  }
  /// Whether event x stays in the graph of the revisit of read r (rv_mark_: the revisiting write's
  /// porf-prefix): added before r, or in that prefix. r itself is replaced, not kept.
  bool rv_kept(std::uint32_t x, std::uint32_t r) const noexcept {
    return x != r && (rv_added_before(x, r) || rv_mark_[rv_evstep_[x]] != 0);
  }
  void rv_set_max(std::uint32_t gid, bool m) {
    if (rv_max_.size() <= gid) rv_max_.resize(gid + 1, 1);
    rv_max_[gid] = m ? 1 : 0;
  }
  bool rv_is_max(std::uint32_t gid) const noexcept { return gid >= rv_max_.size() || rv_max_[gid] != 0; }
  /// Whether the await read `gid` (its predicate is gone with its frame) accepts the store `k`:
  /// 1 / 0 from the values its predicate was asked about when it was added (every store of the
  /// location then), -1 if k's value is not among them.
  int rv_await_accepts(std::uint32_t gid, std::uint32_t k) const noexcept;
  /// TruSt's maximality condition (GenMC's isMaximalExtension) for revisiting read r by write w
  /// (w = none: by the RMW the running thread is about to add, which reads a store another RMW
  /// reads): the graph this revisit makes has exactly one parent, this one.
  bool rv_maximal_extension(std::uint32_t r, std::uint32_t w) const noexcept;
  /// Estimating (estimate.cpp): the alternatives pushed on rv_work_ since the last call are the
  /// decision just taken (`backward`: a write's revisits) besides going on; a probe draws one of
  /// them or going on, and multiplies its weight by their number. Every place that pushes scripts
  /// calls it once its decision's alternatives are all pushed. Not estimating: nothing.
  void rv_decided(bool backward) {
    if (est_on_) est_decide(backward);
  }
  void est_decide(bool backward);

  // graph
  event make_event(ek k, std::uint32_t loc, const std::source_location& src) const;
  std::uint32_t add_event(const event& e, std::uint32_t mo_index);  // returns gid
  void remove_last_event();
  void commit(std::uint32_t gid);  // thread-state and hash updates after add_event
  std::uint32_t visible_bound(std::uint32_t t, const location& l) const;
  std::uint64_t key_of(const event& e) const;
  bool hbq(const event& x, const event& y) const noexcept {
    return (&x != &y) && x.index < y.v.c[x.thread];
  }
  void compute_views(event& e, const mthread& t) const;
  bool psc_needed(const event& e, bool added) const;
  bool psc_ok(std::uint32_t gid, std::vector<std::pair<std::uint32_t, std::uint32_t>>* edges);
  bool scb(const event& x, const event& y) const;
  const event* next_diff(const event& x) const;
  const event* prev_diff(const event& y) const;
  std::uint32_t read_choose(const event& proto, const event* fail_proto, std::uint32_t lid, bool is_cas,
                            std::uint64_t expected, const detail::access* a, std::uint64_t* value,
                            bool* success);
  std::uint32_t write_choose(event proto, std::uint32_t lid);
  void after_write(std::uint32_t t);
  std::memory_order effective(order_site s, bool* weakened);
  void race_check(const event& e, const location& l);
  void record_race(const event& first, const event& second);
  std::string describe(const event& e) const;
  std::string trace() const;
  /// One line naming the execution graph independently of the order events were added in:
  /// per thread (by index), each event's kind, location, rf source (thread:index) and mo
  /// position. Debugging only: env PILFER_MODEL_DUMP_GRAPHS=FILE appends one such line per
  /// complete execution of an exhaustive check (traces.cpp). Threads and locations are named by
  /// index, so it is canonical for scenarios whose threads and locations are made in a fixed order.
  std::string graph_line() const;
  std::string format_value(const location& l, std::uint64_t v) const;
  std::string where(const std::source_location& s) const;
  /// "by tN at file:line" where memory from make* was made, or "by tN after file:line" (make<T>: the thread's
  /// operation before it), or "by tN" (a make<T> before the thread's first operation).
  std::string made_at(const region& r) const;
  /// The latest operation of thread t at a place of the user's (the checker's own events are
  /// skipped): the spot named for what has no place of its own (a make<T>, a destructor). False
  /// when the thread has none yet.
  bool last_user_place(std::uint32_t t, const char*& file, unsigned& line) const;
  /// "L3 (made by t1 at f.cpp:10, destroyed by t2 after f.cpp:20)": how reports name an object.
  std::string location_name(std::uint32_t id) const;
  std::string token() const;

  std::function<std::unique_ptr<scenario>()> make_;
  options opt_;
  result res_;

  // per execution
  bool running_ = false, over_ = false;
  bool finishing_ = false;
  mutable bool in_predicate_ = false;  // see in_predicate()
  bool await_unsatisfied_ = false;     // read_choose: an await had accepted stores, none consistent (see access)
  /// The recorded outcome of such a read (so that replaying a prefix meets it again, not the next decision).
  static constexpr std::uint32_t await_unsatisfied_aux = 0xFFFFFFFEu;
  /// A weak CAS's spurious failure, recorded as its source event with this bit (options::spurious_cas_failures).
  static constexpr std::uint32_t spurious_failure_bit = 0x80000000u;
  std::size_t finish_progress_ = 0;  // finishing: writes, locks, unlocks, thread starts and ends
  /// Finishing strands the threads left after this many rounds in a row without progress (see finishing.cpp).
  static constexpr unsigned finish_still_rounds = 64;
  std::uint32_t cur_ = 0;
  std::vector<mthread> threads_;
  std::vector<event> events_;
  std::vector<location> locs_;
  std::unordered_map<const void*, region> regions_;
  /// The destroy/destroy_array calls running (innermost last): the objects their destructors end
  /// are reported destroyed at the call's place.
  std::vector<std::pair<const void*, std::source_location>> destroying_;
  std::unique_ptr<scenario> scenario_;
  std::vector<checker_sync::thread> main_threads_;
  // Σ combine(key, mo hash) over the atomic and mutex locations: the locations' part of the state
  // hash, updated where a location is made or its mo changes (state_hash() is O(threads)).
  std::uint64_t loc_hash_sum_a_ = 0, loc_hash_sum_b_ = 0;
  // symmetry reduction (symmetry.cpp)
  std::vector<scenario::symmetry_group> sym_groups_;  // as the first execution's scenario declared them
  bool sym_declared_ = false;                          // sym_groups_ was read
  std::vector<std::vector<unsigned>> alt_perms_;       // the other permutations: scenario index -> index
  bool alt_active_ = false;                            // this execution's labels include them
  std::vector<std::uint64_t> alt_loc_sum_a_, alt_loc_sum_b_;  // loc_hash_sum_* per other labeling
  std::uint32_t spawning_body_ = none;                 // main_body(): the scenario body being spawned
  mutable std::vector<std::uint64_t> sums_;            // symmetric_state_hash(): a, b per labeling
  std::vector<std::uint32_t> sc_nodes_;                     // gids of psc nodes
  // read_choose's candidates (a write to read from; whether the read becomes an RMW), reused
  struct read_candidate {
    std::uint32_t w;
    bool rmw;
  };
  std::vector<read_candidate> scratch_cands_;
  std::vector<std::uint32_t> scratch_good_, scratch_aux_;
  // write_choose's mo positions and consistent ones; the new psc edges of the event being added
  std::vector<std::uint32_t> scratch_positions_, scratch_good_positions_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> scratch_edges_;
  // The vectors of the previous execution's threads and locations (event lists, mo, accesses,
  // symmetry labels), emptied and kept for their capacity: a new thread or location takes them,
  // so an execution allocates nothing there once one as long has run. A vector made elsewhere
  // (start_symmetry(), finishing) is kept too, so the pools are capped.
  static constexpr std::size_t spare_cap = 4096;
  std::vector<std::vector<std::uint32_t>> spare32_;
  std::vector<std::vector<std::uint64_t>> spare64_;
  template <class T>
  static void recycle(std::vector<T>& v, std::vector<std::vector<T>>& pool) {
    if (v.capacity() == 0 || pool.size() >= spare_cap) return;
    v.clear();
    pool.push_back(std::move(v));
  }
  template <class T>
  static std::vector<T> reuse(std::vector<std::vector<T>>& pool) {
    if (pool.empty()) return {};
    std::vector<T> v = std::move(pool.back());
    pool.pop_back();
    return v;
  }
  // psc_ok's working sets, reused (psc_ok is not re-entered; `add` is swapped into its `edges`)
  struct psc_scratch {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> add, stack;
    std::vector<std::uint32_t> out_acc, out_fence_w, out_fence_eco;
    std::vector<std::uint8_t> colour;
  } psc_scratch_;
  std::vector<std::vector<std::uint64_t>> psc_;             // committed psc edges (row u: bits v)
  std::chrono::steady_clock::time_point last_progress_{};  // options::on_progress's previous call
  bool unbranched_ = false;                                 // between stop_branching() and resume_branching()
  bool force_latest_ = false;                               // next read_choose reads the mo-latest write
  std::size_t sc_fences_ = 0;
  bool failed_ = false, pruned_ = false, blocked_ = false, other_shard_ = false;
  int shard_ = -1;  // this execution's shard: 1 mine, 0 another's, -1 not decided yet
  std::string fail_kind_, fail_msg_;
  std::uint32_t last_run_ = none;
  unsigned preemptions_ = 0;
  hash128 last_hash_{0, 0};
  bool have_last_ = false;
  // States of this execution so far, and the first one whose hash is needed: the state after
  // which the prefix's last (bumped) decision is taken. The replayed prefix's states before it
  // are neither counted nor memoised, nor compared with a new state, so they are not hashed.
  std::uint32_t states_seen_ = 0, hash_from_ = 0;
  ucontext_t sched_ctx_{};
  void* sched_sp_ = nullptr;
  std::vector<std::unique_ptr<char[]>> stacks_;
  // ucontext targets: thread t's saved context (kept across executions, like its stack; not in
  // mthread, which is made for every thread of every execution)
  std::vector<std::unique_ptr<ucontext_t>> contexts_;
#if defined(PILFER_MODEL_ASAN)
  void* fake_stack_ = nullptr;
  const void* sched_bottom_ = nullptr;
  std::size_t sched_size_ = 0;
#endif

  // revisit exploration (revisit.cpp)
  bool revisit_ = false;         // this check explores by revisits
  bool rv_unsupported_ = false;  // the scenario used something revisit mode does not support
  std::string rv_unsupported_what_;
  std::vector<rv_script> rv_work_;  // scripts left to explore (a stack)
  rv_script rv_cur_, rv_rec_;       // the script being replayed; this execution's own record
  /// await liveness: events_.size() when the yielded spinners were last woken because only stale
  /// awaits could run (none: not in this execution); a write since gives them another chance.
  std::uint32_t stale_wake_at_ = none;
  bool rv_replay_ = false;          // replaying a "pr1" token: run_revisit runs rv_replay_script_ alone
  bool rv_replay_fitted_ = false;   // ... and the scenario took the whole script (no invalid outcome, no cut)
  rv_script rv_replay_script_;
  std::size_t rv_si_ = 0;           // rv_cur_'s next step
  std::uint32_t rv_oi_ = 0, rv_oend_ = 0;  // the current step's next scripted outcome, and its end
  std::vector<std::uint32_t> rv_step_gid_;   // first gid of each step of rv_rec_
  std::vector<std::uint32_t> rv_step_prev_;  // the step before it in its thread (or the spawning step)
  std::vector<std::uint32_t> rv_evstep_;     // gid -> step (rv_index_events)
  std::uint32_t rv_index_ptr_ = 0;
  std::uint32_t rv_tlast_[max_threads + 1] = {};
  std::vector<std::uint8_t> rv_mark_;  // rv_porf: the steps of a porf-prefix
  std::vector<std::uint8_t> rv_max_;   // gid -> added maximally (its decision's first choice); default 1
  std::uint32_t rv_next_rank_ = 0;     // the rank of the next step beyond the script
  std::uint32_t rv_states_at_ = none;  // events_.size() at the last state counted
  // await reads of this execution: gid, and [begin, end) of their (value, accepted) pairs
  struct rv_await_read {
    std::uint32_t gid, begin, end;
  };
  std::vector<rv_await_read> rv_awaits_;
  std::vector<std::pair<std::uint64_t, bool>> rv_await_vals_;
  // maximality checks that met an await read and a store whose value its predicate was not asked
  // about (taken as rejected: the revisit is made, a duplicate is possible)
  mutable std::size_t rv_await_unknown_ = 0;
  unsigned rv_assume_blocked_ = 0;     // threads stopped by a false assume() in this execution
  bool rv_trylock_ = false;            // the read_choose about to run is a try_lock's (mutexes.cpp)
  // mutexes.cpp: per thread waiting at a lock, the mutex's mo entries whose pending-RMW revisits its
  // lock already made (rv_lock_attempts); the read_choose about to run is a lock's that skips them
  std::uint32_t rv_lock_seen_[max_threads + 1] = {};
  std::uint32_t rv_lock_from_ = 0;
  // Debug cross-check (revisit_duplicate_check()): the final graphs seen, to count repeats. The
  // counts do not depend on it: each graph is explored once (maximality).
  bool rv_check_dups_ = false;
  std::unordered_set<hash128, hash128_hasher> rv_complete_, rv_blocked_;
  std::size_t rv_runs_ = 0, rv_revisits_ = 0, rv_invalid_ = 0, rv_dup_ = 0;
  // estimating (estimate.cpp): a probe's path through the revisit exploration's tree
  bool est_on_ = false;        // the revisit runs are probes: rv_decided() draws
  bool est_diverted_ = false;  // this run took another alternative (est_next_) than going on
  double est_weight_ = 1;      // the product of the alternatives' numbers so far
  rv_script est_next_;         // the script the probe goes on with
  std::mt19937_64 est_rng_;
  // count_probe_tree(): the decisions of the path being walked (chosen, alternatives), an odometer
  bool est_enumerate_ = false;
  std::vector<std::pair<std::size_t, std::size_t>> est_path_;
  std::size_t est_depth_ = 0;
  // sharded revisit exploration (revisit_shards.cpp; options::shard_*): every shard runs the same
  // start of the exploration, breadth-first from the root, until the work list first holds
  // options::shard_scripts scripts (the frontier); those runs are shard 0's, and script k of the
  // frontier is shard k mod shard_count's. run_revisit() calls these hooks.
  bool rv_shard_on_ = false;     // this revisit exploration is one shard of several
  bool rv_shard_dealt_ = false;  // the frontier was reached and dealt: the runs now are this shard's
  void rv_shards_begin();
  /// Whether this run's outcome is this shard's own (a failure then may stop the check).
  bool rv_shard_mine() const noexcept {
    return !rv_shard_on_ || rv_shard_dealt_ || opt_.shard_index % opt_.shard_count == 0;
  }
  /// After each run: before the frontier, the oldest script goes next (breadth-first); at it, the deal.
  void rv_shards_after_run();
  /// After the loop: a shard other than 0 that never reached the frontier explored nothing of its
  /// own; the final graphs are kept for last_revisit_graphs().
  void rv_shards_end();
  /// A sharded revisit exploration met, after its deal, something revisit mode does not support:
  /// the other shards may not have met it, so falling back to the DFS would not partition (a model error).
  void rv_shards_fallback_error();

  // decisions
  std::vector<decision> path_;
  std::size_t depth_ = 0, prefix_ = 0;
  bool replaying_token_ = false;
  std::mt19937_64 rng_;
  // memo table: a fixed-capacity cache of state hashes (open addressing over 4-slot buckets,
  // 16 buckets probed; at the cap a state whose probe sequence is full replaces one of its home
  // bucket), grown by doubling up to options::memo_entries
  std::vector<hash128> memo_;
  std::size_t memo_used_ = 0;
  std::vector<std::string> race_keys_;  // dedup keys of res_.races
  std::size_t exec_index_ = 0;
  struct tag_info {
    std::string name;
    std::memory_order want;  // -1: not weakened
    int strongest;           // strongest declared order recorded so far
  };
  std::unordered_map<const char*, tag_info> tag_cache_;
};

}  // namespace pilfer::model::engine
