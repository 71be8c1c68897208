// conformance/mutants/ws_pool.hpp — a small work-stealing pool with the architecture of pilfer's
// pool (per-worker deques, an injector, owner LIFO / thief FIFO, spin with exponential back-off,
// then park on an epoch with a re-check; waits inside tasks help), with an optional ONE-change
// mutation. `pool_mutation::none` is the correct base and must pass every POOL requirement the
// suite checks; every other value is a mutant the suite must kill.
//
// Park protocol (base): e = epoch; sleepers++; re-check queues; wait(epoch == e); sleepers--.
// Submit: push; epoch++; if sleepers > 0 notify. A push either precedes the re-check (found)
// or its epoch++ follows the load of e (the wait returns), so no wake-up is lost.
#pragma once

#include <pilfer/sync.hpp>

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace pilfer::conformance::mutants {

enum class pool_mutation {
  none,
  spawn_to_injector,  // POOL-5: spawn() from inside a task goes to the shared injector
  park_no_recheck,    // POOL-7: the worker parks after its back-off without re-checking the queues
  spin_idle,          // POOL-4: an idle worker never parks, it keeps spinning
  blocking_wait,      // POOL-11: a wait inside a task blocks its worker instead of running other tasks
};

struct pool_closed : std::logic_error {
  pool_closed() : std::logic_error("pool is shut down: submit() refused") {}
};

template <pool_mutation M>
class ws_pool {
  using S = pilfer::std_sync;
  using task = std::function<void()>;
  struct worker {
    S::mutex m;
    std::deque<task> q;
    unsigned tick = 0;
  };
  struct ctx {
    ws_pool* pool;
    unsigned index;
  };
  struct slot_key {};
  struct wait_state {
    S::atomic<int> done{0};
    std::exception_ptr error;
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

  void submit(task f) {
    {
      std::lock_guard<S::mutex> g(inj_m_);
      if (closed_) throw pool_closed();
      pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
      inj_.push_back(std::move(f));
    }
    notify();
  }

  void spawn(task f) {
    ctx* c = current();
    if (c == nullptr) return submit(std::move(f));
    pending_.fetch_add(1, PILFER_SITE("wspool.pending", relaxed));
    if constexpr (M == pool_mutation::spawn_to_injector) {
      std::lock_guard<S::mutex> g(inj_m_);
      inj_.push_back(std::move(f));
    } else {
      worker& w = workers_[c->index];
      std::lock_guard<S::mutex> g(w.m);
      w.q.push_back(std::move(f));
    }
    notify();
  }

  std::function<void()> submit_waitable(task f) {
    auto st = std::make_shared<wait_state>();
    submit([st, f = std::move(f)] {
      try {
        f();
      } catch (...) {
        st->error = std::current_exception();
      }
      finish(*st);
    });
    return [this, st] {
      wait_for(*st);
      if (st->error) std::rethrow_exception(st->error);
    };
  }

  void fork_join(task f, task g) {
    auto st = std::make_shared<wait_state>();
    spawn([st, g = std::move(g)] {
      try {
        g();
      } catch (...) {
        st->error = std::current_exception();
      }
      finish(*st);
    });
    std::exception_ptr mine;
    try {
      f();
    } catch (...) {
      mine = std::current_exception();
    }
    wait_for(*st);
    if (mine) std::rethrow_exception(mine);
    if (st->error) std::rethrow_exception(st->error);
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
  }

 private:
  static void finish(wait_state& st) {
    st.done.store(1, PILFER_SITE("wspool.done", release));
    st.done.notify_all();
  }

  void wait_for(wait_state& st) {
    ctx* c = current();
    if (c != nullptr && M != pool_mutation::blocking_wait) {
      while (st.done.load(PILFER_SITE("wspool.done", acquire)) == 0)
        if (!run_one(c->index)) S::yield();
      return;
    }
    while (st.done.load(PILFER_SITE("wspool.done", acquire)) == 0) st.done.wait(0, PILFER_SITE("wspool.done", acquire));
  }

  ctx* current() {
    auto* c = static_cast<ctx*>(S::thread_slot<slot_key>());
    return (c != nullptr && c->pool == this) ? c : nullptr;
  }

  void notify() {
    epoch_.fetch_add(1, PILFER_SITE("wspool.epoch", seq_cst));
    if (sleepers_.load(PILFER_SITE("wspool.sleepers", seq_cst)) > 0) epoch_.notify_one();
  }
  void wake_all() {
    epoch_.fetch_add(1, PILFER_SITE("wspool.epoch", seq_cst));
    epoch_.notify_all();
  }

  bool take(unsigned i, task& t) {
    worker& w = workers_[i];
    auto from_injector = [&] {
      std::lock_guard<S::mutex> g(inj_m_);
      if (inj_.empty()) return false;
      t = std::move(inj_.front());
      inj_.pop_front();
      return true;
    };
    // Fairness: every 32nd task comes from the injector first.
    if (++w.tick % 32 == 0 && from_injector()) return true;
    {
      std::lock_guard<S::mutex> g(w.m);
      if (!w.q.empty()) {
        t = std::move(w.q.back());  // owner: newest first
        w.q.pop_back();
        return true;
      }
    }
    if (from_injector()) return true;
    const auto n = static_cast<unsigned>(workers_.size());
    const auto start = static_cast<unsigned>(S::random(n));
    for (unsigned k = 0; k < n; ++k) {
      const unsigned v = (start + k) % n;
      if (v == i) continue;
      std::unique_lock<S::mutex> g(workers_[v].m, std::try_to_lock);
      if (g && !workers_[v].q.empty()) {
        t = std::move(workers_[v].q.front());  // thief: oldest first
        workers_[v].q.pop_front();
        return true;
      }
    }
    return false;
  }

  bool run_one(unsigned i) {
    task t;
    if (!take(i, t)) return false;
    try {
      t();
    } catch (...) {
    }
    t = nullptr;
    if (pending_.fetch_sub(1, PILFER_SITE("wspool.pending", acq_rel)) == 1) pending_.notify_all();
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
    for (;;) {
      if (run_one(i)) continue;
      bool found = false;
      for (int r = 0; r < spin_rounds; ++r) {
        if ((found = run_one(i))) break;
        backoff(r);
      }
      if (found) continue;
      if constexpr (M == pool_mutation::spin_idle) {
        if (stopping_.load(PILFER_SITE("wspool.stop", seq_cst))) break;
        continue;
      }
      const auto e = epoch_.load(PILFER_SITE("wspool.epoch", seq_cst));
      sleepers_.fetch_add(1, PILFER_SITE("wspool.sleepers", seq_cst));
      if (M != pool_mutation::park_no_recheck && run_one(i)) {
        sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
        continue;
      }
      if (stopping_.load(PILFER_SITE("wspool.stop", seq_cst))) {
        sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
        break;
      }
      epoch_.wait(e, PILFER_SITE("wspool.epoch", seq_cst));
      sleepers_.fetch_sub(1, PILFER_SITE("wspool.sleepers", seq_cst));
    }
    S::thread_slot<slot_key>() = nullptr;
  }

  std::vector<worker> workers_;
  std::vector<S::thread> threads_;
  S::mutex inj_m_;
  std::deque<task> inj_;
  bool closed_ = false;
  S::atomic<std::int64_t> pending_{0};
  S::atomic<std::uint64_t> epoch_{0};
  S::atomic<int> sleepers_{0};
  S::atomic<bool> stopping_{false};
};

}  // namespace pilfer::conformance::mutants
