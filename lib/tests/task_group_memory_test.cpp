// When a task group frees its finished tasks (task_group.hpp, "who frees"): a group's first wait
// leaves its round to a later wait or to the destructor (so the usual run-run-wait group takes no
// lock), every later wait frees what finished (also one that finds the group done at once), and the
// destructor frees whatever is left. Counted through a policy whose make/destroy see every task
// (the task block cache is off for it).
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "pilfer/pool.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;

namespace {

/// std_sync that counts the live task group members it made.
struct member_counting_sync : pilfer::std_sync {
  [[maybe_unused]] static constexpr bool task_block_cache = false;  // read only where the cache is compiled in (not under ASan)
  static inline counter live_members{0};

  template <class T>
  static constexpr bool is_member = std::is_base_of_v<pilfer::detail::group_member<member_counting_sync>, T>;

  template <class T, class... A>
  static T* make(A&&... a) {
    T* p = pilfer::std_sync::make<T>(std::forward<A>(a)...);
    if constexpr (is_member<T>) add(live_members);
    return p;
  }
  template <class T>
  static void destroy(T* p) noexcept {
    if constexpr (is_member<T>) live_members.fetch_sub(1, PILFER_SITE("test.sub", acq_rel));
    pilfer::std_sync::destroy(p);
  }
};

using counting_pool = pilfer::basic_pool<member_counting_sync>;
using counting_group = pilfer::basic_task_group<member_counting_sync>;

std::uint64_t live() { return load(member_counting_sync::live_members); }

}  // namespace

// @verifies POOL-9
TEST(TaskGroupMemory, ReusedGroupFreesFinishedTasksFromItsSecondWaitOn) {
  constexpr int rounds = 40, per_round = 10;
  counting_pool p({.threads = 1});
  counter ran{0};
  std::vector<std::uint64_t> after_wait;
  std::uint64_t before = 0, after_destruction = 0;
  p.submit([&] {
     before = live();
     {
       counting_group g(p);
       for (int r = 0; r < rounds; ++r) {
         for (int i = 0; i < per_round; ++i) g.run([&] { add(ran); });
         g.wait();  // one worker: every task ran here, through its own queue entry
         after_wait.push_back(live() - before);
       }
     }
     after_destruction = live() - before;
   }).get();
  EXPECT_EQ(load(ran), std::uint64_t{rounds} * per_round);
  ASSERT_EQ(after_wait.size(), std::size_t{rounds});
  EXPECT_LE(after_wait[0], std::uint64_t{per_round}) << "the first wait holds at most its own round";
  for (int r = 1; r < rounds; ++r) EXPECT_EQ(after_wait[r], 0u) << "round " << r << ": a later wait frees what finished";
  EXPECT_EQ(after_destruction, 0u);
}

// @verifies POOL-9
TEST(TaskGroupMemory, DestructorFreesEveryTaskOfAGroupWaitedOnceOrNever) {
  counting_pool p({.threads = 2});
  counter ran{0};
  for (int waits = 0; waits < 2; ++waits) {
    {
      counting_group g(p);
      for (int i = 0; i < 100; ++i) g.run([&] { add(ran); });
      if (waits == 1) g.wait();
    }  // destroyed from outside the pool: the destructor waits, then frees
    EXPECT_EQ(live(), 0u) << (waits == 1 ? "waited once" : "never waited");
  }
  EXPECT_EQ(load(ran), 200u);
}

// A long-lived group reused round after round whose waits all find it done (the pool is drained
// before each wait, so every task finished through its own queue entry): finished tasks are
// freed by the next wait, so the group holds at most one round of finished tasks (the first
// round, until the second wait) however many rounds it runs. Before, a wait that found the
// group done freed nothing: +1 block per task, for good.
// @verifies POOL-9
TEST(TaskGroupMemory, ReusedGroupWhoseWaitsFindItDoneStaysBounded) {
  constexpr int rounds = 1000, per_round = 1000;
  counting_pool p({.threads = 2});
  counter ran{0};
  std::vector<std::uint64_t> before_wait, after_wait;
  const std::uint64_t before = live();
  {
    counting_group g(p);
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < per_round; ++i) g.run([&] { add(ran); });
      p.wait_idle();  // every task of the round finished: the wait below finds the group done
      before_wait.push_back(live() - before);
      g.wait();
      after_wait.push_back(live() - before);
    }
  }
  EXPECT_EQ(load(ran), std::uint64_t{rounds} * per_round);
  ASSERT_EQ(after_wait.size(), std::size_t{rounds});
  EXPECT_LE(after_wait[0], std::uint64_t{per_round}) << "the first wait holds at most its own round";
  int failed = 0;
  for (int r = 1; r < rounds && failed < 5; ++r) {
    EXPECT_LE(before_wait[r], 2u * per_round) << "round " << r << ": at most the last round and this one";
    EXPECT_EQ(after_wait[r], 0u) << "round " << r << ": a later wait frees what finished";
    failed += before_wait[r] > 2u * per_round || after_wait[r] != 0;
  }
  EXPECT_EQ(live() - before, 0u) << "the destructor frees the rest";
}

// A task group task of a function pointer (the common "run a free function" form) takes the
// smallest task block (64 bytes): its claim flags share a word with its status. One byte more and
// every such task would take a 128-byte block (1M outside submissions measured at ~1.6x the time,
// from malloc and page faults).
// @verifies POOL-9
TEST(TaskGroupMemory, TaskOfAFunctionPointerTakesTheSmallestBlock) {
  using task = pilfer::detail::group_task<void (*)(), pilfer::std_sync>;
  EXPECT_EQ(pilfer::detail::task_block_cache::class_of(sizeof(task)), 0u) << "sizeof = " << sizeof(task);
}
