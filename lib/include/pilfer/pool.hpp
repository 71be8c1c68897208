// pilfer/pool.hpp — the work-stealing thread pool.
//
//   pilfer::pool p;                                  // hardware_concurrency workers
//   auto h = p.submit([] { return 6 * 7; });         // task_handle<int>
//   p.spawn([] { ... });                             // fire and forget
//   pilfer::join(p, [&] { a(); }, [&] { b(); });     // fork-join, helping
//   pilfer::parallel_for(p, 0, n, [&](int i) { ... });
//   int s = h.get();                                 // 42, or rethrows
//
// Design (lib/docs/pool.md, sleep protocol lib/docs/sleep.md):
//   * every worker owns a Chase-Lev deque; a task submitted from inside a
//     task of this pool goes to the current worker's deque (POOL-5), from
//     outside to the MPMC injector;
//   * worker loop: own mailbox / high-priority queue (one empty() check each)
//     -> own deque (LIFO, POOL-1) -> injector (before idling, and first every
//     `injector_interval` tasks: POOL-3, POOL-8) -> steal from victims in
//     randomised order, nearest first (FIFO end, POOL-2, POOL-13) ->
//     randomised exponential back-off (POOL-6) -> park on an event count
//     (POOL-4, POOL-7);
//   * waits inside a task (handle.wait, task_group::wait, join) run other
//     tasks until done (POOL-11).
//
// Thread safety: every member function may be called from any thread, except
// that shutdown(), wait_idle() and the destructor must not be called from a
// task of the same pool (asserted in debug builds: it would wait for itself).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pilfer/detail/event_count.hpp"
#include "pilfer/detail/pool_task.hpp"
#include "pilfer/detail/pool_worker.hpp"
#include "pilfer/sync.hpp"
#include "pilfer/topology.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace pilfer {

enum class shutdown_mode {
  drain,  ///< run every accepted task (and the tasks they spawn), then stop
  cancel  ///< discard queued tasks (handles report cancelled), then stop
};

struct pool_options {
  unsigned threads = 0;            ///< 0: one per hardware thread
  bool pin = false;                ///< pin worker i to the PU topology().place() gives it
  unsigned spin_rounds = 8;        ///< failed search rounds (with back-off) before parking
  unsigned backoff_cap = 10;       ///< back-off spins are < 2^min(round+1, cap)
  unsigned injector_interval = 61; ///< check the injector first every N tasks (fairness)
  std::string name = "pilfer";     ///< thread names "<name>-<i>", error messages
  std::function<void(std::exception_ptr)> on_uncaught{};///< default: print to stderr
  std::optional<pilfer::topology> topo{};                ///< default: topology::detect()
  /// Diagnostics hook: called by a searching worker before each back-off
  /// round with (worker, round, spins). Leave empty in production.
  std::function<void(unsigned, unsigned, std::uint64_t)> on_backoff{};
};

template <class Sync = std_sync>
class basic_pool;

