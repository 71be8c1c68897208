// pilfer/conformance/injector_tests.hpp — requirement tests for MPMC injector queues (INJ-*).
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "pilfer/conformance/adapters.hpp"
#include "pilfer/conformance/harness.hpp"
#include "pilfer/conformance/rc_support.hpp"
#include "pilfer/conformance/verdict.hpp"

namespace pilfer::conformance {

/// Sequential model: a generated push/steal sequence (push counts up to 300 so block
/// boundaries of block-based queues are crossed) against a FIFO std::deque.
struct inj_script {
  std::vector<int> ops;  // > 0: push that many; 0: one steal
};

inline void showValue(const inj_script& s, std::ostream& os) {
  os << "[";
  for (std::size_t i = 0; i < s.ops.size(); ++i) os << (i ? ", " : "") << (s.ops[i] ? "push x" + std::to_string(s.ops[i]) : "steal");
  os << "]";
}

template <injector_adapter A>
std::string run_inj_script(const inj_script& s) {
  A q;
  std::deque<value_t> model;
  value_t next = 1;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    if (s.ops[i] > 0) {
      for (int j = 0; j < s.ops[i]; ++j) {
        q.push(next);
        model.push_back(next++);
      }
      continue;
    }
    steal_outcome r;
    for (int t = 0; t < 1000; ++t)
      if ((r = q.steal()).status != outcome::retry) break;
    const value_t want = model.empty() ? 0 : model.front();
    const value_t got = r.status == outcome::success ? r.value : 0;
    if (got != want || (r.status == outcome::retry))
      return "op #" + std::to_string(i) + ": steal returned " + (got ? std::to_string(got) : std::string("no item")) +
             ", model (oldest) " + (want ? std::to_string(want) : std::string("empty"));
    if (!model.empty()) model.pop_front();
  }
  return {};
}

template <injector_adapter A>
verdict inj_sequential(const run_config& cfg, const char* id, int cases) {
  return rc_verdict(cfg, id, cfg.scaled(cases), 100, [] {
    const inj_script s = *rc::gen::map(
        rc::gen::container<std::vector<int>>(rc::gen::weightedOneOf<int>(
            {{4, rc::gen::just(0)}, {3, rc::gen::inRange(1, 5)}, {1, rc::gen::inRange(30, 300)}})),
        [](std::vector<int> ops) { return inj_script{std::move(ops)}; });
    const std::string e = run_inj_script<A>(s);
    if (!e.empty()) PILFER_CONF_FAIL(e);
  });
}

/// Concurrent program: P producers each push `per_producer` values (producer << 32 | seq),
/// C consumers steal until everything pushed has been received (or a time limit).
struct inj_program {
  int producers = 1, consumers = 1, per_producer = 100;
};

inline void showValue(const inj_program& p, std::ostream& os) {
  os << "producers=" << p.producers << " consumers=" << p.consumers << " per_producer=" << p.per_producer;
}

enum class inj_check { producer_fifo, exactly_once };

