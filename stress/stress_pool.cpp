// stress/stress_pool.cpp — the work-stealing pool under storms, nesting, parking races and shutdown races.
//
// Scenarios (--scenario NAME, or all in turn when omitted; each gets --seconds of randomised rounds):
//   spawn_storm          a random task tree (fan-out and depth drawn per round) grown by spawn() from inside
//                        tasks, while two outside threads submit more and a third reads stats() throughout:
//                        each node runs exactly once (POOL-9); afterwards the counters add up exactly
//                        (spawns from tasks were local pushes, outside ones injector pushes; POOL-14, POOL-5)
//                        and, while running, every worker's counters only grew.
//   parallel_loops       parallel_for / parallel_reduce over random ranges (empty and reversed included) and
//                        grains, from outside and nested inside another parallel_for: every index visited
//                        exactly once; the reduction, with an associative but non-commutative operator, equals
//                        the sequential fold (POOL-16).
//   fork_join            nested join()/task_group recursion (fib and a divide-and-conquer sum) on 1 and 2
//                        workers; results exact; on one worker the waits must help or it would deadlock (POOL-11).
//   submit_while_parking submit from outside after a random pause while workers search, back off and park;
//                        every task must finish within a bound (no lost wake-up, POOL-7); latency printed.
//   shutdown_race        outside threads submit while the main thread shuts the pool down (drain or cancel):
//                        every accepted task either ran exactly once or (cancel) reports cancelled, never both;
//                        submits after shutdown throw pool_closed (POOL-12, POOL-17).
// Every pool is a basic_pool<chaos_sync> (--chaos N: seeded yields/sleeps at about one in N atomic operations);
// a watchdog prints every worker's state (pool.snapshot()) and fails when no task completes for --watchdog s.
// Usage: stress_pool [--scenario NAME] [common options: --seconds --iterations --seed --chaos --workers
//        --oversubscribe --watchdog, see stress_common.hpp]
#include <pilfer/pool.hpp>
#include <pilfer/testing/start_line.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stress_common.hpp"

namespace {

using pilfer::std_sync;
using namespace pilfer::stress;
using clock_type = std::chrono::steady_clock;
using S = chaos_sync;  // std_sync plus --chaos perturbations (stress_common.hpp)
using pool_type = pilfer::basic_pool<S>;

unsigned pick_workers(const options& o, unsigned chosen) { return o.workers ? o.workers : chosen; }

/// Generous bound for "this task must have run by now": a parked pool wakes in microseconds; TSan, a loaded
/// 2-core machine and descheduling can stretch that to tens of milliseconds, never to seconds.
constexpr double completion_bound_s = 10.0;

template <class Handle>
bool wait_bounded(Handle& h, double seconds) {
  const auto end = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(seconds));
  while (!h.ready()) {
    if (clock_type::now() > end) return false;
    std_sync::yield();
  }
  return true;
}

// ------------------------------------------------------------------------------------------- spawn_storm
struct tree {
  std::vector<std::uint32_t> first_child, child_count;
};

tree make_tree(rng& r, std::uint32_t max_nodes) {
  tree t;
  const auto fanout = 1 + static_cast<std::uint32_t>(r.below(6));
  t.first_child.push_back(0);
  t.child_count.push_back(0);
  // Breadth-first: node i gets 0..fanout children while room remains.
  for (std::uint32_t i = 0; i < t.first_child.size(); ++i) {
    const auto room = max_nodes - static_cast<std::uint32_t>(t.first_child.size());
    const auto k = std::min<std::uint32_t>(room, static_cast<std::uint32_t>(r.below(fanout + 1)) + (i == 0 ? 1 : 0));
    t.first_child[i] = static_cast<std::uint32_t>(t.first_child.size());
    t.child_count[i] = k;
    for (std::uint32_t c = 0; c < k; ++c) {
      t.first_child.push_back(0);
      t.child_count.push_back(0);
    }
  }
  return t;
}

struct storm {
  const tree& t;
  pool_type& p;
  std::unique_ptr<std_sync::atomic<std::uint32_t>[]> runs;
  void node(std::uint32_t i) {
    runs[i].fetch_add(1, PILFER_SITE("stress.count", relaxed));
    progress();
    for (std::uint32_t c = 0; c < t.child_count[i]; ++c) {
      const auto child = t.first_child[i] + c;
      p.spawn([this, child] { node(child); });
    }
  }
};

