// Time of one training step on the actual topology: compute per micro-batch
// and stage, pipeline schedule, exposed TP/CP/EP/PP/DP communication and the
// optimizer; tokens/s, MFU, HFU and time-to-train (docs/model.md, "Step time").
#pragma once

#include <optional>

#include "hw/hardware.hpp"
#include "memory/memory.hpp"
#include "network/topology.hpp"
#include "perf/compute.hpp"
#include "workload/pipeline.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// Exposed (not overlapped) parts of a step; they add up to the step time.
struct StepBreakdown {
  double compute = 0;    // forward, backward and recompute of the slowest stage
  double tp_comm = 0;    // tensor-parallel all-reduces / reduce-scatter + all-gather
  double cp_comm = 0;    // context-parallel K/V exchange not hidden behind attention
  double ep_comm = 0;    // expert-parallel all-to-all
  double pp_comm = 0;    // pipeline send/recv
  double dp_comm = 0;    // gradient reduction and ZeRO/FSDP gathers not hidden by compute
  double bubble = 0;     // pipeline fill and drain
  double optimizer = 0;  // optimizer step over the local state
  double other = 0;      // host-link (PCIe) offload traffic not hidden by compute
  double total() const {
    return compute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm + bubble + optimizer + other;
  }
};

struct StepEstimate {
  StepBreakdown breakdown;
  double step_s = 0;
  double microbatches = 0;  // m = B / (b * dp)
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_step = 0;     // 6N + 12 L h s per token (PaLM, App. B)
  double hardware_flops_per_step = 0;  // FLOPs executed, recomputation included
  // Model FLOPs utilisation on the FLOPs the run needs: 6 N per token, or
  // under LoRA/QLoRA 4 N for the frozen base (no weight gradient) plus 6 N
  // for the adapters; recomputation is not counted (it is in hfu).
  double mfu = 0;
  // The same step on full fine-tuning's 6 N per token, for comparison.
  double mfu_6n_equivalent = 0;
  double hfu = 0;
  double time_to_train_s = 0;  // 0 when the workload gives no token count
  double network_wait_fraction = 0;
};

// How a training framework runs the same model (docs/model.md, "Frameworks";
// the values are the rows of workload/framework.hpp).
struct FrameworkConstants {
  double compute_efficiency = 1.0;  // multiplies the GPU family's kernel efficiencies
  double kernel_floor_s = 0.0;      // shortest kernel, host-bound
  // Share of a layer's compute time behind which its ZeRO-3/FSDP gathers and
  // gradient reduce-scatters run (prefetching); the rest of them is exposed.
  double zero3_hidden_share = 1.0;
  bool zero3_per_tensor = false;  // one gather per weight tensor instead of per block
  // Under LoRA/QLoRA nothing of the ZeRO-3 gathers is hidden (PEFT's FSDP
  // units under the rate limiter, workload/framework.hpp).
  bool lora_zero3_exposed = false;
  // ZeRO-0/1 gradient reduction overlapped with the backward pass (bucketed
  // hooks); off where the engine reduces only after the whole backward.
  bool dp_overlap = true;
  // Backward TP all-reduces (all-gathers with SP) of the column-parallel
  // layers' input gradients run behind their weight-gradient GEMMs.
  bool tp_backward_overlap = false;
  // The pipeline sends each TP rank's 1/t of the activation gradient
  // backward; false: the whole gradient (DeepSpeed <= 0.5.3's pipeline engine).
  bool pp_grad_partitioned = true;
  // Sends and receives between stages one at a time, blocking: a middle
  // stage waits for both boundaries' transfers (DeepSpeed's PipelineEngine).
  bool pp_serial_exchanges = false;
};

// The compute efficiency of an eager-PyTorch framework (its row's `eager`) on
// `gpu`: its family's `eager_efficiency` in data/catalog/families.json
// (fitted; the file names the rows it was fitted on, docs/validation.md) at
// the family's `eager_flops_per_byte`, and for another GPU of the family the
// unfused-kernel share 1/e - 1 scaled by the GPU's own dense 16-bit FLOPs per
// HBM byte against it (docs/model.md, "Constants per framework").
double eager_efficiency(const Gpu& gpu);

// How `framework` runs on `gpu`: its row of workload/framework.hpp, with the
// eager efficiency of the GPU's family where the row is eager.
FrameworkConstants framework_constants(Framework framework, const Gpu& gpu);

struct PerfConstants {
  ComputeConstants compute;  // the family's, with the framework's efficiency and floor applied
  NetworkConstants network;
  FrameworkConstants framework;  // how the framework schedules its communication
};

