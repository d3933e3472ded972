#include "workload/checks.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/ids.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

namespace {

// One message per rule, shared by check_layout and check_fixed_layout.
Problem tp_heads(const ModelShape& m, int tp) {
  return {"layout.tp",
          fmt::format("tp {} does not divide the model's {} attention heads", tp, m.heads),
          "use a tp that divides the head count, e.g. 1, 2, 4 or 8"};
}

Problem tp_kv_heads(const ModelShape& m, int tp) {
  return {"layout.tp",
          fmt::format("tp {} and the model's {} key/value heads do not divide one another", tp,
                      m.kv_heads),
          "use a tp that divides kv_heads or is a multiple of it"};
}

Problem pp_layers(const ModelShape& m, int pp) {
  return {"layout.pp", fmt::format("pp {} is larger than the model's {} layers", pp, m.layers),
          "use at most one pipeline stage per layer"};
}

Problem interleave_without_pp() {
  return {"layout.interleave", "interleave > 1 needs pipeline parallelism",
          "set layout.pp > 1 or interleave: 1"};
}

Problem interleave_unsupported(Framework f) {
  return {"layout.interleave",
          fmt::format("{} has no interleaved pipeline schedule (its pipeline engine runs 1F1B "
                      "over one model chunk per stage)",
                      framework_traits(f).display),
          "set interleave: 1, or a framework with an interleaved schedule (megatron, nemo, "
          "torchtitan)"};
}

Problem interleave_chunks(const ModelShape& m, int pp, int interleave) {
  return {"layout.interleave",
          fmt::format("{} layers are fewer than pp {} x interleave {} pipeline chunks", m.layers,
                      pp, interleave),
          "lower interleave or pp so that every chunk holds at least one layer"};
}

Problem virtual_stages_uneven(const ModelShape& m, const Layout& ly, Framework f) {
  const int v = pipeline_chunks(ly);
  const std::string per_rank =
      m.layers % ly.pp == 0 ? fmt::format("{} layers per stage", m.layers / ly.pp)
                            : fmt::format("{} layers do not divide over pp {}", m.layers, ly.pp);
  return {"layout.interleave",
          fmt::format("{}: {} layers do not split into pp {} x interleave {} equal chunks ({}); "
                      "its even split builds layers / (pp x interleave) per chunk and refuses "
                      "the rest",
                      framework_traits(f).display, m.layers, ly.pp, v, per_rank),
          "choose an interleave that divides the layers per stage, or give first_stage_layers "
          "and last_stage_layers in multiples of it"};
}

// Megatron-Core's rules for the embedding and loss counted in the pipeline
// split (transformer_config.py __post_init__; training/arguments.py): a
// Megatron-Core framework, pp > 1, no first/last stage sizes beside them,
// and L + e + l places that split evenly over the ranks and each rank's
// chunks. The rule is found once (no text on the planner's hot path) and
// the Problem built from it.
enum class AccountedRule { ok, framework, no_pp, sized_stages, uneven };

AccountedRule accounted_split_rule(const ModelShape& m, const Layout& ly, Framework f) {
  if (split_places(ly) == 0) return AccountedRule::ok;
  if (!counts_embedding_in_split(f)) return AccountedRule::framework;
  if (ly.pp <= 1) return AccountedRule::no_pp;
  if (ly.first_stage_layers > 0 || ly.last_stage_layers > 0) return AccountedRule::sized_stages;
  const int places = m.layers + split_places(ly);
  return places % (ly.pp * pipeline_chunks(ly)) != 0 ? AccountedRule::uneven : AccountedRule::ok;
}

Problem accounted_split(const ModelShape& m, const Layout& ly, Framework f, AccountedRule rule) {
  const char* key = ly.embedding_in_split ? "layout.embedding_in_split" : "layout.loss_in_split";
  switch (rule) {
    case AccountedRule::framework:
      return {key,
              fmt::format("{} has no split that counts the embedding or loss as a layer "
                          "(Megatron-Core's --account-for-embedding/loss-in-pipeline-split)",
                          framework_traits(f).display),
              "use framework megatron, nemo or other, or leave embedding_in_split and "
              "loss_in_split out"};
    case AccountedRule::no_pp:
      return {key,
              "embedding_in_split and loss_in_split place layers on pipeline stages, but pp is 1",
              "set layout.pp > 1, or leave embedding_in_split and loss_in_split out"};
    case AccountedRule::sized_stages:
      return {key,
              "embedding_in_split and loss_in_split cannot be given with first_stage_layers or "
              "last_stage_layers (Megatron-Core refuses both together)",
              "keep one way of sizing the first and last stages"};
    case AccountedRule::uneven:
    case AccountedRule::ok:
      break;
  }
  const int places = m.layers + split_places(ly);
  const int v = pipeline_chunks(ly);
  return {key,
          fmt::format("{} layers + {} place(s) for the embedding and loss = {} do not split "
                      "evenly over pp {}{}",
                      m.layers, split_places(ly), places, ly.pp,
                      v > 1 ? fmt::format(" x interleave {} chunks", v) : ""),
          fmt::format("choose pp{} dividing {}", v > 1 ? " x interleave" : "", places)};
}

Problem cp_seq_len(long long seq_len, int cp) {
  return {"layout.cp", fmt::format("seq_len {} is not divisible by 2 * cp = {}", seq_len, 2 * cp),
          "context parallelism splits each sequence into 2*cp load-balanced chunks"};
}

Problem ep_dense() {
  return {"layout.ep", "ep > 1 needs a mixture-of-experts model", "set ep: 1 for dense models"};
}

Problem ep_experts(const ModelShape& m, int ep) {
  return {"layout.ep",
          fmt::format("ep {} does not divide the model's {} experts", ep, m.moe.experts),
          "choose ep among the divisors of the expert count"};
}

// MoE parallel folding (Megatron-Core parallel_state: the expert grid
// ep x etp x expert-dp must factor the same ranks as tp x cp x dp).
Problem ep_fold(const Layout& ly) {
  const long long ranks = static_cast<long long>(ly.tp) * ly.cp * ly.dp;
  return {
      ly.etp > 1 ? "layout.etp" : "layout.ep",
      fmt::format("ep {} x etp {} does not divide tp x cp x dp = {}", ly.ep, ly.expert_tp(), ranks),
      "expert layers split a stage's tp x cp x dp ranks into ep x etp x expert-dp; "
      "choose ep x etp among its divisors"};
}

Problem etp_dense() {
  return {"layout.etp", "etp > 1 needs a mixture-of-experts model",
          "leave etp out for dense models"};
}

bool folds(const Layout& ly) {
  return (static_cast<long long>(ly.tp) * ly.cp * ly.dp) %
             (static_cast<long long>(ly.ep) * ly.expert_tp()) ==
         0;
}

Problem batch_split(const Workload& w) {
  const Layout& ly = w.layout;
  return {"global_batch",
          fmt::format("global_batch {} is not a multiple of micro_batch {} x dp {}", w.global_batch,
                      ly.micro_batch, ly.dp),
          "each step must be a whole number of micro-batches on every data-parallel rank"};
}

Problem recompute_layers_without_full(Recompute r) {
  return {"layout.recompute_layers",
          fmt::format("recompute_layers chooses which layers full recompute recomputes, but "
                      "recompute is {}",
                      to_string(r)),
          "set recompute: full, or leave recompute_layers out"};
}

// What is wrong with the layout's recompute_modules, if anything: modules
// other than the default without selective recompute, a framework whose
// selective recompute is not Megatron-Core's module list, or a module the
// model lacks (Megatron-Core transformer_config.py refuses mla_up_proj
// without MLA and moe_act without grouped-GEMM experts).
std::optional<Problem> recompute_modules_problem(const Workload& w) {
  const Layout& ly = w.layout;
  const RecomputeModules mods = ly.recompute_modules;
  if (mods == kDefaultRecomputeModules) return std::nullopt;
  const std::string names = recompute_modules_string(mods, '+');
  if (ly.recompute != Recompute::selective) {
    return Problem{"layout.recompute_modules",
                   fmt::format("recompute_modules {} names the sub-blocks selective recompute "
                               "re-runs, but recompute is {}",
                               names, to_string(ly.recompute)),
                   "set recompute: selective, or leave recompute_modules out"};
  }
  if (framework_traits(w.framework).selective == SelectiveRecompute::op_level_sac) {
    return Problem{"layout.recompute_modules",
                   fmt::format("{}'s selective recompute is op-level activation checkpointing, "
                               "not Megatron-Core's --recompute-modules",
                               framework_traits(w.framework).display),
                   "leave recompute_modules out"};
  }
  if (framework_traits(w.framework).deepspeed_engine) {
    // Megatron-DeepSpeed forked Megatron-LM before --recompute-modules.
    return Problem{"layout.recompute_modules",
                   "Megatron-DeepSpeed has no --recompute-modules: its selective recompute is "
                   "the attention core only",
                   "leave recompute_modules out, or use framework megatron or nemo"};
  }
  const ModelShape& m = w.model;
  if ((mods & module_bit(RecomputeModule::mla_up_proj)) != 0 && !m.is_mla()) {
    return Problem{
        "layout.recompute_modules",
        fmt::format("mla_up_proj needs multi-latent attention; model '{}' has none", m.id),
        "leave mla_up_proj out"};
  }
  const RecomputeModules moe_only = module_bit(RecomputeModule::moe_act) |
                                    module_bit(RecomputeModule::moe) |
                                    module_bit(RecomputeModule::shared_experts);
  if ((mods & moe_only) != 0 && !m.is_moe()) {
    return Problem{"layout.recompute_modules",
                   fmt::format("{} needs a mixture-of-experts model; model '{}' has no experts",
                               recompute_modules_string(mods & moe_only, '+'), m.id),
                   "leave moe_act, moe and shared_experts out"};
  }
  const RecomputeModules output_discarding =
      module_bit(RecomputeModule::moe_act) | module_bit(RecomputeModule::layernorm);
  if ((mods & output_discarding) != 0 && te_fp8(w)) {
    // The launch files write --fp8-recipe delayed (report/launch.cpp).
    return Problem{"layout.recompute_modules",
                   fmt::format("Megatron-Core refuses {} recompute under delayed-scaling FP8 "
                               "(transformer_config.py), the FP8 recipe the launch files write",
                               recompute_modules_string(mods & output_discarding, '+')),
                   "leave moe_act and layernorm out with precision: fp8, or train in bf16"};
  }
  if ((mods & module_bit(RecomputeModule::shared_experts)) != 0 && m.moe.shared_experts == 0) {
    return Problem{"layout.recompute_modules",
                   fmt::format("shared_experts: model '{}' has no shared experts", m.id),
                   "leave shared_experts out"};
  }
  return std::nullopt;
}

}  // namespace

