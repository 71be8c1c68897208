// models/tests/test_util.hpp — tiny harness for the engine self-tests: each test is a
// function returning true on success; outcome sets are collected from scenario::after().
#pragma once

#include <pilfer/model/checker.hpp>

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pilfer::model::test {

using S = checker_sync;
using outcome = std::vector<long>;
using outcome_set = std::set<outcome>;

/// Concatenation by appending. `"literal" + std::string&&` inserts at position 0, which makes g++ 12
/// at -O2/-O3 print a bogus -Wrestrict from inside libstdc++ (GCC PR 105329) in the release build.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(std::string_view(parts)), ...);
  return s;
}

/// Where after() records what the threads saw (one OS thread; fibers share it).
inline outcome_set*& sink() {
  static outcome_set* s = nullptr;
  return s;
}
inline void record(outcome o) {
  if (sink()) sink()->insert(std::move(o));
}

inline std::string show(const outcome_set& s) {
  std::string r = "{";
  for (const auto& o : s) {
    r += " (";
    for (std::size_t i = 0; i < o.size(); ++i) {
      if (i) r += ',';
      r += std::to_string(o[i]);
    }
    r += ")";
  }
  return r + " }";
}

/// Run S exhaustively; return the outcome set (and the result through *res).
template <class Scn>
outcome_set outcomes(result* res = nullptr, options o = {}) {
  outcome_set s;
  sink() = &s;
  result r = check<Scn>(o);
  sink() = nullptr;
  if (res) *res = r;
  return s;
}

struct runner {
  int failures = 0;
  void expect(bool cond, const std::string& name, const std::string& detail = "") {
    std::printf("%s %s%s%s\n", cond ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : "  ", detail.c_str());
    if (!cond) ++failures;
  }
  /// Exact expected outcome set, and the exploration must be complete and ok.
  // The details are built by appending: `"literal" + std::string&&` (operator+ -> insert at 0) makes g++ 12
  // at -O2/-O3 print a bogus -Wrestrict (GCC PR 105329) from inside libstdc++.
  void expect_outcomes(const std::string& name, const outcome_set& got, const outcome_set& want, const result& r) {
    std::string d = "got ";
    d += show(got);
    d += " want ";
    d += show(want);
    d += "  [";
    d += r.summary();
    d += "]";
    if (!r.ok) (d += "\n").append(r.message).append("\n").append(r.trace);
    expect(r.ok && r.complete && got == want, name, d);
  }
  void expect_failure(const std::string& name, const result& r, const std::string& kind) {
    std::string d = "[";
    d += r.summary();
    d += "] expected kind=";
    d += kind;
    if (!r.ok) (d += " message: ").append(r.message);
    expect(!r.ok && r.kind == kind, name, d);
  }
  void expect_ok(const std::string& name, const result& r) {
    std::string d = "[";
    d += r.summary();
    d += "]";
    if (!r.ok) (d += " ").append(r.kind).append(": ").append(r.message).append("\n").append(r.trace);
    expect(r.ok && r.complete, name, d);
  }
  int done() const {
    std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures ? 1 : 0;
  }
};

}  // namespace pilfer::model::test
