// Injector scenarios on the real pilfer::basic_injector<int, checker_sync, 2>: a block of
// two slots, so three pushes cross a block boundary (the [P5]/[P6] block install and the
// consumers' [S6] wait_next path are reached).
#include "scenarios.hpp"

namespace pilfer::model::scenarios {
namespace {

using injector_t = pilfer::basic_injector<int, S, 2>;

// Invariant: MPMC across a block boundary: 1 is pushed before the threads start, then two
// producers push 2 and 3 concurrently (the second of them installs the next block) while a
// consumer steals once; after() drains the rest single-threaded. Every value is taken
// exactly once, the consumer can only get the oldest value (1), and after draining the injector is empty.
// @verifies INJ-1 INJ-2 INJ-4
struct mpmc : scenario {
  injector_t q;
  taken t[4];
  mpmc() : scenario(3) {}
  void before() override { q.push(1); }
  void thread(unsigned i) override {
    if (i == 0) {
      q.push(2);
    } else if (i == 1) {
      q.push(3);
    } else {
      auto r = q.steal();
      if (r.is_success()) t[2].add(r.value);
      // INJ-1: 1 is the oldest; 2 or 3 may only be taken if 1 was taken before (it was not:
      // this is the consumer's first steal), so a success must be 1
      if (r.is_success()) PILFER_MODEL_ASSERT(r.value == 1);
    }
  }
  void after() override {
    for (;;) {  // drain single-threaded: no retry possible here
      auto r = q.steal();
      PILFER_MODEL_ASSERT(!r.is_retry());
      if (!r.is_success()) break;
      t[3].add(r.value);
    }
    PILFER_MODEL_ASSERT(q.empty());
    assert_exactly_once(t, 4, 3);
  }
};

// Invariant: two consumers race for two items pushed across a block boundary by one
// producer: no item lost or duplicated; each consumer's items are in push order.
// @verifies INJ-1 INJ-2 INJ-3
struct two_consumers : scenario {
  injector_t q;
  taken t[4];
  two_consumers() : scenario(3) {}
  void before() override { q.push(1); }
  void thread(unsigned i) override {
    if (i == 0) {
      q.push(2);
      q.push(3);
    } else {
      auto r = q.steal();
      if (r.is_success()) t[i].add(r.value);
    }
  }
  void after() override {
    for (;;) {
      auto r = q.steal();
      if (!r.is_success()) break;
      t[3].add(r.value);
    }
    for (unsigned i = 1; i <= 2; ++i)
      for (int k = 1; k < t[i].n; ++k) PILFER_MODEL_ASSERT(t[i].v[k - 1] < t[i].v[k]);
    assert_exactly_once(t, 4, 3);
  }
};

}  // namespace

std::vector<entry> injector_scenarios() {
  std::vector<entry> v;
  v.push_back({"injector.mpmc", "INJ-1 INJ-2 INJ-4", [] { return std::make_unique<mpmc>(); }, {}});
  v.push_back({"injector.two_consumers", "INJ-1 INJ-2 INJ-3", [] { return std::make_unique<two_consumers>(); }, {}});
  return v;
}

}  // namespace pilfer::model::scenarios
