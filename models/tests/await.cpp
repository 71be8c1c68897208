// Engine self-test: atomic<T>::await (pilfer/model/checker.hpp).
//   MC-14 An await is a load that waits until it may read a value its predicate accepts: the
//         executions whose awaits are satisfied are exactly the complete executions of the
//         assume() form, none is blocked (the thread is not scheduled instead), any accepted
//         store may be read (older ones included), and an await that can never be satisfied
//         fails as "deadlock" where assume() hides the hang as blocked executions.
// @verifies MC-14
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

enum class form { await, assume };

/// Message passing: data = 1 (relaxed); flag = 1 (release) ∥ wait for flag == 1 (acquire); read data.
template <form F>
struct message_passing : scenario {
  S::atomic<int> data{0}, flag{0};
  int seen = -1;
  message_passing() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("t.data", relaxed));
      flag.store(1, PILFER_SITE("t.flag", release));
      return;
    }
    if constexpr (F == form::await)
      (void)flag.await([](int v) { return v == 1; }, PILFER_SITE("t.await", acquire));
    else
      assume(flag.load(PILFER_SITE("t.await", acquire)) == 1);
    seen = data.load(PILFER_SITE("t.read", relaxed));
  }
  void after() override { record({seen}); }
};

/// x = 1; x = 2 (relaxed) ∥ await x >= 1: both stores are acceptable, and the older one may be
/// read even after the newer one is written.
template <form F>
struct two_acceptable : scenario {
  S::atomic<int> x{0};
  int got = -1;
  two_acceptable() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x1", relaxed));
      x.store(2, PILFER_SITE("t.x2", relaxed));
      return;
    }
    if constexpr (F == form::await) {
      got = x.await([](int v) { return v >= 1; }, PILFER_SITE("t.await", relaxed));
    } else {
      got = x.load(PILFER_SITE("t.await", relaxed));
      assume(got >= 1);
    }
  }
  void after() override { record({got}); }
};

/// A lock whose holder never releases it: the second thread's await can never be satisfied.
template <form F>
struct never_released : scenario {
  S::atomic<int> lock{0};
  never_released() : scenario(2) {}
  void thread(unsigned) override {
    int expected = 0;
    if constexpr (F == form::await) {
      for (;;) {
        (void)lock.await([](int v) { return v == 0; }, PILFER_SITE("t.await", relaxed));
        expected = 0;
        if (lock.compare_exchange_strong(expected, 1, PILFER_SITE("t.take", acquire), PILFER_SITE("t.fail", relaxed)))
          break;
      }
    } else {
      assume(lock.load(PILFER_SITE("t.await", relaxed)) == 0);
      assume(lock.compare_exchange_strong(expected, 1, PILFER_SITE("t.take", acquire), PILFER_SITE("t.fail", relaxed)));
    }
    // (no release: the bug)
  }
};

/// Two threads each await the other's flag before setting their own: a cycle, never satisfied.
struct await_cycle : scenario {
  S::atomic<int> a{0}, b{0};
  await_cycle() : scenario(2) {}
  void thread(unsigned i) override {
    S::atomic<int>& mine = i == 0 ? a : b;
    S::atomic<int>& theirs = i == 0 ? b : a;
    (void)theirs.await([](int v) { return v == 1; }, PILFER_SITE("t.await", acquire));
    mine.store(1, PILFER_SITE("t.set", release));
  }
};

/// The await's value decides what the thread does next: the predicate accepts two of three
/// values, and each accepted one leads to its own outcome.
struct branch_on_value : scenario {
  S::atomic<int> x{0};
  int got = -1;
  branch_on_value() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) x.store(1, PILFER_SITE("t.a", relaxed));
    if (i == 1) x.store(2, PILFER_SITE("t.b", relaxed));
    if (i == 2) got = x.await([](int v) { return v != 0; }, PILFER_SITE("t.await", relaxed));
  }
  void after() override { record({got}); }
};

}  // namespace

int main() {
  runner t;
  result ra, rs;

  auto a = outcomes<message_passing<form::await>>(&ra);
  auto s = outcomes<message_passing<form::assume>>(&rs);
  t.expect_outcomes("message passing with await: the reader sees the data", a, {{1}}, ra);
  t.expect(ra.executions == rs.executions && ra.blocked == 0 && rs.blocked > 0,
           "message passing: await has the assume form's complete executions and no blocked one",
           "await [" + ra.summary() + "] assume [" + rs.summary() + "]");

  a = outcomes<two_acceptable<form::await>>(&ra);
  s = outcomes<two_acceptable<form::assume>>(&rs);
  t.expect_outcomes("await may read any accepted store, the older one too", a, {{1}, {2}}, ra);
  t.expect(a == s && ra.executions == rs.executions && ra.blocked == 0,
           "two acceptable stores: the same outcomes and complete executions as assume",
           "await [" + ra.summary() + "] assume [" + rs.summary() + "]");

  ra = check<never_released<form::await>>();
  t.expect_failure("a lock never released: the waiter's await is reported as a hang", ra, "deadlock");
  t.expect(ra.message.find("await(") != std::string::npos, "the hang names the await", ra.message);
  rs = check<never_released<form::assume>>();
  t.expect(rs.ok && rs.blocked > 0,
           "the same program with assume() passes (its hang is only blocked executions): why await exists",
           rs.summary());

  ra = check<await_cycle>();
  t.expect_failure("two awaits on each other: deadlock", ra, "deadlock");

  a = outcomes<branch_on_value>(&ra);
  t.expect_outcomes("an await's value is any accepted store: 1 or 2, never 0", a, {{1}, {2}}, ra);

  options no_memo;
  no_memo.memo_entries = 0;
  result rn;
  const auto with = outcomes<branch_on_value>(&ra);
  const auto without = outcomes<branch_on_value>(&rn, no_memo);
  t.expect(ra.ok && rn.ok && with == without, "await: memoisation changes no outcome",
           show(with) + " vs " + show(without));

  return t.done();
}
