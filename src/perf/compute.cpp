#include "perf/compute.hpp"

#include <algorithm>

namespace scaleout {

ComputeConstants compute_constants(const Gpu& gpu) {
  // The family's kernel shares (data/catalog/families.json: MAMF / dense
  // peak, FlashAttention shares) times the share of them whole runs sustain.
  const GpuFamily& f = gpu.family_data;
  ComputeConstants k;
  k.gemm_efficiency = f.gemm_share * f.sustained_factor;
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

struct LayerDims {
  double tokens;  // T, local tokens of one micro-batch
  double h, t;
  double q_dim, kv_dim, out_dim;  // per GPU (already divided by TP)
  double f_local;
  double seq_kv;  // keys each query attends to
};

LayerDims dims(const Workload& w) {
  const ModelShape& m = w.model;
  LayerDims d;
  d.tokens = static_cast<double>(w.seq_len) * w.layout.micro_batch / w.layout.cp;
  d.h = static_cast<double>(m.hidden);
  d.t = w.layout.tp;
  if (m.is_mla()) {
    const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    d.q_dim = m.heads * qk / d.t;
    d.kv_dim = m.heads * qk / d.t;  // keys decompressed per head
    d.out_dim = m.heads * m.mla.v_head_dim / d.t;
  } else {
    d.q_dim = m.heads * static_cast<double>(m.head_size()) / d.t;
    d.kv_dim = std::max(1.0, m.kv_heads / d.t) * m.head_size();
    d.out_dim = d.q_dim;
  }
  d.f_local = static_cast<double>(m.ffn) / d.t;
  d.seq_kv = static_cast<double>(w.seq_len);
  return d;
}

// Matmuls of one layer's forward pass; `scale` multiplies FLOPs (2 for a
// backward pass's dgrad + wgrad).
OpTimes layer_gemms(const Workload& w, const Gpu& gpu, const ComputeConstants& k, bool moe_layer,
                    double frozen_scale, double trained_scale) {
  const ModelShape& m = w.model;
  const LayerDims d = dims(w);
  const double pk = peak(gpu, w.precision);
  const double eff = w.precision == Precision::fp8 && gpu.fp8_flops > 0 ? k.fp8_gemm_efficiency
                                                                        : k.gemm_efficiency;
  const double bw = gpu.hbm_bw_Bps;
  OpTimes o;
  auto gemm = [&](double mm, double nn, double kk, double scale) {
    o.gemm_s += scale * std::max(gemm_time_s(mm, nn, kk, pk, bw, k, eff), k.kernel_floor_s);
    o.flops += scale * 2.0 * mm * nn * kk;
    o.kernels += scale;
  };
  const bool lora = is_lora(w);
  const double s_base = lora ? frozen_scale : trained_scale;
  if (m.is_mla()) {
    const MlaShape& x = m.mla;
    if (x.q_lora_rank > 0) {
      gemm(d.tokens, x.q_lora_rank, d.h, s_base);
      gemm(d.tokens, d.q_dim, x.q_lora_rank, s_base);
    } else {
      gemm(d.tokens, d.q_dim, d.h, s_base);
    }
    gemm(d.tokens, x.kv_lora_rank + x.qk_rope_head_dim, d.h, s_base);
    gemm(d.tokens, m.heads * (x.qk_nope_head_dim + x.v_head_dim) / d.t, x.kv_lora_rank, s_base);
  } else {
    gemm(d.tokens, d.q_dim + 2.0 * d.kv_dim, d.h, s_base);  // fused QKV
  }
  gemm(d.tokens, d.h, d.out_dim, s_base);  // output projection
  const double mats_in = m.mlp == MlpKind::swiglu ? 2.0 : 1.0;
  if (moe_layer) {
    const MoeShape& e = m.moe;
    gemm(d.tokens, e.experts, d.h, s_base);  // router
    // Each GPU runs its experts on top_k * capacity_factor token copies
    // (balanced routing), split into E/ep local experts.
    const double local_experts = std::max(1.0, static_cast<double>(e.experts) / w.layout.ep);
    const double tokens_per_expert = d.tokens * e.top_k * e.capacity_factor / local_experts;
    const double fe = static_cast<double>(e.expert_ffn) / d.t;
    for (int i = 0; i < static_cast<int>(local_experts); ++i) {
      gemm(tokens_per_expert, mats_in * fe, d.h, s_base);
      gemm(tokens_per_expert, d.h, fe, s_base);
    }
    if (e.shared_experts > 0) {
      gemm(d.tokens, mats_in * fe * e.shared_experts, d.h, s_base);
      gemm(d.tokens, d.h, fe * e.shared_experts, s_base);
    }
  } else {
    gemm(d.tokens, mats_in * d.f_local, d.h, s_base);
    gemm(d.tokens, d.h, d.f_local, s_base);
  }
  if (lora) {
    // Adapters: x A (r columns) and (x A) B on each adapted linear, trained.
    const double r = w.finetune.rank;
    for (int i = 0; i < lora_adapters_per_layer(w); ++i) {
      gemm(d.tokens, r, d.h, trained_scale);
      gemm(d.tokens, d.h, r, trained_scale);
    }
  }
  return o;
}

// Element-wise kernels of one layer's forward pass: bytes moved per token
// (16-bit values; read + write) and kernel count.
struct Elementwise {
  double bytes_per_token = 0;
  double kernels = 0;
};

Elementwise elementwise_per_token(const Workload& w, bool moe_layer) {
  const ModelShape& m = w.model;
  const LayerDims d = dims(w);
  const double seq_div = (w.layout.sp && w.layout.tp > 1) ? d.t : 1.0;
  Elementwise e;
  auto op = [&](double bytes) {
    e.bytes_per_token += bytes;
    e.kernels += 1;
  };
  op(4.0 * d.h / seq_div);  // norm before attention
  op(4.0 * d.h / seq_div);  // norm before the MLP
  op(6.0 * d.h / seq_div);  // residual add after attention
  op(6.0 * d.h / seq_div);  // residual add after the MLP
  if (m.dropout) {
    op(5.0 * d.h / seq_div);  // dropout after attention, with its mask
    op(5.0 * d.h / seq_div);  // dropout after the MLP
  }
  const double f =
      moe_layer ? static_cast<double>(m.moe.expert_ffn) / d.t * m.moe.top_k * m.moe.capacity_factor
                : d.f_local;
  op((m.mlp == MlpKind::swiglu ? 6.0 : 4.0) * f);                        // activation function
  if (m.position == PositionKind::rope) op(4.0 * (d.q_dim + d.kv_dim));  // rotary on q, k
  if (moe_layer) {
    op(4.0 * d.h * m.moe.top_k);  // permute
    op(4.0 * d.h * m.moe.top_k);  // unpermute
  }
  return e;
}

}  // namespace

double compute_peak_flops(const Gpu& gpu, Precision p) { return peak(gpu, p); }

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
  const ModelShape& m = w.model;
  const LayerDims d = dims(w);
  const double pk = peak(gpu, w.precision == Precision::fp8 ? Precision::bf16 : w.precision);
  const double heads = m.heads / d.t;
  const double qk_dim = m.is_mla() ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim
                                   : static_cast<double>(m.head_size());
  const double v_dim = m.is_mla() ? m.mla.v_head_dim : static_cast<double>(m.head_size());
  OpTimes o;
  // QK^T and AV over the keys each query sees; causal FlashAttention skips the
  // masked half, the unfused kernels compute the full s x s scores.
  const double causal = w.layout.flash_attention ? 0.5 : 1.0;
  o.flops = 2.0 * d.tokens * d.seq_kv * heads * (qk_dim + v_dim) * causal;
  if (w.layout.flash_attention) {
    o.attention_s = std::max(o.flops / (pk * k.attention_efficiency), k.kernel_floor_s);
    o.kernels = 1;
  } else {
    // Batched GEMMs of shape (s x d) * (d x s) and (s x s) * (s x d), and the
    // scores written, soft-maxed (and dropped out) through HBM.
    const double batches = w.layout.micro_batch * heads;
    const double sq = d.tokens / w.layout.micro_batch;
    o.attention_s =
        batches * (gemm_time_s(sq, d.seq_kv, qk_dim, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency) +
                   gemm_time_s(sq, v_dim, d.seq_kv, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency));
    const double score_bytes = (m.dropout ? 9.0 : 4.0) * d.tokens * d.seq_kv * heads;
    o.elementwise_s = elementwise_s(score_bytes, gpu, k, m.dropout ? 2.0 : 1.0);
    o.kernels = 2.0 + (m.dropout ? 2.0 : 1.0);
  }
  return o;
}

