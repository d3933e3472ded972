#include "io/yaml_fields.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"

namespace scaleout::io {

int line_of(const YAML::Node& n) {
  if (!n.IsDefined()) return 0;
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

namespace {

// Notes whether a document holds anything but null, and the line where it starts.
class ContentProbe : public YAML::EventHandler {
 public:
  int line = 0;  // 1-based line of the first non-null node; 0 when none
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    note(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& m) {
    if (line == 0) line = m.line >= 0 ? m.line + 1 : 1;
  }
};

// The line of a second document with content, 0 when there is none. A lone
// `---` or `...` before or after the content is harmless. Only a document
// marker at the start of a line can begin a second document, so files
// without one are not parsed again; the parser is asked for two documents
// at most.
int second_document_line(const std::string& text) {
  const bool marker = text.starts_with("---") || text.starts_with("...") ||
                      text.find("\n---") != std::string::npos ||
                      text.find("\n...") != std::string::npos;
  if (!marker) return 0;
  std::istringstream in(text);
  YAML::Parser parser(in);
  ContentProbe first;
  if (!parser.HandleNextDocument(first)) return 0;
  ContentProbe second;
  if (!parser.HandleNextDocument(second)) return 0;
  return second.line;
}

}  // namespace

YAML::Node load_yaml(const std::string& text, const std::string& file) {
  if (text.find('\0') != std::string::npos) {
    throw InputError(file, 0, "", "file is binary (contains NUL bytes), expected YAML text");
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
    // Never YAML::LoadAll: yaml-cpp 0.7 loops without end, growing, on a
    // file that starts with ',' (fuzz/regressions/*/yaml-leading-comma-hang).
    if (const int line = second_document_line(text)) {
      throw InputError(file, line, "",
                       "a second YAML document (after '---'); the file must hold one",
                       "remove the '---' line and merge the keys into one mapping");
    }
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg,
                     "check indentation, colons and brackets");
  }
  if (root.IsNull()) {
    // yaml-cpp reads some malformed text (",a") as an empty document; only
    // comments, blank lines, document markers and an explicit null are empty.
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      const std::string_view rest = std::string_view(line).substr(first);
      if (rest.starts_with("---") || rest.starts_with("...") || rest.starts_with("~") ||
          rest.starts_with("null")) {
        continue;
      }
      throw InputError(file, n, "", "not valid YAML: no document could be read from this line",
                       "check indentation, colons and brackets");
    }
  }
  return root;
}

namespace {
const char* type_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}
}  // namespace

namespace {

constexpr const char* kDecimalHint =
    "write it as a plain decimal number, e.g. 16, -3, 0.5 or 2.0e12";

bool digit(char c) { return c >= '0' && c <= '9'; }

// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, with no leading
// zero before another digit (YAML 1.1 reads 017 as octal 15).
bool plain_decimal(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t int_begin = i;
  while (i < s.size() && digit(s[i])) ++i;
  const size_t int_digits = i - int_begin;
  if (int_digits > 1 && s[int_begin] == '0') return false;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t frac_begin = i;
    while (i < s.size() && digit(s[i])) ++i;
    frac_digits = i - frac_begin;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exp_begin = i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == exp_begin) return false;
  }
  return i == s.size();
}

}  // namespace

double scalar_number(const YAML::Node& n, const std::string& file, const std::string& key) {
  if (!n.IsScalar()) {
    throw InputError(file, line_of(n), key, fmt::format("expected a number, got {}", type_name(n)));
  }
  const std::string& s = n.Scalar();
  // yaml-cpp tags a plain scalar "?", a quoted one "!" and an explicit tag with its name.
  if (n.Tag() == "!") {
    throw InputError(file, line_of(n), key,
                     fmt::format("expected a number, got the quoted string '{}'", printable(s)),
                     std::string(kDecimalHint) + ", without quotes");
  }
  if (n.Tag() != "?") {
    throw InputError(file, line_of(n), key,
                     fmt::format("expected a number, got a value tagged '{}'", printable(n.Tag())),
                     std::string(kDecimalHint) + ", without a tag");
  }
  if (!plain_decimal(s)) {
    // YAML spells the non-finite floats .nan, .inf and -.inf.
    std::string bare = s.substr(!s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0);
    for (char& ch : bare) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (bare == ".nan" || bare == ".inf") {
      throw InputError(file, line_of(n), key, fmt::format("'{}' is not a finite number", s),
                       "use a finite decimal value such as 1.5e12");
    }
    // A word is not a number at all; 0x10, 0o17, 1_000 or 017 are numbers in another notation.
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str()) {
      throw InputError(file, line_of(n), key,
                       fmt::format("expected a number, got '{}'", printable(s)));
    }
    if (!std::isfinite(v)) {  // nan, inf, infinity
      throw InputError(file, line_of(n), key,
                       fmt::format("'{}' is not a finite number", printable(s)),
                       "use a finite decimal value such as 1.5e12");
    }
    throw InputError(file, line_of(n), key,
                     fmt::format("'{}' is not a plain decimal number", printable(s)), kDecimalHint);
  }
  errno = 0;
  const double v = std::strtod(s.c_str(), nullptr);
  if (std::isnan(v) || std::isinf(v) || errno == ERANGE) {
    throw InputError(file, line_of(n), key,
                     fmt::format("'{}' is not a finite number", printable(s)),
                     "use a finite decimal value such as 1.5e12");
  }
  return v;
}

std::string scalar_string(const YAML::Node& n, const std::string& file, const std::string& key) {
  if (!n.IsScalar()) {
    throw InputError(file, line_of(n), key, fmt::format("expected a string, got {}", type_name(n)));
  }
  return n.Scalar();
}

