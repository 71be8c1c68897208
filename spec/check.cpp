// pilfer_spec_check — the traceability check and the policy-seam check (C++17, no dependencies).
//
// Traceability (default mode):
//   pilfer_spec_check --root DIR [--requirements FILE] [--pending FILE] [--markdown FILE]
//                     [--spec-md FILE] [--update-pending]
// reads the requirement list (DIR/spec/requirements.tsv) and the named pending list
// (DIR/spec/pending.tsv), scans the evidence trees for `@verifies ID ...` tags and fails when
//   * a tag names an ID that is not in the requirement list (file:line and the ID are printed);
//   * a required (ID, kind) pair has no evidence and is not on the pending list;
//   * a pending (ID, kind) pair now has evidence ("remove it from pending.tsv");
//   * the requirement list or the pending list is malformed, or SPEC.md and the list disagree
//     (an ID without a heading, a heading without an ID, different evidence kinds).
// The evidence kind comes from the path: models/ = model, conformance/ = property,
// stress/ = stress, lib/tests/ = unit (examples/ = example: shown, never required).
// It prints a requirement x kind table and, with --markdown, writes the same as Markdown.
// --update-pending rewrites the pending list: still-missing entries keep their reason, stale
// entries are dropped, newly missing pairs are added with "not yet implemented: <issue>".
//
// Policy seam:
//   pilfer_spec_check --policy-seam --root DIR
// fails when a C/C++ source outside lib/include/pilfer/sync.hpp names std::atomic*,
// atomic_thread_fence / atomic_signal_fence, or includes <atomic> / <stdatomic.h>. Comments and
// string literals are ignored; build trees, dot-directories, third-party directories and
// spec/tests/fixtures (deliberate violations for the self-tests) are skipped.
//
// Exit status: 0 = pass, 1 = check failed, 2 = usage or I/O error.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "requirement_list.hpp"

namespace fs = std::filesystem;
using namespace pilfer::spec;

namespace {

struct tag {
  std::string file;  // relative to the root, generic separators
  int line = 0;
  std::string kind;
  std::string test;  // best-effort name of the test at the tag ("" if not recognised)
};

// ---------------------------------------------------------------------------------------------
// Small string helpers

bool read_file(const fs::path& p, std::string& text) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

std::string relative_generic(const fs::path& p, const fs::path& root) {
  std::error_code ec;
  auto rel = fs::relative(p, root, ec);
  if (ec || rel.empty()) return p.generic_string();
  return rel.generic_string();
}

std::string basename_of(const std::string& generic) {
  const auto slash = generic.find_last_of('/');
  return slash == std::string::npos ? generic : generic.substr(slash + 1);
}

// Directories never scanned, wherever they appear.
bool skipped_dir(const std::string& name) {
  if (name.empty()) return false;
  if (name[0] == '.') return true;  // .git, .cache, .vscode ...
  if (name == "build" || starts_with(name, "build-") || starts_with(name, "build_")) return true;
  static const std::set<std::string> third_party = {"third_party", "third-party", "3rdparty",
                                                    "thirdparty",  "vendor",      "external",
                                                    "_deps",       "node_modules"};
  return third_party.count(name) != 0;
}

template <class F>
void walk(const fs::path& dir, const fs::path& root, const std::set<std::string>& skip_rel, F&& f) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());  // deterministic report order
  for (const auto& p : entries) {
    std::error_code ec2;
    if (fs::is_directory(p, ec2)) {
      if (skipped_dir(p.filename().string())) continue;
      if (skip_rel.count(relative_generic(p, root)) != 0) continue;
      walk(p, root, skip_rel, f);
    } else if (fs::is_regular_file(p, ec2)) {
      f(p);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The requirement list and the pending list

// File wrappers around the reader (requirement_list.hpp).
std::vector<requirement> load_requirements(const fs::path& file, diagnostics& d) {
  std::vector<std::string> lines;
  if (!read_lines(file, lines)) {
    d.error(file.string(), "cannot read the requirement list");
    return {};
  }
  return parse_requirements(lines, file.string(), d);
}

std::vector<pending_entry> load_pending(const fs::path& file, const std::map<std::string, requirement>& reqs,
                                        diagnostics& d) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};  // no pending list = nothing is pending
  std::vector<std::string> lines;
  if (!read_lines(file, lines)) {
    d.error(file.string(), "cannot read the pending list");
    return {};
  }
  return parse_pending(lines, file.string(), reqs, d);
}

