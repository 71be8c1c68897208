// pilfer/conformance/deque_tests.hpp — requirement tests for work-stealing deques (DQ-*).
//
// Two kinds of test:
//  * sequential (rapidcheck stateful): a generated operation sequence runs on the
//    adapter and on a std::deque model; every result must agree. Capacities go
//    down to 1 so growth and wrap-around happen within a few operations.
//  * concurrent histories: rapidcheck generates a program (owner segments of pushes
//    and pops, 1-3 thieves, steal mode, capacity); it runs on real threads many
//    times and each history is checked (exactly-once, owner LIFO, thief order).
//    Real threads explore sequentially-consistent-ish hardware schedules only —
//    models/ covers the weak-memory interleavings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/rc_support.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

// ---------------------------------------------------------------- sequential model

enum class dq_op_kind : std::uint8_t { push, pop, steal, steal_batch, steal_batch_and_pop, dest_pop, dest_steal };

struct dq_op {
  dq_op_kind k = dq_op_kind::push;
  std::uint8_t n = 1;  // push: how many; batch: max
};

inline void showValue(const dq_op& o, std::ostream& os) {
  static const char* names[] = {"push", "pop", "steal", "steal_batch", "steal_batch_and_pop", "dest.pop",
                                "dest.steal"};
  os << names[static_cast<int>(o.k)];
  if (o.k == dq_op_kind::push && o.n > 1) os << " x" << int(o.n);
  if (o.k == dq_op_kind::steal_batch || o.k == dq_op_kind::steal_batch_and_pop) os << "(max " << int(o.n) << ")";
}

struct dq_script {
  std::size_t capacity = 64;
  std::vector<dq_op> ops;
};

inline void showValue(const dq_script& s, std::ostream& os) {
  os << "capacity=" << s.capacity << " ops=[";
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    if (i) os << ", ";
    showValue(s.ops[i], os);
  }
  os << "]";
}

enum class dq_mix { lifo, fifo, growth, batch };

inline rc::Gen<dq_op> gen_dq_op(dq_mix mix) {
  auto op = [](dq_op_kind k, int lo, int hi) {
    return rc::gen::map(rc::gen::inRange(lo, hi + 1),
                        [k](int n) { return dq_op{k, static_cast<std::uint8_t>(n)}; });
  };
  switch (mix) {
    case dq_mix::lifo:
      return rc::gen::weightedOneOf<dq_op>({{5, op(dq_op_kind::push, 1, 4)}, {4, op(dq_op_kind::pop, 1, 1)}});
    case dq_mix::fifo:
      return rc::gen::weightedOneOf<dq_op>({{5, op(dq_op_kind::push, 1, 4)}, {4, op(dq_op_kind::steal, 1, 1)}});
    case dq_mix::growth:
      return rc::gen::weightedOneOf<dq_op>({{6, op(dq_op_kind::push, 1, 9)},
                                            {3, op(dq_op_kind::pop, 1, 1)},
                                            {3, op(dq_op_kind::steal, 1, 1)}});
    case dq_mix::batch:
      return rc::gen::weightedOneOf<dq_op>({{5, op(dq_op_kind::push, 1, 6)},
                                            {2, op(dq_op_kind::steal_batch, 1, 8)},
                                            {2, op(dq_op_kind::steal_batch_and_pop, 1, 8)},
                                            {2, op(dq_op_kind::dest_pop, 1, 1)},
                                            {2, op(dq_op_kind::dest_steal, 1, 1)},
                                            {1, op(dq_op_kind::push, 1, 1)}});
  }
  return op(dq_op_kind::push, 1, 1);
}

namespace detail {

/// A steal with no concurrent thread must not report "retry" forever.
template <class S>
steal_outcome settle(const S& s) {
  for (int i = 0; i < 1000; ++i) {
    auto r = s.steal();
    if (r.status != outcome::retry) return r;
  }
  return steal_outcome::retry();
}

inline std::string show_opt(std::optional<value_t> v) { return v ? std::to_string(*v) : "empty"; }

}  // namespace detail

