// rc11_oracle.hpp — a brute-force, herd-style RC11 enumerator for small litmus
// tests, independent of pilfer's model checker. It exists to cross-check the
// expected verdicts of models/litmus/ and the engine (pilfer-litmus --oracle).
//
// Method (as herd7 does): every thread is run by the litmus interpreter once
// per choice of the values its reads return (drawn from a per-location value
// domain computed as a fixed point); the resulting event sequences are
// combined, then every reads-from map (value-matching writes) and every
// per-location modification order is tried, and each candidate execution is
// kept iff it satisfies the axioms of herdtools7's rc11.cat: coherence
// (hb;eco? irreflexive), rmw coherence, atomicity, acyclic psc (pscb ∪ pscf)
// and no-thin-air (sb ∪ rf acyclic). Data races (rc11.cat `dr`) are flagged.
// Exponential: meant for litmus-sized programs (a few events per thread).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "litmus_parser.hpp"

namespace pilfer::litmus {

struct oracle_result {
  std::map<state, std::size_t> outcomes;  ///< final state → consistent executions ending in it
  std::size_t candidates = 0;             ///< candidate executions checked
  bool data_race = false;                 ///< some consistent execution has a data race
  bool truncated = false;                 ///< a thread path hit the event bound (loops)
};

/// Which axioms: herd7's rc11.cat, or ISO C++20's — release sequences of RMWs only
/// (P0982R1) and, instead of psc, a total order S on seq_cst operations and fences that
/// contains strongly-happens-before between them and orders coherence-ordered-before pairs
/// as [atomics.order]/4 says (P0668R5); coherence, atomicity and sb ∪ rf acyclic as rc11.
enum class oracle_model { rc11, cxx20 };

/// Enumerate the consistent executions of `p` (see above).
oracle_result rc11_oracle(const program& p, std::size_t max_events_per_thread = 32,
                          oracle_model model = oracle_model::rc11);

}  // namespace pilfer::litmus
