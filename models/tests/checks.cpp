// Engine self-test: every kind of failure the checker reports fires when it should and stays
// quiet when it should not (data race, deadlock / lost wake-up, livelock, use after free,
// double free, leak, uninitialised read, assertion + replay token, mutex, random mode).
// @verifies MC-3
#include "test_util.hpp"

#include <pilfer/testing/seed.hpp>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

// --- data races on cells ---
template <bool Sync>
struct cell_race : scenario {
  S::cell<int> c{0};
  S::atomic<int> flag{0};
  cell_race() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      c.write() = 1;
      flag.store(1, Sync ? PILFER_SITE("race.flag", release) : PILFER_SITE("race.flag", relaxed));
    } else if (flag.load(Sync ? PILFER_SITE("race.rflag", acquire) : PILFER_SITE("race.rflag", relaxed)) == 1) {
      PILFER_MODEL_ASSERT(c.read() == 1);
    }
  }
};

// --- mutex ---
template <bool Locked>
struct counter : scenario {
  S::mutex m;
  S::cell<int> c{0};
  counter() : scenario(2) {}
  void thread(unsigned) override {
    if (Locked) m.lock();
    c.write() = c.read() + 1;
    if (Locked) m.unlock();
  }
  void after() override { PILFER_MODEL_ASSERT(c.read() == 2); }
};
struct lock_inversion : scenario {
  S::mutex a, b;
  static constexpr unsigned second_lock_line = __LINE__ + 6;
  lock_inversion() : scenario(2) {}
  void thread(unsigned i) override {
    S::mutex& first = i == 0 ? a : b;
    S::mutex& second = i == 0 ? b : a;
    first.lock();
    second.lock();  // (second_lock_line)
    second.unlock();
    first.unlock();
  }
};

/// A thread that finishes holding a mutex ([thread.mutex.class]: undefined): mutex misuse, not
/// only the other thread's deadlock.
struct ends_holding : scenario {
  S::mutex m;
  ends_holding() : scenario(1) {}
  void thread(unsigned) override { m.lock(); }
};

// --- wait / notify ---
template <bool Notify>
struct waiter : scenario {
  S::atomic<int> x{0};
  static constexpr unsigned wait_line = __LINE__ + 4;
  waiter() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      while (x.load(PILFER_SITE("wait.load", acquire)) == 0) x.wait(0, PILFER_SITE("wait.wait", acquire));
    } else {
      x.store(1, PILFER_SITE("wait.store", release));
      if (Notify) x.notify_one();  // without it: the waiter may sleep forever (lost wake-up)
    }
  }
};

// --- spinning ---
template <bool Progress>
struct spinner : scenario {
  S::atomic<int> flag{0};
  spinner() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      while (flag.load(PILFER_SITE("spin.load", acquire)) == 0) S::yield();
    } else if (Progress) {
      flag.store(1, PILFER_SITE("spin.store", release));
    }
  }
};

// --- memory ---
struct use_after_free : scenario {
  use_after_free() : scenario(1) {}
  void thread(unsigned) override {
    auto* p = S::make<S::atomic<int>>(1);
    S::destroy(p);
    (void)p->load(PILFER_SITE("uaf.load", relaxed));
  }
};
/// An element of a make_array freed, then read: the report names the make_array call's line.
struct array_element_freed : scenario {
  static constexpr unsigned make_line = __LINE__ + 4;
  array_element_freed() : scenario(1) {}
  void thread(unsigned) override {
    (void)0;
    auto* a = S::make_array<S::atomic<int>>(2);
    S::destroy_array(a, 2);
    (void)a[1].load(PILFER_SITE("ae.load", relaxed));
  }
};
struct concurrent_free : scenario {  // a thief-like reader races with the free
  S::atomic<S::atomic<int>*> ptr{nullptr};
  static constexpr unsigned destroy_line = __LINE__ + 5;
  concurrent_free() : scenario(2) {}
  void before() override { ptr.store(S::make<S::atomic<int>>(7), PILFER_SITE("cf.init", relaxed)); }
  void thread(unsigned i) override {
    if (i == 0) {
      S::destroy(ptr.exchange(nullptr, PILFER_SITE("cf.take", acq_rel)));
    } else if (auto* p = ptr.load(PILFER_SITE("cf.load", acquire))) {
      (void)p->load(PILFER_SITE("cf.read", relaxed));
    }
  }
};
struct double_free : scenario {
  double_free() : scenario(1) {}
  void thread(unsigned) override {
    auto* p = S::make<int>(1);
    S::destroy(p);
    S::destroy(p);
  }
};
template <bool Free>
struct leak : scenario {
  int* p = nullptr;
  leak() : scenario(1) {}
  void thread(unsigned) override {
    p = S::make<int>(1);
    if (Free) S::destroy(p);
  }
};
template <bool Published>
struct uninit_read : scenario {
  S::atomic<int> a{uninit_t{}};
  S::atomic<int> ready{0};
  uninit_read() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      a.store(5, PILFER_SITE("un.store", relaxed));
      ready.store(1, PILFER_SITE("un.ready", release));
    } else if (!Published || ready.load(PILFER_SITE("un.rready", acquire)) == 1) {
      (void)a.load(PILFER_SITE("un.load", relaxed));
    }
  }
};

