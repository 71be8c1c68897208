// models/engine/exploration_mode.hpp — which exhaustive exploration check() uses in this process.
//
// options::exploration (include/pilfer/model/checker.hpp) picks it per check(); unset, the process's
// choice below applies.
// `dfs` (the default): the memoised stateless DFS over interleavings (exploration.cpp).
// `revisit`: GenMC-style exploration by revisiting reads (revisit.cpp): events are added in one
// fixed order (the lowest-index thread that can run), reads choose forward among the writes in
// the graph, and every new write also revisits the earlier reads of its location outside its
// porf-prefix; mutexes as GenMC's (mutexes.cpp). A scenario using what revisit mode does not
// support (wait / notify, yield / spin hints, asymmetric fences, await_exchange, observe(),
// stop_branching(), a preemption bound, replay; symmetry groups with options::symmetry where a
// store has a choice of mo position) is explored by the DFS instead, with a one-line note on
// stderr. Symmetry groups are reduced by GenMC's rule (revisit_symmetry.cpp). Shards
// (options::shard_*) split a revisit exploration by its tree
// (revisit_shards.cpp): each final graph is explored by exactly one shard.
//
// The process's choice: set_exploration(), or env PILFER_MODEL_EXPLORATION=revisit|dfs (read at
// each check(); it overrides set_exploration()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pilfer/model/checker.hpp"

namespace pilfer::model::engine {

using exploration = exploration_mode;

void set_exploration(exploration e) noexcept;
/// The mode a check() without options::exploration uses (the environment variable included).
/// A value of PILFER_MODEL_EXPLORATION other than dfs / revisit: returns dfs and sets `*bad`
/// (when given) to the value.
exploration current_exploration(std::string* bad = nullptr) noexcept;

/// Self-test only (tests/revisit.cpp): a mutant revisit mode whose writes make no backward revisits;
/// the differential test must see it lose outcomes.
void set_revisit_mutant_no_backward(bool on) noexcept;
/// Self-test only: a mutant revisit mode without the maximality condition (every revisit is made);
/// the optimality checks must see it reach graphs more than once.
void set_revisit_mutant_no_maximality(bool on) noexcept;
/// Self-test only: a revisit exploration stops after this many runs (0: no cap), as at
/// options::max_executions (result::complete false). max_executions counts complete executions
/// only; without the maximality condition revisits may cycle through runs that all end blocked or
/// failed (a deadlocking random program, models/README.md), and only this cap stops them.
void set_revisit_run_cap(std::size_t runs) noexcept;
/// Self-test only: a mutant revisit mode whose lock may read a locked value (a lock revisited by
/// another thread's lock reads it and goes on, instead of waiting for an unlock): mutual exclusion
/// is lost, and the mutex tests must see it.
void set_revisit_mutant_lock_reads_locked(bool on) noexcept;

/// Self-test only (tests/revisit_symmetry.cpp): a mutant symmetry rule for revisit mode that also
/// prunes a tie (two members' accesses at the same place, neither eco-before the other): graphs, and
/// the failures only they reach, are lost, and the test must see it.
void set_revisit_symmetry_mutant_prune_ties(bool on) noexcept;
/// Self-test only: off, revisit mode declares the symmetric groups but prunes nothing (every
/// permutation is explored); with the duplicate check on, the final graphs are then compared up to a
/// permutation (see set_revisit_duplicate_check), so their distinct number is the DFS's with symmetry.
void set_revisit_symmetry_rule(bool on) noexcept;
bool revisit_symmetry_rule() noexcept;

/// Debug cross-check of revisit mode's optimality: remember every final graph (canonical hash)
/// and count those reached again (env PILFER_MODEL_REVISIT_CHECK=1 does the same). With symmetric
/// groups and options::symmetry the hash is the least over the groups' permutations (symmetry.cpp):
/// a graph counts as reached again when a relabeling of it was (the rule keeps more than one graph
/// of some relabelings: models/README.md). The counts in
/// the result are the same either way: they never depend on these sets.
void set_revisit_duplicate_check(bool on) noexcept;
/// What the last check() that explored by revisits did.
struct revisit_counts {
  std::size_t runs = 0;        // executions run (replays included): each ends complete, blocked or pruned
  std::size_t duplicates = 0;  // final graphs reached again (0 unless set_revisit_duplicate_check)
  std::size_t complete_duplicates = 0;  // of them, complete ones (counted in `executions` again)
  std::size_t invalid = 0;     // revisits found inconsistent when replayed (pruned runs)
  std::size_t await_unknown = 0;  // maximality checks that took an await to reject a value it was never asked about
};
revisit_counts last_revisit_counts() noexcept;

/// The final graphs (canonical state hashes, sorted) of the last check() that explored by revisits
/// with the duplicate check on (set_revisit_duplicate_check): complete and blocked ones; empty
/// without the check. Repeats appear once (their number is revisit_counts::duplicates).
struct revisit_graphs {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> complete, blocked;
};
const revisit_graphs& last_revisit_graphs() noexcept;

/// Self-test only (tests/revisit_shards.cpp): a mutant deal of a sharded revisit exploration in
/// which every shard also takes the frontier's first script (shard 0's): two shards then explore
/// the same graphs, and the disjointness check must see it.
void set_revisit_shard_mutant_overlap(bool on) noexcept;

}  // namespace pilfer::model::engine
