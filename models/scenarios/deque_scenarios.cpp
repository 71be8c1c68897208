// Deque scenarios on the real pilfer::basic_deque<int, checker_sync>. Each runs twice: on a deque
// with symmetric fences and, as deque.asym.*, with asymmetric ones (DQ-7: light pops, heavy steals).
#include "scenarios.hpp"

namespace pilfer::model::scenarios {
namespace {

// Invariant: owner pushes 1..3 into a capacity-2 deque (forcing growth) then pops until
// empty while one thief steals twice: every value is taken exactly once; the owner's pops
// come out LIFO relative to each other, the thief's steals FIFO.
// @verifies DQ-3 DQ-4 DQ-1 DQ-2 DQ-7
struct owner_vs_thief : scenario {
  deque_t d;
  taken t[2];
  explicit owner_vs_thief(deque_fences f) : scenario(2), d(2, f) {}
  void thread(unsigned i) override {
    if (i == 0) {
      for (int x = 1; x <= 3; ++x) d.push(x);
      while (auto v = d.pop()) t[0].add(*v);
      for (int k = 1; k < t[0].n; ++k) PILFER_MODEL_ASSERT(t[0].v[k - 1] > t[0].v[k]);  // DQ-1 LIFO
    } else {
      auto st = d.get_stealer();
      for (int k = 0; k < 2; ++k) {
        auto r = st.steal();
        if (r.is_success()) t[i].add(r.value);
      }
      for (int k = 1; k < t[i].n; ++k) PILFER_MODEL_ASSERT(t[i].v[k - 1] < t[i].v[k]);  // DQ-2 FIFO
    }
  }
  void after() override { assert_exactly_once(t, 2, 3); }
};

// Invariant: as above with two thieves stealing once each (three-way race on top).
// @verifies DQ-3 DQ-5 DQ-7
struct owner_vs_two : scenario {
  deque_t d;
  taken t[3];
  explicit owner_vs_two(deque_fences f) : scenario(3), d(2, f) { symmetric(1, 2); }  // the two thieves are interchangeable
  void thread(unsigned i) override {
    if (i == 0) {
      for (int x = 1; x <= 3; ++x) d.push(x);
      while (auto v = d.pop()) t[0].add(*v);
    } else {
      auto r = d.get_stealer().steal();
      if (r.is_success()) t[i].add(r.value);
    }
  }
  void after() override { assert_exactly_once(t, 3, 3); }
};

// Invariant: one element, owner pop vs thief steal (the last-element CAS race [T2]/[S5]):
// exactly one of them gets it; the other sees empty (or retry for the thief).
// @verifies DQ-3 DQ-5 DQ-7
struct last_element : scenario {
  deque_t d;
  taken t[2];
  int retries = 0;
  explicit last_element(deque_fences f) : scenario(2), d(2, f) {}
  void before() override {
    d.push(1);
    d.release_owner();  // thread 0 becomes the owner
  }
  void thread(unsigned i) override {
    if (i == 0) {
      if (auto v = d.pop()) t[0].add(*v);
    } else {
      auto r = d.get_stealer().steal();
      if (r.is_success()) t[1].add(r.value);
      if (r.is_retry()) retries = 1;
    }
  }
  void after() override {
    // a retry means the owner won the race; then the owner must hold the value
    if (retries) PILFER_MODEL_ASSERT(t[0].n == 1);
    assert_exactly_once(t, 2, 1);
  }
};

// Invariant: the owner grows the buffer (capacity 1 -> 2 -> 4) while a thief steals:
// the thief never reads a slot of a freed or not-yet-published buffer, nothing is lost.
// @verifies DQ-3 DQ-4 DQ-7
struct growth_during_steal : scenario {
  deque_t d;
  taken t[2];
  explicit growth_during_steal(deque_fences f) : scenario(2), d(1, f) {}
  void thread(unsigned i) override {
    if (i == 0) {
      for (int x = 1; x <= 3; ++x) d.push(x);
      while (auto v = d.pop()) t[0].add(*v);
    } else {
      auto st = d.get_stealer();
      for (int k = 0; k < 2; ++k) {
        auto r = st.steal();
        if (r.is_success()) t[1].add(r.value);
      }
    }
  }
  void after() override { assert_exactly_once(t, 2, 3); }
};

// Invariant: a thief batch-steals into its own deque while the owner pops: at most half
// (rounded up) of what it saw moves, FIFO order kept, every value taken exactly once.
// @verifies DQ-6 DQ-3 DQ-7
struct batch_steal : scenario {
  deque_t d;
  deque_t mine{2};
  taken t[2];
  explicit batch_steal(deque_fences f) : scenario(2), d(2, f) {}
  void before() override {
    for (int x = 1; x <= 3; ++x) d.push(x);
    d.release_owner();  // thread 0 becomes the owner
  }
  void thread(unsigned i) override {
    if (i == 0) {
      while (auto v = d.pop()) t[0].add(*v);
    } else {
      auto r = d.get_stealer().steal_batch(mine, 4);
      if (r.is_success()) PILFER_MODEL_ASSERT(r.value >= 1 && r.value <= 2);  // <= ceil(3/2)
      // FIFO kept: the thief's own thieves would see oldest first, its pops newest first
      int prev = 1 << 20;
      while (auto v = mine.pop()) {
        PILFER_MODEL_ASSERT(*v < prev);
        prev = *v;
        t[1].add(*v);
      }
    }
  }
  void after() override { assert_exactly_once(t, 2, 3); }
};

// Invariant: slot re-use after wrap-around without growth. Capacity 2; before() pushes 1, 2
// and steals 1 (top = 1, bottom = 2). The owner then pushes 3 at index 2 (slot 0 re-used: no
// growth is possible, top only grows), pushes 4 at index 3 (slot 1 re-used when the thief has
// already taken index 1, i.e. the owner's [P1] read the thief's [S5] CAS; growth otherwise),
// and pops to empty, while a thief steals twice. The thief's speculative read [S6] of slot 1
// races with the owner's overwrite [P3] of that slot: if it could read 4 and still win its CAS,
// 2 would be lost and 4 taken twice. Every value is taken exactly once; the thief's steals
// are FIFO, the owner's pops LIFO.
// @verifies DQ-3 DQ-1 DQ-2 DQ-7
struct wrap_around : scenario {
  deque_t d;
  taken t[3];
  explicit wrap_around(deque_fences f) : scenario(2), d(2, f) {}
  void before() override {
    d.push(1);
    d.push(2);
    const auto r = d.steal();
    PILFER_MODEL_ASSERT(r.is_success() && r.value == 1);
    t[2].add(r.value);
    d.release_owner();  // thread 0 becomes the owner
  }
  void thread(unsigned i) override {
    if (i == 0) {
      d.push(3);
      d.push(4);
      while (auto v = d.pop()) t[0].add(*v);
      for (int k = 1; k < t[0].n; ++k) PILFER_MODEL_ASSERT(t[0].v[k - 1] > t[0].v[k]);  // DQ-1 LIFO
    } else {
      auto st = d.get_stealer();
      for (int k = 0; k < 2; ++k) {
        auto r = st.steal();
        if (r.is_success()) t[1].add(r.value);
      }
      for (int k = 1; k < t[1].n; ++k) PILFER_MODEL_ASSERT(t[1].v[k - 1] < t[1].v[k]);  // DQ-2 FIFO
    }
  }
  void after() override { assert_exactly_once(t, 3, 4); }
};

/// The asymmetric-only scenarios' start: an asymmetric deque holding 1, 2 (pushed in before()),
/// owned by thread 0, which pops it to empty.
struct two_items_asym : scenario {
  deque_t d{2, deque_fences::asymmetric};
  explicit two_items_asym(unsigned threads) : scenario(threads) {}
  void before() override {
    d.push(1);
    d.push(2);
    d.release_owner();  // thread 0 becomes the owner
  }
  void pop_to_empty(taken& t) {
    while (auto v = d.pop()) t.add(*v);
  }
};

// Invariant (asymmetric fences): before() pushes 1, 2; the owner pops to empty while one thief
// batch-steals (counted in batch_thieves_, one heavy fence, then [S2] per item) and another steals
// singly (heavy fence [S2H]) — both kinds of thief against light pops at once: every value is
// taken exactly once.
// @verifies DQ-7 DQ-3 DQ-6
struct batch_and_single : two_items_asym {
  deque_t mine{2};
  taken t[3];
  batch_and_single() : two_items_asym(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      pop_to_empty(t[0]);
    } else if (i == 1) {
      auto r = d.get_stealer().steal_batch_and_pop(mine, 4);
      if (r.is_success()) t[1].add(r.value);
      while (auto v = mine.pop()) t[1].add(*v);
    } else {
      auto r = d.get_stealer().steal();
      if (r.is_success()) t[2].add(r.value);
    }
  }
  void after() override { assert_exactly_once(t, 3, 2); }
};

// Invariant (asymmetric fences, small enough for the sensitivity table): before() pushes 1, 2;
// the owner pops to empty while a thief steals twice. The thief's second steal targets index 1,
// the item the owner's first pop takes without a CAS: if neither the thief's heavy fence [S2H] nor
// the owner's light one ordered the pair, both would take 2. Every value is taken exactly once.
// @verifies DQ-7 DQ-3
struct two_steals : two_items_asym {
  taken t[2];
  two_steals() : two_items_asym(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      pop_to_empty(t[0]);
    } else {
      auto st = d.get_stealer();
      for (int k = 0; k < 2; ++k) {
        auto r = st.steal();
        if (r.is_success()) t[1].add(r.value);
      }
    }
  }
  void after() override { assert_exactly_once(t, 2, 2); }
};

