// models/engine/atomics.cpp — atomic locations and their operations: access, fence, wait, notify.
#include "checker.hpp"
#include "order_names.hpp"

#include <algorithm>
#include <utility>

namespace pilfer::model::engine {

void checker::after_write(std::uint32_t t) {
  for (std::uint32_t o = 0; o < threads_.size(); ++o)
    if (o != t && threads_[o].status == tstatus::yielded) threads_[o].status = tstatus::runnable;
}

std::uint32_t checker::new_location(location::kind_t k, const void* addr, std::uint64_t init, bool initialised,
                                    detail::value_info info, const std::source_location& src) {
  mthread& th = threads_[cur_];
  const auto id = static_cast<std::uint32_t>(locs_.size());
  location& l = locs_.emplace_back();  // (made in place: a location is ~260 bytes)
  l.mo = reuse(spare32_);
  l.acc = reuse(spare32_);
  if (alt_active_) {  // (label_location sizes them)
    l.alt_key = reuse(spare64_);
    l.alt_mo_ha = reuse(spare64_);
    l.alt_mo_hb = reuse(spare64_);
  }
  l.kind = k;
  l.info = info;
  l.creator = cur_;
  l.key = combine(th.key, ++th.locs);
  label_location(l, th);  // (symmetry.cpp)
  l.file = src.file_name();
  l.line = src.line();
  if (made_by_the_checker_header(l.file)) {  // (inside make<T> or make_array<T>: their ::new is the place)
    // the memory the thread made last holds it: that make's place (make_array's caller, or for
    // make<T> the operation before it); else the thread's operation before it
    const auto it = regions_.find(th.last_made);
    const auto* base = static_cast<const char*>(th.last_made);
    const auto* at = static_cast<const char*>(addr);
    if (it != regions_.end() && at >= base && at < base + it->second.bytes && *it->second.file != '\0') {
      l.file = it->second.file;
      l.line = it->second.line;
      l.made_after = it->second.after;
    } else {
      l.file = "";
      l.made_after = last_user_place(cur_, l.file, l.line);
    }
  }
  const std::uint64_t mask = info.bits >= 64 ? ~0ull : ((1ull << info.bits) - 1);
  if (k != location::cell_loc) {  // the state hash's term for the location (empty mo so far)
    loc_hash_sum_a_ += combine(l.key, l.mo_ha);
    loc_hash_sum_b_ += combine_b(l.key, l.mo_hb);
  }
  if (finishing_) {  // no event: the location only holds its value
    l.last_value = init & mask;
    return id;
  }
  event e = make_event(k == location::cell_loc ? ek::cell_init : (initialised ? ek::init : ek::uninit), id, src);
  if (k != location::cell_loc) {
    e.wr = true;
    e.wval = init & mask;
  }
  compute_views(e, th);
  const auto gid = add_event(e, none);
  commit(gid);
  return id;
}

void checker::end_location(std::uint32_t id) noexcept {
  if (id == none || id >= locs_.size()) return;
  location& l = locs_[id];
  l.destroyer = cur_;
  l.dead_at = !destroying_.empty();
  if (l.dead_at) {
    l.dead_file = destroying_.back().second.file_name();
    l.dead_line = destroying_.back().second.line();
  } else {
    last_user_place(cur_, l.dead_file, l.dead_line);
  }
  if (!live()) {
    l.alive = false;
    return;
  }
  if (l.kind == location::mutex_loc && l.owner != none)
    PILFER_MODEL_FAIL("mutex misuse", "mutex " + location_name(id) + " destroyed while t" + std::to_string(l.owner) +
                                          " holds it");
  // destruction must happen after every access (else it races with them)
  const view& v = threads_[cur_].cur;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (a.thread != cur_ && a.index >= v.c[a.thread]) {
      PILFER_MODEL_FAIL("use after free", location_name(id) + " destroyed concurrently with its access by t" +
                                 std::to_string(a.thread) + ":" + std::to_string(a.index) + " at " +
                                 file_line(a.file, a.line));
    }
  }
  l.alive = false;
}

