// pilfer-litmus — run herd7 C litmus tests on pilfer's RC11 model checker.
//
//   pilfer-litmus [--quiet] [--json] [--random N] [--seed S] FILE.litmus...
//   pilfer-litmus --check EXPECTED.tsv               (the corpus test, ctest litmus.corpus)
//   --oracle: enumerate with rc11_oracle (brute force over rc11.cat) instead of the engine
//
// Each test is parsed (litmus_parser.hpp) and every thread is interpreted
// against checker_sync atomics, so the engine enumerates the RC11-consistent
// executions; after() records each execution's final state (the registers and
// locations the condition or a `locations [...]` clause mentions). The output
// follows herd7: the set of final states, Ok/No for the quantified condition,
// positive/negative execution counts and the Always/Sometimes/Never
// observation. An exploration that did not run to its end (a livelock or model error stopped
// it, --random sampled it, --max-executions cut it) proves no verdict: its Ok/No line and its
// observation say "Incomplete" (the counts are those of the executions explored) and the exit
// code is 1. Exit code 0 unless that, a file cannot be read or parsed (2), or, in
// --check mode, a verdict differs from the expected file or the engine's set of
// final states differs from the brute-force rc11_oracle's (1).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "litmus_parser.hpp"
#include "litmus_run.hpp"
#include "rc11_oracle.hpp"
#include "pilfer/model/checker.hpp"
#include "pilfer/sync.hpp"

namespace {

namespace lm = pilfer::litmus;
namespace model = pilfer::model;
using model::checker_sync;

struct cli {
  bool quiet = false;
  bool json = false;
  bool random = false;
  bool oracle = false;
  std::size_t iterations = 0;
  std::uint64_t seed = 0;
  std::size_t max_executions = 0;
  std::size_t max_steps = 200;  // events per thread: litmus threads are a handful of events
  std::size_t memo_entries = 0;  // 0: the engine's default cap (options::memo_entries)
  std::string check;
  std::string external;
  model::memory_model model = model::memory_model::rc11;
  std::vector<std::string> files;
};

/// The verdict of one test, herd-style.
struct verdict {
  std::string name;
  std::string kind;         // Allowed / Forbidden / Required
  std::string observation;  // Always / Sometimes / Never, or Incomplete (see `settled`)
  bool ok = false;
  /// The exploration ran to its end without a failure (a data race aside): only then do the
  /// Ok/No line and the observation hold for every execution. Otherwise (stopped by a livelock
  /// or a model error, sampled with --random, cut by --max-executions) both say "Incomplete",
  /// the counts are those of the executions explored, and the exit status is 1.
  bool settled = false;
  std::size_t positive = 0, negative = 0;
  std::vector<std::string> flags;
  double seconds = 0;
  model::result engine;
  std::set<lm::state> states;  // distinct final states observed
  std::map<lm::state, std::size_t> counts;  // final state → executions ending in it
  std::size_t filtered = 0;    // executions discarded by `.readsvalue`
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += c;
    }
  }
  return o;
}

