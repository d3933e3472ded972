// Pipeline stages (workload/pipeline.hpp): the layers of each stage and
// chunk, the recomputed share, the balanced first/last split and the rules
// for first_stage_layers and last_stage_layers (checks.cpp).
#include "workload/pipeline.hpp"

#include <gtest/gtest.h>

#include <string>

#include "workload/checks.hpp"

namespace scaleout {
namespace {

ModelShape dense(int layers) {
  ModelShape m;
  m.layers = layers;
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 16;
  m.ffn = 4096;
  m.vocab = 32000;
  return m;
}

Layout pipeline(int pp, int v = 1, int first = 0, int last = 0) {
  Layout ly;
  ly.pp = pp;
  ly.interleave = v;
  ly.first_stage_layers = first;
  ly.last_stage_layers = last;
  return ly;
}

TEST(PipelineStages, EvenSplitGivesTheFirstLayersModPpStagesOneMore) {
  // 32 layers on 4 stages: 8 each.
  for (int s = 0; s < 4; ++s) EXPECT_EQ(rank_layer_count(32, pipeline(4), s), 8) << s;
  // 126 layers on 8 stages: 126 = 8 x 15 + 6, stages 0-5 take 16, 6-7 take 15.
  const Layout ly = pipeline(8);
  int sum = 0;
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(rank_layer_count(126, ly, s), s < 6 ? 16 : 15) << s;
    sum += rank_layer_count(126, ly, s);
  }
  EXPECT_EQ(sum, 126);
  EXPECT_EQ(heaviest_stage_layers(dense(126), ly), 16);
  // No pipeline: every layer on the one stage; out of range: none.
  EXPECT_EQ(rank_layer_count(126, pipeline(1), 0), 126);
  EXPECT_EQ(rank_layer_count(126, ly, 8), 0);
  const StageLayers first = stage_layers(dense(126), ly, 0);
  EXPECT_TRUE(first.embedding);
  EXPECT_FALSE(first.output);
  EXPECT_TRUE(stage_layers(dense(126), ly, 7).output);
  EXPECT_EQ(first.dense, 16);
  EXPECT_EQ(first.moe, 0);
}

TEST(PipelineStages, FirstAndLastSizesLeaveTheRestToTheMiddleStages) {
  // Llama 3 405B style: 126 layers, pp 16, 7 on the first and the last:
  // (126 - 14) / 14 = 8 on each middle stage.
  const Layout ly = pipeline(16, 1, 7, 7);
  int sum = 0;
  for (int s = 0; s < 16; ++s) {
    EXPECT_EQ(rank_layer_count(126, ly, s), s == 0 || s == 15 ? 7 : 8) << s;
    sum += rank_layer_count(126, ly, s);
  }
  EXPECT_EQ(sum, 126);
  // Only the first given (Megatron-LM: the last rank counts as a middle
  // one): 30 layers, pp 4, first 6: (30 - 6) / 3 = 8 on ranks 1-3.
  const Layout only_first = pipeline(4, 1, 6, 0);
  EXPECT_EQ(rank_layer_count(30, only_first, 0), 6);
  EXPECT_EQ(rank_layer_count(30, only_first, 1), 8);
  EXPECT_EQ(rank_layer_count(30, only_first, 3), 8);
  // pp 2: the two sizes are the whole model.
  EXPECT_EQ(rank_layer_count(30, pipeline(2, 1, 14, 16), 1), 16);
}

TEST(PipelineStages, InterleavedChunksFollowMegatronBuildOrder) {
  // 60 layers, pp 4, v 2, first 14, last 14: middle ranks 16 each, chunks
  // of 7 on the first and last rank and 8 on the middle ones.
  const Layout ly = pipeline(4, 2, 14, 14);
  EXPECT_EQ(chunk_layer_count(60, ly, 0, 0), 7);
  EXPECT_EQ(chunk_layer_count(60, ly, 1, 1), 8);
  EXPECT_EQ(chunk_layer_count(60, ly, 3, 1), 7);
  EXPECT_EQ(chunk_layer_count(60, ly, 3, 2), 0);  // no third chunk
  EXPECT_EQ(stage_layers(dense(60), ly, 1).largest_chunk(), 8);
  // Uneven chunks of the even split: 15 layers in 2 chunks, 8 and 7.
  EXPECT_EQ(chunk_layer_count(30, pipeline(2, 2), 0, 0), 8);
  EXPECT_EQ(chunk_layer_count(30, pipeline(2, 2), 0, 1), 7);
  // MoE with 3 dense layers first: 8 layers, pp 2, v 2 build as
  // rank 0 [0 1], rank 1 [2 3], rank 0 [4 5], rank 1 [6 7]: rank 0 holds
  // dense 0, 1 and MoE 4, 5; rank 1 dense 2 and MoE 3, 6, 7.
  ModelShape moe = dense(8);
  moe.moe.experts = 8;
  moe.moe.top_k = 2;
  moe.moe.dense_layers = 3;
  ASSERT_TRUE(moe.is_moe());
  const StageLayers r0 = stage_layers(moe, pipeline(2, 2), 0);
  const StageLayers r1 = stage_layers(moe, pipeline(2, 2), 1);
  EXPECT_EQ(r0.dense, 2);
  EXPECT_EQ(r0.moe, 2);
  EXPECT_EQ(r1.dense, 1);
  EXPECT_EQ(r1.moe, 3);
}

TEST(PipelineStages, BalancedSplitEvensTheEndsAgainstTheMiddle) {
  // 32 layers, pp 4; the embedding costs 1 layer, output and loss 2. Even:
  // the last stage 8 + 2 = 10. Middle ranks of 9 leave 14 for the ends:
  // first 7 (7 + 1 = 8), last 7 (7 + 2 = 9): slowest 9, 2 layers moved.
  // (first 8, last 6 is as fast but moves 2 too; the first found stays.)
  const auto split = balanced_stage_split(32, pipeline(4), 1.0, 2.0);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first, 7);
  EXPECT_EQ(split->last, 7);
  // Interleaved (v 2): sizes in multiples of 2. Even: 8 + 2 = 10; middle 10
  // leaves 12: first 6 + 1, last 6 + 2, slowest 10, no faster; middle 8
  // leaves 16: first 8 (9), last 8 (10), no faster: none.
  EXPECT_FALSE(balanced_stage_split(32, pipeline(4, 2), 1.0, 2.0).has_value());
  // A heavier output layer (4 layers' time; even: 8 + 4 = 12): middle 10
  // leaves 12: first 6 (7), last 6 (10), slowest 10.
  const auto heavy = balanced_stage_split(32, pipeline(4, 2), 1.0, 4.0);
  ASSERT_TRUE(heavy.has_value());
  EXPECT_EQ(heavy->first % 2, 0);
  EXPECT_EQ(heavy->last % 2, 0);
  EXPECT_EQ(32 - heavy->first - heavy->last, 2 * 10);
  // pp 2: first + last = 32; 17 + 1 = 18 = 15 + 3 with output 3.
  const auto two = balanced_stage_split(32, pipeline(2), 1.0, 3.0);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->first, 17);
  EXPECT_EQ(two->last, 15);
  // No pipeline, or nothing to balance: none.
  EXPECT_FALSE(balanced_stage_split(32, pipeline(1), 1.0, 2.0).has_value());
  EXPECT_FALSE(balanced_stage_split(32, pipeline(4), 0.0, 0.0).has_value());
  // Every split it gives is legal.
  for (int pp : {2, 3, 4, 8, 16}) {
    for (int v : {1, 2, 4}) {
      Layout ly = pipeline(pp, v);
      const auto s = balanced_stage_split(128, ly, 1.5, 3.5);
      if (!s) continue;
      ly.first_stage_layers = s->first;
      ly.last_stage_layers = s->last;
      Workload w;
      w.model = dense(128);
      w.layout = ly;
      EXPECT_TRUE(check_layout(w, 0).empty()) << pp << " " << v;
    }
  }
}