OpTimes layer_forward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                      bool moe_layer) {
  OpTimes o = layer_gemms(w, gpu, k, moe_layer, 1.0, 1.0);
  const OpTimes a = attention_core_forward(w, gpu, k);
  o.attention_s += a.attention_s;
  o.elementwise_s += a.elementwise_s;
  o.flops += a.flops;
  const Elementwise e = elementwise_per_token(w, moe_layer);
  o.elementwise_s += elementwise_s(dims(w).tokens * e.bytes_per_token, gpu, k, e.kernels);
  o.kernels += a.kernels + e.kernels;
  return o;
}

OpTimes layer_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k,
                       bool moe_layer) {
  // dgrad + wgrad: twice the forward matmuls; frozen LoRA bases only dgrad.
  OpTimes o = layer_gemms(w, gpu, k, moe_layer, 1.0, 2.0);
  // FlashAttention's backward recomputes the scores: 5 matmuls to the
  // forward's 2 (2.5x); the unfused backward is twice its forward.
  const OpTimes a = attention_core_forward(w, gpu, k);
  const double attn_scale = w.layout.flash_attention ? 2.5 : 2.0;
  o.attention_s += attn_scale * a.attention_s;
  o.elementwise_s += 2.0 * a.elementwise_s;
  o.flops += attn_scale * a.flops;
  const Elementwise e = elementwise_per_token(w, moe_layer);
  o.elementwise_s += 2.0 * elementwise_s(dims(w).tokens * e.bytes_per_token, gpu, k, e.kernels);
  o.kernels += 2.0 * (a.kernels + e.kernels);
  return o;
}

OpTimes logits_forward_backward(const Workload& w, const Gpu& gpu, const ComputeConstants& k) {
  const LayerDims d = dims(w);
  const double v_local = static_cast<double>(w.model.vocab) / d.t;
  const double pk = peak(gpu, w.precision == Precision::fp8 ? Precision::bf16 : w.precision);
  OpTimes o;
  // Output projection forward, dgrad and wgrad (the head stays 16-bit under FP8 recipes).
  o.gemm_s = 3.0 * gemm_time_s(d.tokens, v_local, d.h, pk, gpu.hbm_bw_Bps, k, k.gemm_efficiency);
  o.flops = 3.0 * 2.0 * d.tokens * v_local * d.h;
  // Softmax + cross-entropy forward and backward: a few passes over the logits.
  o.elementwise_s = elementwise_s(d.tokens * v_local * 16.0, gpu, k, 4.0);
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
