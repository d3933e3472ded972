// Parameter counts of a ModelShape, derived from its tensors (primer,
// "Parameters"): attention h*(a*d) + 2*h*(k*d) + (a*d)*h, MLP 2*h*f (GELU)
// or 3*h*f (SwiGLU), MoE experts and router, embeddings, norms.
#pragma once

#include "model/layer.hpp"
#include "model/transformer.hpp"

namespace scaleout {

struct ParamCounts {
  double embedding = 0;          // token (+ learned position) embedding
  double output = 0;             // output projection (0 when tied)
  double attention = 0;          // all layers
  double dense_mlp = 0;          // all dense MLP layers
  double expert_mlp = 0;         // all routed experts of all MoE layers
  double shared_expert_mlp = 0;  // shared experts of all MoE layers
  double router = 0;             // MoE routers
  double norms = 0;              // layer norms incl. the final one
  // Multi-token-prediction depths: a layer of the last layer's kind, the
  // projection 2h -> h and three norms each (embedding and head shared).
  double mtp = 0;
  double total() const {
    return embedding + output + attention + dense_mlp + expert_mlp + shared_expert_mlp + router +
           norms + mtp;
  }
  // Parameters one token passes through (MoE: top_k of the routed experts).
  double active = 0;
};

// Parameters of one layer's attention block (Q, K, V, O, with MLA when set).
double attention_params_per_layer(const ModelShape& m);
// Parameters of one dense layer's MLP.
double mlp_params_per_layer(const ModelShape& m);

ParamCounts count_params(const ModelShape& m);

}  // namespace scaleout
