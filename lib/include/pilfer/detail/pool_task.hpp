// pilfer/detail/pool_task.hpp — the pool's task representation.
//
// A task is a `task_base*` in a deque/injector. task_base carries an
// intrusive one-entry vtable: `fn(task, op, sink)` with op run / cancel /
// destroy. Heap tasks are allocated through Sync::make so the model checker
// tracks them (leak, double free, use after free); join() uses stack tasks
// (`counted == false`) that are never freed by the pool.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "pilfer/sync.hpp"

namespace pilfer {

/// Thrown by submit()/spawn() from outside the pool after shutdown() began.
class pool_closed : public std::runtime_error {
 public:
  explicit pool_closed(const std::string& pool_name)
      : std::runtime_error("pilfer pool '" + pool_name +
                           "': task submitted after shutdown() began; the pool accepts no new work") {}
};

/// Thrown by task_handle::get(), task_group::wait() and join() for a task the
/// pool discarded without running it (shutdown(shutdown_mode::cancel)).
class task_cancelled : public std::runtime_error {
 public:
  task_cancelled() : std::runtime_error("pilfer: task was cancelled by shutdown(shutdown_mode::cancel)") {}
};

enum class task_priority : unsigned char { normal, high };

/// Per-task options. `affinity` pins the task to one worker (index < size()).
struct task_options {
  task_priority priority = task_priority::normal;
  std::optional<unsigned> affinity{};
};

namespace detail {

enum class task_op : unsigned char { run, cancel, destroy };

/// Where exceptions of fire-and-forget tasks go (one per pool).
struct uncaught_sink {
  std::string name;
  std::function<void(std::exception_ptr)> handler;

  void report(std::exception_ptr e) const noexcept {
    if (handler) {
      try {
        handler(e);
        return;
      } catch (...) {
        std::fputs("pilfer: on_uncaught handler threw; falling back to stderr\n", stderr);
      }
    }
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "pilfer pool '%s': uncaught exception in task: %s\n", name.c_str(), x.what());
    } catch (...) {
      std::fprintf(stderr, "pilfer pool '%s': uncaught non-standard exception in task\n", name.c_str());
    }
  }
};

struct task_base {
  using fn_t = void (*)(task_base*, task_op, const uncaught_sink*) noexcept;
  explicit task_base(fn_t f, bool c = true) noexcept : fn(f), counted(c) {}
  fn_t fn;
  bool counted;  // heap task counted in the pool's pending count
};

/// spawn(): fire and forget; exceptions go to the sink.
template <class F, class Sync>
struct spawn_task final : task_base {
  template <class G>
  explicit spawn_task(G&& g) : task_base(&invoke), f(std::forward<G>(g)) {}
  F f;

  static void invoke(task_base* b, task_op op, const uncaught_sink* sink) noexcept {
    auto* self = static_cast<spawn_task*>(b);
    if (op == task_op::run) {
      try {
        self->f();
      } catch (...) {
        if (sink) sink->report(std::current_exception());
      }
    }
    Sync::destroy(self);
  }
};

/// The shared state behind a task_handle: the task itself plus its result.
/// Two references at birth: the queue's (dropped after run/cancel) and the
/// handle's.
template <class R, class Sync>
struct result_state : task_base {
  using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;
  enum : std::uint32_t { pending = 0, has_value = 1, has_error = 2, was_cancelled = 3, code_mask = 3, waiter_bit = 4 };

  result_state(fn_t f, void* p) noexcept : task_base(f), pool(p) {}

  atomic_t<Sync, std::uint32_t> status{pending};
  atomic_t<Sync, std::uint32_t> refs{2};
  cell_t<Sync, std::optional<value_type>> value{};
  cell_t<Sync, std::exception_ptr> error{};
  void* pool;  // basic_pool<Sync>*, for helping waits

  std::uint32_t code() const noexcept {
    // [pool.H1] acquire: pairs with [pool.H2]; the value/error written
    // before completion is visible to whoever sees the code.
    return status.load(PILFER_SITE("pool.H1", acquire)) & code_mask;
  }

  void complete(std::uint32_t c) noexcept {
    // [pool.H2] acq_rel: release publishes value/error; acquire orders the
    // read of waiter_bit set by a blocked waiter ([pool.H3]).
    const std::uint32_t old = status.exchange(c, PILFER_SITE("pool.H2", acq_rel));
    if (old & waiter_bit) status.notify_all();
  }

