// pilfer/model/checker.hpp — pilfer's stateless model checker for C++20 code.
//
// The checker runs the REAL headers of lib/ (instantiated with `checker_sync` instead of
// `pilfer::std_sync`) inside a `scenario`: a few threads (fibers on one OS thread) that
// call the component and assert an invariant. It explores every execution the chosen memory
// model allows — ISO C++20 by default (`memory_model::cxx20`), or RC11 exactly as herd7's
// rc11.cat (`memory_model::rc11`, Lahav et al., PLDI 2017) — every interleaving, every store a
// load may read from, every modification order — within the stated bounds, and reports the
// first failure with a trace and a replay token. See models/README.md for the exact models
// and their limits.
//
//   struct mp : pilfer::model::scenario {
//     using S = pilfer::model::checker_sync;
//     S::atomic<int> data{0}, flag{0};
//     int seen = -1;
//     mp() : scenario(2) {}
//     void thread(unsigned i) override {
//       if (i == 0) { data.store(1, PILFER_SITE("t.d", relaxed)); flag.store(1, PILFER_SITE("t.f", release)); }
//       else if (flag.load(PILFER_SITE("t.fl", acquire)) == 1)
//         PILFER_MODEL_ASSERT(data.load(PILFER_SITE("t.dl", relaxed)) == 1);
//     }
//   };
//   auto r = pilfer::model::check<mp>();   // r.ok, r.executions, r.summary()
//
// Threads: the scenario's `before()` runs on the main model thread, then `thread(i)` for
// i = 0..threads()-1 run concurrently, then `after()` on the main thread (hb-after all).
// Components may create further threads with `checker_sync::thread`.
#pragma once

