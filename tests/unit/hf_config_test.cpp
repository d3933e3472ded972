// read_hf_config against published Hugging Face config.json files (copied
// under tests/data/hf from the model repositories) and against small inline
// configs for each architecture rule and each kind of error.
#include "io/hf_config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"

namespace scaleout::io {
namespace {

// A MoE shape: routed experts, top-k, shared experts, expert width, dense
// first layers (capacity factor 1).
MoeShape moe_of(int experts, int top_k, int shared, long long ffn, int dense) {
  MoeShape e;
  e.experts = experts;
  e.top_k = top_k;
  e.shared_experts = shared;
  e.expert_ffn = ffn;
  e.dense_layers = dense;
  return e;
}

std::string data_path(const std::string& name) {
  return std::string(SCALEOUT_TEST_DATA_DIR) + "/hf/" + name;
}

ModelShape load(const std::string& name) {
  std::ifstream in(data_path(name));
  EXPECT_TRUE(in) << "cannot open " << data_path(name);
  std::stringstream text;
  text << in.rdbuf();
  return read_hf_config(text.str(), data_path(name));
}

// The InputError that reading `text` throws; fails the test when none is thrown.
InputError error_of(const std::string& text, const std::string& file = "model.json") {
  try {
    read_hf_config(text, file);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", 0, "", "");
}

// `text` with its only occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A tiny Llama; one key per line, so errors have known lines.
const std::string kTinyLlama = R"({
  "model_type": "llama",
  "num_hidden_layers": 2,
  "hidden_size": 64,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "intermediate_size": 128,
  "vocab_size": 1000
})";

// --- Published configs ---------------------------------------------------------------------

TEST(HfConfig, Llama3_8B) {
  const ModelShape m = load("llama3-8b.json");
  EXPECT_EQ(m.id, "llama3-8b");
  EXPECT_EQ(m.name, "llama3-8b");
  EXPECT_EQ(m.source, "Hugging Face config.json: " + data_path("llama3-8b.json"));
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 0);
  EXPECT_EQ(m.head_size(), 128);
  EXPECT_EQ(m.ffn, 14336);
  EXPECT_EQ(m.vocab, 128256);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_EQ(m.max_position, 0);
  EXPECT_EQ(m.norm, NormKind::rmsnorm);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.dropout);
  EXPECT_FALSE(m.is_moe());
  EXPECT_FALSE(m.is_mla());
}

TEST(HfConfig, Mixtral8x7B) {
  const ModelShape m = load("mixtral-8x7b.json");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.ffn, 14336);
  EXPECT_EQ(m.vocab, 32000);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.norm, NormKind::rmsnorm);
  EXPECT_TRUE(m.is_moe());
  EXPECT_EQ(m.moe, moe_of(8, 2, 0, 14336, 0));
}

TEST(HfConfig, DeepSeekV3) {
  const ModelShape m = load("deepseek-v3.json");
  EXPECT_EQ(m.layers, 61);
  EXPECT_EQ(m.hidden, 7168);
  EXPECT_EQ(m.heads, 128);
  EXPECT_EQ(m.kv_heads, 128);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.ffn, 18432);
  EXPECT_EQ(m.vocab, 129280);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_EQ(m.norm, NormKind::rmsnorm);
  // The router (launch files only): sigmoid scores, expert bias (noaux_tc),
  // 4 of 8 groups, routed output scaled by 2.5; RoPE base 10000, YaRN x40.
  MoeShape moe = moe_of(256, 8, 1, 2048, 3);
  moe.sigmoid_router = true;
  moe.expert_bias = true;
  moe.router_groups = 8;
  moe.router_group_topk = 4;
  moe.routed_scaling = 2.5;
  EXPECT_EQ(m.moe, moe);
  EXPECT_EQ(m.rope_theta, 10000);
  EXPECT_EQ(m.rope_scaling, "yarn");
  EXPECT_EQ(m.rope_scaling_factor, 40);
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.v_head_dim, 128);
}

TEST(HfConfig, Gpt2) {
  const ModelShape m = load("gpt2.json");
  EXPECT_EQ(m.id, "gpt2");
  EXPECT_EQ(m.layers, 12);
  EXPECT_EQ(m.hidden, 768);
  EXPECT_EQ(m.heads, 12);
  EXPECT_EQ(m.kv_heads, 12);
  EXPECT_EQ(m.ffn, 3072);
  EXPECT_EQ(m.vocab, 50257);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::learned);
  EXPECT_EQ(m.max_position, 1024);
  EXPECT_EQ(m.norm, NormKind::layernorm);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_TRUE(m.dropout);
}

