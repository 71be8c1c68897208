// models/clients/clients_main.cpp — runs the ported GenMC clients and checks their execution counts.
//
//   pilfer_model_clients NAME... | --all | --list  [--expected=FILE] [--model=c++20|rc11]
//                        [--executions=N] [--awaits] [--no-symmetry] [--memo-entries=N] [--revisit|--dfs]
//                        [--estimate[=PROBES] [--estimate-only] [--seed=N] [--estimate-within=F]] [--keep-going]
//                        [--shard=I/N [--shard-scripts=K]]
//
// One line per client: verdict, executions (complete), blocked, states, seconds, and GenMC's count
// from FILE. With --expected=FILE (models/clients/expected.tsv) a client passes only when its
// complete and blocked execution counts equal the table's pilfer columns — so a ctest fails when an
// engine change alters what is explored — and, for a program of GenMC's tests/wrong, only when the
// checker reports the failure the client names. --awaits writes the clients' read-only spin loops
// as atomic<T>::await instead of GenMC's assume() (client.hpp, spin_until): a client then passes
// when its complete executions equal the table's (the blocked column is the assume form's).
// --memo-entries=N sets options::memo_entries (the memo table's cap); a run whose table reached
// its cap says how many states it forgot (a graph may then be completed more than once).
// --revisit explores by revisiting reads (engine/revisit.cpp), --dfs by the memoised DFS (the default;
// env PILFER_MODEL_EXPLORATION overrides both).
// --estimate[=PROBES] (default 1000) first prints pilfer::model::estimate()'s figures for the revisit
// exploration (seed=N printed; --seed=N or PILFER_SEED=N gives it back) and, with --expected, the ratio
// estimate / the table's revisit counts; --estimate-only stops there (exit status 1 if it cannot estimate).
// --estimate-within=F (with --expected): a client whose estimate of complete + blocked executions is not
// within a factor F of the table's revisit counts fails (ctest model.clients.estimate).
// --keep-going: a failure does not stop the check (options::stop_on_failure = false), so a client of
// GenMC's tests/wrong is explored whole (its counts then leave out the failing executions).
// --shard=I/N explores part I of N (options::shard_index / shard_count; with --revisit the N parts are
// disjoint and their counts add up to the whole's, MC-18); --shard-scripts=K sets options::shard_scripts. The
// line then names the shard and the runs or scripts left to other shards (result::other_shards); with
// --expected the counts are not compared (a shard's are a part of the table's).
// Bad input: one line on stderr, exit status 2.
#include "client.hpp"

#include "../engine/exploration_mode.hpp"

#include <pilfer/testing/seed.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using pilfer::model::clients::client;

struct expectation {
  std::string genmc;  // GenMC's complete executions (as the table gives them)
  std::size_t executions = 0, blocked = 0;
  // revisit exploration (columns 7 and 8, optional): complete and blocked distinct graphs
  bool has_revisit = false;
  std::size_t rv_executions = 0, rv_blocked = 0;
};

[[noreturn]] void bad_input(const std::string& what) {
  std::fprintf(stderr, "pilfer_model_clients: %s\n", what.c_str());
  std::exit(2);
}

bool parse_count(std::string_view s, std::size_t* out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc{} && p == end && !s.empty();
}

