// Engine self-test: an execution the checker cuts short (memoised state, blocked by assume) is
// finished — every thread it started runs to its end, so the destructors of its locals run once
// per object made, including destructors that block (join a thread, wait for a flag), as a
// pool's does. Objects count their constructions and destructions; after check() the two
// counts must agree, and the run must have cut executions short (else the test proves nothing).
// Before the checker finished executions, the threads of every cut execution were abandoned
// mid-stack: 47 of 157 guards (first program) and 29 083 of 39 069 guards and owners (second)
// were never destroyed. Spinners (Peterson's lock; a bounded backoff) are finished too: while
// finishing gave up after one round without a write, Peterson's check left 9 guards behind.
// @verifies MC-11
#include "test_util.hpp"

#include <string>
#include <vector>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

/// Constructions and destructions of the counted objects of one check().
struct lifetimes {
  std::size_t made = 0, destroyed = 0;
  bool balanced() const noexcept { return made == destroyed; }
  std::string show() const { return "made " + std::to_string(made) + ", destroyed " + std::to_string(destroyed); }
};
lifetimes g_guards, g_scenarios;

/// A counted local of a thread body.
struct counted {
  counted() { ++g_guards.made; }
  ~counted() { ++g_guards.destroyed; }
  counted(const counted&) = delete;
  counted& operator=(const counted&) = delete;
};

/// A counted local owning heap memory: a leak LeakSanitizer would report (asan build).
struct guard : counted {
  std::vector<int> heap = std::vector<int>(16);
};

/// Two threads racing on one location: many interleavings reach the same graph, so the memo
/// table cuts executions short with both threads in the middle of their bodies.
struct racing_guards : scenario {
  S::atomic<int> x{0};
  racing_guards() : scenario(2) { ++g_scenarios.made; }
  ~racing_guards() override { ++g_scenarios.destroyed; }
  void thread(unsigned i) override {
    guard g;
    x.fetch_add(1, PILFER_SITE("fin.add", relaxed));
    x.store(static_cast<int>(i) + 5, PILFER_SITE("fin.store", relaxed));
    (void)x.load(PILFER_SITE("fin.load", relaxed));
  }
};

/// A local whose destructor blocks, like a pool's: it owns a helper thread that waits (atomic
/// wait) until the destructor raises `stop`, and joins it. Finishing must let the helper run
/// while the destructor waits for it. (`stop` lives in the scenario: an atomic member of a
/// local makes g++ 12 warn -Wmaybe-uninitialized at its own construction.)
struct joining_owner {
  S::atomic<int>& stop;
  S::thread helper;
  explicit joining_owner(S::atomic<int>& flag) : stop(flag), helper([this] {
    guard g;
    while (stop.load(PILFER_SITE("fin.stop", acquire)) == 0) stop.wait(0, PILFER_SITE("fin.stop", acquire));
  }) {
    ++g_guards.made;
  }
  ~joining_owner() {
    stop.store(1, PILFER_SITE("fin.stop", release));
    stop.notify_all();
    helper.join();
    ++g_guards.destroyed;
  }
  joining_owner(const joining_owner&) = delete;
  joining_owner& operator=(const joining_owner&) = delete;
};

struct blocking_destructors : scenario {
  S::atomic<int> x{0};
  S::atomic<int> stop[2] = {S::atomic<int>{0}, S::atomic<int>{0}};
  blocking_destructors() : scenario(2) { ++g_scenarios.made; }
  ~blocking_destructors() override { ++g_scenarios.destroyed; }
  void thread(unsigned i) override {
    joining_owner owner(stop[i]);
    x.fetch_add(1, PILFER_SITE("fin.add", relaxed));
    x.store(static_cast<int>(i), PILFER_SITE("fin.store", relaxed));
  }
};

/// assume(false) strands its thread (its code cannot go on): the other thread is finished, the
/// stranded local is the only one left, and the execution counts as abandoned. (Counted only:
/// a stranded frame's heap memory leaks, as documented, and the asan build would report it.)
struct blocked_guards : scenario {
  S::atomic<int> x{0};
  blocked_guards() : scenario(2) { ++g_scenarios.made; }
  ~blocked_guards() override { ++g_scenarios.destroyed; }
  void thread(unsigned i) override {
    counted c;
    if (i == 0) {
      x.store(1, PILFER_SITE("fin.store", relaxed));
    } else {
      assume(x.load(PILFER_SITE("fin.load", relaxed)) == 1);
    }
  }
};

