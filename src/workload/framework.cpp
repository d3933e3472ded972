#include "workload/framework.hpp"

namespace scaleout {

std::optional<Framework> framework_from_name(std::string_view name) {
  for (const FrameworkTraits& t : kFrameworkTable) {
    if (t.name == name) return t.framework;
  }
  return std::nullopt;
}

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const FrameworkTraits& t : kFrameworkTable) out.emplace_back(t.name);
    return out;
  }();
  return names;
}

const char* to_string(Framework f) {
  if (static_cast<std::size_t>(f) >= kFrameworkTable.size()) return "?";
  // The names are string literals, so their views end in a NUL.
  return framework_traits(f).name.data();
}

std::string transformer_engine_fp8_names() {
  std::string out;
  for (const FrameworkTraits& t : kFrameworkTable) {
    if (!t.transformer_engine_fp8) continue;
    if (!out.empty()) out += " or ";
    out += t.name;
  }
  return out;
}

}  // namespace scaleout
