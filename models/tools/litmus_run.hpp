// litmus_run.hpp — runs a parsed litmus / CppMem program on pilfer's model checker.
//
// Used by pilfer-litmus and by the differential fuzzer (litmus_fuzz), so both run a program
// exactly the same way. Every location is a checker atomic; a non-atomic access runs as a
// relaxed atomic access, which gives the executions rc11.cat considers (herd7 lists the
// outcomes of racy executions too). If the program has non-atomic accesses, a second run
// with shadow `cell`s answers whether some execution has a data race (see litmus_run.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "litmus_parser.hpp"
#include "pilfer/model/checker.hpp"

namespace pilfer::litmus {

/// Deliberate weakenings of the engine's input, so the fuzzer can show it catches them.
struct order_mutation {
  bool all_relaxed = false;    ///< every access relaxed
  bool sc_as_acq_rel = false;  ///< seq_cst runs as acq_rel
  bool drop_fences = false;    ///< fences are skipped
  bool no_race_run = false;    ///< the race run is skipped (no race is ever flagged)
};

/// What the engine found for one program.
struct engine_run {
  std::map<state, std::size_t> counts;  ///< final state → complete executions ending in it
  std::size_t filtered = 0;             ///< executions a CppMem `.readsvalue(v)` rules out
  bool out_of_bounds = false;           ///< some execution indexed outside an array
  bool step_limit = false;              ///< a thread ran into max_thread_steps
  bool division_by_zero = false;        ///< some execution divided by zero (the thread stopped there)
  bool race = false;                    ///< some execution has a data race
  pilfer::model::result engine;         ///< the outcome run's result (failures, counts)
  pilfer::model::result race_engine;    ///< the race run's result (when there was one)
};

/// Explore every execution of `p` with options `o` (outcome run, then race run if needed).
engine_run run_on_engine(const program& p, const pilfer::model::options& o,
                         const order_mutation& mutation = {});

}  // namespace pilfer::litmus
