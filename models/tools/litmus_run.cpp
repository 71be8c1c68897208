// litmus_run.cpp — see litmus_run.hpp.
//
// Race run: each cell that a non-atomic access may touch gets shadow `cell`s whose
// accesses the engine checks for data races with its own happens-before —
//   `na_writes`: written by each non-atomic write, read by every other access, and
//   `atomic_writes[t]`: written by thread t's atomic writes, read by non-atomic reads
// of the other threads — so exactly the pairs C11 calls conflicting (one non-atomic
// access, one of them a write) are checked. A shadow access is placed before an atomic
// write (its own release then covers it) and after an atomic read (its own acquire then
// covers it). A CAS is only known to write after it ran, so its write shadow comes after
// it: a plain read that is hb-after a successful CAS only through that CAS's own release is
// reported as racing (listed in models/litmus/known-differences.tsv); and an RMW's write
// shadow comes before it, so a plain access hb-before the RMW only through the RMW's own
// acquire is reported too. No race is missed by this placement.
#include "litmus_run.hpp"

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pilfer/sync.hpp"

namespace pilfer::litmus {
namespace {

namespace model = pilfer::model;
using model::checker_sync;

/// A location's checker atomic, of the location's declared width and signedness
/// (location::bits): what it stores, an RMW's result included, wraps as the C type does.
class sized_atomic {
 public:
  explicit sized_atomic(const location& l) {
    switch (l.bits) {
      case 8: l.is_unsigned ? make<std::uint8_t>(l) : make<std::int8_t>(l); break;
      case 16: l.is_unsigned ? make<std::uint16_t>(l) : make<std::int16_t>(l); break;
      case 32: l.is_unsigned ? make<std::uint32_t>(l) : make<std::int32_t>(l); break;
      default: l.is_unsigned ? make<std::uint64_t>(l) : make<std::int64_t>(l); break;
    }
  }
  /// f(atomic) on the location's atomic (a checker_sync::atomic<T> for its T).
  template <class F>
  decltype(auto) with(F&& f) {
    return std::visit([&](auto& a) -> decltype(auto) { return f(*a); }, a_);
  }