/// An access performed on the mo-latest value, recording nothing (finishing an execution, and
/// destructors run after it).
detail::access_result checker::passthrough(std::uint32_t id, const detail::access& a) {
  if (id >= locs_.size()) return {0, false};
  location& l = locs_[id];
  const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
  const std::uint64_t old = l.last_value & mask;
  if (a.cas) {
    if (old == (a.expected & mask)) {
      l.last_value = a.operand & mask;
      return {old, true};
    }
    return {old, false};
  }
  if (!a.is_write) return {old, true};
  std::uint64_t nv = a.operand;
  switch (a.op) {
    case detail::rmw_op::add: nv = old + a.operand; break;
    case detail::rmw_op::sub: nv = old - a.operand; break;
    case detail::rmw_op::bit_or: nv = old | a.operand; break;
    case detail::rmw_op::bit_and: nv = old & a.operand; break;
    default: break;  // store, exchange
  }
  l.last_value = nv & mask;
  return {old, true};
}

detail::access_result checker::access(std::uint32_t id, const detail::access& a, const std::source_location& src) {
  for (;;) {
    bool again = false;
    const detail::access_result r = access_once(id, a, src, &again);
    if (!again) return r;
    // An await found no accepted store it may read consistently (seq_cst order ruled each out):
    // the thread waits until the graph changes (await_satisfiable).
    threads_[cur_].await_stale = events_.size();
  }
}

namespace {
/// "acquire [tag]", or "42 (no std::memory_order)" for a value no order has: how an invalid
/// order is reported.
std::string order_text(const order_site& s) {
  std::string t = is_memory_order(s.order) ? std::string(orders::name_of(s.order))
                                           : std::to_string(static_cast<int>(s.order)) + " (no std::memory_order)";
  if (s.tag != nullptr && *s.tag != '\0') t += std::string(" [") + s.tag + "]";
  return t;
}

/// An order the standard does not allow for the access ([atomics.types.operations]: a load's is not
/// release or acq_rel, a store's not consume, acquire or acq_rel, a compare_exchange's failure
/// order not release or acq_rel; a read-modify-write takes any): which operation and its site.
/// Empty `what` when the orders are allowed.
struct order_misuse {
  const char* what = nullptr;
  order_site site{std::memory_order_relaxed, ""};  // (a placeholder: read only when `what` is set)
};
order_misuse invalid_order(const detail::access& a) noexcept {
  const std::memory_order o = a.site.order;
  if (!is_memory_order(o)) return {"an access", a.site};
  if (a.cas && !is_memory_order(a.fail_site.order)) return {"a compare_exchange failure", a.fail_site};
  const bool load = !a.is_write && a.op == detail::rmw_op::none && !a.cas;
  const bool store = a.is_write && a.op == detail::rmw_op::none && !a.cas;
  if (load && (o == std::memory_order_release || o == std::memory_order_acq_rel)) return {"a load", a.site};
  if (store && (o == std::memory_order_consume || o == std::memory_order_acquire || o == std::memory_order_acq_rel))
    return {"a store", a.site};
  // (await_exchange stands for the one-order compare_exchange loop, whose failure order is derived
  // from its order — acq_rel fails as acquire, release as relaxed —, and its failed attempts are not
  // modelled: its one order may be any)
  if (a.cas && !a.accept &&
      (a.fail_site.order == std::memory_order_release || a.fail_site.order == std::memory_order_acq_rel))
    return {"a compare_exchange failure", a.fail_site};
  return {};
}
}  // namespace

