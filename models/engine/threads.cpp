// models/engine/threads.cpp — thread operations: spawn, join, yield / spin hint, per-thread randomness.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

unsigned checker::spawn(std::unique_ptr<detail::task> body, const std::source_location& src) {
  // not a scheduling point: the child only becomes runnable (and `body` must not be left in
  // a stranded frame)
  if (threads_.size() >= max_threads) {
    body.reset();
    if (finishing_) strand();
    PILFER_MODEL_FAIL("model error", "more than " + std::to_string(max_threads) + " threads (the main thread included)");
  }
  const auto child = static_cast<std::uint32_t>(threads_.size());
  mthread& parent = threads_[cur_];
  mthread th;
  th.events = reuse(spare32_);
  if (alt_active_) {  // (label_spawned sizes them)
    th.alt_key = reuse(spare64_);
    th.alt_ha = reuse(spare64_);
    th.alt_hb = reuse(spare64_);
    th.sym_terms = reuse(spare64_);
  }
  th.key = combine(parent.key, ++parent.children);
  label_spawned(th, parent);  // sym_key, and the keys under the other labelings (symmetry.cpp)
  th.rng = mix64(th.sym_key);
  th.parent = cur_;
  th.body = std::move(body);
  if (finishing_) {
    threads_.push_back(std::move(th));  // (reserved: `parent` stays valid)
    ++finish_progress_;
    return child;
  }
  event e = make_event(ek::spawn, none, src);
  e.other = child;
  compute_views(e, parent);
  threads_.push_back(std::move(th));  // (reserved: `parent` stays valid)
  const auto gid = add_event(e, none);
  commit(gid);
  threads_[child].cur = events_[gid].v;  // the child starts hb-after the spawn
  if (revisit_) rv_tlast_[child] = static_cast<std::uint32_t>(rv_rec_.steps.size() - 1);  // (its porf-prefix)
  return child;
}

void checker::join(unsigned t, const std::source_location& src) {
  if (!live()) return finish_join(t);
  mthread& th = threads_[cur_];
  th.pend = pending::join;
  th.pend_arg = t;
  th.pend_src = src;
  const bool explored = begin_op(src);
  th.pend = pending::idle;
  if (!explored) return finish_join(t);
  event e = make_event(ek::join, none, src);
  e.other = t;
  compute_views(e, th);
  e.v.join(threads_[t].cur);
  const auto gid = add_event(e, none);
  commit(gid);
}

void checker::yield(const std::source_location& src, bool spin) {
  if (!live()) return finishing_pause();
  if (revisit_) rv_unsupported(spin ? "spin hints" : "yield()");
  if (!begin_op(src)) return;  // (the pause happened)
  mthread& th = threads_[cur_];
  event e = make_event(ek::yield, none, src);
  e.tag = spin ? "spin_hint" : "yield";
  compute_views(e, th);
  // the spinning reads: the locations read since the previous hint (one loop iteration), in
  // program order (read_choose matches the next iteration's reads against it). An iteration
  // without reads (a backoff of several hints) keeps the previous sequence.
  std::vector<std::uint32_t> iter;
  for (std::size_t i = th.events.size(); i-- > 0;) {
    const event& r = events_[th.events[i]];
    if (r.kind == ek::yield) break;
    if (r.rd && r.loc != none) iter.push_back(r.loc);
  }
  std::reverse(iter.begin(), iter.end());
  if (!iter.empty()) th.spin_locs = std::move(iter);
  const auto gid = add_event(e, none);
  commit(gid);
  th.status = tstatus::yielded;
}

void checker::record_thread_misuse(const char* what, const std::source_location& src) {
  record_failure("thread misuse", "t" + std::to_string(cur_) + ": " + what +
                                      (*src.file_name() != '\0' ? ", at " + where(src) : std::string()));
}

std::uint64_t checker::random(std::uint64_t bound) {
  mthread& th = threads_[cur_];
  th.rng ^= th.rng >> 12;
  th.rng ^= th.rng << 25;
  th.rng ^= th.rng >> 27;
  const std::uint64_t r = th.rng * 0x2545F4914F6CDD1Dull;
  return bound == 0 ? r : r % bound;
}

}  // namespace pilfer::model::engine
