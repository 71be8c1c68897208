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
// RMW atomicity (GenMC's "pending RMW"): an RMW whose source is already read by another RMW p is
// not added (it would break atomicity); instead it revisits the reads of the location added up to
// p, in graphs where it is added before them, and the execution ends (it counts as pruned).
//
// Duplicates: without TruSt's maximality condition one graph can be reached more than once. The
// future of a state here depends on its graph AND on the order its events were added in (a
// revisit keeps "the events added before r"), so the memo table is keyed by both (a state seen
// before is not explored again), and the final graphs are counted once each: `executions` and
// `blocked` count distinct complete and blocked graphs (canonical graph hashes).
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
// PILFER_MODEL_REVISIT_ALL=1: every revisit, no maximality condition (duplicates are then caught by
// the memo table and the final-graph sets only; for comparison)
const bool g_no_maximality = std::getenv("PILFER_MODEL_REVISIT_ALL") != nullptr;
}  // namespace

void set_revisit_mutant_no_backward(bool on) noexcept { g_mutant_no_backward = on; }

void set_exploration(exploration e) noexcept { g_exploration = e; }

exploration current_exploration() noexcept {
  if (const char* v = std::getenv("PILFER_MODEL_EXPLORATION"); v != nullptr && *v != '\0') {
    if (std::strcmp(v, "revisit") == 0) return exploration::revisit;
    if (std::strcmp(v, "dfs") == 0) return exploration::dfs;
  }
  return g_exploration;
}

void checker::rv_unsupported(const char* what) {
  rv_unsupported_ = true;
  rv_unsupported_what_ = what;
  abandon();
}

