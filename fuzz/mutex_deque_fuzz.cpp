// fuzz/mutex_deque_fuzz.cpp — pilfer::mutex_deque against the sequential model (deque_model_check.hpp).
// @verifies DQ-1 DQ-2 DQ-6
#include <pilfer/mutex_deque.hpp>

#include "deque_model_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pilfer::fuzz::fuzz_input in(data, size);
  pilfer::fuzz::run_deque_program<pilfer::mutex_deque<std::uint64_t>>(in);
  return 0;
}
