#include "perf/compute.hpp"

#include <algorithm>
#include <cmath>

namespace scaleout {

ComputeConstants compute_constants(const Gpu& gpu) {
  // The family's kernel shares (data/catalog/families.json: MAMF / dense
  // peak, FlashAttention shares) times the share of them whole runs sustain.
  const GpuFamily& f = gpu.family_data;
  ComputeConstants k;
  // A GPU's own measured matmul rate, where the catalog has one, replaces
  // the family's GEMM share (docs/model.md, "Matmul rate per GPU").
  const double peak16 = gpu.bf16_flops > 0 ? gpu.bf16_flops : gpu.fp16_flops;
  const double gemm_share =
      gpu.mamf_bf16_flops > 0 && peak16 > 0 ? gpu.mamf_bf16_flops / peak16 : f.gemm_share;
  k.gemm_efficiency = gemm_share * f.sustained_factor;
  k.fp8_gemm_efficiency = f.fp8_gemm_share * f.sustained_factor;
  k.attention_efficiency = f.attention_share * f.sustained_factor;
  return k;
}

ComputeConstants scaled_tensor_rates(ComputeConstants k, double s) {
  k.gemm_efficiency *= s;
  k.fp8_gemm_efficiency *= s;
  k.attention_efficiency *= s;
  return k;
}

namespace {

double peak(const Gpu& gpu, Precision p) {
  double f = gpu.peak_flops(p);
  if (f <= 0 && p == Precision::fp8) f = gpu.bf16_flops;   // no FP8 units: runs in 16-bit
  if (f <= 0 && p == Precision::bf16) f = gpu.fp16_flops;  // V100: fp16 tensor cores only
  if (f <= 0) f = gpu.fp16_flops > 0 ? gpu.fp16_flops : gpu.fp32_flops;
  return f;
}

// `count` element-wise kernels moving `bytes` in all, each at least the kernel floor.
double elementwise_s(double bytes, const Gpu& gpu, const ComputeConstants& k, double count = 1) {
  if (bytes <= 0 || count <= 0) return 0;
  const double moved = bytes * k.elementwise_traffic;
  return count * std::max(moved / count / (gpu.hbm_bw_Bps * k.hbm_efficiency), k.kernel_floor_s);
}

// Local tokens of one micro-batch on one GPU.
double local_tokens(const Workload& w) {
  return static_cast<double>(w.seq_len) * w.layout.micro_batch / w.layout.cp;
}

// The attention core of a described layer (one micro-batch, forward).
// Key-block width of the fused attention kernels (FlashAttention-3's Hopper
// forward tiles are 128 keys wide for head dims 64-128, hopper/tile_size.h;
// docs/model.md, "Sliding-window attention").
constexpr double kFlashKeyBlock = 128;

// Keys per query a fused attention kernel computes in a sliding-window
// layer: the key blocks that meet the window of a query block
// (FlashAttention-3 hopper/block.h BlockMN::get_n_block_min_max, Is_local:
// n_block_min from window_size_left), kFlashKeyBlock keys each: the window
// rounded up to whole blocks plus the diagonal block.
double sliding_keys_computed(double window) {
  return kFlashKeyBlock * (std::ceil(std::max(0.0, window - 1.0) / kFlashKeyBlock) + 1.0);
}

OpTimes core_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                     const LayerOp& op) {
  const double tokens = local_tokens(w);
  const double seq_kv = static_cast<double>(w.seq_len);  // keys each query attends to
  const double pk = peak(gpu, w.precision == Precision::fp8 ? Precision::bf16 : w.precision);
  OpTimes o;
  // QK^T and AV over the keys each query sees; causal FlashAttention skips the
  // masked half, the unfused kernels compute the full s x s scores.
  const double causal = w.layout.flash_attention ? 0.5 : 1.0;
  // Sliding-window layers: a fused kernel visits only the key blocks inside
  // the window; the layer description is shared by all layers, so the core
  // takes the mean over the model's layers (docs/model.md, "Sliding-window
  // attention"). The unfused path computes and masks the full scores.
  double keys = seq_kv * causal;
  const ModelShape& m = w.model;
  if (w.layout.flash_attention && m.sliding_layers > 0 && m.sliding_window > 0) {
    const double windowed = std::min(keys, sliding_keys_computed(m.sliding_window));
    keys = (keys * (m.layers - m.sliding_layers) + windowed * m.sliding_layers) / m.layers;
  }
  o.flops = 2.0 * tokens * keys * op.heads * (op.qk_dim + op.v_dim);
  if (w.layout.flash_attention) {
    o.attention_s = std::max(o.flops / (pk * k.attention_efficiency), k.kernel_floor_s);
    o.kernels = 1;
  } else {
    // Batched GEMMs of shape (s x d) * (d x s) and (s x s) * (s x d), and the
    // scores written, soft-maxed (and dropped out) through HBM.
    const bool dropout = w.model.dropout;
    const double batches = w.layout.micro_batch * op.heads;
    const double sq = tokens / w.layout.micro_batch;
    o.attention_s =
        batches * (gemm_time_s(sq, seq_kv, op.qk_dim, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency) +
                   gemm_time_s(sq, op.v_dim, seq_kv, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency));
    const double score_bytes = (dropout ? 9.0 : 4.0) * tokens * seq_kv * op.heads;
    o.elementwise_s = elementwise_s(score_bytes, gpu, k, dropout ? 2.0 : 1.0);
    o.kernels = 2.0 + (dropout ? 2.0 : 1.0);
  }
  return o;
}

}  // namespace

