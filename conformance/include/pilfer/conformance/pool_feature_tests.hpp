// pilfer/conformance/pool_feature_tests.hpp — black-box tests of the pool's user-facing features: topology-aware
// placement (POOL-13), typed result handles (POOL-17), priorities and affinity (POOL-15) and parallel loops
// (POOL-16). Included by pool_tests.hpp.
//
// Each feature is an optional adapter capability (adapters.hpp); an adapter without it gets "n/a". Every wait
// is bounded: a case that does not finish fails and its pool is leaked (pool_box::abandon), and state the
// pool's tasks touch is shared with them (shared_ptr), so a leaked pool never reaches into a finished frame.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

namespace detail {

/// A gate a task waits behind (bounded, so a failed case cannot hang the worker forever) and the flag that
/// says the task reached it.
struct gate {
  atomic<int> started{0}, open{0};
  void arrive_and_wait() {
    started.store(1, PILFER_SITE("conformance.gate", release));
    wait_until([&] { return open.load(PILFER_SITE("conformance.gate", acquire)) != 0; }, case_limit);
  }
  bool wait_started() {
    return wait_until([&] { return started.load(PILFER_SITE("conformance.gate", acquire)) != 0; }, case_limit);
  }
  void release() { open.store(1, PILFER_SITE("conformance.gate", release)); }
};

}  // namespace detail

// ------------------------------------------------------------------------------------------ POOL-17

