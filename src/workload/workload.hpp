// What the user wants to run: model, training task, batch, precision,
// optimizer, fine-tuning method, parallel layout and cluster. Plain data;
// io/workload_reader.cpp fills it from YAML and checks every key.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hw/hardware.hpp"
#include "model/layer.hpp"
#include "model/transformer.hpp"
#include "workload/framework.hpp"

namespace scaleout {

enum class Task { pretrain, finetune, inference };
// adam8bit: bitsandbytes 8-bit Adam (paged or not); adam_bf16: bf16 moments
// and no fp32 master copy (pure-bf16 recipes: torchtune, Lit-GPT bf16-true);
// adam_bf16_moments: bf16 moments beside the fp32 master copy and gradients
// (DeepSeek-V3 report §3.3.4; Megatron-Core's precision-aware optimizer with
// --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16).
enum class Optimizer { adam, adam8bit, sgd, adafactor, adam_bf16, adam_bf16_moments };
enum class FinetuneMethod { full, lora, qlora };
enum class Recompute { none, selective, full };

// Pipeline schedule (layout `pipeline_schedule`; docs/model.md "Pipeline
// schedules"). 1F1B (interleaved when interleave > 1); ZB1P, the zero-bubble
// 1F1B that defers weight gradients into the bubble (Qi et al. 2024,
// arXiv:2401.10241); DualPipe, DeepSeek-V3's bidirectional schedule (two
// copies of the stages, forward and backward chunks paired so that the
// all-to-all and pipeline sends hide behind compute; arXiv:2412.19437
// section 3.2.1, table 2); DualPipeV, DualPipe cut in half (a V of two
// chunks per rank, one copy; deepseek-ai/DualPipe, torch.distributed.pipelining
// ScheduleDualPipeV).
enum class PipeSchedule { one_f_one_b, zb1p, dualpipe, dualpipev };
static_assert(static_cast<int>(PipeSchedule::dualpipev) + 1 == kPipeSchedules);
// torch.compile of the training step (PyTorch-native frameworks): nothing, the
// model's layers only, or the layers and the loss (torchtitan >= v0.1.0
// `[compile] enable` with components model + loss; torchtune `compile: True`,
// which also compiles the loss). The loss's memory is modelled (docs/model.md,
// "Logits and loss"), and a framework whose fusion is torch.compile's
// (FrameworkTraits::fused_by_compile) runs eager with `none`.
enum class Compile { none, model, all };
// MoE token dispatcher of a training run (`moe.dispatcher`; docs/model.md,
// "Token dispatchers"). `framework`: the framework's own (FrameworkTraits::
// dedup_dispatch); `alltoall`: Megatron-Core's all-to-all dispatcher, every
// routed copy sent to its expert's rank; `deepep` / `hybridep`: Megatron-Core's
// flex dispatcher (--moe-token-dispatcher-type flex
// --moe-flex-dispatcher-backend deepep|hybridep), one network copy of a token
// per destination node forwarded to its experts over NVLink.
enum class MoeDispatcher { framework, alltoall, deepep, hybridep };

struct FinetuneSpec {
  FinetuneMethod method = FinetuneMethod::full;
  int rank = 16;                                 // LoRA rank r
  AdapterTargets targets = AdapterTargets::all;  // finetune.targets
  // finetune.lora_dropout: nn.Dropout(p) on each adapter's input (PEFT
  // LoraLayer.update_layer; nn.Identity at 0, the default).
  double lora_dropout = 0;
};

// Parallel dimensions, for the rank order.
enum class Dim { tp, cp, dp, pp };

struct Layout {
  int tp = 1;  // tensor parallel
  int pp = 1;  // pipeline parallel
  int dp = 1;  // data parallel (FSDP shard group included)
  int cp = 1;  // context parallel
  int ep = 1;  // expert parallel (MoE)
  // Expert tensor parallel (MoE): the TP degree of the expert layers, which
  // Megatron-Core factors apart from the dense layers' ("MoE parallel
  // folding"); 0 follows tp, Megatron-Core's default.
  int etp = 0;
  // MoE token dispatch overlapped with computation (Megatron-Core's
  // --overlap-moe-expert-parallel-comm: one micro-batch's all-to-all behind
  // another's forward/backward; DeepSeek-V3's DualPipe does the same).
  bool ep_overlap = false;
  bool sp = false;      // Megatron sequence parallelism (with tp > 1)
  int micro_batch = 1;  // sequences per micro-batch
  int interleave = 1;   // virtual pipeline stages per rank
  // Pipeline schedule, with pp > 1 (layout `pipeline_schedule`).
  PipeSchedule schedule = PipeSchedule::one_f_one_b;
  // Transformer layers on the first and on the last pipeline stage, all of
  // its model chunks together (Megatron-LM --decoder-first-pipeline-num-layers
  // / --decoder-last-pipeline-num-layers); the other stages split the rest
  // evenly. 0: not given (workload/pipeline.hpp, `stage_layers`).
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  // The token embedding (the output layer and loss) takes one layer's place
  // in the pipeline split (Megatron-Core --account-for-embedding-in-pipeline-split,
  // --account-for-loss-in-pipeline-split): L + 1 (+ 1) places split evenly
  // over the pp x interleave chunks, and the first chunk of the first rank
  // (the last chunk of the last rank) holds one layer fewer, possibly none.
  bool embedding_in_split = false;
  bool loss_in_split = false;
  // Megatron-Core --pipeline-model-parallel-layout (layout `pipeline_layout`,
  // validation CSV `pipeline_layout`; parsed by parse_pipeline_layout): the
  // string as given, the transformer layers of every model chunk in the
  // layout's order (chunk c of rank s at c x pp + s), and the MTP depths it
  // places (with the loss, on the last rank's last chunk). Empty: no layout;
  // the sizes above split the layers.
  std::string pipeline_layout;
  std::vector<int> chunk_layers;
  int layout_mtp_layers = 0;
  int zero = 0;  // 0 none, 1 optimizer, 2 + gradients, 3 + weights (FSDP)
  // Hybrid sharding (layout `shard_group`): the data-parallel ranks of one
  // ZeRO shard group. Model state is sharded over shard_group x cp ranks and
  // replicated over dp / shard_group groups, whose gradient shards are
  // all-reduced once a step: PyTorch FSDP HYBRID_SHARD and FSDP2 HSDP (device
  // mesh (replicate, shard)), DeepSpeed MiCS (mics_shard_size), SageMaker
  // SMP sharded data parallelism (sharded_data_parallel_degree, MiCS-based).
  // 0: every data-parallel rank (plain ZeRO / FSDP FULL_SHARD).
  int shard_group = 0;
  Recompute recompute = Recompute::none;
  // recompute: full only: the layers of each model chunk recomputed, the
  // first N of the chunk (Megatron-LM --recompute-method block
  // --recompute-num-layers N); the others keep their activations. 0: every
  // layer (--recompute-method uniform --recompute-num-layers 1).
  int recompute_layers = 0;
  // recompute: selective only: the sub-blocks recomputed (Megatron-Core
  // --recompute-modules; model/layer.hpp RecomputeModule), a bit per
  // module; Megatron-Core's default core_attn.
  RecomputeModules recompute_modules = kDefaultRecomputeModules;
  bool flash_attention = true;
  bool offload_optimizer = false;  // optimizer state (and master weights) in host memory
  // offload: all (with offload_optimizer): parameters and gradients in host
  // memory too, copied to the GPU layer by layer (FSDP CPU offload,
  // ZeRO-Infinity).
  bool offload_params = false;
  // Saved activations moved to host memory in the forward pass and back in
  // the backward (torchtune OffloadActivations), over the GPU's host link.
  bool activation_offload = false;
  // Megatron-LM --fp8-param-gather (FP8 with megatron or nemo only): the layer
  // weights are kept in FP8 and all-gathered in FP8, so Transformer Engine
  // holds no FP8 copy beside a 16-bit one.
  bool fp8_param_gather = false;
  // The data-parallel gradient reduction runs behind the backward pass where
  // the framework can overlap it (FrameworkTraits::dp_overlap): Megatron-LM
  // --overlap-grad-reduce, DDP/FSDP bucket hooks. false: the run reduces
  // after the whole backward (Megatron-LM before --overlap-grad-reduce,
  // commit 2d5220a, 2023-08-16; or the flag left off).
  bool dp_overlap = true;
  // Rank order, innermost first (Megatron-LM's default: TP, CP, DP, PP): which
  // groups are packed into a node. EP groups are carved out of DP x CP.
  std::array<Dim, 4> order = {Dim::tp, Dim::cp, Dim::dp, Dim::pp};

