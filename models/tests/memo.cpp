// Engine self-test: the memo table forgets nothing below its cap.
//   MC-7  Below options::memo_entries the memo table is exact: every distinct execution graph
//         is completed once, so result::executions counts graphs and scenario::after() runs
//         once per graph. Before this test the table dropped a state whenever a 4-way bucket
//         was full, at any size (1 002 states forgotten in a 16 384/32 768-slot table on the
//         program below): a forgotten state was explored again, and once the state before
//         after() was among them, after() ran for a graph the engine then pruned at its final
//         state — litmus_fuzz saw 1681 executions where rc11_oracle counts 1680 distinct
//         graphs (models/litmus/regress/count-4170.litmus). At the cap the table is a cache:
//         result::forgotten counts what it dropped and the outcomes stay the same.
//         A table at its cap forgets nothing while its probe sequences have room: a 32 768-entry
//         cap holds this program's 15 898 states (49 %) with nothing forgotten and 1680
//         executions. Before this test a state was forgotten as soon as its 4-slot bucket was
//         full, whatever the load — 3 034 states at a 2^24 cap filled to 17 %, and at the default
//         2^21 cap conf_loop without symmetry (models/clients) completed 14 graphs twice: 128 174
//         executions, GenMC's 128 160 distinct graphs.
// The program is count-4170: rc11_oracle (models/tools/rc11_oracle.cpp) counts 1680 consistent
// graphs under rc11 and c++20; of them 30 end with r6 = 3, r7 = 6, x = 4 (by hand: x = 4 is
// mo-last, r6 reads one of the two 3s, which must be mo-before the 6 that r7 reads; 10
// orders when it reads P0's seq_cst 3, 20 when it reads P1's 3; the SC condition orders the
// two SC events either way and cannot close a cycle).
// @verifies MC-7
#include <map>

#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

std::size_t g_after_calls = 0;
std::map<outcome, std::size_t> g_counts;

struct count_4170 : scenario {
  S::atomic<int> x{0};
  int r6 = -1, r7 = -1;
  count_4170() : scenario(4) {}
  void thread(unsigned i) override {
    switch (i) {
      case 0:
        x.store(2, PILFER_SITE("t.p0a", relaxed));
        x.store(3, PILFER_SITE("t.p0b", seq_cst));
        x.store(4, PILFER_SITE("t.p0c", relaxed));
        break;
      case 1:
        x.store(3, PILFER_SITE("t.p1a", relaxed));
        x.store(5, PILFER_SITE("t.p1b", relaxed));
        break;
      case 2:
        r6 = x.load(PILFER_SITE("t.p2a", relaxed));
        r7 = x.load(PILFER_SITE("t.p2b", seq_cst));
        break;
      default:
        x.store(6, PILFER_SITE("t.p3a", relaxed));
        break;
    }
  }
  void after() override {
    ++g_after_calls;
    outcome o{r6, r7, x.load(PILFER_SITE("t.final", relaxed))};
    ++g_counts[o];
    record(std::move(o));
  }
};

}  // namespace

int main() {
  runner t;
  for (const memory_model m : {memory_model::rc11, memory_model::cxx20}) {
    const std::string name = to_string(m);
    options o;
    o.model = m;
    g_after_calls = 0;
    g_counts.clear();
    result r;
    const outcome_set exact = outcomes<count_4170>(&r, o);
    const std::size_t calls = g_after_calls, wanted = g_counts[outcome{3, 6, 4}];
    t.expect(r.ok && r.complete && r.forgotten == 0 && r.executions == 1680 && calls == r.executions && wanted == 30,
             name + ": below the cap every graph is completed once (1680 = rc11_oracle's count)",
             cat("[", r.summary(), "] forgotten=", std::to_string(r.forgotten), " after() ran ", std::to_string(calls),
                 " times; r6=3 r7=6 x=4: ", std::to_string(wanted), " (want 30)"));
    options roomy = o;
    roomy.memo_entries = 32768;  // at its cap (the table reaches it at 8 192 states), 49 % full
    g_after_calls = 0;
    result rr;
    const outcome_set roomy_set = outcomes<count_4170>(&rr, roomy);
    t.expect(rr.ok && rr.complete && rr.forgotten == 0 && rr.executions == 1680 && g_after_calls == 1680 &&
                 roomy_set == exact,
             name + ": a 32768-entry table at its cap, half full, forgets nothing: every graph completed once",
             cat("[", rr.summary(), "] forgotten=", std::to_string(rr.forgotten), " after() ran ",
                 std::to_string(g_after_calls), " times"));
    options tiny = o;
    tiny.memo_entries = 16384;
    g_after_calls = 0;
    result rt;
    const outcome_set cached = outcomes<count_4170>(&rt, tiny);
    t.expect(rt.ok && rt.complete && rt.forgotten > 0 && cached == exact && rt.executions >= r.executions,
             name + ": a 16384-entry table (at its cap) forgets states, reaches the same outcomes",
             cat("[", rt.summary(), "] forgotten=", std::to_string(rt.forgotten), ", ", std::to_string(cached.size()),
                 " vs ", std::to_string(exact.size()), " outcomes"));
  }
  return t.done();
}
