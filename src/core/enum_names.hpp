// Names of enum values as tables in enum order, instead of one switch per enum
// (in core/, which every folder may include).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scaleout {

// The name of `e` in `names` (listed in enum order); "?" for a value outside the table.
template <typename Enum, std::size_t N>
constexpr const char* enum_name(Enum e, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}

// Every name of Enum in enum order, as its `to_string` (found by argument-
// dependent lookup) gives them: the values 0, 1, ... up to the first "?".
template <typename Enum>
std::vector<std::string> enum_names() {
  std::vector<std::string> names;
  for (int i = 0;; ++i) {
    const std::string_view n = to_string(static_cast<Enum>(i));
    if (n == "?") return names;
    names.emplace_back(n);
  }
}

// The value of Enum whose `to_string` is `name`; nullopt when none is.
template <typename Enum>
std::optional<Enum> enum_from_name(std::string_view name) {
  for (int i = 0;; ++i) {
    const std::string_view n = to_string(static_cast<Enum>(i));
    if (n == "?") return std::nullopt;
    if (n == name) return static_cast<Enum>(i);
  }
}

}  // namespace scaleout