// Columns: client, GenMC path, GenMC executions, pilfer executions, pilfer blocked, note, and optionally
// the revisit mode's executions and blocked (compared instead of columns 4-5 under --revisit). Lines
// starting with '#' and blank lines are comments.
std::map<std::string, expectation> read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad_input("cannot read " + path);
  std::map<std::string, expectation> table;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    expectation e;
    if (cols.size() < 5 || !parse_count(cols[3], &e.executions) || !parse_count(cols[4], &e.blocked))
      bad_input(path + ":" + std::to_string(number) + ": expected client, path, genmc, executions, blocked, note");
    e.genmc = cols[2];
    if (cols.size() >= 8) {
      if (!parse_count(cols[6], &e.rv_executions) || !parse_count(cols[7], &e.rv_blocked))
        bad_input(path + ":" + std::to_string(number) + ": columns 7 and 8 are the revisit mode's executions and blocked");
      e.has_revisit = true;
    }
    table[cols[0]] = e;
  }
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<client> all = pilfer::model::clients::all_clients();
  std::vector<std::string> names;
  std::string table_path;
  pilfer::model::options overrides;
  bool model_given = false;
  std::size_t budget = 0;
  std::size_t memo_entries = 0;  // 0: the client's own
  std::size_t probes = 0;        // --estimate[=PROBES]
  bool estimate_only = false;
  std::optional<std::uint64_t> seed;
  double within = 0;  // --estimate-within=F
  unsigned shard_index = 0, shard_count = 1, shard_scripts = 0;  // --shard=I/N, --shard-scripts=K (0: the default)
  for (int k = 1; k < argc; ++k) {
    const std::string_view a = argv[k];
    if (a == "--list") {
      for (const client& c : all) std::printf("%s\n", c.name.c_str());
      return 0;
    } else if (a == "--all") {
      for (const client& c : all) names.push_back(c.name);
    } else if (a.starts_with("--expected=")) {
      table_path = std::string(a.substr(11));
    } else if (a.starts_with("--model=")) {
      const auto m = pilfer::model::parse_memory_model(std::string(a.substr(8)));
      if (!m) bad_input("unknown model '" + std::string(a.substr(8)) + "' (c++20 or rc11)");
      overrides.model = *m;
      model_given = true;
    } else if (a == "--no-symmetry") {
      overrides.symmetry = false;
    } else if (a == "--revisit") {
      pilfer::model::engine::set_exploration(pilfer::model::engine::exploration::revisit);
    } else if (a == "--dfs") {
      pilfer::model::engine::set_exploration(pilfer::model::engine::exploration::dfs);
    } else if (a == "--awaits") {
      pilfer::model::clients::spin_loops() = pilfer::model::clients::spin_form::await;
    } else if (a.starts_with("--memo-entries=")) {
      if (!parse_count(a.substr(15), &memo_entries) || memo_entries == 0)
        bad_input("bad --memo-entries value '" + std::string(a) + "'");
    } else if (a == "--estimate") {
      probes = 1000;
    } else if (a.starts_with("--estimate=")) {
      if (!parse_count(a.substr(11), &probes) || probes == 0) bad_input("bad --estimate value '" + std::string(a) + "'");
    } else if (a.starts_with("--estimate-within=")) {
      const std::string v(a.substr(18));
      char* end = nullptr;
      within = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !(within >= 1)) bad_input("bad --estimate-within value '" + std::string(a) + "'");
    } else if (a == "--keep-going") {
      overrides.stop_on_failure = false;
    } else if (a == "--estimate-only") {
      estimate_only = true;
    } else if (a.starts_with("--seed=")) {
      seed = pilfer::testing::parse_u64(a.substr(7));
      if (!seed) bad_input("bad --seed value '" + std::string(a) + "'");
    } else if (a.starts_with("--executions=")) {
      if (!parse_count(a.substr(13), &budget) || budget == 0) bad_input("bad --executions value '" + std::string(a) + "'");
    } else if (a.starts_with("--shard=")) {
      const std::string_view v = a.substr(8);
      const auto slash = v.find('/');
      std::size_t i = 0, n = 0;
      if (slash == std::string_view::npos || !parse_count(v.substr(0, slash), &i) || !parse_count(v.substr(slash + 1), &n) ||
          n == 0 || i >= n || n > std::numeric_limits<unsigned>::max())
        bad_input("bad --shard value '" + std::string(a) + "' (I/N with 0 <= I < N)");
      shard_index = static_cast<unsigned>(i);
      shard_count = static_cast<unsigned>(n);
    } else if (a.starts_with("--shard-scripts=")) {
      std::size_t d = 0;
      if (!parse_count(a.substr(16), &d) || d == 0 || d > std::numeric_limits<unsigned>::max())
        bad_input("bad --shard-scripts value '" + std::string(a) + "'");
      shard_scripts = static_cast<unsigned>(d);
    } else if (a.starts_with("--")) {
      bad_input("unknown option '" + std::string(a) + "'");
    } else {
      names.emplace_back(a);
    }
  }
  if (names.empty()) bad_input("name a client, --all or --list");
  if (estimate_only && probes == 0) probes = 1000;
  if (probes != 0 && !seed) seed = pilfer::testing::seed_from_env();
  if (probes != 0) pilfer::testing::print_seed(*seed);
  const bool awaits = pilfer::model::clients::spin_loops() == pilfer::model::clients::spin_form::await;
  const auto table = table_path.empty() ? std::map<std::string, expectation>{} : read_table(table_path);

  const bool revisit_mode =
      pilfer::model::engine::current_exploration() == pilfer::model::engine::exploration::revisit;
  int status = 0;
  for (const std::string& name : names) {
    const client* c = nullptr;
    for (const client& x : all)
      if (x.name == name) c = &x;
    if (c == nullptr) bad_input("unknown client '" + name + "' (--list)");
    pilfer::model::options o = c->opts;
    if (model_given) o.model = overrides.model;
    if (!overrides.symmetry) o.symmetry = false;
    if (!overrides.stop_on_failure) o.stop_on_failure = false;
    if (budget != 0) o.max_executions = budget;
    if (memo_entries != 0) o.memo_entries = memo_entries;
    o.shard_index = shard_index;
    o.shard_count = shard_count;
    if (shard_scripts != 0) o.shard_scripts = shard_scripts;
    if (probes != 0) {
      pilfer::model::options eo = o;
      eo.seed = *seed;
      const pilfer::model::estimate_result est = pilfer::model::estimate(c->make, eo, probes);
      std::string ratio;
      if (const auto e = table.find(name); est.ok && e != table.end() && e->second.has_revisit) {
        const double truth = static_cast<double>(e->second.rv_executions + e->second.rv_blocked);
        char buf[160];
        std::snprintf(buf, sizeof buf, " ratio=%.3f (complete %.3f) to the table's %zu + %zu", est.executions / truth,
                      e->second.rv_executions == 0 ? 0.0 : est.complete / static_cast<double>(e->second.rv_executions),
                      e->second.rv_executions, e->second.rv_blocked);
        ratio = buf;
        const double r = est.executions / truth;
        if (within != 0 && !(r <= within && r >= 1 / within)) {
          ratio += " OUTSIDE the stated factor";
          status = 1;
        }
      } else if (within != 0) {
        ratio = " (no revisit counts in the table to compare with)";
        status = 1;
      }
      std::printf("%s: %s%s\n", name.c_str(), est.summary().c_str(), ratio.c_str());
      std::fflush(stdout);
      if (!est.ok) status = 1;
      if (estimate_only) continue;
    }
    const pilfer::model::result r = pilfer::model::check(c->make, o);

    const bool as_expected = c->expected_failure.empty() ? r.ok : r.kind == c->expected_failure;
    bool counts_ok = true;
    std::string genmc = "?";
    if (!table_path.empty() && shard_count == 1) {
      const auto e = table.find(name);
      if (e == table.end()) {
        std::printf("%s: no row in %s\n", name.c_str(), table_path.c_str());
        counts_ok = false;
      } else {
        genmc = e->second.genmc;
        const bool revisit_row = revisit_mode && e->second.has_revisit;
        const std::size_t want_e = revisit_row ? e->second.rv_executions : e->second.executions;
        const std::size_t want_b = revisit_row ? e->second.rv_blocked : e->second.blocked;
        counts_ok = r.executions == want_e && (awaits || r.blocked == want_b);
        if (!counts_ok)
          std::printf("%s: counts changed: %zu executions, %zu blocked; the table says %zu, %zu%s\n", name.c_str(),
                      r.executions, r.blocked, want_e, want_b,
                      awaits ? " (with --awaits only executions must match)" : "");
      }
    }
    const bool revisit = revisit_mode;
    std::printf("%s: %s (%s) model=%s%s%s executions=%zu blocked=%zu states=%zu %s seconds=%.2f genmc=%s\n", name.c_str(),
                as_expected ? "ok" : "FAIL", c->parameters.c_str(), pilfer::model::to_string(r.model),
                awaits ? " spin-loops=await" : "", revisit ? " exploration=revisit" : "", r.executions, r.blocked, r.states,
                r.complete ? "complete" : "incomplete", r.seconds, genmc.c_str());
    if (shard_count > 1)
      std::printf("  shard %u/%u (shard_scripts %u): %zu runs or scripts left to other shards\n", shard_index, shard_count,
                  o.shard_scripts, r.other_shards);
    if (r.forgotten != 0)
      std::printf("  memo table at its cap (options::memo_entries): %zu states forgotten, so a graph may have been "
                  "completed more than once\n",
                  r.forgotten);
    if (!r.kind.empty()) std::printf("  %s: %s\n", r.kind.c_str(), r.message.c_str());
    if (!as_expected && !r.trace.empty()) std::printf("%s\n", r.trace.c_str());
    if (!as_expected || !counts_ok) status = 1;
  }
  return status;
}
