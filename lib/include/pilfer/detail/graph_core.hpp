// pilfer/detail/graph_core.hpp — the scheduling core of task graphs (lib/docs/graph.md).
//
// What users never name: the node a task of a graph lives in, the state of one run, and the
// scheduling step that runs a node and releases its successors. The step is a template over a
// worker context so that the pool (pilfer/graph.hpp) and the model checker's scenarios
// (models/scenarios/graph_scenarios.cpp) run the same code:
//
//   ctx.push(node*)  make a ready node available: the calling worker's own deque (seed 001)
//   ctx.worker()     index of the calling worker (-1: not a worker)
//   ctx.report(e)    an exception that is not the run's first (on_uncaught)
//   ctx.cancelling() the pool is shutting down with cancel: start no task of the run
//
// Tags ([graph.*]) name the rows of the order table in lib/docs/graph.md.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pilfer/detail/hot_inline.hpp"
#include "pilfer/detail/pool_task.hpp"
#include "pilfer/sync.hpp"

namespace pilfer {

/// A graph used the wrong way: a cycle without a condition task, no source, a run while it is
/// modified, a modification while it runs, overlapping runs. The message names the graph (and
/// the tasks of a cycle).
class graph_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Thrown by get() of a run that was cancelled (handle.cancel() or pool shutdown(cancel)).
class graph_cancelled : public std::runtime_error {
 public:
  explicit graph_cancelled(const std::string& graph)
      : std::runtime_error("pilfer graph '" + graph + "': run was cancelled") {}
};

template <class Sync>
class basic_subflow;

namespace detail {

enum class graph_work : unsigned char { plain, condition, subflow };

/// Compile-time mutation hook for the model checker (models/scenarios/graph_scenarios.cpp, run by
/// the sensitivity table): a Sync policy may declare
/// `static constexpr pilfer::detail::graph_mutation graph_mutation = ...;` to compile the
/// scheduling step with a known-wrong behaviour. std_sync declares none, so it is `none` and the
/// `if constexpr` on it folds away.
enum class graph_mutation : unsigned char {
  none,
  uncounted_release  ///< every successor takes the single-predecessor path: released by its first finished predecessor
};

template <class Sync>
consteval graph_mutation graph_mutation_of() {
  if constexpr (requires { Sync::graph_mutation; }) {
    return Sync::graph_mutation;
  } else {
    return graph_mutation::none;
  }
}

template <class Sync>
struct graph_run_state;

/// One statistic of a task (graph_node's observations: runs, steals, workers, timings). In a real
/// build a relaxed atomic of the sync policy, [graph.S1]: executions of one node may overlap (see
/// graph_node), and no other data is read through a statistic. Under the model checker a plain
/// value: the statistics are diagnostics that nothing the protocol decides reads, and as atomics the
/// checker would explore each of their relaxed reads as a choice (graph.diamond_2w: 294 -> 2,520
/// executions, ~1 s -> 116 s). The modelled threads are fibers on one OS thread, so a plain value is
/// not a race there; the statistics' race-freedom is checked by TSan (graph_stats_test, stress_graph)
/// and every order the protocol decides with stays model-checked.
template <class Sync, class T>
class graph_observation {
 public:
  explicit graph_observation(T v) noexcept : v_(v) {}
  graph_observation(const graph_observation&) = delete;
  graph_observation& operator=(const graph_observation&) = delete;

  T load() const noexcept {
    if constexpr (Sync::is_model) return v_;
    else return v_.load(PILFER_SITE("graph.S1", relaxed));
  }
  void store(T v) noexcept {
    if constexpr (Sync::is_model) v_ = v;
    else v_.store(v, PILFER_SITE("graph.S1", relaxed));
  }
  /// Adds d. `shared`: another execution of the node may add at the same time (an RMW); otherwise
  /// one execution at a time, and a load and a store lose nothing.
  void add(T d, bool shared) noexcept {
    if constexpr (Sync::is_model) {
      v_ += d;
    } else if (shared) {
      v_.fetch_add(d, PILFER_SITE("graph.S1", relaxed));
    } else {
      v_.store(v_.load(PILFER_SITE("graph.S1", relaxed)) + d, PILFER_SITE("graph.S1", relaxed));
    }
  }

