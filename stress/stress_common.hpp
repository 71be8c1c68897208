// stress/stress_common.hpp — shared plumbing of the stress programs.
//
// Every program takes
//   --seconds N     run the randomised phase for about N seconds (default per program)
//   --iterations N  ... or for exactly N rounds (submits in submit_while_parking); --seconds is then ignored
//   --seed N        (or PILFER_SEED=N in the environment) replay a run; the seed is printed as seed=N
// and exits non-zero, naming the broken invariant, when a check fails.
// Threads are pilfer::std_sync::thread and counters pilfer::std_sync::atomic, as everywhere outside sync.hpp.
#pragma once

#include <pilfer/sync.hpp>
#include <pilfer/testing/random.hpp>
#include <pilfer/testing/seed.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace pilfer::stress {

struct options {
  double seconds = 5.0;
  std::uint64_t iterations = 0;  // 0 = bounded by time only
  std::uint64_t seed = 0;
  std::uint64_t chaos = 0;        // 0 = off; N = perturb about one in N atomic operations (chaos_sync)
  unsigned workers = 0;           // 0 = each scenario's own choice; N = every pool gets N workers
  bool oversubscribe = false;     // every pool gets 4 x the hardware threads (more workers than cores)
  double watchdog = 30.0;         // seconds without progress before the watchdog dumps and fails
};

namespace detail {
[[noreturn]] inline void bad_option(const char* program, const std::string& what) {
  std::fprintf(stderr, "%s: %s (try --help)\n", program, what.c_str());
  std::exit(2);
}
inline double parse_seconds(const char* program, std::string_view key, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !(d >= 0.0) || d > 1e7)
    bad_option(program, "bad value for " + std::string(key) + ": '" + v + "' (a number of seconds >= 0)");
  return d;
}
inline std::uint64_t parse_count(const char* program, std::string_view key, const std::string& v,
                                 std::uint64_t max = ~std::uint64_t{0}) {
  const auto n = pilfer::testing::parse_u64(v);
  if (!n || *n > max)
    bad_option(program, "bad value for " + std::string(key) + ": '" + v + "' (a whole number 0.." + std::to_string(max) + ")");
  return *n;
}
}  // namespace detail

/// Parses the common options (both `--x N` and `--x=N`) and PILFER_SEED; prints seed=N. Bad input: one line
/// on stderr, exit status 2. `extra_usage` names the program's own options (peeled off before this call).
///   --seconds N  --iterations N  --seed N  --chaos N  --workers N  --oversubscribe  --watchdog SECONDS
inline options parse(int argc, char** argv, const char* program, double default_seconds, const char* extra_usage = "") {
  options o;
  o.seconds = default_seconds;
  o.seed = pilfer::testing::seed_from_env();  // PILFER_SEED (malformed: one line, exit 2) or a fresh seed
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    std::string_view key = a;
    std::string value;
    bool has_value = false;
    if (const auto eq = a.find('='); eq != std::string_view::npos) {
      key = a.substr(0, eq);
      value = std::string(a.substr(eq + 1));
      has_value = true;
    }
    auto need = [&]() -> const std::string& {
      if (!has_value) {
        if (i + 1 >= argc) detail::bad_option(program, "option " + std::string(key) + " needs a value");
        value = argv[++i];
        has_value = true;
      }
      return value;
    };
    if (key == "--help") {
      std::printf("usage: %s %s[--seconds N] [--iterations N] [--seed N] [--chaos N] [--workers N] [--oversubscribe] "
                  "[--watchdog SECONDS]   (PILFER_SEED=N is accepted as well)\n", program, extra_usage);
      std::exit(0);
    } else if (key == "--seconds") {
      o.seconds = detail::parse_seconds(program, key, need());
    } else if (key == "--iterations") {
      o.iterations = detail::parse_count(program, key, need());
    } else if (key == "--seed") {
      o.seed = detail::parse_count(program, key, need());
    } else if (key == "--chaos") {
      o.chaos = detail::parse_count(program, key, need(), 1u << 30);
    } else if (key == "--workers") {
      o.workers = static_cast<unsigned>(detail::parse_count(program, key, need(), 1024));
      if (o.workers == 0) detail::bad_option(program, "bad value for --workers: '0' (1..1024)");
    } else if (key == "--oversubscribe" && !has_value) {
      o.oversubscribe = true;
    } else if (key == "--watchdog") {
      o.watchdog = detail::parse_seconds(program, key, need());
      if (o.watchdog <= 0.0) detail::bad_option(program, "bad value for --watchdog: must be > 0 seconds");
    } else {
      detail::bad_option(program, "unknown option '" + std::string(a) + "'");
    }
  }
  if (o.oversubscribe && o.workers == 0) o.workers = 4 * std::max(1u, std::thread::hardware_concurrency());
  std::printf("%s: seed=%llu seconds=%.1f iterations=%llu chaos=%llu workers=%s watchdog=%.0fs\n", program,
              static_cast<unsigned long long>(o.seed), o.seconds, static_cast<unsigned long long>(o.iterations),
              static_cast<unsigned long long>(o.chaos), o.workers ? std::to_string(o.workers).c_str() : "default",
              o.watchdog);
  std::fflush(stdout);
  return o;
}

