// models/engine/engine.cpp — pilfer's stateless RC11 model checker.
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
// Exploration (stateless, RCMC/GenMC style)
//   An execution is identified by its decision sequence. Exhaustive mode is a DFS over it: run
//   the program from scratch replaying a prefix, then take choice 0 for new decisions; after
//   the run, bump the deepest decision that has alternatives left. Only RC11-consistent
//   choices are offered (consistency.cpp), and because porf = (sb ∪ rf) is acyclic in RC11,
//   adding events in porf order reaches every consistent execution.
//   Pruning: a thread is a deterministic function of the values its reads return, so the
//   future of a state depends only on its execution graph (+ thread statuses). At every
//   scheduling point the graph is hashed canonically (128 bits: per-thread event sequences
//   with rf named as (thread key, index), per-location mo lists, thread keys derived from
//   creation ancestry, location keys from (creating thread, creation counter)); a state seen
//   before is not explored again. Random mode draws every decision from a seeded PRNG.
//
// Finishing an execution (loom never needs this: its executions always run to the end)
//   An execution is cut short at a memoised state, in another shard's part, where no consistent
//   choice is left, at a false assume() or at a failure, with threads in the middle of their
//   code. Their frames own memory and objects (a pool's workers, its heap) that only the code
//   after the cut releases, so the checker runs that code: each unfinished thread is resumed
//   where it stopped and goes on in FINISHING mode, round-robin, until every thread has ended.
//   Finishing explores nothing and records nothing: atomics read and write their mo-latest value
//   (sequentially consistent), a wait, join or lock pauses the thread until its condition holds,
//   yields and spin hints pause it, fences and notifies do nothing, and no check is made. The
//   main thread skips the scenario's threads() and after() when the cut came before them.
//   Unwinding by an exception was rejected: the cut lands anywhere, often inside noexcept code
//   (a task's invoke, a destructor that joins), where a throw calls std::terminate, and the
//   catch (...) of a task would swallow it.
//   A thread that found a failure or a false assume() is STRANDED: never resumed (its code
//   cannot go on past that point). After a failure nothing is finished (the code past a bug may
//   do real damage): every thread is stranded. Threads that cannot finish (waiting for a
//   stranded one: a round of every thread without a write, a start or an end; or past their
//   budget of operations) are stranded too, and the scenario object, if the main thread did not
//   destroy it, is destroyed on one more fiber, in finishing mode. What stranded frames own is
//   leaked; result::abandoned counts the executions that left any.
#include "engine.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

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

namespace pilfer::model {

scenario::scenario(unsigned threads) : threads_(threads) {}
scenario::~scenario() = default;

std::string result::summary() const {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s model=%s executions=%zu blocked=%zu states=%zu %s %.3fs%s%s%s%s", ok ? "ok" : "FAIL",
                to_string(model), executions, blocked, states, complete ? "complete" : "incomplete", seconds,
                ok ? "" : " kind=", ok ? "" : kind.c_str(),
                races.empty() ? "" : (" races=" + std::to_string(races.size())).c_str(),
                abandoned == 0 ? "" : (" abandoned=" + std::to_string(abandoned)).c_str());
  return buf;
}

const char* to_string(memory_model m) noexcept { return m == memory_model::rc11 ? "rc11" : "c++20"; }

std::optional<memory_model> parse_memory_model(const std::string& name) noexcept {
  if (name == "c++20" || name == "cxx20" || name == "c++2a" || name == "C++20") return memory_model::cxx20;
  if (name == "rc11" || name == "RC11") return memory_model::rc11;
  return std::nullopt;
}