verdict run_test(const lm::program& p, const cli& opt, std::ostream& os) {
  lm::engine_run out;
  model::options mo;
  mo.how = opt.random ? model::mode::random : model::mode::exhaustive;
  // Default rc11: the corpus verdicts and the oracle follow herd7's rc11.cat (--model c++20).
  mo.model = opt.model;
  if (opt.random) {
    mo.iterations = opt.iterations;
    mo.seed = opt.seed;
  }
  if (opt.max_executions) mo.max_executions = opt.max_executions;
  // Races never end the outcome run (they are found by the race run, litmus_run.hpp); any
  // other failure (a livelock: a loop that never exits within max_steps events) ends the
  // exploration, which is then flagged incomplete: exploring every interleaving of a loop
  // that runs to the step bound would take practically forever.
  mo.stop_on_failure = true;
  mo.max_steps = opt.max_steps;
  if (opt.memo_entries) mo.memo_entries = opt.memo_entries;

  const auto t0 = std::chrono::steady_clock::now();
  verdict v;
  if (opt.oracle) {
    // Independent brute-force RC11 enumeration (rc11_oracle.hpp) instead of the engine.
    const lm::oracle_result o = lm::rc11_oracle(
        p, 32, opt.model == model::memory_model::cxx20 ? lm::oracle_model::cxx20 : lm::oracle_model::rc11);
    out.counts = o.outcomes;
    v.engine.ok = !o.data_race;
    v.engine.kind = o.data_race ? "data race" : "";
    v.engine.complete = !o.truncated;
    v.engine.executions = 0;
    for (const auto& [s, n] : o.outcomes) v.engine.executions += n;
    v.engine.states = o.candidates;
  } else {
    out = lm::run_on_engine(p, mo);
    v.engine = out.engine;
    if (!out.race && !out.race_engine.ok) {  // the race run failed otherwise: report that
      v.engine.ok = false;
      v.engine.kind = out.race_engine.kind;
      v.engine.message = out.race_engine.message;
    }
  }
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  v.name = p.name;
  for (const auto& [st, n] : out.counts) v.states.insert(st);
  v.counts = out.counts;

  for (const auto& [s, n] : out.counts) {
    if (lm::evaluate(*p.cond, s)) v.positive += n;
    else v.negative += n;
  }
  bool any_pos = false, any_neg = false;
  for (const auto& [s, n] : out.counts) {
    (lm::evaluate(*p.cond, s) ? any_pos : any_neg) = true;
  }
  v.observation = any_pos ? (any_neg ? "Sometimes" : "Always") : "Never";
  switch (p.quant) {
    case lm::quantifier::exists:
      v.kind = "Allowed";
      v.ok = any_pos;
      break;
    case lm::quantifier::not_exists:
      v.kind = "Forbidden";
      v.ok = !any_pos;
      break;
    case lm::quantifier::forall:
      v.kind = "Required";
      v.ok = !any_neg;
      break;
  }
  if (opt.oracle ? !v.engine.ok : out.race) v.flags.push_back("data-race");
  if (!opt.oracle && !v.engine.ok) v.flags.push_back(v.engine.kind.empty() ? "undefined" : v.engine.kind);
  if (out.out_of_bounds) v.flags.push_back("out-of-bounds");
  if (out.step_limit) v.flags.push_back("loop-bound");
  if (out.division_by_zero) v.flags.push_back("division-by-zero");
  // The memo table at its cap forgot states: an execution graph reached again through a
  // forgotten state is completed (and counted) again, so the counts may be too high (the
  // outcome set and the verdict stay exact). --memo-entries raises the cap.
  // (the race run's counts are not reported: only the outcome run's memo matters)
  if (v.engine.forgotten)
    v.flags.push_back("counts-may-repeat (memo forgot " + std::to_string(v.engine.forgotten) + " states)");
  v.filtered = out.filtered;
  if (!v.engine.complete) v.flags.push_back("incomplete-exploration");
  // (the oracle's only failure is a data race; the engine's races are found by the race run)
  // A thread stopped at the statement bound has no final state: its registers hold whatever the
  // loop had reached, so no verdict stands on the states (it said Never for a loop that ends).
  v.settled = v.engine.complete && (opt.oracle || v.engine.ok) && !out.step_limit;
  if (!v.settled) v.observation = "Incomplete";

  if (opt.quiet && !opt.json) return v;
  if (opt.json) {
    os << "{\"test\":\"" << json_escape(p.name) << "\",\"model\":\""
       << (opt.oracle ? std::string(model::to_string(opt.model)) + " (oracle)" : model::to_string(opt.model)) << "\",\"kind\":\"" << v.kind
       << "\",\"states\":[";
    bool first = true;
    for (const auto& [s, n] : out.counts) {
      os << (first ? "" : ",") << "{\"state\":\"" << json_escape(lm::format_state(p, s))
         << "\",\"executions\":" << n << "}";
      first = false;
    }
    os << "],\"ok\":" << (!v.settled ? "null" : v.ok ? "true" : "false") << ",\"positive\":" << v.positive
       << ",\"negative\":" << v.negative << ",\"condition\":\"" << json_escape(p.cond_text)
       << "\",\"observation\":\"" << v.observation << "\",\"flags\":[";
    for (std::size_t k = 0; k < v.flags.size(); ++k)
      os << (k ? "," : "") << "\"" << json_escape(v.flags[k]) << "\"";
    // "executions": complete executions, the sum of the states' counts; "blocked": executions a
    // false assume() blocked (the engine's result::blocked: distinct blocked graphs under the
    // revisit exploration, blocked runs under DFS; null under --oracle, which does not count them)
    os << "],\"executions\":" << v.positive + v.negative << ",\"blocked\":"
       << (opt.oracle ? std::string("null") : std::to_string(v.engine.blocked))
       << ",\"complete\":" << (v.engine.complete ? "true" : "false")
       << ",\"seconds\":" << v.seconds << "}\n";
    return v;
  }
  if (p.cppmem) {
    // CppMem input: no condition; the final values of every thread's registers, the number
    // of consistent executions (complete RC11-consistent execution graphs; those a
    // `.readsvalue(v)` rules out are not counted) and the race flag.
    std::size_t consistent = 0;
    for (const auto& [s, n] : out.counts) consistent += n;
    os << "Test " << p.name << " (CppMem)\n";
    os << "Model " << (opt.oracle ? std::string(model::to_string(opt.model)) + " (oracle)" : model::to_string(opt.model)) << "\n";
    os << "States " << out.counts.size() << "\n";
    for (const auto& [s, n] : out.counts) os << lm::format_state(p, s) << "\n";
    os << "Consistent executions " << consistent;
    if (out.filtered) os << " (" << out.filtered << " ruled out by readsvalue)";
    os << "\n";
    if (!opt.oracle && v.engine.blocked) os << "Blocked executions " << v.engine.blocked << "\n";
    for (const auto& f : v.flags) os << "Flag " << f << "\n";
    if (!opt.oracle && !v.engine.ok && !v.engine.message.empty())
      os << "(" << v.engine.message << ")\n";
    char tb[64];
    std::snprintf(tb, sizeof tb, "%.2f", v.seconds);
    os << "Time " << p.name << " " << tb << "\n\n";
    return v;
  }
  os << "Test " << p.name << " " << v.kind << "\n";
  os << "Model " << (opt.oracle ? std::string(model::to_string(opt.model)) + " (oracle)" : model::to_string(opt.model)) << "\n";
  os << "States " << out.counts.size() << "\n";
  for (const auto& [s, n] : out.counts) os << lm::format_state(p, s) << "\n";
  os << (!v.settled ? "Incomplete" : v.ok ? "Ok" : "No") << "\n";
  os << "Witnesses\n";
  os << "Positive: " << v.positive << " Negative: " << v.negative << "\n";
  // (complete executions above; those a false assume() blocked, when there are any)
  if (!opt.oracle && v.engine.blocked) os << "Blocked: " << v.engine.blocked << "\n";
  for (const auto& f : v.flags) os << "Flag " << f << "\n";
  if (!v.engine.ok && !v.engine.message.empty()) os << "(" << v.engine.message << ")\n";
  os << "Condition " << p.cond_text << "\n";
  os << "Observation " << p.name << " " << v.observation << " " << v.positive << " "
     << v.negative << "\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v.seconds);
  os << "Time " << p.name << " " << buf << "\n\n";
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream ss(s);
  while (std::getline(ss, cur, sep)) out.push_back(cur);
  return out;
}

