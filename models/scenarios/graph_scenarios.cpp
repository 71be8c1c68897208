// Graph scenarios on the real scheduling core of pilfer's task graphs
// (lib/include/pilfer/detail/graph_core.hpp: begin_iteration, run_chain, the dependency counters
// [graph.C1], the single-predecessor release without a counter, the inflight count [graph.F*],
// the done flag [graph.D*], the graph's claim word [graph.G*] and the run state's references
// [graph.H*]) instantiated with checker_sync (and, for the mutants, with a policy that compiles
// the core with a known-wrong release rule: graph_mutation). Each modelled thread is a worker with its own real pilfer::basic_deque; the
// worker context pushes ready successors onto the calling worker's deque, as the pool's does,
// and idle workers pop their own deque or steal from the others' (the pool's worker loop, minus
// parking, which the pool scenarios cover).
#include "scenarios.hpp"

#include <pilfer/detail/graph_core.hpp>

#include <exception>
#include <memory>
#include <vector>

namespace pilfer::model::scenarios {
namespace {

using node_t = pilfer::detail::graph_node<S>;
using run_t = pilfer::detail::graph_run_state<S>;

bool no_pool_entry(pilfer::detail::task_base*, pilfer::detail::task_op, const pilfer::detail::uncaught_sink*) noexcept {
  return false;
}

/// A worker of the scenario: its deque, and what it pushed (owner-only cells).
template <class Sy = S>
struct model_worker {
  pilfer::basic_deque<pilfer::detail::graph_node<Sy>*, Sy> d{2};
  cell_t<Sy, int> pushes{0};
};

template <class Sy = S>
struct model_ctx {
  model_worker<Sy>* me;
  int index;
  int worker() const noexcept { return index; }
  void push(pilfer::detail::graph_node<Sy>* n) {
    me->d.push(n);
    me->pushes.write() += 1;
  }
  void report(std::exception_ptr) const noexcept { PILFER_MODEL_ASSERT(false); }
  bool cancelling() const noexcept { return false; }  // no pool shutdown in these scenarios
  void run_subflow(pilfer::detail::graph_node<Sy>&) const { PILFER_MODEL_ASSERT(false); }
};

/// The graph and run of a scenario on `workers` workers, and the pool's worker loop minus parking:
/// worker 0 starts the run (begin_iteration + run_chain, as the run's start task does); every
/// worker pops its own deque, else steals from the others', until the run is done.
template <class Sy = S>
struct graph_fixture : scenario {
  using node = pilfer::detail::graph_node<Sy>;
  using run_state = pilfer::detail::graph_run_state<Sy>;
  unsigned workers;
  int passes;
  int give_up;  // >0: a worker other than 0 leaves after this many failed rounds (bounds the
                // exploration with 3 workers; worker 0 stays until the run is done, so it ends)
  std::vector<std::unique_ptr<node>> nodes;
  std::vector<node*> all, sources, counted;
  model_worker<Sy> w[3];
  run_state* run = nullptr;
  cell_t<Sy, int> pass_left{0};
  graph_fixture(unsigned n, int p, int g) : scenario(n), workers(n), passes(p), give_up(g) {}

  node* add(std::function<void()> f) {
    nodes.push_back(std::make_unique<node>(nodes.size(), &no_pool_entry));
    nodes.back()->plain_fn = std::move(f);
    all.push_back(nodes.back().get());
    return nodes.back().get();
  }
  static void edge(node* x, node* y) {
    x->succ.push_back(y);
    y->pred.push_back(x);
    ++y->strong_in;
  }
  /// After the edges: sources, counted tasks and the run (as basic_graph::prepare and run_until).
  void start_run() {
    for (node* n : all) {
      if (n->pred.empty()) sources.push_back(n);
      if (n->counted()) counted.push_back(n);
    }
    run = Sy::template make<run_state>();
    run->counted = &counted;
    run->sources = &sources;
    pass_left.write() = passes - 1;
    run->again = [this] {
      if (pass_left.read() == 0) return false;
      pass_left.write() -= 1;
      return true;
    };
    run->serial = 1;  // the nodes' observations (run_serial 0) start over at their first execution
    for (unsigned i = 0; i < workers; ++i) w[i].d.release_owner();
  }

