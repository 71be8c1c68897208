// Engine self-test: the named memory models and the soundness fixes of this round.
//   MC-4  c++20 (default) vs rc11: release sequences (P0982R1: only RMWs continue one) and the
//         SC condition (P0668R5: strongly-happens-before has no sb|≠loc restriction). Execution
//         counts are GenMC v0.11's for the same programs (tests/correct/litmus/*,
//         expected.rc11.mo.in; its RC11 driver implements the C++20 rules): MP+rels+acq 4,
//         relseq 20, WWmerge1 17. rc11 as herd7's rc11.cat gives 3, 16 and 18.
//   MC-5  a spin hint forces only the spinning reads: a later read of another location still
//         sees a stale value; assume() blocks executions instead of failing them.
//   MC-6  mutex misuse: unlock by a non-owner, unlock of a free mutex, lock/unlock of a
//         destroyed mutex, relock by the owner, destroying a locked mutex.
//   MC-7  no cap on seq_cst events; the memo table is a bounded cache and exploration stays
//         complete when it forgets states; races are flags when stop_at_first_race is false.
// Each check failed before the change it guards (see models/README.md, "Changes").
// @verifies MC-4 MC-5 MC-6 MC-7
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

options with(memory_model m) {
  options o;
  o.model = m;
  return o;
}

// --- MC-4: release sequences ------------------------------------------------------------------
// GenMC tests/correct/litmus/MP+rels+acq: x = 1; y.store(0, rel); y.store(1, rlx) ∥
// if (y.load(acq)) r = x. Under C++20 the relaxed y = 1 is not in the release sequence of
// y = 0, so reading it does not synchronise: r = 0 is allowed (with a plain x: a data race).
struct mp_rels_acq : scenario {
  S::atomic<int> x{0}, y{0};
  int ry = -1, rx = -1;
  mp_rels_acq() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      y.store(0, PILFER_SITE("t.y0", release));
      y.store(1, PILFER_SITE("t.y1", relaxed));
    } else {
      ry = y.load(PILFER_SITE("t.ry", acquire));
      if (ry != 0) rx = x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
  void after() override { record({ry, rx}); }
};
struct mp_rels_acq_plain : scenario {
  S::cell<int> x{0};
  S::atomic<int> y{0};
  mp_rels_acq_plain() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.write() = 1;
      y.store(0, PILFER_SITE("t.y0", release));
      y.store(1, PILFER_SITE("t.y1", relaxed));
    } else if (y.load(PILFER_SITE("t.ry", acquire)) != 0) {
      (void)x.read();
    }
  }
};
// GenMC tests/correct/litmus/relseq.
struct relseq : scenario {
  S::atomic<int> x{0}, y{0};
  relseq() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      y.store(1, PILFER_SITE("t.y1", release));
      y.store(2, PILFER_SITE("t.y2", relaxed));
    } else if (i == 1) {
      (void)y.exchange(3, PILFER_SITE("t.xchg", relaxed));
    } else {
      (void)y.load(PILFER_SITE("t.ry", relaxed));
      S::fence(PILFER_SITE("t.f", acq_rel));
      (void)x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
};
// The RMW step still continues a release sequence in both models (RS+rmw).
struct rs_rmw : scenario {
  S::atomic<int> x{0}, y{0};
  int ry = -1, rx = -1;
  rs_rmw() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
      y.store(1, PILFER_SITE("t.y", release));
    } else if (i == 1) {
      (void)y.fetch_add(1, PILFER_SITE("t.rmw", relaxed));
    } else {
      ry = y.load(PILFER_SITE("t.ry", acquire));
      rx = x.load(PILFER_SITE("t.rx", relaxed));
    }
  }
  void after() override {
    if (ry == 2) record({rx});  // y == 2: read the RMW that read the release store
  }
};

