// Pipeline stages (workload/pipeline.hpp): the layers of each stage and
// chunk, the recomputed share, the balanced first/last split and the rules
// for first_stage_layers and last_stage_layers (checks.cpp).
#include "workload/pipeline.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Megatron-Core's pipeline layout strings (Megatron-Bridge's DeepSeek-V3
// recipes): the chunks in order, chunk c of rank s at c x pp + s.
TEST(PipelineStages, MegatronLayoutStringPlacesTheLayersOfEachChunk) {
  std::string why;
  // PP 4 x VP 4: the embedding and 4 layers, 14 chunks of 4, then 1 layer,
  // the MTP depth and the loss.
  const auto four = parse_pipeline_layout("Et*4|(t*4|)*14tmL", 4, why);
  ASSERT_TRUE(four) << why;
  ASSERT_EQ(four->chunk_layers.size(), 16u);
  EXPECT_EQ(four->mtp_layers, 1);
  Layout ly = pipeline(4, 4);
  ly.chunk_layers = four->chunk_layers;
  ly.layout_mtp_layers = four->mtp_layers;
  EXPECT_EQ(rank_layer_count(61, ly, 0), 16);
  EXPECT_EQ(rank_layer_count(61, ly, 1), 16);
  EXPECT_EQ(rank_layer_count(61, ly, 3), 13);
  EXPECT_EQ(chunk_layer_count(61, ly, 3, 3), 1);
  EXPECT_EQ(chunk_layer_count(61, ly, 3, 0), 4);
  // PP 8 x VP 4 (H100): 'Et|(tt|)*30mL', the last chunk holds no layer.
  const auto eight = parse_pipeline_layout("Et|(tt|)*30mL", 8, why);
  ASSERT_TRUE(eight) << why;
  Layout h = pipeline(8, 4);
  h.chunk_layers = eight->chunk_layers;
  EXPECT_EQ(rank_layer_count(61, h, 0), 7);
  EXPECT_EQ(rank_layer_count(61, h, 4), 8);
  EXPECT_EQ(rank_layer_count(61, h, 7), 6);
  EXPECT_EQ(chunk_layer_count(61, h, 7, 3), 0);
  // Commas are cosmetic; parenthesised groups may hold '|'.
  const auto commas = parse_pipeline_layout("Ett,|(tt|tt|)*2,ttL", 2, why);
  ASSERT_TRUE(commas) << why;
  EXPECT_EQ(commas->chunk_layers, (std::vector<int>{2, 2, 2, 2, 2, 2}));
  EXPECT_FALSE(parse_pipeline_layout("E(t*999|)*999t*999L", 2, why));
  EXPECT_NE(why.find("too long"), std::string::npos) << why;
  EXPECT_FALSE(parse_pipeline_layout("Et*4|t*4L", 4, why));
  EXPECT_NE(why.find("2 stages do not split over pp 4"), std::string::npos) << why;
}