TEST(HfConfig, Qwen2_5_7B) {
  const ModelShape m = load("qwen2.5-7b.json");
  EXPECT_EQ(m.id, "qwen2.5-7b");
  EXPECT_EQ(m.layers, 28);
  EXPECT_EQ(m.hidden, 3584);
  EXPECT_EQ(m.heads, 28);
  EXPECT_EQ(m.kv_heads, 4);
  EXPECT_EQ(m.head_size(), 128);
  EXPECT_EQ(m.ffn, 18944);
  EXPECT_EQ(m.vocab, 152064);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.norm, NormKind::rmsnorm);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.linear_bias);
}

TEST(HfConfig, Falcon7B) {
  const ModelShape m = load("falcon-7b.json");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4544);
  EXPECT_EQ(m.heads, 71);
  EXPECT_EQ(m.kv_heads, 1);
  EXPECT_EQ(m.head_size(), 64);
  EXPECT_EQ(m.ffn, 4 * 4544);
  EXPECT_EQ(m.vocab, 65024);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_EQ(m.norm, NormKind::layernorm);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.dropout);
}

TEST(HfConfig, GptNeoX20B) {
  const ModelShape m = load("gpt-neox-20b.json");
  EXPECT_EQ(m.layers, 44);
  EXPECT_EQ(m.hidden, 6144);
  EXPECT_EQ(m.heads, 64);
  EXPECT_EQ(m.kv_heads, 64);
  EXPECT_EQ(m.ffn, 24576);
  EXPECT_EQ(m.vocab, 50432);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_EQ(m.norm, NormKind::layernorm);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_FALSE(m.dropout);
}

// --- Architecture rules ----------------------------------------------------------------------

TEST(HfConfig, ArchitecturesWhenModelTypeIsAbsent) {
  const ModelShape m = read_hf_config(
      with(kTinyLlama, R"("model_type": "llama")", R"("architectures": ["Qwen2ForCausalLM"])"),
      "tiny.json");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
}

TEST(HfConfig, NameFromNameOrPathAndIdFromFileName) {
  const ModelShape m = read_hf_config(with(kTinyLlama, "\"vocab_size\": 1000",
                                           "\"vocab_size\": 1000, \"_name_or_path\": \"org/tiny\""),
                                      "/some/dir/tiny-llama.json");
  EXPECT_EQ(m.id, "tiny-llama");
  EXPECT_EQ(m.name, "org/tiny");
  EXPECT_EQ(m.source, "Hugging Face config.json: /some/dir/tiny-llama.json");
}

TEST(HfConfig, ClassDefaultsForAbsentKeys) {
  // Llama: untied, no dropout, key/value heads = heads.
  const ModelShape llama =
      read_hf_config(with(kTinyLlama, "\"num_key_value_heads\": 2,", ""), "tiny.json");
  EXPECT_FALSE(llama.tied_embeddings);
  EXPECT_FALSE(llama.dropout);
  EXPECT_EQ(llama.kv_heads, 4);
  // GPT-2: tied, dropout 0.1, n_inner null -> 4h, 1024 positions.
  const ModelShape gpt2 = read_hf_config(
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "n_inner": null,
          "vocab_size": 100})",
      "tiny.json");
  EXPECT_TRUE(gpt2.tied_embeddings);
  EXPECT_TRUE(gpt2.dropout);
  EXPECT_EQ(gpt2.ffn, 256);
  EXPECT_EQ(gpt2.max_position, 1024);
}

TEST(HfConfig, ExplicitDropoutAndTying) {
  const ModelShape m = read_hf_config(
      with(kTinyLlama, "\"vocab_size\": 1000",
           "\"vocab_size\": 1000, \"attention_dropout\": 0.1, \"tie_word_embeddings\": true"),
      "tiny.json");
  EXPECT_TRUE(m.dropout);
  EXPECT_TRUE(m.tied_embeddings);
  const ModelShape gpt2 = read_hf_config(
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100,
          "resid_pdrop": 0, "attn_pdrop": 0.0, "embd_pdrop": 0})",
      "tiny.json");
  EXPECT_FALSE(gpt2.dropout);
}

TEST(HfConfig, HeadDimOverridesHiddenOverHeads) {
  // Mistral-Nemo style: head_dim given, hidden 5120 over 48 heads would not divide.
  const ModelShape m = read_hf_config(
      R"({"model_type": "mistral", "num_hidden_layers": 40, "hidden_size": 5120,
          "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
          "intermediate_size": 14336, "vocab_size": 131072})",
      "nemo.json");
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.head_size(), 128);
}

TEST(HfConfig, IntegralFloatIsAccepted) {
  const ModelShape m =
      read_hf_config(with(kTinyLlama, "\"hidden_size\": 64", "\"hidden_size\": 64.0"), "t.json");
  EXPECT_EQ(m.hidden, 64);
}

