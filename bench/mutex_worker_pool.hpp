// bench/mutex_worker_pool.hpp — seed 002's pool design as a peer: one mutex-guarded deque per worker
// (pilfer::basic_mutex_deque: the owner pushes/pops LIFO under the lock, thieves try_lock and take FIFO), a
// mutex-guarded FIFO for submissions from outside, idle workers parked on a futex-backed epoch, and a
// task group that is one atomic counter whose wait helps (runs tasks) on a worker.
//
// It is written the way that design is written, not as a strawman: tasks carry their callable inline
// (std::function's small buffer holds a two-pointer capture), spawns from a worker go to its own deque and
// waits help LIFO, so fork-join recursion stays depth-first.
#pragma once

#include <pilfer/mutex_deque.hpp>
#include <pilfer/sync.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mutex_queue.hpp"

namespace pilfer::bench {

class mutex_worker_pool {
 public:
  using task = std::function<void()>;

  explicit mutex_worker_pool(unsigned threads) {
    for (unsigned i = 0; i < threads; ++i) slots_.push_back(std::make_unique<slot>());
    for (unsigned i = 0; i < threads; ++i) slots_[i]->thread = std_sync::thread([this, i] { loop(i); });
  }
  ~mutex_worker_pool() {
    stop_.store(true, PILFER_SITE("bench.wpool", release));
    epoch_.fetch_add(1, PILFER_SITE("bench.wpool", seq_cst));
    epoch_.notify_all();
    for (auto& s : slots_) s->thread.join();
  }
  mutex_worker_pool(const mutex_worker_pool&) = delete;
  mutex_worker_pool& operator=(const mutex_worker_pool&) = delete;

  /// From a worker: onto its own deque; from elsewhere: onto the shared FIFO. Then wakes one parked worker.
  void submit(task f) {
    auto* t = new task(std::move(f));
    if (me_ != nullptr && me_->owner == this) me_->dq.push(t);
    else outside_.push(t);
    // seq_cst after the push: a worker that found nothing read the epoch before it, so its wait returns.
    epoch_.fetch_add(1, PILFER_SITE("bench.wpool", seq_cst));
    if (sleepers_.load(PILFER_SITE("bench.wpool", seq_cst)) != 0) epoch_.notify_one();
  }

  /// A set of tasks waited for together: one counter; wait() helps on a worker, yields elsewhere.
  class group {
   public:
    explicit group(mutex_worker_pool& p) noexcept : p_(p) {}
    ~group() { wait(); }
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    template <class F>
    void run(F&& f) {
      left_.fetch_add(1, PILFER_SITE("bench.wpool", relaxed));
      p_.submit([this, f = std::forward<F>(f)]() mutable {
        f();
        left_.fetch_sub(1, PILFER_SITE("bench.wpool", acq_rel));
      });
    }
    void wait() {
      while (left_.load(PILFER_SITE("bench.wpool", acquire)) != 0) {
        if (!p_.run_one()) std_sync::yield();
      }
    }

   private:
    mutex_worker_pool& p_;
    std_sync::atomic<std::uint64_t> left_{0};
  };

 private:
  struct slot {
    pilfer::basic_mutex_deque<task*, std_sync> dq;
    mutex_worker_pool* owner = nullptr;
    std_sync::thread thread;
  };
  static inline thread_local slot* me_ = nullptr;

  task* find(slot* s) {
    if (s != nullptr) {
      if (auto t = s->dq.pop()) return *t;
    }
    if (auto t = outside_.pop()) return *t;
    for (auto& v : slots_) {
      if (v.get() == s) continue;
      for (;;) {
        auto r = v->dq.steal();
        if (r.is_success()) return r.value;
        if (r.is_empty()) break;
      }
    }
    return nullptr;
  }

  /// Runs one task if any is found (own deque newest first, then outside FIFO, then steals).
  bool run_one() {
    slot* s = (me_ != nullptr && me_->owner == this) ? me_ : nullptr;
    task* t = find(s);
    if (t == nullptr) return false;
    (*t)();
    delete t;
    return true;
  }

  void loop(unsigned i) {
    me_ = slots_[i].get();
    me_->owner = this;
    for (;;) {
      const auto e = epoch_.load(PILFER_SITE("bench.wpool", seq_cst));
      if (run_one()) continue;
      if (stop_.load(PILFER_SITE("bench.wpool", acquire))) break;
      sleepers_.fetch_add(1, PILFER_SITE("bench.wpool", seq_cst));
      epoch_.wait(e, PILFER_SITE("bench.wpool", seq_cst));
      sleepers_.fetch_sub(1, PILFER_SITE("bench.wpool", seq_cst));
    }
    me_ = nullptr;
  }

  std::vector<std::unique_ptr<slot>> slots_;
  mutex_queue<task*> outside_;
  std_sync::atomic<std::uint32_t> epoch_{0};
  std_sync::atomic<std::uint32_t> sleepers_{0};
  std_sync::atomic<bool> stop_{false};
};

}  // namespace pilfer::bench