TEST(PipelineStages, MegatronLayoutMustHoldTheModelAndItsMtpDepths) {
  std::string why;
  auto layout = [&](const std::string& text, int pp) {
    const auto parsed = parse_pipeline_layout(text, pp, why);
    EXPECT_TRUE(parsed) << why;
    Workload w;
    w.model = dense(8);
    w.framework = Framework::megatron;
    w.layout = pipeline(pp);
    w.layout.interleave = parsed ? static_cast<int>(parsed->chunk_layers.size()) / pp : 1;
    if (parsed) {
      w.layout.chunk_layers = parsed->chunk_layers;
      w.layout.layout_mtp_layers = parsed->mtp_layers;
    }
    return w;
  };
  auto first = [](const Workload& w) {
    const auto problems = check_layout(w, 0);
    return problems.empty() ? "" : problems.front().key + ": " + problems.front().message;
  };
  EXPECT_EQ(first(layout("Et*4|t*4L", 2)), "");
  EXPECT_EQ(first(layout("Et*4|t*3L", 2)),
            "layout.pipeline_layout: the layout places 7 transformer layers t, the model has 8");
  EXPECT_EQ(first(layout("Et*4|t*4mL", 2)),
            "layout.pipeline_layout: the layout places 1 MTP depths m, the run trains 0");
  Workload sized = layout("Et*4|t*4L", 2);
  sized.layout.first_stage_layers = 4;
  EXPECT_NE(first(sized).find("cannot be given with first_stage_layers"), std::string::npos);
  Workload other = layout("Et*4|t*4L", 2);
  other.framework = Framework::torchtitan;
  EXPECT_NE(first(other).find("a pipeline layout is Megatron-Core's"), std::string::npos);
  Workload dual = layout("Et*4|t*4L", 2);
  dual.layout.schedule = PipeSchedule::dualpipe;
  EXPECT_NE(first(dual).find("for its 1F1B schedules"), std::string::npos);
  Workload mismatch = layout("Et*2|t*2|t*2|t*2L", 2);
  mismatch.layout.interleave = 1;
  EXPECT_EQ(first(mismatch),
            "layout.pipeline_layout: the layout has 4 stages, but pp 2 x interleave 1 is 2");
}

Layout accounted(int pp, int v, bool embedding, bool loss) {
  Layout ly = pipeline(pp, v);
  ly.embedding_in_split = embedding;
  ly.loss_in_split = loss;
  return ly;
}

TEST(PipelineStages, EmbeddingAndLossTakeALayersPlaceInTheSplit) {
  // Llama 3 405B (arXiv:2407.21783 section 3.3.2): 126 layers + embedding +
  // loss = 128 places on pp 16 x 8 chunks, one each; the first rank's first
  // chunk holds only the embedding, the last rank's last chunk only the loss.
  const Layout ly = accounted(16, 8, true, true);
  int sum = 0;
  for (int s = 0; s < 16; ++s) {
    EXPECT_EQ(rank_layer_count(126, ly, s), s == 0 || s == 15 ? 7 : 8) << s;
    int chunks = 0;
    for (int c = 0; c < 8; ++c) chunks += chunk_layer_count(126, ly, s, c);
    EXPECT_EQ(chunks, rank_layer_count(126, ly, s)) << s;
    sum += chunks;
  }
  EXPECT_EQ(sum, 126);
  EXPECT_EQ(chunk_layer_count(126, ly, 0, 0), 0);
  EXPECT_EQ(chunk_layer_count(126, ly, 0, 1), 1);
  EXPECT_EQ(chunk_layer_count(126, ly, 15, 7), 0);
  EXPECT_EQ(chunk_layer_count(126, ly, 15, 6), 1);
  EXPECT_EQ(problem(126, ly), "");
  // The embedding alone, without interleaving: 31 + 1 = 32 on pp 4, 8 each,
  // the first rank 7.
  const Layout e = accounted(4, 1, true, false);
  EXPECT_EQ(rank_layer_count(31, e, 0), 7);
  EXPECT_EQ(rank_layer_count(31, e, 3), 8);
  EXPECT_EQ(problem(31, e), "");
}

TEST(PipelineStages, MegatronRulesForTheEmbeddingAndLossInTheSplit) {
  // 126 + 2 = 128 does not split over pp 16 x 3 chunks.
  EXPECT_EQ(problem(126, accounted(16, 3, true, true)),
            "layout.embedding_in_split: 126 layers + 2 place(s) for the embedding and loss = 128 "
            "do not split evenly over pp 16 x interleave 3 chunks");
  EXPECT_EQ(problem(126, accounted(1, 1, false, true)),
            "layout.loss_in_split: embedding_in_split and loss_in_split place layers on pipeline "
            "stages, but pp is 1");
  Layout both = accounted(16, 1, true, true);
  both.first_stage_layers = 7;
  both.last_stage_layers = 7;
  EXPECT_NE(problem(126, both).find("cannot be given with first_stage_layers"), std::string::npos);
  Workload w;
  w.model = dense(126);
  w.layout = accounted(16, 8, true, true);
  w.framework = Framework::torchtitan;
  const auto problems = check_layout(w, 0);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().message.find("has no split that counts the embedding or loss"),
            std::string::npos);
}

