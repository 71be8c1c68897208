// models/engine/public_api.cpp — the public API (pilfer/model/checker.hpp) and the detail:: entry
// points that forward to the running check.
#include "checker.hpp"

#include <cstdio>
#include <cstdlib>

namespace pilfer::model {

scenario::scenario(unsigned threads) : threads_(threads) {}
scenario::~scenario() = default;

std::string result::summary() const {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s model=%s executions=%zu blocked=%zu states=%zu %s %.3fs%s%s%s%s", ok ? "ok" : "FAIL",
                to_string(model), executions, blocked, states, complete ? "complete" : "incomplete", seconds,
                ok ? "" : " kind=", ok ? "" : kind.c_str(),
                races.empty() ? "" : (" races=" + std::to_string(races.size())).c_str(),
                abandoned == 0 ? "" : (" abandoned=" + std::to_string(abandoned)).c_str());
  return buf;
}

const char* to_string(memory_model m) noexcept { return m == memory_model::rc11 ? "rc11" : "c++20"; }

std::optional<memory_model> parse_memory_model(const std::string& name) noexcept {
  if (name == "c++20" || name == "cxx20" || name == "c++2a" || name == "C++20") return memory_model::cxx20;
  if (name == "rc11" || name == "RC11") return memory_model::rc11;
  return std::nullopt;
}

using engine::g;
namespace {
/// An await's predicate must be a pure function of the value: the checker calls it while deciding
/// which thread may run, where no modelled operation can be performed. A call into the checker from
/// it is a usage error, stated before anything is touched.
void refuse_in_predicate() noexcept {
  if (g && g->in_predicate()) {
    std::fprintf(stderr,
                 "pilfer model: an await's predicate called into the checker (an atomic or cell access, an assertion, "
                 "an allocation...); the predicate must be a pure function of the value it is given\n");
    std::abort();
  }
}
/// A modelled thread is running: exploring, or finishing an execution that was cut short.
bool engaged() noexcept {
  refuse_in_predicate();
  return g && g->engaged();
}
}  // namespace

std::string engine::refuse_nested(const char* call) {
  refuse_in_predicate();  // (a check from an await's predicate: the predicate's own rule, stated)
  if (!g) return {};
  const char* const why = " was called while a check runs (one check at a time per process)";
  if (g->finishing()) g->strand();  // (nothing is checked while finishing: the thread stops here)
  if (g->live()) {
    // (the message is made and handed over in this statement: this frame is stranded below)
    g->record_failure("model error", std::string(call) + why + ", inside a modelled thread");
    g->abandon();
  }
  return std::string(call) + why;
}

result check(std::function<std::unique_ptr<scenario>()> make, const options& o) {
  if (std::string nested = engine::refuse_nested("check()"); !nested.empty()) {
    result refused;
    refused.ok = false;
    refused.model = o.model;
    refused.kind = "model error";
    refused.message = std::move(nested);
    return refused;
  }
  engine::checker c(std::move(make), o);
  // (destroyed before `c`: the guard pages are accessible again before the stacks are freed)
  struct guards_released {
    ~guards_released() { engine::release_stack_guards(); }
  } const release;
  return c.run();
}

const std::set<std::string>& seen_tags() { return engine::g_last_tags; }
std::size_t current_execution_index() { return g ? g->execution_index() : 0; }
bool in_execution() noexcept {
  refuse_in_predicate();
  return g && g->live();
}

void assume(bool cond) {
  if (!cond && engaged()) g->block();
}

void stop_branching() noexcept {
  if (engaged()) g->set_branching(false);
}
void resume_branching() noexcept {
  if (engaged()) g->set_branching(true);
}