  void release() noexcept {
    // [pool.H4] acq_rel: the last owner must see every write of the other.
    if (refs.fetch_sub(1, PILFER_SITE("pool.H4", acq_rel)) == 1) fn(this, task_op::destroy, nullptr);
  }

  /// Block the calling (non-worker) thread until complete.
  void block() noexcept {
    // [pool.H3] relaxed RMW: only announces a sleeper; the exchange in
    // [pool.H2] reads it (RMW chain), so the notify cannot be missed.
    std::uint32_t s = status.fetch_or(waiter_bit, PILFER_SITE("pool.H3", relaxed)) | waiter_bit;
    while ((s & code_mask) == pending) {
      status.wait(s, PILFER_SITE("pool.H1", acquire));
      s = status.load(PILFER_SITE("pool.H1", acquire));
    }
  }
};

template <class F, class R, class Sync>
struct handle_task final : result_state<R, Sync> {
  using base = result_state<R, Sync>;
  template <class G>
  handle_task(G&& g, void* p) : base(&invoke, p), f(std::in_place, std::forward<G>(g)) {}
  std::optional<F> f;  // reset right after running: captures die before get() returns

  static void invoke(task_base* b, task_op op, const uncaught_sink*) noexcept {
    auto* self = static_cast<handle_task*>(b);
    switch (op) {
      case task_op::run: {
        std::uint32_t c = base::has_value;
        try {
          if constexpr (std::is_void_v<R>) {
            (*self->f)();
            self->value.write().emplace();
          } else {
            self->value.write().emplace((*self->f)());
          }
        } catch (...) {
          self->error.write() = std::current_exception();
          c = base::has_error;
        }
        self->f.reset();
        self->complete(c);
        self->release();
        break;
      }
      case task_op::cancel:
        self->f.reset();
        self->complete(base::was_cancelled);
        self->release();
        break;
      case task_op::destroy:
        Sync::destroy(self);
        break;
    }
  }
};

/// task_group::run(): on completion or cancellation the task frees itself
/// (so the captures die first) and then reports to the group.
template <class F, class Group, class Sync>
struct group_task final : task_base {
  template <class G>
  group_task(G&& g, Group* gr) : task_base(&invoke), f(std::forward<G>(g)), group(gr) {}
  F f;
  Group* group;

  static void invoke(task_base* b, task_op op, const uncaught_sink*) noexcept {
    auto* self = static_cast<group_task*>(b);
    std::exception_ptr e;
    if (op == task_op::run) {
      try {
        self->f();
      } catch (...) {
        e = std::current_exception();
      }
    } else if (op == task_op::cancel) {
      e = std::make_exception_ptr(task_cancelled{});
    }
    Group* g = self->group;
    Sync::destroy(self);
    if (op != task_op::destroy) g->complete(e);
  }
};

/// join()'s second branch, living on the joiner's stack.
template <class F, class Sync>
struct stack_job final : task_base {
  explicit stack_job(F& g) noexcept : task_base(&invoke, false), f(&g) {}
  F* f;
  cell_t<Sync, std::exception_ptr> error{};
  atomic_t<Sync, std::uint32_t> done{0};

  bool is_done() const noexcept {
    // [pool.J2] acquire: pairs with [pool.J1]; error and the branch's
    // effects are visible to the joiner.
    return done.load(PILFER_SITE("pool.J2", acquire)) != 0;
  }

  static void invoke(task_base* b, task_op op, const uncaught_sink*) noexcept {
    auto* self = static_cast<stack_job*>(b);
    if (op == task_op::run) {
      try {
        (*self->f)();
      } catch (...) {
        self->error.write() = std::current_exception();
      }
    } else if (op == task_op::cancel) {
      self->error.write() = std::make_exception_ptr(task_cancelled{});
    } else {
      return;  // destroy: the joiner's stack owns it
    }
    // [pool.J1] release: last touch of the job; the joiner may return and
    // pop the frame holding it as soon as it reads 1.
    self->done.store(1, PILFER_SITE("pool.J1", release));
  }
};

}  // namespace detail
}  // namespace pilfer
