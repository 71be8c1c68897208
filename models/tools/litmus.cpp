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
// observation. Exit code 0 unless a file cannot be read or parsed (2), or, in
// --check mode, a verdict differs from the expected file or the engine's set of
// final states differs from the brute-force rc11_oracle's (1).
#include <algorithm>
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
#include "rc11_oracle.hpp"
#include "pilfer/model/checker.hpp"
#include "pilfer/sync.hpp"

namespace {

namespace lm = pilfer::litmus;
namespace model = pilfer::model;
using model::checker_sync;

std::memory_order to_std(lm::order o) noexcept {
  switch (o) {
    case lm::order::relaxed: return std::memory_order_relaxed;
    case lm::order::consume: return std::memory_order_acquire;  // consume is promoted, as by compilers
    case lm::order::acquire: return std::memory_order_acquire;
    case lm::order::release: return std::memory_order_release;
    case lm::order::acq_rel: return std::memory_order_acq_rel;
    case lm::order::seq_cst: return std::memory_order_seq_cst;
  }
  return std::memory_order_seq_cst;
}

pilfer::order_site site(lm::order o, const std::string& tag) noexcept {
  return pilfer::order_site{to_std(o), tag.c_str()};
}

/// A CAS failure may not be stronger than acquire (C11 rule, also std::atomic's precondition).
lm::order failure_order(lm::order o) noexcept {
  if (o == lm::order::release) return lm::order::relaxed;
  if (o == lm::order::acq_rel) return lm::order::acquire;
  return o;
}

/// Final states seen over all executions of one test.
struct outcomes {
  std::map<lm::state, std::size_t> counts;  // state → number of executions ending in it
};

constexpr const char* final_tag = "litmus.final";

/// One execution of a litmus program: fresh shared memory and registers.
class litmus_scenario final : public model::scenario {
 public:
  litmus_scenario(const lm::program& p, outcomes& out)
      : model::scenario(static_cast<unsigned>(p.threads.size())), p_(p), out_(out) {
    regs_.resize(p.threads.size());
    atomics_.resize(p.locations.size());
    cells_.resize(p.locations.size());
    for (std::size_t k = 0; k < p.locations.size(); ++k) {
      if (p.locations[k].atomic)
        atomics_[k] = std::make_unique<checker_sync::atomic<lm::value>>(p.locations[k].init);
      else
        cells_[k] = std::make_unique<checker_sync::cell<lm::value>>(p.locations[k].init);
    }
  }

  void thread(unsigned index) override {
    memory_view m(*this);
    regs_[index] = lm::initial_registers(p_, index);
    lm::run_thread(p_, index, m, regs_[index]);
  }

  void after() override {
    lm::state s;
    s.reserve(p_.observed.size());
    for (const auto& o : p_.observed) {
      if (o.thread >= 0) {
        const auto& r = regs_[static_cast<std::size_t>(o.thread)];
        s.push_back(r.empty() ? 0 : r[static_cast<std::size_t>(o.slot)]);
      } else {
        const auto k = static_cast<std::size_t>(o.slot);
        // after() is hb-after every thread: coherence makes this load return
        // the mo-maximal store, i.e. the final value of the location.
        s.push_back(atomics_[k] ? atomics_[k]->load(pilfer::order_site{std::memory_order_relaxed,
                                                                          final_tag})
                                : cells_[k]->read());
      }
    }
    ++out_.counts[s];
  }

 private:
  class memory_view final : public lm::memory {
   public:
    explicit memory_view(litmus_scenario& s) : s_(s) {}
    lm::value load(int loc, lm::order o, const std::string& tag) override {
      return a(loc).load(site(o, tag));
    }
    void store(int loc, lm::value v, lm::order o, const std::string& tag) override {
      a(loc).store(v, site(o, tag));
    }
    lm::value rmw(int loc, lm::rmw_op op, lm::value operand, lm::order o,
                  const std::string& tag) override {
      auto& x = a(loc);
      switch (op) {
        case lm::rmw_op::exchange: return x.exchange(operand, site(o, tag));
        case lm::rmw_op::add: return x.fetch_add(operand, site(o, tag));
        case lm::rmw_op::sub: return x.fetch_sub(operand, site(o, tag));
        case lm::rmw_op::bit_or: return x.fetch_or(operand, site(o, tag));
        case lm::rmw_op::bit_and: return x.fetch_and(operand, site(o, tag));
        case lm::rmw_op::bit_xor: return fetch_xor(x, operand, o, tag);
      }
      return 0;
    }
    bool cas(int loc, lm::value& expected, lm::value desired, lm::order success,
             lm::order failure, const std::string& tag) override {
      return a(loc).compare_exchange_strong(expected, desired, site(success, tag),
                                            site(failure_order(failure), tag));
    }
    void fence(lm::order o, const std::string& tag) override { checker_sync::fence(site(o, tag)); }
    lm::value plain_read(int loc, const std::string& /*tag*/) override { return c(loc).read(); }
    void plain_write(int loc, lm::value v, const std::string& /*tag*/) override {
      c(loc).write() = v;
    }