namespace engine {

// -------------------------------------------------------------------------------------------
// hashing
// -------------------------------------------------------------------------------------------
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

// Order classification for the engine's own bookkeeping (these are not atomic operations): which orders
// carry acquire semantics (consume is modelled as acquire, see README) and which carry release semantics.
bool is_acquire(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_consume ||
         o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
bool is_release(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
const char* order_name(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return "relaxed";
    case std::memory_order_consume: return "consume";
    case std::memory_order_acquire: return "acquire";
    case std::memory_order_release: return "release";
    case std::memory_order_acq_rel: return "acq_rel";
    case std::memory_order_seq_cst: return "seq_cst";
  }
  return "?";
}
const char* kind_name(ek k) {
  switch (k) {
    case ek::init: return "init";
    case ek::uninit: return "init(uninitialised)";
    case ek::load: return "load";
    case ek::store: return "store";
    case ek::rmw: return "rmw";
    case ek::cas_fail: return "cas(failed)";
    case ek::fence: return "fence";
    case ek::cell_init: return "cell init";
    case ek::cell_read: return "cell read";
    case ek::cell_write: return "cell write";
    case ek::spawn: return "spawn";
    case ek::join: return "join";
    case ek::yield: return "yield";
    case ek::notify: return "notify";
    case ek::wait_block: return "wait(block)";
    case ek::lock: return "lock";
    case ek::trylock_fail: return "try_lock(failed)";
    case ek::unlock: return "unlock";
    case ek::finish: return "finish";
  }
  return "?";
}

// -------------------------------------------------------------------------------------------
// The engine state (one check() at a time per process; fibers share it)
// -------------------------------------------------------------------------------------------
class checker;
checker* g = nullptr;  // the running check

// A failure ends the execution: the message temporaries die with the full-expression that
// records them, before the fiber is stranded (stranded frames are never unwound).
#define PILFER_MODEL_FAIL(kind, message) \
  do {                                   \
    record_failure(kind, message);       \
    abandon();                           \
  } while (false)
std::set<std::string> g_last_tags;

constexpr std::size_t stack_size = 256 * 1024;

class checker {
 public:
  checker(std::function<std::unique_ptr<scenario>()> make, const options& o) : make_(std::move(make)), opt_(o) {}
  result run();

  // --- hooks used by the detail:: entry points (called on fibers) ---
  /// Exploring: operations are events.
  bool live() const noexcept { return running_ && !over_; }
  /// The execution is over and its threads are being run to their end (see "Finishing").
  bool finishing() const noexcept { return finishing_; }
  /// live() or finishing(): a modelled thread is running.
  bool engaged() const noexcept { return live() || finishing_; }
  std::uint32_t new_location(location::kind_t k, const void* addr, std::uint64_t init, bool initialised,
                             detail::value_info info, const std::source_location& src);
  void end_location(std::uint32_t id) noexcept;
  detail::access_result access(std::uint32_t id, const detail::access& a, const std::source_location& src);
  detail::access_result passthrough(std::uint32_t id, const detail::access& a);
  void wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src);
  void notify(std::uint32_t id, bool all, const std::source_location& src);
  void fence(order_site s, const std::source_location& src);
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
  void* alloc(std::size_t bytes, std::size_t align, bool array, const char* what, const std::source_location& src);
  bool check_free(const void* p, bool array, const std::source_location& src);
  void release(void* p) noexcept;
  /// Record a failure (arguments are destroyed before the fiber is stranded: no leak).
  void record_failure(std::string kind, std::string message);
  /// End the execution from a fiber that found a failure; the fiber is stranded.
  [[noreturn]] void abandon();
  /// assume(false): the execution is blocked (not an error); the fiber is stranded.
  [[noreturn]] void block();
  /// This thread stops here for good: it is never resumed, its frames are never unwound.
  [[noreturn]] void strand();
  std::size_t execution_index() const noexcept { return exec_index_; }

 private:
  friend struct consistency;
  // execution driving
  enum class outcome { complete, failed, pruned, blocked, other_shard };
  bool rc11() const noexcept { return opt_.model == memory_model::rc11; }
  bool memo_seen(hash128 h);  // insert; true if it was there
  outcome run_execution();
  void reset_execution();
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
  void finish_join(std::uint32_t t);
  void finish_lock(std::uint32_t id);
  bool finish_try_lock(std::uint32_t id);
  void finish_unlock(std::uint32_t id);
  bool enabled(std::uint32_t t) const;
  std::uint32_t choose(std::uint32_t n);
  std::uint32_t choose_recorded(const std::vector<std::uint32_t>& aux);
  bool fast_replay(std::uint32_t* aux);
  hash128 state_hash() const;
  void finish_thread();

  // graph
  event make_event(ek k, std::uint32_t loc, const std::source_location& src) const;
  std::uint32_t add_event(event e, std::uint32_t mo_index);  // returns gid
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
  std::string format_value(const location& l, std::uint64_t v) const;
  std::string where(const std::source_location& s) const;
  std::string token() const;

  std::function<std::unique_ptr<scenario>()> make_;
  options opt_;
  result res_;

  // per execution
  bool running_ = false, over_ = false;
  bool finishing_ = false;
  std::size_t finish_progress_ = 0;  // finishing: writes, locks, unlocks, thread starts and ends
  std::uint32_t cur_ = 0;
  std::vector<mthread> threads_;
  std::vector<event> events_;
  std::vector<location> locs_;
  std::unordered_map<const void*, region> regions_;
  std::unique_ptr<scenario> scenario_;
  std::vector<checker_sync::thread> main_threads_;
  std::vector<std::uint32_t> sc_nodes_;                     // gids of psc nodes
  std::vector<std::vector<std::uint64_t>> psc_;             // committed psc edges (row u: bits v)
  bool force_latest_ = false;                               // next read_choose reads the mo-latest write
  std::size_t sc_fences_ = 0;
  bool failed_ = false, pruned_ = false, blocked_ = false, other_shard_ = false;
  int shard_ = -1;  // this execution's shard: 1 mine, 0 another's, -1 not decided yet
  std::string fail_kind_, fail_msg_;
  std::uint32_t last_run_ = none;
  unsigned preemptions_ = 0;
  hash128 last_hash_{0, 0};
  bool have_last_ = false;
  ucontext_t sched_ctx_{};
  void* sched_sp_ = nullptr;
  std::vector<std::unique_ptr<char[]>> stacks_;
#if defined(PILFER_MODEL_ASAN)
  void* fake_stack_ = nullptr;
  const void* sched_bottom_ = nullptr;
  std::size_t sched_size_ = 0;
#endif

  // decisions
  std::vector<decision> path_;
  std::size_t depth_ = 0, prefix_ = 0;
  bool replaying_token_ = false;
  std::mt19937_64 rng_;
  // memo table: a fixed-capacity cache of state hashes (4-way buckets, replacement when a
  // bucket is full), grown by doubling up to options::memo_entries
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

// -------------------------------------------------------------------------------------------
// Orders, tags, weakening
// -------------------------------------------------------------------------------------------
/// Weakening never strengthens: the effective order is the meet of the declared order and
/// the requested one (acquire part, release part and seq_cst each kept only if both have it),
/// so weaken[tag] = acq_rel turns a seq_cst load into acquire and a seq_cst store into release.
std::memory_order meet(std::memory_order declared, std::memory_order want) {
  const bool sc = declared == std::memory_order_seq_cst && want == std::memory_order_seq_cst;
  const bool acq = is_acquire(declared) && is_acquire(want);
  const bool rel = is_release(declared) && is_release(want);
  if (sc) return std::memory_order_seq_cst;
  if (acq && rel) return std::memory_order_acq_rel;
  if (acq) return std::memory_order_acquire;
  if (rel) return std::memory_order_release;
  return std::memory_order_relaxed;
}

int strength(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return 0;
    case std::memory_order_consume:
    case std::memory_order_acquire:
    case std::memory_order_release: return 1;
    case std::memory_order_acq_rel: return 2;
    case std::memory_order_seq_cst: return 3;
  }
  return 0;
}

std::memory_order checker::effective(order_site s, bool* weakened) {
  *weakened = false;
  const char* tag = s.tag ? s.tag : "";
  auto it = tag_cache_.find(tag);
  if (it == tag_cache_.end() || it->second.name != tag) {
    std::memory_order o = s.order;
    bool w = false;
    if (auto m = opt_.weaken.find(tag); m != opt_.weaken.end()) {
      o = m->second;
      w = true;
    }
    // cache keyed by pointer, validated by content (tags need not be literals)
    it = tag_cache_.insert_or_assign(tag, tag_info{tag, w ? o : static_cast<std::memory_order>(-1), -1}).first;
  }
  if (strength(s.order) > it->second.strongest && *tag) {  // record the tag and its strongest order
    it->second.strongest = strength(s.order);
    res_.tags.insert(tag);
    auto [oi, fresh] = res_.tag_orders.emplace(tag, s.order);
    if (!fresh && strength(s.order) > strength(oi->second)) oi->second = s.order;
  }
  const auto cached = it->second.want;
  if (cached == static_cast<std::memory_order>(-1)) return s.order;
  const std::memory_order e = meet(s.order, cached);
  *weakened = e != s.order;
  return e;
}

// -------------------------------------------------------------------------------------------
// Decisions and exploration
// -------------------------------------------------------------------------------------------
std::uint32_t checker::choose(std::uint32_t n) {
  if (n <= 1) return 0;
  if (depth_ < path_.size()) {
    decision& d = path_[depth_++];
    if (d.count != n && !replaying_token_) {
      PILFER_MODEL_FAIL("model error", "nondeterministic scenario: a decision had " + std::to_string(d.count) +
                              " alternatives before and " + std::to_string(n) + " now");
    }
    if (d.chosen >= n) PILFER_MODEL_FAIL("model error", "replay token does not match this scenario");
    d.count = n;
    return d.chosen;
  }
  std::uint32_t c = 0;
  if (opt_.how == mode::random) c = static_cast<std::uint32_t>(rng_() % n);
  path_.push_back(decision{c, n});
  ++depth_;
  return c;
}

/// Like choose() but always recorded (even with one alternative), with the outcome.
std::uint32_t checker::choose_recorded(const std::vector<std::uint32_t>& aux) {
  const auto n = static_cast<std::uint32_t>(aux.size());
  if (depth_ < path_.size()) {
    decision& d = path_[depth_++];
    if (d.count != n && !replaying_token_)
      PILFER_MODEL_FAIL("model error", "nondeterministic scenario: a decision had " + std::to_string(d.count) +
                              " alternatives before and " + std::to_string(n) + " now");
    if (d.chosen >= n) PILFER_MODEL_FAIL("model error", "replay token does not match this scenario");
    d.count = n;
    d.aux = aux[d.chosen];
    return d.chosen;
  }
  std::uint32_t c = 0;
  if (opt_.how == mode::random) c = static_cast<std::uint32_t>(rng_() % n);
  path_.push_back(decision{c, n, aux[c]});
  ++depth_;
  return c;
}

/// Replaying a prefix (except its last, bumped decision): take the recorded outcome.
bool checker::fast_replay(std::uint32_t* aux) {
  if (replaying_token_ || depth_ + 1 >= prefix_ || depth_ >= path_.size()) return false;
  const decision& d = path_[depth_];
  if (d.aux == 0xFFFFFFFFu) return false;
  *aux = d.aux;
  ++depth_;
  return true;
}

/// "pm1" then '.'-separated choices; a run of k > 1 zeros is written "0*k".
std::string checker::token() const {
  std::string s = "pm1";
  for (std::size_t i = 0; i < path_.size();) {
    std::size_t j = i;
    while (j < path_.size() && path_[j].chosen == 0) ++j;
    if (j - i > 1) {
      s += ".0*" + std::to_string(j - i);
      i = j;
      continue;
    }
    s += '.';
    s += std::to_string(path_[i].chosen);
    ++i;
  }
  return s;
}

result checker::run() {
  const auto t0 = std::chrono::steady_clock::now();
  res_ = result{};
  res_.model = opt_.model;
  rng_.seed(opt_.seed);
  g = this;
  bool exhausted = false;
  if (!opt_.replay.empty()) {
    // Replay exactly the execution named by the token.
    path_.clear();
    std::stringstream ss(opt_.replay);
    std::string part;
    std::getline(ss, part, '.');
    while (std::getline(ss, part, '.')) {
      const auto star = part.find('*');
      const std::size_t reps = star == std::string::npos ? 1 : std::stoul(part.substr(star + 1));
      const auto c = static_cast<std::uint32_t>(std::stoul(part.substr(0, star)));
      for (std::size_t k = 0; k < reps; ++k) path_.push_back(decision{c, 0});
    }
    replaying_token_ = true;
    prefix_ = path_.size();
    const auto oc = run_execution();
    if (oc == outcome::complete) ++res_.executions;
    if (!failed_) res_.trace = trace();  // (a failure already recorded its trace)
    std::printf("replay %s: %s%s%s\n", opt_.replay.c_str(), failed_ ? fail_kind_.c_str() : "ok",
                failed_ ? ": " : "", failed_ ? fail_msg_.c_str() : "");
    std::fputs(res_.trace.c_str(), stdout);
    cleanup_execution();
  } else {
    const std::size_t limit = opt_.how == mode::random ? opt_.iterations : opt_.max_executions;
    for (;;) {
      if (opt_.how == mode::random) path_.clear();
      prefix_ = path_.size();
      const auto oc = run_execution();
      if (oc == outcome::complete) ++res_.executions;
      if (oc == outcome::pruned) ++res_.pruned;
      if (oc == outcome::blocked) ++res_.blocked;
      if (oc == outcome::other_shard) ++res_.other_shards;
      if (opt_.verbose && oc != outcome::pruned) std::fputs(trace().c_str(), stdout);
      const bool stop = failed_ && opt_.stop_on_failure;
      cleanup_execution();
      ++exec_index_;
      if (stop) break;
      if (opt_.how == mode::random) {
        if (exec_index_ >= limit) break;
        continue;
      }
      // DFS backtrack: bump the deepest decision with alternatives left.
      while (!path_.empty() && path_.back().chosen + 1 >= path_.back().count) path_.pop_back();
      if (path_.empty()) {
        exhausted = true;
        break;
      }
      ++path_.back().chosen;
      if (limit != 0 && res_.executions >= limit) break;  // bound hit: complete stays false
    }
  }
  // (a failure that stops the check leaves `exhausted` false; races recorded as flags do not)
  res_.complete = exhausted && opt_.replay.empty();
  res_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_last_tags = res_.tags;
  g = nullptr;
  return res_;
}

void checker::reset_execution() {
  threads_.clear();
  threads_.reserve(max_threads + 1);  // + the fiber that may destroy the scenario when finishing
  events_.clear();
  events_.reserve(512);
  locs_.clear();
  sc_nodes_.clear();
  psc_.clear();
  sc_fences_ = 0;
  failed_ = pruned_ = blocked_ = other_shard_ = false;
  shard_ = -1;
  force_latest_ = false;
  over_ = false;
  finishing_ = false;
  finish_progress_ = 0;
  depth_ = 0;
  last_run_ = none;
  preemptions_ = 0;
  have_last_ = false;
}

void checker::cleanup_execution() {
  over_ = true;
  if (!finish_execution()) ++res_.abandoned;
  running_ = false;
  for (auto& [p, r] : regions_) ::operator delete(const_cast<void*>(p), std::align_val_t(r.align));
  regions_.clear();
  for (auto& t : threads_) t.body.reset();
}

checker::outcome checker::run_execution() {
  reset_execution();
  running_ = true;
  threads_.emplace_back();
  threads_[0].key = mix64(0x1234567ull);
  threads_[0].rng = threads_[0].key;
  while (true) {
    if (over_) break;
    if (opt_.shard_count > 1 && opt_.how == mode::exhaustive && !replaying_token_ && shard_ < 0 &&
        events_.size() >= opt_.shard_depth) {
      // the first state with shard_depth events decides: its canonical hash picks the shard
      const hash128 h = state_hash();
      shard_ = mix64(h.a ^ h.b) % opt_.shard_count == opt_.shard_index % opt_.shard_count ? 1 : 0;
      if (shard_ == 0) {
        other_shard_ = true;  // another shard explores this state
        break;
      }
    }
    // ---- a state: memoise (exhaustive, beyond the replayed prefix) ----
    if (opt_.how == mode::exhaustive && !replaying_token_) {
      // (the same state seen twice in a row is one visit: a thread started or resumed
      // without adding an event yet)
      const hash128 h = state_hash();
      if (depth_ >= prefix_ && !(have_last_ && h == last_hash_)) {
        if (memo_seen(h)) {
          pruned_ = true;
          break;
        }
        ++res_.states;
      }
      last_hash_ = h;
      have_last_ = true;
    } else {
      ++res_.states;
    }
    // ---- pick the next thread ----
    std::uint32_t en[max_threads];
    std::uint32_t n = 0;
    bool all_finished = true, any_yielded = false;
    // current thread first: the first explored schedule has few context switches
    if (last_run_ != none && enabled(last_run_)) en[n++] = last_run_;
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {
      if (threads_[t].status != tstatus::finished) all_finished = false;
      if (threads_[t].status == tstatus::yielded) any_yielded = true;
      if (t != last_run_ && enabled(t)) en[n++] = t;
    }
    if (n == 0) {
      if (all_finished) break;
      if (any_yielded) {  // nothing else can run: spinners re-read (fair visibility)
        for (auto& t : threads_)
          if (t.status == tstatus::yielded) t.status = tstatus::runnable;
        continue;
      }
      std::string who;
      for (std::uint32_t t = 0; t < threads_.size(); ++t) {
        const auto& th = threads_[t];
        if (th.status == tstatus::finished) continue;
        who += " t" + std::to_string(t) + ":";
        if (th.status == tstatus::blocked_wait)
          who += "wait(L" + std::to_string(th.wait_loc) + ")";
        else if (th.pend == pending::lock)
          who += "lock(L" + std::to_string(th.pend_arg) + ")";
        else if (th.pend == pending::join)
          who += "join(t" + std::to_string(th.pend_arg) + ")";
      }
      failed_ = true;
      fail_kind_ = "deadlock";
      fail_msg_ = "no thread can run; blocked:" + who;
      break;
    }
    std::uint32_t pickable = n;
    const bool cur_enabled = last_run_ != none && n > 0 && en[0] == last_run_;
    if (opt_.preemption_bound && opt_.how == mode::exhaustive && cur_enabled && preemptions_ >= *opt_.preemption_bound)
      pickable = 1;
    const std::uint32_t c = choose(pickable);
    const std::uint32_t t = en[c];
    if (cur_enabled && t != last_run_) ++preemptions_;
    last_run_ = t;
    switch_to(t);
  }
  if (!failed_ && !pruned_ && !blocked_ && !other_shard_ && opt_.shard_count > 1 && opt_.how == mode::exhaustive &&
      !replaying_token_ && shard_ < 0 && opt_.shard_index % opt_.shard_count != 0)
    other_shard_ = true;  // shorter than shard_depth events: shard 0 takes it
  if (!failed_ && !pruned_ && !blocked_ && !other_shard_) {
    // leak check: everything made must have been destroyed once every thread finished
    for (const auto& [p, r] : regions_) {
      if (!r.freed) {
        failed_ = true;
        fail_kind_ = "leak";
        fail_msg_ = std::string(r.what) + " of " + std::to_string(r.bytes) + " bytes by t" + std::to_string(r.thread) +
                    " at " + r.file + ":" + std::to_string(r.line) + " was never destroyed";
        break;
      }
    }
  }
  const outcome oc = failed_       ? outcome::failed
                     : other_shard_ ? outcome::other_shard
                     : blocked_     ? outcome::blocked
                     : pruned_  ? outcome::pruned
                                : outcome::complete;
  if (failed_ && res_.ok) {
    res_.ok = false;
    res_.kind = fail_kind_;
    res_.message = fail_msg_;
    res_.trace = trace();
    res_.replay_token = token();
  }
  return oc;
}

bool checker::enabled(std::uint32_t t) const {
  const mthread& th = threads_[t];
  if (th.status != tstatus::runnable) return false;
  if (th.pend == pending::join) return threads_[th.pend_arg].status == tstatus::finished;
  if (th.pend == pending::lock) {
    const location& l = locs_[th.pend_arg];
    return events_[l.mo.back()].wval == 0;
  }
  return true;
}

/// The memo table is a cache, not a set: forgetting a state only means exploring it again, so
/// exploration stays complete while memory stays bounded by options::memo_entries. Below that
/// cap nothing is forgotten — a full bucket (or one that overflows while rehashing) doubles the
/// table instead — so each distinct graph is completed exactly once; only a table at its cap
/// forgets (result::forgotten), and then a graph may be completed more than once.
bool checker::memo_seen(hash128 h) {
  if (opt_.memo_entries == 0) return false;
  if (h.a == 0 && h.b == 0) h.b = 1;  // {0,0} marks an empty slot
  constexpr std::size_t ways = 4;
  const std::size_t cap = std::max<std::size_t>(opt_.memo_entries, 64);
  const auto is_empty = [](const hash128& x) { return x.a == 0 && x.b == 0; };
  const auto bucket = [&](const hash128& x) { return (x.a & (memo_.size() - 1)) & ~(ways - 1); };
  // Rehash into a table twice as large; doubles again while an entry does not fit (below the cap).
  const auto grow = [&] {
    std::vector<hash128> old;
    old.swap(memo_);
    std::size_t size = old.size() * 2;
    for (bool fits = false; !fits; size *= 2) {
      memo_.assign(size, hash128{0, 0});
      memo_used_ = 0;
      fits = true;
      for (const hash128& x : old) {
        if (is_empty(x)) continue;
        const std::size_t base = bucket(x);
        std::size_t i = 0;
        while (i < ways && !is_empty(memo_[base + i])) ++i;
        if (i < ways) {
          memo_[base + i] = x;
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
    const std::size_t base = bucket(h);
    for (std::size_t i = 0; i < ways; ++i) {
      hash128& slot = memo_[base + i];
      if (slot == h) return true;
      if (is_empty(slot)) {
        slot = h;
        ++memo_used_;
        return false;
      }
    }
    if (memo_.size() * 2 > cap) break;
    grow();  // below the cap a full bucket grows the table: no state is forgotten
  }
  memo_[bucket(h) + (h.b % ways)] = h;  // at the cap, bucket full: forget one of its states
  ++res_.forgotten;
  return false;
}

hash128 checker::state_hash() const {
  std::uint64_t a = 0, b = 0;
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    std::uint64_t extra = static_cast<std::uint64_t>(th.status) | (static_cast<std::uint64_t>(th.pend) << 8) |
                          (static_cast<std::uint64_t>(th.fresh_loc == none ? 0 : locs_[th.fresh_loc].key) << 20);
    std::uint64_t ry = 0;
    for (auto l : th.spin_locs) ry += mix64(locs_[l].key);
    a += combine(combine(combine(th.key, th.ha), extra), ry);
    b += combine_b(combine_b(combine_b(th.key, th.hb), extra), ry);
  }
  for (const location& l : locs_) {
    if (l.kind == location::cell_loc) continue;
    a += combine(l.key, l.mo_ha);
    b += combine_b(l.key, l.mo_hb);
  }
  if (opt_.preemption_bound) {
    a = combine(a, (static_cast<std::uint64_t>(preemptions_) << 32) | last_run_);
    b = combine_b(b, (static_cast<std::uint64_t>(preemptions_) << 32) | last_run_);
  }
  return hash128{a, b};
}

// -------------------------------------------------------------------------------------------
// Fibers
// -------------------------------------------------------------------------------------------
void checker::fiber_entry() {
  checker& c = *g;
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &c.sched_bottom_, &c.sched_size_);
#endif
  if (c.finishing_) ++c.finish_progress_;
  if (c.cur_ == 0)
    c.main_body();
  else
    c.threads_[c.cur_].body->run();
  c.finish_thread();
}

void checker::finish_thread() {
  mthread& th = threads_[cur_];
  if (live()) {
    event e = make_event(ek::finish, none, std::source_location::current());
    compute_views(e, th);
    const auto gid = add_event(e, none);
    commit(gid);
    for (auto& o : threads_)  // a spinner may be waiting for this thread to finish
      if (o.status == tstatus::yielded) o.status = tstatus::runnable;
  } else {
    ++finish_progress_;
  }
  th.status = tstatus::finished;
  switch_to_scheduler(true);
  std::abort();  // never resumed
}

/// The main thread. Finishing an execution cut short before the scenario's threads started
/// (or before after()) skips them: only the scenario's destruction is left to run.
void checker::main_body() {
  scenario_ = make_();
  scenario_->before();
  scenario* s = scenario_.get();
  main_threads_.clear();
  main_threads_.reserve(max_threads);  // a member: this frame may be stranded
  if (live())
    for (unsigned i = 0; i < s->threads(); ++i) main_threads_.emplace_back([s, i] { s->thread(i); });
  for (auto& t : main_threads_) t.join();
  if (live()) scenario_->after();
  scenario_.reset();
}

// Context switching. On x86-64 a 14-instruction switch (callee-saved registers + stack
// pointer); ucontext's swapcontext costs two sigprocmask system calls per switch, which
// dominated exploration time. Other targets use ucontext.
#if defined(__x86_64__) && !defined(PILFER_MODEL_UCONTEXT)
#define PILFER_MODEL_ASM_SWITCH 1
extern "C" void pilfer_model_switch(void** save_sp, void* next_sp);
asm(R"(
.text
.globl pilfer_model_switch
.type pilfer_model_switch,@function
pilfer_model_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size pilfer_model_switch,.-pilfer_model_switch
.section .note.GNU-stack,"",@progbits
.text
)");
#endif

void checker::switch_to(std::uint32_t t) {
  mthread& th = threads_[t];
  cur_ = t;
  if (!th.started) {
    th.started = true;
    const std::size_t slot = t;
    while (stacks_.size() <= slot) stacks_.push_back(std::make_unique<char[]>(stack_size));
#if defined(PILFER_MODEL_ASAN)
    // a stranded fiber of an earlier execution left its frames' poison behind
    __asan_unpoison_memory_region(stacks_[slot].get(), stack_size);
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
    auto top = reinterpret_cast<std::uintptr_t>(stacks_[slot].get() + stack_size) & ~std::uintptr_t{15};
    auto* sp = reinterpret_cast<void**>(top);
    *--sp = nullptr;                                                  // fake return address
    *--sp = reinterpret_cast<void*>(&checker::fiber_entry);           // `ret` target
    for (int i = 0; i < 6; ++i) *--sp = nullptr;                      // rbp rbx r12-r15
    th.sp = sp;
#else
    getcontext(&th.ctx);
    th.ctx.uc_stack.ss_sp = stacks_[slot].get();
    th.ctx.uc_stack.ss_size = stack_size;
    th.ctx.uc_link = &sched_ctx_;
    makecontext(&th.ctx, &checker::fiber_entry, 0);
#endif
  }
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_start_switch_fiber(&fake_stack_, stacks_[t].get(), stack_size);
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
  pilfer_model_switch(&sched_sp_, th.sp);
#else
  swapcontext(&sched_ctx_, &th.ctx);
#endif
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
}

void checker::switch_to_scheduler(bool for_good) {
#if defined(PILFER_MODEL_ASAN)
  void* fake = nullptr;
  // leaving for good: null lets ASan free this fiber's fake stack
  __sanitizer_start_switch_fiber(for_good ? nullptr : &fake, sched_bottom_, sched_size_);
#else
  (void)for_good;
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
  pilfer_model_switch(&threads_[cur_].sp, sched_sp_);
#else
  swapcontext(&threads_[cur_].ctx, &sched_ctx_);
#endif
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

bool checker::begin_op(const std::source_location&) {
  mthread& th = threads_[cur_];
  if (th.events.size() > opt_.max_steps)
    PILFER_MODEL_FAIL("livelock", "thread t" + std::to_string(cur_) + " exceeded max_steps=" + std::to_string(opt_.max_steps) +
                         " events without finishing (spinning without progress?)");
  switch_to_scheduler();
  return live();
}

void checker::cut_here() {
  pruned_ = true;
  over_ = true;
  switch_to_scheduler();
}

void checker::record_failure(std::string kind, std::string message) {
  if (!live()) {
    std::fprintf(stderr, "pilfer model: %s outside an execution: %s\n", kind.c_str(), message.c_str());
    std::abort();
  }
  failed_ = true;
  over_ = true;
  fail_kind_ = std::move(kind);
  fail_msg_ = std::move(message);
}

void checker::block() {
  if (live()) blocked_ = true;  // (finishing: the thread just cannot go on)
  over_ = true;
  strand();
}

void checker::abandon() {
  over_ = true;
  strand();
}

void checker::strand() {
  threads_[cur_].status = tstatus::stranded;
  switch_to_scheduler(true);
  std::abort();  // a stranded fiber is never resumed
}

// -------------------------------------------------------------------------------------------
// Finishing an execution (file comment): the scheduler side, then the operations as a thread
// performs them while finishing.
// -------------------------------------------------------------------------------------------
bool checker::finish_execution() {
  finishing_ = true;
  if (failed_) strand_unfinished();  // the code past a bug is not run
  finish_threads();
  if (scenario_) {
    // the main thread was stranded before destroying the scenario: one more fiber does it
    const auto t = static_cast<std::uint32_t>(threads_.size());
    threads_.emplace_back();
    threads_[t].key = combine(threads_[0].key, ~std::uint64_t{0});
    auto destroy = [this] { scenario_.reset(); };
    threads_[t].body = std::make_unique<detail::task_of<decltype(destroy)>>(std::move(destroy));
    finish_threads();
  }
  finishing_ = false;
  return std::none_of(threads_.begin(), threads_.end(), [](const mthread& th) { return th.status == tstatus::stranded; });
}

void checker::finish_threads() {
  for (;;) {
    const std::size_t progress = finish_progress_;
    bool unfinished = false;
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {  // (threads started meanwhile run too)
      if (threads_[t].status == tstatus::finished || threads_[t].status == tstatus::stranded) continue;
      unfinished = true;
      switch_to(t);  // until it pauses, ends or is stranded
    }
    if (!unfinished) return;
    if (finish_progress_ == progress) {  // every thread paused without a change: none can go on
      strand_unfinished();
      return;
    }
  }
}

void checker::strand_unfinished() {
  for (auto& th : threads_)
    if (th.status != tstatus::finished) th.status = tstatus::stranded;
}

void checker::finishing_op() {
  // a generous multiple of the explored bound: finishing runs code the exploration did not reach
  if (++threads_[cur_].finishing_ops > 8 * opt_.max_steps + 1024) strand();
}

void checker::finishing_pause() {
  finishing_op();
  switch_to_scheduler();
}

detail::access_result checker::finish_access(std::uint32_t id, const detail::access& a) {
  finishing_op();
  const detail::access_result r = passthrough(id, a);
  if (a.is_write && (!a.cas || r.success)) ++finish_progress_;
  return r;
}

void checker::finish_wait(std::uint32_t id, std::uint64_t old) {
  const std::uint64_t mask = locs_[id].info.bits >= 64 ? ~0ull : ((1ull << locs_[id].info.bits) - 1);
  while ((locs_[id].last_value & mask) == (old & mask)) finishing_pause();
}

void checker::finish_join(std::uint32_t t) {
  while (threads_[t].status != tstatus::finished) finishing_pause();
}

void checker::finish_lock(std::uint32_t id) {
  while (locs_[id].owner != none) finishing_pause();
  finishing_op();
  locs_[id].owner = cur_;
  locs_[id].last_value = 1;
  ++finish_progress_;
}

bool checker::finish_try_lock(std::uint32_t id) {
  finishing_op();
  if (locs_[id].owner != none) return false;
  locs_[id].owner = cur_;
  locs_[id].last_value = 1;
  ++finish_progress_;
  return true;
}

void checker::finish_unlock(std::uint32_t id) {
  finishing_op();
  locs_[id].owner = none;
  locs_[id].last_value = 0;
  ++finish_progress_;
}

// -------------------------------------------------------------------------------------------
// Graph maintenance
// -------------------------------------------------------------------------------------------
event checker::make_event(ek k, std::uint32_t loc, const std::source_location& src) const {
  event e;
  e.kind = k;
  e.thread = static_cast<std::uint16_t>(cur_);
  e.index = static_cast<std::uint32_t>(threads_[cur_].events.size());
  e.loc = loc;
  e.file = src.file_name();
  e.line = src.line();
  return e;
}

/// Views of a new event of thread `t` (its rf and orders already set).
void checker::compute_views(event& e, const mthread& t) const {
  e.v = t.cur;
  e.v.c[e.thread] = e.index + 1;
  if (e.rd && e.rf != none) {
    if (e.acq) e.v.join(events_[e.rf].relv);
  }
  if (e.kind == ek::fence && e.acq) e.v.join(t.acq_pending);
  if (e.wr) {
    view base{};
    if (e.rel)
      base = e.v;
    else
      base = t.fence_rel;
    // rc11 only: rs = [W]; (sb&loc)?; [W]; ... — a later write of the same thread to the
    // location continues the release sequence of an earlier release write (the RC11 paper,
    // C11). C++20 (P0982R1) removed that step: only RMWs continue a release sequence.
    if (rc11())
      for (const auto& [l, v] : t.loc_rel)
        if (l == e.loc) base.join(v);
    if (e.rd && e.rf != none) base.join(events_[e.rf].relv);  // (rf; rmw)* continues a release sequence
    e.relv = base;
  }
}

std::uint32_t checker::add_event(event e, std::uint32_t mo_index) {
  const auto gid = static_cast<std::uint32_t>(events_.size());
  mthread& th = threads_[e.thread];
  th.events.push_back(gid);
  if (e.loc != none) {
    location& l = locs_[e.loc];
    l.acc.push_back(gid);
    if (e.wr) {
      if (mo_index == none) mo_index = static_cast<std::uint32_t>(l.mo.size());
      l.mo.insert(l.mo.begin() + mo_index, gid);
      e.mo_pos = mo_index;
      for (std::size_t i = mo_index + 1; i < l.mo.size(); ++i) events_[l.mo[i]].mo_pos = static_cast<std::uint32_t>(i);
    }
  }
  if (e.sc) {
    e.sc_idx = static_cast<std::int32_t>(sc_nodes_.size());
    sc_nodes_.push_back(gid);
    if (e.kind == ek::fence) ++sc_fences_;
  }
  events_.push_back(e);
  return gid;
}

void checker::remove_last_event() {
  const event e = events_.back();
  threads_[e.thread].events.pop_back();
  if (e.loc != none) {
    location& l = locs_[e.loc];
    l.acc.pop_back();
    if (e.wr) {
      l.mo.erase(l.mo.begin() + e.mo_pos);
      for (std::size_t i = e.mo_pos; i < l.mo.size(); ++i) events_[l.mo[i]].mo_pos = static_cast<std::uint32_t>(i);
    }
  }
  if (e.sc) {
    sc_nodes_.pop_back();
    if (e.kind == ek::fence) --sc_fences_;
  }
  events_.pop_back();
}

/// Make an added event permanent: thread views, release bookkeeping, hashes.
void checker::commit(std::uint32_t gid) {
  event& e = events_[gid];
  mthread& th = threads_[e.thread];
  th.cur = e.v;
  if (e.rd && e.rf != none && !e.acq) th.acq_pending.join(events_[e.rf].relv);
  if (e.kind == ek::fence && e.rel) th.fence_rel = e.v;
  if (e.wr && e.loc != none && rc11()) {
    view base = e.rel ? e.v : th.fence_rel;
    bool found = false;
    for (auto& [l, v] : th.loc_rel)
      if (l == e.loc) {
        v.join(base);
        found = true;
      }
    if (!found) th.loc_rel.emplace_back(e.loc, base);
  }
  // sequence hash: kind, location key, rf source (thread key, index), other thread
  std::uint64_t d = static_cast<std::uint64_t>(e.kind) | (static_cast<std::uint64_t>(e.sc) << 8);
  if (e.loc != none) d = combine(d, locs_[e.loc].key);
  if (e.rf != none) {
    const event& w = events_[e.rf];
    d = combine(d, combine(threads_[w.thread].key, w.index));
  }
  if (e.other != none) d = combine(d, threads_[e.other].key);
  th.ha = combine(th.ha, d);
  th.hb = combine_b(th.hb, d);
  if (e.wr && e.loc != none) {
    location& l = locs_[e.loc];
    l.last_value = events_[l.mo.back()].wval;
    std::uint64_t a = 0, b = 0;
    for (auto w : l.mo) {
      const event& x = events_[w];
      const std::uint64_t k = combine(threads_[x.thread].key, x.index);
      a = combine(a, k);
      b = combine_b(b, k);
    }
    l.mo_ha = a;
    l.mo_hb = b;
  }
  if (e.sc) {
    if (psc_.size() < sc_nodes_.size()) psc_.resize(sc_nodes_.size());
  }
}

namespace {
void bit_set(std::vector<std::uint64_t>& row, std::uint32_t v) {
  if (row.size() <= v / 64) row.resize(v / 64 + 1, 0);
  row[v / 64] |= std::uint64_t{1} << (v % 64);
}
}  // namespace

std::uint64_t checker::key_of(const event& e) const {
  if (e.wr) return 2ull * e.mo_pos;
  return 2ull * events_[e.rf].mo_pos + 1;
}

/// The lowest mo position thread t may still read from / write after on l (coherence): the
/// maximum over accesses of l that happen-before t's next event of the write's position
/// (for reads: of their rf source's position).
std::uint32_t checker::visible_bound(std::uint32_t t, const location& l) const {
  const view& v = threads_[t].cur;
  std::uint32_t L = 0;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (a.thread != t && a.index >= v.c[a.thread]) continue;
    std::uint32_t p = 0;
    if (a.wr)
      p = a.mo_pos;
    else if (a.rd && a.rf != none)
      p = events_[a.rf].mo_pos;
    else
      continue;
    L = std::max(L, p);
  }
  return L;
}

// -------------------------------------------------------------------------------------------
// RC11 psc (the repaired SC condition): incremental, see README
// -------------------------------------------------------------------------------------------
const event* checker::next_diff(const event& x) const {
  const auto& evs = threads_[x.thread].events;
  for (std::size_t i = x.index + 1; i < evs.size(); ++i) {
    const event& y = events_[evs[i]];
    if (y.loc == none || y.loc != x.loc) return &y;
  }
  return nullptr;
}
const event* checker::prev_diff(const event& y) const {
  const auto& evs = threads_[y.thread].events;
  for (std::size_t i = y.index; i-- > 0;) {
    const event& x = events_[evs[i]];
    if (x.loc == none || x.loc != y.loc) return &x;
  }
  return nullptr;
}

/// rc11:  scb = sb ∪ sb|≠loc;hb;sb|≠loc ∪ hb|loc ∪ mo ∪ fr   (herd7 rc11.cat)
/// c++20: scb = sb ∪ sb;hb;sb ∪ hb|loc ∪ eco — strongly-happens-before ([intro.races]/12,
///        P0668R5) has no different-location restriction on its sb;hb;sb step, and S follows
///        coherence-ordered-before ([atomics.order]/3), which is eco = (rf ∪ mo ∪ fr)⁺: by /3.4
///        it is transitive through any modification, so A fr W rf B and A mo W rf B order the
///        seq_cst reads/writes A, B in S even when W is relaxed (rc11.cat's psc does not).
bool checker::scb(const event& x, const event& y) const {
  if (&x == &y) return false;
  if (x.thread == y.thread && x.index < y.index) return true;
  if (x.loc != none && x.loc == y.loc) {
    if (hbq(x, y)) return true;
    if (locs_[x.loc].kind != location::cell_loc && (x.rd || x.wr) && (y.wr || (!rc11() && y.rd)) &&
        key_of(x) < key_of(y))
      return true;
  }
  if (!rc11()) {
    // x sb a hb b sb y  <=>  the sb-successor of x happens before the sb-predecessor of y
    const auto& xs = threads_[x.thread].events;
    if (x.index + 1 >= xs.size() || y.index == 0) return false;
    const event& nx = events_[xs[x.index + 1]];
    const event& py = events_[threads_[y.thread].events[y.index - 1]];
    return hbq(nx, py);
  }
  const event* nx = next_diff(x);
  if (!nx) return false;
  const event* py = prev_diff(y);
  return py && hbq(*nx, *py);
}

bool checker::psc_needed(const event& e, bool added) const {
  if (sc_nodes_.size() + ((!added && e.sc) ? 1 : 0) < 2) return false;
  if (e.sc) return true;
  if (!(e.rd || e.wr) || sc_fences_ == 0) return false;
  for (auto gid : sc_nodes_) {
    const event& f = events_[gid];
    if (f.kind == ek::fence && hbq(f, e)) return true;
  }
  return false;
}

/// The new event `gid` (the last one) may only add psc edges that touch it (or that start at
/// an SC fence hb-before it); existing edges never change. Collect them and check that the
/// psc graph stays acyclic.
bool checker::psc_ok(std::uint32_t gid, std::vector<std::pair<std::uint32_t, std::uint32_t>>* edges) {
  const event& e = events_[gid];
  std::vector<std::pair<std::uint32_t, std::uint32_t>> add;
  const std::size_t s = sc_nodes_.size();
  const bool e_access = e.rd || e.wr;
  const auto sc_of = [&](const event& x) { return static_cast<std::uint32_t>(x.sc_idx); };
  if (e_access) {
    // Targets reachable from e by scb (only mo ∪ fr: e is porf-maximal; c++20: all of eco,
    // whose mo;rf and fr;rf reach existing reads) or, from SC fences hb-before e, by eco
    // (psc_F = [F];hb;eco;hb;[F]).
    const location& l = locs_[e.loc];
    const std::uint64_t ke = key_of(e);
    std::vector<std::uint32_t> out_acc, out_fence_w, out_fence_eco;
    for (auto yg : l.acc) {
      const event& y = events_[yg];
      if (yg == gid || !(y.rd || y.wr) || key_of(y) <= ke) continue;
      const bool scb_target = y.wr || !rc11();
      if (y.sc && scb_target) out_acc.push_back(sc_of(y));
      for (auto fg : sc_nodes_) {
        const event& f = events_[fg];
        if (f.kind != ek::fence || !(hbq(y, f))) continue;
        out_fence_eco.push_back(sc_of(f));
        if (scb_target) out_fence_w.push_back(sc_of(f));
      }
    }
    if (e.sc) {
      for (auto b : out_acc) add.emplace_back(sc_of(e), b);
      for (auto b : out_fence_w) add.emplace_back(sc_of(e), b);
    }
    for (auto fg : sc_nodes_) {
      const event& f = events_[fg];
      if (f.kind != ek::fence || !hbq(f, e)) continue;
      for (auto b : out_acc) add.emplace_back(sc_of(f), b);
      for (auto b : out_fence_eco) add.emplace_back(sc_of(f), b);
    }
    if (e.sc) {  // in-edges a -> e
      for (auto ag : sc_nodes_) {
        if (ag == gid) continue;
        const event& a = events_[ag];
        bool edge = false;
        if (a.kind != ek::fence) {
          edge = scb(a, e);
        } else {
          edge = scb(a, e);
          for (std::size_t x = 0; !edge && x < events_.size(); ++x)
            if (hbq(a, events_[x]) && scb(events_[x], e)) edge = true;
        }
        if (edge) add.emplace_back(sc_of(a), sc_of(e));
      }
    }
  } else if (e.kind == ek::fence && e.sc) {
    // in-edges a -> e. From an access: scb(a, b') for b' hb? e. From a fence: psc_F.
    std::unordered_map<std::uint32_t, std::uint64_t> maxkey;  // per location, over accesses hb-before e
    for (std::size_t x = 0; x < events_.size(); ++x) {
      const event& y = events_[x];
      if (x == gid || !(y.rd || y.wr) || !hbq(y, e)) continue;
      auto [it, ins] = maxkey.emplace(y.loc, key_of(y));
      if (!ins) it->second = std::max(it->second, key_of(y));
    }
    for (auto ag : sc_nodes_) {
      if (ag == gid) continue;
      const event& a = events_[ag];
      bool edge = false;
      if (a.kind != ek::fence) {
        edge = scb(a, e);
        for (std::size_t x = 0; !edge && x < events_.size(); ++x)
          if (x != gid && hbq(events_[x], e) && scb(a, events_[x])) edge = true;
      } else {
        edge = hbq(a, e);
        for (std::size_t x = 0; !edge && x < events_.size(); ++x) {
          const event& y = events_[x];
          if (!(y.rd || y.wr) || !hbq(a, y)) continue;
          auto it = maxkey.find(y.loc);
          if (it != maxkey.end() && key_of(y) < it->second) edge = true;
        }
      }
      if (edge) add.emplace_back(sc_of(a), sc_of(e));
    }
  }
  if (add.empty()) {
    if (edges) edges->clear();
    return true;
  }
  // acyclicity of committed ∪ new edges. The committed graph is acyclic, so a cycle uses a
  // new edge: a DFS from the new edges' sources finds it. Successors of u: the set bits of
  // its committed row, then the new edges out of u (`next` walks both in turn).
  for (auto [u, v] : add)
    if (u == v) return false;
  // Only edges into the new event (it is porf-maximal and has no out-edges yet): no cycle.
  const auto me = static_cast<std::uint32_t>(e.sc_idx);
  if (e.sc && std::all_of(add.begin(), add.end(), [&](const auto& x) { return x.second == me; })) {
    if (edges) *edges = std::move(add);
    return true;
  }
  std::sort(add.begin(), add.end());
  add.erase(std::unique(add.begin(), add.end()), add.end());
  std::vector<std::uint8_t> colour(s, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;
  const auto successor = [&](std::uint32_t u, std::uint32_t& next, std::uint32_t* v) {
    const std::uint32_t bits = u < psc_.size() ? static_cast<std::uint32_t>(psc_[u].size() * 64) : 0;
    while (next < bits) {
      const std::uint64_t w = psc_[u][next / 64] >> (next % 64);
      if (w == 0) {
        next = (next / 64 + 1) * 64;
        continue;
      }
      next += static_cast<std::uint32_t>(__builtin_ctzll(w));
      *v = next++;
      return true;
    }
    if (next == bits)  // jump to u's first new edge (add is sorted by source)
      next = bits + static_cast<std::uint32_t>(
                        std::lower_bound(add.begin(), add.end(), std::pair<std::uint32_t, std::uint32_t>{u, 0}) - add.begin());
    if (next - bits < add.size() && add[next - bits].first == u) {
      *v = add[next - bits].second;
      ++next;
      return true;
    }
    return false;
  };
  for (const auto& root : add) {
    const std::uint32_t r = root.first;
    if (colour[r]) continue;
    stack.emplace_back(r, 0);
    colour[r] = 1;
    while (!stack.empty()) {
      const std::uint32_t u = stack.back().first;
      std::uint32_t v = 0;
      if (successor(u, stack.back().second, &v)) {
        if (colour[v] == 1) return false;
        if (colour[v] == 0) {
          colour[v] = 1;
          stack.emplace_back(v, 0);
        }
        continue;
      }
      colour[u] = 2;
      stack.pop_back();
    }
  }
  if (edges) *edges = std::move(add);
  return true;
}

// -------------------------------------------------------------------------------------------
// Reads and writes
// -------------------------------------------------------------------------------------------
/// Choose (and add) a read / RMW event. Candidates: writes at mo positions >= the coherence
/// bound, not already read by an RMW (atomicity) if this becomes an RMW, filtered by psc.
/// Returns `none` when no candidate is consistent: the execution was cut here, and the
/// caller finishes its operation (this thread was resumed to finish the execution).
std::uint32_t checker::read_choose(const event& proto, const event* fail_proto, std::uint32_t lid, bool is_cas,
                                   std::uint64_t expected, const detail::access* a, std::uint64_t* value,
                                   bool* success) {
  location& l = locs_[lid];
  mthread& th = threads_[cur_];
  const std::uint32_t L = visible_bound(cur_, l);
  std::uint32_t lo = L;
  // fair visibility after a spin hint / yield: a spinning read (a location the thread read
  // in the loop iteration before the hint) reads the latest store the first time it is read
  // again. Other locations are not affected: they keep every value coherence allows.
  if (auto it = std::find(th.spin_locs.begin(), th.spin_locs.end(), lid); it != th.spin_locs.end()) {
    lo = static_cast<std::uint32_t>(l.mo.size() - 1);
    th.spin_locs.erase(it);
  }
  if (force_latest_) {  // mutex lock: the lock is free, its mo-last write is an unlock
    lo = static_cast<std::uint32_t>(l.mo.size() - 1);
    force_latest_ = false;
  }
  // a woken waiter re-reads the latest store (as futex-based implementations do)
  if (th.fresh_loc == lid) {
    lo = static_cast<std::uint32_t>(l.mo.size() - 1);
    th.fresh_loc = none;
  }
  const bool is_rmw_op = a && (a->op != detail::rmw_op::none || a->cas);
  const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
  struct cand {
    std::uint32_t w;
    bool rmw;
  };
  const auto build = [&](const cand& c) {
    event e = (is_cas && !c.rmw && fail_proto) ? *fail_proto : proto;
    e.rd = true;
    e.rf = c.w;
    e.rval = events_[c.w].wval & mask;
    if (c.rmw) {
      e.wr = true;
      e.kind = proto.kind == ek::lock ? ek::lock : ek::rmw;
      const std::uint64_t old = e.rval, d = a ? a->operand : 0;
      std::uint64_t nv = d;
      if (a) switch (a->op) {
          case detail::rmw_op::add: nv = old + d; break;
          case detail::rmw_op::sub: nv = old - d; break;
          case detail::rmw_op::bit_or: nv = old | d; break;
          case detail::rmw_op::bit_and: nv = old & d; break;
          default: break;
        }
      e.wval = nv & mask;
    } else if (is_cas) {
      e.kind = ek::cas_fail;
      e.rel = false;
    }
    compute_views(e, th);
    return e;
  };
  const auto rmw_from = [&](std::uint32_t p) {
    const std::uint32_t w = l.mo[p];
    return is_rmw_op && (!is_cas || (events_[w].wval & mask) == (expected & mask));
  };
  event e;
  std::uint32_t fast = 0;
  if (fast_replay(&fast)) {
    e = build(cand{fast, rmw_from(events_[fast].mo_pos)});
  } else {
    std::vector<cand> cands;
    for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p-- > lo;) {
      const bool becomes_rmw = rmw_from(p);
      if (becomes_rmw && p + 1 < l.mo.size() && events_[l.mo[p + 1]].rd) continue;  // atomicity
      cands.push_back(cand{l.mo[p], becomes_rmw});
    }
    // build each candidate event, keep the psc-consistent ones (the RMW write goes right
    // after its source in mo)
    std::vector<event> good;
    std::vector<std::uint32_t> aux;
    for (const cand& c : cands) {
      event x = build(c);
      if (psc_needed(x, false)) {
        const auto gid = add_event(x, x.wr ? events_[x.rf].mo_pos + 1 : none);
        const bool fine = psc_ok(gid, nullptr);
        remove_last_event();
        if (!fine) continue;
      }
      good.push_back(x);
      aux.push_back(c.w);
    }
    if (good.empty()) {
      pruned_ = true;
    } else {
      e = good[choose_recorded(aux)];
    }
  }
  if (pruned_) {  // no consistent source
    cut_here();
    return none;
  }
  const auto pos = e.wr ? events_[e.rf].mo_pos + 1 : none;
  const auto gid = add_event(e, pos);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  if (psc_needed(events_[gid], true)) psc_ok(gid, &edges);
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
  if (value) *value = events_[gid].rval;
  if (success) *success = events_[gid].wr;
  const event& r = events_[gid];
  if (events_[r.rf].kind == ek::uninit)
    PILFER_MODEL_FAIL("uninitialised read", "t" + std::to_string(cur_) + " read L" + std::to_string(lid) + " (constructed uninitialised at " +
                                   l.file + ":" + std::to_string(l.line) + ") before any store, at " + r.file + ":" +
                                   std::to_string(r.line));
  return gid;
}

/// Choose (and add) a plain write: any mo position after the coherence bound that does not
/// split an RMW from the write it read. `none`: cut here, as for read_choose.
std::uint32_t checker::write_choose(event proto, std::uint32_t lid) {
  location& l = locs_[lid];
  mthread& th = threads_[cur_];
  const std::uint32_t L = visible_bound(cur_, l);
  std::vector<std::uint32_t> positions;
  for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p > L; --p) {
    if (p < l.mo.size() && events_[l.mo[p]].rd) continue;  // would split an RMW from its source
    positions.push_back(p);
  }
  proto.wr = true;
  compute_views(proto, th);
  std::uint32_t fastp = 0;
  std::vector<std::uint32_t> good;
  if (fast_replay(&fastp)) {
    positions.clear();
    good.push_back(fastp);
  }
  for (auto p : positions) {
    if (!psc_needed(proto, false)) {
      good.push_back(p);
      continue;
    }
    const auto gid = add_event(proto, p);
    const bool fine = psc_ok(gid, nullptr);
    remove_last_event();
    if (fine) good.push_back(p);
  }
  if (good.empty()) {
    cut_here();
    return none;
  }
  const auto p = positions.empty() ? good[0] : good[choose_recorded(good)];
  const auto gid = add_event(proto, p);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  if (psc_needed(events_[gid], true)) psc_ok(gid, &edges);
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
  return gid;
}

void checker::after_write(std::uint32_t t) {
  for (std::uint32_t o = 0; o < threads_.size(); ++o)
    if (o != t && threads_[o].status == tstatus::yielded) threads_[o].status = tstatus::runnable;
}

// -------------------------------------------------------------------------------------------
// Operations
// -------------------------------------------------------------------------------------------
std::uint32_t checker::new_location(location::kind_t k, const void*, std::uint64_t init, bool initialised,
                                    detail::value_info info, const std::source_location& src) {
  mthread& th = threads_[cur_];
  const auto id = static_cast<std::uint32_t>(locs_.size());
  location l;
  l.kind = k;
  l.info = info;
  l.creator = cur_;
  l.key = combine(th.key, ++th.locs);
  l.file = src.file_name();
  l.line = src.line();
  const std::uint64_t mask = info.bits >= 64 ? ~0ull : ((1ull << info.bits) - 1);
  if (finishing_) {  // no event: the location only holds its value
    l.last_value = init & mask;
    locs_.push_back(std::move(l));
    return id;
  }
  locs_.push_back(std::move(l));
  event e = make_event(k == location::cell_loc ? ek::cell_init : (initialised ? ek::init : ek::uninit), id, src);
  if (k != location::cell_loc) {
    e.wr = true;
    e.wval = init & mask;
  }
  compute_views(e, th);
  const auto gid = add_event(e, none);
  commit(gid);
  return id;
}

void checker::end_location(std::uint32_t id) noexcept {
  if (id == none || id >= locs_.size()) return;
  location& l = locs_[id];
  if (!live()) {
    l.alive = false;
    return;
  }
  if (l.kind == location::mutex_loc && l.owner != none)
    PILFER_MODEL_FAIL("mutex misuse", "mutex L" + std::to_string(id) + " (created at " + l.file + ":" + std::to_string(l.line) +
                                          ") destroyed by t" + std::to_string(cur_) + " while t" + std::to_string(l.owner) +
                                          " holds it");
  // destruction must happen after every access (else it races with them)
  const view& v = threads_[cur_].cur;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (a.thread != cur_ && a.index >= v.c[a.thread]) {
      PILFER_MODEL_FAIL("use after free", "L" + std::to_string(id) + " (created at " + l.file + ":" + std::to_string(l.line) +
                                 ") destroyed by t" + std::to_string(cur_) + " concurrently with its access by t" +
                                 std::to_string(a.thread) + ":" + std::to_string(a.index) + " at " + a.file + ":" +
                                 std::to_string(a.line));
    }
  }
  l.alive = false;
}

