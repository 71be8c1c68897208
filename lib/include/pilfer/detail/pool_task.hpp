// pilfer/detail/pool_task.hpp — the pool's task representation.
//
// A task is a `task_base*` in a deque/injector. task_base carries an
// intrusive one-entry vtable: `fn(task, op, sink)` with op run / cancel /
// destroy / run_claimed, returning whether the entry was a live task (false:
// the tombstone of a task a wait claimed). Heap tasks are
// allocated through task_memory<Sync> (task_block_cache.hpp: a per-thread
// cache of blocks; under the model checker Sync::make, which tracks leaks,
// double frees and uses after free); join() uses stack tasks
// (`counted == false`) that are never freed by the pool.
//
// Waits (lib/docs/pool.md "Waits"): a handle task can be CLAIMED by a thread
// waiting for it (status bit `started_bit`, set by exactly one of the waiter
// and the worker that dequeues it); the loser sees a tombstone and only drops
// its reference. Join branches and group tasks carry a `parent` link — the
// task whose execution waits for them — so a wait may run a task iff the task
// descends, through such links, from what it waits for (never an unrelated
// task on top of its frame).
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "pilfer/detail/hot_inline.hpp"
#include "pilfer/detail/task_block_cache.hpp"
#include "pilfer/pool_options.hpp"
#include "pilfer/sync.hpp"

namespace pilfer {
template <class Sync>
class basic_pool;
template <class Sync = std_sync>
class basic_task_group;
namespace detail {
template <class Sync>
struct pool_access;
}  // namespace detail
}  // namespace pilfer

namespace pilfer::detail {

enum class task_op : unsigned char {
  run,          ///< dequeued by a worker: claim (if claimable), run, drop the queue's reference
  cancel,       ///< dequeued during shutdown(cancel): claim, discard, drop the queue's reference
  destroy,      ///< last reference gone
  run_claimed,    ///< a wait claimed it: run the body and publish, keep the queue's reference
  cancel_claimed  ///< a wait claimed it during shutdown(cancel): discard and publish, keep the queue's reference
};

/// What kind of task (for a wait deciding what it may run).
enum class task_kind : unsigned char { spawn, handle, group, join_branch };

/// Where exceptions nobody collects go (one per pool).
struct uncaught_sink {
  std::string name;
  std::function<void(std::exception_ptr)> handler;

  /// `e` is the caller's last reference: the handler gets it (moved), so a handler that passes it
  /// to another thread leaves none here, and that thread alone frees the exception.
  void report(std::exception_ptr e) const noexcept {
    if (handler) {
      try {
        handler(std::move(e));
      } catch (...) {
        std::fputs("pilfer: on_uncaught handler threw; the exception it was given is dropped\n", stderr);
      }
      return;
    }
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "pilfer pool '%s': uncaught exception in task: %s\n", name.c_str(), x.what());
    } catch (...) {
      std::fprintf(stderr, "pilfer pool '%s': uncaught non-standard exception in task\n", name.c_str());
    }
  }
};

struct task_base {
  using fn_t = bool (*)(task_base*, task_op, const uncaught_sink*) noexcept;
  task_base(fn_t f, task_kind k, bool c = true) noexcept : fn(f), kind(k), counted(c) {}
  fn_t fn;
  task_kind kind;
  bool counted;  // heap task counted in the pool's pending count
};

/// A task another task's execution waits for (join branch, group task):
/// `parent` is that task (nullptr: waited for from outside any task).
struct nested_task : task_base {
  nested_task(fn_t f, task_kind k, bool c, task_base* up) noexcept : task_base(f, k, c), parent(up) {}
  task_base* parent;
};

/// The address of a frame below the caller's (its own, never inlined): every
/// object of the caller's frames and of the frames above lies above it
/// (pool_access::scoped_creator).
[[gnu::noinline]] inline const void* stack_mark() noexcept { return __builtin_frame_address(0); }

