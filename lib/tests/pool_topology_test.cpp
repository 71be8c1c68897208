// Topology: synthetic descriptions, placement (one worker per core), victim
// order nearest first, pinning and graceful degradation.
#include <gtest/gtest.h>

#include <cstdio>

#include <set>
#include <stdexcept>
#include <vector>

#include <sched.h>

#include "pilfer/pool.hpp"
#include "pilfer/topology.hpp"
#include "pool_test_util.hpp"

using namespace pilfer_test;

namespace {

// @verifies POOL-13
TEST(Topology, SyntheticParse) {
  const auto t = pilfer::topology::synthetic("node:2 l3:2 core:2 pu:2");
  EXPECT_EQ(t.num_pus(), 16u);
  EXPECT_EQ(t.num_cores(), 8u);
  EXPECT_EQ(t.num_cache_groups(), 4u);
  EXPECT_EQ(t.num_numa_nodes(), 2u);
  EXPECT_EQ(t.pus()[5], (pilfer::processing_unit{5, 2, 1, 0}));
  EXPECT_EQ(t.pus()[9], (pilfer::processing_unit{9, 4, 2, 1}));
  EXPECT_THROW(pilfer::topology::synthetic(""), std::invalid_argument);
  EXPECT_THROW(pilfer::topology::synthetic("core:0"), std::invalid_argument);
  EXPECT_THROW(pilfer::topology::synthetic("gpu:2"), std::invalid_argument);
  EXPECT_THROW(pilfer::topology::synthetic("core:x"), std::invalid_argument);
  const auto flat = pilfer::topology::synthetic("core:4");
  EXPECT_EQ(flat.num_cores(), 4u);
  EXPECT_EQ(flat.num_numa_nodes(), 1u);
}

#if defined(PILFER_HAVE_HWLOC)
// @verifies POOL-13
TEST(Topology, HwlocSyntheticMatchesOwnParser) {
  for (const char* d : {"node:2 l3:2 core:2 pu:2", "core:4 pu:1", "node:2 core:3 pu:2", "pack:2 l3:2 core:2 pu:1"}) {
    const auto ours = pilfer::topology::synthetic(d);
    const auto theirs = pilfer::topology::from_hwloc_synthetic(d);
    EXPECT_EQ(theirs.num_pus(), ours.num_pus()) << d;
    EXPECT_EQ(theirs.num_cores(), ours.num_cores()) << d;
    EXPECT_EQ(theirs.num_numa_nodes(), ours.num_numa_nodes()) << d;
    // Same distance classes between every pair of PUs.
    for (unsigned a = 0; a < ours.num_pus(); ++a)
      for (unsigned b = 0; b < ours.num_pus(); ++b)
        EXPECT_EQ(pilfer::topology::distance(theirs.pus()[a], theirs.pus()[b]),
                  pilfer::topology::distance(ours.pus()[a], ours.pus()[b]))
            << d << " " << a << "," << b;
  }
  EXPECT_THROW(pilfer::topology::from_hwloc_synthetic("nonsense:3"), std::invalid_argument);
  const auto here = pilfer::topology::detect(1);
  EXPECT_GE(here.num_pus(), 1u);
}
#endif

// @verifies POOL-13
TEST(Topology, PlacementOneWorkerPerCoreThenSiblings) {
  const auto t = pilfer::topology::synthetic("node:2 l3:2 core:2 pu:2");
  const auto pl = t.place(8);
  std::set<unsigned> cores;
  for (unsigned w = 0; w < 8; ++w) cores.insert(t.pus()[pl[w]].core);
  EXPECT_EQ(cores.size(), 8u) << "8 workers on 8 distinct cores";
  EXPECT_EQ(t.pus()[pl[0]].os_index, 0u);
  EXPECT_EQ(t.pus()[pl[1]].os_index, 8u);  // the other node's first core, not the sibling PU
  EXPECT_EQ(t.pus()[pl[2]].os_index, 2u);  // then node 0's next core
  const auto pl16 = t.place(16);
  EXPECT_EQ(t.pus()[pl16[8]].os_index, 1u);  // second round: sibling PUs
  const auto pl20 = t.place(20);
  EXPECT_EQ(pl20[16], pl20[0]);  // wraps around
}

// Issue 8 point 6: k workers spread over the NUMA nodes (before: all on node 0).
// @verifies POOL-13
TEST(Topology, PlacementSpreadsOverNumaNodes) {
  const auto t = pilfer::topology::synthetic("node:2 core:4");
  const auto pl = t.place(4);
  unsigned per_node[2] = {0, 0};
  for (unsigned w = 0; w < 4; ++w) per_node[t.pus()[pl[w]].numa_node] += 1;
  std::printf("placement of 4 workers on \"node:2 core:4\": node 0: %u, node 1: %u\n", per_node[0], per_node[1]);
  EXPECT_EQ(per_node[0], 2u);
  EXPECT_EQ(per_node[1], 2u);
  const auto t3 = pilfer::topology::synthetic("node:3 core:2");
  const auto pl3 = t3.place(3);
  std::set<unsigned> nodes;
  for (unsigned w = 0; w < 3; ++w) nodes.insert(t3.pus()[pl3[w]].numa_node);
  EXPECT_EQ(nodes.size(), 3u);
}

// @verifies POOL-13
TEST(Topology, DefaultThreadCountFollowsAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const unsigned mask = static_cast<unsigned>(CPU_COUNT(&set));
  const unsigned n = pilfer::default_thread_count();
  std::printf("affinity mask: %u CPUs, default_thread_count(): %u\n", mask, n);
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, mask);
  pilfer::pool p;
  EXPECT_EQ(p.size(), n);
}

