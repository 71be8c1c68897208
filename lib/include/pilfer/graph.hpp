// pilfer/graph.hpp — task graphs on the work-stealing pool (Taskflow / oneTBB flow_graph style).
//
//   pilfer::pool p;
//   pilfer::graph g("pipeline");
//   auto load  = g.emplace([&] { read(); }).name("load");
//   auto parse = g.emplace([&] { parse(); }).name("parse");
//   auto check = g.emplace([&] { verify(); }).name("check");
//   auto save  = g.emplace([&] { write(); }).name("save");
//   load.precede(parse, check);              // load -> {parse, check} -> save
//   save.succeed(parse, check);
//   pilfer::run(p, g).get();                 // once; rethrows the first exception
//   pilfer::run_n(p, g, 10).get();           // ten times in a row
//   g.dump_dot(std::cout);                   // Graphviz, with the last run's timings
//
// Build a graph once, run it any number of times (GRAPH-2). Tasks are callables:
//   void()                      plain task
//   int()                       condition task: returns the index (precede order) of the ONE
//                               successor to run next; out of range = none. Its edges are weak:
//                               the chosen successor runs without waiting for other
//                               predecessors; loops are allowed only through such edges (GRAPH-6)
//   void(pilfer::subflow&)      subflow task: builds a subgraph while it runs; the subgraph is
//                               joined (run and waited for) by sf.join() or when the task returns
//
// Scheduling (seed 001, lib/docs/graph.md): every task has a counter of unfinished predecessors,
// reset when a run begins; a finishing task decrements its successors' counters and each one that
// reaches zero is pushed onto the finishing worker's OWN deque, except the first, which the worker
// runs next without a queue round-trip; idle workers steal from there (GRAPH-3). A run started from
// outside the pool enters through the injector. No lock and no allocation per task per run: one
// allocation per run (the run's state; plus one pool task when started from outside).
//
// Contracts:
//   * basic_graph is built by one thread at a time; modifying it while a run of it is in progress
//     (or two threads modifying it at once) throws graph_error (GRAPH-8), never corrupts a run.
//   * run()/run_n()/run_until(): any thread, including a task of the same pool. Throws
//     graph_error for a cycle that does not pass through a condition task (naming its tasks),
//     for a graph with no source task, and when a run of the same graph is still in progress
//     (runs of one graph do not overlap; wait for the previous one). The graph must outlive
//     the run (its destructor waits for a run in progress, as handle.wait() does: sleeping, or
//     on a worker of the pool helping the run's nodes and then sleeping; never spinning).
//     Destroying a graph from one of its own running tasks prints an error and std::terminate()s.
//   * handle.wait(): on a worker of the pool it runs other tasks until the run is over (the
//     pool's helping wait); elsewhere it blocks. get() = wait() + rethrow the first exception
//     (GRAPH-4) or throw graph_cancelled (GRAPH-5). Later exceptions of the same run, and one
//     nobody collected with get(), go to the pool's on_uncaught handler.
//   * A run handle must not outlive its pool (as a task_handle): the exception nobody collected
//     is reported to the pool's on_uncaught when the last of the handle and the run lets go of
//     the run. With the handle dropped that is the run's end, just after it publishes `done`, so
//     the report may come after wait() or ~graph returned; pool.wait_idle() (or the pool's
//     shutdown or destruction) returns only after it (the run ends inside a pool task).
//   * pool.wait_idle() does not wait for graph runs: wait on their handles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "pilfer/detail/graph_core.hpp"
#include "pilfer/pool.hpp"

namespace pilfer {

// graph_error and graph_cancelled: pilfer/detail/graph_core.hpp (the scheduling core tells a
// nested run's cancellation from a task's failure).

/// Per-run statistics (GRAPH-9), final once the run is over.
struct graph_run_stats {
  std::uint64_t iterations = 0;           ///< completed passes over the graph (run_n / run_until)
  std::uint64_t tasks_run = 0;            ///< task bodies executed, over all passes
  std::uint64_t steals = 0;               ///< task runs on another worker than the one that released it
  std::uint64_t critical_path_tasks = 0;  ///< longest chain of tasks that ran in the last pass
  std::uint64_t critical_path_ns = 0;     ///< the same chain weighted by measured durations (profiling on)
  std::uint64_t wall_ns = 0;              ///< start of run() to the end of the last task (profiling on)
  bool failed = false;                    ///< a task threw
  bool cancelled = false;
};

/// What a run is doing (basic_graph_run::snapshot(): advisory, racy — each field is read on its own,
/// so together they need not be one moment's picture). For diagnostics, e.g. a watchdog's dump of a
/// hung run: released-but-unfinished tasks in the current pass, and whether it is stopping.
struct graph_run_snapshot {
  bool done = false;               ///< the run is over (its results are final)
  std::uint64_t in_flight = 0;     ///< tasks of the current pass released and not yet finished
  bool stopping = false;           ///< a task threw or the run was cancelled: no new task starts
  bool failed = false;             ///< a task threw
  bool cancelled = false;
};

template <class Sync = std_sync>
class basic_graph;
template <class Sync = std_sync>
class basic_graph_run;
namespace detail {
template <class Sync>
struct pool_graph_ctx;
template <class Sync>
struct graph_run_start;
}

/// A task of a graph: a cheap reference used to add edges and names. Valid while its graph is.
template <class Sync = std_sync>
class basic_graph_task {
 public:
  basic_graph_task() noexcept = default;