// The constants for a GPU family and a training framework run with
// `compile`: a row whose fusion comes from torch.compile (its
// `fused_by_compile`) runs eager without it, at the GPU's eager efficiency
// and the eager NF4 dequantisation share.
PerfConstants perf_constants(const Gpu& gpu, Framework framework, Compile compile);
// The same, the framework compiled where it compiles (Compile::all).
PerfConstants perf_constants(const Gpu& gpu, Framework framework);

// Model FLOPs per token: 6 * N + 12 * L * (attention width) * s (Chowdhery et
// al. 2022, App. B), N = active matmul parameters: without the input embedding
// tables, with the output projection (also when tied). Attention is counted
// over the full s (the convention); executed FLOPs (HFU) count causal
// FlashAttention's half, so HFU can fall below MFU at long sequences.
double model_flops_per_token(const ModelShape& m, long long seq_len);
// The workload's model FLOPs per token: the above, except that LoRA and QLoRA
// compute no weight gradient for the frozen base (4 N instead of 6 N) and
// train the adapters (6 N_a), so MFU counts only FLOPs the run needs.
double model_flops_per_token(const Workload& w);
// The same from the workload's described layers.
double model_flops_per_token(const Workload& w, const DescribedLayers& layers);
// 6 N + attention per token whatever the method (mfu_6n_equivalent).
double model_flops_per_token_6n(const Workload& w, const DescribedLayers& layers);

StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k);
// The same with the workload's memory estimate already at hand (the planner's
// hot path evaluates memory first).
StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k,
                           const MemoryEstimate& memory);
// The same with the layers described once for memory and step (describe_layers(w)).
StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k,
                           const MemoryEstimate& memory, const DescribedLayers& layers);

// What a step's time shares across the memory-saving settings (ZeRO stage,
// recompute, optimizer offload and FP8 weight gather): the links and groups,
// one layer of each kind timed with its TP/EP/CP communication, the
// embedding and output layer, the pipeline hop, the model FLOPs and the peak.
// The planner times a layout once and evaluates every setting against it.
struct LayoutTimes {
  struct Layer {
    LayerTimes times;    // one layer, one micro-batch
    double etp_one = 0;  // the routed experts' expert-TP gather + reduce-scatter
    double ep = 0;       // token dispatch and combine, forward and backward
    double cp = 0;       // K/V exchange not hidden behind the attention core
  };
  ClusterLinks links;
  GroupSpan shard_group;  // the ZeRO / FSDP shard group (shard_group or DP, x CP)
  // The replicas of a hybrid shard group (layout shard_group), across which
  // each rank's gradient shard is all-reduced; size 1 without.
  GroupSpan replica_group;
  // The expert-data-parallel group (MoE parallel folding): the ranks of a
  // stage that hold the same routed experts, Layout::expert_dp of them, over
  // which the experts' gradients are reduced and their ZeRO state sharded
  // (equal to shard_group when ep x etp = tp).
  GroupSpan expert_shard_group;
  double tp_one = 0;  // one TP all-reduce of a layer's activation
  Layer dense, moe;
  OpTimes embedding, logits;  // forward and backward
  // Multi-token prediction on the last stage, every depth but its layer:
  // projection, norms, embedding lookup, output head and loss (forward and backward).
  OpTimes mtp;
  double pp_hop = 0;       // one activation across a stage boundary
  double pp_grad_hop = 0;  // its gradient back across it
  double pp_p2p = 0;       // the point-to-point transfers of the two (no all-gathers)
  double model_flops_per_token = 0;
  double model_flops_per_token_6n = 0;  // 6 N-based (LoRA: mfu_6n_equivalent)
  double peak_flops = 0;
};
LayoutTimes layout_times(const Workload& w, const Server& server, const Gpu& gpu,
                         const Fabric* fabric, const PerfConstants& k,
                         const DescribedLayers& layers);
// The step under the workload's memory-saving settings, from its layout's
// times (layout_times(w, ...) with the same tp, cp, pp, dp, ep, micro-batch,
// interleaving, sp, nodes and precision).
StepEstimate estimate_step(const Workload& w, const Gpu& gpu, const PerfConstants& k,
                           const MemoryEstimate& memory, const DescribedLayers& layers,
                           const LayoutTimes& times);

// The first/last stage sizes that even the pipeline's stages for the
// workload's layout (workload/pipeline.hpp, balanced_stage_split): the
// embedding, and the output layer, loss and MTP depths, counted in times of
// one layer (forward and backward compute of the model's main layer kind).
// None when pp < 2 or the even split is already as fast.
std::optional<StageSplit> balanced_stage_split(const Workload& w, const LayoutTimes& times);

}  // namespace scaleout
