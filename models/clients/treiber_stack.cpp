// models/clients/treiber_stack.cpp — GenMC's Treiber stack client (index-based nodes, tagged top).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/treiber-stack (main.c,
// my_stack.c, my_stack.h, variants/main0.c) at the commit in expected.tsv; default parameters:
// 2 writers and 1 reader (CONFIG_STACK_WRITERS=2, READERS=1, RDWR=0), no loop bound.
//
// Shape: top is a 64-bit word (count << 32 | node index). Writer p stores p + 42 to x[p] (relaxed),
// then pushes p: take a node from its own free list, then loop { top acquire; node.next = top
// (relaxed); CAS top release/relaxed }. The reader pops: loop { top acquire; empty -> 0; next of the
// top node relaxed; CAS top release/relaxed }, reads the node's value (plain memory, ordered by the
// CAS chain) and returns it to its free list; a non-zero result r is used to read x[r] (relaxed).
// Node values are checker cells: a race on them would be reported. No assertion in GenMC's program.
#include "client.hpp"

#include <cstdint>
#include <utility>

namespace pilfer::model::clients {
namespace {

using S = checker_sync;
constexpr unsigned threads_n = 3, free_per_thread = 4, initial_free = 2;
constexpr std::uint64_t poison = 0x666;
constexpr unsigned nodes_n = 1 + threads_n * free_per_thread;

constexpr std::uint64_t make_pointer(std::uint64_t index, std::uint64_t count) { return (count << 32) | index; }
constexpr unsigned index_of(std::uint64_t p) { return static_cast<unsigned>(p & 0xffffffffu); }
constexpr unsigned count_of(std::uint64_t p) { return static_cast<unsigned>(p >> 32); }

struct node {
  S::cell<unsigned> value{0u};
  S::atomic<std::uint64_t> next{poison};
};

struct treiber_stack : scenario {
  S::atomic<std::uint64_t> top{make_pointer(0, 0)};
  node nodes[nodes_n];
  S::atomic<int> x[threads_n];
  free_lists<threads_n, free_per_thread> free_list;

  treiber_stack() : scenario(threads_n) {
    for (unsigned t = 0; t < threads_n; ++t)
      for (unsigned j = 0; j < initial_free; ++j) free_list.row[t][j] = 1 + t * free_per_thread + j;
  }

  void push(unsigned t, unsigned v) {
    const unsigned n = free_list.take(t);
    nodes[n].value.write() = v;
    for (;;) {
      std::uint64_t old_top = top.load(PILFER_SITE("ts.push.top", acquire));
      nodes[n].next.store(old_top, PILFER_SITE("ts.push.link", relaxed));
      if (top.compare_exchange_strong(old_top, make_pointer(n, count_of(old_top) + 1),
                                      PILFER_SITE("ts.push.cas", release), PILFER_SITE("ts.push.cas_fail", relaxed)))
        return;
    }
  }
  unsigned pop(unsigned t) {
    // GenMC's retry loop writes nothing when its CAS fails: its spin-assume pass makes a failed
    // iteration block the execution, so the loop is one iteration and assume(CAS succeeded).
    std::uint64_t old_top = top.load(PILFER_SITE("ts.pop.top", acquire));
    if (index_of(old_top) == 0) return 0;
    const std::uint64_t next = nodes[index_of(old_top)].next.load(PILFER_SITE("ts.pop.next", relaxed));
    assume(top.compare_exchange_strong(old_top, make_pointer(index_of(next), count_of(old_top) + 1),
                                       PILFER_SITE("ts.pop.cas", release), PILFER_SITE("ts.pop.cas_fail", relaxed)));
    const unsigned v = nodes[index_of(old_top)].value.read();
    free_list.give_back(t, index_of(old_top));
    return v;
  }

  void thread(unsigned index) override {
    if (index < 2) {  // writers 0 and 1
      x[index].store(static_cast<int>(index) + 42, PILFER_SITE("ts.x.store", relaxed));
      push(index, index);
    } else {  // the reader
      const unsigned got = pop(index);
      if (got != 0) (void)x[got].load(PILFER_SITE("ts.x.load", relaxed));
    }
  }
};

}  // namespace

client treiber_stack_client() {
  return {.name = "treiber_stack",
          .genmc_path = "tests/correct/data-structures/treiber-stack",
          .parameters = "2 writers (push), 1 reader (pop)",
          .make = [] { return std::make_unique<treiber_stack>(); }};
}

}  // namespace pilfer::model::clients
