// models/engine/mutexes.cpp — mutex operations and mutex misuse.
//
// A mutex is a location whose writes are 0 (init, unlock) and 1 (lock). lock is an acquire RMW
// (exchange to 1) that may read only an unlocked value, and its thread is not scheduled while the
// mutex's mo-last write is a lock (on a mutex the one store a lock may read, atomicity holding, is
// the mo-last one when it is 0); unlock is a release store of 0; try_lock reads the mo-last write:
// 0, it is a lock; 1, it fails (a relaxed read; never spuriously).
// Exploring by revisits (revisit.cpp), as GenMC does: lock is an await of 0 that is an RMW — its
// candidates are every coherent 0-valued store, so a lock that would take the store another lock
// already read is a pending RMW whose revisit leaves that other lock blocked (its thread waits for
// an unlock, rv_conflicts) — and try_lock is a CAS from 0 to 1 whose failed form may read a lock
// only if the DFS could have run it while that lock was held (rv_trylock_fail_ok).
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

namespace {
bool lock_accepts(std::uint64_t v, const void*) { return v == 0; }
bool lock_accepts_any(std::uint64_t, const void*) { return true; }  // the mutant: a lock may read a locked value
}  // namespace

void checker::mutex_misuse_check(std::uint32_t id, const char* op, const std::source_location& src) {
  const location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " " + op + " mutex " + location_name(id) +
                                          " after it was destroyed, at " + where(src));
}

void checker::mutex_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_lock(id);
  mutex_misuse_check(id, "locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " locked mutex " + location_name(id) +
                                          " it already holds (self-deadlock), at " + where(src));
  mthread& th = threads_[cur_];
  th.pend = pending::lock;
  th.pend_arg = id;
  th.pend_src = src;
  const bool explored = begin_op(src);
  th.pend = pending::idle;
  if (!explored) return finish_lock(id);
  event e = make_event(ek::lock, id, src);
  e.order = e.declared = std::memory_order_acquire;
  e.acq = true;
  detail::access a;
  a.op = detail::rmw_op::exchange;
  a.operand = 1;
  a.is_write = true;
  // only the mo-last write (an unlock or the init) is readable: the lock is free
  std::uint64_t v = 0;
  bool ok = false;
  if (revisit_) {  // an await of 0 (every coherent unlocked store; atomicity and the scheduler leave one)
    a.accept = rv_mutant_lock_reads_locked() ? lock_accepts_any : lock_accepts;
    rv_lock_from_ = rv_lock_seen_[cur_];  // (the stores its waiting already took revisits for)
    if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) {
      await_unsatisfied_ = false;  // (not live: a lock is scheduled only with its store there)
      return finish_lock(id);
    }
    rv_lock_seen_[cur_] = 0;
  } else {
    force_latest_ = true;
    if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) return finish_lock(id);
  }
  locs_[id].owner = cur_;
  after_write(cur_);
}

bool checker::mutex_try_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_try_lock(id);
  mutex_misuse_check(id, "try_locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " try_locked mutex L" + std::to_string(id) +
                                          " it already holds, at " + where(src));
  if (!begin_op(src)) return finish_try_lock(id);
  if (revisit_) {  // a CAS from 0 to 1: success an acquire lock, failure a relaxed read of a held lock
    event e = make_event(ek::lock, id, src);
    e.order = e.declared = std::memory_order_acquire;
    e.acq = true;
    event f = make_event(ek::trylock_fail, id, src);
    // relaxed: a failed try_lock synchronizes with nothing ([thread.mutex.requirements.mutex]/try_lock: only
    // a successful one acquires), as the DFS path's failed try_lock.
    f.order = f.declared = std::memory_order_relaxed;
    detail::access a;
    a.op = detail::rmw_op::exchange;
    a.operand = 1;
    a.is_write = true;
    a.cas = true;
    std::uint64_t v = 0;
    bool ok = false;
    rv_trylock_ = true;  // (read_choose: a failed one reads a lock the DFS could run it beside)
    if (read_choose(e, &f, id, true, 0, &a, &v, &ok) == none) return finish_try_lock(id);
    if (ok) {
      locs_[id].owner = cur_;
      after_write(cur_);
    }
    return ok;
  }
  location& l = locs_[id];
  const bool free = events_[l.mo.back()].wval == 0;
  event e = make_event(free ? ek::lock : ek::trylock_fail, id, src);
  e.order = e.declared = free ? std::memory_order_acquire : std::memory_order_relaxed;
  e.acq = free;
  detail::access a;
  a.op = detail::rmw_op::exchange;
  a.operand = 1;
  a.is_write = true;
  std::uint64_t v = 0;
  bool ok = false;
  force_latest_ = true;
  if (read_choose(e, nullptr, id, false, 0, free ? &a : nullptr, &v, &ok) == none) return finish_try_lock(id);
  if (free) {
    locs_[id].owner = cur_;
    after_write(cur_);
  }
  return free;
}

void checker::mutex_unlock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_unlock(id);
  mutex_misuse_check(id, "unlocked", src);
  if (const auto owner = locs_[id].owner; owner != cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " unlocked mutex " + location_name(id) + " " +
                                          (owner == none ? std::string("that is not locked") : "held by t" + std::to_string(owner)) +
                                          ", at " + where(src));
  if (!begin_op(src)) return finish_unlock(id);
  event e = make_event(ek::unlock, id, src);
  e.order = e.declared = std::memory_order_release;
  e.rel = true;
  e.wval = 0;
  if (write_choose(e, id) == none) return finish_unlock(id);
  locs_[id].owner = none;
  after_write(cur_);
}

void checker::rv_lock_attempts() {
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    if (th.status != tstatus::runnable || th.pend != pending::lock) continue;
    const std::uint32_t lid = th.pend_arg;
    const location& l = locs_[lid];
    const auto size = static_cast<std::uint32_t>(l.mo.size());
    if (!l.alive || events_[l.mo.back()].wval == 0 || rv_lock_seen_[t] >= size) continue;  // (free: it runs)
    const std::uint32_t from = std::max(rv_lock_seen_[t], visible_bound(t, l));
    rv_lock_seen_[t] = size;
    // read_choose's conflicts for the lock: unlocked stores it may read that another lock read
    bool any = false;
    for (std::uint32_t p = size - 1; p-- > from;) any = any || (events_[l.mo[p]].wval == 0 && events_[l.mo[p + 1]].rd);
    if (!any) continue;
    const std::uint32_t saved_cur = cur_, saved_last = rv_tlast_[t];
    cur_ = t;
    rv_begin_step(t, rv_next_rank_, false);  // (a step of its own for rv_conflicts; no event: taken back)
    for (std::uint32_t p = size - 1; p-- > from;)
      if (events_[l.mo[p]].wval == 0 && events_[l.mo[p + 1]].rd) rv_conflicts(lid, l.mo[p], l.mo[p + 1]);
    rv_rec_.steps.pop_back();
    rv_step_gid_.pop_back();
    rv_step_prev_.pop_back();
    rv_tlast_[t] = saved_last;
    cur_ = saved_cur;
    rv_decided(false);  // (estimating: the pending-RMW revisits, or waiting)
  }
}

}  // namespace pilfer::model::engine
