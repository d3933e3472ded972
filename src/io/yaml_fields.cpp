#include "io/yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/spelling.hpp"

namespace scaleout::io {

int line_of(const YAML::Node& n) {
  if (!n.IsDefined()) return 0;
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

YAML::Node load_yaml(const std::string& text, const std::string& file) {
  if (text.find('\0') != std::string::npos) {
    throw InputError(file, 0, "", "file is binary (contains NUL bytes), expected YAML text");
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg,
                     "check indentation, colons and brackets");
  }
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

double scalar_number(const YAML::Node& n, const std::string& file, const std::string& key) {
  if (!n.IsScalar()) {
    throw InputError(file, line_of(n), key, fmt::format("expected a number, got {}", type_name(n)));
  }
  const std::string& s = n.Scalar();
  // YAML spells the non-finite floats .nan, .inf and -.inf, which strtod does not read.
  std::string bare = s.substr(!s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0);
  for (char& ch : bare) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (bare == ".nan" || bare == ".inf") {
    throw InputError(file, line_of(n), key, fmt::format("'{}' is not a finite number", s),
                     "use a finite decimal value such as 1.5e12");
  }
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0') {
    throw InputError(file, line_of(n), key, fmt::format("expected a number, got '{}'", s));
  }
  if (std::isnan(v) || std::isinf(v) || errno == ERANGE) {
    throw InputError(file, line_of(n), key, fmt::format("'{}' is not a finite number", s),
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

Fields::Fields(const YAML::Node& node, std::string file, std::string path)
    : map_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node.IsMap()) {
    throw InputError(file_, line_of(node), path_,
                     fmt::format("expected a mapping of keys to values, got {}", type_name(node)));
  }
  // YAML parsers keep both copies of a repeated key; reading would silently use the first.
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    for (auto prev = node.begin(); prev != it; ++prev) {
      if (prev->first.IsScalar() && prev->first.Scalar() == it->first.Scalar()) {
        throw InputError(
            file_, line_of(it->first), key_path(it->first.Scalar()), "duplicate key",
            fmt::format("it is already set on line {}; keep one", line_of(prev->first)));
      }
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
      if (std::find(asked_.begin(), asked_.end(), k) != asked_.end()) continue;
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
    fail(key, fmt::format("{} is out of range", n.Scalar()),
         fmt::format("expected a value from {:g} to {:g}", min, max));
  }
  return v;
}

std::optional<long long> Fields::integer(const std::string& key, long long min, long long max) {
  if (!scalar_present(key)) return std::nullopt;
  const YAML::Node n = find(key);
  const double v = scalar_number(n, file_, key_path(key));
  if (v != std::floor(v)) {
    fail(key, fmt::format("expected a whole number, got {}", n.Scalar()));
  }
  if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
    fail(key, fmt::format("{} is out of range", n.Scalar()),
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
  fail(key, fmt::format("expected true or false, got '{}'", s));
}

std::optional<std::string> Fields::string(const std::string& key) {
  if (!scalar_present(key)) return std::nullopt;
  return scalar_string(find(key), file_, key_path(key));
}

std::optional<std::string> Fields::choice(const std::string& key,
                                          const std::vector<std::string>& allowed) {
  auto s = string(key);
  if (!s) return s;
  for (const auto& a : allowed) {
    if (a == *s) return s;
  }
  fail(key, fmt::format("unknown value '{}'", *s), suggestion(*s, allowed));
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
      throw InputError(file_, line_of(it->first), key_path(k), "unknown key",
                       suggestion(k, unique));
    }
  }
}

}  // namespace scaleout::io