/// Does `t` descend from a task satisfying `is_target` through parent links?
/// Every ancestor is alive: an ancestor's execution waits for its child, and
/// `t` has not run. Handle and spawn tasks are roots (nobody's frame waits for
/// them structurally). Invariant P: a parent link is set only where the
/// parent's execution waits for the child — a join branch's joiner; a group
/// task's creator only when the group lies in the creator's own stack frames
/// (pool_access::scoped_creator), so the creator cannot return before the
/// group's destructor waited for it. A group on the heap or elsewhere gives
/// its tasks no parent: its creator may never wait for them, may have
/// finished and been freed, and a wait for it must not run them (an outside
/// tester's acyclic wait-for graph deadlocked that way, and a freed creator
/// was read).
///
/// A group task reached through a queue entry may have been claimed and run
/// by a waiter of its group meanwhile (POOL-19 claims), after which its
/// parent may be gone: from a group task only its own group is checked
/// (`is_target(t)`), its ancestors are not walked. The ancestors of a join
/// branch are running frames waiting for it (the branch is held by the
/// caller, so it has not run): they stay alive.
template <class Pred>
bool descends_from(task_base* t, Pred&& is_target) noexcept {
  if (is_target(t)) return true;
  if (t->kind != task_kind::join_branch) return false;
  t = static_cast<nested_task*>(t)->parent;
  if (t == nullptr) return false;
  for (;;) {
    if (is_target(t)) return true;
    if (t->kind != task_kind::group && t->kind != task_kind::join_branch) return false;
    t = static_cast<nested_task*>(t)->parent;
    if (t == nullptr) return false;
  }
}

/// spawn(): fire and forget; exceptions go to the sink.
template <class F, class Sync>
struct spawn_task final : task_base {
  template <class G>
  explicit spawn_task(G&& g) : task_base(&invoke, task_kind::spawn), f(std::forward<G>(g)) {}
  F f;

  static bool invoke(task_base* b, task_op op, const uncaught_sink* sink) noexcept {
    auto* self = static_cast<spawn_task*>(b);
    if (op == task_op::run) {
      std::exception_ptr failure;  // reported outside the catch block (uncaught_sink::report)
      try {
        self->f();
      } catch (...) {
        failure = std::current_exception();
      }
      if (failure && sink) sink->report(std::move(failure));
    }
    task_memory<Sync>::destroy(self);
    return op != task_op::destroy;
  }
};

/// The shared state behind a task_handle: the task itself plus its result.
/// Two references at birth: the queue entry's (dropped by whoever dequeues
/// it, after running it or skipping its tombstone) and the handle's.
template <class R, class Sync>
struct result_state : task_base {
  using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;
  enum : std::uint32_t {
    pending = 0, has_value = 1, has_error = 2, was_cancelled = 3, code_mask = 3,
    waiter_bit = 4,        // a thread blocks on `status`: the completer must notify
    started_bit = 8,       // claimed: by the worker that dequeued it or by a wait
    dropped_bit = 16,      // the handle is gone: nobody will collect an error
    collected_bit = 32     // get() took the outcome (an error: the handle will not report it)
  };

  result_state(fn_t f, basic_pool<Sync>* p) noexcept : task_base(f, task_kind::handle), pool(p) {}

  atomic_t<Sync, std::uint32_t> status{pending};
  atomic_t<Sync, std::uint32_t> refs{2};
  cell_t<Sync, std::optional<value_type>> value{};
  cell_t<Sync, std::exception_ptr> error{};
  basic_pool<Sync>* pool;  // for waits (wait inside a task of this pool) and the uncaught sink
  unsigned affinity = ~0u; // the only worker that may run it (task_options::affinity), or ~0u

  std::uint32_t code() const noexcept {
    // [pool.H1] acquire: pairs with [pool.H2]; the value/error written
    // before completion is visible to whoever sees the code.
    return status.load(PILFER_SITE("pool.H1", acquire)) & code_mask;
  }

