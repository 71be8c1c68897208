// models/engine/revisit_shards.cpp — options::shard_index / shard_count / shard_scripts in revisit mode
// (revisit.cpp): one exploration split across processes or machines by its tree, exactly.
//
// The revisit exploration is a tree: a run replays a script, and at each decision goes on with one
// alternative and pushes the others as scripts; each pushed script's run and what it pushes in turn
// is a subtree of its own, disjoint from every other's (each final graph is the end of one run only,
// TruSt's maximality). So the scripts on the work list at any one moment, plus the runs made before,
// partition the final graphs. Every shard makes the same start of the exploration: from the root,
// breadth-first (the oldest script on the work list runs next), until the work list first holds
// shard_scripts scripts (the FRONTIER; a fixed point, independent of shard_count and shard_index, since
// the exploration is deterministic). The runs made before it are shard 0's; script k of the frontier
// (k counted from the oldest) is shard k mod shard_count's. Each shard then explores its scripts as
// the unsharded exploration does (depth-first, the work list a stack). So:
//   - the shards' complete and blocked counts (and states, pruned runs) add up to the unsharded
//     exploration's, and no final graph is explored by two shards;
//   - the same (index, count) always gives the same part, and the part of shard i of n is the union
//     of the parts of shards i, i + n, i + 2n, ... of k·n (the frontier does not depend on n);
//   - an exploration that ends before its work list holds shard_scripts scripts is shard 0's whole.
// Breadth-first, the frontier's scripts are a level or two of the tree, of sizes less uneven than
// the scripts a depth-first start leaves (its first ones hold most of the tree); the more of them,
// the more even the parts (ms_queue_3 in 4 shards: 48/44/7/1 % of the graphs at 24 scripts, 36/25/20/20
// at 1536, 27/25/27/24 at 6144), and the longer the common start every shard replays.
// Before the frontier a shard other than 0 counts nothing: its result is reset at the deal (a failure
// or race met there is shard 0's; it does not stop this shard). Its runs there are counted in
// result::other_shards, with the frontier scripts dealt to other shards.
// A scenario that uses what revisit mode does not support is explored by the DFS instead; met only
// after the deal, in one shard's part, that would not partition (another shard may not meet it): the
// check then fails with a model error naming it (run every shard with the DFS).
#include "checker.hpp"

#include <algorithm>
#include <cstdio>

namespace pilfer::model::engine {

namespace {
bool g_mutant_overlap = false;  // set_revisit_shard_mutant_overlap()
revisit_graphs g_last_graphs;   // last_revisit_graphs()

void sorted_hashes(const std::unordered_set<hash128, hash128_hasher>& from,
                   std::vector<std::pair<std::uint64_t, std::uint64_t>>& to) {
  to.clear();
  to.reserve(from.size());
  for (const hash128& h : from) to.emplace_back(h.a, h.b);
  std::sort(to.begin(), to.end());
}
}  // namespace

void set_revisit_shard_mutant_overlap(bool on) noexcept { g_mutant_overlap = on; }
const revisit_graphs& last_revisit_graphs() noexcept { return g_last_graphs; }

void checker::rv_shards_begin() {
  rv_shard_on_ = opt_.shard_count > 1 && opt_.how == mode::exhaustive;
  rv_shard_dealt_ = false;
  g_last_graphs.complete.clear();
  g_last_graphs.blocked.clear();
}

namespace {
/// What a shard other than 0 counted before the frontier (shard 0's): gone, the tags executed kept.
// A shard's counts start again: the runs so far were shard 0's (with their final graphs' hashes).
void forget_counts(result& res, std::vector<std::string>& race_keys, memory_model model,
                   std::unordered_set<hash128, hash128_hasher>& complete, std::unordered_set<hash128, hash128_hasher>& blocked) {
  result fresh;
  fresh.model = model;
  fresh.tags = std::move(res.tags);
  fresh.tag_orders = std::move(res.tag_orders);
  fresh.other_shards = res.other_shards;
  fresh.abandoned = 0;
  res = std::move(fresh);
  race_keys.clear();
  complete.clear();
  blocked.clear();
}
}  // namespace

void checker::rv_shards_after_run() {
  if (!rv_shard_on_ || rv_shard_dealt_) return;
  const std::size_t frontier = std::max(opt_.shard_scripts, 1u);
  const bool zero = opt_.shard_index % opt_.shard_count == 0;
  if (!zero) ++res_.other_shards;  // the run just made is shard 0's
  if (rv_work_.size() < frontier) {
    // breadth-first before the frontier: the oldest script runs next (the loop pops the back)
    if (rv_work_.size() > 1) std::rotate(rv_work_.begin(), rv_work_.begin() + 1, rv_work_.end());
    return;
  }
  const unsigned n = opt_.shard_count, me = opt_.shard_index % n;
  std::size_t kept = 0;
  for (std::size_t k = 0; k < rv_work_.size(); ++k) {
    if (k % n != me && !(g_mutant_overlap && k == 0)) continue;
    if (kept != k) rv_work_[kept] = std::move(rv_work_[k]);
    ++kept;
  }
  res_.other_shards += rv_work_.size() - kept;
  rv_work_.resize(kept);
  rv_shard_dealt_ = true;
  if (!zero) forget_counts(res_, race_keys_, opt_.model, rv_complete_, rv_blocked_);
}

void checker::rv_shards_end() {
  if (rv_shard_on_ && !rv_shard_dealt_ && opt_.shard_index % opt_.shard_count != 0) {
    // never reached the frontier: all of it was shard 0's
    forget_counts(res_, race_keys_, opt_.model, rv_complete_, rv_blocked_);
  }
  if (rv_check_dups_) {
    sorted_hashes(rv_complete_, g_last_graphs.complete);
    sorted_hashes(rv_blocked_, g_last_graphs.blocked);
  }
}

void checker::rv_shards_fallback_error() {
  res_ = result{};
  res_.model = opt_.model;
  res_.ok = false;
  res_.kind = "model error";
  res_.message = "shard " + std::to_string(opt_.shard_index % opt_.shard_count) + "/" + std::to_string(opt_.shard_count) +
                 " of a revisit exploration met " +
                 (rv_unsupported_what_.empty() ? std::string("yield() / spin hints") : rv_unsupported_what_) +
                 " after the shards split, which revisit mode does not support; another shard may not meet it, so "
                 "this one cannot fall back to the DFS alone: explore every shard by the DFS "
                 "(options::exploration = dfs, PILFER_MODEL_EXPLORATION=dfs)";
  std::fprintf(stderr, "pilfer model: %s\n", res_.message.c_str());
}

}  // namespace pilfer::model::engine
