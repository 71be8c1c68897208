// Engine self-test: a scenario's controls over branching (pilfer/model/checker.hpp).
//   MC-12 stop_branching()/resume_branching(): with branching off every decision takes its first
//         alternative, events are still checked, and the result says a stretch ran one way;
//         observe(): a read inside takes the newest store allowed, reads outside keep every value.
// @verifies MC-12
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

enum class branching { on, off_from_start, resumed_before_threads };

/// Store buffering, relaxed: (r0, r1) in {(0,0), (0,1), (1,0), (1,1)} when every choice is explored.
template <branching B, bool FailOnFirst = false>
struct sb : scenario {
  S::atomic<int> x{0}, y{0};
  int r0 = -1, r1 = -1;
  sb() : scenario(2) {}
  void before() override {
    if constexpr (B != branching::on) stop_branching();
    if constexpr (B == branching::resumed_before_threads) resume_branching();
  }
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      r0 = y.load(PILFER_SITE("t.ry", relaxed));
    } else {
      y.store(1, PILFER_SITE("t.y", relaxed));
      r1 = x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
  void after() override {
    record({r0, r1});
    if constexpr (FailOnFirst) PILFER_MODEL_ASSERT(r0 == -1);  // fails in every execution
  }
};

/// `x = 1; y = 1` ∥ `r1 = y; r2 = x`, all relaxed; r2 read inside observe() when Observed.
template <bool Observed>
struct stale_read : scenario {
  S::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  stale_read() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      y.store(1, PILFER_SITE("t.y", relaxed));
    } else {
      r1 = y.load(PILFER_SITE("t.ry", relaxed));
      if constexpr (Observed)
        r2 = observe([this] { return x.load(PILFER_SITE("t.rx", relaxed)); });
      else
        r2 = x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
  void after() override { record({r1, r2}); }
};

/// Both threads turn branching off and yield; which one started first (a decision taken with
/// branching on) decides which goes on after the yields. The graphs after both yields are equal,
/// so the state must include the thread that ran last, or memoisation prunes one of the two.
struct one_way_after_yield : scenario {
  S::atomic<int> w0{0}, w1{0};
  int r0 = -1, r1 = -1;
  one_way_after_yield() : scenario(2) {}
  void thread(unsigned i) override {
    stop_branching();
    S::yield();
    if (i == 0) {
      w0.store(1, PILFER_SITE("t.w0", relaxed));
      r0 = w1.load(PILFER_SITE("t.r1", relaxed));
    } else {
      w1.store(1, PILFER_SITE("t.w1", relaxed));
      r1 = w0.load(PILFER_SITE("t.r0", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

/// Two parents each start a child (which parent starts first decides the children's indices);
/// a third thread turns branching off once both exist and releases them. The one schedule must
/// pick the next thread by its canonical key, not its index, or memoisation (which sees equal
/// states) explores one order of the children where no memoisation explores the other too.
struct one_way_children : scenario {
  S::atomic<int> w[2] = {S::atomic<int>(0), S::atomic<int>(0)};
  S::atomic<int> started{0}, go{0};
  int r[2] = {-1, -1};
  one_way_children() : scenario(3) {}
  void thread(unsigned i) override {
    if (i < 2) {
      S::thread c([this, i] {
        go.wait(0, PILFER_SITE("t.go", acquire));
        w[i].store(1, PILFER_SITE("t.w", relaxed));
        r[i] = w[1 - i].load(PILFER_SITE("t.r", relaxed));
      });
      started.fetch_add(1, PILFER_SITE("t.started", release));
      c.join();
    } else {
      assume(started.load(PILFER_SITE("t.both", acquire)) == 2);
      stop_branching();
      go.store(1, PILFER_SITE("t.go", release));
      go.notify_all();
    }
  }
  void after() override { record({r[0], r[1]}); }
};

/// A call to stop/resume is not an event, so whether a thread has made it must be part of the
/// state some other way (the thread's sequence hash), or a state reached before the call prunes
/// one reached after it (an outside tester's fuzzer, seed 677).
struct resume_then_yield : scenario {
  S::atomic<int> l0{0}, l1{0};
  int r0 = -1, r1 = -1;
  resume_then_yield() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      resume_branching();
      S::yield();
      r0 = l1.load(PILFER_SITE("t.a", acquire));
      l1.store(1, PILFER_SITE("t.b", relaxed));
    } else {
      l1.store(1, PILFER_SITE("t.c", seq_cst));
      stop_branching();
      l1.store(3, PILFER_SITE("t.d", relaxed));
      r1 = l0.load(PILFER_SITE("t.e", relaxed));
      S::yield();
    }
  }
  void after() override { record({r0, r1, l1.load(PILFER_SITE("t.f", relaxed))}); }
};

/// The outcomes with the memo table equal those without it (and number `size`), complete and ok.
template <class Scn>
void expect_memo_changes_nothing(runner& t, std::size_t size, const std::string& name) {
  options no_memo;
  no_memo.memo_entries = 0;
  result r, rm;
  const auto with = outcomes<Scn>(&r);
  const auto without = outcomes<Scn>(&rm, no_memo);
  t.expect(r.ok && r.complete && with == without && with.size() == size, name, show(with) + " vs " + show(without));
}

}  // namespace

int main() {
  runner t;
  result r;
  const outcome_set all = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};

  auto s = outcomes<sb<branching::on>>(&r);
  t.expect_outcomes("branching on: store buffering has its 4 outcomes", s, all, r);
  t.expect(!r.one_way_stretches, "branching on: no one-way stretch is reported", r.summary());

  s = outcomes<sb<branching::off_from_start>>(&r);
  t.expect(r.ok && r.complete && r.executions == 1 && s.size() == 1 && r.one_way_stretches,
           "branching off: one execution, reported as a one-way stretch", show(s) + " [" + r.summary() + "]");

  r = check<sb<branching::off_from_start, true>>();
  t.expect(!r.ok && r.kind == "assertion", "branching off: a failing assertion is still reported", r.summary());

  s = outcomes<sb<branching::resumed_before_threads>>(&r);
  t.expect_outcomes("branching resumed: the 4 outcomes again", s, all, r);

  expect_memo_changes_nothing<one_way_after_yield>(t, 2, "one-way stretches: memoisation explores what no memoisation does (the last thread is in the state)");

  expect_memo_changes_nothing<one_way_children>(t, 1, "one-way stretches: the next thread is chosen by canonical key, so memoisation changes nothing");

  expect_memo_changes_nothing<resume_then_yield>(t, 5, "one-way stretches: a thread that has called resume/stop is a different state from one that has not");

  s = outcomes<stale_read<false>>(&r);
  t.expect(r.ok && r.complete && s.count({1, 0}) == 1, "a plain relaxed read may be stale: (1,0) explored",
           show(s) + " [" + r.summary() + "]");
  s = outcomes<stale_read<true>>(&r);
  t.expect(r.ok && r.complete && s.count({1, 0}) == 0 && s.count({1, 1}) == 1 && s.count({0, 0}) == 1,
           "an observed read takes the newest store: (1,0) never explored", show(s) + " [" + r.summary() + "]");

  return t.failures == 0 ? 0 : 1;
}
