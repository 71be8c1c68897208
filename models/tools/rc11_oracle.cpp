// rc11_oracle.cpp — see rc11_oracle.hpp. Relations are bit matrices over at
// most 64 events; every axiom is transcribed from herdtools7 rc11.cat.
#include "rc11_oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <vector>

namespace pilfer::litmus {
namespace {

enum class ev_kind { read, write, rmw, fence };

struct event {
  ev_kind k = ev_kind::read;
  int thread = -1;  // -1: initial write
  int loc = -1;     // -1: fence
  value rval = 0, wval = 0;
  order ord = order::relaxed;
  bool atomic = true;
  bool is_read() const { return k == ev_kind::read || k == ev_kind::rmw; }
  bool is_write() const { return k == ev_kind::write || k == ev_kind::rmw; }
  bool rel() const {
    return ord == order::release || ord == order::acq_rel || ord == order::seq_cst;
  }
  bool acq() const {
    return ord == order::acquire || ord == order::consume || ord == order::acq_rel ||
           ord == order::seq_cst;
  }
};

struct path {
  std::vector<event> events;
  std::vector<value> regs;
};

struct too_long {};

/// Runs a thread with read values taken from `choices` (extended with 0s).
class guess_memory final : public memory {
 public:
  guess_memory(const program& p, const std::vector<std::vector<value>>& domain, std::vector<std::size_t>& choices,
               std::vector<std::size_t>& arity, int thread, std::size_t max_events)
      : p_(p), d_(domain), c_(choices), a_(arity), t_(thread), max_(max_events) {}

  value load(int loc, order o, const std::string&) override {
    const value v = guess(loc);
    push({ev_kind::read, t_, loc, v, 0, o, true});
    return v;
  }
  // (every value written is wrapped to the location's declared width, as the engine's atomics do)
  void store(int loc, value v, order o, const std::string&) override {
    push({ev_kind::write, t_, loc, 0, wrap(loc, v), o, true});
  }
  value rmw(int loc, rmw_op op, value operand, order o, const std::string&) override {
    const value v = guess(loc);
    push({ev_kind::rmw, t_, loc, v, wrap(loc, apply_rmw(op, v, operand)), o, true});
    return v;
  }
  bool cas(int loc, value& expected, value desired, order s, order f,
           const std::string&) override {
    const value v = guess(loc);
    if (v == wrap(loc, expected)) {
      push({ev_kind::rmw, t_, loc, v, wrap(loc, desired), s, true});
      return true;
    }
    push({ev_kind::read, t_, loc, v, 0, f, true});
    expected = v;
    return false;
  }
  void fence(order o, const std::string&) override { push({ev_kind::fence, t_, -1, 0, 0, o, true}); }
  value plain_read(int loc, const std::string&) override {
    const value v = guess(loc);
    push({ev_kind::read, t_, loc, v, 0, order::relaxed, false});
    return v;
  }
  void plain_write(int loc, value v, const std::string&) override {
    push({ev_kind::write, t_, loc, 0, wrap(loc, v), order::relaxed, false});
  }
  std::vector<event> events;

