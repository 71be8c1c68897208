// litmus_parser.cpp — lexer, recursive-descent parser and AST interpreter for
// herd7 C litmus tests. See litmus_parser.hpp for the accepted syntax.
#include "litmus_parser.hpp"

#include "../engine/order_names.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace pilfer::litmus {

namespace {
/// The message on one printable line: control characters of quoted input become \xNN.
std::string one_line(const std::string& what) {
  std::string out;
  for (const char c : what) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

parse_error::parse_error(int line, int column, const std::string& what)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(column) + ": error: " +
                         one_line(what)),
      line_(line),
      column_(column) {}

static_assert(model::orders::declared_in_table_order(order::relaxed, order::consume, order::acquire, order::release,
                                                   order::acq_rel, order::seq_cst),
              "litmus::order indexes the shared table of order names");

const char* order_name(order o) noexcept { return model::orders::name_of(o); }

int program::find_location(const std::string& n) const {
  for (std::size_t i = 0; i < locations.size(); ++i)
    if (locations[i].name == n) return static_cast<int>(i);
  return -1;
}

value wrap_to_width(const location& l, value v) noexcept {
  if (l.bits >= 64 || l.bits <= 0) return v;
  const auto u = static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << l.bits) - 1);
  if (l.is_unsigned) return static_cast<value>(u);
  const std::uint64_t sign = std::uint64_t{1} << (l.bits - 1);
  return static_cast<value>((u ^ sign) - sign);  // sign extension
}

value apply_rmw(rmw_op op, value old, value operand) noexcept {
  const auto u = static_cast<std::uint64_t>(old);
  const auto w = static_cast<std::uint64_t>(operand);
  switch (op) {
    case rmw_op::exchange: return operand;
    case rmw_op::add: return static_cast<value>(u + w);
    case rmw_op::sub: return static_cast<value>(u - w);
    case rmw_op::bit_or: return static_cast<value>(u | w);
    case rmw_op::bit_and: return static_cast<value>(u & w);
    case rmw_op::bit_xor: return static_cast<value>(u ^ w);
  }
  return old;
}

namespace {

// ---------------------------------------------------------------- lexer

struct token {
  enum class kind { ident, number, punct, string, end };
  kind k = kind::end;
  std::string text;
  value num = 0;
  int line = 1;
  int col = 1;
  std::size_t offset = 0;  // byte offset of the token in the source
};

class lexer {
 public:
  explicit lexer(const std::string& s) : src_(s) {}

  // Tokenise everything from `offset` on. C and C++ comments are skipped.
  std::vector<token> run(std::size_t offset) {
    seek(offset);
    std::vector<token> out;
    for (;;) {
      skip_space();
      token t;
      t.line = line_;
      t.col = col_;
      t.offset = pos_;
      if (pos_ >= src_.size()) {
        t.k = token::kind::end;
        out.push_back(t);
        return out;
      }
      const char c = src_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.k = token::kind::ident;
        while (pos_ < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
          t.text += advance();
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        t.k = token::kind::number;
        std::string digits;
        while (pos_ < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
          digits += advance();
        t.text = digits;
        try {
          std::size_t used = 0;
          const unsigned long long v = std::stoull(digits, &used, 0);
          // Accept integer suffixes (u, l, ul, ll...).
          for (std::size_t i = used; i < digits.size(); ++i)
            if (std::string("uUlL").find(digits[i]) == std::string::npos)
              throw parse_error(t.line, t.col, "bad number '" + digits + "'");
          t.num = static_cast<value>(v);
        } catch (const parse_error&) {
          throw;
        } catch (const std::exception&) {
          throw parse_error(t.line, t.col, "bad number '" + digits + "'");
        }
      } else if (c == '"') {
        t.k = token::kind::string;
        advance();
        while (pos_ < src_.size() && src_[pos_] != '"') t.text += advance();
        if (pos_ >= src_.size()) throw parse_error(t.line, t.col, "unterminated string");
        advance();
      } else {
        t.k = token::kind::punct;
        static const char* const multi[] = {"/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||",
                                            "+=", "-=", "|=", "&=", "^=", "++", "--", "->"};
        bool matched = false;
        for (const char* m : multi) {
          if (src_.compare(pos_, 2, m) == 0) {
            t.text += advance();
            t.text += advance();
            matched = true;
            break;
          }
        }
        if (!matched) {
          if (std::string("(){}[];,=*&|^!~<>+-/%:.?").find(c) == std::string::npos)
            throw parse_error(t.line, t.col, std::string("unexpected character '") + c + "'");
          t.text += advance();
        }
      }
      out.push_back(t);
    }
  }

  // Position helpers used by the header reader (which works on raw lines).
  void seek(std::size_t offset) {
    while (pos_ < offset && pos_ < src_.size()) advance();
  }
  std::size_t pos() const noexcept { return pos_; }
  int line() const noexcept { return line_; }
  int col() const noexcept { return col_; }
  char peek() const noexcept { return pos_ < src_.size() ? src_[pos_] : '\0'; }
  bool at_end() const noexcept { return pos_ >= src_.size(); }
  char advance() {
    const char c = src_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  void skip_space() {
    for (;;) {
      while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) advance();
      if (src_.compare(pos_, 2, "//") == 0) {
        while (pos_ < src_.size() && src_[pos_] != '\n') advance();
      } else if (src_.compare(pos_, 2, "/*") == 0) {
        const int l = line_, c = col_;
        advance();
        advance();
        while (pos_ < src_.size() && src_.compare(pos_, 2, "*/") != 0) advance();
        if (pos_ >= src_.size()) throw parse_error(l, c, "unterminated comment");
        advance();
        advance();
      } else if (src_.compare(pos_, 2, "(*") == 0 && ocaml_comments_) {
        const int l = line_, c = col_;
        advance();
        advance();
        while (pos_ < src_.size() && src_.compare(pos_, 2, "*)") != 0) advance();
        if (pos_ >= src_.size()) throw parse_error(l, c, "unterminated comment");
        advance();
        advance();
      } else {
        return;
      }
    }
  }
  void set_ocaml_comments(bool on) noexcept { ocaml_comments_ = on; }

 private:
  const std::string& src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  bool ocaml_comments_ = false;
};

// ---------------------------------------------------------------- parser

/// Integer type names with a width of their own: C11 <stdatomic.h>'s atomic typedefs and the
/// <stdint.h> / <stddef.h> / <uchar.h> types they name, as on x86-64 LP64 with glibc (long and
/// pointers 64 bits; int_fast16_t and int_fast32_t are long). char is signed there.
struct declared_width {
  int bits = 0;
  bool is_unsigned = false;
};
const std::map<std::string, declared_width>& fixed_width_types() {
  static const std::map<std::string, declared_width> fixed = [] {
    std::map<std::string, declared_width> m = {
        {"atomic_char", {8, false}},       {"atomic_schar", {8, false}},     {"atomic_uchar", {8, true}},
        {"atomic_short", {16, false}},     {"atomic_ushort", {16, true}},    {"atomic_int", {32, false}},
        {"atomic_uint", {32, true}},       {"atomic_long", {64, false}},     {"atomic_ulong", {64, true}},
        {"atomic_llong", {64, false}},     {"atomic_ullong", {64, true}},    {"intptr_t", {64, false}},
        {"uintptr_t", {64, true}},         {"size_t", {64, true}},           {"ptrdiff_t", {64, false}},
        {"intmax_t", {64, false}},         {"uintmax_t", {64, true}},        {"char16_t", {16, true}},
        {"char32_t", {32, true}}};
    for (int b : {8, 16, 32, 64}) {
      const std::string n = std::to_string(b);
      const int fast = b == 8 ? 8 : 64;
      for (const auto& [prefix, bits] : {std::pair<std::string, int>{"int" + n, b},
                                         {"int_least" + n, b}, {"int_fast" + n, fast}}) {
        m[prefix + "_t"] = {bits, false};
        m["u" + prefix + "_t"] = {bits, true};
      }
    }
    // atomic_T for every T above that is not itself an atomic typedef
    std::vector<std::pair<std::string, declared_width>> plain;
    for (const auto& [k, w] : m)
      if (k.rfind("atomic_", 0) != 0) plain.emplace_back("atomic_" + k, w);
    m.insert(plain.begin(), plain.end());
    return m;
  }();
  return fixed;
}

bool is_type_word(const std::string& s) {
  static const std::set<std::string> words = {
      "int", "long", "short", "char", "unsigned", "signed", "volatile", "const",
      "_Atomic", "atomic_bool", "bool", "_Bool", "__int128_t", "__int128", "__uint128_t", "__uint128"};
  return words.count(s) != 0 || fixed_width_types().count(s) != 0;
}
bool is_atomic_type_word(const std::string& s) {
  return s == "_Atomic" || s.rfind("atomic_", 0) == 0;
}

/// The width a declaration's type words give a location (bits 0: they name none, e.g. `bool`).
declared_width width_of(const std::vector<std::string>& words) {
  declared_width w;
  int size_word = 0;  // char / short / long: they size `int`
  bool int_like = false, is_unsigned = false;
  for (const auto& s : words) {
    if (auto f = fixed_width_types().find(s); f != fixed_width_types().end()) return f->second;
    if (s == "char") size_word = 8;
    else if (s == "short") size_word = 16;
    else if (s == "long") size_word = 64;
    else if (s == "int" || s == "signed") int_like = true;
    else if (s == "unsigned") is_unsigned = int_like = true;
  }
  if (size_word != 0) w.bits = size_word;
  else if (int_like) w.bits = 32;
  w.is_unsigned = is_unsigned;
  return w;
}

struct call_spec {
  enum class what { load, store, rmw, cas, fence, noop, assume } w;
  rmw_op op = rmw_op::exchange;
  bool explicit_orders = false;
  order fixed = order::seq_cst;  // for macros with a built-in order
};

std::optional<call_spec> lookup_call(const std::string& n) {
  using w = call_spec::what;
  std::string base = n;
  bool expl = false;
  const std::string suffix = "_explicit";
  if (base.size() > suffix.size() &&
      base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
    base.resize(base.size() - suffix.size());
    expl = true;
  }
  call_spec c{w::noop};
  c.explicit_orders = expl;
  if (base == "atomic_load") c.w = w::load;
  else if (base == "atomic_store") c.w = w::store;
  else if (base == "atomic_exchange") { c.w = w::rmw; c.op = rmw_op::exchange; }
  else if (base == "atomic_fetch_add") { c.w = w::rmw; c.op = rmw_op::add; }
  else if (base == "atomic_fetch_sub") { c.w = w::rmw; c.op = rmw_op::sub; }
  else if (base == "atomic_fetch_or") { c.w = w::rmw; c.op = rmw_op::bit_or; }
  else if (base == "atomic_fetch_and") { c.w = w::rmw; c.op = rmw_op::bit_and; }
  else if (base == "atomic_fetch_xor") { c.w = w::rmw; c.op = rmw_op::bit_xor; }
  else if (base == "atomic_compare_exchange_strong" || base == "atomic_compare_exchange_weak")
    c.w = w::cas;
  else if (base == "atomic_thread_fence" && !expl) { c.w = w::fence; c.explicit_orders = true; }
  else if (base == "atomic_signal_fence" && !expl) { c.w = w::noop; c.explicit_orders = true; }
  else if (n == "assume" || n == "__VERIFIER_assume") c.w = w::assume;
  // LKMM spellings, mapped to the nearest C11 operation.
  else if (n == "READ_ONCE") { c = {w::load, rmw_op::exchange, false, order::relaxed}; }
  else if (n == "WRITE_ONCE") { c = {w::store, rmw_op::exchange, false, order::relaxed}; }
  else if (n == "smp_load_acquire") { c = {w::load, rmw_op::exchange, false, order::acquire}; }
  else if (n == "smp_store_release") { c = {w::store, rmw_op::exchange, false, order::release}; }
  else if (n == "smp_mb") { c = {w::fence, rmw_op::exchange, false, order::seq_cst}; }
  else return std::nullopt;
  return c;
}

class parser {
 public:
  explicit parser(const std::string& src) : src_(src), lex_(src) {}

