// Engine self-test: atomic<T>::await (pilfer/model/checker.hpp).
//   MC-14 An await is a load that waits until it may read a value its predicate accepts (and
//         await_exchange a CAS retry loop that waits until its CAS can succeed): the
//         executions whose awaits are satisfied are exactly the complete executions of the
//         assume() form, none is blocked (the thread is not scheduled instead), any accepted
//         store may be read (older ones included), and an await that can never be satisfied
//         fails as "deadlock" where assume() hides the hang as blocked executions; so does one
//         that only stale stores satisfy once no other thread can run (the loop it stands for
//         reads the newest store for ever).
// @verifies MC-14
#include "test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

enum class form { await, assume };

/// Message passing: data = 1 (relaxed); flag = 1 (release) ∥ wait for flag == 1 (acquire); read data.
template <form F>
struct message_passing : scenario {
  S::atomic<int> data{0}, flag{0};
  int seen = -1;
  message_passing() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("t.data", relaxed));
      flag.store(1, PILFER_SITE("t.flag", release));
      return;
    }
    if constexpr (F == form::await)
      (void)flag.await([](int v) { return v == 1; }, PILFER_SITE("t.await", acquire));
    else
      assume(flag.load(PILFER_SITE("t.await", acquire)) == 1);
    seen = data.load(PILFER_SITE("t.read", relaxed));
  }
  void after() override { record({seen}); }
};

/// x = 1; x = 2 (relaxed) ∥ await x == 1: where the awaiter comes after both stores, only the older
/// store satisfies it and nobody writes again: once x = 2 is visible, the loop the await stands for
/// spins for ever (a hang; it said "proved", GenMC needs -check-liveness). With `Rewrite`, a third
/// thread writes x = 1 again once it sees the second store's flag: no hang.
template <bool Rewrite>
struct stale_only : scenario {
  S::atomic<int> x{0}, flag{0};
  static constexpr unsigned await_line = __LINE__ + 11;
  stale_only() : scenario(Rewrite ? 3 : 2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("so.x1", relaxed));
      x.store(2, PILFER_SITE("so.x2", relaxed));
      flag.store(1, PILFER_SITE("so.flag", release));
    } else if (i == 2) {
      (void)flag.await([](int v) { return v == 1; }, PILFER_SITE("so.flag_await", acquire));
      x.store(1, PILFER_SITE("so.x3", relaxed));
    } else {
      (void)x.await([](int v) { return v == 1; }, PILFER_SITE("so.await", relaxed));
    }
  }
};

/// The stale-only await of stale_only<false>, and a third thread that spins with yield() until the
/// awaiter is done: the spinner writes nothing, so it is a hang too (the spinner counted as a
/// thread that might still write, and the check said ok). With `Spinner_writes`, the spinner
/// stores x = 1 itself once it sees `go`: no hang.
template <bool Spinner_writes, int Yields = 1>
struct stale_with_spinner : scenario {
  S::atomic<int> x{0}, done{0}, go{0};
  stale_with_spinner() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("ss.x1", relaxed));
      x.store(2, PILFER_SITE("ss.x2", relaxed));
      go.store(1, PILFER_SITE("ss.go", release));
    } else if (i == 1) {
      (void)x.await([](int v) { return v == 1; }, PILFER_SITE("ss.await", relaxed));
      done.store(1, PILFER_SITE("ss.done", release));
    } else if (Spinner_writes) {
      while (go.load(PILFER_SITE("ss.go_load", acquire)) == 0)
        for (int k = 0; k < Yields; ++k) S::yield();  // (a backoff of several yields reads nothing between them)
      x.store(1, PILFER_SITE("ss.x3", relaxed));
    } else {
      while (done.load(PILFER_SITE("ss.done_load", acquire)) == 0) S::yield();
    }
  }
};

