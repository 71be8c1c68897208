// pilfer/detail/task_block_cache.hpp — where the pool's heap tasks live: a per-thread cache of task
// blocks in front of the global allocator.
//
// Every spawn, submit and task_group::run allocates one task and frees it when it is done. In a
// 1-worker fib(25) through task_group, glibc's malloc + free cost ~200 instructions per task
// (callgrind; its per-thread tcache holds 7 blocks per size, and a deep recursion frees in bursts
// larger than that). This cache costs a few loads and stores per allocation and per free.
//
// Rules:
//   * Per thread, no synchronisation: a block is freed into the cache of the thread that frees it
//     (often another worker than the one that allocated it) and reused by that thread only. Every
//     access to a task happens before its free (the pool's protocol: the free follows the last
//     touch through a release/acquire edge), so the reuse, later on the same thread, follows them
//     too — as with malloc, which is also no more than a thread reusing memory.
//   * Size classes of 64, 128 and 256 bytes (alignment <= alignof(std::max_align_t)); larger or
//     over-aligned tasks go to the global allocator. Each class keeps at most `per_class_limit`
//     blocks per thread, as two lists of `list_size` = per_class_limit / 2: the one in use and a
//     full spare. A free that finds both full hands the spare to the depot (one list, O(1), under
//     a mutex) and the full one becomes the spare; an allocation that finds its list empty takes
//     the spare, then a list from the depot, before it asks the global allocator. (Two lists, not
//     one: a thread that parked its only list would, in balanced bursts — make 2, free 2 — take
//     and park one every other operation.) Tasks made on one thread and freed on
//     another (an outside thread submitting to the workers) reuse blocks instead of paying
//     malloc on one side and a cross-thread free on the other. The mutex orders a block's last
//     use by the thread that parked it before its reuse by the thread that takes it. The depot
//     keeps at most `task_block_depot::max_bytes` (128 MiB) of blocks, all classes together; past that a free goes to the
//     global allocator.
//   * The depot's lists are given back at static destruction (a drain registered with the
//     first list parked; parking after it goes to the global allocator).
//   * A thread's blocks are given back when it exits. A free after that (a task destroyed during
//     the thread's exit, after the cache's destructor ran; on the main thread, during static
//     destruction) goes to the global allocator. The drain is registered by the thread's first
//     allocation or free through the cache, whichever comes first.
//   * Not used (plain Sync::make / Sync::destroy) by the model checker's policy (it tracks every
//     allocation), by a policy that declares `static constexpr bool task_block_cache = false;`
//     (its make/destroy must see every task), and under AddressSanitizer (which must see every
//     free to find a use after it).
//   * Allocation failure: an empty class asks the global allocator, whose std::bad_alloc
//     propagates (nothing else changed).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#include "pilfer/detail/hot_inline.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define PILFER_TASK_CACHE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PILFER_TASK_CACHE_ASAN 1
#endif
#endif
#ifndef PILFER_TASK_CACHE_ASAN
#define PILFER_TASK_CACHE_ASAN 0
#endif

namespace pilfer::detail {

/// Its destructor drains the calling thread's cache at thread exit (defined below).
struct task_block_cache_drain {
  task_block_cache_drain() noexcept = default;
  task_block_cache_drain(const task_block_cache_drain&) = delete;
  task_block_cache_drain& operator=(const task_block_cache_drain&) = delete;
  ~task_block_cache_drain();
};

/// Size classes: 64, 128 and 256 bytes.
inline constexpr std::size_t task_block_classes = 3;
inline constexpr std::size_t task_block_smallest = 64;  // class c holds blocks of task_block_smallest << c bytes
/// Blocks per list: a thread keeps two lists per class, the depot moves whole lists.
inline constexpr unsigned task_block_list_size = 128;

/// A free block: its first word links a thread's list, its second links lists in the depot.
struct task_free_block {
  task_free_block* next;
  task_free_block* next_list = nullptr;
};

/// Full free lists between threads (see the rules above). Constant-initialised and trivially
/// destructible, so it stays usable during static destruction (it is closed by then).
class task_block_depot {
 public:
  static constexpr std::size_t class_count = task_block_classes;
  /// Free blocks the depot keeps, in bytes, all classes together: a burst of tasks made on one thread
  /// and freed on others (an outside submitter; a task group's members, freed together when it is
  /// destroyed) recycles through the depot up to this many bytes of them in flight — 2M tasks of 64
  /// bytes; past it, frees go to the global allocator. It is also the most the depot may keep after
  /// the burst (32 MiB per class before: a 1M-task group recycled half its blocks, the other half went
  /// through malloc and free each round).
  static constexpr std::size_t max_bytes = std::size_t{128} << 20;
  /// Bytes in one parked list of class c.
  static constexpr std::size_t list_bytes(std::size_t c) noexcept {
    return std::size_t{task_block_list_size} * (task_block_smallest << c);
  }