detail::access_result checker::access_once(std::uint32_t id, const detail::access& a, const std::source_location& src,
                                           bool* again) {
  if (finishing_) return a.accept ? finish_await(id, a) : finish_access(id, a);
  if (!live()) return passthrough(id, a);
  if (const order_misuse bad = invalid_order(a); bad.what != nullptr)
    PILFER_MODEL_FAIL("invalid order", "t" + std::to_string(cur_) + ": " + bad.what + " with order " +
                                           order_text(bad.site) + " on " + location_name(id) + ", at " + where(src) +
                                           " (an order the standard does not allow there: undefined behaviour)");
  // An awaited RMW (await_exchange) racing another RMW: the revisit exploration loses the
  // executions where the await's source is taken by the other RMW (a deadlock read as proved).
  if (revisit_ && a.accept && a.cas) rv_unsupported("await_exchange");
  if (a.accept) {  // an await: the scheduler runs this thread only once it may read an accepted value
    mthread& th = threads_[cur_];
    th.pend = pending::await;
    th.pend_arg = id;
    th.pend_src = src;
    th.await_accept = a.accept;
    th.await_ctx = a.accept_ctx;
    th.await_rmw = a.cas;
  }
  const bool explored = begin_op(src);
  if (a.accept) {
    threads_[cur_].pend = pending::idle;
    threads_[cur_].await_accept = nullptr;
  }
  if (!explored) return a.accept ? finish_await(id, a) : finish_access(id, a);
  location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("use after free", "t" + std::to_string(cur_) + " accessed " + location_name(id) +
                                            " after it was destroyed, at " + where(src));
  bool weakened = false;
  const std::memory_order o = effective(a.site, &weakened);
  event e = make_event(ek::load, id, src);
  e.tag = a.site.tag ? a.site.tag : "";
  e.declared = a.site.order;
  e.order = o;
  e.sc = o == std::memory_order_seq_cst;
  detail::access_result r{0, true};
  if (!a.is_write) {  // load
    e.acq = is_acquire(o);
    std::uint64_t v = 0;
    if (read_choose(e, nullptr, id, false, 0, a.accept ? &a : nullptr, &v, nullptr) == none) {
      if (std::exchange(await_unsatisfied_, false)) {
        *again = true;
        return r;
      }
      return a.accept ? finish_await(id, a) : finish_access(id, a);
    }
    r.value = v;
    return r;
  }
  if (a.op == detail::rmw_op::none && !a.cas) {  // store
    e.kind = ek::store;
    e.rel = is_release(o);
    const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
    e.wval = a.operand & mask;
    if (write_choose(e, id) == none) return finish_access(id, a);
    after_write(cur_);
    return r;
  }
  // RMW / CAS: the success order applies when it writes; a failed CAS is a load with the
  // failure order (its own tag).
  e.kind = ek::rmw;
  e.acq = is_acquire(o);
  e.rel = is_release(o);
  std::uint64_t v = 0;
  bool ok = true;
  if (a.cas) {
    bool fw = false;
    std::memory_order fo = effective(a.fail_site, &fw);
    if (fo == std::memory_order_release) fo = std::memory_order_relaxed;
    if (fo == std::memory_order_acq_rel) fo = std::memory_order_acquire;
    // A read of a store equal to `expected` becomes the RMW (success order); any other read
    // is a failed CAS: a load with the failure order and the failure site's tag.
    event f = e;
    f.kind = ek::cas_fail;
    f.tag = a.fail_site.tag ? a.fail_site.tag : "";
    f.declared = a.fail_site.order;
    f.order = fo;
    f.acq = is_acquire(fo);
    f.rel = false;
    f.sc = fo == std::memory_order_seq_cst;
    if (read_choose(e, &f, id, true, a.expected, &a, &v, &ok) == none) {
      if (std::exchange(await_unsatisfied_, false)) {
        *again = true;
        return r;
      }
      return a.accept ? finish_await(id, a) : finish_access(id, a);
    }
    r.value = v;
    r.success = ok;
    if (ok) after_write(cur_);
    return r;
  }
  if (read_choose(e, nullptr, id, false, 0, &a, &v, &ok) == none) return finish_access(id, a);
  after_write(cur_);
  r.value = v;
  return r;
}

bool checker::call_predicate(bool (*accept)(std::uint64_t, const void*), const void* ctx, std::uint64_t v) const noexcept {
  in_predicate_ = true;
  bool yes = true;
  try {
    yes = accept(v, ctx);
  } catch (...) {
  }
  in_predicate_ = false;
  return yes;
}

bool checker::await_accepts(bool (*accept)(std::uint64_t, const void*), const void* ctx, const location& l,
                            std::uint32_t w) const noexcept {
  const event& e = events_[w];
  if (e.kind == ek::uninit) return true;
  const std::uint64_t mask = l.info.bits >= 64 ? ~0ull : ((1ull << l.info.bits) - 1);
  return call_predicate(accept, ctx, e.wval & mask);
}

/// Whether thread t, pending at an await, may read a store its predicate accepts (the candidates
/// read_choose would consider, before the psc check; an await that found every one of them ruled
/// out by psc waits until the graph changes).
bool checker::await_satisfiable(std::uint32_t t) const {
  const mthread& th = threads_[t];
  const location& l = locs_[th.pend_arg];
  if (!l.alive) return true;  // the thread runs, and its access reports the use after free
  if (th.await_stale == events_.size()) return false;  // found nothing consistent in this very graph
  auto lo = visible_bound(t, l);
  if (th.fresh_loc == th.pend_arg || std::find(th.spin_locs.begin(), th.spin_locs.end(), th.pend_arg) != th.spin_locs.end())
    lo = static_cast<std::uint32_t>(l.mo.size() - 1);
  for (auto p = lo; p < l.mo.size(); ++p) {
    if (th.await_rmw && p + 1 < l.mo.size() && events_[l.mo[p + 1]].rd) continue;  // atomicity, as read_choose
    if (await_accepts(th.await_accept, th.await_ctx, l, l.mo[p])) return true;
  }
  return false;
}

