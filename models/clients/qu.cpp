// models/clients/qu.cpp — GenMC's "qu" client: a Michael–Scott queue as in Pulte et al. (2019).
//
// Provenance: github.com/MPI-SWS/genmc, tests/correct/data-structures/qu (main.c, qu.c,
// variants/qu0.c) at the commit in expected.tsv; GenMC runs it with -disable-race-detection and the
// default parameters: thread 1 initialises the queue and enqueues once; thread 2, if it sees the
// queue initialised, enqueues once; thread 3, if it sees it initialised, dequeues once.
//
// Shape: pointer atomics. init: the dummy's next, head, tail and the initialised flag, all release
// stores. find_tail: tail acquire, its next relaxed; null -> that node, else move tail on (release
// store) and retry. enqueue: node.next = null (relaxed), find the tail, CAS its next null -> node
// (release; failure release, which clang lowers to relaxed), on success store tail (release); a lost
// CAS gives up. dequeue: head acquire, its next acquire, CAS head relaxed/relaxed, then the node's
// datum. The run disables race detection, so node data are relaxed atomics here. Nodes come from a
// per-thread pool. No assertion in GenMC's program.
#include "client.hpp"

namespace pilfer::model::clients {
namespace {

using S = checker_sync;

struct qnode {
  S::atomic<int> data{0};
  S::atomic<qnode*> next{nullptr};
};

struct qu : scenario {
  qnode dummy;
  S::atomic<qnode*> head{nullptr}, tail{nullptr};
  S::atomic<bool> initialised{false};
  qnode pool[3];  // one node per thread: each enqueues at most once

  qu() : scenario(3) {}

  void init() {
    dummy.next.store(nullptr, PILFER_SITE("qu.init.next", release));
    head.store(&dummy, PILFER_SITE("qu.init.head", release));
    tail.store(&dummy, PILFER_SITE("qu.init.tail", release));
    initialised.store(true, PILFER_SITE("qu.init.flag", release));
  }
  qnode* find_tail() {
    qnode* last = tail.load(PILFER_SITE("qu.find.tail", acquire));
    qnode* next = last->next.load(PILFER_SITE("qu.find.next", relaxed));
    if (next == nullptr) return last;
    tail.store(next, PILFER_SITE("qu.find.advance", release));
    return nullptr;
  }
  bool try_enqueue(qnode* n, int v) {
    n->data.store(v, PILFER_SITE("qu.enq.data", relaxed));
    n->next.store(nullptr, PILFER_SITE("qu.enq.null", relaxed));
    qnode* last = nullptr;
    while ((last = find_tail()) == nullptr) {
    }
    qnode* expected = nullptr;
    if (!last->next.compare_exchange_strong(expected, n, PILFER_SITE("qu.enq.link", release),
                                            PILFER_SITE("qu.enq.link_fail", relaxed)))
      return false;
    tail.store(n, PILFER_SITE("qu.enq.tail", release));
    return true;
  }
  bool try_dequeue(int* out) {
    qnode* first = head.load(PILFER_SITE("qu.deq.head", acquire));
    qnode* n = first->next.load(PILFER_SITE("qu.deq.next", acquire));
    if (n == nullptr) return false;
    if (!head.compare_exchange_strong(first, n, PILFER_SITE("qu.deq.cas", relaxed), PILFER_SITE("qu.deq.cas_fail", relaxed)))
      return false;
    *out = n->data.load(PILFER_SITE("qu.deq.data", relaxed));
    return true;
  }

  void thread(unsigned index) override {
    if (index == 0) {
      init();
    } else if (!initialised.load(PILFER_SITE("qu.ready", acquire))) {
      return;
    }
    if (index < 2) {
      (void)try_enqueue(&pool[index], 1);
    } else {
      int v = 0;
      (void)try_dequeue(&v);
    }
  }
};

}  // namespace

client qu_client() {
  return {.name = "qu",
          .genmc_path = "tests/correct/data-structures/qu",
          .parameters = "3 threads: init + enqueue; enqueue if initialised; dequeue if initialised",
          .make = [] { return std::make_unique<qu>(); }};
}

}  // namespace pilfer::model::clients