RecomputeModules cheap_recompute_modules(const Workload& w) {
  RecomputeModules mods = kDefaultRecomputeModules;
  if (framework_traits(w.framework).selective == SelectiveRecompute::op_level_sac ||
      framework_traits(w.framework).deepspeed_engine) {
    return mods;
  }
  const ModelShape& m = w.model;
  const bool fp8 = te_fp8(w);
  if (m.is_mla()) mods |= module_bit(RecomputeModule::mla_up_proj);
  if (!fp8 && (m.is_mla() || m.is_moe())) mods |= module_bit(RecomputeModule::layernorm);
  if (!fp8 && m.is_moe()) mods |= module_bit(RecomputeModule::moe_act);
  return mods;
}

namespace {

// Megatron-Core's rules for uneven first/last stages (transformer_config.py,
// "Uneven PP"; transformer_block.py get_num_layers_to_build): each given size
// is a multiple of the chunks, and the ranks left split the layers left
// evenly, a multiple of the chunks each. `chunks` 0: interleave not known yet.
enum class SplitRule : std::uint8_t { ok, needs_pp, first_chunks, last_chunks, leftover, middle };

SplitRule stage_split_rule(const ModelShape& m, const Layout& ly, bool pp_known, int chunks) {
  const int first = ly.first_stage_layers, last = ly.last_stage_layers;
  if (first <= 0 && last <= 0) return SplitRule::ok;
  if (!pp_known) {
    return static_cast<long long>(first) + last > m.layers ? SplitRule::leftover : SplitRule::ok;
  }
  if (ly.pp <= 1) return SplitRule::needs_pp;
  if (chunks > 1 && first % chunks != 0) return SplitRule::first_chunks;
  if (chunks > 1 && last % chunks != 0) return SplitRule::last_chunks;
  const int ranks_left = ly.pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  const long long rest = static_cast<long long>(m.layers) - first - last;
  if (rest < 0 || (ranks_left == 0) != (rest == 0) || (ranks_left > 0 && rest < ranks_left)) {
    return SplitRule::leftover;
  }
  if (ranks_left > 0 && rest % ranks_left != 0) return SplitRule::middle;
  if (ranks_left > 0 && chunks > 1 && (rest / ranks_left) % chunks != 0) return SplitRule::middle;
  return SplitRule::ok;
}

Problem stage_split(const ModelShape& m, const Layout& ly, SplitRule rule, int chunks) {
  const int first = ly.first_stage_layers, last = ly.last_stage_layers;
  const char* key = first > 0 ? "layout.first_stage_layers" : "layout.last_stage_layers";
  const int ranks_left = ly.pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  const long long rest = static_cast<long long>(m.layers) - first - last;
  switch (rule) {
    case SplitRule::needs_pp:
      return {key, "first_stage_layers and last_stage_layers size pipeline stages, but pp is 1",
              "set layout.pp > 1, or leave first_stage_layers and last_stage_layers out"};
    case SplitRule::first_chunks:
    case SplitRule::last_chunks: {
      const bool is_first = rule == SplitRule::first_chunks;
      return {is_first ? "layout.first_stage_layers" : "layout.last_stage_layers",
              fmt::format("{} {} is not a multiple of interleave {}: every model chunk of a "
                          "stage holds the same number of layers (Megatron-LM)",
                          is_first ? "first_stage_layers" : "last_stage_layers",
                          is_first ? first : last, chunks),
              fmt::format("use a multiple of {}", chunks)};
    }
    case SplitRule::leftover:
      return {key,
              rest < 0
                  ? fmt::format("first_stage_layers {} + last_stage_layers {} exceed the model's "
                                "{} layers",
                                first, last, m.layers)
                  : fmt::format("first_stage_layers {} + last_stage_layers {} leave {} of the "
                                "model's {} layers for the {} other stage(s) of pp {}",
                                first, last, rest, m.layers, ranks_left, ly.pp),
              "leave every other stage at least one layer (with pp 2, give sizes that add up to "
              "the layer count)"};
    case SplitRule::middle:
      return {key,
              fmt::format("the {} layers left after first_stage_layers {} and last_stage_layers "
                          "{} do not split evenly over the {} other stage(s){}",
                          rest, first, last, ranks_left,
                          chunks > 1 ? fmt::format(" in multiples of interleave {}", chunks) : ""),
              fmt::format("choose sizes that leave a multiple of {} layers: Megatron-LM splits "
                          "the rest evenly",
                          ranks_left * std::max(1, chunks))};
    case SplitRule::ok:
      break;
  }
  return {key, "internal: no problem", ""};
}

// A pipeline layout (Layout::chunk_layers, validation CSV `pipeline_layout`):
// pp > 1, pp x interleave stages, the model's layers and trained MTP depths,
// the 1F1B schedule, and no other stage sizing (Megatron-Core
// transformer_config.py refuses the layout with the uneven-PP sizes and the
// account-for flags; pipeline_parallel_layer_layout.py validate_layer_layout).
std::optional<Problem> pipeline_layout_problem(const Workload& w) {
  const Layout& ly = w.layout;
  if (ly.chunk_layers.empty()) return std::nullopt;
  const char* key = "layout.pipeline_layout";
  if (ly.pp <= 1) {
    return Problem{key, "a pipeline layout places layers on pipeline stages, but pp is 1",
                   "set pp > 1, or leave pipeline_layout out"};
  }
  if (!counts_embedding_in_split(w.framework)) {
    return Problem{key,
                   fmt::format("a pipeline layout is Megatron-Core's (megatron, nemo, other), "
                               "not {}'s",
                               to_string(w.framework)),
                   "leave pipeline_layout out"};
  }
  if (ly.first_stage_layers > 0 || ly.last_stage_layers > 0 || split_places(ly) > 0) {
    return Problem{key,
                   "a pipeline layout cannot be given with first_stage_layers, "
                   "last_stage_layers, embedding_in_split or loss_in_split (Megatron-Core "
                   "refuses them together)",
                   "give the layout alone"};
  }
  const size_t stages = static_cast<size_t>(ly.pp) * static_cast<size_t>(pipeline_chunks(ly));
  if (ly.chunk_layers.size() != stages) {
    return Problem{key,
                   fmt::format("the layout has {} stages, but pp {} x interleave {} is {}",
                               ly.chunk_layers.size(), ly.pp, pipeline_chunks(ly), stages),
                   "give pp x interleave stages separated by '|'"};
  }
  long long layers = 0;
  for (const int n : ly.chunk_layers) layers += n;
  if (layers != w.model.layers) {
    return Problem{key,
                   fmt::format("the layout places {} transformer layers t, the model has {}",
                               layers, w.model.layers),
                   "place every layer of the model once"};
  }
  if (ly.layout_mtp_layers != trained_mtp_layers(w)) {
    return Problem{key,
                   fmt::format("the layout places {} MTP depths m, the run trains {}",
                               ly.layout_mtp_layers, trained_mtp_layers(w)),
                   "place each trained MTP depth once, in the last stage before L"};
  }
  if (ly.schedule != PipeSchedule::one_f_one_b) {
    return Problem{key, "a pipeline layout is Megatron-Core's, for its 1F1B schedules",
                   "leave pipeline_schedule empty (1f1b) with a layout"};
  }
  return std::nullopt;
}

// Hybrid sharding (layout shard_group): a framework that has it, dense
// layers, ZeRO >= 1, and a group that divides dp. `dp_known` and
// `zero_known`: whether dp and zero are set (a fixed layout may leave them
// to the planner). Found once (no text on the planner's hot path).
enum class ShardGroupRule { ok, framework, moe, no_zero, divides };

ShardGroupRule shard_group_rule(const Workload& w, bool dp_known, bool zero_known) {
  const Layout& ly = w.layout;
  if (ly.shard_group <= 0) return ShardGroupRule::ok;
  const int lowest = framework_traits(w.framework).hybrid_shard_zero;
  if (lowest == 0) return ShardGroupRule::framework;
  if (w.model.is_moe()) return ShardGroupRule::moe;
  if (zero_known && ly.zero < lowest) return ShardGroupRule::no_zero;
  if (dp_known && ly.dp % ly.shard_group != 0) return ShardGroupRule::divides;
  return ShardGroupRule::ok;
}

Problem shard_group_problem(const Workload& w, ShardGroupRule rule) {
  const Layout& ly = w.layout;
  switch (rule) {
    case ShardGroupRule::framework:
      return {"layout.shard_group",
              fmt::format("{} has no hybrid sharding (shard_group {})",
                          framework_traits(w.framework).display, ly.shard_group),
              "leave shard_group out, or use a framework with it: deepspeed (MiCS), fsdp, "
              "torchtitan, mosaic, automodel, hf, litgpt, automodel-torch or other"};
    case ShardGroupRule::moe:
      return {"layout.shard_group",
              "shard_group with a mixture-of-experts model is not modelled (expert state "
              "shards over the expert data-parallel ranks)",
              "leave shard_group out for MoE models"};
    case ShardGroupRule::no_zero: {
      const int lowest = framework_traits(w.framework).hybrid_shard_zero;
      return {"layout.shard_group",
              fmt::format("{} shards within a shard_group ({}) only at ZeRO stage {} and up, but "
                          "zero is {}",
                          framework_traits(w.framework).display, ly.shard_group, lowest, ly.zero),
              lowest >= 3 ? std::string("set zero: 3 (DeepSpeed MiCS), or leave shard_group out")
                          : fmt::format("set zero: {} to 3, or leave shard_group out", lowest)};
    }
    default:
      return {"layout.shard_group",
              fmt::format("shard_group {} does not divide dp {}", ly.shard_group, ly.dp),
              "use a shard_group that divides the data-parallel degree (e.g. the data-parallel "
              "ranks of one or more nodes), or leave it out to shard over all of dp"};
  }
}

Problem qlora_fp8() {
  return {"precision", "QLoRA computes in 16-bit; fp8 is not supported with it", "use bf16"};
}

}  // namespace

