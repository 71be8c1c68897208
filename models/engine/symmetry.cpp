// models/engine/symmetry.cpp — symmetry reduction: a state and the same state with the threads of a
// symmetric group relabeled are one state.
//
// The scenario declares groups of interchangeable bodies (scenario::symmetric). A permutation π of
// a group's bodies maps a state S to π(S): thread π(i) has done what thread i did, every reference
// to a thread (an rf source, a location's creator, a notify's target, a writer in mo) renamed the
// same way. When the bodies run the same code on the same inputs, S and π(S) have the same futures
// up to that renaming, so exploring one of them is enough (Ip and Dill's scalarset reduction, here
// on execution graphs).
//
// Invariant: canonical(S) = min over every permutation π of the groups of hash(π(S)), so two states
// share a memo entry exactly when one is a relabeling of the other (up to hash collisions, as
// without symmetry). hash(π(S)) is kept incrementally: every thread and location carries, next to
// its own key and running hashes, the ones it would have under each other permutation — `alt_key`,
// `alt_ha`/`alt_hb` for threads, `alt_key`, `alt_mo_ha`/`alt_mo_hb` for locations, and the locations'
// sum per permutation. A key is a chain from the main thread's (a child is its parent's key
// combined with its birth order, a location its creator's combined with its number), so the labels
// of a group member's descendants and locations follow from the member's label under π.
//
// The main thread spawns the bodies in index order and joins them in index order, with nothing in
// between; so its spawn and join events name a group member by the group (sym_key), not by the
// member: which member it spawned or joined k-th is fixed by its code, and naming the member would
// make main's history tell every permutation apart. (A member's view of main differs only by those
// spawn events, which no read, race check or psc edge involves.)
#include "checker.hpp"
#include "exploration_mode.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace pilfer::model::engine {

namespace {
/// Permutations beyond this many make every state cost as many hashes: split the groups instead.
constexpr std::size_t max_permutations = 5040;

/// What is wrong with the declared groups, or "" (the caller fails with it: no local of the
/// failing frame may own memory, the frame is stranded).
std::string symmetry_error(const std::vector<scenario::symmetry_group>& groups, unsigned threads) {
  std::vector<char> taken(threads, 0);
  std::size_t perms = 1;
  for (const auto& grp : groups) {
    std::string decl = "symmetric({";
    for (std::size_t k = 0; k < grp.bodies.size() && k < 8; ++k) decl += (k ? ", " : "") + std::to_string(grp.bodies[k]);
    decl += grp.bodies.size() > 8 ? ", ...})" : "})";
    if (grp.bodies.empty()) return decl + ": the group names no body";
    for (unsigned i : grp.bodies) {
      if (i >= threads)
        return decl + ": body " + std::to_string(i) + " does not exist (threads() is " + std::to_string(threads) + ")";
      if (taken[i]) return decl + ": body " + std::to_string(i) + " is already in a group";
      taken[i] = 1;
    }
    for (std::size_t k = 2; k <= grp.bodies.size(); ++k)
      if ((perms *= k) > max_permutations)
        return "symmetric groups give more than " + std::to_string(max_permutations) +
               " permutations; declare smaller groups";
  }
  return "";
}

/// Every permutation of every group (their product) as maps body index -> body index; the
/// identity first.
std::vector<std::vector<unsigned>> permutations(const std::vector<scenario::symmetry_group>& groups,
                                                unsigned threads) {
  std::vector<unsigned> id(threads);
  for (unsigned i = 0; i < threads; ++i) id[i] = i;
  std::vector<std::vector<unsigned>> all{id};
  for (const auto& grp : groups) {
    std::vector<unsigned> members = grp.bodies;
    std::sort(members.begin(), members.end());
    std::vector<std::vector<unsigned>> next;
    for (const auto& base : all) {
      std::vector<unsigned> images = members;  // sorted: the identity first
      do {
        std::vector<unsigned> p = base;
        for (std::size_t k = 0; k < members.size(); ++k) p[members[k]] = images[k];
        next.push_back(std::move(p));
      } while (std::next_permutation(images.begin(), images.end()));
    }
    all = std::move(next);
  }
  return all;
}

/// The same groups (a group's bodies in any order).
bool same_groups(const std::vector<scenario::symmetry_group>& x, const std::vector<scenario::symmetry_group>& y) {
  const auto sorted = [](std::vector<unsigned> b) {
    std::sort(b.begin(), b.end());
    return b;
  };
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [&](const auto& u, const auto& v) {
           return sorted(u.bodies) == sorted(v.bodies);
         });
}
}  // namespace

