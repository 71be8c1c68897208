// pilfer/topology.hpp — machine topology for worker placement and victim order.
//
// A `topology` is a flat list of processing units (PUs, i.e. logical CPUs),
// each labelled with the core, cache group (the cores sharing the last-level
// cache) and NUMA node it belongs to. The pool uses it for two things
// (requirement POOL-13):
//
//   * placement — worker i goes to core i (one worker per core, in the order
//     the cores appear, so consecutive workers share caches); with more
//     workers than cores the next round takes the next PU of each core;
//   * victim order — a thief tries victims nearest first: same core, same
//     cache group, same NUMA node, then the rest (the pool randomises the
//     order *within* each distance group).
//
// Sources:
//   topology::detect()             hwloc when PILFER_HAVE_HWLOC is defined, else flat;
//   topology::synthetic("node:2 l3:2 core:4 pu:1")  our own parser of hwloc's
//                                  synthetic syntax (works without hwloc);
//   topology::from_hwloc_synthetic(...) the same string through
//                                  hwloc_topology_set_synthetic (hwloc builds only);
//   topology(std::vector<processing_unit>)  a plain vector.
// Nothing here is on the pool's hot path; all functions may allocate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cstdio>
#include <cstdlib>

#if defined(PILFER_HAVE_HWLOC)
#include <hwloc.h>
#endif
#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

namespace pilfer {

/// CPUs this process may use: the size of its affinity mask
/// (sched_getaffinity), further limited by a cgroup v2 CPU quota
/// (/sys/fs/cgroup/cpu.max "quota period", rounded up) or v1
/// (cpu.cfs_quota_us / cpu.cfs_period_us). At least 1. The pool's default
/// number of workers.
unsigned default_thread_count() noexcept;

/// One logical CPU. `core`, `cache_group` and `numa_node` are dense indices
/// (0..n-1) unique across the machine; `os_index` is what the OS calls it
/// (the CPU number for sched_setaffinity).
struct processing_unit {
  unsigned os_index = 0;
  unsigned core = 0;
  unsigned cache_group = 0;
  unsigned numa_node = 0;
  friend bool operator==(const processing_unit&, const processing_unit&) = default;
};

class topology {
 public:
  /// Distance classes, nearest first.
  enum distance_class : unsigned { same_core = 0, same_cache = 1, same_node = 2, remote = 3 };

  /// A flat machine with one PU.
  topology() : topology(flat(1)) {}

  /// From a plain description. Throws std::invalid_argument when empty.
  explicit topology(std::vector<processing_unit> pus) : pus_(std::move(pus)) {
    if (pus_.empty()) throw std::invalid_argument("pilfer::topology: no processing units");
  }

  /// `n` PUs, each its own core, all in one cache group and one NUMA node.
  static topology flat(unsigned n) {
    std::vector<processing_unit> v;
    for (unsigned i = 0; i < std::max(1u, n); ++i) v.push_back({i, i, 0, 0});
    return topology(std::move(v));
  }

