// Engine self-test: scenarios at the engine's limits get a verdict (a named failure, or ok),
// never a crash, std::terminate or a false failure:
//   - a thread that makes many locations is not a livelock (location creation is not a step);
//   - 15 scenario threads run (16 with the main thread); 16 are a model error that says the limit;
//   - an exception that escapes thread(), after() or the constructor is failure kind "exception".
// @verifies MC-3 MC-10
#include "test_util.hpp"

#include <stdexcept>

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

// one thread makes many locations, then two threads store: no thread spins
template <int N>
struct many_locations : scenario {
  S::atomic<int> slots[N];
  many_locations() : scenario(2) {}
  void thread(unsigned i) override { slots[i].store(1, PILFER_SITE("hi.slot", relaxed)); }
};

// N threads each increment one counter: the sum is N in every execution
template <unsigned N>
struct n_threads : scenario {
  S::atomic<int> count{0};
  n_threads() : scenario(N) {}
  void thread(unsigned) override { count.fetch_add(1, PILFER_SITE("hi.count", relaxed)); }
  void after() override { PILFER_MODEL_ASSERT(count.load(PILFER_SITE("hi.final", relaxed)) == static_cast<int>(N)); }
};

struct throw_in_thread : scenario {
  S::atomic<int> x{0};
  throw_in_thread() : scenario(2) {}
  void thread(unsigned i) override {
    x.store(1, PILFER_SITE("hi.x", relaxed));
    if (i == 1) throw std::runtime_error("boom in thread");
  }
};
struct throw_in_after : scenario {
  S::atomic<int> x{0};
  throw_in_after() : scenario(1) {}
  void thread(unsigned) override { x.store(1, PILFER_SITE("hi.x", relaxed)); }
  void after() override { throw std::runtime_error("boom in after"); }
};
struct throw_in_constructor : scenario {
  throw_in_constructor() : scenario(1) { throw std::runtime_error("boom in constructor"); }
  void thread(unsigned) override {}
};
struct throw_non_std : scenario {
  throw_non_std() : scenario(1) {}
  void thread(unsigned) override { throw 42; }
};

void expect_exception(runner& t, const std::string& name, const result& r, const std::string& what) {
  t.expect(!r.ok && r.kind == "exception" && r.message.find(what) != std::string::npos && !r.replay_token.empty(),
           name, "[" + r.summary() + "] " + r.kind + ": " + r.message + " token=" + r.replay_token);
}

}  // namespace

int main() {
  runner t;

  // --- location creation is not a step (max_steps) ---
  options few;
  few.max_steps = 200;
  t.expect_ok("2100 locations made by one thread, then two stores: no livelock", check<many_locations<2100>>(few));

  // --- the thread limit: 16 with the main thread ---
  // (random mode: 15 threads' interleavings are too many to explore, and one execution shows
  // they run)
  options sampled;
  sampled.how = mode::random;
  sampled.iterations = 20;
  sampled.seed = 1;
  {
    const result r = check<n_threads<15>>(sampled);
    t.expect(r.ok && r.executions == 20, "15 scenario threads (16 with the main thread) run",
             "[" + r.summary() + "] " + r.kind + ": " + r.message);
  }
  {
    const result r = check<n_threads<16>>(sampled);
    t.expect(!r.ok && r.kind == "model error" && r.message.find("at most 15") != std::string::npos,
             "16 scenario threads: a model error that states the limit", r.kind + ": " + r.message);
  }

  // --- exceptions are failures, not std::terminate ---
  expect_exception(t, "exception escaping thread() is failure kind exception", check<throw_in_thread>(),
                   "boom in thread");
  expect_exception(t, "exception escaping after() is failure kind exception", check<throw_in_after>(), "boom in after");
  expect_exception(t, "exception escaping the constructor is failure kind exception", check<throw_in_constructor>(),
                   "boom in constructor");
  expect_exception(t, "a non-std exception is failure kind exception", check<throw_non_std>(),
                   "not derived from std::exception");
  {
    const result r = check<throw_in_thread>();
    options rep;
    rep.replay = r.replay_token;
    const result again = check<throw_in_thread>(rep);
    t.expect(!again.ok && again.kind == "exception", "an exception's replay token reproduces it",
             "token=" + r.replay_token + " [" + again.summary() + "] " + again.message);
  }
  return t.done();
}
