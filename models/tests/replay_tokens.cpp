// Engine self-test: a replay token reproduces its failure, and any other token — malformed, or
// naming decisions this scenario's execution does not take — is a model error ("replay token
// does not match this scenario: ..."), never a crash, an uncaught exception or another
// execution's verdict.
// @verifies MC-3
#include "test_util.hpp"

using namespace pilfer::model;
using namespace pilfer::model::test;

namespace {

// MP with the flag's release weakened: its assertion fails, with a replay token
struct mp_assert : scenario {
  S::atomic<int> data{0}, flag{0};
  mp_assert() : scenario(2) {}
  void thread(unsigned i) override {
    if (i == 0) {
      data.store(1, PILFER_SITE("hi.data", relaxed));
      flag.store(1, PILFER_SITE("hi.flag", release));
    } else if (flag.load(PILFER_SITE("hi.rflag", acquire)) == 1) {
      PILFER_MODEL_ASSERT(data.load(PILFER_SITE("hi.rdata", relaxed)) == 1);
    }
  }
};

}  // namespace

int main() {
  runner t;

  // --- replay tokens ---
  options weak;
  weak.weaken["hi.flag"] = std::memory_order_relaxed;
  const result w = check<mp_assert>(weak);
  t.expect_failure("weakened MP fails (gives a replay token)", w, "assertion");
  {
    options rep = weak;
    rep.replay = w.replay_token;
    const result again = check<mp_assert>(rep);
    t.expect(!again.ok && again.kind == "assertion", "its own token still replays the failure",
             "token=" + w.replay_token + " [" + again.summary() + "] " + again.message);
  }
  const char* bad_tokens[] = {
      "pm1.9",                       // a thread pick beyond the threads (was a segfault)
      "pm1.0.9",                     // the same, second decision
      "pm1.*",                       // (was std::invalid_argument)
      "pm1.0**2",                    // (was std::invalid_argument)
      "pm1.0*99999999999999999999",  // (was std::out_of_range)
      "pm1.0*4000000000",            // more decisions than any execution takes
      "garbage",                     // (ran the default execution and said ok)
      "pm2.0",                       // another format (ran the default execution and said ok)
      "pm1.0*500",                   // more decisions than this scenario's executions take
      "pm1",                         // fewer
      "pm1..0",
      "pm1.-1",
      "pm1.0*0",
  };
  for (const char* tok : bad_tokens) {
    options rep = weak;
    rep.replay = tok;
    const result r = check<mp_assert>(rep);
    t.expect(!r.ok && r.kind == "model error" && r.message.find("replay token does not match this scenario") == 0,
             std::string("replay token '") + tok + "' is refused", "[" + r.summary() + "] " + r.kind + ": " + r.message);
  }

  return t.done();
}
