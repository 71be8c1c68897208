// pilfer/sync.hpp — the synchronisation-policy seam.
//
// Every concurrent component of pilfer is a template over a policy `Sync`:
//
//   template <class T, class Sync = std_sync> class basic_deque;
//
// The policy supplies atomics, fences, plain shared cells, threads, a mutex,
// parking (C++20 wait/notify on an atomic), a spin hint, randomness and
// tracked allocation. `std_sync` (this header) maps them to the standard
// library at zero cost; the model checker (models/) supplies `checker_sync`
// with the same surface, so the checker runs the very headers users link.
//
// This is the ONLY header of lib/ that names <atomic>, <thread> or <mutex>.
//
// Orders carry tags. Every atomic operation and fence takes an `order_site`:
// a memory order plus a tag naming the site in the component's design note,
// e.g. `PILFER_SITE("deque.S1", acquire)`. std_sync only uses the order (the
// tag is folded away); checker_sync uses the tag to print traces and to
// weaken one site at a time for the sensitivity table (models/README.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#endif

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#endif

// ThreadSanitizer switch. TSan does not model std::atomic_thread_fence, so a
// release fence followed by a relaxed store (Chase-Lev push: [P2] then [P4])
// publishes data to an acquire load under the C++ model but not in TSan's
// happens-before, and TSan reports the reader's access to the published data
// (e.g. a task object) as a race. Under TSan only, std_sync therefore treats
// every relaxed store/RMW of a thread that has executed a release (or
// stronger) fence as a release store/RMW: a sound over-approximation of the
// fence's effect (it can hide a race on data written between the fence and the
// store, never invent one). Builds without TSan are unaffected. Missing-order
// bugs are the model checker's job (models/), not TSan's.
#if defined(__SANITIZE_THREAD__)
#define PILFER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PILFER_TSAN 1
#endif
#endif
#ifndef PILFER_TSAN
#define PILFER_TSAN 0
#endif