/// POOL-17: typed result handles. (1) get() returns the result, and the task's plain (non-atomic) writes are
/// visible after get() and after ready() returned true; (2) ready() does not block and is false while the
/// task has not finished (it is started and held behind a gate); (3) the task's exception is rethrown by
/// get(); (4) get() from a task on a one-worker pool returns (it helps, POOL-11); (5) handles dropped at once:
/// each task still runs exactly once, and its closure is released (nothing leaks); the handle type is
/// move-only.
template <pool_adapter P>
verdict pool_result_handles(const run_config& cfg) {
  if constexpr (!pool_with_value_handles<P>) {
    return verdict::na("no typed result handles in the adapter");
  } else {
    using H = typename P::value_handle;
    if constexpr (std::is_copy_constructible_v<H> || std::is_copy_assignable_v<H>)
      return verdict::fail(cfg.seed, "the result handle type is copyable (SPEC: handles are move-only)");
    if constexpr (!std::is_move_constructible_v<H>) return verdict::fail(cfg.seed, "the result handle cannot be moved");
    constexpr int words = 16;
    struct payload {
      std::uint64_t w[words] = {};  // plain memory: its visibility is what the handle must order
    };
    rng g{cfg.seed};
    const int rounds = cfg.scaled(200);
    {
      detail::pool_box<P> pool(2);
      for (int round = 0; round < rounds; ++round) {
        auto data = std::make_shared<payload>();
        const std::uint64_t base = g.next() | 1;
        const bool poll_ready = g.below(2) == 0;
        H h = (*pool).submit_value([data, base]() -> value_t {
          for (int i = 0; i < words; ++i) data->w[i] = base + static_cast<std::uint64_t>(i);
          return 42;
        });
        if (poll_ready && !wait_until([&] { return h.ready(); }, detail::case_limit)) {
          pool.abandon();
          return verdict::fail(cfg.seed, "round " + std::to_string(round) + ": ready() never became true (5 s)");
        }
        const value_t v = h.get();
        if (v != 42)
          return verdict::fail(cfg.seed, "round " + std::to_string(round) + ": get() returned " + std::to_string(v) +
                                             ", the task returned 42");
        for (int i = 0; i < words; ++i)
          if (data->w[i] != base + static_cast<std::uint64_t>(i))
            return verdict::fail(cfg.seed, "round " + std::to_string(round) + ": after " +
                                               (poll_ready ? "ready() was true and " : "") +
                                               "get() returned, word " + std::to_string(i) +
                                               " of the task's plain writes was not visible");
      }
    }
    // (2) ready() is non-blocking and false until the task has finished.
    for (int round = 0; round < cfg.scaled(10); ++round) {
      detail::pool_box<P> pool(2);
      auto gt = std::make_shared<detail::gate>();
      H h = (*pool).submit_value([gt]() -> value_t {
        gt->arrive_and_wait();
        return 7;
      });
      if (!gt->wait_started()) {
        pool.abandon();
        return verdict::fail(cfg.seed, "a submitted task did not start within 5 s");
      }
      const bool early = h.ready();  // the task is held behind the gate: it has not finished
      gt->release();
      h.wait();
      const bool after = h.ready();
      const value_t v = h.get();
      if (early)
        return verdict::fail(cfg.seed, "ready() returned true while the task was still running (held behind a gate) — "
                                       "completion does not happen-before ready()");
      if (!after || v != 7)
        return verdict::fail(cfg.seed, "after wait(): ready() " + std::string(after ? "true" : "false") + ", get() " +
                                           std::to_string(v) + " (want true, 7)");
    }
    // (3) get() rethrows the task's exception.
    {
      detail::pool_box<P> pool(2);
      H h = (*pool).submit_value([]() -> value_t { throw std::runtime_error("pilfer-conformance-handle"); });
      try {
        (void)h.get();
        return verdict::fail(cfg.seed, "the task threw, get() returned normally");
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()) != "pilfer-conformance-handle")
          return verdict::fail(cfg.seed, std::string("get() rethrew a different message: ") + e.what());
      } catch (...) {
        return verdict::fail(cfg.seed, "get() threw an exception of another type than the task's");
      }
    }
    // (4) get() inside a task on one worker: the waiter must run the queued child itself.
    {
      detail::pool_box<P> pool(1);
      P* p = &*pool;
      auto done = std::make_shared<atomic<int>>(0);
      auto result = std::make_shared<atomic<value_t>>(0);
      (*pool).submit([p, done, result] {
        H child = p->submit_value([]() -> value_t { return 5; });
        result->store(child.get() + 1, PILFER_SITE("conformance.done", relaxed));
        done->store(1, PILFER_SITE("conformance.done", release));
      });
      if (!wait_until([&] { return done->load(PILFER_SITE("conformance.done", acquire)) != 0; }, detail::case_limit)) {
        pool.abandon();
        return verdict::fail(cfg.seed, "1 worker: a task's get() on a child it submitted did not return within 5 s");
      }
      if (result->load(PILFER_SITE("conformance.done", relaxed)) != 6)
        return verdict::fail(cfg.seed, "1 worker: a task's get() on its child returned a wrong value");
    }
    // (5) handles dropped at once: the tasks still run, exactly once, and their closures are released.
    {
      const int n = 100;
      detail::pool_box<P> pool(2);
      auto runs = std::make_shared<atomic<int>>(0);
      auto sentinel = std::make_shared<int>(0);
      for (int i = 0; i < n; ++i) {
        H h = (*pool).submit_value([runs, sentinel]() -> value_t {
          runs->fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
          return 1;
        });
      }
      (*pool).wait_idle();
      const int r = runs->load(PILFER_SITE("conformance.done", acquire));
      if (r != n)
        return verdict::fail(cfg.seed, std::to_string(n) + " tasks whose handles were dropped at once: " +
                                           std::to_string(r) + " ran by wait_idle()");
      // The closures hold copies of `sentinel`; the pool may release them just after a task's end.
      if (!wait_until([&] { return sentinel.use_count() == 1; }, std::chrono::milliseconds(2000)))
        return verdict::fail(cfg.seed, std::to_string(sentinel.use_count() - 1) + " of " + std::to_string(n) +
                                           " closures of tasks with dropped handles were never released (leak)");
      detail::quiet_for(std::chrono::milliseconds(20));  // a late duplicate run would show here
      if (runs->load(PILFER_SITE("conformance.done", acquire)) != n)
        return verdict::fail(cfg.seed, "a task whose handle was dropped ran more than once");
    }
    return verdict::pass(std::to_string(rounds) +
                         " get()/ready() rounds with plain writes; ready() false while running; exception; get() "
                         "inside a task on 1 worker; 100 dropped handles ran once, closures released");
  }
}

// ------------------------------------------------------------------------------------------ POOL-15