TEST(HfConfig, FalconNewDecoderArchitecture) {
  // Falcon-40B: grouped key/value heads, ALiBi off, no biases.
  const ModelShape m = read_hf_config(
      R"({"model_type": "falcon", "num_hidden_layers": 60, "hidden_size": 8192,
          "num_attention_heads": 128, "num_kv_heads": 8, "new_decoder_architecture": true,
          "vocab_size": 65024, "alibi": false, "bias": false})",
      "falcon-40b.json");
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.ffn, 4 * 8192);
  EXPECT_EQ(m.position, PositionKind::rope);
}

TEST(HfConfig, FalconAlibiBiasAndMultiHead) {
  // falcon-rw-1b: ALiBi, biases, multi_query false -> one key/value head per head.
  const ModelShape m = read_hf_config(
      R"({"model_type": "falcon", "num_hidden_layers": 24, "hidden_size": 2048,
          "num_attention_heads": 32, "multi_query": false, "new_decoder_architecture": false,
          "alibi": true, "bias": true, "vocab_size": 50304})",
      "falcon-rw-1b.json");
  EXPECT_EQ(m.kv_heads, 32);
  EXPECT_EQ(m.position, PositionKind::alibi);
  EXPECT_TRUE(m.linear_bias);
}

TEST(HfConfig, Opt125M) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "opt", "num_hidden_layers": 12, "hidden_size": 768,
          "num_attention_heads": 12, "ffn_dim": 3072, "max_position_embeddings": 2048,
          "vocab_size": 50272, "dropout": 0.1, "attention_dropout": 0.0,
          "enable_bias": true, "word_embed_proj_dim": 768})",
      "opt-125m.json");
  EXPECT_EQ(m.ffn, 3072);
  EXPECT_EQ(m.position, PositionKind::learned);
  EXPECT_EQ(m.max_position, 2050);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_TRUE(m.dropout);
  EXPECT_EQ(m.norm, NormKind::layernorm);
}

TEST(HfConfig, Bloom560M) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "bloom", "n_layer": 24, "n_embed": 1024, "n_head": 16,
          "vocab_size": 250880, "attention_dropout": 0.0, "hidden_dropout": 0.0})",
      "bloom-560m.json");
  EXPECT_EQ(m.layers, 24);
  EXPECT_EQ(m.hidden, 1024);
  EXPECT_EQ(m.ffn, 4096);
  EXPECT_EQ(m.position, PositionKind::alibi);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_FALSE(m.dropout);
}

TEST(HfConfig, Mpt7B) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "mpt", "n_layers": 32, "d_model": 4096, "n_heads": 32,
          "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "no_bias": true,
          "attn_config": {"alibi": true, "attn_pdrop": 0, "attn_type": "multihead_attention"}})",
      "mpt-7b.json");
  EXPECT_EQ(m.ffn, 16384);
  EXPECT_EQ(m.kv_heads, 32);
  EXPECT_EQ(m.position, PositionKind::alibi);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.dropout);
}

TEST(HfConfig, DeepSeekV2LiteWithoutQueryCompression) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "deepseek_v2", "num_hidden_layers": 27, "hidden_size": 2048,
          "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 10944,
          "vocab_size": 102400, "n_routed_experts": 64, "num_experts_per_tok": 6,
          "n_shared_experts": 2, "moe_intermediate_size": 1408, "first_k_dense_replace": 1,
          "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
          "qk_rope_head_dim": 64, "v_head_dim": 128})",
      "deepseek-v2-lite.json");
  EXPECT_EQ(m.mla.q_lora_rank, 0);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.moe.experts, 64);
  EXPECT_EQ(m.moe.shared_experts, 2);
  EXPECT_EQ(m.moe.dense_layers, 1);
}

TEST(HfConfig, Qwen2MoeSharedExpertAsExpertWidths) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "qwen2_moe", "num_hidden_layers": 28, "hidden_size": 3584,
          "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944,
          "vocab_size": 151936, "num_experts": 64, "num_experts_per_tok": 8,
          "moe_intermediate_size": 2560, "shared_expert_intermediate_size": 20480,
          "decoder_sparse_step": 1, "mlp_only_layers": []})",
      "qwen2-57b-a14b.json");
  EXPECT_EQ(m.moe, moe_of(64, 8, 8, 2560, 0));
  EXPECT_TRUE(m.qkv_bias);
}