#include <pilfer/sync.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(__cpp_lib_source_location)
// clang 14 with libstdc++ 12 has no std::source_location: a minimal stand-in with the same
// members, built from the builtins both compilers provide. (g++ uses the real one.)
namespace std {
struct source_location {
  static constexpr source_location current(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE()) noexcept {
    source_location s;
    s.file_ = f;
    s.line_ = l;
    return s;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return 0; }
  constexpr const char* function_name() const noexcept { return ""; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
};
}  // namespace std
#endif

namespace pilfer::model {

// ---------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------

/// The memory model executions are checked against (printed with every verdict).
///   cxx20  ISO C++20: release sequences are the release write followed by RMWs only
///          (P0982R1); SC per strongly-happens-before (P0668R5): scb uses sb;hb;sb with no
///          different-location restriction.
///   rc11   RC11 as herd7's rc11.cat: rs = [W];(sb&loc)?;[W];(rf;rmw)*, scb with
///          sb|≠loc;hb;sb|≠loc. For litmus work against published RC11 verdicts.
enum class memory_model : std::uint8_t { cxx20, rc11 };
/// "c++20" or "rc11".
const char* to_string(memory_model) noexcept;
/// Accepts "c++20", "cxx20", "c++2a", "rc11" (as printed by to_string and on command lines).
std::optional<memory_model> parse_memory_model(const std::string& name) noexcept;

enum class mode {
  exhaustive,  ///< DFS over all scheduling / reads-from / modification-order decisions (memoised)
  random       ///< `iterations` executions, every decision drawn from a seeded PRNG
};

/// How mode::exhaustive covers the space (models/README.md, "Revisit exploration").
///   dfs      the memoised search over interleavings: every feature (the default)
///   revisit  GenMC-style: events added in one order, later writes revisit earlier reads; memory
///            does not grow with the number of executions. A scenario using what it does not
///            support (wait / notify, yield, asymmetric fences, a preemption bound, replay,
///            ...) is explored by dfs, with a one-line note on stderr. Shards split it exactly
///            (options::shard_count).
enum class exploration_mode : std::uint8_t { dfs, revisit };

/// Where a running check stands (options::on_progress).
struct progress {
  std::size_t executions = 0;  ///< complete executions so far
  std::size_t blocked = 0;     ///< executions ended by a false assume() so far
  std::size_t states = 0;      ///< states visited so far
  double seconds = 0;          ///< since check() began
  /// Exhaustive mode: the share of the decision tree already behind the exploration, each
  /// decision's alternatives weighted equally (a subtree cut by memoisation counts as done).
  /// Subtrees differ in size, so this estimates how far the run is, not when it ends; it
  /// reaches 1 when the exploration completes. Random mode: samples taken / options::iterations.
  double explored = 0;
};

struct options {
  mode how = mode::exhaustive;
  memory_model model = memory_model::cxx20;  ///< the model executions are checked against
  std::uint64_t seed = 0;                    ///< random mode: PRNG seed (printed by the tools)
  std::size_t iterations = 1000;             ///< random mode: executions to sample
  std::size_t max_steps = 2000;              ///< events per thread before "livelock" is reported (at least 1)
  /// Bytes of each modelled thread's fiber stack, 16 KiB to 1 GiB (outside: a "model error"). A
  /// thread that needs more (deep recursion, large locals) hits the guard pages below it: the
  /// process stops with SIGSEGV after one line on stderr naming the thread and this option (not
  /// under ASan, which reports it itself).
  std::size_t stack_size = 256 * 1024;
  std::optional<unsigned> preemption_bound;  ///< exhaustive: bound on preemptive switches
  /// Exhaustive: how to explore. Unset: the process's choice (env PILFER_MODEL_EXPLORATION=dfs|revisit,
  /// else dfs); any other value of that variable makes check() fail with a "model error".
  std::optional<exploration_mode> exploration;
  /// Exhaustive mode: 0 = unlimited; when hit, result.complete = false (random mode samples `iterations`).
  std::size_t max_executions = 0;
  bool stop_on_failure = true;               ///< false: keep exploring, report the first failure
  /// false: a data race is recorded in result::races (location, both accesses, execution) and
  /// the execution CONTINUES, so every outcome of a racy program is still reached; exploration
  /// goes on after it. true: a race ends the execution as a failure (kind "data race").
  bool stop_at_first_race = true;
  /// Exhaustive mode: entries of the memo table of visited states (16 bytes each). The table
  /// is a fixed-size cache: when full, older states are forgotten (re-explored if met again),
  /// so memory stays bounded whatever the number of explored states; exploration stays
  /// complete. 0 = no memoisation.
  std::size_t memo_entries = std::size_t{1} << 21;
  /// Exhaustive mode: explore only shard `shard_index` of `shard_count`; n processes with indices
  /// 0..n-1 together cover the whole space, each complete for its part.
  /// By the DFS: each execution's first state with `shard_depth` events (init writes included)
  /// picks the shard by its canonical hash (an execution that never reaches shard_depth events
  /// belongs to shard 0). A graph reachable through several such states may be explored by more
  /// than one shard.
  /// By revisits (exploration_mode::revisit): exact. Every shard makes the same start of the
  /// exploration, breadth-first, until `shard_scripts` alternatives (scripts) wait; the runs made
  /// so far are shard 0's, and the k-th waiting alternative is shard k mod shard_count's. Each
  /// final graph is explored by one shard, the shards' executions and blocked executions add up
  /// to the whole's, and shard i of n is shards i, i + n, ... of k·n together (models/README.md,
  /// "Sharding"). A feature revisit mode does not support, met by a shard after that point, is a
  /// "model error" (that shard alone cannot fall back to the DFS).
  unsigned shard_index = 0, shard_count = 1, shard_depth = 24;
  /// Revisit shards: the number of waiting scripts at which the shards split (more: a longer common
  /// start, replayed by every shard, and parts of more even sizes; models/README.md, "Sharding").
  unsigned shard_scripts = 1024;
  /// Exhaustive mode: use the scenario's symmetric() groups (symmetry reduction). false: every
  /// permutation of their threads is explored, as if none were declared.
  bool symmetry = true;
  bool verbose = false;                      ///< print each execution's trace (debugging only)
  bool spurious_wakeups = false;             ///< atomic::wait may also return without a notify
  /// compare_exchange_weak may also fail where it could succeed (reading the expected value), as
  /// the standard allows: code that assumes a weak CAS on the expected value succeeds is caught.
  /// (DFS only; each such CAS doubles its choices.)
  bool spurious_cas_failures = false;
  /// An await that only stale stores satisfy, where no other thread can run, is a hang ("deadlock"):
  /// once the newest stores are visible, the loop the await stands for reads them for ever (GenMC's
  /// -check-liveness). DFS and random modes; the revisit exploration does not check it.
  bool await_liveness = true;
  /// Sensitivity: a site whose tag is a key here uses the meet of its own order and the
  /// mapped one (never stronger than declared: seq_cst + acq_rel = acquire for a load).
  std::map<std::string, std::memory_order> weaken;
  /// A token from result::replay_token: re-run exactly that execution and print its trace.
  std::string replay;
  /// Called on the checking thread after an execution when `progress_interval` seconds have
  /// passed since the previous call (0: after every execution), and once at the end.
  std::function<void(const progress&)> on_progress;
  double progress_interval = 10;
};

/// One data race (two plain accesses, at least one a write, not ordered by happens-before).
struct race {
  std::string location;      ///< "cell L3 created at file:line"
  std::string first;         ///< the earlier access: "write by t1:4 at file:line"
  std::string second;        ///< the access that found the race: "read by t2:3 at file:line"
  std::size_t execution = 0; ///< index of the execution it was found in
  std::string replay_token;  ///< options::replay re-runs an execution that reaches it
  std::string trace;         ///< that execution up to the race
};

struct result {
  bool ok = true;              ///< no failure of any kind (a race is a failure too)
  memory_model model = memory_model::cxx20;  ///< the model that was checked
  std::size_t executions = 0;  ///< complete consistent executions explored
  std::size_t states = 0;      ///< partial execution graphs visited (not memoised away)
  std::size_t blocked = 0;     ///< executions ended by a failed assume() (not errors)
  std::size_t pruned = 0;      ///< runs cut short: memoised state reached / no consistent choice
  /// DFS: runs cut because their prefix belongs to another shard. Revisits: alternatives left
  /// to other shards where they split, and (shards other than 0) the runs made before it.
  std::size_t other_shards = 0;
  /// States the memo table forgot because it was at its cap (options::memo_entries); while 0,
  /// with memoisation on (memo_entries > 0: with 0 nothing is remembered, so nothing is counted
  /// here, and a graph may be completed many times) and without a preemption bound, every
  /// distinct execution graph was completed exactly once
  /// (`executions` counts graphs). Under a preemption bound the state includes the switches used
  /// and the thread that ran last, so one graph reached with different budgets left is
  /// completed once per budget.
  std::size_t forgotten = 0;
  /// Executions whose threads could not all be run to their end after the execution was cut
  /// short: a thread stopped at a failure or a false assume(), or the others then waited for
  /// it for good. Their stack frames were abandoned, and what those frames own is leaked (see
  /// models/README.md, "finishing an execution"). 0 when none failed or was blocked, unless
  /// the rest of a cut execution could not end (deadlocked, or ran past its budget).
  std::size_t abandoned = 0;
  bool complete = false;       ///< the whole space was covered within the stated bounds
  /// Some stretch of an execution ran with branching off (stop_branching()): `complete` covers
  /// the executions with those stretches run one way.
  bool one_way_stretches = false;
  double seconds = 0;
  /// The first failure: "", "assertion", "data race", "deadlock", "livelock", "use after free",
  /// "double free", "leak", "uninitialised read", "invalid free", "mutex misuse", "thread misuse"
  /// (a thread destroyed or assigned over while joinable, a join of one that is not joinable),
  /// "invalid order" (a load with release or acq_rel, a store with consume, acquire or acq_rel, a
  /// compare_exchange failure order release or acq_rel: undefined by the standard), "model error", "exception" (one escaped a modelled thread's code, the scenario's constructor
  /// or after())
  std::string kind;
  std::string message;       ///< what failed, with file:line
  std::string trace;         ///< one line per event of the failing execution
  std::string replay_token;  ///< pass back in options::replay to reproduce the failure
  std::set<std::string> tags;  ///< every order-site tag executed during this check
  /// The strongest order declared at any site with each tag (for one-step weakening).
  std::map<std::string, std::memory_order> tag_orders;
  /// Distinct data races (by location and access sites); filled when
  /// options::stop_at_first_race is false, else holds the one race that stopped the check.
  std::vector<race> races;
  bool racy() const noexcept { return !races.empty(); }
  /// One line: ok/FAIL, model, executions, blocked, states, complete?, seconds, races, abandoned.
  std::string summary() const;
};

/// A test program: a fresh object is made (by the factory given to check()) for every
/// execution, on the main model thread, so members that are checker atomics/cells belong to
/// that execution. Leak checking happens after the scenario object is destroyed: memory made
/// with checker_sync::make and not destroyed by then is reported as "leak".
class scenario {
 public:
  explicit scenario(unsigned threads);
  virtual ~scenario();
  scenario(const scenario&) = delete;
  scenario& operator=(const scenario&) = delete;