/// Peterson's lock, spinning with a hint or a yield: an execution cut between a spinner's flag
/// read and its turn read must still finish. The spinner ends that iteration in the first
/// finishing round having read nothing new, and gets out in the next; with one still round
/// allowed, both threads were stranded (9 of 20 executions abandoned, 9 guards never destroyed).
template <bool Hint>
struct peterson_guards : scenario {
  S::atomic<int> flag[2] = {S::atomic<int>{0}, S::atomic<int>{0}};
  S::atomic<int> turn{0};
  S::cell<int> inside{0};
  peterson_guards() : scenario(2) { ++g_scenarios.made; }
  ~peterson_guards() override { ++g_scenarios.destroyed; }
  void thread(unsigned i) override {
    guard g;
    const int j = 1 - static_cast<int>(i);
    flag[i].store(1, PILFER_SITE("fin.flag", seq_cst));
    turn.store(j, PILFER_SITE("fin.turn", seq_cst));
    while (flag[j].load(PILFER_SITE("fin.flag", seq_cst)) == 1 && turn.load(PILFER_SITE("fin.turn", seq_cst)) == j) {
      if (Hint)
        S::spin_hint();
      else
        S::yield();
    }
    inside.write() += 1;
    flag[i].store(0, PILFER_SITE("fin.flag", seq_cst));
  }
  void after() override { PILFER_MODEL_ASSERT(inside.read() == 2); }
};

/// A thread that yields a bounded number of times before it writes the flag the other waits
/// for: finishing rounds without a write are not yet a thread that cannot go on.
struct bounded_backoff : scenario {
  S::atomic<int> x{0}, ready{0};
  bounded_backoff() : scenario(2) { ++g_scenarios.made; }
  ~bounded_backoff() override { ++g_scenarios.destroyed; }
  void thread(unsigned i) override {
    guard g;
    if (i == 0) {
      x.fetch_add(1, PILFER_SITE("fin.add", relaxed));
      for (int k = 0; k < 20; ++k) S::yield();
      ready.store(1, PILFER_SITE("fin.ready", release));
    } else {
      x.fetch_add(1, PILFER_SITE("fin.add", relaxed));
      while (ready.load(PILFER_SITE("fin.ready", acquire)) == 0) S::spin_hint();
    }
  }
};

template <class Scn>
result run(options o = {}) {
  g_guards = {};
  g_scenarios = {};
  return check<Scn>(o);
}

}  // namespace

int main() {
  runner t;
  {
    const result r = run<racing_guards>();
    t.expect(r.ok && r.complete && r.pruned > 0 && r.abandoned == 0 && g_guards.balanced() && g_scenarios.balanced(),
             "memoised cuts: every guard of every started execution is destroyed once",
             cat("[", r.summary(), "] pruned ", std::to_string(r.pruned), "; guards ", g_guards.show(), "; scenarios ",
                 g_scenarios.show()));
  }
  {
    const result r = run<blocking_destructors>();
    t.expect(r.ok && r.complete && r.pruned > 0 && r.abandoned == 0 && g_guards.balanced() && g_scenarios.balanced(),
             "memoised cuts: a destructor that waits for and joins its own thread runs to its end",
             cat("[", r.summary(), "] pruned ", std::to_string(r.pruned), "; guards and owners ", g_guards.show(),
                 "; scenarios ", g_scenarios.show()));
  }
  {
    const result r = run<blocked_guards>();
    t.expect(r.ok && r.complete && r.blocked > 0 && r.abandoned == r.blocked &&
                 g_guards.made - g_guards.destroyed == r.blocked && g_scenarios.balanced(),
             "assume(false): only the stranded thread's guard is left, the scenario is destroyed",
             cat("[", r.summary(), "] guards ", g_guards.show(), "; scenarios ", g_scenarios.show()));
  }
  const auto finished_spinners = [&t](const result& r, const std::string& name) {
    t.expect(r.ok && r.complete && r.pruned > 0 && r.abandoned == 0 && g_guards.balanced() && g_scenarios.balanced(),
             name, cat("[", r.summary(), "] pruned ", std::to_string(r.pruned), "; guards ", g_guards.show(),
                       "; scenarios ", g_scenarios.show()));
  };
  finished_spinners(run<peterson_guards<true>>(), "Peterson spinning with spin_hint: cut executions finish");
  finished_spinners(run<peterson_guards<false>>(), "Peterson spinning with yield: cut executions finish");
  finished_spinners(run<bounded_backoff>(), "20 yields before the write a spinner waits for: cut executions finish");
  return t.done();
}