// Bytes per element of an FP8 quantisation with its transpose: read 2,
// write 1 + 1 (Transformer Engine cast_transpose).
constexpr double kFp8QuantiseBytes = 4.0;

LayerTimes layer_times(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       const LayerOps& ops) {
  const double tokens = local_tokens(w);
  const double pk = peak(gpu, w.precision);
  const bool fp8 = w.precision == Precision::fp8 && gpu.fp8_flops > 0;
  const double eff = fp8 ? k.fp8_gemm_efficiency : k.gemm_efficiency;
  LayerTimes t;
  OpTimes base, adapters;  // forward matmuls of the base weights and of LoRA adapters
  // Training only: serving's quantisation (no transpose) stays inside the
  // serving constants fitted on inference.csv.
  const bool fp8_training = fp8 && w.task != Task::inference;
  double ew_bytes = 0, ew_kernels = 0;
  // The part of the re-run work an operation belongs to (none: nullptr),
  // with its element-wise bytes and kernels.
  std::array<double, kMaxRerunParts> part_bytes{}, part_kernels{};
  auto part_of = [&](RecomputeModules mods) -> int {
    if (mods == 0) return -1;
    for (int i = 0; i < t.rerun_parts; ++i) {
      if (t.rerun[static_cast<size_t>(i)].modules == mods) return i;
    }
    if (t.rerun_parts == kMaxRerunParts) return -1;  // not expected: describe_layer has 7
    t.rerun[static_cast<size_t>(t.rerun_parts)].modules = mods;
    return t.rerun_parts++;
  };
  // Eager LoRA (PEFT's and Lit-GPT's Linear.forward, uncompiled torchtune):
  // the adapter's output is scaled and added to the base output in two
  // kernels of their own, 10 bytes per output element (read 2, write 2;
  // read 2 + 2, write 2).
  const FrameworkTraits& ft = framework_traits(w.framework);
  const bool unfused_lora =
      is_lora(w) && (ft.eager || (ft.fused_by_compile && w.compile == Compile::none));
  // Kernels of the ops between a MoE layer's dispatch and combine, forward
  // and backward: what the host still issues under `cuda_graphs: scoped`.
  double dispatch_fwd = 0, dispatch_bwd = 0;
  // Their forward GPU time: GEMMs, and the element-wise kernels' bytes.
  double dispatch_gemm_s = 0, dispatch_ew_bytes = 0, dispatch_ew_kernels = 0;
  const double frozen_bwd = is_lora(w) ? 1.0 : 2.0;  // dgrad (and wgrad) per forward GEMM
  for_each_matmul(ops, [&](const LayerOp& op, double n) {
    const double m = tokens * op.rows;
    if (unfused_lora && op.block == OpBlock::adapter && op.local_params == 0) {
      const double bytes = 10.0 * n * op.rows * op.count;
      ew_bytes += bytes;
      ew_kernels += 2;
      const int p = part_of(op.rerun);
      if (p >= 0) {
        part_bytes[static_cast<size_t>(p)] += bytes;
        part_kernels[static_cast<size_t>(p)] += 2;
      }
    }
    OpTimes& o = op.frozen_under_lora ? base : adapters;
    const bool experts = op.block == OpBlock::experts;
    // A grouped GEMM runs each expert's rows in whole tiles: the last tile of
    // every expert is padded (grouped_gemm_rows).
    // Training only, like the FP8 casts below: serving's GEMMs keep the
    // constants fitted on inference.csv.
    const double m_run = experts && w.task != Task::inference ? grouped_gemm_rows(m) : m;
    const double gemm_s =
        op.count *
        std::max(gemm_time_s(m_run, n, op.k, pk, gpu.hbm_bw_Bps, k, eff), k.kernel_floor_s);
    // The expert rows are the most loaded rank's; its FLOPs over the load
    // are the mean rank's (what the step executes per GPU on average).
    const double flops = op.count * 2.0 * m * n * op.k / (experts ? ops.expert_load : 1.0);
    o.gemm_s += gemm_s;
    o.flops += flops;
    o.kernels += op.count;
    if (op.after_dispatch) {
      dispatch_fwd += op.count;
      dispatch_bwd += (op.frozen_under_lora ? frozen_bwd : 2.0) * op.count;
      dispatch_gemm_s += gemm_s;
    }
    const int part = part_of(op.rerun);
    if (part >= 0) {
      RerunPart& p = t.rerun[static_cast<size_t>(part)];
      p.forward.gemm_s += gemm_s;
      p.forward.flops += flops;
      p.forward.kernels += op.count;
      if (op.split == TpSplit::row) (experts ? p.etp_reductions : p.tp_reductions) += 1;
    }
    if (fp8_training && op.block == OpBlock::experts) {
      // FP8 experts quantise their grouped inputs in a kernel of their own
      // (read 16-bit, write FP8 and its transpose for the weight gradient:
      // kFp8QuantiseBytes per element); a dense layer's casts are fused into
      // the norm and activation before it (Transformer Engine LayerNormLinear).
      ew_bytes += op.count * op.rows * op.k * kFp8QuantiseBytes;
      ew_kernels += 1;
      dispatch_fwd += 1;
      dispatch_bwd += 2;
      dispatch_ew_bytes += op.count * op.rows * op.k * kFp8QuantiseBytes;
      dispatch_ew_kernels += 1;
      if (part >= 0) {
        part_bytes[static_cast<size_t>(part)] += op.count * op.rows * op.k * kFp8QuantiseBytes;
        part_kernels[static_cast<size_t>(part)] += 1;
      }
    }
  });
  for (const LayerOp& op : ops) {
    if (op.kind == OpKind::attention) {
      t.core = core_forward(w, gpu, k, op);
      const int part = part_of(op.rerun);
      if (part >= 0) {
        OpTimes& f = t.rerun[static_cast<size_t>(part)].forward;
        f.attention_s += t.core.attention_s;
        f.elementwise_s += t.core.elementwise_s;
        f.flops += t.core.flops;
        f.kernels += t.core.kernels;
      }
    }
    if (op.kind != OpKind::elementwise) continue;
    ew_bytes += op.bytes_per_token;
    ew_kernels += op.count;
    if (op.after_dispatch) {
      dispatch_fwd += op.count;
      dispatch_bwd += 2.0 * op.count;
      dispatch_ew_bytes += op.bytes_per_token;
      dispatch_ew_kernels += op.count;
    }
    const int part = part_of(op.rerun);
    if (part >= 0) {
      part_bytes[static_cast<size_t>(part)] += op.bytes_per_token;
      part_kernels[static_cast<size_t>(part)] += op.count;
    }
  }
  const double ew = elementwise_s(tokens * ew_bytes, gpu, k, ew_kernels);
  for (int i = 0; i < t.rerun_parts; ++i) {
    const size_t u = static_cast<size_t>(i);
    t.rerun[u].forward.elementwise_s +=
        elementwise_s(tokens * part_bytes[u], gpu, k, part_kernels[u]);
    t.rerun[u].forward.kernels += part_kernels[u];
  }
  // QLoRA: every GEMM of a 4-bit base weight first dequantises the whole
  // weight to 16 bit (eager bitsandbytes: forward and again for the input
  // gradient, and in the recompute forward), a pass at the framework's share
  // of HBM bandwidth; its time does not shrink with the tokens.
  if (is_lora(w) && w.finetune.method == FinetuneMethod::qlora) {
    double frozen = 0;
    for (const LayerOp& op : ops) {
      if (op.kind == OpKind::gemm && op.frozen_under_lora) frozen += op.local_params;
    }
    t.dequant_s =
        frozen * kDequantBytesPerParam / (gpu.hbm_bw_Bps * std::max(1e-3, k.dequant_hbm_share));
  }
  // Forward: every matmul, the core, the element-wise kernels.
  t.forward = base;
  t.forward.gemm_s += adapters.gemm_s;
  t.forward.flops += adapters.flops;
  t.forward.kernels += adapters.kernels;
  t.forward.attention_s += t.core.attention_s;
  t.forward.elementwise_s += t.core.elementwise_s + ew + t.dequant_s;
  t.forward.flops += t.core.flops;
  t.forward.kernels += t.core.kernels + ew_kernels;
  // Backward: dgrad + wgrad, twice the forward matmuls; frozen LoRA bases only
  // dgrad. FlashAttention's backward recomputes the scores: 5 matmuls to the
  // forward's 2 (2.5x); the unfused backward is twice its forward.
  const double base_scale = is_lora(w) ? 1.0 : 2.0;
  const double attn_scale = w.layout.flash_attention ? 2.5 : 2.0;
  OpTimes& b = t.backward;
  b.gemm_s = base_scale * base.gemm_s + 2.0 * adapters.gemm_s;
  b.flops = base_scale * base.flops + 2.0 * adapters.flops + attn_scale * t.core.flops;
  b.kernels =
      base_scale * base.kernels + 2.0 * adapters.kernels + 2.0 * (t.core.kernels + ew_kernels);
  b.attention_s = attn_scale * t.core.attention_s;
  b.elementwise_s = 2.0 * t.core.elementwise_s + 2.0 * ew + t.dequant_s;
  t.elementwise_s = ew;
  // Host launch floor: every kernel is issued by the host without CUDA
  // graphs; with per-layer graphs only those between a MoE layer's dispatch
  // and combine; with whole-step graphs none (docs/model.md, "Host launch floor").
  // Megatron-Core's drop-and-pad path (workload moe.capacity_factor with
  // pad_to_capacity) has static shapes: per-layer graphs may capture the
  // whole MoE layer (the `moe` module, allowed with drop-and-pad only:
  // transformer_config.py "moe cuda graph is only supported with drop-padding
  // MoE"), and no split size is copied to the host, so nothing synchronises
  // it at the dispatch (docs/model.md, "Token dropping").
  const bool drop_and_pad = moe_drop_and_pad(w);
  double host_fwd = 0, host_bwd = 0;
  if (w.cuda_graphs == CudaGraphs::none) {
    host_fwd = t.forward.kernels;
    host_bwd = b.kernels;
  } else if (w.cuda_graphs == CudaGraphs::scoped && !drop_and_pad) {
    host_fwd = dispatch_fwd;
    host_bwd = dispatch_bwd;
  }
  t.host_forward_s = host_fwd * k.host_s_per_kernel;
  t.host_s = (host_fwd + host_bwd) * k.host_s_per_kernel;
  if (w.cuda_graphs != CudaGraphs::full && !drop_and_pad && dispatch_fwd > 0) {
    t.host_dispatch_s = dispatch_fwd * k.host_s_per_kernel;
    t.dispatch_gpu_s =
        dispatch_gemm_s + elementwise_s(tokens * dispatch_ew_bytes, gpu, k, dispatch_ew_kernels);
  }
  return t;
}