// Qwen3-30B-A3B, huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json (the
// keys scaleout reads): every layer MoE, no shared expert, head_dim 128 with
// heads x head_dim = 4096 != hidden 2048.
TEST(HfConfig, Qwen3_30B_A3B) {
  const ModelShape m = read_hf_config(
      R"({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
          "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 32,
          "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144,
          "vocab_size": 151936, "tie_word_embeddings": false, "attention_bias": false,
          "attention_dropout": 0.0, "num_experts": 128, "num_experts_per_tok": 8,
          "moe_intermediate_size": 768, "decoder_sparse_step": 1, "mlp_only_layers": [],
          "norm_topk_prob": true})",
      "qwen3-30b-a3b.json");
  EXPECT_EQ(m.layers, 48);
  EXPECT_EQ(m.hidden, 2048);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 4);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.ffn, 6144);
  EXPECT_EQ(m.vocab, 151936);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.qkv_bias);  // unlike Qwen2, no Q/K/V biases
  EXPECT_FALSE(m.linear_bias);
  EXPECT_EQ(m.moe, moe_of(128, 8, 0, 768, 0));
  EXPECT_FALSE(m.is_mla());
}

TEST(HfConfig, Qwen3MoeLeadingDenseLayersAndSparseStep) {
  const std::string base =
      R"({"model_type": "qwen3_moe", "num_hidden_layers": 4, "hidden_size": 64,
          "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
          "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
          "mlp_only_layers": [0, 1]})";
  const ModelShape m = read_hf_config(base, "tiny.json");
  EXPECT_EQ(m.moe.dense_layers, 2);
  EXPECT_EQ(m.head_dim, 0);  // Qwen3MoeConfig: hidden / heads when absent
  const InputError step =
      error_of(with(base, R"("mlp_only_layers": [0, 1])", R"("decoder_sparse_step": 2)"));
  EXPECT_EQ(step.key, "decoder_sparse_step");
  const InputError gap = error_of(with(base, "[0, 1]", "[1, 3]"));
  EXPECT_EQ(gap.key, "mlp_only_layers");
}

// Qwen3-8B, huggingface.co/Qwen/Qwen3-8B/blob/main/config.json: dense, head_dim given.
TEST(HfConfig, Qwen3DenseHeadDim) {
  const ModelShape m = read_hf_config(
      R"({"architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 36,
          "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
          "head_dim": 128, "intermediate_size": 12288, "vocab_size": 151936,
          "tie_word_embeddings": false, "attention_bias": false})",
      "qwen3-8b.json");
  EXPECT_EQ(m.layers, 36);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.ffn, 12288);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.is_moe());
  // Qwen3-0.6B shape without head_dim: Qwen3Config's default 128, not 1024 / 16 = 64.
  const ModelShape small = read_hf_config(
      R"({"model_type": "qwen3", "num_hidden_layers": 28, "hidden_size": 1024,
          "num_attention_heads": 16, "num_key_value_heads": 8, "intermediate_size": 3072,
          "vocab_size": 151936, "tie_word_embeddings": true})",
      "qwen3-0.6b.json");
  EXPECT_EQ(small.head_dim, 128);
  EXPECT_TRUE(small.tied_embeddings);
}

// gpt-oss-120b, huggingface.co/openai/gpt-oss-120b/blob/main/config.json (the
// keys scaleout reads; layer_types alternates sliding and full from layer 0).
std::string gpt_oss_layer_types(int layers, const std::string& first = "sliding_attention") {
  std::string t = "[";
  for (int i = 0; i < layers; ++i) {
    t += (i ? ", " : "") + std::string("\"") +
         (i == 0 ? first : (i % 2 == 0 ? "sliding_attention" : "full_attention")) + "\"";
  }
  return t + "]";
}

TEST(HfConfig, GptOss120B) {
  const ModelShape m = read_hf_config(
      R"({"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
          "num_hidden_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
          "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
          "vocab_size": 201088, "tie_word_embeddings": false, "attention_bias": true,
          "attention_dropout": 0.0, "num_local_experts": 128, "num_experts_per_tok": 4,
          "experts_per_token": 4, "sliding_window": 128,
          "layer_types": )" +
          gpt_oss_layer_types(36) + R"(, "swiglu_limit": 7.0})",
      "gpt-oss-120b.json");
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.sliding_layers, 18);
  // The zoo entry is what the config says.
  EXPECT_EQ(m.sliding_window, builtin_catalog().find_model("gpt-oss-120b")->sliding_window);
  EXPECT_EQ(m.sliding_layers, builtin_catalog().find_model("gpt-oss-120b")->sliding_layers);
  EXPECT_EQ(m.layers, 36);
  EXPECT_EQ(m.hidden, 2880);
  EXPECT_EQ(m.heads, 64);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 64);  // 64 x 64 = 4096 != hidden 2880
  EXPECT_EQ(m.vocab, 201088);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
  EXPECT_EQ(m.norm, NormKind::rmsnorm);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_TRUE(m.linear_bias);  // attention and expert biases
  EXPECT_EQ(m.moe, moe_of(128, 4, 0, 2880, 0));
  EXPECT_EQ(m.activation_clamp, 7.0);  // swiglu_limit
  EXPECT_EQ(m.activation_clamp, builtin_catalog().find_model("gpt-oss-120b")->activation_clamp);
}

