// pilfer/detail/hot_inline.hpp — PILFER_HOT_INLINE, PILFER_NOINLINE: for the few small functions on the per-task
// path (join's push and pop-back, a spawn's admit and place, a push's wake check, a task's execute, the
// statistics bump).
//
// Why: GCC's inliner works against a budget per translation unit (--param inline-unit-growth).
// The pool's headers are large (waits, spares, task groups), and a program that includes them
// spends that budget before it reaches these calls ("inline-unit-growth limit reached"): in a
// 1-worker fib(25) through join, g++ 12 -O3 made seven out-of-line calls per join — 245
// instructions per join (callgrind), 148 when the budget is raised far enough to inline them
// all. Forcing these few keeps the fast path independent of how much else the unit holds:
// 191 with the pool's helpers forced, 156 with the deque's push and pop forced too (the
// deque's growth stays out of line); their slow halves stay out of line (PILFER_NOINLINE), so
// the forced code is small.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define PILFER_HOT_INLINE [[gnu::always_inline]] inline
#define PILFER_NOINLINE [[gnu::noinline]]
#else
#define PILFER_HOT_INLINE inline
#define PILFER_NOINLINE
#endif