 private:
  std::conditional_t<Sync::is_model, T, atomic_t<Sync, T>> v_;
};

/// One task of a graph. Built once (emplace/precede), run any number of times: nothing here is
/// allocated per run. It is a pool task (a root, like spawn(): no task's frame waits for it
/// structurally; counted in the pool's pending count while queued) whose entry point runs the
/// scheduling step.
template <class Sync>
struct graph_node final : task_base {
  graph_node(std::size_t i, task_base::fn_t entry) : task_base(entry, task_kind::spawn, true), index(i) {}

  std::size_t index;
  std::string name;
  graph_work kind = graph_work::plain;
  std::function<void()> plain_fn;
  std::function<int()> cond_fn;
  std::function<void(basic_subflow<Sync>&)> sub_fn;
  std::vector<graph_node*> succ;  // in precede() order (a condition's return value indexes it)
  std::vector<graph_node*> pred;
  std::uint32_t strong_in = 0;    // predecessors that are not condition tasks (set while the graph is claimed)
  bool weak_in = false;           // some predecessor is a condition task
  /// The graph's run in progress (graph_claim::current_run), set once when the node is made: a
  /// run writes one pointer, not one per node (the pool's entry point and a waiter's "is this
  /// node of my run?" read it through here; the node is queued, so its run is in progress).
  graph_run_state<Sync>* const* run_slot = nullptr;
  graph_run_state<Sync>* run() const noexcept { return *run_slot; }

  /// Unfinished strong predecessors in this pass (reset to strong_in when a pass begins). Used
  /// only by a task with two or more strong predecessors: one with a single one is released by
  /// that predecessor's end without counting (run_chain).
  alignas(cache_line) atomic_t<Sync, std::uint32_t> join{0};

  /// The counter decides when this task is ready (else its one strong predecessor's end does).
  bool counted() const noexcept {
    if constexpr (graph_mutation_of<Sync>() == graph_mutation::uncounted_release) return false;
    return strong_in >= 2;
  }

  // Per-run observations, read by the run's end (graph_run_state::on_finish, after [graph.F2]),
  // last_worker()/last_runs() and dump_dot. Executions of one node MAY overlap: in a graph with a
  // condition task a node can be released again while its previous execution still runs (a task
  // hanging off a loop body; a task with a weak and a strong predecessor). So every field is a
  // graph_observation, a [graph.S1] relaxed atomic in a real build: each field is one observation on
  // its own (no other data is read through it); the reader at the run's end sees the last value of each
  // through [graph.F2] -> on_finish, or [graph.D1] -> [graph.D2] for a reader after the run.
  // The counts are exact: in a graph without condition tasks a node runs once per pass, passes
  // do not overlap, so one execution at a time does load-add-store; with condition tasks
  // (graph_run_state::overlap) the increments are RMWs.
  // They belong to the run numbered run_serial: in a graph without condition tasks the first
  // execution in a run starts them over (invoke_body); with condition tasks (where two first
  // executions may overlap) the run's start resets them before any task is released
  // (basic_graph::run_until). A reader compares run_serial with the run it asks about.
  graph_observation<Sync, std::uint64_t> run_serial{0};
  graph_observation<Sync, std::uint64_t> pass{0};        // the run's pass of its last execution (graph_run_state::pass)
  graph_observation<Sync, int> readied_by{-1};           // worker that released it last (written before the push)
  graph_observation<Sync, int> worker{-1};               // worker that ran it last
  graph_observation<Sync, std::uint32_t> runs{0};        // bodies executed this run (> 1 only in loops)
  graph_observation<Sync, std::uint32_t> steals{0};      // runs on another worker than the releasing one
  graph_observation<Sync, std::uint64_t> begin_ns{0}, end_ns{0};  // last execution (profiling on)
};

/// Monotonic nanoseconds for per-task timings (never under the model: time is not modelled).
inline std::uint64_t graph_now_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

/// The state of one run (run, run_n or run_until): one allocation per run, shared by the
/// handle and the run itself (two references; a third for a graph destructor that waits for
/// the run, graph_claim::end_run).
template <class Sync>
struct graph_run_state {
  /// Called by the finisher of an iteration: true = run the graph again.
  std::function<bool()> again;
  /// Called once when the run is over (the graph is released, stats are final).
  std::function<void(graph_run_state&)> on_finish;
  /// The graph's name (its diagnostics), shared: a handle may be asked after the graph is gone.
  std::shared_ptr<const std::string> graph_name;
  const std::vector<graph_node<Sync>*>* sources = nullptr;
  /// The tasks whose counter is used (graph_node::counted): the ones begin_iteration resets.
  const std::vector<graph_node<Sync>*>* counted = nullptr;
  bool profile = false;
  /// The graph has a condition task: executions of one node may overlap (graph_node's observations).
  bool overlap = false;
  std::uint64_t serial = 0;  // the graph's number for this run (graph_node::run_serial)
  void* pool = nullptr;  // basic_pool<Sync>* (helping waits); null under the model's worker loop
  std::function<void(std::exception_ptr)> report;  // uncollected / non-first exceptions

