// stress/stress_injector.cpp — producers and consumers hammer the block-linked injector, with a small and a
// large BlockSize.
//
// Each round: P producers push their own increasing sequence (value = producer << 40 | seq) while C consumers
// take with steal() or steal_batch_and_pop() into a consumer-owned deque. Invariants, checked every round:
//   * exactly once: every pushed value is taken by exactly one consumer (INJ-2);
//   * publication: each producer writes a plain (non-atomic) stamp before pushing; consumers read and check it
//     (under TSan a missing happens-before edge is reported as a race);
//   * per-producer FIFO: along each consumer's take order, one producer's sequence numbers increase; a batch
//     returns its oldest item and leaves the rest in FIFO order in the destination (INJ-1);
//   * progress: consumers only ever see success/empty/retry, and retry never carries a value (INJ-3);
//   * bounded memory: once drained, empty() holds and live_blocks() is at most 1 (INJ-4).
// Usage: stress_injector [--block small|large] [--seconds N] [--iterations ROUNDS] [--seed N]
#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "stress_common.hpp"

namespace {

using pilfer::std_sync;
using namespace pilfer::stress;

constexpr unsigned producers = 2;
constexpr unsigned consumers = 2;
constexpr std::uint64_t seq_bits = 40;

struct consumer_log {
  std::vector<std::uint64_t> got;  // in take order (batches already put in FIFO order)
  std::uint64_t batches = 0, retries = 0;
};

struct totals {
  std::uint64_t rounds = 0, items = 0, batches = 0, retries = 0;
  std::size_t max_live_blocks = 0;
};

template <class Injector>
void consume(Injector& inj, std_sync::atomic<std::uint64_t>& taken, std::uint64_t total, consumer_log& log,
             const std::vector<std::vector<std::uint64_t>>& stamps, failures& fail, std::uint64_t seed,
             unsigned index) {
  auto check = [&](std::uint64_t v) {
    const auto p = v >> seq_bits, s = v & ((std::uint64_t{1} << seq_bits) - 1);
    if (p < stamps.size() && s < stamps[p].size() && stamps[p][s] != (v ^ 0x5A5A5A5Au))
      fail.fail("INJ-2: taken item's data not published", v, stamps[p][s]);
  };
  rng r(seed, 200 + index);
  pilfer::basic_deque<std::uint64_t, chaos_sync> dest(1);
  std::vector<std::uint64_t> rest;
  while (taken.load(PILFER_SITE("stress.taken", acquire)) < total) {
    if (r.below(3) == 0) {
      auto res = inj.steal_batch_and_pop(dest, 1 + r.below(16));
      if (res.is_success()) {
        ++log.batches;
        check(res.value);
        log.got.push_back(res.value);
        rest.clear();
        while (auto v = dest.pop()) {  // newest first
          check(*v);
          rest.push_back(*v);
        }
        log.got.insert(log.got.end(), rest.rbegin(), rest.rend());
        taken.fetch_add(1 + rest.size(), PILFER_SITE("stress.taken", acq_rel));
        continue;
      }
      if (res.is_retry()) ++log.retries;
    } else {
      auto res = inj.steal();
      if (res.is_success()) {
        check(res.value);
        log.got.push_back(res.value);
        taken.fetch_add(1, PILFER_SITE("stress.taken", acq_rel));
        continue;
      }
      if (res.is_retry()) ++log.retries;
    }
    std_sync::spin_hint();
  }
}

template <class Injector>
void round(const options& o, std::uint64_t round_no, std::uint64_t per_producer, totals& t, failures& fail) {
  Injector inj;
  const std::uint64_t seed = round_seed(o.seed, round_no);
  const std::uint64_t total = per_producer * producers;
  std_sync::atomic<std::uint64_t> taken{0};
  std::vector<consumer_log> logs(consumers);
  std::vector<std::vector<std::uint64_t>> stamps(producers, std::vector<std::uint64_t>(per_producer, 0));
  std::vector<std_sync::thread> ts;
  for (unsigned c = 0; c < consumers; ++c)
    ts.emplace_back([&, c] { consume(inj, taken, total, logs[c], stamps, fail, seed, c); });
  for (unsigned p = 0; p < producers; ++p) {
    ts.emplace_back([&, p] {
      rng r(seed, p);
      for (std::uint64_t s = 0; s < per_producer; ++s) {
        const std::uint64_t v = (std::uint64_t{p} << seq_bits) | s;
        stamps[p][s] = v ^ 0x5A5A5A5Au;
        inj.push(v);
        if (r.below(64) == 0) std_sync::yield();  // vary the producer/consumer phase
      }
    });
  }
  for (auto& th : ts) th.join();

  // Drained: nothing left, and the blocks went with the items.
  if (!inj.empty()) fail.fail("INJ-2: injector not empty after every item was taken", inj.size());
  auto extra = inj.steal();
  if (extra.is_success()) fail.fail("INJ-2: item beyond the pushed ones", extra.value);
  const auto live = inj.live_blocks();
  if (live > 1) fail.fail("INJ-4: live blocks after drain", live);
  t.max_live_blocks = std::max(t.max_live_blocks, live);

  std::vector<std::vector<std::uint8_t>> seen(producers, std::vector<std::uint8_t>(per_producer, 0));
  std::uint64_t count = 0;
  for (auto& l : logs) {
    std::vector<std::int64_t> last(producers, -1);
    for (auto v : l.got) {
      const auto p = v >> seq_bits;
      const auto s = v & ((std::uint64_t{1} << seq_bits) - 1);
      if (p >= producers || s >= per_producer) {
        fail.fail("INJ-2: value never pushed", v);
        continue;
      }
      if (static_cast<std::int64_t>(s) <= last[p]) fail.fail("INJ-1: per-producer order broken", s, last[p]);
      last[p] = static_cast<std::int64_t>(s);
      if (++seen[p][s] == 2) fail.fail("INJ-2: duplicate", v);
      ++count;
    }
    t.batches += l.batches;
    t.retries += l.retries;
  }
  for (unsigned p = 0; p < producers; ++p)
    for (std::uint64_t s = 0; s < per_producer; ++s)
      if (seen[p][s] == 0) fail.fail("INJ-2: lost item", p, s);
  if (count != total) fail.fail("INJ-2: count mismatch", count, total);
  t.rounds += 1;
  progress(total);
  t.items += total;
}

template <class Injector>
int run(const options& o, const char* name) {
  chaos_control::configure(o.chaos, o.seed);
  watchdog wd(name, o.watchdog, o.seed);  // a round that never ends (a consumer spinning for a lost item) fails here
  failures fail;
  totals t;
  deadline d(o.seconds);
  rng sizes(o.seed, 9);
  for (std::uint64_t n = 0; !fail.any(); ++n) {
    if (o.iterations != 0 && n >= o.iterations) break;
    if (o.iterations == 0 && d.passed()) break;
    const auto pick = sizes.below(10);
    const std::uint64_t per = pick == 0 ? 1 + sizes.below(8) : pick < 8 ? 500 + sizes.below(3000) : 20000;
    round<Injector>(o, n, per, t, fail);
  }
  std::printf("%s: rounds=%llu items=%llu batches=%llu retries=%llu max_live_blocks_after_drain=%zu elapsed=%.1fs\n",
              name, static_cast<unsigned long long>(t.rounds), static_cast<unsigned long long>(t.items),
              static_cast<unsigned long long>(t.batches), static_cast<unsigned long long>(t.retries),
              t.max_live_blocks, d.elapsed());
  if (t.rounds == 0) fail.fail("no round ran");
  return verdict(name, fail, o.seed);
}

}  // namespace

// @verifies INJ-1 INJ-2 INJ-3 INJ-4
int main(int argc, char** argv) {
  const char* program = "stress_injector";
  std::string block = "small";
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!take_option(argc, argv, i, "--block", block, program)) rest.push_back(argv[i]);
  }
  if (!one_of(block, "small|large")) {
    std::fprintf(stderr, "%s: unknown --block '%s' (small|large)\n", program, block.c_str());
    return 2;
  }
  const auto o = parse(static_cast<int>(rest.size()), rest.data(), program, 5.0, "[--block small|large] ");
  // small: 2 slots per block, so nearly every operation crosses a block boundary and frees a block.
  if (block == "small") return run<pilfer::basic_injector<std::uint64_t, chaos_sync, 2>>(o, "stress_injector[block=2]");
  return run<pilfer::basic_injector<std::uint64_t, chaos_sync, 1023>>(o, "stress_injector[block=1023]");
}