 private:
  template <class T>
  void make(const location& l) {
    a_ = std::make_unique<checker_sync::atomic<T>>(static_cast<T>(l.init));
  }
  template <class T>
  using ptr = std::unique_ptr<checker_sync::atomic<T>>;
  std::variant<ptr<std::int8_t>, ptr<std::uint8_t>, ptr<std::int16_t>, ptr<std::uint16_t>, ptr<std::int32_t>,
               ptr<std::uint32_t>, ptr<std::int64_t>, ptr<std::uint64_t>>
      a_;
};
/// The T of a checker_sync::atomic<T>.
template <class A>
using value_type_of = std::remove_cvref_t<decltype(std::declval<A&>().load(std::declval<pilfer::order_site>()))>;

// Translation, not an operation: the order a litmus file declares for an access is the order the engine
// explores that access with (no edge is created here; the program under test states its own orders).
std::memory_order to_std(order o) noexcept {
  switch (o) {
    case order::relaxed: return std::memory_order_relaxed;
    case order::consume: return std::memory_order_acquire;  // consume is promoted, as by compilers
    case order::acquire: return std::memory_order_acquire;
    case order::release: return std::memory_order_release;
    case order::acq_rel: return std::memory_order_acq_rel;
    case order::seq_cst: return std::memory_order_seq_cst;
  }
  return std::memory_order_seq_cst;
}

/// The site of an access; `mutation` weakens the declared order (fuzzer self-test).
pilfer::order_site site(order o, const std::string& tag, const order_mutation& mut) noexcept {
  std::memory_order m = to_std(o);
  if (mut.all_relaxed) m = std::memory_order_relaxed;
  if (mut.sc_as_acq_rel && m == std::memory_order_seq_cst) m = std::memory_order_acq_rel;
  return pilfer::order_site{m, tag.c_str()};
}

/// An xor RMW on `x`: the engine's native one if it has it, else a CAS loop whose successful CAS is
/// the RMW. (A free function: clang 14 left the member-template form uninstantiated when it was
/// called from a generic lambda, an undefined reference at link time.)
template <class A, class T>
T fetch_xor_of(A& x, T operand, order o, const std::string& tag, const order_mutation& mut) {
  if constexpr (requires { x.fetch_xor(operand, site(o, tag, mut)); }) {
    return x.fetch_xor(operand, site(o, tag, mut));
  } else {
    T old = x.load(site(order::relaxed, tag, mut));
    while (!x.compare_exchange_strong(old, static_cast<T>(old ^ operand), site(o, tag, mut),
                                      site(order::relaxed, tag, mut))) {
    }
    return old;
  }
}

/// A CAS failure may not be stronger than acquire (C11 rule, also std::atomic's precondition).
order failure_order(order o) noexcept {
  if (o == order::release) return order::relaxed;
  if (o == order::acq_rel) return order::acquire;
  return o;
}

constexpr const char* final_tag = "litmus.final";

/// Cells of `p` that some non-atomic access may touch (a whole array when it is indexed).
std::vector<bool> plain_cells(const program& p) {
  std::vector<bool> plain(p.locations.size(), false);
  auto mark = [&](int loc) {
    const auto& l = p.locations[static_cast<std::size_t>(loc)];
    const int base = l.array_base < 0 ? loc : l.array_base;
    for (int k = 0; k < l.array_size; ++k) plain[static_cast<std::size_t>(base + k)] = true;
  };
  auto walk_e = [&](auto&& self, const expr* e) -> void {
    if (!e) return;
    if (e->k == expr::kind::plain_read) mark(e->loc);
    if (e->exp_loc >= 0) mark(e->exp_loc);
    self(self, e->a.get());
    self(self, e->b.get());
    self(self, e->off.get());
    self(self, e->exp_off.get());
  };
  auto walk_s = [&](auto&& self, const stmt* s) -> void {
    if (!s) return;
    if (s->k == stmt::kind::plain_write) mark(s->loc);
    walk_e(walk_e, s->a.get());
    walk_e(walk_e, s->off.get());
    for (const auto& b : s->body) self(self, b.get());
  };
  for (const auto& t : p.threads) walk_s(walk_s, t.body.get());
  return plain;
}

/// One execution of a litmus program: fresh shared memory and registers.
///
/// Every location is a checker atomic, whatever the threads declare: a non-atomic access
/// runs as a relaxed atomic access. That gives exactly the executions rc11.cat considers
/// (herd7 applies coherence to every location and lists the outcomes of racy executions
/// too; non-atomic accesses only matter to sw, where they are never release/acquire).
/// Races are found in a second run (`race_run`): each cell that a non-atomic access may
/// touch gets shadow `cell`s whose accesses the engine checks for data races —
///   `na_writes`: written by each non-atomic write, read by every other access, and
///   `atomic_writes[t]`: written by thread t's atomic writes, read by non-atomic reads —
/// so exactly the pairs C11 calls conflicting (one non-atomic, one a write) are checked,
/// with the engine's happens-before.
class litmus_scenario final : public model::scenario {
 public:
  litmus_scenario(const program& p, engine_run& out, const std::vector<bool>* race_cells,
                  const order_mutation& mut)
      : model::scenario(static_cast<unsigned>(p.threads.size())), p_(p), out_(out), mut_(mut) {
    regs_.resize(p.threads.size());
    ends_.assign(p.threads.size(), thread_end::finished);
    atomics_.resize(p.locations.size());
    for (std::size_t k = 0; k < p.locations.size(); ++k) atomics_[k] = std::make_unique<sized_atomic>(p.locations[k]);
    if (race_cells) {
      shadows_.resize(p.locations.size());
      for (std::size_t k = 0; k < p.locations.size(); ++k) {
        if (!(*race_cells)[k]) continue;
        auto sh = std::make_unique<shadow>();
        sh->na_writes = std::make_unique<checker_sync::cell<int>>(0);
        for (std::size_t t = 0; t < p.threads.size(); ++t)
          sh->atomic_writes.push_back(std::make_unique<checker_sync::cell<int>>(0));
        shadows_[k] = std::move(sh);
      }
    }
  }

