// pilfer/pool.hpp — the work-stealing thread pool.
//
//   pilfer::pool p;                                  // default_thread_count() workers
//   auto h = p.submit([] { return 6 * 7; });         // task_handle<int>
//   p.spawn([] { ... });                             // fire and forget
//   pilfer::join(p, [&] { a(); }, [&] { b(); });     // fork-join
//   pilfer::parallel_for(p, 0, n, [&](int i) { ... });
//   int s = h.get();                                 // 42, or rethrows
//
// This header is the umbrella: it defines basic_pool and includes
//   pilfer/pool_options.hpp  pool_options, task_options, shutdown_mode, errors
//   pilfer/pool_stats.hpp    worker_stats, pool_stats, worker_state, worker_snapshot
//   pilfer/task_handle.hpp   basic_task_handle (submit's result)
//   pilfer/task_group.hpp    basic_task_group
//   pilfer/parallel.hpp      join, parallel_for, parallel_reduce
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
//     (POOL-4, POOL-7). A woken worker counts as a searcher; the last
//     searcher to find work wakes the next (POOL-18, sleep.md);
//   * waits inside a task (handle.wait, task_group::wait, join) run only what
//     they wait for: the awaited task itself if it has not started (claimed,
//     or popped from the own deque), or a join branch / group task that
//     descends from it; otherwise they block while a spare thread keeps the
//     pool's parallelism (POOL-11, POOL-19, POOL-20).
//
// Thread safety: every member function may be called from any thread, except
// that shutdown(), wait_idle() and the destructor must not be called from a
// task of the same pool (asserted in debug builds: it would wait for itself).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

#include "pilfer/detail/backoff.hpp"
#include "pilfer/detail/event_count.hpp"
#include "pilfer/detail/hot_inline.hpp"
#include "pilfer/detail/pool_task.hpp"
#include "pilfer/detail/pool_worker.hpp"
#include "pilfer/pool_options.hpp"
#include "pilfer/pool_stats.hpp"
#include "pilfer/sync.hpp"
#include "pilfer/topology.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace pilfer {

template <class R, class Sync>
class basic_task_handle;

namespace detail {

template <class Sync>
struct worker_slot_key {};

/// The one internal interface of basic_pool, used by task_handle.hpp,
/// task_group.hpp and parallel.hpp (defined after basic_pool).
template <class Sync>
struct pool_access;

/// Compile-time mutation hook for the model checker's sensitivity table
/// (models/scenarios/pool_sensitivity.cpp): a Sync policy may declare
/// `static constexpr pilfer::detail::pool_mutation pool_mutation = ...;` to
/// compile the pool with an old, known-wrong behaviour. std_sync declares
/// none, so it is `none` and every `if constexpr` on it folds away.
enum class pool_mutation : unsigned char {
  none,
  old_sleep_protocol,  ///< a woken worker is not counted as searching (issue 8 point 1)
  old_helping,         ///< waits run any task until done (issue 8 points 2, 3)
  silent_requeue,      ///< items a thread moves into its own deque (batch steal, put back) are not announced
  uncounted_error_read,  ///< a task group wait reads the kept error after counting itself out (task_group.hpp, invariant W)
  wait_on_live_count,    ///< a task group wait ends when the live count is 0, not when the tasks counted when it began are done
  forget_before_count,   ///< task group run() forgets a collected exception before it counts its task, not in the same step
  no_spare_on_demand,    ///< a blocked wait gets a spare only if work is queued when it blocks, not when work comes later
  plain_park_fence,      ///< a worker about to park issues a seq_cst fence, not the heavy barrier its light pushers pair with
  unfenced_claim,        ///< a task group wait claims a member without the heavy barrier its light dequeuers pair with
  unwoken_claimer,       ///< task group run() does not wake a wait asleep on a worker that could claim the new member
  unflushed_completion,  ///< a worker goes idle holding deferred task group completions (invariant D)
  nested_deferral,       ///< a task run inside another task (a nested wait's pop) defers its group completion too (invariant D)
  unscoped_creator,      ///< a group's tasks are linked to the task that made it wherever the group lives (invariant P)
  unsplit_leaves         ///< a parallel loop's running piece never splits what it has left for an idle worker (POOL-16)
};

template <class Sync>
consteval pool_mutation pool_mutation_of() {
  if constexpr (requires { Sync::pool_mutation; }) {
    return Sync::pool_mutation;
  } else {
    return pool_mutation::none;
  }
}

}  // namespace detail

template <class Sync = std_sync>
class basic_pool {
  using worker = detail::pool_worker<Sync>;
  using task_base = detail::task_base;
  using task_op = detail::task_op;
  using counter = detail::counter;
  static constexpr detail::pool_mutation mutation = detail::pool_mutation_of<Sync>();
  friend struct detail::pool_access<Sync>;