 private:
  value guess(int loc) {
    const auto& opts = d_[static_cast<std::size_t>(loc)];
    if (pos_ == c_.size()) {
      c_.push_back(0);
      a_.push_back(opts.size());
    }
    a_[pos_] = opts.size();
    return opts[c_[pos_++]];
  }
  void push(const event& e) {
    if (events.size() >= max_) throw too_long{};
    events.push_back(e);
  }
  value wrap(int loc, value v) const { return wrap_to_width(p_.locations[static_cast<std::size_t>(loc)], v); }
  const program& p_;
  const std::vector<std::vector<value>>& d_;
  std::vector<std::size_t>& c_;
  std::vector<std::size_t>& a_;
  int t_;
  std::size_t max_;
  std::size_t pos_ = 0;
};

/// All paths of thread t for the given value domain.
std::vector<path> thread_paths(const program& p, unsigned t,
                               const std::vector<std::vector<value>>& domain,
                               std::size_t max_events, bool& truncated) {
  std::vector<path> out;
  std::vector<std::size_t> choices, arity;
  for (;;) {
    guess_memory m(p, domain, choices, arity, static_cast<int>(t), max_events);
    std::vector<value> regs = initial_registers(p, t);
    bool ok = true;
    try {
      // A path cut by a CppMem `.readsvalue(v)` or a false assume() belongs to no execution
      // that is kept.
      const thread_end e = run_thread(p, t, m, regs);
      ok = e != thread_end::filtered && e != thread_end::assume_failed;
    } catch (const too_long&) {
      ok = false;
      truncated = true;
    }
    if (ok) out.push_back(path{std::move(m.events), std::move(regs)});
    // Odometer over the choices actually consumed by this run.
    while (!choices.empty() && choices.back() + 1 >= arity.back()) {
      choices.pop_back();
      arity.pop_back();
    }
    if (choices.empty()) return out;
    ++choices.back();
  }
}

using row = std::uint64_t;
struct rel {
  std::vector<row> r;
  explicit rel(std::size_t n = 0) : r(n, 0) {}
  bool has(std::size_t a, std::size_t b) const { return (r[a] >> b) & 1u; }
  void set(std::size_t a, std::size_t b) { r[a] |= row{1} << b; }
  rel operator|(const rel& o) const {
    rel x(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) x.r[i] = r[i] | o.r[i];
    return x;
  }
  rel operator&(const rel& o) const {
    rel x(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) x.r[i] = r[i] & o.r[i];
    return x;
  }
  rel then(const rel& o) const {  // relational composition this;o
    rel x(r.size());
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t k = 0; k < r.size(); ++k)
        if (has(i, k)) x.r[i] |= o.r[k];
    return x;
  }
  rel plus() const {  // transitive closure
    rel x = *this;
    for (std::size_t k = 0; k < r.size(); ++k)
      for (std::size_t i = 0; i < r.size(); ++i)
        if (x.has(i, k)) x.r[i] |= x.r[k];
    return x;
  }
  rel opt() const {  // reflexive closure
    rel x = *this;
    for (std::size_t i = 0; i < r.size(); ++i) x.set(i, i);
    return x;
  }
  bool irreflexive() const {
    for (std::size_t i = 0; i < r.size(); ++i)
      if (has(i, i)) return false;
    return true;
  }
  bool acyclic() const { return plus().irreflexive(); }
  bool empty() const {
    for (row v : r)
      if (v) return false;
    return true;
  }
  rel inverse() const {
    rel x(r.size());
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t j = 0; j < r.size(); ++j)
        if (has(i, j)) x.set(j, i);
    return x;
  }
};

rel ident_if(std::size_t n, const std::function<bool(std::size_t)>& pred) {
  rel x(n);
  for (std::size_t i = 0; i < n; ++i)
    if (pred(i)) x.set(i, i);
  return x;
}

