// Engine self-test: a running check reports how far it is (options::on_progress).
//   MC-13 the share of the decision tree explored never goes down, stays in [0, 1], is 1 exactly
//         when an exhaustive exploration completes, and is below 1 when a budget stops it; random
//         mode reports samples taken / iterations.
// @verifies MC-13
#include "test_util.hpp"

#include <vector>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

/// IRIW with relaxed reads: an uneven decision tree of a few hundred executions.
struct iriw : scenario {
  S::atomic<int> x{0}, y{0};
  iriw() : scenario(4) {}
  void thread(unsigned i) override {
    if (i == 0) x.store(1, PILFER_SITE("t.x", relaxed));
    if (i == 1) y.store(1, PILFER_SITE("t.y", relaxed));
    if (i == 2) {
      (void)x.load(PILFER_SITE("t.a", relaxed));
      (void)y.load(PILFER_SITE("t.b", relaxed));
    }
    if (i == 3) {
      (void)y.load(PILFER_SITE("t.c", relaxed));
      (void)x.load(PILFER_SITE("t.d", relaxed));
    }
  }
};

struct reports {
  std::vector<progress> seen;
  bool monotone() const {
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (seen[i].explored < 0 || seen[i].explored > 1) return false;
      if (i > 0 && seen[i].explored < seen[i - 1].explored) return false;
    }
    return true;
  }
  std::string describe() const {
    std::string s = std::to_string(seen.size()) + " reports";
    if (!seen.empty()) s += ", last " + std::to_string(seen.back().explored) + " at " + std::to_string(seen.back().executions) + " executions";
    return s;
  }
};

options every_execution(reports& r) {
  options o;
  o.progress_interval = 0;
  o.on_progress = [&r](const progress& p) { r.seen.push_back(p); };
  return o;
}

}  // namespace

int main() {
  runner t;

  {
    reports rep;
    const result r = check<iriw>(every_execution(rep));
    t.expect(r.ok && r.complete && rep.seen.size() > 10 && rep.monotone(), "exhaustive: reports rise monotonically in [0, 1]",
             rep.describe());
    t.expect(!rep.seen.empty() && rep.seen.back().explored == 1.0 && rep.seen.back().executions == r.executions,
             "exhaustive: the last report says 1 and the final count", rep.describe());
    bool below_one = true;
    for (std::size_t i = 0; i + 1 < rep.seen.size(); ++i) below_one = below_one && rep.seen[i].explored < 1.0;
    t.expect(below_one, "exhaustive: no report before the end says 1", rep.describe());
  }
  {
    reports rep;
    options o = every_execution(rep);
    o.max_executions = 5;
    const result r = check<iriw>(o);
    t.expect(!r.complete && !rep.seen.empty() && rep.seen.back().explored < 1.0 && rep.monotone(),
             "a budget that stops the exploration leaves the share below 1", rep.describe());
  }
  {
    reports rep;
    options o = every_execution(rep);
    o.how = mode::random;
    o.seed = 7;
    o.iterations = 50;
    (void)check<iriw>(o);
    t.expect(!rep.seen.empty() && rep.seen.back().explored == 1.0 && rep.monotone() && rep.seen.size() >= 50,
             "random: samples taken / iterations, 1 at the end", rep.describe());
  }
  {
    reports rep;
    options o = every_execution(rep);
    o.progress_interval = 3600;
    (void)check<iriw>(o);
    t.expect(rep.seen.size() == 1 && rep.seen.back().explored == 1.0, "a long interval: one report, at the end", rep.describe());
  }
  return t.failures == 0 ? 0 : 1;
}
