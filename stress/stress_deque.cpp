// stress/stress_deque.cpp — one owner and three thieves hammer a deque built with capacity 1.
//
// Each round builds a fresh deque (and fresh thief-owned batch destinations) of initial capacity 1, so every
// round grows the buffer many times while thieves read it and then destroys it with the retired buffers
// (growth + reclamation under TSan). The owner draws a random op mix (push, push burst, pop, pop burst) with a
// per-round bias; thieves draw steal() or steal_batch_and_pop(). Invariants, checked every round:
//   * exactly once: every pushed id is returned by exactly one pop/steal/batch (no loss, no duplicate);
//   * publication: before pushing id the owner writes a plain (non-atomic) stamp for it; whoever takes the id
//     reads the stamp and checks it — under TSan a missing happens-before edge is reported as a race;
//   * LIFO: a pop right after push(x) yields x or nothing; consecutive pops yield decreasing ids;
//   * FIFO: each thief's successive steals yield increasing ids; a batch keeps FIFO order (the returned item is
//     the oldest, the destination pops newest first) and moves at most `max` items;
//   * retry is reported separately from empty (counted; never carries a value);
//   * retired buffers stay within the geometric bound log2(capacity).
// --topology star (default): the three thieves steal only from the owner and drain each batch at once, which
// pins down batch order exactly. --topology chain: see thief_chain() below.
// Usage: stress_deque [--impl chase_lev|mutex] [--topology star|chain] [--seconds N] [--iterations ROUNDS] [--seed N]
#include <pilfer/deque.hpp>
#include <pilfer/mutex_deque.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "stress_common.hpp"