/// An access performed on the mo-latest value, recording nothing (finishing an execution, and
/// destructors run after it).
detail::access_result checker::passthrough(std::uint32_t id, const detail::access& a) {
  if (id >= locs_.size()) return {0, false};
  location& l = locs_[id];
  const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
  const std::uint64_t old = l.last_value & mask;
  if (a.cas) {
    if (old == (a.expected & mask)) {
      l.last_value = a.operand & mask;
      return {old, true};
    }
    return {old, false};
  }
  if (!a.is_write) return {old, true};
  std::uint64_t nv = a.operand;
  switch (a.op) {
    case detail::rmw_op::add: nv = old + a.operand; break;
    case detail::rmw_op::sub: nv = old - a.operand; break;
    case detail::rmw_op::bit_or: nv = old | a.operand; break;
    case detail::rmw_op::bit_and: nv = old & a.operand; break;
    default: break;  // store, exchange
  }
  l.last_value = nv & mask;
  return {old, true};
}

detail::access_result checker::access(std::uint32_t id, const detail::access& a, const std::source_location& src) {
  if (finishing_) return finish_access(id, a);
  if (!live()) return passthrough(id, a);
  if (!begin_op(src)) return finish_access(id, a);
  location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("use after free", "t" + std::to_string(cur_) + " accessed L" + std::to_string(id) + " (created at " + l.file + ":" +
                               std::to_string(l.line) + ") after it was destroyed, at " + where(src));
  bool weakened = false;
  const std::memory_order o = effective(a.site, &weakened);
  event e = make_event(ek::load, id, src);
  e.tag = a.site.tag ? a.site.tag : "";
  e.declared = a.site.order;
  e.order = o;
  e.sc = o == std::memory_order_seq_cst;
  detail::access_result r{0, true};
  if (!a.is_write) {  // load
    e.acq = is_acquire(o);
    std::uint64_t v = 0;
    if (read_choose(e, nullptr, id, false, 0, nullptr, &v, nullptr) == none) return finish_access(id, a);
    r.value = v;
    return r;
  }
  if (a.op == detail::rmw_op::none && !a.cas) {  // store
    e.kind = ek::store;
    e.rel = is_release(o);
    const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
    e.wval = a.operand & mask;
    if (write_choose(e, id) == none) return finish_access(id, a);
    after_write(cur_);
    return r;
  }
  // RMW / CAS: the success order applies when it writes; a failed CAS is a load with the
  // failure order (its own tag).
  e.kind = ek::rmw;
  e.acq = is_acquire(o);
  e.rel = is_release(o);
  std::uint64_t v = 0;
  bool ok = true;
  if (a.cas) {
    bool fw = false;
    std::memory_order fo = effective(a.fail_site, &fw);
    if (fo == std::memory_order_release) fo = std::memory_order_relaxed;
    if (fo == std::memory_order_acq_rel) fo = std::memory_order_acquire;
    // A read of a store equal to `expected` becomes the RMW (success order); any other read
    // is a failed CAS: a load with the failure order and the failure site's tag.
    event f = e;
    f.kind = ek::cas_fail;
    f.tag = a.fail_site.tag ? a.fail_site.tag : "";
    f.declared = a.fail_site.order;
    f.order = fo;
    f.acq = is_acquire(fo);
    f.rel = false;
    f.sc = fo == std::memory_order_seq_cst;
    if (read_choose(e, &f, id, true, a.expected, &a, &v, &ok) == none) return finish_access(id, a);
    r.value = v;
    r.success = ok;
    if (ok) after_write(cur_);
    return r;
  }
  if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) return finish_access(id, a);
  after_write(cur_);
  r.value = v;
  return r;
}