  /// This task runs before each of `ts` (edges this -> t).
  template <class... Ts>
  basic_graph_task& precede(const Ts&... ts) {
    (same_graph(ts), ...);
    (g_->add_edge(n_, ts.n_), ...);
    return *this;
  }
  /// This task runs after each of `ts` (edges t -> this).
  template <class... Ts>
  basic_graph_task& succeed(const Ts&... ts) {
    (same_graph(ts), ...);
    (g_->add_edge(ts.n_, n_), ...);
    return *this;
  }
  basic_graph_task& name(std::string s) {
    g_->rename(n_, std::move(s));
    return *this;
  }
  const std::string& name() const noexcept { return n_->name; }
  std::size_t num_successors() const noexcept { return n_->succ.size(); }
  std::size_t num_predecessors() const noexcept { return n_->pred.size(); }
  bool is_condition() const noexcept { return n_->kind == detail::graph_work::condition; }
  /// Last run: worker that ran it (-1: did not run), times it ran.
  int last_worker() const noexcept {
    // [graph.S1] relaxed: the run is over (the caller waited for it, [graph.D2]).
    return g_->ran_in_run(n_, g_->last_serial_) ? n_->worker.load() : -1;
  }
  std::uint32_t last_runs() const noexcept {
    return g_->ran_in_run(n_, g_->last_serial_) ? n_->runs.load() : 0;
  }
  bool valid() const noexcept { return n_ != nullptr; }

 private:
  friend class basic_graph<Sync>;
  basic_graph_task(basic_graph<Sync>* g, detail::graph_node<Sync>* n) noexcept : g_(g), n_(n) {}
  /// An edge joins two tasks of one graph: a node linked into another graph would be counted and
  /// released by that graph's runs as well (GRAPH-8: a clear error, never a corrupted run).
  void same_graph(const basic_graph_task& t) const {
    if (g_ == nullptr || t.g_ == nullptr) throw graph_error("pilfer graph: an edge to or from an empty task handle");
    if (t.g_ != g_)
      throw graph_error("pilfer graph '" + g_->name() + "': an edge between task '" + n_->name + "' and task '" +
                        t.n_->name + "' of graph '" + t.g_->name() + "' (tasks of different graphs cannot be linked)");
  }
  basic_graph<Sync>* g_ = nullptr;
  detail::graph_node<Sync>* n_ = nullptr;
};

template <class Sync>
class basic_graph {
  using node = detail::graph_node<Sync>;

 public:
  explicit basic_graph(std::string name = "graph") : name_(std::make_shared<const std::string>(std::move(name))) {}
  basic_graph(const basic_graph&) = delete;
  basic_graph& operator=(const basic_graph&) = delete;
  /// Waits for a run in progress (a graph must outlive its runs) as its handle's wait() does:
  /// sleeping off the pool; on a worker of the run's pool running the run's nodes it finds (a
  /// task that started a run and dropped its handle has them on its own deque), then sleeping
  /// with a spare standing in.
  ///
  /// Destroyed by one of its own running tasks (the task would wait for its own end, and its
  /// callable lives in the graph): a misuse no run can recover from, and the destructor is
  /// noexcept, so it prints a one-line error naming the graph and the task, then std::terminate.
  ~basic_graph() {
    detail::graph_run_state<Sync>* r = claim_.mark_waiter();
    if (r == nullptr) return;
    if (const node* self = detail::graph_task_frame<Sync>::running_task_of(r)) {
      std::fprintf(stderr,
                   "pilfer graph '%s': destroyed by its own task '%s' while the run is in progress (the "
                   "destructor would wait for the run, which waits for that task); terminating\n",
                   name().c_str(), self->name.c_str());
      std::fflush(stderr);
      std::terminate();
    }
    await_run(*r);
    detail::release_run(r);  // the reference the run's end added for this wait ([graph.H2])
  }

  const std::string& name() const noexcept { return *name_; }
  std::size_t size() const noexcept { return nodes_.size(); }
  bool empty() const noexcept { return nodes_.empty(); }

  /// Add a task (see the file comment for the three kinds). Throws graph_error while a run of
  /// this graph is in progress.
  template <class F>
  basic_graph_task<Sync> emplace(F&& f) {
    modify_guard g(*this);
    auto n = std::make_unique<node>(nodes_.size(), &pool_entry);
    n->run_slot = &claim_.current_run;
    n->name = "task" + std::to_string(nodes_.size());
    using D = std::decay_t<F>;
    if constexpr (std::is_invocable_v<D&, basic_subflow<Sync>&>) {
      n->kind = detail::graph_work::subflow;
      n->sub_fn = std::forward<F>(f);
    } else {
      static_assert(std::is_invocable_v<D&>, "pilfer::graph::emplace: the callable takes () or (subflow&)");
      using R = std::invoke_result_t<D&>;
      if constexpr (std::is_void_v<R>) {
        n->plain_fn = std::forward<F>(f);
      } else {
        static_assert(std::is_integral_v<R>, "pilfer::graph::emplace: a condition task returns an integer");
        n->kind = detail::graph_work::condition;
        // Any value outside [0, INT_MAX] is "no successor" (a wide value is never truncated into range).
        // (Widened first: std::in_range rejects bool and the character types, which are integral.)
        n->cond_fn = [g2 = D(std::forward<F>(f))]() mutable {
          const R v = g2();
          if constexpr (std::is_signed_v<R>) {
            const long long x = v;
            return x >= 0 && x <= std::numeric_limits<int>::max() ? static_cast<int>(x) : -1;
          } else {
            const unsigned long long x = v;
            return x <= static_cast<unsigned long long>(std::numeric_limits<int>::max()) ? static_cast<int>(x) : -1;
          }
        };
      }
    }
    node* raw = n.get();
    nodes_.push_back(std::move(n));
    dirty_ = true;
    return basic_graph_task<Sync>(this, raw);
  }