/// POOL-15: priorities and affinity. (a) One worker busy behind a gate, 10 normal tasks queued (from outside,
/// then spawned by the running task), then 1 high-priority task: when the running task ends, the
/// high-priority task runs next. (b) An affinity naming no worker is rejected with an exception and the task
/// never runs. (c) Two workers, worker k held behind a gate by a task with affinity k: none of 100 further
/// affinity-k tasks may run elsewhere meanwhile (nothing may steal them), and all run on worker k after.
template <pool_adapter P>
verdict pool_priority_affinity(const run_config& cfg) {
  if constexpr (!pool_with_task_options<P>) {
    return verdict::na("no task priorities / affinity in the adapter");
  } else {
    struct order_state {
      detail::gate gt;
      detail::order_log log{64};
      atomic<int> done{0};
    };
    const int normal = 10;
    for (const bool inside : {false, true}) {
      if (inside && !P::has_local_spawn) continue;
      for (int round = 0; round < cfg.scaled(10); ++round) {
        detail::pool_box<P> pool(1);
        P* p = &*pool;
        auto st = std::make_shared<order_state>();
        auto task = [st](int id) {
          return [st, id] {
            st->log.add(id);
            st->done.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
          };
        };
        (*pool).submit([st, p, inside, task] {
          if (inside) {
            for (int i = 1; i <= normal; ++i) p->spawn(task(i));
            p->submit_with(task(99), task_opts{true, {}});
          }
          st->gt.arrive_and_wait();
        });
        if (!st->gt.wait_started()) {
          pool.abandon();
          return verdict::fail(cfg.seed, "1 worker: the first task did not start within 5 s");
        }
        if (!inside) {
          for (int i = 1; i <= normal; ++i) (*pool).submit(task(i));
          (*pool).submit_with(task(99), task_opts{true, {}});
        }
        st->gt.release();
        if (!wait_until([&] { return st->done.load(PILFER_SITE("conformance.done", acquire)) == normal + 1; },
                        detail::case_limit)) {
          pool.abandon();
          return verdict::fail(cfg.seed, "1 worker: queued tasks did not all run within 5 s");
        }
        const auto got = st->log.snapshot();
        if (got.empty() || got.front() != 99)
          return verdict::fail(cfg.seed, std::string("1 worker busy; 10 normal tasks ") +
                                             (inside ? "spawned by the running task" : "submitted from outside") +
                                             " (1..10), then 1 high-priority task (99): they ran " + detail::show(got) +
                                             " — the high-priority task did not run next");
      }
    }
    // (b) an affinity that names no worker.
    {
      detail::pool_box<P> pool(2);
      auto ran = std::make_shared<atomic<int>>(0);
      bool threw = false;
      try {
        (*pool).submit_with([ran] { ran->store(1, PILFER_SITE("conformance.done", release)); }, task_opts{false, 2u});
      } catch (...) {
        threw = true;
      }
      (*pool).wait_idle();
      if (!threw || ran->load(PILFER_SITE("conformance.done", acquire)) != 0)
        return verdict::fail(cfg.seed, std::string("2 workers, a task with affinity 2: ") +
                                           (threw ? "" : "submission did not throw") +
                                           (ran->load(PILFER_SITE("conformance.done", acquire)) != 0 ? " and it ran" : ""));
    }
    // (c) hard affinity: never run (stolen) elsewhere, even while the affinity worker is busy.
    struct aff_state {
      detail::gate gt;
      atomic<int> ran{0}, elsewhere{0}, first_elsewhere{-1}, holder{-1};
    };
    const int n = 100;
    for (unsigned k : {1u, 0u}) {
      detail::pool_box<P> pool(2);
      P* p = &*pool;
      auto st = std::make_shared<aff_state>();
      (*pool).submit_with(
          [st, p] {
            const auto me = p->worker_index();
            st->holder.store(me ? static_cast<int>(*me) : -2, PILFER_SITE("conformance.flag", relaxed));
            st->gt.arrive_and_wait();
          },
          task_opts{false, k});
      if (!st->gt.wait_started()) {
        pool.abandon();
        return verdict::fail(cfg.seed, "2 workers: a task with affinity " + std::to_string(k) + " did not start in 5 s");
      }
      const int holder = st->holder.load(PILFER_SITE("conformance.flag", relaxed));
      for (int i = 0; i < n; ++i)
        (*pool).submit_with(
            [st, p, k] {
              const auto me = p->worker_index();
              if (!me || *me != k) {
                int none = -1;
                st->first_elsewhere.compare_exchange_strong(none, me ? static_cast<int>(*me) : -2,
                                                            PILFER_SITE("conformance.flag", relaxed),
                                                            PILFER_SITE("conformance.flag", relaxed));
                st->elsewhere.fetch_add(1, PILFER_SITE("conformance.done", relaxed));
              }
              st->ran.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
            },
            task_opts{false, k});
      // Worker k is held: nothing with affinity k may run now. Give an idle worker that would wrongly take
      // them a generous window (a correct pool just waits here).
      wait_until([&] { return st->ran.load(PILFER_SITE("conformance.done", acquire)) != 0; },
                 std::chrono::milliseconds(300));
      const int early = st->ran.load(PILFER_SITE("conformance.done", acquire));
      st->gt.release();
      if (!wait_until([&] { return st->ran.load(PILFER_SITE("conformance.done", acquire)) == n; }, detail::case_limit)) {
        pool.abandon();
        return verdict::fail(cfg.seed, "2 workers: " + std::to_string(n) + " tasks with affinity " + std::to_string(k) +
                                           " did not all run within 5 s");
      }
      const int wrong = st->elsewhere.load(PILFER_SITE("conformance.done", relaxed));
      std::ostringstream where;
      where << "2 workers, affinity " << k << ": ";
      if (holder != static_cast<int>(k))
        return verdict::fail(cfg.seed, where.str() + "the gate task ran on worker " + std::to_string(holder));
      if (early != 0 || wrong != 0)
        return verdict::fail(cfg.seed, where.str() + std::to_string(early) + " of " + std::to_string(n) +
                                           " tasks ran while worker " + std::to_string(k) + " was held, " +
                                           std::to_string(wrong) + " ran on another worker (first on " +
                                           std::to_string(st->first_elsewhere.load(PILFER_SITE("conformance.flag",
                                                                                               relaxed))) +
                                           ") — an affinity task was taken by a worker it does not name");
    }
    return verdict::pass("high priority ran next (1 worker, outside and spawned queues); affinity 2 of 2 workers "
                         "rejected; 2 x 100 affinity tasks ran only on their worker");
  }
}