   private:
    template <class A>
    static lm::value fetch_xor(A& x, lm::value operand, lm::order o, const std::string& tag) {
      if constexpr (requires { x.fetch_xor(operand, site(o, tag)); }) {
        return x.fetch_xor(operand, site(o, tag));
      } else {
        // No native xor RMW in the engine: a CAS loop whose successful CAS is the RMW.
        lm::value old = x.load(site(lm::order::relaxed, tag));
        while (!x.compare_exchange_strong(old, old ^ operand, site(o, tag),
                                          site(lm::order::relaxed, tag))) {
        }
        return old;
      }
    }
    checker_sync::atomic<lm::value>& a(int loc) {
      return *s_.atomics_[static_cast<std::size_t>(loc)];
    }
    checker_sync::cell<lm::value>& c(int loc) { return *s_.cells_[static_cast<std::size_t>(loc)]; }
    litmus_scenario& s_;
  };

  const lm::program& p_;
  outcomes& out_;
  std::vector<std::vector<lm::value>> regs_;
  std::vector<std::unique_ptr<checker_sync::atomic<lm::value>>> atomics_;
  std::vector<std::unique_ptr<checker_sync::cell<lm::value>>> cells_;
};

struct cli {
  bool quiet = false;
  bool json = false;
  bool random = false;
  bool oracle = false;
  std::size_t iterations = 0;
  std::uint64_t seed = 0;
  std::size_t max_executions = 0;
  std::string check;
  std::vector<std::string> files;
};

/// The verdict of one test, herd-style.
struct verdict {
  std::string name;
  std::string kind;         // Allowed / Forbidden / Required
  std::string observation;  // Always / Sometimes / Never
  bool ok = false;
  std::size_t positive = 0, negative = 0;
  std::vector<std::string> flags;
  double seconds = 0;
  model::result engine;
  std::set<lm::state> states;  // distinct final states observed
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
  outcomes out;
  model::options mo;
  mo.how = opt.random ? model::mode::random : model::mode::exhaustive;
  mo.model = model::memory_model::rc11;  // verdicts and the oracle follow herd7's rc11.cat
  if (opt.random) {
    mo.iterations = opt.iterations;
    mo.seed = opt.seed;
  }
  if (opt.max_executions) mo.max_executions = opt.max_executions;
  mo.stop_on_failure = false;  // keep exploring: a race is a flag, not the end of the test

  const auto t0 = std::chrono::steady_clock::now();
  verdict v;
  if (opt.oracle) {
    // Independent brute-force RC11 enumeration (rc11_oracle.hpp) instead of the engine.
    const lm::oracle_result o = lm::rc11_oracle(p);
    out.counts = o.outcomes;
    v.engine.ok = !o.data_race;
    v.engine.kind = o.data_race ? "data race" : "";
    v.engine.complete = !o.truncated;
    v.engine.executions = 0;
    for (const auto& [s, n] : o.outcomes) v.engine.executions += n;
    v.engine.states = o.candidates;
  } else {
    v.engine = model::check([&] { return std::make_unique<litmus_scenario>(p, out); }, mo);
  }
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  v.name = p.name;
  for (const auto& [st, n] : out.counts) v.states.insert(st);

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
  if (!v.engine.ok) {
    const std::string& k = v.engine.kind;
    v.flags.push_back(k.find("race") != std::string::npos ? "data-race" : (k.empty() ? "undefined" : k));
  }
  if (!v.engine.complete) v.flags.push_back("incomplete-exploration");