/// Handle to the result of submit(). Move-only. Contract:
///   ready()/cancelled(): any thread, wait-free.
///   wait(): from a worker of the owning pool it runs other tasks until the
///           result is there (never blocks the worker); elsewhere it blocks.
///   get():  wait(), then return the value (moved out: call once), rethrow
///           the task's exception, or throw task_cancelled.
template <class R, class Sync = std_sync>
class basic_task_handle {
 public:
  basic_task_handle() noexcept = default;
  basic_task_handle(basic_task_handle&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  basic_task_handle& operator=(basic_task_handle&& o) noexcept {
    if (this != &o) {
      reset();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~basic_task_handle() { reset(); }

  bool valid() const noexcept { return s_ != nullptr; }
  bool ready() const noexcept {
    assert(s_ && "task_handle: no shared state");
    return s_->code() != state::pending;
  }
  bool cancelled() const noexcept {
    assert(s_ && "task_handle: no shared state");
    return s_->code() == state::was_cancelled;
  }
  void wait() const;
  R get();

 private:
  using state = detail::result_state<R, Sync>;
  friend class basic_pool<Sync>;
  explicit basic_task_handle(state* s) noexcept : s_(s) {}
  void reset() noexcept {
    if (s_) std::exchange(s_, nullptr)->release();
  }
  state* s_ = nullptr;
};

template <class R>
using task_handle = basic_task_handle<R, std_sync>;

template <class Sync = std_sync>
class basic_task_group;

namespace detail {
template <class Sync>
struct worker_slot_key {};
}  // namespace detail

template <class Sync>
class basic_pool {
  using worker = detail::pool_worker<Sync>;
  using task_base = detail::task_base;
  using task_op = detail::task_op;
  using counter = detail::counter;

 public:
  explicit basic_pool(pool_options opts = {})
      : opts_(std::move(opts)), sink_{opts_.name, opts_.on_uncaught}, topo_(topology::flat(1)) {
    unsigned n = opts_.threads;
    if constexpr (Sync::is_model) {
      if (n == 0) n = 2;
      topo_ = topology::flat(n);
    } else {
      const unsigned hw = hardware_threads();
      if (n == 0) n = hw;
      if (opts_.topo) {
        topo_ = *opts_.topo;
      } else {
        static const pilfer::topology machine = topology::detect(hw);  // hwloc load is ~ms: once
        topo_ = machine;
      }
    }
    if (opts_.injector_interval == 0) opts_.injector_interval = 1;
    if (opts_.backoff_cap > 30) opts_.backoff_cap = 30;
    placement_ = topo_.place(n);
    workers_.reserve(n);
    for (unsigned i = 0; i < n; ++i) workers_.push_back(std::make_unique<worker>(this, i));
    for (unsigned i = 0; i < n; ++i) workers_[i]->victims = topo_.victim_groups(placement_, i);
    unsigned started = 0;
    try {
      for (; started < n; ++started) {
        worker& w = *workers_[started];
        w.thread = typename Sync::thread([this, started] { worker_main(*workers_[started]); });
        if constexpr (!Sync::is_model) configure_thread(w);
      }
    } catch (...) {
      stopping_.store(true, PILFER_SITE("pool.S2", seq_cst));
      ec_.notify_all();
      // <= started: configure_thread() may throw (it allocates the thread
      // name) after worker `started`'s thread exists; a joinable thread left
      // behind would make ~thread call std::terminate.
      for (unsigned i = 0; i <= started && i < n; ++i)
        if (workers_[i]->thread.joinable()) workers_[i]->thread.join();
      throw;
    }
  }

  basic_pool(const basic_pool&) = delete;
  basic_pool& operator=(const basic_pool&) = delete;

  /// Drains: every accepted task runs, then the workers are joined.
  ~basic_pool() { shutdown(shutdown_mode::drain); }

  /// Number of workers.
  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()); }
  const std::string& name() const noexcept { return opts_.name; }
  const pool_options& options() const noexcept { return opts_; }
  const pilfer::topology& topology() const noexcept { return topo_; }
  /// Index into topology().pus() of worker i's home PU.
  unsigned placement(unsigned i) const { return placement_.at(i); }
  /// The CPU worker i was pinned to, or -1 (not pinned / pinning failed).
  int pinned_cpu(unsigned i) const { return workers_.at(i)->pinned_cpu; }
  /// Victim groups of worker i, nearest first (tests, diagnostics).
  const std::vector<std::vector<unsigned>>& victim_groups(unsigned i) const { return workers_.at(i)->victims; }

  /// Index of the calling worker of THIS pool, or nullopt.
  std::optional<unsigned> current_worker_index() const noexcept {
    if (worker* w = current()) return w->index;
    return std::nullopt;
  }

  /// Submit `f`; returns a handle to its result. From a task of this pool the
  /// task goes to the current worker's deque, else to the injector (or the
  /// high-priority queue / the affinity worker's mailbox).
  /// Throws pool_closed (from outside, after shutdown), std::out_of_range
  /// (bad affinity), std::bad_alloc (nothing enqueued then).
  template <class F>
  auto submit(F&& f, task_options o = {}) -> basic_task_handle<std::invoke_result_t<std::decay_t<F>&>, Sync> {
    using R = std::invoke_result_t<std::decay_t<F>&>;
    using T = detail::handle_task<std::decay_t<F>, R, Sync>;
    T* t = Sync::template make<T>(std::forward<F>(f), static_cast<void*>(this));
    try {
      enqueue(t, o);
    } catch (...) {
      Sync::destroy(t);
      throw;
    }
    return basic_task_handle<R, Sync>(t);
  }

  /// Fire and forget. An exception escaping `f` goes to options().on_uncaught.
  template <class F>
  void spawn(F&& f, task_options o = {}) {
    using T = detail::spawn_task<std::decay_t<F>, Sync>;
    T* t = Sync::template make<T>(std::forward<F>(f));
    try {
      enqueue(t, o);
    } catch (...) {
      Sync::destroy(t);
      throw;
    }
  }

  /// Block until no accepted task is pending. Not from a task of this pool.
  void wait_idle() {
    assert(!current() && "pilfer: wait_idle() from a task of the same pool would wait for itself");
    for (;;) {
      // [pool.P3] seq_cst: (1) acquire part pairs with [pool.P2]: effects of
      // finished tasks are visible after wait_idle() returns. (2) seq_cst:
      // shutdown()'s half of the Dekker pair [pool.S1]/[pool.P1] is "store
      // closed_, then load pending_"; with an acquire load the pair is plain
      // store buffering (an acquire load is not in the total order S), so
      // shutdown could read pending_ == 0 while a submitter that read
      // closed_ == false has already counted its task: the task would be
      // accepted and never run once the workers stop.
      const std::uint64_t p = pending_.load(PILFER_SITE("pool.P3", seq_cst));
      if (p == 0) return;
      pending_.wait(p, PILFER_SITE("pool.P3", seq_cst));
    }
  }

  /// Stop accepting work from outside, finish (drain) or discard (cancel)
  /// what is queued, join the workers. Idempotent; cancel may follow drain
  /// from another thread. Not from a task of this pool.
  void shutdown(shutdown_mode mode = shutdown_mode::drain) {
    assert(!current() && "pilfer: shutdown() from a task of the same pool would wait for itself");
    // [pool.S1] seq_cst: Dekker pair with [pool.P1] in enqueue(): either the
    // submitter sees closed_, or this thread sees its pending_ increment.
    // cancelling_ first: whoever sees closed_ also sees a cancel request.
    if (mode == shutdown_mode::cancel) cancelling_.store(true, PILFER_SITE("pool.S1", seq_cst));
    closed_.store(true, PILFER_SITE("pool.S1", seq_cst));
    if (mode == shutdown_mode::cancel) ec_.notify_all();
    std::lock_guard<typename Sync::mutex> g(shutdown_mu_);
    if (joined_.read()) return;
    wait_idle();
    // [pool.S2] seq_cst then notify_all: workers re-check stopping_ after
    // their prepare_wait fence, so none sleeps through it.
    stopping_.store(true, PILFER_SITE("pool.S2", seq_cst));
    ec_.notify_all();
    for (auto& w : workers_) w->thread.join();
    joined_.write() = true;
  }

  /// True once shutdown() began: submissions from outside throw pool_closed.
  bool closed() const noexcept { return closed_.load(PILFER_SITE("pool.S1", seq_cst)); }

  /// Counters, readable while running (see worker_stats).
  pool_stats stats() const {
    pool_stats s;
    for (const auto& w : workers_) {
      s.workers.push_back(w->snapshot());
      s.total += s.workers.back();
    }
    // [pool.C2] relaxed: statistics counters; nothing is published through them.
    s.injector_pushes = injector_pushes_.load(PILFER_SITE("pool.C2", relaxed));
    s.priority_pushes = priority_pushes_.load(PILFER_SITE("pool.C2", relaxed));
    s.submitted = s.total.local_pushes + s.injector_pushes + s.priority_pushes;
    s.pending = pending_.load(PILFER_SITE("pool.C2", relaxed));
    s.sleeping = ec_.waiters();
    return s;
  }

  // ---- used by join / task_group / handles (public for them; not API) ----

  /// Run tasks until pred() holds. Only on a worker of this pool.
  template <class Pred>
  void help_until(Pred&& pred) {
    worker* w = current();
    assert(w && "help_until off a worker");
    unsigned fails = 0;
    while (!pred()) {
      if (task_base* t = find_task(*w)) {
        execute(*w, t);
        fails = 0;
      } else if (++fails < 16) {
        backoff_spin(fails);
      } else {
        Sync::yield();
      }
    }
  }

  /// join(): push the second branch onto the own deque.
  void push_join_job(task_base* t) {
    worker* w = current();
    assert(w);
    w->deque.push(t);
    w->bump(counter::join_pushes);
    notify_work();
  }
  /// join(): after the first branch, get the second back or help until the
  /// thief has finished it.
  template <class Job>
  void finish_join(Job& job) {
    worker* w = current();
    while (!job.is_done()) {
      std::optional<task_base*> t = w->deque.pop();
      if (!t) {
        help_until([&] { return job.is_done(); });
        return;
      }
      w->bump(counter::local_pops);
      execute(*w, *t);  // our own job or something pushed above it
    }
  }

  const detail::uncaught_sink& sink() const noexcept { return sink_; }
  bool on_worker() const noexcept { return current() != nullptr; }

 private:
  static unsigned hardware_threads() noexcept {
#if defined(__linux__) || defined(__APPLE__)
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
#else
    return 4;
#endif
  }

  void configure_thread(worker& w) {
#if defined(__linux__)
    auto h = w.thread.native().native_handle();
    std::string nm = opts_.name + "-" + std::to_string(w.index);
    if (nm.size() > 15) nm = nm.substr(nm.size() - 15);
    ::pthread_setname_np(h, nm.c_str());
    if (opts_.pin) {
      const processing_unit& pu = topo_.pus()[placement_[w.index]];
      if (pu.os_index < CPU_SETSIZE) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(pu.os_index, &set);
        // Graceful degradation: a PU the OS does not have (synthetic
        // topology) or a restricted cpuset leaves the worker unpinned.
        if (::pthread_setaffinity_np(h, sizeof set, &set) == 0) w.pinned_cpu = static_cast<int>(pu.os_index);
      }
    }
#else
    (void)w;
#endif
  }

