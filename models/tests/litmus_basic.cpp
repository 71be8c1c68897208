// Engine self-test: classic litmus shapes with exact RC11 outcome sets.
// @verifies MC-1
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

// MP: T0 data=1; flag=1.  T1 r0=flag; r1=data.
template <std::memory_order W, std::memory_order R>
struct mp : scenario {
  S::atomic<int> data{0}, flag{0};
  long r0 = -1, r1 = -1;
  mp() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("mp.data", relaxed));
      flag.store(1, pilfer::order_site{W, "mp.flag"});
    } else {
      r0 = flag.load(pilfer::order_site{R, "mp.rflag"});
      r1 = data.load(PILFER_SITE("mp.rdata", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

// SB: T0 x=1; [F]; r0=y.  T1 y=1; [F]; r1=x.
template <std::memory_order A, bool Fences>
struct sb : scenario {
  S::atomic<int> x{0}, y{0};
  long r0 = -1, r1 = -1;
  sb() : scenario(2) {}
  void thread(unsigned i) override {
    S::atomic<int>& mine = i == 0 ? x : y;
    S::atomic<int>& other = i == 0 ? y : x;
    mine.store(1, pilfer::order_site{A == std::memory_order_seq_cst ? A : std::memory_order_relaxed, "sb.st"});
    if (Fences) S::fence(PILFER_SITE("sb.fence", seq_cst));
    (i == 0 ? r0 : r1) = other.load(pilfer::order_site{A, "sb.ld"});
  }
  void after() override { record({r0, r1}); }
};

// LB: T0 r0=x; y=1.  T1 r1=y; x=1.  (1,1) is forbidden in RC11 (porf acyclic).
struct lb : scenario {
  S::atomic<int> x{0}, y{0};
  long r0 = -1, r1 = -1;
  lb() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      r0 = x.load(PILFER_SITE("lb.ld", relaxed));
      y.store(1, PILFER_SITE("lb.st", relaxed));
    } else {
      r1 = y.load(PILFER_SITE("lb.ld", relaxed));
      x.store(1, PILFER_SITE("lb.st", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

// 2+2W: T0 x=1; y=2.  T1 y=1; x=2.  Final (x, y).
template <std::memory_order O>
struct w22 : scenario {
  S::atomic<int> x{0}, y{0};
  w22() : scenario(2) {}
  void thread(unsigned i) override {
    S::atomic<int>& a = i == 0 ? x : y;
    S::atomic<int>& b = i == 0 ? y : x;
    a.store(1, pilfer::order_site{O, "w22.a"});
    b.store(2, pilfer::order_site{O, "w22.b"});
  }
  void after() override {
    record({x.load(PILFER_SITE("w22.final", relaxed)), y.load(PILFER_SITE("w22.final", relaxed))});
  }
};

// IRIW: T0 x=1. T1 y=1. T2 r0=x; r1=y. T3 r2=y; r3=x.
template <std::memory_order W, std::memory_order R>
struct iriw : scenario {
  S::atomic<int> x{0}, y{0};
  long r[4] = {-1, -1, -1, -1};
  iriw() : scenario(4) {}
  void thread(unsigned i) override {
    const pilfer::order_site ws{W, "iriw.st"}, rs{R, "iriw.ld"};
    switch (i) {
      case 0: x.store(1, ws); break;
      case 1: y.store(1, ws); break;
      case 2: r[0] = x.load(rs); r[1] = y.load(rs); break;
      default: r[2] = y.load(rs); r[3] = x.load(rs); break;
    }
  }
  void after() override { record({r[0], r[1], r[2], r[3]}); }
};

// CoRR: T0 x=1; x=2.  T1 r0=x; r1=x.  Reads never go backwards in mo.
struct corr : scenario {
  S::atomic<int> x{0};
  long r0 = -1, r1 = -1;
  corr() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("corr.st", relaxed));
      x.store(2, PILFER_SITE("corr.st", relaxed));
    } else {
      r0 = x.load(PILFER_SITE("corr.ld", relaxed));
      r1 = x.load(PILFER_SITE("corr.ld", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

// RMW atomicity: two fetch_adds never both read 0.
struct inc2 : scenario {
  S::atomic<int> x{0};
  long r0 = -1, r1 = -1;
  inc2() : scenario(2) {}
  void thread(unsigned i) override { (i == 0 ? r0 : r1) = x.fetch_add(1, PILFER_SITE("inc.add", relaxed)); }
  void after() override { record({r0, r1, x.load(PILFER_SITE("inc.final", relaxed))}); }
};

// Release sequence through an RMW: T0 data=1; flag=1(rel). T1 flag.fetch_add(1) (rlx).
// T2 r0=flag(acq); r1=data. If T2 reads 2 (the RMW), the rs makes data visible.
struct rseq : scenario {
  S::atomic<int> data{0}, flag{0};
  long r0 = -1, r1 = -1;
  rseq() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("rs.data", relaxed));
      flag.store(1, PILFER_SITE("rs.flag", release));
    } else if (i == 1) {
      int e = 1;
      flag.compare_exchange_strong(e, 2, PILFER_SITE("rs.cas", relaxed), PILFER_SITE("rs.cas", relaxed));
    } else {
      r0 = flag.load(PILFER_SITE("rs.rflag", acquire));
      r1 = data.load(PILFER_SITE("rs.rdata", relaxed));
    }
  }
  void after() override {
    if (r0 == 2) record({r0, r1});
  }
};

// Fence-fence synchronisation: T0 data=1; fence(rel); flag=1(rlx). T1 r0=flag(rlx); fence(acq); r1=data.
struct ffmp : scenario {
  S::atomic<int> data{0}, flag{0};
  long r0 = -1, r1 = -1;
  ffmp() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("ff.data", relaxed));
      S::fence(PILFER_SITE("ff.rel", release));
      flag.store(1, PILFER_SITE("ff.flag", relaxed));
    } else {
      r0 = flag.load(PILFER_SITE("ff.rflag", relaxed));
      S::fence(PILFER_SITE("ff.acq", acquire));
      r1 = data.load(PILFER_SITE("ff.rdata", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

// Mixed SB (psc across an SC access thread and an SC fence thread):
// T0 x=1 (sc); r0=y (R).  T1 y=1 (rlx); fence(sc); r1=x (rlx).
// With R = seq_cst: r0 -fr-> y=1 -sb-> F1 and F1 -hb-> r1 -fr-> x=1 -sb-> r0 is a psc cycle, so
// (0,0) is forbidden. With R = relaxed, r0 is no psc node and (0,0) is allowed.
template <std::memory_order R>
struct sb_mixed : scenario {
  S::atomic<int> x{0}, y{0};
  long r0 = -1, r1 = -1;
  sb_mixed() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("sbm.x", seq_cst));
      r0 = y.load(pilfer::order_site{R, "sbm.ry"});
    } else {
      y.store(1, PILFER_SITE("sbm.y", relaxed));
      S::fence(PILFER_SITE("sbm.f", seq_cst));
      r1 = x.load(PILFER_SITE("sbm.rx", relaxed));
    }
  }
  void after() override { record({r0, r1}); }
};

}  // namespace

int main() {
  runner t;
  constexpr auto rlx = std::memory_order_relaxed, acq = std::memory_order_acquire, rel = std::memory_order_release,
                 sc = std::memory_order_seq_cst;
  result r;
  outcome_set got;

  got = outcomes<mp<rlx, rlx>>(&r);
  t.expect_outcomes("MP relaxed: stale read (1,0) found", got, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, r);
  got = outcomes<mp<rel, acq>>(&r);
  t.expect_outcomes("MP release/acquire: never (1,0)", got, {{0, 0}, {0, 1}, {1, 1}}, r);

  got = outcomes<sb<rlx, false>>(&r);
  t.expect_outcomes("SB relaxed: both-zero found", got, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, r);
  got = outcomes<sb<acq, false>>(&r);
  t.expect_outcomes("SB acquire loads: both-zero still found", got, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, r);
  got = outcomes<sb<sc, false>>(&r);
  t.expect_outcomes("SB seq_cst accesses: never both-zero", got, {{0, 1}, {1, 0}, {1, 1}}, r);
  got = outcomes<sb<rlx, true>>(&r);
  t.expect_outcomes("SB relaxed + seq_cst fences: never both-zero", got, {{0, 1}, {1, 0}, {1, 1}}, r);

  got = outcomes<lb>(&r);
  t.expect_outcomes("LB relaxed: (1,1) never (RC11)", got, {{0, 0}, {0, 1}, {1, 0}}, r);

  got = outcomes<w22<rlx>>(&r);
  t.expect_outcomes("2+2W relaxed: (1,1) allowed", got, {{1, 1}, {1, 2}, {2, 1}, {2, 2}}, r);
  got = outcomes<w22<rel>>(&r);
  t.expect_outcomes("2+2W release: (1,1) allowed", got, {{1, 1}, {1, 2}, {2, 1}, {2, 2}}, r);
  got = outcomes<w22<sc>>(&r);
  t.expect_outcomes("2+2W seq_cst: (1,1) forbidden", got, {{1, 2}, {2, 1}, {2, 2}}, r);

  got = outcomes<iriw<rel, acq>>(&r);
  t.expect(r.ok && r.complete && got.count({1, 0, 1, 0}) == 1 && got.size() == 16, "IRIW release/acquire: (1,0,1,0) found",
           show(got) + " [" + r.summary() + "]");
  got = outcomes<iriw<sc, sc>>(&r);
  t.expect(r.ok && r.complete && got.count({1, 0, 1, 0}) == 0 && got.size() == 15, "IRIW seq_cst: (1,0,1,0) never",
           show(got) + " [" + r.summary() + "]");

  got = outcomes<corr>(&r);
  t.expect_outcomes("CoRR: reads never go back in mo", got, {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}, r);
  got = outcomes<inc2>(&r);
  t.expect_outcomes("RMW atomicity: increments never lost", got, {{0, 1, 2}, {1, 0, 2}}, r);
  got = outcomes<rseq>(&r);
  t.expect_outcomes("release sequence continues through an RMW", got, {{2, 1}}, r);
  got = outcomes<ffmp>(&r);
  t.expect_outcomes("fence-fence MP: never (1,0)", got, {{0, 0}, {0, 1}, {1, 1}}, r);
  got = outcomes<sb_mixed<sc>>(&r);
  t.expect_outcomes("SB mixed SC access / SC fence: never both-zero", got, {{0, 1}, {1, 0}, {1, 1}}, r);
  got = outcomes<sb_mixed<rlx>>(&r);
  t.expect_outcomes("SB mixed with a relaxed load: both-zero allowed", got, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, r);
  return t.done();
}
