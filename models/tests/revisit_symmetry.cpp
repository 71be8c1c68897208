// Engine self-test: symmetry reduction in the revisit exploration (engine/revisit_symmetry.cpp).
//   MC-15 Threads declared interchangeable are explored up to a permutation of their roles, by
//         revisits too: the outcomes, verdicts and failures of the full exploration, fewer
//         executions — GenMC's counts on its symmetry tests (ainc: model.clients.revisit_symmetry).
//   MC-16 The revisit exploration with symmetry finds what the DFS with symmetry finds, with the same
//         complete-execution counts on the random programs below.
// @verifies MC-15 MC-16
//
// Fixed programs: N fetch_adds (one graph), loads of a store (a tie: both members read one write),
// a lost update, a race that depends on reading one's own store or the twin's, and an assertion that
// fails in whichever member comes second (found in one permutation of the full exploration).
// Random programs (tests/random_programs.hpp, PILFER_SEED=N replays a run): a symmetric group of 2-3
// threads and an optional other thread; the revisit exploration with symmetry must give the DFS's
// outcome set (with symmetry: the registers of a group are a sorted multiset), verdict, races and
// complete executions, and the revisit exploration without symmetry the same outcomes. The mutant
// that also prunes ties (set_revisit_symmetry_mutant_prune_ties) must be caught.
#include "../engine/exploration_mode.hpp"
#include "random_programs.hpp"
#include "test_util.hpp"

#include <pilfer/testing/seed.hpp>

#include <algorithm>
#include <random>

using namespace pilfer::model;
using namespace pilfer::model::test;
namespace eng = pilfer::model::engine;