 public:
  explicit basic_pool(pool_options opts = {})
      : opts_(std::move(opts)), sink_{opts_.name, opts_.on_uncaught}, topo_(topology::flat(1)) {
    unsigned n = opts_.threads;
    if constexpr (Sync::is_model) {
      if (n == 0) n = 2;
      topo_ = topology::flat(n);
      opts_.max_spare_workers = 0;  // the checker runs a fixed set of threads
    } else {
      if (n == 0) n = default_thread_count();
      if (opts_.topo) {
        topo_ = *opts_.topo;
      } else {
        static const pilfer::topology machine = topology::detect(hardware_threads());  // hwloc load is ~ms: once
        topo_ = machine;
      }
    }
    if (opts_.injector_interval == 0) opts_.injector_interval = 1;
    if (opts_.backoff_cap > 30) opts_.backoff_cap = 30;
    // Decided once, before any worker starts, and never changed: both sides of every asymmetric
    // pair must agree (sleep.md, "Asymmetric fences").
    // The mutants of the searcher protocol (old_sleep_protocol, silent_requeue) run it symmetric:
    // with asymmetric fences a local push never relies on a searcher, which would hide their fault
    // from tests that spawn inside tasks; they stand for a system without membarrier.
    constexpr bool searcher_mutant =
        mutation == detail::pool_mutation::old_sleep_protocol || mutation == detail::pool_mutation::silent_requeue;
    asym_ = !searcher_mutant && opts_.asymmetric_fences && Sync::asymmetric_fences();
    n_ = n;
    capacity_ = n + static_cast<unsigned>(std::min<std::size_t>(opts_.max_spare_workers, 1u << 16));
    slots_.reset(new atomic_t<Sync, worker*>[capacity_]);
    placement_ = topo_.place(n);
    owned_.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      owned_.push_back(std::make_unique<worker>(this, i, false, worker_deque_fences()));
      // [pool.W1] relaxed: published by the release store of created_ below.
      slots_[i].store(owned_.back().get(), PILFER_SITE("pool.W1", relaxed));
    }
    // [pool.W1] release: a thread that reads created_ = k sees slots 0..k-1.
    created_.store(n, PILFER_SITE("pool.W1", release));
    for (unsigned i = 0; i < n; ++i) owned_[i]->victims = topo_.victim_groups(placement_, i);
    unsigned started = 0;
    try {
      for (; started < n; ++started) {
        worker& w = *owned_[started];
        w.thread = typename Sync::thread([this, &w] { worker_main(w, false); });
        if constexpr (!Sync::is_model) configure_thread(w);
      }
    } catch (...) {
      stopping_.store(true, PILFER_SITE("pool.S2", seq_cst));
      ec_.notify_all([this] { on_wake(); });
      // <= started: configure_thread() may throw (it allocates the thread
      // name) after worker `started`'s thread exists; a joinable thread left
      // behind would make ~thread call std::terminate.
      for (unsigned i = 0; i <= started && i < n; ++i)
        if (owned_[i]->thread.joinable()) owned_[i]->thread.join();
      throw;
    }
  }

  basic_pool(const basic_pool&) = delete;
  basic_pool& operator=(const basic_pool&) = delete;

  /// Drains: every accepted task runs, then the workers are joined.
  ~basic_pool() { shutdown(shutdown_mode::drain); }

  /// Number of workers (spares not included).
  unsigned size() const noexcept { return n_; }
  const std::string& name() const noexcept { return opts_.name; }
  const pool_options& options() const noexcept { return opts_; }
  const pilfer::topology& topology() const noexcept { return topo_; }
  /// Index into topology().pus() of worker i's home PU.
  unsigned placement(unsigned i) const { return placement_.at(i); }
  /// The CPU worker i was pinned to, or -1 (not pinned / pinning failed).
  int pinned_cpu(unsigned i) const { return at_checked(i).pinned_cpu; }
  /// Victim groups of worker i, nearest first (tests, diagnostics).
  const std::vector<std::vector<unsigned>>& victim_groups(unsigned i) const { return at_checked(i).victims; }

  /// Index of the calling worker of THIS pool (spares: size() and up), or nullopt.
  std::optional<unsigned> current_worker_index() const noexcept {
    if (worker* w = current()) return w->index;
    return std::nullopt;
  }

  /// Submit `f`; returns a handle to its result. From a task of this pool the
  /// task goes to the current worker's deque, else to the injector (or the
  /// high-priority queue / the affinity worker's mailbox).
  /// Throws pool_closed (from outside, after shutdown), std::out_of_range
  /// (bad affinity), std::bad_alloc (nothing enqueued then).
  /// Dropping the handle does not cancel the task: it still runs, so whatever
  /// it captured by reference must outlive it (use spawn() for fire and
  /// forget); an exception it throws then goes to on_uncaught (POOL-21).
  template <class F>
  [[nodiscard]] auto submit(F&& f, task_options o = {})
      -> basic_task_handle<std::invoke_result_t<std::decay_t<F>&>, Sync> {
    using R = std::invoke_result_t<std::decay_t<F>&>;
    using T = detail::handle_task<std::decay_t<F>, R, Sync>;
    T* t = detail::task_memory<Sync>::template make<T>(std::forward<F>(f), this);
    if (o.affinity) t->affinity = *o.affinity;
    try {
      enqueue(t, o);
    } catch (...) {
      detail::task_memory<Sync>::destroy(t);
      throw;
    }
    return basic_task_handle<R, Sync>(t);
  }

  /// Fire and forget. An exception escaping `f` goes to options().on_uncaught.
  template <class F>
  void spawn(F&& f, task_options o = {}) {
    using T = detail::spawn_task<std::decay_t<F>, Sync>;
    T* t = detail::task_memory<Sync>::template make<T>(std::forward<F>(f));
    try {
      enqueue(t, o);
    } catch (...) {
      detail::task_memory<Sync>::destroy(t);
      throw;
    }
  }

  /// Block until no accepted task is pending. Not from a task of this pool.
  void wait_idle() {
    assert(!current() && "pilfer: wait_idle() from a task of the same pool would wait for itself");
    // [pool.P4] seq_cst: Dekker pair with a worker's "store finished [P2]; fence [P5]; load
    // idle_waiters_": either that worker sees this waiter and bumps idle_epoch_, or the loads of
    // pending_count() below (seq_cst, after this RMW in S) see its finished count.
    idle_waiters_.fetch_add(1, PILFER_SITE("pool.P4", seq_cst));
    for (;;) {
      // [pool.P6] acquire: pairs with note_idle()'s release bump, so a bump read here comes with the
      // finished count stored before it (else the recount is stale and the wait below sleeps on the
      // new epoch for good); a bump after this load ends the wait.
      const std::uint32_t e = idle_epoch_.load(PILFER_SITE("pool.P6", acquire));
      if (pending_count() == 0) break;
      idle_epoch_.wait(e, PILFER_SITE("pool.P6", acquire));
    }
    // [pool.P4] relaxed: a stale non-zero only costs a worker one spurious bump.
    idle_waiters_.fetch_sub(1, PILFER_SITE("pool.P4", relaxed));
  }

  /// Stop accepting work from outside, finish (drain) or discard (cancel)
  /// what is queued, join the workers (and spares). Idempotent; cancel may
  /// follow drain from another thread. Not from a task of this pool.
  void shutdown(shutdown_mode mode = shutdown_mode::drain) {
    assert(!current() && "pilfer: shutdown() from a task of the same pool would wait for itself");
    // [pool.S1] seq_cst: Dekker pair with [pool.P1] in enqueue(): either the
    // submitter sees closed_, or this thread sees its outside_accepted_ increment.
    // cancelling_ first: whoever sees closed_ also sees a cancel request.
    if (mode == shutdown_mode::cancel) cancelling_.store(true, PILFER_SITE("pool.S1", seq_cst));
    closed_.store(true, PILFER_SITE("pool.S1", seq_cst));
    if (mode == shutdown_mode::cancel) ec_.notify_all([this] { on_wake(); });
    std::lock_guard<typename Sync::mutex> g(shutdown_mu_);
    if (joined_.read()) return;
    wait_idle();
    // [pool.S2] seq_cst then notify_all: workers re-check stopping_ after
    // their prepare_wait fence, so none sleeps through it.
    stopping_.store(true, PILFER_SITE("pool.S2", seq_cst));
    ec_.notify_all([this] { on_wake(); });
    std::vector<worker*> all;
    {
      std::lock_guard<typename Sync::mutex> s(spare_mu_);
      // Retired spares: a spare retiring after this block sees stopping_
      // under the same mutex and exits instead.
      for (worker* w : idle_spares_.write()) {
        w->spare_signal.store(2, PILFER_SITE("pool.W3", release));
        w->spare_signal.notify_one();
      }
      idle_spares_.write().clear();
      for (auto& w : owned_) all.push_back(w.get());
    }
    // (a spare whose thread could not be started keeps its slot, with no thread to join)
    for (worker* w : all)
      if (w->thread.joinable()) w->thread.join();
    joined_.write() = true;
  }

  /// True once shutdown() began: submissions from outside throw pool_closed.
  bool closed() const noexcept { return closed_.load(PILFER_SITE("pool.S1", seq_cst)); }

  /// Counters, readable while running (see worker_stats). Per-worker counters
  /// are summed here; nothing pool-wide is written per task.
  pool_stats stats() const {
    pool_stats s;
    const unsigned k = created();
    for (unsigned i = 0; i < k; ++i) {
      s.workers.push_back(at(i).snapshot());
      s.total += s.workers.back();
    }
    // [pool.C2] relaxed: statistics counters; nothing is published through them.
    s.injector_pushes = injector_pushes_.load(PILFER_SITE("pool.C2", relaxed));
    s.priority_pushes = priority_pushes_.load(PILFER_SITE("pool.C2", relaxed)) + s.total.priority_pushes;
    s.submitted = s.total.local_pushes + s.injector_pushes + s.priority_pushes;
    s.pending = pending_count();
    s.sleeping = ec_.waiters();
    s.spare_workers = k - n_;
    return s;
  }

  /// Every worker's (and spare's) state: racy, advisory, from any thread.
  std::vector<worker_snapshot> snapshot() const {
    std::vector<worker_snapshot> v;
    const unsigned k = created();
    for (unsigned i = 0; i < k; ++i) {
      const worker& w = at(i);
      v.push_back({w.index, w.get_state(), w.stealer.size() + w.mailbox.size(), w.get(counter::tasks_run)});
    }
    return v;
  }

  /// Spare threads currently alive (started to compensate for blocked waits;
  /// idle ones stay alive for reuse until shutdown).
  std::size_t spare_workers() const noexcept { return created() - n_; }

 private:
  static unsigned hardware_threads() noexcept {
#if defined(__linux__) || defined(__APPLE__)
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
#else
    return 4;
#endif
  }

  unsigned created() const noexcept { return created_.load(PILFER_SITE("pool.W1", acquire)); }
  worker& at(unsigned i) const noexcept { return *slots_[i].load(PILFER_SITE("pool.W1", relaxed)); }
  const worker& at_checked(unsigned i) const {
    if (i >= n_) throw std::out_of_range("pilfer pool '" + opts_.name + "': no worker " + std::to_string(i));
    return at(i);
  }

  /// Names the thread (the last 15 characters of "<pool name>-<index>", "-s<index>" for a spare) and pins
  /// a worker when asked. Best effort and allocation-free: a spare's thread is already running when this
  /// is called, so nothing here may fail in a way that undoes its counts.
  void configure_thread(worker& w) noexcept {
#if defined(__linux__)
    auto h = w.thread.native().native_handle();
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%s%u", w.spare ? "-s" : "-", w.index);
    const std::size_t suffix_len = std::strlen(suffix);  // at most 12 characters
    const std::string& base = opts_.name;
    const std::size_t keep = std::min(base.size(), 15 - suffix_len);
    char nm[16];
    std::memcpy(nm, base.data() + (base.size() - keep), keep);
    std::memcpy(nm + keep, suffix, suffix_len + 1);
    ::pthread_setname_np(h, nm);
    // POOL-13: at most one pinned worker per core. place() gives the first num_cores() workers one
    // core each and wraps around after that: the workers past the core count stay unpinned.
    if (opts_.pin && !w.spare && w.index < topo_.num_cores()) {
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

  void enqueue(task_base* t, const task_options& o) { place(admit(o), t, o); }

  /// enqueue()'s first half: the checks that may refuse a task (affinity,
  /// closed pool: exceptions) and its pending count. Nothing is queued yet;
  /// place() must follow. Returns the calling worker (nullptr: outside).
  /// The common case (a task of this pool spawning without affinity) is
  /// inline: a task group's run() and spawn() pay no call for it.
  PILFER_HOT_INLINE worker* admit(const task_options& o) {
    if (o.affinity) check_affinity(o);
    worker* w = current();
    if (w == nullptr) {
      admit_outside();
      return nullptr;
    }
    // No shared write (POOL-14): the running task is itself pending, and this count is ordered
    // before the push that publishes the new task (see pending_count).
    w->add_accepted(w->accepted_count() + 1);
    return w;
  }

  /// admit() from a thread outside the pool: the shared count and the closed check.
  PILFER_NOINLINE void admit_outside() {
    // [pool.P1] seq_cst: Dekker pair with [pool.S1] (see shutdown()).
    outside_accepted_.fetch_add(1, PILFER_SITE("pool.P1", seq_cst));
    if (closed_.load(PILFER_SITE("pool.P1", seq_cst))) {
      unaccept(nullptr);
      throw pool_closed(opts_.name);
    }
  }

  /// enqueue()'s second half: queue an admitted task and wake a worker. Throws
  /// only when a queue cannot grow (out of memory); the admission is undone.
  /// A worker's own push without options is inline (POOL-5: no injector, no
  /// lock); every other placement is place_elsewhere().
  PILFER_HOT_INLINE void place(worker* w, task_base* t, const task_options& o) {
    if (w == nullptr || o.affinity || o.priority == task_priority::high) {
      place_elsewhere(w, t, o);
      return;
    }
    try {
      w->deque.push(t);
    } catch (...) {
      unaccept(w);
      throw;
    }
    w->bump(counter::local_pushes);
    notify_local_push();
  }

  /// place() for a mailbox (affinity), the high-priority queue or, from outside, the injector.
  PILFER_NOINLINE void place_elsewhere(worker* w, task_base* t, const task_options& o) {
    try {
      if (o.affinity) {
        worker& target = at(*o.affinity);
        target.mailbox.push(t);
        count_priority_push(w);
        // Targeted wake: only the affinity worker may run it (POOL-15).
        detail::event_count<Sync>::fence_before_notify();  // [sleep.N1]
        ec_.notify_target(target.waiter, [this] { on_wake(); });
        return;
      }
      if (o.priority == task_priority::high) {
        high_.push(t);
        count_priority_push(w);
      } else {
        injector_.push(t);
        // [pool.C2] relaxed: statistics (outside submissions only; the
        // injector push itself already writes shared lines).
        injector_pushes_.fetch_add(1, PILFER_SITE("pool.C2", relaxed));
      }
    } catch (...) {
      unaccept(w);
      throw;
    }
    notify_work();
  }

  /// Undo the count of a task that was not queued after all (closed pool, failed push).
  void unaccept(worker* w) noexcept {
    if (w != nullptr) {
      w->add_accepted(w->accepted_count() - 1);
      return;
    }
    // [pool.P1] seq_cst: the submitter's own count; a wait_idle that read it waits one more
    // round (note_idle is not involved: the bump below wakes it).
    outside_accepted_.fetch_sub(1, PILFER_SITE("pool.P1", seq_cst));
    idle_epoch_.fetch_add(1, PILFER_SITE("pool.P6", release));
    idle_epoch_.notify_all();
  }

  /// Tasks accepted and not finished. Protocol (wait_idle, shutdown, stats): every counted task is
  /// counted once as accepted — by the worker that enqueued it (`accepted`, owner-only) or in
  /// outside_accepted_ — and once as finished, by the worker that ran it (`finished`, owner-only).
  /// Invariant: a task's accepted count happens-before its finished count (enqueue -> push
  /// (release) -> take (acquire) -> finish). The finished counts are read first (acquire), the
  /// accepted counts after, so every finish read is matched by its accept: F <= A, and F == A means
  /// every accepted task read has finished. A task accepted but not read was enqueued by a task
  /// whose finish was not read either (its finish follows the accept), or from outside after this
  /// read — so F == A is a moment with nothing pending (from outside, later submissions are
  /// concurrent with the caller). Threads created later (spares) only add finishes unread: the
  /// worker count for A is read after F's loop, so their accepts are read.
  std::uint64_t pending_count() const noexcept {
    std::uint64_t f = 0, a = 0;
    const unsigned kf = created();
    // [pool.P3] seq_cst: acquire part pairs with [pool.P2] (finished tasks' effects, and the
    // accepted counts before them, are visible); seq_cst: ordered after [pool.P4] in S.
    for (unsigned i = 0; i < kf; ++i) f += at(i).finished.load(PILFER_SITE("pool.P3", seq_cst));
    // [pool.P3] seq_cst: shutdown()'s half of the Dekker pair [pool.S1]/[pool.P1] is "store
    // closed_, then load outside_accepted_"; with an acquire load the pair is store buffering and
    // a task counted by a submitter that read closed_ == false could be missed, accepted after
    // shutdown saw nothing pending, and never run.
    a = outside_accepted_.load(PILFER_SITE("pool.P3", seq_cst));
    const unsigned ka = created();
    for (unsigned i = 0; i < ka; ++i) a += at(i).accepted_count();
    return a > f ? a - f : 0;
  }

  /// On the way to idle (nothing found, about to park or retire): wake wait_idle() callers, which
  /// recount. See wait_idle() for the Dekker pair.
  void note_idle() noexcept {
    Sync::fence(PILFER_SITE("pool.P5", seq_cst));
    // [pool.P4] relaxed after the [pool.P5] fence (see wait_idle).
    if (idle_waiters_.load(PILFER_SITE("pool.P4", relaxed)) == 0) return;
    idle_epoch_.fetch_add(1, PILFER_SITE("pool.P6", release));
    idle_epoch_.notify_all();
  }

  void count_priority_push(worker* w) noexcept {
    if (w != nullptr)
      w->bump(counter::priority_pushes);
    else
      priority_pushes_.fetch_add(1, PILFER_SITE("pool.C2", relaxed));
  }

  /// A worker the pool wakes or starts is counted as a searcher on its
  /// behalf, before it is signalled (sleep.md, invariant W).
  void on_wake() noexcept {
    if constexpr (mutation != detail::pool_mutation::old_sleep_protocol) {
      // [sleep.S1] seq_cst: a notifier that reads this count after its
      // [sleep.N1] fence skips waking; see sleep.md.
      searching_.fetch_add(1, PILFER_SITE("sleep.S1", seq_cst));
    }
  }

  /// Wake one parked worker (counted as searching); if none is parked and a blocked wait owes a
  /// spare (invariant C, begin_blocking), activate that spare instead. Returns whether a thread was
  /// woken or activated. Every caller issued a seq_cst fence after its push ([sleep.N1], or
  /// [sleep.S3] before the hand-on's look), the notifier's half of the pair with [pool.W4].
  PILFER_HOT_INLINE bool wake_one() {
    if (ec_.notify_one([this] { on_wake(); })) return true;
    if constexpr (Sync::is_model || mutation == detail::pool_mutation::no_spare_on_demand) {
      return false;  // (the model runs no spares)
    } else {
      // [pool.W2] relaxed, after the caller's fence: see invariant C.
      if (blocked_hint_.load(PILFER_SITE("pool.W2", relaxed)) <= spares_active_hint_.load(PILFER_SITE("pool.W2", relaxed)))
        return false;
      return activate_owed_spare();
    }
  }

  /// After a push: wake one sleeper unless a searcher will find the item.
  PILFER_HOT_INLINE void notify_work() {
    detail::event_count<Sync>::fence_before_notify();  // [sleep.N1]
    // [sleep.N4] relaxed after [sleep.N1]: if a searcher's decrement
    // [sleep.S2] (followed by fence [sleep.S3]) is not visible here, that
    // fence is later in S, so the searcher's next look at the queues sees
    // our item (sleep.md, case "skip").
    if (searching_.load(PILFER_SITE("sleep.N4", relaxed)) != 0) return;
    wake_one();
  }

  /// After a worker's push onto its own deque (spawn, join, a group's run() in a task): the light
  /// half of the asymmetric pair [sleep.N1L] / [sleep.W2], [pool.W4] (sleep.md, "Asymmetric
  /// fences"). Wakes a parked worker whenever one is parked, searchers or not: the searchers'
  /// [sleep.S3] is an ordinary fence, which a compiler barrier does not pair with, so a light push
  /// may not count on a searcher seeing it.
  PILFER_HOT_INLINE void notify_local_push() {
    if (!asym_) return notify_work();
    // [sleep.N1L] light (compiler-only): every worker about to park pays [sleep.W2] heavy, which
    // acts as a seq_cst fence here. Either its re-check sees our push, or our loads in wake_one
    // ([sleep.N2], [pool.W2]) see its waiters_ count / the blocked count [pool.W4] published.
    Sync::fence_light(PILFER_SITE("sleep.N1L", seq_cst));
    wake_one();
  }

  /// The parking side of the asymmetric pair: heavy when the pool uses asymmetric fences.
  void fence_before_recheck(order_site s) noexcept {
    if (asym_ && mutation != detail::pool_mutation::plain_park_fence)
      Sync::fence_heavy(s);
    else
      Sync::fence(s);
  }

  /// After items went back into a queue they had left (a batch steal's rest,
  /// a pop put back): a thread that looked while they were out of every
  /// queue saw nothing and may have parked, and no push announced them, so
  /// announce them like a push (sleep.md, "moved items").
  void announce_requeued() {
    if constexpr (mutation != detail::pool_mutation::silent_requeue) notify_work();
  }

  /// Run (or cancel) a taken task and count it. Inline: the worker loop and the group wait's own
  /// pops call it once per task (detail/hot_inline.hpp).
  PILFER_HOT_INLINE void execute(worker& w, task_base* t) noexcept {
    const bool counted = t->counted;
    task_base* const outer = w.current;
    const void* const outer_frame = w.current_frame;
    w.current = t;
    w.current_frame = __builtin_frame_address(0);
    w.set_state(worker_state::running);
    // [pool.S3] relaxed: cancel is best effort for tasks already taken; the
    // flag guards no data (a stale false just runs the task, which is allowed).
    const bool cancel = cancelling_.load(PILFER_SITE("pool.S3", relaxed));
    if (!counted) {
      // A join branch: its joiner may return (and its task finish, ending
      // wait_idle) as soon as the branch is done, so count it first: the
      // statistics are consistent at quiescence (POOL-14).
      w.bump(cancel ? counter::tasks_cancelled : counter::tasks_run);
      t->fn(t, cancel ? task_op::cancel : task_op::run, &sink_);
      w.current = outer;
      w.current_frame = outer_frame;
      return;
    }
    const bool live = t->fn(t, cancel ? task_op::cancel : task_op::run, &sink_);
    w.current = outer;
    w.current_frame = outer_frame;
    w.bump(!live ? counter::tombstones : cancel ? counter::tasks_cancelled : counter::tasks_run);
    if (w.deferred_now) {
      w.deferred_now = false;  // counted finished with its group's deferred completion (run_top)
    } else {
      w.count_finished();
    }
  }

  // Deferred group completions (protocol; no new atomics: owner-only fields of the worker).
  // A task_group task that a worker's top-level loop takes from a queue and runs (not one a
  // wait claims, not one run by a nested wait) may leave its decrement of the group's count
  // to the worker, which adds it to the next such task's when that task is of the same group:
  // one RMW on the group's line for a run of consecutive tasks instead of one each, so a
  // submitter's run() keeps that line. Invariant D: a worker holds deferred completions of at
  // most one group, and only while its top-level loop runs a task of that group or has just
  // taken one; before it runs anything else, searches, parks, retires or exits, it applies
  // them (flush_deferred: the group's decrement by n, then the pool's finished count by n).
  // Why no wait is delayed by more than that group's own task: a deferred completion of task
  // a is held while the worker runs b of the same group, and b was counted (run() counts
  // before it queues) before the worker took it, so the count is non-zero while b runs with
  // or without the deferral; the result is the execution where a's decrement came late,
  // after b's count and before b started, which the group's protocol already allows. A task
  // of the group that waits for the group is a cycle (POOL-19). Nested runs do not defer: a
  // task's nested wait may wait for a group whose completion would otherwise be held behind
  // the task that waits. pool_access::defer_completion checks `defer_for`, the task armed
  // by run_top, so nested executions and claims complete at once.
  // Without the flush before idling (pool_mutation::unflushed_completion): a worker parks
  // holding the last completion of a group and its wait never returns.
  void run_top(worker& w, task_base* t) noexcept {
    if (w.deferred_n != 0 && !continues_deferral(w, t)) flush_deferred(w);
    w.defer_for = t;
    execute(w, t);
    w.defer_for = nullptr;
  }
  bool continues_deferral(const worker& w, task_base* t) const noexcept {
    return t->kind == detail::task_kind::group &&
           static_cast<detail::group_member<Sync>*>(t)->group == w.deferred_group;
  }
  void flush_deferred(worker& w) noexcept {
    if (w.deferred_n == 0) return;
    const std::uint64_t n = w.deferred_n;
    basic_task_group<Sync>* g = w.deferred_group;
    w.deferred_n = 0;
    w.deferred_group = nullptr;
    detail::pool_access<Sync>::complete_deferred(g, n);  // may end the group's round: `g` is not touched after it
    w.count_finished(n);
  }

  /// Take one task: high priority, mailbox, (every N) injector, own deque,
  /// injector, victims. Returns nullptr when one full round found nothing.
  task_base* find_task(worker& w) {
    // High priority first, then the own mailbox (POOL-15: high before normal; an affinity task
    // of either priority waits in the mailbox, in submission order).
    if (!high_.empty()) {
      if (task_base* t = take(high_)) {
        w.bump(counter::priority_pops);
        return t;
      }
    }
    if (!w.mailbox.empty()) {
      if (task_base* t = take(w.mailbox)) {
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
  /// group, then the spares (a spare scans every other thread). Batch-steals
  /// (up to half) into the own deque.
  task_base* steal(worker& w) {
    for (unsigned attempt = 0; attempt < 4; ++attempt) {
      bool retry = false;
      for (const auto& group : w.victims) {
        const std::size_t n = group.size();
        const std::size_t start = static_cast<std::size_t>(Sync::random(n));
        for (std::size_t k = 0; k < n; ++k) {
          if (task_base* t = steal_from(w, at(group[(start + k) % n]), retry)) return t;
        }
      }
      const unsigned k = created();
      const unsigned first = w.spare ? 0u : n_;
      for (unsigned i = first; i < k; ++i) {
        if (i == w.index) continue;
        if (task_base* t = steal_from(w, at(i), retry)) return t;
      }
      if (!retry) break;
    }
    return nullptr;
  }

  task_base* steal_from(worker& w, worker& v, bool& retry) {
    steal_result<task_base*> r = v.stealer.steal_batch_and_pop(w.deque);
    if (r.is_success()) {
      w.bump(counter::steals);
      // The rest of the batch was invisible while in flight: a thread that
      // looked at both deques then may have parked (sleep.md, "moved items").
      if (!w.deque.empty()) announce_requeued();
      return r.value;
    }
    w.bump(counter::failed_steals);
    retry = retry || r.is_retry();
    return nullptr;
  }

  void backoff_spin(unsigned round) noexcept {
    const unsigned e = std::min(round + 1, opts_.backoff_cap);
    const std::uint64_t spins = 1 + Sync::random(std::uint64_t{1} << e);
    for (std::uint64_t i = 0; i < spins; ++i) Sync::spin_hint();
  }

  /// Some worker is parked (has_idle_worker). A heuristic: the count is read relaxed [sleep.G1].
  bool has_parked_worker() const noexcept { return ec_.waiters() != 0; }

  /// Some worker has nothing to run: it is searching or parked. parallel_for's leaves read this
  /// between chunks and split what is left when it holds (detail::pfor_rec). A heuristic: both
  /// counts are read relaxed [sleep.G1], [sleep.G2]; a stale answer costs one split too many or
  /// one chunk's delay, never a task.
  bool has_idle_worker() const noexcept {
    return searching_.load(PILFER_SITE("sleep.G2", relaxed)) != 0 || has_parked_worker();
  }

  bool has_work(const worker& w) const {
    if (!w.mailbox.empty() || !high_.empty() || !injector_.empty() || !w.deque.empty()) return true;
    const unsigned k = created();
    for (unsigned i = 0; i < k; ++i)
      if (i != w.index && !at(i).stealer.empty()) return true;
    return false;
  }

  void enter_searching() noexcept {
    // [sleep.S1] seq_cst: see on_wake().
    searching_.fetch_add(1, PILFER_SITE("sleep.S1", seq_cst));
  }

  /// Leave the searching state. Returns true when this was the last searcher.
  bool leave_searching() noexcept {
    // [sleep.S2] seq_cst + [sleep.S3] fence: pairs with [sleep.N1]/[sleep.N4].
    const bool last = searching_.fetch_sub(1, PILFER_SITE("sleep.S2", seq_cst)) == 1;
    Sync::fence(PILFER_SITE("sleep.S3", seq_cst));
    return last;
  }

  /// Searching: randomised exponential back-off between full rounds (POOL-6).
  task_base* search(worker& w) {
    for (unsigned round = 0; round < opts_.spin_rounds; ++round) {
      w.bump(counter::backoff_rounds);
      w.set_state(worker_state::backing_off);
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
        // (under the checker the hook still runs, so a scenario can hold a searcher here)
        if (opts_.on_backoff) opts_.on_backoff(w.index, round, 1);
        Sync::yield();
      }
      w.set_state(worker_state::searching);
      if (task_base* t = find_task(w)) return t;
    }
    return nullptr;
  }

  /// The worker loop. `searching`: this thread was started as a counted
  /// searcher (a spare). Invariant W (sleep.md): while an item is queued and
  /// a worker is parked, some worker is counted in searching_ and will look
  /// at every queue after the item's push.
  void worker_main(worker& w, bool searching) {
    constexpr bool old = mutation == detail::pool_mutation::old_sleep_protocol;
    Sync::template thread_slot<detail::worker_slot_key<Sync>>() = &w;
    w.set_state(searching ? worker_state::searching : worker_state::running);
    for (;;) {
      task_base* t = find_task(w);
      if (t == nullptr) {
        if constexpr (mutation != detail::pool_mutation::unflushed_completion) flush_deferred(w);  // invariant D
        if (!searching) {
          enter_searching();
          searching = true;
        }
        t = search(w);
      }
      if (t != nullptr) {
        // The last searcher to find work hands the search on: a notifier may
        // have skipped waking anyone because we searched. The woken worker
        // is counted as a searcher (on_wake), so it hands on in turn.
        if (searching) {
          searching = false;
          if (leave_searching() && has_work(w)) wake_one();
        }
        run_top(w, t);
        if (w.spare && w.deque.empty() && surplus()) {
          flush_deferred(w);  // invariant D
          if (!retire(w)) break;
          searching = true;
        }
        continue;
      }
      searching = false;
      leave_searching();
      note_idle();
      if (stopping_.load(PILFER_SITE("pool.S2", seq_cst))) break;
      if (w.spare && surplus()) {
        // Invariant W, case "skip" (sleep.md): a notifier may have skipped its
        // wake-up because this spare was counted as a searcher. A parking
        // worker looks at the queues once more after leaving the search; a
        // retiring spare must too (after [sleep.S3]), or the item it was
        // counted for stays queued beside parked workers.
        // Work seen: search again as a counted searcher, so that finding it hands the search on
        // (the last searcher wakes the next). Taking it uncounted and retiring after it would
        // leave the rest of what the skipped notifiers pushed beside parked workers.
        if (has_work(w)) {
          enter_searching();
          searching = true;
          continue;
        }
        if (!retire(w)) break;
        searching = true;
        continue;
      }
      w.set_state(worker_state::parked);
      ec_.prepare_wait(w.waiter);
      // [sleep.W2] seq_cst, heavy with asymmetric fences: pairs with [sleep.N1] and [sleep.N1L].
      fence_before_recheck(PILFER_SITE("sleep.W2", seq_cst));
      const bool stop = stopping_.load(PILFER_SITE("pool.S2", seq_cst));
      // A spare that became surplus while it linked itself goes back and retires (see end_blocking).
      if (stop || has_work(w) || (w.spare && surplus())) {
        // Not linked any more: a notifier picked us and counted us as a
        // searcher (its wake-up is absorbed here). Still linked: count
        // ourselves. Either way we search again, as a counted searcher.
        const bool counted = !ec_.cancel_wait(w.waiter) && !old;
        if (stop) {
          if (counted) leave_searching();
          break;
        }
        if constexpr (old) {
          // The old protocol: take one item, wake one more if more is seen.
          t = find_task(w);
          if (t != nullptr) {
            if (has_work(w)) wake_one();
            execute(w, t);
          }
          continue;
        }
        if (!counted) enter_searching();
        searching = true;
        w.set_state(worker_state::searching);
        continue;
      }
      w.bump(counter::parks);
      ec_.commit_wait(w.waiter);
      w.bump(counter::wakeups);
      if (stopping_.load(PILFER_SITE("pool.S2", seq_cst))) {
        if (!old) leave_searching();
        break;
      }
      searching = !old;
      w.set_state(worker_state::searching);
    }
    w.set_state(worker_state::stopped);
    Sync::template thread_slot<detail::worker_slot_key<Sync>>() = nullptr;
  }

  // ---------------------------------------------------------------- spares
  //
  // blocked_ counts threads blocked inside a wait; spares_active_ counts
  // spare threads not retired. A blocked wait OWES a spare while
  // spares_active_ < blocked_ (up to max_spare_workers), so that `size()`
  // threads stay available to run tasks (POOL-20). A spare whose deque is
  // empty retires while spares_active_ > blocked_. All of it under
  // spare_mu_: blocking already costs a futex call.
  //
  // Invariant C (lazy compensation): while a wait owes a spare and a queue
  // holds a task, the spare is active or being activated. An owed spare is
  // activated when a thread needs it, not when the wait blocks: by the wait
  // itself if it sees queued work after counting itself ([pool.W4] fence,
  // then has_work), else by the first wake_one() that finds nobody parked
  // ([sleep.N1] fence, then the [pool.W2] hints). The two fences make a
  // store-buffering pair: either the wait sees the push, or the notifier
  // sees the wait's count. A wait at the end of a fork-join whose last
  // piece runs elsewhere, with nothing queued, so starts no thread (an eager
  // spare there ran beside both workers once the wait returned: 15-30 % of
  // a parallel_for's time on 2 cores).

  bool surplus() const noexcept {
    // [pool.W2] relaxed: a hint; retire() re-checks under spare_mu_.
    return spares_active_hint_.load(PILFER_SITE("pool.W2", relaxed)) > blocked_hint_.load(PILFER_SITE("pool.W2", relaxed));
  }

  void publish_spare_counts() noexcept {
    spares_active_hint_.store(spares_active_.read(), PILFER_SITE("pool.W2", relaxed));
    blocked_hint_.store(blocked_.read(), PILFER_SITE("pool.W2", relaxed));
  }

  /// Under spare_mu_: wake a retired spare or start a new one, counted as a
  /// searcher. False when max_spare_workers are all active, or when the system
  /// refused the new spare's thread (then *refused, if given, is set).
  bool activate_spare_locked(bool* refused = nullptr) {
    auto& idle = idle_spares_.write();
    if (!idle.empty()) {
      worker* s = idle.back();
      idle.pop_back();
      spares_active_.write() += 1;
      publish_spare_counts();
      on_wake();
      // [pool.W3] release: the spare's next look at the queues follows this.
      s->spare_signal.store(1, PILFER_SITE("pool.W3", release));
      s->spare_signal.notify_one();
      return true;
    }
    const unsigned k = created_.load(PILFER_SITE("pool.W1", relaxed));
    if (k >= capacity_) return false;
    auto owned = std::make_unique<worker>(this, k, true, worker_deque_fences());
    worker& s = *owned;
    owned_.push_back(std::move(owned));
    slots_[k].store(&s, PILFER_SITE("pool.W1", relaxed));
    created_.store(k + 1, PILFER_SITE("pool.W1", release));
    spares_active_.write() += 1;
    publish_spare_counts();
    on_wake();
    try {
      s.thread = typename Sync::thread([this, &s] { worker_main(s, !(mutation == detail::pool_mutation::old_sleep_protocol)); });
    } catch (...) {
      // No thread (resource limit): the slot stays, as a worker that never
      // runs; undo the counts.
      spares_active_.write() -= 1;
      publish_spare_counts();
      if constexpr (mutation != detail::pool_mutation::old_sleep_protocol) leave_searching();
      if (refused != nullptr) *refused = true;
      return false;
    }
    // The thread runs (and counts itself out of the search): nothing after this point may undo the counts.
    if constexpr (!Sync::is_model) configure_thread(s);
    return true;
  }

  /// A spare with nothing to do while the pool has more spares than blocked
  /// waits parks on its idle list. Returns false when the pool stops.
  bool retire(worker& w) {
    note_idle();
    {
      std::lock_guard<typename Sync::mutex> g(spare_mu_);
      if (stopping_.load(PILFER_SITE("pool.S2", seq_cst))) return false;
      if (spares_active_.read() <= blocked_.read()) {
        // Needed after all: the caller goes on as a counted searcher, as an
        // activated spare does, so its later leave_searching() has a match
        // (an unmatched one wraps searching_ and every notify skips its wake).
        if constexpr (mutation != detail::pool_mutation::old_sleep_protocol) enter_searching();
        return true;
      }
      spares_active_.write() -= 1;
      publish_spare_counts();
      w.spare_signal.store(0, PILFER_SITE("pool.W3", relaxed));
      idle_spares_.write().push_back(&w);
    }
    w.set_state(worker_state::parked);
    while (w.spare_signal.load(PILFER_SITE("pool.W3", acquire)) == 0)
      w.spare_signal.wait(0, PILFER_SITE("pool.W3", acquire));
    w.set_state(worker_state::searching);
    // 1: activated by activate_spare_locked (counted as a searcher);
    // 2: shutdown (not counted): exit.
    return w.spare_signal.load(PILFER_SITE("pool.W3", acquire)) == 1;
  }

  /// Returns whether a spare stands in for this thread (false past max_spare_workers): one is active
  /// already, or owed and activated when a thread is needed (invariant C). `eager`: activate it now and
  /// return whether that worked — for a wait that, without a stand-in, naps and looks at the injector
  /// itself instead of blocking (await<Anywhere>): a spare that fails to start later (no thread) would
  /// leave such a wait blocked beside the work it was to take.
  bool begin_blocking(worker& w, bool eager = false) {
    w.set_state(worker_state::waiting);
    w.bump(counter::blocked_waits);
    if constexpr (Sync::is_model) return false;
    hand_back_foreign_branches(w);
    bool report = false, stand_in = true, owed = false, refused = false;
    {
      std::lock_guard<typename Sync::mutex> g(spare_mu_);
      blocked_.write() += 1;
      publish_spare_counts();
      if (spares_active_.read() < blocked_.read()) {
        if (eager ? !activate_spare_locked(&refused) : !can_activate_locked(blocked_.read() - spares_active_.read())) {
          stand_in = false;
          report = first_limit_report_locked();
        } else if (!eager) {
          owed = true;
        }
      }
    }
    if (owed) {
      // [pool.W4] seq_cst fence (heavy with asymmetric fences): the wait's half of invariant C's
      // pair with [sleep.N1] / [sleep.N1L]; a push this look misses is followed by a notifier's
      // look at the count published above.
      fence_before_recheck(PILFER_SITE("pool.W4", seq_cst));
      if (has_work(w)) activate_owed_spare();
    }
    if (report) report_spare_limit(refused);
    return stand_in;
  }

  /// Under spare_mu_: whether the caller is the one to report that a wait got no spare (once per pool).
  bool first_limit_report_locked() {
    if (limit_reported_.read()) return false;
    limit_reported_.write() = true;
    return true;
  }
  /// The once-per-pool notice that waits block without a spare: all in use, or a thread refused.
  void report_spare_limit(bool thread_refused) {
    sink_.report(std::make_exception_ptr(spare_limit_reached(opts_.name, capacity_ - n_, thread_refused)));
  }

  /// Under spare_mu_: whether `n` more spares can be activated (retired ones, or new threads below
  /// max_spare_workers).
  bool can_activate_locked(unsigned n) const {
    return n <= idle_spares_.read().size() + (capacity_ - created_.load(PILFER_SITE("pool.W1", relaxed)));
  }

  /// A thread is needed and a blocked wait owes a spare: activate it (invariant C). False when no
  /// spare is owed any more, or none could be made (no memory or no thread: parallelism drops, as
  /// past the bound). A refused thread is reported once per pool, like the eager path's
  /// (spare_limit_reached, "refused a new thread"), from the thread whose push needed the spare.
  PILFER_NOINLINE bool activate_owed_spare() noexcept {
    bool report = false;
    try {
      {
        std::lock_guard<typename Sync::mutex> g(spare_mu_);
        if (spares_active_.read() >= blocked_.read()) return false;
        bool refused = false;
        if (activate_spare_locked(&refused)) return true;
        report = refused && first_limit_report_locked();
      }
      if (report) report_spare_limit(true);
    } catch (...) {
      // (no memory for the spare or for the notice: parallelism drops, as past the bound)
    }
    return false;
  }

  /// Before blocking: join branches of other joiners that a batch steal
  /// moved into our deque go back to their joiners (a joiner only looks at
  /// its own deque, its mailbox and the heads of other deques), so no join
  /// needs this blocked thread — or a spare — to reach its branch (POOL-19,
  /// POOL-20). Everything else stays, in order.
  void hand_back_foreign_branches(worker& w) {
    if (w.deque.empty()) return;
    std::vector<task_base*> keep;
    while (std::optional<task_base*> t = w.deque.pop()) {
      task_base* x = *t;
      if (x->kind == detail::task_kind::join_branch &&
          static_cast<detail::join_branch<Sync>*>(x)->joiner_signal != &w.join_signal) {
        w.bump(counter::local_pops);  // a take (POOL-14 identity: every rerouted task was taken once)
        reroute(w, x);
      } else {
        keep.push_back(x);
      }
    }
    for (auto it = keep.rbegin(); it != keep.rend(); ++it) w.deque.push(*it);
    if (!keep.empty()) announce_requeued();  // they were out of every queue meanwhile
  }

  void end_blocking(worker& w) {
    if constexpr (!Sync::is_model) {
      std::lock_guard<typename Sync::mutex> g(spare_mu_);
      blocked_.write() -= 1;
      publish_spare_counts();
      // A spare that went to sleep as a stand-in (not surplus then) is surplus
      // now: wake it so that it retires, or the pool keeps more than size()
      // threads parked beside its queues for good. A spare that links itself
      // after this looks at surplus() after linking (worker_main) and sees
      // these counts: both sides go through the event count's mutex.
      if (spares_active_.read() > blocked_.read()) {
        for (const auto& s : owned_) {
          if (s->spare) ec_.notify_target(s->waiter, [this] { on_wake(); });
        }
      }
    }
    w.set_state(worker_state::running);
  }

  // ---------------------------------------------------------------- waits

  /// Fairness inside joins and waits (POOL-8): every injector_interval join
  /// arms / waited tasks, if injector or high-priority work is queued, make
  /// sure another thread looks at it — this frame may not run it (running an
  /// unrelated task on top of a waiting frame can deadlock, POOL-19).
  PILFER_HOT_INLINE void due_check(worker& w) {
    if (++w.tick < opts_.injector_interval) return;
    hand_off_due(w);
  }

  /// due_check()'s rare half, out of line so that the per-join and per-wait tick stays a compare
  /// on the fast path.
  PILFER_NOINLINE void hand_off_due(worker& w) {
    w.tick = 0;
    if (injector_.empty() && high_.empty()) return;
    w.bump(counter::handoffs);
    detail::event_count<Sync>::fence_before_notify();  // [sleep.N1]
    if (searching_.load(PILFER_SITE("sleep.N4", relaxed)) != 0) return;
    if (wake_one()) return;
    if constexpr (!Sync::is_model) {
      std::lock_guard<typename Sync::mutex> g(spare_mu_);
      activate_spare_locked();  // a surplus spare: it takes the work and retires
    }
  }

  /// A group task a wait claimed (or that was never queued): its entry is a
  /// tombstone. Only x itself is checked: a tombstone's parent may be gone.
  static bool is_tombstone(task_base* x) noexcept {
    return x->kind == detail::task_kind::group && static_cast<detail::group_member<Sync>*>(x)->started();
  }

  /// A task this frame may not run: hand it on (exactly once is kept: we
  /// took it exclusively). A join branch goes back to its joiner, whose join
  /// waits for exactly it (POOL-19): into the joiner's mailbox, and the
  /// joiner's signal word is bumped so a blocked joiner looks there. Anything
  /// else goes to the injector (handle and group tasks stay claimable there).
  void reroute(worker& w, task_base* t) {
    w.bump(counter::rerouted);
    if (t->kind == detail::task_kind::join_branch) {
      auto* job = static_cast<detail::join_branch<Sync>*>(t);
      atomic_t<Sync, std::uint32_t>* sig = job->joiner_signal;
      const unsigned k = created();
      for (unsigned i = 0; i < k; ++i) {
        worker& j = at(i);
        if (&j.join_signal != sig) continue;
        j.mailbox.push(t);
        // [pool.J5] release: after the mailbox push; a joiner that read the
        // old value before blocking is woken by the change (futex compare).
        sig->fetch_add(1, PILFER_SITE("pool.J5", release));
        sig->notify_one();
        return;
      }
      assert(false && "pilfer: a join branch whose joiner is not a thread of this pool");
    }
    injector_.push(t);
    notify_work();
  }

  /// join(): take `job` out of the own mailbox if a wait handed it back
  /// there; other entries (affinity tasks, other joins' branches) stay.
  task_base* take_handed_back(worker& w, task_base* job) {
    task_base* found = nullptr;
    for (std::size_t n = w.mailbox.size(); n > 0; --n) {
      task_base* t = take(w.mailbox);
      if (t == nullptr) break;
      if (t == job) {
        found = t;
      } else {
        w.mailbox.push(t);
      }
    }
    // A mailbox take like find_task's (the statistics' "every entry taken once" identity).
    if (found != nullptr) w.bump(counter::priority_pops);
    return found;
  }

  /// One steal attempt per other thread (random start), for a wait.
  task_base* steal_for_wait(worker& w) {
    const unsigned k = created();
    if (k <= 1) return nullptr;
    const unsigned start = static_cast<unsigned>(Sync::random(k));
    for (unsigned j = 0; j < k; ++j) {
      const unsigned i = (start + j) % k;
      if (i == w.index) continue;
      steal_result<task_base*> r = at(i).stealer.steal();
      if (r.is_success()) {
        w.bump(counter::steals);
        return r.value;
      }
    }
    return nullptr;
  }

  /// The wait protocol (POOL-11, POOL-19, POOL-20), for a worker whose
  /// target is not done and not runnable by it directly: run tasks that
  /// descend from the target (`ours`), reroute anything else it stole, back
  /// off a few rounds, then block — with a spare keeping the parallelism.
  ///
  /// `Anywhere`: the awaited work has no claim word and may be queued anywhere (a graph run's
  /// nodes). Past the spare bound nobody else may be free to run it — every thread can be blocked
  /// in such a wait, each with the others' tasks queued where only a free thread looks (the
  /// injector, where waits hand on what they may not run) — so instead of blocking it naps, then
  /// looks at the deque heads and at the injector's first entries for its own tasks, and again
  /// (POOL-20: past the bound every wait still returns; a wake-up per nap, only in that state).
  template <bool Anywhere = false, class Done, class Ours, class Block>
  void await(worker& w, Done&& done, Ours&& ours, Block&& block) {
    if constexpr (mutation == detail::pool_mutation::old_helping) {
      // The old helping wait: run anything until done (deadlocks on acyclic
      // wait-for graphs; stack depth grows with the queue).
      while (!done()) {
        if (task_base* t = find_task(w)) {
          execute(w, t);
        } else {
          Sync::yield();
        }
      }
      return;
    } else {
      const unsigned rounds = Sync::is_model ? 1u : std::max(1u, opts_.spin_rounds);
      unsigned idle = 0;
      bool past_bound = false;  // Anywhere: no spare stood in, nobody else may run what is in the injector
      while (!done()) {
        due_check(w);
        task_base* x = steal_for_wait(w);
        // Only past the bound: a look rotates what it passes over to the injector's tail (bounded
        // per look), which a wait with a spare standing in has no reason to do.
        if (Anywhere && x == nullptr && past_bound) x = take_from_injector_if(w, ours, injector_look);
        if (x != nullptr) {
          // A group task's tombstone: executing it only drops its reference.
          if (is_tombstone(x) || detail::descends_from(x, ours)) {
            execute(w, x);
            if constexpr (Anywhere) help_own_deque(w, ours);
            idle = 0;
            continue;
          }
          reroute(w, x);
        }
        if (++idle < rounds) {
          if constexpr (Sync::is_model) {
            Sync::yield();
          } else {
            backoff_spin(idle);
          }
          continue;
        }
        const bool stand_in = begin_blocking(w, Anywhere);
        if (!Anywhere || stand_in) {
          block();
          end_blocking(w);
          return;
        }
        if constexpr (Sync::is_model) {
          Sync::yield();
        } else {
          Sync::nap();
        }
        end_blocking(w);
        past_bound = true;
        idle = 0;
      }
    }
  }

  static constexpr std::size_t injector_look = 64;

  /// await<true>: what a task this wait ran left on the own deque (a graph node's successors,
  /// the other sources of a run's start). The deque was empty when the wait began (the caller
  /// drained it, begin_blocking hands back what is left), so every entry came from this wait's
  /// own tasks: run those `ours` accepts, hand the rest on. Past the spare bound nobody else may
  /// be free to steal them, and the wait only steals and looks at the injector (POOL-20).
  template <class Ours>
  void help_own_deque(worker& w, Ours&& ours) {
    while (std::optional<task_base*> t = w.deque.pop()) {
      w.bump(counter::local_pops);
      if (is_tombstone(*t) || detail::descends_from(*t, ours)) {
        due_check(w);  // POOL-8: every waited task counts toward the hand-off interval
        execute(w, *t);
      } else {
        reroute(w, *t);
      }
    }
  }

  /// The first task among the injector's first `limit` that `ours` accepts, taken; the others looked
  /// at go back to its tail (taken and rerouted: the statistics' identity holds).
  template <class Ours>
  task_base* take_from_injector_if(worker& w, Ours&& ours, std::size_t limit) {
    task_base* found = nullptr;
    bool moved = false;
    for (std::size_t n = std::min(limit, injector_.size()); n > 0; --n) {
      task_base* t = take(injector_);
      if (t == nullptr) break;
      w.bump(counter::injector_pops);
      if (ours(t)) {
        found = t;
        break;
      }
      w.bump(counter::rerouted);
      injector_.push(t);
      moved = true;
    }
    // What was put back was out of the injector for a moment: a thread that looked meanwhile (a worker
    // about to park, a wait about to block and owe a spare) saw nothing, so announce it like a push
    // (sleep.md, "moved items"; invariant C) — once per look.
    if (moved) announce_requeued();
    return found;
  }

  /// join(): push the second branch onto the own deque.
  PILFER_HOT_INLINE void join_push(worker& w, detail::join_branch<Sync>* job) {
    w.deque.push(job);
    // Counted by join_finish: as joins_popped_back when the branch comes back, as join_pushes otherwise.
    notify_local_push();
  }

  /// join(): after the first branch, pop the second back and run it, or wait
  /// for its thief. Tasks the first branch left above it (spawned, not
  /// waited for) are not run on this frame: they go to the injector.
  ///
  /// The common case — the branch is still on top of the own deque — is kept
  /// small and inline, and runs the branch through its own type (`Job`, a
  /// detail::stack_job: a direct call the compiler can inline, not the
  /// task's function pointer); everything else is join_finish_rest(), out of
  /// line, so that the wait machinery does not weigh on every join.
  template <class Job>
  PILFER_HOT_INLINE void join_finish(worker& w, Job& job) {
    due_check(w);
    std::optional<task_base*> t = w.deque.pop();
    if (!t) {
      w.bump(counter::join_pushes);
      join_finish_rest(w, job);
      return;
    }
    if (*t != &job) {
      w.bump(counter::join_pushes);
      w.bump(counter::local_pops);
      join_finish_rest(w, job, *t);
      return;
    }
    // Popped back: nobody else can see the branch any more, so it runs without publishing `done`
    // (no RMW on join's fast path), called through its own type (inlinable). One increment counts
    // the push, the pop and the run (pool_worker.hpp, joins_popped_back).
    w.bump(counter::joins_popped_back);
    task_base* const outer = w.current;
    const void* const outer_frame = w.current_frame;
    w.current = &job;
    w.current_frame = __builtin_frame_address(0);
    job.run_popped_back();
    w.current = outer;
    w.current_frame = outer_frame;
  }

  /// join_finish_rest popped the branch back from under other entries: nobody else can see it any
  /// more, so it runs through its function pointer without publishing `done` (run_claimed). The
  /// fast path in join_finish does the same through the stack_job's own type.
  void run_popped_back(worker& w, detail::join_branch<Sync>& job) noexcept {
    task_base* const outer = w.current;
    const void* const outer_frame = w.current_frame;
    w.current = &job;
    w.current_frame = __builtin_frame_address(0);
    w.bump(counter::tasks_run);
    job.fn(&job, task_op::run_claimed, &sink_);
    w.current = outer;
    w.current_frame = outer_frame;
  }

  /// join_finish() when the own deque's top is not the branch: `above` is
  /// what was popped instead (a task the first branch left there), or
  /// nullptr (the deque is empty: the branch was stolen).
  PILFER_NOINLINE void join_finish_rest(worker& w, detail::join_branch<Sync>& job, task_base* above = nullptr) {
    if (above != nullptr) {
      if constexpr (mutation == detail::pool_mutation::old_helping) {
        execute(w, above);
        if (job.is_done()) return;
      } else {
        reroute(w, above);
      }
    }
    while (std::optional<task_base*> t = w.deque.pop()) {
      w.bump(counter::local_pops);
      if (*t == &job) {
        run_popped_back(w, job);
        return;
      }
      if constexpr (mutation == detail::pool_mutation::old_helping) {
        execute(w, *t);
        if (job.is_done()) return;
      } else {
        reroute(w, *t);
      }
    }
    // Wait for the thief. A wait that took the branch without being allowed
    // to run it hands it back to our mailbox and bumps our signal word: the
    // block below returns on either that or `done`.
    while (!job.is_done()) {
      // [pool.J5] acquire: pairs with the hand-back's bump; a bump seen here
      // makes its mailbox push visible to the scan below, a later one
      // changes the word the block compares with.
      const std::uint32_t seen = w.join_signal.load(PILFER_SITE("pool.J5", acquire));
      if (task_base* t = take_handed_back(w, &job)) {
        execute(w, t);
        return;
      }
      bool signalled = false;
      await(
          w, [&] { return signalled || job.is_done(); }, [&](task_base* x) { return x == &job; },
          [&] { signalled = !job.block_or_signal(seen); });
    }
  }

  /// Pop the own deque's top if `mine(top)`, else leave it there.
  template <class Mine>
  task_base* pop_own_if(worker& w, Mine&& mine) {
    std::optional<task_base*> t = w.deque.pop();
    if (!t) return nullptr;
    if (mine(*t)) {
      w.bump(counter::local_pops);
      return *t;
    }
    w.deque.push(*t);
    announce_requeued();  // it was out of every queue between pop and push
    return nullptr;
  }

  /// Run a handle or group task that this wait claimed (its queue entry is now a tombstone), or,
  /// once shutdown(cancel) began, discard it as a worker dequeuing it would (POOL-12).
  void run_claimed(worker& w, task_base* t) noexcept {
    task_base* const outer = w.current;
    const void* const outer_frame = w.current_frame;
    w.current = t;
    w.current_frame = __builtin_frame_address(0);
    w.set_state(worker_state::running);
    // [pool.S3] relaxed: as in execute(), best effort: a stale false runs a task a cancel would
    // have discarded, which POOL-12 allows for a task taken before the cancel was seen.
    const bool cancel = cancelling_.load(PILFER_SITE("pool.S3", relaxed));
    t->fn(t, cancel ? task_op::cancel_claimed : task_op::run_claimed, &sink_);
    w.current = outer;
    w.current_frame = outer_frame;
    w.bump(counter::claimed);
    w.bump(cancel ? counter::tasks_cancelled : counter::tasks_run);
  }

  pool_options opts_;
  detail::uncaught_sink sink_;
  pilfer::topology topo_;
  std::vector<unsigned> placement_;
  unsigned n_ = 0;
  unsigned capacity_ = 0;
  bool asym_ = false;  // asymmetric fences in use (constructor; constant after)
  /// The workers' deques pair their pop and steal fences as the pool pairs its others, unless
  /// pool_options::asymmetric_deques says otherwise.
  deque_fences worker_deque_fences() const noexcept {
    return asym_ && opts_.asymmetric_deques ? deque_fences::asymmetric : deque_fences::symmetric;
  }
  std::unique_ptr<atomic_t<Sync, worker*>[]> slots_;  // [0, created_) usable
  std::vector<std::unique_ptr<worker>> owned_;        // written under spare_mu_ (and the constructor)
  basic_injector<task_base*, Sync> injector_;
  basic_injector<task_base*, Sync> high_;
  detail::event_count<Sync> ec_;
  // Written per outside submission: alone on its line.
  alignas(cache_line) atomic_t<Sync, std::uint64_t> outside_accepted_{0};
  // wait_idle(): callers waiting (written per wait_idle, read per idle episode) and their wake-up word.
  alignas(cache_line) atomic_t<Sync, std::uint32_t> idle_waiters_{0};
  atomic_t<Sync, std::uint32_t> idle_epoch_{0};
  // Written per search episode: alone on its line.
  alignas(cache_line) atomic_t<Sync, std::uint32_t> searching_{0};
  // Read by every task / submission, written once: a read-mostly line.
  alignas(cache_line) atomic_t<Sync, bool> closed_{false};
  atomic_t<Sync, bool> cancelling_{false};
  atomic_t<Sync, bool> stopping_{false};
  atomic_t<Sync, unsigned> created_{0};
  // Written by outside submissions only.
  alignas(cache_line) atomic_t<Sync, std::uint64_t> injector_pushes_{0};
  atomic_t<Sync, std::uint64_t> priority_pushes_{0};
  // Spares (slow path).
  alignas(cache_line) typename Sync::mutex spare_mu_;
  cell_t<Sync, unsigned> blocked_{0u};
  cell_t<Sync, unsigned> spares_active_{0u};
  cell_t<Sync, std::vector<worker*>> idle_spares_{};
  cell_t<Sync, bool> limit_reported_{false};
  atomic_t<Sync, unsigned> blocked_hint_{0};
  atomic_t<Sync, unsigned> spares_active_hint_{0};
  typename Sync::mutex shutdown_mu_;
  cell_t<Sync, bool> joined_{false};
};

using pool = basic_pool<>;

namespace detail {

/// The narrow internal interface of basic_pool for handles, groups and join.
template <class Sync>
struct pool_access {
  using pool_type = basic_pool<Sync>;
  using worker = pool_worker<Sync>;

  static worker* current(const pool_type& p) noexcept { return p.current(); }
  /// A parallel loop's leaf running on a worker of `p` should split what it has left: nothing of
  /// the caller's is queued for thieves (its deque is empty) and some worker is idle. Lazy binary
  /// splitting's test (Tzannes et al., PPoPP 2010), with the idle counts added so that a loop on a
  /// busy pool does not split for nobody.
  static bool leaf_should_split(const pool_type& p) noexcept {
    if constexpr (pool_type::mutation == pool_mutation::unsplit_leaves) return false;
    worker* w = p.current();
    return w != nullptr && w->deque.empty() && p.has_idle_worker();
  }
  /// The pool's choice of fences (constant for its lifetime): light dequeues of group members pair with heavy claims.
  static bool asymmetric(const pool_type& p) noexcept { return p.asym_; }
  /// The parent of the tasks of a group at `group` made now: the task the calling worker executes
  /// if the group lies in that task's own stack frames, else nullptr (protocol note at
  /// detail::descends_from). Those frames lie between the call that started the task
  /// (`current_frame`) and this call's frame: a group there is destroyed — its destructor waits for
  /// its tasks — before the task returns, so the task waits for them. A group on the heap, in a
  /// coroutine frame, in another thread's or an outer task's frame (or in a sanitizer's fake stack)
  /// has no parent: a wait for the creator does not run its tasks.
  static task_base* scoped_creator(const pool_type& p, const void* group) noexcept {
    worker* w = p.current();
    if constexpr (pool_type::mutation == pool_mutation::unscoped_creator) return w != nullptr ? w->current : nullptr;
    if (w == nullptr || w->current == nullptr || w->current_frame == nullptr) return nullptr;
    const auto at = reinterpret_cast<std::uintptr_t>(group);
    const auto below = reinterpret_cast<std::uintptr_t>(detail::stack_mark());
    const auto top = reinterpret_cast<std::uintptr_t>(w->current_frame);
    return at > below && at < top ? w->current : nullptr;
  }
  static const uncaught_sink& sink(const pool_type& p) noexcept { return p.sink_; }
  /// A group task `t`, taken from a queue, finished without an error: true if the calling
  /// worker's top-level loop runs it and takes over its completion (invariant D, run_top).
  static bool defer_completion(const task_base* t, basic_task_group<Sync>* g) noexcept {
    auto* w = static_cast<worker*>(Sync::template thread_slot<worker_slot_key<Sync>>());
    constexpr bool any = pool_type::mutation == pool_mutation::nested_deferral;
    if (w == nullptr || (!any && w->defer_for != t) || (w->deferred_n != 0 && w->deferred_group != g)) return false;
    w->deferred_group = g;
    ++w->deferred_n;
    w->deferred_now = true;
    return true;
  }
  /// The deferred completions of `n` tasks of `g` (invariant D).
  static void complete_deferred(basic_task_group<Sync>* g, std::uint64_t n) noexcept { g->complete(nullptr, n); }
  /// shutdown(cancel) was called: a task started without a queue round-trip (a graph's kept
  /// successor) is cancelled as execute() cancels a queued one.
  static bool cancelling(const pool_type& p) noexcept {
    // [pool.S3] relaxed: as in execute(); best effort, the flag guards no data.
    return p.cancelling_.load(PILFER_SITE("pool.S3", relaxed));
  }
  static void enqueue(pool_type& p, task_base* t, const task_options& o) { p.enqueue(t, o); }
  /// enqueue() in two steps (task_group::run lists a task between them): admit() may refuse
  /// (pool_closed, bad affinity) with nothing queued; place() fails only when out of memory.
  PILFER_HOT_INLINE static worker* admit(pool_type& p, const task_options& o) { return p.admit(o); }
  PILFER_HOT_INLINE static void place(pool_type& p, worker* w, task_base* t, const task_options& o) {
    p.place(w, t, o);
  }
  /// Pop the calling worker's own deque (counted as a local pop, like the worker loop's).
  static std::optional<task_base*> pop_own(worker& w) {
    std::optional<task_base*> t = w.deque.pop();
    if (t) w.bump(counter::local_pops);
    return t;
  }
  /// Run a task the calling worker took off a queue itself (counted like the worker loop's, and
  /// toward the POOL-8 hand-off interval, as every task a wait runs).
  static void run_taken(pool_type& p, worker& w, task_base* t) {
    p.due_check(w);
    p.execute(w, t);
  }
  /// A task the calling wait may not run on its frame: hand it on (reroute()).
  static void hand_on(pool_type& p, worker& w, task_base* t) { p.reroute(w, t); }
  /// The pool's wait (await()): help only tasks `ours` accepts, then block with a spare standing in.
  template <class Done, class Ours, class Block>
  static void wait_blocking(pool_type& p, worker& w, Done&& done, Ours&& ours, Block&& block) {
    p.await(w, done, ours, block);
  }
  /// As wait_blocking, for work without a claim word that may sit in the injector (await<true>).
  template <class Done, class Ours, class Block>
  static void wait_anywhere(pool_type& p, worker& w, Done&& done, Ours&& ours, Block&& block) {
    p.template await<true>(w, done, ours, block);
  }

  /// task_handle::wait(): claim the task if it has not started, else wait
  /// (helping only its descendants, then blocking).
  template <class R>
  static void wait_handle(pool_type& p, result_state<R, Sync>* s) {
    using state = result_state<R, Sync>;
    if (s->code() != state::pending) return;
    worker* w = p.current();
    if (w == nullptr) {
      if (poll_before_blocking<Sync>([s] { return s->code() != state::pending; }))
        return;
      s->block();
      return;
    }
    // POOL-8: the waited task counts toward the hand-off interval, as in every wait (a recursion
    // through submit().get() on one worker would otherwise never look at the injector).
    if (task_base* t = p.pop_own_if(*w, [s](task_base* x) { return x == s; })) {
      p.due_check(*w);
      p.execute(*w, t);  // the queue entry itself: no tombstone
      if (s->code() != state::pending) return;
    }
    if constexpr (pool_type::mutation != pool_mutation::old_helping) {
      // An affinity task is claimed only by its own worker (POOL-15).
      if ((s->affinity == ~0u || s->affinity == w->index) && s->claim()) {
        p.due_check(*w);
        p.run_claimed(*w, s);
        return;
      }
    }
    p.await(
        *w, [s] { return s->code() != state::pending; }, [s](task_base* x) { return x == s; },
        [s] { s->block(); });
  }

  PILFER_HOT_INLINE static void join_push(pool_type& p, worker& w, join_branch<Sync>* job) { p.join_push(w, job); }
  /// `Job`: the branch's own type (a stack_job), so the common case runs it by a direct call.
  template <class Job>
  PILFER_HOT_INLINE static void join_finish(pool_type& p, worker& w, Job& job) { p.join_finish(w, job); }

  /// task_group::wait() on a worker: run the group's tasks found on top of
  /// the own deque, claim those queued anywhere, then wait (helping only the
  /// group's descendants). `block` also returns when run() may have listed a
  /// member this worker could claim (task_group.hpp, invariant K): back to
  /// the claims.
  template <class Group, class Done, class Block>
  static void wait_group(pool_type& p, worker& w, Group* g, Done&& done, Block&& block) {
    auto mine = [g](task_base* x) {
      return x->kind == task_kind::group && static_cast<group_member<Sync>*>(x)->group == g;
    };
    while (!done()) {
      if (task_base* t = p.pop_own_if(w, mine)) {
        p.due_check(w);
        p.execute(w, t);
        continue;
      }
      // Not started, queued anywhere: claim it (its entry becomes a tombstone).
      if constexpr (pool_type::mutation != pool_mutation::old_helping) {
        if (group_member<Sync>* m = g->claim_member(w.index)) {
          p.due_check(w);
          p.run_claimed(w, m);
          continue;
        }
      }
      p.await(w, done, mine, block);
    }
  }
};

}  // namespace detail
}  // namespace pilfer

#include "pilfer/parallel.hpp"
#include "pilfer/task_group.hpp"
#include "pilfer/task_handle.hpp"
