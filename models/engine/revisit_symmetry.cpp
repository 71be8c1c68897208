// models/engine/revisit_symmetry.cpp — symmetry reduction in the revisit exploration (revisit.cpp),
// after GenMC v0.11's "SR" (its SymmetryChecker and GenMCDriver: filterSymmetricStoresSR,
// isRevisitValid, updatePrefixWithSymmetries; Kokologiannakis, Marmanis, Vafeiadis, PLDI'22 / its
// -disable-sr option). The DFS hashes a state under every permutation (symmetry.cpp); the revisit
// exploration keeps no states, so it prunes by a rule on the graph instead.
//
// The members of a scenario::symmetric group are ordered by body index; each has a PREVIOUS
// member (sym_pred: its group's next lower body) and later ones. Compare two members A < B place
// by place in their event sequences, as GenMC numbers them — a start label at place 0, then one
// label per event, an RMW as a read label and a write label, and a block label at the end of a
// thread stopped by a false assume(). Their histories are SHARED up to place i when at every place
// before i the labels have the same kind (a CAS that succeeded and one that failed are one kind),
// reads read the same write, and A's label is no write (after a write the threads are told apart
// by what they wrote); and A has a label at i.
//
// The rule (a graph is canonical): where A and B share their history up to place i and their
// labels there have the same kind, B's label is not eco-before A's — for a read, B reads a write
// mo-before the one A reads, or A reads (or is) a write mo-after B's source; for a write, A's write
// or A's source is mo-after B's write. Equal sources (both read one write) are a tie and allowed.
// Of the graphs that permute A and B, the one where the lower member went first is kept.
//
// How the exploration applies it, as GenMC does (each piece is needed for the counts to be its):
//   1. the revisited or alternative event of every script (a revisited read, another source, another
//      mo position, the read a pending RMW revisits) is checked once added, after its own backward
//      revisits were pushed (GenMC pushes a revisited RMW's revisits before it validates the
//      revisit); a non-canonical one cuts the run (rv_sym_cut, a pruned run). The newest-first
//      forward choices are not checked: the fixed scheduler runs the lower member first.
//   2. a read whose thread shares its history with its previous member's up to here, where that
//      member's label is an RMW on the same location, does not take that RMW's source (its own RMW
//      would then have to revisit the other one: the permuted graph);
//   3. an event's porf-prefix also takes in its previous member's label at the last shared place
//      (and what that reads): a write does not revisit reads the lower member's history depends on,
//      and those stay in the graph of its revisits (rv_porf, rv_sym_mark; rv_conflicts's RMW).
// Not a canonical form: graphs whose members differ at a read of different locations keep every
// permutation (as GenMC's), so the counts are GenMC's, not always the DFS's orbits (models/README.md).
#include "checker.hpp"
#include "exploration_mode.hpp"

#include <algorithm>
#include <vector>

