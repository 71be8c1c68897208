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
  regions_[p] = r;
  return p;
}

bool checker::check_free(const void* p, bool array, const std::source_location& src) {
  auto it = regions_.find(p);
  if (it == regions_.end()) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("invalid free", "t" + std::to_string(cur_) + " destroyed a pointer that checker_sync::make did not return, at " + where(src));
  }
  if (it->second.freed) {
    if (!live()) return false;
    PILFER_MODEL_FAIL("double free", "t" + std::to_string(cur_) + " destroyed " + it->second.what + " (made at " + it->second.file + ":" +
                            std::to_string(it->second.line) + ") twice");
  }
  if (it->second.array != array && live())
    PILFER_MODEL_FAIL("invalid free", std::string("destroy/destroy_array mismatch for memory made at ") + it->second.file + ":" +
                             std::to_string(it->second.line));
  return true;
}

void checker::release(void* p) noexcept {
  auto it = regions_.find(p);
  if (it != regions_.end()) it->second.freed = true;  // quarantined until the execution ends
}

}  // namespace pilfer::model::engine
