// conformance/src/child_process.hpp — run one piece of work in a forked child process with a time limit.
//
// The conformance driver runs every requirement test (and every mutant kill attempt) this way, so an
// implementation that crashes (use-after-free, abort, sanitizer report) or hangs ends that one verdict,
// not the report (REL-1). POSIX only (fork, pipe, poll, waitpid).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace pilfer::conformance {

/// How a child run ended.
enum class child_end {
  finished,   // the body returned and its result was read back
  exited,     // the process exited (status != 0, or 0 without a complete result) before the body returned
  signalled,  // killed by a signal it raised itself (SIGSEGV, SIGABRT, ...)
  timed_out,  // still running at the limit: killed with SIGKILL by the parent
  not_started // fork or pipe failed (the reason is in `result`)
};

struct child_outcome {
  child_end end = child_end::not_started;
  int code = 0;        // exited: exit status; signalled: signal number
  std::string result;  // finished: what the body returned; not_started: the system error
  double seconds = 0;  // wall time of the child
};

/// Fork; the child runs `body`, writes its result to a pipe and leaves with _exit(0) (no static
/// destructors: a broken implementation's leftover threads must not keep it alive). The parent waits at
/// most `limit`, then kills the child. stdout/stderr are flushed before the fork and shared with the child.
child_outcome run_in_child(const std::function<std::string()>& body, std::chrono::milliseconds limit);

/// "SIGSEGV (segmentation fault)" for a signal number.
std::string describe_signal(int sig);

/// One line: "crashed: SIGSEGV (segmentation fault) after 0.3 s", "no verdict within 5 s (killed)", ...
std::string describe_abnormal_end(const child_outcome& o, std::chrono::milliseconds limit);

}  // namespace pilfer::conformance