void check_spec_md(const fs::path& spec_md, const std::map<std::string, requirement>& reqs, diagnostics& d) {
  std::vector<std::string> lines;
  if (!read_lines(spec_md, lines)) {
    d.error(spec_md.string(), "cannot read");
    return;
  }
  check_spec_md(lines, spec_md.string(), reqs, d);
}

// ---------------------------------------------------------------------------------------------
// Tag scanning

std::string kind_of(const std::string& rel) {
  if (starts_with(rel, "models/")) return "model";
  if (starts_with(rel, "conformance/")) return "property";
  if (starts_with(rel, "stress/")) return "stress";
  if (starts_with(rel, "lib/tests/")) return "unit";
  if (starts_with(rel, "examples/")) return "example";
  if (starts_with(rel, "fuzz/")) return "fuzz";
  return "";
}

bool tag_file(const fs::path& p) {
  const std::string name = p.filename().string();
  if (name == "CMakeLists.txt") return true;
  static const std::vector<std::string> exts = {".cpp", ".cc",  ".cxx",    ".hpp", ".hh",
                                                ".h",   ".ipp", ".litmus", ".tsv", ".cmake"};
  for (const auto& e : exts)
    if (ends_with(name, e)) return true;
  return false;
}

// Reads "A, B" after an opening parenthesis at `pos` → "A.B" (or "A" if only one).
std::string macro_args_name(const std::string& line, std::size_t open) {
  std::vector<std::string> ids;
  std::string cur;
  for (std::size_t i = open + 1; i < line.size() && ids.size() < 2; ++i) {
    const char c = line[i];
    if (is_ident_char(c)) {
      cur += c;
    } else {
      if (!cur.empty()) ids.push_back(cur);
      cur.clear();
      if (c == ')' || c == '"') break;
    }
  }
  if (!cur.empty() && ids.size() < 2) ids.push_back(cur);
  if (ids.empty()) return "";
  return ids.size() == 1 ? ids[0] : ids[0] + "." + ids[1];
}