  virtual void before() {}                  ///< single-threaded, before the threads start
  virtual void thread(unsigned index) = 0;  ///< bodies 0..threads()-1, run concurrently
  virtual void after() {}                   ///< after all threads are joined (hb-after them)
  unsigned threads() const noexcept { return threads_; }

  /// A group of interchangeable bodies (see symmetric()): their indices, as declared.
  struct symmetry_group {
    std::vector<unsigned> bodies;
  };
  const std::vector<symmetry_group>& symmetric_groups() const noexcept { return symmetric_; }

 protected:
  /// Symmetry reduction (exhaustive mode): declares bodies first..first+count-1 interchangeable
  /// (or the bodies listed: symmetric({0, 5})), so that a state and the same state with those
  /// threads' roles swapped are explored once.
  /// Executions that differ only by which of them did what are then counted once: the result's
  /// `executions` and `states` drop, the failures found do not. The declaration is a promise:
  ///  - `thread(i)` runs the same code on the same inputs for every i of the group (what a
  ///    body writes to memory the checker does not see, a result slot indexed by i, is fine);
  ///  - `after()` and everything else that reads what the threads did treats them alike (it
  ///    checks the set of their results, not that thread 1's is the first one);
  ///  - the bodies use checker_sync::thread_id() only to tell threads apart (==, !=), never
  ///    as a number. checker_sync::random() gives every thread of a group the same sequence
  ///    (with symmetry on or off, and in random mode).
  /// Call it from the constructor, the same way in every execution (a group's bodies in any
  /// order). Groups must not overlap and must lie within 0..threads()-1; a declaration that
  /// changes between executions or is made later (before(), a thread, after()) is an error too:
  /// the check fails with "model error".
  /// options::symmetry = false explores every permutation anyway.
  void symmetric(unsigned first, unsigned count) {
    symmetry_group g;  // (a range beyond threads() is listed up to its first missing body: reported)
    for (unsigned i = 0; i < count && i <= threads_; ++i) g.bodies.push_back(first + i);
    symmetric_.push_back(std::move(g));
  }
  void symmetric(std::vector<unsigned> bodies) { symmetric_.push_back({std::move(bodies)}); }

