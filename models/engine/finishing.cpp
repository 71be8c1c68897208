// models/engine/finishing.cpp — finishing an execution that was cut short.
//
// Finishing an execution (loom never needs this: its executions always run to the end)
//   An execution is cut short at a memoised state, in another shard's part, where no consistent
//   choice is left, at a false assume() or at a failure, with threads in the middle of their
//   code. Their frames own memory and objects (a pool's workers, its heap) that only the code
//   after the cut releases, so the checker runs that code: each unfinished thread is resumed
//   where it stopped and goes on in FINISHING mode, round-robin, until every thread has ended.
//   Finishing explores nothing and records nothing: atomics read and write their mo-latest value
//   (sequentially consistent), a wait, join or lock pauses the thread until its condition holds,
//   yields and spin hints pause it, fences and notifies do nothing, and no check is made. The
//   main thread skips the scenario's threads() and after() when the cut came before them.
//   Unwinding by an exception was rejected: the cut lands anywhere, often inside noexcept code
//   (a task's invoke, a destructor that joins), where a throw calls std::terminate, and the
//   catch (...) of a task would swallow it.
//   A thread that found a failure or a false assume() is STRANDED: never resumed (its code
//   cannot go on past that point). After a failure nothing is finished (the code past a bug may
//   do real damage): every thread is stranded. Threads that cannot finish (waiting for a
//   stranded one: finish_still_rounds rounds of every thread without a write, a start or an
//   end; or past their budget of operations) are stranded too. (One still round is not enough:
//   a spin loop cut between its reads ends its iteration in the first round, having read
//   nothing new, and reads the value that lets it out in the next — Peterson's lock, cut between
//   the flag read and the turn read, stranded both threads' locals. A loop that spins a bounded
//   number of times before it writes needs as many rounds.) The scenario object, if the main
//   thread did not destroy it, is destroyed on one more fiber, in finishing mode. What stranded frames own is
//   leaked; result::abandoned counts the executions that left any.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

// The scheduler side, then the operations as a thread performs them while finishing.
bool checker::finish_execution() {
  finishing_ = true;
  if (failed_) strand_unfinished();  // the code past a bug is not run
  finish_threads();
  if (scenario_) {
    // the main thread was stranded before destroying the scenario: one more fiber does it
    const auto t = static_cast<std::uint32_t>(threads_.size());
    threads_.emplace_back();
    threads_[t].key = threads_[t].sym_key = combine(threads_[0].key, ~std::uint64_t{0});
    threads_[t].alt_key.assign(alt_active_ ? alt_perms_.size() : 0, threads_[t].key);
    auto destroy = [this] { scenario_.reset(); };
    threads_[t].body = std::make_unique<detail::task_of<decltype(destroy)>>(std::move(destroy));
    finish_threads();
  }
  finishing_ = false;
  return std::none_of(threads_.begin(), threads_.end(), [](const mthread& th) { return th.status == tstatus::stranded; });
}

void checker::finish_threads() {
  unsigned still_rounds = 0;
  for (;;) {
    const std::size_t progress = finish_progress_;
    bool unfinished = false;
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {  // (threads started meanwhile run too)
      if (threads_[t].status == tstatus::finished || threads_[t].status == tstatus::stranded) continue;
      unfinished = true;
      switch_to(t);  // until it pauses, ends or is stranded
    }
    if (!unfinished) return;
    if (finish_progress_ != progress) {
      still_rounds = 0;
    } else if (++still_rounds == finish_still_rounds) {  // every thread paused, round after round, without a change
      strand_unfinished();
      return;
    }
  }
}

void checker::strand_unfinished() {
  for (auto& th : threads_)
    if (th.status != tstatus::finished) th.status = tstatus::stranded;
}

void checker::finishing_op() {
  // a generous multiple of the explored bound: finishing runs code the exploration did not reach
  if (++threads_[cur_].finishing_ops > 8 * opt_.max_steps + 1024) strand();
}

void checker::finishing_pause() {
  finishing_op();
  switch_to_scheduler();
}

detail::access_result checker::finish_access(std::uint32_t id, const detail::access& a) {
  finishing_op();
  const detail::access_result r = passthrough(id, a);
  if (a.is_write && (!a.cas || r.success)) ++finish_progress_;
  return r;
}

// An await while finishing reads the latest value like every access, and pauses until that value
// is accepted (finishing is sequentially consistent on purpose: code run past a cut must not act
// on stale values). An await whose accepted store is no longer the latest cannot end, and its
// thread is stranded (counted in result::abandoned), as a thread blocked by assume() is.
detail::access_result checker::finish_await(std::uint32_t id, const detail::access& a) {
  for (;;) {
    const detail::access_result r = finish_access(id, a);
    if (call_predicate(a.accept, a.accept_ctx, r.value)) return r;
    finishing_pause();
  }
}

void checker::finish_wait(std::uint32_t id, std::uint64_t old) {
  const std::uint64_t mask = locs_[id].info.bits >= 64 ? ~0ull : ((1ull << locs_[id].info.bits) - 1);
  while ((locs_[id].last_value & mask) == (old & mask)) finishing_pause();
}

void checker::finish_join(std::uint32_t t) {
  while (threads_[t].status != tstatus::finished) finishing_pause();
}

void checker::finish_lock(std::uint32_t id) {
  while (locs_[id].owner != none) finishing_pause();
  finishing_op();
  locs_[id].owner = cur_;
  locs_[id].last_value = 1;
  ++finish_progress_;
}

bool checker::finish_try_lock(std::uint32_t id) {
  finishing_op();
  if (locs_[id].owner != none) return false;
  locs_[id].owner = cur_;
  locs_[id].last_value = 1;
  ++finish_progress_;
  return true;
}

void checker::finish_unlock(std::uint32_t id) {
  finishing_op();
  locs_[id].owner = none;
  locs_[id].last_value = 0;
  ++finish_progress_;
}

}  // namespace pilfer::model::engine