  static task_block_depot& instance() noexcept {
    static constinit task_block_depot d;
    return d;
  }

  /// Park a full list of class c. False: the depot is full or closed (the caller keeps it).
  bool put(std::size_t c, task_free_block* list) noexcept;

  /// A parked list of class c, or nullptr.
  task_free_block* take(std::size_t c) noexcept {
    std::lock_guard<std::mutex> g(mu_);
    task_free_block* l = lists_[c];
    if (l != nullptr) {
      lists_[c] = l->next_list;
      bytes_ -= list_bytes(c);
    }
    return l;
  }

  /// Static destruction: give every parked block back; later puts are refused.
  void close() noexcept {
    std::lock_guard<std::mutex> g(mu_);
    closed_ = true;
    for (std::size_t c = 0; c < class_count; ++c) {
      while (task_free_block* l = lists_[c]) {
        lists_[c] = l->next_list;
        while (l != nullptr) {
          task_free_block* const next = l->next;
          ::operator delete(l);
          l = next;
        }
      }
    }
    bytes_ = 0;
  }

 private:
  constexpr task_block_depot() noexcept = default;
  std::mutex mu_;
  task_free_block* lists_[class_count] = {};
  std::size_t bytes_ = 0;  // in the parked lists, all classes
  bool closed_ = false;
};
static_assert(std::is_trivially_destructible_v<task_block_depot>);

/// Its destructor closes the depot at static destruction (registered by the first list parked).
struct task_block_depot_drain {
  task_block_depot_drain() noexcept = default;
  task_block_depot_drain(const task_block_depot_drain&) = delete;
  task_block_depot_drain& operator=(const task_block_depot_drain&) = delete;
  ~task_block_depot_drain() { task_block_depot::instance().close(); }
};

inline bool task_block_depot::put(std::size_t c, task_free_block* list) noexcept {
  static task_block_depot_drain drain;  // constructed at the first list parked
  (void)drain;
  std::lock_guard<std::mutex> g(mu_);
  if (closed_ || bytes_ + list_bytes(c) > max_bytes) return false;
  list->next_list = lists_[c];
  lists_[c] = list;
  bytes_ += list_bytes(c);
  return true;
}

/// The calling thread's free lists. Trivially destructible, so it stays usable while the
/// thread's other thread_local objects are destroyed (see task_block_cache_drain).
class task_block_cache {
 public:
  static constexpr std::size_t class_count = task_block_classes;
  static constexpr std::size_t smallest = task_block_smallest;
  static constexpr unsigned list_size = task_block_list_size;  // blocks per list in the depot
  static constexpr unsigned per_class_limit = 2 * list_size;

  /// The class for `size` bytes (size <= largest()).
  static constexpr std::size_t class_of(std::size_t size) noexcept {
    return size <= smallest ? 0 : size <= 2 * smallest ? 1 : 2;
  }
  static constexpr std::size_t largest() noexcept { return smallest << (class_count - 1); }
  static constexpr std::size_t block_size(std::size_t c) noexcept { return smallest << c; }

  /// A block of class c: the cache's newest, or the global allocator's (may throw std::bad_alloc).
  PILFER_HOT_INLINE static void* allocate(std::size_t c) {
    task_block_cache& k = mine();
    if (free_block* b = k.head_[c]) {
      k.head_[c] = b->next;
      --k.count_[c];
      return b;
    }
    return allocate_new(k, c);
  }

  /// Give back a block of class c (from any thread's allocate()).
  PILFER_HOT_INLINE static void deallocate(void* p, std::size_t c) noexcept {
    task_block_cache& k = mine();
    if (k.count_[c] < k.limit_) {
      k.head_[c] = ::new (p) free_block{k.head_[c], nullptr};
      ++k.count_[c];
      return;
    }
    overflow(k, p, c);
  }

  /// Blocks the calling thread holds in class c (tests, diagnostics).
  static unsigned cached(std::size_t c) noexcept {
    const task_block_cache& k = mine();
    return k.count_[c] + (k.spare_[c] != nullptr ? list_size : 0);
  }

 private:
  using free_block = task_free_block;
  friend struct task_block_cache_drain;

  static task_block_cache& mine() noexcept {
    static thread_local constinit task_block_cache k;
    return k;
  }

