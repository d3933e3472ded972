// The shape of a decoder-only transformer: everything the memory and time
// models need, and nothing about how it is trained.
#pragma once

#include <string>

namespace scaleout {

enum class MlpKind { gelu, swiglu };               // 2-matrix vs gated 3-matrix MLP
enum class PositionKind { learned, rope, alibi };  // learned adds max_position*h params
enum class NormKind { layernorm, rmsnorm };        // layernorm has a bias (2h), rmsnorm h

// Mixture of experts (Switch/GShard/DeepSeek style). experts == 0: dense.
struct MoeShape {
  int experts = 0;           // routed experts per MoE layer
  int top_k = 0;             // routed experts per token
  int shared_experts = 0;    // always-active experts (DeepSeek)
  long long expert_ffn = 0;  // intermediate size of one expert
  int dense_layers = 0;      // first layers that stay dense (DeepSeek-V3: 3)
  // Router (launch files only; the time and memory models do not read it):
  // gate score function, a per-expert bias added for top-k selection only
  // (DeepSeek-V3's auxiliary-loss-free balancing), group-limited routing
  // (experts in router_groups groups, tokens routed within router_group_topk
  // of them) and the factor the routed output is scaled by. 0 = not given.
  bool sigmoid_router = false;  // sigmoid scores (DeepSeek-V3); false: softmax
  bool expert_bias = false;
  int router_groups = 0;
  int router_group_topk = 0;
  double routed_scaling = 0;
  bool operator==(const MoeShape&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3). kv_lora_rank == 0: not used.
struct MlaShape {
  int q_lora_rank = 0;  // 0 = queries projected directly
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  bool operator==(const MlaShape&) const = default;
};

struct ModelShape {
  std::string id;  // zoo id or file name
  std::string name;
  int layers = 0;        // L
  long long hidden = 0;  // h
  int heads = 0;         // a (query heads)
  int kv_heads = 0;      // k (= a for classic multi-head attention)
  int head_dim = 0;      // d; 0 means hidden / heads
  long long ffn = 0;     // f, intermediate size of the dense MLP
  long long vocab = 0;   // V
  MlpKind mlp = MlpKind::gelu;
  bool tied_embeddings = false;
  PositionKind position = PositionKind::rope;
  long long max_position = 0;  // learned position table size
  // RoPE base (Hugging Face rope_theta; launch files only); 0 = not given.
  double rope_theta = 0;
  // RoPE scaling (Hugging Face rope_scaling.rope_type): "" none, "llama3"
  // (Llama 3.1 frequency scaling), "yarn", "linear", "dynamic", with its factor.
  std::string rope_scaling;
  double rope_scaling_factor = 0;
  NormKind norm = NormKind::layernorm;
  bool linear_bias = false;  // biases on every attention/MLP linear (GPT-2/BLOOM style)
  bool qkv_bias = false;     // biases on Q, K, V only (Qwen2)
  bool dropout = false;      // dropout during training (GPT-3/Megatron GPT): stores masks
  // Sliding-window attention (Hugging Face sliding_window with layer_types,
  // GPT-OSS; Megatron-Core window_size): `sliding_layers` of the layers let a
  // query see only the `sliding_window` latest positions, itself included;
  // the others attend causally to the whole sequence. 0 = every layer full.
  int sliding_window = 0;
  int sliding_layers = 0;
  // Clamp on a gated MLP's two halves before the activation (Hugging Face
  // GptOssConfig swiglu_limit; Megatron-Core activation_func_clamp_value):
  // the gate half clamped above at the limit, the linear half to +-limit.
  // 0 = none.
  double activation_clamp = 0;
  MoeShape moe;
  MlaShape mla;
  // Multi-token prediction depths trained beside the next-token loss
  // (DeepSeek-V3 §2.2; Hugging Face num_nextn_predict_layers, Megatron-Core
  // --mtp-num-layers): each is one more layer of the last layer's kind, a
  // projection 2h -> h with its norms, and a second output head and loss.
  int mtp_layers = 0;
  double published_params = 0;  // total parameter count the source states, 0 = none
  std::string source;

  int head_size() const { return head_dim > 0 ? head_dim : static_cast<int>(hidden / heads); }
  bool is_moe() const { return moe.experts > 0; }
  bool is_mla() const { return mla.kv_lora_rank > 0; }
  bool operator==(const ModelShape&) const = default;
};

const char* to_string(MlpKind k);
const char* to_string(PositionKind k);
const char* to_string(NormKind k);

}  // namespace scaleout