// @verifies POOL-9 POOL-5 POOL-14
void spawn_storm(const options& o, failures& fail, watchdog& wd) {
  deadline d(o.seconds);
  rng r(o.seed, 1);
  std::uint64_t rounds = 0, nodes = 0, external = 0, stats_reads = 0;
  while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
    const auto workers = pick_workers(o, 1 + static_cast<unsigned>(r.below(3)));
    const tree t = make_tree(r, 1000 + static_cast<std::uint32_t>(r.below(20000)));
    const auto n = static_cast<std::uint32_t>(t.first_child.size());
    std_sync::atomic<std::uint64_t> outside_runs{0};
    constexpr std::uint64_t per_outsider = 2000;
    {
      pool_type p(pilfer::pool_options{.threads = workers});
      watchdog::guard wg(wd, [&p] { return describe_pool(p); });
      storm s{t, p, std::make_unique<std_sync::atomic<std::uint32_t>[]>(n)};
      p.spawn([&s] { s.node(0); });
      std_sync::atomic<bool> stop_reader{false};
      std::uint64_t reads = 0;
      std_sync::thread reader([&] {
        std::vector<std::uint64_t> last(workers, 0);
        while (!stop_reader.load(PILFER_SITE("stress.done", acquire))) {
          const auto st = p.stats();
          if (st.workers.size() != workers) fail.fail("POOL-14: stats() worker count", st.workers.size(), workers);
          for (unsigned w = 0; w < workers && w < st.workers.size(); ++w) {
            if (st.workers[w].tasks_run < last[w]) fail.fail("POOL-14: tasks_run went backwards", w, st.workers[w].tasks_run);
            last[w] = st.workers[w].tasks_run;
          }
          ++reads;
          std_sync::yield();
        }
      });
      std::vector<std_sync::thread> outsiders;
      for (int k = 0; k < 2; ++k) {
        outsiders.emplace_back([&] {
          for (std::uint64_t i = 0; i < per_outsider; ++i)
            p.spawn([&] {
              outside_runs.fetch_add(1, PILFER_SITE("stress.count", relaxed));
              progress();
            });
        });
      }
      for (auto& th : outsiders) th.join();
      p.wait_idle();
      stop_reader.store(true, PILFER_SITE("stress.done", release));
      reader.join();
      stats_reads += reads;
      // After wait_idle every counter is final: the tree's n-1 inner spawns ran on workers (local pushes), the
      // root and the outsiders' spawns came from outside (injector pushes); every task ran once.
      const auto st = p.stats();
      const std::uint64_t outside = 1 + 2 * per_outsider;
      if (st.pending != 0) fail.fail("POOL-14: pending after wait_idle", st.pending);
      if (st.total.local_pushes != n - 1) fail.fail("POOL-5: spawns from tasks not all local", st.total.local_pushes, n - 1);
      if (st.injector_pushes != outside) fail.fail("POOL-14: injector pushes", st.injector_pushes, outside);
      if (st.submitted != n - 1 + outside) fail.fail("POOL-14: submitted", st.submitted, n - 1 + outside);
      if (st.total.tasks_run != st.submitted) fail.fail("POOL-14: tasks_run != submitted", st.total.tasks_run, st.submitted);
      for (std::uint32_t i = 0; i < n; ++i) {
        const auto c = s.runs[i].load(PILFER_SITE("stress.count", relaxed));
        if (c != 1) fail.fail(c == 0 ? "POOL-9: spawned task never ran" : "POOL-9: task ran twice", i, c);
      }
      if (outside_runs.load(PILFER_SITE("stress.count", relaxed)) != 2 * per_outsider)
        fail.fail("POOL-9: outside spawns lost or duplicated", outside_runs.load(PILFER_SITE("stress.count", relaxed)));
    }
    ++rounds;
    nodes += n;
    external += 2 * per_outsider;
  }
  std::printf("spawn_storm: rounds=%llu tree_tasks=%llu outside_tasks=%llu stats_reads=%llu elapsed=%.1fs\n",
              static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(nodes),
              static_cast<unsigned long long>(external), static_cast<unsigned long long>(stats_reads), d.elapsed());
}