  /// An empty class: a block from the global allocator. The thread's first allocation also
  /// registers the drain, so a thread that makes tasks has its drain registered before its
  /// thread_local objects are destroyed (for the main thread: before static destruction, which
  /// may free tasks the thread made).
  PILFER_NOINLINE static void* allocate_new(task_block_cache& k, std::size_t c) {
    k.register_drain();
    // A full list becomes the one in use: the spare, else one from the depot. After the depot
    // was found empty, the next per_class_limit allocations of the class skip it (a thread that
    // only makes tasks, the depot dry, would otherwise take its mutex per block).
    free_block* l = std::exchange(k.spare_[c], nullptr);
    if (l == nullptr && k.limit_ == list_size) {
      if (k.depot_skip_[c] > 0) {
        --k.depot_skip_[c];
      } else if ((l = task_block_depot::instance().take(c)) == nullptr) {
        k.depot_skip_[c] = per_class_limit;
      }
    }
    if (l == nullptr) return ::operator new(block_size(c));
    k.head_[c] = l->next;  // this block and the rest of the list
    k.count_[c] = list_size - 1;
    return l;
  }

  /// Past the limit, and the first free on a thread that has made no task: the limit starts at
  /// 0 so that such a free lands here and registers the drain that gives the blocks back at
  /// thread exit.
  PILFER_NOINLINE static void overflow(task_block_cache& k, void* p, std::size_t c) noexcept {
    if (!k.registered_) {
      k.register_drain();
      deallocate(p, c);
      return;
    }
    // The list in use is full (not drained: the limit is list_size). A full spare goes to the
    // depot first (refused: this block goes to the global allocator); then the full list
    // becomes the spare and this block starts a new one.
    if (k.limit_ == list_size && k.count_[c] == list_size) {
      if (k.spare_[c] != nullptr) {
        if (!task_block_depot::instance().put(c, k.spare_[c])) {
          ::operator delete(p);
          return;
        }
        k.depot_skip_[c] = 0;  // the depot is not empty: ask it at this thread's next empty class
      }
      k.spare_[c] = k.head_[c];
      k.head_[c] = ::new (p) free_block{nullptr, nullptr};
      k.count_[c] = 1;
      return;
    }
    ::operator delete(p);
  }

  /// Once per thread: the drain object's destructor runs at the thread's exit and sets the limit
  /// to 0 (frees after it go to the global allocator). Registered after the thread's
  /// thread_local objects were destroyed (a thread whose first task operation comes during its
  /// own exit), the drain never runs: that thread's cache keeps what it is given, at most
  /// per_class_limit blocks per class.
  void register_drain() noexcept {
    if (registered_) return;
    registered_ = true;
    static thread_local task_block_cache_drain drain;  // constructed here, destroyed at thread exit
    (void)drain;
    limit_ = list_size;
  }

  /// Back to the global allocator (thread exit).
  void drain() noexcept {
    limit_ = 0;  // frees after the drain go to the global allocator
    for (std::size_t c = 0; c < class_count; ++c) {
      for (free_block** list : {&head_[c], &spare_[c]}) {
        while (free_block* b = *list) {
          *list = b->next;
          ::operator delete(b);
        }
      }
      count_[c] = 0;
    }
  }

  free_block* head_[class_count] = {};   // the list in use
  unsigned count_[class_count] = {};     // its length (<= list_size)
  free_block* spare_[class_count] = {};  // a full list (list_size blocks), or nullptr
  unsigned depot_skip_[class_count] = {};  // allocations left before the depot is asked again
  unsigned limit_ = 0;      // list_size once the drain is registered; 0 after it ran
  bool registered_ = false;  // the drain is registered (it may have run already)
};

inline task_block_cache_drain::~task_block_cache_drain() { task_block_cache::mine().drain(); }

/// Make and destroy the pool's heap tasks: through the cache, or through the policy (see above).
template <class Sync>
struct task_memory {
  template <class T>
  static constexpr bool cached() noexcept {
    if constexpr (Sync::is_model || PILFER_TASK_CACHE_ASAN) {
      return false;
    } else if constexpr (requires { Sync::task_block_cache; }) {
      if constexpr (!Sync::task_block_cache) return false;
    }
    return sizeof(T) <= task_block_cache::largest() && alignof(T) <= alignof(std::max_align_t);
  }

  template <class T, class... A>
  static T* make(A&&... a) {
    if constexpr (cached<T>()) {
      constexpr std::size_t c = task_block_cache::class_of(sizeof(T));
      void* p = task_block_cache::allocate(c);
      try {
        return ::new (p) T(std::forward<A>(a)...);
      } catch (...) {
        task_block_cache::deallocate(p, c);
        throw;
      }
    } else {
      return Sync::template make<T>(std::forward<A>(a)...);
    }
  }

  template <class T>
  static void destroy(T* t) noexcept {
    if constexpr (cached<T>()) {
      t->~T();
      task_block_cache::deallocate(t, task_block_cache::class_of(sizeof(T)));
    } else {
      Sync::destroy(t);
    }
  }
};

}  // namespace pilfer::detail