namespace pilfer::model::engine {

namespace {
bool g_mutant_prune_ties = false;  // set_revisit_symmetry_mutant_prune_ties()
bool g_rule = true;                // set_revisit_symmetry_rule()

/// A label in GenMC's numbering of a thread (see the top): the event, and which part of it.
enum class part : std::uint8_t { start, whole, read, write, block };
struct glabel {
  std::uint32_t gid;
  part p;
};

/// The labels of thread th: start, its events (an RMW in two parts), block if stopped by assume().
void labels_of(const std::vector<event>& events, const mthread& th, std::vector<glabel>& out) {
  out.clear();
  out.push_back(glabel{none, part::start});
  for (const std::uint32_t g : th.events) {
    const event& e = events[g];
    if (e.rd && e.wr) {
      out.push_back(glabel{g, part::read});
      out.push_back(glabel{g, part::write});
    } else {
      out.push_back(glabel{g, part::whole});
    }
  }
  // (a thread stopped by a false assume() while the execution goes on is stranded: revisit mode)
  if (th.status == tstatus::stranded) out.push_back(glabel{none, part::block});
}

/// The kind a label is compared by: a successful and a failed CAS are one kind (GenMC's CasRead),
/// a lock and a failed try_lock too.
int kind_of(const std::vector<event>& events, const glabel& l) {
  if (l.p == part::start) return -1;
  if (l.p == part::block) return -2;
  ek k = events[l.gid].kind;
  if (k == ek::cas_fail) k = ek::rmw;
  if (k == ek::trylock_fail) k = ek::lock;
  return static_cast<int>(k) + (l.p == part::write ? 100 : 0);
}

bool is_read(const std::vector<event>& events, const glabel& l) {
  return l.p == part::read || (l.p == part::whole && events[l.gid].rd);
}
bool is_write(const std::vector<event>& events, const glabel& l) {
  return l.p == part::write || (l.p == part::whole && events[l.gid].wr);
}

/// GenMC's calcLargestSymmPrefixBeforeSR: the last place (< gi, and < a's length) up to which a
/// and b share their history (-1: none). `a` is the other member, `b` the label's own thread.
int largest_shared(const std::vector<event>& events, const std::vector<glabel>& a, const std::vector<glabel>& b,
                   int gi) {
  const int limit = std::min(gi, static_cast<int>(a.size()) - 1);
  for (int j = 0; j < limit; ++j) {
    const glabel &x = a[static_cast<std::size_t>(j)], &y = b[static_cast<std::size_t>(j)];
    if (kind_of(events, x) != kind_of(events, y)) return j - 1;
    if (x.p == part::start) continue;
    const event& ex = events[x.gid];
    // (a cell access, a location's construction: no rf to compare, or a write: the histories part)
    if (ex.kind == ek::cell_read || ex.kind == ek::cell_write || ex.kind == ek::cell_init || ex.kind == ek::init ||
        ex.kind == ek::uninit)
      return j - 1;
    if (is_read(events, x) && ex.rf != events[y.gid].rf) return j - 1;
    if (is_write(events, x)) return j - 1;
  }
  return limit;
}

/// GenMC's isEcoBefore(x, thread of y): x's label is eco-before y's (the other member's label at
/// the same place) through one write: y is, or reads, a write mo-after x's write / x's source.
bool eco_before(const std::vector<event>& events, const glabel& x, const glabel& y) {
  if (x.gid == none || y.gid == none) return false;
  const event& ex = events[x.gid];
  const event& ey = events[y.gid];
  if (ex.loc == none || ey.loc != ex.loc) return false;
  std::uint32_t bound = 0;
  if (is_read(events, x)) {
    if (ex.rf == none) return false;
    bound = events[ex.rf].mo_pos;
  } else if (is_write(events, x)) {
    bound = ex.mo_pos;
  } else {
    return false;
  }
  if (is_write(events, y) && ey.mo_pos != none && ey.mo_pos > bound) return true;
  return is_read(events, y) && ey.rf != none && events[ey.rf].mo_pos > bound;
}
}  // namespace

void set_revisit_symmetry_mutant_prune_ties(bool on) noexcept { g_mutant_prune_ties = on; }
void set_revisit_symmetry_rule(bool on) noexcept { g_rule = on; }
bool revisit_symmetry_rule() noexcept { return g_rule; }

void checker::rv_sym_added(std::uint32_t gid) {
  if (rv_sym_link_.size() <= gid) rv_sym_link_.resize(gid + 1, none);
  rv_sym_link_[gid] = none;
  const event& e = events_[gid];
  const std::uint32_t p = threads_[e.thread].sym_pred;
  if (p == none) return;
  std::vector<glabel> a, b;
  labels_of(events_, threads_[p], a);
  labels_of(events_, threads_[e.thread], b);
  // the event's labels are b's last one or two (an RMW's read and write parts): GenMC extends each
  // label's prefix by the other member's label at its last shared place; the later of the two places
  // gives their union (a prefix is closed under po)
  int best = -1;
  for (std::size_t i = b.size(); i-- > 1 && b[i].gid == gid;) best = std::max(best, largest_shared(events_, a, b, static_cast<int>(i)));
  if (best < 0) return;
  const glabel& l = a[static_cast<std::size_t>(best)];
  if (l.p == part::block || l.p == part::start) return;  // (GenMC: a block label adds no prefix)
  rv_sym_link_[gid] = l.gid;
}

void checker::rv_sym_mark(std::uint32_t gid) {
  if (gid >= rv_sym_link_.size() || rv_sym_link_[gid] == none) return;
  rv_mark_[rv_evstep_[rv_sym_link_[gid]]] = 1;  // (an earlier event of another thread: an earlier step)
}

std::uint32_t checker::rv_sym_pending_step() {
  const std::uint32_t p = threads_[cur_].sym_pred;
  if (p == none) return none;
  std::vector<glabel> a, b;
  labels_of(events_, threads_[p], a);
  labels_of(events_, threads_[cur_], b);
  const int si = largest_shared(events_, a, b, static_cast<int>(b.size()));  // (the RMW's read part's place)
  if (si < 0) return none;
  const glabel& l = a[static_cast<std::size_t>(si)];
  if (l.p == part::block || l.p == part::start) return none;
  return rv_evstep_[l.gid];
}

std::uint32_t checker::rv_sym_skip(std::uint32_t lid) const {
  const std::uint32_t p = threads_[cur_].sym_pred;
  if (p == none) return none;
  std::vector<glabel> a, b;
  labels_of(events_, threads_[p], a);
  labels_of(events_, threads_[cur_], b);
  const int gi = static_cast<int>(b.size());  // the new read's place
  if (largest_shared(events_, a, b, gi) != gi) return none;
  const glabel& l = a[static_cast<std::size_t>(gi)];
  if (l.p != part::read || events_[l.gid].loc != lid) return none;  // (an RMW's read part: it succeeded)
  return events_[l.gid].rf;
}

bool checker::rv_sym_ok(std::uint32_t gid) const {
  const event& e = events_[gid];
  const std::uint32_t t = e.thread;
  std::vector<glabel> a, b;
  labels_of(events_, threads_[t], b);
  // the other members: t's previous ones (each must not be preceded by t) and its later ones
  std::vector<std::uint32_t> earlier, later;
  for (std::uint32_t u = threads_[t].sym_pred; u != none; u = threads_[u].sym_pred) earlier.push_back(u);
  for (std::uint32_t v = 0; v < threads_.size(); ++v)
    for (std::uint32_t u = threads_[v].sym_pred; u != none; u = threads_[u].sym_pred)
      if (u == t) later.push_back(v);
  for (std::size_t i = 1; i < b.size(); ++i) {
    if (b[i].gid != gid) continue;
    const int gi = static_cast<int>(i);
    for (const bool lower : {true, false})
      for (const std::uint32_t u : lower ? earlier : later) {
        labels_of(events_, threads_[u], a);
        if (largest_shared(events_, a, b, gi) != gi) continue;
        const glabel &mine = b[i], &theirs = a[i];
        if (kind_of(events_, mine) != kind_of(events_, theirs)) continue;
        const glabel &first = lower ? theirs : mine, &second = lower ? mine : theirs;
        if (eco_before(events_, second, first)) return false;
        // mutant (tests/revisit_symmetry.cpp): a tie (neither eco-before the other) pruned too
        if (g_mutant_prune_ties && e.loc != none && (e.rd || e.wr) && !eco_before(events_, first, second)) return false;
      }
  }
  return true;
}

void checker::rv_sym_unordered_write() {
  // GenMC's SR is made for programs whose plain stores to a location are ordered (happens-before):
  // a store with more than one coherent mo position is a "WW race" that it reports as an error
  // under SR (reportWarningOnce). Here the rule then reached graphs twice (random programs whose
  // group members spawn children that store), so such a check is explored by the DFS instead.
  for (const mthread& th : threads_)
    if (th.sym_pred != none)
      rv_unsupported("symmetry reduction with unordered stores (a store with a choice of mo position, as GenMC's SR)");
}

void checker::rv_sym_cut() {
  ++rv_sym_pruned_;
  cut_here();
}

}  // namespace pilfer::model::engine
