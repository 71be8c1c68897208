// conformance/src/child_process.cpp — see child_process.hpp.
#include "child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace pilfer::conformance {
namespace {

/// The result travels as "<decimal length>\n<bytes>": a child that dies mid-write is not mistaken for one
/// that finished.
void write_all(int fd, const std::string& s) {
  const char* p = s.data();
  std::size_t left = s.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

bool decode(const std::string& raw, std::string& out) {
  const auto nl = raw.find('\n');
  if (nl == std::string::npos || nl == 0 || nl > 20) return false;
  std::size_t len = 0;
  for (std::size_t i = 0; i < nl; ++i) {
    if (raw[i] < '0' || raw[i] > '9') return false;
    len = len * 10 + static_cast<std::size_t>(raw[i] - '0');
  }
  if (raw.size() - nl - 1 != len) return false;
  out = raw.substr(nl + 1);
  return true;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

child_outcome run_in_child(const std::function<std::string()>& body, std::chrono::milliseconds limit) {
  child_outcome o;
  int fds[2];
  if (::pipe(fds) != 0) {
    o.result = std::string("pipe: ") + std::strerror(errno);
    return o;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    o.result = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return o;
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string r = body();
    write_all(fds[1], std::to_string(r.size()) + "\n" + r);
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(fds[1]);
  const auto end = t0 + limit;
  std::string raw;
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int pr = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed the pipe (finished or died)
    raw.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (timed_out) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  } else {
    // EOF came first; the child is leaving. Give it until the limit to be reaped, then kill it.
    for (;;) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid || (w < 0 && errno != EINTR)) break;
      if (std::chrono::steady_clock::now() >= end) {
        timed_out = true;
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      ::usleep(2000);
    }
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string result;
  if (timed_out && !decode(raw, result)) {
    o.end = child_end::timed_out;
  } else if (WIFSIGNALED(status)) {
    o.end = child_end::signalled;
    o.code = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && decode(raw, result)) {
    o.end = child_end::finished;
    o.result = std::move(result);
  } else {
    o.end = child_end::exited;
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return o;
}

std::string describe_signal(int sig) {
  const char* name = nullptr;
  switch (sig) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGTERM: name = "SIGTERM"; break;
    case SIGTRAP: name = "SIGTRAP"; break;
    default: break;
  }
  std::string s = name ? name : "signal " + std::to_string(sig);
  const char* what = ::strsignal(sig);
  if (what) s += std::string(" (") + what + ")";
  return s;
}

std::string describe_abnormal_end(const child_outcome& o, std::chrono::milliseconds limit) {
  switch (o.end) {
    case child_end::finished: return {};
    case child_end::signalled: return "crashed: " + describe_signal(o.code) + " after " + seconds_text(o.seconds);
    case child_end::exited:
      return "exited with status " + std::to_string(o.code) + " after " + seconds_text(o.seconds) +
             " without a verdict (a sanitizer report or abort message on stderr above says why)";
    case child_end::timed_out:
      return "no verdict within the " + seconds_text(std::chrono::duration<double>(limit).count()) +
             " limit (hung or too slow; killed with SIGKILL)";
    case child_end::not_started: return "could not start the child process: " + o.result;
  }
  return "?";
}

}  // namespace pilfer::conformance
