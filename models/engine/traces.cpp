// models/engine/traces.cpp — traces: how events, values and source places are printed.
#include "checker.hpp"
#include "order_names.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace pilfer::model::engine {

static_assert(orders::declared_in_table_order(std::memory_order_relaxed, std::memory_order_consume,
                                              std::memory_order_acquire, std::memory_order_release,
                                              std::memory_order_acq_rel, std::memory_order_seq_cst),
              "std::memory_order indexes the shared table of order names");

const char* order_name(std::memory_order o) { return orders::name_of(o); }
const char* kind_name(ek k) {
  switch (k) {
    case ek::init: return "init";
    case ek::uninit: return "init(uninitialised)";
    case ek::load: return "load";
    case ek::store: return "store";
    case ek::rmw: return "rmw";
    case ek::cas_fail: return "cas(failed)";
    case ek::fence: return "fence";
    case ek::cell_init: return "cell init";
    case ek::cell_read: return "cell read";
    case ek::cell_write: return "cell write";
    case ek::spawn: return "spawn";
    case ek::join: return "join";
    case ek::yield: return "yield";
    case ek::notify: return "notify";
    case ek::wait_block: return "wait(block)";
    case ek::lock: return "lock";
    case ek::trylock_fail: return "try_lock(failed)";
    case ek::unlock: return "unlock";
    case ek::finish: return "finish";
  }
  return "?";
}

std::string file_line(const char* file, unsigned line) {
  std::string f = file;
  const auto slash = f.rfind('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line);
}

bool made_by_the_checker_header(const char* file) noexcept {
  constexpr std::string_view header = "pilfer/model/checker.hpp";
  const std::string_view f = file;
  return f.size() >= header.size() && f.substr(f.size() - header.size()) == header;
}

bool engine_place(const char* file) noexcept {
  return file == engine_source_file || std::strcmp(file, engine_source_file) == 0;
}

bool engine_made(const event& e) noexcept { return engine_place(e.file); }

bool is_memory_order(std::memory_order o) noexcept {
  // A range check of a user-given value (no access, no ordering): the enumerators are 0..5.
  const int v = static_cast<int>(o);
  return v >= static_cast<int>(std::memory_order_relaxed) && v <= static_cast<int>(std::memory_order_seq_cst);
}

std::string checker::where(const std::source_location& s) const { return file_line(s.file_name(), s.line()); }

std::string checker::format_value(const location& l, std::uint64_t v) const {
  char buf[40];
  if (l.info.is_pointer) {
    std::snprintf(buf, sizeof buf, "%#" PRIx64, v);
    return v == 0 ? "nullptr" : buf;
  }
  if (l.info.is_signed && l.info.bits < 64 && (v >> (l.info.bits - 1)) & 1) v |= ~((1ull << l.info.bits) - 1);
  if (l.info.is_signed)
    std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<std::int64_t>(v));
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64, v);
  return buf;
}

std::string checker::describe(const event& e) const {
  std::string s = "  t" + std::to_string(e.thread) + ":" + std::to_string(e.index) + "  " + kind_name(e.kind);
  if (e.kind == ek::load || e.kind == ek::store || e.kind == ek::rmw || e.kind == ek::cas_fail || e.kind == ek::fence) {
    s += std::string(" ") + order_name(e.order);
    if (e.order != e.declared) s += std::string(" (weakened from ") + order_name(e.declared) + ")";
  }
  if (e.tag && *e.tag) s += std::string(" [") + e.tag + "]";
  if (e.loc != none) s += " L" + std::to_string(e.loc);
  if (e.rd && e.rf != none) {
    const event& w = events_[e.rf];
    s += " read " + format_value(locs_[e.loc], e.rval) + " from t" + std::to_string(w.thread) + ":" + std::to_string(w.index);
  }
  if (e.wr) s += " wrote " + format_value(locs_[e.loc], e.wval) + " (mo " + std::to_string(e.mo_pos) + ")";
  if (e.other != none) s += " t" + std::to_string(e.other);
  if (engine_made(e)) {
    // the checker's own: the scenario's threads started and joined, a thread's end
    if (e.thread == 0 && (e.kind == ek::spawn || e.kind == ek::join))
      s += "  (scenario thread " + std::to_string(e.other - 1) + ")";
    return s + "\n";
  }
  s += "  @" + file_line(e.file, e.line) + "\n";
  return s;
}

std::string checker::trace() const {
  std::string s = "trace (" + std::to_string(events_.size()) + " events, in execution order):\n";
  for (const auto& e : events_) s += describe(e);
  return s;
}

std::string checker::graph_line() const {
  std::vector<const event*> order;
  order.reserve(events_.size());
  for (const auto& e : events_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const event* a, const event* b) {
    return a->thread != b->thread ? a->thread < b->thread : a->index < b->index;
  });
  std::string s;
  std::uint32_t thread = none;
  for (const event* e : order) {
    if (e->thread != thread) {
      thread = e->thread;
      s += (s.empty() ? "t" : " | t") + std::to_string(thread) + ":";
    }
    s += std::string(" ") + kind_name(e->kind);
    if (e->loc != none) s += "@L" + std::to_string(e->loc);
    if (e->rd && e->rf != none)
      s += "<-t" + std::to_string(events_[e->rf].thread) + ":" + std::to_string(events_[e->rf].index) + "=" +
           std::to_string(e->rval);
    if (e->wr) s += "=" + std::to_string(e->wval) + "#mo" + std::to_string(e->mo_pos);
    if (e->other != none) s += "~t" + std::to_string(e->other);
  }
  return s + "\n";
}

}  // namespace pilfer::model::engine