  /// run(), with every failure turned into a parse_error at the current token.
  program run_checked() {
    try {
      return run();
    } catch (const parse_error&) {
      throw;
    } catch (const std::exception& e) {
      if (toks_.empty()) throw parse_error(1, 1, std::string("cannot parse: ") + e.what());
      fail(std::string("cannot parse: ") + e.what());
    }
  }

  /// One type word at cur(), appended to `words`; `_Atomic(T)` (the specifier form) appends
  /// `_Atomic` and T's words.
  void take_type_word(std::vector<std::string>& words) {
    words.push_back(next().text);
    if (words.back() == "_Atomic" && is_punct("(")) {
      next();
      while (cur().k == token::kind::ident && is_type_word(cur().text) && cur().text != "_Atomic")
        words.push_back(next().text);
      expect(")");
    }
  }
  void skip_type_words() {
    std::vector<std::string> words;
    while (cur().k == token::kind::ident && is_type_word(cur().text)) take_type_word(words);
  }

  program run() {
    if (is_cppmem(src_)) return run_cppmem();
    // LKMM-style tests (READ_ONCE, smp_*) pass plain `int*` parameters and
    // mark every shared access: treat those locations as atomic.
    lkmm_ = src_.find("READ_ONCE") != std::string::npos ||
            src_.find("WRITE_ONCE") != std::string::npos ||
            src_.find("smp_") != std::string::npos;
    read_header();
    lex_.set_ocaml_comments(false);
    toks_ = lex_.run(lex_.pos());
    if (is_punct("{")) read_init();
    while (cur().k == token::kind::ident && is_thread_name(cur().text)) read_thread();
    if (p_.threads.empty()) fail("expected a thread 'P0 (...) { ... }'");
    apply_register_inits();
    read_condition();
    if (cur().k != token::kind::end) fail("unexpected '" + cur().text + "' after the condition");
    wrap_initial_values();
    return std::move(p_);
  }

 private:
  // -- header: "C name", optional "comment" and key=value lines, up to '{' or 'P0'.
  void read_header() {
    lex_.set_ocaml_comments(true);
    lex_.skip_space();
    const int l = lex_.line(), c = lex_.col();
    std::string arch;
    while (!lex_.at_end() && !std::isspace(static_cast<unsigned char>(lex_.peek())))
      arch += lex_.advance();
    if (arch != "C")
      throw parse_error(l, c, "expected 'C' (herd7 C litmus test), found '" + arch + "'");
    while (!lex_.at_end() && (lex_.peek() == ' ' || lex_.peek() == '\t')) lex_.advance();
    std::string name;
    while (!lex_.at_end() && lex_.peek() != '\n') name += lex_.advance();
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    if (name.empty()) throw parse_error(l, c, "missing test name after 'C'");
    p_.name = name;
    for (;;) {
      lex_.skip_space();
      const char ch = lex_.peek();
      if (lex_.at_end() || ch == '{' || ch == 'P') return;
      if (ch == '"') {
        lex_.advance();
        std::string text;
        while (!lex_.at_end() && lex_.peek() != '"') text += lex_.advance();
        if (lex_.at_end()) throw parse_error(l, c, "unterminated comment string");
        lex_.advance();
        if (!p_.comment.empty()) p_.comment += ' ';
        p_.comment += text;
        continue;
      }
      // key=value line (Variant=..., Stable=...): skip it.
      while (!lex_.at_end() && lex_.peek() != '\n') lex_.advance();
    }
  }

  /// Bounds the recursion of the descent parser (deeply nested input is an error, not a
  /// stack overflow).
  struct depth_guard {
    parser& ps;
    explicit depth_guard(parser& p) : ps(p) {
      if (++ps.depth_ > max_depth) ps.fail("nesting deeper than " + std::to_string(max_depth));
    }
    ~depth_guard() { --ps.depth_; }
    depth_guard(const depth_guard&) = delete;
    depth_guard& operator=(const depth_guard&) = delete;
  };
  static constexpr int max_depth = 200;
  int depth_ = 0;
  /// Bounds the height of an expression tree, which a left-assoc chain (1+1+...+1) makes as
  /// deep as it is long: its evaluation recurses that deep on a fiber's 256 KiB stack.
  static constexpr std::size_t max_statement_operators = 1000;
  std::size_t statement_operators_ = 0;  // binary operators since the statement began

