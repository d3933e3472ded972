#include "model/layer.hpp"

#include <algorithm>
#include <cmath>

namespace scaleout {

double local_kv_heads(const ModelShape& m, double tp) {
  return std::max(1.0, static_cast<double>(m.kv_heads) / tp);
}

int moe_layer_count(const ModelShape& m) {
  return m.is_moe() ? std::max(0, m.layers - m.moe.dense_layers) : 0;
}

namespace {

// Appends operations to a LayerOps; each helper fills one kind.
class Builder {
 public:
  Builder(LayerOps& out, const ModelShape& m, const LayerSplit& s)
      : out_(out), h_(static_cast<double>(m.hidden)), s_(s) {}

  LayerOp& add(OpKind kind, OpBlock block) {
    LayerOp& op = out_.push();
    op.kind = kind;
    op.block = block;
    return op;
  }
  // A matmul of k -> n per GPU (already split), owning `params` weights of
  // which one GPU holds `local`.
  LayerOp& gemm(OpBlock block, TpSplit split, double n, double k, double params, double local,
                int fuse = 0) {
    LayerOp& op = add(OpKind::gemm, block);
    op.split = split;
    op.n = n;
    op.k = k;
    op.params = params;
    op.local_params = local;
    op.fuse = fuse;
    // Routed experts reduce over the expert-TP group, everything else over TP
    // (the shared experts run their own gather and reduce-scatter, Megatron-Core).
    if (split == TpSplit::row)
      ++(block == OpBlock::experts ? out_.etp_reductions : out_.tp_reductions);
    return op;
  }
  LayerOp& elementwise(OpBlock block, double bytes_per_token, double params = 0) {
    LayerOp& op = add(OpKind::elementwise, block);
    op.bytes_per_token = bytes_per_token;
    op.params = params;
    op.local_params = params;
    return op;
  }
  // Norm (reads and writes the residual stream; stores its input).
  LayerOp& norm(double params) {
    LayerOp& op = elementwise(OpBlock::norm, 4.0 * h_ / s_.seq_div, params);
    op.input = {h_ / s_.seq_div, Stored::act16};
    return op;
  }
  void residual() { elementwise(OpBlock::other, 6.0 * h_ / s_.seq_div); }
  void dropout() {
    LayerOp& op = elementwise(OpBlock::other, 5.0 * h_ / s_.seq_div);
    op.output = {h_ / s_.seq_div, Stored::mask};
  }

