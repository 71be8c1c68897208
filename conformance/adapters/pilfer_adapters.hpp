// conformance/adapters/pilfer_adapters.hpp — adapters for pilfer's own components: the
// Chase–Lev deque, the mutex deque (seed-002 design), the injector and the pool.
#pragma once

#include <pilfer/deque.hpp>
#include <pilfer/injector.hpp>
#include <pilfer/mutex_deque.hpp>
#include <pilfer/pool.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>
#include <optional>
#include <string>
#include <cstdint>

#include "pilfer/conformance/adapters.hpp"

namespace pilfer::conformance {

namespace detail {
inline outcome map_status(pilfer::steal_status s) {
  return s == pilfer::steal_status::success ? outcome::success
         : s == pilfer::steal_status::retry ? outcome::retry
                                            : outcome::empty;
}
template <class T>
steal_outcome map(const pilfer::steal_result<T>& r) {
  return {map_status(r.status), r.status == pilfer::steal_status::success ? static_cast<value_t>(r.value) : 0};
}
}  // namespace detail

/// Any deque with pilfer's owner/stealer API (basic_deque, basic_mutex_deque).
template <class D, const char* const& Name>
class pilfer_deque_adapter {
 public:
  static constexpr const char* name = Name;
  static constexpr bool has_batch_steal = true;
  static constexpr bool has_retry = true;

  explicit pilfer_deque_adapter(std::size_t cap) : d_(cap) {}
  void push(value_t v) { d_.push(v); }
  std::optional<value_t> pop() { return d_.pop(); }

  class stealer {
   public:
    explicit stealer(typename D::stealer s) : s_(s) {}
    steal_outcome steal() const { return detail::map(s_.steal()); }
    batch_outcome steal_batch(pilfer_deque_adapter& dest, std::size_t max) const {
      auto r = s_.steal_batch(dest.d_, max);
      return {detail::map_status(r.status), r.status == pilfer::steal_status::success ? r.value : 0};
    }
    steal_outcome steal_batch_and_pop(pilfer_deque_adapter& dest, std::size_t max) const {
      return detail::map(s_.steal_batch_and_pop(dest.d_, max));
    }

   private:
    typename D::stealer s_;
  };
  stealer get_stealer() { return stealer(d_.get_stealer()); }

 private:
  D d_;
};

inline constexpr const char* pilfer_deque_name = "pilfer::deque";
inline constexpr const char* pilfer_mutex_deque_name = "pilfer::mutex_deque";
using pilfer_deque = pilfer_deque_adapter<pilfer::deque<value_t>, pilfer_deque_name>;
using pilfer_mutex_deque = pilfer_deque_adapter<pilfer::mutex_deque<value_t>, pilfer_mutex_deque_name>;

/// pilfer's deque with asymmetric fences (SPEC DQ-7): light pops, heavy steals.
template <class T>
struct asymmetric_deque : pilfer::deque<T> {
  explicit asymmetric_deque(std::size_t capacity) : pilfer::deque<T>(capacity, pilfer::deque_fences::asymmetric) {}
};
inline constexpr const char* pilfer_asymmetric_deque_name = "pilfer::deque (asymmetric fences)";
using pilfer_asymmetric_deque = pilfer_deque_adapter<asymmetric_deque<value_t>, pilfer_asymmetric_deque_name>;

class pilfer_injector {
 public:
  static constexpr const char* name = "pilfer::injector";
  static constexpr std::size_t block_size = pilfer::injector<value_t>::block_size;
  void push(value_t v) { q_.push(v); }
  steal_outcome steal() { return detail::map(q_.steal()); }
  std::size_t live_blocks() const { return q_.live_blocks(); }

 private:
  pilfer::injector<value_t> q_;
};

/// pilfer's pool; the Sync parameter lets the suite also run the pool compiled with an old, known-wrong
/// behaviour (its pool_mutation hook: mutants/pilfer_pool_mutants.hpp).
template <class Sync = pilfer::std_sync>
class basic_pilfer_pool {
 public:
  static constexpr const char* name = "pilfer::pool";
  static constexpr bool has_local_spawn = true, has_handles = true, has_fork_join = true, has_shutdown = true;

  explicit basic_pilfer_pool(unsigned n) : p_(make_options(n, this)) {}
  void submit(std::function<void()> f) { p_.spawn(std::move(f)); }  // from outside: the injector
  void spawn(std::function<void()> f) { p_.spawn(std::move(f)); }   // from a task: the worker's deque
  std::function<void()> submit_waitable(std::function<void()> f) {
    auto h = std::make_shared<shared_handle>(p_.submit(std::move(f)));
    return [h] { h->wait_and_rethrow(); };
  }
  void fork_join(std::function<void()> f, std::function<void()> g) { pilfer::join(p_, f, g); }
  void run_group(std::vector<std::function<void()>> fs) {
    pilfer::basic_task_group<Sync> g(p_);
    for (auto& f : fs) g.run(std::move(f));
    g.wait();
  }
  void set_on_uncaught(std::function<void(std::exception_ptr)> h) {
    std::lock_guard<pilfer::std_sync::mutex> g(hook_m_);
    hook_ = std::move(h);
  }
  void submit_dropped(std::function<void()> f) { (void)p_.submit(std::move(f)); }