  /// Take the right to run (or cancel) the task. Exactly one caller wins.
  bool claim() noexcept {
    // [pool.H5] acq_rel: the winner's run is ordered after the submitter's
    // construction (acquire: it may have reached the task through a handle,
    // not a queue) and the loser sees the winner's claim.
    return (status.fetch_or(started_bit, PILFER_SITE("pool.H5", acq_rel)) & started_bit) == 0;
  }

  /// Publish the outcome. Returns true when the handle was already dropped
  /// and the outcome is an error nobody will collect (the caller reports it).
  bool complete(std::uint32_t c) noexcept {
    // [pool.H2] acq_rel: release publishes value/error; acquire orders the
    // read of waiter_bit / dropped_bit set by the handle side ([pool.H3]).
    const std::uint32_t old = status.fetch_or(c, PILFER_SITE("pool.H2", acq_rel));
    if (old & waiter_bit) status.notify_all();
    return c == has_error && (old & dropped_bit) != 0;
  }

  void release() noexcept {
    // [pool.H4] acq_rel: the last owner must see every write of the other.
    if (refs.fetch_sub(1, PILFER_SITE("pool.H4", acq_rel)) == 1) fn(this, task_op::destroy, nullptr);
  }

  /// The handle is dropped. Returns true when the task already failed and
  /// nobody collected its error (the caller reports it).
  bool drop() noexcept {
    // [pool.H6] acq_rel: pairs with [pool.H2]: exactly one of the completer
    // (sees dropped_bit) and the handle (sees has_error) reports.
    const std::uint32_t old = status.fetch_or(dropped_bit, PILFER_SITE("pool.H6", acq_rel));
    return (old & code_mask) == has_error && (old & collected_bit) == 0;
  }

  /// get() took the outcome (an error: the handle's drop must not report it).
  void mark_collected() noexcept { status.fetch_or(collected_bit, PILFER_SITE("pool.H6", relaxed)); }
  /// Handle side: has get() been called? Only the handle sets the bit, so its own thread reads it.
  bool collected() const noexcept { return (status.load(PILFER_SITE("pool.H6", relaxed)) & collected_bit) != 0; }

  /// Block the calling thread until complete (no spinning).
  void block() noexcept {
    // [pool.H3] acquire RMW: announces a sleeper; the RMW [pool.H2] reads it
    // (RMW chain), so the notify cannot be missed. Acquire because it may
    // itself read the completion: then the loop below never runs, and this
    // RMW is the waiter's only synchronisation with [pool.H2] (relaxed, a
    // worker's wait returned with the task's writes not visible: found by an
    // outside tester under TSan, model scenario pool.handle_wait_publishes).
    std::uint32_t s = status.fetch_or(waiter_bit, PILFER_SITE("pool.H3", acquire)) | waiter_bit;
    while ((s & code_mask) == pending) {
      status.wait(s, PILFER_SITE("pool.H1", acquire));
      s = status.load(PILFER_SITE("pool.H1", acquire));
    }
  }
};

template <class F, class R, class Sync>
struct handle_task final : result_state<R, Sync> {
  using base = result_state<R, Sync>;
  template <class G>
  handle_task(G&& g, basic_pool<Sync>* p) : base(&invoke, p), f(std::in_place, std::forward<G>(g)) {}
  std::optional<F> f;  // reset right after running: captures die before get() returns

  /// Run the body and publish. Returns "report the error now" (see complete()).
  bool run_body() noexcept {
    std::uint32_t c = base::has_value;
    try {
      if constexpr (std::is_void_v<R>) {
        (*f)();
        this->value.write().emplace();
      } else {
        this->value.write().emplace((*f)());
      }
    } catch (...) {
      this->error.write() = std::current_exception();
      c = base::has_error;
    }
    f.reset();
    return this->complete(c);
  }