  /// Several tasks at once: auto [a, b, c] = g.emplace(fa, fb, fc);
  template <class F1, class F2, class... Fs>
  auto emplace(F1&& a, F2&& b, Fs&&... fs) {
    return std::tuple{emplace(std::forward<F1>(a)), emplace(std::forward<F2>(b)), emplace(std::forward<Fs>(fs))...};
  }

  /// Remove every task. Throws graph_error while a run is in progress.
  void clear() {
    modify_guard g(*this);
    nodes_.clear();
    all_.clear();
    sources_.clear();
    counted_.clear();
    topo_.clear();
    dirty_ = true;
  }

  /// Per-task timings and the critical path's measured time (profiling on by default; off makes a
  /// run cheaper by two clock reads per task, and its critical_path_ns is 0).
  void profile(bool on) {
    modify_guard g(*this);
    profile_ = on;
  }
  bool profiling() const noexcept { return profile_; }

  /// Graphviz DOT: tasks (condition tasks as diamonds, weak edges dashed and labelled with their
  /// index), each labelled with its last run's worker and (that run profiled) duration; the
  /// critical path of the last run's last pass in red. After the run is over.
  void dump_dot(std::ostream& os) const;

  /// Check the graph as run() does; throws graph_error (cycle / no source).
  void validate() {
    modify_guard g(*this);
    prepare();
  }

 private:
  template <class>
  friend class basic_graph_task;
  template <class S, class P>
  friend basic_graph_run<S> run_until(basic_pool<S>& p, basic_graph<S>& g, P pred);
  friend class basic_graph_run<Sync>;

  using claim_word = detail::graph_claim<Sync>;

  /// Held by every mutation: a mutation racing with a run (or another mutation) is an error.
  class modify_guard {
   public:
    explicit modify_guard(basic_graph& g) : g_(g) {
      std::uint32_t seen = 0;
      if (!g_.claim_.try_claim(claim_word::modifying, seen))
        throw graph_error("pilfer graph '" + g_.name() + "': " +
                          ((seen & claim_word::running) != 0 ? "modified while a run of it is in progress (wait for the run first)"
                                                             : "modified by two threads at once"));
    }
    ~modify_guard() { g_.claim_.unclaim(); }
    modify_guard(const modify_guard&) = delete;
    modify_guard& operator=(const modify_guard&) = delete;

   private:
    basic_graph& g_;
  };

  void add_edge(node* from, node* to) {
    modify_guard g(*this);
    from->succ.push_back(to);
    to->pred.push_back(from);
    dirty_ = true;
  }
  void rename(node* n, std::string s) {
    modify_guard g(*this);
    n->name = std::move(s);
  }

  /// Begin a run: claim the graph (graph_error if modified or running) and validate it.
  void claim_for_run() {
    std::uint32_t seen = 0;
    if (!claim_.try_claim(claim_word::running, seen))
      throw graph_error("pilfer graph '" + name() + "': " +
                        ((seen & claim_word::running) != 0
                             ? "run while a previous run of it is in progress (runs of one graph do not overlap)"
                             : "run while it is being modified"));
    try {
      prepare();
    } catch (...) {
      claim_.unclaim();
      throw;
    }
  }

  /// Counters' initial values, sources, the tasks whose counter is used, topological order over
  /// strong edges; cycle check.
  void prepare() {
    if (!dirty_) return;
    all_.clear();
    sources_.clear();
    counted_.clear();
    topo_.clear();
    for (auto& n : nodes_) {
      all_.push_back(n.get());
      n->strong_in = 0;
      n->weak_in = false;
    }
    for (auto& n : nodes_)
      for (node* s : n->succ) {
        if (n->kind == detail::graph_work::condition) s->weak_in = true;
        else ++s->strong_in;
      }
    has_condition_ = false;
    for (auto& n : nodes_) {
      if (n->pred.empty()) sources_.push_back(n.get());
      if (n->counted()) counted_.push_back(n.get());
      if (n->kind == detail::graph_work::condition) has_condition_ = true;
    }
    path_len_.assign(nodes_.size(), 0);
    path_ns_.assign(nodes_.size(), 0);
    path_via_.assign(nodes_.size(), nullptr);
    // Kahn over strong edges: what is left over lies on (or behind) a cycle without a condition.
    std::vector<std::uint32_t> in(nodes_.size());
    for (auto& n : nodes_) in[n->index] = n->strong_in;
    for (auto& n : nodes_)
      if (in[n->index] == 0) topo_.push_back(n.get());
    for (std::size_t i = 0; i < topo_.size(); ++i) {
      node* n = topo_[i];
      if (n->kind == detail::graph_work::condition) continue;
      for (node* s : n->succ)
        if (--in[s->index] == 0) topo_.push_back(s);
    }
    if (topo_.size() != nodes_.size()) throw graph_error(describe_cycle(in));
    if (sources_.empty() && !nodes_.empty())
      throw graph_error("pilfer graph '" + name() + "': no source task (every task has a predecessor), nothing can start");
    dirty_ = false;
  }