// Best-effort: the name of the test a tag is placed at. Test macros (TEST, TEST_F, RC_GTEST_PROP ...),
// a litmus test's "C name" line and CMake add_test(NAME x) are recognised on the tag line and the next
// few lines; a struct/class or function definition, or else the string literals, only on the first
// code line after the tag (so a name from an unrelated later definition is never reported).
std::string find_test_name(const std::vector<std::string>& lines, std::size_t at, const std::string& file) {
  static const std::vector<std::string> macros = {
      "RC_GTEST_FIXTURE_PROP", "RC_GTEST_PROP", "TYPED_TEST_P", "TYPED_TEST", "TEST_F", "TEST_P", "TEST"};
  const bool litmus = ends_with(file, ".litmus");
  for (std::size_t i = at; i < lines.size() && i < at + 10; ++i) {
    const std::string& l = lines[i];
    for (const auto& m : macros) {
      for (std::size_t pos = l.find(m); pos != std::string::npos; pos = l.find(m, pos + 1)) {
        if (pos > 0 && is_ident_char(l[pos - 1])) continue;
        std::size_t j = pos + m.size();
        while (j < l.size() && l[j] == ' ') ++j;
        if (j < l.size() && l[j] == '(') {
          auto n = macro_args_name(l, j);
          if (!n.empty()) return n;
        }
      }
    }
    if (litmus && starts_with(l, "C ")) return trim(l.substr(2));
    const std::string t = trim(l);
    for (const std::string kw : {"add_test(NAME ", "add_test( NAME ", "add_test("}) {
      if (starts_with(t, kw)) {
        std::string n;
        for (std::size_t j = kw.size(); j < t.size() && std::isspace(static_cast<unsigned char>(t[j])) == 0 &&
                                        t[j] != ')';
             ++j)
          n += t[j];
        if (!n.empty()) return n;
      }
    }
  }
  // The first code line after the tag.
  std::size_t i = at + 1;
  while (i < lines.size()) {
    const std::string t = trim(lines[i]);
    if (!t.empty() && !starts_with(t, "//") && !starts_with(t, "#") && !starts_with(t, "*") &&
        !starts_with(t, "/*") && !starts_with(t, "template"))
      break;
    ++i;
  }
  if (i >= lines.size() || i > at + 6) return "";
  const std::string t = trim(lines[i]);
  for (const std::string kw : {"struct ", "class "}) {
    if (starts_with(t, kw)) {
      std::string n;
      for (std::size_t j = kw.size(); j < t.size() && is_ident_char(t[j]); ++j) n += t[j];
      if (!n.empty() && n != "alignas") return n;
    }
  }
  // "<type> name(" not ending a statement: a function definition.
  const auto paren = t.find('(');
  if (paren != std::string::npos && paren > 0 && t.find(';') == std::string::npos) {
    std::size_t e = paren;
    while (e > 0 && t[e - 1] == ' ') --e;
    std::size_t b = e;
    while (b > 0 && is_ident_char(t[b - 1])) --b;
    const std::string n = t.substr(b, e - b);
    static const std::set<std::string> not_names = {"if",     "for",    "while",     "switch",   "return",
                                                    "sizeof", "catch",  "assert",    "decltype", "constexpr",
                                                    "static", "inline", "noexcept",  "requires", "alignas"};
    const char before = b > 0 ? t[b - 1] : '\0';
    if (!n.empty() && (before == ' ' || before == '*' || before == '&' || before == '>') &&
        not_names.count(n) == 0 && std::isdigit(static_cast<unsigned char>(n[0])) == 0) {
      if (n != "main") return n;
      std::string stem = basename_of(file);  // a whole program: name it after its file
      return stem.substr(0, stem.find('.'));
    }
  }
  // Otherwise the first two string literals of that line (e.g. a table of named checks).
  std::vector<std::string> lits;
  for (std::size_t q = t.find('"'); q != std::string::npos && lits.size() < 2;) {
    const std::size_t e = t.find('"', q + 1);
    if (e == std::string::npos) break;
    std::string lit = t.substr(q + 1, e - q - 1);
    if (lit.size() > 48) lit = lit.substr(0, 45) + "...";
    if (!lit.empty()) lits.push_back(lit);
    q = t.find('"', e + 1);
  }
  if (lits.empty()) return "";
  return lits.size() == 1 ? lits[0] : lits[0] + " / " + lits[1];
}

struct scan_result {
  std::map<std::string, std::map<std::string, std::vector<tag>>> by_id;  // id -> kind -> tags
  int tags = 0;
  int files = 0;
};