 private:
  unsigned threads_;
  std::vector<symmetry_group> symmetric_;
};

/// Explore `make`'s scenario. Never throws for a failing scenario: the failure is the result.
result check(std::function<std::unique_ptr<scenario>()> make, const options& = {});

/// Convenience: check<my_scenario>(opts, ctor_args...).
template <class S, class... A>
result check(const options& o = {}, A... a) {
  return check([=]() -> std::unique_ptr<scenario> { return std::make_unique<S>(a...); }, o);
}

/// What estimate() found: the size of the scenario's exhaustive exploration by revisits
/// (exploration_mode::revisit), from random probes. Each probe is one path down that exploration's
/// tree — at every decision one of the alternatives actually available (a read's coherent sources
/// and the revisits it may make as a pending RMW, a write's mo positions, a write's backward
/// revisits or none), drawn uniformly — and the product of the numbers of alternatives met is an
/// unbiased estimate of the executions below the root (Knuth's estimator; each graph is reached
/// once by revisits, so the tree has no pruning to mislead it). The figures are means over the
/// probes; the errors are standard errors of those means (heavy-tailed: read them as a guide).
struct estimate_result {
  bool ok = true;               ///< false: no estimate, `message` says why
  std::string message;          ///< "cannot estimate: mutexes" (a feature revisit mode does not support)
  memory_model model = memory_model::cxx20;
  std::uint64_t seed = 0;       ///< options::seed: the same seed and probes give the same estimate
  std::size_t probes = 0;       ///< probes made
  double executions = 0;        ///< complete + blocked executions
  double executions_error = 0;  ///< its standard error
  double complete = 0;          ///< complete executions (result::executions under revisit)
  double complete_error = 0;
  double blocked = 0;           ///< blocked executions (result::blocked under revisit)
  double runs = 0;              ///< runs of the exhaustive exploration (invalid revisits included)
  double failed = 0;            ///< failing executions (0 unless a probe met a failure)
  std::string failure;          ///< the kind of the first failure a probe met ("" if none)
  std::size_t probe_runs = 0;   ///< executions the probes ran (a probe replays from scratch at each
                                ///< alternative it takes)
  double seconds = 0;           ///< the probes' time
  double projected_seconds = 0; ///< `runs` at the probes' time per run: the exhaustive run's time, roughly
  /// One line: executions ± error (complete, blocked), probes, seed, projected time.
  std::string summary() const;
};

/// Estimate the size of `make`'s exhaustive exploration by revisits before running it: `probes`
/// random probes seeded by `o.seed` (o.model, o.max_steps, o.weaken, o.symmetry and o.stack_size
/// apply; o.how, o.exploration, o.max_executions are ignored: the probes explore by revisits whatever
/// the process's default). A scenario using what revisit mode does not support (mutexes, wait /
/// notify, yield, a preemption bound, shards, ...) gives ok = false
/// and "cannot estimate: <feature>", never a number. Never throws for a failing scenario.
estimate_result estimate(std::function<std::unique_ptr<scenario>()> make, const options& o = {},
                         std::size_t probes = 1000);

/// Tags seen by the most recent check() (same as its result.tags).
const std::set<std::string>& seen_tags();

/// Index (0-based) of the execution being run by the current check(); usable inside scenarios.
std::size_t current_execution_index();

/// True while a model execution is being explored on this OS thread (inside check()); false
/// while an execution cut short is being finished (nothing is explored or checked then).
bool in_execution() noexcept;

/// Await: an execution in which `cond` is false is BLOCKED — it ends, is not an error, and is
/// counted in result::blocked. Use it for await loops instead of spinning
/// (`while (!flag.load(o)) {}` becomes `assume(flag.load(o))`): the executions in which the
/// flag is not yet set are exactly the ones a spinning thread would discard. Outside an
/// execution a false `cond` does nothing.
void assume(bool cond);

/// Branching off: until resume_branching(), every decision — which thread runs next, which
/// store a read takes, where a store goes in mo, whom a notify wakes — takes its first
/// alternative (the running thread goes on; reads take the newest store allowed), so the
/// executions share one schedule for that stretch. Events are still recorded and checked
/// (assertions, races, use after free, leaks, deadlock). Two uses in scenarios:
///  - a set-up the scenario does not check (start a pool and let its workers park) is run once,
///    and branching resumes where the checked protocol begins;
///  - a teardown after the property is decided (destroying a pool in after()) is run once per
///    execution instead of multiplying every history by its interleavings.
/// A `complete` result then means every execution with these stretches run the one way.
/// Calls outside an execution do nothing; branching is on when each execution starts.
void stop_branching() noexcept;
/// Branching on again (see stop_branching()).
void resume_branching() noexcept;

namespace detail {
void observe_scope(bool begin) noexcept;
}

/// Runs `f` as the scenario's own observer: every read inside takes the newest store the
/// model allows at that point instead of branching over older ones (as a spinning read does
/// after its hint). For a scenario's gates on state it does not check — `while
/// (observe([&] { return pool.stats().sleeping; }) < 2) yield();` waits until two workers are
/// parked without multiplying the executions by every stale value of every counter stats()
/// reads. The code under check keeps every value the model allows.
template <class F>
decltype(auto) observe(F&& f) {
  struct scope {
    scope() noexcept { detail::observe_scope(true); }
    ~scope() { detail::observe_scope(false); }
  } s;
  return std::forward<F>(f)();
}

// ---------------------------------------------------------------------------------------------
// Engine entry points used by checker_sync (type-erased; values travel as 64-bit patterns)
// ---------------------------------------------------------------------------------------------
namespace detail {

inline constexpr std::uint32_t no_location = 0xFFFFFFFFu;

enum class rmw_op : std::uint8_t { none, exchange, add, sub, bit_or, bit_and };

struct value_info {
  unsigned bits;  ///< 8 * sizeof(T)
  bool is_signed;
  bool is_pointer;
};

template <class T>
constexpr value_info info_of() noexcept {
  return value_info{static_cast<unsigned>(8 * sizeof(T)), std::is_signed_v<T>, std::is_pointer_v<T>};
}

/// A value's bits as the checker stores and compares them. Padding bits are cleared: C++20's
/// compare_exchange compares value representations, not padding (P0528R3), so a CAS whose
/// `expected` differs from the stored value only in padding succeeds. (Where the compiler lacks
/// __builtin_clear_padding — clang before 15 — padding is compared as it is: a padded T's CAS
/// may fail that the standard lets succeed; give such a T explicit fields instead of padding.)
template <class T>
std::uint64_t to_bits(const T& v) noexcept {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "checker_sync::atomic<T> needs a trivially copyable T of at most 8 bytes");
  std::uint64_t b = 0;
#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
  if constexpr (!std::has_unique_object_representations_v<T> && !std::is_floating_point_v<T>) {
    alignas(T) unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));  // (implicitly creates the T the builtin clears)
    __builtin_clear_padding(std::launder(reinterpret_cast<T*>(bytes)));
    std::memcpy(&b, bytes, sizeof(T));
    return b;
  }
#endif
#endif
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(std::uint64_t b) noexcept {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

/// The execution objects made now belong to (a serial unique across checks; 0 outside check()).
std::uint64_t execution_serial() noexcept;
/// An atomic, cell or mutex made outside this execution (a global, a function-local static, an
/// object kept from an earlier execution or check()) is used inside it: a model error, since the
/// checker sees nothing of it (it would act as plain memory, or as another object's location).
[[noreturn]] void foreign_object(const char* what, const std::source_location&);
/// Whether the object (location `id`, made in execution `serial`) is this execution's. Outside an
/// execution: false, and the object acts as plain memory. Inside, another execution's object (or
/// one made outside any) stops the execution with a model error.
inline bool own_object(std::uint32_t id, std::uint64_t serial, const char* what, const std::source_location& loc) {
  if (id != no_location && serial == execution_serial()) return true;
  if (in_execution()) foreign_object(what, loc);
  return false;
}

/// Register an atomic location; returns its id (no_location outside an execution).
std::uint32_t new_atomic(const void* addr, std::uint64_t init, bool initialised, value_info,
                         const std::source_location&);
/// The object holding location `id` was destroyed: later accesses are "use after free".
void end_location(std::uint32_t id) noexcept;

/// load (op none, !is_write), store (op none, is_write), RMWs (op != none), CAS (cas = true).
struct access {
  rmw_op op = rmw_op::none;
  bool is_write = false;
  bool cas = false;
  bool weak = false;
  std::uint64_t operand = 0;   ///< value stored / added / desired
  std::uint64_t expected = 0;  ///< CAS only
  order_site site{std::memory_order_relaxed, ""};
  order_site fail_site{std::memory_order_relaxed, ""};  ///< CAS only
  /// await only: the load waits until it may read a value v with accept(v, accept_ctx)
  bool (*accept)(std::uint64_t, const void*) = nullptr;
  const void* accept_ctx = nullptr;
};
struct access_result {
  std::uint64_t value;  ///< value read (loads, RMWs, CAS: the value found)
  bool success;         ///< CAS only
};
access_result atomic_access(std::uint32_t id, const access&, const std::source_location&);
void atomic_wait(std::uint32_t id, std::uint64_t old, order_site, const std::source_location&);
void atomic_notify(std::uint32_t id, bool all, const std::source_location&);
void fence(order_site, const std::source_location&);
void fence_heavy(order_site, const std::source_location&);

std::uint32_t new_cell(const void* addr, const std::source_location&);
void cell_access(std::uint32_t id, bool write, const std::source_location&);

std::uint32_t new_mutex(const void* addr, const std::source_location&);
void mutex_lock(std::uint32_t id, const std::source_location&);
bool mutex_try_lock(std::uint32_t id, const std::source_location&);
void mutex_unlock(std::uint32_t id, const std::source_location&);

struct task {
  virtual ~task() = default;
  virtual void run() = 0;
};
template <class F>
struct task_of final : task {
  F f;
  explicit task_of(F&& g) : f(std::move(g)) {}
  void run() override { f(); }
};
unsigned spawn(std::unique_ptr<task>, const std::source_location&);
void join(unsigned thread, const std::source_location&);
/// A checker_sync::thread used as std::thread forbids: failure "thread misuse" in an execution
/// (nothing while an execution is finished or torn down).
void thread_misuse(const char* what, const std::source_location&) noexcept;

void spin_hint(const std::source_location&);
void yield(const std::source_location&);
std::uint64_t random(std::uint64_t bound);
void*& thread_slot(const void* key);
unsigned thread_id() noexcept;

void* tracked_alloc(std::size_t bytes, std::size_t align, std::size_t count, bool array,
                    const char* what, const std::source_location&);
/// Validate a destroy; false (after recording "double free"/"invalid free") ends the execution.
bool tracked_check_free(const void* p, bool array, const std::source_location&);
/// Quarantine the (already destructed) region until the execution ends.
void tracked_release(void* p) noexcept;

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line);

}  // namespace detail

