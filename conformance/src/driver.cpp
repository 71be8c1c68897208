// conformance/src/driver.cpp — command-line driver shared by the in-tree suite, the report
// and outside projects (pilfer_add_conformance compiles this file into their runner).
//
//   runner --impl NAME --req ID      one verdict; exit 0 pass, 1 fail, 77 n/a (ctest skip)
//   runner --impl MUTANT --expect-kill   exit 0 when the mutant's target requirement fails
//   runner [--report] [--out DIR]    every requirement x implementation + the mutant kill table
//   runner --kill-rate N             run each mutant's target requirement N times (seeds seed..seed+N-1)
//   common: --seed N (or PILFER_SEED=N), --thorough, --list
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pilfer/conformance/suite.hpp"

namespace pilfer::conformance {
namespace {

struct options {
  std::string req, impl, out;
  bool report = false, expect_kill = false, list = false;
  int kill_rate = 0;
  run_config cfg;
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

std::string md_escape(std::string s) {
  for (auto& c : s)
    if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
  return s;
}

struct result {
  const implementation* impl;
  const requirement_test* test;
  verdict v;
  double seconds;
};

/// pilfer's own components, the mutants' correct bases and an outside project's subject must pass;
/// a peer's failure is a finding.
bool must_pass(const implementation& im) {
  return im.role == "pilfer" || im.role == "reference" || im.role == "subject";
}

result run_one(const implementation& im, const requirement_test& t, const run_config& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  verdict v;
  try {
    v = t.run(cfg);
  } catch (const std::exception& e) {
    v = verdict::fail(cfg.seed, std::string("test threw: ") + e.what());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {&im, &t, std::move(v), s};
}

/// A mutant's kill is attempted with successive seeds (seed, seed+1, ...) until the requirement fails or
/// kMutantAttempts runs have passed: race-dependent mutants (lost/duplicated last element, lost wake-up) are
/// exposed by most runs but not all, and a conformance suite must not let one lucky schedule pass a broken
/// implementation. The attempt count that killed it is reported; correct implementations are run once per
/// report (their confidence comes from the iterations inside each test and from --thorough).
/// The budget is "at least kMutantAttempts runs, and keep going until kMutantBudgetSeconds have been spent":
/// on a loaded machine a race window needs real parallelism and may take more runs to open.
constexpr int kMutantAttempts = 12;
constexpr double kMutantBudgetSeconds = 120.0;
result run_mutant(const implementation& im, const requirement_test& t, run_config cfg, int* attempts) {
  result r = run_one(im, t, cfg);
  int n = 1;
  double total = r.seconds;
  while (!r.v.failed() && (n < kMutantAttempts || total < kMutantBudgetSeconds)) {
    cfg.seed += 1;
    r = run_one(im, t, cfg);
    total += r.seconds;
    ++n;
  }
  r.seconds = total;
  if (attempts) *attempts = n;
  return r;
}

void print_line(const result& r) {
  std::printf("  %-28s %-8s %-5s %6.2fs  %s\n", r.impl->name.c_str(), r.test->id.c_str(), to_string(r.v.kind),
              r.seconds, r.v.failed() ? ("seed=" + std::to_string(r.v.seed) + " " + r.v.detail).c_str() : "");
  std::fflush(stdout);
}

int run_report(const registry& reg, const options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<result> results;
  std::printf("pilfer conformance report  seed=%llu%s\n", static_cast<unsigned long long>(o.cfg.seed),
              o.cfg.thorough ? " (thorough)" : "");
  for (const auto& im : reg.impls()) {
    if (!o.impl.empty() && im.name != o.impl) continue;
    for (const auto& t : im.tests) {
      if (!o.req.empty() && t.id != o.req) continue;
      // Mutants: only the requirement each one breaks (the kill), keeping the report fast.
      if (im.role == "mutant" && !im.target.empty() && t.id != im.target) continue;
      if (im.role == "mutant") {
        int attempts = 0;
        results.push_back(run_mutant(im, t, o.cfg, &attempts));
        if (attempts > 1) results.back().v.detail += " (killed on attempt " + std::to_string(attempts) + ")";
      } else {
        results.push_back(run_one(im, t, o.cfg));
      }
      print_line(results.back());
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Markdown: one table per kind (requirements x implementations), then the kill table.
  std::ostringstream md;
  md << "# pilfer conformance report\n\nseed=" << o.cfg.seed << (o.cfg.thorough ? " (thorough)" : "")
     << ", total " << static_cast<int>(total) << " s. Reproduce one cell: `pilfer_conformance --impl NAME --req ID "
     << "--seed N`.\n\n";
  int pilfer_failures = 0, survivors = 0, findings = 0;
  std::vector<std::string> notes;
  for (kind k : {kind::deque, kind::injector, kind::pool, kind::graph}) {
    std::vector<const implementation*> cols;
    std::vector<std::string> ids;
    for (const auto& im : reg.impls())
      if (im.k == k && im.role != "mutant" && (o.impl.empty() || im.name == o.impl)) {
        cols.push_back(&im);
        for (const auto& t : im.tests)
          if (std::find(ids.begin(), ids.end(), t.id) == ids.end() && (o.req.empty() || t.id == o.req))
            ids.push_back(t.id);
      }
    if (cols.empty()) continue;
    md << "## " << to_string(k) << "\n\n| requirement |";
    for (auto* c : cols) md << " " << c->name << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < cols.size(); ++i) md << "---|";
    md << "\n";
    for (const auto& id : ids) {
      std::string title;
      md << "| " << id;
      std::ostringstream row;
      for (auto* c : cols) {
        const result* found = nullptr;
        for (const auto& r : results)
          if (r.impl == c && r.test->id == id) found = &r;
        if (!found) {
          row << " — |";
          continue;
        }
        title = found->test->title;
        if (found->v.failed()) {
          row << " **FAIL** [" << notes.size() + 1 << "] |";
          notes.push_back(c->name + " " + id + ": seed=" + std::to_string(found->v.seed) + " " + found->v.detail);
          if (must_pass(*c)) ++pilfer_failures; else ++findings;
        } else {
          row << " " << to_string(found->v.kind) << " |";
        }
      }
      md << " " << md_escape(title) << " |" << row.str() << "\n";
    }
    md << "\n";
  }
  if (!notes.empty()) {
    md << "Failures (pilfer, reference and subject implementations must have none; a peer's failure is a "
          "finding):\n\n";
    for (std::size_t i = 0; i < notes.size(); ++i) md << "[" << i + 1 << "] " << md_escape(notes[i]) << "\n\n";
  }
  bool any_mutant = false;
  for (const auto& r : results)
    if (r.impl->role == "mutant") any_mutant = true;
  if (any_mutant) {
    md << "## mutants (each must be killed by the requirement it breaks)\n\n"
          "| mutant | kind | change | target | verdict | time | smallest failing case |\n|---|---|---|---|---|---|---|\n";
    for (const auto& r : results) {
      if (r.impl->role != "mutant") continue;
      const bool killed = r.v.failed();
      if (!killed) ++survivors;
      md << "| " << r.impl->name << " | " << to_string(r.impl->k) << " | " << md_escape(r.impl->description) << " | "
         << r.test->id << " | " << (killed ? "killed" : "**SURVIVED**") << " | " << static_cast<int>(r.seconds * 1000)
         << " ms | " << (killed ? "seed=" + std::to_string(r.v.seed) + " " + md_escape(r.v.detail) : "") << " |\n";
    }
    md << "\n";
  }
  md << "Summary: " << pilfer_failures << " failure(s) of must-pass implementations, " << survivors << " surviving mutant(s), " << findings
     << " finding(s) on peers.\n";

  std::ostringstream js;
  js << "{\n  \"seed\": " << o.cfg.seed << ",\n  \"thorough\": " << (o.cfg.thorough ? "true" : "false")
     << ",\n  \"seconds\": " << total << ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    js << "    {\"implementation\": \"" << json_escape(r.impl->name) << "\", \"kind\": \"" << to_string(r.impl->k)
       << "\", \"role\": \"" << r.impl->role << "\", \"requirement\": \"" << r.test->id << "\", \"verdict\": \""
       << (r.v.kind == verdict_kind::pass ? "pass" : r.v.kind == verdict_kind::fail ? "fail" : "n/a")
       << "\", \"seed\": " << r.v.seed << ", \"detail\": \"" << json_escape(r.v.detail) << "\", \"seconds\": " << r.seconds;
    if (r.impl->role == "mutant")
      js << ", \"target\": \"" << r.impl->target << "\", \"killed\": " << (r.v.failed() ? "true" : "false");
    js << "}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  js << "  ],\n  \"pilfer_failures\": " << pilfer_failures << ",\n  \"surviving_mutants\": " << survivors
     << ",\n  \"peer_findings\": " << findings << "\n}\n";

  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    std::ofstream(std::filesystem::path(o.out) / "conformance.md") << md.str();
    std::ofstream(std::filesystem::path(o.out) / "conformance.json") << js.str();
    std::printf("written: %s/conformance.md, %s/conformance.json\n", o.out.c_str(), o.out.c_str());
  }
  return (pilfer_failures == 0 && survivors == 0) ? 0 : 1;
}

int run_kill_rate(const registry& reg, const options& o) {
  std::printf("kill rate over %d runs per mutant (seeds %llu..)\n", o.kill_rate,
              static_cast<unsigned long long>(o.cfg.seed));
  int worst_ok = 1;
  for (const auto& im : reg.impls()) {
    if (im.role != "mutant" || (!o.impl.empty() && im.name != o.impl)) continue;
    for (const auto& t : im.tests) {
      if (t.id != im.target) continue;
      int killed = 0;
      double secs = 0;
      for (int i = 0; i < o.kill_rate; ++i) {
        run_config c = o.cfg;
        c.seed = o.cfg.seed + static_cast<std::uint64_t>(i);
        auto r = run_one(im, t, c);
        secs += r.seconds;
        if (r.v.failed()) ++killed;
      }
      std::printf("  %-28s %-8s killed %d/%d  (mean %.2fs)\n", im.name.c_str(), t.id.c_str(), killed, o.kill_rate,
                  secs / o.kill_rate);
      std::fflush(stdout);
      if (killed != o.kill_rate) worst_ok = 0;
    }
  }
  return worst_ok ? 0 : 1;
}

}  // namespace

int main(const registry& reg, int argc, char** argv) {
  options o;
  bool seeded = false;
  if (const char* s = std::getenv("PILFER_SEED")) {
    o.cfg.seed = std::strtoull(s, nullptr, 10);
    seeded = true;
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      const std::string n = name;
      if (a.rfind(n + "=", 0) == 0) return a.substr(n.size() + 1);
      if (i + 1 < argc) return argv[++i];
      std::fprintf(stderr, "%s needs a value\n", name);
      std::exit(2);
    };
    if (a == "--req" || a.rfind("--req=", 0) == 0) o.req = value("--req");
    else if (a == "--impl" || a.rfind("--impl=", 0) == 0) o.impl = value("--impl");
    else if (a == "--out" || a.rfind("--out=", 0) == 0) o.out = value("--out");
    else if (a == "--seed" || a.rfind("--seed=", 0) == 0) { o.cfg.seed = std::stoull(value("--seed")); seeded = true; }
    else if (a == "--kill-rate" || a.rfind("--kill-rate=", 0) == 0) o.kill_rate = std::stoi(value("--kill-rate"));
    else if (a == "--thorough") o.cfg.thorough = true;
    else if (a == "--report") o.report = true;
    else if (a == "--expect-kill") o.expect_kill = true;
    else if (a == "--list") o.list = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--impl NAME] [--req ID] [--expect-kill] [--report] [--out DIR] [--seed N] "
                   "[--thorough] [--kill-rate N] [--list]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!seeded)
    o.cfg.seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) % 1000000007u;
  std::printf("seed=%llu\n", static_cast<unsigned long long>(o.cfg.seed));
  std::fflush(stdout);

