// models/clients/client.hpp — one test client of GenMC's suite, ported as a pilfer scenario.
//
// Each client_*.cpp file ports one program of GenMC's test suite (github.com/MPI-SWS/genmc, the
// commit named in expected.tsv): the same threads, operations, memory orders and assertions,
// written again in C++ against checker_sync (no GenMC code or comments are copied). What GenMC
// does to a program before exploring it is done by hand, so that both tools explore the same
// program:
//   - a spin loop that only reads (GenMC's spin-assume transformation) becomes spin_until below:
//     assume() of the loop's exit condition, as GenMC's transformation has it, or — with
//     pilfer_model_clients --awaits — atomic<T>::await, which blocks the thread instead of
//     ending the execution (the same complete executions, no blocked ones from the loop);
//   - `-unroll=N` (GenMC bounds a loop's header to N entries) is loop_bound below, one per loop.
//     GenMC v0.11 then ends the thread (clears its stack: the execution may be complete); enter()
//     blocks instead, which is the same wherever the bound is not reached in a complete execution
//     (the clients' counts match GenMC's), enter_or_end() ends the thread as GenMC does (ms_queue,
//     where the bound is reached at 3 threads). Where the header is (a `while (!done)` test is
//     entered once more to leave) is part of the port: GenMC's -transform-output shows it;
//   - plain memory that GenMC's run declares racy on purpose (`-disable-race-detection`) is a relaxed
//     atomic, which is what GenMC's exploration of such an access amounts to; plain memory the
//     program accesses race-free is a checker cell (a race there would be reported).
// The execution counts both tools reach are in expected.tsv; clients_main.cpp checks them.
#pragma once

#include <pilfer/model/checker.hpp>

#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

namespace pilfer::model::clients {

struct client {
  std::string name;        ///< the ctest / command-line name, e.g. "chase_lev"
  std::string genmc_path;  ///< the program's folder in GenMC's repository
  std::string parameters;  ///< threads and sizes, as GenMC's run of it sets them
  std::function<std::unique_ptr<scenario>()> make;
  options opts{};
  /// "" — the client is correct; else the result::kind GenMC reports for it (a tests/wrong program).
  std::string expected_failure{};
};

/// Per-thread free lists of node indices, as GenMC's node-recycling clients keep them: 0 is an
/// empty slot; each row is touched by its own thread only, so it is plain memory.
template <unsigned Threads, unsigned PerThread>
struct free_lists {
  unsigned row[Threads][PerThread] = {};

  unsigned take(unsigned t) {
    for (unsigned& n : row[t])
      if (n != 0) return std::exchange(n, 0u);
    PILFER_MODEL_ASSERT(false);  // free list empty
    return 0;
  }
  void give_back(unsigned t, unsigned n) {
    PILFER_MODEL_ASSERT(n != 0);
    for (unsigned& slot : row[t])
      if (slot == 0) {
        slot = n;
        return;
      }
    PILFER_MODEL_ASSERT(false);  // free list full
  }
};

/// How the clients' read-only spin loops are written: the form of GenMC's spin-assume (the default,
/// whose counts expected.tsv holds) or pilfer's await (pilfer_model_clients --awaits).
enum class spin_form { assume, await };
inline spin_form& spin_loops() noexcept {
  static spin_form form = spin_form::assume;
  return form;
}

/// The read-only spin loop `do v = x.load(s); while (!exit(v));` in the form spin_loops() names.
template <class T, class Exit>
T spin_until(const checker_sync::atomic<T>& x, Exit exit, order_site s,
             std::source_location loc = std::source_location::current()) {
  if (spin_loops() == spin_form::await) return x.await(exit, s, loc);
  const T v = x.load(s, loc);
  assume(exit(v));
  return v;
}

/// The retry loop `while (!x.compare_exchange_strong(e = expected, desired, s, f)) {}` with a constant
/// `expected` (a failed attempt writes nothing), in the form spin_loops() names: assume(the CAS
/// succeeds), GenMC's form, or atomic<T>::await_exchange.
template <class T>
void cas_until(checker_sync::atomic<T>& x, T expected, T desired, order_site s, order_site f,
               std::source_location loc = std::source_location::current()) {
  if (spin_loops() == spin_form::await) return x.await_exchange(expected, desired, s, loc);
  assume(x.compare_exchange_strong(expected, desired, s, f, loc));
}

/// GenMC's `-unroll=N` for one loop: call enter() at the top of every iteration; the (N+1)-th
/// call blocks the execution (assume(false)), as GenMC's bounded loop kills its thread there.
class loop_bound {
 public:
  explicit loop_bound(unsigned n) noexcept : left_(n) {}
  void enter() {
    assume(left_ > 0);
    --left_;
  }
  /// GenMC v0.11's own behaviour at the bound (its runtime clears the thread's stack there): the
  /// thread just ends, nothing is blocked, and the execution counts as complete. false: the
  /// caller returns from the thread at once.
  [[nodiscard]] bool enter_or_end() noexcept {
    if (left_ == 0) return false;
    --left_;
    return true;
  }

 private:
  unsigned left_;
};

// One factory per client file.
client chase_lev_client();
client treiber_stack_client();
client ms_queue_client();
client ms_queue_3_client();
client ms_queue_loops_client();
std::vector<client> ms_queue_variant_clients();  // ms_queue_t<T>_u<U>_r<R>: comparison variants, not GenMC runs
client linuxrwlocks_client();
client linuxrwlocks_loops_client();
client mpmc_queue_client();
client qu_client();
client spinlock_client();
client ticketlock_client();
client fib_bench_client();
client ainc_client();
client conf_loop_small_client();
client conf_loop_client();

/// Every client, in the order the table in models/README.md lists them.
std::vector<client> all_clients();

}  // namespace pilfer::model::clients
