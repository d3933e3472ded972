#include "model/params.hpp"

#include <algorithm>

namespace scaleout {

double attention_params_per_layer(const ModelShape& m) {
  const double h = static_cast<double>(m.hidden);
  const double a = m.heads;
  if (m.is_mla()) {
    // DeepSeek-V2 §2.1: queries through a low-rank latent (with its norm),
    // keys/values through a shared latent plus a decoupled RoPE key.
    const MlaShape& x = m.mla;
    const double qk_dim = x.qk_nope_head_dim + x.qk_rope_head_dim;
    const double q = x.q_lora_rank > 0
                         ? h * x.q_lora_rank + x.q_lora_rank + x.q_lora_rank * a * qk_dim
                         : h * a * qk_dim;
    const double kv = h * (x.kv_lora_rank + x.qk_rope_head_dim) + x.kv_lora_rank +
                      x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim);
    const double o = a * x.v_head_dim * h;
    return q + kv + o;
  }
  const double d = m.head_size();
  const double k = m.kv_heads;
  double p = h * a * d + 2.0 * h * k * d + a * d * h;
  if (m.linear_bias)
    p += a * d + 2.0 * k * d + h;
  else if (m.qkv_bias)
    p += a * d + 2.0 * k * d;
  return p;
}

double mlp_params(const ModelShape& m, long long f_) {
  const double h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(f_);
  if (m.mlp == MlpKind::swiglu) return 3.0 * h * f + (m.linear_bias ? 2.0 * f + h : 0.0);
  return 2.0 * h * f + (m.linear_bias ? f + h : 0.0);
}

int moe_layer_count(const ModelShape& m) {
  return m.is_moe() ? std::max(0, m.layers - m.moe.dense_layers) : 0;
}

ParamCounts count_params(const ModelShape& m) {
  ParamCounts c;
  const double h = static_cast<double>(m.hidden);
  c.embedding = static_cast<double>(m.vocab) * h;
  if (m.position == PositionKind::learned) c.embedding += static_cast<double>(m.max_position) * h;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  c.attention = m.layers * attention_params_per_layer(m);

  const int moe_layers = moe_layer_count(m);
  const int dense_layers = m.layers - moe_layers;
  c.dense_mlp = dense_layers * mlp_params(m, m.ffn);
  if (moe_layers > 0) {
    const double expert = mlp_params(m, m.moe.expert_ffn);
    c.expert_mlp = static_cast<double>(moe_layers) * m.moe.experts * expert;
    c.shared_expert_mlp = static_cast<double>(moe_layers) * m.moe.shared_experts * expert;
    c.router = static_cast<double>(moe_layers) * m.moe.experts * h;
  }
  const double norm = m.norm == NormKind::layernorm ? 2.0 * h : h;
  c.norms = (2.0 * m.layers + 1.0) * norm;

  c.active = c.total() - c.expert_mlp;
  if (moe_layers > 0) {
    c.active += static_cast<double>(moe_layers) * m.moe.top_k * mlp_params(m, m.moe.expert_ffn);
  }
  return c;
}

const char* to_string(MlpKind k) { return k == MlpKind::swiglu ? "swiglu" : "gelu"; }
const char* to_string(PositionKind k) {
  switch (k) {
    case PositionKind::learned:
      return "learned";
    case PositionKind::rope:
      return "rope";
    case PositionKind::alibi:
      return "alibi";
  }
  return "?";
}
const char* to_string(NormKind k) { return k == NormKind::rmsnorm ? "rmsnorm" : "layernorm"; }

}  // namespace scaleout