LayerTimes layer_times(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       bool moe_layer) {
  return layer_times(w, gpu, k, describe_layer(w, moe_layer));
}

RerunPart rerun_forward(const LayerTimes& t, RecomputeModules modules) {
  RerunPart out;
  out.modules = modules;
  for (int i = 0; i < t.rerun_parts; ++i) {
    const RerunPart& p = t.rerun[static_cast<size_t>(i)];
    if ((p.modules & modules) == 0) continue;
    out.forward.gemm_s += p.forward.gemm_s;
    out.forward.attention_s += p.forward.attention_s;
    out.forward.elementwise_s += p.forward.elementwise_s;
    out.forward.flops += p.forward.flops;
    out.forward.kernels += p.forward.kernels;
    out.tp_reductions += p.tp_reductions;
    out.etp_reductions += p.etp_reductions;
  }
  return out;
}

namespace {

struct LayerDims {
  double tokens;  // T, local tokens of one micro-batch
  double h, t;
};

LayerDims dims(const Workload& w) {
  return {local_tokens(w), static_cast<double>(w.model.hidden), static_cast<double>(w.layout.tp)};
}

}  // namespace

double compute_peak_flops(const Gpu& gpu, Precision p) { return peak(gpu, p); }

double grouped_gemm_rows(double m) {
  if (m <= 0) return 0;
  return std::ceil(m / kGroupedGemmTileRows) * kGroupedGemmTileRows;
}