/// Run one script against adapter A and the model; "" when they agree, else what differed.
template <deque_adapter A>
std::string run_dq_script(const dq_script& s) {
  A dq(s.capacity);
  A dest(s.capacity);
  auto thief = dq.get_stealer();
  auto dest_thief = dest.get_stealer();
  std::deque<value_t> model, dest_model;
  value_t next = 1;
  std::ostringstream err;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const dq_op& op = s.ops[i];
    auto where = [&] { return "op #" + std::to_string(i) + ": "; };
    switch (op.k) {
      case dq_op_kind::push:
        for (int j = 0; j < op.n; ++j) {
          dq.push(next);
          model.push_back(next++);
        }
        break;
      case dq_op_kind::pop: {
        auto got = dq.pop();
        std::optional<value_t> want;
        if (!model.empty()) {
          want = model.back();
          model.pop_back();
        }
        if (got != want)
          return where() + "pop returned " + detail::show_opt(got) + ", model (newest) " + detail::show_opt(want);
        break;
      }
      case dq_op_kind::dest_pop: {
        auto got = dest.pop();
        std::optional<value_t> want;
        if (!dest_model.empty()) {
          want = dest_model.back();
          dest_model.pop_back();
        }
        if (got != want)
          return where() + "dest.pop returned " + detail::show_opt(got) + ", model " + detail::show_opt(want);
        break;
      }
      case dq_op_kind::steal:
      case dq_op_kind::dest_steal: {
        auto& m = op.k == dq_op_kind::steal ? model : dest_model;
        auto r = detail::settle(op.k == dq_op_kind::steal ? thief : dest_thief);
        std::optional<value_t> got;
        if (r.status == outcome::success) got = r.value;
        if (r.status == outcome::retry) return where() + "steal kept returning retry with no concurrent thread";
        std::optional<value_t> want;
        if (!m.empty()) {
          want = m.front();
          m.pop_front();
        }
        if (got != want)
          return where() + "steal returned " + detail::show_opt(got) + ", model (oldest) " + detail::show_opt(want);
        break;
      }
      case dq_op_kind::steal_batch:
      case dq_op_kind::steal_batch_and_pop: {
        if constexpr (batch_deque_adapter<A>) {
          const std::size_t size = model.size();
          const std::size_t bound = std::min<std::size_t>(op.n, (size + 1) / 2);
          if (op.k == dq_op_kind::steal_batch) {
            batch_outcome r;
            for (int t = 0; t < 1000; ++t) {
              r = thief.steal_batch(dest, op.n);
              if (r.status != outcome::retry) break;
            }
            if (size == 0) {
              if (r.status != outcome::empty) return where() + "steal_batch on an empty deque did not return empty";
              break;
            }
            if (r.status != outcome::success || r.count < 1 || r.count > bound)
              return where() + "steal_batch(max " + std::to_string(op.n) + ") of " + std::to_string(size) +
                     " items moved " + std::to_string(r.count) + " (allowed 1.." + std::to_string(bound) + ")";
            for (std::size_t j = 0; j < r.count; ++j) {
              dest_model.push_back(model.front());
              model.pop_front();
            }
          } else {
            steal_outcome r;
            for (int t = 0; t < 1000; ++t) {
              r = thief.steal_batch_and_pop(dest, op.n);
              if (r.status != outcome::retry) break;
            }
            if (size == 0) {
              if (r.status != outcome::empty) return where() + "steal_batch_and_pop on an empty deque not empty";
              break;
            }
            if (r.status != outcome::success || r.value != model.front())
              return where() + "steal_batch_and_pop returned " +
                     (r.status == outcome::success ? std::to_string(r.value) : std::string("no item")) +
                     ", model (oldest) " + std::to_string(model.front());
            model.pop_front();
            // How many more moved is not reported: drain both deques and compare.
            std::vector<value_t> rest, moved;
            for (;;) {
              auto x = detail::settle(thief);
              if (x.status != outcome::success) break;
              rest.push_back(x.value);
            }
            if (rest.size() > model.size() ||
                !std::equal(rest.begin(), rest.end(), model.end() - static_cast<std::ptrdiff_t>(rest.size())))
              return where() + "after steal_batch_and_pop the source no longer holds a suffix of its items";
            const std::size_t more = model.size() - rest.size();
            if (1 + more > bound)
              return where() + "steal_batch_and_pop(max " + std::to_string(op.n) + ") of " + std::to_string(size) +
                     " items took " + std::to_string(1 + more) + " (allowed 1.." + std::to_string(bound) + ")";
            for (std::size_t j = 0; j < more; ++j) dest_model.push_back(model[j]);
            model.clear();
            for (;;) {
              auto x = detail::settle(dest_thief);
              if (x.status != outcome::success) break;
              moved.push_back(x.value);
            }
            if (std::vector<value_t>(dest_model.begin(), dest_model.end()) != moved) {
              err << where() << "after steal_batch_and_pop the thief's deque yields [";
              for (auto v : moved) err << v << ' ';
              err << "] to steals, model (source order kept) [";
              for (auto v : dest_model) err << v << ' ';
              err << "]";
              return err.str();
            }
            dest_model.clear();
          }
        }
        break;
      }
    }
  }
  // Drain: whatever is left must come out newest-first from the owner's end.
  while (!model.empty()) {
    auto got = dq.pop();
    if (got != model.back()) return "final drain: pop returned " + detail::show_opt(got) + ", model " +
                                    std::to_string(model.back());
    model.pop_back();
  }
  if (auto extra = dq.pop()) return "final drain: pop returned " + std::to_string(*extra) + " from an empty deque";
  return {};
}