void checker::fence(order_site s, const std::source_location& src) {
  if (!live() || !begin_op(src)) return;  // finishing: fences order nothing
  bool weakened = false;
  const std::memory_order o = effective(s, &weakened);
  event e = make_event(ek::fence, none, src);
  e.tag = s.tag ? s.tag : "";
  e.declared = s.order;
  e.order = o;
  e.acq = is_acquire(o);
  e.rel = is_release(o);
  e.sc = o == std::memory_order_seq_cst;
  compute_views(e, threads_[cur_]);
  const auto gid = add_event(e, none);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  if (psc_needed(events_[gid], true) && !psc_ok(gid, &edges)) {
    // cannot happen for a fence that is porf-maximal (it has no outgoing psc edges)
    remove_last_event();
    cut_here();
    return;
  }
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
}

void checker::race_check(const event& e, const location& l) {
  const bool w = e.kind == ek::cell_write;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (&a == &e || a.thread == e.thread) continue;
    const bool aw = a.kind == ek::cell_write || a.kind == ek::cell_init;
    if (!w && !aw) continue;
    if (!hbq(a, e)) {
      record_race(a, e);
      if (!opt_.stop_at_first_race) return;  // a flag: the execution goes on
      PILFER_MODEL_FAIL("data race", std::string(w ? "write" : "read") + " of cell L" + std::to_string(e.loc) + " by t" +
                            std::to_string(e.thread) + " at " + e.file + ":" + std::to_string(e.line) + " races with " +
                            (aw ? "write" : "read") + " by t" + std::to_string(a.thread) + ":" + std::to_string(a.index) +
                            " at " + a.file + ":" + std::to_string(a.line));
    }
  }
}

