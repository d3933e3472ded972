// Names of enum values as tables in enum order, instead of one switch per enum
// (in core/, which every folder may include).
#pragma once

#include <cstddef>

namespace scaleout {

// The name of `e` in `names` (listed in enum order); "?" for a value outside the table.
template <typename Enum, std::size_t N>
constexpr const char* enum_name(Enum e, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}

}  // namespace scaleout