template <deque_adapter A>
verdict dq_sequential(const run_config& cfg, const char* id, dq_mix mix, std::vector<std::size_t> caps, int cases) {
  const auto caps_gen = rc::gen::elementOf(caps);
  return rc_verdict(cfg, id, cfg.scaled(cases), 100, [mix, caps_gen] {
    dq_script s;
    s.capacity = *caps_gen;
    s.ops = *rc::gen::container<std::vector<dq_op>>(gen_dq_op(mix));
    const std::string e = run_dq_script<A>(s);
    if (!e.empty()) PILFER_CONF_FAIL(e);
  });
}

// ---------------------------------------------------------------- concurrent histories

/// A generated concurrent program: the owner runs segments (push `first`, then pop `second`),
/// thieves steal until the owner is done and the deque is drained.
struct dq_program {
  std::size_t capacity = 2;
  std::vector<std::pair<int, int>> segments;
  int thieves = 1;
  int mode = 0;  // 0 steal, 1 steal_batch, 2 steal_batch_and_pop
  int batch_max = 4;
  int repeat = 1;  // each segment list is run `repeat` times in one history
};

inline void showValue(const dq_program& p, std::ostream& os) {
  static const char* modes[] = {"steal", "steal_batch", "steal_batch_and_pop"};
  os << "capacity=" << p.capacity << " thieves=" << p.thieves << " mode=" << modes[p.mode];
  if (p.mode) os << "(max " << p.batch_max << ")";
  os << " owner=" << p.repeat << "x[";
  for (std::size_t i = 0; i < p.segments.size(); ++i)
    os << (i ? ", " : "") << "push " << p.segments[i].first << "/pop " << p.segments[i].second;
  os << "]";
}

enum class dq_check { exactly_once, owner_lifo, thief_fifo, batch_order };

