// models/tests/asymmetric_fences.cpp — the checker's model of an asymmetric fence pair
// (checker_sync::fence_light / fence_heavy; Linux membarrier): a heavy fence acts as a seq_cst fence
// in every other running thread at its current point, between two seq_cst fences of the caller, and a
// light fence is a compiler barrier only. Store buffering is the pattern the pair exists for.
// @verifies MC-4
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

enum class side { none, light, heavy, plain };

void fence_as(side s) {
  switch (s) {
    case side::none: break;
    case side::light: S::fence_light(PILFER_SITE("t.light", seq_cst)); break;
    case side::heavy: S::fence_heavy(PILFER_SITE("t.heavy", seq_cst)); break;
    case side::plain: S::fence(PILFER_SITE("t.plain", seq_cst)); break;
  }
}

/// SB: t0: x = 1; fence A; a = y  ∥  t1: y = 1; fence B; b = x. Outcome (a, b).
template <side A, side B>
struct sb : scenario {
  S::atomic<int> x{0}, y{0};
  int a = -1, b = -1;
  sb() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      fence_as(A);
      a = y.load(PILFER_SITE("t.ry", relaxed));
    } else {
      y.store(1, PILFER_SITE("t.y", relaxed));
      fence_as(B);
      b = x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
  void after() override { record({a, b}); }
};

/// One heavy side against two light ones: t0: w = 1; heavy; a = x1; b = x2  ∥  t1: x1 = 1; light;
/// c = w  ∥  t2: x2 = 1; light; d = w. Neither (a, c) nor (b, d) may both be 0: the heavy fence
/// reaches every other thread.
struct one_heavy_two_light : scenario {
  S::atomic<int> w{0}, x1{0}, x2{0};
  int a = -1, b = -1, c = -1, d = -1;
  one_heavy_two_light() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      w.store(1, PILFER_SITE("t.w", relaxed));
      S::fence_heavy(PILFER_SITE("t.heavy", seq_cst));
      a = x1.load(PILFER_SITE("t.a", relaxed));
      b = x2.load(PILFER_SITE("t.b", relaxed));
    } else {
      auto& mine = i == 1 ? x1 : x2;
      mine.store(1, PILFER_SITE("t.x", relaxed));
      S::fence_light(PILFER_SITE("t.light", seq_cst));
      (i == 1 ? c : d) = w.load(PILFER_SITE("t.rw", relaxed));
    }
  }
  void after() override {
    PILFER_MODEL_ASSERT(a == 1 || c == 1);
    PILFER_MODEL_ASSERT(b == 1 || d == 1);
    record({a, b, c, d});
  }
};

/// The heavy side orders the other thread's earlier plain writes too (message passing through a
/// relaxed flag read before the heavy fence in the reader: the writer's light side is its IPI fence,
/// which acts as a release fence before its flag store only if it comes before the store, so here it
/// gives nothing: the payload read may still see 0; a data race on a cell is reported).
struct mp_heavy_reader : scenario {
  S::cell<int> data{0};
  S::atomic<int> flag{0};
  mp_heavy_reader() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.write() = 1;
      S::fence_light(PILFER_SITE("t.light", seq_cst));
      flag.store(1, PILFER_SITE("t.flag", relaxed));
    } else if (flag.load(PILFER_SITE("t.rflag", relaxed)) == 1) {
      S::fence_heavy(PILFER_SITE("t.heavy", seq_cst));
      (void)data.read();
    }
  }
};

}  // namespace

int main() {
  runner t;
  result r;
  const outcome_set all{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const outcome_set no_00{{0, 1}, {1, 0}, {1, 1}};
  for (auto m : {memory_model::cxx20, memory_model::rc11}) {
    options o;
    o.model = m;
    const std::string in = std::string(" (") + to_string(m) + ")";
    t.expect_outcomes("SB heavy / light: both reads 0 is forbidden" + in, outcomes<sb<side::heavy, side::light>>(&r, o), no_00, r);
    t.expect_outcomes("SB light / heavy: both reads 0 is forbidden" + in, outcomes<sb<side::light, side::heavy>>(&r, o), no_00, r);
    t.expect_outcomes("SB heavy / heavy: forbidden" + in, outcomes<sb<side::heavy, side::heavy>>(&r, o), no_00, r);
    t.expect_outcomes("SB heavy / nothing: forbidden (the other thread's fence is the kernel's)" + in,
                      outcomes<sb<side::heavy, side::none>>(&r, o), no_00, r);
    t.expect_outcomes("SB light / light: allowed (compiler barriers order nothing)" + in,
                      outcomes<sb<side::light, side::light>>(&r, o), all, r);
    t.expect_outcomes("SB plain seq_cst fence / light: allowed (the pair needs the heavy side)" + in,
                      outcomes<sb<side::plain, side::light>>(&r, o), all, r);
    options weak = o;
    // acq_rel: one step below seq_cst, the sensitivity tools' step; the heavy site becomes a plain
    // acq_rel fence in the caller, which orders no store before a load: store buffering returns.
    weak.weaken["t.heavy"] = std::memory_order_acq_rel;
    t.expect_outcomes("SB heavy weakened to an acq_rel fence / light: allowed" + in,
                      outcomes<sb<side::heavy, side::light>>(&r, weak), all, r);
    auto three = outcomes<one_heavy_two_light>(&r, o);
    t.expect(r.ok && r.complete && !three.empty(), "one heavy fence reaches both light threads" + in,
             show(three) + " [" + r.summary() + "]" + (r.ok ? "" : " " + r.message + "\n" + r.trace));
    options flags = o;
    flags.stop_at_first_race = false;
    r = check<mp_heavy_reader>(flags);
    t.expect(r.racy() && r.complete, "a heavy fence after a relaxed read does not make it an acquire" + in, r.summary());
  }
  return t.done();
}