  if (opt.quiet && !opt.json) return v;
  if (opt.json) {
    os << "{\"test\":\"" << json_escape(p.name) << "\",\"kind\":\"" << v.kind
       << "\",\"states\":[";
    bool first = true;
    for (const auto& [s, n] : out.counts) {
      os << (first ? "" : ",") << "{\"state\":\"" << json_escape(lm::format_state(p, s))
         << "\",\"executions\":" << n << "}";
      first = false;
    }
    os << "],\"ok\":" << (v.ok ? "true" : "false") << ",\"positive\":" << v.positive
       << ",\"negative\":" << v.negative << ",\"condition\":\"" << json_escape(p.cond_text)
       << "\",\"observation\":\"" << v.observation << "\",\"flags\":[";
    for (std::size_t k = 0; k < v.flags.size(); ++k)
      os << (k ? "," : "") << "\"" << json_escape(v.flags[k]) << "\"";
    os << "],\"executions\":" << v.engine.executions << ",\"blocked\":" << v.engine.blocked
       << ",\"complete\":" << (v.engine.complete ? "true" : "false")
       << ",\"seconds\":" << v.seconds << "}\n";
    return v;
  }
  os << "Test " << p.name << " " << v.kind << "\n";
  os << "States " << out.counts.size() << "\n";
  for (const auto& [s, n] : out.counts) os << lm::format_state(p, s) << "\n";
  os << (v.ok ? "Ok" : "No") << "\n";
  os << "Witnesses\n";
  os << "Positive: " << v.positive << " Negative: " << v.negative << "\n";
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

// @verifies MC-1
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
  std::string line;
  int lineno = 0, failures = 0, count = 0;
  double total = 0;
  std::vector<double> times;
  while (std::getline(in, line)) {
    ++lineno;
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
    const verdict v = run_test(p, opt, sink);
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
    // A racy test is undefined behaviour under RC11 (rc11.cat `undefined_unless empty dr`):
    // only the flag is required; the engine may end a racy execution at the race, so its
    // outcomes are not compared.
    const bool undefined = want_flags != "-";
    const bool verdict_match =
        got_flags == want_flags && (undefined || (v.observation == expected && complete));
    // Beyond the verdict: the engine must reach exactly the final states that the
    // brute-force enumeration of rc11.cat finds (no missing, no extra outcome).
    std::string diff;
    if (!opt.oracle && !undefined) {
      const lm::oracle_result o = lm::rc11_oracle(p);
      for (const auto& [st, n] : o.outcomes)
        if (!v.states.count(st)) diff += "  missing: " + lm::format_state(p, st) + "\n";
      for (const auto& st : v.states)
        if (!o.outcomes.count(st)) diff += "  extra:   " + lm::format_state(p, st) + "\n";
    }
    const bool match = verdict_match && diff.empty();
    if (!match) ++failures;
    std::printf("%-4s %-32s expected %-9s got %-9s flags %s/%s pos %zu neg %zu execs %zu%s %.3fs\n",
                match ? "ok" : "FAIL", file.c_str(), expected.c_str(), v.observation.c_str(),
                want_flags.c_str(), got_flags.c_str(), v.positive, v.negative,
                v.engine.executions, complete ? "" : " INCOMPLETE", v.seconds);
    if (!match) std::fputs((diff + sink.str()).c_str(), stdout);
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::printf("%d tests, %d failures, total %.3fs, median %.4fs, max %.4fs\n", count, failures,
              total, median, times.empty() ? 0 : times.back());
  if (count == 0) return 1;  // an empty corpus proves nothing
  return failures ? 1 : 0;
}

int usage() {
  std::cerr << "usage: pilfer-litmus [--quiet] [--json] [--random N] [--seed S]\n"
               "                     [--max-executions N] [--oracle] FILE.litmus...\n"
               "       pilfer-litmus --check EXPECTED.tsv [--oracle]\n"
               "  --oracle: use the brute-force RC11 enumerator instead of the model checker\n";
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
    else if (is("--random")) {
      opt.random = true;
      opt.iterations = std::stoull(value_of("--random"));
    } else if (is("--seed")) opt.seed = std::stoull(value_of("--seed"));
    else if (is("--max-executions")) opt.max_executions = std::stoull(value_of("--max-executions"));
    else if (a == "--help" || a == "-h") return usage(), 0;
    else if (!a.empty() && a[0] == '-') return usage();
    else opt.files.push_back(a);
  }
  if (opt.random) {
    if (const char* env = std::getenv("PILFER_SEED"); env && opt.seed == 0) opt.seed = std::stoull(env);
    if (opt.seed == 0) opt.seed = static_cast<std::uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
    std::cerr << "seed=" << opt.seed << "\n";
  }
  if (!opt.check.empty()) return run_check(opt);
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
      std::cerr << "pilfer-litmus: " << e.what() << "\n";
      rc = 2;
      continue;
    }
    const verdict v = run_test(p, opt, std::cout);
    if (opt.quiet && !opt.json)
      std::cout << v.name << " " << v.observation << " " << v.positive << " " << v.negative << "\n";
  }
  return rc;
}