namespace pilfer {

/// An atomic order together with the tag of the site that uses it.
/// Tags are "component.ID" strings matching the design notes' tables.
struct order_site {
  std::memory_order order;
  const char* tag;
};

/// Build an order_site: PILFER_SITE("deque.P1", acquire).
#define PILFER_SITE(tag_, order_) \
  (::pilfer::order_site{::std::memory_order_##order_, tag_})

/// Cache-line size used to keep independently written fields apart.
inline constexpr std::size_t cache_line = 64;

namespace detail {
#if PILFER_TSAN
/// TSan only: has this thread executed a release-or-stronger fence?
inline bool& tsan_fence_released() noexcept {
  thread_local bool released = false;
  return released;
}
#endif
/// The order std_sync really uses for a store or RMW (see PILFER_TSAN above).
inline std::memory_order store_order(std::memory_order o) noexcept {
#if PILFER_TSAN
  // After a release fence, a relaxed store/RMW publishes what preceded the fence (C++ [atomics.fences]);
  // release (acq_rel for acquire RMWs) makes TSan see that edge.
  if (tsan_fence_released()) {
    if (o == std::memory_order_relaxed) return std::memory_order_release;
    if (o == std::memory_order_acquire || o == std::memory_order_consume) return std::memory_order_acq_rel;
  }
#endif
  return o;
}
}  // namespace detail

/// The standard-library policy: zero-cost mapping onto <atomic>/<thread>/<mutex>.
struct std_sync {
  static constexpr bool is_model = false;

  /// A broken internal invariant of pilfer itself (never the user's error): print it and abort.
  /// The checker's policy reports it as a failed assertion with the execution's trace instead.
  [[noreturn]] static void broken_invariant(const char* what, const char* file, int line) noexcept {
    std::fprintf(stderr, "pilfer: internal invariant broken at %s:%d: %s\n", file, line, what);
    std::abort();
  }
#if defined(__linux__)
  // <linux/membarrier.h>'s command numbers (stable kernel ABI), spelled here so that the header is
  // not needed.
  static constexpr int membarrier_query = 0;
  static constexpr int membarrier_private_expedited = 1 << 3;
  static constexpr int membarrier_register_private_expedited = 1 << 4;
#endif

  /// Atomic cell. Same surface as std::atomic, but every operation takes an
  /// order_site instead of a bare std::memory_order.
  template <class T>
  class atomic {
   public:
    constexpr atomic() noexcept : v_() {}
    constexpr explicit atomic(T v) noexcept : v_(v) {}
    atomic(const atomic&) = delete;
    atomic& operator=(const atomic&) = delete;

    T load(order_site s) const noexcept { return v_.load(s.order); }
    void store(T v, order_site s) noexcept { v_.store(v, detail::store_order(s.order)); }
    T exchange(T v, order_site s) noexcept { return v_.exchange(v, detail::store_order(s.order)); }
    bool compare_exchange_strong(T& expected, T desired, order_site success,
                                 order_site failure) noexcept {
      return v_.compare_exchange_strong(expected, desired, detail::store_order(success.order),
                                        failure.order);
    }
    bool compare_exchange_weak(T& expected, T desired, order_site success,
                               order_site failure) noexcept {
      return v_.compare_exchange_weak(expected, desired, detail::store_order(success.order),
                                      failure.order);
    }
    T fetch_add(T d, order_site s) noexcept requires std::is_integral_v<T> {
      return v_.fetch_add(d, detail::store_order(s.order));
    }
    T fetch_sub(T d, order_site s) noexcept requires std::is_integral_v<T> {
      return v_.fetch_sub(d, detail::store_order(s.order));
    }
    T fetch_or(T d, order_site s) noexcept requires std::is_integral_v<T> {
      return v_.fetch_or(d, detail::store_order(s.order));
    }
    T fetch_and(T d, order_site s) noexcept requires std::is_integral_v<T> {
      return v_.fetch_and(d, detail::store_order(s.order));
    }
    /// Block while the value equals `old` (C++20 atomic wait semantics:
    /// may return spuriously only after re-checking; callers loop).
    void wait(T old, order_site s) const noexcept { v_.wait(old, s.order); }
    void notify_one() noexcept { v_.notify_one(); }
    void notify_all() noexcept { v_.notify_all(); }

   private:
    std::atomic<T> v_;
  };

  /// A thread fence with a tagged order.
  static void fence(order_site s) noexcept {
#if PILFER_TSAN
    // Remember release-or-stronger fences: they turn this thread's later relaxed stores into publications.
    if (s.order == std::memory_order_release || s.order == std::memory_order_acq_rel ||
        s.order == std::memory_order_seq_cst)
      detail::tsan_fence_released() = true;
#endif
    // The order is the caller's: each site's comment names the edge its fence creates ([P2], [T1], [S2], ...).
    std::atomic_thread_fence(s.order);
  }

  /// Asymmetric fences: a pair of sites that needs a seq_cst fence on both sides (a Dekker pair,
  /// store then load on each side), where one side runs rarely, can put a compiler-only barrier on
  /// the frequent side (fence_light) and a process-wide barrier on the rare one (fence_heavy):
  /// Linux membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every running thread of the process
  /// execute a full barrier where it stands, between two barriers of the caller, so each light
  /// site behaves as if it were a seq_cst fence ordered against the heavy one. The checker models
  /// it exactly so (models/README.md, "Asymmetric fences").
  ///
  /// asymmetric_fences() registers the process once (idempotent) and says whether the pair is
  /// available. A component decides once, before its threads start, and keeps the answer: when it
  /// is false, both sides must use fence(seq_cst) instead (a light fence is then no fence at all).
  static bool asymmetric_fences() noexcept {
#if defined(__linux__) && defined(__NR_membarrier)
    static const bool registered = [] {
      const long cmds = ::syscall(__NR_membarrier, membarrier_query, 0, 0);
      if (cmds < 0 || (cmds & membarrier_private_expedited) == 0) return false;
      return ::syscall(__NR_membarrier, membarrier_register_private_expedited, 0, 0) == 0;
    }();
    return registered;
#else
    return false;
#endif
  }
  /// The frequent side: a compiler-only barrier. Only after asymmetric_fences() returned true.
  static void fence_light(order_site) noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }
  /// The rare side: a barrier on every running thread (a few microseconds). Only after
  /// asymmetric_fences() returned true; the kernel cannot refuse it after the registration.
  static void fence_heavy(order_site s) noexcept {
#if defined(__linux__) && defined(__NR_membarrier)
    if (::syscall(__NR_membarrier, membarrier_private_expedited, 0, 0) != 0) {
      std::fprintf(stderr, "pilfer: membarrier failed after registration at %s\n", s.tag);
      std::abort();
    }
#else
    (void)s;
    std::abort();  // unreachable: asymmetric_fences() is false here
#endif
  }

  /// Plain (non-atomic) shared memory. Under the model checker every access
  /// is checked for data races; here it is the bare value.
  template <class T>
  class cell {
   public:
    template <class... A>
    explicit cell(A&&... a) : v_(std::forward<A>(a)...) {}
    const T& read() const noexcept { return v_; }
    T& write() noexcept { return v_; }

   private:
    T v_;
  };

  using mutex = std::mutex;

  /// A joinable thread.
  class thread {
   public:
    thread() noexcept = default;
    template <class F>
    explicit thread(F&& f) : t_(std::forward<F>(f)) {}
    thread(thread&&) noexcept = default;
    thread& operator=(thread&&) noexcept = default;
    void join() { t_.join(); }
    bool joinable() const noexcept { return t_.joinable(); }
    std::thread& native() noexcept { return t_; }

   private:
    std::thread t_;
  };

  /// Hint inside a spin loop: "nothing to do until another thread writes".
  static void spin_hint() noexcept {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
  }
  /// Give up the CPU (bounded back-off's last resort before parking).
  static void yield() noexcept { std::this_thread::yield(); }
  /// Sleep about a millisecond: a wait that must look again without an event to wake it.
  static void nap() noexcept { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }

  /// A per-thread pseudo-random number in [0, bound). Not for cryptography.
  static std::uint64_t random(std::uint64_t bound) noexcept {
    thread_local std::uint64_t state =
        0x9E3779B97F4A7C15ull ^ reinterpret_cast<std::uintptr_t>(&state);
    // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    const std::uint64_t r = state * 0x2545F4914F6CDD1Dull;
    return bound == 0 ? r : r % bound;
  }

  /// A per-thread pointer slot, one per Key type. Components use this instead
  /// of `thread_local` so that the checker can give each modelled thread
  /// (a fiber on one OS thread) its own slot.
  template <class Key>
  static void*& thread_slot() noexcept {
    thread_local void* p = nullptr;
    return p;
  }

  /// An identifier for the calling thread (debug ownership checks).
  static std::thread::id thread_id() noexcept { return std::this_thread::get_id(); }
  using thread_id_type = std::thread::id;

  /// Tracked allocation: the checker records these to find use-after-free,
  /// double free and leaks. Here: plain new/delete.
  template <class T, class... A>
  static T* make(A&&... a) {
    return new T(std::forward<A>(a)...);
  }
  template <class T>
  static void destroy(T* p) noexcept {
    delete p;
  }
  /// Array of n default-constructed T (T's default constructor must not throw).
  template <class T>
  static T* make_array(std::size_t n) {
    return new T[n];
  }
  template <class T>
  static void destroy_array(T* p, std::size_t /*n*/) noexcept {
    delete[] p;
  }
};

/// Convenience aliases used inside components.
template <class Sync, class T>
using atomic_t = typename Sync::template atomic<T>;
template <class Sync, class T>
using cell_t = typename Sync::template cell<T>;

}  // namespace pilfer
