// models/engine/revisit.cpp — exploration by revisiting reads (Kokologiannakis et al., POPL'18 /
// PLDI'19 GenMC), as a second exhaustive mode next to the memoised DFS (exploration_mode.hpp).
//
// Events are added in one fixed order: at every scheduling point the lowest-index thread that can
// run goes (a thread stopped by a false assume() stays stopped and the others go on; an execution
// that ends with such a thread is BLOCKED). A read chooses forward among the coherent writes
// already in the graph (read_choose's candidates, psc-filtered); a write chooses its mo position as
// in the DFS, and also REVISITS every read r of its location that is not in its porf-prefix: the
// graph restricted to the events added before r and porf-prefix(w), with r reading from w.
//
// That restricted graph is reached by an interleaving: run the steps added before r in their
// order, then porf-prefix(w)'s other steps in theirs, then r with rf = w. So an exploration item is
// a SCRIPT of steps (thread by canonical key + the rf / mo outcomes by canonical event names),
// replayed from scratch by the same fibers, after which the fixed scheduler goes on. A mo outcome
// names the write's mo predecessor among the writes then in the graph; in a restricted graph the
// nearest one kept is named instead. The revisited read is re-checked against its candidates
// (coherence, psc, atomicity): a revisit that is not consistent is dropped.
//
// Mutexes (mutexes.cpp), as GenMC's: a lock is an RMW await of 0, a lock that would take the store
// another lock p took is a pending RMW whose revisit leaves p's thread waiting (no read of the
// locked value: rv_conflicts), and a thread waiting at a held lock makes those revisits before each
// scheduling decision (rv_lock_attempts: GenMC's blocked lock read); a failed try_lock reads a lock
// only where the DFS could run it while that lock is held (rv_trylock_fail_ok).
//
// RMW atomicity (GenMC's "pending RMW"): an RMW whose source is already read by another RMW p is
// not added (it would break atomicity); instead it revisits the reads of the location added up to
// p, in graphs where it is added before them, and the execution goes on with its other choices.
//
// Optimality (TruSt, POPL'22): each graph is meant to be the end of one run only, so nothing is
// memoised and every final graph is counted (a repeat is still possible where an await's predicate
// was not asked about a value: models/README.md, "Left to do"). What makes it so
// (rv_maximal_extension): a revisit is made only from the one graph that added the events it deletes
// "maximally" (a revisited read's flag is decided on replay and recorded with its outcome, so the
// scripts made from that run keep it: read_choose); the order events were added in
// (a step's rank) is kept apart from the order a script runs them in, since a revisited read keeps
// its place before the write it now reads; and the porf-prefix of a revisiting write is settled:
// its reads are not revisited again. set_revisit_duplicate_check() remembers the final graphs to
// count repeats (a debug cross-check; the self-test requires none on its fixed programs).
#include "checker.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pilfer::model::engine {

namespace {
// Set by a test or tool before it runs checks; the engine runs every fiber on one OS thread.
exploration g_exploration = exploration::dfs;
bool g_mutant_no_backward = false;
bool g_mutant_lock_reads_locked = false;  // set_revisit_mutant_lock_reads_locked()
bool g_duplicate_check = false;   // set_revisit_duplicate_check()
revisit_counts g_last_counts;     // last_revisit_counts()
// PILFER_MODEL_REVISIT_ALL=1 or set_revisit_mutant_no_maximality(): every revisit, no maximality
// condition (a graph may then be counted more than once; for comparison and the self-test)
bool g_no_maximality = std::getenv("PILFER_MODEL_REVISIT_ALL") != nullptr;
std::size_t g_run_cap = 0;  // set_revisit_run_cap()
}  // namespace

void set_revisit_run_cap(std::size_t runs) noexcept { g_run_cap = runs; }

void set_revisit_mutant_no_backward(bool on) noexcept { g_mutant_no_backward = on; }
void set_revisit_mutant_no_maximality(bool on) noexcept { g_no_maximality = on; }
void set_revisit_mutant_lock_reads_locked(bool on) noexcept { g_mutant_lock_reads_locked = on; }
bool checker::rv_mutant_lock_reads_locked() noexcept { return g_mutant_lock_reads_locked; }
void set_revisit_duplicate_check(bool on) noexcept { g_duplicate_check = on; }
revisit_counts last_revisit_counts() noexcept { return g_last_counts; }