/// x = 1; x = 2 (relaxed) ∥ await x >= 1: both stores are acceptable, and the older one may be
/// read even after the newer one is written.
template <form F>
struct two_acceptable : scenario {
  S::atomic<int> x{0};
  int got = -1;
  two_acceptable() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.x1", relaxed));
      x.store(2, PILFER_SITE("t.x2", relaxed));
      return;
    }
    if constexpr (F == form::await) {
      got = x.await([](int v) { return v >= 1; }, PILFER_SITE("t.await", relaxed));
    } else {
      got = x.load(PILFER_SITE("t.await", relaxed));
      assume(got >= 1);
    }
  }
  void after() override { record({got}); }
};

/// A lock whose holder never releases it: the second thread's await can never be satisfied.
template <form F>
struct never_released : scenario {
  S::atomic<int> lock{0};
  never_released() : scenario(2) {}
  void thread(unsigned) override {
    int expected = 0;
    if constexpr (F == form::await) {
      for (;;) {
        (void)lock.await([](int v) { return v == 0; }, PILFER_SITE("t.await", relaxed));
        expected = 0;
        if (lock.compare_exchange_strong(expected, 1, PILFER_SITE("t.take", acquire), PILFER_SITE("t.fail", relaxed)))
          break;
      }
    } else {
      assume(lock.load(PILFER_SITE("t.await", relaxed)) == 0);
      assume(lock.compare_exchange_strong(expected, 1, PILFER_SITE("t.take", acquire), PILFER_SITE("t.fail", relaxed)));
    }
    // (no release: the bug)
  }
};

/// Two threads each await the other's flag before setting their own: a cycle, never satisfied.
struct await_cycle : scenario {
  S::atomic<int> a{0}, b{0};
  await_cycle() : scenario(2) {}
  void thread(unsigned i) override {
    S::atomic<int>& mine = i == 0 ? a : b;
    S::atomic<int>& theirs = i == 0 ? b : a;
    (void)theirs.await([](int v) { return v == 1; }, PILFER_SITE("t.await", acquire));
    mine.store(1, PILFER_SITE("t.set", release));
  }
};

/// The await's value decides what the thread does next: the predicate accepts two of three
/// values, and each accepted one leads to its own outcome.
struct branch_on_value : scenario {
  S::atomic<int> x{0};
  int got = -1;
  branch_on_value() : scenario(3) {}
  void thread(unsigned i) override {
    if (i == 0) x.store(1, PILFER_SITE("t.a", relaxed));
    if (i == 1) x.store(2, PILFER_SITE("t.b", relaxed));
    if (i == 2) got = x.await([](int v) { return v != 0; }, PILFER_SITE("t.await", relaxed));
  }
  void after() override { record({got}); }
};

// Found by an outside tester (public header and MC-14 only); each failed before its fix.

/// An await on an atomic constructed uninitialised, whose writer may run after the reader: the
/// loop may read the uninitialised value, whatever the predicate says of it.
struct uninitialised : scenario {
  S::atomic<int> x{uninit};
  uninitialised() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0)
      x.store(1, PILFER_SITE("t.w", release));
    else
      (void)x.await([](int v) { return v == 1; }, PILFER_SITE("t.await", acquire));
  }
};

/// The predicate throws on 2; the thread catches it (the loop would throw in the thread).
struct throwing_predicate : scenario {
  S::atomic<int> x{0};
  int caught = 0, got = -1;
  throwing_predicate() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(2, PILFER_SITE("t.w", relaxed));
      return;
    }
    try {
      got = x.await(
          [](int v) {
            if (v == 2) throw std::runtime_error("two");
            return false;
          },
          PILFER_SITE("t.await", relaxed));
    } catch (const std::runtime_error&) {
      caught = 1;
    }
  }
  void after() override { record({caught, got}); }
};

/// The awaited atomic is destroyed by another thread: the loop reads freed memory.
struct destroyed_under_await : scenario {
  struct box {
    S::atomic<int> a{0};
  };
  box* b = nullptr;
  destroyed_under_await() : scenario(2) {}
  void before() override { b = S::make<box>(); }
  void thread(unsigned i) override {
    if (i == 0)
      S::destroy(b);
    else
      (void)b->a.await([](int v) { return v == 1; }, PILFER_SITE("t.await", relaxed));
  }
};