namespace detail {

template <injector_adapter A>
std::string run_inj_program(const inj_program& p, inj_check check) {
  A q;
  const std::uint64_t total = static_cast<std::uint64_t>(p.producers) * static_cast<std::uint64_t>(p.per_producer);
  atomic<std::uint64_t> received{0};
  std::vector<std::vector<value_t>> got(static_cast<std::size_t>(p.consumers));
  std::vector<std::function<void()>> bodies;
  for (int i = 0; i < p.producers; ++i)
    bodies.emplace_back([&, i] {
      for (int s = 1; s <= p.per_producer; ++s) q.push((static_cast<value_t>(i + 1) << 32) | static_cast<value_t>(s));
    });
  for (int c = 0; c < p.consumers; ++c)
    bodies.emplace_back([&, c] {
      auto& mine = got[static_cast<std::size_t>(c)];
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      for (std::uint64_t n = 0; received.load(PILFER_SITE("conformance.received", relaxed)) < total; ++n) {
        auto r = q.steal();
        if (r.status == outcome::success) {
          mine.push_back(r.value);
          received.fetch_add(1, PILFER_SITE("conformance.received", relaxed));
        } else if ((n & 1023) == 0 && std::chrono::steady_clock::now() > end) {
          return;
        }
      }
    });
  run_threads(std::move(bodies));
  std::ostringstream os;
  if (check == inj_check::producer_fifo) {
    for (std::size_t c = 0; c < got.size(); ++c) {
      std::vector<value_t> last(static_cast<std::size_t>(p.producers) + 1, 0);
      for (auto v : got[c]) {
        const auto prod = v >> 32;
        if (prod == 0 || prod > static_cast<value_t>(p.producers)) continue;  // exactly-once's business
        if (v <= last[prod]) {
          os << "consumer " << c << " received producer " << prod - 1 << "'s item " << (v & 0xffffffffu) << " after its item "
             << (last[prod] & 0xffffffffu) << " (per-producer FIFO broken)";
          return os.str();
        }
        last[prod] = v;
      }
    }
    return {};
  }
  std::vector<std::vector<int>> seen(static_cast<std::size_t>(p.producers),
                                     std::vector<int>(static_cast<std::size_t>(p.per_producer) + 1, 0));
  for (auto& g : got)
    for (auto v : g) {
      const auto prod = v >> 32, s = v & 0xffffffffu;
      if (prod == 0 || prod > static_cast<value_t>(p.producers) || s == 0 || s > static_cast<value_t>(p.per_producer)) {
        os << "received " << v << ", never pushed";
        return os.str();
      }
      if (++seen[prod - 1][s] > 1) {
        os << "producer " << prod - 1 << "'s item " << s << " received twice";
        return os.str();
      }
    }
  for (int i = 0; i < p.producers; ++i)
    for (int s = 1; s <= p.per_producer; ++s)
      if (!seen[static_cast<std::size_t>(i)][static_cast<std::size_t>(s)]) {
        os << "producer " << i << "'s item " << s << " was lost";
        return os.str();
      }
  return {};
}

}  // namespace detail

template <injector_adapter A>
verdict inj_concurrent(const run_config& cfg, const char* id, inj_check check, int programs, int runs) {
  auto budget = std::make_shared<shrink_budget>(std::chrono::milliseconds(cfg.thorough ? 20000 : 3000));
  return rc_verdict(cfg, id, cfg.scaled(programs), 100, [=] {
    inj_program p;
    p.producers = *rc::gen::inRange(1, 4);
    p.consumers = *rc::gen::inRange(1, 4);
    p.per_producer = *rc::gen::inRange(1, 3000);
    if (budget->exhausted()) return;
    for (int r = 0; r < runs; ++r) {
      const std::string e = detail::run_inj_program<A>(p, check);
      if (!e.empty()) {
        budget->on_failure();
        PILFER_CONF_FAIL(e + " (run " + std::to_string(r + 1) + " of " + std::to_string(runs) + ")");
      }
    }
  });
}