  void thread(unsigned index) override {
    memory_view m(*this, index);
    regs_[index] = initial_registers(p_, index);
    ends_[index] = run_thread(p_, index, m, regs_[index]);
    // A false assume() blocks the execution (the engine's assume: result::blocked, not a
    // complete execution). Called here, once the interpreter's frames are gone. Revisit
    // exploration: this thread stays stopped, the others run on, and each distinct blocked
    // graph is counted once (as GenMC does); DFS: the run ends here, and blocked counts runs.
    if (ends_[index] == thread_end::assume_failed) model::assume(false);
  }

  void after() override {
    for (const auto e : ends_) {
      if (e == thread_end::filtered) {
        ++out_.filtered;
        return;
      }
      if (e == thread_end::assume_failed) return;  // (blocked by model::assume: not reached)
      if (e == thread_end::out_of_bounds) out_.out_of_bounds = true;
      if (e == thread_end::step_limit) out_.step_limit = true;
      if (e == thread_end::division_by_zero) out_.division_by_zero = true;
    }
    state s;
    s.reserve(p_.observed.size());
    for (const auto& o : p_.observed) {
      if (o.thread >= 0) {
        const auto& r = regs_[static_cast<std::size_t>(o.thread)];
        s.push_back(r.empty() ? 0 : r[static_cast<std::size_t>(o.slot)]);
      } else {
        // after() is hb-after every thread: coherence makes this load return
        // the mo-maximal store, i.e. the final value of the location.
        s.push_back(atomics_[static_cast<std::size_t>(o.slot)]->with([](auto& x) {
          return static_cast<value>(x.load(pilfer::order_site{std::memory_order_relaxed, final_tag}));
        }));
      }
    }
    ++out_.counts[s];
  }

 private:
  struct shadow {
    std::unique_ptr<checker_sync::cell<int>> na_writes;
    std::vector<std::unique_ptr<checker_sync::cell<int>>> atomic_writes;
  };