void checker::start_symmetry(const scenario& s) {
  const auto& groups = s.symmetric_groups();
  if (sym_declared_) {
    if (!same_groups(groups, sym_groups_))
      PILFER_MODEL_FAIL("model error",
                        "nondeterministic scenario: symmetric() was declared differently than in the first execution");
  } else {
    if (!symmetry_error(groups, s.threads()).empty())
      PILFER_MODEL_FAIL("model error", symmetry_error(groups, s.threads()));
    sym_groups_ = groups;
    sym_declared_ = true;
    if (opt_.symmetry && opt_.how == mode::exhaustive) {
      alt_perms_ = permutations(groups, s.threads());
      alt_perms_.erase(alt_perms_.begin());  // the identity is the threads' own labeling
    }
  }
  // Revisit mode hashes no state: its own rule prunes relabeled graphs instead
  // (revisit_symmetry.cpp), and the threads need only their group's order.
  // (with the duplicate check on, the final graphs are hashed up to a permutation, as the DFS's states)
  rv_sym_on_ = revisit_ && opt_.symmetry && !sym_groups_.empty() && revisit_symmetry_rule();
  if (revisit_ && !rv_check_dups_) return;
  if (alt_perms_.empty() || finishing_) return;
  // Until now every labeling agrees: only the main thread (and what it made) exists.
  alt_active_ = true;
  const std::size_t n = alt_perms_.size();
  for (mthread& th : threads_) {
    th.alt_key.assign(n, th.key);
    th.alt_ha.assign(n, th.ha);
    th.alt_hb.assign(n, th.hb);
  }
  for (location& l : locs_) {
    l.alt_key.assign(n, l.key);
    l.alt_mo_ha.assign(n, l.mo_ha);
    l.alt_mo_hb.assign(n, l.mo_hb);
  }
  alt_loc_sum_a_.assign(n, loc_hash_sum_a_);
  alt_loc_sum_b_.assign(n, loc_hash_sum_b_);
}

void checker::check_symmetry_kept(const scenario& s) {
  if (!same_groups(s.symmetric_groups(), sym_groups_))
    PILFER_MODEL_FAIL("model error",
                      "symmetric() was called after the scenario was made (in before(), a thread or after()); declare "
                      "the groups in the scenario's constructor");
}

void checker::label_spawned(mthread& child, const mthread& parent) const {
  const std::uint32_t birth = parent.children;  // (already counted)
  child.sym_key = combine(parent.sym_key, birth);
  const std::uint32_t body = cur_ == 0 ? spawning_body_ : none;
  unsigned first = 0;  // the group's least body
  bool member = false;
  for (const auto& grp : sym_groups_)
    if (body != none && std::find(grp.bodies.begin(), grp.bodies.end(), body) != grp.bodies.end()) {
      member = true;
      first = *std::min_element(grp.bodies.begin(), grp.bodies.end());
    }
  // A thread of a declared group is named by its group's least body whether symmetry is on or off
  // (and in random mode): random() is seeded from sym_key, so it must not tell the group apart.
  if (member) child.sym_key = combine(parent.sym_key, birth - (body - first));
  if (member && rv_sym_on_) {  // revisit mode: the member's place in its group (revisit_symmetry.cpp)
    child.group_member = body;
    std::uint32_t prev = none;  // the group's previous body
    for (const auto& grp : sym_groups_)
      for (const unsigned b : grp.bodies)
        if (std::find(grp.bodies.begin(), grp.bodies.end(), body) != grp.bodies.end() && b < body &&
            (prev == none || b > prev))
          prev = b;
    for (std::uint32_t t = 0; t < threads_.size() && prev != none; ++t)
      if (threads_[t].group_member == prev && threads_[t].parent == 0) child.sym_pred = t;
  }
  if (!alt_active_) return;
  const std::size_t n = alt_perms_.size();
  child.alt_key.resize(n);
  child.alt_ha.assign(n, 0);
  child.alt_hb.assign(n, 0);
  for (std::size_t q = 0; q < n; ++q)
    child.alt_key[q] = member ? combine(parent.alt_key[q], birth + alt_perms_[q][body] - body)
                              : combine(parent.alt_key[q], birth);
  if (member) {
    child.group_member = body;
#if defined(PILFER_MODEL_MUTANT_SYMMETRY_BY_GROUP)
    // Mutant (models/CMakeLists.txt, model.symmetry.mutant): a thread hashed by its group instead of
    // under each permutation, so that "read its own store" and "read its twin's" become one state.
    child.key = child.sym_key;
    for (auto& k : child.alt_key) k = child.key;
#endif
  }
}

