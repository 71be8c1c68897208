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
  two_consumers() : scenario(3) { symmetric(1, 2); }  // the consumers are interchangeable
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

// Invariant: a consumer's block transition races a second consumer (no producer running).
// before() pushes 1, 2, 3 (block 0 = {1, 2}, block 1 = {3}) and steals 1, so head is at the
// last slot of block 0. Two consumers steal once each: whoever takes 2 claims the last slot,
// moves head to block 1 ([S8], [S9]) and frees block 0 (cooperatively with nobody, or with the
// other consumer if it is still reading); the other consumer reads head concurrently ([S1],
// [S2]) and may take 3 from block 1. Every value is taken exactly once, no block is used after its free, and
// after the single-threaded drain exactly one block is live.
// @verifies INJ-2 INJ-4
struct consumer_transition : scenario {
  injector_t q;
  taken t[4];
  consumer_transition() : scenario(2) { symmetric(0, 2); }  // the consumers are interchangeable
  void before() override {
    for (int x = 1; x <= 3; ++x) q.push(x);
    const auto r = q.steal();
    PILFER_MODEL_ASSERT(r.is_success() && r.value == 1);
    t[2].add(r.value);
  }
  void thread(unsigned i) override {
    auto r = q.steal();
    if (r.is_success()) t[i].add(r.value);
  }
  void after() override {
    for (;;) {
      auto r = q.steal();
      if (!r.is_success()) break;
      t[3].add(r.value);
    }
    assert_exactly_once(t, 4, 3);
    PILFER_MODEL_ASSERT(q.live_blocks() == 1);  // INJ-4
  }
};

// Invariant: a block transition races a second consumer while the producer is still
// installing blocks. before() pushes and steals 1 (head and tail at the last slot of block 0).
// The producer pushes 2 (claims block 0's last slot: installs block 1 with [P4], [P5], [P6])
// and 3 (into block 1); two consumers steal once each: the one that takes 2 waits for
// block 0's next pointer ([S6]) and moves head ([S8], [S9]); the other may take 3 right
// after. Exactly once, per-consumer FIFO, one live block after the drain.
// @verifies INJ-1 INJ-2 INJ-4
struct producer_transition : scenario {
  injector_t q;
  taken t[5];
  producer_transition() : scenario(3) { symmetric(1, 2); }  // the consumers are interchangeable
  void before() override {
    q.push(1);
    const auto r = q.steal();
    PILFER_MODEL_ASSERT(r.is_success() && r.value == 1);
    t[3].add(r.value);
  }
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
      t[4].add(r.value);
    }
    assert_exactly_once(t, 5, 3);
    PILFER_MODEL_ASSERT(q.live_blocks() == 1);  // INJ-4
  }
};

// Invariant (adopted from helper h1's throwaway "tiny"): BlockSize 1, so every push is a
// block transition and every steal frees a block. One producer pushes 1, 2; one consumer
// steals twice (FIFO); exactly once; one live block after the drain.
// @verifies INJ-1 INJ-2 INJ-4
struct every_push_transitions : scenario {
  pilfer::basic_injector<int, S, 1> q;
  taken t[3];
  every_push_transitions() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      q.push(1);
      q.push(2);
    } else {
      for (int k = 0; k < 2; ++k) {
        auto r = q.steal();
        if (r.is_success()) t[1].add(r.value);
      }
      for (int k = 1; k < t[1].n; ++k) PILFER_MODEL_ASSERT(t[1].v[k - 1] < t[1].v[k]);  // INJ-1
    }
  }
  void after() override {
    for (;;) {
      auto r = q.steal();
      if (!r.is_success()) break;
      t[2].add(r.value);
    }
    assert_exactly_once(t, 3, 2);
    PILFER_MODEL_ASSERT(q.live_blocks() == 1);  // INJ-4
  }
};

// Invariant: the store-buffering (Dekker) pattern the pool's sleep protocol builds on the
// injector (POOL-7): a submitter pushes, then reads a "sleepers" flag; a worker announces
// sleep on the flag, then checks the injector (steal, or empty()). Both seq_cst. They must not
// both miss each other: either the submitter sees the sleeper (and would wake it) or the
// worker finds the item. This is what [P3] seq_cst and the [S3] fence (and [Z1] for empty())
// are for; the injector's own invariants do not need them.
// @verifies INJ-1
struct sleep_dekker : scenario {
  injector_t q;
  S::atomic<int> sleepers{0};
  int saw_sleeper = -1;
  int found = -1;
  bool use_empty;
  explicit sleep_dekker(bool e) : scenario(2), use_empty(e) {}
  void thread(unsigned i) override {
    if (i == 0) {
      q.push(1);
      saw_sleeper = sleepers.load(PILFER_SITE("scenario.sleepers", seq_cst));
    } else {
      sleepers.store(1, PILFER_SITE("scenario.sleepers", seq_cst));
      if (use_empty) {
        found = q.empty() ? 0 : 1;
      } else {
        const auto r = q.steal();
        found = r.is_empty() ? 0 : 1;  // success, or retry (someone else is taking it)
      }
    }
  }
  void after() override {
    PILFER_MODEL_ASSERT(saw_sleeper == 1 || found == 1);  // no lost wake-up
    while (q.steal().is_success()) {
    }
  }
};

}  // namespace

std::vector<entry> injector_scenarios() {
  std::vector<entry> v;
  v.push_back({"injector.mpmc", "INJ-1 INJ-2 INJ-4", [] { return std::make_unique<mpmc>(); }, {}});
  v.push_back({"injector.two_consumers", "INJ-1 INJ-2 INJ-3", [] { return std::make_unique<two_consumers>(); }, {}});
  v.push_back({"injector.consumer_transition", "INJ-2 INJ-4", [] { return std::make_unique<consumer_transition>(); }, {}});
  v.push_back({"injector.producer_transition", "INJ-1 INJ-2 INJ-4", [] { return std::make_unique<producer_transition>(); }, {}});
  v.push_back({"injector.sleep_dekker_steal", "INJ-1", [] { return std::make_unique<sleep_dekker>(false); }, {}});
  v.push_back({"injector.sleep_dekker_empty", "INJ-1", [] { return std::make_unique<sleep_dekker>(true); }, {}});
  v.push_back({"injector.every_push_transitions", "INJ-1 INJ-2 INJ-4", [] { return std::make_unique<every_push_transitions>(); }, {}});
  return v;
}

}  // namespace pilfer::model::scenarios
