// conformance/mutants/ws_pool.hpp — a small work-stealing pool with the architecture of pilfer's
// pool (per-worker deques, an injector, owner LIFO / thief FIFO, spin with exponential back-off,
// then park on an epoch with a re-check), with an optional ONE-change mutation.
// `pool_mutation::none` is the correct base and must pass every POOL requirement the suite
// checks; every other value is a mutant the suite must kill.
//
// Park protocol (base): e = epoch; sleepers++; re-check queues; wait(epoch == e); sleepers--.
// Submit: push; epoch++; if sleepers > 0 notify. A push either precedes the re-check (found)
// or its epoch++ follows the load of e (the wait returns), so no wake-up is lost, and every push
// wakes a sleeper while one exists (work conservation, POOL-18).
//
// Waits (base): every task is a job with a claim word (queued -> claimed -> done). A wait for a
// job that is still queued claims it and runs it inline (the queue entry becomes a tombstone that
// takers skip); a wait for a job running elsewhere blocks, and a worker that blocks starts a stand-in
// thread that runs queued tasks until the wait ends (POOL-20: parallelism is kept). A wait therefore runs only what it
// waits for, so an acyclic wait-for graph cannot deadlock (POOL-19) and the stack grows only with
// the user's own nesting (POOL-20). Inline claims count toward the injector interval (every 32nd
// take): when it is due and the injector is non-empty, the waiting worker hands the oldest outside
// task to a spare thread and continues once it has started (POOL-8 under join, without running an
// unrelated task on top of the waiting frame). A handle dropped before its task finished sends the
// task's exception to on_uncaught (POOL-21).
#pragma once

#include <pilfer/sync.hpp>

#include "pilfer/conformance/adapters.hpp"

#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace pilfer::conformance::mutants {

enum class pool_mutation {
  none,
  spawn_to_injector,      // POOL-5: spawn() from inside a task goes to the shared injector
  park_no_recheck,        // POOL-7: the worker parks after its back-off without re-checking the queues
  spin_idle,              // POOL-4: an idle worker never parks, it keeps spinning
  blocking_wait,          // POOL-11: a wait inside a task blocks its worker, even for a queued task it could run
  sleep_no_handoff,       // POOL-18: pilfer's old sleep protocol: a push wakes nobody while a worker searches;
                          //   the searcher that finds work wakes one sleeper, which is not counted as searching
                          //   and hands the search on to nobody
  help_any,               // POOL-19/20: pilfer's old helping waits: a wait runs ANY queued task on top of its frame
  join_ignores_injector,  // POOL-8: fork_join takes its own arm back without the injector interval
  drop_swallows,          // POOL-21: a dropped handle's exception is discarded silently
  injector_after_park,    // POOL-3: an idle worker searches its deque and victims, parks, and looks at the
                          //   injector only after a wake-up
  priority_ignored,       // POOL-15: a high-priority task is queued like a normal one
  affinity_stealable,     // POOL-15: an affinity task goes to the shared injector, where any worker takes it
  eager_split,            // POOL-16: parallel loops halve every range down to the grain (no split budget)
  reduce_swapped,         // POOL-16: parallel_reduce combines the right half's result first (assumes commutativity)
  early_ready,            // POOL-17: a result handle reports ready() once its task has started, not finished
};

struct pool_closed : std::logic_error {
  pool_closed() : std::logic_error("pool is shut down: submit() refused") {}
};

template <pool_mutation M>
class ws_pool {
  using S = pilfer::std_sync;
  using task = std::function<void()>;
  static constexpr int queued = 0, claimed = 1, done = 2;
  static constexpr unsigned injector_interval = 32;
  static constexpr unsigned spare_index = ~0u;

  /// One task. `state` is the claim word; `m` guards the handle bookkeeping (reference pool: simple).
  struct job {
    task fn;
    S::atomic<int> state{queued};
    S::mutex m;
    bool has_handle = false;  // an exception goes to the handle's owner, not to on_uncaught
    bool dropped = false;     // the handle was destroyed
    bool finished = false;
    bool collected = false;   // a waiter has seen the exception
    std::exception_ptr error;
  };
  using job_ptr = std::shared_ptr<job>;

