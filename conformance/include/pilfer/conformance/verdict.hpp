// pilfer/conformance/verdict.hpp — what one requirement test returns.
//
// Every requirement test is a plain function `verdict f(const run_config&)`, so the
// same code powers the ctest tests (one test per requirement x implementation) and
// the report (requirement x implementation table). A verdict is one of
//   pass  — the requirement held on every generated case,
//   fail  — it did not: the seed that reproduces it and the smallest failing case,
//   na    — the requirement does not apply to this implementation (never "pass").
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace pilfer::conformance {

enum class verdict_kind { pass, fail, na };

struct verdict {
  verdict_kind kind = verdict_kind::na;
  std::uint64_t seed = 0;
  std::string detail;  // fail: smallest failing case; pass: what was run; na: why

  static verdict pass(std::string what = {}) { return {verdict_kind::pass, 0, std::move(what)}; }
  static verdict fail(std::uint64_t seed, std::string smallest_case) {
    return {verdict_kind::fail, seed, std::move(smallest_case)};
  }
  static verdict na(std::string why) { return {verdict_kind::na, 0, std::move(why)}; }

  bool passed() const noexcept { return kind == verdict_kind::pass; }
  bool failed() const noexcept { return kind == verdict_kind::fail; }
};

inline const char* to_string(verdict_kind k) noexcept {
  switch (k) {
    case verdict_kind::pass: return "pass";
    case verdict_kind::fail: return "FAIL";
    case verdict_kind::na: return "n/a";
  }
  return "?";
}

/// Parameters shared by every requirement test of one run.
struct run_config {
  std::uint64_t seed = 1;
  bool thorough = false;  // --thorough: ~10x the cases/repetitions
  bool verbose = false;
  /// Scale a count by the run mode.
  int scaled(int quick) const noexcept { return thorough ? quick * 10 : quick; }
};

/// A monotonic deadline (used to bound shrinking of racy properties and waits).
class deadline {
 public:
  explicit deadline(std::chrono::nanoseconds d) : end_(std::chrono::steady_clock::now() + d) {}
  bool passed() const noexcept { return std::chrono::steady_clock::now() >= end_; }

 private:
  std::chrono::steady_clock::time_point end_;
};

}  // namespace pilfer::conformance