/// known-differences.tsv next to an expected file: file <TAB> reason (missing file: none).
std::map<std::string, std::string> read_known_differences(const std::filesystem::path& dir) {
  std::map<std::string, std::string> known;
  std::ifstream in(dir / "known-differences.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto cols = split(line, '\t');
    if (cols.size() >= 2 && cols[0] != "file") known[cols[0]] = cols[1];
  }
  return known;
}

// @verifies MC-1 MC-8
// The corpus check (ctest litmus.corpus): every test listed in EXPECTED.tsv
// (file <TAB> Sometimes|Never|Always <TAB> source) is run exhaustively and its
// observation must equal the expected one; exploration must be complete.
int run_check(const cli& opt) {
  std::ifstream in(opt.check);
  if (!in) {
    std::cerr << "pilfer-litmus: cannot open '" << opt.check << "'\n";
    return 2;
  }
  const auto dir = std::filesystem::path(opt.check).parent_path();
  const std::map<std::string, std::string> known = read_known_differences(dir);
  std::string line;
  int lineno = 0, failures = 0, count = 0;
  double total = 0;
  std::vector<double> times;
  cli run_opt = opt;  // a "#model NAME" line selects the model of the verdicts that follow
  while (std::getline(in, line)) {
    ++lineno;
    if (line.rfind("#model ", 0) == 0) {
      const auto mm = model::parse_memory_model(line.substr(7));
      if (!mm) {
        std::cerr << opt.check << ":" << lineno << ":1: error: unknown model '" << line.substr(7) << "'\n";
        return 2;
      }
      run_opt.model = *mm;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string file, expected, source, want_flags;
    std::getline(ls, file, '\t');
    std::getline(ls, expected, '\t');
    std::getline(ls, source, '\t');
    std::getline(ls, want_flags, '\t');
    if (want_flags.empty()) want_flags = "-";
    if (file == "file") continue;  // header row
    if (expected != "Sometimes" && expected != "Never" && expected != "Always") {
      std::cerr << opt.check << ":" << lineno << ": bad verdict '" << expected << "'\n";
      ++failures;
      continue;
    }
    lm::program p;
    try {
      p = lm::parse_file((dir / file).string());
    } catch (const std::exception& e) {
      std::cerr << (dir / file).string() << ":" << e.what() << "\n";
      ++failures;
      continue;
    }
    std::ostringstream sink;
    const verdict v = run_test(p, run_opt, sink);
    ++count;
    total += v.seconds;
    times.push_back(v.seconds);
    const bool complete = v.engine.complete;
    std::string got_flags;
    for (const auto& f : v.flags) {
      if (f == "incomplete-exploration") continue;  // checked through `complete`
      got_flags += (got_flags.empty() ? "" : ",") + f;
    }
    if (got_flags.empty()) got_flags = "-";
    // A racy test is undefined behaviour under RC11 (rc11.cat `undefined_unless empty dr`),
    // but like herd7 the tool still lists every outcome and flags the race: the flags, the
    // observation and the exact outcome set are all compared.
    const bool verdict_match =
        got_flags == want_flags && v.observation == expected && complete;
    // Beyond the verdict: the engine must reach exactly the final states that the
    // brute-force enumeration of rc11.cat finds (no missing, no extra outcome).
    std::string diff;
    if (!opt.oracle) {
      const lm::oracle_result o =
          lm::rc11_oracle(p, 32, run_opt.model == model::memory_model::cxx20 ? lm::oracle_model::cxx20
                                                                            : lm::oracle_model::rc11);
      for (const auto& [st, n] : o.outcomes)
        if (!v.states.count(st)) diff += "  missing: " + lm::format_state(p, st) + "\n";
      for (const auto& st : v.states)
        if (!o.outcomes.count(st)) diff += "  extra:   " + lm::format_state(p, st) + "\n";
    }
    const bool agrees = verdict_match && diff.empty();
    const bool listed = known.count(file) != 0;
    const bool match = agrees != listed;  // a listed entry must still differ
    if (!match) ++failures;
    std::printf("%-5s %-32s expected %-9s got %-9s flags %s/%s pos %zu neg %zu execs %zu blocked %zu%s %.3fs\n",
                match ? (listed ? "known" : "ok") : "FAIL", file.c_str(), expected.c_str(), v.observation.c_str(),
                want_flags.c_str(), got_flags.c_str(), v.positive, v.negative,
                v.positive + v.negative, v.engine.blocked, complete ? "" : " INCOMPLETE", v.seconds);
    if (listed) std::printf("      [%s]%s\n", known.at(file).c_str(),
                            agrees ? " -- listed in known-differences.tsv but now agrees" : "");
    if (!agrees && !listed) std::fputs((diff + sink.str()).c_str(), stdout);
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::printf("%d tests, %d failures, total %.3fs, median %.4fs, max %.4fs\n", count, failures,
              total, median, times.empty() ? 0 : times.back());
  if (count == 0) return 1;  // an empty corpus proves nothing
  return failures ? 1 : 0;
}

/// "0:r0=0x1; [y]=1;" → "0:r0=1;y=1;" (herd prints hex with `hexa true` and brackets
/// around locations; we print decimal and bare names).
std::string normalise_state(const std::string& s) {
  std::string out;
  bool bracket = false;
  for (std::size_t k = 0; k < s.size();) {
    if (std::isspace(static_cast<unsigned char>(s[k]))) {
      ++k;
      continue;
    }
    if (s[k] == '[' && (out.empty() || out.back() == ';')) {
      bracket = true;
      ++k;
      continue;
    }
    if (bracket && s[k] == ']' && k + 1 < s.size() && s[k + 1] == '=') {
      bracket = false;
      ++k;
      continue;
    }
    if (s[k] == '=') {
      std::size_t e = k + 1;
      while (e < s.size() && s[e] != ';') ++e;
      std::string v = s.substr(k + 1, e - k - 1);
      try {
        v = std::to_string(static_cast<long long>(std::stoll(v, nullptr, 0)));
      } catch (const std::exception&) {
      }
      out += "=" + v;
      k = e;
      continue;
    }
    out += s[k++];
  }
  return out;
}


// @verifies MC-9
// An external corpus (models/litmus/external/NAME/expected.tsv): file <TAB> Ok|No|error
// <TAB> herd7 states joined by " | " or "-" <TAB> source. Every file must agree (the Ok/No
// result, and the exact set of final states where the corpus publishes them) unless it is
// listed in known-differences.tsv next to it (file <TAB> reason), where it must still
// differ: an entry that starts to agree fails too, so the list stays exact.
int run_external(const cli& opt) {
  std::ifstream in(opt.external);
  if (!in) {
    std::cerr << "pilfer-litmus: cannot open '" << opt.external << "'\n";
    return 2;
  }
  const auto dir = std::filesystem::path(opt.external).parent_path();
  const std::map<std::string, std::string> known = read_known_differences(dir);
  // (rows for files not in this expected.tsv, e.g. genmc-litmus/checkbreak/, are notes: not counted)
  std::size_t listed_here = 0;
  std::string line;
  int lineno = 0, agree = 0, differ = 0, failures = 0;
  cli run_opt = opt;  // a "#model NAME" line in the file selects the model its verdicts assume
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("#model ", 0) == 0) {
      const auto mm = model::parse_memory_model(line.substr(7));
      if (!mm) {
        std::cerr << opt.external << ":" << lineno << ":1: error: unknown model '" << line.substr(7) << "'\n";
        return 2;
      }
      run_opt.model = *mm;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const auto cols = split(line, '\t');
    if (cols.size() < 2 || cols[0] == "file") continue;
    const std::string& file = cols[0];
    const std::string& want = cols[1];
    const std::string want_states = cols.size() > 2 ? cols[2] : "-";
    std::string got = "error", got_states, detail;
    try {
      const lm::program p = lm::parse_file((dir / file).string());
      std::ostringstream sink;
      const verdict v = run_test(p, run_opt, sink);
      const bool racy = std::find(v.flags.begin(), v.flags.end(), "data-race") != v.flags.end();
      // herd7 prints "Undef" for a racy test under rc11.cat (`undefined_unless empty dr`);
      // corpora that publish only reachability (Dat3M) give Ok/No whatever the race.
      got = want == "Undef" && racy ? "Undef" : (v.ok ? "Ok" : "No");
      if (want.rfind("executions:", 0) == 0) {
        // Corpora that publish execution counts (GenMC): complete consistent executions,
        // those an assume() rules out not counted.
        std::size_t n = 0;
        for (const auto& [s, c] : v.counts) n += c;
        got = "executions:" + std::to_string(n);
      }
      std::vector<std::string> st;
      for (const auto& s : v.states) st.push_back(normalise_state(lm::format_state(p, s)));
      std::sort(st.begin(), st.end());
      for (const auto& s : st) got_states += (got_states.empty() ? "" : " | ") + s;
      if (!v.settled) got = "incomplete";
      for (const auto& f : v.flags) detail += " flag:" + f;
    } catch (const lm::parse_error& e) {
      detail = std::string(" ") + e.what();
    } catch (const std::exception& e) {
      detail = std::string(" ") + e.what();
    }
    bool match = got == want;
    if (match && want_states != "-") {
      std::vector<std::string> ws;
      for (const auto& s : split(want_states, '|')) ws.push_back(normalise_state(s));
      std::sort(ws.begin(), ws.end());
      std::string w;
      for (const auto& s : ws) w += (w.empty() ? "" : " | ") + s;
      match = w == got_states;
      if (!match) detail += " states: expected {" + w + "} got {" + got_states + "}";
    }
    const auto k = known.find(file);
    const bool listed = k != known.end();
    const bool pass = match != listed;
    (match ? agree : differ)++;
    if (listed) ++listed_here;
    if (!pass) ++failures;
    std::printf("%-5s %-45s expected %-5s got %-5s%s%s\n",
                pass ? (listed ? "known" : "ok") : "FAIL", file.c_str(), want.c_str(),
                got.c_str(), detail.c_str(),
                listed ? (match ? "  (listed in known-differences.tsv but now agrees)"
                                : ("  [" + k->second + "]").c_str())
                       : "");
  }
  std::printf("%s (model %s): %d files, %d agree, %d differ (%zu listed as known differences), "
              "%d failures\n", opt.external.c_str(), model::to_string(run_opt.model), agree + differ,
              agree, differ, listed_here, failures);
  if (agree + differ == 0) return 1;
  return failures ? 1 : 0;
}

/// A decimal option value, or a one-line error and exit status 2.
std::uint64_t number_or_exit(const char* what, const std::string& text) {
  std::size_t used = 0;
  try {
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
      const unsigned long long v = std::stoull(text, &used, 10);
      if (used == text.size()) return v;
    }
  } catch (const std::exception&) {
  }
  std::cerr << "pilfer-litmus: " << what << " needs a non-negative number, got '" << text << "'\n";
  std::exit(2);
}

