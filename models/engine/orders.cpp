// models/engine/orders.cpp — orders, tags and weakening: the effective order of an access or fence.
#include "checker.hpp"

namespace pilfer::model::engine {

/// Weakening never strengthens: the effective order is the meet of the declared order and
/// the requested one (acquire part, release part and seq_cst each kept only if both have it),
/// so weaken[tag] = acq_rel turns a seq_cst load into acquire and a seq_cst store into release.
std::memory_order meet(std::memory_order declared, std::memory_order want) {
  const bool sc = declared == std::memory_order_seq_cst && want == std::memory_order_seq_cst;
  const bool acq = is_acquire(declared) && is_acquire(want);
  const bool rel = is_release(declared) && is_release(want);
  if (sc) return std::memory_order_seq_cst;
  if (acq && rel) return std::memory_order_acq_rel;
  if (acq) return std::memory_order_acquire;
  if (rel) return std::memory_order_release;
  return std::memory_order_relaxed;
}

int strength(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return 0;
    case std::memory_order_consume:
    case std::memory_order_acquire:
    case std::memory_order_release: return 1;
    case std::memory_order_acq_rel: return 2;
    case std::memory_order_seq_cst: return 3;
  }
  return 0;
}

std::memory_order checker::effective(order_site s, bool* weakened) {
  *weakened = false;
  const char* tag = s.tag ? s.tag : "";
  auto it = tag_cache_.find(tag);
  if (it == tag_cache_.end() || it->second.name != tag) {
    std::memory_order o = s.order;
    bool w = false;
    if (auto m = opt_.weaken.find(tag); m != opt_.weaken.end()) {
      o = m->second;
      w = true;
    }
    // cache keyed by pointer, validated by content (tags need not be literals)
    it = tag_cache_.insert_or_assign(tag, tag_info{tag, w ? o : static_cast<std::memory_order>(-1), -1}).first;
  }
  if (strength(s.order) > it->second.strongest && *tag) {  // record the tag and its strongest order
    it->second.strongest = strength(s.order);
    res_.tags.insert(tag);
    auto [oi, fresh] = res_.tag_orders.emplace(tag, s.order);
    if (!fresh && strength(s.order) > strength(oi->second)) oi->second = s.order;
  }
  const auto cached = it->second.want;
  if (cached == static_cast<std::memory_order>(-1)) return s.order;
  const std::memory_order e = meet(s.order, cached);
  *weakened = e != s.order;
  return e;
}

}  // namespace pilfer::model::engine