  worker* current() const noexcept {
    auto* w = static_cast<worker*>(Sync::template thread_slot<detail::worker_slot_key<Sync>>());
    return (w != nullptr && w->pool == this) ? w : nullptr;
  }

  void check_affinity(const task_options& o) const {
    if (o.affinity && *o.affinity >= size())
      throw std::out_of_range("pilfer pool '" + opts_.name + "': task affinity " + std::to_string(*o.affinity) +
                              " >= number of workers " + std::to_string(size()));
  }

  template <class>
  friend class basic_task_group;

  void enqueue(task_base* t, const task_options& o) {
    check_affinity(o);
    worker* w = current();
    if (w == nullptr) {
      // [pool.P1] seq_cst: Dekker pair with [pool.S1] (see shutdown()).
      pending_.fetch_add(1, PILFER_SITE("pool.P1", seq_cst));
      if (closed_.load(PILFER_SITE("pool.P1", seq_cst))) {
        finish_pending();
        throw pool_closed(opts_.name);
      }
    } else {
      // [pool.P0] relaxed: the running task is itself pending, so the count
      // cannot reach zero before this increment is ordered by its finish.
      pending_.fetch_add(1, PILFER_SITE("pool.P0", relaxed));
    }
    try {
      if (o.affinity) {
        workers_[*o.affinity]->mailbox.push(t);
        priority_pushes_.fetch_add(1, PILFER_SITE("pool.C2", relaxed));
        ec_.notify_all();  // the target must wake, whoever else does
        return;
      }
      if (o.priority == task_priority::high) {
        high_.push(t);
        priority_pushes_.fetch_add(1, PILFER_SITE("pool.C2", relaxed));
      } else if (w != nullptr) {
        w->deque.push(t);  // POOL-5: no injector, no lock
        w->bump(counter::local_pushes);
      } else {
        injector_.push(t);
        injector_pushes_.fetch_add(1, PILFER_SITE("pool.C2", relaxed));
      }
    } catch (...) {
      finish_pending();
      throw;
    }
    notify_work();
  }