/// Record a race once per (location site, access sites); with stop_at_first_race == false it
/// is also the check's first failure if none came before (result::ok is false for a racy
/// program), without ending the execution.
void checker::record_race(const event& a, const event& e) {
  const location& l = locs_[e.loc];
  const auto access_name = [&](const event& x) {
    std::string f = x.file;
    const auto slash = f.rfind('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    const bool xw = x.kind == ek::cell_write || x.kind == ek::cell_init;
    return std::string(x.kind == ek::cell_init ? "initialisation" : xw ? "write" : "read") + " by t" +
           std::to_string(x.thread) + ":" + std::to_string(x.index) + " at " + f + ":" + std::to_string(x.line);
  };
  std::string key = std::string(l.file) + ":" + std::to_string(l.line) + "|" + a.file + ":" + std::to_string(a.line) +
                    std::to_string(static_cast<int>(a.kind)) + "|" + e.file + ":" + std::to_string(e.line) +
                    std::to_string(static_cast<int>(e.kind));
  if (std::find(race_keys_.begin(), race_keys_.end(), key) != race_keys_.end()) return;
  race_keys_.push_back(std::move(key));
  race r;
  r.location = "cell L" + std::to_string(e.loc) + " created at " + l.file + ":" + std::to_string(l.line);
  r.first = access_name(a);
  r.second = access_name(e);
  r.execution = exec_index_;
  r.replay_token = token();
  r.trace = trace();
  if (res_.ok && !opt_.stop_at_first_race) {
    res_.ok = false;
    res_.kind = "data race";
    res_.message = r.second + " races with " + r.first + " on " + r.location;
    res_.trace = r.trace;
    res_.replay_token = r.replay_token;
  }
  res_.races.push_back(std::move(r));
}

void checker::cell_access(std::uint32_t id, bool write, const std::source_location& src) {
  if (!live()) return;
  location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("use after free", "t" + std::to_string(cur_) + " accessed cell L" + std::to_string(id) + " (created at " + l.file +
                               ":" + std::to_string(l.line) + ") after it was destroyed, at " + where(src));
  event e = make_event(write ? ek::cell_write : ek::cell_read, id, src);
  compute_views(e, threads_[cur_]);
  const auto gid = add_event(e, none);
  commit(gid);
  race_check(events_[gid], locs_[id]);
}

void checker::mutex_misuse_check(std::uint32_t id, const char* op, const std::source_location& src) {
  const location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " " + op + " mutex L" + std::to_string(id) + " (created at " +
                                          l.file + ":" + std::to_string(l.line) + ") after it was destroyed, at " + where(src));
}

