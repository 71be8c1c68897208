// Engine self-test: compare_exchange_weak may fail spuriously (C++20 [atomics.types.operations]:
// it may fail even when the value equals `expected`). With options::spurious_cas_failures the
// checker explores that failure, once in a row per thread and location:
//   - code that takes a weak CAS on the expected value for certain is caught (an assertion that
//     held in every execution before: the weak CAS always succeeded there);
//   - the usual retry loop stays correct and is no livelock (a failure is never offered twice
//     in a row on one location);
//   - a retry loop whose body has a side effect per attempt shows it (a counter of attempts
//     reaches 2 with one thread);
//   - a replay token of an execution with a spurious failure replays that failure, not the success.
// Without the option (the default) a weak CAS is strong, as GenMC and loom treat it.
// @verifies MC-4
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

/// One weak CAS on the value it expects, taken for certain.
struct assumes_success : scenario {
  S::atomic<int> x{0};
  assumes_success() : scenario(1) {}
  void thread(unsigned) override {
    int expected = 0;
    const bool swapped = x.compare_exchange_weak(expected, 1, PILFER_SITE("wc.cas", relaxed), PILFER_SITE("wc.cas", relaxed));
    PILFER_MODEL_ASSERT(swapped);
  }
};

/// Two threads increment by a weak-CAS retry loop: the sum is always 2, and the loop ends.
struct retry_loop : scenario {
  S::atomic<int> x{0};
  retry_loop() : scenario(2) {}
  void thread(unsigned) override {
    int seen = x.load(PILFER_SITE("wc.load", relaxed));
    while (!x.compare_exchange_weak(seen, seen + 1, PILFER_SITE("wc.cas", relaxed), PILFER_SITE("wc.cas", relaxed))) {
    }
  }
  void after() override { PILFER_MODEL_ASSERT(x.load(PILFER_SITE("wc.final", relaxed)) == 2); }
};

/// One thread, a retry loop counting its attempts: with spurious failures the count may be 2.
struct counted_attempts : scenario {
  S::atomic<int> x{0};
  int attempts = 0;
  counted_attempts() : scenario(1) {}
  void thread(unsigned) override {
    int expected = 0;
    do {
      ++attempts;
      expected = 0;
    } while (!x.compare_exchange_weak(expected, 1, PILFER_SITE("wc.cas", relaxed), PILFER_SITE("wc.cas", relaxed)));
  }
  void after() override { record({attempts}); }
};

options spurious() {
  options o;
  o.spurious_cas_failures = true;
  return o;
}

}  // namespace

int main() {
  runner t;
  t.expect_ok("default: a weak CAS on the expected value succeeds (it is strong, as in GenMC and loom)",
              check<assumes_success>());
  const result caught = check<assumes_success>(spurious());
  t.expect_failure("spurious_cas_failures: code that assumes a weak CAS succeeds is caught", caught, "assertion");
  {
    options rep = spurious();
    rep.replay = caught.replay_token;
    const result again = check<assumes_success>(rep);
    t.expect(!again.ok && again.kind == "assertion", "its replay token replays the spurious failure",
             "token=" + caught.replay_token + " [" + again.summary() + "]");
  }
  t.expect_ok("spurious_cas_failures: a weak-CAS retry loop is correct and no livelock", check<retry_loop>(spurious()));
  {
    result r;
    const outcome_set plain = outcomes<counted_attempts>(&r);
    t.expect(r.ok && plain == outcome_set{{1}}, "default: one attempt", show(plain) + " [" + r.summary() + "]");
    const outcome_set weak = outcomes<counted_attempts>(&r, spurious());
    t.expect(r.ok && weak == outcome_set{{1}, {2}}, "spurious_cas_failures: one attempt, or two after a spurious failure",
             show(weak) + " [" + r.summary() + "]");
  }
  return t.done();
}