void set_exploration(exploration e) noexcept { g_exploration = e; }

exploration current_exploration(std::string* bad) noexcept {
  if (const char* v = std::getenv("PILFER_MODEL_EXPLORATION"); v != nullptr && *v != '\0') {
    if (std::strcmp(v, "revisit") == 0) return exploration::revisit;
    if (std::strcmp(v, "dfs") == 0) return exploration::dfs;
    if (bad != nullptr) {
      try {
        *bad = v;
      } catch (...) {
        bad->clear();  // out of memory: the caller reports it without the value
      }
    }
    return exploration::dfs;
  }
  return g_exploration;
}

void checker::rv_unsupported(const char* what) {
  rv_unsupported_ = true;
  rv_unsupported_what_ = what;
  abandon();
}

void checker::rv_begin_step(std::uint32_t t, std::uint32_t rank, bool settled) {
  const auto s = static_cast<std::uint32_t>(rv_rec_.steps.size());
  rv_rec_.steps.push_back(rv_step{threads_[t].key, static_cast<std::uint32_t>(rv_rec_.outs.size()), rank, settled});
  rv_step_gid_.push_back(static_cast<std::uint32_t>(events_.size()));
  rv_step_prev_.push_back(rv_tlast_[t]);
  rv_tlast_[t] = s;
}

std::uint32_t checker::rv_lookup(const rv_name& n) const noexcept {
  for (const mthread& th : threads_)
    if (th.key == n.tkey) return n.idx < th.events.size() ? th.events[n.idx] : none;
  return none;
}

void checker::rv_push_alternative(const rv_name& n) {
  rv_script sc;
  sc.steps = rv_rec_.steps;
  sc.outs.reserve(rv_rec_.outs.size() + 1);
  sc.outs = rv_rec_.outs;
  sc.outs.push_back(n);
  rv_work_.push_back(std::move(sc));
}

/// gid -> step for the events added since the last call (steps and events only grow; a trial
/// event of read_choose / write_choose is gone again before this runs).
void checker::rv_index_events() {
  const auto n = static_cast<std::uint32_t>(rv_step_gid_.size());
  for (auto gi = static_cast<std::uint32_t>(rv_evstep_.size()); gi < events_.size(); ++gi) {
    while (rv_index_ptr_ + 1 < n && rv_step_gid_[rv_index_ptr_ + 1] <= gi) ++rv_index_ptr_;
    rv_evstep_.push_back(rv_index_ptr_);
  }
}

/// rv_mark_[s] = 1 for the steps of the porf-prefix of the seed steps: the thread's earlier steps
/// (its first step follows the step that spawned it), the steps of the writes its events read, and
/// for a join the joined thread's last step.
void checker::rv_porf(std::uint32_t seed1, std::uint32_t seed2, std::uint32_t seed3) {
  const auto n = static_cast<std::uint32_t>(rv_rec_.steps.size());
  rv_mark_.assign(n, 0);
  if (seed1 != none) rv_mark_[seed1] = 1;
  if (seed2 != none) rv_mark_[seed2] = 1;
  if (seed3 != none) rv_mark_[seed3] = 1;
  for (std::uint32_t s = n; s-- > 0;) {
    if (rv_mark_[s] == 0) continue;
    if (rv_step_prev_[s] != none) rv_mark_[rv_step_prev_[s]] = 1;
    const std::uint32_t end = s + 1 < n ? rv_step_gid_[s + 1] : static_cast<std::uint32_t>(events_.size());
    for (std::uint32_t gi = rv_step_gid_[s]; gi < end; ++gi) {
      const event& e = events_[gi];
      if (e.rd && e.rf != none) rv_mark_[rv_evstep_[e.rf]] = 1;
      if (e.kind == ek::join && e.other != none && !threads_[e.other].events.empty())
        rv_mark_[rv_evstep_[threads_[e.other].events.back()]] = 1;
      if (rv_sym_on_) rv_sym_mark(gi);  // symmetry: an earlier member's prefix (revisit_symmetry.cpp)
    }
  }
}