/// Tag for the "uninitialised" atomic constructor: the initial value may not be read.
struct uninit_t {
  explicit uninit_t() = default;
};
inline constexpr uninit_t uninit{};

// ---------------------------------------------------------------------------------------------
// checker_sync: the Sync policy that runs pilfer's headers under the checker
// ---------------------------------------------------------------------------------------------
struct checker_sync {
  static constexpr bool is_model = true;

  /// A broken internal invariant of the code under check (std_sync aborts): a failed assertion.
  [[noreturn]] static void broken_invariant(const char* what, const char* file, int line) {
    detail::assertion_failed(what, file, line);
  }

  template <class T>
  class atomic {
   public:
    atomic(std::source_location loc = std::source_location::current()) noexcept  // NOLINT
        : id_(detail::new_atomic(this, detail::to_bits(T()), true, detail::info_of<T>(), loc)),
          raw_(detail::to_bits(T())) {}
    explicit atomic(T v, std::source_location loc = std::source_location::current()) noexcept
        : id_(detail::new_atomic(this, detail::to_bits(v), true, detail::info_of<T>(), loc)),
          raw_(detail::to_bits(v)) {}
    explicit atomic(uninit_t, std::source_location loc = std::source_location::current()) noexcept
        : id_(detail::new_atomic(this, 0, false, detail::info_of<T>(), loc)), raw_(0) {}
    ~atomic() { detail::end_location(id_); }
    atomic(const atomic&) = delete;
    atomic& operator=(const atomic&) = delete;