  static bool invoke(task_base* b, task_op op, const uncaught_sink* sink) noexcept {
    auto* self = static_cast<handle_task*>(b);
    switch (op) {
      case task_op::run: {
        const bool won = self->claim();
        if (won && self->run_body() && sink) sink->report(std::exchange(self->error.write(), nullptr));
        self->release();
        return won;
      }
      case task_op::run_claimed:
        if (self->run_body() && sink) sink->report(std::exchange(self->error.write(), nullptr));
        return true;
      case task_op::cancel_claimed:
        self->f.reset();
        self->complete(base::was_cancelled);
        return true;
      case task_op::cancel: {
        const bool won = self->claim();
        if (won) {
          self->f.reset();
          self->complete(base::was_cancelled);
        }
        self->release();
        return won;
      }
      case task_op::destroy:
        task_memory<Sync>::destroy(self);
        return false;
    }
    return false;
  }
};

/// A task of a task_group; `parent` is the task that created the group when
/// the group lies in that task's frames (its execution waits for the group:
/// the group's destructor waits), else nullptr (invariant P, descends_from).
///
/// Claimable, like a handle task (POOL-19): `status` has `started_bit`, set
/// by exactly one of the thread that dequeues it and a group wait that
/// claims it from the group's member list (wherever its queue entry is:
/// own or another deque, injector, high-priority queue, a mailbox). The loser
/// sees a tombstone.
///
/// Lifetime without a reference count: the group's member list owns the
/// task. Whoever dequeues the entry sets `dequeued_bit` in the same RMW as
/// its claim; whoever runs the body sets `finished_bit` after the callable is
/// destroyed and before reporting to the group (its last touch of the task).
/// A wait or the group's destructor frees a listed task once both bits are
/// set (`reclaimable`). At destruction a task whose tombstone is still
/// queued is marked `orphaned_bit` instead: the RMW that dequeues it sees the
/// mark and frees it (exactly one of the two RMWs sees the other's bit).
///
/// The dequeue without an RMW (take_entry_from_queue, when the pool uses
/// asymmetric fences): claims are rare (a wait that cannot pop its group's
/// tasks from its own deque), dequeues are one per task. So a dequeuer marks
/// `entry_taken` and reads the member's `claim_intent` across a light fence;
/// a claimer sets `claim_intent` (on every listed member at once) and then
/// pays a heavy fence (membarrier) before it reads `entry_taken` and claims
/// (task_group.hpp, announce_claims). Invariant E: a dequeuer that reads
/// `claim_intent == 0` runs the task, and no claim of it succeeds — its light
/// fence precedes the heavy fence that followed the intent's store (else it
/// would have read the intent), so every claimer, which reads `entry_taken`
/// after that fence (seq_cst, ordered after it through the group's mutex),
/// sees `entry_taken == 1` and takes the task as started. A dequeuer that
/// reads the intent takes the RMW path, where claim and dequeue exclude each
/// other as before. A member made after a claim began is born with the
/// intent set (run() reads the group's `claims_begun`), and its dequeuer
/// reads it: the queue publishes its construction. Every field the dequeue
/// reads is the member's own: a tombstone may outlive its group (orphaned).
template <class Sync>
struct group_member : nested_task {
  using group_type = basic_task_group<Sync>;
  enum : std::uint32_t { started_bit = 1, dequeued_bit = 2, finished_bit = 4, orphaned_bit = 8 };
  group_member(fn_t f, group_type* gr, task_base* up) noexcept
      : nested_task(f, task_kind::group, true, up), group(gr) {}
  group_type* group;
  cell_t<Sync, group_member*> next{nullptr};  // the group's member list (task_group.hpp: who may follow it)
  unsigned affinity = ~0u;       // task_options::affinity, or ~0u
  // Status and the two flags of invariant E share 4 bytes: a task of a function pointer stays
  // in the 64-byte block class.
  atomic_t<Sync, std::uint16_t> status{0};
  atomic_t<Sync, std::uint8_t> entry_taken{0};   // 1: the dequeue's mark (invariant E)
  atomic_t<Sync, std::uint8_t> claim_intent{0};  // 1: a claim may come; the dequeue takes the RMW path

