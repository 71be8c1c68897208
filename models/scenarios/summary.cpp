// pilfer_model_summary: run every registered scenario exhaustively (within its bounds) and
// print one line each. Exit code 1 if any fails. Used by the README main command.
#include "scenarios.hpp"

#include <chrono>
#include <cstdio>

using namespace pilfer::model;

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  int failed = 0;
  std::printf("pilfer model checker (RC11, exhaustive, memoised) on lib/'s real headers\n");
  for (const auto& e : scenarios::all_scenarios()) {
    const result r = check(e.make, e.opts);
    std::printf("%-30s %s  [%s]\n", e.name.c_str(), r.summary().c_str(), e.ids.c_str());
    std::fflush(stdout);
    if (!r.ok) {
      ++failed;
      std::printf("  %s: %s\n  replay token: %s\n", r.kind.c_str(), r.message.c_str(), r.replay_token.c_str());
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %d scenario(s) failed, %.1fs total\n", failed ? "FAIL" : "ok", failed, s);
  return failed ? 1 : 0;
}
