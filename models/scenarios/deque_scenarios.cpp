// Deque scenarios on the real pilfer::basic_deque<int, checker_sync>.
#include "scenarios.hpp"

namespace pilfer::model::scenarios {
namespace {

// Invariant: owner pushes 1..3 into a capacity-2 deque (forcing growth) then pops until
// empty while one thief steals twice: every value is taken exactly once; the owner's pops
// come out LIFO relative to each other, the thief's steals FIFO.
// @verifies DQ-3 DQ-4 DQ-1 DQ-2
struct owner_vs_thief : scenario {
  deque_t d{2};
  taken t[2];
  int thieves;
  int steals;
  explicit owner_vs_thief(int k = 1, int s = 2) : scenario(static_cast<unsigned>(1 + k)), thieves(k), steals(s) {}
  void thread(unsigned i) override {
    if (i == 0) {
      for (int x = 1; x <= 3; ++x) d.push(x);
      while (auto v = d.pop()) t[0].add(*v);
      for (int k = 1; k < t[0].n; ++k) PILFER_MODEL_ASSERT(t[0].v[k - 1] > t[0].v[k]);  // DQ-1 LIFO
    } else {
      auto st = d.get_stealer();
      for (int k = 0; k < steals; ++k) {
        auto r = st.steal();
        if (r.is_success()) t[i].add(r.value);
      }
      for (int k = 1; k < t[i].n; ++k) PILFER_MODEL_ASSERT(t[i].v[k - 1] < t[i].v[k]);  // DQ-2 FIFO
    }
  }
  void after() override { assert_exactly_once(t, 2, 3); }
};

// Invariant: as above with two thieves stealing once each (three-way race on top).
// @verifies DQ-3 DQ-5
struct owner_vs_two : scenario {
  deque_t d{2};
  taken t[3];
  owner_vs_two() : scenario(3) { symmetric(1, 2); }  // the two thieves are interchangeable
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
// @verifies DQ-3 DQ-5
struct last_element : scenario {
  deque_t d{2};
  taken t[2];
  int retries = 0;
  last_element() : scenario(2) {}
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
// @verifies DQ-3 DQ-4
struct growth_during_steal : scenario {
  deque_t d{1};
  taken t[2];
  growth_during_steal() : scenario(2) {}
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
// @verifies DQ-6 DQ-3
struct batch_steal : scenario {
  deque_t d{2};
  deque_t mine{2};
  taken t[2];
  batch_steal() : scenario(2) {}
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
// @verifies DQ-3 DQ-1 DQ-2
struct wrap_around : scenario {
  deque_t d{2};
  taken t[3];
  wrap_around() : scenario(2) {}
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

}  // namespace

std::vector<entry> deque_scenarios() {
  std::vector<entry> v;
  v.push_back({"deque.owner_vs_thief", "DQ-1 DQ-2 DQ-3 DQ-4", [] { return std::make_unique<owner_vs_thief>(); }, {}});
  v.push_back({"deque.owner_vs_two_thieves", "DQ-3 DQ-5", [] { return std::make_unique<owner_vs_two>(); }, {}, false});
  v.push_back({"deque.last_element", "DQ-3 DQ-5", [] { return std::make_unique<last_element>(); }, {}});
  v.push_back({"deque.growth_during_steal", "DQ-3 DQ-4", [] { return std::make_unique<growth_during_steal>(); }, {}});
  v.push_back({"deque.batch_steal", "DQ-6 DQ-3", [] { return std::make_unique<batch_steal>(); }, {}});
  v.push_back({"deque.wrap_around", "DQ-3 DQ-1 DQ-2", [] { return std::make_unique<wrap_around>(); }, {}});
  return v;
}

}  // namespace pilfer::model::scenarios