  /// run(), before the member is listed or queued (both publish it): how its
  /// dequeue claims it. `light`: the pool's fences are asymmetric; `intent`:
  /// a claim of the group was already announced. Born with the intent when
  /// either is so: without asymmetric fences every dequeue takes the RMW
  /// path (and no claimer needs the heavy fence, which is then unavailable).
  void set_dequeue(bool light, bool intent) noexcept {
    if (!light || intent) announce_claim();
  }

  /// A claimer, under the group's mutex, before its heavy fence.
  void announce_claim() noexcept {
    // [pool.G12] relaxed: ordered by the claimer's heavy fence [pool.G12H].
    claim_intent.store(1, PILFER_SITE("pool.G12", relaxed));
  }
  /// Set by a claimer that paid the heavy fence after it, or from birth.
  bool claim_announced() const noexcept { return claim_intent.load(PILFER_SITE("pool.G12", relaxed)) != 0; }

  /// A wait's claim: take the right to run the task. Exactly one of the
  /// claims and the dequeue (take_entry) wins.
  bool claim() noexcept {
    // [pool.G6] acq_rel: the winner's run follows the submitter's
    // construction (a waiter reaches it through the member list, not a
    // queue); the loser sees the winner's claim.
    return (status.fetch_or(std::uint16_t{started_bit}, PILFER_SITE("pool.G6", acq_rel)) & started_bit) == 0;
  }
  /// The queue entry is dequeued: claim and mark the entry gone in one RMW.
  /// Returns the bits before.
  std::uint32_t take_entry() noexcept {
    // [pool.G6] acq_rel: as claim(); and the dequeue is seen by a wait that
    // frees the task (reclaimable) or by the destructor's orphan mark.
    return status.fetch_or(std::uint16_t{started_bit | dequeued_bit}, PILFER_SITE("pool.G6", acq_rel));
  }
  /// The queue entry is dequeued by the thread about to run it: invariant E's
  /// dequeue side. Returns the bits before, as take_entry() (0 on the path
  /// without an RMW: nothing claimed it, and nothing else can).
  std::uint32_t take_entry_from_queue() noexcept {
    // [pool.G11] relaxed, then [pool.G11L] light (compiler-only): pairs with
    // the claimer's heavy fence [pool.G12H]: either this read sees the
    // intent, or the claimer's read sees `entry_taken`. (A member of a pool
    // without asymmetric fences is born with the intent: this read sees it.)
    entry_taken.store(1, PILFER_SITE("pool.G11", relaxed));
    Sync::fence_light(PILFER_SITE("pool.G11L", seq_cst));
    if (!claim_announced()) return 0;
    return take_entry();
  }
  /// A claimer's read once the intent is announced (task_group.hpp,
  /// announce_claims): [pool.G11] seq_cst: the heavy fence that followed the
  /// announcement strongly happens before it (same thread, or through the
  /// group's mutex), so it precedes it in S, and a dequeue whose light fence
  /// came before that fence is seen.
  bool taken_before_claims() const noexcept {
    return (status.load(PILFER_SITE("pool.G6", acquire)) & started_bit) != 0 ||
           entry_taken.load(PILFER_SITE("pool.G11", seq_cst)) != 0;
  }
  /// A tombstone (or running / done): nobody may claim it any more. A
  /// dequeue without an RMW shows in `entry_taken` instead (invariant E: a
  /// claimer reads it after its heavy fence; before it, a 0 is only a hint).
  bool started() const noexcept {
    return (status.load(PILFER_SITE("pool.G6", acquire)) & started_bit) != 0 ||
           entry_taken.load(PILFER_SITE("pool.G11", relaxed)) != 0;
  }

