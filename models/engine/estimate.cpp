// models/engine/estimate.cpp — estimate(): the size of a scenario's exhaustive exploration by
// revisits (revisit.cpp), from random probes, before a long run.
//
// The revisit exploration is a tree: a run (a script replayed, then the fixed scheduler going on)
// meets decisions, and at each one it goes on with the first alternative and pushes the others as
// scripts (a read's other coherent sources and the revisits it makes as a pending RMW; a write's
// other mo positions; a write's backward revisits, whose other alternative is no revisit). Each
// pushed script's run is the subtree of that alternative. The run's own end (complete, blocked,
// or pruned: an invalid revisit) is the leaf reached by going on at every decision.
//
// A probe walks one path from the root: at each decision with n alternatives (going on included)
// it draws one uniformly (rv_decided -> est_decide, called where the exploration pushes them) and
// multiplies its weight by n; taking a pushed script diverts the probe, which replays that script
// from scratch next (the diverted run goes on to its end, its further decisions ignored). The
// weight at the leaf is an unbiased estimate of the number of leaves (Knuth 1975): E[w·[leaf is
// complete]] is the number of complete executions the exhaustive run counts, blocked alike, and
// E[w] is its number of runs. Memoisation would break this (a pruned subtree is not small), which
// is why the DFS's tree gave estimates off by 10^9 (models/README.md); revisits reach each graph
// once, so there is nothing to prune.
#include "checker.hpp"
#include "estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pilfer::model::engine {

namespace {
bool g_mutant_no_revisit_factor = false;  // set_estimate_mutant_no_revisit_factor()
}  // namespace

void set_estimate_mutant_no_revisit_factor(bool on) noexcept { g_mutant_no_revisit_factor = on; }

void checker::est_decide(bool backward) {
  const std::size_t pushed = rv_work_.size();
  if (pushed == 0) return;  // one alternative: going on
  if (est_diverted_) {      // this run is no longer on the probe's path
    rv_work_.clear();
    return;
  }
  const std::size_t n = pushed + 1;
  if (!(backward && g_mutant_no_revisit_factor)) est_weight_ *= static_cast<double>(n);
  std::size_t j = 0;
  if (est_enumerate_) {  // the walk's next decision: as recorded, or its first alternative
    if (est_depth_ == est_path_.size()) est_path_.emplace_back(0, n);
    j = est_path_[est_depth_++].first;
  } else {
    j = static_cast<std::size_t>(std::uniform_int_distribution<std::uint64_t>(0, n - 1)(est_rng_));
  }
  if (j != 0) {
    est_next_ = std::move(rv_work_[j - 1]);
    est_diverted_ = true;
  }
  rv_work_.clear();
}

estimate_result checker::estimate(std::size_t probes) {
  const auto t0 = std::chrono::steady_clock::now();
  estimate_result out;
  out.model = opt_.model;
  out.seed = opt_.seed;
  res_ = result{};
  res_.model = opt_.model;
  rng_.seed(opt_.seed);
  est_rng_.seed(opt_.seed);
  g = this;
  revisit_ = true;
  rv_unsupported_ = false;
  rv_unsupported_what_.clear();
  if (opt_.preemption_bound) rv_unsupported_what_ = "a preemption bound";
  if (opt_.shard_count > 1) rv_unsupported_what_ = "shards";
  if (!opt_.replay.empty()) rv_unsupported_what_ = "a replay token";
  est_on_ = rv_unsupported_what_.empty();
  double sum_x = 0, sum_xx = 0, sum_c = 0, sum_cc = 0, sum_b = 0, sum_runs = 0, sum_f = 0;
  for (std::size_t p = 0; est_on_ && p < probes; ++p) {
    est_weight_ = 1;
    rv_work_.clear();
    rv_cur_ = rv_script{};
    double c = 0, b = 0, f = 0;
    for (;;) {
      path_.clear();
      prefix_ = 0;
      est_diverted_ = false;
      const auto oc = run_execution();
      ++out.probe_runs;
      ++rv_runs_;
      rv_decided(false);  // (alternatives no call has drawn among yet)
      if (rv_unsupported_) {
        cleanup_execution();
        est_on_ = false;
        break;
      }
      const bool diverted = est_diverted_;
      if (!diverted) {  // the probe's leaf
        if (oc == outcome::complete) c = est_weight_;
        if (oc == outcome::blocked) b = est_weight_;
        if (oc == outcome::failed) {
          f = est_weight_;
          if (out.failure.empty()) out.failure = fail_kind_.empty() ? "failure" : fail_kind_;
        }
      }
      cleanup_execution();
      ++exec_index_;
      if (!diverted) break;
      rv_cur_ = std::move(est_next_);
    }
    if (!est_on_) break;
    ++out.probes;
    sum_x += c + b;
    sum_xx += (c + b) * (c + b);
    sum_c += c;
    sum_cc += c * c;
    sum_b += b;
    sum_f += f;
    sum_runs += est_weight_;
  }
  rv_work_.clear();
  rv_work_.shrink_to_fit();
  if (!rv_unsupported_what_.empty() || rv_unsupported_) {
    out.ok = false;
    out.message = "cannot estimate: " + (rv_unsupported_what_.empty() ? std::string("yield() / spin hints") : rv_unsupported_what_) +
                  (rv_unsupported_what_ == "shards" ? " (the probes estimate the whole exploration: leave the shards out)"
                                                    : " (revisit mode does not support it)");
  } else if (out.probes > 0) {
    const double n = static_cast<double>(out.probes);
    const auto error = [n](double s, double ss) {
      if (n < 2) return 0.0;
      const double mean = s / n;
      const double var = std::max(0.0, (ss - n * mean * mean) / (n - 1));
      return std::sqrt(var / n);
    };
    out.executions = sum_x / n;
    out.executions_error = error(sum_x, sum_xx);
    out.complete = sum_c / n;
    out.complete_error = error(sum_c, sum_cc);
    out.blocked = sum_b / n;
    out.failed = sum_f / n;
    out.runs = sum_runs / n;
  }
  est_on_ = false;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (out.probe_runs > 0) out.projected_seconds = out.runs * out.seconds / static_cast<double>(out.probe_runs);
  g_last_tags = res_.tags;
  g = nullptr;
  return out;
}

