// The task block cache gives back the main thread's blocks even when the main thread's last frees come
// during static destruction, after its thread_local objects were destroyed: a pool and handles at
// namespace scope, the handles released after main returns. The program counts the blocks in use
// (pilfer/testing/failing_new.hpp) when `checker` is made, before the pool, and again when it is
// destroyed, after everything else: any block still held by a cache is a difference. Its own
// executable: the check runs after main, where no test framework runs.
// Before: the drain was registered at the first free, here during static destruction, after glibc had
// run the main thread's thread_local destructors: 256 blocks stayed cached (valgrind: still reachable).
// @verifies POOL-17: nothing leaks (the cache's blocks are given back when a thread, here main, exits)
#include "pilfer/testing/failing_new.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pilfer/pool.hpp"

#if defined(PILFER_TESTING_FAILING_NEW)
namespace {
struct blocks_in_use_at_exit {
  long at_start = pilfer::testing::blocks_in_use();
  blocks_in_use_at_exit() = default;
  blocks_in_use_at_exit(const blocks_in_use_at_exit&) = delete;
  blocks_in_use_at_exit& operator=(const blocks_in_use_at_exit&) = delete;
  ~blocks_in_use_at_exit() {
    const long now = pilfer::testing::blocks_in_use();
    if (now != at_start) {
      std::fprintf(stderr, "FAIL: %ld blocks from operator new still in use after static destruction (%ld before the pool)\n",
                   now, at_start);
      std::_Exit(1);
    }
    std::printf("ok: %ld blocks in use before the pool and after static destruction\n", now);
  }
};
blocks_in_use_at_exit checker;  // made first, destroyed last
pilfer::pool pool({.threads = 2});
std::vector<pilfer::task_handle<int>> handles;  // destroyed after main's thread_local objects
}  // namespace

int main() {
  handles.reserve(1000);
  for (int i = 0; i < 1000; ++i) handles.push_back(pool.submit([i] { return i; }));
  pool.wait_idle();
  return 0;
}
#else
#error "task_cache_exit_check needs the counting operator new: build it only without ASan/TSan (lib/tests/CMakeLists.txt)"
#endif
