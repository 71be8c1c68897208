// example_graph: a small pipeline as a task graph.
//
//   load -> {parse_a, parse_b} -> merge -> retry? --0--> merge   (condition task: loop)
//                                                --1--> merged -> report
//   summarise (subflow: one task per chunk)  ----------------------> report
//
// A condition's edges are weak: the chosen successor runs at once, without counting. So a task
// that should wait for a condition's branch AND other tasks (report) hangs off a plain task
// (merged) that only the condition leads to.
//
// Builds the graph once, runs it three times (run_n), checks the result, prints the per-run
// statistics and the graph in Graphviz DOT with the last run's timings (pipe the DOT part into
// `dot -Tsvg` to see where the graph waits). Exits non-zero on a wrong result.
#include <cstdio>
#include <iostream>
#include <numeric>
#include <sstream>
#include <vector>

#include "pilfer/graph.hpp"

int main() {
  pilfer::pool p({.threads = 2, .name = "pipeline"});
  pilfer::graph g("pipeline");

  std::vector<int> input, a, b, merged;
  long long total = 0, checksum = 0;
  int merges = 0;

  auto load = g.emplace([&] {
    input.resize(1000);
    std::iota(input.begin(), input.end(), 1);
    merges = 0;
  }).name("load");
  auto parse_a = g.emplace([&] {
    a.clear();
    for (int x : input) if (x % 2 == 0) a.push_back(x);
  }).name("parse_a");
  auto parse_b = g.emplace([&] {
    b.clear();
    for (int x : input) if (x % 2 != 0) b.push_back(x);
  }).name("parse_b");
  auto merge = g.emplace([&] {
    merged = a;
    merged.insert(merged.end(), b.begin(), b.end());
    ++merges;
  }).name("merge");
  // Condition task: merge twice (e.g. a retry), then go on to the report.
  auto retry = g.emplace([&] { return merges < 2 ? 0 : 1; }).name("retry?");
  auto summarise = g.emplace([&](pilfer::subflow& sf) {
    // a subflow: one task per chunk of 250, built while the task runs, joined before `report`
    static long long part[4];
    for (int c = 0; c < 4; ++c)
      sf.emplace([c] {
        part[c] = 0;
        for (int x = c * 250 + 1; x <= (c + 1) * 250; ++x) part[c] += x;
      }).name("chunk" + std::to_string(c));
    sf.join();
    checksum = part[0] + part[1] + part[2] + part[3];
  }).name("summarise");
  auto merged_ok = g.emplace([] {}).name("merged");
  auto report = g.emplace([&] {
    total = std::accumulate(merged.begin(), merged.end(), 0LL);
  }).name("report");

  load.precede(parse_a, parse_b);
  merge.succeed(parse_a, parse_b);
  merge.precede(retry);
  retry.precede(merge, merged_ok);  // 0: merge again, 1: go on
  report.succeed(merged_ok, summarise);

  auto run = pilfer::run_n(p, g, 3);
  run.get();
  const pilfer::graph_run_stats s = run.stats();

  const long long expect = 1000LL * 1001 / 2;
  std::printf("pipeline: %llu passes, %llu task runs, %llu steals, critical path %llu tasks (%.1f us)\n",
              static_cast<unsigned long long>(s.iterations), static_cast<unsigned long long>(s.tasks_run),
              static_cast<unsigned long long>(s.steals), static_cast<unsigned long long>(s.critical_path_tasks),
              static_cast<double>(s.critical_path_ns) / 1000.0);
  std::printf("total=%lld checksum=%lld merges in last pass=%d (expected %lld, %lld, 2)\n", total, checksum, merges,
              expect, expect);
  std::ostringstream dot;
  g.dump_dot(dot);
  std::cout << dot.str();
  // 8 tasks per pass, merge and retry? twice each: 10 bodies per pass (subflow children are another graph's)
  const bool ok = total == expect && checksum == expect && merges == 2 && s.iterations == 3 && s.tasks_run == 3 * 10;
  if (!ok) {
    std::fprintf(stderr, "example_graph: WRONG result\n");
    return 1;
  }
  std::printf("example_graph: ok\n");
  return 0;
}
