// models/engine/tracked_objects.cpp — memory made by checker_sync::make: allocation, destruction checks.
#include "checker.hpp"

namespace pilfer::model::engine {

void* checker::alloc(std::size_t bytes, std::size_t align, bool array, const char* what,
                     const std::source_location& src) {
  void* p = ::operator new(bytes, std::align_val_t(align));
  region r;
  r.bytes = bytes;
  r.align = align;
  r.array = array;
  r.what = what;
  r.file = src.file_name();
  r.line = src.line();
  r.thread = cur_;
  // make<T>(args...) cannot take its caller's place (the arguments are a pack): the thread's
  // operation before it names the spot instead
  if (*r.file == '\0') r.after = last_user_place(cur_, r.file, r.line);
  regions_[p] = r;
  threads_[cur_].last_made = p;
  return p;
}

bool checker::last_user_place(std::uint32_t t, const char*& file, unsigned& line) const {
  const auto& evs = threads_[t].events;
  for (std::size_t k = evs.size(); k-- > 0;) {
    const event& e = events_[evs[k]];
    // (the checker's own events, a scenario thread's spawn or join, its finish; and those made
    // inside make<T>, an object's initialisation there)
    if (*e.file == '\0' || engine_made(e) || made_by_the_checker_header(e.file)) continue;
    file = e.file;
    line = e.line;
    return true;
  }
  return false;
}

std::string checker::location_name(std::uint32_t id) const {
  const location& l = locs_[id];
  std::string s = "L" + std::to_string(id) + " (made by t" + std::to_string(l.creator);
  s += *l.file == '\0' ? " before its first operation" : (l.made_after ? " after " : " at ") + file_line(l.file, l.line);
  if (l.destroyer != none) {
    s += ", destroyed by t" + std::to_string(l.destroyer);
    if (*l.dead_file != '\0') s += (l.dead_at ? " at " : " after ") + file_line(l.dead_file, l.dead_line);
  }
  return s + ")";
}

std::string checker::made_at(const region& r) const {
  std::string s = "by t" + std::to_string(r.thread);
  if (*r.file == '\0') return s;  // (a make before the thread's first operation)
  return s + (r.after ? " after " : " at ") + file_line(r.file, r.line);
}

bool checker::check_free(const void* p, bool array, const std::source_location& src) {
  auto it = regions_.find(p);
  if (it == regions_.end()) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("invalid free", "t" + std::to_string(cur_) + " destroyed a pointer that checker_sync::make did not return, at " + where(src));
  }
  if (it->second.freed) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("double free", "t" + std::to_string(cur_) + " destroyed " + it->second.what + " (made " +
                                         made_at(it->second) + ") twice, at " + where(src));
  }
  if (it->second.array != array && live())
    PILFER_MODEL_FAIL("invalid free", std::string("destroy/destroy_array mismatch for memory made ") + made_at(it->second) +
                                          ", at " + where(src));
  destroying_.emplace_back(p, src);  // (until release: the destructors run in between)
  return true;
}

void checker::release(void* p) noexcept {
  auto it = regions_.find(p);
  if (it != regions_.end()) it->second.freed = true;  // quarantined until the execution ends
  if (!destroying_.empty() && destroying_.back().first == p) destroying_.pop_back();
}

}  // namespace pilfer::model::engine