// Frameworks whose pipeline split can count the embedding and the loss as
// layers: Megatron-Core (megatron, nemo) and in-house engines (other; Llama
// 3's, arXiv:2407.21783 section 3.3.2).
bool counts_embedding_in_split(Framework f) {
  return f == Framework::megatron || f == Framework::nemo || f == Framework::other;
}

bool uneven_virtual_stages(const ModelShape& m, const Layout& ly, Framework f) {
  const int v = pipeline_chunks(ly);
  if (v <= 1 || !framework_traits(f).even_virtual_stages || !ly.chunk_layers.empty() ||
      ly.first_stage_layers > 0 || ly.last_stage_layers > 0 || split_places(ly) > 0) {
    return false;
  }
  return m.layers % (static_cast<long long>(ly.pp) * v) != 0;
}

namespace {

// Chunk places the embedding and the loss may take in the split: the fixed
// flags, or both where the planner may still set them (the framework has
// them and the file fixes neither).
template <typename IsFixed>
int possible_split_places(const Workload& w, IsFixed&& is_fixed) {
  if (is_fixed(LayoutKey::embedding_in_split) || is_fixed(LayoutKey::loss_in_split)) {
    return split_places(w.layout);
  }
  return counts_embedding_in_split(w.framework) ? 2 : 0;
}

}  // namespace

