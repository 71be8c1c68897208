// Engine self-test: shards of the revisit exploration (engine/revisit_shards.cpp).
//   MC-18 options::shard_index / shard_count split an exploration by revisits exactly: on random
//         programs (random_programs.hpp, with assume() and await, and with critical sections under
//         mutexes; PILFER_SEED=N replays a run, the seed is printed), on a WWmerge1-like litmus test
//         and on GenMC's clients (chase_lev, treiber_stack, ms_queue, qu, linuxrwlocks_loops,
//         ms_queue_t2_u2_r2), with n = 1, 2, 3, 5 shards (clients: 2, 3, 5), splitting at 1, 4
//         and 24 waiting scripts (options::shard_scripts; clients: 4, 24 and 1024, the default):
//         each shard completes its part, their complete and blocked executions, states and pruned
//         runs add up to the unsharded exploration's, their final graphs (canonical hashes, the
//         duplicate check's: engine::last_revisit_graphs) are pairwise disjoint and together the
//         unsharded exploration's, and so are their outcomes. The same (i, n) gives the same part
//         twice; shard i of 2 is shards i and i + 2 of 4 together (the frontier does not depend on
//         n). A mutant deal in which every shard also takes shard 0's first script is caught by
//         the disjointness check. estimate() still refuses shards ("cannot estimate: shards"). A
//         notify (unsupported by revisits) met only in a dealt script is a model error in that shard;
//         met before the split, every shard falls back to the DFS alike.
// @verifies MC-18
#include "../clients/client.hpp"
#include "../engine/exploration_mode.hpp"
#include "random_programs.hpp"
#include "test_util.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <memory>

#include <pilfer/testing/seed.hpp>

using namespace pilfer::model;
using namespace pilfer::model::test;
namespace eng = pilfer::model::engine;

namespace {

using hashes = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
using maker = std::function<std::unique_ptr<scenario>()>;

/// GenMC tests/correct/litmus/WWmerge1 with its registers recorded (as tests/semantics.cpp's).
struct wwmerge1 : scenario {
  S::atomic<int> x{0}, y{0};
  int ra = -1, rb = -1, rc = -1;
  wwmerge1() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      ra = x.load(PILFER_SITE("t.ra", acquire));
      rb = y.load(PILFER_SITE("t.rb", seq_cst));
    } else if (i == 1) {
      x.store(1, PILFER_SITE("t.x1", seq_cst));
      x.store(2, PILFER_SITE("t.x2", seq_cst));
    } else {
      y.store(1, PILFER_SITE("t.y", seq_cst));
      rc = x.load(PILFER_SITE("t.rc", seq_cst));
    }
  }
  void after() override { record({ra, rb, rc}); }
};

/// t1 notifies (which revisit mode does not support) only when its load reads `when`: in one of the
/// two programs only a script the shards deal reaches it.
template <int When>
struct notify_if : scenario {
  S::atomic<int> x{0};
  notify_if() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x", relaxed));
    } else if (x.load(PILFER_SITE("t.r", relaxed)) == When) {
      x.notify_one();
    }
  }
};

/// One revisit check: its result, outcomes and final graphs.
struct part {
  result r;
  outcome_set outs;
  eng::revisit_graphs graphs;
  eng::revisit_counts counts;
};

part explore(const maker& make, options o) {
  part p;
  o.exploration = exploration_mode::revisit;
  sink() = &p.outs;
  p.r = check(make, o);
  sink() = nullptr;
  p.counts = eng::last_revisit_counts();
  p.graphs = eng::last_revisit_graphs();
  return p;
}

part shard(const maker& make, options o, unsigned i, unsigned n, unsigned depth) {
  o.shard_index = i;
  o.shard_count = n;
  o.shard_scripts = depth;
  return explore(make, o);
}

hashes all_graphs(const part& p) {
  hashes h = p.graphs.complete;
  h.insert(h.end(), p.graphs.blocked.begin(), p.graphs.blocked.end());
  std::sort(h.begin(), h.end());
  return h;
}

/// What splitting one program into n shards gave.
struct split {
  bool complete = true;   // every shard complete, and a failure in one of them iff in the whole
  bool sums = true;       // executions, blocked, states and pruned add up to the whole's
  bool disjoint = true;   // no final graph in two shards
  bool covered = true;    // the shards' graphs and outcomes are the whole's
  unsigned busy = 0;      // shards with a final graph of their own
  std::string detail;
};

