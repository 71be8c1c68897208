// models/engine/revisit_tokens.cpp — replay tokens of the revisit exploration.
//
// A run of the revisit exploration is a function of its script (rv_script: the steps it replays,
// with each one's outcomes, then first choices to its end), so the script of a run that failed
// names that run: written as a token ("pr1…"), read back, and run alone, it makes the same graph
// and the same failure. (The DFS's tokens, "pm1…", name a run by its decisions instead; the two
// explorations decide differently, so each replays its own.)
//
// A script is taken as written (its outcomes were consistent when the run made them), so a token
// also names the options that decide consistency and the run's course — the memory model, the
// weakenings, symmetry, stop_at_first_race, max_steps — by a hash (`h`): replayed under other
// options, a token is a model error, never a run those options forbid. Shards are not part of it:
// a replay runs the one script whatever the shard options.
//
// Grammar ('.'-separated sections, in this order; numbers decimal unless said):
//   pr1 . h HASH . k KEY(-KEY)* . s STEP(-STEP)* . o OUT(-OUT)* . v (VALIDATE | n) . q (0 | 1)
//   HASH the options' hash, hexadecimal
//   KEY  a thread's canonical key, hexadecimal (a script names threads by key; the token lists
//        each key once and names it by its index in this list)
//   STEP key-index , first-outcome , rank , settled(0|1)
//   OUT  key-index , event-index , max(0|1)
// An empty list is the bare letter ("s" for no steps).
#include "checker.hpp"

#include <charconv>
#include <cstdio>
#include <string_view>

namespace pilfer::model::engine {

namespace {

/// The index of `key` in `keys`, appended if new.
std::size_t key_index(std::vector<std::uint64_t>& keys, std::uint64_t key) {
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return i;
  keys.push_back(key);
  return keys.size() - 1;
}

/// `text` split at `sep` (an empty text is no part).
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  if (text.empty()) return parts;
  std::size_t at = 0;
  for (;;) {
    const std::size_t end = text.find(sep, at);
    parts.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return parts;
    at = end + 1;
  }
}

/// An unsigned number of `base` that is the whole of `text`.
template <class U>
bool number(std::string_view text, U& out, int base = 10) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc{} && end == text.data() + text.size();
}

/// FNV-1a over the options a revisit run's course depends on (see above).
std::uint64_t options_hash(const options& o) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  mix(static_cast<std::uint64_t>(o.model));
  mix(o.symmetry ? 1 : 0);
  mix(o.stop_at_first_race ? 1 : 0);
  mix(o.max_steps);
  for (const auto& [tag, order] : o.weaken) {
    for (const char c : tag) mix(static_cast<unsigned char>(c));
    mix(static_cast<std::uint64_t>(order) + 0x100);
  }
  return h;
}

}  // namespace

std::string shown_token(const std::string& tok) {
  constexpr std::size_t shown = 96;
  if (tok.size() <= shown) return tok;
  return tok.substr(0, shown) + "… (" + std::to_string(tok.size()) + " characters)";
}

std::string checker::rv_token() const {
  std::vector<std::uint64_t> keys;
  std::string steps = "s", outs = "o";
  for (std::size_t i = 0; i < rv_cur_.steps.size(); ++i) {
    const rv_step& st = rv_cur_.steps[i];
    steps += (i == 0 ? "" : "-") + std::to_string(key_index(keys, st.tkey)) + "," + std::to_string(st.out_begin) + "," +
             std::to_string(st.rank) + "," + (st.settled ? "1" : "0");
  }
  for (std::size_t i = 0; i < rv_cur_.outs.size(); ++i) {
    const rv_name& nm = rv_cur_.outs[i];
    outs += (i == 0 ? "" : "-") + std::to_string(key_index(keys, nm.tkey)) + "," + std::to_string(nm.idx) + "," +
            (nm.max ? "1" : "0");
  }
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(options_hash(opt_)));
  std::string s = std::string("pr1.h") + hex + ".k";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::snprintf(hex, sizeof hex, "%s%llx", i == 0 ? "" : "-", static_cast<unsigned long long>(keys[i]));
    s += hex;
  }
  s += "." + steps + "." + outs + ".v" +
       (rv_cur_.validate_from == none ? std::string("n") : std::to_string(rv_cur_.validate_from)) + ".q" +
       (rv_cur_.quiet_last ? "1" : "0");
  return s;
}

std::string checker::parse_rv_token(const std::string& tok, rv_script& out) const {
  const std::string bad = "'" + shown_token(tok) + "' is not a revisit replay token (pr1.h….k….s….o….v….q…)";
  std::vector<std::string_view> sec = split(tok, '.');
  if (sec.size() != 7 || sec[0] != "pr1" || !sec[1].starts_with('h')) return bad;
  std::uint64_t made_under = 0;
  if (!number(sec[1].substr(1), made_under, 16)) return bad;
  sec.erase(sec.begin() + 1);  // (the rest as numbered before the hash)
  if (!sec[1].starts_with('k') || !sec[2].starts_with('s') || !sec[3].starts_with('o') || !sec[4].starts_with('v') ||
      !sec[5].starts_with('q'))
    return bad;
  std::vector<std::uint64_t> keys;
  for (const std::string_view k : split(sec[1].substr(1), '-')) {
    std::uint64_t v = 0;
    if (!number(k, v, 16)) return bad;
    keys.push_back(v);
  }
  const auto key_of = [&](std::string_view text, std::uint64_t& key) {
    std::size_t i = 0;
    if (!number(text, i) || i >= keys.size()) return false;
    key = keys[i];
    return true;
  };
  const auto flag = [](std::string_view text, bool& b) {
    if (text != "0" && text != "1") return false;
    b = text == "1";
    return true;
  };
  out = rv_script{};
  for (const std::string_view part : split(sec[2].substr(1), '-')) {
    const std::vector<std::string_view> f = split(part, ',');
    rv_step st{};
    if (f.size() != 4 || !key_of(f[0], st.tkey) || !number(f[1], st.out_begin) || !number(f[2], st.rank) ||
        !flag(f[3], st.settled))
      return bad;
    out.steps.push_back(st);
  }
  for (const std::string_view part : split(sec[3].substr(1), '-')) {
    const std::vector<std::string_view> f = split(part, ',');
    rv_name nm{};
    if (f.size() != 3 || !key_of(f[0], nm.tkey) || !number(f[1], nm.idx) || !flag(f[2], nm.max)) return bad;
    out.outs.push_back(nm);
  }
  for (std::size_t i = 0; i < out.steps.size(); ++i)  // (each step's outcomes lie in `outs`, in order)
    if (out.steps[i].out_begin > out.outs.size() || (i > 0 && out.steps[i].out_begin < out.steps[i - 1].out_begin))
      return bad;
  const std::string_view v = sec[4].substr(1);
  if (v == "n") out.validate_from = none;
  else if (!number(v, out.validate_from)) return bad;
  if (!flag(sec[5].substr(1), out.quiet_last)) return bad;
  if (made_under != options_hash(opt_))
    return "the token was made under other options (memory model, weakenings, symmetry, stop_at_first_race or "
           "max_steps), under which its run may not be consistent";
  return {};
}

}  // namespace pilfer::model::engine