// --- assertion, replay, random mode ---
struct mp_assert : scenario {
  S::atomic<int> data{0}, flag{0};
  mp_assert() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("mpa.data", relaxed));
      flag.store(1, PILFER_SITE("mpa.flag", release));
    } else if (flag.load(PILFER_SITE("mpa.rflag", acquire)) == 1) {
      PILFER_MODEL_ASSERT(data.load(PILFER_SITE("mpa.rdata", relaxed)) == 1);
    }
  }
};

}  // namespace

int main() {
  runner t;
  t.expect_failure("race on a cell found (relaxed flag)", check<cell_race<false>>(), "data race");
  t.expect_ok("no race when ordered by release/acquire", check<cell_race<true>>());
  t.expect_ok("mutex protects a cell", check<counter<true>>());
  t.expect_failure("unprotected increment is a race", check<counter<false>>(), "data race");
  const result inversion = check<lock_inversion>();
  t.expect_failure("lock-order inversion deadlocks", inversion, "deadlock");
  // the report names each blocked operation's line and where the object it waits on was made
  t.expect(inversion.message.find("t1 lock(L1 (made by t0 at checks.cpp:") != std::string::npos &&
               inversion.message.find(") at checks.cpp:" + std::to_string(lock_inversion::second_lock_line)) !=
                   std::string::npos &&
               inversion.message.find("t0 join(t1) (the checker joining scenario thread 0)") != std::string::npos,
           "a deadlock names each blocked operation's line", inversion.message);
  const result held = check<ends_holding>();
  t.expect_failure("a thread that finishes holding a mutex is mutex misuse", held, "mutex misuse");
  t.expect(held.message.find("t1 finished while holding mutex L0") != std::string::npos,
           "... reported when it finishes (it was reported only once the mutex was destroyed)", held.message);
  const result lost = check<waiter<false>>();
  t.expect_failure("lost wake-up (store without notify) -> deadlock", lost, "deadlock");
  t.expect(lost.message.find("wait(L0 (made by t0 at checks.cpp:") != std::string::npos &&
               lost.message.find(") at checks.cpp:" + std::to_string(waiter<false>::wait_line)) != std::string::npos,
           "a lost wake-up names the wait's line", lost.message);
  t.expect_ok("wait + notify_one: no lost wake-up", check<waiter<true>>());
  options few;
  few.max_steps = 60;
  t.expect_failure("spin without progress -> livelock", check<spinner<false>>(few), "livelock");
  t.expect_ok("spin that is released terminates", check<spinner<true>>(few));
  t.expect_failure("use after free", check<use_after_free>(), "use after free");
  const result element = check<array_element_freed>();
  t.expect(element.kind == "use after free" &&
               element.message.find("made by t1 at checks.cpp:" + std::to_string(array_element_freed::make_line)) !=
                   std::string::npos,
           "a make_array element's use after free names the make_array call (it said 'before its first operation')",
           element.message);
  const result freed = check<concurrent_free>();
  t.expect_failure("free concurrent with a reader", freed, "use after free");
  // the report says where the object was made and where it was destroyed (the destroy() call)
  t.expect(freed.message.find("destroyed by t1 at checks.cpp:" + std::to_string(concurrent_free::destroy_line) + ")") !=
                   std::string::npos &&
               freed.message.find("made by t0 after checks.cpp:") != std::string::npos,
           "a use after free names the destroy() that ended the object", freed.message);
  t.expect_failure("double free", check<double_free>(), "double free");
  t.expect_failure("leak", check<leak<false>>(), "leak");
  t.expect_ok("no leak when destroyed", check<leak<true>>());
  t.expect_failure("uninitialised read", check<uninit_read<false>>(), "uninitialised read");
  t.expect_ok("no uninitialised read after publication", check<uninit_read<true>>());
  t.expect_ok("MP release/acquire assertion holds", check<mp_assert>());

  // weakening the flag's release by tag breaks MP; the replay token reproduces the failure
  options weak;
  weak.weaken["mpa.flag"] = std::memory_order_relaxed;
  const result w = check<mp_assert>(weak);
  t.expect_failure("weakened [mpa.flag] breaks MP", w, "assertion");
  t.expect(w.tags.count("mpa.flag") == 1 && w.trace.find("weakened from release") != std::string::npos,
           "trace names the weakened site", w.trace);
  options rep = weak;
  rep.replay = w.replay_token;
  const result again = check<mp_assert>(rep);
  t.expect(!again.ok && again.kind == "assertion" && again.executions == 0, "replay token reproduces the failure",
           "token=" + w.replay_token + " [" + again.summary() + "]");

  // bounds: max_executions cuts the search (complete = false); a preemption bound of 0 still
  // explores every reads-from choice of the non-preemptive schedules
  options cap;
  cap.max_executions = 1;
  const result capped = check<mp_assert>(cap);
  t.expect(capped.ok && !capped.complete && capped.executions == 1, "max_executions bound reported as incomplete",
           capped.summary());
  options pb;
  pb.preemption_bound = 0u;
  pb.weaken["mpa.flag"] = std::memory_order_relaxed;
  t.expect_failure("preemption bound 0 still finds the weakened MP bug (rf choice)", check<mp_assert>(pb), "assertion");

  options rnd;
  rnd.how = mode::random;
  rnd.seed = pilfer::testing::env_seed().value_or(42);  // PILFER_SEED=N to vary
  rnd.iterations = 2000;
  rnd.weaken["mpa.flag"] = std::memory_order_relaxed;
  pilfer::testing::print_seed(rnd.seed);
  t.expect_failure("random mode finds the weakened MP bug", check<mp_assert>(rnd), "assertion");
  return t.done();
}
