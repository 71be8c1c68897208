// models/clients/ms_queue.cpp — GenMC's Michael–Scott queue client (index-based nodes, tagged words).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/ms-queue (main.c, my_queue.c,
// my_queue.h, variants/main0.c) at the commit in expected.tsv. GenMC's run: -unroll=3
// -DCONFIG_QUEUE_WRITERS=0 -DCONFIG_QUEUE_READERS=0 -DCONFIG_QUEUE_RDWR=2: two threads, each enqueues
// its id * 10 and then dequeues once. ms_queue_3 is the same program with CONFIG_QUEUE_RDWR=3. GenMC
// cannot run that one at -unroll=3 as it stands: main's own loops over the 3 threads (init_queue's,
// the thread creation) are bounded too and end main before any thread exists (1 execution). The
// GenMC run ms_queue_3 matches is `-unroll=3 -no-unroll=main` (models/README.md, "GenMC's clients").
//
// Shape: head and tail are 64-bit words (count << 32 | node index); node 1 is the dummy. enqueue
// loops { tail acquire; tail's next acquire; tail re-read relaxed; if next is null CAS next
// release/relaxed, else help: CAS tail release/relaxed } then swings tail (CAS release/relaxed).
// dequeue loops { head, tail, head's next acquire; head re-read relaxed; empty -> false; lagging
// tail -> help (CAS tail); else read the value and CAS head release/relaxed, assume(success) as
// GenMC's program says }. GenMC's asserts: the next word read is never the poison index of a fresh
// node; free lists never under/overflow. Values are checker cells (a race on them would be reported).
//
// The loops as GenMC v0.11 explores them (its transformed program, -transform-output, read for this):
//   - -unroll=N bounds each loop's header, and at the bound the thread just ENDS (GenMC clears its
//     stack): no block, the execution can be complete (loop_bound::enter_or_end);
//   - the enqueue's header is `while (!success)` itself, so the iteration that links the node enters
//     it once more to leave: N entries allow N-1 linking iterations;
//   - the dequeue loop is turned into one whose header is the body (its entry test is known true):
//     N iterations; and it is a spin loop checked at run time: an iteration that wrote nothing (its
//     head re-read failed, or its help CAS failed) blocks the thread at the next iteration's start.
//     ms_queue_loops (GenMC <= v0.7) retries instead.
// Until 2026-11-27 the port blocked at the bound, bounded iterations rather than header entries and
// blocked after a failed re-read only: the same 50 executions at 2 threads, 57 390 instead of
// GenMC's 21 726 at 3.
#include "client.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr unsigned max_threads = 3, free_per_thread = 4, initial_free = 2;
constexpr std::uint64_t poison = 0x666;
constexpr unsigned nodes_n = 2 + max_threads * free_per_thread;

constexpr std::uint64_t make_pointer(std::uint64_t index, std::uint64_t count) { return (count << 32) | index; }
constexpr unsigned index_of(std::uint64_t p) { return static_cast<unsigned>(p & 0xffffffffu); }
constexpr unsigned count_of(std::uint64_t p) { return static_cast<unsigned>(p >> 32); }

struct node {
  S::cell<unsigned> value{0u};
  S::atomic<std::uint64_t> next{0};
};

struct ms_queue : scenario {
  S::atomic<std::uint64_t> head{make_pointer(1, 0)}, tail{make_pointer(1, 0)};
  node nodes[nodes_n];
  free_lists<max_threads, free_per_thread> free_list;
  // true: a dequeue iteration that wrote nothing (head re-read failed, help CAS failed) blocks the
  // thread at the next iteration, as GenMC since v0.8 explores it (its run-time spin-loop check);
  // false: it retries, as in GenMC <= v0.7 (50 vs 114 executions at 2 threads).
  bool block_dequeue_recheck;
  unsigned unroll = 3;  // -unroll=N (both loops; main's are not modelled: see the top)
  unsigned rounds = 1;  // enqueue+dequeue pairs per thread (GenMC's program: 1)

