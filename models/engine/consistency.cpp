// models/engine/consistency.cpp — RC11 / C++20 consistency: the coherence bound and incremental psc.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

/// An access's position on its location (engine.hpp, "key"): for x, y on one location,
/// eco(x, y) <=> key_of(x) < key_of(y).
std::uint64_t checker::key_of(const event& e) const {
  if (e.wr) return 2ull * e.mo_pos;
  return 2ull * events_[e.rf].mo_pos + 1;
}

/// The lowest mo position thread t may still read from / write after on l (coherence): the
/// maximum over accesses of l that happen-before t's next event of the write's position
/// (for reads: of their rf source's position).
std::uint32_t checker::visible_bound(std::uint32_t t, const location& l) const {
  const view& v = threads_[t].cur;
  std::uint32_t L = 0;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (a.thread != t && a.index >= v.c[a.thread]) continue;
    std::uint32_t p = 0;
    if (a.wr)
      p = a.mo_pos;
    else if (a.rd && a.rf != none)
      p = events_[a.rf].mo_pos;
    else
      continue;
    L = std::max(L, p);
  }
  return L;
}

// RC11 psc (the repaired SC condition): incremental, see README
const event* checker::next_diff(const event& x) const {
  const auto& evs = threads_[x.thread].events;
  for (std::size_t i = x.index + 1; i < evs.size(); ++i) {
    const event& y = events_[evs[i]];
    if (y.loc == none || y.loc != x.loc) return &y;
  }
  return nullptr;
}
const event* checker::prev_diff(const event& y) const {
  const auto& evs = threads_[y.thread].events;
  for (std::size_t i = y.index; i-- > 0;) {
    const event& x = events_[evs[i]];
    if (x.loc == none || x.loc != y.loc) return &x;
  }
  return nullptr;
}

/// rc11:  scb = sb ∪ sb|≠loc;hb;sb|≠loc ∪ hb|loc ∪ mo ∪ fr   (herd7 rc11.cat)
/// c++20: scb = sb ∪ sb;hb;sb ∪ hb|loc ∪ eco — strongly-happens-before ([intro.races]/12,
///        P0668R5) has no different-location restriction on its sb;hb;sb step, and S follows
///        coherence-ordered-before ([atomics.order]/3), which is eco = (rf ∪ mo ∪ fr)⁺: by /3.4
///        it is transitive through any modification, so A fr W rf B and A mo W rf B order the
///        seq_cst reads/writes A, B in S even when W is relaxed (rc11.cat's psc does not).
bool checker::scb(const event& x, const event& y) const {
  if (&x == &y) return false;
  if (x.thread == y.thread && x.index < y.index) return true;
  if (x.loc != none && x.loc == y.loc) {
    if (hbq(x, y)) return true;
    if (locs_[x.loc].kind != location::cell_loc && (x.rd || x.wr) && (y.wr || (!rc11() && y.rd)) &&
        key_of(x) < key_of(y))
      return true;
  }
  if (!rc11()) {
    // x sb a hb b sb y  <=>  the sb-successor of x happens before the sb-predecessor of y
    const auto& xs = threads_[x.thread].events;
    if (x.index + 1 >= xs.size() || y.index == 0) return false;
    const event& nx = events_[xs[x.index + 1]];
    const event& py = events_[threads_[y.thread].events[y.index - 1]];
    return hbq(nx, py);
  }
  const event* nx = next_diff(x);
  if (!nx) return false;
  const event* py = prev_diff(y);
  return py && hbq(*nx, *py);
}

bool checker::psc_needed(const event& e, bool added) const {
  if (sc_nodes_.size() + ((!added && e.sc) ? 1 : 0) < 2) return false;
  if (e.sc) return true;
  if (!(e.rd || e.wr) || sc_fences_ == 0) return false;
  for (auto gid : sc_nodes_) {
    const event& f = events_[gid];
    if (f.kind == ek::fence && hbq(f, e)) return true;
  }
  return false;
}