/// Is `s` one of the '|'-separated `names`?
inline bool one_of(std::string_view s, std::string_view names) {
  while (!names.empty()) {
    const auto bar = names.find('|');
    if (names.substr(0, bar) == s) return true;
    if (bar == std::string_view::npos) break;
    names.remove_prefix(bar + 1);
  }
  return false;
}

/// Peels `--name VALUE` / `--name=VALUE` off argv for a program's own option; a missing value is a one-line error.
inline bool take_option(int argc, char** argv, int& i, std::string_view name, std::string& out, const char* program) {
  std::string_view a = argv[i];
  if (a.size() > name.size() && a.substr(0, name.size()) == name && a[name.size()] == '=') {
    out = std::string(a.substr(name.size() + 1));
    return true;
  }
  if (a != name) return false;
  if (i + 1 >= argc) detail::bad_option(program, "option " + std::string(name) + " needs a value");
  out = argv[++i];
  return true;
}

/// A small, seedable per-thread generator: rng(seed, stream) (pilfer/testing/random.hpp).
using rng = pilfer::testing::xorshift64star;

/// The seed of round `round_no` of a run seeded with `seed`.
inline std::uint64_t round_seed(std::uint64_t seed, std::uint64_t round_no) noexcept {
  return seed ^ (round_no * pilfer::testing::golden_gamma);
}

/// Wall-clock bound of the randomised phase.
class deadline {
 public:
  explicit deadline(double seconds)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(seconds))),
        start_(std::chrono::steady_clock::now()) {}
  bool passed() const { return std::chrono::steady_clock::now() >= end_; }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point end_;
  std::chrono::steady_clock::time_point start_;
};

/// Counts failed checks (any thread), printing the first few.
class failures {
 public:
  void fail(const char* what, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    // The first few are printed (stderr is unbuffered; lines may interleave between threads).
    if (count_.fetch_add(1, PILFER_SITE("stress.fail", acq_rel)) < 8) {
      std::fprintf(stderr, "FAILED: %s (%llu, %llu)\n", what, static_cast<unsigned long long>(a),
                   static_cast<unsigned long long>(b));
    }
  }
  bool any() const noexcept { return count_.load(PILFER_SITE("stress.fail", acquire)) != 0; }
  std::uint64_t count() const noexcept { return count_.load(PILFER_SITE("stress.fail", acquire)); }

 private:
  std_sync::atomic<std::uint64_t> count_{0};
};

// ------------------------------------------------------------------------------------------ progress
/// Units of work completed (tasks, items moved): the watchdog watches it, the verdict line prints it as ops=N.
inline std_sync::atomic<std::uint64_t>& progress_counter() {
  static std_sync::atomic<std::uint64_t> n{0};
  return n;
}
inline void progress(std::uint64_t n = 1) noexcept {
  progress_counter().fetch_add(n, PILFER_SITE("stress.progress", relaxed));  // a count; publishes nothing
}

