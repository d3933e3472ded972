#include "model/params.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

ModelShape gpt(int layers, long long h, int heads, long long vocab) {
  ModelShape m;
  m.layers = layers;
  m.hidden = h;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn = 4 * h;
  m.vocab = vocab;
  m.mlp = MlpKind::gelu;
  m.tied_embeddings = true;
  m.position = PositionKind::learned;
  m.max_position = 2048;
  m.norm = NormKind::layernorm;
  m.linear_bias = true;
  return m;
}

TEST(Params, GptLayerIs12hSquaredPlus13h) {
  // Narayanan et al. 2021 eq. (2): per layer 12h^2 + 13h with biases and two LayerNorms.
  const ModelShape m = gpt(1, 1024, 16, 0);
  const double per_layer = attention_params_per_layer(m) + mlp_params_per_layer(m) + 2 * 2 * 1024.0;
  EXPECT_DOUBLE_EQ(per_layer, 12.0 * 1024 * 1024 + 13.0 * 1024);
}

TEST(Params, Gpt175bMatchesPublishedCount) {
  // 96 layers, h 12288: 12*96*12288^2 = 173.95e9 plus embeddings 50257*12288 = 0.62e9.
  const ModelShape m = gpt(96, 12288, 96, 50257);
  EXPECT_NEAR(count_params(m).total() / 1e9, 174.6, 0.05);
}

TEST(Params, GqaAndSwigluLlama3_8b) {
  // Llama 3 8B: attention 4096*4096*2 + 2*4096*1024 = 41.9M, MLP 3*4096*14336 = 176.2M,
  // 32 layers -> 6.98B, embeddings 2*128256*4096 = 1.05B, total 8.03B.
  const ModelShape& m = *io::builtin_catalog().find_model("llama3-8b");
  EXPECT_DOUBLE_EQ(attention_params_per_layer(m), 4096.0 * 4096 * 2 + 2.0 * 4096 * 1024);
  EXPECT_DOUBLE_EQ(mlp_params_per_layer(m), 3.0 * 4096 * 14336);
  EXPECT_NEAR(count_params(m).total(), 8.030e9, 0.001e9);
}

TEST(Params, MoeActiveParameters) {
  // Mixtral 8x7B: 46.7B total, 12.9B active (2 of 8 experts).
  const ModelShape& m = *io::builtin_catalog().find_model("mixtral-8x7b");
  const ParamCounts c = count_params(m);
  EXPECT_NEAR(c.total() / 1e9, 46.70, 0.01);
  EXPECT_NEAR(c.active / 1e9, 12.88, 0.01);
}

TEST(Params, MlaDeepSeekV3) {
  // DeepSeek-V3 attention per layer (MLA): q 7168*1536 + 1536 + 1536*128*192,
  // kv 7168*576 + 512 + 512*128*256, o 128*128*7168 = 187,107,328.
  const ModelShape& m = *io::builtin_catalog().find_model("deepseek-v3");
  EXPECT_DOUBLE_EQ(attention_params_per_layer(m), 187107328.0);
  EXPECT_NEAR(count_params(m).total() / 1e9, 671.0, 0.5);
}

// The MoE zoo entries against the total and active counts their sources
// publish, within 2 %. `active_without_embedding`: the source leaves the
// input embedding table out of its active count (the gpt-oss model card:
// 5.13B = 4 of 128 experts' 114.7B MLP x 4/128 + 0.96B attention + 0.58B
// unembedding + routers).
struct PublishedMoe {
  const char* id;
  double total_b, active_b;
  bool active_without_embedding = false;
};

TEST(Params, MoeZooModelsMatchTheirPublishedTotalAndActiveCounts) {
  const PublishedMoe published[] = {
      {"qwen3-30b-a3b", 30.5, 3.3},  // huggingface.co/Qwen/Qwen3-30B-A3B model card
      // arXiv:2508.10925 Table 1
      {"gpt-oss-120b", 116.83, 5.13, true},
      {"gpt-oss-20b", 20.91, 3.61, true},
      {"kimi-k2", 1040, 32.6},         // arXiv:2507.20534 (1.04T, 32.6B activated)
      {"qwen2-57b-a14b", 57.4, 14.2},  // huggingface.co/Qwen/Qwen2-57B-A14B (57.4B), 14B active
      {"deepseek-v2", 236, 21},        // arXiv:2405.04434
      {"llama4-scout", 109, 17},       // Llama 4 model card (total with the vision encoder)
      {"deepseek-v3", 671, 37},        // arXiv:2412.19437
      {"qwen3-235b-a22b", 235, 22},    // arXiv:2505.09388 Table 2
      {"mixtral-8x7b", 46.7, 12.9},    // arXiv:2401.04088 (47B / 13B)
      {"mixtral-8x22b", 141, 39},      // mistral.ai/news/mixtral-8x22b
  };
  for (const PublishedMoe& p : published) {
    const ModelShape* m = io::builtin_catalog().find_model(p.id);
    ASSERT_NE(m, nullptr) << p.id;
    const ParamCounts c = count_params(*m);
    const double active = p.active_without_embedding ? c.active - c.embedding : c.active;
    EXPECT_NEAR(c.total() / 1e9 / p.total_b, 1.0, 0.02) << p.id << " total " << c.total() / 1e9;
    EXPECT_NEAR(active / 1e9 / p.active_b, 1.0, 0.02) << p.id << " active " << active / 1e9;
  }
}

TEST(Params, GptOss120bBreakdown) {
  // gpt-oss model card Table 1: MLP 114.71B (36 x (128 experts x (3 x 2880^2 + 2 x 2880 +
  // 2880) + router 128 x 2880)), attention 0.96B (36 x (2 x 2880 x 4096 + 2 x 2880 x 512
  // + biases 4096 + 1024 + 2880)), embed + unembed 1.16B (2 x 201088 x 2880).
  const ParamCounts c = count_params(*io::builtin_catalog().find_model("gpt-oss-120b"));
  EXPECT_NEAR((c.expert_mlp + c.router) / 1e9, 114.71, 0.005);
  EXPECT_DOUBLE_EQ(c.attention, 36.0 * (2 * 2880.0 * 4096 + 2 * 2880.0 * 512 + 4096 + 1024 + 2880));
  EXPECT_DOUBLE_EQ(c.embedding + c.output, 2 * 201088.0 * 2880);
}

TEST(Params, EveryZooModelWithinThreePercentOfItsPublishedCount) {
  for (const ModelShape* m : io::builtin_catalog().all<ModelShape>()) {
    if (m->published_params <= 0) continue;
    const double ratio = count_params(*m).total() / m->published_params;
    // Published counts are rounded: Narayanan's Table 1 gives 1.652B as "1.7B" (-2.8%).
    EXPECT_NEAR(ratio, 1.0, 0.03) << m->id;
  }
}

}  // namespace
}  // namespace scaleout