void checker::fence_order_check(order_site s, const std::source_location& src) {
  if (is_memory_order(s.order)) return;  // (a fence takes any of the six)
  PILFER_MODEL_FAIL("invalid order", "t" + std::to_string(cur_) + ": a fence with order " + order_text(s) + ", at " +
                                         where(src));
}

void checker::fence(order_site s, const std::source_location& src) {
  if (live()) fence_order_check(s, src);
  if (!live() || !begin_op(src)) return;  // finishing: fences order nothing
  bool weakened = false;
  add_fence(cur_, s, effective(s, &weakened), src);
}

/// Append a fence of order `o` to thread `t` (the running thread, or another one for a heavy
/// fence) and commit it. Returns its gid, or none when it was cut.
std::uint32_t checker::add_fence(unsigned t, order_site s, std::memory_order o, const std::source_location& src) {
  event e = make_event(ek::fence, none, src);
  e.thread = static_cast<std::uint16_t>(t);
  e.index = static_cast<std::uint32_t>(threads_[t].events.size());
  e.tag = s.tag ? s.tag : "";
  e.declared = s.order;
  e.order = o;
  e.acq = is_acquire(o);
  e.rel = is_release(o);
  e.sc = o == std::memory_order_seq_cst;
  compute_views(e, threads_[t]);
  const auto gid = add_event(e, none);
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges = scratch_edges_;
  edges.clear();
  if (psc_needed(events_[gid], true) && !psc_ok(gid, &edges)) {
    // cannot happen for a fence that is porf-maximal (it has no outgoing psc edges)
    remove_last_event();
    cut_here();
    return none;
  }
  commit(gid);
  for (auto [u, v] : edges) bit_set(psc_[u], v);
  return gid;
}

/// The heavy side of an asymmetric fence pair (Linux membarrier(PRIVATE_EXPEDITED)): the kernel
/// issues a full barrier, makes every other running thread of the process execute one where it
/// stands (an IPI; a thread that is not running passes one when it is scheduled again), then a
/// full barrier again. Modelled as exactly that: a seq_cst fence F1 in the caller, a seq_cst fence
/// Fu appended to every other thread u — spawned and not yet running, running, blocked or finished
/// (an exited thread passed the kernel's barriers on its way out) — at its current point (all of
/// u's events so far are sb-before Fu, none after; a stranded thread, stopped at a failure, is left), and a seq_cst fence F2 in the caller, with the psc edges
/// F1 -> Fu -> F2 forced (the kernel's order). The light side is a compiler-only barrier and
/// orders nothing here. Weakened below seq_cst (sensitivity), it is a plain fence of that order.
void checker::fence_heavy(order_site s, const std::source_location& src) {
  if (revisit_ && live()) rv_unsupported("asymmetric fences");
  if (live()) fence_order_check(s, src);
  if (!live() || !begin_op(src)) return;
  bool weakened = false;
  const std::memory_order o = effective(s, &weakened);
  if (o != std::memory_order_seq_cst) {
    // Weakened (sensitivity): no process-wide barrier any more, only a fence of order o in the
    // caller, which pairs with nothing on the light side (so the weakening can be caught).
    add_fence(cur_, s, o, src);
    return;
  }
  const auto f1 = add_fence(cur_, s, o, src);
  if (f1 == none) return;
  std::vector<std::uint32_t> others;
  for (unsigned u = 0; u < threads_.size(); ++u) {
    const mthread& th = threads_[u];
    if (u == cur_ || th.status == tstatus::stranded) continue;
    const auto fu = add_fence(u, s, o, src);
    if (fu == none) return;
    bit_set(psc_[static_cast<std::size_t>(events_[f1].sc_idx)], static_cast<std::uint32_t>(events_[fu].sc_idx));
    others.push_back(fu);
  }
  const auto f2 = add_fence(cur_, s, o, src);
  if (f2 == none) return;
  for (auto fu : others)
    bit_set(psc_[static_cast<std::size_t>(events_[fu].sc_idx)], static_cast<std::uint32_t>(events_[f2].sc_idx));
}