// ------------------------------------------------------------------------------------------- fork_join
std::uint64_t fib(pool_type& p, unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  pilfer::join(p, [&] { a = fib(p, n - 1); }, [&] { b = fib(p, n - 2); });
  return a + b;
}
std::uint64_t fib_seq(unsigned n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

// Sum of [lo, hi) split at a random point with a task_group of 2..4 parts down to small leaves.
std::uint64_t range_sum(pool_type& p, std::uint64_t lo, std::uint64_t hi, std::uint64_t salt) {
  if (hi - lo <= 64) {
    std::uint64_t s = 0;
    for (auto i = lo; i < hi; ++i) s += i;
    return s;
  }
  const unsigned parts = 2 + static_cast<unsigned>(salt % 3);
  std::vector<std::uint64_t> sums(parts, 0);
  pilfer::basic_task_group<S> g(p);
  const auto step = (hi - lo) / parts;
  for (unsigned k = 0; k < parts; ++k) {
    const auto a = lo + k * step, b = k + 1 == parts ? hi : a + step;
    g.run([&, k, a, b] { sums[k] = range_sum(p, a, b, salt * 6364136223846793005ull + k + 1); });
  }
  g.wait();
  std::uint64_t s = 0;
  for (auto v : sums) s += v;
  return s;
}

// @verifies POOL-11 POOL-9 POOL-17
void fork_join(const options& o, failures& fail, watchdog& wd) {
  deadline d(o.seconds);
  rng r(o.seed, 2);
  std::uint64_t rounds = 0;
  while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
    const auto workers = pick_workers(o, 1 + static_cast<unsigned>(r.below(2)));
    pool_type p(pilfer::pool_options{.threads = workers});
    watchdog::guard wg(wd, [&p] { return describe_pool(p); });
    const auto n = 10 + static_cast<unsigned>(r.below(9));
    auto h = p.submit([&] { return fib(p, n); });
    if (!wait_bounded(h, 60.0)) {
      fail.fail("POOL-11: nested fork-join did not finish (no helping?)", workers, n);
      std::fflush(stderr);
      std::_Exit(1);  // a blocked worker cannot be joined; leave rather than hang
    }
    if (h.get() != fib_seq(n)) fail.fail("POOL-11: fib wrong", n, h.get());
    const auto hi = 1000 + r.below(200000);
    const auto salt = r.next();
    auto h2 = p.submit([&] { return range_sum(p, 0, hi, salt); });
    if (!wait_bounded(h2, 60.0)) {
      fail.fail("POOL-11: task_group recursion did not finish", workers, hi);
      std::fflush(stderr);
      std::_Exit(1);
    }
    if (h2.get() != hi * (hi - 1) / 2) fail.fail("POOL-11: range sum wrong", hi, h2.get());
    progress();
    ++rounds;
  }
  std::printf("fork_join: rounds=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds), d.elapsed());
}

// ------------------------------------------------------------------------------------------- submit_while_parking
// @verifies POOL-7 POOL-17
void submit_while_parking(const options& o, failures& fail, watchdog& wd) {
  deadline d(o.seconds);
  rng r(o.seed, 3);
  std::vector<double> lat;
  pool_type p(pilfer::pool_options{.threads = pick_workers(o, 2)});
  watchdog::guard wg(wd, [&p] { return describe_pool(p); });
  std::uint64_t submits = 0;
  while (!fail.any() && (o.iterations ? submits < o.iterations : !d.passed())) {
    // Pause a random, exponentially spread number of spins: lands the submit anywhere in the workers'
    // search → back-off → park sequence (and sometimes long after they parked).
    const auto spins = r.below(std::uint64_t{1} << r.below(18));
    for (std::uint64_t i = 0; i < spins; ++i) std_sync::spin_hint();
    const auto t0 = clock_type::now();
    const auto token = r.next();
    auto h = p.submit([token] {
      progress();
      return token ^ 0x5555;
    });
    if (!wait_bounded(h, completion_bound_s)) {
      fail.fail("POOL-7: submitted task did not run within the bound (lost wake-up)", submits);
      std::fflush(stderr);
      std::_Exit(1);
    }
    lat.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - t0).count());
    if (h.get() != (token ^ 0x5555)) fail.fail("POOL-17: handle returned the wrong value", submits);
    ++submits;
  }
  std::sort(lat.begin(), lat.end());
  auto q = [&](double f) { return lat.empty() ? 0.0 : lat[static_cast<std::size_t>(f * static_cast<double>(lat.size() - 1))]; };
  std::printf("submit_while_parking: submits=%llu latency_us median=%.1f p99=%.1f max=%.1f (bound %.0f s) elapsed=%.1fs\n",
              static_cast<unsigned long long>(submits), q(0.5), q(0.99), q(1.0), completion_bound_s, d.elapsed());
}

