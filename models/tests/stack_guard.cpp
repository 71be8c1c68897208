// Engine self-test: a modelled thread that overflows its fiber stack (options::stack_size) is
// stopped at the guard page below the stack with one line naming the thread and the option,
// instead of a bare SIGSEGV (or, worse, writing over whatever lay below the stack); with a
// larger options::stack_size the same scenario runs. The overflow runs in a child process. A
// frame larger than the guard pages (a 1 MiB local) is named too: the handler finds the stack
// pointer below the running fiber's stack wherever the first access faults.
// @verifies MC-3
#include "test_util.hpp"

#include <csignal>
#include <cstdlib>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

// t1 recurses 2000 frames of at least 512 bytes each: about 1 MiB of stack
struct deep_recursion : scenario {
  S::atomic<int> x{0};
  deep_recursion() : scenario(1) {}
  static int down(int n) {
    volatile char frame[512];
    frame[0] = static_cast<char>(n);
    return n == 0 ? frame[0] : down(n - 1) + frame[0];
  }
  void thread(unsigned) override { x.store(down(2000), PILFER_SITE("sg.x", relaxed)); }
};

// t1 has one 1 MiB local: its frame steps over the guard pages at once, and its first access
// lands below them (before, a bare SIGSEGV with no word of the stack)
struct huge_local : scenario {
  S::atomic<int> x{0};
  huge_local() : scenario(1) {}
  static int fill() {
    volatile char frame[1 << 20];
    for (std::size_t k = 0; k < sizeof frame; k += 4096) frame[k] = 1;
    return frame[0];
  }
  void thread(unsigned) override { x.store(fill(), PILFER_SITE("sg.x", relaxed)); }
};

struct child_outcome {
  int status = 0;
  std::string err;
};

/// check<Scn>(o) in a child process: how it ended and what it wrote to stderr.
template <class Scn>
child_outcome run_in_child(const options& o) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    const result r = check<Scn>(o);
    std::_Exit(r.ok ? 0 : 1);
  }
  close(fds[1]);
  child_outcome out;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.err.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  waitpid(pid, &out.status, 0);
  return out;
}

}  // namespace

int main() {
  runner t;
  options small;  // the default 256 KiB
  const child_outcome c = run_in_child<deep_recursion>(small);
  const child_outcome h = run_in_child<huge_local>(small);
#if defined(__SANITIZE_ADDRESS__)
#define STACK_GUARD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACK_GUARD_TEST_ASAN 1
#endif
#endif
#ifdef STACK_GUARD_TEST_ASAN
  // Under AddressSanitizer the engine sets no guard pages: ASan reports the overflow itself, with
  // the frame, and exits non-zero.
  t.expect(!(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0) &&
               c.err.find("AddressSanitizer: stack-overflow") != std::string::npos,
           "overflowing the 256 KiB stack is reported (by AddressSanitizer in this build)",
           "status " + std::to_string(c.status) + " stderr: " + c.err);
  t.expect(!(WIFEXITED(h.status) && WEXITSTATUS(h.status) == 0) && h.err.find("AddressSanitizer") != std::string::npos,
           "a 1 MiB local on the 256 KiB stack is reported (by AddressSanitizer in this build)",
           "status " + std::to_string(h.status) + " stderr: " + h.err);
#else
  t.expect(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGSEGV &&
               c.err.find("pilfer model: modelled thread t1 overflowed its fiber stack of 262144 bytes "
                          "(options::stack_size") != std::string::npos,
           "overflowing the 256 KiB stack names the thread and options::stack_size",
           "status " + std::to_string(c.status) + " stderr: " + c.err);
  t.expect(WIFSIGNALED(h.status) && WTERMSIG(h.status) == SIGSEGV &&
               h.err.find("pilfer model: modelled thread t1 overflowed its fiber stack of 262144 bytes") !=
                   std::string::npos,
           "a 1 MiB local, stepping over the guard pages, names the thread and options::stack_size",
           "status " + std::to_string(h.status) + " stderr: " + h.err);
#endif

  options big;
  big.stack_size = 4 << 20;
  const result r = check<deep_recursion>(big);
  t.expect_ok("with options::stack_size = 4 MiB the same scenario runs", r);

  // the guard pages are released with the check: a fresh check (new stacks) runs as before
  t.expect_ok("a check after it runs", check<deep_recursion>(big));
  return t.done();
}
