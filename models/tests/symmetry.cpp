// Engine self-test: symmetry reduction (scenario::symmetric, options::symmetry).
//   MC-15 Threads declared interchangeable are explored up to a permutation of their roles: the
//         outcomes, verdicts and failures are those of the full exploration, the executions and
//         states fewer; a malformed or changing declaration is a "model error".
// @verifies MC-15
//
// Random programs (PILFER_SEED=N replays a run; the seed is printed): k threads run one random
// body, another thread a second one, over two atomic locations (loads, stores, fetch_adds, CASes,
// fences, a child thread that stores and is joined, a location the thread makes and shares through
// an atomic); every program is checked with symmetry on and off and must give the same outcome set
// and verdict, with no more executions.
#include "random_programs.hpp"
#include "test_util.hpp"

#include <pilfer/testing/seed.hpp>

#include <algorithm>
#include <array>
#include <random>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

/// n threads each add 1 to a counter: every order of the RMWs is one relabeling of another.
struct counter : scenario {
  S::atomic<int> x{0};
  explicit counter(unsigned n) : scenario(n) { symmetric(0, n); }
  void thread(unsigned) override { x.fetch_add(1, PILFER_SITE("t.add", relaxed)); }
  void after() override {
    const int v = x.load(PILFER_SITE("t.final", relaxed));
    PILFER_MODEL_ASSERT(v == static_cast<int>(threads()));
    record({v});
  }
};

/// Two threads increment with a load and a store: the lost update (1) must still be found.
struct lost_update : scenario {
  S::atomic<int> x{0};
  bool assert_two;
  explicit lost_update(bool a) : scenario(2), assert_two(a) { symmetric(0, 2); }
  void thread(unsigned) override {
    const int v = x.load(PILFER_SITE("t.load", relaxed));
    x.store(v + 1, PILFER_SITE("t.store", relaxed));
  }
  void after() override {
    const int v = x.load(PILFER_SITE("t.final", relaxed));
    if (assert_two) PILFER_MODEL_ASSERT(v == 2);
    record({v});
  }
};

/// Two threads draw a random number: the same sequence for both, with symmetry on or off.
struct draws : scenario {
  int r[2] = {-1, -1};
  draws() : scenario(2) { symmetric(0, 2); }
  void thread(unsigned i) override { r[i] = static_cast<int>(S::random(1000)); }
  void after() override { record({std::min(r[0], r[1]), std::max(r[0], r[1])}); }
};

/// Each thread publishes with a release store and reads the flag back: whether it read its own
/// store or the other's decides whether the other's plain write happens-before its read. Hashing a
/// thread by its group instead of by the permutation would merge the two and miss the race.
struct own_or_other : scenario {
  S::atomic<int> flag{0};
  S::cell<int> data{0};
  S::atomic<int> writer{0};
  own_or_other() : scenario(2) { symmetric(0, 2); }
  void thread(unsigned) override {
    if (writer.fetch_add(1, PILFER_SITE("t.claim", relaxed)) == 0) data.write() = 1;  // the first one writes
    flag.store(1, PILFER_SITE("t.publish", release));
    if (flag.load(PILFER_SITE("t.read_flag", acquire)) == 1) (void)data.read();
  }
};

/// A malformed declaration, or one that changes between executions.
struct declares : scenario {
  int how_;
  explicit declares(int how) : scenario(3), how_(how) {
    if (how == 0) symmetric(1, 3);  // beyond threads()
    if (how == 1) {
      symmetric(0, 2);
      symmetric(1, 2);  // overlaps
    }
    if (how == 2) symmetric(0, 0);  // empty
    if (how == 3 && current_execution_index() > 0) symmetric(0, 2);
    if (how == 5) symmetric(1, ~0u);  // a range far beyond threads(): an error, not 4 billion bodies
    if (how == 6) symmetric(current_execution_index() % 2 ? std::vector<unsigned>{0, 1} : std::vector<unsigned>{1, 0});
  }
  void before() override {
    if (how_ == 4) symmetric(0, 2);  // too late: the threads' labels are fixed when they start
  }
  S::atomic<int> x{0};
  void thread(unsigned i) override { x.store(static_cast<int>(i), PILFER_SITE("t.store", relaxed)); }
};

}  // namespace

