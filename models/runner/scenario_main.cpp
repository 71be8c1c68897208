// scenario_main(): the command line shared by pilfer's scenario program and every program
// pilfer_add_model_check() builds (contract in pilfer/model/runner.hpp).
#include <pilfer/model/runner.hpp>

#include "../engine/order_names.hpp"

#include <pilfer/testing/seed.hpp>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pilfer::model {
namespace {

static_assert(orders::declared_in_table_order(std::memory_order_relaxed, std::memory_order_consume,
                                              std::memory_order_acquire, std::memory_order_release,
                                              std::memory_order_acq_rel, std::memory_order_seq_cst),
              "std::memory_order indexes the shared table of order names");

bool valid_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// What the command line asked for, on top of each scenario's own options.
struct command {
  std::vector<std::string> names;
  bool all = false, list = false, random = false, exhaustive = false;
  bool no_symmetry = false;  // --no-symmetry: explore every permutation of symmetric threads
  bool spurious_cas = false;  // --spurious-cas-failures: a weak CAS may also fail (options::spurious_cas_failures)
  std::optional<unsigned> preemption_bound;  // --preemption-bound=N; N = "none" lifts a scenario's bound
  std::optional<std::uint64_t> seed;
  std::string replay;
  std::map<std::string, std::memory_order> weaken;
  std::optional<memory_model> model;
  std::optional<std::pair<unsigned, unsigned>> shard;
  std::optional<std::size_t> executions;  // budget: --executions=N, else PILFER_MODEL_EXECUTIONS=N
  std::optional<double> progress;         // --progress[=SECONDS]: a line on stderr every SECONDS
  std::size_t estimate_probes = 0;        // --estimate[=PROBES]: estimate() before the check
  bool estimate_only = false;             // --estimate-only: the estimate instead of the check
};

/// --progress: one line on stderr, with the share of the decision tree explored and, from it, a
/// rough projection of the whole run's time.
void print_progress(const pilfer::model::progress& p) {
  std::string projection;
  if (p.explored >= 1.0) {
    projection = "done";
  } else if (p.explored > 0.001) {
    const double total = p.seconds / p.explored;
    projection = total < 120 ? "at this pace ~" + std::to_string(static_cast<long>(total)) + " s in all"
                             : "at this pace ~" + std::to_string(static_cast<long>(total / 60)) + " min in all";
  } else {
    projection = "too early to project";
  }
  std::fprintf(stderr, "progress: %.1f%% of the decision tree, %zu executions, %zu states, %.0f s (%s)\n",
               100.0 * p.explored, p.executions, p.states, p.seconds, projection.c_str());
}

/// A positive execution budget, or one line on stderr (`what` names where it came from) and nothing.
std::optional<std::size_t> parse_executions(const char* what, std::string_view text) {
  const auto v = pilfer::testing::parse_u64(text);
  if (!v || *v == 0) {
    std::fprintf(stderr, "error: %s expects a positive decimal number of executions, got '%.*s'\n", what,
                 static_cast<int>(text.size()), text.data());
    return std::nullopt;
  }
  return static_cast<std::size_t>(*v);
}

/// Lowers `o`'s bound to `budget` executions (random: samples; exhaustive: complete executions,
/// after which the check stops incomplete). True when that lowered it.
bool apply_budget(options& o, std::size_t budget) noexcept {
  if (o.how == mode::random) {
    if (o.iterations <= budget) return false;
    o.iterations = budget;
    return true;
  }
  if (o.max_executions != 0 && o.max_executions <= budget) return false;
  o.max_executions = budget;
  return true;
}

/// Parses argv; on bad input prints one line to stderr and returns nothing.
std::optional<command> parse(int argc, char** argv) {
  command c;
  // (read by the engine at each check(); checked here, where a bad value can still be one line)
  if (const char* env = std::getenv("PILFER_MODEL_EXPLORATION"); env != nullptr && *env != '\0') {
    const std::string_view e = env;
    if (e != "dfs" && e != "revisit") {
      std::fprintf(stderr, "error: PILFER_MODEL_EXPLORATION must be dfs or revisit, got '%s'\n", env);
      return std::nullopt;
    }
  }
  if (const char* env = std::getenv("PILFER_MODEL_EXECUTIONS"); env != nullptr && *env != '\0') {
    c.executions = parse_executions("PILFER_MODEL_EXECUTIONS", env);
    if (!c.executions) return std::nullopt;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&](std::string_view key) { return a.substr(key.size()); };
    if (a == "--all") {
      c.all = true;
    } else if (a == "--list") {
      c.list = true;
    } else if (a == "--random") {
      c.random = true;
    } else if (a == "--exhaustive") {
      c.exhaustive = true;
    } else if (a == "--no-symmetry") {
      c.no_symmetry = true;
    } else if (a == "--spurious-cas-failures") {
      c.spurious_cas = true;
    } else if (a.starts_with("--preemption-bound=")) {
      const std::string_view v = value("--preemption-bound=");
      if (v == "none") {
        c.preemption_bound = std::numeric_limits<unsigned>::max();
      } else {
        const auto n = pilfer::testing::parse_u64(v);
        if (!n || *n > 1000) {
          std::fprintf(stderr, "error: --preemption-bound expects a number of preemptions (0..1000) or 'none', got '%s'\n",
                       argv[i] + 19);
          return std::nullopt;
        }
        c.preemption_bound = static_cast<unsigned>(*n);
      }
    } else if (a.starts_with("--seed=")) {
      c.seed = pilfer::testing::parse_u64(value("--seed="));
      if (!c.seed) {
        std::fprintf(stderr, "error: --seed expects an unsigned decimal number, got '%s'\n", argv[i] + 7);
        return std::nullopt;
      }
    } else if (a.starts_with("--executions=")) {
      c.executions = parse_executions("--executions", value("--executions="));
      if (!c.executions) return std::nullopt;
    } else if (a == "--estimate" || a == "--estimate-only") {
      c.estimate_probes = 1000;
      c.estimate_only = a == "--estimate-only";
    } else if (a.starts_with("--estimate=") || a.starts_with("--estimate-only=")) {
      const bool only = a.starts_with("--estimate-only=");
      const std::string_view v = value(only ? "--estimate-only=" : "--estimate=");
      const auto n = pilfer::testing::parse_u64(v);
      if (!n || *n == 0 || *n > 100'000'000) {
        std::fprintf(stderr, "error: %s expects a number of probes (1..100000000), got '%.*s'\n",
                     only ? "--estimate-only" : "--estimate", static_cast<int>(v.size()), v.data());
        return std::nullopt;
      }
      c.estimate_probes = static_cast<std::size_t>(*n);
      c.estimate_only = only;
    } else if (a == "--progress") {
      c.progress = 10.0;
    } else if (a.starts_with("--progress=")) {
      const auto v = pilfer::testing::parse_u64(value("--progress="));
      if (!v || *v == 0 || *v > 86400) {
        std::fprintf(stderr, "error: --progress expects a number of seconds (1..86400), got '%s'\n", argv[i] + 11);
        return std::nullopt;
      }
      c.progress = static_cast<double>(*v);
    } else if (a.starts_with("--replay=")) {
      c.replay = value("--replay=");
      // (the shape only: whether the token fits the scenario is the check's to say, a model error;
      // pm1: the DFS's decisions, pr1: a revisit run's script)
      const bool dfs_shape = c.replay.starts_with("pm1") && c.replay.find_first_not_of("0123456789.*", 3) == std::string::npos;
      const bool revisit_shape =
          c.replay.starts_with("pr1") && c.replay.find_first_not_of("0123456789abcdef.,-hksovqn", 3) == std::string::npos;
      if (!dfs_shape && !revisit_shape) {
        std::fprintf(stderr, "error: --replay expects a token as a failure prints it (pm1.… or pr1.…), got '%s'\n",
                     argv[i] + 9);
        return std::nullopt;
      }
    } else if (a.starts_with("--model=")) {
      c.model = parse_memory_model(std::string(value("--model=")));
      if (!c.model) {
        std::fprintf(stderr, "error: unknown memory model '%s' (c++20 or rc11)\n", argv[i] + 8);
        return std::nullopt;
      }
    } else if (a.starts_with("--shard=")) {
      // (decimal, whole and within unsigned: sscanf's %u wrapped 2^64+1 to 1)
      const std::string_view v = value("--shard=");
      const auto slash = v.find('/');
      const auto si = slash == std::string_view::npos ? std::nullopt : pilfer::testing::parse_u64(v.substr(0, slash));
      const auto sn = slash == std::string_view::npos ? std::nullopt : pilfer::testing::parse_u64(v.substr(slash + 1));
      if (!si || !sn || *sn == 0 || *si >= *sn || *sn > std::numeric_limits<unsigned>::max()) {
        std::fprintf(stderr, "error: --shard expects I/N with 0 <= I < N <= %u, got '%s'\n",
                     std::numeric_limits<unsigned>::max(), argv[i] + 8);
        return std::nullopt;
      }
      c.shard = std::pair{static_cast<unsigned>(*si), static_cast<unsigned>(*sn)};
    } else if (a.starts_with("--weaken=")) {
      const std::string_view kv = value("--weaken=");
      const auto eq = kv.find('=');
      if (kv.substr(0, eq).empty()) {
        std::fprintf(stderr, "error: --weaken expects TAG[=ORDER], got '%s'\n", argv[i] + 9);
        return std::nullopt;
      }
      const auto order = eq == std::string_view::npos ? std::optional(std::memory_order_relaxed)
                                                      : orders::parse<std::memory_order>(kv.substr(eq + 1));
      if (!order) {
        std::fprintf(stderr, "error: --weaken=%s: %s\n", argv[i] + 9,
                     orders::unknown_order_message(kv.substr(eq + 1)).c_str());
        return std::nullopt;
      }
      c.weaken[std::string(kv.substr(0, eq))] = *order;
    } else if (a.starts_with("-")) {
      std::fprintf(stderr, "error: unknown option '%s' (see pilfer/model/runner.hpp)\n", argv[i]);
      return std::nullopt;
    } else {
      c.names.emplace_back(a);
    }
  }
  if (c.random && c.exhaustive) {
    std::fprintf(stderr, "error: --random and --exhaustive exclude each other\n");
    return std::nullopt;
  }
  return c;
}