namespace {

using pilfer::std_sync;
using namespace pilfer::stress;

constexpr unsigned thieves = 3;
constexpr std::size_t batch_max = 8;
constexpr std::uint64_t stamp_of(std::uint64_t id) { return id * pilfer::testing::golden_gamma ^ 0xA5A5A5A5u; }

struct thief_log {
  std::vector<std::uint64_t> got;
  std::uint64_t steals = 0, batches = 0, batch_items = 0, retries = 0, empties = 0;
};

struct totals {
  std::uint64_t rounds = 0, pushed = 0, popped = 0, stolen = 0, batches = 0, batch_items = 0, retries = 0;
  std::size_t max_capacity = 0, max_retired = 0;
};

template <class Deque>
void thief_run(typename Deque::stealer victim, const std_sync::atomic<bool>& owner_done, thief_log& log,
               const std::vector<std::uint64_t>& stamps, failures& fail, std::uint64_t seed, unsigned index) {
  auto check_stamp = [&](std::uint64_t v) {
    if (v < stamps.size() && stamps[v] != stamp_of(v)) fail.fail("DQ-3: taken item's data not published", v, stamps[v]);
  };
  rng r(seed, 100 + index);
  Deque dest(1);  // owned by this thief: the batch destination (also grows from capacity 1)
  std::int64_t last = -1;
  for (;;) {
    const bool batch = r.below(4) == 0;
    if (batch) {
      auto res = victim.steal_batch_and_pop(dest, batch_max);
      if (res.is_success()) {
        const auto v0 = res.value;
        if (static_cast<std::int64_t>(v0) <= last) fail.fail("DQ-2: batch head not increasing", v0, last);
        check_stamp(v0);
        log.got.push_back(v0);
        ++log.batches;
        // The destination holds the rest of the batch in FIFO order: popping gives newest first.
        std::uint64_t moved = 0;
        std::int64_t prev = -1;
        std::int64_t newest = static_cast<std::int64_t>(v0);
        while (auto v = dest.pop()) {
          ++moved;
          const auto sv = static_cast<std::int64_t>(*v);
          if (sv <= static_cast<std::int64_t>(v0)) fail.fail("DQ-6: batch item older than its head", *v, v0);
          if (prev >= 0 && sv >= prev) fail.fail("DQ-6: batch order not FIFO", *v, prev);
          if (prev < 0) newest = sv;
          prev = sv;
          check_stamp(*v);
          log.got.push_back(*v);
        }
        if (moved + 1 > batch_max) fail.fail("DQ-6: batch moved more than max", moved + 1, batch_max);
        log.batch_items += moved + 1;
        last = newest;
        continue;
      }
      if (res.is_retry()) {
        ++log.retries;
        continue;
      }
    } else {
      auto res = victim.steal();
      if (res.is_success()) {
        const auto v = static_cast<std::int64_t>(res.value);
        if (v <= last) fail.fail("DQ-2: steals not FIFO for one thief", res.value, last);
        last = v;
        check_stamp(res.value);
        log.got.push_back(res.value);
        ++log.steals;
        continue;
      }
      if (res.is_retry()) {
        ++log.retries;
        continue;
      }
    }
    ++log.empties;
    // Empty: stop once the owner has drained and announced it; its final pop saw the deque empty.
    if (owner_done.load(PILFER_SITE("stress.done", acquire))) {
      auto res = victim.steal();
      if (res.is_success()) fail.fail("DQ-3: item left after the owner drained", res.value);
      if (res.is_empty()) break;
    }
    std_sync::spin_hint();
  }
}

// Pool-like topology (--topology chain): each thief owns a deque (capacity 1) that it fills by batch steals and
// pops from gradually, while the other thieves steal from it too — a deque whose owner is itself a thief, as in
// a work-stealing pool. Checks: exactly-once and publication overall, and each thief's takes from the main owner
// increase (DQ-2). A thief's own deque holds batches from several victims, so its contents are not sorted and
// no order is checked for it (the star topology checks LIFO and batch order exactly).
template <class Deque>
void thief_chain(unsigned index, std::vector<typename Deque::stealer> victims, Deque& own,
                 const std_sync::atomic<bool>& owner_done, thief_log& log, const std::vector<std::uint64_t>& stamps,
                 failures& fail, std::uint64_t seed) {
  rng r(seed, 300 + index);
  std::vector<std::int64_t> last(victims.size(), -1);  // victims[0] is the main owner
  auto take = [&](std::uint64_t v) {
    if (v < stamps.size() && stamps[v] != stamp_of(v)) fail.fail("DQ-3: taken item's data not published", v, stamps[v]);
    log.got.push_back(v);
  };
  for (;;) {
    if (!own.empty() && r.below(2) == 0) {
      if (auto v = own.pop()) take(*v);
      continue;
    }
    const auto k = r.below(4) == 0 ? 1 + r.below(victims.size() - 1) : 0;
    if (r.below(3) == 0) {
      auto res = victims[k].steal_batch_and_pop(own, batch_max);
      if (res.is_success()) {
        if (k == 0 && static_cast<std::int64_t>(res.value) <= last[0]) fail.fail("DQ-2: batch head not increasing", res.value, last[0]);
        last[k] = static_cast<std::int64_t>(res.value);
        ++log.batches;
        take(res.value);
        continue;
      }
      if (res.is_retry()) {
        ++log.retries;
        continue;
      }
    } else {
      auto res = victims[k].steal();
      if (res.is_success()) {
        if (k == 0 && static_cast<std::int64_t>(res.value) <= last[0]) fail.fail("DQ-2: steals from the owner not FIFO", res.value, last[0]);
        last[k] = static_cast<std::int64_t>(res.value);
        ++log.steals;
        take(res.value);
        continue;
      }
      if (res.is_retry()) {
        ++log.retries;
        continue;
      }
    }
    ++log.empties;
    // Leave once the owner has drained and announced it and our own deque is empty; items still in another
    // thief's deque are that thief's to pop.
    if (k == 0 && own.empty() && owner_done.load(PILFER_SITE("stress.done", acquire))) {
      auto res = victims[0].steal();
      if (res.is_success()) fail.fail("DQ-3: item left after the owner drained", res.value);
      if (res.is_empty()) break;
    }
    std_sync::spin_hint();
  }
}

template <class Deque>
void round(const options& o, bool chain, std::uint64_t round_no, std::uint64_t items, totals& t, failures& fail) {
  Deque dq(1);
  std_sync::atomic<bool> owner_done{false};
  std::vector<std::uint64_t> stamps(items, 0);  // written by the owner just before each push
  std::array<thief_log, thieves> logs;
  std::array<std_sync::thread, thieves> ts;
  std::vector<std::unique_ptr<Deque>> own;  // chain topology: each thief's deque
  const std::uint64_t seed = round_seed(o.seed, round_no);
  if (chain) {
    for (unsigned i = 0; i < thieves; ++i) own.push_back(std::make_unique<Deque>(1));
    for (unsigned i = 0; i < thieves; ++i) {
      std::vector<typename Deque::stealer> victims{dq.get_stealer()};
      for (unsigned j = 0; j < thieves; ++j)
        if (j != i) victims.push_back(own[j]->get_stealer());
      ts[i] = std_sync::thread([&, i, victims] {
        thief_chain<Deque>(i, victims, *own[i], owner_done, logs[i], stamps, fail, seed);
      });
    }
  } else {
    for (unsigned i = 0; i < thieves; ++i) {
      ts[i] = std_sync::thread([&, i, s = dq.get_stealer()] { thief_run<Deque>(s, owner_done, logs[i], stamps, fail, seed, i); });
    }
  }

  rng r(seed, 0);
  // bias: 0 = push-heavy (deep deque, growth), 1 = balanced, 2 = pop-heavy (fights over the last item)
  const unsigned bias = static_cast<unsigned>(r.below(3));
  const unsigned push_pct = bias == 0 ? 70 : bias == 1 ? 52 : 40;
  std::vector<std::uint64_t> popped;
  std::uint64_t next = 0;
  std::size_t max_cap = 0;
  bool last_was_push = false;
  std::uint64_t last_pushed = 0;
  std::int64_t last_pop = -1;
  auto do_pop = [&] {
    auto v = dq.pop();
    if (v) {
      if (last_was_push && *v != last_pushed) fail.fail("DQ-1: pop after push(x) returned another item", *v, last_pushed);
      if (!last_was_push && last_pop >= 0 && static_cast<std::int64_t>(*v) >= last_pop)
        fail.fail("DQ-1: consecutive pops not LIFO", *v, last_pop);
      last_pop = static_cast<std::int64_t>(*v);
      popped.push_back(*v);
    } else {
      last_pop = -1;
    }
    last_was_push = false;
  };
  auto do_push = [&] {
    stamps[next] = stamp_of(next);
    dq.push(next);
    last_pushed = next++;
    last_was_push = true;
  };
  while (next < items) {
    const auto x = r.below(100);
    if (x < push_pct - 5) {
      do_push();
    } else if (x < push_pct) {
      for (auto k = 1 + r.below(64); k > 0 && next < items; --k) do_push();
    } else if (x < 95) {
      do_pop();
    } else {
      for (auto k = 1 + r.below(16); k > 0; --k) do_pop();
    }
    if constexpr (requires { dq.capacity(); }) max_cap = std::max(max_cap, dq.capacity());
  }
  while (true) {
    auto v = dq.pop();
    if (!v) break;
    popped.push_back(*v);
  }
  owner_done.store(true, PILFER_SITE("stress.done", release));
  for (auto& th : ts) th.join();
  for (auto& d : own)
    if (!d->empty()) fail.fail("DQ-3: a thief's deque not drained", d->size());

  // Exactly once over the owner's pops and every thief's take.
  std::vector<std::uint8_t> seen(items, 0);
  auto mark = [&](std::uint64_t v) {
    if (v >= items) {
      fail.fail("DQ-3: value never pushed", v);
      return;
    }
    if (++seen[v] == 2) fail.fail("DQ-3: duplicate", v);
  };
  for (auto v : popped) mark(v);
  std::uint64_t stolen = 0;
  for (auto& l : logs) {
    for (auto v : l.got) mark(v);
    stolen += l.got.size();
    t.batches += l.batches;
    t.batch_items += l.batch_items;
    t.retries += l.retries;
  }
  for (std::uint64_t v = 0; v < items; ++v)
    if (seen[v] == 0) fail.fail("DQ-3: lost item", v);
  if (popped.size() + stolen != items) fail.fail("DQ-3: count mismatch", popped.size() + stolen, items);

  if constexpr (requires { dq.retired_buffers(); }) {
    const auto retired = dq.retired_buffers();
    std::size_t doublings = 0;
    for (std::size_t c = max_cap; c > 1; c >>= 1) ++doublings;
    if (retired > doublings) fail.fail("DQ-4: more retired buffers than doublings", retired, doublings);
    t.max_retired = std::max(t.max_retired, retired);
  }
  t.max_capacity = std::max(t.max_capacity, max_cap);
  t.rounds += 1;
  progress(items);
  t.pushed += items;
  t.popped += popped.size();
  t.stolen += stolen;
}

template <class Deque>
int run(const options& o, bool chain, const char* name) {
  chaos_control::configure(o.chaos, o.seed);
  watchdog wd(name, o.watchdog, o.seed);  // a round that never ends (a lost item a thief spins for) fails here
  failures fail;
  totals t;
  deadline d(o.seconds);
  rng sizes(o.seed, 7);
  for (std::uint64_t n = 0; !fail.any(); ++n) {
    if (o.iterations != 0 && n >= o.iterations) break;
    if (o.iterations == 0 && d.passed()) break;
    // Mostly mid-sized rounds; some tiny ones (start-up races) and some large ones (deep growth).
    const auto pick = sizes.below(10);
    const std::uint64_t items = pick == 0 ? 1 + sizes.below(16) : pick < 8 ? 2000 + sizes.below(6000) : 40000;
    round<Deque>(o, chain, n, items, t, fail);
  }
  char batches[96];
  if (chain) {  // batch sizes are not observable there: other thieves steal from the destination meanwhile
    std::snprintf(batches, sizeof batches, "batches=%llu", static_cast<unsigned long long>(t.batches));
  } else {
    std::snprintf(batches, sizeof batches, "batches=%llu moving %llu", static_cast<unsigned long long>(t.batches),
                  static_cast<unsigned long long>(t.batch_items));
  }
  std::printf("%s: rounds=%llu items=%llu popped=%llu stolen=%llu (%s) retries=%llu "
              "max_capacity=%zu max_retired=%zu elapsed=%.1fs\n",
              name, static_cast<unsigned long long>(t.rounds), static_cast<unsigned long long>(t.pushed),
              static_cast<unsigned long long>(t.popped), static_cast<unsigned long long>(t.stolen), batches,
              static_cast<unsigned long long>(t.retries), t.max_capacity, t.max_retired, d.elapsed());
  if (t.rounds == 0) fail.fail("no round ran");
  if (t.stolen == 0 && t.pushed > 100000) fail.fail("thieves never stole anything", t.pushed);
  return verdict(name, fail, o.seed);
}

/// The Chase–Lev deque with asymmetric fences (DQ-7): light pops, heavy steals (Linux membarrier).
template <class T>
struct asymmetric_deque : pilfer::basic_deque<T, chaos_sync> {
  explicit asymmetric_deque(std::size_t capacity) : pilfer::basic_deque<T, chaos_sync>(capacity, pilfer::deque_fences::asymmetric) {}
};

}  // namespace