 private:
  LayerOps& out_;
  double h_;
  const LayerSplit& s_;
};

// Parameters of a linear in -> out with an optional bias.
double linear(double in, double out, bool bias) { return in * out + (bias ? out : 0.0); }

// Recompute modules (model/layer.hpp RecomputeModule) as bits.
constexpr RecomputeModules kCoreAttn = module_bit(RecomputeModule::core_attn);
constexpr RecomputeModules kMoeAct = module_bit(RecomputeModule::moe_act);
constexpr RecomputeModules kLayernorm = module_bit(RecomputeModule::layernorm);
constexpr RecomputeModules kMlaUpProj = module_bit(RecomputeModule::mla_up_proj);
constexpr RecomputeModules kMlp = module_bit(RecomputeModule::mlp);
constexpr RecomputeModules kMoe = module_bit(RecomputeModule::moe);
constexpr RecomputeModules kSharedExperts = module_bit(RecomputeModule::shared_experts);

void describe_attention(Builder& b, const ModelShape& m, const LayerSplit& s, LayerOps& out) {
  const double h = static_cast<double>(m.hidden);
  const double a = m.heads;
  const double t = s.tp;
  const double sd = s.seq_div;
  if (m.is_mla()) {
    // DeepSeek-V2 §2.1: queries through a low-rank latent (with its norm),
    // keys/values through a shared latent plus a decoupled RoPE key.
    const MlaShape& x = m.mla;
    const double qk = x.qk_nope_head_dim + x.qk_rope_head_dim;
    const double latent = x.kv_lora_rank + x.qk_rope_head_dim;
    bool first = true;
    // The projections' input is the input norm's output, which layernorm
    // recompute drops (MLA's input norm is a module of its own).
    auto input = [&](LayerOp& op) {
      if (first) op.input = {h / sd, Stored::gemm_input, kLayernorm};
      first = false;
    };
    // The query and key/value up-projections and RoPE: mla_up_proj re-runs
    // them and drops their outputs.
    auto up_proj = [](LayerOp& op) {
      op.rerun = kMlaUpProj;
      op.output.dropped_by = kMlaUpProj;
    };
    if (x.q_lora_rank > 0) {
      const double qa = h * x.q_lora_rank + x.q_lora_rank;
      LayerOp& q_a = b.gemm(OpBlock::attention, TpSplit::none, x.q_lora_rank, h, qa, qa / t);
      input(q_a);
      q_a.output = {2.0 * x.q_lora_rank / sd, Stored::act16};  // latent and its norm
      const double qb = x.q_lora_rank * a * qk;
      LayerOp& q_b =
          b.gemm(OpBlock::attention, TpSplit::column, a * qk / t, x.q_lora_rank, qb, qb / t);
      q_b.output = {a * qk / t, Stored::act16};  // queries
      up_proj(q_b);
    } else {
      const double q = h * a * qk;
      LayerOp& op = b.gemm(OpBlock::attention, TpSplit::column, a * qk / t, h, q, q / t);
      input(op);
      op.output = {a * qk / t, Stored::act16};
      up_proj(op);
    }
    const double kva = h * latent + x.kv_lora_rank;
    LayerOp& kv_a = b.gemm(OpBlock::attention, TpSplit::none, latent, h, kva, kva / t);
    input(kv_a);
    kv_a.output = {2.0 * latent / sd, Stored::act16};  // latent and its norm
    if (s.absorbed_mla) {
      // W_UK absorbed into the queries, W_UV into the output (decode).
      const double uk = x.kv_lora_rank * a * x.qk_nope_head_dim;
      const double uv = x.kv_lora_rank * a * x.v_head_dim;
      b.gemm(OpBlock::attention, TpSplit::column, a / t * x.kv_lora_rank, x.qk_nope_head_dim, uk,
             uk / t);
      b.gemm(OpBlock::attention, TpSplit::column, a / t * x.v_head_dim, x.kv_lora_rank, uv, uv / t);
    } else {
      const double kvb = x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim);
      LayerOp& kv_b =
          b.gemm(OpBlock::attention, TpSplit::column, a * (x.qk_nope_head_dim + x.v_head_dim) / t,
                 x.kv_lora_rank, kvb, kvb / t);
      kv_b.output = {a * (qk + x.v_head_dim) / t, Stored::act16};  // keys and values
      up_proj(kv_b);
    }
    if (m.position == PositionKind::rope)
      b.elementwise(OpBlock::other, 4.0 * 2.0 * a * qk / t).rerun = kMlaUpProj;
    LayerOp& core = b.add(OpKind::attention, OpBlock::attention);
    core.rerun = kCoreAttn;
    core.heads = a / t;
    core.qk_dim = qk;
    core.v_dim = x.v_head_dim;
    out.attn_out_local = a * x.v_head_dim / t;
    const double o = a * x.v_head_dim * h;
    LayerOp& op = b.gemm(OpBlock::attention, TpSplit::row, h, out.attn_out_local, o, o / t);
    op.input = {out.attn_out_local, Stored::gemm_input};
    return;
  }
  const double d = m.head_size();
  const double k = m.kv_heads;
  const double kv_local = local_kv_heads(m, t) * d;
  const bool qkv_bias = m.linear_bias || m.qkv_bias;
  // Q, K and V run as one fused matmul; a GQA K/V head is replicated when tp
  // exceeds the K/V heads, so each rank holds max(1, k/t) of them.
  const double q = linear(h, a * d, qkv_bias);
  LayerOp& q_op = b.gemm(OpBlock::attention, TpSplit::column, a * d / t, h, q, q / t, 1);
  q_op.input = {h / s.seq_div, Stored::gemm_input};
  q_op.output = {a * d / t, Stored::act16};
  const double kv = linear(h, k * d, qkv_bias);
  const double kv_share = local_kv_heads(m, t) / std::max(1.0, k);
  for (int i = 0; i < 2; ++i) {
    LayerOp& op = b.gemm(OpBlock::attention, TpSplit::column, kv_local, h, kv, kv * kv_share, 1);
    op.output = {kv_local, Stored::act16};
  }
  // Training under Megatron-Core (the frameworks of mcore_grouped_mlp, as
  // for the experts' clamp and bias) with YaRN of factor > 1: its concentration
  // factor 0.1 ln(factor) + 1 is not 1, and Megatron-Core then applies RoPE
  // unfused (rope_utils.py apply_rotary_pos_emb, `mscale != 1.0`;
  // yarn_rotary_pos_embedding.py _yarn_get_mscale). MLA is not in this branch
  // (its own fused YaRN kernels).
  const bool unfused_rope =
      s.mcore_experts && m.rope_scaling == "yarn" && m.rope_scaling_factor > 1;
  if (m.position == PositionKind::rope && unfused_rope) {
    // Megatron-Core's unfused RoPE (rope_utils.py _apply_rotary_pos_emb_bshd,
    // _rotate_half), on q and on k apart: t * cos (read 2, write 2), -x2 over
    // half of t (2), cat(-x2, x1) (4), * sin (4), the sum (read 4, write 2),
    // cat with the empty pass-through part (4): 24 bytes per element in six
    // kernels per tensor. The cos and sin of the [s, d] angles are not counted.
    LayerOp& rope = b.elementwise(OpBlock::other, 24.0 * (a * d / t + kv_local));
    rope.count = 12;
  } else if (m.position == PositionKind::rope) {
    b.elementwise(OpBlock::other, 4.0 * (a * d / t + kv_local));  // rotary on q, k
  }
  LayerOp& core = b.add(OpKind::attention, OpBlock::attention);
  core.rerun = kCoreAttn;
  core.heads = a / t;
  core.qk_dim = d;
  core.v_dim = d;
  out.attn_out_local = a * d / t;
  const double o = linear(a * d, h, m.linear_bias);
  LayerOp& o_op = b.gemm(OpBlock::attention, TpSplit::row, h, out.attn_out_local, o, o / t);
  o_op.input = {out.attn_out_local, Stored::gemm_input};
}

// A dense MLP of intermediate size f (whole model) split over t: fc1 (and
// the gate, fused with it), the activation, fc2. `copies`: token copies per
// token (routed experts), `count` identical matmuls of `rows` rows per token.
struct MlpSpec {
  OpBlock block;
  double f;            // intermediate size of one expert (or of the dense MLP)
  double experts = 1;  // experts the parameters count (routed or shared), 1 for dense
  double local_div;    // divisor of the parameters one GPU holds
  double split;        // divisor of the intermediate size (the TP or expert-TP degree)
  double width = 1;    // experts run as one matmul (shared experts)
  double rows = 1, count = 1;
  double copies = 1;                // token copies per token (stored tensors)
  Stored fc1_input = Stored::none;  // the MLP input, when this MLP stores it
  Stored fc2_input = Stored::act16;
  Stored act_input = Stored::act16;  // FC1's (and the gate's) output, the activation's input
  int fuse = 0;
  // The recompute modules that re-run this MLP and drop its tensors (the
  // input of a checkpointed block is kept, so only a stored fc1 input that
  // is a fused norm's output is dropped).
  RecomputeModules unit = 0;
};

// Appends fc1 (and the gate), fc2; returns fc2.
LayerOp& describe_mlp(Builder& b, const ModelShape& m, const LayerSplit& s, const MlpSpec& x) {
  const double h = static_cast<double>(m.hidden);
  const double f_local = x.f * x.width / x.split;
  const bool swiglu = m.mlp == MlpKind::swiglu;
  const double up = x.experts * linear(h, x.f, m.linear_bias);
  LayerOp& fc1 = b.gemm(x.block, TpSplit::column, f_local, h, up, up / x.local_div, x.fuse);
  fc1.rows = x.rows;
  fc1.count = x.count;
  fc1.input = {x.fc1_input == Stored::none ? 0.0 : h / s.seq_div, x.fc1_input, x.unit};
  fc1.output = {x.copies * f_local, x.act_input, x.unit};
  fc1.rerun = x.unit;
  if (swiglu) {
    LayerOp& gate = b.gemm(x.block, TpSplit::column, f_local, h, up, up / x.local_div, x.fuse);
    gate.rows = x.rows;
    gate.count = x.count;
    gate.output = {x.copies * f_local, x.act_input, x.unit};
    gate.rerun = x.unit;
  }
  const double down = x.experts * linear(x.f, h, m.linear_bias);
  LayerOp& fc2 = b.gemm(x.block, TpSplit::row, h, f_local, down, down / x.local_div);
  fc2.rows = x.rows;
  fc2.count = x.count;
  fc2.input = {x.copies * f_local, x.fc2_input, x.unit};
  fc2.rerun = x.unit;
  return fc2;
}

void describe_adapters(Builder& b, const ModelShape& m, bool moe_layer, const LayerSplit& s,
                       const AdapterSpec& ad) {
  // Adapters x A (r columns) then (x A) B on each adapted linear, trained:
  // r * (in + out) parameters each.
  const double r = ad.rank;
  const double h = static_cast<double>(m.hidden);
  const double d = m.head_size();
  auto adapter = [&](double in, double out) {
    const double p = r * (in + out);
    // LoRA dropout (PEFT lora/layer.py: lora_B(lora_A(dropout(x))), an
    // nn.Dropout of the adapter's own): one kernel over the input, read 2,
    // write 2 and a 1-byte mask. Its mask and the dropped input (what A's
    // weight gradient reads) are not counted as stored: counted, they call
    // nine Answer.AI RTX 3090/4090 rows of real runs out of memory
    // (docs/model.md, "Element-wise kernels").
    if (ad.dropout > 0) b.elementwise(OpBlock::adapter, 5.0 * in);
    // x A: [T x in] by [in x r]; (x A) B: [T x r] by [r x out].
    LayerOp& a = b.gemm(OpBlock::adapter, TpSplit::none, r, in, p, p / s.tp);
    a.frozen_under_lora = false;
    a.output = {r, Stored::act16};  // the rank-r intermediate
    LayerOp& bb = b.gemm(OpBlock::adapter, TpSplit::none, out, r, 0, 0);
    bb.frozen_under_lora = false;
  };
  const AdapterTargets t = ad.targets;
  adapter(h, m.heads * d);                                  // q
  if (t != AdapterTargets::qv) adapter(h, m.kv_heads * d);  // k
  adapter(h, m.kv_heads * d);                               // v
  if (t == AdapterTargets::qkv || t == AdapterTargets::qv) return;
  adapter(m.heads * d, h);  // o
  if (t == AdapterTargets::attention) return;
  const double f = static_cast<double>(moe_layer ? m.moe.expert_ffn : m.ffn);
  const int in_mats = m.mlp == MlpKind::swiglu ? 2 : 1;  // gate and up, or fc1
  for (int i = 0; i < in_mats; ++i) adapter(h, f);
  adapter(f, h);  // down (fc2)
}

}  // namespace

