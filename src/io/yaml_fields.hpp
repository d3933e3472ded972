// Strict reading of one YAML mapping: every key the reader asks for is
// recorded, values are type- and range-checked, and finish() turns any key
// nobody asked for into an InputError with a "did you mean" suggestion.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace scaleout::io {

// 1-based line of a node, 0 when the node has no position.
int line_of(const YAML::Node& n);

// Parses text as YAML, turning parser errors into InputError(file, line).
// The text holds one document: a second one with content (after `---`) is an
// InputError at its line, not silently ignored.
YAML::Node load_yaml(const std::string& text, const std::string& file);

// The most bytes a free-text value (name, source, note, ...) may hold.
constexpr std::size_t kMaxTextLength = 4096;

class Fields {
 public:
  // node must be a map; `path` is the dotted key path of the map ("" at top).
  Fields(const YAML::Node& node, std::string file, std::string path);

  bool has(const std::string& key);
  YAML::Node node(const std::string& key);  // null node when absent (and records the key)

  std::optional<double> number(const std::string& key, double min, double max);
  std::optional<long long> integer(const std::string& key, long long min, long long max);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> string(const std::string& key);
  // A string that is an id (core/ids.hpp): checked with check_id at its line.
  std::optional<std::string> id(const std::string& key);
  // A free-text string shown in reports (a name, a source): one line, no
  // control bytes, at most kMaxTextLength bytes.
  std::optional<std::string> text(const std::string& key);
  // One of `allowed`; suggests the closest on a misspelling.
  std::optional<std::string> choice(const std::string& key,
                                    const std::vector<std::string>& allowed);

  // Throws for keys present in the map but never asked for.
  void finish() const;

  // Error at a key of this map (its line when present, else the map's).
  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         const std::string& hint = {}) const;

  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const;

 private:
  YAML::Node find(const std::string& key) const;
  // Records the key; false when absent; throws when present without a value.
  bool scalar_present(const std::string& key);
  YAML::Node map_;
  std::string file_;
  std::string path_;
  std::vector<std::string> asked_;
};

// Scalar conversions with clear errors, shared by Fields and list readers.
// Numbers are plain decimal only (123, -3, 1.5, 2.0e12): hex, octal, binary,
// '_' separators, .inf/.nan, tags and quoted numbers ("123") are refused.
double scalar_number(const YAML::Node& n, const std::string& file, const std::string& key);
std::string scalar_string(const YAML::Node& n, const std::string& file, const std::string& key);
// A scalar that is an id, checked with check_id.
std::string scalar_id(const YAML::Node& n, const std::string& file, const std::string& key);
// Throws unless `text` is one line of at most kMaxTextLength bytes without
// control bytes.
void check_text(const std::string& text, const std::string& file, int line, const std::string& key);

}  // namespace scaleout::io
