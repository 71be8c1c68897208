// pilfer/testing/failing_new.hpp — a global operator new that can be told to fail the k-th allocation of the
// calling thread, for "std::bad_alloc leaves everything intact" tests, and that counts every allocation of every
// thread, for "this allocates nothing per task" tests. Include it in exactly ONE translation
// unit of a test executable (it defines the replacement operators). It also counts the blocks given back, so a
// test can ask how many are still in use. Under ASan or TSan, which own operator new,
// it defines nothing and PILFER_TESTING_FAILING_NEW is not set: guard the tests that need it with
// #if defined(PILFER_TESTING_FAILING_NEW).
#pragma once

#include <pilfer/sync.hpp>

#include <cstdlib>
#include <new>

#include "pilfer/testing/sanitizers.hpp"

#if !defined(PILFER_TESTING_TSAN) && !defined(PILFER_TESTING_ASAN)
#define PILFER_TESTING_FAILING_NEW 1

namespace pilfer::testing {
/// -1: never fail; k >= 0: the k-th allocation from now on this thread (0 = the next) throws std::bad_alloc.
inline thread_local int fail_allocation_in = -1;

/// Every allocation through this operator new so far, all threads (successful or failed).
inline pilfer::std_sync::atomic<long> allocation_count{0};
/// allocation_count now (relaxed: read after the counted work has been joined, which orders it).
inline long allocations_so_far() noexcept { return allocation_count.load(PILFER_SITE("testing.alloc", relaxed)); }
/// The allocations above that threw (by request or out of memory), and every non-null pointer given back
/// through this operator delete so far, all threads.
inline pilfer::std_sync::atomic<long> failed_allocation_count{0};
inline pilfer::std_sync::atomic<long> release_count{0};
/// Blocks from this operator new not yet given back (relaxed, as allocations_so_far()).
inline long blocks_in_use() noexcept {
  return allocation_count.load(PILFER_SITE("testing.alloc", relaxed)) -
         failed_allocation_count.load(PILFER_SITE("testing.alloc", relaxed)) -
         release_count.load(PILFER_SITE("testing.free", relaxed));
}
}  // namespace pilfer::testing

#if defined(__GNUC__) && !defined(__clang__)
// This operator new is malloc and this operator delete is free; once inlined, GCC pairs a `new` expression
// with free() and warns (-Wmismatched-new-delete) although the pair is consistent.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  // relaxed: a pure tally; readers are ordered by joining the threads whose allocations they count.
  pilfer::testing::allocation_count.fetch_add(1, PILFER_SITE("testing.alloc", relaxed));
  if (pilfer::testing::fail_allocation_in < 0 || pilfer::testing::fail_allocation_in-- != 0) {
    if (void* p = std::malloc(n ? n : 1)) return p;
  }
  pilfer::testing::failed_allocation_count.fetch_add(1, PILFER_SITE("testing.alloc", relaxed));
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  // relaxed: a pure tally, as in operator new.
  if (p != nullptr) pilfer::testing::release_count.fetch_add(1, PILFER_SITE("testing.free", relaxed));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { ::operator delete(p); }
#endif
