// Allocation failure in submit/spawn propagates std::bad_alloc and loses
// nothing: every accepted task runs exactly once, pending returns to zero.
// Global operator new is replaced with one that can be told to fail the k-th
// allocation of the calling thread (pilfer/testing/failing_new.hpp). Not under sanitizers (they own new).
#include <gtest/gtest.h>

#include <new>

#include "pilfer/pool.hpp"
#include "pilfer/testing/failing_new.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;

namespace {

#if defined(PILFER_TESTING_FAILING_NEW)  // sanitizers own operator new: this test exists only without them
// @verifies POOL-12 POOL-9
TEST(PoolAlloc, BadAllocInSubmitLosesNothing) {
  pilfer::pool p({.threads = 2});
  counter ran{0};
  std::uint64_t accepted = 0, refused = 0;
  std::vector<pilfer::task_handle<int>> hs;
  hs.reserve(3000);
  // External: k = 0 fails the task allocation, k = 1 fails the injector's
  // block allocation when this push needs a new block (every 63rd); every
  // third submit is not armed, so the queues move on.
  for (int i = 0; i < 3000; ++i) {
    pilfer::testing::fail_allocation_in = i % 3 == 2 ? -1 : i % 3;
    try {
      auto h = p.submit([&, i] {
        add(ran);
        return i;
      });
      pilfer::testing::fail_allocation_in = -1;
      hs.push_back(std::move(h));
      ++accepted;
    } catch (const std::bad_alloc&) {
      pilfer::testing::fail_allocation_in = -1;
      ++refused;
    }
  }
  // Local: from a task; k = 1 fails the deque's growth when it happens.
  auto inner = p.submit([&] {
    std::uint64_t ok = 0;
    for (int i = 0; i < 3000; ++i) {
      pilfer::testing::fail_allocation_in = i % 3 == 2 ? -1 : i % 3;
      try {
        p.spawn([&] { add(ran); });
        pilfer::testing::fail_allocation_in = -1;
        ++ok;
      } catch (const std::bad_alloc&) {
        pilfer::testing::fail_allocation_in = -1;
      }
    }
    return ok;
  });
  const std::uint64_t local_ok = inner.get();
  p.wait_idle();
  std::uint64_t sum = 0;
  for (auto& h : hs) sum += static_cast<std::uint64_t>(h.get());
  EXPECT_GE(refused, 1000u);
  EXPECT_GE(accepted, 1000u);
  EXPECT_GE(local_ok, 1000u);
  EXPECT_EQ(load(ran), accepted + local_ok);
  const auto s = p.stats();
  EXPECT_EQ(s.pending, 0u);
  EXPECT_EQ(s.total.tasks_run, accepted + local_ok + 1);
  EXPECT_EQ(s.submitted, accepted + local_ok + 1) << "refused tasks are not counted as submitted";
  std::printf("[figure] bad_alloc: %llu external submits refused, %llu accepted, %llu local accepted\n",
              static_cast<unsigned long long>(refused), static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(local_ok));
  (void)sum;
}
#endif

}  // namespace
