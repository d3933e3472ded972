// Compute time of a transformer layer on one GPU: every operation timed as a
// roofline, FLOPs at an achievable matmul rate versus bytes at HBM bandwidth
// (docs/model.md, "Compute").
#pragma once

#include <array>

#include "hw/hardware.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// Named constants of the compute model; per GPU family (docs/model.md).
struct ComputeConstants {
  // Large-GEMM rate as a share of the dense peak: measured maximum achievable
  // matmul FLOPS (ml-engineering MAMF: A100 271.2/312, H100 794.5/989), times
  // the sustained factor below on Ampere and Hopper.
  double gemm_efficiency = 0.80;
  // The same for FP8 GEMMs against the FP8 peak (H100 1402.6/1979, B200 3432.5/4500).
  double fp8_gemm_efficiency = 0.70;
  // A GEMM dimension d runs at d / (d + gemm_half_dim) of the large-GEMM rate
  // per dimension (small and skinny GEMMs fall far below peak).
  double gemm_half_dim = 96;
  // FlashAttention-2 kernels as a share of the dense peak (FA2 paper: 50-73 %
  // forward on A100; FA3 paper: 35 % on H100).
  double attention_efficiency = 0.55;
  // Achievable share of HBM bandwidth for streaming element-wise kernels.
  double hbm_efficiency = 0.80;
  // No kernel takes less than this: the host-side dispatch and launch time of
  // one eager PyTorch operator bounds small kernels (fitted, docs/validation.md).
  double kernel_floor_s = 0.0;
  // Element-wise traffic relative to the fused kernels counted in
  // docs/model.md (1 everywhere; a knob for calibration experiments).
  double elementwise_traffic = 1.0;
  // QLoRA: share of HBM bandwidth at which the framework dequantises a 4-bit
  // base weight before each GEMM (its row's dequant_hbm_share).
  double dequant_hbm_share = 0.25;
  // Host time to issue one kernel outside a CUDA graph (the framework row's
  // host_s_per_kernel; 0: no host floor). docs/model.md, "Host launch floor".
  double host_s_per_kernel = 0.0;
};

// Bytes one 4-bit weight's dequantisation moves: read 0.5 (plus constants),
// write 2 (bitsandbytes dequantize_4bit; docs/model.md "Quantised base weights").
inline constexpr double kDequantBytesPerParam = 2.5;

// The GPU family's constants (gpu.family_data, data/catalog/families.json):
// each kernel share times the family's sustained factor, the share of those
// micro-benchmark rates that whole training steps and serving runs of fused
// kernels sustain (fitted on Ampere and Hopper; docs/validation.md).
ComputeConstants compute_constants(const Gpu& gpu);

// The same constants with the three tensor-core rates (GEMM, FP8 GEMM,
// attention) multiplied by `s`: a framework's efficiency, a calibration scale.
ComputeConstants scaled_tensor_rates(ComputeConstants k, double s);

// Times in seconds and FLOPs for one micro-batch on one GPU.
struct OpTimes {
  double gemm_s = 0;         // dense matmuls (projections, MLP, experts, router)
  double attention_s = 0;    // attention core (QK^T, softmax, AV)
  double elementwise_s = 0;  // norms, activations, residuals, dropout, rotary
  double flops = 0;          // FLOPs executed
  double kernels = 0;        // kernel launches
  double total() const { return gemm_s + attention_s + elementwise_s; }
};

// The forward work of the operations of a layer that the same recompute
// modules re-run (one LayerOp::rerun value): selective recompute of named
// sub-blocks repeats it in the backward pass.
struct RerunPart {
  RecomputeModules modules = 0;
  OpTimes forward;
  // Row-parallel matmuls among them: their TP (routed experts: expert-TP)
  // reductions run again with them.
  double tp_reductions = 0, etp_reductions = 0;
};
inline constexpr int kMaxRerunParts = 8;

