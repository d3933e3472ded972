#include "workload/workload.hpp"

#include <algorithm>

#include "core/enum_names.hpp"

namespace scaleout {

const char* to_string(Task t) { return enum_name(t, {"pretrain", "finetune", "inference"}); }

const char* to_string(WeightFormat f) { return enum_name(f, {"bf16", "fp8", "int8", "int4"}); }

const char* to_string(Optimizer o) {
  return enum_name(o, {"adam", "adam8bit", "sgd", "adafactor", "adam-bf16"});
}

const char* to_string(FinetuneMethod m) { return enum_name(m, {"full", "lora", "qlora"}); }

const char* to_string(Recompute r) { return enum_name(r, {"none", "selective", "full"}); }

const char* to_string(Compile c) { return enum_name(c, {"none", "model", "all"}); }

double recomputed_share(const Layout& ly, int stage_layers) {
  if (ly.recompute != Recompute::full || stage_layers <= 0) return 0.0;
  if (ly.recompute_layers <= 0) return 1.0;
  const int chunks = ly.pp > 1 ? std::max(1, ly.interleave) : 1;
  const int per_chunk = (stage_layers + chunks - 1) / chunks;
  const int recomputed = std::min(ly.recompute_layers, per_chunk) * chunks;
  return std::min(1.0, static_cast<double>(recomputed) / stage_layers);
}

const char* to_string(AdapterTargets t) { return enum_name(t, {"all", "attention", "qkv", "qv"}); }

const char* to_string(Dim d) { return enum_name(d, {"tp", "cp", "dp", "pp"}); }

std::string recompute_label(const Layout& l) {
  std::string s = to_string(l.recompute);
  if (l.recompute == Recompute::full && l.recompute_layers > 0) {
    s += " " + std::to_string(l.recompute_layers) + "/chunk";
  }
  return s;
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