// --- MC-4: SC -------------------------------------------------------------------------------
// GenMC tests/correct/litmus/WWmerge1: ra = x.load(acq); rb = y.load(sc) ∥ x = 1 (sc); x = 2 (sc)
// ∥ y = 1 (sc); rc = x.load(sc). C++20's strongly-happens-before orders x=1 sb x=2 sw ra sb rb
// (sb;hb;sb, same location at the first step) before rb in S; RC11's sb|≠loc drops that edge.
struct wwmerge1 : scenario {
  S::atomic<int> x{0}, y{0};
  wwmerge1() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      (void)x.load(PILFER_SITE("t.ra", acquire));
      (void)y.load(PILFER_SITE("t.rb", seq_cst));
    } else if (i == 1) {
      x.store(1, PILFER_SITE("t.x1", seq_cst));
      x.store(2, PILFER_SITE("t.x2", seq_cst));
    } else {
      y.store(1, PILFER_SITE("t.y", seq_cst));
      (void)x.load(PILFER_SITE("t.rc", seq_cst));
    }
  }
};
// The outcome behind the count: ra = 2, rb = 0, rc = 0 is forbidden by C++20
// (x1 →S rb →S y →S rc →S x1, via x1 sb x2 sw ra sb rb; rb fr y; y sb rc; rc fr x1).
struct wwmerge1_outcome : wwmerge1 {
  int ra = -1, rb = -1, rc = -1;
  void thread(unsigned i) override {
    if (i == 0) {
      ra = x.load(PILFER_SITE("t.ra", acquire));
      rb = y.load(PILFER_SITE("t.rb", seq_cst));
    } else if (i == 1) {
      wwmerge1::thread(1);
    } else {
      y.store(1, PILFER_SITE("t.y", seq_cst));
      rc = x.load(PILFER_SITE("t.rc", seq_cst));
    }
  }
  void after() override { record({ra, rb, rc}); }
};

// --- MC-5: spin hints -------------------------------------------------------------------------
// data = 1; flag = 1 (relaxed) ∥ while (flag == 0) yield(); r = data. Relaxed: r = 0 is
// allowed even after the spinner yielded (nothing synchronises). The old rule forced the first
// read of EVERY location after a yield to the latest store and lost (yielded, r = 0).
struct spin_then_other : scenario {
  S::atomic<int> data{0}, flag{0};
  int yields = 0, r = -1;
  spin_then_other() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("t.d", relaxed));
      flag.store(1, PILFER_SITE("t.f", relaxed));
    } else {
      while (flag.load(PILFER_SITE("t.fl", relaxed)) == 0) {
        S::yield();
        ++yields;
      }
      r = data.load(PILFER_SITE("t.dl", relaxed));
    }
  }
  void after() override { record({yields > 0 ? 1 : 0, r}); }
};
// The spinner still terminates: a spin loop over two locations (both forced after the hint).
struct spin_two_locations : scenario {
  S::atomic<int> a{0}, b{0};
  spin_two_locations() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      a.store(1, PILFER_SITE("t.a", relaxed));
      b.store(1, PILFER_SITE("t.b", relaxed));
    } else {
      while (a.load(PILFER_SITE("t.la", relaxed)) == 0 || b.load(PILFER_SITE("t.lb", relaxed)) == 0) S::spin_hint();
    }
  }
};
// A read made before the spin loop is not a spinning read (an outside tester's handshake, its
// bug on purpose: `ready` is published and read relaxed, so the slow path may read data == 0).
// With Backoff hints per iteration, the old rule (the reads since the previous hint, as a set,
// kept by an iteration without reads) forced the pre-loop `data` read's location to the latest
// store after the loop: 3 or more hints per iteration and the bug was "proved" absent.
template <int Backoff>
struct read_before_the_loop : scenario {
  S::atomic<int> data{0}, req{0}, ready{0};
  read_before_the_loop() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("t.d", relaxed));
      while (req.load(PILFER_SITE("t.rq", relaxed)) == 0) S::yield();
      ready.store(1, PILFER_SITE("t.rd", relaxed));
      return;
    }
    if (data.load(PILFER_SITE("t.fast", relaxed)) == 1) {
      req.store(1, PILFER_SITE("t.rq", relaxed));
      return;
    }
    while (ready.load(PILFER_SITE("t.rdl", relaxed)) == 0) {
      req.store(1, PILFER_SITE("t.rq", relaxed));
      for (int k = 0; k < Backoff; ++k) S::yield();
    }
    PILFER_MODEL_ASSERT(data.load(PILFER_SITE("t.slow", relaxed)) == 1);
  }
};
// assume(): an await. Executions in which the flag is not set yet are blocked, not failed.
struct await_flag : scenario {
  S::atomic<int> flag{0};
  S::cell<int> data{0};
  await_flag() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.write() = 1;
      flag.store(1, PILFER_SITE("t.f", release));
    } else {
      assume(flag.load(PILFER_SITE("t.fl", acquire)) == 1);
      PILFER_MODEL_ASSERT(data.read() == 1);
    }
  }
};

