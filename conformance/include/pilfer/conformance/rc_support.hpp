// pilfer/conformance/rc_support.hpp — run a rapidcheck property and turn the result into a verdict.
#pragma once

#include <rapidcheck.h>

#include <sstream>
#include <string>
#include <utility>

#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

/// Check `testable` with rapidcheck using the run's seed; `cases` generated cases
/// of size up to `max_size`. On failure rapidcheck has already shrunk the case;
/// the verdict carries its description and the counterexample text.
/// The message of the most recent failing case (racy properties: rapidcheck re-runs the smallest
/// case to describe it, and a race may not repeat; this keeps the message of the run that failed).
inline std::string& last_failure_message() {
  static thread_local std::string m;
  return m;
}

/// Fail the current case with `msg` (recorded for the verdict).
#define PILFER_CONF_FAIL(msg)                                   \
  do {                                                          \
    ::pilfer::conformance::last_failure_message() = (msg);      \
    RC_FAIL(::pilfer::conformance::last_failure_message());     \
  } while (0)

template <class Testable>
verdict rc_verdict(const run_config& cfg, const char* id, int cases, int max_size, Testable&& t) {
  rc::detail::TestParams params;
  params.seed = cfg.seed;
  params.maxSuccess = cases;
  params.maxSize = max_size;
  params.maxDiscardRatio = 10;
  rc::detail::TestMetadata meta;
  meta.id = id;
  meta.description = id;
  last_failure_message().clear();
  const auto result = rc::detail::checkTestable(std::forward<Testable>(t), meta, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::ostringstream os;
    const std::string& recorded = last_failure_message();
    os << (recorded.empty() ? failure.description : recorded);
    for (const auto& [type, text] : failure.counterExample) os << " | smallest case: " << text;
    os << " (after " << failure.numSuccess << " passing cases)";
    return verdict::fail(cfg.seed, os.str());
  }
  rc::detail::GaveUpResult gave_up;
  if (result.match(gave_up)) return verdict::fail(cfg.seed, "rapidcheck gave up: " + gave_up.description);
  rc::detail::Error error;
  if (result.match(error)) return verdict::fail(cfg.seed, "rapidcheck error: " + error.description);
  std::ostringstream os;
  os << cases << " generated cases";
  return verdict::pass(os.str());
}

/// Racy properties are not deterministic: a failing case may pass when shrinking
/// re-runs it. A shrink budget stops the search after a while (the smallest case
/// found so far is kept) so a verdict never takes unbounded time.
class shrink_budget {
 public:
  explicit shrink_budget(std::chrono::milliseconds d) : d_(d) {}
  /// Call when a case fails: starts the budget on the first failure.
  void on_failure() {
    if (!started_) {
      started_ = true;
      end_ = std::chrono::steady_clock::now() + d_;
    }
  }
  /// True once shrinking has used up its time: properties then accept every case.
  bool exhausted() const { return started_ && std::chrono::steady_clock::now() >= end_; }

 private:
  std::chrono::milliseconds d_;
  bool started_ = false;
  std::chrono::steady_clock::time_point end_{};
};

}  // namespace pilfer::conformance