namespace {

struct adders : scenario {
  S::atomic<int> x{0};
  explicit adders(unsigned n) : scenario(n) { symmetric(0, n); }
  void thread(unsigned) override { x.fetch_add(1, PILFER_SITE("t.add", relaxed)); }
  void after() override { PILFER_MODEL_ASSERT(x.load(PILFER_SITE("t.final", relaxed)) == static_cast<int>(threads())); }
};

/// Body 0 stores 1 to x, bodies 1 and 2 (the group) load it: the members read (0, 0), (0, 1),
/// (1, 1) up to order. In the fixed order the store comes first, so each load's other source (0) is
/// an alternative whose graph is checked: (0, 0) is a tie (both read one write), which the
/// tie-pruning mutant loses.
struct loaders : scenario {
  S::atomic<int> x{0};
  int r[3] = {-1, -1, -1};
  loaders() : scenario(3) { symmetric({1, 2}); }
  void thread(unsigned i) override {
    if (i == 0) x.store(1, PILFER_SITE("t.store", relaxed));
    else r[i] = x.load(PILFER_SITE("t.load", relaxed));
  }
  void after() override { record({std::min(r[1], r[2]), std::max(r[1], r[2])}); }
};

/// load + store increments: the lost update (x == 1) is found.
struct lost_update : scenario {
  S::atomic<int> x{0};
  lost_update() : scenario(2) { symmetric(0, 2); }
  void thread(unsigned) override {
    const int v = x.load(PILFER_SITE("t.load", relaxed));
    x.store(v + 1, PILFER_SITE("t.store", relaxed));
  }
  void after() override { PILFER_MODEL_ASSERT(x.load(PILFER_SITE("t.final", relaxed)) == 2); }
};

/// Whether a member read its own release store or its twin's decides whether the plain write is
/// ordered before its read (tests/symmetry.cpp's own_or_other).
struct own_or_other : scenario {
  S::atomic<int> flag{0};
  S::cell<int> data{0};
  S::atomic<int> writer{0};
  own_or_other() : scenario(2) { symmetric(0, 2); }
  void thread(unsigned) override {
    if (writer.fetch_add(1, PILFER_SITE("t.claim", relaxed)) == 0) data.write() = 1;
    flag.store(1, PILFER_SITE("t.publish", release));
    if (flag.load(PILFER_SITE("t.read_flag", acquire)) == 1) (void)data.read();
  }
};

/// The member whose fetch_add comes second asserts it cannot see y = 1 (the other thread's store):
/// without symmetry the failure is in body 0 or body 1 depending on the order; with it, the one
/// canonical order must still fail.
struct second_sees : scenario {
  S::atomic<int> x{0}, y{0};
  second_sees() : scenario(3) { symmetric(0, 2); }
  void thread(unsigned i) override {
    if (i == 2) {
      y.store(1, PILFER_SITE("t.y", relaxed));
      return;
    }
    if (x.fetch_add(1, PILFER_SITE("t.add", relaxed)) == 1) PILFER_MODEL_ASSERT(y.load(PILFER_SITE("t.load_y", relaxed)) == 0);
  }
};

options with(exploration_mode m, bool symmetry) {
  options o;
  o.exploration = m;
  o.symmetry = symmetry;
  o.stop_at_first_race = false;
  return o;
}

struct differential {
  int programs = 0, outcome_mismatches = 0, orbit_mismatches = 0, compared = 0, extra = 0, reduced = 0, fell_back = 0;
  std::size_t dfs = 0, rv = 0, rv_full = 0;
};

/// The random programs of one seed, each explored three ways: the DFS with symmetry; revisits with
/// symmetry; revisits with the groups declared but the rule off (every permutation). With the
/// duplicate check on, revisit mode hashes final graphs up to a permutation: executions minus
/// complete repeats is the number of relabeling classes its final graphs fall in. Required: the same
/// outcome sets (where all three ran to the end), verdicts and races; where all three are complete and ok, the revisit exploration
/// with symmetry reaches every class the full one reaches (the same number: its graphs are among
/// those) and that number is the DFS's count. It may reach a class more than once (GenMC's rule is
/// not a canonical form): counted in `extra`.
differential compare_random(runner& t, std::uint64_t seed, int programs, bool report) {
  std::mt19937_64 rng(seed);
  differential d;
  eng::set_revisit_duplicate_check(true);
  for (int i = 0; i < programs; ++i) {
    program p;
    p.symmetric_threads = 2 + static_cast<unsigned>(rng() % 2);
    p.body = random_body(rng, 1 + static_cast<unsigned>(rng() % (p.symmetric_threads == 2 ? 3 : 2)), i % 3 == 2);
    if (rng() % 2) p.other = random_body(rng, 1 + static_cast<unsigned>(rng() % 2), i % 3 == 2);
    p.other_at = static_cast<unsigned>(rng() % (p.symmetric_threads + 1));
    current = &p;
    const memory_model mm = i % 7 == 6 ? memory_model::rc11 : memory_model::cxx20;
    options od = with(exploration_mode::dfs, true), orv = with(exploration_mode::revisit, true);
    // (the revisit exploration does not check await liveness: the same question to all three, also
    // where it falls back to the DFS)
    od.await_liveness = orv.await_liveness = false;
    od.model = orv.model = mm;
    outcome_set sd, sr, sf;
    sink() = &sd;
    const result a = check<random_program>(od);
    sink() = &sr;
    const result b = check<random_program>(orv);
    const eng::revisit_counts cb = eng::last_revisit_counts();
    sink() = &sf;
    eng::set_revisit_symmetry_rule(false);
    const result c = check<random_program>(orv);
    eng::set_revisit_symmetry_rule(true);
    const eng::revisit_counts cc = eng::last_revisit_counts();
    sink() = nullptr;
    ++d.programs;
    d.dfs += a.executions;
    d.rv += b.executions;
    d.rv_full += c.executions;
    if (b.executions < c.executions) ++d.reduced;
    // An exploration cut at its first failure (a deadlock, an assertion) has seen the outcomes its order
    // happened to reach first, so outcome sets are compared only when all three ran to the end; the
    // verdicts are compared always.
    const bool all_complete = a.complete && b.complete && c.complete;
    const bool same = (!all_complete || (sd == sr && sr == sf)) && a.ok == b.ok && b.ok == c.ok && a.kind == b.kind &&
                      b.kind == c.kind && a.racy() == b.racy() && b.racy() == c.racy();
    bool orbits = true;
    if (a.ok && b.ok && c.ok && a.complete && b.complete && c.complete) {
      ++d.compared;
      // (a program with unordered stores is explored by the DFS instead: the same run as a's)
      const bool fell_back = b.states == a.states && b.executions == a.executions;
      if (fell_back) ++d.fell_back;
      const std::size_t classes_b = fell_back ? b.executions : b.executions - cb.complete_duplicates,
                        classes_c = c.executions - cc.complete_duplicates;
      orbits = classes_b == classes_c && classes_c == a.executions && b.executions <= c.executions;
      if (b.executions > classes_b) ++d.extra;
    }
    if (!same) ++d.outcome_mismatches;
    if (!orbits) ++d.orbit_mismatches;
    if ((!same || !orbits) && d.outcome_mismatches + d.orbit_mismatches <= 3 && report)
      t.expect(false, cat("program ", std::to_string(i), " (seed ", std::to_string(seed), "): ", describe(p)),
               cat("dfs+sym [", a.summary(), "] ", show(sd), "\nrevisit+sym [", b.summary(), "] repeats ",
                   std::to_string(cb.complete_duplicates), " await_unknown ", std::to_string(cb.await_unknown), " ", show(sr), "\nrevisit, rule off [", c.summary(), "] repeats ",
                   std::to_string(cc.complete_duplicates), " ", show(sf)));
  }
  eng::set_revisit_duplicate_check(false);
  return d;
}

}  // namespace