void checker::label_location(location& l, const mthread& creator) {
  if (!alt_active_) return;
  const std::size_t n = alt_perms_.size();
  l.alt_key.resize(n);
  l.alt_mo_ha.assign(n, 0);
  l.alt_mo_hb.assign(n, 0);
  for (std::size_t q = 0; q < n; ++q) {
    l.alt_key[q] = combine(creator.alt_key[q], creator.locs);
    if (l.kind != location::cell_loc) {
      alt_loc_sum_a_[q] += combine(l.alt_key[q], 0);
      alt_loc_sum_b_[q] += combine_b(l.alt_key[q], 0);
    }
  }
}

std::uint64_t checker::event_descriptor(const event& e, std::size_t labeling) const noexcept {
  std::uint64_t d = static_cast<std::uint64_t>(e.kind) | (static_cast<std::uint64_t>(e.sc) << 8);
  if (e.loc != none) d = combine(d, loc_key(e.loc, labeling));
  if (e.rf != none) {
    const event& w = events_[e.rf];
    d = combine(d, combine(thread_key(w.thread, labeling), w.index));
  }
  if (e.other != none) {
    const mthread& o = threads_[e.other];
    const bool group_role = (e.kind == ek::spawn || e.kind == ek::join) && o.group_member != none;
    d = combine(d, group_role ? o.sym_key : thread_key(e.other, labeling));
  }
  return d;
}

/// Whether every key event_descriptor(e, labeling) reads is the same under `labeling` as under
/// the threads' own: then the descriptor is event_descriptor(e, 0).
bool checker::labels_agree(const event& e, std::size_t labeling) const noexcept {
  if (e.loc != none && loc_key(e.loc, labeling) != locs_[e.loc].key) return false;
  if (e.rf != none) {
    const std::uint32_t w = events_[e.rf].thread;
    if (thread_key(w, labeling) != threads_[w].key) return false;
  }
  if (e.other != none) {
    const mthread& o = threads_[e.other];
    const bool group_role = (e.kind == ek::spawn || e.kind == ek::join) && o.group_member != none;
    if (!group_role && thread_key(e.other, labeling) != o.key) return false;
  }
  return true;
}

/// The mo hash chains the writes in mo order. mo_ha/mo_hb always hash the committed list (a
/// tentative write removed again never reached here), so a write appended at the end of mo
/// extends the chain; one inserted before others rehashes the list.
void checker::rehash_mo(location& l, std::uint32_t gid) {
  const std::uint32_t lid = static_cast<std::uint32_t>(&l - locs_.data());
  const bool appended = l.mo.back() == gid;
  // labeling 0's chains before and after, and its change of the sums: a labeling under which the
  // location, the writer and the chain so far are named alike changes the same way
  std::uint64_t old_a0 = 0, old_b0 = 0, new_a0 = 0, new_b0 = 0, delta_a0 = 0, delta_b0 = 0;
  for (std::size_t lab = 0; lab < labelings(); ++lab) {
    std::uint64_t& mo_a = lab == 0 ? l.mo_ha : l.alt_mo_ha[lab - 1];
    std::uint64_t& mo_b = lab == 0 ? l.mo_hb : l.alt_mo_hb[lab - 1];
    std::uint64_t& sum_a = lab == 0 ? loc_hash_sum_a_ : alt_loc_sum_a_[lab - 1];
    std::uint64_t& sum_b = lab == 0 ? loc_hash_sum_b_ : alt_loc_sum_b_[lab - 1];
    std::uint64_t a = 0, b = 0;
    if (appended) {
      const event& e = events_[gid];
      if (lab > 0 && mo_a == old_a0 && mo_b == old_b0 && thread_key(e.thread, lab) == threads_[e.thread].key &&
          loc_key(lid, lab) == l.key) {
        sum_a += delta_a0;
        sum_b += delta_b0;
        mo_a = new_a0;
        mo_b = new_b0;
        continue;
      }
      const std::uint64_t k = combine(thread_key(e.thread, lab), e.index);
      a = combine(mo_a, k);
      b = combine_b(mo_b, k);
    } else {
      for (auto w : l.mo) {
        const event& x = events_[w];
        const std::uint64_t k = combine(thread_key(x.thread, lab), x.index);
        a = combine(a, k);
        b = combine_b(b, k);
      }
    }
    const std::uint64_t key = loc_key(lid, lab);
    const std::uint64_t delta_a = combine(key, a) - combine(key, mo_a);
    const std::uint64_t delta_b = combine_b(key, b) - combine_b(key, mo_b);
    if (lab == 0) {
      old_a0 = mo_a;
      old_b0 = mo_b;
      new_a0 = a;
      new_b0 = b;
      delta_a0 = delta_a;
      delta_b0 = delta_b;
    }
    sum_a += delta_a;
    sum_b += delta_b;
    mo_a = a;
    mo_b = b;
  }
}

