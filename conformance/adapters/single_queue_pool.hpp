// conformance/adapters/single_queue_pool.hpp — the classic pool: ONE mutex-protected FIFO
// queue shared by all workers; idle workers park on an epoch (re-check before sleeping, so no
// wake-up is lost); waits inside tasks help by running queued tasks. It is a peer for the
// report: it has no local deques, so spawned tasks are neither LIFO-local nor local at all.
// A fire-and-forget task's exception goes to its on_uncaught handler; a result handle behaves like
// std::future: an exception nobody collected is destroyed with the dropped handle.
#pragma once

#include <pilfer/sync.hpp>

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace pilfer::conformance {

class single_queue_pool {
  using S = pilfer::std_sync;
  using task = std::function<void()>;
  struct slot_key {};
  struct wait_state {
    S::atomic<int> done{0};
    std::exception_ptr error;
  };

 public:
  static constexpr const char* name = "single_queue_pool";
  static constexpr bool has_local_spawn = true, has_handles = true, has_fork_join = true, has_shutdown = true;

  explicit single_queue_pool(unsigned n) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { run(); });
  }
  ~single_queue_pool() { shutdown(); }
  single_queue_pool(const single_queue_pool&) = delete;
  single_queue_pool& operator=(const single_queue_pool&) = delete;

  void submit(task f) { push(std::move(f), true); }
  void spawn(task f) { push(std::move(f), false); }

  std::function<void()> submit_waitable(task f) {
    auto st = std::make_shared<wait_state>();
    submit([st, f = std::move(f)] {
      try {
        f();
      } catch (...) {
        st->error = std::current_exception();
      }
      st->done.store(1, PILFER_SITE("sqpool.done", release));
      st->done.notify_all();
    });
    return [this, st] {
      wait_for(*st);
      if (st->error) std::rethrow_exception(st->error);
    };
  }

  void run_group(std::vector<task> fs) {
    std::vector<std::shared_ptr<wait_state>> sts;
    for (auto& f : fs) {
      auto st = std::make_shared<wait_state>();
      sts.push_back(st);
      spawn([st, f = std::move(f)] {
        try {
          f();
        } catch (...) {
          st->error = std::current_exception();
        }
        st->done.store(1, PILFER_SITE("sqpool.done", release));
        st->done.notify_all();
      });
    }
    std::exception_ptr first;
    for (auto& st : sts) {
      wait_for(*st);
      if (st->error && !first) first = st->error;
    }
    if (first) std::rethrow_exception(first);
  }

  void set_on_uncaught(std::function<void(std::exception_ptr)> h) {
    std::lock_guard<S::mutex> g(hook_m_);
    hook_ = std::move(h);
  }
  /// As with std::future: the exception stays in the dropped handle's state and is destroyed with it.
  void submit_dropped(task f) { (void)submit_waitable(std::move(f)); }

  void fork_join(task f, task g) {
    auto st = std::make_shared<wait_state>();
    spawn([st, g = std::move(g)] {
      try {
        g();
      } catch (...) {
        st->error = std::current_exception();
      }
      st->done.store(1, PILFER_SITE("sqpool.done", release));
      st->done.notify_all();
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
      const auto p = pending_.load(PILFER_SITE("sqpool.idle", acquire));
      if (p == 0) return;
      pending_.wait(p, PILFER_SITE("sqpool.idle", acquire));
    }
  }

  void shutdown() {
    {
      std::lock_guard<S::mutex> g(m_);
      if (closed_ && threads_.empty()) return;
      closed_ = true;
    }
    wait_idle();
    stopping_.store(true, PILFER_SITE("sqpool.stop", seq_cst));
    epoch_.fetch_add(1, PILFER_SITE("sqpool.epoch", seq_cst));
    epoch_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void push(task f, bool outside) {
    {
      std::lock_guard<S::mutex> g(m_);
      if (outside && closed_) throw std::logic_error("single_queue_pool: submit after shutdown");
      pending_.fetch_add(1, PILFER_SITE("sqpool.pending", relaxed));
      q_.push_back(std::move(f));
    }
    epoch_.fetch_add(1, PILFER_SITE("sqpool.epoch", seq_cst));
    if (sleepers_.load(PILFER_SITE("sqpool.sleepers", seq_cst)) > 0) epoch_.notify_one();
  }

  bool run_one() {
    task t;
    {
      std::lock_guard<S::mutex> g(m_);
      if (q_.empty()) return false;
      t = std::move(q_.front());
      q_.pop_front();
    }
    try {
      t();
    } catch (...) {
      std::lock_guard<S::mutex> g(hook_m_);
      if (hook_) hook_(std::current_exception());
    }
    t = nullptr;
    if (pending_.fetch_sub(1, PILFER_SITE("sqpool.pending", acq_rel)) == 1) pending_.notify_all();
    return true;
  }

  void wait_for(wait_state& st) {
    const bool inside = S::thread_slot<slot_key>() == this;
    while (st.done.load(PILFER_SITE("sqpool.done", acquire)) == 0) {
      if (inside) {
        if (!run_one()) S::yield();
      } else {
        st.done.wait(0, PILFER_SITE("sqpool.done", acquire));
      }
    }
  }

  void run() {
    S::thread_slot<slot_key>() = this;
    for (;;) {
      if (run_one()) continue;
      const auto e = epoch_.load(PILFER_SITE("sqpool.epoch", seq_cst));
      sleepers_.fetch_add(1, PILFER_SITE("sqpool.sleepers", seq_cst));
      if (run_one()) {
        sleepers_.fetch_sub(1, PILFER_SITE("sqpool.sleepers", seq_cst));
        continue;
      }
      if (stopping_.load(PILFER_SITE("sqpool.stop", seq_cst))) {
        sleepers_.fetch_sub(1, PILFER_SITE("sqpool.sleepers", seq_cst));
        break;
      }
      epoch_.wait(e, PILFER_SITE("sqpool.epoch", seq_cst));
      sleepers_.fetch_sub(1, PILFER_SITE("sqpool.sleepers", seq_cst));
    }
  }

  S::mutex m_;
  S::mutex hook_m_;
  std::function<void(std::exception_ptr)> hook_;
  std::deque<task> q_;
  bool closed_ = false;
  std::vector<S::thread> threads_;
  S::atomic<std::int64_t> pending_{0};
  S::atomic<std::uint64_t> epoch_{0};
  S::atomic<int> sleepers_{0};
  S::atomic<bool> stopping_{false};
};

}  // namespace pilfer::conformance