// Early gpt-oss configs (GptOssConfig of the reference code) say num_experts
// and experts_per_token; head_dim 64 and attention biases by default.
TEST(HfConfig, GptOss20BEarlyKeyNamesAndDefaults) {
  const ModelShape m = read_hf_config(
      R"({"model_type": "gpt_oss", "num_hidden_layers": 24, "hidden_size": 2880,
          "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 2880,
          "vocab_size": 201088, "num_experts": 32, "experts_per_token": 4})",
      "gpt-oss-20b.json");
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_EQ(m.moe.experts, 32);
  EXPECT_EQ(m.moe.top_k, 4);
  // No sliding_window / layer_types: GptOssConfig's defaults, 128 tokens on
  // the even-indexed layers.
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.sliding_layers, 12);
  EXPECT_EQ(m.activation_clamp, 7.0);  // GptOssConfig's default swiglu_limit
  const std::string base =
      R"({"model_type": "gpt_oss", "num_hidden_layers": 4, "hidden_size": 2880,
          "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 2880,
          "vocab_size": 201088, "num_experts": 32, "experts_per_token": 4, "layer_types": )";
  const InputError bad = error_of(base + gpt_oss_layer_types(4, "chunked_attention") + "}");
  EXPECT_EQ(bad.key, "layer_types");
  EXPECT_EQ(error_of(base + gpt_oss_layer_types(3) + "}").key, "layer_types");  // 3 of 4 layers
  EXPECT_EQ(error_of(base + gpt_oss_layer_types(4) + R"(, "swiglu_limit": 0})").key,
            "swiglu_limit");
  EXPECT_EQ(error_of(base + gpt_oss_layer_types(4) + R"(, "swiglu_limit": "7"})").key,
            "swiglu_limit");
  const InputError e = error_of(
      R"({"model_type": "gpt_oss", "num_hidden_layers": 24, "hidden_size": 2880,
          "num_attention_heads": 64, "intermediate_size": 2880, "vocab_size": 100,
          "num_local_experts": 4, "experts_per_token": 8})");
  EXPECT_EQ(e.key, "experts_per_token");  // 8 per token exceed the 4 experts
}

// Kimi K2, huggingface.co/moonshotai/Kimi-K2-Base/blob/main/config.json: the
// DeepSeek-V3 architecture under model_type kimi_k2, 64 heads, 384 experts.
TEST(HfConfig, KimiK2ReadAsDeepSeekV3) {
  const ModelShape m = read_hf_config(
      R"({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2",
          "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 64,
          "num_key_value_heads": 64, "intermediate_size": 18432, "vocab_size": 163840,
          "n_routed_experts": 384, "num_experts_per_tok": 8, "n_shared_experts": 1,
          "moe_intermediate_size": 2048, "first_k_dense_replace": 1, "moe_layer_freq": 1,
          "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
          "qk_rope_head_dim": 64, "v_head_dim": 128, "tie_word_embeddings": false,
          "num_nextn_predict_layers": 0})",
      "kimi-k2.json");
  EXPECT_EQ(m.layers, 61);
  EXPECT_EQ(m.heads, 64);
  EXPECT_EQ(m.kv_heads, 64);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.vocab, 163840);
  EXPECT_EQ(m.moe, moe_of(384, 8, 1, 2048, 1));
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  // Without the DeepSeek keys it takes the deepseek_v3 defaults (1 shared, 3 dense).
  const ModelShape d = read_hf_config(
      R"({"model_type": "kimi_k2", "num_hidden_layers": 4, "hidden_size": 64,
          "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
          "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
          "q_lora_rank": null, "kv_lora_rank": 16, "qk_nope_head_dim": 16,
          "qk_rope_head_dim": 8, "v_head_dim": 16})",
      "tiny.json");
  EXPECT_EQ(d.moe.shared_experts, 1);
  EXPECT_EQ(d.moe.dense_layers, 3);
}

// DeepSeek-V2, huggingface.co/deepseek-ai/DeepSeek-V2/blob/main/config.json.
TEST(HfConfig, DeepSeekV2) {
  const ModelShape m = read_hf_config(
      R"({"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2",
          "num_hidden_layers": 60, "hidden_size": 5120, "num_attention_heads": 128,
          "num_key_value_heads": 128, "intermediate_size": 12288, "vocab_size": 102400,
          "n_routed_experts": 160, "num_experts_per_tok": 6, "n_shared_experts": 2,
          "moe_intermediate_size": 1536, "first_k_dense_replace": 1, "moe_layer_freq": 1,
          "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
          "qk_rope_head_dim": 64, "v_head_dim": 128, "tie_word_embeddings": false})",
      "deepseek-v2.json");
  EXPECT_EQ(m.layers, 60);
  EXPECT_EQ(m.hidden, 5120);
  EXPECT_EQ(m.ffn, 12288);
  EXPECT_EQ(m.moe, moe_of(160, 6, 2, 1536, 1));
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.v_head_dim, 128);
  EXPECT_EQ(m.head_dim, 192);
}