scan_result scan_tags(const fs::path& root, const std::map<std::string, requirement>& reqs, diagnostics& d) {
  scan_result res;
  static const std::vector<std::string> trees = {"lib/tests", "models", "conformance", "stress", "examples", "fuzz"};
  const std::string marker = "@verifies";
  for (const auto& t : trees) {
    walk(root / t, root, {}, [&](const fs::path& p) {
      if (!tag_file(p)) return;
      const std::string rel = relative_generic(p, root);
      const std::string kind = kind_of(rel);
      std::vector<std::string> lines;
      if (!read_lines(p, lines)) {
        d.error(rel, "cannot read");
        return;
      }
      ++res.files;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        for (std::size_t pos = l.find(marker); pos != std::string::npos; pos = l.find(marker, pos + 1)) {
          const std::size_t after = pos + marker.size();
          if (after < l.size() && is_ident_char(l[after])) continue;  // "@verifiesX" is not a tag
          const std::string where = rel + ":" + std::to_string(i + 1);
          // Tokens after the marker, separated by blanks or commas; the ID list ends at the first
          // token that does not look like an ID (so prose may follow).
          std::vector<std::string> ids;
          std::string rest = l.substr(after);
          for (auto& c : rest)
            if (c == ',' || c == '\t') c = ' ';
          std::istringstream ss(rest);
          std::string tok;
          while (ss >> tok) {
            while (!tok.empty() && std::string(".;:)*/").find(tok.back()) != std::string::npos) tok.pop_back();
            if (!looks_like_id(tok)) break;
            ids.push_back(tok);
          }
          if (ids.empty()) {
            d.warning(where, "'@verifies' not followed by a requirement ID (ignored)");
            continue;
          }
          ++res.tags;
          tag tg{rel, static_cast<int>(i + 1), kind, find_test_name(lines, i, rel)};
          for (const auto& id : ids) {
            if (reqs.count(id) == 0) {
              d.error(where, "@verifies names unknown requirement ID " + id +
                                 " (known IDs are listed in spec/requirements.tsv)");
              continue;
            }
            res.by_id[id][kind].push_back(tg);
          }
        }
      }
    });
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Report

enum class cell_state { covered, extra, pending, missing, none };

struct cell {
  cell_state state = cell_state::none;
  std::size_t count = 0;
};

std::string issue_for(const std::string& id, const std::string& kind) {
  const std::string prefix = id.substr(0, id.find('-'));
  if (id == "MC-2") return "sensitivity table ctest (models/scenarios/)";
  if (id == "CONF-1") return "conformance mutant-kill ctest and report (conformance/)";
  if (kind == "model") {
    if (prefix == "MC") return "model checker engine self-tests and litmus corpus (models/)";
    return "model-checker scenarios on the real headers (models/scenarios/)";
  }
  if (kind == "property") return "conformance suite requirement tests (conformance/)";
  if (kind == "stress") return "stress programs (stress/)";
  if (prefix == "POOL") return "pool unit tests (lib/tests/pool_*_test.cpp)";
  if (prefix == "DQ" || prefix == "INJ") return "deque/injector unit tests (lib/tests/)";
  return "unit tests (lib/tests/)";
}

std::string files_summary(const std::vector<tag>& tags, std::size_t max_files) {
  std::vector<std::string> files;
  for (const auto& t : tags) {
    const auto b = basename_of(t.file);
    if (std::find(files.begin(), files.end(), b) == files.end()) files.push_back(b);
  }
  std::string s;
  for (std::size_t i = 0; i < files.size() && i < max_files; ++i) s += (i ? ", " : "") + files[i];
  if (files.size() > max_files) s += ", +" + std::to_string(files.size() - max_files) + " more";
  return s;
}

std::string cell_text(const cell& c) {
  switch (c.state) {
    case cell_state::covered: return std::to_string(c.count);
    case cell_state::extra: return "(" + std::to_string(c.count) + ")";
    case cell_state::pending: return "pending";
    case cell_state::missing: return "MISSING";
    case cell_state::none: return ".";
  }
  return "?";
}

std::string md_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else o += c;
  }
  return o;
}

void usage(std::ostream& out) {
  out << "usage: pilfer_spec_check --root DIR [--requirements FILE] [--pending FILE]\n"
         "                         [--markdown FILE] [--spec-md FILE] [--update-pending]\n"
         "       pilfer_spec_check --policy-seam --root DIR\n";
}

/// Bad command line: one line on stderr, exit status 2 (REL-2).
int bad_usage(const std::string& what) {
  std::cerr << "pilfer_spec_check: error: " << what << " (--help shows the usage)\n";
  return 2;
}

// ---------------------------------------------------------------------------------------------
// Policy seam

