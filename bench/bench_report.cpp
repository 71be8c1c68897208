// bench/bench_report.cpp — turns Google Benchmark JSON output into the median/ratio table of RESULTS.md.
//
//   bench_report [--baseline pilfer] FILE.json...   → Markdown on stdout
//
// Benchmarks name their implementation in brackets: "deque.push_pop[pilfer]/real_time",
// "deque.push_pop[mutex_deque]/real_time". Rows group the runs that differ only in the bracket; for each peer the
// table gives the median real time of pilfer, of the peer, and the ratio median(pilfer) / median(peer)
// (< 1: pilfer is faster). Only "median" aggregates are read (run with --benchmark_repetitions=N
// --benchmark_report_aggregates_only=true).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace {

// A small JSON reader: enough for Google Benchmark's output (objects, arrays, strings, numbers, literals).
struct value;
using object = std::map<std::string, value>;
using array = std::vector<value>;
struct value {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<array>, std::shared_ptr<object>> v;
};

class parser {
 public:
  explicit parser(std::string text) : s_(std::move(text)) {}
  value parse() {
    value v = any();
    ws();
    if (i_ != s_.size()) error("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void error(const char* what) {
    std::fprintf(stderr, "bench_report: JSON error at offset %zu: %s\n", i_, what);
    std::exit(2);
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    ws();
    if (i_ >= s_.size()) error("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) error("unexpected character");
    ++i_;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\' && i_ < s_.size()) {
        const char e = s_[i_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'u': i_ += 4; c = '?'; break;
          default: c = e;
        }
      }
      out.push_back(c);
    }
    if (i_ >= s_.size()) error("unterminated string");
    ++i_;
    return out;
  }
  value any() {
    const char c = peek();
    if (c == '{') {
      ++i_;
      auto o = std::make_shared<object>();
      if (peek() == '}') {
        ++i_;
        return {o};
      }
      for (;;) {
        std::string k = str();
        expect(':');
        (*o)[k] = any();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return {o};
      }
    }
    if (c == '[') {
      ++i_;
      auto a = std::make_shared<array>();
      if (peek() == ']') {
        ++i_;
        return {a};
      }
      for (;;) {
        a->push_back(any());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return {a};
      }
    }
    if (c == '"') return {str()};
    if (s_.compare(i_, 4, "true") == 0) { i_ += 4; return {true}; }
    if (s_.compare(i_, 5, "false") == 0) { i_ += 5; return {false}; }
    if (s_.compare(i_, 4, "null") == 0) { i_ += 4; return {nullptr}; }
    char* end = nullptr;
    const double d = std::strtod(s_.c_str() + i_, &end);
    if (end == s_.c_str() + i_) error("bad value");
    i_ = static_cast<std::size_t>(end - s_.c_str());
    return {d};
  }
  std::string s_;
  std::size_t i_ = 0;
};

const value* field(const object& o, const std::string& k) {
  auto it = o.find(k);
  return it == o.end() ? nullptr : &it->second;
}
std::string get_str(const object& o, const std::string& k) {
  const value* v = field(o, k);
  if (v == nullptr) return {};
  if (auto p = std::get_if<std::string>(&v->v)) return *p;
  return {};
}
double get_num(const object& o, const std::string& k, double dflt = -1) {
  const value* v = field(o, k);
  if (v == nullptr) return dflt;
  if (auto p = std::get_if<double>(&v->v)) return *p;
  return dflt;
}

double to_ns(double t, const std::string& unit) {
  if (unit == "us") return t * 1e3;
  if (unit == "ms") return t * 1e6;
  if (unit == "s") return t * 1e9;
  return t;
}

std::string human(double ns) {
  char buf[64];
  if (ns >= 1e9) std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  else if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g ns", ns);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string baseline = "pilfer";
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--baseline" && i + 1 < argc) baseline = argv[++i];
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: bench_report [--baseline NAME] FILE.json...\n");
    return 2;
  }
  // group → impl → median ns ; keep first-seen order of groups
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, double>> medians;
  std::map<std::string, double> cv;  // group[impl] → coefficient of variation, when reported
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) {
      std::fprintf(stderr, "bench_report: cannot read %s\n", f.c_str());
      return 2;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const value root = parser(ss.str()).parse();
    const auto* ro = std::get_if<std::shared_ptr<object>>(&root.v);
    if (ro == nullptr) continue;
    const value* bl = field(**ro, "benchmarks");
    if (bl == nullptr) continue;
    const auto* arr = std::get_if<std::shared_ptr<array>>(&bl->v);
    if (arr == nullptr) continue;
    for (const auto& b : **arr) {
      const auto* bo = std::get_if<std::shared_ptr<object>>(&b.v);
      if (bo == nullptr) continue;
      const object& o = **bo;
      const std::string agg = get_str(o, "aggregate_name");
      if (agg != "median" && agg != "cv") continue;
      std::string run = get_str(o, "run_name");
      if (run.empty()) run = get_str(o, "name");
      const auto lb = run.find('['), rb = run.find(']');
      if (lb == std::string::npos || rb == std::string::npos || rb < lb) continue;
      const std::string impl = run.substr(lb + 1, rb - lb - 1);
      const std::string group = run.substr(0, lb) + run.substr(rb + 1);
      if (agg == "cv") {
        cv[group + "[" + impl + "]"] = get_num(o, "real_time");
        continue;
      }
      if (!medians.count(group)) order.push_back(group);
      medians[group][impl] = to_ns(get_num(o, "real_time"), get_str(o, "time_unit"));
    }
  }
  std::printf("| benchmark | %s median | peer | peer median | ratio %s/peer |\n", baseline.c_str(),
              baseline.c_str());
  std::printf("|---|---:|---|---:|---:|\n");
  auto cv_note = [&](const std::string& g, const std::string& impl) {
    auto it = cv.find(g + "[" + impl + "]");
    if (it == cv.end() || it->second < 0) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, " (cv %.0f%%)", it->second * 100);
    return std::string(buf);
  };
  int rows = 0;
  for (const auto& g : order) {
    const auto& m = medians[g];
    auto base = m.find(baseline);
    for (const auto& [impl, ns] : m) {
      if (impl == baseline) continue;
      if (base == m.end()) {
        std::printf("| %s | — | %s | %s%s | — |\n", g.c_str(), impl.c_str(), human(ns).c_str(),
                    cv_note(g, impl).c_str());
      } else {
        std::printf("| %s | %s%s | %s | %s%s | %.2f |\n", g.c_str(), human(base->second).c_str(),
                    cv_note(g, baseline).c_str(), impl.c_str(), human(ns).c_str(), cv_note(g, impl).c_str(),
                    base->second / ns);
      }
      ++rows;
    }
  }
  if (rows == 0) {
    std::fprintf(stderr, "bench_report: no median aggregates with [impl] names found\n");
    return 1;
  }
  return 0;
}