  /// Walk strong predecessors among the left-over nodes until one repeats: that is a cycle.
  std::string describe_cycle(const std::vector<std::uint32_t>& in) const {
    node* start = nullptr;
    for (auto& n : nodes_)
      if (in[n->index] != 0) {
        start = n.get();
        break;
      }
    std::vector<int> seen_at(nodes_.size(), -1);
    std::vector<node*> path;
    node* cur = start;
    while (seen_at[cur->index] < 0) {
      seen_at[cur->index] = static_cast<int>(path.size());
      path.push_back(cur);
      node* up = nullptr;
      for (node* p : cur->pred)
        if (p->kind != detail::graph_work::condition && in[p->index] != 0) {
          up = p;
          break;
        }
      cur = up;  // a left-over node has a left-over strong predecessor
    }
    std::vector<node*> cyc(path.begin() + seen_at[cur->index], path.end());
    std::reverse(cyc.begin(), cyc.end());  // predecessor order -> edge order
    // start at the task added first, so the message does not depend on where the walk began
    std::rotate(cyc.begin(), std::min_element(cyc.begin(), cyc.end(), [](node* x, node* y) { return x->index < y->index; }),
                cyc.end());
    std::string s = "pilfer graph '" + name() + "': cycle without a condition task: ";
    for (node* n : cyc) s += n->name + " -> ";
    s += cyc.front()->name;
    return s;
  }

  static bool pool_entry(detail::task_base* b, detail::task_op op, const detail::uncaught_sink*) noexcept;
  /// Wait until r is over: on a worker of r's pool, wait_on_worker; elsewhere sleep on `done`.
  static void await_run(detail::graph_run_state<Sync>& r);
  static void wait_on_worker(basic_pool<Sync>& p, detail::graph_run_state<Sync>& r);
  /// The pool's wait on a worker for `done`, running only the tasks `ours` accepts.
  template <class Done, class Ours, class Block>
  static void help_then_wait(basic_pool<Sync>& p, Done&& done, Ours&& ours, Block&& block);

  /// n's observations (runs, steals, worker, timings) are of run `serial`: it ran in that run.
  /// [graph.S1] relaxed: read by the run's end or after it (graph_node's observations).
  static bool ran_in_run(const node* n, std::uint64_t serial) noexcept {
    return n->run_serial.load() == serial &&
           n->runs.load() > 0;
  }

  /// The run's start (claimed, nothing released yet): in a graph with a condition task, where
  /// executions of one node may overlap, every node's observations start over here rather than at
  /// its first execution (two first executions could overlap).
  void start_observations(std::uint64_t serial) noexcept {
    if (!has_condition_) return;
    for (node* n : all_) {
      // [graph.S1] relaxed: no task of the run is released yet; published by the sources' pushes.
      n->run_serial.store(serial);
      n->runs.store(0);
      n->steals.store(0);
      n->pass.store(0);
    }
  }

  /// The run's end (its on_finish, by the finisher: every task's observations are acquired through
  /// [graph.F2]): its statistics into the run state, where a later run cannot change them. One walk
  /// over the tasks and their predecessors, in the graph's scratch (no allocation).
  void finish_observations(detail::graph_run_state<Sync>& r) noexcept {
    typename detail::graph_run_state<Sync>::totals_t t;
    last_pass_ = r.pass.read();
    last_profile_ = r.profile;
    critical_path(r.serial, last_pass_, last_profile_, path_len_, path_ns_, path_via_, t.critical_path_tasks,
                  t.critical_path_ns, nullptr, &t.tasks_run, &t.steals);
    r.totals.write() = t;
  }

  /// GRAPH-9's critical path: the longest chain (in tasks) over strong edges among the tasks that
  /// ran in pass `pass` of run `serial`; among chains of equal length the longest measured one when
  /// `timed`. ns = its measured time when `timed`, else 0. len/dur/via: scratch of size() entries.
  /// runs/steals (if given): the sums over the tasks that ran in run `serial`.
  void critical_path(std::uint64_t serial, std::uint64_t pass, bool timed, std::vector<std::uint64_t>& len,
                     std::vector<std::uint64_t>& dur, std::vector<node*>& via, std::uint64_t& tasks,
                     std::uint64_t& ns, std::vector<char>* on_path, std::uint64_t* runs = nullptr,
                     std::uint64_t* steals = nullptr) const noexcept;

