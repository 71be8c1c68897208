// models/engine/rf_mo_choices.cpp — the rf and mo decisions: which write a read reads from, where a
// write goes in modification order.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

/// Choose (and add) a read / RMW event. Candidates: writes at mo positions >= the coherence
/// bound, not already read by an RMW (atomicity) if this becomes an RMW, filtered by psc.
/// Returns `none` when no candidate is consistent: the execution was cut here, and the
/// caller finishes its operation (this thread was resumed to finish the execution).
std::uint32_t checker::read_choose(const event& proto, const event* fail_proto, std::uint32_t lid, bool is_cas,
                                   std::uint64_t expected, const detail::access* a, std::uint64_t* value,
                                   bool* success) {
  location& l = locs_[lid];
  mthread& th = threads_[cur_];
  const bool trylock = std::exchange(rv_trylock_, false);  // revisit mode: a try_lock (mutexes.cpp)
  const std::uint32_t lock_from = std::exchange(rv_lock_from_, 0);  // revisit mode: a lock's seen stores
  // The lowest mo position offered: the coherence bound, or the mo-latest write (`latest`).
  bool latest = false;
  // fair visibility after a spin hint / yield: a spinning read (the reads of the loop iteration
  // before the hint, in their order) reads the latest store when the thread reads it again; the
  // reads before it in the sequence are passed over (the first hint's sequence begins with the
  // reads before the loop). Other reads keep every value coherence allows. (The sequence was a
  // set once: a read made before the loop was then forced to the latest store after it, and an
  // outside tester's relaxed handoff that is a bug was proved correct.)
  if (auto it = std::find(th.spin_locs.begin(), th.spin_locs.end(), lid); it != th.spin_locs.end()) {
    latest = true;
    th.spin_locs.erase(th.spin_locs.begin(), it + 1);
  }
  if (force_latest_) {  // mutex lock: the lock is free, its mo-last write is an unlock
    latest = true;
    force_latest_ = false;
  }
  // a woken waiter re-reads the latest store (as futex-based implementations do)
  if (th.fresh_loc == lid) {
    latest = true;
    th.fresh_loc = none;
  }
  const bool is_rmw_op = a && (a->op != detail::rmw_op::none || a->cas);
  const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
  // options::spurious_cas_failures: a weak CAS may fail where it could succeed, but not twice in
  // a row on one location (mthread::spurious_at): a retry loop is not a livelock, and one failure
  // is what code that assumes success gets wrong
  const bool spurious = is_cas && a && a->weak && opt_.spurious_cas_failures && th.spurious_at != lid;
  if (spurious && revisit_) rv_unsupported("spurious CAS failures");
  using cand = read_candidate;
  // build(c, e): the read (or RMW) event of candidate c, made in e (~200 bytes: in place, not
  // returned and copied)
  const auto build = [&](const cand& c, event& e) {
    e = (is_cas && !c.rmw && fail_proto) ? *fail_proto : proto;
    e.rd = true;
    e.rf = c.w;
    e.rval = events_[c.w].wval & mask;
    if (c.rmw) {
      e.wr = true;
      e.kind = proto.kind == ek::lock ? ek::lock : ek::rmw;
      const std::uint64_t old = e.rval, d = a ? a->operand : 0;
      std::uint64_t nv = d;
      if (a) switch (a->op) {
          case detail::rmw_op::add: nv = old + d; break;
          case detail::rmw_op::sub: nv = old - d; break;
          case detail::rmw_op::bit_or: nv = old | d; break;
          case detail::rmw_op::bit_and: nv = old & d; break;
          default: break;
        }
      e.wval = nv & mask;
    } else if (is_cas) {
      e.kind = e.kind == ek::trylock_fail ? ek::trylock_fail : ek::cas_fail;
      e.rel = false;
    }
    compute_views(e, th);
  };
  const auto rmw_from = [&](std::uint32_t p) {
    const std::uint32_t w = l.mo[p];
    return is_rmw_op && (!is_cas || (events_[w].wval & mask) == (expected & mask));
  };
  // A trial: the read built from candidate c into x, and whether psc stays acyclic with it added
  // (the trial event is removed again; x is made again from the chosen candidate afterwards).
  const auto consistent = [&](const cand& c, event& x) {
    build(c, x);
    if (!psc_needed(x, false)) return true;
    const auto gid = add_event(x, x.wr ? events_[x.rf].mo_pos + 1 : none);
    const bool fine = psc_ok(gid, nullptr);
    remove_last_event();
    return fine;
  };
  event e;
  std::uint32_t fast = 0;
  bool rv_new = false;  // revisit mode: a decision beyond the script (or its last): the RMW write revisits
  bool rv_max = true;   // revisit mode: the decision took its first choice (TruSt's "added maximally")
  bool rv_sym_check = false;  // revisit mode: the script's last outcome, checked against symmetry once added
  if (revisit_) {
    std::uint32_t forced = none;  // a scripted source
    bool validate = true;
    const bool scripted = rv_in_script();
    if (scripted) {
      if (rv_oi_ >= rv_oend_) {  // a kept step takes a decision its record does not have
        ++rv_invalid_;
        cut_here();
        return none;
      }
      const rv_name nm = rv_cur_.outs[rv_oi_];
      validate = rv_cur_.validate_from != none && rv_oi_ >= rv_cur_.validate_from;
      rv_new = rv_si_ == rv_cur_.steps.size() && rv_oi_ + 1 == rv_cur_.outs.size() && !rv_cur_.quiet_last;
      rv_sym_check = rv_new && rv_sym_on_;
      rv_max = nm.max;
      ++rv_oi_;
      rv_rec_.outs.push_back(nm);
      if (nm.idx == rv_unsat_idx) {
        await_unsatisfied_ = true;
        return none;
      }
      forced = rv_lookup(nm);
      if (forced == none || events_[forced].loc != lid || !events_[forced].wr) {
        ++rv_invalid_;
        cut_here();
        return none;
      }
      if (!validate) build(cand{forced, rmw_from(events_[forced].mo_pos)}, e);
    } else {
      rv_new = true;
      if (th.observing) rv_unsupported("observe()");
    }
    if (validate) {
      const std::uint32_t lo = latest ? static_cast<std::uint32_t>(l.mo.size() - 1) : visible_bound(cur_, l);
      std::vector<cand>& cands = scratch_cands_;
      cands.clear();
      std::vector<std::uint32_t>& conflicts = scratch_aux_;  // mo positions of sources another RMW reads
      conflicts.clear();
      // symmetry (revisit_symmetry.cpp): a source the group's previous member's RMW read here is left to it
      const std::uint32_t sym_skip = rv_sym_on_ && forced == none ? rv_sym_skip(lid) : none;
      for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p-- > lo;) {
        if (l.mo[p] == sym_skip) continue;
        if (a && a->accept && !await_accepts(a->accept, a->accept_ctx, l, l.mo[p])) continue;
        const bool becomes_rmw = rmw_from(p);
        if (becomes_rmw && p + 1 < l.mo.size() && events_[l.mo[p + 1]].rd) {
          conflicts.push_back(p);
          continue;
        }
        if (trylock && !becomes_rmw && !rv_trylock_fail_ok(l.mo[p])) continue;  // (no spurious failure)
        cands.push_back(cand{l.mo[p], becomes_rmw});
      }
      // the consistent candidates, newest first (for a revisited read too: whether its new source
      // is the first choice it would have now decides whether it was added maximally)
      std::vector<std::uint32_t>& good = scratch_good_;
      good.clear();
      std::uint32_t forced_at = none;  // its index in cands
      for (std::uint32_t i = 0; i < cands.size(); ++i) {
        const cand& c = cands[i];
        if (forced != none && !good.empty() && c.w != forced) continue;  // (the first one and the forced one suffice)
        if (!consistent(c, e)) continue;
        good.push_back(i);
        if (c.w == forced) forced_at = i;
      }
      if (forced != none) {  // a revisited read (or a pending RMW added before it): consistent, or dropped
        if (forced_at == none) {
          ++rv_invalid_;
          cut_here();
          return none;
        }
        // the revisited read itself (the script's last outcome): maximal if its source is the first
        // choice; a pending RMW keeps its recorded (non-maximal) flag. The flag is recorded too:
        // the scripts made from this run (its alternatives, later revisits) replay the read with
        // it, and the script's own name says "maximal" (rv_name_of's default) whatever the read was
        if (rv_new) {
          rv_max = cands[good[0]].w == forced;
          rv_rec_.outs.back().max = rv_max;
        }
        build(cands[forced_at], e);
      } else {
        for (const std::uint32_t p : conflicts)
          if (p >= lock_from) rv_conflicts(lid, l.mo[p], l.mo[p + 1]);
        if (good.empty() && a && a->accept) {  // as in the DFS: the await waits for the graph to change
          rv_decided(false);  // (estimating: the pending-RMW revisits, or waiting)
          rv_rec_.outs.push_back(rv_name{0, rv_unsat_idx});
          await_unsatisfied_ = true;
          return none;
        }
        if (good.empty()) {
          rv_decided(false);  // (estimating: the pending-RMW revisits, or this dead end)
          cut_here();
          return none;
        }
        // (pushed oldest first: the next-newest source is explored next, as in the DFS's order)
        for (std::size_t k = good.size(); k-- > 1;) rv_push_alternative(rv_name_of(cands[good[k]].w, false));
        rv_decided(false);  // (estimating: the other sources and pending-RMW revisits, or the newest)
        rv_rec_.outs.push_back(rv_name_of(cands[good[0]].w, true));
        rv_max = true;
        build(cands[good[0]], e);
      }
    }
  } else if (fast_replay(&fast)) {
    if (fast == await_unsatisfied_aux) {
      await_unsatisfied_ = true;
      return none;
    }
    if (fast & spurious_failure_bit)
      build(cand{fast & ~spurious_failure_bit, false}, e);
    else
      build(cand{fast, rmw_from(events_[fast].mo_pos)}, e);
  } else {
    // (the bound is needed only here: a replayed read takes its recorded source)
    const std::uint32_t lo = latest ? static_cast<std::uint32_t>(l.mo.size() - 1) : visible_bound(cur_, l);
    // (scratch vectors reused across calls: no allocation per read once they have grown)
    std::vector<cand>& cands = scratch_cands_;
    cands.clear();
    for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p-- > lo;) {
      if (a && a->accept && !await_accepts(a->accept, a->accept_ctx, l, l.mo[p])) continue;  // an await's
      const bool becomes_rmw = rmw_from(p);
      if (!(becomes_rmw && p + 1 < l.mo.size() && events_[l.mo[p + 1]].rd))  // (atomicity)
        cands.push_back(cand{l.mo[p], becomes_rmw});
      // options::spurious_cas_failures: a weak CAS that could succeed may also fail, reading the
      // same store (recorded with spurious_failure_bit: the replay must not take the success)
      if (becomes_rmw && spurious) cands.push_back(cand{l.mo[p], false});
    }
    // build each candidate event, keep the psc-consistent ones (the RMW write goes right
    // after its source in mo); the chosen one is built again (build is a function of the
    // candidate), so kept candidates are indices, not event copies
    std::vector<std::uint32_t>& good = scratch_good_;
    std::vector<std::uint32_t>& aux = scratch_aux_;
    good.clear();
    aux.clear();
    for (std::uint32_t i = 0; i < cands.size(); ++i) {
      const cand& c = cands[i];
      if (!consistent(c, e)) continue;
      good.push_back(i);
      aux.push_back(is_cas && !c.rmw && rmw_from(events_[c.w].mo_pos) ? c.w | spurious_failure_bit : c.w);
      if (unbranched_ || th.observing) break;  // only the first (newest) consistent source is taken
    }
    if (good.empty() && a && a->accept) {
      // An await whose accepted stores are all ruled out by psc now: not a dead end. The thread
      // waits for the graph to change (access); the outcome is recorded for replay.
      const std::vector<std::uint32_t> unsatisfied{await_unsatisfied_aux};
      (void)choose_recorded(unsatisfied);
      await_unsatisfied_ = true;
      return none;
    }
    if (good.empty()) {
      pruned_ = true;
    } else {
      const cand chosen = cands[good[choose_recorded(aux)]];
      build(chosen, e);
    }
  }
  if (pruned_) {  // no consistent source
    cut_here();
    return none;
  }
  const auto pos = e.wr ? events_[e.rf].mo_pos + 1 : none;
  const auto gid = add_event(e, pos);
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges = scratch_edges_;
  edges.clear();
  if (psc_needed(events_[gid], true)) psc_ok(gid, &edges);
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
  if (revisit_) rv_set_max(gid, rv_max);
  if (revisit_ && a && a->accept) {  // (the maximality condition asks later what it accepts)
    const auto begin = static_cast<std::uint32_t>(rv_await_vals_.size());
    for (const std::uint32_t w : l.mo) rv_await_vals_.emplace_back(events_[w].wval, await_accepts(a->accept, a->accept_ctx, l, w));
    rv_awaits_.push_back(rv_await_read{gid, begin, static_cast<std::uint32_t>(rv_await_vals_.size())});
  }
  if (rv_new && events_[gid].wr) {
    rv_backward(gid);
    rv_decided(true);
  }
  if (value) *value = events_[gid].rval;
  if (success) *success = events_[gid].wr;
  // (a CAS that read the value it expected and did not write failed spuriously)
  th.spurious_at = is_cas && !events_[gid].wr && (events_[gid].rval & mask) == (expected & mask) ? lid : none;
  const event& r = events_[gid];
  if (events_[r.rf].kind == ek::uninit)
    PILFER_MODEL_FAIL("uninitialised read", "t" + std::to_string(cur_) + " read " + location_name(lid) +
                                                " before any store (it was constructed uninitialised), at " + file_line(r.file, r.line));
  if (rv_sym_check && !rv_sym_ok(gid)) rv_sym_cut();  // (after its own revisits, as GenMC checks a revisit)
  return gid;
}

