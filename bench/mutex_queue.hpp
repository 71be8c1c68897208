// bench/mutex_queue.hpp — the naive peers: one std::deque behind one mutex (queue), and a thread pool with one
// such queue (mutex_pool). They are what pilfer's structures replace, written plainly, not strawmen: the pool
// parks idle workers on a futex-backed counter instead of spinning and its waits help (run queued tasks), so
// recursive fork-join works on it.
#pragma once

#include <pilfer/sync.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace pilfer::bench {

template <class T>
class mutex_queue {
 public:
  void push(T v) {
    std::lock_guard<std_sync::mutex> g(m_);
    q_.push_back(std::move(v));
  }
  std::optional<T> pop() {
    std::lock_guard<std_sync::mutex> g(m_);
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }

 private:
  std_sync::mutex m_;
  std::deque<T> q_;
};

/// A pool with a single queue behind one mutex. submit() from anywhere appends; idle workers take from the
/// front; join() and group waits help by running the newest queued task while their own work is outstanding.
class mutex_pool {
 public:
  explicit mutex_pool(unsigned threads) {
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~mutex_pool() {
    stop_.store(true, PILFER_SITE("bench.mpool", release));
    epoch_.fetch_add(1, PILFER_SITE("bench.mpool", seq_cst));
    epoch_.notify_all();
    for (auto& w : workers_) w.join();
  }
  mutex_pool(const mutex_pool&) = delete;
  mutex_pool& operator=(const mutex_pool&) = delete;

  void submit(std::function<void()> f) {
    {
      std::lock_guard<std_sync::mutex> g(m_);
      q_.push_back(std::move(f));
    }
    // seq_cst increment after the push: a worker that saw the queue empty read the epoch before our push, so
    // its wait(epoch) returns (no lost wake-up).
    epoch_.fetch_add(1, PILFER_SITE("bench.mpool", seq_cst));
    epoch_.notify_one();
  }

  /// Runs one queued task if there is one: idle workers take the oldest (FIFO); helping waits take the newest
  /// (LIFO), which is usually the waiter's own child. Helping FIFO would start the oldest, largest subtrees
  /// nested inside every wait and overflow the stack on deep fork-join (fib(30) does).
  bool run_one(bool newest = false) {
    std::function<void()> f;
    {
      std::lock_guard<std_sync::mutex> g(m_);
      if (q_.empty()) return false;
      if (newest) {
        f = std::move(q_.back());
        q_.pop_back();
      } else {
        f = std::move(q_.front());
        q_.pop_front();
      }
    }
    f();
    return true;
  }

  /// Waits (helping) until `done` becomes true.
  void help_until(const std_sync::atomic<bool>& done) {
    while (!done.load(PILFER_SITE("bench.mpool", acquire))) {
      if (!run_one(true)) std_sync::yield();
    }
  }

  /// Waits (helping) until `remaining` drops to zero.
  void help_until_zero(const std_sync::atomic<std::uint64_t>& remaining) {
    while (remaining.load(PILFER_SITE("bench.mpool", acquire)) != 0) {
      if (!run_one(true)) std_sync::yield();
    }
  }

  /// A set of tasks waited for together: one counter; wait() helps (newest first) until it drops to zero.
  class group {
   public:
    explicit group(mutex_pool& p) noexcept : p_(p) {}
    ~group() { wait(); }
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    template <class F>
    void run(F&& f) {
      left_.fetch_add(1, PILFER_SITE("bench.mpool", relaxed));
      p_.submit([this, f = std::forward<F>(f)]() mutable {
        f();
        left_.fetch_sub(1, PILFER_SITE("bench.mpool", acq_rel));
      });
    }
    void wait() { p_.help_until_zero(left_); }

   private:
    mutex_pool& p_;
    std_sync::atomic<std::uint64_t> left_{0};
  };

  /// Two-way fork-join: b is queued, a runs here, then the caller helps until b finished.
  template <class A, class B>
  void join(A&& a, B&& b) {
    std_sync::atomic<bool> b_done{false};
    submit([&] {
      b();
      b_done.store(true, PILFER_SITE("bench.mpool", release));
    });
    a();
    help_until(b_done);
  }

 private:
  void loop() {
    for (;;) {
      const auto e = epoch_.load(PILFER_SITE("bench.mpool", seq_cst));
      if (run_one()) continue;
      if (stop_.load(PILFER_SITE("bench.mpool", acquire))) return;
      epoch_.wait(e, PILFER_SITE("bench.mpool", seq_cst));
    }
  }

  std_sync::mutex m_;
  std::deque<std::function<void()>> q_;
  std_sync::atomic<std::uint32_t> epoch_{0};
  std_sync::atomic<bool> stop_{false};
  std::vector<std_sync::thread> workers_;
};

}  // namespace pilfer::bench