// --- Errors ----------------------------------------------------------------------------------

TEST(HfConfigError, NotJsonGivesTheLine) {
  const InputError e = error_of(with(kTinyLlama, "\"hidden_size\": 64", "\"hidden_size\" 64"));
  EXPECT_EQ(e.file, "model.json");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.key, "");
  EXPECT_EQ(e.message.rfind("not valid JSON: syntax error while parsing object separator", 0), 0u)
      << e.message;
  EXPECT_EQ(e.hint, "check commas, quotes and brackets");
}

TEST(HfConfigError, TruncatedJsonGivesTheLastLine) {
  const InputError e = error_of("{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": 2,");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.message.rfind("not valid JSON: ", 0), 0u) << e.message;
}

// Found by fuzz/fuzz_hf_config: nlohmann::json throws out_of_range, not
// parse_error, for a number beyond a double, which escaped as an internal error.
TEST(HfConfigError, NumberTooLargeForADouble) {
  const InputError e = error_of(with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": 1e400"));
  EXPECT_EQ(e.line, 8);
  EXPECT_EQ(e.key, "vocab_size");  // issue 23: the key is named
  EXPECT_EQ(e.message, "not valid JSON: number overflow parsing '1e400'");
  EXPECT_EQ(e.hint, "numbers must fit in a double (up to 1.8e308)");
}

// Found by fuzz/fuzz_hf_config (UBSan): the query/key head size of multi-head
// latent attention, qk_nope_head_dim + qk_rope_head_dim, overflowed an int.
TEST(HfConfigError, DeepSeekHeadDimSumTooLarge) {
  const InputError e = error_of(R"({"model_type": "deepseek_v3", "num_hidden_layers": 4,
 "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
 "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
 "kv_lora_rank": 16, "q_lora_rank": null, "qk_nope_head_dim": 2147483647,
 "qk_rope_head_dim": 2147483647, "v_head_dim": 16})");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.key, "qk_rope_head_dim");
  EXPECT_EQ(e.message,
            "qk_nope_head_dim + qk_rope_head_dim must be at most 2147483647, got 4294967294");
}

// Found by fuzz/fuzz_hf_config (UBSan): MPT's MLP width, expansion_ratio x
// d_model, overflowed a long long.
TEST(HfConfigError, MptExpansionRatioTooLarge) {
  const InputError e = error_of(R"({"model_type": "mpt", "n_layers": 2,
 "d_model": 9007199254740992, "n_heads": 1, "vocab_size": 100,
 "expansion_ratio": 2147483647})");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.key, "expansion_ratio");
  EXPECT_EQ(e.message,
            "expansion_ratio x d_model must be at most 9007199254740992, got 2147483647 x "
            "9007199254740992");
}

TEST(HfConfigError, TopLevelNotAnObject) {
  const InputError e = error_of("\n[1, 2]\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "expected a JSON object of config keys, got an array");
}

TEST(HfConfigError, UnknownModelType) {
  const InputError e = error_of(with(kTinyLlama, "\"llama\"", "\"lama\""));
  EXPECT_EQ(e.key, "model_type");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "unsupported model_type 'lama'");
  EXPECT_EQ(e.hint, "did you mean 'llama'?");
  EXPECT_STREQ(e.what(),
               "model.json:2: model_type: unsupported model_type 'lama' (did you mean "
               "'llama'?)");
}

TEST(HfConfigError, UnknownModelTypeFarFromAll) {
  const InputError e = error_of(with(kTinyLlama, "\"llama\"", "\"t5\""));
  EXPECT_EQ(e.message, "unsupported model_type 't5'");
  EXPECT_EQ(e.hint.rfind("expected one of: llama, mistral, mixtral", 0), 0u) << e.hint;
}

TEST(HfConfigError, UnknownArchitectureClass) {
  const InputError e = error_of(
      with(kTinyLlama, R"("model_type": "llama")", R"("architectures": ["LlamaForCausalLMM"])"));
  EXPECT_EQ(e.key, "architectures");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "unsupported architecture 'LlamaForCausalLMM'");
  EXPECT_EQ(e.hint, "did you mean 'LlamaForCausalLM'?");
}

TEST(HfConfigError, NoModelTypeNorArchitectures) {
  const InputError e = error_of(with(kTinyLlama, "\"model_type\": \"llama\",", ""));
  EXPECT_EQ(e.key, "model_type");
  EXPECT_EQ(e.message, "required key is missing");
  EXPECT_EQ(e.hint, "accepted names: model_type, architectures");
}