/// Choose (and add) a plain write: any mo position after the coherence bound that does not
/// split an RMW from the write it read. `none`: cut here, as for read_choose.
std::uint32_t checker::write_choose(event proto, std::uint32_t lid) {
  location& l = locs_[lid];
  mthread& th = threads_[cur_];
  proto.wr = true;
  compute_views(proto, th);
  // (scratch vectors reused across calls: no allocation per write once they have grown)
  std::vector<std::uint32_t>& positions = scratch_positions_;
  std::vector<std::uint32_t>& good = scratch_good_positions_;
  positions.clear();
  good.clear();
  std::uint32_t fastp = 0;
  bool rv_new = false;
  bool rv_max = true;  // revisit mode: the write took its first choice (the newest consistent mo position)
  bool rv_sym_check = false;  // revisit mode: the script's last outcome, checked against symmetry once added
  if (revisit_ && rv_in_script()) {  // revisit mode: the scripted mo predecessor
    if (rv_oi_ >= rv_oend_) {
      ++rv_invalid_;
      cut_here();
      return none;
    }
    const rv_name nm = rv_cur_.outs[rv_oi_];
    rv_new = rv_si_ == rv_cur_.steps.size() && rv_oi_ + 1 == rv_cur_.outs.size();
    rv_sym_check = rv_new && rv_sym_on_;
    rv_max = nm.max;
    ++rv_oi_;
    rv_rec_.outs.push_back(nm);
    const std::uint32_t pred = rv_lookup(nm);
    if (pred == none || events_[pred].loc != lid || !events_[pred].wr) {
      ++rv_invalid_;
      cut_here();
      return none;
    }
    good.push_back(events_[pred].mo_pos + 1);
  } else if (revisit_) {
    rv_new = true;
    const std::uint32_t L = visible_bound(cur_, l);
    for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p > L; --p) {
      if (p < l.mo.size() && events_[l.mo[p]].rd) continue;
      positions.push_back(p);
    }
  } else if (fast_replay(&fastp)) {  // a replayed write takes its recorded position
    good.push_back(fastp);
  } else {
    const std::uint32_t L = visible_bound(cur_, l);
    for (std::uint32_t p = static_cast<std::uint32_t>(l.mo.size()); p > L; --p) {
      if (p < l.mo.size() && events_[l.mo[p]].rd) continue;  // would split an RMW from its source
      positions.push_back(p);
    }
  }
  for (auto p : positions) {
    if (unbranched_ && !good.empty()) break;  // only the first consistent position is taken
    if (!psc_needed(proto, false)) {
      good.push_back(p);
      continue;
    }
    const auto gid = add_event(proto, p);
    const bool fine = psc_ok(gid, nullptr);
    remove_last_event();
    if (fine) good.push_back(p);
  }
  if (good.empty()) {
    cut_here();
    return none;
  }
  if (rv_sym_on_ && positions.size() > 1) rv_sym_unordered_write();  // (revisit_symmetry.cpp: the DFS instead)
  std::uint32_t p = 0;
  if (revisit_) {
    p = good[0];
    if (!positions.empty()) {  // live: the other consistent positions are alternatives
      for (std::size_t k = good.size(); k-- > 1;) rv_push_alternative(rv_name_of(l.mo[good[k] - 1], false));
      rv_decided(false);  // (estimating: the other mo positions, or the newest)
      rv_rec_.outs.push_back(rv_name_of(l.mo[p - 1], true));
    }
  } else {
    p = positions.empty() ? good[0] : good[choose_recorded(good)];
  }
  const auto gid = add_event(proto, p);
  if (revisit_) rv_set_max(gid, rv_max);
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges = scratch_edges_;
  edges.clear();
  if (psc_needed(events_[gid], true)) psc_ok(gid, &edges);
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
  if (rv_new) {
    rv_backward(gid);
    rv_decided(true);
  }
  if (rv_sym_check && !rv_sym_ok(gid)) rv_sym_cut();  // (after its own revisits, as GenMC checks a revisit)
  return gid;
}

}  // namespace pilfer::model::engine
