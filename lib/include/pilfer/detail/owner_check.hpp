// pilfer/detail/owner_check.hpp — debug-build check that owner-only operations
// of a deque are called from one thread.
//
// The first owner operation records Sync::thread_id(); later owner operations
// compare against it and abort with a message naming the operation. In NDEBUG
// builds the class is empty and every call folds away. The recorded id is a
// plain field: under correct use only the owner touches it; under misuse the
// check fires (the race is on the diagnostic itself, never on the deque).
// A legitimate hand-over to another thread (after a happens-before edge such
// as thread creation) must call release() — basic_deque::release_owner().
#pragma once

#include <cstdio>
#include <cstdlib>

namespace pilfer::detail {

template <class Sync>
class owner_check {
 public:
#ifndef NDEBUG
  void check(const char* op) noexcept {
    // Model policies skip the check: scenarios fill deques in before() on the
    // checker's main fiber and hand them to a modelled thread at its creation
    // (a synchronising event), and the checker itself reports what a second
    // owner would break (races, lost or duplicated items).
    if constexpr (Sync::is_model) {
      (void)op;
      return;
    }
    const auto me = Sync::thread_id();
    if (!bound_) {
      owner_ = me;
      bound_ = true;
      return;
    }
    if (!(owner_ == me)) {
      std::fprintf(stderr,
                   "pilfer: owner-only operation %s called from a thread that is not the owner "
                   "(the first thread that called push/pop/steal_batch-into on this deque); "
                   "use a stealer handle from other threads, or release_owner() to hand over\n",
                   op);
      std::abort();
    }
  }
  void release() noexcept { bound_ = false; }

 private:
  typename Sync::thread_id_type owner_{};
  bool bound_ = false;
#else
  void check(const char*) noexcept {}
  void release() noexcept {}
#endif
};

}  // namespace pilfer::detail