std::vector<Problem> check_fixed_layout(const Workload& w, const FixedLayoutKeys& fixed) {
  std::vector<Problem> out;
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  auto is_fixed = [&fixed](LayoutKey k) { return fixed.keys.has(k); };
  if (is_fixed(LayoutKey::tp) && m.heads % ly.tp != 0) out.push_back(tp_heads(m, ly.tp));
  if (is_fixed(LayoutKey::tp) && m.kv_heads % ly.tp != 0 && ly.tp % m.kv_heads != 0) {
    out.push_back(tp_kv_heads(m, ly.tp));
  }
  if (is_fixed(LayoutKey::pp) && ly.pp > m.layers) out.push_back(pp_layers(m, ly.pp));
  if (is_fixed(LayoutKey::interleave) && ly.interleave > 1) {
    if (is_fixed(LayoutKey::pp) && ly.pp == 1) {
      out.push_back(interleave_without_pp());
    } else if (!framework_traits(w.framework).interleaved_pp) {
      out.push_back(interleave_unsupported(w.framework));
    } else if (is_fixed(LayoutKey::pp) && m.layers + possible_split_places(w, is_fixed) <
                                              static_cast<long long>(ly.pp) * ly.interleave) {
      out.push_back(interleave_chunks(m, ly.pp, ly.interleave));
    } else if (!is_fixed(LayoutKey::pp) && m.layers < 2LL * ly.interleave) {
      // The fewest stages an interleaved pipeline has is 2.
      out.push_back({"layout.interleave",
                     fmt::format("{} layers are fewer than the 2 x interleave {} pipeline chunks "
                                 "of the smallest interleaved pipeline (pp 2)",
                                 m.layers, ly.interleave),
                     "lower interleave so that every chunk holds at least one layer"});
    }
  }
  if (is_fixed(LayoutKey::cp) && ly.cp > 1 && w.seq_len % (2LL * ly.cp) != 0) {
    out.push_back(cp_seq_len(w.seq_len, ly.cp));
  }
  // A pipeline layout comes with pp, interleave and the schedule fixed (the
  // workload reader), so all of it is checked.
  if (is_fixed(LayoutKey::pipeline_layout)) {
    if (std::optional<Problem> bad = pipeline_layout_problem(w)) out.push_back(*std::move(bad));
  }
  // An etp the file leaves open can be 1, the value that folds most easily.
  Layout folded = ly;
  if (!is_fixed(LayoutKey::etp)) folded.etp = 1;
  if (is_fixed(LayoutKey::ep) && ly.ep > 1) {
    if (!m.is_moe()) {
      out.push_back(ep_dense());
    } else if (m.moe.experts % ly.ep != 0) {
      out.push_back(ep_experts(m, ly.ep));
    } else if (is_fixed(LayoutKey::dp) && is_fixed(LayoutKey::cp) && is_fixed(LayoutKey::tp) &&
               !folds(folded)) {
      out.push_back(ep_fold(folded));
    }
  }
  if (is_fixed(LayoutKey::etp) && ly.etp > 1) {
    if (!m.is_moe()) {
      out.push_back(etp_dense());
    } else if (ly.ep == 1 && is_fixed(LayoutKey::dp) && is_fixed(LayoutKey::cp) &&
               is_fixed(LayoutKey::tp) && !folds(ly)) {
      out.push_back(ep_fold(ly));
    }
  }
  // With dp fixed, a micro-batch not fixed can still be 1 (the default in `w`).
  if (is_fixed(LayoutKey::dp) && fixed.one_global_batch && w.global_batch > 0 &&
      w.global_batch % (static_cast<long long>(ly.micro_batch) * ly.dp) != 0) {
    out.push_back(batch_split(w));
  }
  if (fixed.cluster_gpus > 0) {
    // tp x pp x dp x cp is the cluster size, so the fixed degrees must divide it.
    long long product = 1;
    std::string parts;
    const std::pair<const char*, int> dims[] = {{"tp", is_fixed(LayoutKey::tp) ? ly.tp : 0},
                                                {"pp", is_fixed(LayoutKey::pp) ? ly.pp : 0},
                                                {"dp", is_fixed(LayoutKey::dp) ? ly.dp : 0},
                                                {"cp", is_fixed(LayoutKey::cp) ? ly.cp : 0}};
    int given = 0;
    for (const auto& [name, degree] : dims) {
      if (degree == 0) continue;
      product *= degree;
      parts += fmt::format("{}{} {}", given++ == 0 ? "" : " x ", name, degree);
    }
    if (given == 4 && product != fixed.cluster_gpus) {
      out.push_back(
          {"layout",
           fmt::format("{} = {} GPUs, but the cluster has {}", parts, product, fixed.cluster_gpus),
           "make the parallel sizes multiply to nodes x GPUs per node, or leave dp out "
           "to derive it"});
    } else if (given > 0 && fixed.cluster_gpus % product != 0) {
      out.push_back({"layout",
                     fmt::format("{} = {} does not divide the cluster's {} GPUs", parts, product,
                                 fixed.cluster_gpus),
                     "tp x pp x dp x cp is the cluster size: choose degrees that divide nodes x "
                     "GPUs per node, or leave cluster.nodes out to search it"});
    }
  }
  if (is_fixed(LayoutKey::recompute_layers) && ly.recompute_layers > 0 &&
      is_fixed(LayoutKey::recompute) && ly.recompute != Recompute::full) {
    out.push_back(recompute_layers_without_full(ly.recompute));
  }
  if (is_fixed(LayoutKey::recompute_modules) && is_fixed(LayoutKey::recompute)) {
    if (const std::optional<Problem> bad = recompute_modules_problem(w)) out.push_back(*bad);
  }
  if (is_fixed(LayoutKey::first_stage_layers) || is_fixed(LayoutKey::last_stage_layers)) {
    Layout split = ly;
    if (!is_fixed(LayoutKey::first_stage_layers)) split.first_stage_layers = 0;
    if (!is_fixed(LayoutKey::last_stage_layers)) split.last_stage_layers = 0;
    const int chunks = is_fixed(LayoutKey::interleave) ? pipeline_chunks(split) : 0;
    const SplitRule rule = stage_split_rule(m, split, is_fixed(LayoutKey::pp), chunks);
    if (rule != SplitRule::ok) out.push_back(stage_split(m, split, rule, chunks));
  }
  if (is_fixed(LayoutKey::shard_group)) {
    const ShardGroupRule rule =
        shard_group_rule(w, is_fixed(LayoutKey::dp), is_fixed(LayoutKey::zero));
    if (rule != ShardGroupRule::ok) out.push_back(shard_group_problem(w, rule));
  }
  if (w.task == Task::finetune && w.finetune.method == FinetuneMethod::qlora &&
      w.precision == Precision::fp8) {
    out.push_back(qlora_fp8());
  }
  return out;
}