  /// After a push: wake one sleeper unless a searcher will find the item.
  void notify_work() {
    detail::event_count<Sync>::fence_before_notify();  // [sleep.N1]
    // [sleep.N4] relaxed after [sleep.N1]: if a searcher's decrement
    // [sleep.S2] (followed by fence [sleep.S3]) is not visible here, that
    // fence is later in S, so the searcher's next look at the queues sees
    // our item (sleep.md, case "skip").
    if (searching_.load(PILFER_SITE("sleep.N4", relaxed)) != 0) return;
    ec_.notify_one();
  }

  void finish_pending() noexcept {
    // [pool.P2] acq_rel: release publishes the task's effects to
    // wait_idle(); acquire keeps RMW chain ordering.
    if (pending_.fetch_sub(1, PILFER_SITE("pool.P2", acq_rel)) == 1) pending_.notify_all();
  }

  void execute(worker& w, task_base* t) noexcept {
    const bool counted = t->counted;
    // [pool.S3] relaxed: cancel is best effort for tasks already taken; the
    // flag guards no data (a stale false just runs the task, which is allowed).
    if (cancelling_.load(PILFER_SITE("pool.S3", relaxed))) {
      t->fn(t, task_op::cancel, &sink_);
      w.bump(counter::tasks_cancelled);
    } else {
      t->fn(t, task_op::run, &sink_);
      w.bump(counter::tasks_run);
    }
    if (counted) finish_pending();
  }