  /// Parse hwloc's synthetic syntax: space separated `type:count` levels from
  /// the top, types node|numa, package|pack|socket, l3|l2|l1|cache|group,
  /// core, pu. Levels not given count 1. Throws std::invalid_argument.
  static topology synthetic(std::string_view desc) {
    enum kind { node, package, cache, core, pu };
    std::vector<std::pair<kind, unsigned>> levels;
    std::size_t i = 0;
    while (i < desc.size()) {
      while (i < desc.size() && desc[i] == ' ') ++i;
      if (i >= desc.size()) break;
      std::size_t j = desc.find(' ', i);
      if (j == std::string_view::npos) j = desc.size();
      const std::string_view tok = desc.substr(i, j - i);
      i = j;
      const std::size_t colon = tok.find(':');
      if (colon == std::string_view::npos || colon + 1 >= tok.size())
        throw std::invalid_argument("pilfer::topology::synthetic: bad level '" + std::string(tok) + "'");
      std::string type(tok.substr(0, colon));
      std::transform(type.begin(), type.end(), type.begin(),
                     [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
      unsigned count = 0;
      for (char c : tok.substr(colon + 1)) {
        if (c < '0' || c > '9')
          throw std::invalid_argument("pilfer::topology::synthetic: bad count in '" + std::string(tok) + "'");
        count = count * 10 + static_cast<unsigned>(c - '0');
        if (count > 4096) throw std::invalid_argument("pilfer::topology::synthetic: count too large");
      }
      if (count == 0) throw std::invalid_argument("pilfer::topology::synthetic: zero count");
      kind k;
      if (type == "node" || type == "numa" || type == "numanode") k = node;
      else if (type == "package" || type == "pack" || type == "socket") k = package;
      else if (type == "l3" || type == "l2" || type == "l1" || type == "cache" || type == "group" ||
               type == "l3cache" || type == "l2cache")
        k = cache;
      else if (type == "core") k = core;
      else if (type == "pu") k = pu;
      else throw std::invalid_argument("pilfer::topology::synthetic: unknown level '" + type + "'");
      levels.emplace_back(k, count);
    }
    if (levels.empty()) throw std::invalid_argument("pilfer::topology::synthetic: empty description");
    std::size_t total = 1;
    for (auto& l : levels) total *= l.second;
    if (total > 65536) throw std::invalid_argument("pilfer::topology::synthetic: too many PUs");
    // Deepest level index of each kind (-1: absent). A PU's index "down to
    // level L" numbers the objects of level L across the machine.
    auto deepest = [&](kind k) {
      int d = -1;
      for (std::size_t l = 0; l < levels.size(); ++l)
        if (levels[l].first == k) d = static_cast<int>(l);
      return d;
    };
    const int d_node = deepest(node), d_pack = deepest(package), d_cache = deepest(cache), d_core = deepest(core);
    const int d_group = d_cache >= 0 ? d_cache : (d_pack >= 0 ? d_pack : d_node);
    std::vector<processing_unit> v;
    for (std::size_t id = 0; id < total; ++id) {
      // Mixed-radix digits of id, outermost level first.
      std::vector<unsigned> digit(levels.size());
      std::size_t rest = id;
      for (std::size_t l = levels.size(); l-- > 0;) {
        digit[l] = static_cast<unsigned>(rest % levels[l].second);
        rest /= levels[l].second;
      }
      auto index_down_to = [&](int depth) -> unsigned {
        unsigned x = 0;
        for (int l = 0; l <= depth; ++l) x = x * levels[static_cast<std::size_t>(l)].second + digit[static_cast<std::size_t>(l)];
        return x;
      };
      processing_unit p;
      p.os_index = static_cast<unsigned>(id);
      p.core = d_core >= 0 ? index_down_to(d_core) : static_cast<unsigned>(id);
      p.cache_group = d_group >= 0 ? index_down_to(d_group) : 0;
      p.numa_node = d_node >= 0 ? index_down_to(d_node) : 0;
      v.push_back(p);
    }
    return topology(std::move(v));
  }

#if defined(PILFER_HAVE_HWLOC)
  /// Read a loaded hwloc topology.
  static topology from_hwloc(hwloc_topology_t t) {
    std::vector<processing_unit> v;
    const int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    const int nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < npu; ++i) {
      hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
      processing_unit p;
      p.os_index = pu->os_index;
      hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
      p.core = core ? core->logical_index : pu->logical_index;
      hwloc_obj_t cache = nullptr;
      for (hwloc_obj_type_t ty : {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_PACKAGE})
        if (!cache) cache = hwloc_get_ancestor_obj_by_type(t, ty, pu);
      p.cache_group = cache ? cache->logical_index : 0;
      p.numa_node = 0;
      for (int n = 0; n < nnuma; ++n) {
        hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(n));
        if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
          p.numa_node = node->logical_index;
          break;
        }
      }
      v.push_back(p);
    }
    if (v.empty()) return flat(1);
    topology r(std::move(v));
    r.renumber_caches();
    return r;
  }

  /// hwloc's own parser of the synthetic syntax (hwloc_topology_set_synthetic).
  static topology from_hwloc_synthetic(const char* desc) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) throw std::runtime_error("hwloc_topology_init failed");
    if (hwloc_topology_set_synthetic(t, desc) != 0 || hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      throw std::invalid_argument(std::string("pilfer::topology: hwloc rejected '") + desc + "'");
    }
    topology r = from_hwloc(t);
    hwloc_topology_destroy(t);
    return r;
  }
#endif

  /// This machine: hwloc when available (and it loads), else flat over
  /// std::thread::hardware_concurrency()-many PUs (given by the caller as
  /// `fallback_pus` so this header needs no <thread>).
  static topology detect(unsigned fallback_pus) {
#if defined(PILFER_HAVE_HWLOC)
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0) {
      if (hwloc_topology_load(t) == 0) {
        topology r = from_hwloc(t);
        hwloc_topology_destroy(t);
        return r;
      }
      hwloc_topology_destroy(t);
    }