namespace detail {

struct dq_history {
  std::vector<std::pair<bool, value_t>> owner;  // (true, v) push v; (false, v) pop -> v (0 = empty)
  std::vector<std::vector<std::vector<value_t>>> thief_batches;  // per thief: batches in receive order
  value_t pushed = 0;
  bool stuck = false;
};

template <deque_adapter A>
dq_history run_dq_program(const dq_program& p) {
  dq_history h;
  A dq(p.capacity);
  atomic<bool> owner_done{false};
  h.thief_batches.resize(static_cast<std::size_t>(p.thieves));
  std::vector<std::function<void()>> bodies;
  bodies.emplace_back([&] {
    value_t next = 1;
    h.owner.reserve(4096);
    for (int r = 0; r < p.repeat; ++r) {
      for (auto [pushes, pops] : p.segments) {
        for (int i = 0; i < pushes; ++i) {
          dq.push(next);
          h.owner.emplace_back(true, next++);
        }
        for (int i = 0; i < pops; ++i) {
          auto v = dq.pop();
          h.owner.emplace_back(false, v.value_or(0));
        }
      }
    }
    while (auto v = dq.pop()) h.owner.emplace_back(false, *v);
    h.pushed = next - 1;
    owner_done.store(true, PILFER_SITE("conformance.done", release));
  });
  for (int t = 0; t < p.thieves; ++t) {
    bodies.emplace_back([&, t] {
      auto s = dq.get_stealer();
      A own(p.capacity);
      auto& batches = h.thief_batches[static_cast<std::size_t>(t)];
      long long spins = 0;
      for (;;) {
        const bool done = owner_done.load(PILFER_SITE("conformance.done", acquire));
        std::vector<value_t> batch;
        outcome st = outcome::empty;
        if (p.mode == 0) {
          auto r = s.steal();
          st = r.status;
          if (st == outcome::success) batch.push_back(r.value);
        } else if constexpr (batch_deque_adapter<A>) {
          if (p.mode == 1) {
            auto r = s.steal_batch(own, static_cast<std::size_t>(p.batch_max));
            st = r.status;
          } else {
            auto r = s.steal_batch_and_pop(own, static_cast<std::size_t>(p.batch_max));
            st = r.status;
            if (st == outcome::success) batch.push_back(r.value);
          }
          if (st == outcome::success) {
            std::vector<value_t> popped;
            while (auto v = own.pop()) popped.push_back(*v);
            batch.insert(batch.end(), popped.rbegin(), popped.rend());  // receive order = source order
          }
        }
        if (!batch.empty()) batches.push_back(std::move(batch));
        if (done && st == outcome::empty) break;
        if (++spins > 50'000'000) {
          h.stuck = true;
          break;
        }
      }
    });
  }
  run_threads(std::move(bodies));
  return h;
}

inline std::string check_dq_history(const dq_history& h, dq_check check) {
  if (h.stuck) return "a thief never saw the drained deque as empty (steal kept returning retry/success)";
  std::ostringstream os;
  switch (check) {
    case dq_check::exactly_once: {
      std::vector<int> seen(h.pushed + 1, 0);
      auto take = [&](value_t v, const char* who) -> bool {
        if (v == 0) return true;
        if (v > h.pushed) {
          os << who << " received " << v << ", never pushed (" << h.pushed << " pushed)";
          return false;
        }
        if (++seen[v] > 1) {
          os << "item " << v << " received twice (second time by " << who << ")";
          return false;
        }
        return true;
      };
      for (auto [is_push, v] : h.owner)
        if (!is_push && !take(v, "owner pop")) return os.str();
      for (std::size_t t = 0; t < h.thief_batches.size(); ++t)
        for (auto& b : h.thief_batches[t])
          for (auto v : b)
            if (!take(v, "a thief")) return os.str();
      for (value_t v = 1; v <= h.pushed; ++v)
        if (!seen[v]) {
          os << "item " << v << " was lost (pushed, never popped or stolen)";
          return os.str();
        }
      return {};
    }
    case dq_check::owner_lifo: {
      std::set<value_t> stolen;
      for (auto& tb : h.thief_batches)
        for (auto& b : tb) stolen.insert(b.begin(), b.end());
      std::vector<value_t> view;  // pushed and not yet popped by the owner, oldest first
      for (auto [is_push, v] : h.owner) {
        if (is_push) {
          view.push_back(v);
          continue;
        }
        // Everything newer than the popped item (or everything, on empty) must have been stolen.
        auto it = v ? std::find(view.begin(), view.end(), v) : view.begin();
        if (v && it == view.end()) continue;  // not LIFO's business (exactly-once reports it)
        for (auto n = (v ? it + 1 : it); n != view.end(); ++n)
          if (!stolen.count(*n)) {
            os << "owner pop returned " << (v ? std::to_string(v) : std::string("empty")) << " while newer item "
               << *n << " was still in the deque (it was never stolen)";
            return os.str();
          }
        view.erase(it, view.end());
      }
      return {};
    }
    case dq_check::thief_fifo:
    case dq_check::batch_order: {
      for (std::size_t t = 0; t < h.thief_batches.size(); ++t) {
        value_t last = 0;
        for (auto& b : h.thief_batches[t]) {
          for (std::size_t i = 0; i < b.size(); ++i) {
            if (b[i] <= last) {
              os << "thief " << t << " received " << b[i] << " after " << last
                 << (i ? " within one batch (batch order differs from push order)"
                       : " (steals must see increasing push order)");
              return os.str();
            }
            last = b[i];
          }
        }
      }
      return {};
    }
  }
  return {};
}

}  // namespace detail

