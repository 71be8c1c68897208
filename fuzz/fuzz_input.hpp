// fuzz/fuzz_input.hpp — reads a libFuzzer input as a stream of small numbers, and reports a broken
// property as a crash (libFuzzer's convention: the input is saved and the run stops).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace pilfer::fuzz {

/// A cursor over the fuzzer's bytes; reading past the end yields 0 and ends the program.
class fuzz_input {
 public:
  fuzz_input(const std::uint8_t* data, std::size_t size) noexcept : p_(data), end_(data + size) {}
  bool more() const noexcept { return p_ < end_; }
  std::uint8_t byte() noexcept { return p_ < end_ ? *p_++ : 0; }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

/// A property of the structure under test did not hold: say which, and crash so libFuzzer keeps the input.
[[noreturn]] inline void property_broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: property broken: %s\n", file, line, what);
  std::abort();
}

}  // namespace pilfer::fuzz

#define PILFER_FUZZ_EXPECT(cond) \
  ((cond) ? (void)0 : ::pilfer::fuzz::property_broken(#cond, __FILE__, __LINE__))