#endif
    return flat(fallback_pus);
  }

  const std::vector<processing_unit>& pus() const noexcept { return pus_; }
  unsigned num_pus() const noexcept { return static_cast<unsigned>(pus_.size()); }
  unsigned num_cores() const { return count_distinct(&processing_unit::core); }
  unsigned num_cache_groups() const { return count_distinct(&processing_unit::cache_group); }
  unsigned num_numa_nodes() const { return count_distinct(&processing_unit::numa_node); }

  static unsigned distance(const processing_unit& a, const processing_unit& b) noexcept {
    if (a.numa_node != b.numa_node) return remote;
    if (a.cache_group != b.cache_group) return same_node;
    if (a.core != b.core) return same_cache;
    return same_core;
  }

  /// For `workers` workers: index into pus() of each worker's home PU.
  /// One worker per core first, then further PUs of each core, wrapping
  /// around when workers > PUs. Cores are taken round-robin over the NUMA
  /// nodes (node 0's first core, node 1's first core, node 0's second, ...),
  /// so that k workers spread over the nodes (POOL-13): "node:2 core:4" with 4
  /// workers puts 2 on each node. Within a node, cores in order of appearance.
  std::vector<unsigned> place(unsigned workers) const {
    std::vector<std::vector<unsigned>> by_core;  // PUs of each core, cores in order
    std::vector<unsigned> core_ids;
    std::vector<unsigned> core_node;
    for (unsigned i = 0; i < pus_.size(); ++i) {
      auto it = std::find(core_ids.begin(), core_ids.end(), pus_[i].core);
      if (it == core_ids.end()) {
        core_ids.push_back(pus_[i].core);
        core_node.push_back(pus_[i].numa_node);
        by_core.push_back({i});
      } else {
        by_core[static_cast<std::size_t>(it - core_ids.begin())].push_back(i);
      }
    }
    // Cores of each node, nodes in order of appearance; then interleave.
    std::vector<unsigned> nodes;
    std::vector<std::vector<std::size_t>> cores_of_node;
    for (std::size_t c = 0; c < by_core.size(); ++c) {
      auto it = std::find(nodes.begin(), nodes.end(), core_node[c]);
      if (it == nodes.end()) {
        nodes.push_back(core_node[c]);
        cores_of_node.push_back({c});
      } else {
        cores_of_node[static_cast<std::size_t>(it - nodes.begin())].push_back(c);
      }
    }
    std::vector<std::size_t> core_order;
    for (std::size_t r = 0; core_order.size() < by_core.size(); ++r)
      for (const auto& cs : cores_of_node)
        if (r < cs.size()) core_order.push_back(cs[r]);
    std::vector<unsigned> order;  // round r takes the r-th PU of each core that has one
    for (std::size_t r = 0;; ++r) {
      bool any = false;
      for (std::size_t c : core_order)
        if (r < by_core[c].size()) {
          order.push_back(by_core[c][r]);
          any = true;
        }
      if (!any) break;
    }
    std::vector<unsigned> out(workers);
    for (unsigned w = 0; w < workers; ++w) out[w] = order[w % order.size()];
    return out;
  }

  /// Victims of `worker` grouped by distance class, nearest group first;
  /// within a group in worker order. Empty groups are left out.
  std::vector<std::vector<unsigned>> victim_groups(const std::vector<unsigned>& placement,
                                                   unsigned worker) const {
    std::vector<std::vector<unsigned>> g(4);
    const processing_unit& me = pus_[placement[worker]];
    for (unsigned v = 0; v < placement.size(); ++v)
      if (v != worker) g[distance(me, pus_[placement[v]])].push_back(v);
    std::erase_if(g, [](const std::vector<unsigned>& x) { return x.empty(); });
    return g;
  }

 private:
  unsigned count_distinct(unsigned processing_unit::*m) const {
    std::vector<unsigned> s;
    for (const auto& p : pus_) s.push_back(p.*m);
    std::sort(s.begin(), s.end());
    return static_cast<unsigned>(std::unique(s.begin(), s.end()) - s.begin());
  }
  // Caches are numbered per type by hwloc; if a machine mixes types, make
  // indices of different (node, cache) pairs distinct.
  void renumber_caches() {
    std::vector<std::pair<unsigned, unsigned>> keys;
    for (auto& p : pus_) {
      std::pair<unsigned, unsigned> k{p.numa_node, p.cache_group};
      auto it = std::find(keys.begin(), keys.end(), k);
      if (it == keys.end()) {
        keys.push_back(k);
        p.cache_group = static_cast<unsigned>(keys.size() - 1);
      } else {
        p.cache_group = static_cast<unsigned>(it - keys.begin());
      }
    }
  }

  std::vector<processing_unit> pus_;
};

namespace detail {
/// ceil(quota / period) from a cgroup file, or 0 when there is no limit.
inline unsigned cgroup_cpu_limit() noexcept {
#if defined(__linux__)
  auto ceil_div = [](long long q, long long p) -> unsigned {
    if (q <= 0 || p <= 0) return 0;
    return static_cast<unsigned>((q + p - 1) / p);
  };
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    char quota[32] = {};
    long long period = 0;
    const int got = std::fscanf(f, "%31s %lld", quota, &period);
    std::fclose(f);
    if (got == 2 && std::string_view(quota) != "max") return ceil_div(std::atoll(quota), period);
    return 0;
  }
  long long q = -1, p = 0;
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r")) {
    if (std::fscanf(f, "%lld", &q) != 1) q = -1;
    std::fclose(f);
  }
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r")) {
    if (std::fscanf(f, "%lld", &p) != 1) p = 0;
    std::fclose(f);
  }
  return ceil_div(q, p);
#else
  return 0;
#endif
}
}  // namespace detail

inline unsigned default_thread_count() noexcept {
  unsigned n = 0;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) n = static_cast<unsigned>(CPU_COUNT(&set));
  if (n == 0) {
    const long c = ::sysconf(_SC_NPROCESSORS_ONLN);
    n = c > 0 ? static_cast<unsigned>(c) : 1u;
  }
#else
  n = 4;
#endif
  const unsigned quota = detail::cgroup_cpu_limit();
  if (quota != 0 && quota < n) n = quota;
  return n == 0 ? 1u : n;
}

}  // namespace pilfer