template <class Scenario>
std::function<std::unique_ptr<scenario>()> with(deque_fences f) {
  return [f] { return std::make_unique<Scenario>(f); };
}

}  // namespace

std::vector<entry> deque_scenarios() {
  std::vector<entry> v;
  constexpr deque_fences sym = deque_fences::symmetric, asym = deque_fences::asymmetric;
  v.push_back({"deque.owner_vs_thief", "DQ-1 DQ-2 DQ-3 DQ-4", with<owner_vs_thief>(sym), {}});
  v.push_back({"deque.owner_vs_two_thieves", "DQ-3 DQ-5", with<owner_vs_two>(sym), {}, false});
  v.push_back({"deque.last_element", "DQ-3 DQ-5", with<last_element>(sym), {}});
  v.push_back({"deque.growth_during_steal", "DQ-3 DQ-4", with<growth_during_steal>(sym), {}});
  v.push_back({"deque.batch_steal", "DQ-6 DQ-3", with<batch_steal>(sym), {}});
  v.push_back({"deque.wrap_around", "DQ-3 DQ-1 DQ-2", with<wrap_around>(sym), {}});
  // The same scenarios on a deque with asymmetric fences (DQ-7): light pops, heavy steals. A light
  // pop orders nothing, so the owner's reads of top take more values and the spaces grow (e.g.
  // owner_vs_thief: 368 executions symmetric, 86 124 asymmetric, 20 s dev): the larger ones run
  // within 2 preemptive switches (3 threads: unbounded did not finish in 2 minutes), and the
  // sensitivity table weakens the small ones (two_steals, batch_and_single within 1 switch).
  const auto within = [](unsigned switches) {
    options o;
    o.preemption_bound = switches;
    return o;
  };
  v.push_back({"deque.asym.owner_vs_thief", "DQ-7 DQ-1 DQ-2 DQ-3 DQ-4", with<owner_vs_thief>(asym), {}, false});
  v.push_back({"deque.asym.owner_vs_two_thieves", "DQ-7 DQ-3 DQ-5", with<owner_vs_two>(asym), within(2), false});
  v.push_back({"deque.asym.last_element", "DQ-7 DQ-3 DQ-5", with<last_element>(asym), {}});
  v.push_back({"deque.asym.growth_during_steal", "DQ-7 DQ-3 DQ-4", with<growth_during_steal>(asym), within(2), false});
  v.push_back({"deque.asym.batch_steal", "DQ-7 DQ-6 DQ-3", with<batch_steal>(asym), {}, false});
  v.push_back({"deque.asym.wrap_around", "DQ-7 DQ-3 DQ-1 DQ-2", with<wrap_around>(asym), within(2), false});
  v.push_back({"deque.asym.two_steals", "DQ-7 DQ-3", [] { return std::make_unique<two_steals>(); }, {}});
  v.push_back({"deque.asym.batch_and_single", "DQ-7 DQ-3 DQ-6", [] { return std::make_unique<batch_and_single>(); },
               within(1)});
  return v;
}

}  // namespace pilfer::model::scenarios