int usage() {
  std::cerr << "usage: pilfer-litmus [--quiet] [--json] [--random N] [--seed S]\n"
               "                     [--max-executions N] [--max-steps N (200)] [--memo-entries N] [--model M]\n"
               "                     [--oracle] FILE.litmus|FILE.cppmem...\n"
               "       pilfer-litmus --check EXPECTED.tsv [--oracle]\n"
               "       pilfer-litmus --external CORPUS/expected.tsv   (external corpus agreement)\n"
               "  --model rc11|c++20: the memory model (default rc11, as herd7's rc11.cat)\n"
               "  --oracle: use the brute-force RC11 enumerator instead of the model checker\n"
               "  --memo-entries N: the memo table's cap in states (a forgotten state may make the\n"
               "                    counts repeat an execution: flagged counts-may-repeat)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  cli opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value_of = [&](const char* flag) -> std::string {
      const std::string f = flag;
      if (a.size() > f.size() && a.compare(0, f.size() + 1, f + "=") == 0)
        return a.substr(f.size() + 1);
      if (i + 1 >= argc) {
        std::cerr << "pilfer-litmus: " << f << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto is = [&](const char* flag) {
      const std::string f = flag;
      return a == f || a.rfind(f + "=", 0) == 0;
    };
    if (a == "--quiet" || a == "-q") opt.quiet = true;
    else if (a == "--json") opt.json = true;
    else if (a == "--oracle") opt.oracle = true;
    else if (is("--check")) opt.check = value_of("--check");
    else if (is("--external")) opt.external = value_of("--external");
    else if (is("--model")) {
      const std::string m = value_of("--model");
      const auto mm = model::parse_memory_model(m);
      if (!mm) {
        std::cerr << "pilfer-litmus: unknown model '" << m << "' (rc11 or c++20)\n";
        return 2;
      }
      opt.model = *mm;
    }
    else if (is("--random")) {
      opt.random = true;
      opt.iterations = number_or_exit("--random", value_of("--random"));
    } else if (is("--seed")) opt.seed = number_or_exit("--seed", value_of("--seed"));
    else if (is("--max-executions"))
      opt.max_executions = number_or_exit("--max-executions", value_of("--max-executions"));
    else if (is("--max-steps")) opt.max_steps = number_or_exit("--max-steps", value_of("--max-steps"));
    else if (is("--memo-entries")) opt.memo_entries = number_or_exit("--memo-entries", value_of("--memo-entries"));
    else if (a == "--help" || a == "-h") return usage(), 0;
    else if (!a.empty() && a[0] == '-') return usage();
    else opt.files.push_back(a);
  }
  if (opt.random) {
    if (const char* env = std::getenv("PILFER_SEED"); env && opt.seed == 0)
      opt.seed = number_or_exit("PILFER_SEED", env);
    if (opt.seed == 0) opt.seed = static_cast<std::uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
    std::cerr << "seed=" << opt.seed << "\n";
  }
  if (!opt.check.empty()) return run_check(opt);
  if (!opt.external.empty()) return run_external(opt);
  if (opt.files.empty()) return usage();
  int rc = 0;
  for (const auto& f : opt.files) {
    lm::program p;
    try {
      p = lm::parse_file(f);
    } catch (const lm::parse_error& e) {
      std::cerr << f << ":" << e.what() << "\n";
      rc = 2;
      continue;
    } catch (const std::exception& e) {
      std::cerr << f << ":1:1: error: " << e.what() << "\n";  // unreadable file
      rc = 2;
      continue;
    }
    const verdict v = run_test(p, opt, std::cout);
    if (!v.settled && rc == 0) rc = 1;
    if (opt.quiet && !opt.json)
      std::cout << v.name << " " << v.observation << " " << v.positive << " " << v.negative << " "
                << (opt.oracle ? std::string(model::to_string(opt.model)) + "-oracle" : model::to_string(opt.model))
                << (v.engine.forgotten ? " counts-may-repeat" : "") << "\n";
  }
  return rc;
}
