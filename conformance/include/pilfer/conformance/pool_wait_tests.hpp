// pilfer/conformance/pool_wait_tests.hpp — black-box tests of work conservation and of waits inside a
// pool (POOL-18 … POOL-21, POOL-8 under join). Included by pool_tests.hpp.
//
// Every case is bounded: a pool that hangs fails the case ("no progress in N s") and is leaked (see
// pool_box::abandon); the state its tasks touch is heap-allocated and shared with them, so a leaked
// pool never reaches into a finished test's stack. POOL-20 runs in a forked child so that a stack
// overflow in a worker is a FAIL verdict with the signal, not the end of the run.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

namespace detail {

/// A random gap of 1 us … 2 ms (log-uniform), so a submission lands in every phase of a worker's
/// idle path: running, searching, backing off, parking, parked.
inline void random_gap(rng& g) {
  const double u = static_cast<double>(g.below(1u << 20)) / double(1u << 20);
  busy_for(std::chrono::nanoseconds(static_cast<long long>(1000.0 * std::pow(2000.0, u))));
}

inline void sleep_us(long us) {
  timespec ts{us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

}  // namespace detail

// ------------------------------------------------------------------------------------------ POOL-18

/// POOL-18: work conservation. k tasks that can only finish when all k run at the same time (a k-party
/// spin barrier) on a k-worker pool, submitted from outside and spawned from inside a task, many rounds
/// with random gaps (every other round right after a one-task probe, so that one worker is searching and
/// the others are parked): if a worker stays parked beside a queued party, the barrier cannot complete.
template <pool_adapter P>
verdict pool_work_conservation(const run_config& cfg) {
  struct round_state {
    atomic<unsigned> arrived{0}, finished{0}, timed_out{0};
  };
  rng g{cfg.seed};
  long rounds = 0;
  const auto party_limit = std::chrono::milliseconds(2000);
  for (unsigned k : {2u, 3u, 4u}) {
    for (const bool inside : {false, true}) {
      detail::pool_box<P> pool(k);
      const deadline budget(std::chrono::milliseconds(cfg.scaled(400)));
      for (int round = 0; round < 60 || !budget.passed(); ++round, ++rounds) {
        auto st = std::make_shared<round_state>();
        auto party = [st, k, party_limit] {
          st->arrived.fetch_add(1, PILFER_SITE("conformance.barrier", acq_rel));
          if (!wait_until([&] { return st->arrived.load(PILFER_SITE("conformance.barrier", acquire)) >= k; },
                          party_limit))
            st->timed_out.fetch_add(1, PILFER_SITE("conformance.barrier", relaxed));
          st->finished.fetch_add(1, PILFER_SITE("conformance.barrier", acq_rel));
        };
        detail::random_gap(g);
        if (round % 2 == 1) {
          // A worker that has just run a task is searching while the others are parked: the moment at which
          // a protocol that skips wake-ups "because someone searches" loses workers.
          auto probe = std::make_shared<atomic<int>>(0);
          (*pool).submit([probe] { probe->store(1, PILFER_SITE("conformance.flag", release)); });
          wait_until([&] { return probe->load(PILFER_SITE("conformance.flag", acquire)) != 0; }, detail::case_limit);
          busy_for(std::chrono::nanoseconds(static_cast<long long>(g.below(50000))));
        }
        if (inside) {
          P* p = &*pool;
          (*pool).submit([p, party, k] {
            for (unsigned i = 1; i < k; ++i) p->spawn(party);
            party();
          });
        } else {
          for (unsigned i = 0; i < k; ++i) (*pool).submit(party);
        }
        std::ostringstream where;
        where << k << " workers, " << k << " parties " << (inside ? "spawned from inside a task" : "submitted from outside")
              << ", round " << round << ": ";
        if (!wait_until([&] { return st->finished.load(PILFER_SITE("conformance.barrier", acquire)) == k; },
                        detail::case_limit)) {
          pool.abandon();
          return verdict::fail(cfg.seed, where.str() + "no progress in 5 s (" +
                                             std::to_string(st->finished.load(PILFER_SITE("conformance.barrier", acquire))) +
                                             " parties finished)");
        }
        if (st->timed_out.load(PILFER_SITE("conformance.barrier", relaxed)) != 0)
          return verdict::fail(cfg.seed, where.str() + "the " + std::to_string(k) +
                                             " parties were never all running together within 2 s — a worker stayed idle "
                                             "beside a queued party (work conservation)");
      }
    }
  }
  return verdict::pass(std::to_string(rounds) + " barrier rounds (k = 2, 3, 4 workers; outside and inside)");
}

// ------------------------------------------------------------------------------------------ POOL-19

namespace detail {

/// One node of a random acyclic wait-for graph. Nodes are submitted with handles in index order; a node
/// waits only for lower-numbered nodes (acyclic by construction) — directly through their handles, inside
/// the arms of a fork_join or a task group, or inside a child it submits and waits for.
struct wf_node {
  enum shape { plain, wait_handles, join_arms, group_arms, nested_handle } how = plain;
  std::vector<int> deps;
  int effort = 0;  // 0 none, 1 spin 20 us, 2 sleep 1 ms, 3 sleep 3 ms
};

struct wf_graph {
  unsigned workers = 1;
  std::vector<wf_node> nodes;
  std::string describe() const {
    static const char* shape_name[] = {"work", "wait", "join", "group", "nested"};
    static const char* work_name[] = {"", " spin20us", " sleep1ms", " sleep3ms"};
    std::ostringstream os;
    os << workers << " worker(s), " << nodes.size() << " nodes:";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      os << " " << i << "=" << shape_name[nodes[i].how] << work_name[nodes[i].effort];
      if (!nodes[i].deps.empty()) {
        os << "{";
        for (std::size_t d = 0; d < nodes[i].deps.size(); ++d) os << (d ? "," : "") << nodes[i].deps[d];
        os << "}";
      }
    }
    return os.str();
  }
};

inline wf_graph random_wait_graph(rng& g, bool groups) {
  wf_graph w;
  w.workers = 1 + static_cast<unsigned>(g.below(3));
  const int n = 3 + static_cast<int>(g.below(10));
  for (int i = 0; i < n; ++i) {
    wf_node nd;
    nd.effort = static_cast<int>(g.below(4));
    if (i > 0 && g.below(5) != 0) {
      const int shapes = groups ? 4 : 3;
      const int s = 1 + static_cast<int>(g.below(static_cast<std::uint64_t>(shapes)));
      nd.how = s == 1 ? wf_node::wait_handles : s == 2 ? wf_node::join_arms : s == 3 ? wf_node::nested_handle
                                                                                    : wf_node::group_arms;
      const int m = 1 + static_cast<int>(g.below(static_cast<std::uint64_t>(std::min(i, 3))));
      for (int d = 0; d < m; ++d) {
        // Mostly the nearest predecessors: chains (C waits A waits B) are where helping waits deadlock.
        const int back = g.below(3) != 0 ? 1 + static_cast<int>(g.below(2)) : 1 + static_cast<int>(g.below(static_cast<std::uint64_t>(i)));
        const int dep = std::max(0, i - back);
        if (std::find(nd.deps.begin(), nd.deps.end(), dep) == nd.deps.end()) nd.deps.push_back(dep);
      }
    }
    w.nodes.push_back(nd);
  }
  return w;
}

inline void wf_work(int w) {
  if (w == 1) busy_for(std::chrono::microseconds(20));
  if (w == 2) sleep_us(1000);
  if (w == 3) sleep_us(3000);
}

}  // namespace detail

/// POOL-19: waits never deadlock on an acyclic wait-for graph. Random graphs (printed with the seed on
/// failure; --seed replays them) of 3–12 tasks on 1–3 workers; each task waits for earlier tasks through
/// handles, fork_join arms, task groups or a nested handle, and some sleep so a waited-for task is
/// often running elsewhere. A graph that does not finish in 5 s is a deadlock.
template <pool_adapter P>
verdict pool_acyclic_waits(const run_config& cfg) {
  if (!P::has_handles) return verdict::na("no result handles");
  struct graph_state {
    explicit graph_state(std::size_t count) : ran(new atomic<int>[count]) {
      for (std::size_t i = 0; i < count; ++i) ran[i].store(0, PILFER_SITE("conformance.hits", relaxed));
    }
    std::unique_ptr<atomic<int>[]> ran;
    atomic<int> finished{0}, errors{0};
  };
  rng g{cfg.seed};
  const deadline budget(std::chrono::milliseconds(cfg.scaled(3000)));
  int graphs = 0;
  for (; graphs < 40 || !budget.passed(); ++graphs) {
    const detail::wf_graph wg = detail::random_wait_graph(g, pool_with_groups<P>);
    const std::size_t n = wg.nodes.size();
    auto st = std::make_shared<graph_state>(n);
    detail::pool_box<P> pool(wg.workers);
    P* p = &*pool;
    std::vector<std::function<void()>> handles;
    for (std::size_t i = 0; i < n; ++i) {
      const detail::wf_node nd = wg.nodes[i];
      std::vector<std::function<void()>> deps;
      for (int d : nd.deps) deps.push_back(handles[static_cast<std::size_t>(d)]);
      auto wait_all = [](const std::vector<std::function<void()>>& ws) {
        for (const auto& w : ws) w();
      };
      auto body = [st, p, nd, deps, wait_all, i] {
        try {
          detail::wf_work(nd.effort);
          switch (nd.how) {
            case detail::wf_node::plain: break;
            case detail::wf_node::wait_handles: wait_all(deps); break;
            case detail::wf_node::join_arms: {
              const std::size_t half = deps.size() / 2;
              std::vector<std::function<void()>> a(deps.begin(), deps.begin() + static_cast<long>(half));
              std::vector<std::function<void()>> b(deps.begin() + static_cast<long>(half), deps.end());
              p->fork_join([a, wait_all] { wait_all(a); }, [b, wait_all, nd] {
                wait_all(b);
                detail::wf_work(nd.effort);
              });
              break;
            }
            case detail::wf_node::group_arms: {
              if constexpr (pool_with_groups<P>) {
                std::vector<std::function<void()>> arms;
                for (const auto& d : deps) arms.push_back([d, nd] {
                  d();
                  detail::wf_work(nd.effort);
                });
                p->run_group(std::move(arms));
              }
              break;
            }
            case detail::wf_node::nested_handle: {
              auto child = p->submit_waitable([deps, wait_all, nd] {
                detail::wf_work(nd.effort);
                wait_all(deps);
              });
              child();
              break;
            }
          }
        } catch (...) {
          st->errors.fetch_add(1, PILFER_SITE("conformance.done", relaxed));
        }
        st->ran[i].fetch_add(1, PILFER_SITE("conformance.hits", relaxed));
        st->finished.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
      };
      handles.push_back((*pool).submit_waitable(body));
    }
    if (!wait_until([&] { return st->finished.load(PILFER_SITE("conformance.done", acquire)) == static_cast<int>(n); },
                    detail::case_limit)) {
      std::string stuck;
      for (std::size_t i = 0; i < n; ++i)
        if (st->ran[i].load(PILFER_SITE("conformance.hits", relaxed)) == 0) stuck += (stuck.empty() ? "" : ",") + std::to_string(i);
      pool.abandon();
      return verdict::fail(cfg.seed, "graph " + std::to_string(graphs) + " (" + wg.describe() +
                                         "): no progress in 5 s, unfinished {" + stuck + "} — a wait deadlocked");
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int r = st->ran[i].load(PILFER_SITE("conformance.hits", relaxed));
      if (r != 1)
        return verdict::fail(cfg.seed, "graph " + std::to_string(graphs) + " (" + wg.describe() + "): task " +
                                           std::to_string(i) + " ran " + std::to_string(r) + " times");
    }
    if (st->errors.load(PILFER_SITE("conformance.done", relaxed)) != 0)
      return verdict::fail(cfg.seed, "graph " + std::to_string(graphs) + " (" + wg.describe() +
                                         "): a wait threw although no task throws");
  }
  return verdict::pass(std::to_string(graphs) + " random acyclic wait-for graphs (1-3 workers, 3-12 tasks" +
                       (pool_with_groups<P> ? ", handles/join/groups/nested)" : ", handles/join/nested)"));
}

// ------------------------------------------------------------------------------------------ POOL-20

namespace detail {

/// The body of POOL-20, run in a forked child: one long task L, `n` outside tasks that each wait for L.
/// Returns a verdict; the nesting depth of waiter tasks on any one thread must stay 1 (the user's own).
template <pool_adapter P>
verdict many_waiters_body(const run_config& cfg, int n) {
  struct state {
    atomic<int> started{0}, finished{0}, threw{0}, max_depth{0}, l_started{0}, submitted_all{0};
  };
  auto st = std::make_shared<state>();
  P* p = new P(2);  // deleted once every task finished; leaked (never joined) when a case failed to finish
  auto l = p->submit_waitable([st, n] {
    st->l_started.store(1, PILFER_SITE("conformance.flag", release));
    // L runs until every waiter has started or 1 s after the last submission.
    wait_until([&] { return st->submitted_all.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
               std::chrono::milliseconds(60000));
    wait_until([&] { return st->started.load(PILFER_SITE("conformance.done", acquire)) >= n; },
               std::chrono::milliseconds(1000));
  });
  if (!wait_until([&] { return st->l_started.load(PILFER_SITE("conformance.flag", acquire)) != 0; }, case_limit))
    return verdict::fail(cfg.seed, "the long task did not start within 5 s");
  static thread_local int depth = 0;
  for (int i = 0; i < n; ++i) {
    p->submit([st, l] {
      const int d = ++depth;
      for (int m = st->max_depth.load(PILFER_SITE("conformance.depth", relaxed)); d > m;)
        if (st->max_depth.compare_exchange_weak(m, d, PILFER_SITE("conformance.depth", relaxed),
                                                PILFER_SITE("conformance.depth", relaxed)))
          break;
      st->started.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
      try {
        l();
      } catch (...) {
        st->threw.fetch_add(1, PILFER_SITE("conformance.done", relaxed));
      }
      --depth;
      st->finished.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
    });
  }
  st->submitted_all.store(1, PILFER_SITE("conformance.flag", release));
  const bool all = wait_until([&] { return st->finished.load(PILFER_SITE("conformance.done", acquire)) == n; },
                              std::chrono::milliseconds(60000));
  std::ostringstream os;
  os << n << " tasks waiting for one running task on 2 workers: " << st->finished.load(PILFER_SITE("conformance.done", acquire))
     << " finished, " << st->threw.load(PILFER_SITE("conformance.done", relaxed))
     << " waits reported an error, deepest nesting of waiter tasks on one thread "
     << st->max_depth.load(PILFER_SITE("conformance.depth", relaxed));
  if (!all) return verdict::fail(cfg.seed, os.str() + " — no progress in 60 s");
  delete p;
  if (st->max_depth.load(PILFER_SITE("conformance.depth", relaxed)) > 1)
    return verdict::fail(cfg.seed, os.str() + " — waits ran other waiters on top of themselves (stack grows with the queue)");
  return verdict::pass(os.str());
}

/// The first half of POOL-20, run in the same child: a wait that blocks keeps the pool's parallelism. On 2
/// workers, L runs (until X ran, at most 3 s) and W waits for L; nothing else is queued. A task X submitted
/// once W waits MUST run while L still runs: a pool that blocks W's thread must have a spare ready for X (one
/// that starts a spare only for work queued when W blocked leaves X queued until L ends); a pool whose waits
/// run other queued tasks runs X on W's thread, which also passes.
template <pool_adapter P>
verdict blocked_wait_keeps_parallelism_body(const run_config& cfg, int rounds) {
  struct state {
    atomic<int> l_started{0}, w_started{0}, x_ran{0}, l_done{0};
  };
  P* p = new P(2);
  for (int round = 0; round < rounds; ++round) {
    auto st = std::make_shared<state>();
    auto l = p->submit_waitable([st] {
      st->l_started.store(1, PILFER_SITE("conformance.flag", release));
      wait_until([&] { return st->x_ran.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
                 std::chrono::milliseconds(3000));
      st->l_done.store(1, PILFER_SITE("conformance.flag", release));
    });
    if (!wait_until([&] { return st->l_started.load(PILFER_SITE("conformance.flag", acquire)) != 0; }, case_limit))
      return verdict::fail(cfg.seed, "round " + std::to_string(round) + ": the long task did not start within 5 s");
    auto w = p->submit_waitable([st, l] {
      st->w_started.store(1, PILFER_SITE("conformance.flag", release));
      l();
    });
    if (!wait_until([&] { return st->w_started.load(PILFER_SITE("conformance.flag", acquire)) != 0; }, case_limit))
      return verdict::fail(cfg.seed, "round " + std::to_string(round) + ": the waiting task did not start within 5 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // W is blocked (or helping) by now
    auto x = p->submit_waitable([st] {
      // Ran before L ended: L is still spinning for this flag (or gave up after 3 s).
      if (st->l_done.load(PILFER_SITE("conformance.flag", acquire)) == 0)
        st->x_ran.store(1, PILFER_SITE("conformance.flag", release));
      else
        st->x_ran.store(2, PILFER_SITE("conformance.flag", release));
    });
    w();
    x();
    if (st->x_ran.load(PILFER_SITE("conformance.flag", acquire)) != 1)
      return verdict::fail(cfg.seed, "round " + std::to_string(round) +
                                         ": 2 workers, one running L and one waiting for L: a task submitted then ran only "
                                         "after L ended (3 s) — the blocked wait did not keep the pool's parallelism");
  }
  delete p;
  return verdict::pass(std::to_string(rounds) + " rounds: a task submitted while a wait blocked ran beside the awaited task");
}

/// An adapter may declare `static constexpr bool fork_safe = false;` when its implementation cannot be used in
/// a forked child once the parent has used it (oneTBB's thread pool is not re-created after fork()); tests then
/// run in-process (a crash of such a peer ends the run; the driver's own per-requirement isolation covers it).
template <class P>
constexpr bool fork_safe() {
  if constexpr (requires { P::fork_safe; }) {
    return P::fork_safe;
  } else {
    return true;
  }
}

/// Run `body` in a forked child with a time limit; a signal or a timeout is a FAIL verdict.
inline verdict in_child(const run_config& cfg, const std::string& what, std::chrono::seconds limit,
                        const std::function<verdict()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return verdict::fail(cfg.seed, what + ": pipe() failed: " + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) return verdict::fail(cfg.seed, what + ": fork() failed: " + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    const verdict v = body();
    const std::string msg = std::string(v.passed() ? "P" : v.failed() ? "F" : "N") + v.detail;
    std::size_t off = 0;
    while (off < msg.size()) {
      const ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  const auto end = std::chrono::steady_clock::now() + limit;
  bool open = true;
  while (open && std::chrono::steady_clock::now() < end) {
    pollfd pf{fds[0], POLLIN, 0};
    if (poll(&pf, 1, 100) > 0) {
      char buf[512];
      const ssize_t r = read(fds[0], buf, sizeof buf);
      if (r > 0) out.append(buf, static_cast<std::size_t>(r)); else open = false;
    }
  }
  close(fds[0]);
  int status = 0;
  if (open) {  // still running at the limit
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return verdict::fail(cfg.seed, what + ": no progress in " + std::to_string(limit.count()) + " s (child killed)");
  }
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return verdict::fail(cfg.seed, what + ": the child died with signal " + std::to_string(WTERMSIG(status)) + " (" +
                                       strsignal(WTERMSIG(status)) + ") — e.g. a stack overflow on a worker");
  if (out.empty()) return verdict::fail(cfg.seed, what + ": the child exited without a verdict");
  if (out[0] == 'P') return verdict::pass(out.substr(1));
  if (out[0] == 'N') return verdict::na(out.substr(1));
  return verdict::fail(cfg.seed, out.substr(1));
}

}  // namespace detail

/// POOL-20: a blocked wait keeps the pool's parallelism (blocked_wait_keeps_parallelism_body); then 200,000
/// tasks wait for one running task. Must finish without a crash, and a wait must not run other waiters on
/// top of itself (stack depth bounded by the user's nesting, here 1). Runs in a forked child: a stack
/// overflow is reported as FAIL with the signal.
template <pool_adapter P>
verdict pool_many_waiters(const run_config& cfg) {
  if (!P::has_handles) return verdict::na("no result handles");
  const int n = 200000;
  const auto both = [&] {
    const verdict first = detail::blocked_wait_keeps_parallelism_body<P>(cfg, 10);
    if (!first.passed()) return first;
    verdict second = detail::many_waiters_body<P>(cfg, n);
    if (second.passed()) second.detail = first.detail + "; " + second.detail;
    return second;
  };
  if constexpr (!detail::fork_safe<P>()) return both();
  return detail::in_child(cfg, std::to_string(n) + " waiters on one running task", std::chrono::seconds(120), both);
}

// ---------------------------------------------------------------------------------- POOL-8 under join

/// POOL-8 under join (SPEC scenario "join recursion on one worker"): one worker computes fib(27) by recursive
/// fork_join (635,621 arms); an outside task X submitted during the recursion MUST start before the recursion
/// ends. The old pool ran X only after every arm. The arm count at which X started is reported (the SPEC bounds
/// the hand-off to N = 61 arms; when the woken or spare thread then runs X is up to the scheduler).
template <pool_adapter P>
verdict pool_fairness_join_body(const run_config& cfg) {
  struct state {
    atomic<long> arms{0}, x_at{-1};
    atomic<int> started{0}, root_done{0};
  };
  long worst = 0;
  for (int round = 0; round < 2; ++round) {
    auto st = std::make_shared<state>();
    detail::pool_box<P> pool(1);
    P* p = &*pool;
    auto fib = std::make_shared<std::function<long(int)>>();
    *fib = [st, p, f = std::weak_ptr<std::function<long(int)>>(fib)](int n) -> long {
      st->arms.fetch_add(1, PILFER_SITE("conformance.arms", relaxed));
      if (n < 2) return n;
      long a = 0, b = 0;
      auto self = f.lock();
      p->fork_join([&] { a = (*self)(n - 1); }, [&] { b = (*self)(n - 2); });
      return a + b;
    };
    (*pool).submit([st, fib] {
      st->started.store(1, PILFER_SITE("conformance.flag", release));
      (*fib)(27);
      st->root_done.store(1, PILFER_SITE("conformance.flag", release));
    });
    if (!wait_until([&] { return st->arms.load(PILFER_SITE("conformance.arms", relaxed)) > 2000 ||
                                 st->root_done.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
                    detail::case_limit)) {
      pool.abandon();
      return verdict::fail(cfg.seed, "fib(27) by fork_join on 1 worker made no progress in 5 s");
    }
    if (st->root_done.load(PILFER_SITE("conformance.flag", acquire)) != 0)
      return verdict::fail(cfg.seed, "fib(27) finished before the test could submit X (pool too fast to measure)");
    const long at = st->arms.load(PILFER_SITE("conformance.arms", relaxed));
    (*pool).submit([st] { st->x_at.store(st->arms.load(PILFER_SITE("conformance.arms", relaxed)), PILFER_SITE("conformance.flag", release)); });
    if (!wait_until([&] { return st->x_at.load(PILFER_SITE("conformance.flag", acquire)) >= 0 &&
                                 st->root_done.load(PILFER_SITE("conformance.flag", acquire)) != 0; },
                    std::chrono::milliseconds(30000))) {
      pool.abandon();
      return verdict::fail(cfg.seed, "1 worker in fork_join recursion: X or the recursion did not finish in 30 s");
    }
    const long x_at = st->x_at.load(PILFER_SITE("conformance.flag", acquire));
    const long total = st->arms.load(PILFER_SITE("conformance.arms", relaxed));
    worst = std::max(worst, x_at - at);
    if (x_at >= total)
      return verdict::fail(cfg.seed, "1 worker computing fib(27) by fork_join: an outside task X submitted at arm " +
                                         std::to_string(at) + " started only after the recursion ended (" +
                                         std::to_string(total) + " arms) — join ignores the injector");
  }
  return verdict::pass("outside task started before the recursion ended, at most " + std::to_string(worst) +
                       " join arms after its submission (2 rounds, fib(27) on 1 worker)");
}

/// Runs in a forked child: a pool whose waits help by running queued arms may overflow a worker's stack on
/// fib(27) (the single-queue pool does); that is a FAIL verdict with the signal, not the end of the run.
template <pool_adapter P>
verdict pool_fairness_join(const run_config& cfg) {
  if (!P::has_fork_join) return verdict::na("no fork-join inside tasks");
  if constexpr (!detail::fork_safe<P>()) return pool_fairness_join_body<P>(cfg);
  return detail::in_child(cfg, "fork_join fib(27) on 1 worker with an outside task", std::chrono::seconds(90),
                          [&] { return pool_fairness_join_body<P>(cfg); });
}

// ------------------------------------------------------------------------------------------ POOL-21

/// POOL-21: the exception of a task whose handle was dropped reaches on_uncaught — exactly once — whether
/// the handle is dropped before the task ran or after it finished; a collected exception is not reported.
template <pool_adapter P>
verdict pool_dropped_handle(const run_config& cfg) {
  if constexpr (!pool_with_uncaught<P>) {
    return verdict::na("no on_uncaught handler / dropped handles in the adapter");
  } else {
    struct state {
      atomic<int> reported{0}, other{0}, ran{0};
    };
    auto st = std::make_shared<state>();
    detail::pool_box<P> pool(2);
    (*pool).set_on_uncaught([st](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::runtime_error& x) {
        if (std::string(x.what()) == "pilfer-conformance-dropped") {
          st->reported.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
          return;
        }
      } catch (...) {
      }
      st->other.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
    });
    auto thrower = [st] {
      st->ran.fetch_add(1, PILFER_SITE("conformance.done", acq_rel));
      throw std::runtime_error("pilfer-conformance-dropped");
    };
    // (1) dropped at once, (most likely) before the task ran.
    (*pool).submit_dropped(thrower);
    // (2) dropped after the task finished.
    {
      auto w = (*pool).submit_waitable(thrower);
      (*pool).wait_idle();
    }
    // (3) collected by its waiter, then dropped: not lost, so not reported.
    {
      auto w = (*pool).submit_waitable(thrower);
      try {
        w();
      } catch (...) {
      }
    }
    (*pool).wait_idle();
    const bool ok = wait_until([&] { return st->reported.load(PILFER_SITE("conformance.done", acquire)) >= 2; },
                               std::chrono::milliseconds(2000));
    detail::quiet_for(std::chrono::milliseconds(50));  // a late duplicate report would show here
    const int r = st->reported.load(PILFER_SITE("conformance.done", acquire));
    const int o = st->other.load(PILFER_SITE("conformance.done", acquire));
    std::ostringstream os;
    os << "3 throwing tasks (dropped before running, dropped after finishing, collected then dropped): on_uncaught got "
       << r << " (want 2)";
    if (o != 0) os << " plus " << o << " other exceptions";
    if (!ok || r != 2 || o != 0) return verdict::fail(cfg.seed, os.str());
    return verdict::pass(os.str());
  }
}

/// Appends POOL-18 … POOL-21 to a pool's requirement list (called by pool_requirements in suite.hpp).
/// POOL-8 under join is part of the POOL-8 test (pool_fairness).
template <pool_adapter P, class Tests>
void add_pool_wait_requirements(Tests& t) {
  // @verifies POOL-18
  t.push_back({"POOL-18", "work conservation (k-party barrier, k workers)",
               [](const run_config& c) { return pool_work_conservation<P>(c); }});
  // @verifies POOL-19
  t.push_back({"POOL-19", "no deadlock on acyclic wait-for graphs", [](const run_config& c) { return pool_acyclic_waits<P>(c); }});
  // @verifies POOL-20
  t.push_back({"POOL-20", "a blocked wait keeps parallelism; 200,000 waiters on one running task",
               [](const run_config& c) { return pool_many_waiters<P>(c); }});
  // @verifies POOL-21
  t.push_back({"POOL-21", "dropped handle's exception reaches on_uncaught",
               [](const run_config& c) { return pool_dropped_handle<P>(c); }});
}

}  // namespace pilfer::conformance