int main() {
  runner t;
  result on, off;
  options no;
  no.symmetry = false;

  for (unsigned n : {2u, 3u}) {
    on = check([n] { return std::make_unique<counter>(n); });
    off = check([n] { return std::make_unique<counter>(n); }, no);
    t.expect(on.ok && off.ok && on.complete && on.executions == 1 && off.executions == (n == 2 ? 2u : 6u),
             cat(std::to_string(n), " threads adding 1: every order of the RMWs is one execution up to symmetry"),
             cat("on [", on.summary(), "] off [", off.summary(), "]"));
  }

  outcome_set a;
  {
    outcome_set s;
    sink() = &s;
    on = check<lost_update>({}, false);
    off = check<lost_update>(no, false);
    sink() = nullptr;
    a = s;
  }
  t.expect(a == outcome_set{{1}, {2}} && on.ok && on.executions <= off.executions,
           "the lost update is still reached with symmetry", cat(show(a), " on [", on.summary(), "] off [", off.summary(), "]"));
  on = check<lost_update>({}, true);
  t.expect_failure("asserting no lost update still fails with symmetry", on, "assertion");

  on = check<own_or_other>();
  t.expect_failure("reading its own release store or the other's: the race is found with symmetry", on, "data race");

  for (int how = 0; how < 3; ++how) {
    on = check([how] { return std::make_unique<declares>(how); });
    t.expect_failure(cat("a malformed declaration is a model error (", std::to_string(how), ")"), on, "model error");
    t.expect(on.message.find("symmetric(") != std::string::npos, "the message names the declaration", on.message);
  }
  on = check([] { return std::make_unique<declares>(3); });
  t.expect_failure("a declaration that changes between executions is a model error", on, "model error");
  on = check([] { return std::make_unique<declares>(4); });
  t.expect_failure("a declaration made in before() is a model error", on, "model error");
  t.expect(on.message.find("constructor") != std::string::npos, "the message says where to declare", on.message);
  on = check([] { return std::make_unique<declares>(5); });
  t.expect_failure("symmetric(1, UINT_MAX) is a model error", on, "model error");
  t.expect(on.message.size() < 200, "... with a short message", on.message);
  on = check([] { return std::make_unique<declares>(6); });
  t.expect_ok("the same group listed in another order is the same declaration", on);
  {
    outcome_set so, sn;
    sink() = &so;
    on = check<draws>();
    sink() = &sn;
    off = check<draws>(no);
    sink() = nullptr;
    t.expect(so == sn && so.size() == 1 && (*so.begin())[0] == (*so.begin())[1],
             "random(): the threads of a group draw the same sequence, with symmetry on or off",
             cat(show(so), " ", show(sn)));
  }

  // the differential run
  const std::uint64_t seed = pilfer::testing::test_seed();
  std::mt19937_64 rng(seed);
  int mismatches = 0, reduced = 0;
  std::size_t executions_on = 0, executions_off = 0;
  constexpr int programs = 400;
  for (int i = 0; i < programs; ++i) {
    program p;
    p.symmetric_threads = 2 + static_cast<unsigned>(rng() % 2);
    p.body = random_body(rng, 1 + static_cast<unsigned>(rng() % (p.symmetric_threads == 2 ? 3 : 2)));
    if (rng() % 2) p.other = random_body(rng, 1 + static_cast<unsigned>(rng() % 2));
    p.other_at = static_cast<unsigned>(rng() % (p.symmetric_threads + 1));
    current = &p;
    options o, n;
    n.symmetry = false;
    if (i % 5 == 4) o.preemption_bound = n.preemption_bound = static_cast<unsigned>(rng() % 3);
    if (i % 7 == 6) o.model = n.model = memory_model::rc11;
    o.stop_at_first_race = n.stop_at_first_race = false;
    outcome_set so, sn;
    sink() = &so;
    on = check<random_program>(o);
    sink() = &sn;
    off = check<random_program>(n);
    sink() = nullptr;
    const bool same = so == sn && on.ok == off.ok && on.kind == off.kind && on.racy() == off.racy() &&
                      on.complete && off.complete && on.executions <= off.executions;
    executions_on += on.executions;
    executions_off += off.executions;
    if (on.executions < off.executions) ++reduced;
    if (!same && ++mismatches <= 3)
      t.expect(false, cat("program ", std::to_string(i), " (seed ", std::to_string(seed), "): ", describe(p)),
               cat("on [", on.summary(), "] ", show(so), "\noff [", off.summary(), "] ", show(sn), "\n", on.message,
                   off.message));
  }
  t.expect(mismatches == 0,
           cat(std::to_string(programs), " random programs: the same outcomes and verdicts with symmetry on and off"),
           cat(std::to_string(mismatches), " mismatches; executions ", std::to_string(executions_on), " on, ",
               std::to_string(executions_off), " off; fewer on ", std::to_string(reduced), " programs"));
  t.expect(reduced > programs / 4, "symmetry reduces the executions of most of them",
           cat(std::to_string(reduced), " of ", std::to_string(programs)));
  return t.done();
}
