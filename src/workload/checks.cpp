#include "workload/checks.hpp"

#include <fmt/format.h>

namespace scaleout {

std::vector<Problem> check_layout(const Workload& w, long long gpus_in_cluster) {
  std::vector<Problem> out;
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  auto add = [&](std::string key, std::string msg, std::string hint) {
    out.push_back({std::move(key), std::move(msg), std::move(hint)});
  };
  if (m.heads % ly.tp != 0) {
    add("layout.tp",
        fmt::format("tp {} does not divide the model's {} attention heads", ly.tp, m.heads),
        "use a tp that divides the head count, e.g. 1, 2, 4 or 8");
  }
  if (m.kv_heads % ly.tp != 0 && ly.tp % m.kv_heads != 0) {
    add("layout.tp",
        fmt::format("tp {} and the model's {} key/value heads do not divide one another", ly.tp,
                    m.kv_heads),
        "use a tp that divides kv_heads or is a multiple of it");
  }
  if (ly.pp > m.layers) {
    add("layout.pp", fmt::format("pp {} is larger than the model's {} layers", ly.pp, m.layers),
        "use at most one pipeline stage per layer");
  }
  if (ly.interleave > 1) {
    if (ly.pp == 1) {
      add("layout.interleave", "interleave > 1 needs pipeline parallelism",
          "set layout.pp > 1 or interleave: 1");
    } else if (m.layers < ly.pp * ly.interleave) {
      // Uneven chunks are allowed (Megatron-Core places the remainder on the
      // first and last stages); every chunk needs at least one layer.
      add("layout.interleave",
          fmt::format("{} layers are fewer than pp {} x interleave {} pipeline chunks", m.layers,
                      ly.pp, ly.interleave),
          "lower interleave or pp so that every chunk holds at least one layer");
    }
  }
  if (ly.cp > 1 && w.seq_len % (2LL * ly.cp) != 0) {
    add("layout.cp",
        fmt::format("seq_len {} is not divisible by 2 * cp = {}", w.seq_len, 2 * ly.cp),
        "context parallelism splits each sequence into 2*cp load-balanced chunks");
  }
  if (ly.ep > 1) {
    if (!m.is_moe()) {
      add("layout.ep", "ep > 1 needs a mixture-of-experts model", "set ep: 1 for dense models");
    } else if (m.moe.experts % ly.ep != 0) {
      add("layout.ep",
          fmt::format("ep {} does not divide the model's {} experts", ly.ep, m.moe.experts),
          "choose ep among the divisors of the expert count");
    } else if ((static_cast<long long>(ly.dp) * ly.cp) % ly.ep != 0) {
      add("layout.ep", fmt::format("ep {} does not divide dp * cp = {}", ly.ep, ly.dp * ly.cp),
          "expert-parallel groups are carved out of the data-parallel ranks");
    }
  }
  if (w.global_batch > 0 &&
      w.global_batch % (static_cast<long long>(ly.micro_batch) * ly.dp) != 0) {
    add("global_batch",
        fmt::format("global_batch {} is not a multiple of micro_batch {} x dp {}", w.global_batch,
                    ly.micro_batch, ly.dp),
        "each step must be a whole number of micro-batches on every data-parallel rank");
  }
  if (gpus_in_cluster > 0 && static_cast<long long>(ly.gpus()) != gpus_in_cluster) {
    add("layout",
        fmt::format("tp {} x pp {} x dp {} x cp {} = {} GPUs, but the cluster has {}", ly.tp, ly.pp,
                    ly.dp, ly.cp, ly.gpus(), gpus_in_cluster),
        "make the parallel sizes multiply to nodes x GPUs per node, or leave dp out to derive it");
  }
  for (Problem& p : check_fp8_param_gather(ly)) out.push_back(std::move(p));
  if (w.task == Task::finetune && w.finetune.method == FinetuneMethod::qlora &&
      w.precision == Precision::fp8) {
    add("precision", "QLoRA computes in 16-bit; fp8 is not supported with it", "use bf16");
  }
  return out;
}

std::vector<Problem> check_fp8_param_gather(const Layout& ly) {
  if (!ly.fp8_param_gather || ly.zero >= 1) return {};
  return {{"layout.fp8_param_gather",
           "fp8_param_gather needs the distributed optimizer (zero >= 1)",
           "set zero: 1; Megatron-LM refuses --fp8-param-gather without "
           "--use-distributed-optimizer"}};
}

}  // namespace scaleout