  // -- token helpers
  const token& cur() const { return toks_[i_]; }
  const token& peek_tok(std::size_t k = 1) const {
    return toks_[std::min(i_ + k, toks_.size() - 1)];
  }
  bool is_punct(const char* s) const {
    return cur().k == token::kind::punct && cur().text == s;
  }
  bool is_ident(const char* s) const {
    return cur().k == token::kind::ident && cur().text == s;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw parse_error(cur().line, cur().col, what);
  }
  [[noreturn]] void fail_at(const token& t, const std::string& what) const {
    throw parse_error(t.line, t.col, what);
  }
  token next() {
    token t = cur();
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  bool accept(const char* s) {
    if (!is_punct(s)) return false;
    next();
    return true;
  }
  void expect(const char* s) {
    if (!accept(s))
      fail(std::string("expected '") + s + "', found '" +
           (cur().k == token::kind::end ? std::string("end of file") : cur().text) + "'");
  }
  std::string expect_ident(const char* what) {
    if (cur().k != token::kind::ident)
      fail(std::string("expected ") + what + ", found '" + cur().text + "'");
    return next().text;
  }
  value expect_value() {
    bool neg = false;
    if (accept("-")) neg = true;
    else accept("+");
    if (cur().k != token::kind::number) fail("expected a number, found '" + cur().text + "'");
    const value v = next().num;
    return neg ? static_cast<value>(0ull - static_cast<std::uint64_t>(v)) : v;
  }
  /// The N of "PN" / "N:" (digits only; at most max_threads - 1).
  unsigned thread_number(const token& at, const std::string& digits) const {
    if (digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(digits) >= max_threads)
      fail_at(at, "thread number must be 0.." + std::to_string(max_threads - 1) + ", found '" +
                      digits + "'");
    return static_cast<unsigned>(std::stoul(digits));
  }
  // The model checker runs at most 16 threads, its main thread (which makes the locations and
  // spawns the test's threads) included: P0..P14.
  static constexpr unsigned max_threads = 15;

  static bool is_thread_name(const std::string& s) {
    if (s.size() < 2 || s[0] != 'P') return false;
    for (std::size_t k = 1; k < s.size(); ++k)
      if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
    return true;
  }

  int location_index(const std::string& n, bool atomic_hint, bool declared) {
    int k = p_.find_location(n);
    if (k < 0) {
      p_.locations.push_back(location{n, 0, atomic_hint});
      k = static_cast<int>(p_.locations.size()) - 1;
      declared_type_[k] = declared;
    } else if (declared) {
      // A declared type wins over a guess; "atomic" wins over "plain" when
      // two threads disagree (mixed-size/mixed-kind tests are out of scope).
      if (!declared_type_[k]) p_.locations[k].atomic = atomic_hint;
      else p_.locations[k].atomic = p_.locations[k].atomic || atomic_hint;
      declared_type_[k] = true;
    }
    return k;
  }

  // -- init block
  void read_init() {
    expect("{");
    while (!accept("}")) {
      if (accept(";")) continue;
      bool atomic = false, typed = false;
      std::vector<std::string> words;
      while (cur().k == token::kind::ident && is_type_word(cur().text) &&
             !(peek_tok().k == token::kind::punct &&
               (peek_tok().text == "=" || peek_tok().text == ";" || peek_tok().text == "}" ||
                peek_tok().text == ":"))) {
        atomic = atomic || is_atomic_type_word(cur().text);
        typed = true;
        take_type_word(words);
      }
      while (accept("*")) {}
      // Register initialisation: 0:r0=1 or P0:r0=1.
      if ((cur().k == token::kind::number || (cur().k == token::kind::ident &&
                                               is_thread_name(cur().text))) &&
          peek_tok().k == token::kind::punct && peek_tok().text == ":") {
        const token at = cur();
        const std::string tid = next().text;
        next();  // ':'
        const std::string reg = expect_ident("a register name");
        expect("=");
        const value v = expect_value();
        pending_reg_init_.push_back({at, tid[0] == 'P' ? tid.substr(1) : tid, reg, v});
      } else {
        bool bracket = accept("[");
        const token nt = cur();
        const std::string n = expect_ident("a location name");
        if (bracket) expect("]");
        value size = 1;
        const bool array = !bracket && accept("[");
        if (array) {
          size = expect_value();
          expect("]");
          if (size < 1 || size > max_array)
            fail_at(nt, "array size must be 1.." + std::to_string(max_array));
        }
        const int k = location_index(n, atomic || !typed, typed);
        if (array) declare_array(nt, k, static_cast<int>(size), atomic || !typed);
        declare_width(k, width_of(words));
        if (accept("=")) {
          if (accept("{")) {
            if (!array) fail("a '{...}' initialiser needs an array ('int " + n + "[N]')");
            for (int e = 0; !accept("}"); ++e) {
              if (e >= size) fail("too many initialisers for '" + n + "'");
              p_.locations[static_cast<std::size_t>(k + e)].init = expect_value();
              if (!accept(",") && !is_punct("}")) fail("expected ',' or '}' in the initialiser");
            }
          } else {
            if (cur().k == token::kind::ident || is_punct("&"))
              fail("pointer-valued locations are not supported");
            p_.locations[static_cast<std::size_t>(k)].init = expect_value();
          }
        }
      }
      if (!accept(";") && !is_punct("}")) fail("expected ';' or '}' in the init block");
    }
  }

  static constexpr value max_array = 64;

  /// The first declaration of location k (an array: every element) that names a width sets it.
  void declare_width(int k, const declared_width& w) {
    if (w.bits == 0 || width_declared_.count(k) != 0) return;
    const location& base = p_.locations[static_cast<std::size_t>(k)];
    const int first = base.array_base >= 0 ? base.array_base : k;
    for (int e = 0; e < base.array_size; ++e) {
      location& l = p_.locations[static_cast<std::size_t>(first + e)];
      l.bits = w.bits;
      l.is_unsigned = w.is_unsigned;
      width_declared_.insert(first + e);
    }
  }
  /// Every location's initial value as it holds it (its declared width).
  void wrap_initial_values() {
    for (location& l : p_.locations) l.init = wrap_to_width(l, l.init);
  }

  /// Make location k element 0 of an array of `size` cells "n", "n[1]", ...
  void declare_array(const token& at, int k, int size, bool atomic) {
    auto& base = p_.locations[static_cast<std::size_t>(k)];
    if (base.array_size != 1 || base.array_base != -1)
      fail_at(at, "array '" + base.name + "' declared twice");
    if (static_cast<std::size_t>(k) + 1 != p_.locations.size())
      fail_at(at, "array '" + base.name + "' must be declared before other uses");
    const std::string n = base.name;
    for (int e = 0; e < size; ++e) {
      if (e > 0) p_.locations.push_back(location{n + "[" + std::to_string(e) + "]", 0, atomic});
      auto& l = p_.locations[static_cast<std::size_t>(k + e)];
      l.array_base = k;
      l.array_size = size;
    }
  }

  // -- threads
  void read_thread() {
    const token name_tok = next();
    thread_code t;
    t.name = name_tok.text;
    t.id = thread_number(name_tok, name_tok.text.substr(1));
    for (const auto& other : p_.threads)
      if (other.id == t.id) fail_at(name_tok, "thread " + t.name + " defined twice");
    if (t.id != p_.threads.size())
      fail_at(name_tok, "threads must be numbered P0, P1, ... in order; found " + t.name);
    expect("(");
    params_.clear();
    param_atomic_.clear();
    if (!is_punct(")")) {
      for (;;) {
        bool atomic = false;
        bool typed = false;
        std::vector<std::string> words;
        while (cur().k == token::kind::ident && is_type_word(cur().text)) {
          atomic = atomic || is_atomic_type_word(cur().text);
          typed = true;
          take_type_word(words);
        }
        if (!typed) fail("expected a parameter type such as 'atomic_int*'");
        if (!accept("*")) fail("parameters must be pointers ('atomic_int* x')");
        while (cur().k == token::kind::ident && (cur().text == "volatile" || cur().text == "const"))
          next();
        const std::string n = expect_ident("a parameter name");
        if (params_.count(n)) fail("parameter '" + n + "' declared twice");
        params_[n] = location_index(n, atomic || lkmm_, true);
        declare_width(params_[n], width_of(words));
        param_atomic_[n] = atomic || lkmm_;
        if (!accept(",")) break;
      }
    }
    expect(")");
    thread_ = &t;
    scopes_.assign(1, {});
    t.body = read_block();
    thread_ = nullptr;
    p_.threads.push_back(std::move(t));
  }

  std::string tag_at(const token& at, const std::string& what) const {
    return thread_->name + ":L" + std::to_string(at.line) + " " + what;
  }

  int find_local(const std::string& n) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto f = s->find(n);
      if (f != s->end()) return f->second;
    }
    return -1;
  }
  int declare_local(const token& at, const std::string& n) {
    if (scopes_.back().count(n)) fail_at(at, "'" + n + "' declared twice");
    if (params_.count(n)) fail_at(at, "'" + n + "' shadows a parameter");
    // Registers are named by their source name; a re-declaration in another
    // scope gets a fresh slot but the same printed name.
    const int slot = static_cast<int>(thread_->locals.size());
    thread_->locals.push_back(n);
    thread_->local_init.push_back(0);
    scopes_.back()[n] = slot;
    return slot;
  }
  int location_ref(const token& at, const std::string& n) {
    auto f = params_.find(n);
    if (f != params_.end()) return f->second;
    // Lenient: a location named in the init block but not passed as a parameter.
    const int k = p_.find_location(n);
    if (k >= 0) return k;
    fail_at(at, "'" + n + "' is neither a local variable nor a location parameter");
  }