/// The script of the graph that revisiting read r keeps: the steps added before r's (by rank) and
/// the marked ones (the revisiting write's porf-prefix, which become settled), in the order this
/// execution ran them, ranked 0.. in their added order; `*r_rank` is the rank r's step takes among
/// them (its own place: a revisited read stays before the write it reads). The caller appends r's
/// step (and, for a pending RMW, the RMW's). false: a step of that shape cannot be restricted (more
/// than one decision in a step whose mo predecessor is dropped).
bool checker::rv_build(std::uint32_t r, rv_script& sc, std::uint32_t* r_rank) const {
  const std::uint32_t sr = rv_evstep_[r];
  const auto n = static_cast<std::uint32_t>(rv_rec_.steps.size());
  const std::uint32_t rank_r = rv_rec_.steps[sr].rank;
  const auto kept_step = [&](std::uint32_t s) {
    return s != sr && (rv_rec_.steps[s].rank < rank_r || rv_mark_[s] != 0);
  };
  sc.steps.clear();
  sc.outs.clear();
  std::vector<std::uint32_t> ranks;  // the kept steps' old ranks and r's, sorted: new rank = index
  ranks.push_back(rank_r);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!kept_step(s)) continue;
    ranks.push_back(rv_rec_.steps[s].rank);
    const std::uint32_t b = rv_rec_.steps[s].out_begin;
    const std::uint32_t e = s + 1 < n ? rv_rec_.steps[s + 1].out_begin : static_cast<std::uint32_t>(rv_rec_.outs.size());
    sc.steps.push_back(rv_step{rv_rec_.steps[s].tkey, static_cast<std::uint32_t>(sc.outs.size()), rv_rec_.steps[s].rank,
                               rv_rec_.steps[s].settled || rv_mark_[s] != 0});
    for (std::uint32_t o = b; o < e; ++o) {
      const rv_name& nm = rv_rec_.outs[o];
      if (nm.idx == rv_unsat_idx) {
        sc.outs.push_back(nm);
        continue;
      }
      const std::uint32_t src = rv_lookup(nm);
      if (src != none && kept_step(rv_evstep_[src])) {
        sc.outs.push_back(nm);  // (a read's source is always kept: the kept steps are porf-closed)
        continue;
      }
      // a write's mo predecessor that is dropped (maximality allows it for the revisiting write
      // only): the nearest kept write mo-before it, run before it
      if (e - b != 1) return false;
      const std::uint32_t x = rv_step_gid_[s];
      const event& xe = events_[x];
      if (!xe.wr || xe.loc == none) return false;
      const location& l = locs_[xe.loc];
      bool found = false;
      for (std::uint32_t q = xe.mo_pos; q-- > 0;) {
        const std::uint32_t z = l.mo[q];
        if (z < x && kept_step(rv_evstep_[z])) {
          rv_name pred = rv_name_of(z);
          pred.max = nm.max;
          sc.outs.push_back(pred);
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
  }
  std::sort(ranks.begin(), ranks.end());
  for (rv_step& st : sc.steps)
    st.rank = static_cast<std::uint32_t>(std::lower_bound(ranks.begin(), ranks.end(), st.rank) - ranks.begin());
  *r_rank = static_cast<std::uint32_t>(std::lower_bound(ranks.begin(), ranks.end(), rank_r) - ranks.begin());
  return true;
}

// TruSt's maximality (POPL'22; GenMC's isMaximalExtension). Revisiting r by w keeps the events
// added before r and porf-prefix(w) and deletes the others (D). Many graphs differ from this one
// only in D and the choices of r's events; the revisit is made from one of them only, the one
// that added D "maximally", so that its result has one parent:
//   - w (a plain write) is not placed mo-before a deleted write: its mo successor is kept;
//   - r and every event of D took its decision's first choice (rv_max_);
//   - no kept write other than w is mo-after an event of D or r (for a read: mo-after the write
//     it reads), i.e. they read / were placed mo-latest among what stays;
//   - no read of D or r reads a deleted write added after it (it was itself revisited by it).
// An RMW is one event here (GenMC: a read and a write); its read part's conditions cover its
// write's, which follows its source in mo.
bool checker::rv_maximal_extension(std::uint32_t r, std::uint32_t w) const noexcept {
  if (w != none && !events_[w].rd) {
    const location& l = locs_[events_[w].loc];
    const std::uint32_t q = events_[w].mo_pos + 1;
    if (q < l.mo.size() && !rv_kept(l.mo[q], r)) return false;
  }
  for (auto gi = static_cast<std::uint32_t>(events_.size()); gi-- > 0;) {
    if (rv_kept(gi, r)) continue;  // (r itself is not kept: it is checked)
    if (!rv_is_max(gi)) return false;
    const event& e = events_[gi];
    if (!e.rd && !e.wr) continue;
    const std::uint32_t x = e.rd ? e.rf : gi;
    if (x == none) continue;
    const location& l = locs_[e.loc];
    bool await_read = false;
    for (const rv_await_read& aw : rv_awaits_) await_read = await_read || aw.gid == gi;
    for (std::uint32_t q = events_[x].mo_pos + 1; q < l.mo.size(); ++q) {
      const std::uint32_t k = l.mo[q];
      if (k == w || !rv_kept(k, r)) continue;
      if (!await_read) return false;
      // an await would read k (mo-later) only if it accepts it
      const int acc = rv_await_accepts(gi, k);
      if (acc == 1) return false;
      if (acc < 0) ++rv_await_unknown_;
    }
    if (e.rd && !rv_kept(e.rf, r) && rv_added_before(gi, e.rf)) return false;
  }
  return true;
}

int checker::rv_await_accepts(std::uint32_t gid, std::uint32_t k) const noexcept {
  const std::uint64_t v = events_[k].wval;
  if (events_[gid].kind == ek::lock && !g_mutant_lock_reads_locked) return v == 0 ? 1 : 0;  // a lock (mutexes.cpp)
  for (const rv_await_read& aw : rv_awaits_) {
    if (aw.gid != gid) continue;
    for (std::uint32_t i = aw.begin; i < aw.end; ++i)
      if (rv_await_vals_[i].first == v) return rv_await_vals_[i].second ? 1 : 0;
  }
  return -1;
}

/// Backward revisits by the write w (the event just added, in the current step): every read of its
/// location outside porf-prefix(w), not settled, whose revisit passes the maximality condition.
void checker::rv_backward(std::uint32_t w) {
  if (g_mutant_no_backward) return;
  rv_index_events();
  const event& we = events_[w];
  const location& l = locs_[we.loc];
  rv_porf(rv_evstep_[w], none);
  const std::size_t before = rv_work_.size();
  for (const std::uint32_t r : l.acc) {
    if (r == w) continue;
    const event& re = events_[r];
    if (!re.rd) continue;
    const std::uint32_t sr = rv_evstep_[r];
    if (rv_mark_[sr] != 0 || rv_step_gid_[sr] != r) continue;  // in porf(w); (a read is its step's first event)
    if (rv_rec_.steps[sr].settled) continue;
    if (!g_no_maximality && !rv_maximal_extension(r, w)) continue;
    rv_script sc;
    std::uint32_t r_rank = 0;
    if (!rv_build(r, sc, &r_rank)) continue;
    sc.steps.push_back(rv_step{threads_[re.thread].key, static_cast<std::uint32_t>(sc.outs.size()), r_rank, false});
    sc.validate_from = static_cast<std::uint32_t>(sc.outs.size());
    sc.outs.push_back(rv_name_of(w));
    rv_work_.push_back(std::move(sc));
    ++rv_revisits_;
  }
  // (the revisit of the earliest read is explored first: fib_bench's error after 117 144 executions
  // instead of 159 228; with the forward alternatives also newest-first, 488 484 before)
  std::reverse(rv_work_.begin() + static_cast<std::ptrdiff_t>(before), rv_work_.end());
}

/// The running thread's RMW u (not added) would read s, which the RMW p already reads (GenMC's
/// pending RMW: u reading s is a non-maximal forward choice whose write then revisits): u revisits
/// the reads of the location added up to p, in graphs where u is added (reading s) before them.
/// Nothing if p is settled or in u's porf-prefix: p then stays in every such graph, and u may not
/// read s beside it.
void checker::rv_conflicts(std::uint32_t lid, std::uint32_t s, std::uint32_t p) {
  rv_index_events();
  const auto cur_step = static_cast<std::uint32_t>(rv_rec_.steps.size() - 1);
  rv_porf(rv_step_prev_[cur_step], rv_evstep_[s], rv_sym_on_ ? rv_sym_pending_step() : none);
  if (rv_mark_[rv_evstep_[p]] != 0 || rv_rec_.steps[rv_evstep_[p]].settled) return;
  const location& l = locs_[lid];
  const rv_name u{threads_[cur_].key, static_cast<std::uint32_t>(threads_[cur_].events.size())};
  for (const std::uint32_t r : l.acc) {
    const event& re = events_[r];
    if (!re.rd || rv_added_before(p, r)) continue;
    const std::uint32_t sr = rv_evstep_[r];
    if (rv_mark_[sr] != 0 || rv_step_gid_[sr] != r) continue;
    if (rv_rec_.steps[sr].settled) continue;
    if (!g_no_maximality && !rv_maximal_extension(r, none)) continue;
    rv_script sc;
    std::uint32_t r_rank = 0;
    if (!rv_build(r, sc, &r_rank)) continue;
    const auto u_rank = static_cast<std::uint32_t>(sc.steps.size() + 1);  // (after every kept step and r)
    sc.validate_from = static_cast<std::uint32_t>(sc.outs.size());
    sc.steps.push_back(rv_step{threads_[cur_].key, static_cast<std::uint32_t>(sc.outs.size()), u_rank, true});
    sc.outs.push_back(rv_name_of(s, false));
    if (rv_is_lock(r) && !g_mutant_lock_reads_locked) {
      // a lock does not read u's locked value: its thread waits (the scheduler runs it once the
      // mutex is unlocked, and it reads that unlock), as GenMC's blocked lock read is revisited by
      // the unlock. u is the revisiting write: it makes no revisits of its own.
      sc.quiet_last = true;
    } else {
      sc.steps.push_back(rv_step{threads_[re.thread].key, static_cast<std::uint32_t>(sc.outs.size()), r_rank, false});
      sc.outs.push_back(u);
    }
    rv_work_.push_back(std::move(sc));
    ++rv_revisits_;
  }
}

bool checker::rv_is_lock(std::uint32_t r) const noexcept {
  if (events_[r].kind != ek::lock) return false;  // (a successful try_lock is no await: it may fail instead)
  for (const rv_await_read& aw : rv_awaits_)
    if (aw.gid == r) return true;
  return false;
}

bool checker::rv_trylock_fail_ok(std::uint32_t L) const {
  const location& l = locs_[events_[L].loc];
  if (events_[L].mo_pos + 1 >= l.mo.size()) return true;  // L is still held
  const std::uint32_t u = l.mo[events_[L].mo_pos + 1];   // its unlock
  const mthread& th = threads_[cur_];
  std::vector<std::uint32_t> stack;
  std::vector<std::uint8_t> seen(events_.size(), 0);
  const auto spawn_of = [&](std::uint32_t t) {  // the event that spawned thread t
    const mthread& pt = threads_[threads_[t].parent];
    for (const std::uint32_t x : pt.events)
      if (events_[x].kind == ek::spawn && events_[x].other == t) return x;
    return none;
  };
  const auto push = [&](std::uint32_t x) {
    if (x != none && seen[x] == 0) {
      seen[x] = 1;
      stack.push_back(x);
    }
  };
  if (!th.events.empty()) push(th.events.back());
  else if (th.parent != none) push(spawn_of(cur_));
  while (!stack.empty()) {
    const std::uint32_t gi = stack.back();
    stack.pop_back();
    if (gi == u) return false;
    const event& e = events_[gi];
    if (e.index > 0) push(threads_[e.thread].events[e.index - 1]);
    else if (threads_[e.thread].parent != none) push(spawn_of(e.thread));
    if (e.rd && e.rf != none) push(e.rf);
    if (e.kind == ek::join && e.other != none && !threads_[e.other].events.empty()) push(threads_[e.other].events.back());
    if (e.kind == ek::unlock && e.mo_pos > 0) {  // a failed try_lock of its lock ran before it
      const location& m = locs_[e.loc];
      for (const std::uint32_t x : m.acc)
        if (events_[x].kind == ek::trylock_fail && events_[x].rf == m.mo[e.mo_pos - 1]) push(x);
    }
  }
  return true;
}

bool checker::run_revisit(std::chrono::steady_clock::time_point t0, bool* exhausted) {
  const std::size_t limit = opt_.max_executions;
  std::FILE* dump = nullptr;
  if (const char* f = std::getenv("PILFER_MODEL_DUMP_GRAPHS"); f != nullptr && *f != '\0') dump = std::fopen(f, "a");
  rv_work_.clear();
  if (rv_replay_) rv_work_.push_back(rv_replay_script_);  // (a "pr1" token: that run alone)
  else rv_work_.emplace_back();
  rv_complete_.clear();
  rv_blocked_.clear();
  rv_check_dups_ = g_duplicate_check || std::getenv("PILFER_MODEL_REVISIT_CHECK") != nullptr;
  rv_shards_begin();  // options::shard_* (revisit_shards.cpp)
  g_last_counts = revisit_counts{};
  *exhausted = false;
  bool stopped = false;
  const bool stats = std::getenv("PILFER_MODEL_REVISIT_STATS") != nullptr;
  std::size_t complete_dups = 0;
  while (!rv_work_.empty()) {
    rv_cur_ = std::move(rv_work_.back());
    rv_work_.pop_back();
    path_.clear();
    prefix_ = 0;
    const auto oc = run_execution();
    ++rv_runs_;
    if (stats && rv_runs_ % 100000 == 0)
      std::fprintf(stderr, "revisit: %zu runs, %zu executions, %zu blocked, %zu pruned, %zu invalid, %zu duplicates, %zu queued, %zu states\n",
                   rv_runs_, res_.executions, res_.blocked, res_.pruned, rv_invalid_, rv_dup_, rv_work_.size(), res_.states);
    if (rv_unsupported_) {
      cleanup_execution();
      if (dump != nullptr) std::fclose(dump);
      return false;
    }
    // Every final graph is counted: maximality makes each one the end of one run only. The sets
    // only check that (rv_check_dups_), they do not filter.
    if (oc == outcome::complete) {
      ++res_.executions;
      if (rv_check_dups_ && !rv_complete_.insert(state_hash()).second) {
        ++rv_dup_;
        ++complete_dups;
      }
      if (dump != nullptr) std::fputs(graph_line().c_str(), dump);
    }
    if (oc == outcome::blocked) {
      ++res_.blocked;
      if (rv_check_dups_ && !rv_blocked_.insert(state_hash()).second) ++rv_dup_;
    }
    if (oc == outcome::pruned) ++res_.pruned;
    if (opt_.verbose && oc != outcome::pruned) std::fputs(trace().c_str(), stdout);
    const bool stop = rv_replay_ || (failed_ && opt_.stop_on_failure && rv_shard_mine());
    if (rv_replay_) {  // (the replayed run's trace and whether its script fitted, before the cleanup)
      rv_replay_fitted_ = rv_invalid_ == 0 && oc != outcome::pruned;
      if (!failed_ && rv_replay_fitted_) res_.trace = trace();
    }
    cleanup_execution();
    ++exec_index_;
    if (stop) {
      stopped = true;
      break;
    }
    rv_shards_after_run();
    if (opt_.on_progress && !report_progress(t0, false, false)) {
      stopped = true;
      break;
    }
    if (limit != 0 && res_.executions >= limit) {
      stopped = true;
      break;
    }
    // (runs, not executions: runs that end blocked or failed are not executions, and without the
    // maximality condition revisits may go round in a cycle of them for ever)
    if (g_run_cap != 0 && rv_runs_ >= g_run_cap) {
      stopped = true;
      break;
    }
  }
  rv_shards_end();
  g_last_counts = revisit_counts{rv_runs_, rv_dup_, complete_dups, rv_invalid_, rv_await_unknown_};
  if (dump != nullptr) std::fclose(dump);
  *exhausted = !stopped && rv_work_.empty();
  if (std::getenv("PILFER_MODEL_REVISIT_STATS") != nullptr)
    std::fprintf(stderr, "revisit: %zu runs, %zu revisits pushed, %zu invalid, %zu duplicate final graphs%s, %zu pruned, %zu await-unknown\n",
                 rv_runs_, rv_revisits_, rv_invalid_, rv_dup_, rv_check_dups_ ? "" : " (not checked)", res_.pruned, rv_await_unknown_);
  rv_work_.clear();
  rv_work_.shrink_to_fit();
  return true;
}

}  // namespace pilfer::model::engine