    T load(order_site s, std::source_location loc = std::source_location::current()) const {
      detail::access a;
      a.site = s;
      return from(a, loc).value_;
    }
    /// Await: a load that waits until it may read a value for which `pred` holds, and returns
    /// that value — the spin loop `do v = x.load(o); while (!pred(v));` under a fair scheduler,
    /// without its iterations. The thread is not scheduled while no store it may read (by
    /// coherence, from its point of view) satisfies `pred`; then it may read any store that
    /// does, older ones included. When no thread can run and an await cannot be satisfied, the
    /// execution fails with "deadlock" (the loop would spin for ever), where assume() would
    /// count it as blocked and hide the hang. `pred` must be a pure function of the value: the
    /// checker calls it to decide whether the thread may run, and a call into the checker from
    /// it (an atomic access, an assertion) stops the process with a message. A value `pred`
    /// throws on is read, and `pred`, evaluated again on it in the thread, throws there, as in
    /// the loop. Outside an execution: one load.
    template <class Pred>
    T await(Pred pred, order_site s, std::source_location loc = std::source_location::current()) const {
      detail::access a;
      a.site = s;
      a.accept = [](std::uint64_t bits, const void* ctx) {
        return static_cast<bool>((*const_cast<Pred*>(static_cast<const Pred*>(ctx)))(detail::from_bits<T>(bits)));
      };
      a.accept_ctx = &pred;
      if (!detail::own_object(id_, serial_, "an atomic", loc)) return local(a).value_;
      for (;;) {
        const T v = from(a, loc).value_;
        if (pred(v)) return v;  // (false only for a value pred threw on in the checker, or an impure pred)
      }
    }
    /// Await for a CAS: the retry loop `while (!x.compare_exchange_weak(e = expected, desired, s,
    /// ...)) {}` whose failed attempts write nothing (GenMC turns such a loop into
    /// assume(CAS succeeded)), without its failed attempts: the thread is not scheduled until a
    /// store it may read equals `expected` and its read-modify-write may follow that store in
    /// modification order; then the CAS succeeds, with order `s`. A hang is reported as for
    /// await(). Outside an execution: one CAS.
    void await_exchange(T expected, T desired, order_site s, std::source_location loc = std::source_location::current()) {
      constexpr unsigned bits = detail::info_of<T>().bits;
      const std::uint64_t want = detail::to_bits(expected) & (bits >= 64 ? ~0ull : ((1ull << bits) - 1));
      detail::access a = cas_access(expected, desired, s, s, false);
      a.accept = [](std::uint64_t v, const void* ctx) { return v == *static_cast<const std::uint64_t*>(ctx); };
      a.accept_ctx = &want;
      (void)from(a, loc);
    }
    void store(T v, order_site s, std::source_location loc = std::source_location::current()) {
      detail::access a;
      a.is_write = true;
      a.operand = detail::to_bits(v);
      a.site = s;
      (void)from(a, loc);
    }
    T exchange(T v, order_site s, std::source_location loc = std::source_location::current()) {
      return rmw(detail::rmw_op::exchange, v, s, loc);
    }
    bool compare_exchange_strong(T& expected, T desired, order_site success, order_site failure,
                                 std::source_location loc = std::source_location::current()) {
      return cas(expected, desired, success, failure, false, loc);
    }
    bool compare_exchange_weak(T& expected, T desired, order_site success, order_site failure,
                               std::source_location loc = std::source_location::current()) {
      return cas(expected, desired, success, failure, true, loc);
    }
    T fetch_add(T d, order_site s, std::source_location loc = std::source_location::current())
      requires std::is_integral_v<T>
    {
      return rmw(detail::rmw_op::add, d, s, loc);
    }
    T fetch_sub(T d, order_site s, std::source_location loc = std::source_location::current())
      requires std::is_integral_v<T>
    {
      return rmw(detail::rmw_op::sub, d, s, loc);
    }
    T fetch_or(T d, order_site s, std::source_location loc = std::source_location::current())
      requires std::is_integral_v<T>
    {
      return rmw(detail::rmw_op::bit_or, d, s, loc);
    }
    T fetch_and(T d, order_site s, std::source_location loc = std::source_location::current())
      requires std::is_integral_v<T>
    {
      return rmw(detail::rmw_op::bit_and, d, s, loc);
    }
    /// Blocks while the value read equals `old` (a notify re-checks; no spurious wake-ups
    /// unless options::spurious_wakeups). A wait nobody notifies ends as "deadlock".
    void wait(T old, order_site s, std::source_location loc = std::source_location::current()) const {
      if (!detail::own_object(id_, serial_, "an atomic", loc)) return;
      detail::atomic_wait(id_, detail::to_bits(old), s, loc);
    }
    void notify_one(std::source_location loc = std::source_location::current()) {
      if (detail::own_object(id_, serial_, "an atomic", loc)) detail::atomic_notify(id_, false, loc);
    }
    void notify_all(std::source_location loc = std::source_location::current()) {
      if (detail::own_object(id_, serial_, "an atomic", loc)) detail::atomic_notify(id_, true, loc);
    }