  stmt_ptr read_block() {
    expect("{");
    auto b = std::make_unique<stmt>();
    b->k = stmt::kind::block;
    scopes_.emplace_back();
    while (!accept("}")) {
      if (cur().k == token::kind::end) fail("unexpected end of file inside a block");
      read_statement(b->body);
    }
    scopes_.pop_back();
    return b;
  }

  stmt_ptr read_single_statement() {
    if (is_punct("{")) return read_block();
    auto b = std::make_unique<stmt>();
    b->k = stmt::kind::block;
    scopes_.emplace_back();
    read_statement(b->body);
    scopes_.pop_back();
    return b;
  }

  void read_statement(std::vector<stmt_ptr>& out) {
    const depth_guard guard(*this);
    statement_operators_ = 0;  // (a statement nested in this one begins after this one's expressions)
    const token at = cur();
    if (accept(";")) return;
    if (is_punct("{")) {
      out.push_back(read_block());
      return;
    }
    if (is_ident("if")) {
      next();
      expect("(");
      auto s = std::make_unique<stmt>();
      s->k = stmt::kind::if_;
      s->a = read_expr();
      expect(")");
      s->body.push_back(read_single_statement());
      if (is_ident("else")) {
        next();
        s->body.push_back(read_single_statement());
      }
      out.push_back(std::move(s));
      return;
    }
    if (is_ident("while")) {
      next();
      expect("(");
      auto s = std::make_unique<stmt>();
      s->k = stmt::kind::while_;
      s->a = read_expr();
      expect(")");
      s->body.push_back(read_single_statement());
      out.push_back(std::move(s));
      return;
    }
    if (cur().k == token::kind::ident && is_type_word(cur().text)) {
      skip_type_words();
      for (;;) {
        const token nt = cur();
        const std::string n = expect_ident("a variable name");
        std::unique_ptr<stmt> init;
        expr_ptr e;
        if (accept("=")) e = read_assign_rhs();
        const int slot = declare_local(nt, n);
        if (e) {
          auto s = std::make_unique<stmt>();
          s->k = stmt::kind::assign;
          s->index = slot;
          s->a = std::move(e);
          out.push_back(std::move(s));
        }
        if (!accept(",")) break;
      }
      expect(";");
      return;
    }
    // *x = e;  *(x+e) = e;  x[e] = e;  or with op=
    const bool indexed = cur().k == token::kind::ident && find_local(cur().text) < 0 &&
                         peek_tok().k == token::kind::punct && peek_tok().text == "[";
    if (is_punct("*") || indexed ||
        (is_punct("(") && peek_tok().k == token::kind::punct && peek_tok().text == "*" &&
         is_deref_store())) {
      address ad;
      if (indexed) {
        ad = read_indexed();
      } else {
        const bool paren = accept("(");
        expect("*");
        ad = read_pointer();
        if (paren) expect(")");
      }
      const int loc = ad.loc;
      const std::string& n = p_.locations[static_cast<std::size_t>(loc)].name;
      std::string op;
      if (!accept("=")) {
        for (const char* c : {"+=", "-=", "|=", "&=", "^="})
          if (is_punct(c)) op = std::string(1, c[0]);
        if (op.empty()) fail("expected '=' after '*" + n + "'");
        next();
      }
      expr_ptr rhs = read_assign_rhs();
      if (!op.empty()) {
        auto lhs = make_deref(at, address{loc, clone(ad.off.get()), ad.atomic});
        rhs = make_binary(op, std::move(lhs), std::move(rhs));
      }
      auto s = std::make_unique<stmt>();
      s->loc = loc;
      s->off = std::move(ad.off);
      s->a = std::move(rhs);
      if (ad.atomic) {
        s->k = stmt::kind::store;
        s->ord1 = order::seq_cst;
        s->tag = tag_at(at, "store " + n);
      } else {
        s->k = stmt::kind::plain_write;
        s->tag = tag_at(at, "write " + n);
        p_.plain_accesses = true;
      }
      expect(";");
      out.push_back(std::move(s));
      return;
    }
    if (cppmem_ && cur().k == token::kind::ident && find_local(cur().text) < 0 &&
        peek_tok().k == token::kind::punct && peek_tok().text == "=") {
      const token nt = cur();
      if (params_.count(nt.text)) {
        // CppMem: `y = e;` writes a shared variable (a seq_cst store if it is atomic).
        next();
        next();
        const int loc = params_.at(nt.text);
        auto s = std::make_unique<stmt>();
        s->loc = loc;
        s->a = read_assign_rhs();
        if (deref_atomic(nt.text, loc)) {
          s->k = stmt::kind::store;
          s->tag = tag_at(at, "store " + nt.text);
        } else {
          s->k = stmt::kind::plain_write;
          s->tag = tag_at(at, "write " + nt.text);
          p_.plain_accesses = true;
        }
        expect(";");
        out.push_back(std::move(s));
        return;
      }
      // CppMem: the first assignment of an undeclared name declares a register.
      if (!is_type_word(nt.text) && lookup_call(nt.text) == std::nullopt)
        (void)declare_local(nt, nt.text);
    }
    // r = e;  r op= e;  r++;
    if (cur().k == token::kind::ident && peek_tok().k == token::kind::punct &&
        find_local(cur().text) >= 0) {
      const std::string& p = peek_tok().text;
      if (p == "=" || p == "+=" || p == "-=" || p == "|=" || p == "&=" || p == "^=" ||
          p == "++" || p == "--") {
        const token nt = next();
        const int slot = find_local(nt.text);
        const std::string opt = next().text;
        expr_ptr rhs;
        if (opt == "=") {
          rhs = read_assign_rhs();
        } else if (opt == "++" || opt == "--") {
          rhs = make_binary(opt.substr(0, 1), make_local(slot), make_const(1));
        } else {
          rhs = make_binary(opt.substr(0, 1), make_local(slot), read_assign_rhs());
        }
        auto s = std::make_unique<stmt>();
        s->k = stmt::kind::assign;
        s->index = slot;
        s->a = std::move(rhs);
        expect(";");
        out.push_back(std::move(s));
        return;
      }
    }
    // Expression statement: a call (store, fence, rmw with discarded result).
    auto s = std::make_unique<stmt>();
    s->k = stmt::kind::eval;
    s->a = read_expr();
    expect(";");
    // Lower void calls produced by read_call.
    if (s->a->k == expr::kind::constant && pending_stmt_) {
      out.push_back(std::move(pending_stmt_));
      return;
    }
    if (pending_stmt_) fail_at(at, "a store or fence cannot be used as a value");
    out.push_back(std::move(s));
  }

  // ( * x ) = ... lookahead
  bool is_deref_store() const {
    return peek_tok(2).k == token::kind::ident && peek_tok(3).k == token::kind::punct &&
           peek_tok(3).text == ")" && peek_tok(4).k == token::kind::punct &&
           (peek_tok(4).text == "=" || peek_tok(4).text == "+=" || peek_tok(4).text == "-=");
  }

  expr_ptr read_assign_rhs() {
    auto e = read_expr();
    if (pending_stmt_) fail("a store or fence cannot be used as a value");
    return e;
  }

  static expr_ptr make_const(value v) {
    auto e = std::make_unique<expr>();
    e->k = expr::kind::constant;
    e->v = v;
    return e;
  }
  static expr_ptr make_local(int slot) {
    auto e = std::make_unique<expr>();
    e->k = expr::kind::local;
    e->index = slot;
    return e;
  }
  static expr_ptr make_binary(const std::string& op, expr_ptr a, expr_ptr b) {
    auto e = std::make_unique<expr>();
    e->k = expr::kind::binary;
    e->op = op;
    e->a = std::move(a);
    e->b = std::move(b);
    return e;
  }
  /// An address: location `loc` plus an optional element offset; `atomic` says how `*p`
  /// accesses it (the declared type of the pointer in this thread).
  struct address {
    int loc = -1;
    expr_ptr off;
    bool atomic = true;
  };

  static expr_ptr clone(const expr* e) {
    if (!e) return nullptr;
    auto c = std::make_unique<expr>();
    c->k = e->k;
    c->v = e->v;
    c->index = e->index;
    c->loc = e->loc;
    c->op = e->op;
    c->rop = e->rop;
    c->ord1 = e->ord1;
    c->ord2 = e->ord2;
    c->a = clone(e->a.get());
    c->b = clone(e->b.get());
    c->off = clone(e->off.get());
    c->exp_loc = e->exp_loc;
    c->exp_off = clone(e->exp_off.get());
    c->readsvalue = e->readsvalue;
    c->tag = e->tag;
    c->exp_tag = e->exp_tag;
    return c;
  }