  // The state is allocated once per run: padding, not alignas, keeps the two hot words off the
  // lines of the cold fields and off each other's (an over-aligned new is glibc's memalign, about
  // 600 instructions against malloc's tens; callgrind, one run of a 10-task chain).
  char pad_before_inflight_[cache_line] = {};
  /// Tasks released and not yet finished in the current iteration (seed 001's "topology join
  /// counter"). 0 = the iteration is over. Read-modify-written at every push and unit's end.
  atomic_t<Sync, std::uint64_t> inflight{0};
  char pad_after_inflight_[cache_line] = {};
  /// Set by the first exception or cancel(): no new task of this run is started. Read before
  /// every task.
  atomic_t<Sync, bool> stop{false};
  atomic_t<Sync, bool> failed{false};
  atomic_t<Sync, bool> cancelled{false};
  /// 0 running, 1 finished; waiters block on it.
  atomic_t<Sync, std::uint32_t> done{0};
  atomic_t<Sync, std::uint32_t> refs{2};

  cell_t<Sync, std::exception_ptr> error{};  // the first exception (written by the one that set failed)
  cell_t<Sync, bool> error_taken{false};     // get() rethrew it
  cell_t<Sync, std::uint64_t> iterations{0}; // finished iterations (finisher only)
  cell_t<Sync, std::uint64_t> started_ns{0}, finished_ns{0};
  /// The current pass, 1 for the first (0: none started). Written by begin_iteration while no task
  /// of the run is in flight; read by the pass's tasks (published by the pushes of the sources).
  cell_t<Sync, std::uint64_t> pass{0};
  /// The run's statistics, computed by on_finish when the run is over (the finisher, which has
  /// acquired every task's observations through [graph.F2]); read after [graph.D2]. A later run of
  /// the same graph does not change them.
  struct totals_t {
    std::uint64_t tasks_run = 0, steals = 0, critical_path_tasks = 0, critical_path_ns = 0;
  };
  cell_t<Sync, totals_t> totals{};

  bool is_done() const noexcept {
    // [graph.D2] acquire: pairs with [graph.D1]; the run's effects (every task's writes, the
    // error, the stats cells) are visible to whoever sees 1.
    return done.load(PILFER_SITE("graph.D2", acquire)) != 0;
  }

  /// Stop scheduling new tasks of this run (exception or cancel).
  void request_stop() noexcept {
    // [graph.E2] relaxed: `stop` guards no data. A worker that still reads false starts one more
    // task, which the contract allows ("tasks already released may run"); the run's end is
    // decided by `inflight`, not by this flag.
    stop.store(true, PILFER_SITE("graph.E2", relaxed));
  }
  bool stopping() const noexcept { return stop.load(PILFER_SITE("graph.E2", relaxed)); }

  /// Cancel the run (handle.cancel(), pool shutdown(cancel), a start dropped unrun): no new task
  /// starts; get() throws graph_cancelled unless a task threw first.
  void mark_cancelled() noexcept {
    // [graph.E2] relaxed: see request_stop(); the waiter reads `cancelled` after [graph.D2].
    cancelled.store(true, PILFER_SITE("graph.E2", relaxed));
    request_stop();
  }

