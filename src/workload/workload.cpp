#include "workload/workload.hpp"

#include "core/enum_names.hpp"

namespace scaleout {

const char* to_string(Task t) { return enum_name(t, {"pretrain", "finetune", "inference"}); }

const char* to_string(WeightFormat f) { return enum_name(f, {"bf16", "fp8", "int8", "int4"}); }

const char* to_string(Optimizer o) {
  return enum_name(o, {"adam", "adam8bit", "sgd", "adafactor", "adam-bf16", "adam-bf16-moments"});
}

const char* to_string(FinetuneMethod m) { return enum_name(m, {"full", "lora", "qlora"}); }

const char* to_string(Recompute r) { return enum_name(r, {"none", "selective", "full"}); }
const char* to_string(PipeSchedule s) {
  return enum_name(s, {"1f1b", "zb1p", "dualpipe", "dualpipev"});
}

const char* to_string(Compile c) { return enum_name(c, {"none", "model", "all"}); }

const char* to_string(MoeDispatcher d) {
  return enum_name(d, {"framework", "alltoall", "deepep", "hybridep"});
}

const char* to_string(AdapterTargets t) { return enum_name(t, {"all", "attention", "qkv", "qv"}); }

const char* to_string(Dim d) { return enum_name(d, {"tp", "cp", "dp", "pp"}); }

std::string recompute_label(const Layout& l) {
  std::string s = to_string(l.recompute);
  if (l.recompute == Recompute::full && l.recompute_layers > 0) {
    s += " " + std::to_string(l.recompute_layers) + "/chunk";
  }
  if (l.recompute == Recompute::selective && l.recompute_modules != kDefaultRecomputeModules) {
    s += " " + recompute_modules_string(l.recompute_modules, '+');
  }
  return s;
}

std::string recompute_modules_string(RecomputeModules m, char sep) {
  std::string s;
  for (int i = 0; i < kRecomputeModules; ++i) {
    if ((m & module_bit(static_cast<RecomputeModule>(i))) == 0) continue;
    if (!s.empty()) s += sep;
    s += kRecomputeModuleNames[i];
  }
  return s;
}

std::optional<RecomputeModule> recompute_module_from_name(std::string_view name) {
  for (int i = 0; i < kRecomputeModules; ++i) {
    if (name == kRecomputeModuleNames[i]) return static_cast<RecomputeModule>(i);
  }
  return std::nullopt;
}

std::string order_string(const std::array<Dim, 4>& order) {
  std::string s;
  for (Dim d : order) {
    if (!s.empty()) s += "-";
    s += to_string(d);
  }
  return s;
}

}  // namespace scaleout
