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

const char* to_string(CudaGraphs g) {
  switch (g) {
    case CudaGraphs::none:
      return "none";
    case CudaGraphs::scoped:
      return "scoped";
    case CudaGraphs::full:
      return "full";
  }
  return "?";
}

CudaGraphs cuda_graphs_from_name(std::string_view name) {
  return name == "scoped" ? CudaGraphs::scoped
         : name == "full" ? CudaGraphs::full
                          : CudaGraphs::none;
}

std::string cuda_graph_framework_names(CudaGraphs g) {
  std::string out;
  for (const FrameworkTraits& t : kFrameworkTable) {
    if ((t.cuda_graph_modes & cuda_graph_bit(g)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += t.name;
  }
  return out;
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