namespace {

// The rules of check_layout, once: calls `broken(make)` for each rule the
// layout breaks, `make()` building its Problem, and stops when `broken`
// returns true. layout_legal never builds a Problem (no text on the
// planner's hot path).
template <typename Broken>
void each_layout_problem(const Workload& w, long long gpus_in_cluster, Broken&& broken) {
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  if (m.heads % ly.tp != 0 && broken([&] { return tp_heads(m, ly.tp); })) return;
  if (m.kv_heads % ly.tp != 0 && ly.tp % m.kv_heads != 0 &&
      broken([&] { return tp_kv_heads(m, ly.tp); })) {
    return;
  }
  if (ly.pp > m.layers && broken([&] { return pp_layers(m, ly.pp); })) return;
  if (ly.interleave > 1) {
    if (ly.pp == 1) {
      if (broken([] { return interleave_without_pp(); })) return;
    } else if (!framework_traits(w.framework).interleaved_pp) {
      if (broken([&] { return interleave_unsupported(w.framework); })) return;
    } else if (m.layers + split_places(ly) < ly.pp * ly.interleave) {
      // Every chunk needs at least one layer, or the place of the embedding
      // or loss.
      if (broken([&] { return interleave_chunks(m, ly.pp, ly.interleave); })) return;
    } else if (uneven_virtual_stages(m, ly, w.framework)) {
      // Megatron-Core: equal chunks; elsewhere they may differ by a layer.
      if (broken([&] { return virtual_stages_uneven(m, ly, w.framework); })) return;
    }
  }
  if (const AccountedRule rule = accounted_split_rule(m, ly, w.framework);
      rule != AccountedRule::ok &&
      broken([&] { return accounted_split(m, ly, w.framework, rule); })) {
    return;
  }
  if (!ly.chunk_layers.empty()) {
    if (const std::optional<Problem> bad = pipeline_layout_problem(w);
        bad && broken([&] { return *bad; })) {
      return;
    }
  } else if (ly.first_stage_layers > 0 || ly.last_stage_layers > 0) {
    const int chunks = pipeline_chunks(ly);
    const SplitRule rule = stage_split_rule(m, ly, true, chunks);
    if (rule != SplitRule::ok && broken([&] { return stage_split(m, ly, rule, chunks); })) return;
  }
  if (ly.cp > 1 && w.seq_len % (2LL * ly.cp) != 0 &&
      broken([&] { return cp_seq_len(w.seq_len, ly.cp); })) {
    return;
  }
  if (ly.ep > 1) {
    if (!m.is_moe()) {
      if (broken([] { return ep_dense(); })) return;
    } else if (m.moe.experts % ly.ep != 0) {
      if (broken([&] { return ep_experts(m, ly.ep); })) return;
    } else if (!folds(ly)) {
      if (broken([&] { return ep_fold(ly); })) return;
    }
  }
  if (ly.etp > 1) {
    if (!m.is_moe()) {
      if (broken([] { return etp_dense(); })) return;
    } else if (ly.ep == 1 && !folds(ly)) {
      if (broken([&] { return ep_fold(ly); })) return;
    }
  }
  if (w.global_batch > 0 &&
      w.global_batch % (static_cast<long long>(ly.micro_batch) * ly.dp) != 0 &&
      broken([&] { return batch_split(w); })) {
    return;
  }
  if (gpus_in_cluster > 0 && static_cast<long long>(ly.gpus()) != gpus_in_cluster && broken([&] {
        return Problem{
            "layout",
            fmt::format("tp {} x pp {} x dp {} x cp {} = {} GPUs, but the cluster has {}", ly.tp,
                        ly.pp, ly.dp, ly.cp, ly.gpus(), gpus_in_cluster),
            "make the parallel sizes multiply to nodes x GPUs per node, or leave dp "
            "out to derive it"};
      })) {
    return;
  }
  if (ly.fp8_param_gather && ly.zero < 1 &&
      broken([&] { return check_fp8_param_gather(ly).front(); })) {
    return;
  }
  if (ly.recompute_layers > 0 && ly.recompute != Recompute::full &&
      broken([&] { return recompute_layers_without_full(ly.recompute); })) {
    return;
  }
  if (ly.recompute_modules != kDefaultRecomputeModules) {
    if (const std::optional<Problem> bad = recompute_modules_problem(w);
        bad && broken([&] { return *bad; }))
      return;
  }
  if (ly.schedule != PipeSchedule::one_f_one_b) {
    if (const std::optional<Problem> bad = schedule_problem(w); bad && broken([&] { return *bad; }))
      return;
  }
  if (ly.ep_overlap && !ep_overlap_allowed(w) && broken([&] {
        return Problem{"layout.ep_overlap",
                       ly.ep <= 1 ? std::string("ep_overlap needs expert parallelism (ep > 1)")
                       : !framework_traits(w.framework).ep_overlap
                           ? fmt::format("{} does not overlap its MoE all-to-all with compute",
                                         framework_traits(w.framework).display)
                           : fmt::format("Megatron-Core overlaps the all-to-all only with "
                                         "pp 1 or an interleaved pipeline (pp {}, "
                                         "interleave {})",
                                         ly.pp, ly.interleave),
                       "set interleave > 1, or leave ep_overlap out"};
      })) {
    return;
  }
  if (const ShardGroupRule rule = shard_group_rule(w, true, true);
      rule != ShardGroupRule::ok && broken([&] { return shard_group_problem(w, rule); })) {
    return;
  }
  if (w.task == Task::finetune && w.finetune.method == FinetuneMethod::qlora &&
      w.precision == Precision::fp8) {
    broken([] { return qlora_fp8(); });
  }
}

}  // namespace

