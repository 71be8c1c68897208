// pilfer/testing/sanitizers.hpp — which sanitizer this translation unit is built with (g++ and clang spell it
// differently). The macros are for #if around code a sanitizer owns (a replaced operator new); the constants
// for ordinary code (scaling a workload down under TSan).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define PILFER_TESTING_TSAN 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PILFER_TESTING_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) && !defined(PILFER_TESTING_TSAN)
#define PILFER_TESTING_TSAN 1
#endif
#if __has_feature(address_sanitizer) && !defined(PILFER_TESTING_ASAN)
#define PILFER_TESTING_ASAN 1
#endif
#endif

namespace pilfer::testing {

#if defined(PILFER_TESTING_TSAN)
inline constexpr bool under_tsan = true;
#else
inline constexpr bool under_tsan = false;
#endif
#if defined(PILFER_TESTING_ASAN)
inline constexpr bool under_asan = true;
#else
inline constexpr bool under_asan = false;
#endif
/// TSan or ASan: they replace operator new and slow everything down.
inline constexpr bool under_sanitizer = under_tsan || under_asan;

}  // namespace pilfer::testing