// ------------------------------------------------------------------------------------------ POOL-16

/// POOL-16: parallel loops. (a) parallel_reduce with string concatenation (not commutative) over 0..999 equals
/// the sequential fold, for automatic and seeded grains; (b) a uniform loop of 1,000,000 trivial iterations
/// with grain 0 creates fewer than 10,000 tasks (adaptive chunking: the count depends on workers and steals,
/// not on n); (c) parallel_for calls f exactly once per index for n in {0, 1, 2, 7, 1,000,003} and an offset
/// range, with automatic and seeded grains. 4 workers; grains come from the seed.
template <pool_adapter P>
verdict pool_parallel_loops(const run_config& cfg) {
  if constexpr (!pool_with_parallel_loops<P>) {
    return verdict::na("no parallel loops in the adapter");
  } else {
    rng g{cfg.seed};
    detail::pool_box<P> pool(4);
    std::ostringstream what;
    // (a) non-commutative reduce.
    std::string want;
    for (int i = 0; i < 1000; ++i) want += std::to_string(i);
    for (int rep = 0; rep < cfg.scaled(6); ++rep) {
      const std::size_t grain = rep == 0 ? 0 : static_cast<std::size_t>(1 + g.below(rep % 2 ? 8 : 200));
      const std::string got = (*pool).parallel_reduce(
          0, 1000, std::string(), [](std::int64_t i) { return std::to_string(i); },
          [](std::string a, std::string b) { return a + b; }, grain);
      if (got != want) {
        std::size_t at = 0;
        while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
        return verdict::fail(cfg.seed, "parallel_reduce of to_string(i) by concatenation over [0, 1000), grain " +
                                           std::to_string(grain) + ": result differs from the sequential fold at "
                                           "character " + std::to_string(at) + " (got \"" + got.substr(at, 12) +
                                           "…\", want \"" + want.substr(at, 12) +
                                           "…\") — partial results were not combined in index order");
      }
    }
    what << "reduce(concat) over 0..999 = sequential fold; ";
    // (b) adaptive chunking.
    {
      const std::int64_t n = 1000000;
      const std::uint64_t bound = 10000;
      auto sink = std::make_shared<atomic<std::uint64_t>>(0);
      const std::uint64_t before = (*pool).tasks_created();
      (*pool).parallel_for(0, n, [sink](std::int64_t i) {
        if (i == 0) sink->fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
      }, 0);
      const std::uint64_t created = (*pool).tasks_created() - before;
      if (created >= bound)
        return verdict::fail(cfg.seed, "parallel_for over 1,000,000 trivial iterations, grain 0, 4 workers: " +
                                           std::to_string(created) + " tasks created (bound " + std::to_string(bound) +
                                           ") — chunking is not adaptive");
      what << "1,000,000 iterations in " << created << " tasks (bound " << bound << "); ";
    }
    // (c) every index exactly once.
    struct range {
      std::int64_t b, e;
    };
    for (const range r : {range{0, 0}, range{5, 5}, range{0, 1}, range{0, 2}, range{0, 7}, range{-5, 2},
                          range{0, 1000003}}) {
      for (const bool automatic : {true, false}) {
        const std::size_t grain = automatic ? 0 : static_cast<std::size_t>(1 + g.below(r.e - r.b > 100 ? 5000 : 3));
        const std::size_t len = static_cast<std::size_t>(std::max<std::int64_t>(0, r.e - r.b));
        std::shared_ptr<atomic<std::uint8_t>[]> hits(new atomic<std::uint8_t>[len + 1]);
        for (std::size_t i = 0; i < len; ++i) hits[i].store(0, PILFER_SITE("conformance.hits", relaxed));
        auto calls = std::make_shared<atomic<std::int64_t>>(0);
        auto outside = std::make_shared<atomic<std::int64_t>>(0);
        const std::int64_t b = r.b, e = r.e;
        (*pool).parallel_for(r.b, r.e, [hits, calls, outside, b, e](std::int64_t i) {
          calls->fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
          if (i < b || i >= e) {
            outside->fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
            return;
          }
          hits[static_cast<std::size_t>(i - b)].fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
        }, grain);
        std::ostringstream where;
        where << "parallel_for over [" << r.b << ", " << r.e << "), grain " << grain << ", 4 workers: ";
        if (outside->load(PILFER_SITE("conformance.hits", relaxed)) != 0)
          return verdict::fail(cfg.seed, where.str() + "f was called with an index outside the range");
        const std::int64_t c = calls->load(PILFER_SITE("conformance.hits", relaxed));
        for (std::size_t i = 0; i < len; ++i) {
          const int h = hits[i].load(PILFER_SITE("conformance.hits", relaxed));
          if (h != 1)
            return verdict::fail(cfg.seed, where.str() + "index " + std::to_string(r.b + static_cast<std::int64_t>(i)) +
                                               " was called " + std::to_string(h) + " times by the time it returned");
        }
        if (c != static_cast<std::int64_t>(len))
          return verdict::fail(cfg.seed, where.str() + std::to_string(c) + " calls for " + std::to_string(len) +
                                             " indices");
      }
    }
    what << "parallel_for called each index once (n = 0, 1, 2, 7, 1,000,003, offset range; automatic and seeded grains)";
    return verdict::pass(what.str());
  }
}