/// --estimate: the estimate of the scenario's exhaustive exploration by revisits, one line. False
/// when it cannot be made (a feature revisit mode does not support: named on the line).
bool print_estimate(const scenario_entry& e, options o, const command& c) {
  if (const auto s = pilfer::testing::env_seed(); s && !c.seed) o.seed = *s;  // malformed: one line, exit 2
  else if (!c.seed) o.seed = pilfer::testing::fresh_seed();
  const estimate_result r = estimate(e.make, o, c.estimate_probes);
  std::printf("%-32s %s\n", e.name.c_str(), r.summary().c_str());
  std::fflush(stdout);
  return r.ok;
}

/// Runs one scenario with the command line applied; prints its verdict. True when it met its expectation.
bool run(const scenario_entry& e, const command& c, std::set<std::string>& seen_tags, bool& stopped_early) {
  options o = e.opts;
  if (c.random) o.how = mode::random;
  if (c.exhaustive) o.how = mode::exhaustive;
  if (c.no_symmetry) o.symmetry = false;
  if (c.spurious_cas) o.spurious_cas_failures = true;
  if (c.preemption_bound) {
    if (*c.preemption_bound == std::numeric_limits<unsigned>::max()) o.preemption_bound.reset();
    else o.preemption_bound = *c.preemption_bound;
  }
  if (c.seed) o.seed = *c.seed;
  if (!c.replay.empty()) o.replay = c.replay;
  if (c.progress) {
    o.on_progress = print_progress;
    o.progress_interval = *c.progress;
  }
  for (const auto& [tag, order] : c.weaken) o.weaken[tag] = order;
  if (c.model) o.model = *c.model;
  if (c.shard) {
    o.shard_index = c.shard->first;
    o.shard_count = c.shard->second;
  }
  if (c.estimate_probes != 0) {
    const bool estimated = print_estimate(e, o, c);
    if (c.estimate_only) return estimated;
  }
  if (c.executions && o.replay.empty() && apply_budget(o, *c.executions))
    std::printf("execution budget: %zu (%s)\n", *c.executions,
                o.how == mode::random ? "random: samples at most that many"
                                      : "exhaustive: stops, incomplete, after that many");
  if (o.how == mode::random) {
    if (const auto s = pilfer::testing::env_seed()) o.seed = *s;  // malformed: one line, exit 2
    else if (!c.seed && o.seed == 0) o.seed = pilfer::testing::fresh_seed();
    pilfer::testing::print_seed(o.seed);
  }
  const result r = check(e.make, o);
  seen_tags.insert(r.tags.begin(), r.tags.end());
  if (!r.ok) stopped_early = true;
  const bool proved = r.ok && r.complete && o.how == mode::exhaustive && o.shard_count == 1;
  const bool met = e.expected_failure.empty() ? r.ok : (!r.ok && r.kind == e.expected_failure);
  std::string verdict;
  if (!e.expected_failure.empty())
    verdict = met ? "  (expected: " + e.expected_failure + " found)"
                  : "  (ERROR: expected a " + e.expected_failure + ", the checker " +
                        (r.ok ? std::string("found none") : "found a " + r.kind) + ")";
  else if (proved && o.preemption_bound)
    verdict = "  proved within " + std::to_string(*o.preemption_bound) + " preemptive switch" +
              (*o.preemption_bound == 1 ? "" : "es");
  else if (proved)
    verdict = "  proved";
  if (proved && r.one_way_stretches) verdict += ", set-up/teardown run one way";
  const std::string requirements = e.requirements.empty() ? "" : "  [" + e.requirements + "]";
  std::printf("%-32s %s%s%s\n", e.name.c_str(), r.summary().c_str(), requirements.c_str(), verdict.c_str());
  if (!r.ok)
    std::printf("%s: %s\nreplay: --replay=%s\n%s", r.kind.c_str(), r.message.c_str(), r.replay_token.c_str(),
                r.trace.c_str());
  std::fflush(stdout);
  return met;
}

}  // namespace