  /// True: this worker saw the run done ([graph.D2]); false: it gave up early (give_up).
  bool work(unsigned i) {
    model_ctx<Sy> ctx{&w[i], static_cast<int>(i)};
    if (i == 0) pilfer::detail::run_chain(pilfer::detail::begin_iteration(*run, ctx, true), *run, ctx);
    int failed_rounds = 0;
    while (!run->is_done()) {
      if (i != 0 && give_up > 0 && failed_rounds >= give_up) {
        while (auto n = w[i].d.pop()) pilfer::detail::run_chain(*n, *run, ctx);  // own deque first (worker 0 steals the rest)
        return false;
      }
      if (auto n = w[i].d.pop()) {
        pilfer::detail::run_chain(*n, *run, ctx);
        continue;
      }
      bool got = false;
      for (unsigned k = 1; k < workers && !got; ++k) {
        auto r = w[(i + k) % workers].d.get_stealer().steal();
        if (r.is_success()) {
          pilfer::detail::run_chain(r.value, *run, ctx);
          got = true;
        }
      }
      if (!got) {
        ++failed_rounds;
        Sy::yield();
      }
    }
    return true;
  }

  int total_pushes() {
    int pushes = 0;
    for (unsigned i = 0; i < workers; ++i) pushes += w[i].pushes.read();
    return pushes;
  }
};

// Invariant (GRAPH-1, GRAPH-3): diamond A -> {B, C} -> D on `workers` workers, run `passes` times
// in a row (run_n: the finisher of a pass resets the counters and releases the source again).
// In every pass each task runs exactly once; B and C run after A and read its write; D runs
// after B and C and reads both their writes (plain cells: a missing happens-before is a data
// race); the run ends (done) only after D. Exactly one successor per pass is pushed (A keeps
// one of B/C, the last of B/C keeps D), and it is pushed by the worker that ran A onto its OWN
// deque. B and C (one predecessor each) are released by A's end without a counter; D (two) by
// the counter [graph.C1], whose value is back at 2 after every pass.
// @verifies GRAPH-1 GRAPH-3
template <class Sy = S>
struct diamond : graph_fixture<Sy> {
  using base = graph_fixture<Sy>;
  cell_t<Sy, int> a{0}, b{0}, c{0}, d{0};
  cell_t<Sy, int> a_ran{0}, b_ran{0}, c_ran{0}, d_ran{0};
  diamond(unsigned n, int p, int g = 0) : base(n, p, g) {}

  void before() override {
    auto* A = this->add([this] {
      a.write() += 1;
      a_ran.write() += 1;
    });
    auto* B = this->add([this] {
      b.write() = a.read() + 1;
      b_ran.write() += 1;
    });
    auto* C = this->add([this] {
      c.write() = a.read() + 2;
      c_ran.write() += 1;
    });
    auto* D = this->add([this] {
      d.write() = b.read() + c.read();
      d_ran.write() += 1;
      PILFER_MODEL_ASSERT(b_ran.read() == d_ran.read() && c_ran.read() == d_ran.read());  // after B and C
    });
    base::edge(A, B);
    base::edge(A, C);
    base::edge(B, D);
    base::edge(C, D);
    this->start_run();
  }

  void thread(unsigned i) override {
    if (!this->work(i)) return;
    // the run is over: every pass's writes are visible ([graph.D2] acquire)
    PILFER_MODEL_ASSERT(d_ran.read() == this->passes);
    PILFER_MODEL_ASSERT(d.read() == 2 * a.read() + 3);
  }

