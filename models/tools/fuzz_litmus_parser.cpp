// fuzz_litmus_parser — libFuzzer target for the litmus / CppMem front-end (requirement MC-8).
//
// Every input must either parse, or be rejected with a parse_error (a line:col message):
// any other exception, a crash, a sanitizer report, a hang or unbounded memory is a bug.
// Parsed programs are also run, each thread sequentially against a bounded cell memory, so
// the interpreter (address arithmetic, loops, CAS on a location, readsvalue) is exercised,
// and the condition is evaluated and printed on the final state.
//
// Build: -DPILFER_BUILD_FUZZ=ON with clang (-fsanitize=fuzzer,address). Seed corpus:
// models/litmus/fuzz_corpus/. ctest fuzz.litmus_parser runs a bounded number of iterations.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "litmus_parser.hpp"

namespace {

namespace lm = pilfer::litmus;

/// Sequential memory over the program's cells; every index is checked (an out-of-range
/// cell from the interpreter is a front-end bug, reported as a crash).
class cell_memory final : public lm::memory {
 public:
  explicit cell_memory(const lm::program& p) {
    for (const auto& l : p.locations) cells_.push_back(l.init);
  }
  lm::value load(int loc, lm::order, const std::string&) override { return at(loc); }
  void store(int loc, lm::value v, lm::order, const std::string&) override { at(loc) = v; }
  lm::value rmw(int loc, lm::rmw_op op, lm::value operand, lm::order, const std::string&) override {
    const lm::value old = at(loc);
    at(loc) = lm::apply_rmw(op, old, operand);
    return old;
  }
  bool cas(int loc, lm::value& expected, lm::value desired, lm::order, lm::order,
           const std::string&) override {
    if (at(loc) == expected) {
      at(loc) = desired;
      return true;
    }
    expected = at(loc);
    return false;
  }
  void fence(lm::order, const std::string&) override { tick(); }
  lm::value plain_read(int loc, const std::string&) override { return at(loc); }
  void plain_write(int loc, lm::value v, const std::string&) override { at(loc) = v; }
  lm::value final_value(int loc) { return at(loc); }

 private:
  lm::value& at(int loc) {
    tick();
    if (loc < 0 || static_cast<std::size_t>(loc) >= cells_.size()) __builtin_trap();
    return cells_[static_cast<std::size_t>(loc)];
  }
  void tick() {
    if (++ops_ > 1000000) __builtin_trap();  // the step bound must stop loops long before this
  }
  std::vector<lm::value> cells_;
  std::size_t ops_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string src(reinterpret_cast<const char*>(data), size);
  lm::program p;
  try {
    p = lm::parse(src);
  } catch (const lm::parse_error& e) {
    if (e.line() < 1 || e.column() < 1) __builtin_trap();  // positions are 1-based
    for (const char* c = e.what(); *c; ++c)  // one line, printable
      if (static_cast<unsigned char>(*c) < 0x20) __builtin_trap();
    return 0;
  }
  cell_memory m(p);
  std::vector<std::vector<lm::value>> regs(p.threads.size());
  for (unsigned t = 0; t < p.threads.size(); ++t) {
    regs[t] = lm::initial_registers(p, t);
    (void)lm::run_thread(p, t, m, regs[t]);
  }
  lm::state s;
  for (const auto& o : p.observed) {
    if (o.thread >= 0) {
      const auto& r = regs.at(static_cast<std::size_t>(o.thread));
      s.push_back(r.at(static_cast<std::size_t>(o.slot)));
    } else {
      s.push_back(m.final_value(o.slot));
    }
  }
  (void)lm::evaluate(*p.cond, s);
  (void)lm::format_state(p, s);
  return 0;
}
