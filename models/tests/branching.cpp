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

  {
    options no_memo;
    no_memo.memo_entries = 0;
    result rm;
    s = outcomes<one_way_after_yield>(&r);
    const auto without = outcomes<one_way_after_yield>(&rm, no_memo);
    t.expect(r.ok && r.complete && s == without && s.size() == 2,
             "one-way stretches: memoisation explores what no memoisation does (the last thread is in the state)",
             show(s) + " vs " + show(without));
  }

  s = outcomes<stale_read<false>>(&r);
  t.expect(r.ok && r.complete && s.count({1, 0}) == 1, "a plain relaxed read may be stale: (1,0) explored",
           show(s) + " [" + r.summary() + "]");
  s = outcomes<stale_read<true>>(&r);
  t.expect(r.ok && r.complete && s.count({1, 0}) == 0 && s.count({1, 1}) == 1 && s.count({0, 0}) == 1,
           "an observed read takes the newest store: (1,0) never explored", show(s) + " [" + r.summary() + "]");

  return t.failures == 0 ? 0 : 1;
}