  /// The body ran and its callable is destroyed: the member list may free
  /// the task from now on. `by_entry`: run through its queue entry (this
  /// thread set dequeued_bit; no other bit can be added concurrently but
  /// started_bit, already set: a store suffices). Last touch of the task.
  void mark_finished(bool by_entry) noexcept {
    // [pool.G7] release: the callable's destruction happens before the
    // wait's free (acquire in reclaimable()).
    if (by_entry) {
      status.store(started_bit | dequeued_bit | finished_bit, PILFER_SITE("pool.G7", release));
    } else {
      status.fetch_or(finished_bit, PILFER_SITE("pool.G7", acq_rel));
    }
  }
  /// Both the run and the queue entry are over: the list may free it.
  bool reclaimable() const noexcept {
    // [pool.G7] acquire: pairs with mark_finished / take_entry.
    const std::uint32_t s = status.load(PILFER_SITE("pool.G7", acquire));
    return (s & (finished_bit | dequeued_bit)) == (finished_bit | dequeued_bit);
  }
  /// Group destruction: the task finished (the group's count is 0). Free it
  /// now if its entry is gone, else leave it to the RMW that dequeues it.
  void orphan() noexcept {
    // [pool.G7] acq_rel: exactly one of this and take_entry sees the other.
    if (status.fetch_or(orphaned_bit, PILFER_SITE("pool.G7", acq_rel)) & dequeued_bit) fn(this, task_op::destroy, nullptr);
  }
};

/// task_group::run(): on completion or cancellation the task destroys its
/// callable (so the captures die first) and then reports to the group.
template <class F, class Sync>
struct group_task final : group_member<Sync> {
  using group_type = basic_task_group<Sync>;
  template <class G>
  group_task(G&& g, group_type* gr, task_base* up)
      : group_member<Sync>(&invoke, gr, up), f(std::in_place, std::forward<G>(g)) {}
  std::optional<F> f;

  /// Run (or cancel) the body, then report to the group. `by_entry`: taken
  /// through its queue entry (else claimed by a wait).
  void run_body(bool cancel, bool by_entry) noexcept {
    // POOL-9: exactly one run (the claim protocol above); a second one would find the callable gone.
    if (!f.has_value()) Sync::broken_invariant("a task_group task ran twice", __FILE__, __LINE__);
    std::exception_ptr e;
    if (cancel) {
      e = std::make_exception_ptr(task_cancelled{});
    } else {
      try {
        (*f)();
      } catch (...) {
        e = std::current_exception();
      }
    }
    f.reset();
    group_type* g = this->group;  // read before the task may be freed
    this->mark_finished(by_entry);
    // Taken from a queue by a worker's top-level loop: the worker may apply the decrement
    // together with the next task's of the group (pool.hpp, invariant D).
    if (!e && by_entry && pool_access<Sync>::defer_completion(this, g)) return;
    g->complete(std::move(e));
  }

  static bool invoke(task_base* b, task_op op, const uncaught_sink*) noexcept {
    auto* self = static_cast<group_task*>(b);
    switch (op) {
      case task_op::run:
      case task_op::cancel: {
        const std::uint32_t before = self->take_entry_from_queue();
        if ((before & group_member<Sync>::started_bit) == 0) {
          self->run_body(op == task_op::cancel, true);
          return true;
        }
        // A tombstone: a wait claimed and ran it. Free it if the group is gone.
        if (before & group_member<Sync>::orphaned_bit) task_memory<Sync>::destroy(self);
        return false;
      }
      case task_op::run_claimed:
      case task_op::cancel_claimed:
        self->run_body(op == task_op::cancel_claimed, false);
        return true;
      case task_op::destroy:
        task_memory<Sync>::destroy(self);
        return false;
    }
    return false;
  }
};

/// join()'s second branch, living on the joiner's stack.
/// `done` = done_bit | waiter_bit; the joiner sleeps on its worker's
/// `join_signal` word (which outlives the job), never on the job.
template <class Sync>
struct join_branch : nested_task {
  enum : std::uint32_t { done_bit = 1, waiter_bit = 2 };
  join_branch(fn_t f, task_base* up, atomic_t<Sync, std::uint32_t>* signal) noexcept
      : nested_task(f, task_kind::join_branch, false, up), joiner_signal(signal) {}
  cell_t<Sync, std::exception_ptr> error{};
  atomic_t<Sync, std::uint32_t> done{0};
  atomic_t<Sync, std::uint32_t>* joiner_signal;  // the joiner's worker's word (lives as long as the pool)