// @verifies DQ-1 DQ-2 DQ-3 DQ-4 DQ-5 DQ-6 DQ-7
int main(int argc, char** argv) {
  const char* program = "stress_deque";
  std::string impl = "chase_lev";
  std::string topology = "star";
  // Peel off the program's own options before the common ones.
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!take_option(argc, argv, i, "--impl", impl, program) && !take_option(argc, argv, i, "--topology", topology, program))
      rest.push_back(argv[i]);
  }
  if (!one_of(impl, "chase_lev|chase_lev_asym|mutex")) {
    std::fprintf(stderr, "%s: unknown --impl '%s' (chase_lev|chase_lev_asym|mutex)\n", program, impl.c_str());
    return 2;
  }
  if (!one_of(topology, "star|chain")) {
    std::fprintf(stderr, "%s: unknown --topology '%s' (star|chain)\n", program, topology.c_str());
    return 2;
  }
  const auto o = parse(static_cast<int>(rest.size()), rest.data(), program, 5.0, "[--impl chase_lev|chase_lev_asym|mutex] [--topology star|chain] ");
  const bool chain = topology == "chain";
  if (impl == "chase_lev")
    return run<pilfer::basic_deque<std::uint64_t, chaos_sync>>(o, chain, chain ? "stress_deque[chase_lev,chain]" : "stress_deque[chase_lev]");
  if (impl == "chase_lev_asym") {
    if (!chaos_sync::asymmetric_fences()) {
      std::fprintf(stderr, "%s: asymmetric fences are not available here (Linux membarrier): FAIL\n", program);
      return 1;
    }
    return run<asymmetric_deque<std::uint64_t>>(o, chain, chain ? "stress_deque[chase_lev_asym,chain]" : "stress_deque[chase_lev_asym]");
  }
  if (impl == "mutex")
    return run<pilfer::basic_mutex_deque<std::uint64_t, chaos_sync>>(o, chain, chain ? "stress_deque[mutex,chain]" : "stress_deque[mutex]");
  return 2;  // unreachable: --impl was checked above
}