  /// Sleep until the run is over (a thread that is not a worker of the run's pool; a worker's
  /// wait helps first and blocks through this). Notified by finish_run after [graph.D1].
  void block() const noexcept {
    while (!is_done()) done.wait(0, PILFER_SITE("graph.D2", acquire));
  }
};

/// The claim word of a graph: runs of one graph do not overlap, a mutation never races a run,
/// and the graph's destructor sleeps until a run in progress is over (lib/docs/graph.md,
/// "Claim and destruction"). The word is the last thing of the graph that a run touches.
template <class Sync>
class graph_claim {
 public:
  static constexpr std::uint32_t running = 1;    // a run is in progress
  static constexpr std::uint32_t modifying = 2;  // a mutation is in progress
  static constexpr std::uint32_t waited = 4;     // with running: the destructor waits for the run

  /// 0 -> `what` (running or modifying). On failure returns false with the word seen.
  bool try_claim(std::uint32_t what, std::uint32_t& seen) noexcept {
    seen = 0;
    // [graph.G1] acquire on success: the previous run's or mutation's writes to the nodes happen
    // before this claim; pairs with [graph.G3].
    return word_.compare_exchange_strong(seen, what, PILFER_SITE("graph.G1", acquire), PILFER_SITE("graph.G1", relaxed));
  }

  /// End a mutation, or a run that never started (nobody can be waiting: the destructor waits
  /// only for a started run, and nothing else runs beside a mutation).
  void unclaim() noexcept {
    // [graph.G3] release: the mutation happens before a later claim ([graph.G1]).
    word_.store(0, PILFER_SITE("graph.G3", release));
  }

  /// Set by the claimer of a run before the run can end; read by the destructor (which the
  /// graph's owner calls after run() returned).
  graph_run_state<Sync>* current_run = nullptr;

  /// The run ends (its on_finish, before [graph.D1]): the graph is free again. If the destructor
  /// marked the word, give it a reference to the run state to wait on: the run still holds its
  /// own, so the state is alive here; the destructor drops the new one after it saw `done`.
  void end_run(graph_run_state<Sync>& r) noexcept {
    // [graph.G3] release RMW: the run's last reads of the nodes happen before a later claim
    // ([graph.G1]) or a destructor that finds the word free ([graph.G2]). An RMW reads the latest
    // value, so it cannot miss the destructor's mark [graph.G4]. This is the run's last touch of
    // the graph: a destructor that reads 0 frees it at once.
    if ((word_.exchange(0, PILFER_SITE("graph.G3", release)) & waited) != 0) {
      // [graph.H2] relaxed: an increment while the run's own reference keeps the state alive
      // (as shared_ptr's copy); the waiter learns of it through [graph.D1] -> [graph.D2] and
      // drops it with [graph.H1] like the other two.
      r.refs.fetch_add(1, PILFER_SITE("graph.H2", relaxed));
    }
  }

  /// The graph's destructor: nullptr when no run is in progress (no run touches the graph any
  /// more). Otherwise marks the word and returns the run in progress; the caller waits until
  /// it is done, then drops the reference that end_run() added for it (release_run).
  graph_run_state<Sync>* mark_waiter() noexcept {
    // [graph.G2] acquire (load, and the CAS's failure): pairs with [graph.G3]; a run that has
    // ended made its last touch of the nodes and of this word before.
    std::uint32_t s = word_.load(PILFER_SITE("graph.G2", acquire));
    do {
      if ((s & running) == 0) return nullptr;
      // [graph.G4] acquire on success: the mark itself needs only atomicity — it carries no data,
      // what the waiter reads of the run comes through [graph.D1] -> [graph.D2], and success means
      // the run's [graph.G3] exchange is later in the word's modification order, so it sees the
      // mark. It is acquire, not relaxed, because the failure order ([graph.G2] acquire: a failed
      // CAS may read the run's [graph.G3] and return with the graph free) must not be stronger
      // than the success order for GCC 12 (-Winvalid-memory-model; C++17 allows it, GCC warns).
      // The cost is nil: once per graph destruction, and acquire is a plain load on x86/ARMv8.
    } while (!word_.compare_exchange_weak(s, s | waited, PILFER_SITE("graph.G4", acquire), PILFER_SITE("graph.G2", acquire)));
    return current_run;
  }