  /// Shared with each run's state: a handle reports the name after the graph is gone.
  std::shared_ptr<const std::string> name_;
  std::vector<std::unique_ptr<node>> nodes_;
  std::vector<node*> all_, sources_, topo_;
  std::vector<node*> counted_;  // tasks with two or more strong predecessors (graph_node::counted)
  bool dirty_ = true;
  bool profile_ = true;
  bool has_condition_ = false;  // some task is a condition task (graph_run_state::overlap)
  std::uint64_t last_serial_ = 0;  // the last run's number (graph_node::run_serial); 0 = none yet
  std::uint64_t last_pass_ = 0;    // the last run's last pass (graph_node::pass), set at its end
  bool last_profile_ = false;      // the last run was profiled (its timings are the nodes')
  std::vector<std::uint64_t> path_len_, path_ns_;  // critical_path's scratch at a run's end
  std::vector<node*> path_via_;
  claim_word claim_;
};

using graph = basic_graph<>;
using graph_task = basic_graph_task<>;

/// A subgraph built by a running task (Taskflow's subflow). join() runs it on the pool and waits
/// (helping); a subflow not joined explicitly is joined when its task returns. Its exception
/// propagates out of join() into the parent task (and so to the parent run's waiter).
template <class Sync>
class basic_subflow {
 public:
  /// Adds a task; after join() it is a graph_error (the subflow has run: the task would never run).
  template <class F>
  basic_graph_task<Sync> emplace(F&& f) {
    not_joined();
    return g_.emplace(std::forward<F>(f));
  }
  template <class F1, class F2, class... Fs>
  auto emplace(F1&& a, F2&& b, Fs&&... fs) {
    not_joined();
    return g_.emplace(std::forward<F1>(a), std::forward<F2>(b), std::forward<Fs>(fs)...);
  }
  void join();
  bool joined() const noexcept { return joined_; }
  basic_pool<Sync>& pool() noexcept { return pool_; }
  basic_graph<Sync>& graph() noexcept { return g_; }

 private:
  friend struct detail::pool_graph_ctx<Sync>;
  basic_subflow(basic_pool<Sync>& p, const std::string& parent) : pool_(p), g_(parent + ".subflow") {}
  void not_joined() const {
    if (joined_) throw graph_error("pilfer graph '" + g_.name() + "': emplace after join() (the subflow has run)");
  }
  basic_pool<Sync>& pool_;
  basic_graph<Sync> g_;
  bool joined_ = false;
};

using subflow = basic_subflow<std_sync>;

/// Handle to a run. Move-only; must not outlive its pool. ready(): any thread, wait-free.
/// wait()/get(): see file comment.
/// stats(): after the run is over (wait() first); final: later runs of the graph do not change it.
/// snapshot(): any time (racy, for diagnostics). Every member needs only the run's state (it
/// carries the graph's name for graph_cancelled): they work after the graph is destroyed.
template <class Sync>
class basic_graph_run {
 public:
  basic_graph_run() noexcept = default;
  basic_graph_run(basic_graph_run&& o) noexcept
      : r_(std::exchange(o.r_, nullptr)), error_(std::exchange(o.error_, nullptr)) {}
  basic_graph_run& operator=(basic_graph_run&& o) noexcept {
    if (this != &o) {
      reset();
      r_ = std::exchange(o.r_, nullptr);
      error_ = std::exchange(o.error_, nullptr);
    }
    return *this;
  }
  ~basic_graph_run() { reset(); }

  bool valid() const noexcept { return r_ != nullptr; }
  bool ready() const { return state().is_done(); }

  void wait() const {
    basic_graph<Sync>::await_run(state());
  }

  /// wait(), then rethrow the run's first exception or throw graph_cancelled. Any number of
  /// times: the handle keeps the exception (taken out of the run's shared state) until it is
  /// destroyed, as a std::shared_future does, so under ThreadSanitizer a read of it on another
  /// thread must be ordered before the handle's destruction (SPEC POOL-10).
  void get() {
    wait();
    auto& r = state();
    if (!error_ && r.error.read()) {
      // The handle takes the exception out of the shared run state: the thread that rethrows it
      // is then the one that drops its last reference, not a worker freeing the state later (a
      // reference count inside libstdc++ that ThreadSanitizer cannot see would be the only order
      // between the catcher's reads of the exception and that free).
      error_ = std::exchange(r.error.write(), nullptr);
      r.error_taken.write() = true;
    }
    if (error_) std::rethrow_exception(error_);
    if (r.cancelled.load(PILFER_SITE("graph.E2", relaxed))) throw graph_cancelled(*r.graph_name);
  }

  /// Stop the run: tasks not yet started are not started (those running finish); get() throws
  /// graph_cancelled (unless a task threw first). Returns at once; wait() for the end. A run that
  /// is over is not changed (GRAPH-5 stops runs in progress); a cancel racing the run's end may
  /// find it in progress (cancelled, though every task ran) or over.
  void cancel() noexcept {
    auto& r = state();
    if (r.is_done()) return;  // [graph.D2]: over, its outcome is final
    r.mark_cancelled();
  }

  /// Any thread, wait-free, while the handle holds the run (also while it is in progress).
  graph_run_snapshot snapshot() const {
    auto& r = state();
    graph_run_snapshot s;
    s.done = r.is_done();
    // [graph.Q1] relaxed: a diagnostic read; nothing is read through it.
    s.in_flight = r.inflight.load(PILFER_SITE("graph.Q1", relaxed));
    s.stopping = r.stopping();
    s.failed = r.failed.load(PILFER_SITE("graph.E1", relaxed));
    s.cancelled = r.cancelled.load(PILFER_SITE("graph.E2", relaxed));
    return s;
  }

