// conformance/adapters/tbb_pool.hpp — oneTBB as a pool: a task_arena with n worker slots (none
// reserved for the caller); outside submissions are arena.enqueue (TBB's FIFO arena queue),
// spawns from inside a task are task_group::run (the worker's local task pool), fork-join is
// parallel_invoke (TBB waits help), a group is a tbb::task_group. oneTBB has no shutdown-then-refuse
// operation (POOL-12 is n/a) and no handler for exceptions nobody waits for (an exception escaping
// enqueued work is not caught by TBB), so the adapter offers no set_on_uncaught: POOL-21 is n/a.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pilfer/sync.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace pilfer::conformance {

class tbb_pool {
  using S = pilfer::std_sync;
  struct wait_state {
    S::atomic<int> done{0};
    std::exception_ptr error;
  };

 public:
  static constexpr const char* name = "oneTBB";
  static constexpr bool has_local_spawn = true, has_handles = true, has_fork_join = true, has_shutdown = false;
  /// oneTBB's workers are not re-created in a forked child once the parent has started them: the suite's
  /// in-test child processes (POOL-8 under join, POOL-20) run this adapter in-process instead.
  static constexpr bool fork_safe = false;

  explicit tbb_pool(unsigned n)
      : gc_(tbb::global_control::max_allowed_parallelism, n + 1), arena_(static_cast<int>(n), 0) {}
  ~tbb_pool() noexcept {  // task_group's destructor is noexcept(false); every task has finished here
    wait_idle();
    arena_.execute([this] { tg_.wait(); });
  }
  tbb_pool(const tbb_pool&) = delete;
  tbb_pool& operator=(const tbb_pool&) = delete;

  void submit(std::function<void()> f) {
    pending_.fetch_add(1, PILFER_SITE("tbbpool.pending", relaxed));
    arena_.enqueue([this, f = std::move(f)] { run(f); });
  }
  void spawn(std::function<void()> f) {
    pending_.fetch_add(1, PILFER_SITE("tbbpool.pending", relaxed));
    tg_.run([this, f = std::move(f)] { run(f); });
  }
  std::function<void()> submit_waitable(std::function<void()> f) {
    auto st = std::make_shared<wait_state>();
    submit([st, f = std::move(f)] {
      try {
        f();
      } catch (...) {
        st->error = std::current_exception();
      }
      st->done.store(1, PILFER_SITE("tbbpool.done", release));
      st->done.notify_all();
    });
    return [st] {
      while (st->done.load(PILFER_SITE("tbbpool.done", acquire)) == 0) st->done.wait(0, PILFER_SITE("tbbpool.done", acquire));
      if (st->error) std::rethrow_exception(st->error);
    };
  }
  void fork_join(std::function<void()> f, std::function<void()> g) { tbb::parallel_invoke(f, g); }
  void run_group(std::vector<std::function<void()>> fs) {
    arena_.execute([&] {
      tbb::task_group g;
      for (auto& f : fs) g.run(std::move(f));
      g.wait();
    });
  }
  void wait_idle() {
    for (;;) {
      const auto p = pending_.load(PILFER_SITE("tbbpool.idle", acquire));
      if (p == 0) return;
      pending_.wait(p, PILFER_SITE("tbbpool.idle", acquire));
    }
  }
  void shutdown() {}

 private:
  void run(const std::function<void()>& f) {
    try {
      f();
    } catch (...) {
    }
    if (pending_.fetch_sub(1, PILFER_SITE("tbbpool.pending", acq_rel)) == 1) pending_.notify_all();
  }

  tbb::global_control gc_;
  tbb::task_arena arena_;
  tbb::task_group tg_;
  S::atomic<std::int64_t> pending_{0};
};

}  // namespace pilfer::conformance
