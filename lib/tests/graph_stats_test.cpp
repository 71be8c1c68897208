// Unit tests of a graph run's statistics (GRAPH-9): counts when executions of one task overlap
// (graphs with condition tasks), statistics that stay final after later runs, and the critical
// path (longest chain in tasks, of the last pass, timed only when profiled). Run under the tsan
// preset too: overlapping executions must not race on the library's per-task observations.
#include <gtest/gtest.h>
#include <pilfer/graph.hpp>

#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>

namespace {

using counter = pilfer::std_sync::atomic<int>;
int load(const counter& c) { return c.load(PILFER_SITE("test.load", acquire)); }
void bump(counter& c) { c.fetch_add(1, PILFER_SITE("test.bump", acq_rel)); }
void drop(counter& c) { c.fetch_sub(1, PILFER_SITE("test.drop", acq_rel)); }
void set(counter& c, int v) { c.store(v, PILFER_SITE("test.set", release)); }

/// The DOT line of task `index` ("  n<index> [label=...];").
std::string dot_node_line(const std::string& dot, std::size_t index) {
  const std::string key = "  n" + std::to_string(index) + " [";
  const auto at = dot.find(key);
  if (at == std::string::npos) return {};
  return dot.substr(at, dot.find('\n', at) - at);
}

// A GRAPH-6 loop whose body also releases a side task: a side of one iteration may still run when
// the next body releases it again (here always: the first side of a run waits until another has
// started). Every body that ran is counted, once.
// @verifies GRAPH-9 GRAPH-6
TEST(GraphStats, LoopWithASideTaskCountsEveryBody) {
  pilfer::pool p(pilfer::pool_options{.threads = 2});
  pilfer::graph g("loop_side");
  constexpr int loops = 20;
  int i = 0;
  counter bodies{0}, sides_started{0};
  auto init = g.emplace([&] { i = 0; bump(bodies); }).name("init");
  auto body = g.emplace([&] { ++i; bump(bodies); }).name("body");
  auto side = g.emplace([&] {
                 if (sides_started.fetch_add(1, PILFER_SITE("test.bump", acq_rel)) == 0)
                   while (load(sides_started) < 2) std::this_thread::yield();  // a later side starts meanwhile
                 bump(bodies);
               }).name("side");
  auto cond = g.emplace([&] { bump(bodies); return i < loops ? 0 : 1; }).name("cond");
  auto done = g.emplace([&] { bump(bodies); }).name("done");
  init.precede(body);
  body.precede(cond, side);
  cond.precede(body, done);
  for (int rep = 0; rep < 200; ++rep) {
    set(bodies, 0);
    set(sides_started, 0);
    auto h = pilfer::run(p, g);
    h.get();
    const auto s = h.stats();
    ASSERT_EQ(s.tasks_run, static_cast<std::uint64_t>(load(bodies))) << "rep " << rep;
    ASSERT_EQ(side.last_runs(), static_cast<std::uint32_t>(loops)) << "rep " << rep;
    ASSERT_EQ(body.last_runs(), static_cast<std::uint32_t>(loops)) << "rep " << rep;
  }
}

// A task with a weak (condition) and a strong predecessor runs once per release, here twice and
// at the same time: its first execution waits until the second has started (two workers: the
// strong predecessor's worker runs the second as its kept successor).
// @verifies GRAPH-9 GRAPH-1 GRAPH-6
TEST(GraphStats, OverlappingExecutionsOfOneTaskAreCounted) {
  pilfer::pool p(pilfer::pool_options{.threads = 2});
  pilfer::graph g("overlap");
  counter inside{0}, d_runs{0}, d_started{0}, overlapped{0};
  auto cond = g.emplace([] { return 0; }).name("cond");
  auto slow = g.emplace([&] {
                 while (load(d_started) == 0) std::this_thread::yield();  // d's first execution is under way
               }).name("slow");
  auto d = g.emplace([&] {
             set(d_started, 1);
             bump(inside);
             if (load(inside) == 2) bump(overlapped);
             while (load(d_runs) == 0 && load(inside) < 2) std::this_thread::yield();  // the first waits for the second
             bump(d_runs);
             drop(inside);
           }).name("d");
  cond.precede(d);
  slow.precede(d);
  for (int rep = 0; rep < 50; ++rep) {
    set(d_runs, 0);
    set(d_started, 0);
    auto h = pilfer::run(p, g);
    h.get();
    const auto s = h.stats();
    ASSERT_EQ(load(d_runs), 2) << "rep " << rep;
    ASSERT_EQ(d.last_runs(), 2u) << "rep " << rep;
    ASSERT_EQ(s.tasks_run, 4u) << "rep " << rep;
  }
  EXPECT_EQ(load(overlapped), 50);  // each run overlapped the two executions of d
}

// "final once the run is over": a later run of the same graph does not change a finished run's
// statistics.
// @verifies GRAPH-9
TEST(GraphStats, FinishedRunKeepsItsStatsAfterALaterRun) {
  pilfer::pool p(pilfer::pool_options{.threads = 1});
  pilfer::graph g("final");
  auto a = g.emplace([] {}).name("a");
  auto b = g.emplace([] {}).name("b");
  auto c = g.emplace([] {}).name("c");
  a.precede(b);
  b.precede(c);
  auto h1 = pilfer::run(p, g);
  h1.get();
  const auto before = h1.stats();
  EXPECT_EQ(before.tasks_run, 3u);
  EXPECT_EQ(before.critical_path_tasks, 3u);
  auto h2 = pilfer::run_n(p, g, 4);
  h2.get();
  const auto after = h1.stats();
  EXPECT_EQ(after.tasks_run, 3u);
  EXPECT_EQ(after.iterations, 1u);
  EXPECT_EQ(after.critical_path_tasks, 3u);
  const auto s2 = h2.stats();
  EXPECT_EQ(s2.tasks_run, 12u);
  EXPECT_EQ(s2.iterations, 4u);
}

// A run stopped between two passes (its run_until predicate cancels it and asks for another pass)
// begins no further pass: its statistics are of the passes that ran, with their critical path.
// @verifies GRAPH-9 GRAPH-5
TEST(GraphStats, RunStoppedBetweenPassesKeepsTheLastPassThatRan) {
  pilfer::pool p(pilfer::pool_options{.threads = 2});
  pilfer::graph g("stopped");
  auto a = g.emplace([] {}).name("a");
  auto b = g.emplace([] {}).name("b");
  auto c = g.emplace([] {}).name("c");
  auto d = g.emplace([] {}).name("d");
  a.precede(b, c);
  d.succeed(b, c);
  pilfer::std_sync::atomic<pilfer::graph_run*> handle{nullptr};
  int calls = 0;
  pilfer::graph_run h = pilfer::run_until(p, g, [&] {
    if (++calls == 3) {
      pilfer::graph_run* self = nullptr;
      while ((self = handle.load(PILFER_SITE("test.load", acquire))) == nullptr) std::this_thread::yield();
      self->cancel();
    }
    return false;  // another pass
  });
  handle.store(&h, PILFER_SITE("test.set", release));
  h.wait();
  const auto s = h.stats();
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(s.iterations, 2u);
  EXPECT_EQ(s.tasks_run, 8u);
  EXPECT_EQ(s.critical_path_tasks, 3u);  // a -> b -> d of the second pass (0 when an empty third pass began)
}

// The critical path is of the last pass: a condition picks a 4-task chain in pass 1 and one task
// in pass 2; edges from a condition are weak, so the last pass's longest strong chain is 1 task.
// @verifies GRAPH-9 GRAPH-6
TEST(GraphStats, CriticalPathIsOfTheLastPass) {
  pilfer::pool p(pilfer::pool_options{.threads = 2});
  pilfer::graph g("passes");
  int pass = 0;
  auto cond = g.emplace([&] { return pass++ == 0 ? 0 : 1; }).name("cond");
  auto l1 = g.emplace([] {}).name("l1");
  auto l2 = g.emplace([] {}).name("l2");
  auto l3 = g.emplace([] {}).name("l3");
  auto l4 = g.emplace([] {}).name("l4");
  auto s1 = g.emplace([] {}).name("s1");
  cond.precede(l1, s1);
  l1.precede(l2);
  l2.precede(l3);
  l3.precede(l4);
  auto h = pilfer::run_n(p, g, 2);
  h.get();
  const auto s = h.stats();
  EXPECT_EQ(s.tasks_run, 7u);
  EXPECT_EQ(s.critical_path_tasks, 1u);
  EXPECT_EQ(l1.last_runs(), 1u);
  EXPECT_EQ(s1.last_runs(), 1u);
  std::ostringstream os;
  g.dump_dot(os);
  const std::string dot = os.str();
  for (std::size_t chain = 1; chain <= 4; ++chain)
    EXPECT_EQ(dot_node_line(dot, chain).find("color=red"), std::string::npos) << dot;
  EXPECT_NE(dot.find("critical path 1 tasks"), std::string::npos) << dot;
}

// GRAPH-9's scenario with a slow independent task: the critical path is the longest chain in tasks
// (a, b, c), profiled or not; critical_path_ns is measured only when the run was profiled, never
// left over from an earlier profiled run.
// @verifies GRAPH-9
TEST(GraphStats, CriticalPathIsTheLongestChainAndTimedOnlyWhenProfiled) {
  pilfer::pool p(pilfer::pool_options{.threads = 2});
  pilfer::graph g("chain_plus_one");
  auto a = g.emplace([] {}).name("a");
  auto b = g.emplace([] {}).name("b");
  auto c = g.emplace([] {}).name("c");
  auto d = g.emplace([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }).name("d");
  a.precede(b);
  b.precede(c);
  (void)d;
  {
    auto h = pilfer::run(p, g);  // profiling is on by default
    h.get();
    const auto s = h.stats();
    EXPECT_EQ(s.tasks_run, 4u);
    EXPECT_EQ(s.critical_path_tasks, 3u);
    EXPECT_GT(s.wall_ns, 5'000'000u);
    EXPECT_LE(s.critical_path_ns, s.wall_ns);
  }
  g.profile(false);
  {
    auto h = pilfer::run(p, g);
    h.get();
    const auto s = h.stats();
    EXPECT_EQ(s.critical_path_tasks, 3u);
    EXPECT_EQ(s.critical_path_ns, 0u);
    EXPECT_EQ(s.wall_ns, 0u);
    std::ostringstream os;
    g.dump_dot(os);
    const std::string dot = os.str();
    EXPECT_EQ(dot.find(" us"), std::string::npos) << dot;  // no durations from the profiled run
    EXPECT_NE(dot_node_line(dot, 2).find("color=red"), std::string::npos) << dot;  // c ends the path
    EXPECT_EQ(dot_node_line(dot, 3).find("color=red"), std::string::npos) << dot;  // d is not on it
  }
}

}  // namespace