namespace detail {
void observe_scope(bool begin) noexcept {
  if (engaged()) g->observe(begin);
}

std::uint64_t execution_serial() noexcept { return engaged() ? engine::g_execution_serial : 0; }

void foreign_object(const char* what, const std::source_location& src) {
  refuse_in_predicate();
  g->record_foreign_object(what, src);
  g->abandon();
}

std::uint32_t new_atomic(const void* addr, std::uint64_t init, bool initialised, value_info info,
                         const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::atomic_loc, addr, init, initialised, info, src);
}
void end_location(std::uint32_t id) noexcept {
  if (g && id != no_location) g->end_location(id);
}
access_result atomic_access(std::uint32_t id, const access& a, const std::source_location& src) {
  refuse_in_predicate();
  return g->access(id, a, src);
}
void atomic_wait(std::uint32_t id, std::uint64_t old, order_site s, const std::source_location& src) {
  if (engaged()) g->wait(id, old, s, src);
}
void atomic_notify(std::uint32_t id, bool all, const std::source_location& src) {
  refuse_in_predicate();
  if (g) g->notify(id, all, src);
}
void fence(order_site s, const std::source_location& src) {
  if (in_execution()) g->fence(s, src);
}
void fence_heavy(order_site s, const std::source_location& src) {
  if (in_execution()) g->fence_heavy(s, src);
}
std::uint32_t new_cell(const void* addr, const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::cell_loc, addr, 0, true, value_info{64, false, false}, src);
}
void cell_access(std::uint32_t id, bool write, const std::source_location& src) {
  refuse_in_predicate();
  if (g) g->cell_access(id, write, src);
}
std::uint32_t new_mutex(const void* addr, const std::source_location& src) {
  if (!engaged()) return no_location;
  return g->new_location(engine::location::mutex_loc, addr, 0, true, value_info{8, false, false}, src);
}
void mutex_lock(std::uint32_t id, const std::source_location& src) {
  if (engaged()) g->mutex_lock(id, src);
}
bool mutex_try_lock(std::uint32_t id, const std::source_location& src) {
  return !engaged() || g->mutex_try_lock(id, src);
}
void mutex_unlock(std::uint32_t id, const std::source_location& src) {
  if (engaged()) g->mutex_unlock(id, src);
}
unsigned spawn(std::unique_ptr<task> t, const std::source_location& src) {
  if (!engaged()) {
    std::fprintf(stderr, "pilfer model: checker_sync::thread created outside a model execution\n");
    std::abort();
  }
  return g->spawn(std::move(t), src);
}
void join(unsigned t, const std::source_location& src) {
  if (engaged()) g->join(t, src);
}
void spin_hint(const std::source_location& src) {
  if (engaged()) g->yield(src, true);
}
void yield(const std::source_location& src) {
  if (engaged()) g->yield(src, false);
}
std::uint64_t random(std::uint64_t bound) {
  if (engaged()) return g->random(bound);
  static std::uint64_t s = 0x9E3779B97F4A7C15ull;
  s = engine::mix64(s + 1);
  return bound == 0 ? s : s % bound;
}
void*& thread_slot(const void* key) {
  if (g) return g->thread_slot(key);
  static std::map<const void*, void*> outside;
  return outside[key];
}
unsigned thread_id() noexcept { return g ? g->thread_id() : 0u; }

void* tracked_alloc(std::size_t bytes, std::size_t align, std::size_t, bool array, const char* what,
                    const std::source_location& src) {
  if (!engaged()) return ::operator new(bytes, std::align_val_t(align));
  return g->alloc(bytes, align, array, what, src);
}
bool tracked_check_free(const void* p, bool array, const std::source_location& src) {
  refuse_in_predicate();
  if (!g) return true;
  return g->check_free(p, array, src);
}
void thread_misuse(const char* what, const std::source_location& src) noexcept {
  refuse_in_predicate();
  if (!g || !g->live()) return;
  g->record_thread_misuse(what, src);
  g->abandon();
}

void tracked_release(void* p) noexcept {
  if (g) {
    g->release(p);
    return;
  }
  ::operator delete(p);
}

void assertion_failed(const char* expr, const char* file, int line) {
  refuse_in_predicate();
  if (g && g->finishing()) g->strand();  // nothing is checked while finishing: the thread stops here
  {  // the strings die here: the fiber's frame is stranded below
    std::string msg = std::string("PILFER_MODEL_ASSERT(") + expr + ") failed at " +
                      engine::file_line(file, static_cast<unsigned>(line));
    if (!in_execution()) {
      std::fprintf(stderr, "pilfer model: %s\n", msg.c_str());
      std::abort();
    }
    g->record_failure("assertion", std::move(msg));
  }
  g->abandon();
}

}  // namespace detail

}  // namespace pilfer::model