  void after() override {
    const int p = this->passes;
    PILFER_MODEL_ASSERT(a_ran.read() == p && b_ran.read() == p && c_ran.read() == p &&
                        d_ran.read() == p);  // GRAPH-1: exactly once per pass
    PILFER_MODEL_ASSERT(this->run->iterations.read() == static_cast<std::uint64_t>(p));
    // GRAPH-3: one push per pass (the successor A did not keep), onto the deque of the worker
    // that ran A in that pass; the other releases ran inline on the releasing worker.
    PILFER_MODEL_ASSERT(this->total_pushes() == p);
    if (p == 1) {
      const int ranA = this->nodes[0]->worker.load();  // after the run
      PILFER_MODEL_ASSERT(ranA >= 0 && this->w[ranA].pushes.read() == 1);
    }
    PILFER_MODEL_ASSERT(this->counted.size() == 1);  // D
    for (auto* n : this->counted) PILFER_MODEL_ASSERT(n->join.load(PILFER_SITE("scenario.join", relaxed)) == n->strong_in);
    pilfer::detail::release_run(this->run);  // the handle's reference (the run dropped its own)
  }
};

// Invariant (GRAPH-1, GRAPH-3; the single-predecessor release of lib/docs/graph.md): a chain with
// a branch, A -> {B, E}, B -> C, every task with ONE predecessor, so no counter is used: each is
// released by its predecessor's end alone. On 2 workers, `passes` passes: every task runs exactly
// once per pass, after its predecessor, and reads its writes (plain cells: a missing
// happens-before is a data race) — B and C run on the worker that ran A (kept: sequenced after),
// E is pushed onto that worker's own deque and may be stolen (the deque's release/acquire is all
// that orders it after A). One push per pass (E); no counter is read or written.
// @verifies GRAPH-1 GRAPH-3
struct single_predecessor : graph_fixture<S> {
  cell_t<S, int> a{0}, b{0}, c{0}, e{0};
  cell_t<S, int> a_ran{0}, b_ran{0}, c_ran{0}, e_ran{0};
  single_predecessor(int p) : graph_fixture<S>(2u, p, 0) {}

  void before() override {
    auto* A = add([this] {
      a.write() += 1;
      a_ran.write() += 1;
    });
    auto* B = add([this] {
      b.write() = a.read() * 10;  // reads A's write of this pass
      b_ran.write() += 1;
      PILFER_MODEL_ASSERT(a_ran.read() == b_ran.read());
    });
    auto* C = add([this] {
      c.write() = b.read() + 1;  // reads B's (and through it A's) write
      c_ran.write() += 1;
      PILFER_MODEL_ASSERT(b_ran.read() == c_ran.read());
    });
    auto* E = add([this] {
      e.write() = a.read() + 2;
      e_ran.write() += 1;
      PILFER_MODEL_ASSERT(a_ran.read() == e_ran.read());
    });
    edge(A, B);
    edge(B, C);
    edge(A, E);
    start_run();
  }

  void thread(unsigned i) override {
    if (!work(i)) return;
    PILFER_MODEL_ASSERT(c.read() == 10 * passes + 1 && e.read() == passes + 2);  // [graph.D2]: the last pass's writes
  }

  void after() override {
    PILFER_MODEL_ASSERT(a_ran.read() == passes && b_ran.read() == passes && c_ran.read() == passes &&
                        e_ran.read() == passes);  // GRAPH-1: exactly once per pass
    PILFER_MODEL_ASSERT(run->iterations.read() == static_cast<std::uint64_t>(passes));
    PILFER_MODEL_ASSERT(total_pushes() == passes);  // GRAPH-3: E, once per pass
    PILFER_MODEL_ASSERT(counted.empty());
    for (auto* n : all) PILFER_MODEL_ASSERT(n->join.load(PILFER_SITE("scenario.join", relaxed)) == 0);  // never touched
    pilfer::detail::release_run(run);
  }
};

/// The core compiled with every successor released by its first finished predecessor (the
/// single-predecessor path taken without its condition): lib/docs/graph.md, "Single predecessor".
struct uncounted_release_sync : checker_sync {
  static constexpr pilfer::detail::graph_mutation graph_mutation = pilfer::detail::graph_mutation::uncounted_release;
};

// Invariant (GRAPH-10, the graph's destructor; lib/docs/graph.md "Claim and destruction"): a
// graph destroyed while its run is in progress sleeps until the run is over, then frees what the
// run used, and the run touches nothing of the graph after that: thread 0 runs the run (one task
// A, then finish_run -> graph_claim::end_run [graph.G3]); thread 1 drops the run's handle and
// destroys the graph (graph_claim::mark_waiter [graph.G2]/[graph.G4], the run state's block()
// [graph.D2], release_run). The claim word and A are freed by thread 1, so an access by the run
// that does not happen before their destruction is a use after free, and A's write must be
// visible to the destructor (plain cell). The run state has three owners here (handle, run,
// the waiting destructor [graph.H2]): it is freed exactly once (no use after free, no leak).
// A destructor that returns before the run is over fails the assertion on `a_ran`.
// @verifies GRAPH-10
struct destroy_waits : scenario {
  using claim_t = pilfer::detail::graph_claim<S>;
  std::vector<std::unique_ptr<node_t>> nodes;
  std::vector<node_t*> all, sources, counted;
  model_worker<> w[1];
  run_t* run = nullptr;
  claim_t* claim = nullptr;
  cell_t<S, int> a_ran{0};
  destroy_waits() : scenario(2) {}

