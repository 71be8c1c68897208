// Helpers shared by lib/tests/pool_*_test.cpp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pilfer/pool.hpp"

#include "pilfer/sync.hpp"
#include "pilfer/testing/sanitizers.hpp"
#include "pilfer/testing/seed.hpp"

namespace pilfer_test {

using flag = pilfer::std_sync::atomic<int>;
using counter = pilfer::std_sync::atomic<std::uint64_t>;

/// Generous bound for "this must happen": a failure, never a hang.
inline constexpr std::chrono::seconds deadline{20};

/// Spin (yielding) until pred() or the deadline; returns pred().
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = deadline) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return pred();
    pilfer::std_sync::yield();
  }
  return true;
}

inline int load(const flag& f) { return f.load(PILFER_SITE("test.load", acquire)); }
inline void store(flag& f, int v) { f.store(v, PILFER_SITE("test.store", release)); }
inline std::uint64_t load(const counter& c) { return c.load(PILFER_SITE("test.load", acquire)); }
inline void c_store(counter& c, std::uint64_t v) { c.store(v, PILFER_SITE("test.store", release)); }
inline std::uint64_t add(counter& c, std::uint64_t d = 1) { return c.fetch_add(d, PILFER_SITE("test.add", acq_rel)); }

/// Every thread of the pool asleep, spares included. `sleeping` alone counts the threads linked in
/// the event count, where an active spare parks too: it can read size() while a worker still runs
/// and is about to wake that spare so it retires.
inline bool all_parked(const pilfer::pool& p) {
  if (p.stats().sleeping != p.size()) return false;
  for (const pilfer::worker_snapshot& w : p.snapshot())
    if (w.state != pilfer::worker_state::parked) return false;
  return true;
}

/// Yield until at least n of the pool's threads are parked in a wait
/// (worker_state::waiting, pool::snapshot()).
inline void until_waiting(const pilfer::pool& p, int n) {
  for (;;) {
    int waiting = 0;
    for (const auto& w : p.snapshot()) waiting += w.state == pilfer::worker_state::waiting;
    if (waiting >= n) return;
    pilfer::std_sync::yield();
  }
}

/// POOL-20's shape: one worker runs a long task until release(); a task on another worker waits for it.
/// start() returns once that wait has blocked (the pool counted a blocked wait), false if not in time.
/// The object must stay where it is while the tasks run (they refer to it).
struct wait_blocked_on_running_task {
  explicit wait_blocked_on_running_task(pilfer::pool& pool) : p(pool) {}
  bool start() {
    long_task = p.submit([this] {
      store(started, 1);
      while (load(released) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    if (!eventually([&] { return load(started) == 1; })) return false;
    const std::uint64_t blocked_before = p.stats().total.blocked_waits;
    waiter = p.submit([this] { long_task.wait(); });
    return eventually([&] { return p.stats().total.blocked_waits > blocked_before; });
  }
  /// Lets the long task end and collects both tasks.
  void release() {
    store(released, 1);
    waiter.get();
    long_task.get();
  }
  pilfer::pool& p;
  flag started{0}, released{0};
  pilfer::task_handle<void> long_task, waiter;
};

/// CPU time, in seconds, of the thread whose clock this is (pthread_getcpuclockid, or
/// CLOCK_THREAD_CPUTIME_ID for the calling thread): time spent running, never time asleep.
inline double cpu_seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
inline double this_thread_cpu_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

/// seed=N printed, PILFER_SEED=N accepted (the room's helper; a malformed value is an error, exit 2).
using pilfer::testing::test_seed;

/// A function, as the tests call it (`under_tsan() ? small : large`).
constexpr bool under_tsan() { return pilfer::testing::under_tsan; }

/// Fails the test binary (exit 3, message on stderr, every worker's state)
/// when the guarded block has not finished within `limit`.
class watchdog {
 public:
  watchdog(const char* what, std::chrono::seconds limit, const pilfer::pool* p = nullptr)
      : what_(what), pool_(p), t_([this, limit] {
          std::unique_lock<std::mutex> lk(m_);
          if (!cv_.wait_for(lk, limit, [this] { return done_; })) {
            std::fprintf(stderr, "HANG: '%s' did not complete within %llds\n", what_,
                         static_cast<long long>(limit.count()));
            if (pool_ != nullptr)
              for (const pilfer::worker_snapshot& s : pool_->snapshot())
                std::fprintf(stderr, "  worker %u: %s, queued %zu, tasks run %llu\n", s.index,
                             pilfer::to_string(s.state), s.queued, static_cast<unsigned long long>(s.tasks_run));
            std::fflush(stderr);
            std::_Exit(3);
          }
        }) {}
  void watch(const pilfer::pool& p) { pool_ = &p; }
  ~watchdog() {
    {
      std::lock_guard<std::mutex> lk(m_);
      done_ = true;
    }
    cv_.notify_all();
    t_.join();
  }

 private:
  const char* what_;
  const pilfer::pool* pool_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread t_;
};

/// What on_uncaught received (each exception's what()), for tests that count where exceptions went.
class uncaught_messages {
 public:
  /// Pool options with `threads` workers whose on_uncaught records here.
  pilfer::pool_options options(unsigned threads) {
    pilfer::pool_options o;
    o.threads = threads;
    o.on_uncaught = [this](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        std::lock_guard<std::mutex> g(mu_);
        got_.emplace_back(x.what());
      }
    };
    return o;
  }
  std::vector<std::string> get() {
    std::lock_guard<std::mutex> g(mu_);
    return got_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> got_;
};

}  // namespace pilfer_test