struct checker {
  const std::vector<event>& ev;
  const rel& sb;
  const rel& rf;
  const rel& mo;
  oracle_model model;
  bool race = false;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
// g++ 12 at -O3 inlines the rel temporaries of this function, loses track of their vectors' storage and
// warns -Wfree-nonheap-object ("operator delete called on pointer <unknown> with nonzero offset") when they
// are destroyed: a false positive (GCC meta-bug 99098). Every pointer here comes from std::vector itself.
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
  bool consistent() {
    const std::size_t n = ev.size();
    const rel rb = [&] {
      rel x = rf.inverse().then(mo);
      for (std::size_t i = 0; i < n; ++i) x.r[i] &= ~(row{1} << i);
      return x;
    }();
    const rel eco = (rf | mo | rb).plus();
    rel loc(n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (ev[i].loc >= 0 && ev[i].loc == ev[j].loc) loc.set(i, j);
    auto I = [&](const std::function<bool(const event&)>& f) {
      return ident_if(n, [&](std::size_t i) { return f(ev[i]); });
    };
    const rel W = I([](const event& e) { return e.is_write(); });
    const rel Watomic = I([](const event& e) { return e.is_write() && e.atomic; });
    const rel RMW = I([](const event& e) { return e.k == ev_kind::rmw; });
    const rel Ratomic = I([](const event& e) { return e.is_read() && e.atomic; });
    const rel F = I([](const event& e) { return e.k == ev_kind::fence; });
    const rel REL = I([](const event& e) { return e.atomic && e.rel(); });
    const rel ACQ = I([](const event& e) { return e.atomic && e.acq(); });
    const rel SC = I([](const event& e) { return e.atomic && e.ord == order::seq_cst; });
    const rel FSC = F & SC;

    // rc11: rs = [W]; (sb & loc)?; [W & atomic]; (rf; rmw)*
    // c++20: rs = [W & atomic]; (rf; rmw)*   (P0982R1: no same-thread stores)
    const rel rfrmw = rf.then(RMW);
    const rel rs = model == oracle_model::rc11
                       ? W.then((sb & loc).opt()).then(Watomic).then(rfrmw.plus().opt())
                       : Watomic.then(rfrmw.plus().opt());
    // sw = [REL]; ([F]; sb)?; rs; rf; [R & atomic]; (sb; [F])?; [ACQ]
    const rel sw = REL.then(F.then(sb).opt())
                       .then(rs)
                       .then(rf)
                       .then(Ratomic)
                       .then(sb.then(F).opt())
                       .then(ACQ);
    const rel hb = (sb | sw).plus();

    if (!hb.irreflexive() || !hb.then(eco).irreflexive()) return false;  // coherence1
    if (!RMW.then(eco).irreflexive()) return false;                     // coherencermw
    if (!(RMW & rb.then(mo)).empty()) return false;  // atomicity (rmw as one event: rmw ⊆ id)

    if (model == oracle_model::rc11) {
      rel sbl = sb;
      for (std::size_t i = 0; i < n; ++i) sbl.r[i] &= ~loc.r[i];
      const rel hbl = hb & loc;
      const rel scb = sb | sbl.then(hb).then(sbl) | hbl | mo | rb;
      const rel pscb = (SC | FSC.then(hb.opt())).then(scb).then(SC | hb.opt().then(FSC));
      const rel pscf = FSC.then(hb | hb.then(eco).then(hb)).then(FSC);
      if (!(pscb | pscf).acyclic()) return false;  // SC
    } else {
      // [intro.races]: A strongly happens before D if A sb D, or A sw D with both seq_cst,
      // or A sb B, B happens before C, C sb D; transitively.
      const rel SCop = SC;  // seq_cst operations and fences
      const rel shb = (sb | SCop.then(sw).then(SCop) | sb.then(hb).then(sb)).plus();
      // [atomics.order]/4: coherence-ordered-before = eco, between atomic operations.
      const rel A = I([](const event& e) { return e.atomic && e.k != ev_kind::fence; });
      const rel cob = A.then(eco).then(A);
      const rel S = SCop.then(shb).then(SCop)            // first constraint
                    | SC.then(cob).then(SC)              // (4.1)
                    | SC.then(cob).then(hb).then(FSC)    // (4.2)
                    | FSC.then(hb).then(cob).then(SC)    // (4.3)
                    | FSC.then(hb).then(cob).then(hb).then(FSC);  // (4.4)
      if (!S.acyclic()) return false;  // a total order S exists
    }
    if (!(sb | rf).acyclic()) return false;      // no-thin-air

    // dr = (cnf & ext) \ (hb | hb^-1 | A * A), initial writes excluded.
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const event &a = ev[i], &b = ev[j];
        if (a.thread < 0 || b.thread < 0 || a.thread == b.thread) continue;
        if (a.loc < 0 || a.loc != b.loc || !(a.is_write() || b.is_write())) continue;
        if (a.atomic && b.atomic) continue;
        if (!hb.has(i, j) && !hb.has(j, i)) race = true;
      }
    return true;
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
};

}  // namespace