  /// Take one task: mailbox, high priority, (every N) injector, own deque,
  /// injector, victims. Returns nullptr when one full round found nothing.
  task_base* find_task(worker& w) {
    if (!w.mailbox.empty()) {
      if (task_base* t = take(w.mailbox)) {
        w.bump(counter::priority_pops);
        return t;
      }
    }
    if (!high_.empty()) {
      if (task_base* t = take(high_)) {
        w.bump(counter::priority_pops);
        return t;
      }
    }
    if (++w.tick >= opts_.injector_interval) {  // POOL-8: the injector is never starved
      w.tick = 0;
      if (task_base* t = take(injector_)) {
        w.bump(counter::injector_pops);
        return t;
      }
    }
    if (std::optional<task_base*> t = w.deque.pop()) {
      w.bump(counter::local_pops);
      return *t;
    }
    if (task_base* t = take(injector_)) {  // POOL-3: before stealing / idling
      w.tick = 0;
      w.bump(counter::injector_pops);
      return t;
    }
    return steal(w);
  }

  static task_base* take(basic_injector<task_base*, Sync>& q) {
    for (;;) {
      steal_result<task_base*> r = q.steal();
      if (r.is_success()) return r.value;
      if (r.is_empty()) return nullptr;
      Sync::spin_hint();
    }
  }

  /// One round over all victims, nearest group first, random start within a
  /// group. Batch-steals (up to half) into the own deque.
  task_base* steal(worker& w) {
    for (unsigned attempt = 0; attempt < 4; ++attempt) {
      bool retry = false;
      for (const auto& group : w.victims) {
        const std::size_t n = group.size();
        const std::size_t start = static_cast<std::size_t>(Sync::random(n));
        for (std::size_t k = 0; k < n; ++k) {
          worker& v = *workers_[group[(start + k) % n]];
          steal_result<task_base*> r = v.stealer.steal_batch_and_pop(w.deque);
          if (r.is_success()) {
            w.bump(counter::steals);
            return r.value;
          }
          w.bump(counter::failed_steals);
          retry = retry || r.is_retry();
        }
      }
      if (!retry) break;
    }
    return nullptr;
  }

  void backoff_spin(unsigned round) noexcept {
    const unsigned e = std::min(round + 1, opts_.backoff_cap);
    const std::uint64_t spins = 1 + Sync::random(std::uint64_t{1} << e);
    for (std::uint64_t i = 0; i < spins; ++i) Sync::spin_hint();
  }

  bool has_work(const worker& w) const {
    if (!w.mailbox.empty() || !high_.empty() || !injector_.empty() || !w.deque.empty()) return true;
    for (const auto& v : workers_)
      if (v.get() != &w && !v->stealer.empty()) return true;
    return false;
  }

  void enter_searching() noexcept {
    // [sleep.S1] seq_cst: a notifier that reads this count after its
    // [sleep.N1] fence skips waking; see sleep.md.
    searching_.fetch_add(1, PILFER_SITE("sleep.S1", seq_cst));
  }

  /// Leave the searching state. Returns true when this was the last searcher.
  bool leave_searching() noexcept {
    // [sleep.S2] seq_cst + [sleep.S3] fence: pairs with [sleep.N1]/[sleep.N4].
    const bool last = searching_.fetch_sub(1, PILFER_SITE("sleep.S2", seq_cst)) == 1;
    Sync::fence(PILFER_SITE("sleep.S3", seq_cst));
    return last;
  }