  if (o.list) {
    for (const auto& im : reg.impls()) {
      std::printf("%s %s %s", im.name.c_str(), to_string(im.k), im.role.c_str());
      for (const auto& t : im.tests) std::printf(" %s", t.id.c_str());
      std::printf("%s%s\n", im.target.empty() ? "" : " target=", im.target.c_str());
    }
    return 0;
  }
  if (o.kill_rate > 0) return run_kill_rate(reg, o);
  if (o.expect_kill) {
    for (const auto& im : reg.impls()) {
      if (im.name != o.impl) continue;
      for (const auto& t : im.tests) {
        if (t.id != (o.req.empty() ? im.target : o.req)) continue;
        int attempts = 0;
        auto r = run_mutant(im, t, o.cfg, &attempts);
        print_line(r);
        std::printf("%s: mutant %s by %s after %d attempt(s) (seeds %llu..)\n", im.name.c_str(),
                    r.v.failed() ? "killed" : "SURVIVED", t.id.c_str(), attempts,
                    static_cast<unsigned long long>(o.cfg.seed));
        return r.v.failed() ? 0 : 1;
      }
    }
    std::fprintf(stderr, "no such mutant/requirement: %s %s\n", o.impl.c_str(), o.req.c_str());
    return 2;
  }
  if (!o.impl.empty() && !o.req.empty() && !o.report) {
    for (const auto& im : reg.impls()) {
      if (im.name != o.impl) continue;
      for (const auto& t : im.tests) {
        if (t.id != o.req) continue;
        auto r = run_one(im, t, o.cfg);
        print_line(r);
        if (!r.v.failed()) std::printf("  %s\n", r.v.detail.c_str());
        if (r.v.kind == verdict_kind::na) return 77;
        return r.v.failed() ? 1 : 0;
      }
    }
    std::fprintf(stderr, "no such implementation/requirement: %s %s\n", o.impl.c_str(), o.req.c_str());
    return 2;
  }
  return run_report(reg, o);
}

}  // namespace pilfer::conformance
