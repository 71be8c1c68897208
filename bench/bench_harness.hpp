// bench/bench_harness.hpp — a persistent team of helper threads for multi-threaded benchmark bodies.
//
// Creating threads inside the timed loop would add the same tens of microseconds to every peer and flatten the
// ratios, so helpers are started once per benchmark and woken per iteration. Wake-up and completion use
// C++20 atomic wait/notify (futex), not spinning: the machine this runs on has 2 cores, often shared.
#pragma once

#include <pilfer/sync.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace pilfer::bench {

class team {
 public:
  explicit team(unsigned n) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  ~team() {
    stop_ = true;
    generation_.fetch_add(1, PILFER_SITE("bench.team", release));
    generation_.notify_all();
    for (auto& t : threads_) t.join();
  }
  team(const team&) = delete;
  team& operator=(const team&) = delete;

  unsigned size() const noexcept { return static_cast<unsigned>(threads_.size()); }

  /// Starts f(i) on every helper i; returns at once. Pair with wait().
  void start(std::function<void(unsigned)> f) {
    job_ = std::move(f);
    pending_.store(size(), PILFER_SITE("bench.team", relaxed));
    // release: publishes job_ and pending_ to helpers, which acquire the generation.
    generation_.fetch_add(1, PILFER_SITE("bench.team", release));
    generation_.notify_all();
  }
  /// Blocks until every helper finished the job started last.
  void wait() {
    for (;;) {
      const auto p = pending_.load(PILFER_SITE("bench.team", acquire));
      if (p == 0) return;
      pending_.wait(p, PILFER_SITE("bench.team", acquire));
    }
  }
  void run(std::function<void(unsigned)> f) {
    start(std::move(f));
    wait();
  }

 private:
  void loop(unsigned i) {
    std::uint32_t seen = 0;
    for (;;) {
      generation_.wait(seen, PILFER_SITE("bench.team", acquire));
      seen = generation_.load(PILFER_SITE("bench.team", acquire));
      if (stop_) return;
      job_(i);
      if (pending_.fetch_sub(1, PILFER_SITE("bench.team", acq_rel)) == 1) pending_.notify_all();
    }
  }

  std_sync::atomic<std::uint32_t> generation_{0};
  std_sync::atomic<std::uint32_t> pending_{0};
  std::function<void(unsigned)> job_;
  bool stop_ = false;  // written before the release increment of generation_, read after its acquire
  std::vector<std_sync::thread> threads_;
};

}  // namespace pilfer::bench
