// models/engine/estimate.hpp — the estimator's self-test switch (estimate.cpp; the public entry point
// is pilfer::model::estimate() in include/pilfer/model/checker.hpp).
#pragma once

#include <pilfer/model/checker.hpp>

#include <cstddef>
#include <functional>
#include <memory>

namespace pilfer::model::engine {

/// Self-test only (tests/estimate.cpp): a mutant estimator whose probes forget to multiply by the
/// number of a write's backward revisits (they still draw among them); the test must see its
/// estimates leave the stated factor of the exact counts.
void set_estimate_mutant_no_revisit_factor(bool on) noexcept;

/// Self-test only: the probes' tree walked whole — every alternative at every decision, in turn,
/// instead of one drawn at random — counting its leaves. Equal to the exhaustive revisit
/// exploration's counts when the probes walk its tree (what makes their estimate unbiased).
struct probe_tree_count {
  std::size_t complete = 0, blocked = 0, runs = 0;  // leaves ending complete / blocked; runs made
  bool ok = true;                                   // false: a feature revisit mode does not support
};
probe_tree_count count_probe_tree(std::function<std::unique_ptr<scenario>()> make, const options& o);

}  // namespace pilfer::model::engine
