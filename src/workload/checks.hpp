// Consistency checks of a workload's layout against its model and cluster:
// the divisibility rules of Megatron-LM / PyTorch that make a layout legal.
// Pure: returns problems with the key they concern; the reader adds lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workload/layout_dims.hpp"
#include "workload/workload.hpp"

namespace scaleout {

struct Problem {
  std::string key;      // dotted key path, e.g. "layout.tp"
  std::string message;  // what is wrong
  std::string hint;     // how to fix it
};

// Problems of the layout alone and against the model. `gpus_in_cluster` is
// nodes * GPUs per node, or 0 when no cluster is given.
std::vector<Problem> check_layout(const Workload& w, long long gpus_in_cluster);
// Whether check_layout finds no problem, without building any message (the
// planner's test of every candidate layout; no allocation).
bool layout_legal(const Workload& w, long long gpus_in_cluster);

// Which layout values a workload file fixes; `plan` searches the others.
struct FixedLayoutKeys {
  LayoutKeySet keys;  // rows of the layout-dimension table the file gives
  // nodes x GPUs per node when the file fixes the server and the node count
  // (cluster.server and cluster.nodes), else 0 (plan searches node counts).
  long long cluster_gpus = 0;
  // global_batch is one number (a list is searched, each value on its own).
  bool one_global_batch = true;
};

// The problems of check_layout that no choice of the searched values can
// mend, because every value the rule reads is fixed: tp against the heads, pp
// against the layers, cp against seq_len, ep against the experts, interleave
// against the layers (with pp searched: at least 2 stages), the fixed
// degrees against a fixed cluster size, global_batch against a fixed dp, and
// QLoRA with fp8. `w` holds the fixed values (the others at their defaults).
std::vector<Problem> check_fixed_layout(const Workload& w, const FixedLayoutKeys& fixed);

// The output-discarding modules of selective recompute the workload's
// model has, with core_attn (Megatron-Core --recompute-modules): layernorm
// and mla_up_proj with MLA, layernorm and moe_act with experts; moe_act and
// layernorm left out under Transformer Engine FP8 (delayed scaling refuses
// them). They re-run element-wise kernels and MLA's small up-projections
// only. The default set where nothing applies (or under a framework whose
// selective recompute is op-level); `plan` tries the set between selective
// and full recompute.
RecomputeModules cheap_recompute_modules(const Workload& w);

// layout.fp8_param_gather without the distributed optimizer (zero 0), which
// Megatron-LM refuses; part of check_layout.
std::vector<Problem> check_fp8_param_gather(const Layout& ly);

// Whether the workload may overlap its MoE all-to-all with computation
// (layout `ep_overlap`): expert parallelism, and with megatron or nemo a
// pipeline of one stage or an interleaved one (Megatron-Core's rule).
bool ep_overlap_allowed(const Workload& w);
// Whether the framework's pipeline split can count the embedding and the
// loss as layers (layout embedding_in_split, loss_in_split): megatron, nemo
// (Megatron-Core's --account-for-*-in-pipeline-split) and other.
bool counts_embedding_in_split(Framework f);

// Whether `ly` needs equal chunks it does not have: a framework whose
// interleaved split is even (FrameworkTraits::even_virtual_stages,
// Megatron-Core), interleave > 1, the stages not sized otherwise (no
// pipeline layout, first/last sizes, or embedding and loss places: each has
// its own rule), and L not divisible by pp x interleave.
bool uneven_virtual_stages(const ModelShape& m, const Layout& ly, Framework f);

// Whether framework `f` ships pipeline schedule `s` (FrameworkTraits::
// pipeline_schedules).
bool schedule_allowed(Framework f, PipeSchedule s);

// What is wrong with the layout's pipeline_schedule, if anything: a
// framework that lacks it, no pipeline, interleave > 1 beside a schedule that
// places its own chunks, an odd pp under dualpipe, fewer than 2 x pp
// micro-batches under dualpipe(v). Part of check_layout.
std::optional<Problem> schedule_problem(const Workload& w);

// Token dropping's rules (docs/model.md, "Token dropping"), one place for the
// workload reader and the validation CSV reader, which name the settings
// differently (moe.capacity_factor / moe_capacity_factor, ...).
enum class TokenDropRule {
  factor_below_one,     // a capacity factor under 1 drops tokens even when balanced
  pad_without_factor,   // padding to capacity with no capacity
  not_megatron_core,    // token dropping is modelled for Megatron-Core's MoE layer only
  flex_dispatcher_pad,  // DeepEP/HybridEP (the flex dispatcher) cannot pad
};
// The first rule the settings break, or none. `capacity_factor` is empty for
// a dropless run; `pad_to_capacity` empty when not stated (a stated false
// also needs a capacity: padding is a setting of a token-dropping run);
// `framework` empty when the row names none (or one
// this build does not know); `dispatcher` framework when not stated.
std::optional<TokenDropRule> broken_token_drop_rule(std::optional<double> capacity_factor,
                                                    std::optional<bool> pad_to_capacity,
                                                    std::optional<Framework> framework,
                                                    MoeDispatcher dispatcher);
// The rule's message and hint, naming the settings as the input does:
// `factor_key`, `pad_key`, `dispatcher_key`, `framework_key`.
struct TokenDropKeys {
  std::string factor_key, pad_key, dispatcher_key, framework_key;
};
Problem token_drop_problem(TokenDropRule rule, const TokenDropKeys& keys,
                           std::optional<double> capacity_factor, MoeDispatcher dispatcher,
                           std::optional<Framework> framework);

// Megatron-Core's pipeline layout string (layout / validation CSV
// `pipeline_layout`) set on `ly` for its pp: pipeline_layout, chunk_layers,
// layout_mtp_layers, and interleave, the layout's stages / pp, unless
// `interleave_given`. Or the problem (key `key`): pp below 2, a malformed
// string (parse_pipeline_layout), or stages other than pp x a given
// interleave; the layout against the model is check_layout's.
std::optional<Problem> set_pipeline_layout(std::string_view text, bool interleave_given,
                                           const std::string& key, Layout& ly);

}  // namespace scaleout
