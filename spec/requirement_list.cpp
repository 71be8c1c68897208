// spec/requirement_list.cpp — see requirement_list.hpp.
#include "requirement_list.hpp"

#include <fstream>
#include <sstream>

namespace pilfer::spec {

std::vector<std::string> to_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t b = 0;
  while (b < text.size()) {
    std::size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    std::string line = text.substr(b, e - b);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    b = e + 1;
  }
  return lines;
}

bool read_lines(const std::filesystem::path& p, std::vector<std::string>& lines) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return true;
}


// Rows: id <TAB> title <TAB> kinds (comma separated) <TAB> why. '#' starts a comment line;
// a first row starting with "id" is the header.
std::vector<requirement> parse_requirements(const std::vector<std::string>& lines, const std::string& name,
                                            diagnostics& d) {
  std::vector<requirement> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = name + ":" + std::to_string(i + 1);
    const std::string t = trim(lines[i]);
    if (t.empty() || t[0] == '#') continue;
    auto cols = split(lines[i], '\t');
    if (trim(cols[0]) == "id") continue;  // header
    if (cols.size() < 3) {
      d.error(where, "expected id<TAB>title<TAB>kinds[<TAB>why], got " + std::to_string(cols.size()) +
                         " column(s)");
      continue;
    }
    requirement r;
    r.id = trim(cols[0]);
    r.title = trim(cols[1]);
    r.why = cols.size() > 3 ? trim(cols[3]) : "";
    r.line = static_cast<int>(i + 1);
    if (!looks_like_id(r.id) || r.id != [&] {
          std::string u = r.id;
          for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          return u;
        }()) {
      d.error(where, "malformed requirement ID '" + r.id + "' (expected e.g. DQ-1)");
      continue;
    }
    if (!seen.insert(r.id).second) d.error(where, "duplicate requirement ID " + r.id);
    if (r.title.empty()) d.error(where, r.id + " has no title");
    for (const auto& k : split(cols[2], ',')) {
      const auto kk = trim(k);
      if (kk.empty()) continue;
      if (!valid_kind(kk))
        d.error(where, r.id + ": unknown evidence kind '" + kk + "' (use model, property, stress, unit, fuzz)");
      else
        r.kinds.insert(kk);
    }
    if (r.kinds.empty()) d.error(where, r.id + " requires no evidence kind");
    std::size_t core = 0;
    for (const auto& k : kCoreKinds) core += r.kinds.count(k);
    if (core < kCoreKinds.size() && r.why.empty())
      d.error(where, r.id + " does not require every kind of evidence: say why in the 'why' column");
    out.push_back(r);
  }
  if (out.empty()) d.error(name, "the requirement list is empty");
  return out;
}

// Rows: id <TAB> kind <TAB> reason.
std::vector<pending_entry> parse_pending(const std::vector<std::string>& lines, const std::string& name,
                                         const std::map<std::string, requirement>& reqs, diagnostics& d) {
  std::vector<pending_entry> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = name + ":" + std::to_string(i + 1);
    const std::string t = trim(lines[i]);
    if (t.empty() || t[0] == '#') continue;
    auto cols = split(lines[i], '\t');
    if (trim(cols[0]) == "id") continue;
    if (cols.size() < 3 || trim(cols[2]).empty()) {
      d.error(where, "expected id<TAB>kind<TAB>reason (a pending entry needs a reason)");
      continue;
    }
    pending_entry p{trim(cols[0]), trim(cols[1]), trim(cols[2]), static_cast<int>(i + 1)};
    auto it = reqs.find(p.id);
    if (it == reqs.end()) {
      d.error(where, "pending entry names unknown requirement " + p.id);
      continue;
    }
    if (it->second.kinds.count(p.kind) == 0) {
      d.error(where, "pending entry " + p.id + " " + p.kind + ": that kind is not required for " + p.id +
                         " (remove it from pending.tsv)");
      continue;
    }
    if (!seen.insert({p.id, p.kind}).second) d.error(where, "duplicate pending entry " + p.id + " " + p.kind);
    out.push_back(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// SPEC.md <-> requirements.tsv: every ID has a heading (### ID — title), every heading ID is listed, and
// each section has an "**Evidence:**" line whose backticked kinds equal the tsv evidence column.

void check_spec_md(const std::vector<std::string>& lines, const std::string& name,
                   const std::map<std::string, requirement>& reqs, diagnostics& d) {
  std::set<std::string> headed;
  std::string section;  // the requirement whose section we are in ("" outside)
  int section_line = 0;
  bool section_has_evidence = false;
  auto close_section = [&] {
    if (!section.empty() && !section_has_evidence)
      d.error(name + ":" + std::to_string(section_line),
              section + " has no '**Evidence:**' line naming its evidence kinds");
    section.clear();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    // "**Evidence:** `model` `unit` ..." — the backticked kinds must match requirements.tsv.
    if (!section.empty() && !section_has_evidence && starts_with(l, "**Evidence:**")) {
      section_has_evidence = true;
      std::set<std::string> kinds;
      for (std::size_t b = l.find('`'); b != std::string::npos;) {
        const std::size_t e = l.find('`', b + 1);
        if (e == std::string::npos) break;
        const std::string k = l.substr(b + 1, e - b - 1);
        if (valid_kind(k)) kinds.insert(k);
        b = l.find('`', e + 1);
      }
      const auto& want = reqs.at(section).kinds;
      if (kinds != want) {
        auto join = [](const std::set<std::string>& s) {
          std::string o;
          for (const auto& k : s) o += (o.empty() ? "" : ",") + k;
          return o.empty() ? std::string("none") : o;
        };
        d.error(name + ":" + std::to_string(i + 1),
                section + ": SPEC.md requires evidence " + join(kinds) + " but requirements.tsv says " +
                    join(want));
      }
      continue;
    }
    if (!starts_with(l, "#")) continue;
    std::size_t j = 0;
    while (j < l.size() && l[j] == '#') ++j;
    std::istringstream ss(l.substr(j));
    std::string first;
    ss >> first;
    while (!first.empty() && std::string(":.").find(first.back()) != std::string::npos) first.pop_back();
    if (j >= 4) continue;  // "#### Scenario" and deeper stay inside the requirement's section
    close_section();
    if (!looks_like_id(first)) continue;
    const std::string where = name + ":" + std::to_string(i + 1);
    if (reqs.count(first) == 0) {
      d.error(where, "SPEC.md has requirement " + first + " that spec/requirements.tsv does not list");
    } else if (!headed.insert(first).second) {
      d.error(where, "SPEC.md defines " + first + " twice");
    } else {
      section = first;
      section_line = static_cast<int>(i + 1);
      section_has_evidence = false;
    }
  }
  close_section();
  for (const auto& [id, r] : reqs)
    if (headed.count(id) == 0)
      d.error(name, "requirement " + id + " (requirements.tsv line " + std::to_string(r.line) +
                                    ") has no heading in SPEC.md");
}

}  // namespace pilfer::spec