// The first problem check_layout finds for `ly` on `layers` layers.
std::string problem(int layers, const Layout& ly) {
  Workload w;
  w.model = dense(layers);
  w.layout = ly;
  const auto problems = check_layout(w, 0);
  return problems.empty() ? "" : problems.front().key + ": " + problems.front().message;
}

TEST(PipelineStages, MegatronRulesForFirstAndLastSizes) {
  EXPECT_EQ(problem(126, pipeline(16, 1, 7, 7)), "");
  EXPECT_EQ(problem(126, pipeline(1, 1, 7, 0)),
            "layout.first_stage_layers: first_stage_layers and last_stage_layers size pipeline "
            "stages, but pp is 1");
  // Interleaving: each size a multiple of the chunks.
  EXPECT_EQ(problem(126, pipeline(16, 2, 7, 7)),
            "layout.first_stage_layers: first_stage_layers 7 is not a multiple of interleave 2: "
            "every model chunk of a stage holds the same number of layers (Megatron-LM)");
  EXPECT_EQ(
      problem(126, pipeline(16, 2, 8, 7)).rfind("layout.last_stage_layers: last_stage_layers 7", 0),
      0U);
  // The rest must split evenly: 126 - 6 - 7 = 113 over 14 ranks.
  EXPECT_EQ(problem(126, pipeline(16, 1, 6, 7)),
            "layout.first_stage_layers: the 113 layers left after first_stage_layers 6 and "
            "last_stage_layers 7 do not split evenly over the 14 other stage(s)");
  // ... and, interleaved, in multiples of the chunks: 60 - 14 - 14 = 32 over
  // 2 ranks is 16, a multiple of 2; 60 - 12 - 12 = 36 over 2 is 18, not a
  // multiple of 4.
  EXPECT_EQ(problem(60, pipeline(4, 2, 14, 14)), "");
  EXPECT_NE(problem(60, pipeline(4, 4, 12, 12)).find("in multiples of interleave 4"),
            std::string::npos);
  // Sizes that leave nothing (or too much) for the other stages.
  EXPECT_NE(problem(32, pipeline(4, 1, 16, 16)).find("leave 0 of the model's 32 layers"),
            std::string::npos);
  EXPECT_NE(problem(32, pipeline(2, 1, 10, 10)).find("leave 12 of the model's 32 layers"),
            std::string::npos);
  EXPECT_NE(problem(32, pipeline(2, 1, 20, 20)).find("exceed the model's 32 layers"),
            std::string::npos);
  EXPECT_EQ(problem(32, pipeline(2, 1, 20, 12)), "");
}

}  // namespace
}  // namespace scaleout