  void before() override {
    nodes.push_back(std::make_unique<node_t>(0, &no_pool_entry));
    node_t* A = nodes.back().get();
    A->plain_fn = [this] { a_ran.write() = 1; };
    all.push_back(A);
    sources.push_back(A);
    run = S::make<run_t>();
    run->counted = &counted;
    run->sources = &sources;
    run->serial = 1;
    claim = S::make<claim_t>();
    std::uint32_t seen = 0;
    PILFER_MODEL_ASSERT(claim->try_claim(claim_t::running, seen));
    claim->current_run = run;
    claim_t* c = claim;
    run->on_finish = [c](run_t& r) { c->end_run(r); };
    w[0].d.release_owner();
  }

  void thread(unsigned i) override {
    if (i == 0) {
      model_ctx<> ctx{&w[0], 0};
      pilfer::detail::run_chain(pilfer::detail::begin_iteration(*run, ctx, true), *run, ctx);
      return;
    }
    pilfer::detail::release_run(run);  // the handle is dropped first: the destructor's reference may be the last
    if (run_t* r = claim->mark_waiter()) {
      r->block();
      pilfer::detail::release_run(r);
    }
    PILFER_MODEL_ASSERT(a_ran.read() == 1);  // the run was over before the destructor went on
    S::destroy(claim);
    nodes.clear();
  }
};

}  // namespace

std::vector<entry> graph_scenarios() {
  // Bounds: the single-pass 2-worker diamond is exhaustive without a bound (every interleaving,
  // reads-from and mo choice); the two-pass run and the 3-worker diamond are exhaustive within a
  // preemption bound (every execution with at most that many preemptive context switches).
  options exh;
  exh.max_steps = 4000;
  options pb2 = exh;
  pb2.preemption_bound = 2u;
  options pb1 = exh;
  pb1.preemption_bound = 1u;
  std::vector<entry> v;
  v.push_back({"graph.diamond_2w", "GRAPH-1 GRAPH-3", [] { return std::make_unique<diamond<>>(2u, 1); }, exh, true});
  v.push_back({"graph.diamond_rerun_2w", "GRAPH-1 GRAPH-3", [] { return std::make_unique<diamond<>>(2u, 2); }, pb2, false});
  v.push_back({"graph.diamond_3w", "GRAPH-1 GRAPH-3", [] { return std::make_unique<diamond<>>(3u, 1, 2); }, pb1, false});
  v.push_back({"graph.single_pred_2w", "GRAPH-1 GRAPH-3", [] { return std::make_unique<single_predecessor>(1); }, exh, true});
  v.push_back({"graph.single_pred_rerun_2w", "GRAPH-1 GRAPH-3", [] { return std::make_unique<single_predecessor>(2); }, pb2, false});
  v.push_back({"graph.destroy_waits_2w", "GRAPH-10", [] { return std::make_unique<destroy_waits>(); }, exh, true});
  return v;
}

/// The graph core compiled with a known-wrong rule (graph_mutation): each must FAIL under the
/// checker (sensitivity.cpp runs them after the weakening table).
std::vector<entry> graph_mutant_scenarios() {
  options exh;
  exh.max_steps = 4000;
  std::vector<entry> v;
  v.push_back({"graph.diamond_2w[uncounted release]", "GRAPH-1",
               [] { return std::make_unique<diamond<uncounted_release_sync>>(2u, 1); }, exh, false});
  return v;
}

}  // namespace pilfer::model::scenarios