int main() {
  runner t;
  const options rv = with(exploration_mode::revisit, true), rv_full = with(exploration_mode::revisit, false),
                dfs = with(exploration_mode::dfs, true);

  for (unsigned n : {2u, 3u, 4u}) {
    const result on = check([n] { return std::make_unique<adders>(n); }, rv);
    const result off = check([n] { return std::make_unique<adders>(n); }, rv_full);
    const std::size_t fact = n == 2 ? 2 : n == 3 ? 6 : 24;
    t.expect(on.ok && on.complete && on.executions == 1 && off.executions == fact,
             cat(std::to_string(n), " symmetric fetch_adds by revisits: one graph (", std::to_string(fact), " without symmetry)"),
             cat("on [", on.summary(), "] off [", off.summary(), "]"));
  }

  {
    outcome_set s_rv, s_full;
    sink() = &s_rv;
    const result on = check<loaders>(rv);
    sink() = &s_full;
    const result off = check<loaders>(rv_full);
    sink() = nullptr;
    t.expect(s_rv == outcome_set{{0, 0}, {0, 1}, {1, 1}} && s_rv == s_full && on.executions == 3 && off.executions == 4,
             "two loads of a store: both ties kept, the mixed graph once (3 graphs, 4 without symmetry)",
             cat(show(s_rv), " on [", on.summary(), "] off [", off.summary(), "]"));
  }

  {
    const result r = check<lost_update>(rv);
    t.expect_failure("a lost update is found by revisits with symmetry", r, "assertion");
    const result race = check<own_or_other>(rv);
    t.expect(!race.ok && race.racy(), "reading its own store or its twin's: the race is found by revisits with symmetry",
             race.summary());
  }

  {
    const result on = check<second_sees>(rv);
    const result off = check<second_sees>(rv_full);
    const result d = check<second_sees>(dfs);
    t.expect_failure("the assertion of whichever member comes second: found by revisits with symmetry", on, "assertion");
    t.expect_failure("... and without symmetry", off, "assertion");
    t.expect_failure("... and by the DFS with symmetry", d, "assertion");
  }

  // the differential run
  const std::uint64_t seed = pilfer::testing::test_seed();
  const differential d = compare_random(t, seed, 300, true);
  t.expect(d.outcome_mismatches == 0 && d.orbit_mismatches == 0,
           cat(std::to_string(d.programs), " random programs: revisits with symmetry give the DFS's outcomes, verdicts and "
               "races, and reach every relabeling class (the DFS's count) the full exploration reaches"),
           cat(std::to_string(d.outcome_mismatches), " outcome mismatches, ", std::to_string(d.orbit_mismatches), " class mismatches of ",
               std::to_string(d.compared), " compared; executions: dfs+sym ", std::to_string(d.dfs), ", revisit+sym ",
               std::to_string(d.rv), ", revisit (rule off) ", std::to_string(d.rv_full), "; explored by the DFS (unordered stores) ", std::to_string(d.fell_back),
               "; a class reached more than once in ",
               std::to_string(d.extra), " programs"));
  t.expect(d.reduced > d.programs / 4, "symmetry reduces the revisit exploration of most of them",
           cat(std::to_string(d.reduced), " of ", std::to_string(d.programs)));

  // the mutant that prunes ties too must be caught: on the loads, and on the random programs
  eng::set_revisit_symmetry_mutant_prune_ties(true);
  {
    outcome_set s;
    sink() = &s;
    const result on = check<loaders>(rv);
    sink() = nullptr;
    t.expect(s != (outcome_set{{0, 0}, {0, 1}, {1, 1}}), "mutant (ties pruned): the loads lose outcomes", cat(show(s), " [", on.summary(), "]"));
    runner quiet;  // (its failures are expected: counted, not reported)
    // Batches of 150 programs from the run's seed on (seed, seed + 1, ...) until one loses a class
    // or an outcome, at most 8: a single batch missed the mutant for some seeds (12165218243676711825
    // in a CI run), so one batch made the evidence depend on the seed drawn.
    differential m;
    int batches = 0;
    while (batches < 8 && m.outcome_mismatches + m.orbit_mismatches == 0) {
      const differential b = compare_random(quiet, seed + static_cast<std::uint64_t>(batches), 150, false);
      ++batches;
      m.programs += b.programs;
      m.outcome_mismatches += b.outcome_mismatches;
      m.orbit_mismatches += b.orbit_mismatches;
    }
    t.expect(m.outcome_mismatches + m.orbit_mismatches > 0, "mutant (ties pruned): relabeling classes are lost on the random programs",
             cat(std::to_string(m.outcome_mismatches), " outcome and ", std::to_string(m.orbit_mismatches), " class mismatches of ",
                 std::to_string(m.programs), " (", std::to_string(batches), " batch(es) of 150 from the seed on)"));
  }
  eng::set_revisit_symmetry_mutant_prune_ties(false);
  return t.done();
}