 private:
  atomic_t<Sync, std::uint32_t> word_{0};
};

/// Reset the counters in use (r.counted) and release the sources for one iteration. Returns the
/// source to run inline (keep_one) or nullptr (all pushed). Called by the run's starter or by the
/// finisher of the previous iteration: no task of this run is in flight, so the stores race with
/// nothing.
template <class Sync, class Ctx>
graph_node<Sync>* begin_iteration(graph_run_state<Sync>& r, Ctx& ctx, bool keep_one) {
  for (graph_node<Sync>* n : *r.counted) {
    // [graph.R1] relaxed: published to every worker that later decrements the counter by the
    // push of a source below (deque release / steal acquire) and the chain of releases from there.
    n->join.store(n->strong_in, PILFER_SITE("graph.R1", relaxed));
  }
  r.pass.write() += 1;
  const auto& src = *r.sources;
  // [graph.F1] relaxed: nobody else touches inflight now; published with the pushes below.
  r.inflight.store(src.size(), PILFER_SITE("graph.F1", relaxed));
  graph_node<Sync>* first = nullptr;
  for (graph_node<Sync>* s : src) {
    s->readied_by.store(ctx.worker());
    if (keep_one && first == nullptr) {
      first = s;
      continue;
    }
    ctx.push(s);
  }
  return first;
}

/// One unit of the iteration's inflight count is finished. Returns true when it was the last:
/// the caller then owns the end of the iteration.
template <class Sync>
bool finish_unit(graph_run_state<Sync>& r) noexcept {
  // [graph.F2] acq_rel: release publishes this task's writes (and its counter decrements) to the
  // finisher; acquire (the finisher reads 1) takes every earlier unit's release through the RMW
  // chain, so the finisher sees all of the iteration's writes before it resets the counters
  // ([graph.R1]) or reports the run done ([graph.D1]).
  return r.inflight.fetch_sub(1, PILFER_SITE("graph.F2", acq_rel)) == 1;
}

/// Drop one of the two references (handle, run). The last one frees the state; an exception
/// nobody collected with get() goes to the reporter then (a dropped handle does not lose it).
template <class Sync>
void release_run(graph_run_state<Sync>* r) noexcept {
  // [graph.H1] acq_rel: the last owner sees every write of the other (error, error_taken).
  if (r->refs.fetch_sub(1, PILFER_SITE("graph.H1", acq_rel)) != 1) return;
  // Moved out: the reporter's handler gets the last reference (it may hand it to another thread).
  if (r->error.read() && !r->error_taken.read() && r->report) r->report(std::exchange(r->error.write(), nullptr));
  Sync::destroy(r);
}

/// The run is over: publish it, then drop the run's reference.
template <class Sync>
void finish_run(graph_run_state<Sync>& r) noexcept {
  if constexpr (!Sync::is_model) {
    if (r.profile) r.finished_ns.write() = graph_now_ns();  // for wall_ns (profiling on)
  }
  if (r.on_finish) r.on_finish(r);
  // [graph.D1] release: pairs with [graph.D2]; everything the run wrote (acquired by the
  // finisher through [graph.F2]) is visible to the waiter.
  r.done.store(1, PILFER_SITE("graph.D1", release));
  r.done.notify_all();
  release_run(&r);
}

/// Record the first exception (it reaches the waiter); later ones go to ctx.report.
template <class Sync, class Ctx>
void record_error(graph_run_state<Sync>& r, Ctx& ctx, std::exception_ptr e) noexcept {
  // [graph.E1] relaxed RMW: atomicity alone picks one winner. The winner's write of `error` reaches
  // the waiter through its own [graph.F2] release and [graph.D1].
  if (!r.failed.exchange(true, PILFER_SITE("graph.E1", relaxed))) {
    r.error.write() = std::move(e);
  } else {
    ctx.report(std::move(e));
  }
  r.request_stop();
}

/// A cancellation escaped a task's body: the pool's shutdown(cancel) cancels the run; otherwise
/// it is the task's exception.
template <class Sync, class Ctx>
void cancelled_inside(graph_run_state<Sync>& r, Ctx& ctx, std::exception_ptr e) noexcept {
  if (ctx.cancelling()) r.mark_cancelled();
  else record_error(r, ctx, std::move(e));
}

/// The graph tasks the calling thread is inside, innermost first (a task may run a subflow or
/// another graph and wait for it, running other graphs' tasks meanwhile): one frame on the stack of
/// run_chain per chain in progress, linked through a thread slot, naming the task whose body runs
/// (nullptr between bodies: the slot is set once per chain, not twice per task). The graph
/// destructor walks it to tell "destroyed by one of its own running tasks" (it would wait for
/// itself) from a wait.
template <class Sync>
struct graph_task_frame {
  const graph_node<Sync>* node;
  const graph_run_state<Sync>* run;
  graph_task_frame* outer;