// @verifies POOL-13
TEST(Topology, PoolVictimsNearestFirst) {
  // 8 workers on node:2 l3:2 core:2 (one PU per core). Placement alternates
  // the nodes: workers 0..7 on cores 0,4,1,5,2,6,3,7. Worker 0 (core 0):
  // {2} (core 1, same L3), {4,6} (cores 2,3, same node), {1,3,5,7} (other node).
  pilfer::pool p({.threads = 8, .topo = pilfer::topology::synthetic("node:2 l3:2 core:2 pu:1")});
  const auto& g0 = p.victim_groups(0);
  ASSERT_EQ(g0.size(), 3u);
  EXPECT_EQ(g0[0], (std::vector<unsigned>{2}));
  EXPECT_EQ(g0[1], (std::vector<unsigned>{4, 6}));
  EXPECT_EQ(g0[2], (std::vector<unsigned>{1, 3, 5, 7}));
  const auto& g6 = p.victim_groups(6);  // core 3
  EXPECT_EQ(g6[0], (std::vector<unsigned>{4}));
  EXPECT_EQ(g6[1], (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(g6[2], (std::vector<unsigned>{1, 3, 5, 7}));
  // The pool works on a synthetic machine larger than this one.
  EXPECT_EQ(p.submit([&] { return pilfer::parallel_reduce(p, 0, 1000, 0, [](int i) { return i; },
                                                          [](int a, int b) { return a + b; }); })
                .get(),
            499500);
}

// @verifies POOL-13
TEST(Topology, FlatAndOneNodeDegradeGracefully) {
  pilfer::pool p({.threads = 3, .topo = pilfer::topology::flat(1)});  // more workers than PUs
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(p.placement(i), 0u);
    EXPECT_EQ(p.victim_groups(i).size(), 1u);  // everybody at the same distance
    EXPECT_EQ(p.victim_groups(i)[0].size(), 2u);
  }
  // Pinning onto CPUs this machine does not have is skipped, not fatal.
  pilfer::pool q({.threads = 2, .pin = true, .topo = pilfer::topology::synthetic("core:1024")});
  EXPECT_EQ(q.pinned_cpu(0), 0);  // CPU 0 exists everywhere...
  EXPECT_EQ(q.submit([] { return 5; }).get(), 5);
  pilfer::pool r({.threads = 1, .pin = true, .topo = pilfer::topology{{{1000, 0, 0, 0}}}});
  EXPECT_EQ(r.pinned_cpu(0), -1);  // ...CPU 1000 does not: unpinned
  EXPECT_EQ(r.submit([] { return 6; }).get(), 6);
  // More workers than cores: at most one pinned worker per core, the rest unpinned. Before, placement
  // wrapped around and pinned worker 2 onto worker 0's CPU (an independent breaker: 0 1 0 on 2 cores).
  pilfer::pool s({.threads = 5, .pin = true, .topo = pilfer::topology::synthetic("core:2")});
  std::set<int> pinned;
  for (unsigned i = 0; i < 5; ++i) {
    const int cpu = s.pinned_cpu(i);
    if (cpu < 0) continue;
    EXPECT_TRUE(pinned.insert(cpu).second) << "worker " << i << " pinned to CPU " << cpu << " again";
  }
  for (unsigned i = 2; i < 5; ++i) EXPECT_EQ(s.pinned_cpu(i), -1) << "worker " << i << " past the 2 cores";
  EXPECT_EQ(s.submit([] { return 7; }).get(), 7);
}

// @verifies POOL-13
TEST(Topology, PinnedWorkersRunOnTheirCpu) {
  const unsigned n = static_cast<unsigned>(pilfer::topology::detect(1).num_cores());
  pilfer::pool p({.threads = n, .pin = true});
  for (unsigned i = 0; i < n; ++i) {
    const int cpu = p.pinned_cpu(i);
    if (cpu < 0) continue;  // restricted cpuset: degrade gracefully
    EXPECT_EQ(p.submit([] { return sched_getcpu(); }, {.affinity = i}).get(), cpu) << "worker " << i;
    EXPECT_EQ(static_cast<int>(p.topology().pus()[p.placement(i)].os_index), cpu);
  }
  std::set<unsigned> cores;
  for (unsigned i = 0; i < n; ++i) cores.insert(p.topology().pus()[p.placement(i)].core);
  EXPECT_EQ(cores.size(), n) << "one worker per core";
}

}  // namespace