  int degree(Dim d) const { return d == Dim::tp ? tp : d == Dim::cp ? cp : d == Dim::dp ? dp : pp; }
  // Distance in ranks between neighbours of a group of dimension d.
  long long stride(Dim d) const {
    long long s = 1;
    for (Dim x : order) {
      if (x == d) break;
      s *= degree(x);
    }
    return s;
  }

  int gpus() const { return tp * pp * dp * cp; }
  // The data-parallel ranks ZeRO shards model state over (`shard_group`,
  // or all of them), and the replicas of that group.
  int zero_shard_dp() const { return shard_group > 0 && shard_group < dp ? shard_group : dp; }
  int zero_replicas() const { return std::max(1, dp / zero_shard_dp()); }
  int expert_tp() const { return etp > 0 ? etp : tp; }
  // Expert layers factor the same tp x cp x dp ranks of a pipeline stage as
  // ep x etp x expert-dp: the replicas over which expert state is sharded.
  long long expert_dp() const {
    const long long e = static_cast<long long>(ep) * expert_tp();
    return std::max(1LL, static_cast<long long>(tp) * cp * dp / e);
  }
};

struct ClusterSpec {
  std::string server_id;  // catalog server
  std::string gpu_id;     // optional GPU override (PCIe servers take several kinds)
  std::string fabric_id;  // optional scale-out fabric
  int nodes = 1;
  // GPUs used of one node (a slice, slice_server); 0: whole nodes.
  int gpus = 0;
};

// How the weights are stored for serving (docs/model.md, "Inference"): 16-bit,
// FP8 (computed in FP8 where the GPU has FP8 units), or weight-only INT8/INT4
// (dequantised to 16-bit for the matmuls, AWQ/GPTQ style).
enum class WeightFormat { bf16, fp8, int8, int4 };

// A serving workload (task: inference): request shape, target rate and
// latency objectives, storage formats and engine limits.
struct InferenceSpec {
  long long prompt_tokens = 1024;  // input tokens of one request (ISL)
  long long output_tokens = 256;   // generated tokens of one request (OSL)
  double request_rate = 0;         // requests/s the service must sustain; 0 = none
  double ttft_s = 0;               // time-to-first-token objective; 0 = none
  double tpot_s = 0;               // time-per-output-token objective; 0 = none
  WeightFormat weights = WeightFormat::bf16;
  Precision kv_cache = Precision::bf16;  // bf16/fp16: 2 bytes per value, fp8: 1
  int max_batch = 256;                   // sequences one replica runs at once (engine limit)
  long long prefill_chunk = 8192;        // tokens of one prefill chunk (engine limit)
  int batch = 0;                         // estimate: concurrent sequences; 0 = the best
};

// Default MoE load imbalance: routed token copies on the most loaded
// expert-parallel rank over the mean, per layer and micro-batch, for routing
// balanced by an auxiliary loss or by expert biases (docs/model.md, "Load
// imbalance": no authoritative published max-rank/mean-rank figure was found;
// 1.2 is the low end of the 1.2-1.8 quoted for real routing, chosen before
// comparing with any validation row). Force-balanced benchmarks and token
// dropping at capacity factor 1 set 1.
inline constexpr double kDefaultMoeLoadImbalance = 1.2;

struct Workload {
  ModelShape model;
  Task task = Task::pretrain;
  double tokens = 0;           // training tokens of the whole run; 0 = not given
  long long seq_len = 2048;    // s
  long long global_batch = 0;  // B, sequences per optimizer step; 0 = micro_batch * dp
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adam;
  FinetuneSpec finetune;
  Framework framework = Framework::megatron;
  Layout layout;
  // Chunked cross-entropy: the output logits are upcast and lost in this many
  // chunks (torchtune CEWithChunkedOutputLoss); 1 = off.
  int loss_chunks = 1;
  // Each gradient is applied and freed in the backward pass (torchtune
  // optimizer_in_bwd): no whole-model gradient buffer.
  bool optimizer_in_backward = false;
  Compile compile = Compile::none;  // `compile`
  // CUDA graph capture of the step (`cuda_graphs`, framework.hpp CudaGraphs):
  // which kernels the host issues one by one (docs/model.md, "Host launch floor").
  CudaGraphs cuda_graphs = CudaGraphs::none;
  // The cross-entropy sees fp32 logits (`loss_upcast`, default true): the
  // framework's own loss path (FrameworkTraits::logit_bytes). false: the
  // model's code takes the loss of its 16-bit logits with nothing upcasting
  // them (Qwen-1's remote modeling code, CrossEntropyLoss on the fp16/bf16
  // lm_head output, under DeepSpeed's 16-bit engine, which runs the model
  // without autocast); docs/model.md, "Logits and loss".
  bool loss_upcast = true;
  // FP8 training that caches activations in FP8 (`fp8_activations`, only
  // with precision fp8): every trained linear's saved input in 1 byte under
  // any framework, and the MoE experts' SwiGLU inputs too (DeepSeek-V3
  // report §3.3.4, "Low-Precision Activation"); docs/model.md, "FP8
  // activation cache".
  bool fp8_activations = false;
  // 16-bit gradient buffers and reduction (`grad_reduce_in_bf16`, only where
  // the framework keeps fp32 main gradients: Megatron-LM --grad-reduce-in-bf16,
  // Megatron-Bridge ddp.grad_reduce_in_fp32=False): the main-grad buffer and
  // the data-parallel reduce-scatter/all-reduce are bf16, 2 B/param
  // (Megatron-Core param_and_grad_buffer.py grad_dtype); docs/model.md,
  // "Model state".
  bool grad_reduce_in_bf16 = false;
  ClusterSpec cluster;
  InferenceSpec inference;  // task: inference only
  // MoE training: max-rank / mean-rank load of the routed experts (>= 1;
  // `moe.load_imbalance`).
  double moe_load_imbalance = kDefaultMoeLoadImbalance;
  // MoE training: the token dispatcher (`moe.dispatcher`).
  MoeDispatcher moe_dispatcher = MoeDispatcher::framework;
  // MoE training: token dropping (docs/model.md, "Token dropping"). 0:
  // dropless (Megatron-Core's default, moe_expert_capacity_factor None); else
  // F >= 1, each expert takes at most F x its fair share of the routed copies
  // (--moe-expert-capacity-factor F), and with moe_pad_to_capacity exactly
  // that many, padded (--moe-pad-expert-input-to-capacity).
  double moe_capacity_factor = 0;
  bool moe_pad_to_capacity = false;
};

// Megatron-Core's drop-and-pad MoE path: every split size known on the host
// (token_dispatcher.py `preprocess`, drop_and_pad), no device-to-host
// synchronisation of the token counts, static shapes.
inline bool moe_drop_and_pad(const Workload& w) {
  return w.moe_capacity_factor > 0 && w.moe_pad_to_capacity && w.task != Task::inference;
}

// The MoE dispatch sends one network copy of a token per destination node
// (DeepEP or HybridEP), as the run's dispatcher says, else as its framework's.
inline bool deduplicated_dispatch(const Workload& w) {
  return w.moe_dispatcher == MoeDispatcher::framework ? framework_traits(w.framework).dedup_dispatch
                                                      : w.moe_dispatcher != MoeDispatcher::alltoall;
}

// FP8 through Transformer Engine: precision fp8 under a framework whose row
// says so (Megatron-LM, NeMo).
inline bool te_fp8(const Workload& w) {
  return framework_traits(w.framework).transformer_engine_fp8 && w.precision == Precision::fp8;
}

// Activations cached in FP8 by the run's own FP8 recipe (`fp8_activations`
// with precision fp8; docs/model.md, "FP8 activation cache").
inline bool fp8_activation_cache(const Workload& w) {
  return w.fp8_activations && w.precision == Precision::fp8;
}

// LoRA or QLoRA: frozen base weights with trained rank-r adapters.
inline bool is_lora(const Workload& w) {
  return w.task == Task::finetune && w.finetune.method != FinetuneMethod::full;
}

// Multi-token-prediction depths the run trains (serving runs none).
inline int trained_mtp_layers(const Workload& w) {
  return w.task == Task::inference ? 0 : w.model.mtp_layers;
}

// How the workload's layout splits a layer (model/layer.hpp).
inline LayerSplit layer_split(const Workload& w) {
  LayerSplit s;
  s.tp = w.layout.tp;
  s.seq_div = (w.layout.sp && w.layout.tp > 1) ? w.layout.tp : 1.0;
  s.ep = w.layout.ep;
  s.etp = w.layout.expert_tp();
  // Training over several expert-parallel ranks: the step waits for the most
  // loaded one. Serving keeps balanced routing (its constants are fitted so).
  s.training = w.task != Task::inference;
  s.mcore_experts = s.training && framework_traits(w.framework).mcore_grouped_mlp;
  // Token dropping caps every expert at F x its fair share: the hot rank
  // runs min(gamma, F) x the mean; padded to capacity every rank runs F x
  // the mean copies, padding included, whatever the routing (docs/model.md,
  // "Token dropping").
  if (s.training) {
    const double gamma = w.layout.ep > 1 ? w.moe_load_imbalance : 1.0;
    if (moe_drop_and_pad(w)) {
      s.expert_load = w.moe_capacity_factor;
    } else if (w.moe_capacity_factor > 0) {
      s.expert_load = std::min(gamma, w.moe_capacity_factor);
    } else {
      s.expert_load = gamma;
    }
  }
  return s;
}

// The workload's LoRA adapters (rank 0 unless LoRA or QLoRA).
inline AdapterSpec adapter_spec(const Workload& w) {
  AdapterSpec a;
  if (is_lora(w)) {
    a.rank = w.finetune.rank;
    a.targets = w.finetune.targets;
    a.dropout = w.finetune.lora_dropout;
  }
  return a;
}

// One layer of the workload's model under its layout.
inline LayerOps describe_layer(const Workload& w, bool moe_layer) {
  return describe_layer(w.model, moe_layer, layer_split(w), adapter_spec(w));
}

// The workload's two kinds of layer under its layout, each described once:
// memory and step time of one candidate read the same descriptions, and the
// planner describes them once per (tp, sp, ep) for every candidate that
// shares them.
struct DescribedLayers {
  LayerOps dense;
  LayerOps moe;  // empty for a dense model
};
inline DescribedLayers describe_layers(const Workload& w) {
  DescribedLayers d;
  d.dense = describe_layer(w, false);
  if (w.model.is_moe()) d.moe = describe_layer(w, true);
  return d;
}

const char* to_string(Task t);
const char* to_string(WeightFormat f);
const char* to_string(Optimizer o);
const char* to_string(FinetuneMethod m);
const char* to_string(Recompute r);
const char* to_string(PipeSchedule s);
const char* to_string(Compile c);
const char* to_string(MoeDispatcher d);

const char* to_string(AdapterTargets t);
const char* to_string(Dim d);
// "tp-cp-dp-pp"
std::string order_string(const std::array<Dim, 4>& order);
// The recompute policy as reports print it: "none", "selective", "full", or
// with recompute_layers N "full N/chunk", or with modules other than
// core_attn "selective mla_up_proj+mlp".
std::string recompute_label(const Layout& l);
// The module names of a set joined by `sep` ("mla_up_proj+mlp" with '+'),
// in RecomputeModule order.
std::string recompute_modules_string(RecomputeModules m, char sep);
// The module of a name, or none.
std::optional<RecomputeModule> recompute_module_from_name(std::string_view name);

}  // namespace scaleout