   private:
    struct out {
      T value_;
      bool ok_;
    };
    out from(const detail::access& a, const std::source_location& loc) const {
      if (!detail::own_object(id_, serial_, "an atomic", loc)) return local(a);
      const auto r = detail::atomic_access(id_, a, loc);
      return out{detail::from_bits<T>(r.value), r.success};
    }
    T rmw(detail::rmw_op op, T v, order_site s, const std::source_location& loc) {
      detail::access a;
      a.op = op;
      a.is_write = true;
      a.operand = detail::to_bits(v);
      a.site = s;
      return from(a, loc).value_;
    }
    static detail::access cas_access(T expected, T desired, order_site s, order_site f, bool weak) {
      detail::access a;
      a.cas = true;
      a.weak = weak;
      a.is_write = true;
      a.operand = detail::to_bits(desired);
      a.expected = detail::to_bits(expected);
      a.site = s;
      a.fail_site = f;
      return a;
    }
    bool cas(T& expected, T desired, order_site s, order_site f, bool weak,
             const std::source_location& loc) {
      const out r = from(cas_access(expected, desired, s, f, weak), loc);
      if (!r.ok_) expected = r.value_;
      return r.ok_;
    }
    // Outside an execution (e.g. a scenario object built by a test directly) the atomic is a
    // plain single-threaded value.
    out local(const detail::access& a) const {
      const T old = detail::from_bits<T>(raw_);
      if (a.cas) {
        if (raw_ == a.expected) {
          raw_ = a.operand;
          return out{old, true};
        }
        return out{old, false};
      }
      if (!a.is_write) return out{old, true};
      if constexpr (std::is_integral_v<T>) {
        const T d = detail::from_bits<T>(a.operand);
        switch (a.op) {
          case detail::rmw_op::add: raw_ = detail::to_bits(static_cast<T>(old + d)); return out{old, true};
          case detail::rmw_op::sub: raw_ = detail::to_bits(static_cast<T>(old - d)); return out{old, true};
          case detail::rmw_op::bit_or: raw_ = detail::to_bits(static_cast<T>(old | d)); return out{old, true};
          case detail::rmw_op::bit_and: raw_ = detail::to_bits(static_cast<T>(old & d)); return out{old, true};
          default: break;
        }
      }
      raw_ = a.operand;
      return out{old, true};
    }

    std::uint32_t id_;
    mutable std::uint64_t raw_;
    std::uint64_t serial_ = detail::execution_serial();  // the execution it belongs to (own_object)
  };

  static void fence(order_site s, std::source_location loc = std::source_location::current()) {
    if (in_execution()) detail::fence(s, loc);
  }

  /// Asymmetric fences (see std_sync): the checker always has them. The light side is a
  /// compiler-only barrier and orders nothing; the heavy side is a seq_cst fence in the caller, one
  /// in every other running thread at its current point, and one more in the caller, in that psc
  /// order (the model of Linux membarrier; models/README.md, "Asymmetric fences").
  static bool asymmetric_fences() noexcept { return true; }
  static void fence_light(order_site) noexcept {}
  static void fence_heavy(order_site s, std::source_location loc = std::source_location::current()) {
    if (in_execution()) detail::fence_heavy(s, loc);
  }

  /// Plain shared memory: every read()/write() is checked for data races (not a scheduling
  /// point). The reference must not be kept across a scheduling point.
  template <class T>
  class cell {
   public:
    // (with no argument or one, the cell's place in a report is where it was made; a cell built
    // from several arguments is named at this header)
    explicit cell(std::source_location loc = std::source_location::current()) : v_(), id_(detail::new_cell(this, loc)) {}
    template <class U>
      requires std::is_constructible_v<T, U&&>
    explicit cell(U&& v, std::source_location loc = std::source_location::current())
        : v_(std::forward<U>(v)), id_(detail::new_cell(this, loc)) {}
    template <class A1, class A2, class... A>
      requires(!std::is_same_v<std::remove_cvref_t<A2>, std::source_location>)
    explicit cell(A1&& a1, A2&& a2, A&&... a)
        : v_(std::forward<A1>(a1), std::forward<A2>(a2), std::forward<A>(a)...),
          id_(detail::new_cell(this, std::source_location::current())) {}
    ~cell() { detail::end_location(id_); }
    cell(const cell&) = delete;
    cell& operator=(const cell&) = delete;
    const T& read(std::source_location loc = std::source_location::current()) const {
      if (detail::own_object(id_, serial_, "a cell", loc)) detail::cell_access(id_, false, loc);
      return v_;
    }
    T& write(std::source_location loc = std::source_location::current()) {
      if (detail::own_object(id_, serial_, "a cell", loc)) detail::cell_access(id_, true, loc);
      return v_;
    }

   private:
    T v_;
    std::uint32_t id_;
    std::uint64_t serial_ = detail::execution_serial();  // the execution it belongs to (own_object)
  };

  /// A mutex: lock() is enabled only while the mutex is free (acquire RMW reading the latest
  /// unlock, which is a release store): a lock cycle ends as "deadlock".
  class mutex {
   public:
    mutex(std::source_location loc = std::source_location::current())  // NOLINT
        : id_(detail::new_mutex(this, loc)) {}
    ~mutex() { detail::end_location(id_); }
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;
    void lock(std::source_location loc = std::source_location::current()) {
      if (detail::own_object(id_, serial_, "a mutex", loc)) detail::mutex_lock(id_, loc);
    }
    bool try_lock(std::source_location loc = std::source_location::current()) {
      return !detail::own_object(id_, serial_, "a mutex", loc) || detail::mutex_try_lock(id_, loc);
    }
    void unlock(std::source_location loc = std::source_location::current()) {
      if (detail::own_object(id_, serial_, "a mutex", loc)) detail::mutex_unlock(id_, loc);
    }