TEST(HfConfigError, MissingRequiredKeyNamesTheAcceptedNames) {
  const InputError e = error_of(R"({"model_type": "gpt2", "n_embd": 64, "n_head": 4,
      "vocab_size": 100})");
  EXPECT_EQ(e.key, "n_layer");
  EXPECT_EQ(e.line, 0);
  EXPECT_EQ(e.message, "required key is missing");
  EXPECT_EQ(e.hint, "accepted names: n_layer, num_hidden_layers");
  EXPECT_STREQ(e.what(),
               "model.json: n_layer: required key is missing (accepted names: n_layer, "
               "num_hidden_layers)");
}

TEST(HfConfigError, NullRequiredKeyCountsAsMissing) {
  const InputError e = error_of(with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": null"));
  EXPECT_EQ(e.key, "vocab_size");
  EXPECT_EQ(e.message, "required key is missing");
  EXPECT_EQ(e.hint, "accepted names: vocab_size");
}

TEST(HfConfigError, StringWhereANumberIsExpected) {
  const InputError e = error_of(with(kTinyLlama, "\"hidden_size\": 64", "\"hidden_size\": \"64\""));
  EXPECT_EQ(e.key, "hidden_size");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.message, "expected an integer, got string \"64\"");
}

TEST(HfConfigError, StringWhereABooleanIsExpected) {
  const InputError e = error_of(with(kTinyLlama, "\"vocab_size\": 1000",
                                     "\"vocab_size\": 1000,\n  \"tie_word_embeddings\": \"no\""));
  EXPECT_EQ(e.key, "tie_word_embeddings");
  EXPECT_EQ(e.line, 9);
  EXPECT_EQ(e.message, "expected true or false, got string \"no\"");
}

TEST(HfConfigError, WrongTypeOfModelType) {
  const InputError e = error_of(with(kTinyLlama, "\"llama\"", "3"));
  EXPECT_EQ(e.key, "model_type");
  EXPECT_EQ(e.message, "expected a string, got number 3");
}

TEST(HfConfigError, ZeroSize) {
  const InputError e =
      error_of(with(kTinyLlama, "\"num_hidden_layers\": 2", "\"num_hidden_layers\": 0"));
  EXPECT_EQ(e.key, "num_hidden_layers");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.message, "must be positive, got 0");
}

TEST(HfConfigError, NegativeSize) {
  const InputError e =
      error_of(with(kTinyLlama, "\"intermediate_size\": 128", "\"intermediate_size\": -128"));
  EXPECT_EQ(e.key, "intermediate_size");
  EXPECT_EQ(e.message, "must be positive, got -128");
}

TEST(HfConfigError, NonIntegerSize) {
  const InputError e = error_of(with(kTinyLlama, "\"hidden_size\": 64", "\"hidden_size\": 64.5"));
  EXPECT_EQ(e.key, "hidden_size");
  EXPECT_EQ(e.message, "must be a whole number, got 64.5");
}

TEST(HfConfigError, SizeTooLargeForItsField) {
  const InputError e =
      error_of(with(kTinyLlama, "\"num_hidden_layers\": 2", "\"num_hidden_layers\": 4294967296"));
  EXPECT_EQ(e.key, "num_hidden_layers");
  EXPECT_EQ(e.message, "must be at most 2147483647, got 4294967296");
}

TEST(HfConfigError, HiddenNotDivisibleByHeads) {
  const InputError e =
      error_of(with(kTinyLlama, "\"num_attention_heads\": 4", "\"num_attention_heads\": 6"));
  EXPECT_EQ(e.key, "num_attention_heads");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.message, "hidden size 64 is not divisible by 6 attention heads");
  EXPECT_EQ(e.hint, "check hidden_size and num_attention_heads, or give head_dim");
}

TEST(HfConfigError, KeyValueHeadsNotDividingHeads) {
  const InputError e =
      error_of(with(kTinyLlama, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"));
  EXPECT_EQ(e.key, "num_key_value_heads");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.message, "4 attention heads are not divisible by 3 key/value heads");
  EXPECT_EQ(e.hint, "each key/value head must serve the same number of query heads");
}

TEST(HfConfigError, MoreExpertsPerTokenThanExperts) {
  const InputError e = error_of(with(kTinyLlama, "\"llama\"",
                                     "\"mixtral\", \"num_local_experts\": 4, "
                                     "\"num_experts_per_tok\": 8"));
  EXPECT_EQ(e.key, "num_experts_per_tok");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "8 experts per token exceed the 4 routed experts");
}

TEST(HfConfigError, DropoutOutOfRange) {
  const InputError e = error_of(
      with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": 1000, \"attention_dropout\": 1.5"));
  EXPECT_EQ(e.key, "attention_dropout");
  EXPECT_EQ(e.message, "must be between 0 and 1, got 1.5");
}