  void worker_main(worker& w) {
    Sync::template thread_slot<detail::worker_slot_key<Sync>>() = &w;
    for (;;) {
      if (task_base* t = find_task(w)) {
        execute(w, t);
        continue;
      }
      // Searching: back off with randomised exponential spins between full
      // rounds (POOL-6), then park (POOL-4).
      enter_searching();
      task_base* t = nullptr;
      for (unsigned round = 0; round < opts_.spin_rounds && t == nullptr; ++round) {
        w.bump(counter::backoff_rounds);
        if constexpr (!Sync::is_model) {
          if (opts_.on_backoff) {
            const unsigned e = std::min(round + 1, opts_.backoff_cap);
            const std::uint64_t spins = 1 + Sync::random(std::uint64_t{1} << e);
            opts_.on_backoff(w.index, round, spins);
            for (std::uint64_t i = 0; i < spins; ++i) Sync::spin_hint();
          } else {
            backoff_spin(round);
          }
        } else {
          Sync::yield();
        }
        t = find_task(w);
      }
      if (t != nullptr) {
        // Found work while searching: if we were the last searcher and more
        // work is visible, hand the search on (a notifier may have skipped
        // waking anyone because we were searching).
        if (leave_searching() && has_work(w)) ec_.notify_one();
        execute(w, t);
        continue;
      }
      leave_searching();
      if (stopping_.load(PILFER_SITE("pool.S2", seq_cst))) break;
      ec_.prepare_wait(w.waiter);
      detail::event_count<Sync>::fence_after_prepare();  // [sleep.W2]
      if (has_work(w) || stopping_.load(PILFER_SITE("pool.S2", seq_cst))) {
        ec_.cancel_wait(w.waiter);
        // Hand-off, as the last searcher does above: several pushes may have
        // skipped waking anyone because of our search ([sleep.N4]), and a
        // notifier may have picked us while we re-checked (its wake-up is
        // absorbed here). We take ONE item (and may block in it): if more are
        // visible, wake a sleeper for them. Found by the model scenario
        // pool.two_items_one_searcher (sleep.md "skip").
        t = find_task(w);
        if (t != nullptr) {
          if (has_work(w)) ec_.notify_one();
          execute(w, t);
        }
        continue;
      }
      w.bump(counter::parks);
      ec_.commit_wait(w.waiter);
      w.bump(counter::wakeups);
    }
    Sync::template thread_slot<detail::worker_slot_key<Sync>>() = nullptr;
  }

  pool_options opts_;
  detail::uncaught_sink sink_;
  pilfer::topology topo_;
  std::vector<unsigned> placement_;
  std::vector<std::unique_ptr<worker>> workers_;
  basic_injector<task_base*, Sync> injector_;
  basic_injector<task_base*, Sync> high_;
  detail::event_count<Sync> ec_;
  alignas(cache_line) atomic_t<Sync, std::uint64_t> pending_{0};
  alignas(cache_line) atomic_t<Sync, std::uint32_t> searching_{0};
  alignas(cache_line) atomic_t<Sync, bool> closed_{false};
  atomic_t<Sync, bool> cancelling_{false};
  atomic_t<Sync, bool> stopping_{false};
  atomic_t<Sync, std::uint64_t> injector_pushes_{0};
  atomic_t<Sync, std::uint64_t> priority_pushes_{0};
  typename Sync::mutex shutdown_mu_;
  cell_t<Sync, bool> joined_{false};
};

using pool = basic_pool<>;

// ---------------------------------------------------------------- handles

template <class R, class Sync>
void basic_task_handle<R, Sync>::wait() const {
  assert(s_ && "task_handle::wait: no shared state");
  if (s_->code() != state::pending) return;
  auto* p = static_cast<basic_pool<Sync>*>(s_->pool);
  if (p->on_worker()) {
    p->help_until([this] { return s_->code() != state::pending; });
  } else {
    s_->block();
  }
}

template <class R, class Sync>
R basic_task_handle<R, Sync>::get() {
  wait();
  switch (s_->code()) {
    case state::has_value:
      if constexpr (std::is_void_v<R>) {
        return;
      } else {
        assert(s_->value.read().has_value() && "task_handle::get called twice");
        if (!s_->value.read().has_value())
          throw std::logic_error("pilfer: task_handle::get called twice (the value was moved out by the first call)");
        R r = std::move(*s_->value.write());
        s_->value.write().reset();  // a second get() is then detected, not a moved-from value
        return r;
      }
    case state::has_error:
      std::rethrow_exception(s_->error.read());
    default:
      throw task_cancelled{};
  }
}