  /// POOL-17: pilfer's task_handle<value_t>, as it is (move-only).
  class value_handle {
   public:
    explicit value_handle(pilfer::basic_task_handle<value_t, Sync> h) : h_(std::move(h)) {}
    bool ready() const { return h_.ready(); }
    void wait() { h_.wait(); }
    value_t get() { return h_.get(); }

   private:
    pilfer::basic_task_handle<value_t, Sync> h_;
  };
  value_handle submit_value(std::function<value_t()> f) { return value_handle(p_.submit(std::move(f))); }

  /// POOL-15: pilfer::task_options.
  void submit_with(std::function<void()> f, task_opts o) {
    pilfer::task_options to;
    to.priority = o.high_priority ? pilfer::task_priority::high : pilfer::task_priority::normal;
    to.affinity = o.affinity;
    p_.spawn(std::move(f), to);
  }
  std::optional<unsigned> worker_index() const { return p_.current_worker_index(); }

  /// POOL-3: parks of every worker (and spare) so far.
  std::uint64_t parks() const { return p_.stats().total.parks; }

  /// POOL-16: pilfer::parallel_for / parallel_reduce; tasks created = heap tasks + join branches.
  void parallel_for(std::int64_t b, std::int64_t e, std::function<void(std::int64_t)> f, std::size_t grain) {
    pilfer::parallel_for(p_, b, e, f, grain);
  }
  std::string parallel_reduce(std::int64_t b, std::int64_t e, std::string identity,
                              std::function<std::string(std::int64_t)> map,
                              std::function<std::string(std::string, std::string)> reduce, std::size_t grain) {
    return pilfer::parallel_reduce(p_, b, e, std::move(identity), map, reduce, grain);
  }
  std::uint64_t tasks_created() const {
    const pilfer::pool_stats s = p_.stats();
    return s.submitted + s.total.join_pushes;
  }

  void wait_idle() { p_.wait_idle(); }
  void shutdown() { p_.shutdown(pilfer::shutdown_mode::drain); }

  /// POOL-13: a pool on the synthetic topology; home PUs and victim groups as the pool computed them.
  static placement_view placement_on(const std::string& synthetic, unsigned workers) {
    return placement_with(pilfer::topology::synthetic(synthetic), workers);
  }
  static pinned_view run_pinned(unsigned workers, int tasks) {
    pilfer::pool_options o;
    o.threads = workers;
    o.pin = true;
    pilfer::basic_pool<Sync> p(std::move(o));
    pilfer::std_sync::atomic<int> ran{0};
    for (int i = 0; i < tasks; ++i) p.spawn([&ran] { ran.fetch_add(1, PILFER_SITE("conformance.done", relaxed)); });
    p.wait_idle();
    pinned_view v;
    v.tasks_ran = ran.load(PILFER_SITE("conformance.done", relaxed));
    v.cores = p.topology().num_cores();
    for (unsigned w = 0; w < p.size(); ++w) {
      int core = -1;
      for (const auto& pu : p.topology().pus())
        if (p.pinned_cpu(w) >= 0 && pu.os_index == static_cast<unsigned>(p.pinned_cpu(w))) core = static_cast<int>(pu.core);
      v.pinned_core.push_back(core);
    }
    return v;
  }

 protected:
  static placement_view placement_with(pilfer::topology t, unsigned workers) {
    pilfer::pool_options o;
    o.threads = workers;
    o.topo = std::move(t);
    pilfer::basic_pool<Sync> p(std::move(o));
    placement_view v;
    for (unsigned w = 0; w < p.size(); ++w) {
      v.home_pu.push_back(p.placement(w));
      v.victims.push_back(p.victim_groups(w));
    }
    return v;
  }

 private:
  /// One task_handle behind a copyable waiter: every caller waits; the first collects the result.
  struct shared_handle {
    explicit shared_handle(pilfer::basic_task_handle<void, Sync> x) : h(std::move(x)) {}
    void wait_and_rethrow() {
      h.wait();
      std::exception_ptr e;
      {
        std::lock_guard<pilfer::std_sync::mutex> g(m);
        if (!collected) {
          collected = true;
          try {
            h.get();
          } catch (...) {
            error = std::current_exception();
          }
        }
        e = error;
      }
      if (e) std::rethrow_exception(e);
    }
    pilfer::basic_task_handle<void, Sync> h;
    pilfer::std_sync::mutex m;
    bool collected = false;
    std::exception_ptr error;
  };

  static pilfer::pool_options make_options(unsigned n, basic_pilfer_pool* self) {
    pilfer::pool_options o;
    o.threads = n;
    o.on_uncaught = [self](std::exception_ptr e) { self->uncaught(e); };
    return o;
  }
  void uncaught(std::exception_ptr e) {
    std::lock_guard<pilfer::std_sync::mutex> g(hook_m_);
    if (hook_) hook_(e);  // no hook set: the suite does not look at lost exceptions in this case
  }

  pilfer::std_sync::mutex hook_m_;
  std::function<void(std::exception_ptr)> hook_;
  pilfer::basic_pool<Sync> p_;
};
using pilfer_pool = basic_pilfer_pool<>;

}  // namespace pilfer::conformance
