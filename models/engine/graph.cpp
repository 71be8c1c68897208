// models/engine/graph.cpp — the execution graph: events, views (hb), release bookkeeping, hashes.
#include "checker.hpp"

namespace pilfer::model::engine {

event checker::make_event(ek k, std::uint32_t loc, const std::source_location& src) const {
  event e;
  e.kind = k;
  e.thread = static_cast<std::uint16_t>(cur_);
  e.index = static_cast<std::uint32_t>(threads_[cur_].events.size());
  e.loc = loc;
  e.file = src.file_name();
  e.line = src.line();
  return e;
}

/// Views of a new event of thread `t` (its rf and orders already set).
void checker::compute_views(event& e, const mthread& t) const {
  e.v = t.cur;
  e.v.c[e.thread] = e.index + 1;
  if (e.rd && e.rf != none) {
    if (e.acq) e.v.join(events_[e.rf].relv);
  }
  if (e.kind == ek::fence && e.acq) e.v.join(t.acq_pending);
  if (e.wr) {
    view base{};
    if (e.rel)
      base = e.v;
    else
      base = t.fence_rel;
    // rc11 only: rs = [W]; (sb&loc)?; [W]; ... — a later write of the same thread to the
    // location continues the release sequence of an earlier release write (the RC11 paper,
    // C11). C++20 (P0982R1) removed that step: only RMWs continue a release sequence.
    if (rc11())
      for (const auto& [l, v] : t.loc_rel)
        if (l == e.loc) base.join(v);
    if (e.rd && e.rf != none) base.join(events_[e.rf].relv);  // (rf; rmw)* continues a release sequence
    e.relv = base;
  }
}

std::uint32_t checker::add_event(const event& proto, std::uint32_t mo_index) {
  const auto gid = static_cast<std::uint32_t>(events_.size());
  event& e = events_.emplace_back(proto);  // (filled in place: an event is ~200 bytes)
  mthread& th = threads_[e.thread];
  th.events.push_back(gid);
  if (e.loc != none) {
    location& l = locs_[e.loc];
    l.acc.push_back(gid);
    if (e.wr) {
      if (mo_index == none) mo_index = static_cast<std::uint32_t>(l.mo.size());
      l.mo.insert(l.mo.begin() + mo_index, gid);
      e.mo_pos = mo_index;
      for (std::size_t i = mo_index + 1; i < l.mo.size(); ++i) events_[l.mo[i]].mo_pos = static_cast<std::uint32_t>(i);
    }
  }
  if (e.sc) {
    e.sc_idx = static_cast<std::int32_t>(sc_nodes_.size());
    sc_nodes_.push_back(gid);
    if (e.kind == ek::fence) ++sc_fences_;
  }
  return gid;
}

void checker::remove_last_event() {
  const event& e = events_.back();  // (popped last)
  threads_[e.thread].events.pop_back();
  if (e.loc != none) {
    location& l = locs_[e.loc];
    l.acc.pop_back();
    if (e.wr) {
      l.mo.erase(l.mo.begin() + e.mo_pos);
      for (std::size_t i = e.mo_pos; i < l.mo.size(); ++i) events_[l.mo[i]].mo_pos = static_cast<std::uint32_t>(i);
    }
  }
  if (e.sc) {
    sc_nodes_.pop_back();
    if (e.kind == ek::fence) --sc_fences_;
  }
  events_.pop_back();
}

/// Make an added event permanent: thread views, release bookkeeping, hashes.
void checker::commit(std::uint32_t gid) {
  event& e = events_[gid];
  mthread& th = threads_[e.thread];
  th.cur = e.v;
  if (e.rd && e.rf != none && !e.acq) th.acq_pending.join(events_[e.rf].relv);
  if (e.kind == ek::fence && e.rel) th.fence_rel = e.v;
  if (e.wr && e.loc != none && rc11()) {
    view base = e.rel ? e.v : th.fence_rel;
    bool found = false;
    for (auto& [l, v] : th.loc_rel)
      if (l == e.loc) {
        v.join(base);
        found = true;
      }
    if (!found) th.loc_rel.emplace_back(e.loc, base);
  }
  // sequence hash: kind, location key, rf source (thread key, index), other thread
  const std::uint64_t d = event_descriptor(e, 0);
  const std::uint64_t ha0 = th.ha, hb0 = th.hb;
  th.ha = combine(ha0, d);
  th.hb = combine_b(hb0, d);
  for (std::size_t q = 0; q < th.alt_ha.size(); ++q) {
    // (under most labelings the event names the same keys, and the thread's sequence hashes
    // often agree with its own: then the results are the ones just computed)
    if (labels_agree(e, q + 1)) {
      th.alt_ha[q] = th.alt_ha[q] == ha0 ? th.ha : combine(th.alt_ha[q], d);
      th.alt_hb[q] = th.alt_hb[q] == hb0 ? th.hb : combine_b(th.alt_hb[q], d);
      continue;
    }
    const std::uint64_t dq = event_descriptor(e, q + 1);
    th.alt_ha[q] = combine(th.alt_ha[q], dq);
    th.alt_hb[q] = combine_b(th.alt_hb[q], dq);
  }
  if (e.wr && e.loc != none) {
    location& l = locs_[e.loc];
    l.last_value = events_[l.mo.back()].wval;
    rehash_mo(l, gid);
  }
  if (e.sc) {
    if (psc_.size() < sc_nodes_.size()) psc_.resize(sc_nodes_.size());
  }
  if (rv_sym_on_) rv_sym_added(gid);  // revisit mode's symmetry: the prefix the event takes in (revisit_symmetry.cpp)
}

}  // namespace pilfer::model::engine