void checker::mutex_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_lock(id);
  mutex_misuse_check(id, "locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " locked mutex L" + std::to_string(id) +
                                          " it already holds (self-deadlock), at " + where(src));
  mthread& th = threads_[cur_];
  th.pend = pending::lock;
  th.pend_arg = id;
  const bool explored = begin_op(src);
  th.pend = pending::idle;
  if (!explored) return finish_lock(id);
  event e = make_event(ek::lock, id, src);
  e.order = e.declared = std::memory_order_acquire;
  e.acq = true;
  detail::access a;
  a.op = detail::rmw_op::exchange;
  a.operand = 1;
  a.is_write = true;
  // only the mo-last write (an unlock or the init) is readable: the lock is free
  std::uint64_t v = 0;
  bool ok = false;
  force_latest_ = true;
  if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) return finish_lock(id);
  locs_[id].owner = cur_;
  after_write(cur_);
}

bool checker::mutex_try_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_try_lock(id);
  mutex_misuse_check(id, "try_locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " try_locked mutex L" + std::to_string(id) +
                                          " it already holds, at " + where(src));
  if (!begin_op(src)) return finish_try_lock(id);
  location& l = locs_[id];
  const bool free = events_[l.mo.back()].wval == 0;
  event e = make_event(free ? ek::lock : ek::trylock_fail, id, src);
  e.order = e.declared = free ? std::memory_order_acquire : std::memory_order_relaxed;
  e.acq = free;
  detail::access a;
  a.op = detail::rmw_op::exchange;
  a.operand = 1;
  a.is_write = true;
  std::uint64_t v = 0;
  bool ok = false;
  force_latest_ = true;
  if (read_choose(e, nullptr, id, false, 0, free ? &a : nullptr, &v, &ok) == none) return finish_try_lock(id);
  if (free) {
    locs_[id].owner = cur_;
    after_write(cur_);
  }
  return free;
}