LayerOps describe_layer(const ModelShape& m, bool moe_layer, const LayerSplit& s,
                        const AdapterSpec& adapters) {
  LayerOps out;
  out.moe = moe_layer;
  Builder b(out, m, s);
  const double h = static_cast<double>(m.hidden);
  const double norm_params = m.norm == NormKind::layernorm ? 2.0 * h : h;

  // Attention block (Korthikanti et al. 2022 §4.1). MLA's input norm is a
  // module of its own (layernorm recompute); the others are fused into the
  // QKV projection under Transformer Engine (gpt_layer_specs.py).
  LayerOp& input_norm = b.norm(norm_params);
  if (m.is_mla()) input_norm.rerun = kLayernorm;
  describe_attention(b, m, s, out);
  if (m.dropout) b.dropout();
  b.residual();

  // MLP block. The pre-MLP norm of a MoE layer is a module of its own
  // (layernorm recompute); a dense MLP's is fused into its FC1 and re-runs
  // with it (mlp recompute).
  LayerOp& mlp_norm = b.norm(norm_params);
  mlp_norm.rerun = moe_layer ? kLayernorm : kMlp;
  const bool swiglu = m.mlp == MlpKind::swiglu;
  if (moe_layer) {
    const MoeShape& e = m.moe;
    // Routed token copies per token; token dropping (Workload::moe_capacity_factor)
    // acts through the split's expert_load.
    const double copies = e.top_k;
    out.expert_load = s.expert_load;
    const double router = e.experts * h;
    // The router is replicated on every tensor-parallel rank (Megatron-Core).
    LayerOp& r = b.gemm(OpBlock::router, TpSplit::none, e.experts, h, router, router);
    // The MoE block's input (the pre-MLP norm's output): kept by moe
    // recompute as its checkpoint's input, dropped by layernorm recompute.
    r.input = {h / s.seq_div, Stored::act16, kLayernorm};
    r.output = {e.experts / s.seq_div, Stored::fp32, kMoe};  // router probabilities
    r.rerun = kMoe;
    // Score function and top-k in FP32 (Megatron-Core --moe-router-dtype
    // fp32, router.py): read the logits, write the probabilities, read them
    // for the top-k selection, 4 bytes per expert each.
    if (s.training) b.elementwise(OpBlock::other, 12.0 * e.experts / s.seq_div).rerun = kMoe;
    // MoE parallel folding (Megatron-Core): a rank routes its tokens/tp
    // (sequence-parallel) share; an expert's etp ranks gather the copies
    // sent to it, so a rank runs etp/tp of the layer's token copies through
    // its E/ep experts, each at width f/etp; the most loaded rank runs
    // expert_load times the mean.
    const double hot = copies * s.etp / s.tp * s.expert_load;  // rows per local token
    const int dispatch_begin = out.size;  // the ops from the dispatch to the combine
    LayerOp& permute = b.elementwise(OpBlock::other, 4.0 * h * e.top_k / s.seq_div);
    // The experts' FC1 input, kept for its weight gradient (FP8 under
    // Transformer Engine, as DeepSeek-V3 caches it, report §3.3).
    permute.output = {hot * h, Stored::gemm_input, kMoe};  // expert inputs, as gathered
    permute.rerun = kMoe;
    const double local_experts = std::max(1.0, static_cast<double>(e.experts) / s.ep);
    // Several local experts: the received rows are sorted by expert before
    // them and back after them (Megatron-Core's second permutation,
    // sort_chunks_by_idxs; DeepEP's permute to expert order), a read and a
    // write of every received row each way.
    const double local_permute = s.training && local_experts > 1 ? 4.0 * h * hot : 0.0;
    if (local_permute > 0) b.elementwise(OpBlock::other, local_permute).rerun = kMoe;
    const double fe = static_cast<double>(e.expert_ffn);
    MlpSpec routed{OpBlock::experts, fe, static_cast<double>(e.experts), s.ep * s.etp, s.etp};
    routed.rows = hot / local_experts;
    routed.count = std::floor(local_experts);
    routed.copies = hot;
    routed.fuse = 2;
    routed.unit = kMoe;
    routed.act_input = Stored::moe_act_input;
    // The routing weights multiply inside the activation (Megatron-Core
    // experts.py), so the combine is a scatter-add that keeps nothing.
    // moe_act re-runs the activation and drops its output, FC2's input.
    LayerOp& fc2 = describe_mlp(b, m, s, routed);
    fc2.input.dropped_by |= kMoeAct;
    b.elementwise(OpBlock::other, (swiglu ? 6.0 : 4.0) * fe / s.etp * hot).rerun =
        kMoe | kMoeAct;  // activation x probs
    if (s.mcore_experts && swiglu && m.activation_clamp > 0) {
      // Megatron-Core clamps the gate and linear halves of FC1's output in
      // eager PyTorch before its fused activation (fused_bias_geglu.py
      // weighted_bias_quick_geglu_impl, `if clamp_value is not None`): a
      // clamp of each half (read 2, write 2 over f each) and torch.cat of
      // the two (read 2, write 2 over 2f), 16 bytes per intermediate element
      // of a routed row, inside moe_act's checkpoint. The fused activation
      // saves the clamped copy for its backward while the clamps' autograd
      // keeps FC1's output: 2f more per routed row, dropped by moe_act.
      LayerOp& clamp = b.elementwise(OpBlock::other, 16.0 * fe / s.etp * hot);
      clamp.rerun = kMoe | kMoeAct;
      clamp.output = {2.0 * fe / s.etp * hot, Stored::moe_act_input, kMoe | kMoeAct};
    }
    if (s.mcore_experts && m.linear_bias) {
      // Megatron-Core builds the experts' FC2 with skip_bias_add and adds the
      // router-weighted bias after the grouped GEMM, per local expert in
      // eager PyTorch (experts.py TEGroupedMLP._apply_bias: t + b * p over
      // torch.split of the rows, then torch.cat): b * p written (2), read
      // with the GEMM output and the sum written (2 + 2, 2), the cat (2, 2),
      // 12 bytes per output element of a routed row (16-bit probabilities).
      b.elementwise(OpBlock::other, 12.0 * h * hot).rerun = kMoe;
    }
    if (local_permute > 0)
      b.elementwise(OpBlock::other, local_permute).rerun = kMoe;  // back to token order
    if (e.shared_experts > 0) {
      MlpSpec shared{OpBlock::shared_experts, fe, static_cast<double>(e.shared_experts), s.tp,
                     s.tp};
      shared.width = e.shared_experts;
      shared.fuse = 3;
      shared.unit = kMoe | kSharedExperts;
      shared.act_input = Stored::moe_act_input;
      describe_mlp(b, m, s, shared);
    }
    b.elementwise(OpBlock::other, 4.0 * h * e.top_k / s.seq_div).rerun = kMoe;  // unpermute
    for (int i = dispatch_begin; i < out.size; ++i) out.at(i).after_dispatch = true;
  } else {
    MlpSpec dense{OpBlock::mlp, static_cast<double>(m.ffn), 1.0, s.tp, s.tp};
    dense.fc1_input = Stored::gemm_input;
    dense.fc2_input = Stored::gemm_input;
    dense.fuse = 2;
    dense.unit = kMlp;
    describe_mlp(b, m, s, dense);
    b.elementwise(OpBlock::other, (swiglu ? 6.0 : 4.0) * static_cast<double>(m.ffn) / s.tp).rerun =
        kMlp;  // activation
  }
  if (m.dropout) b.dropout();
  b.residual();

  if (adapters.rank > 0) describe_adapters(b, m, moe_layer, s, adapters);

  for (const LayerOp& op : out) {
    out.params[static_cast<std::size_t>(op.block)] += op.params;
    out.local_params[static_cast<std::size_t>(op.block)] += op.local_params;
    out.stored[static_cast<std::size_t>(op.input.kind)] += op.input.elems;
    out.stored[static_cast<std::size_t>(op.output.kind)] += op.output.elems;
    if (op.kind == OpKind::attention) out.core_heads += op.heads;
  }
  return out;
}

}  // namespace scaleout