// ------------------------------------------------------------------------------------------ POOL-13

/// POOL-13: topology-aware placement, on synthetic topologies (hwloc syntax; PU i of "node:N l3:L core:C pu:1" is
/// in cache group i / (C) and node i / (L*C), the depth-first numbering). (a) "node:2 core:4 pu:1", 8 workers:
/// one worker per core; 4 workers: spread 2 + 2 over the nodes. (b) For every worker of "node:2 core:4 pu:1" and
/// of "node:2 l3:2 core:2 pu:1" (8 workers): its victim groups hold every other worker once, each group is one
/// distance tier, and the tiers come nearest first (same cache, same node, the rest). (c) Pinned on this machine,
/// 2 workers run 200 tasks, and no two workers are pinned to the same core when there are enough cores.
template <pool_adapter P>
verdict pool_topology_placement(const run_config& cfg) {
  if constexpr (!pool_with_topology<P>) {
    return verdict::na("no topology-aware placement in the adapter");
  } else {
    struct shape {
      const char* desc;
      unsigned pus_per_cache, pus_per_node;
    };
    auto tier_name = [](int t) { return t == 0 ? "same cache" : t == 1 ? "same node" : "remote"; };
    // (a) one worker per core, spread over the nodes.
    {
      const placement_view v8 = P::placement_on("node:2 core:4 pu:1", 8);
      std::vector<unsigned> pus = v8.home_pu;
      std::sort(pus.begin(), pus.end());
      if (v8.home_pu.size() != 8 || std::adjacent_find(pus.begin(), pus.end()) != pus.end())
        return verdict::fail(cfg.seed, "\"node:2 core:4 pu:1\", 8 workers: home PUs " +
                                           detail::show(std::vector<int>(v8.home_pu.begin(), v8.home_pu.end())) +
                                           " are not one worker per core");
      const placement_view v4 = P::placement_on("node:2 core:4 pu:1", 4);
      unsigned on_node0 = 0;
      for (unsigned pu : v4.home_pu) on_node0 += pu / 4 == 0 ? 1 : 0;
      if (on_node0 != 2)
        return verdict::fail(cfg.seed, "\"node:2 core:4 pu:1\", 4 workers: home PUs " +
                                           detail::show(std::vector<int>(v4.home_pu.begin(), v4.home_pu.end())) +
                                           " put " + std::to_string(on_node0) +
                                           " workers on node 0 — not spread across the NUMA nodes");
    }
    // (b) victim order nearest first.
    for (const shape sh : {shape{"node:2 core:4 pu:1", 1, 4}, shape{"node:2 l3:2 core:2 pu:1", 2, 4}}) {
      const unsigned n = 8;
      const placement_view v = P::placement_on(sh.desc, n);
      for (unsigned w = 0; w < n; ++w) {
        const unsigned me = v.home_pu.at(w);
        auto tier = [&](unsigned x) {
          const unsigned pu = v.home_pu.at(x);
          return pu / sh.pus_per_cache == me / sh.pus_per_cache ? 0 : pu / sh.pus_per_node == me / sh.pus_per_node ? 1 : 2;
        };
        std::ostringstream order;
        order << sh.desc << "\", " << n << " workers, worker " << w << " (PU " << me << ") victim groups:";
        for (const auto& grp : v.victims.at(w)) {
          order << " {";
          for (std::size_t i = 0; i < grp.size(); ++i) order << (i ? "," : "") << grp[i] << ":" << tier_name(tier(grp[i]));
          order << "}";
        }
        std::vector<int> seen(n, 0);
        int last = -1;
        for (const auto& grp : v.victims.at(w)) {
          if (grp.empty()) continue;
          const int t = tier(grp.front());
          for (unsigned x : grp) {
            if (x >= n || x == w) return verdict::fail(cfg.seed, "\"" + order.str() + " — names worker " + std::to_string(x));
            ++seen[x];
            if (tier(x) != t)
              return verdict::fail(cfg.seed, "\"" + order.str() +
                                                 " — a group mixes distances (its order is random, so a farther "
                                                 "victim may come before a nearer one)");
          }
          if (t <= last)
            return verdict::fail(cfg.seed, "\"" + order.str() + " — not nearest first");
          last = t;
        }
        for (unsigned x = 0; x < n; ++x)
          if (x != w && seen[x] != 1)
            return verdict::fail(cfg.seed, "\"" + order.str() + " — worker " + std::to_string(x) + " appears " +
                                               std::to_string(seen[x]) + " times");
      }
    }
    // (c) pinned on this machine: tasks run normally, at most one worker per core.
    const unsigned workers = 2;
    const int tasks = 200;
    const pinned_view pv = P::run_pinned(workers, tasks);
    if (pv.tasks_ran != tasks)
      return verdict::fail(cfg.seed, "a pinned pool of 2 workers ran " + std::to_string(pv.tasks_ran) + " of " +
                                         std::to_string(tasks) + " tasks");
    int pinned = 0;
    if (pv.cores >= workers) {
      std::vector<int> cores;
      for (int c : pv.pinned_core)
        if (c >= 0) cores.push_back(c);
      pinned = static_cast<int>(cores.size());
      std::sort(cores.begin(), cores.end());
      if (std::adjacent_find(cores.begin(), cores.end()) != cores.end())
        return verdict::fail(cfg.seed, "a pinned pool of 2 workers on " + std::to_string(pv.cores) +
                                           " cores pinned two workers to one core " + detail::show(pv.pinned_core));
    }
    return verdict::pass("one worker per core, spread over 2 nodes; victim groups nearest first on 2 synthetic "
                         "topologies; pinned pool ran " + std::to_string(tasks) + " tasks (" + std::to_string(pinned) +
                         " of 2 workers pinned, " + std::to_string(pv.cores) + " cores)");
  }
}

/// Appends POOL-13 and POOL-15 … POOL-17 to a pool's requirement list (called by pool_requirements in suite.hpp).
template <pool_adapter P, class Tests>
void add_pool_feature_requirements(Tests& t) {
  // @verifies POOL-13
  t.push_back({"POOL-13", "topology-aware placement", [](const run_config& c) { return pool_topology_placement<P>(c); }});
  // @verifies POOL-15
  t.push_back({"POOL-15", "priorities and affinity", [](const run_config& c) { return pool_priority_affinity<P>(c); }});
  // @verifies POOL-16
  t.push_back({"POOL-16", "parallel loops, adaptive chunking", [](const run_config& c) { return pool_parallel_loops<P>(c); }});
  // @verifies POOL-17
  t.push_back({"POOL-17", "result handles", [](const run_config& c) { return pool_result_handles<P>(c); }});
}

}  // namespace pilfer::conformance