// ------------------------------------------------------------------------------------------- shutdown_race
// @verifies POOL-12 POOL-9 POOL-17
void shutdown_race(const options& o, failures& fail, watchdog& wd) {
  deadline d(o.seconds);
  rng r(o.seed, 4);
  std::uint64_t rounds = 0, accepted_total = 0, ran_total = 0, cancelled_total = 0, rejected_total = 0;
  while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
    const bool cancel = r.below(2) == 0;
    constexpr unsigned submitters = 2;
    constexpr std::size_t max_tasks = 4000;
    struct slot {
      std_sync::atomic<std::uint32_t> ran{0};
    };
    auto slots = std::make_unique<slot[]>(submitters * max_tasks);
    std::vector<std::vector<pilfer::basic_task_handle<std::uint32_t, S>>> handles(submitters);
    std::vector<std::uint64_t> rejected(submitters, 0);
    {
      pool_type p(pilfer::pool_options{.threads = pick_workers(o, 2)});
      watchdog::guard wg(wd, [&p] { return describe_pool(p); });
      pilfer::testing::start_line line(static_cast<int>(submitters) + 1);  // the submitters and this thread (the shutter)
      std_sync::atomic<std::uint64_t> accepted_now{0};
      std::vector<std_sync::thread> ts;
      for (unsigned s = 0; s < submitters; ++s) {
        ts.emplace_back([&, s] {
          line.arrive_and_wait();
          for (std::size_t i = 0; i < max_tasks; ++i) {
            const auto id = static_cast<std::uint32_t>(s * max_tasks + i);
            try {
              handles[s].push_back(p.submit([&slots, id] {
                slots[id].ran.fetch_add(1, PILFER_SITE("stress.count", relaxed));
                progress();
                return id;
              }));
              accepted_now.fetch_add(1, PILFER_SITE("stress.count", relaxed));
            } catch (const pilfer::pool_closed&) {
              ++rejected[s];
              handles[s].emplace_back();  // keeps index == i: an empty handle marks "rejected"
            }
          }
        });
      }
      line.arrive_and_wait();
      // Let a random share of the submissions in first (none, some, nearly all), then race the rest.
      const auto target = r.below(4) == 0 ? 0 : r.below(submitters * max_tasks);
      while (accepted_now.load(PILFER_SITE("stress.count", relaxed)) < target) std_sync::yield();
      const auto spins = r.below(std::uint64_t{1} << r.below(16));
      for (std::uint64_t i = 0; i < spins; ++i) std_sync::spin_hint();
      p.shutdown(cancel ? pilfer::shutdown_mode::cancel : pilfer::shutdown_mode::drain);
      bool threw = false;
      try {
        (void)p.submit([] { return std::uint32_t{0}; });
      } catch (const pilfer::pool_closed&) {
        threw = true;
      }
      if (!threw) fail.fail("POOL-12: submit after shutdown did not throw pool_closed");
      for (auto& th : ts) th.join();
    }  // pool destroyed: every accepted task has run or been cancelled
    for (unsigned s = 0; s < submitters; ++s) {
      for (std::size_t i = 0; i < handles[s].size(); ++i) {
        auto& h = handles[s][i];
        const auto id = static_cast<std::uint32_t>(s * max_tasks + i);
        const auto ran = slots[id].ran.load(PILFER_SITE("stress.count", relaxed));
        if (!h.valid()) {
          if (ran != 0) fail.fail("POOL-12: rejected task ran", id);
          continue;
        }
        ++accepted_total;
        if (ran > 1) fail.fail("POOL-9: task ran twice", id, ran);
        if (!h.ready()) fail.fail("POOL-12: accepted task neither ran nor was cancelled after shutdown", id);
        if (h.cancelled()) {
          ++cancelled_total;
          if (!cancel) fail.fail("POOL-12: drain shutdown cancelled a task", id);
          if (ran != 0) fail.fail("POOL-12: cancelled task also ran", id);
          bool got_cancel = false;
          try {
            (void)h.get();
          } catch (const pilfer::task_cancelled&) {
            got_cancel = true;
          }
          if (!got_cancel) fail.fail("POOL-17: get() on a cancelled handle did not throw task_cancelled", id);
        } else {
          ++ran_total;
          if (ran != 1) fail.fail("POOL-12: accepted task lost", id, ran);
          if (h.get() != id) fail.fail("POOL-17: wrong result", id);
        }
      }
      rejected_total += rejected[s];
    }
    ++rounds;
  }
  std::printf("shutdown_race: rounds=%llu accepted=%llu ran=%llu cancelled=%llu rejected=%llu elapsed=%.1fs\n",
              static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(accepted_total),
              static_cast<unsigned long long>(ran_total), static_cast<unsigned long long>(cancelled_total),
              static_cast<unsigned long long>(rejected_total), d.elapsed());
}