  bool is_done() const noexcept {
    // [pool.J2] acquire: pairs with [pool.J1]; error and the branch's
    // effects are visible to the joiner.
    return (done.load(PILFER_SITE("pool.J2", acquire)) & done_bit) != 0;
  }

  void finish() noexcept {
    atomic_t<Sync, std::uint32_t>* sig = joiner_signal;  // read before the job may die
    // [pool.J1] acq_rel: release publishes the branch's effects and error;
    // acquire reads the joiner's waiter_bit ([pool.J3]). Last touch of the
    // job: the joiner may return as soon as it sees done_bit.
    const std::uint32_t old = done.fetch_or(done_bit, PILFER_SITE("pool.J1", acq_rel));
    if (old & waiter_bit) {
      // [pool.J4] release: a new value for the joiner's futex word.
      sig->fetch_add(1, PILFER_SITE("pool.J4", release));
      sig->notify_one();
    }
  }

  /// The joiner sleeps until done or until its signal word differs from
  /// `seen` (read before the joiner last looked at its mailbox: a wait that
  /// handed the branch back there bumps the word after the push, POOL-19).
  /// Returns whether the branch is done.
  bool block_or_signal(std::uint32_t seen) noexcept {
    // [pool.J3] acq_rel: announce the sleeper; the finisher's [pool.J1]
    // reads it and bumps the word.
    if (done.fetch_or(waiter_bit, PILFER_SITE("pool.J3", acq_rel)) & done_bit) return true;
    joiner_signal->wait(seen, PILFER_SITE("pool.J4", acquire));
    return is_done();
  }

  /// The joiner sleeps until done (its own worker's signal word).
  void block() noexcept {
    // [pool.J3] acq_rel: read the signal value first, then announce; the
    // finisher's [pool.J1] reads the announcement and bumps the word after it.
    const std::uint32_t seen = joiner_signal->load(PILFER_SITE("pool.J4", acquire));
    if (done.fetch_or(waiter_bit, PILFER_SITE("pool.J3", acq_rel)) & done_bit) return;
    std::uint32_t s = seen;
    while (!is_done()) {
      joiner_signal->wait(s, PILFER_SITE("pool.J4", acquire));
      s = joiner_signal->load(PILFER_SITE("pool.J4", acquire));
    }
  }
};

template <class F, class Sync>
struct stack_job final : join_branch<Sync> {
  stack_job(F& g, task_base* up, atomic_t<Sync, std::uint32_t>* signal) noexcept
      : join_branch<Sync>(&invoke, up, signal), f(&g) {}
  F* f;

  /// Run the body; an exception is kept in `error` for the joiner.
  PILFER_HOT_INLINE void run_body() noexcept {
    try {
      (*f)();
    } catch (...) {
      this->error.write() = std::current_exception();
    }
  }

  /// The joiner popped it back and runs it itself (run_claimed without the
  /// indirect call): nobody waits on `done`.
  PILFER_HOT_INLINE void run_popped_back() noexcept { run_body(); }

  static bool invoke(task_base* b, task_op op, const uncaught_sink*) noexcept {
    auto* self = static_cast<stack_job*>(b);
    // cancel_claimed: not sent (the joiner pops its own branch back; pool waits claim only
    // handle and group tasks); treated as a claimed run would be, for completeness.
    if (op == task_op::run || op == task_op::run_claimed || op == task_op::cancel_claimed) {
      self->run_body();
      // run_claimed: the joiner popped it back and runs it itself; nobody
      // waits on `done`.
      if (op != task_op::run) return true;
    } else if (op == task_op::cancel) {
      self->error.write() = std::make_exception_ptr(task_cancelled{});
    } else {
      return false;  // destroy: the joiner's stack owns it
    }
    self->finish();
    return true;
  }
};

}  // namespace pilfer::detail
