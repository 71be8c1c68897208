// pilfer/parallel.hpp — fork-join on a pool: join, parallel_for, parallel_reduce.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "pilfer/pool.hpp"

namespace pilfer {

/// Run `a` and `b`, potentially in parallel; return when both finished.
/// On a worker: `b` is pushed onto the own deque (a thief may take it), `a`
/// runs inline, then `b` is popped back and run, or — stolen — the caller
/// runs only tasks descending from `b` and otherwise sleeps until the thief
/// is done (POOL-11, POOL-19). Tasks `a` spawned and left on the deque are
/// moved to the injector, not run on this frame.
/// Elsewhere: the whole join runs as one task of `p` and the caller blocks.
/// If a branch throws, the other still completes; `a`'s exception wins.
template <class Sync, class A, class B>
void join(basic_pool<Sync>& p, A&& a, B&& b) {
  using access = detail::pool_access<Sync>;
  auto* w = access::current(p);
  if (w == nullptr) {
    p.submit([&] { join(p, a, b); }).get();
    return;
  }
  detail::stack_job<std::remove_reference_t<B>, Sync> job(b, w->current, &w->join_signal);
  access::join_push(p, *w, &job);
  std::exception_ptr ea;
  try {
    a();
  } catch (...) {
    ea = std::current_exception();
  }
  access::join_finish(p, *w, job);
  if (ea) std::rethrow_exception(ea);
  if (job.error.read()) std::rethrow_exception(job.error.read());
}

namespace detail {

/// Length of [b, e) for b < e, without signed overflow.
template <class I>
std::make_unsigned_t<I> range_length(I b, I e) noexcept {
  using U = std::make_unsigned_t<I>;
  return static_cast<U>(static_cast<U>(e) - static_cast<U>(b));
}

/// b + len/2 without signed overflow (the result lies in [b, e)).
template <class I>
I range_middle(I b, I e) noexcept {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(b) + range_length(b, e) / 2));
}

/// Where the pieces of a range run. Each range has a HOME: an interval [lo, hi) of worker indices
/// (the whole range: every worker); a split gives the left half [lo, m) and the right half [m, hi).
/// The worker that splits keeps the half whose home holds its index and exposes the other to
/// thieves, so a loop run again puts each piece on the worker that ran it last time, with its data
/// still in that worker's cache — wherever the root started (from outside the pool, the root task
/// runs on whichever worker finds it first). Only the order of the two arms changes: every piece
/// still runs exactly once, and a thief takes whatever is exposed.
struct home_range {
  unsigned lo, hi;
  unsigned middle() const noexcept { return lo + (hi - lo) / 2; }
  home_range left() const noexcept { return hi - lo > 1 ? home_range{lo, middle()} : *this; }
  home_range right() const noexcept { return hi - lo > 1 ? home_range{middle(), hi} : *this; }
  /// True when worker `me` should run the right half itself.
  bool keeps_right(unsigned me) const noexcept { return hi - lo > 1 && me >= middle() && me < hi; }
};

/// join(p, left, right), or with the arms swapped when the caller keeps the right half; either way
/// an exception of the left half wins over one of the right half (join order, as documented).
template <class Sync, class L, class R>
void join_halves(basic_pool<Sync>& p, bool keep_right, L&& left, R&& right) {
  if (!keep_right) {
    join(p, left, right);
    return;
  }
  std::exception_ptr el, er;
  join(
      p,
      [&] {
        try {
          right();
        } catch (...) {
          er = std::current_exception();
        }
      },
      [&] {
        try {
          left();
        } catch (...) {
          el = std::current_exception();
        }
      });
  if (el) std::rethrow_exception(el);
  if (er) std::rethrow_exception(er);
}

/// The loop of a leaf: run(x, y) over consecutive chunks of [b, e) until the range is done or,
/// with more than `grain` items left, the caller has nothing queued for thieves while some worker
/// of `p` is idle (pool_access::leaf_should_split); returns where it stopped (e when all ran).
/// Chunks grow 1, 2, 4, ... up to 4096 items: a leaf of costly items notices an idle worker soon
/// after it starts, one of cheap items looks once per 4096 items. Why: the split budget is spent
/// before a leaf starts, so without this a worker that ran out of pieces waits for whole leaves
/// of the others — on a machine whose cores run at different speeds (a busy hyperthread
/// sibling, a shared host) the slower core's leaves set the loop's time. The empty-deque test
/// keeps a leaf from splitting again while the half it exposed is still there to steal (without
/// it, a loop of 10^7 cheap items split ~3 000 times per call while a woken worker was on its
/// way, and ran 1.8x slower).
template <class Sync, class I, class Run>
I run_until_idle(basic_pool<Sync>& p, I b, I e, std::size_t grain, Run&& run) {
  using U = std::make_unsigned_t<I>;
  constexpr std::uint64_t max_chunk = 4096;  // counted in 64 bits: U may be unsigned char
  std::uint64_t chunk = 1;
  for (;;) {
    const std::uint64_t step = std::min<std::uint64_t>(chunk, range_length(b, e));
    const I c = static_cast<I>(static_cast<U>(static_cast<U>(b) + static_cast<U>(step)));
    run(b, c);
    b = c;
    if (!(b < e)) return e;
    if (range_length(b, e) > grain && pool_access<Sync>::leaf_should_split(p)) return b;
    if (chunk < max_chunk) chunk *= 2;
  }
}

