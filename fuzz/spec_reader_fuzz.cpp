// fuzz/spec_reader_fuzz.cpp — the requirements.tsv / pending.tsv / SPEC.md reader (spec/requirement_list.hpp)
// on arbitrary bytes. The input is split at the first two NUL bytes into the three files' texts.
// Checked: no crash, no exception, no sanitizer report (REL-2); and what the reader accepts is well-formed:
// every requirement it returns has an upper-case ID, a title and at least one known evidence kind, IDs are
// unique, and every pending entry it returns names a listed requirement and one of its kinds. A malformed
// input must have produced at least one error.
// @verifies REL-2
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "../spec/requirement_list.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pilfer::spec;
  const std::string all(reinterpret_cast<const char*>(data), size);
  std::string part[3];
  std::size_t b = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t e = i < 2 ? all.find('\0', b) : std::string::npos;
    part[i] = all.substr(std::min(b, all.size()), e == std::string::npos ? std::string::npos : e - b);
    if (e == std::string::npos) {
      b = all.size();
    } else {
      b = e + 1;
    }
  }
  diagnostics d;
  d.out = nullptr;
  const auto list = parse_requirements(to_lines(part[0]), "requirements.tsv", d);
  std::map<std::string, requirement> reqs;
  for (const auto& r : list) {
    PILFER_FUZZ_EXPECT(looks_like_id(r.id));
    for (char c : r.id) PILFER_FUZZ_EXPECT(!(c >= 'a' && c <= 'z'));
    PILFER_FUZZ_EXPECT(r.line >= 1);
    for (const auto& k : r.kinds) PILFER_FUZZ_EXPECT(valid_kind(k));
    if (r.title.empty() || r.kinds.empty()) PILFER_FUZZ_EXPECT(d.errors > 0);
    if (!reqs.emplace(r.id, r).second) PILFER_FUZZ_EXPECT(d.errors > 0);  // a duplicate is reported
  }
  const auto pending = parse_pending(to_lines(part[1]), "pending.tsv", reqs, d);
  for (const auto& p : pending) {
    const auto it = reqs.find(p.id);
    PILFER_FUZZ_EXPECT(it != reqs.end());
    PILFER_FUZZ_EXPECT(it->second.kinds.count(p.kind) == 1);
    PILFER_FUZZ_EXPECT(!p.reason.empty());
  }
  check_spec_md(to_lines(part[2]), "SPEC.md", reqs, d);
  return 0;
}
