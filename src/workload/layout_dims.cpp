#include "workload/layout_dims.hpp"

#include <iterator>
#include <type_traits>

namespace scaleout {

namespace {

// The largest parallel degree a workload file may give (and tp x pp x dp x cp).
constexpr long long kMaxDegree = 1000000;

// Names of Recompute, by value.
constexpr const char* kRecomputeNames[] = {"none", "selective", "full"};
// Names of PipeSchedule, by value.
constexpr const char* kScheduleNames[] = {"1f1b", "zb1p", "dualpipe", "dualpipev"};
static_assert(std::size(kScheduleNames) == kPipeSchedules);
// Names of the offload levels, by value (a workload's true/false read as
// optimizer/none).
constexpr const char* kOffloadNames[] = {"none", "optimizer", "all"};
int get_offload(const Layout& l) { return l.offload_params ? 2 : l.offload_optimizer ? 1 : 0; }
void set_offload(Layout& l, int v) {
  l.offload_optimizer = v >= 1;
  l.offload_params = v == 2;
}

// Accessors of one Layout member as the table's integer (bool 0/1, enum value).
template <auto M>
int get(const Layout& l) {
  return static_cast<int>(l.*M);
}
template <auto M>
void set(Layout& l, int v) {
  using T = std::remove_reference_t<decltype(l.*M)>;
  if constexpr (std::is_same_v<T, bool>) {
    l.*M = v != 0;
  } else {
    l.*M = static_cast<T>(v);
  }
}

using K = LayoutKey;
using S = DimSearch;
constexpr DimKind kInt = DimKind::integer, kFlag = DimKind::flag, kChoice = DimKind::choice;

// clang-format off
const std::array<LayoutDim, kLayoutKeys> kDims = {{
  // key, name, kind, min, max, choices, search, serving, CSV column, get, set, doc
  {K::tp, "tp", kInt, 1, kMaxDegree, {}, S::options, true, true,
   get<&Layout::tp>, set<&Layout::tp>, "tensor-parallel degree"},
  {K::pp, "pp", kInt, 1, kMaxDegree, {}, S::options, true, true,
   get<&Layout::pp>, set<&Layout::pp>, "pipeline-parallel degree (stages)"},
  {K::dp, "dp", kInt, 1, kMaxDegree, {}, S::derived, true, true,
   get<&Layout::dp>, set<&Layout::dp>, "data-parallel degree; plan: the cluster's GPUs / (tp x pp x cp)"},
  {K::cp, "cp", kInt, 1, kMaxDegree, {}, S::options, false, true,
   get<&Layout::cp>, set<&Layout::cp>, "context-parallel degree"},
  {K::ep, "ep", kInt, 1, kMaxDegree, {}, S::options, true, true,
   get<&Layout::ep>, set<&Layout::ep>,
   "expert-parallel degree (MoE); ep x etp divides tp x cp x dp (MoE parallel folding)"},
  {K::etp, "etp", kInt, 1, kMaxDegree, {}, S::options, false, true,
   get<&Layout::etp>, set<&Layout::etp>,
   "expert tensor-parallel degree (MoE); default: tp (Megatron-Core)"},
  {K::sp, "sp", kFlag, 0, 1, {}, S::derived, false, true,
   get<&Layout::sp>, set<&Layout::sp>, "Megatron sequence parallelism; default: on when tp > 1"},
  {K::micro_batch, "micro_batch", kInt, 1, 1000000, {}, S::options, false, true,
   get<&Layout::micro_batch>, set<&Layout::micro_batch>, "sequences per micro-batch"},
  {K::interleave, "interleave", kInt, 1, kMaxDegree, {}, S::options, false, true,
   get<&Layout::interleave>, set<&Layout::interleave>, "virtual pipeline stages per rank"},
  {K::zero, "zero", kInt, 0, 3, {}, S::saving, false, true,
   get<&Layout::zero>, set<&Layout::zero>, "ZeRO stage: 1 optimizer, 2 + gradients, 3 + weights"},
  {K::recompute, "recompute", kChoice, 0, 2, kRecomputeNames, S::saving, false, true,
   get<&Layout::recompute>, set<&Layout::recompute>, "activation recomputation: none, selective or full"},
  {K::flash_attention, "flash_attention", kFlag, 0, 1, {}, S::none, false, false,
   get<&Layout::flash_attention>, set<&Layout::flash_attention>, "fused attention kernel; default on"},
  {K::offload, "offload", kChoice, 0, 2, kOffloadNames, S::saving, false, true,
   get_offload, set_offload,
   "host memory: none, optimizer (state and master weights) or all (+ parameters and gradients); "
   "true/false mean optimizer/none"},
  {K::fp8_param_gather, "fp8_param_gather", kFlag, 0, 1, {}, S::derived, false, false,
   get<&Layout::fp8_param_gather>, set<&Layout::fp8_param_gather>,
   "Megatron-LM --fp8-param-gather; plan: on with FP8 and ZeRO >= 1 unless fixed"},
  {K::ep_overlap, "ep_overlap", kFlag, 0, 1, {}, S::derived, false, true,
   get<&Layout::ep_overlap>, set<&Layout::ep_overlap>,
   "MoE all-to-all overlapped with another micro-batch's compute (Megatron-Core "
   "--overlap-moe-expert-parallel-comm, DualPipe); megatron/nemo need pp 1 or interleave > 1"},
  {K::order, "order", DimKind::order, 0, 0, {}, S::none, false, false,
   nullptr, nullptr, "rank order, innermost first, e.g. tp-cp-dp-pp"},
  {K::activation_offload, "activation_offload", kFlag, 0, 1, {}, S::none, false, true,
   get<&Layout::activation_offload>, set<&Layout::activation_offload>,
   "saved activations in host memory, copied over the host link (torchtune)"},
  {K::recompute_layers, "recompute_layers", kInt, 0, kMaxDegree, {}, S::saving, false, true,
   get<&Layout::recompute_layers>, set<&Layout::recompute_layers>,
   "with recompute: full, the layers of each model chunk recomputed (Megatron-LM "
   "--recompute-method block --recompute-num-layers); 0 or absent: all; plan: searched"},
  {K::first_stage_layers, "first_stage_layers", kInt, 0, kMaxDegree, {}, S::derived, false, true,
   get<&Layout::first_stage_layers>, set<&Layout::first_stage_layers>,
   "layers on the first pipeline stage (Megatron-LM --decoder-first-pipeline-num-layers); "
   "0 or absent: with the others; plan: even or balanced"},
  {K::last_stage_layers, "last_stage_layers", kInt, 0, kMaxDegree, {}, S::derived, false, true,
   get<&Layout::last_stage_layers>, set<&Layout::last_stage_layers>,
   "layers on the last pipeline stage (Megatron-LM --decoder-last-pipeline-num-layers); "
   "0 or absent: with the others; plan: even or balanced"},
  {K::pipeline_schedule, "pipeline_schedule", kChoice, 0, kPipeSchedules - 1, kScheduleNames, S::options, false, true,
   get<&Layout::schedule>, set<&Layout::schedule>,
   "pipeline schedule with pp > 1: 1f1b (interleaved with interleave > 1), zb1p, dualpipe or "
   "dualpipev, where the framework has it; plan: searched among the framework's"},
  {K::dp_overlap, "dp_overlap", kFlag, 0, 1, {}, S::none, false, true,
   get<&Layout::dp_overlap>, set<&Layout::dp_overlap>,
   "data-parallel gradient reduction behind the backward pass where the framework overlaps it "
   "(Megatron-LM --overlap-grad-reduce, DDP/FSDP hooks); default on; false: after the backward"},
  {K::embedding_in_split, "embedding_in_split", kFlag, 0, 1, {}, S::none, false, true,
   get<&Layout::embedding_in_split>, set<&Layout::embedding_in_split>,
   "the embedding takes one layer's place in the pipeline split (Megatron-Core "
   "--account-for-embedding-in-pipeline-split); megatron/nemo, pp > 1"},
  {K::loss_in_split, "loss_in_split", kFlag, 0, 1, {}, S::none, false, true,
   get<&Layout::loss_in_split>, set<&Layout::loss_in_split>,
   "the output layer and loss take one layer's place in the pipeline split (Megatron-Core "
   "--account-for-loss-in-pipeline-split); megatron/nemo, pp > 1"},
  {K::recompute_modules, "recompute_modules", DimKind::set, 0, (1 << kRecomputeModules) - 1,
   kRecomputeModuleNames, S::none, false, true,
   get<&Layout::recompute_modules>, set<&Layout::recompute_modules>,
   "with recompute: selective, the sub-blocks recomputed (Megatron-Core --recompute-modules): "
   "core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts; default core_attn"},
  {K::shard_group, "shard_group", kInt, 0, kMaxDegree, {}, S::none, false, true,
   get<&Layout::shard_group>, set<&Layout::shard_group>,
   "hybrid sharding: the data-parallel ranks of one ZeRO shard group (FSDP HYBRID_SHARD / HSDP, "
   "DeepSpeed MiCS, SageMaker SMP), replicated over dp / shard_group; divides dp, needs zero >= 1; "
   "0 or absent: all of dp"},
  {K::pipeline_layout, "pipeline_layout", DimKind::text, 0, 0, {}, S::none, false, true,
   nullptr, nullptr,
   "Megatron-Core --pipeline-model-parallel-layout, e.g. Et*4|(t*4|)*14tmL: the layers of every "
   "pipeline stage; needs pp, sets interleave (stages / pp) and 1f1b; plan keeps it"},
}};
// clang-format on

}  // namespace

const std::array<LayoutDim, kLayoutKeys>& layout_dims() { return kDims; }

// The rows are in LayoutKey order (tests/unit/layout_dims_test.cpp checks it).
const LayoutDim& layout_dim(LayoutKey k) { return kDims[static_cast<std::size_t>(k)]; }

const LayoutDim* find_layout_dim(std::string_view name) {
  for (const LayoutDim& d : kDims) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

}  // namespace scaleout