/// Adaptive splitting (seed 000 "automatic chunking"; Tzannes' lazy binary
/// splitting as done by Rayon): a range is halved while it is larger than
/// `grain` and the split budget lasts; the budget halves at each split and is
/// refilled to size() when a half was stolen (ran on another worker than the
/// one that split it) — thieves are hungry, so make more pieces. A leaf that
/// finds a worker idle between its chunks splits what it has left the same way
/// (run_until_idle).
template <class Sync, class I, class F>
void pfor_rec(basic_pool<Sync>& p, I b, I e, std::size_t grain, unsigned splits, unsigned origin, home_range home,
              F& f) {
  const unsigned me = p.current_worker_index().value_or(origin);
  if (me != origin) splits = std::max(splits, p.size());
  if (range_length(b, e) > grain && splits > 0) {
    splits /= 2;
    const I mid = range_middle(b, e);
    join_halves(
        p, home.keeps_right(me), [&] { pfor_rec(p, b, mid, grain, splits, me, home.left(), f); },
        [&] { pfor_rec(p, mid, e, grain, splits, me, home.right(), f); });
    return;
  }
  const I rest = run_until_idle(p, b, e, grain, [&f](I x, I y) {
    for (I i = x; i < y; ++i) f(i);
  });
  if (rest < e) pfor_rec(p, rest, e, grain, p.size(), me, home, f);
}

template <class Sync, class I, class T, class M, class R>
T preduce_rec(basic_pool<Sync>& p, I b, I e, const T& identity, std::size_t grain, unsigned splits,
              unsigned origin, home_range home, M& map, R& reduce) {
  const unsigned me = p.current_worker_index().value_or(origin);
  if (me != origin) splits = std::max(splits, p.size());
  if (range_length(b, e) > grain && splits > 0) {
    splits /= 2;
    const I mid = range_middle(b, e);
    std::optional<T> l, r;
    join_halves(
        p, home.keeps_right(me),
        [&] { l.emplace(preduce_rec(p, b, mid, identity, grain, splits, me, home.left(), map, reduce)); },
        [&] { r.emplace(preduce_rec(p, mid, e, identity, grain, splits, me, home.right(), map, reduce)); });
    return reduce(std::move(*l), std::move(*r));
  }
  T acc = identity;
  const I rest = run_until_idle(p, b, e, grain, [&](I x, I y) {
    for (I i = x; i < y; ++i) acc = reduce(std::move(acc), map(i));
  });
  if (!(rest < e)) return acc;
  return reduce(std::move(acc), preduce_rec(p, rest, e, identity, grain, p.size(), me, home, map, reduce));
}

}  // namespace detail

/// f(i) for every i in [begin, end) (empty if begin >= end), in parallel.
/// Any range of the index type, e.g. [INT_MIN, INT_MAX), is split without overflow.
/// grain: largest piece not split further (0 = automatic: adaptive).
/// Exceptions: the first one (in join order) propagates; the rest of the
/// range may or may not have run.
template <class Sync, class I, class F>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
void parallel_for(basic_pool<Sync>& p, I begin, I end, F&& f, std::size_t grain = 0) {
  if (!(begin < end)) return;
  if (grain == 0) grain = 1;
  if (!p.current_worker_index()) {
    p.submit([&] { parallel_for(p, begin, end, f, grain); }).get();
    return;
  }
  detail::pfor_rec(p, begin, end, grain, p.size(), *p.current_worker_index(), detail::home_range{0, p.size()}, f);
}

/// reduce(...reduce(reduce(identity, map(begin)), map(begin+1))..., map(end-1)),
/// computed in parallel; `reduce` must be associative and `identity` its
/// neutral element (the order of operands is kept, commutativity is not needed).
template <class Sync, class I, class T, class M, class R>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
T parallel_reduce(basic_pool<Sync>& p, I begin, I end, T identity, M&& map, R&& reduce, std::size_t grain = 0) {
  if (!(begin < end)) return identity;
  if (grain == 0) grain = 1;
  if (!p.current_worker_index()) {
    return p.submit([&] { return parallel_reduce(p, begin, end, identity, map, reduce, grain); }).get();
  }
  return detail::preduce_rec(p, begin, end, identity, grain, p.size(), *p.current_worker_index(),
                             detail::home_range{0, p.size()}, map, reduce);
}

}  // namespace pilfer