  graph_run_stats stats() const {
    auto& r = state();
    if (!r.is_done()) throw std::logic_error("pilfer graph '" + *r.graph_name + "': stats() before the run is over");
    graph_run_stats s;
    s.iterations = r.iterations.read();
    const auto& t = r.totals.read();  // computed at the run's end (basic_graph::finish_observations)
    s.tasks_run = t.tasks_run;
    s.steals = t.steals;
    s.critical_path_tasks = t.critical_path_tasks;
    s.critical_path_ns = t.critical_path_ns;
    if (r.profile) s.wall_ns = r.finished_ns.read() - r.started_ns.read();
    s.failed = r.failed.load(PILFER_SITE("graph.E1", relaxed));
    s.cancelled = r.cancelled.load(PILFER_SITE("graph.E2", relaxed));
    return s;
  }

 private:
  template <class S, class P>
  friend basic_graph_run<S> run_until(basic_pool<S>& p, basic_graph<S>& g, P pred);
  explicit basic_graph_run(detail::graph_run_state<Sync>* r) noexcept : r_(r) {}
  detail::graph_run_state<Sync>& state() const {
    if (r_ == nullptr) throw std::logic_error("pilfer graph run handle: no run (default-constructed or moved from)");
    return *r_;
  }
  void reset() noexcept {
    if (r_) detail::release_run(std::exchange(r_, nullptr));
    error_ = nullptr;
  }
  detail::graph_run_state<Sync>* r_ = nullptr;
  std::exception_ptr error_;  // the run's first exception, once get() took it
};

using graph_run = basic_graph_run<>;

namespace detail {

/// The pool's side of the scheduling step: push = the calling worker's own deque.
template <class Sync>
struct pool_graph_ctx {
  basic_pool<Sync>& pool;
  int index;
  int worker() const noexcept { return index; }
  // From a worker the pool's enqueue pushes onto the calling worker's own deque (POOL-5) and
  // wakes a sleeper if nobody searches; it counts the node as pending until a worker runs it.
  void push(graph_node<Sync>* n) { pool_access<Sync>::enqueue(pool, n, task_options{}); }
  void report(std::exception_ptr e) const noexcept { pool_access<Sync>::sink(pool).report(std::move(e)); }
  bool cancelling() const noexcept { return pool_access<Sync>::cancelling(pool); }
  void run_subflow(graph_node<Sync>& n);
};

/// The start of a run begun outside the pool: one pool task (through the injector) that releases
/// the sources and runs the first. A wait for the run takes it like one of the run's nodes (it is
/// the run's, and nobody else may be free to run it: POOL-20). Dropped unrun (shutdown(cancel)),
/// it ends the run cancelled, so the run's waiters return.
template <class Sync>
struct graph_run_start final : task_base {
  graph_run_start(graph_run_state<Sync>* run, basic_pool<Sync>* on) noexcept
      : task_base(&entry, task_kind::spawn, true), r(run), p(on) {}
  graph_run_state<Sync>* r;
  basic_pool<Sync>* p;

  static bool entry(task_base* b, task_op op, const uncaught_sink* sink) noexcept {
    auto* self = static_cast<graph_run_start*>(b);
    graph_run_state<Sync>* run = self->r;
    basic_pool<Sync>* pool = self->p;
    Sync::destroy(self);
    if (op == task_op::run) {
      std::exception_ptr failure;
      try {
        pool_graph_ctx<Sync> ctx{*pool, static_cast<int>(*pool->current_worker_index())};
        run_chain(begin_iteration(*run, ctx, true), *run, ctx);
        return true;
      } catch (...) {
        failure = std::current_exception();
      }
      if (sink != nullptr) sink->report(std::move(failure));
    }
    end_cancelled(*run);
    return op != task_op::destroy;
  }