  ms_queue(unsigned threads, bool block_recheck, unsigned unroll_n = 3, unsigned rounds_n = 1)
      : scenario(threads), block_dequeue_recheck(block_recheck), unroll(unroll_n), rounds(rounds_n) {
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned j = 0; j < initial_free; ++j) {
        free_list.row[t][j] = 2 + t * free_per_thread + j;
        nodes[free_list.row[t][j]].next.store(make_pointer(poison, 0), PILFER_SITE("msq.init.poison", relaxed));
      }
  }

  /// false: the thread ended at the loop bound (GenMC -unroll, loop_bound::enter_or_end)
  bool enqueue(unsigned t, unsigned v) {
    const unsigned n = free_list.take(t);
    nodes[n].value.write() = v;
    const std::uint64_t fresh = nodes[n].next.load(PILFER_SITE("msq.enq.fresh", relaxed));
    nodes[n].next.store(fresh & ~std::uint64_t{0xffffffffu}, PILFER_SITE("msq.enq.null", relaxed));
    std::uint64_t last = 0;
    loop_bound bound(unroll);
    for (bool linked = false;;) {
      // GenMC's unroll bound sits in the loop header, `while (!success)`, which the successful
      // iteration enters once more to leave: that entry is bounded too
      if (!bound.enter_or_end()) return false;
      if (linked) break;
      last = tail.load(PILFER_SITE("msq.enq.tail", acquire));
      std::uint64_t next = nodes[index_of(last)].next.load(PILFER_SITE("msq.enq.next", acquire));
      if (last != tail.load(PILFER_SITE("msq.enq.recheck", relaxed))) continue;
      PILFER_MODEL_ASSERT(index_of(next) != poison);
      if (index_of(next) == 0)
        linked = nodes[index_of(last)].next.compare_exchange_strong(
            next, make_pointer(n, count_of(next) + 1), PILFER_SITE("msq.enq.link", release),
            PILFER_SITE("msq.enq.link_fail", relaxed));
      if (!linked) {
        const unsigned ahead =
            index_of(nodes[index_of(last)].next.load(PILFER_SITE("msq.enq.help_next", acquire)));
        (void)tail.compare_exchange_strong(last, make_pointer(ahead, count_of(last) + 1),
                                           PILFER_SITE("msq.enq.help", release), PILFER_SITE("msq.enq.help_fail", relaxed));
      }
    }
    (void)tail.compare_exchange_strong(last, make_pointer(n, count_of(last) + 1), PILFER_SITE("msq.enq.swing", release),
                                       PILFER_SITE("msq.enq.swing_fail", relaxed));
    return true;
  }

  enum class dq { empty, taken, ended };  // ended: the thread ended at the loop bound
  dq dequeue(unsigned t, unsigned* out) {
    std::uint64_t first = 0;
    loop_bound bound(unroll);
    bool wrote = true;  // the previous iteration wrote (true before the first: there is none)
    for (bool taken = false; !taken;) {
      if (!bound.enter_or_end()) return dq::ended;
      // GenMC's spin-loop check at the start of each iteration: one after an iteration that wrote
      // nothing (its head re-read failed, or its help CAS failed) blocks
      assume(wrote || !block_dequeue_recheck);
      wrote = false;
      first = head.load(PILFER_SITE("msq.deq.head", acquire));
      std::uint64_t last = tail.load(PILFER_SITE("msq.deq.tail", acquire));
      const std::uint64_t next = nodes[index_of(first)].next.load(PILFER_SITE("msq.deq.next", acquire));
      if (head.load(PILFER_SITE("msq.deq.recheck", relaxed)) != first) continue;
      if (index_of(first) == index_of(last)) {
        PILFER_MODEL_ASSERT(index_of(next) != poison);
        if (index_of(next) == 0) return dq::empty;
        wrote = tail.compare_exchange_strong(last, make_pointer(index_of(next), count_of(last) + 1),
                                             PILFER_SITE("msq.deq.help", release), PILFER_SITE("msq.deq.help_fail", relaxed));
      } else {
        *out = nodes[index_of(next)].value.read();
        taken = head.compare_exchange_strong(first, make_pointer(index_of(next), count_of(first) + 1),
                                             PILFER_SITE("msq.deq.cas", release), PILFER_SITE("msq.deq.cas_fail", relaxed));
        assume(taken);
      }
    }
    free_list.give_back(t, index_of(first));
    return dq::taken;
  }

  void thread(unsigned index) override {
    for (unsigned k = 0; k < rounds; ++k) {
      unsigned got = 0;
      if (!enqueue(index, index * 10 + k)) return;
      if (dequeue(index, &got) == dq::ended) return;
    }
  }
};

}  // namespace