// Pipeline schedules (pipeline.hpp): DeepSeek-V3 table 2 in units of 1F1B's
// bubble (p-1)(F+B). With B = 2F and W = F: b = 2/3, w = 1/3.
TEST(PipelineStages, MicrobatchGroupIsTheSmallestMegatronAccepts) {
  // Megatron-Core: p <= N <= m, and the last group 0 or at least p
  // (schedules.py forward_backward_pipelining_with_interleaving).
  EXPECT_EQ(interleave_group_size(4, 16), 4);
  EXPECT_EQ(interleave_group_size(16, 32), 16);
  EXPECT_EQ(interleave_group_size(4, 10), 5);    // 10 = 5 + 5 (4 would leave 2)
  EXPECT_EQ(interleave_group_size(4, 14), 5);    // 5 + 5 + 4
  EXPECT_EQ(interleave_group_size(16, 24), 24);  // one group: 17..23 leave fewer than 16
  EXPECT_EQ(interleave_group_size(16, 50), 17);  // 17 + 17 + 16
  EXPECT_EQ(interleave_group_size(8, 8), 8);
  EXPECT_EQ(interleave_group_size(4, 3), 4);  // fewer than p: refused elsewhere
  for (int p : {2, 3, 4, 8, 16}) {
    for (long long m = p; m <= 200; ++m) {
      const long long n = interleave_group_size(p, m);
      EXPECT_GE(n, p);
      EXPECT_LE(n, m);
      EXPECT_TRUE(m % n == 0 || m % n >= p) << "p " << p << " m " << m;
    }
  }
}

TEST(PipelineSchedules, BubbleRatiosFollowTheDeepSeekV3Table) {
  const double b = 2.0 / 3.0, w = 1.0 / 3.0;
  EXPECT_DOUBLE_EQ(schedule_bubble_ratio(PipeSchedule::one_f_one_b, 16, b, w), 1.0);
  // ZB1P: (p-1)(F+B-2W) / (p-1)(F+B) = 1 - 2w.
  EXPECT_DOUBLE_EQ(schedule_bubble_ratio(PipeSchedule::zb1p, 16, b, w), 1.0 / 3.0);
  // DualPipe, p 16: (p/2-1)(F&B+B-3W) = 7 x (3F + 2F - 3F) = 14F against 15 x 3F = 45F.
  EXPECT_NEAR(schedule_bubble_ratio(PipeSchedule::dualpipe, 16, b, w), 14.0 / 45.0, 1e-12);
  // DualPipe on 2 ranks: no bubble; DualPipeV on 8: (p-1)(2F)/2 = 7F against 21F.
  EXPECT_DOUBLE_EQ(schedule_bubble_ratio(PipeSchedule::dualpipe, 2, b, w), 0.0);
  EXPECT_NEAR(schedule_bubble_ratio(PipeSchedule::dualpipev, 8, b, w), 1.0 / 3.0, 1e-12);
  // Never below 0 (a weight-gradient share above one half under ZB1P); none without a pipeline.
  EXPECT_DOUBLE_EQ(schedule_bubble_ratio(PipeSchedule::zb1p, 8, 0.7, 0.6), 0.0);
  EXPECT_DOUBLE_EQ(schedule_bubble_ratio(PipeSchedule::dualpipe, 1, b, w), 0.0);
}