void checker::mutex_unlock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_unlock(id);
  mutex_misuse_check(id, "unlocked", src);
  if (const auto owner = locs_[id].owner; owner != cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " unlocked mutex L" + std::to_string(id) + " (created at " +
                                          locs_[id].file + ":" + std::to_string(locs_[id].line) + ") " +
                                          (owner == none ? std::string("that is not locked") : "held by t" + std::to_string(owner)) +
                                          ", at " + where(src));
  if (!begin_op(src)) return finish_unlock(id);
  event e = make_event(ek::unlock, id, src);
  e.order = e.declared = std::memory_order_release;
  e.rel = true;
  e.wval = 0;
  if (write_choose(e, id) == none) return finish_unlock(id);
  locs_[id].owner = none;
  after_write(cur_);
}

void checker::wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src) {
  const std::uint64_t mask = locs_[id].info.bits >= 64 ? ~0ull : ((1ull << locs_[id].info.bits) - 1);
  for (;;) {
    if (!live()) return finish_wait(id, old);
    detail::access a;
    a.site = s;
    const auto r = access(id, a, src);
    if ((r.value & mask) != (old & mask)) return;
    if (!live()) return finish_wait(id, old);  // cut short before the load
    mthread& th = threads_[cur_];
    const std::uint32_t x = events_[th.events.back()].rf;
    // [atomics.wait]: a notify N already made unblocks this wait if a store Y on the
    // location is mo-after the X we observed and Y happens-before N (a futex re-checks the
    // value). A notify_one that already woke a thread is used up.
    bool already = false;
    const location& l = locs_[id];
    for (auto ng : l.acc) {
      const event& n = events_[ng];
      if (n.kind != ek::notify || (n.wval == 0 && n.other != none)) continue;
      for (std::size_t p = events_[x].mo_pos + 1; p < l.mo.size() && !already; ++p) {
        const event& y = events_[l.mo[p]];
        if (y.index < n.v.c[y.thread]) already = true;
      }
      if (already) break;
    }
    if (already) {
      th.fresh_loc = id;
      continue;
    }
    event e = make_event(ek::wait_block, id, src);
    compute_views(e, th);
    const auto gid = add_event(e, none);
    commit(gid);
    th.wait_loc = id;
    th.wait_x = x;
    th.status = opt_.spurious_wakeups ? tstatus::yielded : tstatus::blocked_wait;
    if (opt_.spurious_wakeups) th.spin_locs.assign(1, id);
    switch_to_scheduler();  // resumed once notified (or, with spurious wake-ups, after a write)
    th.wait_loc = none;
  }
}

void checker::notify(std::uint32_t id, bool all, const std::source_location& src) {
  if (!live() || !begin_op(src)) return;  // finishing: a waiter re-checks by itself
  event e = make_event(ek::notify, id, src);
  compute_views(e, threads_[cur_]);
  // eligible waiters: blocked on id having read X, with some store Y to id, X mo-before Y,
  // Y happens-before this notify ([atomics.wait]).
  std::vector<std::uint32_t> eligible;
  const location& l = locs_[id];
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    if (th.status != tstatus::blocked_wait || th.wait_loc != id) continue;
    const std::uint32_t xp = events_[th.wait_x].mo_pos;
    bool ok = false;
    for (std::size_t p = xp + 1; p < l.mo.size() && !ok; ++p) {
      const event& y = events_[l.mo[p]];
      if (y.thread == e.thread ? y.index < e.index : y.index < e.v.c[y.thread]) ok = true;
    }
    if (ok) eligible.push_back(t);
  }
  if (!all && eligible.size() > 1) {
    const auto c = choose(static_cast<std::uint32_t>(eligible.size()));
    eligible = {eligible[c]};
  }
  if (!eligible.empty() && !all) e.other = eligible[0];
  e.wval = all ? 1 : 0;  // notify_all stays effective for later waiters; notify_one once used does not
  const auto gid = add_event(e, none);
  commit(gid);
  for (auto t : eligible) {
    threads_[t].status = tstatus::runnable;
    threads_[t].fresh_loc = id;
  }
}