  /// How `*name` accesses the location: the pointer type of the parameter in this thread,
  /// else the init block's declaration.
  bool deref_atomic(const std::string& n, int loc) const {
    auto f = param_atomic_.find(n);
    if (f != param_atomic_.end()) return f->second;
    return p_.locations[static_cast<std::size_t>(loc)].atomic;
  }

  /// A pointer expression: `x`, `x + e`, `e + x`?  (only `x`, `x + e`, `x - e`, `(x + e)`)
  address read_pointer() {
    const depth_guard guard(*this);
    address ad;
    if (accept("(")) {
      ad = read_pointer();
      expect(")");
    } else {
      const token lt = cur();
      const std::string n = expect_ident("a location");
      ad.loc = location_ref(lt, n);
      ad.atomic = deref_atomic(n, ad.loc);
    }
    while (is_punct("+") || is_punct("-")) {
      const std::string op = next().text;
      auto rhs = read_binary(precedence("+") + 1);
      ad.off = ad.off ? make_binary(op, std::move(ad.off), std::move(rhs))
                      : (op == "+" ? std::move(rhs) : make_unary("-", std::move(rhs)));
    }
    return ad;
  }
  /// The operand of a unary `*` in an expression: a location, or a parenthesised pointer
  /// (`*(y + r0)`). `*y + 1` is `(*y) + 1`, as in C (it was read as `*(y + 1)`).
  address read_deref_operand() {
    const depth_guard guard(*this);
    if (accept("(")) {
      address ad = read_pointer();
      expect(")");
      return ad;
    }
    const token lt = cur();
    const std::string n = expect_ident("a location");
    address ad;
    ad.loc = location_ref(lt, n);
    ad.atomic = deref_atomic(n, ad.loc);
    return ad;
  }
  /// `x[e]` as an lvalue / value.
  address read_indexed() {
    const token lt = cur();
    const std::string n = expect_ident("a location");
    address ad;
    ad.loc = location_ref(lt, n);
    ad.atomic = deref_atomic(n, ad.loc);
    expect("[");
    ad.off = read_expr();
    expect("]");
    return ad;
  }
  /// An address argument of a call: `x`, `&x`, `&x[e]`, `x + e`, `*x` (LKMM), `(x)`.
  address read_address() {
    if (accept("&")) {
      const token lt = cur();
      if (cur().k == token::kind::ident && find_local(cur().text) >= 0)
        fail_at(lt, "'&" + cur().text + "': a local variable is not a shared location");
      if (peek_tok().k == token::kind::punct && peek_tok().text == "[") return read_indexed();
      if (is_punct("(")) return read_pointer();
      const std::string n = expect_ident("a location");
      address ad;
      ad.loc = location_ref(lt, n);
      ad.atomic = deref_atomic(n, ad.loc);
      return ad;
    }
    accept("*");
    return read_pointer();
  }

  static expr_ptr make_unary(const std::string& op, expr_ptr a) {
    auto e = std::make_unique<expr>();
    e->k = expr::kind::unary;
    e->op = op;
    e->a = std::move(a);
    return e;
  }

  expr_ptr make_deref(const token& at, address ad) {
    auto e = std::make_unique<expr>();
    e->loc = ad.loc;
    e->off = std::move(ad.off);
    const std::string& n = p_.locations[static_cast<std::size_t>(ad.loc)].name;
    if (ad.atomic) {
      e->k = expr::kind::load;
      e->ord1 = order::seq_cst;
      e->tag = tag_at(at, "load " + n);
    } else {
      e->k = expr::kind::plain_read;
      e->tag = tag_at(at, "read " + n);
      p_.plain_accesses = true;
    }
    return e;
  }

  // -- expressions (C precedence, no assignment/comma/ternary)
  expr_ptr read_expr() { return read_binary(0); }

