// One description of a transformer layer's work: the operations of its
// forward pass in execution order, each with the matmul or kernel it runs,
// the parameters it owns, the tensors it stores for the backward pass and the
// collective it needs under tensor parallelism. Parameter counts
// (`model/params`), memory (`memory/memory`), training compute
// (`perf/compute`), step time (`perf/step`) and serving (`inference/serving`)
// are all derived from this list (docs/model.md, "The layer description").
//
// The list is a fixed-size array: describing a layer allocates nothing, so
// the planner's hot path can describe each candidate's layers.
#pragma once

#include <array>
#include <cstdint>
#include <new>
#include <type_traits>

#include "model/transformer.hpp"

namespace scaleout {

// What an operation runs.
enum class OpKind : std::uint8_t {
  gemm,         // a matmul [rows x k] * [k x n] per token row
  attention,    // the attention core (QK^T, softmax, AV)
  elementwise,  // a memory-bound kernel (norm, activation, residual, dropout, rotary, permute)
};

// The part of the layer an operation belongs to (what parameter counts sum).
enum class OpBlock : std::uint8_t {
  attention,       // Q, K, V, O projections, MLA latents, the attention core
  mlp,             // the dense MLP
  router,          // the MoE router
  experts,         // routed experts (every expert's weights; top_k of them per token)
  shared_experts,  // always-active experts (DeepSeek)
  adapter,         // LoRA adapters
  norm,            // layer norms
  other,           // parameter-free kernels (residual adds, dropout, rotary, permutes)
};

inline constexpr int kOpBlocks = 8;

// How a matmul's weight is split over tensor parallelism (Megatron-LM):
// column-parallel layers split their output, row-parallel layers their input
// and all-reduce (reduce-scatter with SP) their output.
enum class TpSplit : std::uint8_t { none, column, row };

// What a stored tensor is, which sets its bytes per element in the memory
// model (docs/model.md, "Activations").
enum class Stored : std::uint8_t {
  none,
  act16,       // a 16-bit activation
  gemm_input,  // the saved input of a trained linear (FP8 under Transformer Engine)
  mask,        // a 1-byte dropout mask
  fp32,        // a 32-bit value (router probabilities, log-sum-exp)
  // The MoE experts' SwiGLU (activation) input: 16-bit, or 1 byte where the
  // run caches activations in FP8 (workload fp8_activations; DeepSeek-V3
  // report §3.3.4 (2)).
  moe_act_input,
};

inline constexpr int kStoredKinds = 6;

// The sub-blocks Megatron-Core's selective recompute can re-run
// (--recompute-granularity selective --recompute-modules; Megatron-LM
// megatron/core/transformer/transformer_config.py `recompute_modules`,
// docs/model.md "Selective recompute of named sub-blocks"):
// - core_attn: the attention core (attention.py `checkpoint_core_attention`);
// - moe_act: the routed experts' activation, its output dropped after FC2
//   (moe/experts.py, CheckpointWithoutOutput);
// - layernorm: the norms that are modules of their own under Transformer
//   Engine, MLA's input norm and the MoE layers' pre-MLP norm (the others
//   are fused into the next linear, gpt_layer_specs.py), output dropped
//   (transformer_layer.py `recompute_input_layernorm`, `recompute_pre_mlp_layernorm`);
// - mla_up_proj: MLA's query and key/value up-projections and RoPE, outputs
//   dropped after the attention core (multi_latent_attention.py `recompute_up_proj`);
// - mlp: the dense MLP with its fused norm (not MoE layers; transformer_layer.py `recompute_mlp`);
// - moe: the whole MoE block, router to unpermute, dispatch and combine
//   included (moe/moe_layer.py);
// - shared_experts: the shared experts (moe/shared_experts.py).
// core_attn, mlp, moe and shared_experts checkpoint normally (the block's
// input is kept); the others discard their output only.
enum class RecomputeModule : std::uint8_t {
  core_attn,
  moe_act,
  layernorm,
  mla_up_proj,
  mlp,
  moe,
  shared_experts
};
inline constexpr int kRecomputeModules = 7;
// A set of modules, one bit per RecomputeModule.
using RecomputeModules = std::uint8_t;
constexpr RecomputeModules module_bit(RecomputeModule m) {
  return static_cast<RecomputeModules>(1U << static_cast<unsigned>(m));
}
// Megatron-Core's default --recompute-modules: core_attn.
inline constexpr RecomputeModules kDefaultRecomputeModules = module_bit(RecomputeModule::core_attn);

// A tensor an operation keeps for the backward pass, per local token.
struct StoredTensor {
  double elems = 0;  // elements per token on one GPU (after TP/SP division)
  Stored kind = Stored::none;
  // The recompute modules whose recompute frees it (it is recomputed in the
  // backward pass instead of kept).
  RecomputeModules dropped_by = 0;
};

struct LayerOp {
  OpKind kind = OpKind::gemm;
  OpBlock block = OpBlock::other;
  TpSplit split = TpSplit::none;
  // gemm: one matmul of rows x k by k x n on one GPU, `count` identical ones;
  // `rows` is token rows per local token (routed experts: top_k x capacity
  // copies shared among the local experts). `fuse` groups consecutive
  // matmuls with the same input that run as one kernel (fused QKV, fused
  // gate and up); 0 = alone.
  double rows = 1, n = 0, k = 0, count = 1;
  int fuse = 0;
  // elementwise: bytes moved per local token (16-bit values, read + write).
  double bytes_per_token = 0;
  // attention: query heads on one GPU and the Q/K and V widths per head.
  double heads = 0, qk_dim = 0, v_dim = 0;
  // Parameters the operation owns: in the whole model (per layer) and on one
  // GPU under the split (before ZeRO sharding).
  double params = 0, local_params = 0;
  // Tensors kept for the backward pass: the input (stored once per fused
  // group) and the output.
  StoredTensor input, output;
  // A frozen base weight under LoRA (no weight gradient).
  bool frozen_under_lora = true;
  // The recompute modules whose recompute runs this operation's forward
  // again in the backward pass.
  RecomputeModules rerun = 0;
  // Runs between a MoE layer's token dispatch and combine (the permutes, the
  // routed experts and their activation, the shared experts): outside the
  // per-layer CUDA graph scopes attn, moe_router and moe_preprocess, so its
  // kernels stay host-issued under `cuda_graphs: scoped` (perf/compute.cpp).
  bool after_dispatch = false;
};

// How the layer is split across GPUs.
struct LayerSplit {
  double tp = 1;       // tensor-parallel degree
  double seq_div = 1;  // divisor of the residual stream (tp with sequence parallelism, else 1)
  int ep = 1;          // expert-parallel degree
  double etp = 1;      // expert tensor-parallel degree (the routed experts' TP split)
  // Routed token copies the most loaded expert-parallel rank receives over
  // the mean (max-rank / mean-rank load, >= 1): the hot rank's expert rows,
  // stored expert tensors and received bytes (docs/model.md, "Load imbalance").
  double expert_load = 1;
  // A training step: the MoE router's score pass and the local permutes are
  // described as kernels of their own (serving's fitted constants cover them).
  bool training = false;
  // Training under Megatron-Core's TEGroupedMLP (FrameworkTraits::
  // mcore_grouped_mlp): the routed experts' activation clamp and FC2 bias
  // run as eager kernels of their own (docs/model.md, "Expert clamp and bias
  // under Megatron-Core").
  bool mcore_experts = false;
  // MLA decode absorbs the key/value up-projections into the query and
  // output (DeepSeek-V2 §2.1.2); training decompresses keys and values.
  bool absorbed_mla = false;
};

// Which linears carry LoRA adapters (workload `finetune.targets`): every
// linear (PEFT's "all-linear"), the attention projections Q, K, V and O,
// Q, K and V (Megatron-Bridge's `linear_qkv`), or Q and V (the LoRA paper's).
enum class AdapterTargets : std::uint8_t { all, attention, qkv, qv };

// LoRA adapters on the layer's linears (rank 0: none).
struct AdapterSpec {
  int rank = 0;
  AdapterTargets targets = AdapterTargets::all;
  // Dropout probability on each adapter's input (finetune.lora_dropout); 0:
  // none (PEFT then uses nn.Identity and the adapter shares the base input).
  double dropout = 0;
};

// 49 at most (Megatron-Core MoE layer, shared experts, dropout, clamp, expert
// biases, LoRA with dropout on every linear: layer_test.cpp); 53 leaves room.
inline constexpr int kMaxLayerOps = 53;
static_assert(std::is_trivially_copyable_v<LayerOp> && std::is_trivially_destructible_v<LayerOp>);

// The operations of one layer. Storage is left uninitialised: only the
// `size` operations added are constructed (describing a layer writes about
// a third of the array).
class LayerOps {
 public:
  LayerOps() {}  // NOLINT: storage deliberately uninitialised
  int size = 0;
  bool moe = false;
  // Row-parallel matmuls: the all-reduces (reduce-scatter + all-gather with
  // SP) of the layer's forward pass under tensor parallelism.
  int tp_reductions = 0;
  // The routed experts' row-parallel matmul: its gather and reduce-scatter
  // over the expert-TP group (MoE layers with etp > 1).
  int etp_reductions = 0;
  // Attention output width per GPU (input of the output projection).
  double attn_out_local = 0;
  // The split's expert_load: routed-expert rows are the hot rank's, so their
  // FLOPs over this are the mean rank's.
  double expert_load = 1;
  // Sums over the operations, filled when the description is complete:
  // parameters by block (whole model and one GPU), stored elements per token
  // by kind, and the attention core's query heads per GPU.
  std::array<double, kOpBlocks> params{}, local_params{};
  std::array<double, kStoredKinds> stored{};
  double core_heads = 0;