double gemm_time_s(double m, double n, double kdim, double peak_flops, double hbm_Bps,
                   const ComputeConstants& k, double efficiency, double weight_bytes) {
  if (m <= 0 || n <= 0 || kdim <= 0) return 0;
  const double d0 = k.gemm_half_dim;
  const double shape = m / (m + d0) * (n / (n + d0)) * (kdim / (kdim + d0));
  const double compute = 2.0 * m * n * kdim / (peak_flops * efficiency * shape);
  const double memory =
      (2.0 * (m * kdim + m * n) + weight_bytes * kdim * n) / (hbm_Bps * k.hbm_efficiency);
  return std::max(compute, memory);
}

OpTimes attention_core_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k) {
  return layer_times(w, gpu, k, false).core;
}

OpTimes layer_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                      bool moe_layer) {
  return layer_times(w, gpu, k, moe_layer).forward;
}

OpTimes layer_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       bool moe_layer) {
  return layer_times(w, gpu, k, moe_layer).backward;
}

OpTimes logits_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k) {
  const LayerDims d = dims(w);
  const double v_local = static_cast<double>(w.model.vocab) / d.t;
  const double pk = peak(gpu, w.precision == Precision::fp8 ? Precision::bf16 : w.precision);
  OpTimes o;
  // Output projection forward, dgrad and wgrad (the head stays 16-bit under
  // FP8 recipes); LoRA's frozen head computes no weight gradient.
  const double passes = is_lora(w) ? 2.0 : 3.0;
  o.gemm_s = passes * gemm_time_s(d.tokens, v_local, d.h, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency);
  o.flops = passes * 2.0 * d.tokens * v_local * d.h;
  // Softmax + cross-entropy forward and backward: a few passes over the logits.
  o.elementwise_s = elementwise_s(d.tokens * v_local * 16.0, gpu, k, 4.0);
  return o;
}