// ------------------------------------------------------------------------------------------- parallel_loops
// An associative, non-commutative fold: the polynomial hash of the visited sequence. (h1,l1)+(h2,l2) =
// (h1*B^l2 + h2, l1+l2), with B^l carried along so combining is O(1).
struct ordered_hash {
  std::uint64_t h = 0, pow = 1, len = 0;
};
constexpr std::uint64_t hash_base = 1000003;
ordered_hash combine(ordered_hash a, ordered_hash b) {
  return {a.h * b.pow + b.h, a.pow * b.pow, a.len + b.len};
}
ordered_hash leaf(std::int64_t i) { return {static_cast<std::uint64_t>(i) * 2654435761u + 1, hash_base, 1}; }

// @verifies POOL-16 POOL-9
void parallel_loops(const options& o, failures& fail, watchdog& wd) {
  deadline d(o.seconds);
  rng r(o.seed, 5);
  std::uint64_t rounds = 0, indices = 0;
  pool_type p(pilfer::pool_options{.threads = pick_workers(o, 2)});
  watchdog::guard wg(wd, [&p] { return describe_pool(p); });
  while (!fail.any() && (o.iterations ? rounds < o.iterations : !d.passed())) {
    const auto len = static_cast<std::int64_t>(r.below(5) == 0 ? r.below(3) : r.below(50000));
    const auto begin = static_cast<std::int64_t>(r.below(1000)) - 500;
    const auto end = r.below(20) == 0 ? begin - 1 : begin + len;  // sometimes reversed: must be empty
    const std::size_t grain = r.below(4) == 0 ? 0 : 1 + r.below(r.below(2) ? 8 : 5000);
    const auto n = end > begin ? static_cast<std::size_t>(end - begin) : 0;
    auto visits = std::make_unique<std_sync::atomic<std::uint32_t>[]>(n + 1);
    auto visit = [&](std::int64_t i) {
      if (i < begin || i >= end) {
        fail.fail("POOL-16: index outside the range", static_cast<std::uint64_t>(i - begin));
        return;
      }
      visits[static_cast<std::size_t>(i - begin)].fetch_add(1, PILFER_SITE("stress.count", relaxed));
    };
    if (r.below(3) == 0 && n > 0) {
      // Nested: an outer loop over blocks of 64, each running an inner parallel_for from inside a task.
      const std::int64_t blocks = (static_cast<std::int64_t>(n) + 63) / 64;
      pilfer::parallel_for(p, std::int64_t{0}, blocks, [&](std::int64_t k) {
        const auto lo = begin + k * 64;
        pilfer::parallel_for(p, lo, std::min(end, lo + 64), visit, grain);
      });
    } else {
      pilfer::parallel_for(p, begin, end, visit, grain);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = visits[i].load(PILFER_SITE("stress.count", relaxed));
      if (v != 1) fail.fail("POOL-16: index not visited exactly once", i, v);
    }
    const auto got = pilfer::parallel_reduce(p, begin, end, ordered_hash{}, leaf, combine, grain);
    ordered_hash want{};
    for (auto i = begin; i < end; ++i) want = combine(want, leaf(i));
    if (got.h != want.h || got.len != want.len) fail.fail("POOL-16: parallel_reduce differs from the sequential fold", got.len, want.len);
    progress(n);
    ++rounds;
    indices += n;
  }
  std::printf("parallel_loops: rounds=%llu indices=%llu elapsed=%.1fs\n", static_cast<unsigned long long>(rounds),
              static_cast<unsigned long long>(indices), d.elapsed());
}

}  // namespace

int main(int argc, char** argv) {
  const char* program = "stress_pool";
  std::string scenario;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!take_option(argc, argv, i, "--scenario", scenario, program)) rest.push_back(argv[i]);
  }
  const char* names = "spawn_storm|fork_join|submit_while_parking|shutdown_race|parallel_loops";
  if (!scenario.empty() && !one_of(scenario, names)) {
    std::fprintf(stderr, "%s: unknown --scenario '%s' (%s)\n", program, scenario.c_str(), names);
    return 2;
  }
  const auto o = parse(static_cast<int>(rest.size()), rest.data(), program, 4.0, "[--scenario NAME] ");
  chaos_control::configure(o.chaos, o.seed);
  failures fail;
  watchdog wd(program, o.watchdog, o.seed);
  auto want = [&](std::string_view s) { return (scenario.empty() || scenario == s) && !fail.any(); };
  if (want("spawn_storm")) spawn_storm(o, fail, wd);
  if (want("fork_join")) fork_join(o, fail, wd);
  if (want("submit_while_parking")) submit_while_parking(o, fail, wd);
  if (want("shutdown_race")) shutdown_race(o, fail, wd);
  if (want("parallel_loops")) parallel_loops(o, fail, wd);
  return verdict(program, fail, o.seed);
}