TEST(PipelineSchedules, ActivationsAndParameterCopiesPerRank) {
  // 1F1B and ZB1P: p - s micro-batches on stage s (PP on the first).
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::one_f_one_b, 16, 0, 120), 16.0);
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::zb1p, 16, 15, 120), 1.0);
  // DualPipe: PP + 1 over the rank's two stages, on every rank; capped by m.
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::dualpipe, 16, 0, 120), 8.5);
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::dualpipe, 16, 9, 120), 8.5);
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::dualpipe, 16, 0, 4), 2.0);
  // DualPipeV: 2p + 1 half-stage chunks = p + 1/2 stage micro-batches.
  EXPECT_DOUBLE_EQ(schedule_in_flight(PipeSchedule::dualpipev, 8, 3, 100), 8.5);
  EXPECT_EQ(schedule_parameter_copies(PipeSchedule::dualpipe, 16), 2);
  EXPECT_EQ(schedule_parameter_copies(PipeSchedule::dualpipev, 16), 1);
  EXPECT_EQ(schedule_parameter_copies(PipeSchedule::zb1p, 16), 1);
  EXPECT_TRUE(schedule_hides_comm(PipeSchedule::dualpipe));
  EXPECT_TRUE(schedule_hides_comm(PipeSchedule::dualpipev));
  EXPECT_FALSE(schedule_hides_comm(PipeSchedule::zb1p));
}

// The first problem of a 64-layer model's layout under `schedule`.
std::string schedule_problem_of(Framework f, PipeSchedule sch, Layout ly, long long batch = 0) {
  Workload w;
  w.model = dense(64);
  w.framework = f;
  w.global_batch = batch;
  ly.schedule = sch;
  w.layout = ly;
  const auto problems = check_layout(w, 0);
  return problems.empty() ? "" : problems.front().key + ": " + problems.front().message;
}

TEST(PipelineSchedules, OnlyWhereTheFrameworkShipsThem) {
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::dualpipe, pipeline(16)), "");
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::zb1p, pipeline(3)), "");
  EXPECT_EQ(schedule_problem_of(Framework::torchtitan, PipeSchedule::dualpipev, pipeline(4)), "");
  EXPECT_EQ(schedule_problem_of(Framework::megatron, PipeSchedule::dualpipe, pipeline(16)),
            "layout.pipeline_schedule: Megatron-LM does not ship the dualpipe pipeline schedule");
  EXPECT_EQ(schedule_problem_of(Framework::torchtitan, PipeSchedule::zb1p, pipeline(4)),
            "layout.pipeline_schedule: torchtitan (PyTorch FSDP2, TP, PP, CP) does not ship the "
            "zb1p pipeline schedule");
  EXPECT_TRUE(schedule_allowed(Framework::nemo, PipeSchedule::one_f_one_b));
  EXPECT_FALSE(schedule_allowed(Framework::nemo, PipeSchedule::dualpipev));
  EXPECT_TRUE(schedule_allowed(Framework::other, PipeSchedule::dualpipev));
}

TEST(PipelineSchedules, LayoutRules) {
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::dualpipe, pipeline(1)),
            "layout.pipeline_schedule: pipeline_schedule dualpipe needs a pipeline (pp > 1), got "
            "pp 1");
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::zb1p, pipeline(4, 2)),
            "layout.pipeline_schedule: pipeline_schedule zb1p places its own model chunks; it "
            "does not take interleave 2");
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::dualpipe, pipeline(3)),
            "layout.pipeline_schedule: dualpipe pairs rank r with rank pp-1-r and needs an even "
            "pp, got pp 3");
  // 8 micro-batches (global 8, micro-batch 1, dp 1) on 8 stages: DualPipe wants 16.
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::dualpipev, pipeline(8), 8),
            "layout.pipeline_schedule: dualpipev runs at least 2 x pp = 16 micro-batches per step "
            "(deepseek-ai/DualPipe), got 8 (global_batch 8 / (micro_batch 1 x dp 1))");
  EXPECT_EQ(schedule_problem_of(Framework::other, PipeSchedule::dualpipev, pipeline(8), 16), "");
}

}  // namespace
}  // namespace scaleout
