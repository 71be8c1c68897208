// models/engine/exploration.cpp — decisions and the stateless exploration that drives executions.
//
// Exploration (stateless, RCMC/GenMC style)
//   An execution is identified by its decision sequence. Exhaustive mode is a DFS over it: run
//   the program from scratch replaying a prefix, then take choice 0 for new decisions; after
//   the run, bump the deepest decision that has alternatives left. Only RC11-consistent
//   choices are offered (consistency.cpp), and because porf = (sb ∪ rf) is acyclic in RC11,
//   adding events in porf order reaches every consistent execution.
//   Pruning: a thread is a deterministic function of the values its reads return, so the
//   future of a state depends only on its execution graph (+ thread statuses). At every
//   scheduling point the graph is hashed canonically (128 bits: per-thread event sequences
//   with rf named as (thread key, index), per-location mo lists, thread keys derived from
//   creation ancestry, location keys from (creating thread, creation counter)); a state seen
//   before is not explored again. (The replayed prefix's states are not: only the one that its
//   last, bumped decision follows is hashed, to be compared with the first new state.) Random
//   mode draws every decision from a seeded PRNG.
//
// The memo table and the canonical state hash are in memo.cpp; which rf / mo choices are
// offered, in rf_mo_choices.cpp and consistency.cpp.
#include "checker.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

