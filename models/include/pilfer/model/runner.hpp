// pilfer/model/runner.hpp — the command line of a model-check program: a list of named scenarios,
// one verdict line each, exit status = verdict. pilfer's own scenario program
// (models/scenarios/run_scenario.cpp) and the programs pilfer_add_model_check() builds for outside
// projects both end in scenario_main(), so a user runs their scenarios exactly as pilfer runs its own.
//
//   int main(int argc, char** argv) {
//     std::vector<pilfer::model::scenario_entry> v;
//     v.push_back({"ring.fifo", "RING-1", [] { return std::make_unique<ring_fifo>(); }});
//     return pilfer::model::scenario_main(v, argc, argv);
//   }
//
// Command line (program NAME... | --all | --list, then options):
//   NAME...           run these scenarios; --all runs every one, in list order
//   --list            print each scenario's name, one a line (pilfer_add_model_check reads it)
//   --random          random mode; the seed is printed as seed=N (PILFER_SEED=N or --seed=N replays it)
//   --exhaustive      exhaustive mode for a scenario registered as random (usually with a bound below)
//   --preemption-bound=N|none  at most N preemptive context switches per execution (CHESS-style
//                     bounding; switches at blocking, yields and thread ends are free); `none` lifts
//                     the scenario's own bound
//   --replay=TOKEN    re-run the execution a failure printed as `replay: --replay=TOKEN`, with its trace
//   --weaken=TAG=ORDER  the site tagged TAG runs with the weaker of its order and ORDER (repeatable)
//   --model=c++20|rc11
//   --shard=I/N       explore part I of N (0 <= I < N; N runs together cover the space; a shard says
//                     `complete` for its part, never `proved`). By revisits (PILFER_MODEL_EXPLORATION=
//                     revisit) the parts are exact: each final graph is explored by one shard and the
//                     shards' executions add up to the whole's (MC-18; every shard first replays the same
//                     start, up to options::shard_scripts waiting alternatives). By the DFS a state's hash
//                     picks its shard, and shards may explore a graph twice (models/README.md, "Sharding")
//   --executions=N    an execution budget for slow builds (also PILFER_MODEL_EXECUTIONS=N; the option
//                     wins): random mode samples at most N executions, exhaustive mode stops after N
//                     complete ones (then `incomplete`, never `proved`); printed when it lowers a bound
//   --progress[=S]    every S seconds (default 10) a line on stderr: the share of the decision tree
//                     explored (progress::explored), executions, states, and a projection of the run's time
//   --no-symmetry     explore every permutation of the scenario's symmetric() groups (options::symmetry)
//   --spurious-cas-failures  a weak CAS may also fail where it could succeed (options::spurious_cas_failures)
//   --estimate[=P]    before the check, one line: estimate() of the scenario's exhaustive exploration by
//                     revisits from P random probes (default 1000) — executions (complete + blocked) with
//                     their standard error, runs, the run's time at the probes' pace, and seed=N (--seed=N
//                     or PILFER_SEED=N gives the same probes back); "cannot estimate: <feature>" for what
//                     revisit mode does not support. --estimate-only[=P]: the estimate instead of the
//                     check (the scenario then fails only when it cannot be estimated)
// Bad input (unknown scenario or option, malformed number) is one line on stderr and exit status 2.
//
// Verdicts. A scenario with an empty `expected_failure` passes when the check finds no failure; the
// line says `proved` when its exploration was exhaustive and complete (every execution the model
// allows, within the stated bounds, was checked), `proved within N preemptive switches` when a
// preemption bound limited it. A scenario with `expected_failure` set (a
// result::kind such as "data race" or "assertion") is a demonstration of a known bug: it passes
// only when the checker finds exactly that kind of failure, and prints the failure's trace; if the
// checker stops finding it, the scenario fails. Exit status 0 when every scenario run met its
// expectation, 1 otherwise.
#pragma once

#include <pilfer/model/checker.hpp>

#include <functional>
#include <memory>
#include <span>
#include <string>

namespace pilfer::model {

/// One scenario of a model-check program.
struct scenario_entry {
  /// Printed with the verdict and used as the ctest name suffix: letters, digits, '.', '_', '-'.
  std::string name{};
  /// Requirement IDs the scenario verifies, printed with its verdict ("" when none).
  std::string requirements{};
  /// Builds a fresh scenario object; check() calls it once per execution.
  std::function<std::unique_ptr<scenario>()> make{};
  /// Mode and bounds (exhaustive by default); command-line options override them.
  options opts{};
  /// "" — the check must pass. Otherwise the result::kind the check must report (see above).
  std::string expected_failure{};
};

/// Parse the command line (see the header comment), run the chosen scenarios, print one verdict
/// line each (and a failure's message, replay token and trace). Returns the exit status.
int scenario_main(std::span<const scenario_entry> scenarios, int argc, char** argv);

}  // namespace pilfer::model
