#include "model/params.hpp"

#include "core/enum_names.hpp"
#include "model/layer.hpp"

namespace scaleout {

double attention_params_per_layer(const ModelShape& m) {
  return block_params(describe_layer(m, false), OpBlock::attention);
}

double mlp_params_per_layer(const ModelShape& m) {
  return block_params(describe_layer(m, false), OpBlock::mlp);
}

ParamCounts count_params(const ModelShape& m) {
  ParamCounts c;
  const double h = static_cast<double>(m.hidden);
  c.embedding = static_cast<double>(m.vocab) * h;
  if (m.position == PositionKind::learned) c.embedding += static_cast<double>(m.max_position) * h;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;

  // Every layer's attention and norms are alike; dense and MoE layers differ
  // in their MLP.
  const LayerOps dense = describe_layer(m, false);
  const int moe_layers = moe_layer_count(m);
  const int dense_layers = m.layers - moe_layers;
  c.attention = m.layers * block_params(dense, OpBlock::attention);
  c.dense_mlp = dense_layers * block_params(dense, OpBlock::mlp);
  double active_experts = 0;
  const double norm = m.norm == NormKind::layernorm ? 2.0 * h : h;  // the final norm
  // The last layer's weights, their routed experts and those a token uses.
  double last = 0, last_experts = 0, last_active = 0;
  auto whole = [](const LayerOps& ops) {
    double p = 0;
    for (int b = 0; b < kOpBlocks; ++b) p += ops.params[static_cast<std::size_t>(b)];
    return p;
  };
  last = whole(dense);
  if (moe_layers > 0) {
    const LayerOps moe = describe_layer(m, true);
    const double experts = block_params(moe, OpBlock::experts);
    c.expert_mlp = moe_layers * experts;
    c.shared_expert_mlp = moe_layers * block_params(moe, OpBlock::shared_experts);
    c.router = moe_layers * block_params(moe, OpBlock::router);
    active_experts = moe_layers * experts * m.moe.top_k / m.moe.experts;
    last = whole(moe);
    last_experts = experts;
    last_active = experts * m.moe.top_k / m.moe.experts;
  }
  c.norms = m.layers * block_params(dense, OpBlock::norm) + norm;
  c.mtp = m.mtp_layers * (last + 2.0 * h * h + 3.0 * norm);
  c.active =
      c.total() - c.expert_mlp + active_experts - m.mtp_layers * (last_experts - last_active);
  return c;
}

const char* to_string(MlpKind k) { return enum_name(k, {"gelu", "swiglu"}); }
const char* to_string(PositionKind k) { return enum_name(k, {"learned", "rope", "alibi"}); }
const char* to_string(NormKind k) { return enum_name(k, {"layernorm", "rmsnorm"}); }

}  // namespace scaleout