void checker::rv_begin_step(std::uint32_t t) {
  const auto s = static_cast<std::uint32_t>(rv_rec_.steps.size());
  rv_rec_.steps.push_back(rv_step{threads_[t].key, static_cast<std::uint32_t>(rv_rec_.outs.size())});
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
void checker::rv_porf(std::uint32_t seed1, std::uint32_t seed2) {
  const auto n = static_cast<std::uint32_t>(rv_rec_.steps.size());
  rv_mark_.assign(n, 0);
  if (seed1 != none) rv_mark_[seed1] = 1;
  if (seed2 != none) rv_mark_[seed2] = 1;
  for (std::uint32_t s = n; s-- > 0;) {
    if (rv_mark_[s] == 0) continue;
    if (rv_step_prev_[s] != none) rv_mark_[rv_step_prev_[s]] = 1;
    const std::uint32_t end = s + 1 < n ? rv_step_gid_[s + 1] : static_cast<std::uint32_t>(events_.size());
    for (std::uint32_t gi = rv_step_gid_[s]; gi < end; ++gi) {
      const event& e = events_[gi];
      if (e.rd && e.rf != none) rv_mark_[rv_evstep_[e.rf]] = 1;
      if (e.kind == ek::join && e.other != none && !threads_[e.other].events.empty())
        rv_mark_[rv_evstep_[threads_[e.other].events.back()]] = 1;
    }
  }
}

/// The script of the graph restricted to the steps before r's and the marked steps after it, in
/// their order (r's step and what follows are added by the caller). false: a step of that shape
/// cannot be restricted (more than one decision in a step whose mo predecessor is dropped).
bool checker::rv_build(std::uint32_t r, rv_script& sc) const {
  const std::uint32_t sr = rv_evstep_[r];
  const auto n = static_cast<std::uint32_t>(rv_rec_.steps.size());
  const std::uint32_t ob = rv_rec_.steps[sr].out_begin;
  sc.steps.assign(rv_rec_.steps.begin(), rv_rec_.steps.begin() + sr);
  sc.outs.assign(rv_rec_.outs.begin(), rv_rec_.outs.begin() + ob);
  for (std::uint32_t s = sr + 1; s < n; ++s) {
    if (rv_mark_[s] == 0) continue;
    const std::uint32_t b = rv_rec_.steps[s].out_begin;
    const std::uint32_t e = s + 1 < n ? rv_rec_.steps[s + 1].out_begin : static_cast<std::uint32_t>(rv_rec_.outs.size());
    sc.steps.push_back(rv_step{rv_rec_.steps[s].tkey, static_cast<std::uint32_t>(sc.outs.size())});
    for (std::uint32_t o = b; o < e; ++o) {
      const rv_name& nm = rv_rec_.outs[o];
      if (nm.idx == rv_unsat_idx) {
        sc.outs.push_back(nm);
        continue;
      }
      const std::uint32_t src = rv_lookup(nm);
      if (src != none && rv_step_kept(rv_evstep_[src], sr) && rv_evstep_[src] != sr) {
        sc.outs.push_back(nm);  // (a read's source is always kept: the kept steps are porf-closed)
        continue;
      }
      // a write's mo predecessor that is dropped: the nearest kept write mo-before it, added before it
      if (e - b != 1) return false;
      const std::uint32_t x = rv_step_gid_[s];
      const event& xe = events_[x];
      if (!xe.wr || xe.loc == none) return false;
      const location& l = locs_[xe.loc];
      bool found = false;
      for (std::uint32_t q = xe.mo_pos; q-- > 0;) {
        const std::uint32_t z = l.mo[q];
        const std::uint32_t sz = rv_evstep_[z];
        if (z < x && sz != sr && rv_step_kept(sz, sr)) {
          sc.outs.push_back(rv_name_of(z));
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
  }
  return true;
}

bool checker::rv_deleted_maximal(std::uint32_t r) const noexcept {
  const std::uint32_t sr = rv_evstep_[r];
  const auto n = static_cast<std::uint32_t>(rv_rec_.steps.size());
  const auto is_max = [&](std::uint32_t gid) { return gid >= rv_max_.size() || rv_max_[gid] != 0; };
  if (!is_max(r)) return false;
  for (std::uint32_t s = sr; s < n; ++s) {
    const std::uint32_t end = s + 1 < n ? rv_step_gid_[s + 1] : static_cast<std::uint32_t>(events_.size());
    if (s != sr && rv_mark_[s] != 0) {
      // a kept plain write added after r: as late in mo as the dropped writes added before it allow
      // (its mo successor is not one of them), so that one graph has one parent
      for (std::uint32_t gi = rv_step_gid_[s]; gi < end; ++gi) {
        const event& x = events_[gi];
        if (!x.wr || x.rd || x.loc == none) continue;
        const location& l = locs_[x.loc];
        if (x.mo_pos + 1 >= l.mo.size()) continue;
        const std::uint32_t nx = l.mo[x.mo_pos + 1];
        if (nx < gi && !rv_step_kept(rv_evstep_[nx], sr)) return false;
      }
      continue;
    }
    for (std::uint32_t gi = rv_step_gid_[s]; gi < end; ++gi)
      if (!is_max(gi)) return false;
  }
  return true;
}

/// Backward revisits by the write w (the event just added, in the current step): every read of its
/// location outside porf-prefix(w) is revisited to read from w.
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
    if (!g_no_maximality) {
      // (w's own place in mo: as for the kept writes in rv_deleted_maximal)
      if (!rv_deleted_maximal(r)) continue;
    }
    rv_script sc;
    if (!rv_build(r, sc)) continue;
    sc.steps.push_back(rv_step{threads_[re.thread].key, static_cast<std::uint32_t>(sc.outs.size())});
    sc.validate_from = static_cast<std::uint32_t>(sc.outs.size());
    sc.outs.push_back(rv_name_of(w));
    rv_work_.push_back(std::move(sc));
    ++rv_revisits_;
  }
  // (the revisit of the earliest read is explored first: fib_bench's error after 117 144 executions
  // instead of 159 228; with the forward alternatives also newest-first, 488 484 before)
  std::reverse(rv_work_.begin() + static_cast<std::ptrdiff_t>(before), rv_work_.end());
}

/// The running thread's RMW u (not added) would read s, which the RMW p already reads: u revisits
/// the reads of the location added up to p, in graphs where u is added (reading s) before them.
void checker::rv_conflicts(std::uint32_t lid, std::uint32_t s, std::uint32_t p) {
  rv_index_events();
  const auto cur_step = static_cast<std::uint32_t>(rv_rec_.steps.size() - 1);
  rv_porf(rv_step_prev_[cur_step], rv_evstep_[s]);
  const location& l = locs_[lid];
  const rv_name u{threads_[cur_].key, static_cast<std::uint32_t>(threads_[cur_].events.size())};
  for (const std::uint32_t r : l.acc) {
    if (r > p) break;  // (acc is in gid order)
    const event& re = events_[r];
    if (!re.rd) continue;
    const std::uint32_t sr = rv_evstep_[r];
    if (rv_mark_[sr] != 0 || rv_step_gid_[sr] != r) continue;
    if (!g_no_maximality && !rv_deleted_maximal(r)) continue;
    rv_script sc;
    if (!rv_build(r, sc)) continue;
    sc.validate_from = static_cast<std::uint32_t>(sc.outs.size());
    sc.steps.push_back(rv_step{threads_[cur_].key, static_cast<std::uint32_t>(sc.outs.size())});
    sc.outs.push_back(rv_name_of(s));
    sc.steps.push_back(rv_step{threads_[re.thread].key, static_cast<std::uint32_t>(sc.outs.size())});
    sc.outs.push_back(u);
    rv_work_.push_back(std::move(sc));
    ++rv_revisits_;
  }
}

bool checker::run_revisit(std::chrono::steady_clock::time_point t0, bool* exhausted) {
  const std::size_t limit = opt_.max_executions;
  std::FILE* dump = nullptr;
  if (const char* f = std::getenv("PILFER_MODEL_DUMP_GRAPHS"); f != nullptr && *f != '\0') dump = std::fopen(f, "a");
  rv_work_.clear();
  rv_work_.emplace_back();
  rv_complete_.clear();
  rv_blocked_.clear();
  *exhausted = false;
  bool stopped = false;
  const bool stats = std::getenv("PILFER_MODEL_REVISIT_STATS") != nullptr;
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
    if (oc == outcome::complete) {
      if (rv_complete_.insert(state_hash()).second) {
        ++res_.executions;
        if (dump != nullptr) std::fputs(graph_line().c_str(), dump);
      } else {
        ++rv_dup_;
      }
    }
    if (oc == outcome::blocked) {
      if (rv_blocked_.insert(state_hash()).second)
        ++res_.blocked;
      else
        ++rv_dup_;
    }
    if (oc == outcome::pruned) ++res_.pruned;
    if (opt_.verbose && oc != outcome::pruned) std::fputs(trace().c_str(), stdout);
    const bool stop = failed_ && opt_.stop_on_failure;
    cleanup_execution();
    ++exec_index_;
    if (stop) {
      stopped = true;
      break;
    }
    if (opt_.on_progress) report_progress(t0, false, false);
    if (limit != 0 && res_.executions >= limit) {
      stopped = true;
      break;
    }
  }
  if (dump != nullptr) std::fclose(dump);
  *exhausted = !stopped && rv_work_.empty();
  if (std::getenv("PILFER_MODEL_REVISIT_STATS") != nullptr)
    std::fprintf(stderr, "revisit: %zu runs, %zu revisits pushed, %zu invalid, %zu duplicate final graphs, %zu pruned\n",
                 rv_runs_, rv_revisits_, rv_invalid_, rv_dup_, res_.pruned);
  rv_work_.clear();
  rv_work_.shrink_to_fit();
  return true;
}

}  // namespace pilfer::model::engine