// ---------------------------------------------------------------- join

/// Run `a` and `b`, potentially in parallel; return when both finished.
/// On a worker: `b` is pushed onto the own deque (a thief may take it), `a`
/// runs inline, then `b` is popped back or its thief is helped (POOL-11).
/// Elsewhere: the whole join runs as one task of `p` and the caller blocks.
/// If a branch throws, the other still completes; `a`'s exception wins.
template <class Sync, class A, class B>
void join(basic_pool<Sync>& p, A&& a, B&& b) {
  if (!p.on_worker()) {
    p.submit([&] { join(p, a, b); }).get();
    return;
  }
  detail::stack_job<std::remove_reference_t<B>, Sync> job(b);
  p.push_join_job(&job);
  std::exception_ptr ea;
  try {
    a();
  } catch (...) {
    ea = std::current_exception();
  }
  p.finish_join(job);
  if (ea) std::rethrow_exception(ea);
  if (job.error.read()) std::rethrow_exception(job.error.read());
}

// ---------------------------------------------------------------- task_group

/// A set of tasks waited for together. run() from any thread; wait() helps on
/// a worker of the pool, blocks elsewhere, and rethrows the first exception
/// (task_cancelled for cancelled tasks). The destructor waits; an exception
/// nobody collected goes to the pool's on_uncaught handler.
template <class Sync>
class basic_task_group {
 public:
  explicit basic_task_group(basic_pool<Sync>& p) noexcept : pool_(p) {}
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;
  ~basic_task_group() {
    wait_all();
    std::exception_ptr e;
    {
      std::lock_guard<typename Sync::mutex> g(mu_);
      e = std::exchange(error_.write(), nullptr);
    }
    if (e) pool_.sink().report(e);
  }

  template <class F>
  void run(F&& f, task_options o = {}) {
    using T = detail::group_task<std::decay_t<F>, basic_task_group, Sync>;
    T* t = Sync::template make<T>(std::forward<F>(f), this);
    // [pool.G1] relaxed: ordered before the task's decrement by the queue's
    // publication (push release / steal acquire).
    count_.fetch_add(1, PILFER_SITE("pool.G1", relaxed));
    try {
      pool_.enqueue(t, o);
    } catch (...) {
      Sync::destroy(t);
      complete(nullptr);
      throw;
    }
  }

  void wait() {
    wait_all();
    std::exception_ptr e;
    {
      std::lock_guard<typename Sync::mutex> g(mu_);
      e = std::exchange(error_.write(), nullptr);
    }
    if (e) std::rethrow_exception(e);
  }

 private:
  friend class basic_pool<Sync>;

  // [pool.G2] acquire: pairs with the completers' acq_rel decrement: the tasks'
  // effects are visible once the count reads 0.
  bool done() const noexcept { return count_.load(PILFER_SITE("pool.G2", acquire)) == 0; }

  void wait_all() {
    if (pool_.on_worker()) {
      pool_.help_until([this] { return done(); });
    } else {
      for (;;) {
        std::uint32_t g;
        {
          std::lock_guard<typename Sync::mutex> lk(mu_);
          if (done()) break;
          // [pool.G3] relaxed: read under mu_, which also guards every write of gen_.
          g = gen_.load(PILFER_SITE("pool.G3", relaxed));
          blocked_.write() += 1;
        }
        gen_.wait(g, PILFER_SITE("pool.G3", acquire));
        std::lock_guard<typename Sync::mutex> lk(mu_);
        blocked_.write() -= 1;
      }
    }
    // Completers decrement under mu_ and touch nothing after unlocking; this
    // lock/unlock orders our return (and the group's destruction) after the
    // last completer's unlock.
    std::lock_guard<typename Sync::mutex> lk(mu_);
  }

  template <class, class, class>
  friend struct detail::group_task;

  // Called by a finished or cancelled group_task after it freed itself.
  void complete(std::exception_ptr e) noexcept {
    std::lock_guard<typename Sync::mutex> lk(mu_);
    if (e && !error_.read()) error_.write() = e;
    // [pool.G2] release (under mu_): pairs with the acquire in done().
    if (count_.fetch_sub(1, PILFER_SITE("pool.G2", acq_rel)) == 1 && blocked_.read() != 0) {
      gen_.store(gen_.load(PILFER_SITE("pool.G3", relaxed)) + 1, PILFER_SITE("pool.G3", release));
      gen_.notify_all();
    }
  }