  struct worker {
    S::mutex m;
    std::deque<job_ptr> q;
    std::deque<job_ptr> mailbox;  // affinity tasks for this worker only (guarded by m)
    unsigned tick = 0;
  };
  struct ctx {
    ws_pool* pool;
    unsigned index;  // spare_index on a spare thread
  };
  struct slot_key {};

  /// Lives as long as the waiter function returned by submit_waitable; its end is the handle's drop.
  struct handle_token {
    handle_token(ws_pool* p, job_ptr jp) : pool(p), j(std::move(jp)) {}
    handle_token(const handle_token&) = delete;
    handle_token& operator=(const handle_token&) = delete;
    ws_pool* pool;
    job_ptr j;
    ~handle_token() {
      std::exception_ptr lost;
      {
        std::lock_guard<S::mutex> g(j->m);
        j->dropped = true;
        if (j->finished && !j->collected) lost = std::exchange(j->error, nullptr);
      }
      if (lost && M != pool_mutation::drop_swallows) pool->report(lost);
    }
  };

 public:
  static constexpr const char* name = "ws_pool";
  static constexpr bool has_local_spawn = true, has_handles = true, has_fork_join = true, has_shutdown = true;

  explicit ws_pool(unsigned n) : workers_(n) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this, i] { run(i); });
  }
  ~ws_pool() { shutdown(); }
  ws_pool(const ws_pool&) = delete;
  ws_pool& operator=(const ws_pool&) = delete;

  void submit(task f) { enqueue_outside(make(std::move(f), false)); }

  void spawn(task f) { enqueue_local(make(std::move(f), false)); }

  std::function<void()> submit_waitable(task f) {
    job_ptr j = make(std::move(f), true);
    auto token = std::make_shared<handle_token>(this, j);
    if (current() != nullptr) enqueue_local(j); else enqueue_outside(j);
    return [this, token] {
      wait_for(*token->j, false);
      std::exception_ptr e;
      {
        std::lock_guard<S::mutex> g(token->j->m);
        e = token->j->error;  // every caller of a shared waiter sees the exception
        token->j->collected = true;
      }
      if (e) std::rethrow_exception(e);
    };
  }

  /// A typed, move-only result handle (POOL-17). Dropping it is dropping the handle (POOL-21's token).
  class value_handle {
   public:
    value_handle(std::shared_ptr<handle_token> t, std::shared_ptr<value_t> v) : token_(std::move(t)), v_(std::move(v)) {}
    value_handle(value_handle&&) noexcept = default;
    value_handle& operator=(value_handle&&) noexcept = default;
    value_handle(const value_handle&) = delete;
    value_handle& operator=(const value_handle&) = delete;
    bool ready() const {
      const int s = token_->j->state.load(PILFER_SITE("wspool.done", acquire));
      if constexpr (M == pool_mutation::early_ready) return s != queued;
      return s == done;
    }
    void wait() { token_->pool->wait_for(*token_->j, false); }
    value_t get() {
      wait();
      std::exception_ptr e;
      {
        std::lock_guard<S::mutex> g(token_->j->m);
        e = token_->j->error;
        token_->j->collected = true;
      }
      if (e) std::rethrow_exception(e);
      return *v_;  // written by the task before its job's [wspool.done] release
    }

   private:
    std::shared_ptr<handle_token> token_;
    std::shared_ptr<value_t> v_;
  };
  value_handle submit_value(std::function<value_t()> f) {
    auto v = std::make_shared<value_t>(0);
    job_ptr j = make([v, f = std::move(f)] { *v = f(); }, true);
    auto token = std::make_shared<handle_token>(this, j);
    if (current() != nullptr) enqueue_local(j); else enqueue_outside(j);
    return value_handle(std::move(token), std::move(v));
  }

  /// Priorities and affinity (POOL-15): a high-priority task goes to the pool's high queue, an affinity task
  /// to its worker's mailbox; a worker looks at its mailbox, then the high queue, before anything else.
  void submit_with(task f, task_opts o) {
    if (o.affinity && *o.affinity >= workers_.size())
      throw std::out_of_range("ws_pool: task affinity " + std::to_string(*o.affinity) + " names no worker");
    job_ptr j = make(std::move(f), false);
    if (o.affinity && M != pool_mutation::affinity_stealable) {
      {
        std::lock_guard<S::mutex> g(inj_m_);
        if (closed_ && current() == nullptr) throw pool_closed();
        pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
      }
      {
        worker& w = workers_[*o.affinity];
        std::lock_guard<S::mutex> g(w.m);
        w.mailbox.push_back(std::move(j));
      }
      wake_all();  // only that worker may take it: a single notify could wake another one
      return;
    }
    if (o.high_priority && M != pool_mutation::priority_ignored) {
      {
        std::lock_guard<S::mutex> g(inj_m_);
        if (closed_ && current() == nullptr) throw pool_closed();
        pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
        high_.push_back(std::move(j));
      }
      notify();
      return;
    }
    if (current() != nullptr) enqueue_local(std::move(j)); else enqueue_outside(std::move(j));
  }
  std::optional<unsigned> worker_index() {
    ctx* c = current();
    if (c == nullptr) return std::nullopt;
    return c->index;
  }

  /// Times a worker went to sleep (POOL-3).
  std::uint64_t parks() const { return parks_.load(PILFER_SITE("wspool.stats", relaxed)); }

  /// Parallel loops (POOL-16) by lazy binary splitting on fork_join: a range is halved while it is larger than
  /// the grain and the split budget lasts; the budget halves per split and is refilled to the worker count when
  /// the piece runs on another worker than the one that split it (it was stolen).
  void parallel_for(std::int64_t b, std::int64_t e, std::function<void(std::int64_t)> f, std::size_t grain) {
    if (b >= e) return;
    if (grain == 0) grain = 1;
    if (current() == nullptr) return run_on_worker([&] { parallel_for(b, e, f, grain); });
    pfor(b, e, f, grain, static_cast<unsigned>(workers_.size()), current()->index);
  }
  std::string parallel_reduce(std::int64_t b, std::int64_t e, std::string identity,
                              std::function<std::string(std::int64_t)> map,
                              std::function<std::string(std::string, std::string)> reduce, std::size_t grain) {
    if (b >= e) return identity;
    if (grain == 0) grain = 1;
    if (current() == nullptr) {
      std::string r;
      run_on_worker([&] { r = parallel_reduce(b, e, identity, map, reduce, grain); });
      return r;
    }
    return preduce(b, e, identity, map, reduce, grain, static_cast<unsigned>(workers_.size()), current()->index);
  }
  /// Jobs made so far: tasks, handles and fork_join arms.
  std::uint64_t tasks_created() const { return created_.load(PILFER_SITE("wspool.stats", relaxed)); }

  /// Submit with a handle and drop the handle at once (POOL-21).
  void submit_dropped(task f) { (void)submit_waitable(std::move(f)); }

  void set_on_uncaught(std::function<void(std::exception_ptr)> h) {
    std::lock_guard<S::mutex> g(hook_m_);
    hook_ = std::move(h);
  }

  void fork_join(task f, task g) {
    job_ptr j = make(std::move(g), true);
    enqueue_local(j);
    std::exception_ptr mine;
    try {
      f();
    } catch (...) {
      mine = std::current_exception();
    }
    wait_for(*j, true);
    if (mine) std::rethrow_exception(mine);
    if (j->error) std::rethrow_exception(j->error);
  }

  void run_group(std::vector<task> fs) {
    std::vector<job_ptr> js;
    for (auto& f : fs) {
      js.push_back(make(std::move(f), true));
      enqueue_local(js.back());
    }
    std::exception_ptr first;
    for (auto it = js.rbegin(); it != js.rend(); ++it) {  // newest first: the owner's end of its deque
      wait_for(**it, false);
      if ((*it)->error && !first) first = (*it)->error;
    }
    if (first) std::rethrow_exception(first);
  }

  void wait_idle() {
    for (;;) {
      const auto p = pending_.load(PILFER_SITE("wspool.idle", acquire));
      if (p == 0) return;
      pending_.wait(p, PILFER_SITE("wspool.idle", acquire));
    }
  }

  void shutdown() {
    {
      std::lock_guard<S::mutex> g(inj_m_);
      if (closed_ && threads_.empty()) return;
      closed_ = true;
    }
    wake_all();  // parked workers re-scan: nothing submitted before shutdown stays unseen
    wait_idle();
    stopping_.store(true, PILFER_SITE("wspool.stop", seq_cst));
    wake_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    std::lock_guard<S::mutex> g(spare_m_);
    for (auto& t : spares_) t.join();
    spares_.clear();
    for (auto& [t, flag] : stand_ins_) t.join();
    stand_ins_.clear();
  }

 private:
  job_ptr make(task f, bool handle) {
    created_.fetch_add(1, PILFER_SITE("wspool.stats", relaxed));
    auto j = std::make_shared<job>();
    j->fn = std::move(f);
    j->has_handle = handle;
    return j;
  }

  void enqueue_outside(job_ptr j) {
    {
      std::lock_guard<S::mutex> g(inj_m_);
      if (closed_) throw pool_closed();
      pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
      inj_.push_back(std::move(j));
    }
    notify();
  }

  void enqueue_local(job_ptr j) {
    ctx* c = current();
    if (c == nullptr || c->index == spare_index) return enqueue_outside(std::move(j));
    pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
    if constexpr (M == pool_mutation::spawn_to_injector) {
      std::lock_guard<S::mutex> g(inj_m_);
      inj_.push_back(std::move(j));
    } else {
      worker& w = workers_[c->index];
      std::lock_guard<S::mutex> g(w.m);
      w.q.push_back(std::move(j));
    }
    notify();
  }

  /// Run `f` as a task and block until it finished (an outside waiter must not run it inline: the loop
  /// needs a worker context), rethrowing its exception.
  void run_on_worker(const std::function<void()>& f) {
    struct done_state {
      S::atomic<int> fin{0};
      std::exception_ptr error;
    };
    auto st = std::make_shared<done_state>();
    submit([st, &f] {
      try {
        f();
      } catch (...) {
        st->error = std::current_exception();
      }
      st->fin.store(1, PILFER_SITE("wspool.done", release));
      st->fin.notify_all();
    });
    while (st->fin.load(PILFER_SITE("wspool.done", acquire)) == 0) st->fin.wait(0, PILFER_SITE("wspool.done", acquire));
    if (st->error) std::rethrow_exception(st->error);
  }

  bool split_more(std::int64_t b, std::int64_t e, std::size_t grain, unsigned& splits, unsigned& origin) {
    const unsigned me = current()->index;
    if (me != origin) splits = std::max(splits, static_cast<unsigned>(workers_.size()));
    origin = me;
    if (static_cast<std::uint64_t>(e - b) <= grain) return false;
    if (splits == 0 && M != pool_mutation::eager_split) return false;
    splits /= 2;
    return true;
  }
  void pfor(std::int64_t b, std::int64_t e, std::function<void(std::int64_t)>& f, std::size_t grain, unsigned splits,
            unsigned origin) {
    if (split_more(b, e, grain, splits, origin)) {
      const std::int64_t mid = b + (e - b) / 2;
      fork_join([&, splits, origin] { pfor(b, mid, f, grain, splits, origin); },
                [&, splits, origin] { pfor(mid, e, f, grain, splits, origin); });
      return;
    }
    for (std::int64_t i = b; i < e; ++i) f(i);
  }
  std::string preduce(std::int64_t b, std::int64_t e, const std::string& identity,
                      std::function<std::string(std::int64_t)>& map,
                      std::function<std::string(std::string, std::string)>& reduce, std::size_t grain,
                      unsigned splits, unsigned origin) {
    if (split_more(b, e, grain, splits, origin)) {
      const std::int64_t mid = b + (e - b) / 2;
      std::string l, r;
      fork_join([&, splits, origin] { l = preduce(b, mid, identity, map, reduce, grain, splits, origin); },
                [&, splits, origin] { r = preduce(mid, e, identity, map, reduce, grain, splits, origin); });
      if constexpr (M == pool_mutation::reduce_swapped) return reduce(std::move(r), std::move(l));
      return reduce(std::move(l), std::move(r));
    }
    std::string acc = identity;
    for (std::int64_t i = b; i < e; ++i) acc = reduce(std::move(acc), map(i));
    return acc;
  }

  void report(std::exception_ptr e) {
    std::lock_guard<S::mutex> g(hook_m_);
    if (hook_) {
      hook_(e);
      return;
    }
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "ws_pool: uncaught exception in a task: %s\n", x.what());
    } catch (...) {
      std::fprintf(stderr, "ws_pool: uncaught non-standard exception in a task\n");
    }
  }

  static bool claim(job& j) {
    int expected = queued;
    return j.state.compare_exchange_strong(expected, claimed, PILFER_SITE("wspool.claim", acq_rel),
                                           PILFER_SITE("wspool.claim", acquire));
  }

  /// Run a claimed job and publish its end.
  void execute(job& j) {
    std::exception_ptr e;
    try {
      j.fn();
    } catch (...) {
      e = std::current_exception();
    }
    j.fn = nullptr;
    bool lost = false;
    {
      std::lock_guard<S::mutex> g(j.m);
      j.error = e;
      j.finished = true;
      lost = e && (!j.has_handle || j.dropped);
      if (lost) j.error = nullptr;
    }
    if (lost && !(M == pool_mutation::drop_swallows && j.has_handle)) report(e);
    j.state.store(done, PILFER_SITE("wspool.done", release));
    j.state.notify_all();
    if (pending_.fetch_sub(1, PILFER_SITE("wspool.pending", acq_rel)) == 1) pending_.notify_all();
  }

  void wait_for(job& j, bool is_join) {
    ctx* c = current();
    if (c != nullptr) {
      if constexpr (M == pool_mutation::help_any) {
        // Old helping: run whatever is queued until the awaited job is done.
        while (j.state.load(PILFER_SITE("wspool.done", acquire)) != done)
          if (!run_one(c->index)) S::yield();
        return;
      }
      if (M != pool_mutation::blocking_wait && claim(j)) {
        if (c->index != spare_index && !(is_join && M == pool_mutation::join_ignores_injector))
          fairness_tick(workers_[c->index]);
        execute(j);
        return;
      }
    } else if (claim(j)) {  // an outside waiter may run a queued task itself
      execute(j);
      return;
    }
    // POOL-20: a worker that blocks keeps the pool's parallelism — a stand-in thread runs queued tasks
    // until the wait ends (the blocking_wait mutant blocks without one: its target is POOL-11).
    std::shared_ptr<S::atomic<int>> stand_in;
    if (c != nullptr && c->index != spare_index && M != pool_mutation::blocking_wait) stand_in = start_stand_in();
    for (int s; (s = j.state.load(PILFER_SITE("wspool.done", acquire))) != done;)
      j.state.wait(s, PILFER_SITE("wspool.done", acquire));
    if (stand_in) stand_in->store(1, PILFER_SITE("wspool.spare", release));
  }

  /// A thread that runs queued tasks (polling every 50 us) until its flag is set, then marks itself finished
  /// (2) so that the next start joins it; shutdown joins the rest.
  std::shared_ptr<S::atomic<int>> start_stand_in() {
    auto flag = std::make_shared<S::atomic<int>>(0);
    std::lock_guard<S::mutex> g(spare_m_);
    for (auto it = stand_ins_.begin(); it != stand_ins_.end();) {
      if (it->second->load(PILFER_SITE("wspool.spare", acquire)) == 2) {
        it->first.join();
        it = stand_ins_.erase(it);
      } else {
        ++it;
      }
    }
    stand_ins_.emplace_back(S::thread([this, flag] {
                              ctx me{this, spare_index};
                              S::thread_slot<slot_key>() = &me;
                              while (flag->load(PILFER_SITE("wspool.spare", acquire)) == 0)
                                if (!run_one(spare_index)) std::this_thread::sleep_for(std::chrono::microseconds(50));
                              S::thread_slot<slot_key>() = nullptr;
                              flag->store(2, PILFER_SITE("wspool.spare", release));
                            }),
                            flag);
    return flag;
  }

  /// An inline claim is a local take: every 32nd, a waiting outside task goes to a spare thread.
  void fairness_tick(worker& w) {
    if (++w.tick % injector_interval != 0) return;
    job_ptr x = pop_injector();
    if (!x) return;
    auto started = std::make_shared<S::atomic<int>>(0);
    {
      std::lock_guard<S::mutex> g(spare_m_);
      spares_.emplace_back([this, x, started] {
        ctx me{this, spare_index};
        S::thread_slot<slot_key>() = &me;
        started->store(1, PILFER_SITE("wspool.spare", release));
        started->notify_all();
        execute(*x);
        while (run_one(spare_index)) {
        }
        S::thread_slot<slot_key>() = nullptr;
      });
    }
    while (started->load(PILFER_SITE("wspool.spare", acquire)) == 0) started->wait(0, PILFER_SITE("wspool.spare", acquire));
  }

  ctx* current() {
    auto* c = static_cast<ctx*>(S::thread_slot<slot_key>());
    return (c != nullptr && c->pool == this) ? c : nullptr;
  }

  void notify() {
    epoch_.fetch_add(1, PILFER_SITE("wspool.epoch", seq_cst));
    if constexpr (M == pool_mutation::sleep_no_handoff) {
      if (searching_.load(PILFER_SITE("wspool.searching", seq_cst)) != 0) return;  // "a searcher will see it"
    }
    if (sleepers_.load(PILFER_SITE("wspool.sleepers", seq_cst)) > 0) epoch_.notify_one();
  }
  void wake_all() {
    epoch_.fetch_add(1, PILFER_SITE("wspool.epoch", seq_cst));
    epoch_.notify_all();
  }

  /// The oldest claimable injector job (tombstones are dropped), claimed.
  job_ptr pop_injector() {
    std::lock_guard<S::mutex> g(inj_m_);
    while (!inj_.empty()) {
      job_ptr j = std::move(inj_.front());
      inj_.pop_front();
      if (claim(*j)) return j;
    }
    return nullptr;
  }

  job_ptr pop_high() {
    std::lock_guard<S::mutex> g(inj_m_);
    while (!high_.empty()) {
      job_ptr j = std::move(high_.front());
      high_.pop_front();
      if (claim(*j)) return j;
    }
    return nullptr;
  }

  bool has_work(unsigned i) {
    {
      std::lock_guard<S::mutex> g(inj_m_);
      if (!inj_.empty() || !high_.empty()) return true;
    }
    for (unsigned v = 0; v < workers_.size(); ++v) {
      if (v == i) continue;
      std::lock_guard<S::mutex> g(workers_[v].m);
      if (!workers_[v].q.empty()) return true;
    }
    return false;
  }

  /// A claimed job from the usual order: injector every 32nd take, own deque (newest), injector, steal (oldest).
  job_ptr take(unsigned i, bool injector = true) {
    if (i != spare_index) {
      worker& w = workers_[i];
      {
        std::lock_guard<S::mutex> g(w.m);
        while (!w.mailbox.empty()) {
          job_ptr j = std::move(w.mailbox.front());
          w.mailbox.pop_front();
          if (claim(*j)) return j;
        }
      }
    }
    if (job_ptr j = pop_high()) return j;
    if (i != spare_index) {
      worker& w = workers_[i];
      if (injector && ++w.tick % injector_interval == 0)
        if (job_ptr j = pop_injector()) return j;
      std::lock_guard<S::mutex> g(w.m);
      while (!w.q.empty()) {
        job_ptr j = std::move(w.q.back());  // owner: newest first
        w.q.pop_back();
        if (claim(*j)) return j;
      }
    }
    if (injector)
      if (job_ptr j = pop_injector()) return j;
    const auto n = static_cast<unsigned>(workers_.size());
    const auto start = static_cast<unsigned>(S::random(n));
    for (unsigned k = 0; k < n; ++k) {
      const unsigned v = (start + k) % n;
      if (v == i) continue;
      // A blocking lock: a thief that skipped a busy deque (try_lock) could see "nothing" while a party sits
      // in it, and the re-check before parking would then miss it (seen as a POOL-18 failure under TSan: a
      // thief preempted while holding the victim's lock made another one park beside a queued party).
      std::lock_guard<S::mutex> g(workers_[v].m);
      while (!workers_[v].q.empty()) {
        job_ptr j = std::move(workers_[v].q.front());  // thief: oldest first
        workers_[v].q.pop_front();
        if (claim(*j)) return j;
      }
    }
    return nullptr;
  }

  bool run_one(unsigned i, bool injector = true) {
    job_ptr j = take(i, injector);
    if (!j) return false;
    execute(*j);
    return true;
  }

  static void backoff(int round) {
    const std::uint64_t spins = std::uint64_t{1} << round;
    const std::uint64_t n = spins / 2 + S::random(spins / 2 + 1);
    for (std::uint64_t k = 0; k < n; ++k) S::spin_hint();
  }

  void run(unsigned i) {
    ctx me{this, i};
    S::thread_slot<slot_key>() = &me;
    constexpr int spin_rounds = 12;
    // injector_after_park: the worker looks at the injector only in its first look after a wake-up; the looks
    // after a task, the search rounds and the re-check before parking skip it.
    constexpr bool skip = M == pool_mutation::injector_after_park;
    bool woken = false;
    for (;;) {
      const bool look_at_injector = !skip || woken;
      woken = false;
      if (run_one(i, look_at_injector)) continue;
      bool found = false;
      if constexpr (M == pool_mutation::sleep_no_handoff) searching_.fetch_add(1, PILFER_SITE("wspool.searching", seq_cst));
      job_ptr j;
      for (int r = 0; r < spin_rounds; ++r) {
        if ((j = take(i, !skip))) break;
        backoff(r);
      }
      found = j != nullptr;
      if constexpr (M == pool_mutation::sleep_no_handoff) {
        const bool last = searching_.fetch_sub(1, PILFER_SITE("wspool.searching", seq_cst)) == 1;
        // The searcher that found work wakes one sleeper if more is visible; the woken worker is not a
        // searcher, so after it takes one task nobody hands the search on.
        if (found && last && has_work(i) && sleepers_.load(PILFER_SITE("wspool.sleepers", seq_cst)) > 0)
          epoch_.notify_one();
      }
      if (found) {
        execute(*j);
        continue;
      }
      if constexpr (M == pool_mutation::spin_idle) {
        if (stopping_.load(PILFER_SITE("wspool.stop", seq_cst))) break;
        continue;
      }
      const auto e = epoch_.load(PILFER_SITE("wspool.epoch", seq_cst));
      sleepers_.fetch_add(1, PILFER_SITE("wspool.sleepers", seq_cst));
      if (M != pool_mutation::park_no_recheck && run_one(i, !skip)) {
        sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
        continue;
      }
      if (stopping_.load(PILFER_SITE("wspool.stop", seq_cst))) {
        sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
        break;
      }
      parks_.fetch_add(1, PILFER_SITE("wspool.stats", relaxed));
      epoch_.wait(e, PILFER_SITE("wspool.epoch", seq_cst));
      sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
      woken = true;
    }
    S::thread_slot<slot_key>() = nullptr;
  }

  std::vector<worker> workers_;
  std::vector<S::thread> threads_;
  S::mutex spare_m_;
  std::vector<S::thread> spares_;
  std::vector<std::pair<S::thread, std::shared_ptr<S::atomic<int>>>> stand_ins_;  // guarded by spare_m_
  S::mutex inj_m_;
  std::deque<job_ptr> inj_;
  std::deque<job_ptr> high_;  // high-priority tasks (guarded by inj_m_)
  bool closed_ = false;
  S::mutex hook_m_;
  std::function<void(std::exception_ptr)> hook_;
  S::atomic<std::int64_t> pending_{0};
  S::atomic<std::uint64_t> parks_{0}, created_{0};  // statistics: relaxed, nothing is published through them
  S::atomic<std::uint64_t> epoch_{0};
  S::atomic<int> sleepers_{0};
  S::atomic<int> searching_{0};
  S::atomic<bool> stopping_{false};
};

}  // namespace pilfer::conformance::mutants