int scenario_main(std::span<const scenario_entry> scenarios, int argc, char** argv) {
  // (the failure kinds a check reports: result::kind)
  static const std::set<std::string> kinds{"assertion",   "data race",     "deadlock",           "livelock",
                                           "use after free", "double free", "invalid free",       "leak",
                                           "uninitialised read", "mutex misuse", "thread misuse",  "exception",
                                           "invalid order",   "model error"};
  std::set<std::string> names;
  for (const auto& e : scenarios) {
    if (!valid_name(e.name)) {
      std::fprintf(stderr, "error: scenario name '%s' must be letters, digits, '.', '_' or '-'\n", e.name.c_str());
      return 2;
    }
    if (!names.insert(e.name).second) {
      std::fprintf(stderr, "error: two scenarios are named '%s' (a name picks one)\n", e.name.c_str());
      return 2;
    }
    if (!e.expected_failure.empty() && kinds.count(e.expected_failure) == 0) {
      std::string known;
      for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
      std::fprintf(stderr, "error: scenario '%s' expects failure '%s', which no check reports (one of: %s)\n",
                   e.name.c_str(), e.expected_failure.c_str(), known.c_str());
      return 2;
    }
  }
  const auto c = parse(argc, argv);
  if (!c) return 2;
  if (c->list) {
    for (const auto& e : scenarios) std::printf("%s\n", e.name.c_str());
    return 0;
  }
  std::vector<const scenario_entry*> chosen;
  if (c->all) {
    for (const auto& e : scenarios) chosen.push_back(&e);
  }
  for (const auto& n : c->names) {
    const scenario_entry* found = nullptr;
    for (const auto& e : scenarios)
      if (e.name == n) found = &e;
    if (found == nullptr) {
      std::fprintf(stderr, "error: unknown scenario '%s' (--list prints the names)\n", n.c_str());
      return 2;
    }
    chosen.push_back(found);
  }
  if (chosen.empty()) {
    std::fprintf(stderr, "usage: %s NAME...|--all|--list [--random] [--seed=N] [--replay=TOKEN] "
                         "[--weaken=TAG=ORDER]... [--model=c++20|rc11] [--shard=I/N] [--no-symmetry] [--spurious-cas-failures] [--executions=N] [--progress[=SECONDS]] "
                         "[--estimate[=PROBES]|--estimate-only[=PROBES]]\n",
                 argc > 0 ? argv[0] : "scenarios");
    for (const auto& e : scenarios) std::fprintf(stderr, "  %s\n", e.name.c_str());
    return 2;
  }
  bool all_met = true;
  std::set<std::string> seen_tags;  // every site tag the scenarios run executed
  bool stopped_early = false;       // some check stopped at a failure: it may not have reached every site
  for (const auto* e : chosen) all_met = run(*e, *c, seen_tags, stopped_early) && all_met;
  // A --weaken tag no site of these scenarios has weakened nothing: a typo, or the wrong
  // scenario, must not pass for a check of the weakening.
  bool unknown_tag = false;
  for (const auto& [tag, order] : c->weaken) {
    if (seen_tags.count(tag) != 0) continue;
    if (stopped_early) {
      std::fprintf(stderr, "warning: --weaken=%s: no site executed before the check stopped has the tag '%s'\n",
                   tag.c_str(), tag.c_str());
    } else {
      std::fprintf(stderr, "error: --weaken=%s: no site of the scenarios run has the tag '%s'\n", tag.c_str(), tag.c_str());
      unknown_tag = true;
    }
  }
  if (unknown_tag) return 2;
  return all_met ? 0 : 1;
}

}  // namespace pilfer::model