// One layer of one micro-batch on one GPU, timed from its description
// (model/layer.hpp): forward and backward passes, the attention core alone
// (what selective recomputation repeats) and the element-wise kernels' time.
struct LayerTimes {
  OpTimes forward;
  OpTimes backward;          // dgrad and wgrad; LoRA skips the frozen wgrad
  OpTimes core;              // attention core, forward
  double elementwise_s = 0;  // the layer's element-wise kernels (attention core's not included)
  double dequant_s = 0;      // QLoRA: one dequantisation pass over the layer's base weights
  // The forward work by the recompute modules that re-run it (the attention
  // core under core_attn).
  std::array<RerunPart, kMaxRerunParts> rerun{};
  int rerun_parts = 0;
  // Host launch floor: the host time to issue the kernels of the layer's
  // forward and backward passes that no CUDA graph replays (workload
  // `cuda_graphs`), and of its forward alone (what full recompute re-issues).
  double host_s = 0;
  double host_forward_s = 0;
  // A MoE layer's forward from its dispatch to its combine: the host time to
  // issue its kernels and their GPU time. The dispatcher synchronises the
  // host with the GPU before it (the all-to-all's split sizes), so this part
  // runs at the slower of the two on its own (perf/step.cpp). 0 under
  // drop-and-pad token dropping, which never synchronises.
  double host_dispatch_s = 0;
  double dispatch_gpu_s = 0;
};

// What selective recompute of `modules` runs again per layer and
// micro-batch: the forward of every operation one of them re-runs (once
// each), with the row-parallel reductions among them.
RerunPart rerun_forward(const LayerTimes& t, RecomputeModules modules);
LayerTimes layer_times(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       const LayerOps& ops);
LayerTimes layer_times(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       bool moe_layer);

// Forward pass of one transformer layer (moe_layer: the MLP is a MoE block).
OpTimes layer_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k, bool moe_layer);
// Backward pass of one layer (dgrad and wgrad; LoRA skips the frozen wgrad).
OpTimes layer_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       bool moe_layer);
// The attention core alone (what selective recomputation repeats).
OpTimes attention_core_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k);
// Output projection, softmax and cross-entropy, forward and backward (last stage).
OpTimes logits_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k);
// One multi-token-prediction depth without its transformer layer (last
// stage): the shifted tokens' embedding lookup, the norms of the embedding
// and of the hidden state, the projection [T x 2h] x [2h x h/t], the final
// norm, the output head and its loss; forward and backward.
OpTimes mtp_depth_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k);
// Embedding lookup and its gradient (first stage).
OpTimes embedding_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k);

// Time of one GEMM [m x k] * [k x n] in the given precision, as a roofline:
// FLOPs at the shaped matmul rate versus bytes at HBM bandwidth, with
// `weight_bytes` per element of the [k x n] operand (2: 16-bit; 1: FP8/INT8;
// about 0.5 for INT4) and 16-bit activations.
double gemm_time_s(double m, double n, double kdim, double peak_flops, double hbm_Bps,
                   const ComputeConstants& k, double efficiency, double weight_bytes = 2.0);

// Rows of one M tile of a grouped (MoE expert) GEMM: the row block of the
// CUTLASS/Transformer Engine grouped kernels and DeepGEMM's grouped
// contiguous layout, which pads each expert's rows to a multiple of the
// block (deepseek-ai/DeepGEMM README, "get_mk_alignment_for_contiguous_layout"
// 128; DeepGEMM issue #211 on the M occupancy of MoE grouped GEMMs).
inline constexpr double kGroupedGemmTileRows = 128;
// Rows one expert's GEMM runs: its m rows rounded up to whole tiles.
double grouped_gemm_rows(double m);

// Dense peak FLOP/s a kernel in precision p gets on this GPU (falls back to
// 16-bit without FP8 units, to FP16 without BF16).
double compute_peak_flops(const Gpu& gpu, Precision p);

}  // namespace scaleout
