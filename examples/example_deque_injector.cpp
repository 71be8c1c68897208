// example_deque_injector: the two queues pilfer's pool is built from, used across threads by hand.
//
// One owner thread pushes work items into its Chase–Lev deque and pops them LIFO; two thieves steal from
// the FIFO end; two outside producers feed an injector that everyone drains. At the end every item must
// have been taken exactly once — the program checks that and prints who did what.
#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/sync.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
using sync = pilfer::std_sync;
constexpr std::uintptr_t kOwnerItems = 200'000;
constexpr std::uintptr_t kProducerItems = 100'000;
constexpr int kProducers = 2;
constexpr int kThieves = 2;
constexpr std::uintptr_t kTotal = kOwnerItems + kProducers * kProducerItems;
constexpr auto relaxed = PILFER_SITE("example.count", relaxed);
}  // namespace

int main() {
  pilfer::deque<std::uintptr_t> owner_deque(4);  // tiny on purpose: it grows while thieves steal
  pilfer::injector<std::uintptr_t> inj;
  std::vector<sync::atomic<unsigned char>> seen(kTotal + 1);
  sync::atomic<std::uintptr_t> taken{0};
  sync::atomic<bool> owner_done{false};
  sync::atomic<int> producers_done{0};
  std::uintptr_t by_owner = 0, by_injector_owner = 0;
  std::vector<std::uintptr_t> by_thief(kThieves, 0);
  std::vector<std::uintptr_t> retries(kThieves, 0);

  auto record = [&](std::uintptr_t v) {
    seen[v].fetch_add(1, relaxed);
    taken.fetch_add(1, PILFER_SITE("example.taken", acq_rel));
  };
  auto all_taken = [&] { return taken.load(PILFER_SITE("example.taken", acquire)) == kTotal; };

  std::vector<sync::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (std::uintptr_t i = 1; i <= kProducerItems; ++i) inj.push(kOwnerItems + p * kProducerItems + i);
      producers_done.fetch_add(1, PILFER_SITE("example.done", release));
    });
  }
  auto stealer = owner_deque.get_stealer();
  for (int t = 0; t < kThieves; ++t) {
    threads.emplace_back([&, t] {
      while (!all_taken()) {
        auto r = stealer.steal();
        if (r.is_success()) { record(r.value); ++by_thief[t]; continue; }
        if (r.is_retry()) { ++retries[t]; continue; }
        if (auto i = inj.steal(); i.is_success()) { record(i.value); ++by_thief[t]; continue; }
        sync::yield();
      }
    });
  }
  // The owner: push in bursts, pop some back (LIFO), then help drain the injector.
  for (std::uintptr_t i = 1; i <= kOwnerItems; ++i) {
    owner_deque.push(i);
    if (i % 3 == 0)
      if (auto v = owner_deque.pop()) { record(*v); ++by_owner; }
  }
  while (auto v = owner_deque.pop()) { record(*v); ++by_owner; }
  owner_done.store(true, PILFER_SITE("example.done", release));
  while (!all_taken()) {
    if (auto i = inj.steal(); i.is_success()) { record(i.value); ++by_injector_owner; }
    else sync::yield();
  }
  for (auto& th : threads) th.join();

  std::uintptr_t missing = 0, duplicated = 0;
  for (std::uintptr_t v = 1; v <= kTotal; ++v) {
    const auto n = seen[v].load(relaxed);
    missing += n == 0;
    duplicated += n > 1;
  }
  std::printf("items: %lu (owner deque %lu, injector %lu from %d producers)\n", (unsigned long)kTotal,
              (unsigned long)kOwnerItems, (unsigned long)(kProducers * kProducerItems), kProducers);
  std::printf("owner popped %lu from its deque and %lu from the injector; deque grew to capacity %lu\n",
              (unsigned long)by_owner, (unsigned long)by_injector_owner, (unsigned long)owner_deque.capacity());
  for (int t = 0; t < kThieves; ++t)
    std::printf("thief %d took %lu (steal lost %lu races and retried)\n", t, (unsigned long)by_thief[t],
                (unsigned long)retries[t]);
  std::printf("exactly-once: %s (missing %lu, duplicated %lu); injector blocks live after drain: %lu\n",
              missing == 0 && duplicated == 0 ? "yes" : "NO", (unsigned long)missing, (unsigned long)duplicated,
              (unsigned long)inj.live_blocks());
  return missing == 0 && duplicated == 0 ? 0 : 1;
}