   private:
    std::uint32_t id_;
    std::uint64_t serial_ = detail::execution_serial();  // the execution it belongs to (own_object)
  };

  /// A modelled thread (a fiber). Thread creation and join are synchronising events.
  class thread {
   public:
    thread() noexcept = default;
    template <class F>
    explicit thread(F&& f, std::source_location loc = std::source_location::current())
        : id_(detail::spawn(std::make_unique<detail::task_of<std::decay_t<F>>>(std::decay_t<F>(std::forward<F>(f))), loc)),
          joinable_(true) {}
    thread(thread&& o) noexcept : id_(o.id_), joinable_(std::exchange(o.joinable_, false)) {}
    // What std::thread does with these is std::terminate (destroyed or assigned over while
    // joinable) or std::system_error (join of a thread that is not joinable): failure kind
    // "thread misuse" here, at the place of the misuse where it has one.
    thread& operator=(thread&& o) noexcept {
      if (joinable_) detail::thread_misuse("a joinable thread was assigned over (std::terminate)", std::source_location{});
      id_ = o.id_;
      joinable_ = std::exchange(o.joinable_, false);
      return *this;
    }
    ~thread() {
      if (joinable_) detail::thread_misuse("a joinable thread was destroyed (std::terminate)", std::source_location{});
    }
    void join(std::source_location loc = std::source_location::current()) {
      if (!joinable_) {
        detail::thread_misuse("join() of a thread that is not joinable (std::system_error)", loc);
        return;
      }
      detail::join(id_, loc);
      joinable_ = false;
    }
    bool joinable() const noexcept { return joinable_; }

   private:
    unsigned id_ = 0;
    bool joinable_ = false;
  };

  /// Spin hint / yield: the thread is not scheduled again until another thread writes to
  /// shared memory (or nothing else can run); its next read of the location it read last
  /// before the hint (the spinning read) reads the latest store (fair visibility). Reads of
  /// other locations keep every value the model allows. See README "spin loops".
  static void spin_hint(std::source_location loc = std::source_location::current()) { detail::spin_hint(loc); }
  static void yield(std::source_location loc = std::source_location::current()) { detail::yield(loc); }
  /// Deterministic per modelled thread (seeded from the thread's identity), so an execution
  /// is a function of its scheduling/reads-from decisions.
  static std::uint64_t random(std::uint64_t bound) { return detail::random(bound); }
  /// See pilfer::model::assume.
  static void assume(bool cond) { ::pilfer::model::assume(cond); }

  template <class Key>
  static void*& thread_slot() noexcept {
    static const char key = 0;
    return detail::thread_slot(&key);
  }

  using thread_id_type = unsigned;
  static thread_id_type thread_id() noexcept { return detail::thread_id(); }

  /// (the arguments are a pack, so no caller's place follows them: a report names the thread's
  /// operation before the make instead, "made after file:line")
  template <class T, class... A>
  static T* make(A&&... a) {
    void* p = detail::tracked_alloc(sizeof(T), alignof(T), 1, false, "make", std::source_location{});
    try {
      return ::new (p) T(std::forward<A>(a)...);
    } catch (...) {  // as a new-expression does: the storage is freed, no leak ([expr.new])
      if (detail::tracked_check_free(p, false, std::source_location{})) detail::tracked_release(p);
      throw;
    }
  }
  /// As `delete p`: through a base with a virtual destructor too (a secondary base's pointer is
  /// not the address make returned; the object's is, dynamic_cast<void*>).
  template <class T>
  static void destroy(T* p, std::source_location loc = std::source_location::current()) {
    if (p == nullptr) return;
    void* whole = p;
    if constexpr (std::is_polymorphic_v<T>) whole = dynamic_cast<void*>(p);
    if (!detail::tracked_check_free(whole, false, loc)) return;
    p->~T();
    detail::tracked_release(whole);
  }
  template <class T>
  static T* make_array(std::size_t n, std::source_location loc = std::source_location::current()) {
    void* p = detail::tracked_alloc(sizeof(T) * (n == 0 ? 1 : n), alignof(T), n, true, "make_array", loc);
    T* a = static_cast<T*>(p);
    std::size_t made = 0;
    try {
      for (; made < n; ++made) ::new (static_cast<void*>(a + made)) T();
    } catch (...) {  // as a new-expression does: the elements made are destroyed, the storage freed
      for (std::size_t i = made; i > 0; --i) a[i - 1].~T();
      if (detail::tracked_check_free(p, true, loc)) detail::tracked_release(p);
      throw;
    }
    return a;
  }
  template <class T>
  static void destroy_array(T* p, std::size_t n, std::source_location loc = std::source_location::current()) {
    if (p == nullptr) return;
    if (!detail::tracked_check_free(p, true, loc)) return;
    for (std::size_t i = n; i > 0; --i) p[i - 1].~T();
    detail::tracked_release(p);
  }
};

}  // namespace pilfer::model

/// Inside a scenario: record a failure (kind "assertion", with the expression and file:line)
/// and end the execution when `cond` is false.
#define PILFER_MODEL_ASSERT(cond)                                                 \
  do {                                                                            \
    if (!(cond)) ::pilfer::model::detail::assertion_failed(#cond, __FILE__, __LINE__); \
  } while (false)