split check_split(const maker& make, const options& o, const part& whole, unsigned n, unsigned depth) {
  split s;
  std::size_t e = 0, b = 0, st = 0, pr = 0, total = 0;
  bool all_ok = true;  // (a failure is one shard's: the one whose part it is in)
  hashes all;
  outcome_set outs;
  for (unsigned i = 0; i < n; ++i) {
    const part p = shard(make, o, i, n, depth);
    s.complete = s.complete && p.r.complete;
    all_ok = all_ok && p.r.ok;
    e += p.r.executions;
    b += p.r.blocked;
    st += p.r.states;
    pr += p.r.pruned;
    const hashes h = all_graphs(p);
    total += h.size();
    if (!h.empty()) ++s.busy;
    all.insert(all.end(), h.begin(), h.end());
    outs.insert(p.outs.begin(), p.outs.end());
    s.detail += cat(" [", std::to_string(i), "/", std::to_string(n), ": ", p.r.summary(), " other_shards=",
                    std::to_string(p.r.other_shards), "]");
  }
  s.complete = s.complete && all_ok == whole.r.ok;
  std::sort(all.begin(), all.end());
  s.sums = e == whole.r.executions && b == whole.r.blocked && st == whole.r.states && pr == whole.r.pruned;
  s.disjoint = std::adjacent_find(all.begin(), all.end()) == all.end();
  all.erase(std::unique(all.begin(), all.end()), all.end());
  s.covered = all == all_graphs(whole) && outs == whole.outs;
  s.detail = cat("depth ", std::to_string(depth), ": whole [", whole.r.summary(), "] ", std::to_string(total),
                 " shard graphs, ", std::to_string(all.size()), " distinct, whole ", std::to_string(all_graphs(whole).size()),
                 s.detail);
  return s;
}

/// What all the splits of a set of programs gave.
struct tally {
  int programs = 0, skipped = 0;  // skipped: the whole exploration repeats a graph (hashes cannot tell shards apart)
  int bad_complete = 0, bad_sums = 0, bad_disjoint = 0, bad_covered = 0;
  int splits = 0, spread = 0;  // splits made; of them, with final graphs in two shards or more
  std::string first_bad;
};

std::string show(const tally& c) {
  return cat(std::to_string(c.programs), " programs (", std::to_string(c.skipped), " skipped: repeats), ", std::to_string(c.splits),
             " splits (", std::to_string(c.spread), " spread over 2+ shards); incomplete ", std::to_string(c.bad_complete),
             ", sums ", std::to_string(c.bad_sums), ", overlapping ", std::to_string(c.bad_disjoint), ", not covering ",
             std::to_string(c.bad_covered), c.first_bad.empty() ? "" : "; first: ", c.first_bad);
}

void split_all(tally& c, const std::string& name, const maker& make, const options& o, const std::vector<unsigned>& ns,
               const std::vector<unsigned>& depths) {
  ++c.programs;
  const part whole = explore(make, o);
  if (whole.counts.duplicates != 0 || !whole.r.complete) {
    ++c.skipped;
    return;
  }
  for (const unsigned depth : depths) {
    for (const unsigned n : ns) {
      const split s = check_split(make, o, whole, n, depth);
      ++c.splits;
      if (s.busy >= 2) ++c.spread;
      const bool bad = !s.complete || !s.sums || !s.disjoint || !s.covered;
      c.bad_complete += s.complete ? 0 : 1;
      c.bad_sums += s.sums ? 0 : 1;
      c.bad_disjoint += s.disjoint ? 0 : 1;
      c.bad_covered += s.covered ? 0 : 1;
      if (bad && c.first_bad.empty()) c.first_bad = cat(name, " n=", std::to_string(n), " ", s.detail);
    }
  }
}

bool clean(const tally& c) { return c.bad_complete == 0 && c.bad_sums == 0 && c.bad_disjoint == 0 && c.bad_covered == 0; }

options random_options(int i) {
  options o;
  o.symmetry = false;
  o.stop_at_first_race = false;
  o.stop_on_failure = false;
  if (i % 7 == 6) o.model = memory_model::rc11;
  return o;
}

tally random_programs(std::uint64_t seed, int count, bool mutexes, const std::vector<unsigned>& ns,
                      const std::vector<unsigned>& depths) {
  std::mt19937_64 rng(seed);
  tally c;
  for (int i = 0; i < count; ++i) {
    program p = random_program_for(rng, mutexes);
    current = &p;
    split_all(c, cat("program ", std::to_string(i), " (seed ", std::to_string(seed), "): ", describe(p)),
              [] { return std::make_unique<random_program>(); }, random_options(i), ns, depths);
  }
  current = nullptr;
  return c;
}

}  // namespace