/// The new event `gid` (the last one) may only add psc edges that touch it (or that start at
/// an SC fence hb-before it); existing edges never change. Collect them and check that the
/// psc graph stays acyclic.
bool checker::psc_ok(std::uint32_t gid, std::vector<std::pair<std::uint32_t, std::uint32_t>>* edges) {
  const event& e = events_[gid];
  // (scratch vectors reused across calls: no allocation per check once they have grown)
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& add = psc_scratch_.add;
  add.clear();
  const std::size_t s = sc_nodes_.size();
  const bool e_access = e.rd || e.wr;
  const auto sc_of = [&](const event& x) { return static_cast<std::uint32_t>(x.sc_idx); };
  if (e_access) {
    // Targets reachable from e by scb (only mo ∪ fr: e is porf-maximal; c++20: all of eco,
    // whose mo;rf and fr;rf reach existing reads) or, from SC fences hb-before e, by eco
    // (psc_F = [F];hb;eco;hb;[F]).
    const location& l = locs_[e.loc];
    const std::uint64_t ke = key_of(e);
    std::vector<std::uint32_t>& out_acc = psc_scratch_.out_acc;
    std::vector<std::uint32_t>& out_fence_w = psc_scratch_.out_fence_w;
    std::vector<std::uint32_t>& out_fence_eco = psc_scratch_.out_fence_eco;
    out_acc.clear();
    out_fence_w.clear();
    out_fence_eco.clear();
    for (auto yg : l.acc) {
      const event& y = events_[yg];
      if (yg == gid || !(y.rd || y.wr) || key_of(y) <= ke) continue;
      const bool scb_target = y.wr || !rc11();
      if (y.sc && scb_target) out_acc.push_back(sc_of(y));
      for (auto fg : sc_nodes_) {
        const event& f = events_[fg];
        if (f.kind != ek::fence || !(hbq(y, f))) continue;
        out_fence_eco.push_back(sc_of(f));
        if (scb_target) out_fence_w.push_back(sc_of(f));
      }
    }
    if (e.sc) {
      for (auto b : out_acc) add.emplace_back(sc_of(e), b);
      for (auto b : out_fence_w) add.emplace_back(sc_of(e), b);
    }
    for (auto fg : sc_nodes_) {
      const event& f = events_[fg];
      if (f.kind != ek::fence || !hbq(f, e)) continue;
      for (auto b : out_acc) add.emplace_back(sc_of(f), b);
      for (auto b : out_fence_eco) add.emplace_back(sc_of(f), b);
    }
    if (e.sc) {  // in-edges a -> e
      // From an SC fence a: psc_F's [F];hb;scb, i.e. some x hb-after a with scb(x, e). An x whose
      // scb(x, e) is not a same-location step reaches e through e's sb-predecessor p (x sb e,
      // or sb;hb;sb ending at p or at an event sb-before p), so hb(a, x) gives hb(a, p); and
      // x = p is such an x. What is left are the x on e's own location.
      const event* p = e.index > 0 ? &events_[threads_[e.thread].events[e.index - 1]] : nullptr;
      for (auto ag : sc_nodes_) {
        if (ag == gid) continue;
        const event& a = events_[ag];
        bool edge = scb(a, e);
        if (!edge && a.kind == ek::fence) {
          edge = p && hbq(a, *p);
          for (std::size_t i = 0; !edge && i < l.acc.size(); ++i) {
            const event& x = events_[l.acc[i]];
            if (hbq(a, x) && scb(x, e)) edge = true;
          }
        }
        if (edge) add.emplace_back(sc_of(a), sc_of(e));
      }
    }
  } else if (e.kind == ek::fence && e.sc) {
    // in-edges a -> e. From an access: scb(a, b') for b' hb? e. From a fence: psc_F.
    // psc_F into e: the join of the views of the accesses eco-before an access hb-before e (on
    // their location, i.e. with a key below the largest key there hb-before e). A fence a has an
    // access y with hb(a, y) among them iff a's index is below its thread's entry.
    view eco_before{};
    for (const location& l : locs_) {
      std::uint64_t maxkey = 0;  // 0: no key is below it (keys are >= 0)
      for (auto yg : l.acc) {
        const event& y = events_[yg];
        if ((y.rd || y.wr) && hbq(y, e)) maxkey = std::max(maxkey, key_of(y));
      }
      if (maxkey == 0) continue;
      for (auto yg : l.acc) {
        const event& y = events_[yg];
        if ((y.rd || y.wr) && key_of(y) < maxkey) eco_before.join(y.v);
      }
    }
    for (auto ag : sc_nodes_) {
      if (ag == gid) continue;
      const event& a = events_[ag];
      bool edge = false;
      if (a.kind != ek::fence) {
        // Some x hb-before e with scb(a, x). An x whose scb(a, x) is not a same-location step
        // is reached from a's sb-successor n (a sb x, or sb;hb;sb starting at n or at an event
        // sb-after n), so hb(x, e) gives hb(n, e); and x = n is such an x. What is left are
        // the x on a's own location.
        edge = scb(a, e);
        const auto& as = threads_[a.thread].events;
        if (!edge && a.index + 1 < as.size()) edge = hbq(events_[as[a.index + 1]], e);
        const auto& acc = locs_[a.loc].acc;
        for (std::size_t i = 0; !edge && i < acc.size(); ++i) {
          const event& x = events_[acc[i]];
          if (acc[i] != gid && hbq(x, e) && scb(a, x)) edge = true;
        }
      } else {
        // Some access y hb-after a that is eco-before an access hb-before e (on y's location).
        edge = hbq(a, e) || a.index < eco_before.c[a.thread];
      }
      if (edge) add.emplace_back(sc_of(a), sc_of(e));
    }
  }
  if (add.empty()) {
    if (edges) edges->clear();
    return true;
  }
  // acyclicity of committed ∪ new edges. The committed graph is acyclic, so a cycle uses a
  // new edge: a DFS from the new edges' sources finds it. Successors of u: the set bits of
  // its committed row, then the new edges out of u (`next` walks both in turn).
  for (auto [u, v] : add)
    if (u == v) return false;
  // Only edges into the new event (it is porf-maximal and has no out-edges yet): no cycle.
  const auto me = static_cast<std::uint32_t>(e.sc_idx);
  if (e.sc && std::all_of(add.begin(), add.end(), [&](const auto& x) { return x.second == me; })) {
    if (edges) edges->swap(add);
    return true;
  }
  std::sort(add.begin(), add.end());
  add.erase(std::unique(add.begin(), add.end()), add.end());
  std::vector<std::uint8_t>& colour = psc_scratch_.colour;
  colour.assign(s, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& stack = psc_scratch_.stack;
  stack.clear();
  const auto successor = [&](std::uint32_t u, std::uint32_t& next, std::uint32_t* v) {
    const std::uint32_t bits = u < psc_.size() ? static_cast<std::uint32_t>(psc_[u].size() * 64) : 0;
    while (next < bits) {
      const std::uint64_t w = psc_[u][next / 64] >> (next % 64);
      if (w == 0) {
        next = (next / 64 + 1) * 64;
        continue;
      }
      next += static_cast<std::uint32_t>(__builtin_ctzll(w));
      *v = next++;
      return true;
    }
    if (next == bits)  // jump to u's first new edge (add is sorted by source)
      next = bits + static_cast<std::uint32_t>(
                        std::lower_bound(add.begin(), add.end(), std::pair<std::uint32_t, std::uint32_t>{u, 0}) - add.begin());
    if (next - bits < add.size() && add[next - bits].first == u) {
      *v = add[next - bits].second;
      ++next;
      return true;
    }
    return false;
  };
  for (const auto& root : add) {
    const std::uint32_t r = root.first;
    if (colour[r]) continue;
    stack.emplace_back(r, 0);
    colour[r] = 1;
    while (!stack.empty()) {
      const std::uint32_t u = stack.back().first;
      std::uint32_t v = 0;
      if (successor(u, stack.back().second, &v)) {
        if (colour[v] == 1) return false;
        if (colour[v] == 0) {
          colour[v] = 1;
          stack.emplace_back(v, 0);
        }
        continue;
      }
      colour[u] = 2;
      stack.pop_back();
    }
  }
  if (edges) edges->swap(add);
  return true;
}

}  // namespace pilfer::model::engine
