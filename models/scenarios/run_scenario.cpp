// pilfer_model_scenario: runs registered scenarios through the same command line outside projects get
// (pilfer/model/runner.hpp): NAME... | --all | --list, --random [--seed=N] (PILFER_SEED=N), --replay=TOKEN,
// --weaken=TAG=ORDER (e.g. --weaken=deque.P2=relaxed; repeatable), --model=c++20|rc11, --shard=I/N.
// Exit code = verdict.
#include "scenarios.hpp"

#include <pilfer/model/runner.hpp>

#include <vector>

int main(int argc, char** argv) {
  std::vector<pilfer::model::scenario_entry> entries;
  for (auto& e : pilfer::model::scenarios::all_scenarios())
    entries.push_back({std::move(e.name), std::move(e.ids), std::move(e.make), std::move(e.opts)});
  return pilfer::model::scenario_main(entries, argc, argv);
}