// ------------------------------------------------------------------------------------------ chaos
/// Chaos: a Sync policy that is std_sync plus, before about one in `one_in` atomic operations or fences, a
/// seeded perturbation (7 in 8: yield; 1 in 8: sleep 10-200 us), so rare interleavings (a preempted searcher,
/// a late store) happen often. Off (one_in == 0) it costs one relaxed load per operation. The per-thread
/// generators derive from --seed and a thread counter, so the injected pattern is seeded (the OS schedule is not).
struct chaos_control {
  static std_sync::atomic<std::uint64_t>& one_in() {
    static std_sync::atomic<std::uint64_t> n{0};
    return n;
  }
  static std_sync::atomic<std::uint64_t>& seed() {
    static std_sync::atomic<std::uint64_t> s{0};
    return s;
  }
  static std_sync::atomic<std::uint64_t>& threads() {
    static std_sync::atomic<std::uint64_t> t{0};
    return t;
  }
  static std_sync::atomic<std::uint64_t>& injected() {
    static std_sync::atomic<std::uint64_t> i{0};
    return i;
  }
  static void configure(std::uint64_t one_in_n, std::uint64_t s) {
    seed().store(s, PILFER_SITE("stress.chaos", relaxed));  // set before any pool thread starts
    one_in().store(one_in_n, PILFER_SITE("stress.chaos", relaxed));
  }
  static void point() noexcept {
    const std::uint64_t n = one_in().load(PILFER_SITE("stress.chaos", relaxed));  // a knob; orders nothing
    if (n == 0) return;
    thread_local rng gen{0};
    thread_local bool seeded = false;
    if (!seeded) {
      gen = rng(seed().load(PILFER_SITE("stress.chaos", relaxed)),
              threads().fetch_add(1, PILFER_SITE("stress.chaos", relaxed)));
      seeded = true;
    }
    const std::uint64_t r = gen.next();
    if (r % n != 0) return;
    injected().fetch_add(1, PILFER_SITE("stress.chaos", relaxed));
    if ((r >> 40) % 8 != 0) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(10 + (r >> 48) % 190));
    }
  }
};

struct chaos_sync : std_sync {
  template <class T>
  class atomic {
   public:
    constexpr atomic() noexcept = default;
    constexpr explicit atomic(T v) noexcept : a_(v) {}
    atomic(const atomic&) = delete;
    atomic& operator=(const atomic&) = delete;
    T load(order_site s) const noexcept {
      chaos_control::point();
      return a_.load(s);
    }
    void store(T v, order_site s) noexcept {
      chaos_control::point();
      a_.store(v, s);
    }
    T exchange(T v, order_site s) noexcept {
      chaos_control::point();
      return a_.exchange(v, s);
    }
    bool compare_exchange_strong(T& e, T d, order_site ok, order_site bad) noexcept {
      chaos_control::point();
      return a_.compare_exchange_strong(e, d, ok, bad);
    }
    bool compare_exchange_weak(T& e, T d, order_site ok, order_site bad) noexcept {
      chaos_control::point();
      return a_.compare_exchange_weak(e, d, ok, bad);
    }
    T fetch_add(T d, order_site s) noexcept requires std::is_integral_v<T> {
      chaos_control::point();
      return a_.fetch_add(d, s);
    }
    T fetch_sub(T d, order_site s) noexcept requires std::is_integral_v<T> {
      chaos_control::point();
      return a_.fetch_sub(d, s);
    }
    T fetch_or(T d, order_site s) noexcept requires std::is_integral_v<T> {
      chaos_control::point();
      return a_.fetch_or(d, s);
    }
    T fetch_and(T d, order_site s) noexcept requires std::is_integral_v<T> {
      chaos_control::point();
      return a_.fetch_and(d, s);
    }
    void wait(T old, order_site s) const noexcept {
      chaos_control::point();
      a_.wait(old, s);
    }
    void notify_one() noexcept {
      chaos_control::point();
      a_.notify_one();
    }
    void notify_all() noexcept {
      chaos_control::point();
      a_.notify_all();
    }

