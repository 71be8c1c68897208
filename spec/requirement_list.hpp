// spec/requirement_list.hpp — the reader of spec/requirements.tsv, spec/pending.tsv and SPEC.md's requirement
// headings, split out of check.cpp so the fuzz target (fuzz/spec_reader_fuzz.cpp) links the same code.
// Every malformed input is a diagnostic ("FILE:LINE: error: ..."), never an exception or a crash (REL-2).
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pilfer::spec {

// The four kinds every requirement needs unless its 'why' column says otherwise.
inline const std::vector<std::string> kCoreKinds = {"model", "property", "stress", "unit"};
// Kinds a requirement may name: the core four, and fuzz (libFuzzer targets under fuzz/; never needs a why).
inline const std::vector<std::string> kRequiredKinds = {"model", "property", "stress", "unit", "fuzz"};
// Column order of the report: the four core kinds, examples (shown, never required), fuzz.
inline const std::vector<std::string> kAllKinds = {"model", "property", "stress", "unit", "example", "fuzz"};

struct requirement {
  std::string id;
  std::string title;
  std::set<std::string> kinds;
  std::string why;
  int line = 0;
};

struct pending_entry {
  std::string id;
  std::string kind;
  std::string reason;
  int line = 0;
};

/// Counts errors and warnings; prints each as "where: error: what" to `out` (std::cerr; nullptr = silent,
/// as in the fuzz targets).
struct diagnostics {
  int errors = 0;
  int warnings = 0;
  std::ostream* out = &std::cerr;
  void error(const std::string& where, const std::string& what) {
    ++errors;
    if (out) *out << where << ": error: " << what << '\n';
  }
  void warning(const std::string& where, const std::string& what) {
    ++warnings;
    if (out) *out << where << ": warning: " << what << '\n';
  }
};


// Small string helpers

inline std::string trim(const std::string& s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

inline bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

inline bool starts_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

inline bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// "DQ-1", "POOL-17": letters, a dash, digits. Case-insensitive here so that a lower-case
// typo is reported as an unknown ID rather than silently ignored.
inline bool looks_like_id(const std::string& t) {
  const auto dash = t.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == t.size()) return false;
  for (std::size_t i = 0; i < dash; ++i)
    if (std::isalpha(static_cast<unsigned char>(t[i])) == 0) return false;
  for (std::size_t i = dash + 1; i < t.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(t[i])) == 0) return false;
  return true;
}

inline bool valid_kind(const std::string& k) {
  return std::find(kRequiredKinds.begin(), kRequiredKinds.end(), k) != kRequiredKinds.end();
}

/// Lines of a text: '\n' separated, a trailing '\r' dropped, no empty line after a final '\n'.
std::vector<std::string> to_lines(const std::string& text);

/// The lines of a file (as to_lines); false when it cannot be read.
bool read_lines(const std::filesystem::path& p, std::vector<std::string>& lines);

/// requirements.tsv rows: id <TAB> title <TAB> kinds <TAB> why. `name` prefixes the diagnostics.
std::vector<requirement> parse_requirements(const std::vector<std::string>& lines, const std::string& name,
                                            diagnostics& d);

/// pending.tsv rows: id <TAB> kind <TAB> reason, checked against the requirement list.
std::vector<pending_entry> parse_pending(const std::vector<std::string>& lines, const std::string& name,
                                         const std::map<std::string, requirement>& reqs, diagnostics& d);

/// SPEC.md: every requirement has one "### ID — title" heading with an "**Evidence:**" line whose backticked
/// kinds equal the list's; every heading ID is listed.
void check_spec_md(const std::vector<std::string>& lines, const std::string& name,
                   const std::map<std::string, requirement>& reqs, diagnostics& d);

}  // namespace pilfer::spec