OpTimes mtp_depth_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k) {
  const LayerDims d = dims(w);
  const double pk = peak(gpu, w.precision == Precision::fp8 ? Precision::bf16 : w.precision);
  OpTimes o = logits_forward_backward(w, gpu, k);
  // eh_proj, forward, dgrad and wgrad, 16-bit like the head.
  o.gemm_s +=
      3.0 * gemm_time_s(d.tokens, d.h / d.t, 2.0 * d.h, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency);
  o.flops += 3.0 * 2.0 * d.tokens * (d.h / d.t) * 2.0 * d.h;
  o.kernels += 3.0;
  // Three norms (4h bytes per token each forward, twice that backward) and
  // the embedding lookup of the shifted tokens.
  const double seq_div = layer_split(w).seq_div;
  o.elementwise_s += elementwise_s(3.0 * 3.0 * 4.0 * d.tokens * d.h / seq_div, gpu, k, 9.0) +
                     embedding_forward_backward(w, gpu, k).elementwise_s;
  o.kernels += 9.0 + 2.0;
  return o;
}

OpTimes embedding_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k) {
  const LayerDims d = dims(w);
  OpTimes o;
  // Gather rows forward, scatter-add the gradient backward.
  o.elementwise_s = elementwise_s(d.tokens * d.h * 2.0 * 4.0, gpu, k, 2.0);
  return o;
}

}  // namespace scaleout
