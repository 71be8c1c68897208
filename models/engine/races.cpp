// models/engine/races.cpp — plain cells and data-race detection.
#include "checker.hpp"

#include <algorithm>

namespace pilfer::model::engine {

void checker::race_check(const event& e, const location& l) {
  const bool w = e.kind == ek::cell_write;
  for (auto gid : l.acc) {
    const event& a = events_[gid];
    if (&a == &e || a.thread == e.thread) continue;
    const bool aw = a.kind == ek::cell_write || a.kind == ek::cell_init;
    if (!w && !aw) continue;
    if (!hbq(a, e)) {
      record_race(a, e);
      if (!opt_.stop_at_first_race) return;  // a flag: the execution goes on
      PILFER_MODEL_FAIL("data race", std::string(w ? "write" : "read") + " of cell " + location_name(e.loc) + " by t" +
                            std::to_string(e.thread) + " at " + file_line(e.file, e.line) + " races with " +
                            (aw ? "write" : "read") + " by t" + std::to_string(a.thread) + ":" + std::to_string(a.index) +
                            " at " + file_line(a.file, a.line));
    }
  }
}

/// Record a race once per (location site, access sites); with stop_at_first_race == false it
/// is also the check's first failure if none came before (result::ok is false for a racy
/// program), without ending the execution.
void checker::record_race(const event& a, const event& e) {
  const location& l = locs_[e.loc];
  const auto access_name = [&](const event& x) {
    const bool xw = x.kind == ek::cell_write || x.kind == ek::cell_init;
    return std::string(x.kind == ek::cell_init ? "initialisation" : xw ? "write" : "read") + " by t" +
           std::to_string(x.thread) + ":" + std::to_string(x.index) + " at " + file_line(x.file, x.line);
  };
  std::string key = std::string(l.file) + ":" + std::to_string(l.line) + "|" + a.file + ":" + std::to_string(a.line) +
                    std::to_string(static_cast<int>(a.kind)) + "|" + e.file + ":" + std::to_string(e.line) +
                    std::to_string(static_cast<int>(e.kind));
  if (std::find(race_keys_.begin(), race_keys_.end(), key) != race_keys_.end()) return;
  race_keys_.push_back(std::move(key));
  race r;
  r.location = "cell L" + std::to_string(e.loc) + " created at " + l.file + ":" + std::to_string(l.line);
  r.first = access_name(a);
  r.second = access_name(e);
  r.execution = exec_index_;
  r.replay_token = revisit_ ? rv_token() : token();
  r.trace = trace();
  if (res_.ok && !opt_.stop_at_first_race) {
    res_.ok = false;
    res_.kind = "data race";
    res_.message = r.second + " races with " + r.first + " on " + r.location;
    res_.trace = r.trace;
    res_.replay_token = r.replay_token;
  }
  res_.races.push_back(std::move(r));
}

void checker::cell_access(std::uint32_t id, bool write, const std::source_location& src) {
  if (!live()) return;
  location& l = locs_[id];
  if (!l.alive)
    PILFER_MODEL_FAIL("use after free", "t" + std::to_string(cur_) + " accessed cell " + location_name(id) +
                                            " after it was destroyed, at " + where(src));
  event e = make_event(write ? ek::cell_write : ek::cell_read, id, src);
  compute_views(e, threads_[cur_]);
  const auto gid = add_event(e, none);
  commit(gid);
  race_check(events_[gid], locs_[id]);
}

}  // namespace pilfer::model::engine
