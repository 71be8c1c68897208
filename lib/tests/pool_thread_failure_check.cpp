// Spare threads that cannot be started (pthread_create fails: a thread or memory limit). This program
// replaces pthread_create with one that fails on request, so it is built only without sanitizers (their
// runtimes intercept pthread_create themselves; lib/tests/CMakeLists.txt).
//
// Found by a review of the lazy spare activation (pool.hpp, invariant C): a graph wait was told a spare
// stood in for it, the spare then failed to start, and the wait blocked beside the run's start in the
// injector (hung 3 of 3); and a pool whose spare failed to start aborted in its destructor (join of a
// thread that never ran: std::system_error out of a noexcept destructor, 3 of 3).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "pilfer/graph.hpp"
#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;
using namespace std::chrono_literals;

namespace {
flag fail_thread_creation{0};
}  // namespace

// Every thread of this program is made here: the real pthread_create, or EAGAIN while the flag is set.
extern "C" int pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) {
  using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto real = reinterpret_cast<create_fn>(dlsym(RTLD_NEXT, "pthread_create"));
  if (load(fail_thread_creation) != 0) return EAGAIN;
  return real(t, a, f, arg);
}

namespace {

/// Sets the flag for the lifetime of the guard.
struct no_new_threads {
  no_new_threads() { store(fail_thread_creation, 1); }
  ~no_new_threads() { store(fail_thread_creation, 0); }
  no_new_threads(const no_new_threads&) = delete;
  no_new_threads& operator=(const no_new_threads&) = delete;
};

// A graph wait inside a task on a 1-worker pool, with the run's start in the injector (run from outside)
// and no thread to be had: the wait must not block as if a spare stood in for it; past the bound it naps
// and takes the start itself (POOL-20, "past the bound").
// @verifies POOL-20 GRAPH-4
TEST(PoolThreadFailure, GraphWaitWhoseSpareCannotStartRunsTheStartItself) {
  pilfer::pool_options o;
  o.threads = 1;
  std::string notice;  // the spare-limit notice: it must say the thread was refused, not that spares ran out
  o.on_uncaught = [&notice](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const pilfer::spare_limit_reached& x) {
      notice = x.what();
    } catch (...) {
    }
  };
  pilfer::pool p(o);
  watchdog dog("graph wait with no thread for its spare", 60s, &p);
  pilfer::graph g;
  counter ran{0};
  g.emplace([&] { add(ran); });
  flag in_task{0}, go{0}, done{0};
  pilfer::graph_run* run = nullptr;
  p.spawn([&] {
    store(in_task, 1);
    while (load(go) == 0) std::this_thread::yield();
    run->wait();  // the only worker waits; the start sits in the injector
    store(done, 1);
  });
  ASSERT_TRUE(eventually([&] { return load(in_task) == 1; }));
  pilfer::graph_run h = pilfer::run(p, g);
  run = &h;
  {
    no_new_threads guard;
    store(go, 1);
    EXPECT_TRUE(eventually([&] { return load(done) == 1; }, 10s))
        << "the graph wait blocked with no spare beside its run's start";
  }
  h.wait();
  EXPECT_EQ(load(ran), 1u);
  EXPECT_NE(notice.find("refused a new thread"), std::string::npos) << "notice: " << notice;
}

// A wait owes a spare; an outside submission finds nobody parked and tries to start it, which fails.
// The pool keeps working (the task runs once the wait's target ends), says once that the system
// refused the thread (the lazy path reported nothing before), and its destructor returns.
// @verifies POOL-20 POOL-12
TEST(PoolThreadFailure, PoolWhoseSpareFailedToStartShutsDown) {
  std::string notice;
  int notices = 0;
  {
    pilfer::pool_options o;
    o.threads = 2;
    o.on_uncaught = [&](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const pilfer::spare_limit_reached& x) {
        notice = x.what();
        ++notices;
      } catch (...) {
      }
    };
    pilfer::pool p(o);
    watchdog dog("pool with a spare that failed to start", 60s, &p);
    flag x_ran{0};
    wait_blocked_on_running_task blocked(p);
    ASSERT_TRUE(blocked.start());
    {
      no_new_threads guard;
      auto x = p.submit([&] { store(x_ran, 1); });  // its push tries to start the owed spare: no thread
      std::this_thread::sleep_for(20ms);
      blocked.release();
      x.get();
    }
    EXPECT_EQ(load(x_ran), 1);
  }  // the destructor joins only threads that were started
  EXPECT_EQ(notices, 1);
  EXPECT_NE(notice.find("refused a new thread"), std::string::npos) << "notice: " << notice;
}

}  // namespace