  static int precedence(const std::string& op) {
    static const std::map<std::string, int> prec = {
        {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
        {"<", 7},  {"<=", 7}, {">", 7}, {">=", 7}, {"+", 8}, {"-", 8}, {"*", 9},
        {"/", 9},  {"%", 9}};
    auto f = prec.find(op);
    return f == prec.end() ? -1 : f->second;
  }

  expr_ptr read_binary(int min_prec) {
    auto lhs = read_unary();
    for (;;) {
      if (cur().k != token::kind::punct) return lhs;
      const int p = precedence(cur().text);
      if (p < 0 || p <= min_prec - 1 || p < min_prec) return lhs;
      const token op_at = next();
      if (++statement_operators_ > max_statement_operators)
        fail_at(op_at, "more than " + std::to_string(max_statement_operators) +
                           " binary operators in one statement (split it: the interpreter evaluates "
                           "an expression recursively on a modelled thread's stack)");
      auto rhs = read_binary(p + 1);
      lhs = make_binary(op_at.text, std::move(lhs), std::move(rhs));
    }
  }

  expr_ptr read_unary() {
    const depth_guard guard(*this);
    const token at = cur();
    if (is_punct("!") || is_punct("-") || is_punct("~") || is_punct("+")) {
      const std::string op = next().text;
      auto e = std::make_unique<expr>();
      e->k = expr::kind::unary;
      e->op = op;
      e->a = read_unary();
      return e;
    }
    if (accept("*")) return make_deref(at, read_deref_operand());
    if (accept("(")) {
      // Casts like (int) are skipped.
      if (cur().k == token::kind::ident && is_type_word(cur().text)) {
        skip_type_words();
        expect(")");
        return read_unary();
      }
      auto e = read_expr();
      expect(")");
      return e;
    }
    if (cur().k == token::kind::number) return make_const(next().num);
    if (cur().k == token::kind::ident) {
      if (is_ident("true")) { next(); return make_const(1); }
      if (is_ident("false")) { next(); return make_const(0); }
      if (peek_tok().k == token::kind::punct && peek_tok().text == "(") return read_call();
      if (find_local(cur().text) < 0 && peek_tok().k == token::kind::punct &&
          peek_tok().text == "[")
        return make_deref(at, read_indexed());
      if (cppmem_ && find_local(cur().text) < 0 && params_.count(cur().text)) {
        // CppMem: a shared variable is used by name (x.load(), or `y` for a plain read).
        const token lt = next();
        const int loc = params_.at(lt.text);
        if (is_punct(".")) return read_member_call(at, loc);
        address ad;
        ad.loc = loc;
        ad.atomic = deref_atomic(lt.text, loc);
        return make_deref(at, std::move(ad));
      }
      const std::string n = next().text;
      const int slot = find_local(n);
      if (slot >= 0) return make_local(slot);
      if (params_.count(n) || p_.find_location(n) >= 0)
        fail_at(at, "location '" + n + "' used as a value; write '*" + n + "' or an atomic_load");
      fail_at(at, "unknown variable '" + n + "'");
    }
    fail("expected an expression, found '" +
         (cur().k == token::kind::end ? std::string("end of file") : cur().text) + "'");
  }

  int read_loc_arg(expr_ptr& off) {
    address ad = read_address();  // x, &x, *x (LKMM style), x+e, &x[e]
    off = std::move(ad.off);
    return ad.loc;
  }
  order read_order() {
    const token at = cur();
    const std::string n = expect_ident("a memory order");
    // memory_order_acquire, CppMem's mo_acquire or plain acquire (the shared table's spellings)
    const auto o = model::orders::parse<order>(n);
    if (!o) fail_at(at, model::orders::unknown_order_message(n));
    return *o;
  }
  /// A store's order: C11 7.17.7.1 allows relaxed, release and seq_cst only.
  order read_store_order() {
    const token at = cur();
    const order o = read_order();
    if (o == order::acquire || o == order::consume || o == order::acq_rel)
      fail_at(at, "'" + at.text + "' is not a valid order for a store (relaxed, release or seq_cst)");
    return o;
  }
  /// A load's order: C11 7.17.7.2 allows relaxed, consume, acquire and seq_cst only.
  order read_load_order() {
    const token at = cur();
    const order o = read_order();
    if (o == order::release || o == order::acq_rel)
      fail_at(at, "'" + at.text + "' is not a valid order for a load (relaxed, consume, acquire or seq_cst)");
    return o;
  }

  expr_ptr read_call() {
    const token at = next();
    const auto spec = lookup_call(at.text);
    if (!spec) fail_at(at, "unknown function '" + at.text + "'");
    expect("(");
    using w = call_spec::what;
    auto e = std::make_unique<expr>();
    switch (spec->w) {
      case w::assume: {
        auto s = std::make_unique<stmt>();
        s->k = stmt::kind::assume;
        s->a = read_assign_rhs();
        expect(")");
        pending_stmt_ = std::move(s);
        return make_const(0);
      }
      case w::fence:
      case w::noop: {
        order o = spec->fixed;
        if (spec->explicit_orders) o = read_order();
        expect(")");
        auto s = std::make_unique<stmt>();
        s->k = spec->w == w::fence ? stmt::kind::fence : stmt::kind::block;
        s->ord1 = o;
        s->tag = tag_at(at, std::string("fence ") + order_name(o));
        pending_stmt_ = std::move(s);
        return make_const(0);
      }
      case w::load: {
        e->k = expr::kind::load;
        e->loc = read_loc_arg(e->off);
        e->ord1 = spec->fixed;
        if (spec->explicit_orders) { expect(","); e->ord1 = read_load_order(); }
        expect(")");
        e->tag = tag_at(at, "load " + p_.locations[static_cast<std::size_t>(e->loc)].name);
        return e;
      }
      case w::store: {
        auto s = std::make_unique<stmt>();
        s->k = stmt::kind::store;
        s->loc = read_loc_arg(s->off);
        expect(",");
        s->a = read_assign_rhs();
        s->ord1 = spec->fixed;
        if (spec->explicit_orders) { expect(","); s->ord1 = read_store_order(); }
        expect(")");
        s->tag = tag_at(at, "store " + p_.locations[static_cast<std::size_t>(s->loc)].name);
        pending_stmt_ = std::move(s);
        return make_const(0);
      }
      case w::rmw: {
        e->k = expr::kind::rmw;
        e->rop = spec->op;
        e->loc = read_loc_arg(e->off);
        expect(",");
        e->a = read_assign_rhs();
        if (spec->explicit_orders) { expect(","); e->ord1 = read_order(); }
        expect(")");
        e->tag = tag_at(at, at.text.substr(7) + " " +
                                p_.locations[static_cast<std::size_t>(e->loc)].name);
        return e;
      }
      case w::cas: {
        e->k = expr::kind::cas;
        e->loc = read_loc_arg(e->off);
        expect(",");
        // `expected`: &local, or a pointer to a shared location (read and, on failure,
        // written non-atomically, as C11 specifies for the expected object).
        if (is_punct("&") && peek_tok().k == token::kind::ident &&
            find_local(peek_tok().text) >= 0) {
          next();
          e->index = find_local(next().text);
        } else {
          const token rt = cur();
          if (rt.k == token::kind::ident && find_local(rt.text) >= 0)
            fail_at(rt, "'" + rt.text + "' is a local int; pass its address '&" + rt.text + "'");
          address ad = read_address();
          e->exp_loc = ad.loc;
          e->exp_off = std::move(ad.off);
          p_.plain_accesses = true;
        }
        expect(",");
        e->a = read_assign_rhs();
        if (spec->explicit_orders) {
          expect(",");
          e->ord1 = read_order();
          expect(",");
          e->ord2 = read_order();
        }
        expect(")");
        e->tag = tag_at(at, "cas " + p_.locations[static_cast<std::size_t>(e->loc)].name);
        e->exp_tag = e->tag + " (expected)";
        return e;
      }
    }
    fail_at(at, "unsupported call");
  }

  // -- final condition
  void read_condition() {
    for (;;) {
      if (is_ident("locations")) {
        next();
        expect("[");
        while (!accept("]")) {
          if (accept(";")) continue;
          add_observed(read_observable());
        }
        continue;
      }
      if (is_ident("filter")) fail("'filter' clauses are not supported");
      if (is_ident("regions") && peek_tok().k == token::kind::punct && peek_tok().text == ":") {
        // herd's memory-region tags (`regions: x:PROP`) do not change C semantics: skipped.
        next();
        next();
        while (cur().k == token::kind::ident && peek_tok().k == token::kind::punct &&
               peek_tok().text == ":" && peek_tok(2).k == token::kind::ident) {
          next();
          next();
          next();
        }
        continue;
      }
      break;
    }
    const token at = cur();
    std::string q;
    if (accept("~")) {
      if (!is_ident("exists")) fail("expected 'exists' after '~'");
      next();
      p_.quant = quantifier::not_exists;
      q = "~exists";
    } else if (is_ident("exists")) {
      next();
      p_.quant = quantifier::exists;
      q = "exists";
    } else if (is_ident("forall")) {
      next();
      p_.quant = quantifier::forall;
      q = "forall";
    } else {
      fail("expected 'exists', '~exists' or 'forall', found '" +
           (cur().k == token::kind::end ? std::string("end of file") : cur().text) + "'");
    }
    const std::size_t first_obs = cond_obs_.size();
    (void)first_obs;
    std::string text;
    p_.cond = read_or(text);
    p_.cond_text = q + " " + (text.front() == '(' && balanced_outer(text) ? text : "(" + text + ")");
    (void)at;
    // Observed: condition locations first (herd prints them sorted); then `locations`.
    std::vector<observable> all = cond_obs_;
    for (auto& o : extra_obs_) {
      bool dup = false;
      for (auto& c : all) dup = dup || c.label == o.label;
      if (!dup) all.push_back(o);
    }
    std::sort(all.begin(), all.end(), [](const observable& a, const observable& b) {
      // registers (by thread, then name) before locations, like herd.
      if ((a.thread < 0) != (b.thread < 0)) return a.thread >= 0;
      if (a.thread != b.thread) return a.thread < b.thread;
      return a.label < b.label;
    });
    // Remap atom indices to the sorted order.
    std::map<std::string, int> where;
    for (std::size_t k = 0; k < all.size(); ++k) where[all[k].label] = static_cast<int>(k);
    remap(*p_.cond, where);
    p_.observed = std::move(all);
  }

  static bool balanced_outer(const std::string& t) {
    int depth = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '(') ++depth;
      if (t[k] == ')' && --depth == 0 && k + 1 != t.size()) return false;
    }
    return true;
  }

  void remap(prop& c, const std::map<std::string, int>& where) {
    if (c.k == prop::kind::atom) c.obs = where.at(cond_obs_[static_cast<std::size_t>(c.obs)].label);
    if (c.a) remap(*c.a, where);
    if (c.b) remap(*c.b, where);
  }

  observable read_observable() {
    const token at = cur();
    observable o;
    if ((cur().k == token::kind::number ||
         (cur().k == token::kind::ident && is_thread_name(cur().text))) &&
        peek_tok().k == token::kind::punct && peek_tok().text == ":") {
      std::string tid = next().text;
      if (tid[0] == 'P') tid = tid.substr(1);
      next();
      const token rt = cur();
      const std::string reg = expect_ident("a register name");
      const unsigned t = thread_number(at, tid);
      if (t >= p_.threads.size()) fail_at(at, "no thread P" + tid);
      const auto& locals = p_.threads[t].locals;
      int slot = -1;
      for (std::size_t k = 0; k < locals.size(); ++k)
        if (locals[k] == reg) slot = static_cast<int>(k);  // last declaration wins
      if (slot < 0) fail_at(rt, "thread P" + tid + " has no local '" + reg + "'");
      o.thread = static_cast<int>(t);
      o.slot = slot;
      o.label = tid + ":" + reg;
    } else {
      const bool bracket = accept("[");
      const bool star = !bracket && accept("*");
      (void)star;
      std::string n = expect_ident("a location or T:register");
      if (is_punct("[")) {
        next();
        const value e = expect_value();
        expect("]");
        if (e != 0) n += "[" + std::to_string(e) + "]";
      }
      if (bracket) expect("]");
      int k = p_.find_location(n);
      if (k < 0) {
        p_.locations.push_back(location{n, 0, true});
        k = static_cast<int>(p_.locations.size()) - 1;
      }
      o.slot = k;
      o.label = n;
    }
    return o;
  }
  void add_observed(const observable& o) { extra_obs_.push_back(o); }

  int cond_index(const observable& o) {
    for (std::size_t k = 0; k < cond_obs_.size(); ++k)
      if (cond_obs_[k].label == o.label) return static_cast<int>(k);
    cond_obs_.push_back(o);
    return static_cast<int>(cond_obs_.size()) - 1;
  }