TEST(HfConfigError, NestedKeyHasItsDottedPathAndLine) {
  const InputError e = error_of(R"({
  "model_type": "mpt", "n_layers": 2, "d_model": 64, "n_heads": 4, "vocab_size": 100,
  "attn_config": {
    "attn_type": "multiquery_attentoin"
  }
})");
  EXPECT_EQ(e.key, "attn_config.attn_type");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.message, "unsupported attention type 'multiquery_attentoin'");
  EXPECT_EQ(e.hint, "did you mean 'multiquery_attention'?");
}

// --- Issue 23: duplicate keys, ids, hostile values ------------------------------------------

// nlohmann::json keeps the last of two equal keys (hidden 64 would become
// 128 silently); it is an error naming the key and both lines.
TEST(HfConfigError, DuplicateKeyNamesTheKeyAndItsLines) {
  const InputError e = error_of(
      with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": 1000,\n  \"hidden_size\": 128"));
  EXPECT_EQ(e.key, "hidden_size");
  EXPECT_EQ(e.line, 9);
  EXPECT_EQ(e.message, "duplicate key (first given at line 4)");
  EXPECT_EQ(e.hint, "give each key once; JSON readers disagree on which value wins");
}

TEST(HfConfigError, DuplicateKeyWrittenWithAnEscape) {
  // "hidden\u005fsize" is "hidden_size".
  const InputError e = error_of(
      with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": 1000, \"hidden\\u005fsize\": 64"));
  EXPECT_EQ(e.key, "hidden_size");
  EXPECT_EQ(e.line, 8);
}

TEST(HfConfigError, DuplicateKeyInANestedObjectAndInsideAnArray) {
  InputError e = error_of(R"({
  "model_type": "mpt", "n_layers": 2, "d_model": 64, "n_heads": 4, "vocab_size": 100,
  "attn_config": {"alibi": true,
    "alibi": false}
})");
  EXPECT_EQ(e.key, "attn_config.alibi");
  EXPECT_EQ(e.line, 4);
  e = error_of(with(kTinyLlama, "\"vocab_size\": 1000",
                    "\"vocab_size\": 1000, \"x\": [1, {\"a\": 1, \"b\": 2, \"a\": 3}]"));
  EXPECT_EQ(e.key, "x[1].a");
  EXPECT_EQ(e.message, "duplicate key (first given at line 8)");
}

TEST(HfConfigError, NumberTooLargeInsideAnArrayNamesItsPlace) {
  const InputError e = error_of(
      with(kTinyLlama, "\"vocab_size\": 1000", "\"vocab_size\": 1000, \"x\": [1, -2e999]"));
  EXPECT_EQ(e.key, "x[1]");
  EXPECT_EQ(e.line, 8);
}

TEST(HfConfigError, FileNameThatIsNotAnIdIsRefused) {
  // The id comes from the file name and reaches launch files and reports.
  const InputError e = error_of(kTinyLlama, "/tmp/x\n$(reboot).json");
  EXPECT_EQ(e.key, "");
  EXPECT_EQ(e.message, "the file name gives the model id, and 'x\\x0a$(reboot)' is not a valid id");
  EXPECT_EQ(error_of(kTinyLlama, "my model.json").message,
            "the file name gives the model id, and 'my model' is not a valid id");
}

TEST(HfConfig, NameOrPathThatIsNotAnIdGivesWayToTheId) {
  const ModelShape m = read_hf_config(
      with(kTinyLlama, "\"vocab_size\": 1000",
           "\"vocab_size\": 1000, \"_name_or_path\": \"/home/me/llama\\n# $(rm -rf ~)\""),
      "tiny-llama.json");
  EXPECT_EQ(m.id, "tiny-llama");
  EXPECT_EQ(m.name, "tiny-llama");
}

TEST(HfConfigError, LongOrBinaryValuesAreCutAndEscapedInMessages) {
  const std::string big(100000, 'x');
  InputError e =
      error_of(with(kTinyLlama, "\"model_type\": \"llama\"", "\"model_type\": \"" + big + "\""));
  EXPECT_EQ(e.key, "model_type");
  EXPECT_LT(e.message.size(), 200u) << e.message.substr(0, 300);
  EXPECT_NE(e.message.find("(100000 bytes)"), std::string::npos);
  // A string that is not UTF-8 is a JSON error whose message is escaped ASCII.
  e = error_of(with(kTinyLlama, "\"hidden_size\": 64", "\"hidden_size\": \"\xff\xfe\""));
  EXPECT_EQ(e.message.rfind("not valid JSON: ", 0), 0u) << e.message;
  for (char ch : e.message) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << e.message;
}

}  // namespace
}  // namespace scaleout::io