/// A predicate with state of its own (mutable) is accepted, as the loop's would be.
struct mutable_predicate : scenario {
  S::atomic<int> x{0};
  mutable_predicate() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      x.store(1, PILFER_SITE("t.w", relaxed));
      return;
    }
    int calls = 0;
    (void)x.await(
        [calls](int v) mutable {
          ++calls;
          return v == 1;
        },
        PILFER_SITE("t.await", relaxed));
  }
};

/// A predicate that calls into the checker (an assertion): the process stops with a message
/// instead of corrupting the scheduler.
struct impure_predicate : scenario {
  S::atomic<int> x{0};
  impure_predicate() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0)
      x.store(1, PILFER_SITE("t.w", relaxed));
    else
      (void)x.await(
          [](int v) {
            PILFER_MODEL_ASSERT(v != 1);
            return v == 1;
          },
          PILFER_SITE("t.await", relaxed));
  }
};

/// A predicate that starts a check of its own (an outside tester's: a bare SIGSEGV before).
struct checking_predicate : scenario {
  S::atomic<int> x{0};
  checking_predicate() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0)
      x.store(1, PILFER_SITE("t.w", relaxed));
    else
      (void)x.await([](int v) { return v == 1 && check<impure_predicate>().ok; }, PILFER_SITE("t.await", relaxed));
  }
};

/// A spin lock: take = the CAS retry loop from 0 to 1 (acquire), release = store 0 (release).
template <form F, bool Release = true>
struct cas_lock : scenario {
  S::atomic<int> lock{0};
  S::cell<int> shared{0};
  cas_lock() : scenario(2) {}
  void thread(unsigned i) override {
    if constexpr (F == form::await) {
      lock.await_exchange(0, 1, PILFER_SITE("t.take", acquire));
    } else {
      int expected = 0;
      assume(lock.compare_exchange_strong(expected, 1, PILFER_SITE("t.take", acquire), PILFER_SITE("t.fail", acquire)));
    }
    shared.write() = static_cast<int>(i);
    PILFER_MODEL_ASSERT(shared.read() == static_cast<int>(i));
    if constexpr (Release) lock.store(0, PILFER_SITE("t.release", release));
  }
};

/// Store buffering, seq_cst: each thread stores 1 to its own location, then awaits the other's
/// being 0. Both awaits reading 0 is an SC cycle, so one of them waits for ever (the second
/// outside tester: it passed as "ok" with its executions silently cut). With OneWaits, thread 0
/// reads instead of awaiting: the schedules where thread 1's await is ruled out hang, the others
/// complete.
template <bool OneWaits>
struct sc_ruled_out : scenario {
  S::atomic<int> x{0}, y{0};
  sc_ruled_out() : scenario(2) {}
  void thread(unsigned i) override {
    S::atomic<int>& mine = i == 0 ? x : y;
    S::atomic<int>& other = i == 0 ? y : x;
    mine.store(1, PILFER_SITE("t.st", seq_cst));
    if (OneWaits && i == 0)
      (void)other.load(PILFER_SITE("t.ld", seq_cst));
    else
      other.await_exchange(0, 2, PILFER_SITE("t.take", seq_cst));
  }
};

/// Runs check<Scn>() in a child process; returns whether it was aborted with `needle` on stderr.
template <class Scn>
bool aborts_saying(const std::string& needle, std::string* said) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    (void)check<Scn>();
    _exit(0);
  }
  close(fds[1]);
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) said->append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && said->find(needle) != std::string::npos;
}

}  // namespace

