// models/engine/mutexes.cpp — mutex operations and mutex misuse.
#include "checker.hpp"

namespace pilfer::model::engine {

void checker::mutex_misuse_check(std::uint32_t id, const char* op, const std::source_location& src) {
  const location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " " + op + " mutex L" + std::to_string(id) + " (created at " +
                                          l.file + ":" + std::to_string(l.line) + ") after it was destroyed, at " + where(src));
}

void checker::mutex_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_lock(id);
  if (revisit_) rv_unsupported("mutexes");
  mutex_misuse_check(id, "locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " locked mutex L" + std::to_string(id) +
                                          " it already holds (self-deadlock), at " + where(src));
  mthread& th = threads_[cur_];
  th.pend = pending::lock;
  th.pend_arg = id;
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
  force_latest_ = true;
  if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) return finish_lock(id);
  locs_[id].owner = cur_;
  after_write(cur_);
}

bool checker::mutex_try_lock(std::uint32_t id, const std::source_location& src) {
  if (!live()) return finish_try_lock(id);
  if (revisit_) rv_unsupported("mutexes");
  mutex_misuse_check(id, "try_locked", src);
  if (locs_[id].owner == cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " try_locked mutex L" + std::to_string(id) +
                                          " it already holds, at " + where(src));
  if (!begin_op(src)) return finish_try_lock(id);
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
  if (revisit_) rv_unsupported("mutexes");
  mutex_misuse_check(id, "unlocked", src);
  if (const auto owner = locs_[id].owner; owner != cur_)
    PILFER_MODEL_FAIL("mutex misuse", "t" + std::to_string(cur_) + " unlocked mutex L" + std::to_string(id) + " (created at " +
                                          locs_[id].file + ":" + std::to_string(locs_[id].line) + ") " +
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

}  // namespace pilfer::model::engine