  const LayerOp& operator[](int i) const { return data()[i]; }
  const LayerOp* begin() const { return data(); }
  const LayerOp* end() const { return data() + size; }
  // Appends a default operation (at most kMaxLayerOps).
  LayerOp& push() { return *new (&storage_[static_cast<std::size_t>(size++)]) LayerOp{}; }
  // The operation added i-th, to amend it once the description is complete.
  LayerOp& at(int i) {
    return *std::launder(reinterpret_cast<LayerOp*>(storage_[static_cast<std::size_t>(i)].bytes));
  }

 private:
  struct alignas(LayerOp) Slot {
    unsigned char bytes[sizeof(LayerOp)];
  };
  const LayerOp* data() const {
    return std::launder(reinterpret_cast<const LayerOp*>(storage_.data()));
  }
  std::array<Slot, kMaxLayerOps> storage_;
};

// K/V heads one tensor-parallel rank keeps: k / tp, at least one (a GQA head
// is replicated when tp exceeds the K/V heads).
double local_kv_heads(const ModelShape& m, double tp);

// The operations of one layer (moe_layer: the MLP is a MoE block) under a split.
LayerOps describe_layer(const ModelShape& m, bool moe_layer, const LayerSplit& split = {},
                        const AdapterSpec& adapters = {});

// Calls f(op, n) for each matmul as it runs: a single gemm operation, or a
// fused group of consecutive ones (`op` is the group's first, `n` the
// group's summed output width).
template <class F>
void for_each_matmul(const LayerOps& ops, F&& f) {
  for (int i = 0; i < ops.size; ++i) {
    const LayerOp& op = ops[i];
    if (op.kind != OpKind::gemm) continue;
    double n = op.n;
    while (op.fuse != 0 && i + 1 < ops.size && ops[i + 1].fuse == op.fuse) n += ops[++i].n;
    f(op, n);
  }
}

// Parameters of a block in one layer: whole model, or one GPU under the split.
inline double block_params(const LayerOps& ops, OpBlock block) {
  return ops.params[static_cast<std::size_t>(block)];
}
inline double block_local_params(const LayerOps& ops, OpBlock block) {
  return ops.local_params[static_cast<std::size_t>(block)];
}
// The weights of the layer one GPU holds under the split, LoRA adapters left out.
inline double local_layer_params(const LayerOps& ops) {
  double p = 0;
  for (int b = 0; b < kOpBlocks; ++b) {
    if (static_cast<OpBlock>(b) != OpBlock::adapter)
      p += ops.local_params[static_cast<std::size_t>(b)];
  }
  return p;
}

// Elements per token the layer stores of one kind.
inline double stored_elems(const LayerOps& ops, Stored kind) {
  return ops.stored[static_cast<std::size_t>(kind)];
}

// The names of RecomputeModule, by value (Megatron-Core's --recompute-modules words).
inline constexpr const char* kRecomputeModuleNames[kRecomputeModules] = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};

// Whether recomputing `modules` runs `op`'s forward again (each operation
// once, though it may sit in two of them: the MoE block holds moe_act and
// shared_experts).
inline bool reruns(const LayerOp& op, RecomputeModules modules) {
  return (op.rerun & modules) != 0;
}

// Layers of the model that are MoE layers (the first `dense_layers` stay dense).
int moe_layer_count(const ModelShape& m);

}  // namespace scaleout