// Blanks out comments and string/character literals (newlines kept, so line numbers stay).
std::string strip_comments_and_literals(const std::string& in) {
  std::string out = in;
  std::size_t i = 0;
  const std::size_t n = in.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < n) {
    const char c = in[i];
    if (c == '/' && i + 1 < n && in[i + 1] == '/') {
      std::size_t e = in.find('\n', i);
      if (e == std::string::npos) e = n;
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && in[i + 1] == '*') {
      std::size_t e = in.find("*/", i + 2);
      e = (e == std::string::npos) ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == '"') {
      // Raw string: R"delim( ... )delim" (possibly with an encoding prefix before R).
      if (i > 0 && in[i - 1] == 'R' && (i < 2 || !is_ident_char(in[i - 2]) || in[i - 2] == '8' ||
                                        in[i - 2] == 'u' || in[i - 2] == 'U' || in[i - 2] == 'L')) {
        const std::size_t open = in.find('(', i + 1);
        if (open != std::string::npos) {
          const std::string close = ")" + in.substr(i + 1, open - i - 1) + "\"";
          std::size_t e = in.find(close, open + 1);
          e = (e == std::string::npos) ? n : e + close.size();
          blank(i + 1, e - 1);
          i = e;
          continue;
        }
      }
      std::size_t k = i + 1;
      while (k < n && in[k] != '"' && in[k] != '\n') k += (in[k] == '\\') ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else if (c == '\'') {
      // A digit separator (1'000) follows an alphanumeric; a character literal does not, except
      // after an encoding prefix (u8'x', L'x').
      bool literal = true;
      if (i > 0 && is_ident_char(in[i - 1])) {
        literal = false;
        std::size_t b = i;
        while (b > 0 && is_ident_char(in[b - 1])) --b;
        const std::string word = in.substr(b, i - b);
        if (word == "u8" || word == "u" || word == "U" || word == "L") literal = true;
      }
      if (!literal) {
        ++i;
        continue;
      }
      std::size_t k = i + 1;
      while (k < n && in[k] != '\'' && in[k] != '\n') k += (in[k] == '\\') ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else {
      ++i;
    }
  }
  return out;
}

bool policy_file(const fs::path& p) {
  const std::string name = p.filename().string();
  static const std::vector<std::string> exts = {".cpp", ".cc", ".cxx", ".c",  ".hpp",
                                                ".hh",  ".h",  ".hxx", ".ipp", ".inl", ".tpp"};
  for (const auto& e : exts)
    if (ends_with(name, e)) return true;
  return false;
}

// Finds the seam violations on one (stripped) line.
std::vector<std::string> violations_in(const std::string& l) {
  std::vector<std::string> found;
  // #include <atomic> / <stdatomic.h>
  {
    std::size_t j = 0;
    while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
    if (j < l.size() && l[j] == '#') {
      ++j;
      while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
      if (l.compare(j, 7, "include") == 0) {
        const std::string rest = l.substr(j + 7);
        const auto lt = rest.find('<');
        const auto gt = rest.find('>');
        if (lt != std::string::npos && gt != std::string::npos && gt > lt) {
          const std::string h = trim(rest.substr(lt + 1, gt - lt - 1));
          if (h == "atomic" || h == "stdatomic.h") found.push_back("#include <" + h + ">");
        }
      }
    }
  }
  // std :: atomic...
  for (std::size_t pos = l.find("std"); pos != std::string::npos; pos = l.find("std", pos + 1)) {
    if (pos > 0 && is_ident_char(l[pos - 1])) continue;
    std::size_t j = pos + 3;
    while (j < l.size() && l[j] == ' ') ++j;
    if (l.compare(j, 2, "::") != 0) continue;
    j += 2;
    while (j < l.size() && l[j] == ' ') ++j;
    if (l.compare(j, 6, "atomic") != 0) continue;
    std::size_t e = j + 6;
    while (e < l.size() && is_ident_char(l[e])) ++e;
    found.push_back("std::" + l.substr(j, e - j));
  }
  // bare fence functions (C or C++ spelling)
  for (const std::string fn : {"atomic_thread_fence", "atomic_signal_fence"}) {
    for (std::size_t pos = l.find(fn); pos != std::string::npos; pos = l.find(fn, pos + 1)) {
      if (pos > 0 && is_ident_char(l[pos - 1])) continue;
      const std::size_t e = pos + fn.size();
      if (e < l.size() && is_ident_char(l[e])) continue;
      // "std::atomic_thread_fence" is already reported above.
      if (pos >= 2 && l.compare(pos - 2, 2, "::") == 0) {
        std::size_t b = pos - 2;
        while (b > 0 && l[b - 1] == ' ') --b;
        if (b >= 3 && l.compare(b - 3, 3, "std") == 0) continue;
      }
      found.push_back(fn);
    }
  }
  return found;
}

int run_policy(const fs::path& root) {
  const std::string allowed = "lib/include/pilfer/sync.hpp";
  int bad = 0;
  int files = 0;
  walk(root, root, {"spec/tests/fixtures"}, [&](const fs::path& p) {
    if (!policy_file(p)) return;
    const std::string rel = relative_generic(p, root);
    if (rel == allowed) return;
    std::string text;
    if (!read_file(p, text)) {
      std::cerr << rel << ": error: cannot read\n";
      ++bad;
      return;
    }
    ++files;
    const std::string stripped = strip_comments_and_literals(text);
    std::istringstream ss(stripped);
    std::string line;
    int no = 0;
    while (std::getline(ss, line)) {
      ++no;
      for (const auto& v : violations_in(line)) {
        ++bad;
        std::cerr << rel << ":" << no << ": error: names " << v << " — only " << allowed
                  << " may; use pilfer::std_sync::atomic<T> / Sync::fence(PILFER_SITE(...)) instead\n";
      }
    }
  });
  std::cout << "policy seam: " << files << " C/C++ file(s) scanned under " << root.string() << ", " << bad
            << " violation(s)\n";
  if (bad != 0) {
    std::cout << "FAIL: only " << allowed << " may name std::atomic, atomic_thread_fence or <atomic>\n";
    return 1;
  }
  std::cout << "PASS\n";
  return 0;
}

// ---------------------------------------------------------------------------------------------

int run_traceability(const fs::path& root, fs::path req_file, fs::path pending_file, const fs::path& markdown,
                     fs::path spec_md, bool update_pending) {
  diagnostics d;
  if (req_file.empty()) req_file = root / "spec" / "requirements.tsv";
  if (pending_file.empty()) pending_file = root / "spec" / "pending.tsv";
  std::error_code ec;
  if (spec_md.empty() && fs::exists(root / "SPEC.md", ec)) spec_md = root / "SPEC.md";

  const auto list = load_requirements(req_file, d);
  std::map<std::string, requirement> reqs;
  for (const auto& r : list) reqs.emplace(r.id, r);
  if (!spec_md.empty()) check_spec_md(spec_md, reqs, d);
  const auto pending = load_pending(pending_file, reqs, d);
  std::set<std::pair<std::string, std::string>> pending_set;
  std::map<std::pair<std::string, std::string>, const pending_entry*> pending_by_key;
  for (const auto& p : pending) {
    pending_set.insert({p.id, p.kind});
    pending_by_key[{p.id, p.kind}] = &p;
  }

  const scan_result scan = scan_tags(root, reqs, d);

  // Classify every (requirement, kind) cell.
  std::map<std::string, std::map<std::string, cell>> grid;
  std::vector<std::pair<std::string, std::string>> missing, stale;
  int covered_reqs = 0;
  for (const auto& r : list) {
    bool all = true;
    for (const auto& k : kAllKinds) {
      cell c;
      auto it = scan.by_id.find(r.id);
      if (it != scan.by_id.end()) {
        auto jt = it->second.find(k);
        if (jt != it->second.end()) c.count = jt->second.size();
      }
      const bool required = r.kinds.count(k) != 0;
      const bool is_pending = pending_set.count({r.id, k}) != 0;
      if (required) {
        if (c.count > 0) {
          c.state = cell_state::covered;
          if (is_pending) stale.push_back({r.id, k});
        } else if (is_pending) {
          c.state = cell_state::pending;
          all = false;
        } else {
          c.state = cell_state::missing;
          missing.push_back({r.id, k});
          all = false;
        }
      } else {
        c.state = c.count > 0 ? cell_state::extra : cell_state::none;
      }
      grid[r.id][k] = c;
    }
    if (all) ++covered_reqs;
  }

  for (const auto& [id, kind] : missing) {
    const auto& r = reqs.at(id);
    d.error(req_file.string() + ":" + std::to_string(r.line),
            id + " requires " + kind + " evidence but no `@verifies " + id + "` tag was found in the " + kind +
                " tree, and (" + id + ", " + kind + ") is not on pending.tsv");
  }
  for (const auto& [id, kind] : stale) {
    const auto* p = pending_by_key.at({id, kind});
    const auto& tags = scan.by_id.at(id).at(kind);
    d.error(pending_file.string() + ":" + std::to_string(p->line),
            "(" + id + ", " + kind + ") is pending but now has evidence (" + tags.front().file + ":" +
                std::to_string(tags.front().line) + "): remove it from pending.tsv");
  }

  // Console table.
  std::cout << "traceability: " << list.size() << " requirement(s), " << scan.tags << " tag(s) in " << scan.files
            << " file(s) under " << root.string() << "\n\n";
  std::cout << std::left << std::setw(10) << "ID";
  for (const auto& k : kAllKinds) std::cout << std::setw(10) << k;
  std::cout << "evidence files\n";
  for (const auto& r : list) {
    std::cout << std::setw(10) << r.id;
    for (const auto& k : kAllKinds) std::cout << std::setw(10) << cell_text(grid[r.id][k]);
    std::string files;
    auto it = scan.by_id.find(r.id);
    if (it != scan.by_id.end()) {
      for (const auto& k : kAllKinds) {
        auto jt = it->second.find(k);
        if (jt == it->second.end()) continue;
        files += (files.empty() ? "" : "; ") + k + ": " + files_summary(jt->second, 2);
      }
    }
    std::cout << files << '\n';
  }
  std::cout << "\nlegend: N = tags found (required kind); (N) = tags found, kind not required; pending = "
               "required, none yet, on pending.tsv; MISSING = required, none, not pending; . = not required\n";
  std::cout << covered_reqs << "/" << list.size() << " requirement(s) have every required kind; "
            << pending.size() << " pending pair(s); " << missing.size() << " missing; " << stale.size()
            << " stale pending\n";

  // Markdown.
  if (!markdown.empty()) {
    fs::create_directories(markdown.parent_path(), ec);
    std::ofstream md(markdown);
    if (!md) {
      d.error(markdown.string(), "cannot write");
    } else {
      md << "# pilfer traceability: requirement x evidence kind\n\n"
         << "Generated by `pilfer_spec_check` from `spec/requirements.tsv`, `spec/pending.tsv` and the\n"
         << "`@verifies` tags in the source tree. Kinds come from the path: `models/` = model,\n"
         << "`conformance/` = property, `stress/` = stress, `lib/tests/` = unit, `examples/` = example,\n"
         << "`fuzz/` = fuzz (libFuzzer targets).\n\n"
         << "Cells: **N** = N tagged tests (kind required); (N) = tagged, kind not required; *pending* = "
         << "required, not yet, on pending.tsv; **MISSING** = required, none, not pending; · = not required.\n\n"
         << "| ID | title |";
      for (const auto& k : kAllKinds) md << ' ' << k << " |";
      md << "\n|---|---|";
      for (std::size_t i = 0; i < kAllKinds.size(); ++i) md << "---|";
      md << '\n';
      for (const auto& r : list) {
        md << "| " << r.id << " | " << md_escape(r.title) << " |";
        for (const auto& k : kAllKinds) {
          const cell& c = grid[r.id][k];
          switch (c.state) {
            case cell_state::covered: md << " **" << c.count << "** |"; break;
            case cell_state::extra: md << " (" << c.count << ") |"; break;
            case cell_state::pending: md << " *pending* |"; break;
            case cell_state::missing: md << " **MISSING** |"; break;
            case cell_state::none: md << " · |"; break;
          }
        }
        md << '\n';
      }
      md << "\n" << covered_reqs << "/" << list.size() << " requirements have every required kind of evidence; "
         << pending.size() << " pending pair(s); " << missing.size() << " missing; " << stale.size()
         << " stale pending.\n\n## Evidence by requirement\n\n";
      for (const auto& r : list) {
        md << "### " << r.id << " — " << md_escape(r.title) << "\n\n";
        md << "Required: ";
        bool first = true;
        for (const auto& k : kRequiredKinds)
          if (r.kinds.count(k) != 0) {
            md << (first ? "" : ", ") << k;
            first = false;
          }
        if (!r.why.empty()) md << ". Why not the others: " << md_escape(r.why);
        md << "\n\n";
        auto it = scan.by_id.find(r.id);
        for (const auto& k : kAllKinds) {
          const bool has = it != scan.by_id.end() && it->second.count(k) != 0;
          if (has) {
            for (const auto& t : it->second.at(k))
              md << "- " << k << ": `" << t.file << ":" << t.line << "`"
                 << (t.test.empty() ? "" : " — " + md_escape(t.test)) << '\n';
          } else if (r.kinds.count(k) != 0) {
            auto pt = pending_by_key.find({r.id, k});
            if (pt != pending_by_key.end())
              md << "- " << k << ": *pending* — " << md_escape(pt->second->reason) << '\n';
            else
              md << "- " << k << ": **MISSING**\n";
          }
        }
        md << '\n';
      }
      if (!pending.empty()) {
        md << "## Pending evidence (spec/pending.tsv)\n\n| ID | kind | reason |\n|---|---|---|\n";
        for (const auto& p : pending) md << "| " << p.id << " | " << p.kind << " | " << md_escape(p.reason) << " |\n";
      }
      std::cout << "wrote " << markdown.string() << '\n';
    }
  }

  if (update_pending) {
    // Keep still-missing entries (with their reasons), drop stale ones, add newly missing pairs.
    std::ofstream out(pending_file);
    if (!out) {
      std::cerr << pending_file.string() << ": error: cannot write\n";
      return 2;
    }
    out << "# Named pending (requirement, kind) pairs: allowed to have no evidence FOR NOW.\n"
        << "# The spec check fails when an entry here gains evidence (remove it) and when a required pair\n"
        << "# has no evidence and is not here. Refresh: pilfer_spec_check --root <src> --update-pending\n"
        << "id\tkind\treason\n";
    int kept = 0;
    int added = 0;
    for (const auto& r : list) {
      for (const auto& k : kRequiredKinds) {
        const cell& c = grid[r.id][k];
        if (c.state == cell_state::pending) {
          out << r.id << '\t' << k << '\t' << pending_by_key.at({r.id, k})->reason << '\n';
          ++kept;
        } else if (c.state == cell_state::missing) {
          out << r.id << '\t' << k << "\tnot yet implemented: " << issue_for(r.id, k) << '\n';
          ++added;
        }
      }
    }
    std::cout << "updated " << pending_file.string() << ": kept " << kept << ", added " << added << ", removed "
              << stale.size() << '\n';
    // The list now matches the tree: unknown IDs and malformed input still fail.
    const int remaining = d.errors - static_cast<int>(missing.size() + stale.size());
    if (remaining > 0) {
      std::cout << "FAIL: " << remaining << " error(s) besides the pending list\n";
      return 1;
    }
    return 0;
  }

  if (d.errors != 0) {
    std::cout << "FAIL: " << d.errors << " error(s) (see above)\n";
    return 1;
  }
  std::cout << "PASS\n";
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  fs::path root;
  fs::path req_file;
  fs::path pending_file;
  fs::path markdown;
  fs::path spec_md;
  bool policy = false;
  bool update_pending = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](fs::path& out) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') return false;
      out = argv[++i];
      return true;
    };
    if (a == "--root") {
      if (!value(root)) return bad_usage("--root needs a value");
    } else if (a == "--requirements") {
      if (!value(req_file)) return bad_usage("--requirements needs a value");
    } else if (a == "--pending") {
      if (!value(pending_file)) return bad_usage("--pending needs a value");
    } else if (a == "--markdown") {
      if (!value(markdown)) return bad_usage("--markdown needs a value");
    } else if (a == "--spec-md") {
      if (!value(spec_md)) return bad_usage("--spec-md needs a value");
    } else if (a == "--policy-seam") {
      policy = true;
    } else if (a == "--update-pending") {
      update_pending = true;
    } else if (a == "--help" || a == "-h") {
      usage(std::cout);
      return 0;
    } else {
      return bad_usage("unknown argument '" + a + "'");
    }
  }
  if (root.empty()) return bad_usage("--root DIR is required");
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    std::cerr << root.string() << ": error: not a directory\n";
    return 2;
  }
  root = fs::weakly_canonical(root, ec);
  return policy ? run_policy(root)
                : run_traceability(root, req_file, pending_file, markdown, spec_md, update_pending);
}

int main(int argc, char** argv) {
  // Every input problem is reported by the code above as a diagnostic; this is the net under it: whatever
  // escapes (a filesystem error, exhausted memory) is still one line and status 2, never an abort (REL-2).
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pilfer_spec_check: error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "pilfer_spec_check: error: unexpected exception\n";
  }
  return 2;
}