std::vector<Problem> check_layout(const Workload& w, long long gpus_in_cluster) {
  std::vector<Problem> out;
  each_layout_problem(w, gpus_in_cluster, [&out](auto&& make) {
    out.push_back(make());
    return false;
  });
  return out;
}

bool layout_legal(const Workload& w, long long gpus_in_cluster) {
  bool legal = true;
  each_layout_problem(w, gpus_in_cluster, [&legal](auto&&) {
    legal = false;
    return true;
  });
  return legal;
}

std::vector<Problem> check_fp8_param_gather(const Layout& ly) {
  if (!ly.fp8_param_gather || ly.zero >= 1) return {};
  return {{"layout.fp8_param_gather",
           "fp8_param_gather needs the distributed optimizer (zero >= 1)",
           "set zero: 1; Megatron-LM refuses --fp8-param-gather without "
           "--use-distributed-optimizer"}};
}

bool schedule_allowed(Framework f, PipeSchedule s) {
  return (framework_traits(f).pipeline_schedules & schedule_bit(static_cast<int>(s))) != 0;
}

std::optional<Problem> schedule_problem(const Workload& w) {
  const Layout& ly = w.layout;
  const PipeSchedule s = ly.schedule;
  if (s == PipeSchedule::one_f_one_b) return std::nullopt;
  const char* name = to_string(s);
  constexpr const char* kAccepted = "1f1b, zb1p, dualpipe or dualpipev";
  if (!schedule_allowed(w.framework, s)) {
    std::string who;
    for (const FrameworkTraits& t : kFrameworkTable) {
      if (t.pipeline_schedules & schedule_bit(static_cast<int>(s)))
        who += (who.empty() ? "" : ", ") + std::string(t.name);
    }
    return Problem{"layout.pipeline_schedule",
                   fmt::format("{} does not ship the {} pipeline schedule",
                               framework_traits(w.framework).display, name),
                   fmt::format("use pipeline_schedule: 1f1b (interleave > 1 for the interleaved "
                               "one), or a framework that runs {}: {}",
                               name, who)};
  }
  if (ly.pp < 2) {
    return Problem{
        "layout.pipeline_schedule",
        fmt::format("pipeline_schedule {} needs a pipeline (pp > 1), got pp {}", name, ly.pp),
        fmt::format("set pp > 1, or leave pipeline_schedule out (accepted: {})", kAccepted)};
  }
  if (ly.interleave > 1) {
    return Problem{"layout.pipeline_schedule",
                   fmt::format("pipeline_schedule {} places its own model chunks; it does not "
                               "take interleave {}",
                               name, ly.interleave),
                   "leave interleave out (or 1), or use pipeline_schedule: 1f1b"};
  }
  if (s == PipeSchedule::dualpipe && ly.pp % 2 != 0) {
    return Problem{"layout.pipeline_schedule",
                   fmt::format("dualpipe pairs rank r with rank pp-1-r and needs an even pp, got "
                               "pp {}",
                               ly.pp),
                   "set an even pp, or use pipeline_schedule: dualpipev"};
  }
  if ((s == PipeSchedule::dualpipe || s == PipeSchedule::dualpipev) && w.global_batch > 0) {
    const long long per_replica = static_cast<long long>(ly.micro_batch) * ly.dp;
    const long long m = w.global_batch / std::max(1LL, per_replica);
    if (m < 2LL * ly.pp) {
      return Problem{"layout.pipeline_schedule",
                     fmt::format("{} runs at least 2 x pp = {} micro-batches per step "
                                 "(deepseek-ai/DualPipe), got {} (global_batch {} / "
                                 "(micro_batch {} x dp {}))",
                                 name, 2 * ly.pp, m, w.global_batch, ly.micro_batch, ly.dp),
                     "raise global_batch, or lower micro_batch or dp"};
    }
  }
  return std::nullopt;
}

