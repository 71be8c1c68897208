// Runs one registered scenario (argv[1] = name) exhaustively; exit code = verdict.
// Options: --random (random mode, seed printed; PILFER_SEED=N or --seed=N), --replay=TOKEN,
// --weaken=TAG=ORDER (e.g. --weaken=deque.P2=relaxed; repeatable), --model=c++20|rc11,
// --shard=I/N (explore shard I of N; N runs together cover the space).
#include "scenarios.hpp"

#include <pilfer/testing/seed.hpp>

#include <cstdio>
#include <cstring>
#include <string>

using namespace pilfer::model;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NAME [--random] [--seed=N] [--replay=TOKEN] [--weaken=TAG=ORDER]... [--model=c++20|rc11] [--shard=I/N]\n", argv[0]);
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
      if (a.rfind("--seed=", 0) == 0) {
        const auto v = pilfer::testing::parse_u64(a.substr(7));
        if (!v) {
          std::fprintf(stderr, "error: --seed expects an unsigned decimal number, got '%s'\n", a.c_str() + 7);
          return 2;
        }
        o.seed = *v;
      }
      if (a.rfind("--replay=", 0) == 0) o.replay = a.substr(9);
      if (a.rfind("--model=", 0) == 0) {
        const auto m = parse_memory_model(a.substr(8));
        if (!m) {
          std::fprintf(stderr, "error: unknown memory model '%s' (c++20 or rc11)\n", a.substr(8).c_str());
          return 2;
        }
        o.model = *m;
      }
      if (a.rfind("--shard=", 0) == 0) {  // --shard=I/N
        unsigned si = 0, sn = 0;
        char tail = 0;
        if (std::sscanf(a.c_str() + 8, "%u/%u%c", &si, &sn, &tail) != 2 || sn == 0 || si >= sn) {
          std::fprintf(stderr, "error: --shard expects I/N with 0 <= I < N, got '%s'\n", a.c_str() + 8);
          return 2;
        }
        o.shard_index = si;
        o.shard_count = sn;
      }
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
      if (const auto s = pilfer::testing::env_seed()) o.seed = *s;  // malformed: one line, exit 2
      else if (o.seed == 0) o.seed = pilfer::testing::fresh_seed();
      pilfer::testing::print_seed(o.seed);
    }
    const result r = check(e.make, o);
    std::printf("%-32s %s  [%s]\n", e.name.c_str(), r.summary().c_str(), e.ids.c_str());
    if (!r.ok) std::printf("%s: %s\nreplay: --replay=%s\n%s", r.kind.c_str(), r.message.c_str(), r.replay_token.c_str(), r.trace.c_str());
    return r.ok ? 0 : 1;
  }
  std::fprintf(stderr, "unknown scenario %s\n", name.c_str());
  return 2;
}