  basic_pool<Sync>& pool_;
  typename Sync::mutex mu_;
  atomic_t<Sync, std::uint64_t> count_{0};
  atomic_t<Sync, std::uint32_t> gen_{0};
  cell_t<Sync, std::exception_ptr> error_{};
  cell_t<Sync, unsigned> blocked_{0u};
};

using task_group = basic_task_group<>;

// ---------------------------------------------------------------- loops

namespace detail {

/// Adaptive splitting (seed 000 "automatic chunking"; Tzannes' lazy binary
/// splitting as done by Rayon): a range is halved while it is larger than
/// `grain` and the split budget lasts; the budget halves at each split and is
/// refilled to size() when a half was stolen (ran on another worker than the
/// one that split it) — thieves are hungry, so make more pieces.
template <class Sync, class I, class F>
void pfor_rec(basic_pool<Sync>& p, I b, I e, std::size_t grain, unsigned splits, unsigned origin, F& f) {
  const unsigned me = p.current_worker_index().value_or(origin);
  if (me != origin) splits = std::max(splits, p.size());
  if (static_cast<std::size_t>(e - b) > grain && splits > 0) {
    splits /= 2;
    const I mid = static_cast<I>(b + (e - b) / 2);
    join(p, [&] { pfor_rec(p, b, mid, grain, splits, me, f); },
         [&] { pfor_rec(p, mid, e, grain, splits, me, f); });
    return;
  }
  for (I i = b; i < e; ++i) f(i);
}

template <class Sync, class I, class T, class M, class R>
T preduce_rec(basic_pool<Sync>& p, I b, I e, const T& identity, std::size_t grain, unsigned splits,
              unsigned origin, M& map, R& reduce) {
  const unsigned me = p.current_worker_index().value_or(origin);
  if (me != origin) splits = std::max(splits, p.size());
  if (static_cast<std::size_t>(e - b) > grain && splits > 0) {
    splits /= 2;
    const I mid = static_cast<I>(b + (e - b) / 2);
    std::optional<T> l, r;
    join(p, [&] { l.emplace(preduce_rec(p, b, mid, identity, grain, splits, me, map, reduce)); },
         [&] { r.emplace(preduce_rec(p, mid, e, identity, grain, splits, me, map, reduce)); });
    return reduce(std::move(*l), std::move(*r));
  }
  T acc = identity;
  for (I i = b; i < e; ++i) acc = reduce(std::move(acc), map(i));
  return acc;
}

inline constexpr unsigned no_worker = ~0u;

}  // namespace detail

/// f(i) for every i in [begin, end) (empty if begin >= end), in parallel.
/// grain: largest piece not split further (0 = automatic: adaptive).
/// Exceptions: the first one (in join order) propagates; the rest of the
/// range may or may not have run.
template <class Sync, class I, class F>
  requires std::is_integral_v<I>
void parallel_for(basic_pool<Sync>& p, I begin, I end, F&& f, std::size_t grain = 0) {
  if (!(begin < end)) return;
  if (grain == 0) grain = 1;
  if (!p.on_worker()) {
    p.submit([&] { parallel_for(p, begin, end, f, grain); }).get();
    return;
  }
  detail::pfor_rec(p, begin, end, grain, p.size(), *p.current_worker_index(), f);
}

/// reduce(...reduce(reduce(identity, map(begin)), map(begin+1))..., map(end-1)),
/// computed in parallel; `reduce` must be associative and `identity` its
/// neutral element (the order of operands is kept, commutativity is not needed).
template <class Sync, class I, class T, class M, class R>
  requires std::is_integral_v<I>
T parallel_reduce(basic_pool<Sync>& p, I begin, I end, T identity, M&& map, R&& reduce, std::size_t grain = 0) {
  if (!(begin < end)) return identity;
  if (grain == 0) grain = 1;
  if (!p.on_worker()) {
    return p.submit([&] { return parallel_reduce(p, begin, end, identity, map, reduce, grain); }).get();
  }
  return detail::preduce_rec(p, begin, end, identity, grain, p.size(), *p.current_worker_index(), map, reduce);
}

}  // namespace pilfer
