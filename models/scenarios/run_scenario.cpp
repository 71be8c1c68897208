// Runs one registered scenario (argv[1] = name) exhaustively; exit code = verdict.
// Options: --random (random mode, seed printed; PILFER_SEED=N or --seed=N), --replay=TOKEN,
// --weaken=TAG=ORDER (e.g. --weaken=deque.P2=relaxed; repeatable).
#include "scenarios.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

using namespace pilfer::model;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NAME [--random] [--seed=N] [--replay=TOKEN] [--weaken=TAG=ORDER]...\n", argv[0]);
    for (const auto& e : scenarios::all_scenarios()) std::fprintf(stderr, "  %s\n", e.name.c_str());
    return 2;
  }
  const std::string name = argv[1];
  for (const auto& e : scenarios::all_scenarios()) {
    if (e.name != name) continue;
    options o = e.opts;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--random") o.how = mode::random;
      if (a.rfind("--seed=", 0) == 0) o.seed = std::stoull(a.substr(7));
      if (a.rfind("--replay=", 0) == 0) o.replay = a.substr(9);
      if (a.rfind("--weaken=", 0) == 0) {
        const std::string kv = a.substr(9);
        const auto eq = kv.find('=');
        const std::string ord = eq == std::string::npos ? "relaxed" : kv.substr(eq + 1);
        const std::memory_order mo = ord == "seq_cst"   ? std::memory_order_seq_cst
                                     : ord == "acq_rel" ? std::memory_order_acq_rel
                                     : ord == "acquire" ? std::memory_order_acquire
                                     : ord == "release" ? std::memory_order_release
                                                        : std::memory_order_relaxed;
        o.weaken[kv.substr(0, eq)] = mo;
      }
    }
    if (o.how == mode::random) {
      if (const char* s = std::getenv("PILFER_SEED")) o.seed = std::stoull(s);
      else if (o.seed == 0) o.seed = std::random_device{}();
      std::printf("seed=%llu\n", static_cast<unsigned long long>(o.seed));
    }
    const result r = check(e.make, o);
    std::printf("%-32s %s  [%s]\n", e.name.c_str(), r.summary().c_str(), e.ids.c_str());
    if (!r.ok) std::printf("%s: %s\nreplay: --replay=%s\n%s", r.kind.c_str(), r.message.c_str(), r.replay_token.c_str(), r.trace.c_str());
    return r.ok ? 0 : 1;
  }
  std::fprintf(stderr, "unknown scenario %s\n", name.c_str());
  return 2;
}