namespace pilfer::model::engine {

checker* g = nullptr;  // the running check
std::set<std::string> g_last_tags;
std::uint64_t g_execution_serial = 0;

std::uint32_t checker::choose(std::uint32_t n) {
  if (n <= 1 || unbranched_) return 0;  // (with branching off nothing is recorded: replay is deterministic)
  if (depth_ < path_.size()) {
    decision& d = path_[depth_++];
    if (d.count != n && !replaying_token_) {
      PILFER_MODEL_FAIL("model error", "nondeterministic scenario: a decision had " + std::to_string(d.count) +
                              " alternatives before and " + std::to_string(n) + " now");
    }
    if (d.chosen >= n) PILFER_MODEL_FAIL("model error", "replay token does not match this scenario");
    d.count = n;
    return d.chosen;
  }
  std::uint32_t c = 0;
  if (opt_.how == mode::random) c = static_cast<std::uint32_t>(rng_() % n);
  path_.push_back(decision{c, n, 0xFFFFFFFFu, last_state()});
  ++depth_;
  return c;
}

/// Like choose() but always recorded (even with one alternative), with the outcome.
std::uint32_t checker::choose_recorded(const std::vector<std::uint32_t>& aux) {
  const auto n = static_cast<std::uint32_t>(aux.size());
  if (unbranched_) return 0;
  if (depth_ < path_.size()) {
    decision& d = path_[depth_++];
    if (d.count != n && !replaying_token_)
      PILFER_MODEL_FAIL("model error", "nondeterministic scenario: a decision had " + std::to_string(d.count) +
                              " alternatives before and " + std::to_string(n) + " now");
    if (d.chosen >= n) PILFER_MODEL_FAIL("model error", "replay token does not match this scenario");
    d.count = n;
    d.aux = aux[d.chosen];
    return d.chosen;
  }
  std::uint32_t c = 0;
  if (opt_.how == mode::random) c = static_cast<std::uint32_t>(rng_() % n);
  path_.push_back(decision{c, n, aux[c], last_state()});
  ++depth_;
  return c;
}

/// The state `h` at a scheduling point. `memoise`: a state seen before ends the run (pruned:
/// returns false) and a new one is counted; either way `h` becomes the last state. The same state
/// twice in a row is one visit (a step that added no event, e.g. a thread's start).
bool checker::visit_state(const hash128& h, bool memoise) {
  if (memoise && !(have_last_ && h == last_hash_)) {
    if (memo_seen(h)) {
      pruned_ = true;
      return false;
    }
    ++res_.states;
  }
  last_hash_ = h;
  have_last_ = true;
  return true;
}

/// Replaying a prefix (except its last, bumped decision): take the recorded outcome.
bool checker::fast_replay(std::uint32_t* aux) {
  if (unbranched_ || replaying_token_ || depth_ + 1 >= prefix_ || depth_ >= path_.size()) return false;
  const decision& d = path_[depth_];
  if (d.aux == 0xFFFFFFFFu) return false;
  *aux = d.aux;
  ++depth_;
  return true;
}

/// "pm1" then '.'-separated choices; a run of k > 1 zeros is written "0*k".
std::string checker::token() const {
  std::string s = "pm1";
  for (std::size_t i = 0; i < path_.size();) {
    std::size_t j = i;
    while (j < path_.size() && path_[j].chosen == 0) ++j;
    if (j - i > 1) {
      s += ".0*" + std::to_string(j - i);
      i = j;
      continue;
    }
    s += '.';
    s += std::to_string(path_[i].chosen);
    ++i;
  }
  return s;
}

namespace {

/// A decimal number of at most 10 digits (the whole of `text`), or -1.
long long replay_number(std::string_view text) {
  if (text.empty() || text.size() > 10) return -1;
  long long v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

/// token()'s inverse: fills `path`, or returns what is wrong with `tok` (path then partial).
std::string parse_replay_token(const std::string& tok, std::vector<decision>& path) {
  // (no execution takes more decisions: each is taken at an event, and threads stop at max_steps)
  constexpr std::size_t max_decisions = std::size_t{1} << 22;
  const std::string_view t = tok;
  if (t.substr(0, 3) != "pm1" || (t.size() > 3 && t[3] != '.'))
    return "'" + shown_token(tok) + "' is not a replay token (pm1 followed by .CHOICE or .0*COUNT parts)";
  std::size_t at = 3;
  while (at < t.size()) {
    const std::size_t end = std::min(t.find('.', at + 1), t.size());
    const std::string_view part = t.substr(at + 1, end - at - 1);
    const std::size_t star = part.find('*');
    const long long choice = replay_number(part.substr(0, star));
    const long long reps = star == std::string_view::npos ? 1 : replay_number(part.substr(star + 1));
    if (choice < 0 || choice >= 0xFFFFFFFFll || reps < 1)
      return "part '" + shown_token(std::string(part)) + "' of '" + shown_token(tok) + "' is not CHOICE or CHOICE*COUNT";
    if (path.size() + static_cast<std::size_t>(reps) > max_decisions)
      return "'" + shown_token(tok) + "' names more than " + std::to_string(max_decisions) + " decisions";
    for (long long k = 0; k < reps; ++k) path.push_back(decision{static_cast<std::uint32_t>(choice), 0});
    at = end;
  }
  return {};
}

}  // namespace

/// Replays the run of the revisit exploration a "pr1" token names (revisit_tokens.cpp): that run
/// alone, printed as a DFS token's replay is. A token that is malformed, or whose script the
/// scenario does not take, is a model error.
void checker::replay_revisit_token(std::chrono::steady_clock::time_point t0) {
  const auto mismatch = [&](const std::string& why) {
    res_.ok = false;
    res_.kind = fail_kind_ = "model error";
    res_.message = fail_msg_ = "replay token does not match this scenario: " + why;
    res_.replay_token = opt_.replay;
  };
  bool exhausted = false;
  if (const std::string malformed = parse_rv_token(opt_.replay, rv_replay_script_); !malformed.empty()) {
    mismatch(malformed);
  } else {
    // (a replay runs the one script whatever the shard options: which shard made it does not matter)
    const unsigned shard_index = opt_.shard_index, shard_count = opt_.shard_count;
    opt_.shard_index = 0;
    opt_.shard_count = 1;
    rv_replay_ = true;
    const bool ran = run_revisit(t0, &exhausted);
    rv_replay_ = false;
    opt_.shard_index = shard_index;
    opt_.shard_count = shard_count;
    if (!ran)
      mismatch("it uses " + rv_unsupported_what_ + ", which the revisit exploration does not support, so no revisit run of it has a token");
    else if (!rv_replay_fitted_)
      mismatch("the scenario did not take the token's script (another scenario's run, or different options)");
  }
  std::printf("replay %s: %s%s%s\n", shown_token(opt_.replay).c_str(), res_.ok ? "ok" : res_.kind.c_str(), res_.ok ? "" : ": ",
              res_.ok ? "" : res_.message.c_str());
  std::fputs(res_.trace.c_str(), stdout);
}

result checker::run() {
  const auto t0 = std::chrono::steady_clock::now();
  res_ = result{};
  res_.model = opt_.model;
  rng_.seed(opt_.seed);
  last_progress_ = t0;
  g = this;
  bool exhausted = false;
  std::string bad_exploration;
  const exploration chosen = opt_.exploration ? *opt_.exploration : current_exploration(&bad_exploration);
  if (!opt_.exploration && !bad_exploration.empty()) {
    // A misspelt mode must not silently run the other one.
    res_.ok = false;
    res_.kind = "model error";
    res_.message = "PILFER_MODEL_EXPLORATION must be dfs or revisit, got '" + bad_exploration + "'";
    g = nullptr;
    return res_;
  }
  if (const std::string bad = invalid_options(opt_, make_); !bad.empty()) {
    res_.ok = false;
    res_.kind = "model error";
    res_.message = bad;
    g = nullptr;
    return res_;
  }
  // A "pr1" token names a run of the revisit exploration (revisit_tokens.cpp), whatever the mode.
  const bool rv_token_replay = opt_.replay.starts_with("pr1");
  revisit_ = (chosen == exploration::revisit && opt_.how == mode::exhaustive && opt_.replay.empty()) || rv_token_replay;
  rv_unsupported_ = false;
  if (revisit_ && opt_.preemption_bound && !rv_token_replay) rv_unsupported_what_ = "a preemption bound";
  if (revisit_ && !rv_unsupported_what_.empty()) {
    std::fprintf(stderr, "pilfer model: revisit exploration does not support %s; exploring by DFS\n",
                 rv_unsupported_what_.c_str());
    revisit_ = false;
  }
  if (rv_token_replay) {
    replay_revisit_token(t0);
  } else if (!opt_.replay.empty()) {
    // Replay exactly the execution named by the token: it must take exactly the token's
    // decisions, each within the alternatives it has (else the token names another scenario's
    // execution, or none).
    path_.clear();
    const std::string malformed = parse_replay_token(opt_.replay, path_);
    if (!malformed.empty()) {
      path_.clear();
      res_.ok = false;
      res_.kind = "model error";
      res_.message = "replay token does not match this scenario: " + malformed;
      res_.replay_token = opt_.replay;
      std::printf("replay %s: %s: %s\n", shown_token(opt_.replay).c_str(), res_.kind.c_str(), res_.message.c_str());
    } else {
      replaying_token_ = true;
      prefix_ = path_.size();
      const auto oc = run_execution();
      const std::size_t named = prefix_, taken = path_.size(), used = depth_;
      const bool mismatch_found = failed_ && fail_msg_.rfind("replay token does not match", 0) == 0;
      if (!mismatch_found && (used != named || taken != named)) {  // ended early, or went on past the token
        failed_ = true;
        res_.ok = false;
        res_.kind = fail_kind_ = "model error";
        res_.message = fail_msg_ = "replay token does not match this scenario: it names " + std::to_string(named) +
                                   " decisions, the execution took " + std::to_string(used < named ? used : taken);
        res_.trace = trace();
        res_.replay_token = opt_.replay;
      } else if (oc == outcome::complete) {
        ++res_.executions;
      }
      if (!failed_) res_.trace = trace();  // (a failure already recorded its trace)
      std::printf("replay %s: %s%s%s\n", shown_token(opt_.replay).c_str(), failed_ ? fail_kind_.c_str() : "ok",
                  failed_ ? ": " : "", failed_ ? fail_msg_.c_str() : "");
      std::fputs(res_.trace.c_str(), stdout);
      cleanup_execution();
    }
  } else if (revisit_ && run_revisit(t0, &exhausted)) {
    // explored by revisits (revisit.cpp)
  } else if (revisit_ && rv_shard_dealt_) {
    rv_shards_fallback_error();  // (one shard cannot fall back alone: revisit_shards.cpp)
  } else {
    if (revisit_) {  // the scenario uses something revisit mode does not support: start again by DFS
      std::fprintf(stderr, "pilfer model: revisit exploration does not support %s; exploring by DFS\n",
                   rv_unsupported_what_.c_str());
      revisit_ = false;
      res_ = result{};
      res_.model = opt_.model;
      // What the attempt recorded goes with its result: a race it met (its dedup key) and the tags it
      // executed (their strongest orders) must be recorded again when the DFS meets them, or the
      // check says ok for a racy program and a weakening table reads the tags as never executed.
      race_keys_.clear();
      tag_cache_.clear();
      memo_.clear();
      memo_used_ = 0;
      exec_index_ = 0;
      path_.clear();
    }
    const std::size_t limit = opt_.how == mode::random ? opt_.iterations : opt_.max_executions;
    // Debugging only: PILFER_MODEL_DUMP_GRAPHS=FILE appends each complete execution's graph_line().
    std::FILE* dump = nullptr;
    if (const char* f = std::getenv("PILFER_MODEL_DUMP_GRAPHS"); f != nullptr && *f != '\0') dump = std::fopen(f, "a");
    for (;;) {
      if (opt_.how == mode::random) path_.clear();
      prefix_ = path_.size();
      const auto oc = run_execution();
      if (oc == outcome::complete) ++res_.executions;
      if (oc == outcome::pruned) ++res_.pruned;
      if (oc == outcome::blocked) ++res_.blocked;
      if (oc == outcome::other_shard) ++res_.other_shards;
      if (opt_.verbose && oc != outcome::pruned) std::fputs(trace().c_str(), stdout);
      if (dump != nullptr && oc == outcome::complete) std::fputs(graph_line().c_str(), dump);
      const bool stop = failed_ && opt_.stop_on_failure;
      cleanup_execution();
      ++exec_index_;
      if (stop) break;
      if (opt_.how == mode::random) {
        if (exec_index_ >= limit) break;
        if (opt_.on_progress && !report_progress(t0, false, false)) break;
        continue;
      }
      // DFS backtrack: bump the deepest decision with alternatives left.
      while (!path_.empty() && path_.back().chosen + 1 >= path_.back().count) path_.pop_back();
      if (path_.empty()) {
        exhausted = true;
        break;
      }
      ++path_.back().chosen;
      if (opt_.on_progress && !report_progress(t0, false, false)) break;
      if (limit != 0 && res_.executions >= limit) break;  // bound hit: complete stays false
    }
    if (dump != nullptr) std::fclose(dump);
  }
  if (opt_.on_progress && opt_.replay.empty()) report_progress(t0, true, exhausted);
  // (a failure that stops the check leaves `exhausted` false; races recorded as flags do not)
  res_.complete = exhausted && opt_.replay.empty();
  res_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_last_tags = res_.tags;
  g = nullptr;
  return res_;
}

/// options::on_progress: every progress_interval seconds, and at the end (`final`). The share
/// explored is the weight of the decision subtrees left of the current path: a decision with
/// n alternatives splits its subtree's weight n ways. A callback that throws ends the check with
/// a model error that says so (false: stop exploring); it is called between executions, where
/// stopping leaves nothing half done.
bool checker::report_progress(std::chrono::steady_clock::time_point t0, bool final, bool exhausted) {
  const auto now = std::chrono::steady_clock::now();
  if (!final && std::chrono::duration<double>(now - last_progress_).count() < opt_.progress_interval) return true;
  last_progress_ = now;
  progress p;
  p.executions = res_.executions;
  p.blocked = res_.blocked;
  p.states = res_.states;
  p.seconds = std::chrono::duration<double>(now - t0).count();
  if (opt_.how == mode::random) {
    p.explored = opt_.iterations == 0 ? 1.0 : std::min(1.0, static_cast<double>(exec_index_) / static_cast<double>(opt_.iterations));
  } else if (exhausted) {
    p.explored = 1.0;
  } else {
    double weight = 1.0;
    for (const decision& d : path_) {
      if (d.count <= 1) continue;
      p.explored += weight * d.chosen / d.count;
      weight /= d.count;
      if (weight < 1e-300) break;
    }
  }
  std::string what;
  try {
    opt_.on_progress(p);
    return true;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "(an exception not derived from std::exception)";
  }
  if (res_.ok) {  // (a failure the exploration found stays the verdict)
    res_.ok = false;
    res_.kind = "model error";
    res_.message = "options::on_progress threw: " + what;
  }
  return false;
}

std::string invalid_options(const options& o, const std::function<std::unique_ptr<scenario>()>& make) {
  if (!make) return "check() was given an empty scenario factory";
  if (o.how != mode::exhaustive && o.how != mode::random)
    return "options::how is not a pilfer::model::mode (" + std::to_string(static_cast<int>(o.how)) + ")";
  if (o.model != memory_model::cxx20 && o.model != memory_model::rc11)
    return "options::model is not a pilfer::model::memory_model (" + std::to_string(static_cast<int>(o.model)) + ")";
  if (o.exploration && *o.exploration != exploration_mode::dfs && *o.exploration != exploration_mode::revisit)
    return "options::exploration is not a pilfer::model::exploration_mode (" +
           std::to_string(static_cast<int>(*o.exploration)) + ")";
  if (o.how == mode::random && o.iterations == 0) return "options::iterations must be at least 1 in random mode";
  if (o.max_steps == 0)
    return "options::max_steps is 0: every thread would be reported as a livelock at its first operation";
  if (o.stack_size < min_stack_size)
    return "options::stack_size is " + std::to_string(o.stack_size) + " bytes; at least " +
           std::to_string(min_stack_size) + " (16 KiB: the checker's own frames run on it too)";
  if (o.stack_size > max_stack_size)
    return "options::stack_size is " + std::to_string(o.stack_size) + " bytes; at most " +
           std::to_string(max_stack_size) + " (1 GiB per modelled thread)";
  // (a range check of the option's values: no atomic access is made here)
  for (const auto& [tag, order] : o.weaken)
    if (!is_memory_order(order))
      return "options::weaken[\"" + tag + "\"] is not a std::memory_order (" + std::to_string(static_cast<int>(order)) +
             ")";
  if (o.shard_count == 0 || o.shard_index >= o.shard_count)
    // (out of range, the shard would explore another shard's part, or nothing, and say ok)
    return "options::shard_index must be below options::shard_count (at least 1), got shard " +
           std::to_string(o.shard_index) + " of " + std::to_string(o.shard_count);
  return {};
}

void checker::reset_execution() {
  stale_wake_at_ = none;
  for (mthread& th : threads_) {
    recycle(th.events, spare32_);
    recycle(th.alt_key, spare64_);
    recycle(th.alt_ha, spare64_);
    recycle(th.alt_hb, spare64_);
    recycle(th.sym_terms, spare64_);
  }
  for (location& l : locs_) {
    recycle(l.mo, spare32_);
    recycle(l.acc, spare32_);
    recycle(l.alt_key, spare64_);
    recycle(l.alt_mo_ha, spare64_);
    recycle(l.alt_mo_hb, spare64_);
  }
  threads_.clear();
  threads_.reserve(max_threads + 1);  // + the fiber that may destroy the scenario when finishing
  events_.clear();
  events_.reserve(512);
  locs_.clear();
  loc_hash_sum_a_ = loc_hash_sum_b_ = 0;
  alt_active_ = false;
  alt_loc_sum_a_.clear();
  alt_loc_sum_b_.clear();
  spawning_body_ = none;
  sc_nodes_.clear();
  psc_.clear();
  sc_fences_ = 0;
  failed_ = pruned_ = blocked_ = other_shard_ = false;
  shard_ = -1;
  force_latest_ = false;
  unbranched_ = false;
  over_ = false;
  finishing_ = false;
  finish_progress_ = 0;
  depth_ = 0;
  last_run_ = none;
  preemptions_ = 0;
  have_last_ = false;
  states_seen_ = 0;
  if (revisit_) {
    rv_rec_.steps.clear();
    rv_rec_.outs.clear();
    rv_si_ = 0;
    rv_oi_ = rv_oend_ = 0;
    rv_step_gid_.clear();
    rv_step_prev_.clear();
    rv_evstep_.clear();
    rv_max_.clear();
    rv_index_ptr_ = 0;
    for (auto& x : rv_tlast_) x = none;
    for (auto& x : rv_lock_seen_) x = 0;
    rv_next_rank_ = 0;
    for (const rv_step& st : rv_cur_.steps) rv_next_rank_ = std::max(rv_next_rank_, st.rank + 1);
    rv_assume_blocked_ = 0;
    rv_states_at_ = none;
    rv_awaits_.clear();
    rv_await_vals_.clear();
  }
  hash_from_ = prefix_ == 0 || prefix_ > path_.size() ? 0 : path_[prefix_ - 1].state;
}

void checker::cleanup_execution() {
  over_ = true;
  if (!finish_execution()) ++res_.abandoned;
  running_ = false;
  main_threads_.clear();  // (a stranded main thread left them joinable: gone here, outside the execution)
  for (auto& [p, r] : regions_) ::operator delete(const_cast<void*>(p), std::align_val_t(r.align));
  regions_.clear();
  destroying_.clear();
  for (auto& t : threads_) t.body.reset();
}

checker::outcome checker::run_execution() {
  reset_execution();
  ++g_execution_serial;  // objects made from here on belong to this execution
  running_ = true;
  threads_.emplace_back();
  threads_[0].events = reuse(spare32_);
  threads_[0].key = mix64(0x1234567ull);
  threads_[0].sym_key = threads_[0].key;
  threads_[0].rng = threads_[0].key;
  while (true) {
    if (over_) break;
    if (opt_.shard_count > 1 && opt_.how == mode::exhaustive && !replaying_token_ && !revisit_ && shard_ < 0 &&
        events_.size() >= opt_.shard_depth) {
      // the first state with shard_depth events decides: its canonical hash picks the shard
      const hash128 h = state_hash();
      shard_ = mix64(h.a ^ h.b) % opt_.shard_count == opt_.shard_index % opt_.shard_count ? 1 : 0;
      if (shard_ == 0) {
        other_shard_ = true;  // another shard explores this state
        break;
      }
    }
    if (revisit_) {
      // ---- revisit mode: the script's next step, or a state (not memoised: each graph is reached once) ----
      if (rv_oi_ < rv_oend_) {  // a scripted step ended before its recorded decisions: not this graph
        ++rv_invalid_;
        pruned_ = true;
        break;
      }
      if (rv_si_ < rv_cur_.steps.size()) {
        const rv_step& st = rv_cur_.steps[rv_si_];
        std::uint32_t t = none;
        for (std::uint32_t k = 0; k < threads_.size(); ++k)
          if (threads_[k].key == st.tkey) t = k;
        if (t == none || !enabled(t)) {  // the restricted graph does not let it run: not consistent
          ++rv_invalid_;
          pruned_ = true;
          break;
        }
        rv_oi_ = st.out_begin;
        rv_oend_ = rv_si_ + 1 < rv_cur_.steps.size() ? rv_cur_.steps[rv_si_ + 1].out_begin
                                                     : static_cast<std::uint32_t>(rv_cur_.outs.size());
        ++rv_si_;
        rv_begin_step(t, st.rank, st.settled);
        last_run_ = t;
        switch_to(t);
        continue;
      }
      rv_oi_ = rv_oend_ = 0;
      // (a step that added no event, e.g. a thread's start, leaves the state as it was: one state)
      if (rv_states_at_ != events_.size()) {
        ++res_.states;
        rv_states_at_ = static_cast<std::uint32_t>(events_.size());
      }
      last_run_ = none;  // (the enabled threads are listed by index: the lowest goes)
    } else if (opt_.how == mode::exhaustive && !replaying_token_) {
      // ---- a state: memoise (exhaustive, beyond the replayed prefix) ----
      // (the same state seen twice in a row is one visit: a thread started or resumed
      // without adding an event yet)
      const std::uint32_t state = states_seen_++;
      // A replayed state before the one the bumped decision follows is not hashed: only the
      // states from the bumped decision on are memoised, and only the one just before it is
      // compared with them. (The replay repeats the run that took the decision, state by state.)
      if (depth_ >= prefix_ || state >= hash_from_) {
        assert(depth_ < prefix_ || prefix_ == 0 || state > hash_from_);  // the state before was hashed
        if (!visit_state(state_hash(), depth_ >= prefix_)) break;
      }
    } else {
      ++res_.states;
    }
    // ---- pick the next thread ----
    if (revisit_) rv_lock_attempts();  // (threads waiting at a held lock: its pending-RMW revisits)
    std::uint32_t en[max_threads];
    std::uint32_t n = 0;
    bool all_finished = true, any_yielded = false;
    // current thread first: the first explored schedule has few context switches
    if (last_run_ != none && enabled(last_run_)) en[n++] = last_run_;
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {
      if (threads_[t].status != tstatus::finished) all_finished = false;
      if (threads_[t].status == tstatus::yielded) any_yielded = true;
      if (t != last_run_ && enabled(t)) en[n++] = t;
    }
    // Spinners that yielded re-read first (fair visibility): they may go on, or write what an
    // await waits for. Once each has read again since it was woken (a backoff of several yields
    // reads nothing between them) and nobody wrote since, they are stuck too.
    const bool stale_only = n > 0 && opt_.await_liveness && !revisit_ && only_stale_awaits(en, n);
    if (stale_only && any_yielded) {
      bool wrote = stale_wake_at_ == none, all_reread = true;
      for (std::size_t k = stale_wake_at_ == none ? events_.size() : stale_wake_at_; k < events_.size(); ++k)
        if (events_[k].wr) wrote = true;
      for (std::uint32_t t = 0; t < threads_.size() && !wrote && all_reread; ++t) {
        if (threads_[t].status != tstatus::yielded) continue;
        bool reread = false;
        for (std::size_t k = stale_wake_at_; k < events_.size() && !reread; ++k)
          reread = events_[k].thread == t && events_[k].rd;
        all_reread = reread;
      }
      if (wrote || !all_reread) {
        if (wrote) stale_wake_at_ = static_cast<std::uint32_t>(events_.size());  // (their chance starts now)
        for (auto& th : threads_)
          if (th.status == tstatus::yielded) th.status = tstatus::runnable;
        continue;
      }
    }
    if (stale_only) {
      // Every thread that may run is at an await that only an older store satisfies, and nothing
      // else will write (a spinner that yielded re-read and wrote nothing): as stores become
      // visible (fair visibility), each of them reads the newest store, which its predicate
      // rejects, for ever. The program may hang here; the await form says so as the spin-loop
      // form does (GenMC: -check-liveness).
      std::string who;
      for (std::uint32_t k = 0; k < n; ++k) {
        const mthread& th = threads_[en[k]];
        const location& l = locs_[th.pend_arg];
        who += (k == 0 ? " t" : "; t") + std::to_string(en[k]) + " await(" + location_name(th.pend_arg) + ") at " +
               where(th.pend_src) + ", the newest store " + format_value(l, events_[l.mo.back()].wval) +
               " rejected";
      }
      failed_ = true;
      fail_kind_ = "deadlock";
      fail_msg_ = "only stale stores satisfy the awaits that may run, and no other thread will write; once the newest "
                  "stores are visible, nothing can run:" + who;
      break;
    }
    if (n == 0) {
      if (all_finished) break;
      if (revisit_ && any_yielded) rv_unsupported_ = true;  // (yield() stops the check first)
      if (revisit_ && rv_assume_blocked_ > 0) {  // a thread stopped at a false assume(): blocked
        blocked_ = true;
        break;
      }
      if (any_yielded) {  // nothing else can run: spinners re-read (fair visibility)
        for (auto& t : threads_)
          if (t.status == tstatus::yielded) t.status = tstatus::runnable;
        continue;
      }
      // Each blocked thread with its operation, the object it waits on (and where that was made) and
      // the operation's line: "t1 lock(L2 (made by t0 at m.cpp:10)) at m.cpp:31".
      std::string who;
      for (std::uint32_t t = 0; t < threads_.size(); ++t) {
        const auto& th = threads_[t];
        if (th.status == tstatus::finished) continue;
        std::string op;
        if (th.status == tstatus::blocked_wait)
          op = "wait(" + location_name(th.wait_loc) + ")";
        else if (th.pend == pending::lock)
          op = "lock(" + location_name(th.pend_arg) + ")";
        else if (th.pend == pending::join)
          op = "join(t" + std::to_string(th.pend_arg) + ")";
        else if (th.pend == pending::await)
          op = "await(" + location_name(th.pend_arg) + "; no store it may read satisfies it)";
        if (op.empty()) continue;  // (a thread that is not blocked itself, e.g. one not yet started)
        who += (who.empty() ? " t" : "; t") + std::to_string(t) + " " + op +
               (engine_place(th.pend_src.file_name()) ? " (the checker joining scenario thread " + std::to_string(th.pend_arg - 1) + ")"
                     : " at " + where(th.pend_src));
      }
      failed_ = true;
      fail_kind_ = "deadlock";
      fail_msg_ = "no thread can run; blocked:" + who;
      break;
    }
    if (revisit_) {
      rv_begin_step(en[0], rv_next_rank_++, false);
      last_run_ = en[0];
      switch_to(en[0]);
      continue;
    }
    std::uint32_t pickable = n;
    const bool cur_enabled = last_run_ != none && n > 0 && en[0] == last_run_;
    if (unbranched_ && !cur_enabled) {
      // the one schedule's next thread is a function of the state: the least canonical key, not
      // the least index (indices follow creation order, which differs between equal states)
      std::uint32_t best = 0;
      for (std::uint32_t k = 1; k < n; ++k)
        if (threads_[en[k]].key < threads_[en[best]].key) best = k;
      std::swap(en[0], en[best]);
    }
    if (opt_.preemption_bound && opt_.how == mode::exhaustive && cur_enabled && preemptions_ >= *opt_.preemption_bound)
      pickable = 1;
    if (replaying_token_ && pickable > 1 && !unbranched_ && depth_ < path_.size() &&
        path_[depth_].chosen >= pickable) {  // (choose() fails on a fiber; this is the scheduler)
      failed_ = true;
      fail_kind_ = "model error";
      fail_msg_ = "replay token does not match this scenario: decision " + std::to_string(depth_ + 1) + " picks " +
                  std::to_string(path_[depth_].chosen) + " of " + std::to_string(pickable) + " threads";
      break;
    }
    const std::uint32_t c = choose(pickable);
    const std::uint32_t t = en[c];
    if (cur_enabled && t != last_run_) ++preemptions_;
    last_run_ = t;
    switch_to(t);
  }
  if (!failed_ && !pruned_ && !blocked_ && !other_shard_ && opt_.shard_count > 1 && opt_.how == mode::exhaustive &&
      !replaying_token_ && !revisit_ && shard_ < 0 && opt_.shard_index % opt_.shard_count != 0)
    other_shard_ = true;  // shorter than shard_depth events: shard 0 takes it
  if (!failed_ && !pruned_ && !blocked_ && !other_shard_) {
    // leak check: everything made must have been destroyed once every thread finished
    for (const auto& [p, r] : regions_) {
      if (!r.freed) {
        failed_ = true;
        fail_kind_ = "leak";
        fail_msg_ = std::string(r.what) + " of " + std::to_string(r.bytes) + " bytes made " + made_at(r) +
                    " was never destroyed";
        break;
      }
    }
  }
  const outcome oc = failed_       ? outcome::failed
                     : other_shard_ ? outcome::other_shard
                     : blocked_     ? outcome::blocked
                     : pruned_  ? outcome::pruned
                                : outcome::complete;
  if (failed_ && res_.ok) {
    res_.ok = false;
    res_.kind = fail_kind_;
    res_.message = fail_msg_;
    res_.trace = trace();
    res_.replay_token = revisit_ ? rv_token() : token();
  }
  return oc;
}

bool checker::only_stale_awaits(const std::uint32_t* en, std::uint32_t n) const {
  for (std::uint32_t k = 0; k < n; ++k) {
    const mthread& th = threads_[en[k]];
    if (th.pend != pending::await) return false;
    const location& l = locs_[th.pend_arg];
    if (!l.alive || await_accepts(th.await_accept, th.await_ctx, l, l.mo.back())) return false;
  }
  // (a thread blocked in wait() stays blocked: only a running thread could notify it)
  return true;
}

bool checker::enabled(std::uint32_t t) const {
  const mthread& th = threads_[t];
  if (th.status != tstatus::runnable) return false;
  if (th.pend == pending::join) return threads_[th.pend_arg].status == tstatus::finished;
  if (th.pend == pending::await) return await_satisfiable(t);
  if (th.pend == pending::lock) {
    const location& l = locs_[th.pend_arg];
    return events_[l.mo.back()].wval == 0;
  }
  return true;
}

}  // namespace pilfer::model::engine