unsigned checker::spawn(std::unique_ptr<detail::task> body, const std::source_location& src) {
  // not a scheduling point: the child only becomes runnable (and `body` must not be left in
  // a stranded frame)
  if (threads_.size() >= max_threads) {
    body.reset();
    if (finishing_) strand();
    PILFER_MODEL_FAIL("model error", "more than " + std::to_string(max_threads) + " threads");
  }
  const auto child = static_cast<std::uint32_t>(threads_.size());
  mthread& parent = threads_[cur_];
  mthread th;
  th.key = combine(parent.key, ++parent.children);
  th.rng = mix64(th.key);
  th.parent = cur_;
  th.body = std::move(body);
  if (finishing_) {
    threads_.push_back(std::move(th));  // (reserved: `parent` stays valid)
    ++finish_progress_;
    return child;
  }
  event e = make_event(ek::spawn, none, src);
  e.other = child;
  compute_views(e, parent);
  threads_.push_back(std::move(th));  // (reserved: `parent` stays valid)
  const auto gid = add_event(e, none);
  commit(gid);
  threads_[child].cur = events_[gid].v;  // the child starts hb-after the spawn
  return child;
}

void checker::join(unsigned t, const std::source_location& src) {
  if (!live()) return finish_join(t);
  mthread& th = threads_[cur_];
  th.pend = pending::join;
  th.pend_arg = t;
  const bool explored = begin_op(src);
  th.pend = pending::idle;
  if (!explored) return finish_join(t);
  event e = make_event(ek::join, none, src);
  e.other = t;
  compute_views(e, th);
  e.v.join(threads_[t].cur);
  const auto gid = add_event(e, none);
  commit(gid);
}

void checker::yield(const std::source_location& src, bool spin) {
  if (!live()) return finishing_pause();
  if (!begin_op(src)) return;  // (the pause happened)
  mthread& th = threads_[cur_];
  event e = make_event(ek::yield, none, src);
  e.tag = spin ? "spin_hint" : "yield";
  compute_views(e, th);
  // the spinning reads: the locations read since the previous hint (one loop iteration). An
  // iteration without reads (a backoff of several hints) keeps the previous set.
  std::vector<std::uint32_t> iter;
  for (std::size_t i = th.events.size(); i-- > 0;) {
    const event& r = events_[th.events[i]];
    if (r.kind == ek::yield) break;
    if (r.rd && r.loc != none && std::find(iter.begin(), iter.end(), r.loc) == iter.end()) iter.push_back(r.loc);
  }
  if (!iter.empty()) th.spin_locs = std::move(iter);
  const auto gid = add_event(e, none);
  commit(gid);
  th.status = tstatus::yielded;
}

std::uint64_t checker::random(std::uint64_t bound) {
  mthread& th = threads_[cur_];
  th.rng ^= th.rng >> 12;
  th.rng ^= th.rng << 25;
  th.rng ^= th.rng >> 27;
  const std::uint64_t r = th.rng * 0x2545F4914F6CDD1Dull;
  return bound == 0 ? r : r % bound;
}

void* checker::alloc(std::size_t bytes, std::size_t align, bool array, const char* what,
                     const std::source_location& src) {
  void* p = ::operator new(bytes, std::align_val_t(align));
  region r;
  r.bytes = bytes;
  r.align = align;
  r.array = array;
  r.what = what;
  r.file = src.file_name();
  r.line = src.line();
  r.thread = cur_;
  regions_[p] = r;
  return p;
}

bool checker::check_free(const void* p, bool array, const std::source_location& src) {
  auto it = regions_.find(p);
  if (it == regions_.end()) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("invalid free", "t" + std::to_string(cur_) + " destroyed a pointer that checker_sync::make did not return, at " + where(src));
  }
  if (it->second.freed) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("double free", "t" + std::to_string(cur_) + " destroyed " + it->second.what + " (made at " + it->second.file + ":" +
                            std::to_string(it->second.line) + ") twice");
  }
  if (it->second.array != array && live())
    PILFER_MODEL_FAIL("invalid free", std::string("destroy/destroy_array mismatch for memory made at ") + it->second.file + ":" +
                             std::to_string(it->second.line));
  return true;
}

void checker::release(void* p) noexcept {
  auto it = regions_.find(p);
  if (it != regions_.end()) it->second.freed = true;  // quarantined until the execution ends
}

// -------------------------------------------------------------------------------------------
// Traces
// -------------------------------------------------------------------------------------------
std::string checker::where(const std::source_location& s) const {
  std::string f = s.file_name();
  const auto slash = f.rfind('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(s.line());
}

std::string checker::format_value(const location& l, std::uint64_t v) const {
  char buf[40];
  if (l.info.is_pointer) {
    std::snprintf(buf, sizeof buf, "%#" PRIx64, v);
    return v == 0 ? "nullptr" : buf;
  }
  if (l.info.is_signed && l.info.bits < 64 && (v >> (l.info.bits - 1)) & 1) v |= ~((1ull << l.info.bits) - 1);
  if (l.info.is_signed)
    std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<std::int64_t>(v));
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64, v);
  return buf;
}

std::string checker::describe(const event& e) const {
  std::string s = "  t" + std::to_string(e.thread) + ":" + std::to_string(e.index) + "  " + kind_name(e.kind);
  if (e.kind == ek::load || e.kind == ek::store || e.kind == ek::rmw || e.kind == ek::cas_fail || e.kind == ek::fence) {
    s += std::string(" ") + order_name(e.order);
    if (e.order != e.declared) s += std::string(" (weakened from ") + order_name(e.declared) + ")";
  }
  if (e.tag && *e.tag) s += std::string(" [") + e.tag + "]";
  if (e.loc != none) s += " L" + std::to_string(e.loc);
  if (e.rd && e.rf != none) {
    const event& w = events_[e.rf];
    s += " read " + format_value(locs_[e.loc], e.rval) + " from t" + std::to_string(w.thread) + ":" + std::to_string(w.index);
  }
  if (e.wr) s += " wrote " + format_value(locs_[e.loc], e.wval) + " (mo " + std::to_string(e.mo_pos) + ")";
  if (e.other != none) s += " t" + std::to_string(e.other);
  std::string f = e.file;
  const auto slash = f.rfind('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  s += "  @" + f + ":" + std::to_string(e.line) + "\n";
  return s;
}

std::string checker::trace() const {
  std::string s = "trace (" + std::to_string(events_.size()) + " events, in execution order):\n";
  for (const auto& e : events_) s += describe(e);
  return s;
}

}  // namespace engine

// -------------------------------------------------------------------------------------------
// Public API and detail:: entry points
// -------------------------------------------------------------------------------------------
using engine::g;
namespace {
/// A modelled thread is running: exploring, or finishing an execution that was cut short.
bool engaged() noexcept { return g && g->engaged(); }
}  // namespace

result check(std::function<std::unique_ptr<scenario>()> make, const options& o) {
  if (g) {
    std::fprintf(stderr, "pilfer model: check() is not reentrant\n");
    std::abort();
  }
  engine::checker c(std::move(make), o);
  return c.run();
}

const std::set<std::string>& seen_tags() { return engine::g_last_tags; }
std::size_t current_execution_index() { return g ? g->execution_index() : 0; }
bool in_execution() noexcept { return g && g->live(); }

void assume(bool cond) {
  if (!cond && engaged()) g->block();
}

namespace detail {

std::uint32_t new_atomic(const void* addr, std::uint64_t init, bool initialised, value_info info,
                         const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::atomic_loc, addr, init, initialised, info, src);
}
void end_location(std::uint32_t id) noexcept {
  if (g && id != no_location) g->end_location(id);
}
access_result atomic_access(std::uint32_t id, const access& a, const std::source_location& src) {
  return g->access(id, a, src);
}
void atomic_wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src) {
  if (engaged()) g->wait(id, old, s, src);
}
void atomic_notify(std::uint32_t id, bool all, const std::source_location& src) {
  if (g) g->notify(id, all, src);
}
void fence(order_site s, const std::source_location& src) {
  if (in_execution()) g->fence(s, src);
}
std::uint32_t new_cell(const void* addr, const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::cell_loc, addr, 0, true, value_info{64, false, false}, src);
}
void cell_access(std::uint32_t id, bool write, const std::source_location& src) {
  if (g) g->cell_access(id, write, src);
}
std::uint32_t new_mutex(const void* addr, const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::mutex_loc, addr, 0, true, value_info{8, false, false}, src);
}
void mutex_lock(std::uint32_t id, const std::source_location& src) {
  if (engaged()) g->mutex_lock(id, src);
}
bool mutex_try_lock(std::uint32_t id, const std::source_location& src) {
  return !engaged() || g->mutex_try_lock(id, src);
}
void mutex_unlock(std::uint32_t id, const std::source_location& src) {
  if (engaged()) g->mutex_unlock(id, src);
}
unsigned spawn(std::unique_ptr<task> t, const std::source_location& src) {
  if (!engaged()) {
    std::fprintf(stderr, "pilfer model: checker_sync::thread created outside a model execution\n");
    std::abort();
  }
  return g->spawn(std::move(t), src);
}
void join(unsigned t, const std::source_location& src) {
  if (engaged()) g->join(t, src);
}
void spin_hint(const std::source_location& src) {
  if (engaged()) g->yield(src, true);
}
void yield(const std::source_location& src) {
  if (engaged()) g->yield(src, false);
}
std::uint64_t random(std::uint64_t bound) {
  if (engaged()) return g->random(bound);
  static std::uint64_t s = 0x9E3779B97F4A7C15ull;
  s = engine::mix64(s + 1);
  return bound == 0 ? s : s % bound;
}
void*& thread_slot(const void* key) {
  if (g) return g->thread_slot(key);
  static std::map<const void*, void*> outside;
  return outside[key];
}
unsigned thread_id() noexcept { return g ? g->thread_id() : 0u; }

void* tracked_alloc(std::size_t bytes, std::size_t align, std::size_t, bool array, const char* what,
                    const std::source_location& src) {
  if (!engaged()) return ::operator new(bytes, std::align_val_t(align));
  return g->alloc(bytes, align, array, what, src);
}
bool tracked_check_free(const void* p, bool array, const std::source_location& src) {
  if (!g) return true;
  return g->check_free(p, array, src);
}
void tracked_release(void* p) noexcept {
  if (g) {
    g->release(p);
    return;
  }
  ::operator delete(p);
}

void assertion_failed(const char* expr, const char* file, int line) {
  if (g && g->finishing()) g->strand();  // nothing is checked while finishing: the thread stops here
  {  // the strings die here: the fiber's frame is stranded below
    std::string f = file;
    const auto slash = f.rfind('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    std::string msg = std::string("PILFER_MODEL_ASSERT(") + expr + ") failed at " + f + ":" + std::to_string(line);
    if (!in_execution()) {
      std::fprintf(stderr, "pilfer model: %s\n", msg.c_str());
      std::abort();
    }
    g->record_failure("assertion", std::move(msg));
  }
  g->abandon();
}

}  // namespace detail
}  // namespace pilfer::model