// Megatron-Core --overlap-moe-expert-parallel-comm: EP > 1, and with a
// pipeline only an interleaved one (arguments.py checks).
bool ep_overlap_allowed(const Workload& w) {
  const Layout& ly = w.layout;
  const FrameworkTraits& t = framework_traits(w.framework);
  if (!w.model.is_moe() || ly.ep <= 1 || !t.ep_overlap) return false;
  return !t.megatron_family || ly.pp == 1 || ly.interleave > 1;
}

std::optional<TokenDropRule> broken_token_drop_rule(std::optional<double> capacity_factor,
                                                    std::optional<bool> pad_to_capacity,
                                                    std::optional<Framework> framework,
                                                    MoeDispatcher dispatcher) {
  const bool drops = capacity_factor.has_value();
  if (drops && *capacity_factor < 1.0) return TokenDropRule::factor_below_one;
  if (pad_to_capacity.has_value() && !drops) return TokenDropRule::pad_without_factor;
  // Modelled as Megatron-Core's token_dispatcher.py (core_v0.15.0).
  if (drops && !(framework && takes_token_drop(*framework))) {
    return TokenDropRule::not_megatron_core;
  }
  // transformer_config.py at core_v0.15.0: "Flex token dispatcher does not
  // support moe_pad_expert_input_to_capacity".
  if (pad_to_capacity.value_or(false) &&
      (dispatcher == MoeDispatcher::deepep || dispatcher == MoeDispatcher::hybridep)) {
    return TokenDropRule::flex_dispatcher_pad;
  }
  return std::nullopt;
}