  /// The run ends without its start having run: cancelled, so its waiters return.
  static void end_cancelled(graph_run_state<Sync>& run) noexcept {
    run.mark_cancelled();
    finish_run(run);
  }
};

}  // namespace detail

/// Run g on p until pred() returns true; pred is checked before each pass (so it may run zero
/// times) by the worker that finished the previous pass. An empty graph has no pass: the run is
/// over at once with 0 iterations and pred is never called (as Taskflow; a pass of nothing would
/// only spin on pred).
template <class Sync, class P>
basic_graph_run<Sync> run_until(basic_pool<Sync>& p, basic_graph<Sync>& g, P pred) {
  g.claim_for_run();
  detail::graph_run_state<Sync>* r;
  try {
    r = Sync::template make<detail::graph_run_state<Sync>>();
  } catch (...) {
    g.claim_.unclaim();
    throw;
  }
  g.claim_.current_run = r;
  r->graph_name = g.name_;
  r->counted = &g.counted_;
  r->sources = &g.sources_;
  r->profile = g.profile_;
  r->pool = &p;
  r->report = [&p](std::exception_ptr e) { detail::pool_access<Sync>::sink(p).report(std::move(e)); };
  r->on_finish = [&g](detail::graph_run_state<Sync>& run) {
    g.finish_observations(run);
    g.claim_.end_run(run);
  };
  r->overlap = g.has_condition_;
  r->serial = ++g.last_serial_;  // the nodes' observations start over when each first runs in it
  g.start_observations(r->serial);
  if constexpr (!Sync::is_model) {
    if (r->profile) r->started_ns.write() = detail::graph_now_ns();  // wall_ns is reported only with profiling
  }
  bool first = false;
  try {
    first = !g.empty() && !pred();
  } catch (...) {
    detail::finish_run(*r);
    detail::release_run(r);
    throw;
  }
  basic_graph_run<Sync> h(r);
  if (!first) {
    detail::finish_run(*r);
    return h;
  }
  r->again = [pred = std::move(pred)]() mutable { return !pred(); };
  if (auto w = p.current_worker_index()) {
    // Inside a task: release the sources onto this worker's deque; the caller goes on.
    detail::pool_graph_ctx<Sync> ctx{p, static_cast<int>(*w)};
    detail::begin_iteration(*r, ctx, false);
  } else {
    // Outside: one pool task through the injector releases the sources and runs the first
    // (detail::graph_run_start). If it cannot be queued (pool closed, no memory), the run ends
    // cancelled (graph unclaimed, the run's reference dropped) and the error propagates; h drops
    // the other reference.
    detail::graph_run_start<Sync>* s = nullptr;
    try {
      s = Sync::template make<detail::graph_run_start<Sync>>(r, &p);
    } catch (...) {
      detail::graph_run_start<Sync>::end_cancelled(*r);
      throw;
    }
    try {
      detail::pool_access<Sync>::enqueue(p, s, task_options{});
    } catch (...) {
      detail::graph_run_start<Sync>::entry(s, detail::task_op::destroy, nullptr);
      throw;
    }
  }
  return h;
}

/// Run g once.
template <class Sync>
basic_graph_run<Sync> run(basic_pool<Sync>& p, basic_graph<Sync>& g) {
  bool once = false;
  return run_until(p, g, [once]() mutable { return std::exchange(once, true); });
}

/// Run g n times in a row (each pass after the previous one finished).
template <class Sync>
basic_graph_run<Sync> run_n(basic_pool<Sync>& p, basic_graph<Sync>& g, std::size_t n) {
  return run_until(p, g, [n]() mutable {
    if (n == 0) return true;
    --n;
    return false;
  });
}

// ---------------------------------------------------------------- out of line

template <class Sync>
bool basic_graph<Sync>::pool_entry(detail::task_base* b, detail::task_op op, const detail::uncaught_sink*) noexcept {
  auto* n = static_cast<node*>(b);
  if (op == detail::task_op::destroy) return false;  // the graph owns its nodes
  detail::graph_run_state<Sync>& r = *n->run();
  auto* p = static_cast<basic_pool<Sync>*>(r.pool);
  detail::pool_graph_ctx<Sync> ctx{*p, static_cast<int>(p->current_worker_index().value_or(~0u))};
  if (op == detail::task_op::cancel) r.mark_cancelled();  // pool shutdown(cancel)
  detail::run_chain(n, r, ctx);  // a stopped run skips the body and releases nothing
  return true;
}

/// handle.wait() on a worker of the pool: run what it waits for — this run's nodes found on the
/// own deque (the run's sources and successors released by this worker go there); anything else
/// found there is handed on (to the injector, or a join branch back to its joiner), as join does —
/// then the pool's wait: help only this run's nodes, and block with a spare worker standing in
/// (POOL-19, POOL-20), so the run finishes even when its start sits in the injector or on a
/// blocked thread. A one-worker pool thus finishes a graph run started and waited for inside a task.
template <class Sync>
void basic_graph<Sync>::await_run(detail::graph_run_state<Sync>& r) {
  if (r.is_done()) return;
  auto* p = static_cast<basic_pool<Sync>*>(r.pool);
  if (p != nullptr && detail::pool_access<Sync>::current(*p) != nullptr) {
    wait_on_worker(*p, r);
  } else {
    r.block();
  }
}

template <class Sync>
void basic_graph<Sync>::wait_on_worker(basic_pool<Sync>& p, detail::graph_run_state<Sync>& r) {
  help_then_wait(
      p, [&r] { return r.is_done(); },
      [&r](detail::task_base* x) {
        if (x->fn == &detail::graph_run_start<Sync>::entry) return static_cast<detail::graph_run_start<Sync>*>(x)->r == &r;
        return x->fn == &pool_entry && static_cast<node*>(x)->run() == &r;
      },
      [&r] { r.block(); });
}

template <class Sync>
template <class Done, class Ours, class Block>
void basic_graph<Sync>::help_then_wait(basic_pool<Sync>& p, Done&& done, Ours&& ours, Block&& block) {
  using access = detail::pool_access<Sync>;
  auto* w = access::current(p);
  while (!done()) {
    std::optional<detail::task_base*> t = access::pop_own(*w);
    if (!t) break;
    if (ours(*t)) {
      access::run_taken(p, *w, *t);  // may finish the run (the caller keeps what done() reads alive)
    } else {
      access::hand_on(p, *w, *t);  // not runnable on this frame (it may wait for us)
    }
  }
  if (done()) return;
  access::wait_anywhere(p, *w, done, ours, block);
}

template <class Sync>
void detail::pool_graph_ctx<Sync>::run_subflow(graph_node<Sync>& n) {
  basic_subflow<Sync> sf(pool, n.name);
  n.sub_fn(sf);
  if (!sf.joined()) sf.join();
}

template <class Sync>
void basic_subflow<Sync>::join() {
  if (joined_) throw graph_error("pilfer graph '" + g_.name() + "': subflow joined twice");
  joined_ = true;
  if (g_.empty()) return;
  run(pool_, g_).get();
}

template <class Sync>
void basic_graph<Sync>::critical_path(std::uint64_t serial, std::uint64_t pass, bool timed, std::vector<std::uint64_t>& len,
                                      std::vector<std::uint64_t>& dur, std::vector<node*>& via, std::uint64_t& tasks,
                                      std::uint64_t& ns, std::vector<char>* on_path, std::uint64_t* runs,
                                      std::uint64_t* steals) const noexcept {
  tasks = 0;
  ns = 0;
  if (nodes_.empty() || dirty_) return;
  // Longer in tasks wins; at equal length the longer measured time (timed only).
  const auto longer = [](std::uint64_t l1, std::uint64_t d1, std::uint64_t l2, std::uint64_t d2) {
    return l1 > l2 || (l1 == l2 && d1 > d2);
  };
  node* best_end = nullptr;
  // Topological over strong edges: a task's strong predecessors come before it. len = 0 marks a
  // task that did not run in the pass (a chain through it does not count).
  for (node* v : topo_) {
    const std::size_t i = v->index;
    len[i] = 0;
    // [graph.S1] relaxed: read at the run's end or after it (graph_node's observations).
    if (v->run_serial.load() != serial) continue;
    const std::uint32_t ran = v->runs.load();
    if (ran == 0) continue;
    if (runs != nullptr) *runs += ran;
    if (steals != nullptr) *steals += v->steals.load();
    if (v->pass.load() != pass) continue;
    std::uint64_t d = 0;
    if (timed) {
      const std::uint64_t b = v->begin_ns.load();
      const std::uint64_t e = v->end_ns.load();
      d = e > b ? e - b : 0;
    }
    std::uint64_t bl = 0, bd = 0;
    node* from = nullptr;
    for (node* p : v->pred) {
      const std::size_t k = p->index;
      if (len[k] == 0 || p->kind == detail::graph_work::condition) continue;
      if (longer(len[k], dur[k], bl, bd)) {
        bl = len[k];
        bd = dur[k];
        from = p;
      }
    }
    len[i] = bl + 1;
    dur[i] = bd + d;
    via[i] = from;
    if (best_end == nullptr || longer(len[i], dur[i], tasks, ns)) {
      best_end = v;
      tasks = len[i];
      ns = dur[i];
    }
  }
  if (on_path != nullptr) {
    on_path->assign(nodes_.size(), 0);
    for (node* v = best_end; v != nullptr; v = via[v->index]) (*on_path)[v->index] = 1;
  }
}

template <class Sync>
void basic_graph<Sync>::dump_dot(std::ostream& os) const {
  std::vector<char> on_path;
  std::vector<std::uint64_t> len(nodes_.size()), dur(nodes_.size());
  std::vector<node*> via(nodes_.size());
  std::uint64_t t = 0, d = 0;
  critical_path(last_serial_, last_pass_, last_profile_, len, dur, via, t, d, &on_path);
  const auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  os << "digraph \"" << esc(name()) << "\" {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  os << "  label=\"" << esc(name()) << ": critical path " << t << " tasks";
  if (last_profile_) os << ", " << (d / 1000) << "." << (d % 1000) / 100 << " us";
  os << " (red)\";\n";
  for (const auto& n : nodes_) {
    os << "  n" << n->index << " [label=\"" << esc(n->name);
    if (ran_in_run(n.get(), last_serial_)) {
      // [graph.S1] relaxed: after the run (the caller waited for it).
      if (last_profile_) {
        const std::uint64_t b = n->begin_ns.load();
        const std::uint64_t e = n->end_ns.load();
        const std::uint64_t ns = e > b ? e - b : 0;
        os << "\\n" << (ns / 1000) << "." << (ns % 1000) / 100 << " us";
      }
      os << "\\nworker " << n->worker.load();
      const std::uint32_t runs = n->runs.load();
      if (runs > 1) os << ", ran " << runs << "x";
    } else {
      os << "\\n(not run)";
    }
    os << "\"";
    if (n->kind == detail::graph_work::condition) os << ", shape=diamond";
    if (n->kind == detail::graph_work::subflow) os << ", peripheries=2";
    if (!on_path.empty() && on_path[n->index]) os << ", color=red, penwidth=2";
    os << "];\n";
  }
  for (const auto& n : nodes_)
    for (std::size_t i = 0; i < n->succ.size(); ++i) {
      os << "  n" << n->index << " -> n" << n->succ[i]->index;
      if (n->kind == detail::graph_work::condition) os << " [style=dashed, label=\"" << i << "\"]";
      os << ";\n";
    }
  os << "}\n";
}

}  // namespace pilfer