int main() {
  runner t;
  result ra, rs;

  auto a = outcomes<message_passing<form::await>>(&ra);
  auto s = outcomes<message_passing<form::assume>>(&rs);
  t.expect_outcomes("message passing with await: the reader sees the data", a, {{1}}, ra);
  t.expect(ra.executions == rs.executions && ra.blocked == 0 && rs.blocked > 0,
           "message passing: await has the assume form's complete executions and no blocked one",
           cat("await [", ra.summary(), "] assume [", rs.summary(), "]"));

  a = outcomes<two_acceptable<form::await>>(&ra);
  s = outcomes<two_acceptable<form::assume>>(&rs);
  t.expect_outcomes("await may read any accepted store, the older one too", a, {{1}, {2}}, ra);
  t.expect(a == s && ra.executions == rs.executions && ra.blocked == 0,
           "two acceptable stores: the same outcomes and complete executions as assume",
           cat("await [", ra.summary(), "] assume [", rs.summary(), "]"));

  {
    const result hang = check<stale_only<false>>();
    t.expect_failure("an await only a stale store satisfies, nobody writing again: a hang (it said proved)", hang,
                     "deadlock");
    t.expect(hang.message.find("only stale stores satisfy") != std::string::npos &&
                 hang.message.find("at await.cpp:" + std::to_string(stale_only<false>::await_line) +
                                   ", the newest store 2 rejected") != std::string::npos,
             "... and the report names the await's line and the newest store", hang.message);
    t.expect_ok("the same with a later store that satisfies it again: no hang", check<stale_only<true>>());
    t.expect_failure("... and with a yield() spinner waiting for the awaiter: a hang (it said ok)",
                     check<stale_with_spinner<false>>(), "deadlock");
    t.expect_ok("... and with a spinner that writes the accepted value once it sees a flag: no hang",
                check<stale_with_spinner<true>>());
    t.expect_ok("... also when its backoff is two yields in a row (its chance was spent on the second: a false hang)",
                check<stale_with_spinner<true, 2>>());
  }

  ra = check<never_released<form::await>>();
  t.expect_failure("a lock never released: the waiter's await is reported as a hang", ra, "deadlock");
  t.expect(ra.message.find("await(") != std::string::npos, "the hang names the await", ra.message);
  rs = check<never_released<form::assume>>();
  t.expect(rs.ok && rs.blocked > 0,
           "the same program with assume() passes (its hang is only blocked executions): why await exists",
           rs.summary());

  ra = check<await_cycle>();
  t.expect_failure("two awaits on each other: deadlock", ra, "deadlock");

  a = outcomes<branch_on_value>(&ra);
  t.expect_outcomes("an await's value is any accepted store: 1 or 2, never 0", a, {{1}, {2}}, ra);

  options no_memo;
  no_memo.memo_entries = 0;
  result rn;
  const auto with = outcomes<branch_on_value>(&ra);
  const auto without = outcomes<branch_on_value>(&rn, no_memo);
  t.expect(ra.ok && rn.ok && with == without, "await: memoisation changes no outcome",
           show(with) + " vs " + show(without));

  ra = check<uninitialised>();
  t.expect_failure("an await may read an uninitialised value its predicate rejects: reported", ra, "uninitialised read");

  a = outcomes<throwing_predicate>(&ra);
  t.expect_outcomes("a predicate that throws: the thread reads the value and catches the throw", a, {{1, -1}}, ra);

  ra = check<destroyed_under_await>();
  t.expect_failure("an await on an atomic destroyed under it: use after free", ra, "use after free");

  ra = check<mutable_predicate>();
  t.expect_ok("a mutable predicate compiles and runs", ra);

  ra = check<cas_lock<form::await>>();
  rs = check<cas_lock<form::assume>>();
  t.expect(ra.ok && ra.complete && rs.ok && ra.executions == rs.executions && ra.blocked == 0 && rs.blocked > 0,
           "await_exchange: a spin lock has the assume form's complete executions and no blocked one",
           cat("await [", ra.summary(), "] assume [", rs.summary(), "]"));
  ra = check<cas_lock<form::await, false>>();
  t.expect_failure("await_exchange on a lock never released: the second taker hangs", ra, "deadlock");

  ra = check<sc_ruled_out<false>>();
  t.expect_failure("awaits ruled out by seq_cst order alone: a hang, reported", ra, "deadlock");
  ra = check<sc_ruled_out<true>>();
  t.expect_failure("an await ruled out by seq_cst order in some schedules: those hang, reported", ra, "deadlock");

  std::string said;
  t.expect(aborts_saying<impure_predicate>("predicate must be a pure function", &said),
           "a predicate that calls into the checker stops the process with a message", said);
  t.expect(aborts_saying<checking_predicate>("predicate must be a pure function", &said),
           "a predicate that starts a check() stops the process with the same message (it was a bare SIGSEGV)", said);

  return t.done();
}