bool checker::walk_probe_tree(std::size_t* complete, std::size_t* blocked, std::size_t* runs) {
  res_ = result{};
  res_.model = opt_.model;
  rng_.seed(opt_.seed);
  g = this;
  revisit_ = true;
  rv_unsupported_ = false;
  rv_unsupported_what_.clear();
  est_on_ = est_enumerate_ = true;
  est_path_.clear();
  bool more = true;
  while (more && !rv_unsupported_) {
    // one path: the recorded choices, then first alternatives; replays at each diversion
    est_depth_ = 0;
    rv_work_.clear();
    rv_cur_ = rv_script{};
    for (;;) {
      path_.clear();
      prefix_ = 0;
      est_diverted_ = false;
      const auto oc = run_execution();
      ++*runs;
      rv_decided(false);
      if (rv_unsupported_) {
        cleanup_execution();
        break;
      }
      const bool diverted = est_diverted_;
      if (!diverted && oc == outcome::complete) ++*complete;
      if (!diverted && oc == outcome::blocked) ++*blocked;
      cleanup_execution();
      ++exec_index_;
      if (!diverted) break;
      rv_cur_ = std::move(est_next_);
    }
    // the odometer: the deepest decision with an alternative left takes it, the deeper ones go
    est_path_.resize(std::min(est_path_.size(), est_depth_));
    while (!est_path_.empty() && est_path_.back().first + 1 >= est_path_.back().second) est_path_.pop_back();
    if (est_path_.empty()) more = false;
    else ++est_path_.back().first;
  }
  est_on_ = est_enumerate_ = false;
  rv_work_.clear();
  g = nullptr;
  return !rv_unsupported_;
}

probe_tree_count count_probe_tree(std::function<std::unique_ptr<scenario>()> make, const options& o) {
  probe_tree_count out;
  checker c(std::move(make), o);
  struct guards_released {
    ~guards_released() { release_stack_guards(); }
  } const release;
  out.ok = c.walk_probe_tree(&out.complete, &out.blocked, &out.runs);
  return out;
}

}  // namespace pilfer::model::engine

namespace pilfer::model {

std::string estimate_result::summary() const {
  if (!ok) return message;
  const auto rel = [](double err, double v) { return v > 0 ? 100.0 * err / v : 0.0; };
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "estimate: ~%.3g executions (±%.0f%%): ~%.3g complete (±%.0f%%) + ~%.3g blocked; ~%.3g runs, ~%.3g s "
                "at the probes' pace; %zu probes, %zu runs, %.2f s, seed=%llu%s%s",
                executions, rel(executions_error, executions), complete, rel(complete_error, complete), blocked, runs,
                projected_seconds, probes, probe_runs, seconds, static_cast<unsigned long long>(seed),
                failure.empty() ? "" : "; a probe met a failure: ", failure.c_str());
  return buf;
}

estimate_result estimate(std::function<std::unique_ptr<scenario>()> make, const options& o, std::size_t probes) {
  std::string bad = engine::refuse_nested("estimate()");
  if (bad.empty()) bad = engine::invalid_options(o, make);
  if (!bad.empty() || probes == 0) {
    estimate_result refused;
    refused.ok = false;
    refused.model = o.model;
    refused.seed = o.seed;
    refused.message = bad.empty() ? "estimate() needs at least 1 probe" : std::move(bad);
    return refused;
  }
  engine::checker c(std::move(make), o);
  struct guards_released {  // (as check(): the guard pages are accessible again before the stacks are freed)
    ~guards_released() { engine::release_stack_guards(); }
  } const release;
  return c.estimate(probes);
}

}  // namespace pilfer::model