std::string scalar_id(const YAML::Node& n, const std::string& file, const std::string& key) {
  std::string s = scalar_string(n, file, key);
  check_id(s, file, line_of(n), key);
  return s;
}

void check_text(const std::string& text, const std::string& file, int line,
                const std::string& key) {
  if (text.size() > kMaxTextLength) {
    throw InputError(file, line, key,
                     fmt::format("'{}' is longer than {} bytes", printable(text), kMaxTextLength),
                     "shorten it");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      throw InputError(file, line, key,
                       fmt::format("'{}' holds a control character ('{}' at position {})",
                                   printable(text), printable(text.substr(i, 1)), i + 1),
                       "write it on one line without tabs or control characters");
    }
  }
}

Fields::Fields(const YAML::Node& node, std::string file, std::string path)
    : map_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node.IsMap()) {
    throw InputError(file_, line_of(node), path_,
                     fmt::format("expected a mapping of keys to values, got {}", type_name(node)));
  }
  // YAML parsers (and yaml-cpp reading JSON) keep both copies of a repeated key;
  // reading would silently use the first. A hash keeps a huge map linear.
  std::unordered_map<std::string_view, int> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string& k = it->first.Scalar();
    const auto [prev, fresh] = seen.emplace(k, line_of(it->first));
    if (!fresh) {
      throw InputError(file_, line_of(it->first), key_path(k), "duplicate key",
                       fmt::format("it is already set on line {}; keep one", prev->second));
    }
  }
}

std::string Fields::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

YAML::Node Fields::find(const std::string& key) const {
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool Fields::has(const std::string& key) {
  asked_.push_back(key);
  const YAML::Node n = find(key);
  return n.IsDefined() && !n.IsNull();
}

bool Fields::scalar_present(const std::string& key) {
  asked_.push_back(key);
  const YAML::Node n = find(key);
  if (!n.IsDefined()) return false;
  if (n.IsNull()) fail(key, "the key has no value", "give a value or remove the key");
  return true;
}

YAML::Node Fields::node(const std::string& key) {
  asked_.push_back(key);
  return find(key);
}

void Fields::fail(const std::string& key, const std::string& message,
                  const std::string& hint) const {
  const YAML::Node n = find(key);
  if (!n.IsDefined()) {
    // The key is absent; a near miss not read yet (`hiden` for `hidden`) is the likelier mistake.
    for (auto it = map_.begin(); it != map_.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string& k = it->first.Scalar();
      if (k.size() > 64 || std::find(asked_.begin(), asked_.end(), k) != asked_.end()) continue;
      if (!closest_match(k, {key}).empty()) {
        throw InputError(file_, line_of(it->first), key_path(k), "unknown key",
                         "did you mean '" + key + "'?");
      }
    }
  }
  const int line = n.IsDefined() ? line_of(n) : line_of(map_);
  throw InputError(file_, line, key_path(key), message, hint);
}

std::optional<double> Fields::number(const std::string& key, double min, double max) {
  if (!scalar_present(key)) return std::nullopt;
  const YAML::Node n = find(key);
  const double v = scalar_number(n, file_, key_path(key));
  if (v < min || v > max) {
    fail(key, fmt::format("{} is out of range", printable(n.Scalar())),
         fmt::format("expected a value from {:g} to {:g}", min, max));
  }
  return v;
}

std::optional<long long> Fields::integer(const std::string& key, long long min, long long max) {
  if (!scalar_present(key)) return std::nullopt;
  const YAML::Node n = find(key);
  const double v = scalar_number(n, file_, key_path(key));
  if (v != std::floor(v)) {
    fail(key, fmt::format("expected a whole number, got {}", printable(n.Scalar())));
  }
  if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
    fail(key, fmt::format("{} is out of range", printable(n.Scalar())),
         fmt::format("expected a whole number from {} to {}", min, max));
  }
  return static_cast<long long>(v);
}

std::optional<bool> Fields::boolean(const std::string& key) {
  if (!scalar_present(key)) return std::nullopt;
  const YAML::Node n = find(key);
  const std::string s = scalar_string(n, file_, key_path(key));
  if (s == "true" || s == "yes" || s == "y" || s == "on") return true;
  if (s == "false" || s == "no" || s == "n" || s == "off") return false;
  fail(key, fmt::format("expected true or false, got '{}'", printable(s)));
}

std::optional<std::string> Fields::string(const std::string& key) {
  if (!scalar_present(key)) return std::nullopt;
  return scalar_string(find(key), file_, key_path(key));
}

std::optional<std::string> Fields::id(const std::string& key) {
  auto s = string(key);
  if (s) check_id(*s, file_, line_of(find(key)), key_path(key));
  return s;
}

std::optional<std::string> Fields::text(const std::string& key) {
  auto s = string(key);
  if (s) check_text(*s, file_, line_of(find(key)), key_path(key));
  return s;
}

std::optional<std::string> Fields::choice(const std::string& key,
                                          const std::vector<std::string>& allowed) {
  auto s = string(key);
  if (!s) return s;
  for (const auto& a : allowed) {
    if (a == *s) return s;
  }
  // A value far longer than any allowed one is not a misspelling of one.
  fail(key, fmt::format("unknown value '{}'", printable(*s)),
       s->size() > 64 ? std::string() : suggestion(*s, allowed));
}

void Fields::finish() const {
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    const std::string k = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    bool known = false;
    for (const auto& a : asked_) known = known || a == k;
    if (!known) {
      std::vector<std::string> unique = asked_;
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      // A key far longer than any known one is not a misspelling of one.
      throw InputError(file_, line_of(it->first), key_path(k), "unknown key",
                       k.size() > 64 ? std::string() : suggestion(k, unique));
    }
  }
}

}  // namespace scaleout::io