client ms_queue_client() {
  return {.name = "ms_queue",
          .genmc_path = "tests/correct/data-structures/ms-queue",
          .parameters = "-unroll=3; RDWR=2: 2 threads, each enqueue then dequeue",
          .make = [] { return std::make_unique<ms_queue>(2, true); }};
}

client ms_queue_loops_client() {
  return {.name = "ms_queue_loops",
          .genmc_path = "tests/correct/data-structures/ms-queue",
          .parameters = "-unroll=3; RDWR=2; every failed re-read retries (GenMC <= v0.7)",
          .make = [] { return std::make_unique<ms_queue>(2, false); }};
}

client ms_queue_3_client() {
  return {.name = "ms_queue_3",
          .genmc_path = "tests/correct/data-structures/ms-queue",
          .parameters = "-unroll=3 (GenMC: also -no-unroll=main); RDWR=3: 3 threads, each enqueue then dequeue",
          .make = [] { return std::make_unique<ms_queue>(3, true); }};
}

}  // namespace pilfer::model::clients

namespace pilfer::model::clients {

// Smaller and larger relatives of ms_queue_3 (not GenMC runs): T threads, every loop bounded by U
// (-unroll=U), R enqueue+dequeue rounds per thread; for comparing the two exploration modes where
// the DFS finishes (models/README.md, "GenMC's clients"). ms_queue_t3_u3_r1 is ms_queue_3.
std::vector<client> ms_queue_variant_clients() {
  std::vector<client> out;
  for (unsigned t = 2; t <= 3; ++t)
    for (unsigned u = 1; u <= 4; ++u)
      for (unsigned r = 1; r <= 2; ++r)
        out.push_back(client{.name = "ms_queue_t" + std::to_string(t) + "_u" + std::to_string(u) + "_r" + std::to_string(r),
                             .genmc_path = "tests/correct/data-structures/ms-queue",
                             .parameters = "variant: " + std::to_string(t) + " threads, -unroll=" + std::to_string(u) +
                                           ", " + std::to_string(r) + " enqueue+dequeue rounds each",
                             .make = [t, u, r] { return std::make_unique<ms_queue>(t, true, u, r); }});
  // ms_queue_3 without GenMC's spin-loop check (GenMC's -disable-spin-assume), as ms_queue_loops is ms_queue:
  // GenMC v0.11 -disable-spin-assume, RDWR=3: 301 422 complete at -unroll=3 -no-unroll=main, 983 694 at
  // -unroll=4 (the figure once quoted for ms_queue_3); the revisit mode reaches both exactly
  out.push_back(client{.name = "ms_queue_3_loops",
                       .genmc_path = "tests/correct/data-structures/ms-queue",
                       .parameters = "-unroll=3 (GenMC: also -no-unroll=main); RDWR=3; failed dequeue iterations retry",
                       .make = [] { return std::make_unique<ms_queue>(3, false); }});
  out.push_back(client{.name = "ms_queue_t3_u4_r1_loops",
                       .genmc_path = "tests/correct/data-structures/ms-queue",
                       .parameters = "variant: ms_queue_3_loops with -unroll=4",
                       .make = [] { return std::make_unique<ms_queue>(3, false, 4, 1); }});
  return out;
}

}  // namespace pilfer::model::clients
