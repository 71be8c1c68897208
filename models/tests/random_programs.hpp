// models/tests/random_programs.hpp — the random programs the differential self-tests share
// (symmetry.cpp: symmetry on vs off; revisit.cpp: DFS vs revisit exploration).
//
// k threads run one random body and another thread a second one (or, with program::own, each
// thread its own body), over two atomic locations: loads, stores, fetch_adds, CASes, fences, a
// child thread that stores and is joined, a location the thread makes and shares through an
// atomic, and (random_body(..., blocking = true)) loads that assume() a value away and awaits,
// and (mutexes = true) critical sections: a load and store under a lock, a fetch_add under a
// try_lock, and two locks taken nested (in an order that may deadlock with another thread's).
// after() records the registers and the final memory.
#pragma once

#include "test_util.hpp"

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

namespace pilfer::model::test {

// (kinds after share_local are drawn only when random_body is asked for them: `blocking`)
// (and those after await_eq only when asked for `mutexes`)
enum class op_kind { load, store, add, cas, fence, child_store, share_local, assume_ne, await_eq, locked_add, try_add, nested_lock };
struct op {
  op_kind kind;
  unsigned loc;  // 0 or 1
  int value;
  std::memory_order order;
};
struct program {
  unsigned symmetric_threads = 2;
  std::vector<std::vector<op>> own;  // non-empty: one body per thread, no symmetric group (the rest unused)
  std::vector<op> body, other;  // other: empty = no other thread
  unsigned other_at = 0;        // the other thread's body index (the symmetric ones around it)
};
inline const program* current = nullptr;

// The orders the generator draws from (test data, not synchronisation of this file: each program's
// accesses run under the checker with the drawn order; relaxed twice, so half the accesses are weak).
constexpr std::array<std::memory_order, 4> loads{std::memory_order_relaxed, std::memory_order_acquire,
                                                 std::memory_order_seq_cst, std::memory_order_relaxed};
// (stores: the same draw; release pairs with a drawn acquire load in another thread, relaxed makes none)
constexpr std::array<std::memory_order, 4> stores{std::memory_order_relaxed, std::memory_order_release,
                                                  std::memory_order_seq_cst, std::memory_order_relaxed};
// (RMWs: the same draw; acq_rel and seq_cst both read and publish, release only publishes)
constexpr std::array<std::memory_order, 4> rmws{std::memory_order_relaxed, std::memory_order_acq_rel,
                                                 std::memory_order_seq_cst, std::memory_order_release};

struct random_program : scenario {
  S::atomic<int> x[2] = {S::atomic<int>{0}, S::atomic<int>{0}};
  S::atomic<S::atomic<int>*> shared{nullptr};
  S::mutex m[2];
  std::vector<std::vector<long>> regs;
  const program& p = *current;
  random_program()
      : scenario(!current->own.empty() ? static_cast<unsigned>(current->own.size())
                                       : current->symmetric_threads + (current->other.empty() ? 0 : 1)) {
    regs.resize(threads());
    if (!p.own.empty()) return;
    std::vector<unsigned> group;
    for (unsigned i = 0; i < threads(); ++i)
      if (!is_other(i)) group.push_back(i);
    symmetric(group);
  }
  bool is_other(unsigned i) const { return p.own.empty() && !p.other.empty() && i == p.other_at; }
  void run(const std::vector<op>& body, std::vector<long>& r) {
    S::atomic<int>* mine = nullptr;
    for (const op& o : body) {
      S::atomic<int>& a = x[o.loc];
      switch (o.kind) {
        case op_kind::load: r.push_back(a.load(pilfer::order_site{o.order, "r.load"})); break;
        case op_kind::store: a.store(o.value, pilfer::order_site{o.order, "r.store"}); break;
        case op_kind::add: r.push_back(a.fetch_add(o.value, pilfer::order_site{o.order, "r.add"})); break;
        case op_kind::cas: {
          int expected = o.value;
          const bool ok = a.compare_exchange_strong(expected, o.value + 1, pilfer::order_site{o.order, "r.cas"},
                                                    PILFER_SITE("r.cas_fail", relaxed));
          r.push_back(ok ? 100 + expected : expected);
          break;
        }
        case op_kind::fence: S::fence(PILFER_SITE("r.fence", seq_cst)); break;
        case op_kind::child_store: {
          S::thread child([&a, o] { a.store(o.value, PILFER_SITE("r.child", relaxed)); });
          child.join();
          break;
        }
        case op_kind::share_local: {
          // a location this thread makes: published (the first publisher wins) and read by others
          if (mine == nullptr) mine = S::make<S::atomic<int>>(o.value);
          S::atomic<int>* expected = nullptr;
          (void)shared.compare_exchange_strong(expected, mine, PILFER_SITE("r.share", acq_rel),
                                               PILFER_SITE("r.share_fail", acquire));
          S::atomic<int>* seen = expected == nullptr ? mine : expected;
          r.push_back(seen->fetch_add(1, PILFER_SITE("r.local_add", relaxed)));
          break;
        }
        case op_kind::assume_ne: {  // a read-only spin loop as GenMC's assume: blocks some executions
          const int v = a.load(pilfer::order_site{o.order, "r.assume"});
          S::assume(v != o.value);
          r.push_back(v);
          break;
        }
        case op_kind::await_eq: {  // the same as await: the thread waits for an accepted store
          const int want = o.value;
          r.push_back(a.await([want](int v) { return v == want; }, pilfer::order_site{o.order, "r.await"}));
          break;
        }
        case op_kind::locked_add: {  // a relaxed read-modify-write made atomic by the lock
          m[o.loc].lock();
          const int v = a.load(PILFER_SITE("r.locked_load", relaxed));
          a.store(v + o.value, PILFER_SITE("r.locked_store", relaxed));
          m[o.loc].unlock();
          r.push_back(v);
          break;
        }
        case op_kind::try_add: {
          if (m[o.loc].try_lock()) {
            r.push_back(a.fetch_add(o.value, PILFER_SITE("r.try_add", relaxed)));
            m[o.loc].unlock();
          } else {
            r.push_back(-5);
          }
          break;
        }
        case op_kind::nested_lock: {  // m[loc] then m[1 - loc]: two threads in opposite orders deadlock
          m[o.loc].lock();
          m[1 - o.loc].lock();
          r.push_back(x[0].load(pilfer::order_site{o.order, "r.nested_load"}));
          m[1 - o.loc].unlock();
          m[o.loc].unlock();
          break;
        }
      }
    }
    if (mine != nullptr && shared.load(PILFER_SITE("r.keep", relaxed)) != mine) S::destroy(mine);
  }
  void thread(unsigned i) override { run(!p.own.empty() ? p.own[i] : is_other(i) ? p.other : p.body, regs[i]); }
  void after() override {
    // symmetric threads' registers as a sorted multiset, then the other thread's, then memory
    std::vector<std::vector<long>> sym;
    for (unsigned t = 0; t < regs.size(); ++t)
      if (!is_other(t)) sym.push_back(regs[t]);
    std::sort(sym.begin(), sym.end());
    outcome o;
    for (const auto& r : sym) {
      o.insert(o.end(), r.begin(), r.end());
      o.push_back(-1);
    }
    for (unsigned t = 0; t < regs.size(); ++t)
      if (is_other(t)) o.insert(o.end(), regs[t].begin(), regs[t].end());
    o.push_back(-2);
    for (auto& a : x) o.push_back(a.load(PILFER_SITE("r.final", relaxed)));
    if (S::atomic<int>* s = shared.load(PILFER_SITE("r.final_shared", relaxed))) {
      o.push_back(s->load(PILFER_SITE("r.final_local", relaxed)));
      S::destroy(s);
    }
    record(o);
  }
};

/// `blocking`: also assume_ne and await_eq (loads: they take the load orders); `mutexes`: also the
/// critical sections (and the blocking kinds).
inline std::vector<op> random_body(std::mt19937_64& rng, unsigned len, bool blocking = false, bool mutexes = false) {
  std::vector<op> b;
  for (unsigned i = 0; i < len; ++i) {
    const auto kind = static_cast<op_kind>(rng() % (mutexes ? 12 : blocking ? 9 : 7));
    const unsigned loc = static_cast<unsigned>(rng() % 2);
    const int value = static_cast<int>(rng() % 3);
    const std::size_t o = rng() % 4;
    const bool reads = kind == op_kind::load || kind == op_kind::assume_ne || kind == op_kind::await_eq ||
                       kind == op_kind::nested_lock;
    const std::memory_order order = reads                    ? loads[o]
                                    : kind == op_kind::store ? stores[o]
                                                             : rmws[o];
    b.push_back({kind, loc, value, order});
  }
  return b;
}

/// The differential tests' random program (revisit.cpp, revisit_shards.cpp): 2 or 3 threads of 1-4
/// (2 threads) or 1-3 operations each, blocking operations (assume, await) included, critical
/// sections with `mutexes`.
inline program random_program_for(std::mt19937_64& rng, bool mutexes) {
  program p;
  const unsigned threads = 2 + static_cast<unsigned>(rng() % 2);
  for (unsigned t = 0; t < threads; ++t)
    p.own.push_back(random_body(rng, 1 + static_cast<unsigned>(rng() % (threads == 2 ? 4 : 3)), true, mutexes));
  return p;
}

inline std::string describe(const program& p) {
  const auto one = [](const std::vector<op>& b) {
    std::string s;
    for (const op& o : b)
      s += cat(" ", std::to_string(static_cast<int>(o.kind)), "/", std::to_string(o.loc), "/",
               std::to_string(o.value), "/", std::to_string(static_cast<int>(o.order)));
    return s;
  };
  if (!p.own.empty()) {
    std::string s;
    for (const auto& b : p.own) s += cat("[", one(b), " ] ");
    return s;
  }
  return cat(std::to_string(p.symmetric_threads), " x [", one(p.body), " ] + [", one(p.other), " ] at ",
             std::to_string(p.other_at));
}

}  // namespace pilfer::model::test
