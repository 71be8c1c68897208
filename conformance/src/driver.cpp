// conformance/src/driver.cpp — command-line driver shared by the in-tree suite, the report
// and outside projects (pilfer_add_conformance compiles this file into their runner).
//
//   runner --impl NAME --req ID      one verdict; exit 0 pass, 1 fail, 77 n/a (ctest skip)
//   runner --impl MUTANT --expect-kill   exit 0 when the mutant's target requirement fails
//   runner [--report] [--out DIR]    every requirement x implementation + the mutant kill table
//   runner --kill-rate N             run each mutant's target requirement N times (seeds seed..seed+N-1)
//   common: --seed N (or PILFER_SEED=N), --thorough, --list,
//           --time-limit S (per requirement run, default 300), --in-process (no child process; for debuggers)
//
// Isolation (REL-1): every requirement run and every mutant kill attempt happens in a forked child process
// (child_process.hpp) with a time limit. A crash, an early exit (sanitizer report, abort) or a timeout
// becomes a FAIL verdict with the reason, the seed and the command that replays it; the report still
// completes (Markdown + JSON) and the exit status still says whether every must-pass implementation passed.
// Bad options get one line on stderr and exit status 2.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "pilfer/testing/seed.hpp"
#include "pilfer/conformance/suite.hpp"