// --- MC-6: mutex misuse -----------------------------------------------------------------------
struct unlock_by_other : scenario {
  S::mutex m;
  S::atomic<int> locked{0}, never{0};
  unlock_by_other() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      m.lock();
      locked.store(1, PILFER_SITE("t.l", release));
      // (holding on: a thread that finished holding the mutex would be misuse of its own)
      assume(never.load(PILFER_SITE("t.never", relaxed)) == 1);
    } else {
      assume(locked.load(PILFER_SITE("t.ll", acquire)) == 1);
      m.unlock();  // t0 holds it
    }
  }
};
struct unlock_free : scenario {
  S::mutex m;
  unlock_free() : scenario(1) {}
  void thread(unsigned) override { m.unlock(); }
};
struct relock : scenario {
  S::mutex m;
  relock() : scenario(1) {}
  void thread(unsigned) override {
    m.lock();
    m.lock();
  }
};
template <bool Unlock>
struct destroyed_mutex : scenario {
  destroyed_mutex() : scenario(1) {}
  void thread(unsigned) override {
    S::mutex* m = S::make<S::mutex>();
    if (Unlock) m->lock();
    S::destroy(m);  // Unlock: destroyed while locked (misuse already)
    if (Unlock)
      m->unlock();
    else
      m->lock();
  }
};
struct destroyed_then_lock : scenario {
  destroyed_then_lock() : scenario(1) {}
  void thread(unsigned) override {
    S::mutex* m = S::make<S::mutex>();
    S::destroy(m);
    m->lock();  // the region is quarantined: the object is still there, the mutex is not
  }
};

// --- MC-7 -------------------------------------------------------------------------------------
// More seq_cst events than the old fixed cap (512) in one execution.
struct many_sc : scenario {
  S::atomic<int> c{0};
  many_sc() : scenario(1) {}
  void thread(unsigned) override {
    for (int k = 0; k < 400; ++k) (void)c.fetch_add(1, PILFER_SITE("t.add", seq_cst));
    for (int k = 0; k < 300; ++k) (void)c.load(PILFER_SITE("t.load", seq_cst));
  }
  void after() override { PILFER_MODEL_ASSERT(c.load(PILFER_SITE("t.final", seq_cst)) == 400); }
};
// A seq_cst spin loop over a counter written 300 times (≥ 512 SC events in total).
struct sc_spin : scenario {
  S::atomic<int> c{0};
  sc_spin() : scenario(1) {}
  void before() override {}
  void thread(unsigned) override {
    for (int k = 0; k < 300; ++k) c.store(k + 1, PILFER_SITE("t.st", seq_cst));
    while (c.load(PILFER_SITE("t.ld", seq_cst)) != 300) S::spin_hint();
    for (int k = 0; k < 300; ++k) (void)c.load(PILFER_SITE("t.ld2", seq_cst));
  }
};
// IRIW with relaxed reads: many states; the same outcome set with a tiny memo table.
struct iriw : scenario {
  S::atomic<int> x{0}, y{0};
  int a = -1, b = -1, c = -1, d = -1;
  iriw() : scenario(4) {}
  void thread(unsigned i) override {
    if (i == 0) x.store(1, PILFER_SITE("t.x", relaxed));
    if (i == 1) y.store(1, PILFER_SITE("t.y", relaxed));
    if (i == 2) {
      a = x.load(PILFER_SITE("t.a", acquire));
      b = y.load(PILFER_SITE("t.b", acquire));
    }
    if (i == 3) {
      c = y.load(PILFER_SITE("t.c", acquire));
      d = x.load(PILFER_SITE("t.d", acquire));
    }
  }
  void after() override { record({a, b, c, d}); }
};
// Races as flags: the racy MP with a plain payload; every execution completes.
struct racy_mp : scenario {
  S::cell<int> data{0};
  S::atomic<int> flag{0};
  int f = -1;
  racy_mp() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.write() = 1;
      flag.store(1, PILFER_SITE("t.f", relaxed));
    } else {
      f = flag.load(PILFER_SITE("t.fl", relaxed));
      if (f == 1) (void)data.read();
    }
  }
  void after() override { record({f}); }
};

}  // namespace