  class memory_view final : public memory {
   public:
    memory_view(litmus_scenario& s, unsigned t) : s_(s), t_(t), mut(s.mut_) {}
    value load(int loc, order o, const std::string& tag) override {
      const value v = a(loc).with([&](auto& x) { return static_cast<value>(x.load(site(o, tag, mut))); });
      // After the access: its own acquire already orders what it synchronises with.
      if (shadow* sh = shadow_of(loc)) (void)sh->na_writes->read();
      return v;
    }
    void store(int loc, value v, order o, const std::string& tag) override {
      // Before the access: its own release must order the shadow write for the readers.
      atomic_write_shadow(loc);
      a(loc).with([&](auto& x) { x.store(static_cast<value_type_of<decltype(x)>>(v), site(o, tag, mut)); });
    }
    value rmw(int loc, rmw_op op, value operand, order o,
                  const std::string& tag) override {
      atomic_write_shadow(loc);
      const value old = a(loc).with([&](auto& x) -> value {
        using T = value_type_of<decltype(x)>;
        const T d = static_cast<T>(operand);
        switch (op) {
          case rmw_op::exchange: return static_cast<value>(x.exchange(d, site(o, tag, mut)));
          case rmw_op::add: return static_cast<value>(x.fetch_add(d, site(o, tag, mut)));
          case rmw_op::sub: return static_cast<value>(x.fetch_sub(d, site(o, tag, mut)));
          case rmw_op::bit_or: return static_cast<value>(x.fetch_or(d, site(o, tag, mut)));
          case rmw_op::bit_and: return static_cast<value>(x.fetch_and(d, site(o, tag, mut)));
          case rmw_op::bit_xor: return static_cast<value>(fetch_xor_of(x, d, o, tag, mut));
        }
        return 0;
      });
      if (shadow* sh = shadow_of(loc)) (void)sh->na_writes->read();
      return old;
    }
    bool cas(int loc, value& expected, value desired, order success,
             order failure, const std::string& tag) override {
      const bool ok = a(loc).with([&](auto& x) {
        using T = value_type_of<decltype(x)>;
        T e = static_cast<T>(expected);
        const bool done = x.compare_exchange_strong(e, static_cast<T>(desired), site(success, tag, mut),
                                                    site(failure_order(failure), tag, mut));
        if (!done) expected = static_cast<value>(e);  // (C11: written back on failure only)
        return done;
      });
      // A failed CAS is only a read; a successful one a write, shadowed after the access
      // (it is not known before): see "Races" in models/litmus/README.md for the one
      // pattern this over-reports.
      if (shadow* sh = shadow_of(loc)) {
        (void)sh->na_writes->read();
        if (ok) sh->atomic_writes[t_]->write() = 1;
      }
      return ok;
    }
    void fence(order o, const std::string& tag) override {
      if (!mut.drop_fences) checker_sync::fence(site(o, tag, mut));
    }
    value plain_read(int loc, const std::string& tag) override {
      if (shadow* sh = shadow_of(loc)) {
        (void)sh->na_writes->read();
        for (std::size_t t = 0; t < sh->atomic_writes.size(); ++t)
          if (t != t_) (void)sh->atomic_writes[t]->read();
      }
      return a(loc).with([&](auto& x) { return static_cast<value>(x.load(site(order::relaxed, tag, mut))); });
    }
    void plain_write(int loc, value v, const std::string& tag) override {
      if (shadow* sh = shadow_of(loc)) sh->na_writes->write() = 1;
      a(loc).with([&](auto& x) { x.store(static_cast<value_type_of<decltype(x)>>(v), site(order::relaxed, tag, mut)); });
    }

   private:
    shadow* shadow_of(int loc) const {
      if (s_.shadows_.empty()) return nullptr;
      return s_.shadows_[static_cast<std::size_t>(loc)].get();
    }
    void atomic_write_shadow(int loc) {
      if (shadow* sh = shadow_of(loc)) {
        (void)sh->na_writes->read();
        sh->atomic_writes[t_]->write() = 1;
      }
    }
    sized_atomic& a(int loc) { return *s_.atomics_[static_cast<std::size_t>(loc)]; }
    litmus_scenario& s_;
    unsigned t_;
    const order_mutation& mut;  // the scenario's, named short for the many site() calls
  };

  const program& p_;
  engine_run& out_;
  const order_mutation& mut_;
  std::vector<std::vector<value>> regs_;
  std::vector<thread_end> ends_;
  std::vector<std::unique_ptr<sized_atomic>> atomics_;
  std::vector<std::unique_ptr<shadow>> shadows_;
};

}  // namespace

engine_run run_on_engine(const program& p, const model::options& o, const order_mutation& mutation) {
  engine_run out;
  // Outcome run: no shadow cells, so nothing ends an execution early.
  out.engine = model::check(
      [&] { return std::make_unique<litmus_scenario>(p, out, nullptr, mutation); }, o);
  if (out.engine.ok && p.plain_accesses && !mutation.no_race_run) {
    // Race run: the same executions with shadow cells; the first race answers it.
    const std::vector<bool> cells = plain_cells(p);
    engine_run ignored;
    model::options ro = o;
    ro.stop_on_failure = true;
    out.race_engine = model::check(
        [&] { return std::make_unique<litmus_scenario>(p, ignored, &cells, mutation); }, ro);
    out.race = !out.race_engine.ok && out.race_engine.kind == "data race";
  }
  return out;
}

}  // namespace pilfer::litmus