namespace pilfer::conformance {
namespace {

struct options {
  std::string req, impl, out;
  bool report = false, expect_kill = false, list = false, in_process = false;
  int kill_rate = 0;
  std::chrono::milliseconds time_limit{300'000};
  std::string program = "pilfer_conformance";
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
  child_end ended;  // finished = the test gave the verdict; otherwise the child crashed / exited / hung
};

/// pilfer's own components, the mutants' correct bases and an outside project's subject must pass;
/// a peer's failure is a finding.
bool must_pass(const implementation& im) {
  return im.role == "pilfer" || im.role == "reference" || im.role == "subject";
}

/// How one run ended, for the report: "verdict" (the test returned one), or the child's abnormal end.
const char* ended_name(child_end e) {
  switch (e) {
    case child_end::finished: return "verdict";
    case child_end::exited: return "exited";
    case child_end::signalled: return "crashed";
    case child_end::timed_out: return "timed_out";
    case child_end::not_started: return "not_started";
  }
  return "?";
}

std::string replay_command(const options& o, const implementation& im, const requirement_test& t,
                           std::uint64_t seed) {
  return o.program + " --impl " + im.name + " --req " + t.id + " --seed " + std::to_string(seed);
}

verdict run_test(const requirement_test& t, const run_config& cfg) {
  try {
    return t.run(cfg);
  } catch (const std::exception& e) {
    return verdict::fail(cfg.seed, std::string("test threw: ") + e.what());
  } catch (...) {
    return verdict::fail(cfg.seed, "test threw a non-standard exception");
  }
}

/// A verdict crosses the pipe as "<kind digit> <seed>\n<detail>".
std::string encode(const verdict& v) {
  return std::to_string(static_cast<int>(v.kind)) + " " + std::to_string(v.seed) + "\n" + v.detail;
}

bool decode(const std::string& s, verdict& v) {
  const auto nl = s.find('\n');
  const auto sp = s.find(' ');
  if (nl == std::string::npos || sp != 1 || sp > nl || s[0] < '0' || s[0] > '2') return false;
  std::uint64_t seed = 0;
  const auto [p, ec] = std::from_chars(s.data() + 2, s.data() + nl, seed);
  if (ec != std::errc() || p != s.data() + nl) return false;
  v.kind = static_cast<verdict_kind>(s[0] - '0');
  v.seed = seed;
  v.detail = s.substr(nl + 1);
  return true;
}

result run_one(const implementation& im, const requirement_test& t, const run_config& cfg, const options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  result r{&im, &t, {}, 0, child_end::finished};
  if (o.in_process) {
    r.v = run_test(t, cfg);
  } else {
    const child_outcome c = run_in_child([&] { return encode(run_test(t, cfg)); }, o.time_limit);
    if (c.end != child_end::finished) {
      r.ended = c.end;
      r.v = verdict::fail(cfg.seed, describe_abnormal_end(c, o.time_limit) + "; replay: " +
                                        replay_command(o, im, t, cfg.seed));
    } else if (!decode(c.result, r.v)) {
      r.ended = child_end::exited;
      r.v = verdict::fail(cfg.seed, "the child's verdict could not be read back; replay: " +
                                        replay_command(o, im, t, cfg.seed));
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
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
result run_mutant(const implementation& im, const requirement_test& t, run_config cfg, const options& o,
                  int* attempts) {
  result r = run_one(im, t, cfg, o);
  int n = 1;
  double total = r.seconds;
  while (!r.v.failed() && (n < kMutantAttempts || total < kMutantBudgetSeconds)) {
    cfg.seed += 1;
    r = run_one(im, t, cfg, o);
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
        results.push_back(run_mutant(im, t, o.cfg, o, &attempts));
        if (attempts > 1) results.back().v.detail += " (killed on attempt " + std::to_string(attempts) + ")";
      } else {
        results.push_back(run_one(im, t, o.cfg, o));
      }
      print_line(results.back());
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Markdown: one table per kind (requirements x implementations), then the kill table.
  std::ostringstream md;
  md << "# pilfer conformance report\n\nseed=" << o.cfg.seed << (o.cfg.thorough ? " (thorough)" : "")
     << ", total " << static_cast<int>(total) << " s. Every requirement ran in its own child process with a "
     << std::chrono::duration<double>(o.time_limit).count() << " s limit; a crash or a timeout is a FAIL. Reproduce one "
     << "cell: `" << o.program << " --impl NAME --req ID --seed N` (add `--in-process` to debug it).\n\n";
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
          std::string note = c->name + " " + id + ": seed=" + std::to_string(found->v.seed) + " " + found->v.detail;
          if (found->ended == child_end::finished)
            note += "; replay: " + replay_command(o, *c, *found->test, found->v.seed);
          notes.push_back(note);
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
       << "\", \"ended\": \"" << ended_name(r.ended) << "\", \"seed\": " << r.v.seed << ", \"detail\": \""
       << json_escape(r.v.detail) << "\", \"seconds\": " << r.seconds;
    if (r.v.failed()) js << ", \"replay\": \"" << json_escape(replay_command(o, *r.impl, *r.test, r.v.seed)) << "\"";
    if (r.impl->role == "mutant")
      js << ", \"target\": \"" << r.impl->target << "\", \"killed\": " << (r.v.failed() ? "true" : "false");
    js << "}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  js << "  ],\n  \"pilfer_failures\": " << pilfer_failures << ",\n  \"surviving_mutants\": " << survivors
     << ",\n  \"peer_findings\": " << findings << "\n}\n";

  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    const auto md_path = std::filesystem::path(o.out) / "conformance.md";
    const auto js_path = std::filesystem::path(o.out) / "conformance.json";
    std::ofstream md_file(md_path), js_file(js_path);
    md_file << md.str();
    js_file << js.str();
    md_file.close();
    js_file.close();
    if (ec || !md_file || !js_file) {
      std::fprintf(stderr, "%s: error: cannot write the report into '%s'%s%s\n", o.program.c_str(), o.out.c_str(),
                   ec ? ": " : "", ec ? ec.message().c_str() : "");
      return 2;
    }
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
        auto r = run_one(im, t, c, o);
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

using pilfer::testing::parse_u64;

[[noreturn]] void bad_option(const std::string& program, const std::string& what) {
  std::fprintf(stderr, "%s: error: %s (see --help)\n", program.c_str(), what.c_str());
  std::exit(2);
}

void usage(const char* program) {
  std::printf(
      "usage: %s [--impl NAME] [--req ID] [--expect-kill] [--report] [--out DIR] [--seed N] [--thorough]\n"
      "          [--kill-rate N] [--time-limit SECONDS] [--in-process] [--list] [--help]\n",
      program);
}

}  // namespace

int main(const registry& reg, int argc, char** argv) {
  options o;
  if (argc > 0 && argv[0] && *argv[0]) o.program = argv[0];
  bool seeded = false;
  if (const char* s = std::getenv("PILFER_SEED")) {
    const auto v = parse_u64(s);
    if (!v) bad_option(o.program, std::string("PILFER_SEED must be an unsigned decimal number, got '") + s + "'");
    o.cfg.seed = *v;
    seeded = true;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto takes = [&](const char* name) { return a == name || a.rfind(std::string(name) + "=", 0) == 0; };
    auto value = [&](const char* name) -> std::string {
      const std::string n = name;
      if (a.rfind(n + "=", 0) == 0) return a.substr(n.size() + 1);
      if (i + 1 < argc) return argv[++i];
      bad_option(o.program, n + " needs a value");
    };
    auto number = [&](const char* name, std::uint64_t lo, std::uint64_t hi) -> std::uint64_t {
      const std::string text = value(name);
      const auto v = parse_u64(text);
      if (!v || *v < lo || *v > hi)
        bad_option(o.program, std::string(name) + " takes a whole number in " + std::to_string(lo) + ".." +
                                  std::to_string(hi) + ", got '" + text + "'");
      return *v;
    };
    if (takes("--req")) o.req = value("--req");
    else if (takes("--impl")) o.impl = value("--impl");
    else if (takes("--out")) o.out = value("--out");
    else if (takes("--seed")) { o.cfg.seed = number("--seed", 0, UINT64_MAX); seeded = true; }
    else if (takes("--kill-rate")) o.kill_rate = static_cast<int>(number("--kill-rate", 1, 1000000));
    else if (takes("--time-limit")) o.time_limit = std::chrono::seconds(number("--time-limit", 1, 86400));
    else if (a == "--thorough") o.cfg.thorough = true;
    else if (a == "--report") o.report = true;
    else if (a == "--expect-kill") o.expect_kill = true;
    else if (a == "--in-process") o.in_process = true;
    else if (a == "--list") o.list = true;
    else if (a == "--help" || a == "-h") { usage(o.program.c_str()); return 0; }
    else bad_option(o.program, "unknown option '" + a + "'");
  }
  bool impl_known = o.impl.empty(), req_known = o.req.empty();
  for (const auto& im : reg.impls()) {
    if (im.name == o.impl) impl_known = true;
    for (const auto& t : im.tests)
      if (t.id == o.req && (o.impl.empty() || im.name == o.impl)) req_known = true;
  }
  if (!impl_known) bad_option(o.program, "no implementation named '" + o.impl + "' (--list shows them)");
  if (!req_known)
    bad_option(o.program, "no requirement '" + o.req + "'" + (o.impl.empty() ? "" : " for " + o.impl) +
                              " (--list shows them)");
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
        auto r = run_mutant(im, t, o.cfg, o, &attempts);
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
        auto r = run_one(im, t, o.cfg, o);
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