Problem token_drop_problem(TokenDropRule rule, const TokenDropKeys& keys,
                           std::optional<double> capacity_factor, MoeDispatcher dispatcher,
                           std::optional<Framework> framework) {
  switch (rule) {
    case TokenDropRule::factor_below_one:
      return {keys.factor_key,
              fmt::format("capacity factor {} is below 1: every expert would drop tokens even "
                          "under balanced routing",
                          capacity_factor.value_or(0)),
              fmt::format("give a factor of at least 1 (1 is Megatron-Bridge's token-drop "
                          "recipe), or remove {} for dropless training",
                          keys.factor_key)};
    case TokenDropRule::pad_without_factor:
      return {keys.pad_key, fmt::format("{} needs a {}", keys.pad_key, keys.factor_key),
              fmt::format("set {} (e.g. 1), or remove {} (Megatron-Core refuses "
                          "--moe-pad-expert-input-to-capacity without "
                          "--moe-expert-capacity-factor)",
                          keys.factor_key, keys.pad_key)};
    case TokenDropRule::not_megatron_core:
      return {keys.factor_key,
              fmt::format("token dropping is modelled for Megatron-Core only, not for {}",
                          framework ? framework_traits(*framework).display : "this framework"),
              fmt::format("set {} megatron or nemo, or remove {} (dropless)", keys.framework_key,
                          keys.factor_key)};
    case TokenDropRule::flex_dispatcher_pad:
      return {keys.pad_key,
              fmt::format("the {} dispatcher cannot pad expert inputs to capacity",
                          to_string(dispatcher)),
              fmt::format("set {} alltoall (Megatron-Core's all-to-all dispatcher pads), or "
                          "remove {}",
                          keys.dispatcher_key, keys.pad_key)};
  }
  return {};
}

std::optional<Problem> set_pipeline_layout(std::string_view text, bool interleave_given,
                                           const std::string& key, Layout& ly) {
  if (ly.pp < 2) {
    return Problem{key, "a pipeline layout needs pp of 2 or more",
                   fmt::format("give pp, or leave {} out", key)};
  }
  std::string why;
  const auto parsed = parse_pipeline_layout(text, ly.pp, why);
  if (!parsed) {
    return Problem{key, fmt::format("'{}': {}", printable(text), why),
                   "Megatron-Core's --pipeline-model-parallel-layout, e.g. Et*4|(t*4|)*14tmL: "
                   "stages split by '|', E embedding, t layer, m MTP depth, L loss, x*n and "
                   "(...)*n repeat"};
  }
  const int stages = static_cast<int>(parsed->chunk_layers.size());
  if (interleave_given && stages != ly.pp * ly.interleave) {
    return Problem{key,
                   fmt::format("{} stages, but pp {} x interleave {} is {}", stages, ly.pp,
                               ly.interleave, ly.pp * ly.interleave),
                   "give pp x interleave stages, or leave interleave out (the layout sets it)"};
  }
  ly.pipeline_layout = std::string(text);
  ly.chunk_layers = parsed->chunk_layers;
  ly.layout_mtp_layers = parsed->mtp_layers;
  ly.interleave = stages / ly.pp;
  return std::nullopt;
}

}  // namespace scaleout