/// INJ-4: bounded memory. (1) One thread passes 10,000 items (plus four blocks' worth) through the injector in
/// random bursts (up to three blocks long, from the seed); after every operation, at quiescence by
/// construction, live_blocks() MUST be at most ceil(size / block_size) + 1, and after the drain at most 1.
/// (2) 2 producers and 2 consumers pass 10,000 items concurrently; once all are done and the queue is
/// drained, live_blocks() MUST be at most 1.
template <injector_adapter A>
verdict inj_bounded_memory(const run_config& cfg) {
  if constexpr (!injector_with_blocks<A>) {
    return verdict::na("the adapter reports no live block count");
  } else {
    constexpr std::size_t bs = A::block_size;
    auto bound = [](std::size_t size) { return (size + bs - 1) / bs + 1; };
    auto steal_one = [](A& q) {
      steal_outcome r;
      for (int t = 0; t < 100000; ++t)
        if ((r = q.steal()).status != outcome::retry) break;
      return r;
    };
    rng g{cfg.seed};
    const std::size_t total = 10000 + 4 * bs;
    for (int rep = 0; rep < cfg.scaled(3); ++rep) {
      A q;
      std::size_t size = 0, pushed = 0, ops = 0;
      while (pushed < total || size > 0) {
        const bool push = pushed < total && (size == 0 || g.below(2) == 0);
        const std::size_t burst = 1 + static_cast<std::size_t>(g.below(3 * bs));
        for (std::size_t k = 0; k < burst; ++k, ++ops) {
          if (push) {
            if (pushed == total) break;
            q.push(static_cast<value_t>(++pushed));
            ++size;
          } else {
            if (size == 0) break;
            const steal_outcome r = steal_one(q);
            if (r.status != outcome::success)
              return verdict::fail(cfg.seed, "one thread, op " + std::to_string(ops) + ": steal on a queue holding " +
                                                 std::to_string(size) + " items did not succeed");
            --size;
          }
          const std::size_t live = q.live_blocks();
          if (live > bound(size))
            return verdict::fail(cfg.seed, "one thread, block size " + std::to_string(bs) + ", after op " +
                                               std::to_string(ops) + " (" + std::to_string(pushed) + " pushed, " +
                                               std::to_string(size) + " present): live_blocks() = " +
                                               std::to_string(live) + ", bound ceil(size/block)+1 = " +
                                               std::to_string(bound(size)) + " — drained blocks are kept");
        }
      }
      if (q.live_blocks() > 1)
        return verdict::fail(cfg.seed, "one thread: after " + std::to_string(total) + " items passed and the drain, " +
                                           "live_blocks() = " + std::to_string(q.live_blocks()) + " (want <= 1)");
    }
    // (2) concurrent producers and consumers, then the drain.
    for (int rep = 0; rep < cfg.scaled(3); ++rep) {
      A q;
      const int per_producer = 5000;
      const std::uint64_t all = 2 * per_producer;
      atomic<std::uint64_t> received{0};
      std::vector<std::function<void()>> bodies;
      for (int i = 0; i < 2; ++i)
        bodies.emplace_back([&, i] {
          for (int k = 1; k <= per_producer; ++k) q.push((static_cast<value_t>(i + 1) << 32) | static_cast<value_t>(k));
        });
      for (int c = 0; c < 2; ++c)
        bodies.emplace_back([&] {
          const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          for (std::uint64_t n = 0; received.load(PILFER_SITE("conformance.received", relaxed)) < all; ++n) {
            if (q.steal().status == outcome::success)
              received.fetch_add(1, PILFER_SITE("conformance.received", relaxed));
            else if ((n & 1023) == 0 && std::chrono::steady_clock::now() > end)
              return;
          }
        });
      run_threads(std::move(bodies));
      std::uint64_t got = received.load(PILFER_SITE("conformance.received", relaxed));
      while (steal_one(q).status == outcome::success) ++got;
      if (got != all)
        return verdict::fail(cfg.seed, "2 producers x 2 consumers: " + std::to_string(got) + " of " +
                                           std::to_string(all) + " items received (INJ-2's business, but no drain)");
      if (q.live_blocks() > 1)
        return verdict::fail(cfg.seed, "2 producers x 2 consumers, block size " + std::to_string(bs) + ": after " +
                                           std::to_string(all) + " items passed and the drain, live_blocks() = " +
                                           std::to_string(q.live_blocks()) + " (want <= 1)");
    }
    return verdict::pass("block size " + std::to_string(bs) + ": " + std::to_string(total) +
                         " items in random bursts within ceil(size/block)+1 blocks after every op; <= 1 block after "
                         "drains (1 thread, and 2 producers x 2 consumers)");
  }
}

}  // namespace pilfer::conformance