int main() {
  runner t;
  // every check below remembers its final graphs (last_revisit_graphs)
  eng::set_revisit_duplicate_check(true);
  const std::vector<unsigned> ns{1, 2, 3, 5}, depths{1, 4, 24};

  {  // WWmerge1: 17 graphs (the DFS's shards explored 13, 17 and 17 of them)
    tally c;
    split_all(c, "WWmerge1", [] { return std::make_unique<wwmerge1>(); }, options{}, ns, depths);
    t.expect(clean(c) && c.spread > 0, "WWmerge1: the shards' graphs are disjoint, add up to the whole and cover it", show(c));
    const part whole = explore([] { return std::make_unique<wwmerge1>(); }, options{});
    std::string parts;
    for (unsigned i = 0; i < 3; ++i) {
      const part p = shard([] { return std::make_unique<wwmerge1>(); }, options{}, i, 3, 4);
      parts += cat(i ? ", " : "", std::to_string(p.r.executions));
    }
    std::printf("WWmerge1 by revisits: %zu graphs; three shards (shard_scripts 4): %s\n", whole.r.executions, parts.c_str());
  }

  const std::uint64_t seed = pilfer::testing::test_seed();
  {
    const tally c = random_programs(seed, 60, false, ns, depths);
    t.expect(clean(c) && c.spread > 0,
             "random programs: n = 1, 2, 3, 5 shards add up to the whole, their graphs disjoint and covering it", show(c));
  }
  {
    const tally c = random_programs(seed + 1, 30, true, ns, depths);
    t.expect(clean(c) && c.spread > 0,
             "random programs with mutexes: n = 1, 2, 3, 5 shards add up to the whole, their graphs disjoint and covering it",
             show(c));
  }

  {  // GenMC's clients
    namespace cl = pilfer::model::clients;
    std::vector<cl::client> clients{cl::chase_lev_client(), cl::treiber_stack_client(), cl::ms_queue_client(), cl::qu_client(),
                                    cl::linuxrwlocks_loops_client()};
    for (cl::client& v : cl::ms_queue_variant_clients())
      if (v.name == "ms_queue_t2_u2_r2") clients.push_back(std::move(v));
    for (const cl::client& k : clients) {
      tally c;
      split_all(c, k.name, k.make, k.opts, {2, 3, 5}, {4, 24, 1024});
      t.expect(clean(c) && c.skipped == 0 && c.spread > 0,
               cat(k.name, ": 2, 3, 5 shards add up to the whole, their graphs disjoint and covering it"), show(c));
    }
  }

  {  // the same (i, n), the same part; shard i of 2 = shards i and i + 2 of 4 (one frontier for every n)
    std::mt19937_64 rng(seed);
    int same = 0, nested = 0, tried = 0;
    for (int i = 0; i < 20; ++i) {
      program p = random_program_for(rng, false);
      current = &p;
      const maker make = [] { return std::make_unique<random_program>(); };
      const options o = random_options(i);
      ++tried;
      const part a = shard(make, o, 1, 3, 2), b = shard(make, o, 1, 3, 2);
      if (all_graphs(a) == all_graphs(b) && a.r.executions == b.r.executions && a.r.blocked == b.r.blocked) ++same;
      bool ok = true;
      for (unsigned k = 0; k < 2; ++k) {
        hashes two = all_graphs(shard(make, o, k, 2, 3));
        hashes four = all_graphs(shard(make, o, k, 4, 3));
        const hashes more = all_graphs(shard(make, o, k + 2, 4, 3));
        four.insert(four.end(), more.begin(), more.end());
        std::sort(four.begin(), four.end());
        ok = ok && two == four;
      }
      if (ok) ++nested;
    }
    current = nullptr;
    t.expect(same == tried, "the same shard twice: the same graphs", cat(std::to_string(same), " of ", std::to_string(tried)));
    t.expect(nested == tried, "shard i of 2 is shards i and i + 2 of 4 together",
             cat(std::to_string(nested), " of ", std::to_string(tried)));
  }

  {  // what revisit mode does not support, met after the split: a model error, never one shard by the DFS
    int after = 0, alike = 0;
    std::string seen;
    const auto variant = [&](const maker& make) {
      options o;
      o.exploration = exploration_mode::revisit;
      o.shard_count = 2;
      o.shard_scripts = 1;
      const result a = (o.shard_index = 0, check(make, o));
      const result b = (o.shard_index = 1, check(make, o));
      const auto split_error = [](const result& r) {
        return !r.ok && r.kind == "model error" && r.message.find("cannot fall back") != std::string::npos;
      };
      if (split_error(a) != split_error(b)) ++after;  // the shard whose script met it, alone
      else if (a.ok && b.ok && a.executions + b.executions == 2) ++alike;  // met before the split: both by the DFS
      seen += cat("[", a.summary(), " ", a.message, "] [", b.summary(), " ", b.message, "] ");
    };
    variant([] { return std::make_unique<notify_if<0>>(); });
    variant([] { return std::make_unique<notify_if<1>>(); });
    t.expect(after == 1 && alike == 1,
             "notify met after the split: that shard's check is a model error; met before it, every shard falls back alike",
             seen);
  }

  {  // estimate() does not split by shards
    options o;
    o.shard_count = 2;
    const estimate_result est = estimate([] { return std::make_unique<wwmerge1>(); }, o, 10);
    t.expect(!est.ok && est.message.find("shards") != std::string::npos, "estimate() with shards: cannot estimate: shards",
             est.message);
  }

  {  // the mutant deal: every shard also takes the frontier's first script (shard 0's)
    eng::set_revisit_shard_mutant_overlap(true);
    const tally c = random_programs(seed, 60, false, {2, 3}, {1, 4});
    eng::set_revisit_shard_mutant_overlap(false);
    t.expect(c.bad_disjoint > 0, "a deal that gives two shards the same script is caught (overlapping graphs)", show(c));
  }
  return t.done();
}