  prop_ptr read_or(std::string& text) {
    auto a = read_and(text);
    while (is_punct("\\/") || is_punct("||")) {
      next();
      std::string rt;
      auto b = read_and(rt);
      text += " \\/ " + rt;
      auto n = std::make_unique<prop>();
      n->k = prop::kind::or_;
      n->a = std::move(a);
      n->b = std::move(b);
      a = std::move(n);
    }
    return a;
  }
  prop_ptr read_and(std::string& text) {
    auto a = read_not(text);
    while (is_punct("/\\") || is_punct("&&")) {
      next();
      std::string rt;
      auto b = read_not(rt);
      text += " /\\ " + rt;
      auto n = std::make_unique<prop>();
      n->k = prop::kind::and_;
      n->a = std::move(a);
      n->b = std::move(b);
      a = std::move(n);
    }
    return a;
  }
  prop_ptr read_not(std::string& text) {
    const depth_guard guard(*this);
    if (accept("~") || accept("!") || (is_ident("not") && (next(), true))) {
      std::string inner;
      auto n = std::make_unique<prop>();
      n->k = prop::kind::not_;
      n->a = read_not(inner);
      text = "~" + inner;
      return n;
    }
    if (accept("(")) {
      std::string inner;
      auto n = read_or(inner);
      expect(")");
      text = "(" + inner + ")";
      return n;
    }
    if (is_ident("true") || is_ident("false")) {
      auto n = std::make_unique<prop>();
      n->k = prop::kind::truth;
      n->truth = next().text == "true";
      text = n->truth ? "true" : "false";
      return n;
    }
    const observable o = read_observable();
    auto n = std::make_unique<prop>();
    n->k = prop::kind::atom;
    if (accept("=") || accept("==")) n->eq = true;
    else if (accept("!=")) n->eq = false;
    else fail("expected '=' in the condition");
    n->v = expect_value();
    n->obs = cond_index(o);
    text = o.label + (n->eq ? "=" : "!=") + std::to_string(n->v);
    return n;
  }

  struct pending_init {
    token at;
    std::string tid, reg;
    value v;
  };

 public:
  void apply_register_inits() {
    for (const auto& pi : pending_reg_init_) {
      const unsigned t = thread_number(pi.at, pi.tid);
      if (t >= p_.threads.size()) fail_at(pi.at, "no thread P" + pi.tid);
      auto& th = p_.threads[t];
      bool found = false;
      for (std::size_t k = 0; k < th.locals.size(); ++k)
        if (th.locals[k] == pi.reg) { th.local_init[k] = pi.v; found = true; }
      if (!found) {
        th.locals.push_back(pi.reg);
        th.local_init.push_back(pi.v);
      }
    }
  }

 private:
  // ---------------------------------------------------------------- CppMem
  // int main() { atomic_int x = 0; int y = 0;
  //   {{{ { x.store(1, mo_release); } ||| { r1 = x.load(mo_acquire).readsvalue(1); } }}}
  //   return 0; }
  // Variables declared before `{{{` are the shared locations (atomic_* types atomic, others
  // plain); identifiers first assigned inside a thread are that thread's registers.

  static bool is_cppmem(const std::string& src) {
    lexer l(src);
    l.skip_space();
    const std::size_t at = l.pos();
    return src.compare(at, 3, "int") == 0 && src.find("main", at) != std::string::npos &&
           src.find("{{{") != std::string::npos &&
           src.find_first_not_of(" \t\r\n", at + 3) == src.find("main", at);
  }

  bool at_par_open() const {
    return is_punct("{") && peek_tok().k == token::kind::punct && peek_tok().text == "{" &&
           peek_tok(2).k == token::kind::punct && peek_tok(2).text == "{";
  }
  bool at_par_sep() const {
    return is_punct("||") && peek_tok().k == token::kind::punct && peek_tok().text == "|";
  }
  bool at_par_close() const {
    return is_punct("}") && peek_tok().k == token::kind::punct && peek_tok().text == "}" &&
           peek_tok(2).k == token::kind::punct && peek_tok(2).text == "}";
  }

  program run_cppmem() {
    cppmem_ = true;
    p_.cppmem = true;
    p_.name = "main";
    toks_ = lex_.run(0);
    if (!is_ident("int")) fail("expected 'int main()'");
    next();
    if (!is_ident("main")) fail("expected 'main'");
    next();
    expect("(");
    if (is_ident("void")) next();
    expect(")");
    expect("{");
    // Shared declarations.
    while (cur().k == token::kind::ident && is_type_word(cur().text)) {
      bool atomic = false;
      std::vector<std::string> words;
      while (cur().k == token::kind::ident && is_type_word(cur().text)) {
        atomic = atomic || is_atomic_type_word(cur().text);
        take_type_word(words);
      }
      for (;;) {
        const token nt = cur();
        const std::string n = expect_ident("a variable name");
        if (p_.find_location(n) >= 0) fail_at(nt, "'" + n + "' declared twice");
        const int k = location_index(n, atomic, true);
        declare_width(k, width_of(words));
        if (accept("=")) {
          p_.locations[static_cast<std::size_t>(k)].init = expect_value();
        } else if (accept("(")) {
          p_.locations[static_cast<std::size_t>(k)].init = expect_value();
          expect(")");
        }
        if (!accept(",")) break;
      }
      expect(";");
    }
    if (!at_par_open()) fail("expected '{{{' (CppMem's parallel composition)");
    next();
    next();
    next();
    for (;;) {
      thread_code t;
      t.id = static_cast<unsigned>(p_.threads.size());
      t.name = "P" + std::to_string(t.id);
      if (t.id >= max_threads)
        fail("at most " + std::to_string(max_threads) + " threads (the checker's main thread is the 16th)");
      params_.clear();
      param_atomic_.clear();
      for (std::size_t k = 0; k < p_.locations.size(); ++k) {
        params_[p_.locations[k].name] = static_cast<int>(k);
        param_atomic_[p_.locations[k].name] = p_.locations[k].atomic;
      }
      thread_ = &t;
      scopes_.assign(1, {});
      auto body = std::make_unique<stmt>();
      body->k = stmt::kind::block;
      while (!at_par_sep() && !at_par_close()) {
        if (cur().k == token::kind::end) fail("unexpected end of file: missing '}}}'");
        if (at_par_open()) fail("nested '{{{' is not supported");
        if (is_ident("return")) fail("'return' inside '{{{ ... }}}': missing '}}}' before it");
        read_statement(body->body);
      }
      t.body = std::move(body);
      thread_ = nullptr;
      p_.threads.push_back(std::move(t));
      const bool sep = at_par_sep();
      next();
      next();
      if (!sep) next();
      if (!sep) break;
    }
    if (is_ident("return")) {
      next();
      (void)expect_value();
      expect(";");
    }
    expect("}");
    if (cur().k != token::kind::end) fail("unexpected '" + cur().text + "' after main");
    // Observed: every register of every thread, herd-style "T:r".
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      std::map<std::string, int> last;
      for (std::size_t k = 0; k < p_.threads[t].locals.size(); ++k)
        last[p_.threads[t].locals[k]] = static_cast<int>(k);
      for (const auto& [n, slot] : last)
        p_.observed.push_back(observable{static_cast<int>(t), slot, std::to_string(t) + ":" + n});
    }
    p_.quant = quantifier::exists;
    p_.cond = std::make_unique<prop>();
    p_.cond_text = "exists (true)";
    wrap_initial_values();
    return std::move(p_);
  }

  /// CppMem member calls on a shared atomic: x.load(mo), x.store(v, mo), x.exchange(v, mo),
  /// x.fetch_add(v, mo) (sub/or/and/xor), x.compare_exchange_strong(e, d, mo, mo) (weak
  /// too), with `.readsvalue(v)` after a load.
  expr_ptr read_member_call(const token& at, int loc) {
    expect(".");
    const token mt = cur();
    const std::string m = expect_ident("a member function");
    expect("(");
    const std::string& n = p_.locations[static_cast<std::size_t>(loc)].name;
    auto e = std::make_unique<expr>();
    e->loc = loc;
    auto opt_order = [&](order& o) {
      if (is_punct(")")) return;
      if (!(m == "load" || m == "notify") ) expect(",");
      o = read_order();
    };
    if (m == "load") {
      e->k = expr::kind::load;
      if (!is_punct(")")) e->ord1 = read_load_order();
      expect(")");
      e->tag = tag_at(at, "load " + n);
      if (is_punct(".") && peek_tok().k == token::kind::ident &&
          peek_tok().text == "readsvalue") {
        next();
        next();
        expect("(");
        e->readsvalue = expect_value();
        expect(")");
      }
      return e;
    }
    if (m == "store") {
      auto s = std::make_unique<stmt>();
      s->k = stmt::kind::store;
      s->loc = loc;
      s->a = read_assign_rhs();
      if (!is_punct(")")) {
        expect(",");
        s->ord1 = read_store_order();
      }
      expect(")");
      s->tag = tag_at(at, "store " + n);
      pending_stmt_ = std::move(s);
      return make_const(0);
    }
    static const std::map<std::string, rmw_op> rmws = {
        {"exchange", rmw_op::exchange}, {"fetch_add", rmw_op::add},
        {"fetch_sub", rmw_op::sub},     {"fetch_or", rmw_op::bit_or},
        {"fetch_and", rmw_op::bit_and}, {"fetch_xor", rmw_op::bit_xor}};
    if (auto f = rmws.find(m); f != rmws.end()) {
      e->k = expr::kind::rmw;
      e->rop = f->second;
      e->a = read_assign_rhs();
      opt_order(e->ord1);
      expect(")");
      e->tag = tag_at(at, m + " " + n);
      return e;
    }
    if (m == "compare_exchange_strong" || m == "compare_exchange_weak") {
      e->k = expr::kind::cas;
      const token rt = cur();
      const std::string r = expect_ident("the expected-value variable");
      e->index = find_local(r);
      if (e->index < 0) e->index = declare_local(rt, r);
      expect(",");
      e->a = read_assign_rhs();
      if (accept(",")) {
        e->ord1 = read_order();
        e->ord2 = e->ord1 == order::acq_rel ? order::acquire
                  : e->ord1 == order::release ? order::relaxed : e->ord1;
        if (accept(",")) e->ord2 = read_order();
      }
      expect(")");
      e->tag = tag_at(at, "cas " + n);
      return e;
    }
    fail_at(mt, "unknown member function '" + m + "'");
  }

  const std::string& src_;
  lexer lex_;
  std::vector<token> toks_;
  std::size_t i_ = 0;
  program p_;
  std::map<int, bool> declared_type_;
  std::set<int> width_declared_;  // locations whose width a declaration named
  bool lkmm_ = false;
  bool cppmem_ = false;
  std::map<std::string, int> params_;
  std::map<std::string, bool> param_atomic_;
  std::vector<std::map<std::string, int>> scopes_;
  thread_code* thread_ = nullptr;
  stmt_ptr pending_stmt_;
  std::vector<observable> cond_obs_, extra_obs_;
  std::vector<pending_init> pending_reg_init_;
};