/// min over labelings of hash(π(S)): the terms of state_hash() with every key taken under the
/// labeling's π (the running thread of a preemption bound or a one-way stretch named by its key, not
/// its index). A thread's terms are recomputed only when what they are made of changed (its event
/// sequence, status, pending operation, spinning reads); most threads did not move since the last
/// state.
hash128 checker::symmetric_state_hash() const {
  const std::size_t n = labelings();
  sums_.assign(2 * n, 0);
  for (std::size_t lab = 0; lab < n; ++lab) {
    sums_[2 * lab] = lab == 0 ? loc_hash_sum_a_ : alt_loc_sum_a_[lab - 1];
    sums_[2 * lab + 1] = lab == 0 ? loc_hash_sum_b_ : alt_loc_sum_b_[lab - 1];
  }
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    const std::uint64_t extra = thread_state_bits(th);
    std::uint64_t ry = th.fresh_loc == none ? 0 : combine(locs_[th.fresh_loc].key, 0x5eed'0000'0004ull);
    for (auto l : th.spin_locs) ry = mix64(ry + locs_[l].key);  // (in order, as state_hash)
    mthread::hash_term& in = th.sym_inputs;
    if (!in.valid || in.key != th.key || in.ha != th.ha || in.hb != th.hb || in.extra != extra || in.ry != ry ||
        th.sym_terms.size() != 2 * n) {
      in = mthread::hash_term{th.key, th.ha, th.hb, extra, ry, 0, 0, true};
      th.sym_terms.resize(2 * n);
      for (std::size_t lab = 0; lab < n; ++lab) {
        const std::uint64_t key = thread_key(t, lab);
        const std::uint64_t ha = lab == 0 ? th.ha : th.alt_ha[lab - 1];
        const std::uint64_t hb = lab == 0 ? th.hb : th.alt_hb[lab - 1];
        std::uint64_t ry_lab = th.fresh_loc == none ? 0 : combine(loc_key(th.fresh_loc, lab), 0x5eed'0000'0004ull);
        for (auto l : th.spin_locs) ry_lab = mix64(ry_lab + loc_key(l, lab));
        // (a thread outside the groups whose events name no group member has labeling 0's terms)
        const bool same = lab > 0 && key == th.key && ry_lab == ry;
        th.sym_terms[2 * lab] = same && ha == th.ha ? th.sym_terms[0] : combine(combine(combine(key, ha), extra), ry_lab);
        th.sym_terms[2 * lab + 1] =
            same && hb == th.hb ? th.sym_terms[1] : combine_b(combine_b(combine_b(key, hb), extra), ry_lab);
      }
    }
    for (std::size_t k = 0; k < 2 * n; ++k) sums_[k] += th.sym_terms[k];
  }
  hash128 least{~0ull, ~0ull};
  for (std::size_t lab = 0; lab < n; ++lab) {
    std::uint64_t a = sums_[2 * lab], b = sums_[2 * lab + 1];
    const std::uint64_t last = last_run_ == none ? 0 : thread_key(last_run_, lab);
    if (unbranched_) {
      a = combine(a, 0x5eed'0000'0001ull ^ last);
      b = combine_b(b, 0x5eed'0000'0001ull ^ last);
    }
    if (opt_.preemption_bound) {
      a = combine(a, combine(preemptions_, last));
      b = combine_b(b, combine(preemptions_, last));
    }
    if (a < least.a || (a == least.a && b < least.b)) least = hash128{a, b};
  }
  return least;
}

}  // namespace pilfer::model::engine
