// pilfer/task_handle.hpp — basic_task_handle: the result of pool::submit().
#pragma once

#include <cassert>
#include <exception>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "pilfer/pool.hpp"

namespace pilfer {

/// Handle to the result of submit(). Move-only; must not outlive its pool.
/// Contract:
///   ready()/cancelled(): any thread, wait-free.
///   wait(): on a worker of the owning pool: if the task has not started,
///           the caller runs it itself (claim); if it runs elsewhere, the
///           caller runs only tasks that descend from it (join branches,
///           group tasks it waits for), then sleeps while a spare worker
///           keeps the pool busy. Never runs an unrelated task on its frame.
///           Elsewhere it blocks. Never spins for long.
///   get():  wait(), then return the value or rethrow the task's exception
///           (either is moved out: call once; a second call throws
///           std::logic_error), or throw task_cancelled.
/// Several threads may wait() on one handle at once; the handle must
/// outlive every wait in progress (as a std::future: destroy or move it
/// only once no other thread is inside its wait() or get()).
/// Dropping the handle does not cancel the task (it still runs: captured
/// references must outlive it). If the task throws and nobody called get(),
/// the exception goes to the pool's on_uncaught (POOL-21).
template <class R, class Sync>
class basic_task_handle {
 public:
  basic_task_handle() noexcept = default;
  basic_task_handle(basic_task_handle&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  basic_task_handle& operator=(basic_task_handle&& o) noexcept {
    if (this != &o) {
      reset();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~basic_task_handle() { reset(); }

  bool valid() const noexcept { return s_ != nullptr; }
  bool ready() const noexcept {
    assert(s_ && "task_handle: no shared state");
    return s_->code() != state::pending;
  }
  bool cancelled() const noexcept {
    assert(s_ && "task_handle: no shared state");
    return s_->code() == state::was_cancelled;
  }

  void wait() const {
    assert(s_ && "task_handle::wait: no shared state");
    detail::pool_access<Sync>::wait_handle(*s_->pool, s_);
  }

  R get() {
    wait();
    // A second call finds the result gone (moved out, or the exception handed to the first call's
    // catcher): a clear error in every build, as POOL-17 says.
    if (s_->collected())
      throw std::logic_error("pilfer: task_handle::get called twice (the first call moved the result out)");
    s_->mark_collected();
    switch (s_->code()) {
      case state::has_value:
        if constexpr (std::is_void_v<R>) {
          return;
        } else {
          R r = std::move(*s_->value.write());
          s_->value.write().reset();
          return r;
        }
      case state::has_error:
        // Moved out of the shared state: the rethrowing thread drops the exception's last
        // reference, not a worker freeing the state later (see basic_graph_run::get).
        std::rethrow_exception(std::exchange(s_->error.write(), nullptr));
      default:
        throw task_cancelled{};
    }
  }

 private:
  using state = detail::result_state<R, Sync>;
  friend class basic_pool<Sync>;
  explicit basic_task_handle(state* s) noexcept : s_(s) {}
  void reset() noexcept {
    if (s_ == nullptr) return;
    state* s = std::exchange(s_, nullptr);
    if (s->drop()) detail::pool_access<Sync>::sink(*s->pool).report(std::exchange(s->error.write(), nullptr));
    s->release();
  }
  state* s_ = nullptr;
};

template <class R>
using task_handle = basic_task_handle<R, std_sync>;

}  // namespace pilfer