int main() {
  runner t;
  result r;

  // MC-4 release sequences
  {
    auto cx = outcomes<mp_rels_acq>(&r, with(memory_model::cxx20));
    t.expect(r.ok && r.complete && r.executions == 4 && cx.count({1, 0}) == 1,
             "c++20: MP+rels+acq has 4 executions incl. y=1,x=0 (GenMC 4)", show(cx) + " [" + r.summary() + "]");
    auto rc = outcomes<mp_rels_acq>(&r, with(memory_model::rc11));
    t.expect(r.ok && r.complete && r.executions == 3 && rc.count({1, 0}) == 0,
             "rc11: MP+rels+acq has 3 executions, y=1 synchronises", show(rc) + " [" + r.summary() + "]");
    t.expect(r.summary().find("model=rc11") != std::string::npos, "the verdict line names the model", r.summary());
    options o = with(memory_model::cxx20);
    o.stop_at_first_race = false;
    r = check<mp_rels_acq_plain>(o);
    t.expect(r.racy() && r.races.size() == 1 && r.complete, "c++20: MP+rels+acq with a plain x races",
             r.summary() + (r.racy() ? " " + r.races[0].second + " vs " + r.races[0].first : ""));
    o.model = memory_model::rc11;
    r = check<mp_rels_acq_plain>(o);
    t.expect(r.ok && !r.racy() && r.complete, "rc11: MP+rels+acq with a plain x is race free", r.summary());
    r = check<relseq>(with(memory_model::cxx20));
    t.expect(r.ok && r.complete && r.executions == 20, "c++20: relseq has 20 executions (GenMC 20)", r.summary());
    r = check<relseq>(with(memory_model::rc11));
    t.expect(r.ok && r.complete && r.executions == 16, "rc11: relseq has 16 executions", r.summary());
    for (auto m : {memory_model::cxx20, memory_model::rc11}) {
      auto s = outcomes<rs_rmw>(&r, with(m));
      t.expect_outcomes(std::string(to_string(m)) + ": an RMW continues the release sequence", s, {{1}}, r);
    }
  }
  // MC-4 SC
  {
    r = check<wwmerge1>(with(memory_model::cxx20));
    t.expect(r.ok && r.complete && r.executions == 17, "c++20: WWmerge1 has 17 executions (GenMC 17)", r.summary());
    r = check<wwmerge1>(with(memory_model::rc11));
    t.expect(r.ok && r.complete && r.executions == 18, "rc11: WWmerge1 has 18 executions", r.summary());
    auto cx = outcomes<wwmerge1_outcome>(&r, with(memory_model::cxx20));
    t.expect(r.ok && cx.count({2, 0, 0}) == 0, "c++20: WWmerge1 ra=2 rb=0 rc=0 forbidden", show(cx));
    auto rc = outcomes<wwmerge1_outcome>(&r, with(memory_model::rc11));
    t.expect(r.ok && rc.count({2, 0, 0}) == 1, "rc11: WWmerge1 ra=2 rb=0 rc=0 allowed", show(rc));
    options d;
    t.expect(d.model == memory_model::cxx20, "c++20 is the default model");
  }
  // MC-5
  {
    auto s = outcomes<spin_then_other>(&r);
    t.expect(r.ok && r.complete && s.count({1, 0}) == 1,
             "after a yield, a read of another location still sees the stale value", show(s) + " [" + r.summary() + "]");
    r = check<spin_two_locations>();
    t.expect_ok("a spin loop over two locations terminates (both are spinning reads)", r);
    t.expect_failure("a read before the loop is not forced after it (1 hint per iteration)", check<read_before_the_loop<1>>(),
                     "assertion");
    t.expect_failure("a read before the loop is not forced after it (3 hints per iteration: it was proved)",
                     check<read_before_the_loop<3>>(), "assertion");
    t.expect_failure("a read before the loop is not forced after it (5 hints per iteration: it was proved)",
                     check<read_before_the_loop<5>>(), "assertion");
    r = check<await_flag>();
    t.expect(r.ok && r.complete && r.executions == 1 && r.blocked >= 1, "assume(): unset flag blocks, no failure",
             r.summary());
  }
  // MC-6
  {
    r = check<unlock_by_other>();
    t.expect(!r.ok && r.kind == "mutex misuse" && r.message.find("held by t1") != std::string::npos,
             "unlock of a mutex another thread holds", r.summary() + " " + r.message);
    t.expect_failure("unlock of a free mutex", check<unlock_free>(), "mutex misuse");
    t.expect_failure("relock by the owner", check<relock>(), "mutex misuse");
    r = check<destroyed_mutex<true>>();
    t.expect(!r.ok && r.kind == "mutex misuse" && r.message.find("while") != std::string::npos,
             "destroying a locked mutex", r.message);
    r = check<destroyed_then_lock>();
    t.expect(!r.ok && r.kind == "mutex misuse" && r.message.find("destroyed") != std::string::npos,
             "lock of a destroyed mutex", r.message);
  }
  // MC-7
  {
    r = check<many_sc>();
    t.expect_ok("700 seq_cst events in one execution (old cap: 512)", r);
    r = check<sc_spin>();
    t.expect_ok("seq_cst spin loop after 300 SC stores (no model error)", r);
    auto big = outcomes<iriw>(&r);
    const std::size_t states_big = r.states;
    options tiny;
    tiny.memo_entries = 128;  // iriw visits 261 states (a 256-entry table now holds nearly all)
    result rt;
    auto small = outcomes<iriw>(&rt, tiny);
    t.expect(r.ok && r.complete && rt.ok && rt.complete && big == small && rt.forgotten > 0 && rt.states > states_big,
             "a 128-entry memo table forgets states but explores the same outcomes",
             std::to_string(big.size()) + " vs " + std::to_string(small.size()) + " outcomes; [" + r.summary() + "] [" +
                 rt.summary() + "]");
    auto with_memo = outcomes<wwmerge1_outcome>(&r);
    options none;
    none.memo_entries = 0;
    auto nomemo = outcomes<wwmerge1_outcome>(&rt, none);
    t.expect(r.ok && rt.ok && rt.complete && nomemo == with_memo && rt.executions > r.executions,
             "no memo table: the same outcomes, more executions", cat("[", r.summary(), "] [", rt.summary(), "]"));
    // --shard i/n: three shards together reach every outcome; each explores a part
    outcome_set shard_union;
    std::size_t cut = 0;
    for (unsigned k = 0; k < 3; ++k) {
      options sh;
      sh.shard_index = k;
      sh.shard_count = 3;
      sh.shard_depth = 8;
      auto part = outcomes<wwmerge1_outcome>(&rt, sh);
      shard_union.insert(part.begin(), part.end());
      cut += rt.other_shards;
      t.expect(rt.ok && rt.complete, "shard " + std::to_string(k) + "/3 completes its part", rt.summary());
    }
    t.expect(shard_union == with_memo && cut > 0, "the shards together reach every outcome",
             show(shard_union) + " runs left to other shards: " + std::to_string(cut));
    options flags;
    flags.stop_at_first_race = false;
    auto s = outcomes<racy_mp>(&r, flags);
    t.expect(!r.ok && r.racy() && r.races.size() == 1 && r.complete && s == outcome_set{{0}, {1}},
             "stop_at_first_race=false: race flagged once, every outcome reached",
             show(s) + " [" + r.summary() + "]" + (r.racy() ? " " + r.races[0].location : ""));
    auto stopped = outcomes<racy_mp>(&r);
    t.expect(!r.ok && r.kind == "data race" && r.races.size() == 1, "default: the first race stops the check",
             r.summary());
  }
  return t.done();
}