   private:
    std_sync::atomic<T> a_;
  };
  static void fence(order_site s) noexcept {
    chaos_control::point();
    std_sync::fence(s);
  }
  static void fence_light(order_site s) noexcept {
    chaos_control::point();
    std_sync::fence_light(s);
  }
  static void fence_heavy(order_site s) noexcept {
    chaos_control::point();
    std_sync::fence_heavy(s);
  }
};

// ------------------------------------------------------------------------------------------ watchdog
/// Fails the program, with a dump of whatever is being watched, when progress() has not moved for `seconds`.
/// Scenarios register a describer for the pool they run (watch_guard); the dump prints every worker's state.
class watchdog {
 public:
  watchdog(const char* program, double seconds, std::uint64_t seed) : program_(program), seconds_(seconds), seed_(seed) {
    thread_ = std_sync::thread([this] { loop(); });
  }
  ~watchdog() {
    stop_.store(true, PILFER_SITE("stress.watchdog", release));
    thread_.join();
  }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

  /// While alive, the watchdog's dump includes `describe()`.
  class guard {
   public:
    guard(watchdog& w, std::function<std::string()> describe) : w_(w) {
      std::lock_guard<std_sync::mutex> g(w_.m_);
      w_.describe_ = std::move(describe);
    }
    ~guard() {
      std::lock_guard<std_sync::mutex> g(w_.m_);
      w_.describe_ = nullptr;
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

   private:
    watchdog& w_;
  };

 private:
  void loop() {
    std::uint64_t last = progress_counter().load(PILFER_SITE("stress.progress", relaxed));
    auto since = std::chrono::steady_clock::now();
    while (!stop_.load(PILFER_SITE("stress.watchdog", acquire))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::uint64_t now = progress_counter().load(PILFER_SITE("stress.progress", relaxed));
      if (now != last) {
        last = now;
        since = std::chrono::steady_clock::now();
        continue;
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count() < seconds_) continue;
      std::string state;
      {
        std::lock_guard<std_sync::mutex> g(m_);
        state = describe_ ? describe_() : std::string("  (no pool registered)\n");
      }
      std::fprintf(stderr, "%s: WATCHDOG: no progress for %.0f s (ops=%llu); state:\n%s", program_, seconds_,
                   static_cast<unsigned long long>(now), state.c_str());
      std::printf("%s: FAIL (watchdog: no progress for %.0f s) — replay with PILFER_SEED=%llu\n", program_, seconds_,
                  static_cast<unsigned long long>(seed_));
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(1);  // the stuck threads cannot be joined
    }
  }

  const char* program_;
  double seconds_;
  std::uint64_t seed_;
  std_sync::mutex m_;
  std::function<std::string()> describe_;
  std_sync::atomic<bool> stop_{false};
  std_sync::thread thread_;
};

/// Every worker's (and spare's) state of a pilfer pool (any basic_pool<S>: snapshot() is racy and
/// advisory), for a watchdog's dump.
template <class Pool>
std::string describe_pool(const Pool& p) {
  std::ostringstream os;
  for (const auto& w : p.snapshot())
    os << "  worker " << w.index << ": " << to_string(w.state) << ", queued " << w.queued << ", tasks_run " << w.tasks_run
       << "\n";
  os << "  spare workers alive: " << p.spare_workers() << "\n";
  return os.str();
}

/// Final verdict line (with ops=N, the progress count, and chaos points injected); returns the exit code.
inline int verdict(const char* program, const failures& f, std::uint64_t seed) {
  const auto ops = static_cast<unsigned long long>(progress_counter().load(PILFER_SITE("stress.progress", relaxed)));
  const auto injected = static_cast<unsigned long long>(chaos_control::injected().load(PILFER_SITE("stress.chaos", relaxed)));
  if (f.any()) {
    std::printf("%s: FAIL (%llu failed checks) ops=%llu chaos_points=%llu — replay with PILFER_SEED=%llu\n", program,
                static_cast<unsigned long long>(f.count()), ops, injected, static_cast<unsigned long long>(seed));
    return 1;
  }
  std::printf("%s: OK ops=%llu chaos_points=%llu\n", program, ops, injected);
  return 0;
}

}  // namespace pilfer::stress