/// Generator of concurrent deque programs. `race_bias` favours short push/pop-all segments
/// (the owner keeps reaching the last element while thieves are stealing it).
inline rc::Gen<dq_program> gen_dq_program(bool batch, std::vector<std::size_t> caps) {
  return rc::gen::exec([batch, caps] {
    dq_program p;
    p.capacity = *rc::gen::elementOf(caps);
    p.thieves = *rc::gen::inRange(1, 4);
    p.mode = batch ? *rc::gen::inRange(0, 3) : 0;
    p.batch_max = *rc::gen::inRange(1, 9);
    p.repeat = *rc::gen::inRange(20, 60);
    const int n = *rc::gen::inRange(1, 6);
    for (int i = 0; i < n; ++i) {
      const int pushes = *rc::gen::inRange(1, 9);
      const int pops = *rc::gen::weightedOneOf<int>({{3, rc::gen::just(pushes)}, {1, rc::gen::inRange(0, 10)}});
      p.segments.emplace_back(pushes, pops);
    }
    return p;
  });
}

template <deque_adapter A>
verdict dq_concurrent(const run_config& cfg, const char* id, dq_check check, bool batch, int programs, int runs) {
  auto budget = std::make_shared<shrink_budget>(std::chrono::milliseconds(cfg.thorough ? 20000 : 3000));
  const int reps = runs;
  return rc_verdict(cfg, id, cfg.scaled(programs), 100, [=] {
    const dq_program p = *gen_dq_program(batch, {1, 2, 4, 64});
    if (budget->exhausted()) return;
    for (int r = 0; r < reps; ++r) {
      const std::string e = detail::check_dq_history(detail::run_dq_program<A>(p), check);
      if (!e.empty()) {
        budget->on_failure();
        PILFER_CONF_FAIL(e + " (run " + std::to_string(r + 1) + " of " + std::to_string(reps) + ")");
      }
    }
  });
}

/// DQ-5: "retry" is distinct from "empty". The owner fills the deque, then it and 2-3 thieves
/// steal it empty; nothing is pushed meanwhile, so the deque only shrinks. An "empty" answer is
/// wrong when any steal that started after that answer returned still found an item.
template <deque_adapter A>
verdict dq_retry_not_empty(const run_config& cfg, const char* /*id*/, int rounds) {
  rng g{cfg.seed};
  rounds = cfg.scaled(rounds);
  for (int round = 0; round < rounds; ++round) {
    const std::size_t cap = std::size_t{1} << g.below(4);
    const int items = 64 + static_cast<int>(g.below(448));
    const int thieves = 3 + static_cast<int>(g.below(2));  // the owner thread steals too
    A dq(cap);
    atomic<bool> filled{false};  // the owner thread fills (owner-only operations stay on one thread)
    atomic<std::uint64_t> clock{0};
    std::vector<std::uint64_t> empty_at(static_cast<std::size_t>(thieves), ~0ull);
    std::vector<std::uint64_t> last_success_start(static_cast<std::size_t>(thieves), 0);
    std::vector<std::function<void()>> bodies;
    for (int t = 0; t < thieves; ++t) {
      bodies.emplace_back([&, t] {
        if (t == 0) {
          for (int i = 1; i <= items; ++i) dq.push(static_cast<value_t>(i));
          filled.store(true, PILFER_SITE("conformance.filled", release));
        }
        auto s = dq.get_stealer();
        while (!filled.load(PILFER_SITE("conformance.filled", acquire))) sync::yield();
        for (long spins = 0; spins < 10'000'000; ++spins) {
          const auto start = clock.fetch_add(1, PILFER_SITE("conformance.clock", seq_cst));
          auto r = s.steal();
          if (r.status == outcome::empty) {
            empty_at[static_cast<std::size_t>(t)] = clock.fetch_add(1, PILFER_SITE("conformance.clock", seq_cst));
            return;
          }
          if (r.status == outcome::success) last_success_start[static_cast<std::size_t>(t)] = start;
        }
      });
    }
    run_threads(std::move(bodies));
    for (std::size_t e = 0; e < empty_at.size(); ++e)
      for (std::size_t s = 0; s < last_success_start.size(); ++s)
        if (empty_at[e] != ~0ull && last_success_start[s] > empty_at[e]) {
          std::ostringstream os;
          os << "a steal answered empty while the deque still held an item (a steal started later found one); round "
             << round << ": capacity=" << cap << " items=" << items << " thieves=" << thieves;
          return verdict::fail(cfg.seed, os.str());
        }
  }
  return verdict::pass(std::to_string(rounds) + " drain races");
}

}  // namespace pilfer::conformance