oracle_result rc11_oracle(const program& p, std::size_t max_events_per_thread,
                          oracle_model model) {
  oracle_result res;
  const std::size_t L = p.locations.size();
  const std::size_t T = p.threads.size();
  std::vector<std::vector<value>> domain(L);
  for (std::size_t l = 0; l < L; ++l) domain[l] = {p.locations[l].init};

  std::vector<std::vector<path>> paths(T);
  for (int round = 0;; ++round) {
    bool grew = false;
    for (unsigned t = 0; t < T; ++t)
      paths[t] = thread_paths(p, t, domain, max_events_per_thread, res.truncated);
    std::vector<std::set<value>> seen(L);
    for (std::size_t l = 0; l < L; ++l) seen[l].insert(domain[l].begin(), domain[l].end());
    for (const auto& ps : paths)
      for (const auto& pa : ps)
        for (const auto& e : pa.events)
          if (e.is_write()) seen[static_cast<std::size_t>(e.loc)].insert(e.wval);
    for (std::size_t l = 0; l < L; ++l)
      if (seen[l].size() != domain[l].size()) {
        domain[l].assign(seen[l].begin(), seen[l].end());
        grew = true;
      }
    if (!grew) break;
    // A value first written in round r+1 needs a dependency chain of r+1 distinct writes
    // (rf ∪ sb is acyclic in consistent executions), so once the domain used for the
    // paths (round r) covers chains as long as the most writes any execution has, the
    // remaining new values cannot be read in a consistent execution.
    std::size_t max_writes = 0;
    for (const auto& ps : paths) {
      std::size_t m = 0;
      for (const auto& pa : ps)
        m = std::max<std::size_t>(
            m, static_cast<std::size_t>(std::count_if(pa.events.begin(), pa.events.end(),
                                                      [](const event& e) { return e.is_write(); })));
      max_writes += m;
    }
    if (static_cast<std::size_t>(round) >= max_writes) break;
    if (round > 64) {
      res.truncated = true;
      break;
    }
  }

  // Cartesian product of thread paths.
  std::vector<std::size_t> pick(T, 0);
  for (const auto& ps : paths)
    if (ps.empty()) return res;
  for (;;) {
    std::vector<event> ev;
    for (std::size_t l = 0; l < L; ++l)
      ev.push_back({ev_kind::write, -1, static_cast<int>(l), 0, p.locations[l].init,
                    order::relaxed, true});
    for (std::size_t t = 0; t < T; ++t) {
      for (const auto& e : paths[t][pick[t]].events) ev.push_back(e);
    }
    const std::size_t n = ev.size();
    if (n > 64) throw std::runtime_error("rc11_oracle: more than 64 events");
    rel sb(n);
    for (std::size_t i = L; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (ev[i].thread == ev[j].thread) sb.set(i, j);

    std::vector<std::size_t> reads;
    std::vector<std::vector<std::size_t>> cands;
    bool feasible = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (!ev[i].is_read()) continue;
      std::vector<std::size_t> c;
      for (std::size_t j = 0; j < n; ++j)
        if (j != i && ev[j].is_write() && ev[j].loc == ev[i].loc && ev[j].wval == ev[i].rval)
          c.push_back(j);
      if (c.empty()) feasible = false;
      reads.push_back(i);
      cands.push_back(std::move(c));
    }
    // Writes per location (non-initial), for mo permutations.
    std::vector<std::vector<std::size_t>> writes(L);
    for (std::size_t i = L; i < n; ++i)
      if (ev[i].is_write()) writes[static_cast<std::size_t>(ev[i].loc)].push_back(i);

    if (feasible) {
      std::vector<std::size_t> rfpick(reads.size(), 0);
      for (;;) {
        rel rf(n);
        for (std::size_t k = 0; k < reads.size(); ++k) rf.set(cands[k][rfpick[k]], reads[k]);
        // Every combination of per-location orders.
        std::vector<std::vector<std::size_t>> perm = writes;
        for (auto& w : perm) std::sort(w.begin(), w.end());
        std::function<void(std::size_t)> over_locations = [&](std::size_t l) {
          if (l == L) {
            rel mo(n);
            for (std::size_t x = 0; x < L; ++x) {
              std::vector<std::size_t> chain{x};
              chain.insert(chain.end(), perm[x].begin(), perm[x].end());
              for (std::size_t a = 0; a < chain.size(); ++a)
                for (std::size_t b = a + 1; b < chain.size(); ++b) mo.set(chain[a], chain[b]);
            }
            ++res.candidates;
            checker c{ev, sb, rf, mo, model, false};
            if (!c.consistent()) return;
            res.data_race = res.data_race || c.race;
            state s;
            for (const auto& o : p.observed) {
              if (o.thread >= 0) {
                const auto& regs = paths[static_cast<std::size_t>(o.thread)]
                                        [pick[static_cast<std::size_t>(o.thread)]].regs;
                s.push_back(regs[static_cast<std::size_t>(o.slot)]);
              } else {
                const auto x = static_cast<std::size_t>(o.slot);
                s.push_back(ev[perm[x].empty() ? x : perm[x].back()].wval);
              }
            }
            ++res.outcomes[s];
            return;
          }
          do {
            over_locations(l + 1);
          } while (std::next_permutation(perm[l].begin(), perm[l].end()));
        };
        over_locations(0);
        std::size_t k = 0;
        while (k < reads.size() && ++rfpick[k] == cands[k].size()) rfpick[k++] = 0;
        if (k == reads.size()) break;
      }
    }
    std::size_t t = 0;
    while (t < T && ++pick[t] == paths[t].size()) pick[t++] = 0;
    if (t == T) break;
  }
  return res;
}

}  // namespace pilfer::litmus