void checker::wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src) {
  const std::uint64_t mask = locs_[id].info.bits >= 64 ? ~0ull : ((1ull << locs_[id].info.bits) - 1);
  if (revisit_ && live()) rv_unsupported("atomic wait / notify");
  for (;;) {
    if (!live()) return finish_wait(id, old);
    detail::access a;
    a.site = s;
    const auto r = access(id, a, src);
    if ((r.value & mask) != (old & mask)) return;
    if (!live()) return finish_wait(id, old);  // cut short before the load
    mthread& th = threads_[cur_];
    const std::uint32_t x = events_[th.events.back()].rf;
    // [atomics.wait]: a notify N already made unblocks this wait if a store Y on the
    // location is mo-after the X we observed and Y happens-before N (a futex re-checks the
    // value). A notify_one that already woke a thread is used up.
    bool already = false;
    const location& l = locs_[id];
    for (auto ng : l.acc) {
      const event& n = events_[ng];
      if (n.kind != ek::notify || (n.wval == 0 && n.other != none)) continue;
      for (std::size_t p = events_[x].mo_pos + 1; p < l.mo.size() && !already; ++p) {
        const event& y = events_[l.mo[p]];
        if (y.index < n.v.c[y.thread]) already = true;
      }
      if (already) break;
    }
    if (already) {
      th.fresh_loc = id;
      continue;
    }
    event e = make_event(ek::wait_block, id, src);
    compute_views(e, th);
    const auto gid = add_event(e, none);
    commit(gid);
    th.wait_loc = id;
    th.wait_x = x;
    th.pend_src = src;
    th.status = opt_.spurious_wakeups ? tstatus::yielded : tstatus::blocked_wait;
    if (opt_.spurious_wakeups) th.spin_locs.assign(1, id);
    switch_to_scheduler();  // resumed once notified (or, with spurious wake-ups, after a write)
    th.wait_loc = none;
  }
}

void checker::notify(std::uint32_t id, bool all, const std::source_location& src) {
  if (revisit_ && live()) rv_unsupported("atomic wait / notify");
  if (!live() || !begin_op(src)) return;  // finishing: a waiter re-checks by itself
  if (!locs_[id].alive)  // (a notify is an access to the atomic, as a wait is)
    PILFER_MODEL_FAIL("use after free", "t" + std::to_string(cur_) + " notified " + location_name(id) +
                                            " after it was destroyed, at " + where(src));
  event e = make_event(ek::notify, id, src);
  compute_views(e, threads_[cur_]);
  // eligible waiters: blocked on id having read X, with some store Y to id, X mo-before Y,
  // Y happens-before this notify ([atomics.wait]).
  std::vector<std::uint32_t> eligible;
  const location& l = locs_[id];
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    const mthread& th = threads_[t];
    if (th.status != tstatus::blocked_wait || th.wait_loc != id) continue;
    const std::uint32_t xp = events_[th.wait_x].mo_pos;
    bool ok = false;
    for (std::size_t p = xp + 1; p < l.mo.size() && !ok; ++p) {
      const event& y = events_[l.mo[p]];
      if (y.thread == e.thread ? y.index < e.index : y.index < e.v.c[y.thread]) ok = true;
    }
    if (ok) eligible.push_back(t);
  }
  if (!all && eligible.size() > 1) {
    const auto c = choose(static_cast<std::uint32_t>(eligible.size()));
    eligible = {eligible[c]};
  }
  if (!eligible.empty() && !all) e.other = eligible[0];
  e.wval = all ? 1 : 0;  // notify_all stays effective for later waiters; notify_one once used does not
  const auto gid = add_event(e, none);
  commit(gid);
  for (auto t : eligible) {
    threads_[t].status = tstatus::runnable;
    threads_[t].fresh_loc = id;
  }
}

void checker::record_foreign_object(const char* what, const std::source_location& src) {
  record_failure("model error",
                 std::string(what) + " made outside this execution (a global, a function-local static, or one kept " +
                     "from an earlier execution or check()) — or reached through a dangling pointer (a stack " +
                     "object whose scope ended: undefined behaviour) — is used at " + where(src) +
                     "; the checker sees only the objects an execution makes (the scenario's members, or objects "
                     "made in its constructor or threads), so this one would act as plain memory or as another "
                     "object's location");
}

}  // namespace pilfer::model::engine
