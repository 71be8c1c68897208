// models/clients/ms_queue.cpp — GenMC's Michael–Scott queue client (index-based nodes, tagged words).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/ms-queue (main.c, my_queue.c,
// my_queue.h, variants/main0.c) at the commit in expected.tsv. GenMC's run: -unroll=3
// -DCONFIG_QUEUE_WRITERS=0 -DCONFIG_QUEUE_READERS=0 -DCONFIG_QUEUE_RDWR=2: two threads, each enqueues
// its id * 10 and then dequeues once. ms_queue_3 is the same program with CONFIG_QUEUE_RDWR=3 (the
// "MS queue with 3 threads" run of issue 9: far too slow for CI, a command in models/README.md).
//
// Shape: head and tail are 64-bit words (count << 32 | node index); node 1 is the dummy. enqueue
// loops { tail acquire; tail's next acquire; tail re-read relaxed; if next is null CAS next
// release/relaxed, else help: CAS tail release/relaxed } then swings tail (CAS release/relaxed).
// dequeue loops { head, tail, head's next acquire; head re-read relaxed (a failed re-read blocks,
// as GenMC since v0.8 explores it; ms_queue_loops retries instead); empty -> false; lagging tail ->
// help; else read the value and CAS head release/relaxed, assume(success) as GenMC's program says }. Both loops run at most 3 times (-unroll=3, loop_bound). GenMC's asserts: the next
// word read is never the poison index of a fresh node; free lists never under/overflow. Values are
// checker cells (a race on them would be reported).
#include "client.hpp"

#include <cstdint>
#include <utility>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr unsigned max_threads = 3, free_per_thread = 4, initial_free = 2, unroll = 3;
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
  // true: a dequeue iteration whose head re-read fails (it has only read) blocks the execution, as
  // GenMC since v0.8 treats it (a spin-assume of that loads-only path); false: it retries, as in
  // GenMC <= v0.7. Which paths GenMC turns into assumes was read off the counts: with this one path
  // blocked both tools explore 50 executions, 114 with none; blocking also the enqueue's re-read path
  // gives 38, also its failed help CAS 26 (models/README.md, "GenMC's clients").
  bool block_dequeue_recheck;

  ms_queue(unsigned threads, bool block_recheck) : scenario(threads), block_dequeue_recheck(block_recheck) {
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned j = 0; j < initial_free; ++j) {
        free_list.row[t][j] = 2 + t * free_per_thread + j;
        nodes[free_list.row[t][j]].next.store(make_pointer(poison, 0), PILFER_SITE("msq.init.poison", relaxed));
      }
  }

  void enqueue(unsigned t, unsigned v) {
    const unsigned n = free_list.take(t);
    nodes[n].value.write() = v;
    const std::uint64_t fresh = nodes[n].next.load(PILFER_SITE("msq.enq.fresh", relaxed));
    nodes[n].next.store(fresh & ~std::uint64_t{0xffffffffu}, PILFER_SITE("msq.enq.null", relaxed));
    std::uint64_t last = 0;
    loop_bound bound(unroll);
    for (bool linked = false; !linked;) {
      bound.enter();
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
  }

  bool dequeue(unsigned t, unsigned* out) {
    std::uint64_t first = 0;
    loop_bound bound(unroll);
    for (bool taken = false; !taken;) {
      bound.enter();
      first = head.load(PILFER_SITE("msq.deq.head", acquire));
      std::uint64_t last = tail.load(PILFER_SITE("msq.deq.tail", acquire));
      const std::uint64_t next = nodes[index_of(first)].next.load(PILFER_SITE("msq.deq.next", acquire));
      if (head.load(PILFER_SITE("msq.deq.recheck", relaxed)) != first) {
        assume(!block_dequeue_recheck);
        continue;
      }
      if (index_of(first) == index_of(last)) {
        PILFER_MODEL_ASSERT(index_of(next) != poison);
        if (index_of(next) == 0) return false;
        (void)tail.compare_exchange_strong(last, make_pointer(index_of(next), count_of(last) + 1),
                                           PILFER_SITE("msq.deq.help", release), PILFER_SITE("msq.deq.help_fail", relaxed));
      } else {
        *out = nodes[index_of(next)].value.read();
        taken = head.compare_exchange_strong(first, make_pointer(index_of(next), count_of(first) + 1),
                                             PILFER_SITE("msq.deq.cas", release), PILFER_SITE("msq.deq.cas_fail", relaxed));
        assume(taken);
      }
    }
    free_list.give_back(t, index_of(first));
    return true;
  }

  void thread(unsigned index) override {
    unsigned got = 0;
    enqueue(index, index * 10);
    (void)dequeue(index, &got);
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
          .parameters = "-unroll=3; RDWR=3: 3 threads, each enqueue then dequeue",
          .make = [] { return std::make_unique<ms_queue>(3, true); }};
}

}  // namespace pilfer::model::clients