  struct slot_key {};
  static graph_task_frame* innermost() noexcept {
    return static_cast<graph_task_frame*>(Sync::template thread_slot<slot_key>());
  }
  static void set_innermost(graph_task_frame* f) noexcept { Sync::template thread_slot<slot_key>() = f; }
  /// The calling thread's running task of run r, or nullptr.
  static const graph_node<Sync>* running_task_of(const graph_run_state<Sync>* r) noexcept {
    for (const graph_task_frame* f = innermost(); f != nullptr; f = f->outer)
      if (f->run == r && f->node != nullptr) return f->node;
    return nullptr;
  }
};

/// Run the body of n inside the chain's frame. Returns the condition's choice (-1 for other
/// kinds) or -2 on exception. Inline: it is most of the scheduling step (a call and the spills
/// around it were ~19 of ~84 instructions per chain step).
template <class Sync, class Ctx>
PILFER_HOT_INLINE int invoke_body(graph_node<Sync>* n, graph_run_state<Sync>& r, Ctx& ctx,
                                  graph_task_frame<Sync>& frame) noexcept {
  frame.node = n;
  const int me = ctx.worker();
  // [graph.S1] relaxed, every access below: see graph_node's observations.
  if (n->run_serial.load() != r.serial) {
    // n's first execution in this run; only without condition tasks (r.overlap: reset by the start)
    n->run_serial.store(r.serial);
    n->runs.store(0);
    n->steals.store(0);
  }
  n->pass.store(r.pass.read());
  n->worker.store(me);
  const bool stolen = n->readied_by.load() != me;
  // With condition tasks (r.overlap) another execution of n may count at the same time: an RMW.
  n->runs.add(1, r.overlap);
  if (stolen) n->steals.add(1, r.overlap);
  if constexpr (!Sync::is_model) {
    if (r.profile) n->begin_ns.store(graph_now_ns());
  }
  int choice = -1;
  // An exception leaves the catch block before it is recorded or reported: a handler that hands
  // it to another thread then holds every reference this thread had (no catch block of ours
  // drops one after it).
  std::exception_ptr failure;
  bool cancellation = false;
  try {
    switch (n->kind) {
      case graph_work::plain:
        n->plain_fn();
        break;
      case graph_work::condition:
        choice = n->cond_fn();
        if (choice < 0) choice = -1;
        break;
      case graph_work::subflow:
        ctx.run_subflow(*n);
        break;
    }
  } catch (const graph_cancelled&) {
    // A run nested in this task (its subflow, or a graph it ran and waited for) was cancelled by
    // the pool's shutdown(cancel): that cancels this run too (GRAPH-5), it is not a task's
    // failure, and nobody is told of it twice (on_uncaught). Any other cancellation (a handle's
    // cancel()) escaping the body is the body's exception.
    failure = std::current_exception();
    cancellation = true;
  } catch (const task_cancelled&) {
    // The same for pool work the body waited for (a task group's or a submitted task's wait).
    failure = std::current_exception();
    cancellation = true;
  } catch (...) {
    failure = std::current_exception();
  }
  if (failure) {
    choice = -2;
    if (cancellation) cancelled_inside(r, ctx, std::move(failure));
    else record_error(r, ctx, std::move(failure));
  }
  if constexpr (!Sync::is_model) {
    if (r.profile) n->end_ns.store(graph_now_ns());
  }
  frame.node = nullptr;
  return choice;
}

/// s is ready: keep it as `next` (run on this worker without a queue round-trip) if nothing is kept
/// yet, else push it onto this worker's own deque. Inline: as a lambda GCC stopped inlining it into
/// run_chain once invoke_body grew (a call and spills per release, ~20 instructions; callgrind).
template <class Sync, class Ctx>
PILFER_HOT_INLINE void release_successor(graph_node<Sync>* s, graph_node<Sync>*& next, graph_run_state<Sync>& r,
                                         Ctx& ctx) {
  // [graph.S1] relaxed. With overlapping executions of s (graph_node), the one that runs may read
  // this or the other release's worker: its steal is counted against either releaser.
  s->readied_by.store(ctx.worker());
  if (next == nullptr) {
    next = s;  // our inflight unit passes to it
    return;
  }
  // [graph.F3] relaxed: ordered before s's own [graph.F2] decrement by the push below (release)
  // and the popper's acquire; the count cannot reach zero meanwhile, because our own unit
  // (n, then next) is still in it.
  r.inflight.fetch_add(1, PILFER_SITE("graph.F3", relaxed));
  ctx.push(s);
}

/// The scheduling step (seed 001): run n; for each successor whose counter reaches zero, keep
/// the first to run next on this worker (no queue round-trip) and push the others onto this
/// worker's own deque, where idle workers steal them. Continues with the kept successor until
/// none is left. Lock-free, allocation-free.
template <class Sync, class Ctx>
void run_chain(graph_node<Sync>* n, graph_run_state<Sync>& r, Ctx& ctx) noexcept {
  graph_task_frame<Sync> frame{nullptr, &r, graph_task_frame<Sync>::innermost()};
  graph_task_frame<Sync>::set_innermost(&frame);
  while (n != nullptr) {
    // GRAPH-5: shutdown(cancel) stops the run. The pool applies it to what it takes off a queue;
    // a task started here without a queue round-trip (the kept successor, a pass's first source)
    // must check it too.
    if (ctx.cancelling() && !r.stopping()) r.mark_cancelled();
    graph_node<Sync>* next = nullptr;
    if (!r.stopping()) {
      const int choice = invoke_body(n, r, ctx, frame);
      if (choice != -2 && !r.stopping()) {
        if (n->kind == graph_work::condition) {
          // A condition edge is weak: the chosen successor runs without counting (loops).
          if (choice >= 0 && static_cast<std::size_t>(choice) < n->succ.size()) release_successor(n->succ[static_cast<std::size_t>(choice)], next, r, ctx);
        } else {
          for (graph_node<Sync>* s : n->succ) {
            if (!s->counted()) {
              // n is s's one strong predecessor: n's end makes s ready, no counter to decrement.
              // Its writes reach s without an RMW: s runs next on this thread (sequenced after),
              // or after the push (deque release) and its pop/steal (acquire). Its counter is
              // never read, so nothing re-arms it (nor resets it: begin_iteration skips it).
              release_successor(s, next, r, ctx);
              continue;
            }
            // [graph.C1] acq_rel: release publishes n's writes to the successor's runner; acquire
            // (in whoever reads 1, the last predecessor) takes every earlier predecessor's release
            // through the RMW chain on the counter: the successor sees all its predecessors' writes.
            if (s->join.fetch_sub(1, PILFER_SITE("graph.C1", acq_rel)) == 1) {
              // Re-arm at once for a later pass through a loop (condition tasks): the next
              // decrement comes from a predecessor that runs again only after s has run, i.e.
              // after this store in happens-before. [graph.R2] relaxed: the same argument as
              // [graph.R1]; the store is published by the push/keep of s.
              s->join.store(s->strong_in, PILFER_SITE("graph.R2", relaxed));
              release_successor(s, next, r, ctx);
            }
          }
        }
      }
    }
    if (next == nullptr && finish_unit(r)) {
      // Last task of this iteration: run again (run_n / run_until) or finish the run.
      if (!r.stopping()) r.iterations.write() += 1;
      bool again = false;
      if (!r.stopping() && r.again) {
        std::exception_ptr failure;
        try {
          again = r.again();  // run_until's predicate: user code, may throw (the run fails with it)
        } catch (...) {
          failure = std::current_exception();
        }
        if (failure) record_error(r, ctx, std::move(failure));
      }
      // The predicate may have stopped the run (cancel() from inside it): no further pass begins,
      // so the run's last pass is the last one whose tasks ran (its critical path, GRAPH-9).
      if (again && !r.stopping()) next = begin_iteration(r, ctx, true);
      if (next == nullptr) finish_run(r);  // r may be freed from here on: touch nothing
    }
    n = next;
  }
  graph_task_frame<Sync>::set_innermost(frame.outer);  // (frame.run may be freed: not read)
}

}  // namespace detail
}  // namespace pilfer