// ---------------------------------------------------------------- interpreter

/// Thrown inside the interpreter to end a thread early (never leaves run_thread).
struct thread_stop {
  thread_end why;
};

class interpreter {
 public:
  interpreter(const program& p, memory& m, std::vector<value>& regs) : p_(p), m_(m), r_(regs) {}

  /// The cell `loc + off`, which must stay inside loc's array.
  int cell(int loc, const expr* off) {
    if (!off) return loc;
    const location& l = p_.locations[static_cast<std::size_t>(loc)];
    const int base = l.array_base < 0 ? loc : l.array_base;
    const value k = static_cast<value>(loc - base) + eval(*off);
    if (k < 0 || k >= l.array_size) throw thread_stop{thread_end::out_of_bounds};
    return base + static_cast<int>(k);
  }

  void exec(const stmt& s) {
    if (++steps_ > max_thread_steps) throw thread_stop{thread_end::step_limit};
    switch (s.k) {
      case stmt::kind::block:
        for (const auto& c : s.body) exec(*c);
        return;
      case stmt::kind::assign:
        r_[static_cast<std::size_t>(s.index)] = eval(*s.a);
        return;
      case stmt::kind::store: {
        const int c = cell(s.loc, s.off.get());
        m_.store(c, eval(*s.a), s.ord1, s.tag);
        return;
      }
      case stmt::kind::plain_write: {
        const int c = cell(s.loc, s.off.get());
        m_.plain_write(c, eval(*s.a), s.tag);
        return;
      }
      case stmt::kind::fence:
        m_.fence(s.ord1, s.tag);
        return;
      case stmt::kind::eval:
        (void)eval(*s.a);
        return;
      case stmt::kind::if_:
        if (eval(*s.a) != 0) exec(*s.body[0]);
        else if (s.body.size() > 1) exec(*s.body[1]);
        return;
      case stmt::kind::assume:
        if (eval(*s.a) == 0) throw thread_stop{thread_end::assume_failed};
        return;
      case stmt::kind::while_:
        while (eval(*s.a) != 0) {
          if (++steps_ > max_thread_steps) throw thread_stop{thread_end::step_limit};
          exec(*s.body[0]);
        }
        return;
    }
  }

  value eval(const expr& e) {
    switch (e.k) {
      case expr::kind::constant: return e.v;
      case expr::kind::local: return r_[static_cast<std::size_t>(e.index)];
      case expr::kind::unary: {
        const value a = eval(*e.a);
        if (e.op == "!") return a == 0;
        if (e.op == "-") return static_cast<value>(0ull - static_cast<std::uint64_t>(a));
        if (e.op == "~") return ~a;
        return a;
      }
      case expr::kind::binary: {
        if (e.op == "&&") return eval(*e.a) != 0 && eval(*e.b) != 0;
        if (e.op == "||") return eval(*e.a) != 0 || eval(*e.b) != 0;
        const value a = eval(*e.a);
        const value b = eval(*e.b);
        const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
        if (e.op == "+") return static_cast<value>(ua + ub);
        if (e.op == "-") return static_cast<value>(ua - ub);
        if (e.op == "*") return static_cast<value>(ua * ub);
        // Division by zero is undefined behaviour: the thread stops there and the run is flagged
        // (as an out-of-bounds access is). INT64_MIN / -1 wraps instead of trapping.
        if ((e.op == "/" || e.op == "%") && b == 0) throw thread_stop{thread_end::division_by_zero};
        if (e.op == "/") return b == -1 ? static_cast<value>(0ull - ua) : a / b;
        if (e.op == "%") return b == -1 ? 0 : a % b;
        if (e.op == "&") return a & b;
        if (e.op == "|") return a | b;
        if (e.op == "^") return a ^ b;
        if (e.op == "==") return a == b;
        if (e.op == "!=") return a != b;
        if (e.op == "<") return a < b;
        if (e.op == "<=") return a <= b;
        if (e.op == ">") return a > b;
        if (e.op == ">=") return a >= b;
        return 0;
      }
      case expr::kind::load: {
        const value v = m_.load(cell(e.loc, e.off.get()), e.ord1, e.tag);
        if (e.readsvalue && v != *e.readsvalue) throw thread_stop{thread_end::filtered};
        return v;
      }
      case expr::kind::plain_read: return m_.plain_read(cell(e.loc, e.off.get()), e.tag);
      case expr::kind::rmw: {
        const int c = cell(e.loc, e.off.get());
        const value operand = eval(*e.a);
        return m_.rmw(c, e.rop, operand, e.ord1, e.tag);
      }
      case expr::kind::cas: {
        const int c = cell(e.loc, e.off.get());
        if (e.exp_loc >= 0) {
          // C11: the expected object is read, and written back on failure, non-atomically.
          const int ec = cell(e.exp_loc, e.exp_off.get());
          const value desired = eval(*e.a);
          // No temporaries here: an execution the checker ends inside these calls abandons this
          // fiber's stack without unwinding it (a heap temporary would leak).
          value expected = m_.plain_read(ec, e.exp_tag);
          const bool ok = m_.cas(c, expected, desired, e.ord1, e.ord2, e.tag);
          if (!ok) m_.plain_write(ec, expected, e.exp_tag);
          return ok ? 1 : 0;
        }
        const value desired = eval(*e.a);
        value& expected = r_[static_cast<std::size_t>(e.index)];
        return m_.cas(c, expected, desired, e.ord1, e.ord2, e.tag) ? 1 : 0;
      }
    }
    return 0;
  }

 private:
  const program& p_;
  memory& m_;
  std::vector<value>& r_;
  std::size_t steps_ = 0;
};

}  // namespace

program parse(const std::string& source) {
  parser ps(source);
  return ps.run_checked();
}

program parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  program p = parse(ss.str());
  if (p.cppmem) p.name = std::filesystem::path(path).stem().string();  // CppMem has no name line
  return p;
}

std::vector<value> initial_registers(const program& p, unsigned t) {
  return p.threads.at(t).local_init;
}

thread_end run_thread(const program& p, unsigned t, memory& m, std::vector<value>& regs) {
  const auto& th = p.threads.at(t);
  if (regs.size() != th.locals.size()) regs = th.local_init;
  interpreter in(p, m, regs);
  try {
    in.exec(*th.body);
  } catch (const thread_stop& s) {
    return s.why;
  }
  return thread_end::finished;
}

bool evaluate(const prop& c, const state& s) {
  switch (c.k) {
    case prop::kind::truth: return c.truth;
    case prop::kind::atom: return (s.at(static_cast<std::size_t>(c.obs)) == c.v) == c.eq;
    case prop::kind::not_: return !evaluate(*c.a, s);
    case prop::kind::and_: return evaluate(*c.a, s) && evaluate(*c.b, s);
    case prop::kind::or_: return evaluate(*c.a, s) || evaluate(*c.b, s);
  }
  return false;
}

std::string format_state(const program& p, const state& s) {
  std::string out;
  for (std::size_t k = 0; k < p.observed.size() && k < s.size(); ++k) {
    out += p.observed[k].label + "=" + std::to_string(s[k]) + ";";
    if (k + 1 < p.observed.size()) out += ' ';
  }
  return out;
}

}  // namespace pilfer::litmus
