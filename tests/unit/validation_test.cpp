#include "validation/validation.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"
#include "validation_rows.hpp"

namespace scaleout {
namespace {

TEST(Spearman, RanksWithTies) {
  // Identical order: 1; reversed: -1; ties get average ranks.
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ranks a = (1, 2.5, 2.5, 4), b = (1, 2, 3, 4): rho = 4.5 / sqrt(4.5 * 5) = 0.9487.
  EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 2, 3, 4}), 4.5 / std::sqrt(4.5 * 5.0), 1e-12);
}

TEST(RowHalf, EvenAndOddSplitByPositionAndCoverEveryRowOnce) {
  const std::vector<int> rows = {10, 11, 12, 13, 14};
  EXPECT_EQ(rows_in_half(rows, RowHalf::even), (std::vector<int>{10, 12, 14}));
  EXPECT_EQ(rows_in_half(rows, RowHalf::odd), (std::vector<int>{11, 13}));
  EXPECT_EQ(rows_in_half(rows, RowHalf::all), rows);
  EXPECT_TRUE(rows_in_half(std::vector<int>{}, RowHalf::odd).empty());
}

TEST(OverallMape, AveragesThePredictedRowsOfEveryMetric) {
  ValidationReport r;
  r.rows.resize(3);
  r.rows[0].error = 0.1;
  r.rows[1].error = -0.2;  // a metric not predicted (row 2) does not count
  EXPECT_NEAR(overall_mape(r), 0.15, 1e-15);
  EXPECT_DOUBLE_EQ(overall_mape(ValidationReport{}), 0.0);
}

TEST(PredictRow, FillsMicroBatchWithMegatronDefaultAndPredicts) {
  const RowResult res = predict_row(gpt_row(), io::builtin_catalog());
  ASSERT_TRUE(res.predicted.has_value());
  EXPECT_TRUE(res.fits);
  EXPECT_NE(res.filled.find("micro_batch=1 (Megatron-LM default"), std::string::npos);
  EXPECT_NEAR(*res.error, (*res.predicted - 3.528) / 3.528, 1e-12);
}

// Issue 21: a predicted row carries the 80 % interval of its regime.
TEST(PredictRow, CarriesTheIntervalOfItsRegime) {
  const RowResult res = predict_row(gpt_row(), io::builtin_catalog());
  ASSERT_TRUE(res.predicted_low && res.predicted_high);
  EXPECT_EQ(res.regime, "time/ampere/megatron/pretrain/dense/le64");
  EXPECT_TRUE(res.interval.validated);
  EXPECT_NEAR(*res.predicted_low, *res.predicted * res.interval.low, 1e-12);
  EXPECT_NEAR(*res.predicted_high, *res.predicted * res.interval.high, 1e-12);
  ValidationRow t = gpt_row();
  t.metric = "tokens_per_s_per_gpu";  // a throughput: the time interval inverted
  t.value = 1000;
  const RowResult tp = predict_row(t, io::builtin_catalog());
  ASSERT_TRUE(tp.predicted_low && tp.predicted_high);
  EXPECT_NEAR(*tp.predicted_low, *tp.predicted / tp.interval.high, 1e-9);
  EXPECT_NEAR(*tp.predicted_high, *tp.predicted / tp.interval.low, 1e-9);
  ValidationReport rep = validate_rows({gpt_row(), t}, io::builtin_catalog());
  EXPECT_EQ(rep.coverage.rows, 2);
  EXPECT_EQ(rep.coverage_by_group.at(gpt_row().group).rows, 2);
}

TEST(PredictRow, UnknownParallelSplitIsThePlannersFastestFit) {
  ValidationRow r = gpt_row();
  r.tp.reset();
  r.pp.reset();
  const RowResult res = predict_row(r, io::builtin_catalog());
  ASSERT_TRUE(res.predicted.has_value());
  EXPECT_NE(res.filled.find("(planner's choice)"), std::string::npos);
  // The choice is at least as fast as the published TP 1 / PP 1 layout.
  const RowResult given = predict_row(gpt_row(), io::builtin_catalog());
  EXPECT_LE(res.step_s, given.step_s * (1 + 1e-9));
}

// Issue 20: an unknown interleave is filled only with values the framework
// can run. The Megatron-LM README's 462B row (Megatron-Core r0.8.0): 112
// layers on pp 16, 7 per stage, so of the candidates 1-8 only 1 and 7 split
// into equal chunks; 7, the faster, is taken (6 was chosen before).
TEST(PredictRow, UnknownInterleaveIsFilledOnlyWithEqualMegatronChunks) {
  ValidationRow r = gpt_row();
  r.model = "GPT 462B";
  r.layers = 112;
  r.hidden = 18432;
  r.heads = r.kv_heads = 144;
  r.ffn_hidden = 73728;
  r.vocab = 131072;
  r.seq_len = 4096;
  r.global_batch = 3072;
  r.tp = 8;
  r.pp = 16;
  r.dp = 48;
  r.sp = "y";
  r.interleave.reset();
  r.recompute.clear();
  r.zero = 1;
  r.gpu = "h100-sxm";
  r.num_gpus = 6144;
  r.nics_per_node.reset();
  r.nic_gbps.reset();
  r.fabric.clear();
  r.metric = "mfu";
  r.value = 0.47;
  const RowResult res = predict_row(r, io::builtin_catalog());
  ASSERT_TRUE(res.predicted.has_value()) << res.skipped;
  EXPECT_NE(res.filled.find("interleave=7 (planner's choice)"), std::string::npos) << res.filled;
}

// Issue 19: a row's host_link_gbyte_s is the measured machine's PCIe link.
// Two RTX 3090 (no peer-to-peer) under FSDP gather every layer through host
// memory, so a board that gives each card half its x16 link slows the step;
// the card's own 32 GB/s is the catalog figure.
TEST(PredictRow, HostLinkOfTheMachineTimesPcieCollectives) {
  const Catalog& cat = io::builtin_catalog();
  ValidationRow r = gpt_row();
  r.model = "llama2-7b";
  r.layers.reset();
  r.hidden.reset();
  r.heads.reset();
  r.kv_heads.reset();
  r.ffn_hidden.reset();
  r.vocab.reset();
  r.mlp = "";
  r.seq_len = 512;
  r.global_batch = 2;
  r.micro_batch = 1;
  r.dp = 2;
  r.zero = 3;
  r.finetune = "lora";
  r.lora_rank = 64;
  r.precision = "bf16";
  r.gpu = "rtx-3090";
  r.num_gpus = 2;
  r.gpus_per_node = 2;
  r.nics_per_node.reset();
  r.nic_gbps.reset();
  r.fabric = "";
  r.framework = "hf";
  r.metric = "tokens_per_s_per_gpu";
  r.value = 101;
  const RowResult card = predict_row(r, cat);
  ASSERT_TRUE(card.predicted.has_value()) << card.skipped;
  r.host_link_gbyte_s = 32;  // the card's own PCIe 4.0 x16
  EXPECT_DOUBLE_EQ(*predict_row(r, cat).predicted, *card.predicted);
  r.host_link_gbyte_s = 16;  // PCIe 4.0 x8
  const RowResult half = predict_row(r, cat);
  ASSERT_TRUE(half.predicted.has_value()) << half.skipped;
  // The bf16 gathers (13.5 GB a step) take twice as long: well over 10 % of a
  // batch-1 step.
  EXPECT_LT(*half.predicted, 0.9 * *card.predicted);
}

// Issue 20: a row without a vocabulary is predicted with its family's
// tokenizer, said in `filled`, never skipped.
TEST(PredictRow, MissingVocabularyTakesTheFamilysTokenizer) {
  const Catalog& cat = io::builtin_catalog();
  ValidationRow gpt = gpt_row();
  gpt.vocab.reset();
  const RowResult g = predict_row(gpt, cat);
  ASSERT_TRUE(g.predicted.has_value()) << g.skipped;
  // gpt_row() gives 51,200, the GPT default: the same prediction.
  EXPECT_DOUBLE_EQ(*g.predicted, *predict_row(gpt_row(), cat).predicted);
  EXPECT_NE(g.filled.find("vocab=51200 (GPT-2 BPE"), std::string::npos) << g.filled;

  ValidationRow llama = gpt_row();
  llama.model = "Llama 3 style 1.7B";
  llama.vocab.reset();
  const RowResult l = predict_row(llama, cat);
  ASSERT_TRUE(l.predicted.has_value()) << l.skipped;
  EXPECT_NE(l.filled.find("vocab=128256 (Llama 3 tokenizer"), std::string::npos) << l.filled;
  llama.vocab = 128256;
  EXPECT_DOUBLE_EQ(*l.predicted, *predict_row(llama, cat).predicted);
  // "LLaMA 65B" is the older 32,000-token tokenizer.
  llama.model = "LLaMA 65B";
  llama.vocab.reset();
  EXPECT_NE(predict_row(llama, cat).filled.find("vocab=32000"), std::string::npos);
}

// Issue 20: whole-run metrics time the row's tokens at the predicted step,
// with the catalog's default failures and checkpoints.
TEST(PredictRow, WholeRunMetricsTimeTheTokensAtThePredictedStep) {
  const Catalog& cat = io::builtin_catalog();
  ValidationRow r = gpt_row();
  r.metric = "train_days";
  r.value = 10;
  const RowResult none = predict_row(r, cat);
  EXPECT_FALSE(none.predicted.has_value());
  EXPECT_NE(none.skipped.find("train_tokens"), std::string::npos);

  r.train_tokens = 1e11;
  const RowResult days = predict_row(r, cat);
  ASSERT_TRUE(days.predicted.has_value()) << days.skipped;
  // At least the failure-free time: tokens / (tokens per step / step time).
  const double tokens_per_step = 512.0 * 2048.0;
  const double ideal_days = 1e11 / tokens_per_step * days.step_s / 86400.0;
  EXPECT_GE(*days.predicted, ideal_days);
  EXPECT_LT(*days.predicted, ideal_days * 1.2);  // 4 nodes for days: a few per cent of failures
  EXPECT_DOUBLE_EQ(days.wall_time_s, *days.predicted * 86400.0);

  r.metric = "gpu_hours";
  const RowResult hours = predict_row(r, cat);
  ASSERT_TRUE(hours.predicted.has_value());
  EXPECT_NEAR(*hours.predicted, *days.predicted * 24.0 * 32.0, 1e-9 * *hours.predicted);
  // Twice the tokens, about twice the time.
  r.train_tokens = 2e11;
  EXPECT_NEAR(*predict_row(r, cat).predicted / *hours.predicted, 2.0, 0.02);
}

TEST(PredictRow, UnknownGpuIsSkippedWithAReason) {
  ValidationRow r = gpt_row();
  r.gpu = "a100-sxm-81g";
  const RowResult res = predict_row(r, io::builtin_catalog());
  EXPECT_FALSE(res.predicted.has_value());
  EXPECT_EQ(res.skipped, "GPU 'a100-sxm-81g' is not in the catalog");
}

// --- Rows naming a catalog model (issue 17) ---------------------------------------------------

// gpt_row() with its shape cells empty and `model` set.
ValidationRow shapeless_row(const std::string& model) {
  ValidationRow r = gpt_row();
  r.model = model;
  r.layers.reset();
  r.hidden.reset();
  r.heads.reset();
  r.kv_heads.reset();
  r.ffn_hidden.reset();
  r.vocab.reset();
  r.mlp.clear();
  return r;
}

TEST(CatalogModel, NamedByIdOrNameWithoutTheShapeTakesTheCatalogShape) {
  const Catalog& cat = io::builtin_catalog();
  const ModelShape* zoo = cat.find_model("gpt-1.7b");  // "Megatron GPT 1.7B"
  EXPECT_EQ(named_catalog_model(shapeless_row("gpt-1.7b"), cat), zoo);
  EXPECT_EQ(named_catalog_model(shapeless_row("Megatron GPT 1.7B"), cat), zoo);
  EXPECT_EQ(catalog_shape_of(shapeless_row("gpt-1.7b"), cat), zoo);
  EXPECT_EQ(catalog_shape_of(shapeless_row("Megatron GPT 1.7B"), cat), zoo);
  // Names match exactly: another spelling is not the catalog model.
  EXPECT_EQ(named_catalog_model(shapeless_row("megatron gpt 1.7b"), cat), nullptr);
  // The catalog's Megatron GPT 1.7B is the shape gpt_row()'s cells describe
  // (GPT-style, learned 2048 positions, dropout under Megatron-LM), so the
  // prediction is the same.
  const RowResult from_cells = predict_row(gpt_row(), cat);
  const RowResult from_zoo = predict_row(shapeless_row("gpt-1.7b"), cat);
  ASSERT_TRUE(from_zoo.predicted.has_value()) << from_zoo.skipped;
  EXPECT_DOUBLE_EQ(*from_zoo.predicted, *from_cells.predicted);
  EXPECT_DOUBLE_EQ(from_zoo.peak_bytes, from_cells.peak_bytes);
}

TEST(CatalogModel, RowNamingItByNameWithTheWholeShapeKeepsItsCells) {
  // The data files' rows ("Llama 3 8B", "BLOOM 176B", ...) give every shape
  // cell; they keep building the shape from the cells, as before.
  ValidationRow r = gpt_row();
  r.model = "Megatron GPT 1.7B";
  EXPECT_NE(named_catalog_model(r, io::builtin_catalog()), nullptr);
  EXPECT_EQ(catalog_shape_of(r, io::builtin_catalog()), nullptr);
  // Named by id, the catalog shape is taken even with the cells given.
  r.model = "gpt-1.7b";
  EXPECT_NE(catalog_shape_of(r, io::builtin_catalog()), nullptr);
  // A model the catalog lacks: shape from the cells; without them the row is skipped.
  EXPECT_EQ(catalog_shape_of(gpt_row(), io::builtin_catalog()), nullptr);
  const RowResult res = predict_row(shapeless_row("GPT 1.7B"), io::builtin_catalog());
  EXPECT_EQ(res.skipped, "the row lacks the model shape, sequence length or GPU count");
}

TEST(CatalogModel, MoeRowTakesExpertsMlaAndHeadDimFromTheCatalog) {
  const Catalog& cat = io::builtin_catalog();
  ValidationRow r = shapeless_row("Qwen3-30B-A3B");
  r.tp = 1;
  r.pp = 1;
  r.dp = 8;
  r.ep = 8;
  r.num_gpus = 8;
  r.global_batch = 64;
  r.seq_len = 4096;
  r.precision = "bf16";
  r.gpu = "h100-sxm";
  r.framework = "megatron";
  const ModelShape* m = catalog_shape_of(r, cat);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, "qwen3-30b-a3b");
  EXPECT_EQ(m->head_dim, 128);
  EXPECT_EQ(m->moe.expert_ffn, 768);
  const RowResult res = predict_row(r, cat);
  EXPECT_TRUE(res.skipped.empty()) << res.skipped;
  EXPECT_TRUE(res.predicted.has_value());
  // DeepSeek-V3 by name brings its MLA ranks.
  EXPECT_TRUE(catalog_shape_of(shapeless_row("DeepSeek-V3"), cat)->is_mla());
  // An MoE row naming a catalog model by name takes its shape even with every
  // cell given: the cells cannot say shared experts, dense layers or MLA.
  ValidationRow full = gpt_row();
  full.model = "DeepSeek-V3";
  full.layers = 61;
  full.hidden = 7168;
  full.heads = 128;
  full.kv_heads = 128;
  full.ffn_hidden = 18432;
  full.vocab = 129280;
  full.mlp = "swiglu";
  full.moe_experts = 256;
  full.moe_top_k = 8;
  EXPECT_FALSE(shape_conflict(full, *cat.find_model("deepseek-v3")).has_value());
  EXPECT_EQ(catalog_shape_of(full, cat), cat.find_model("deepseek-v3"));
}

TEST(CatalogModel, GivenShapeCellsMustAgreeWithTheCatalog) {
  const ModelShape& qwen = *io::builtin_catalog().find_model("qwen3-30b-a3b");
  ValidationRow r = shapeless_row("qwen3-30b-a3b");
  EXPECT_FALSE(shape_conflict(r, qwen).has_value());  // no cells: nothing to disagree
  r.layers = 48;
  r.hidden = 2048;
  r.heads = 32;
  r.kv_heads = 4;
  r.ffn_hidden = 6144;  // the dense width (intermediate_size), as for dense models
  r.vocab = 151936;
  r.mlp = "swiglu";
  r.moe_experts = 128;
  r.moe_top_k = 8;
  EXPECT_FALSE(shape_conflict(r, qwen).has_value());
  r.ffn_hidden = 768;  // the expert width is not what ffn_hidden means
  auto c = shape_conflict(r, qwen);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->column, "ffn_hidden");
  EXPECT_EQ(c->message, "is 768, but catalog model 'qwen3-30b-a3b' has 6144");
  r.ffn_hidden = 6144;
  r.moe_top_k = 2;
  EXPECT_EQ(shape_conflict(r, qwen)->column, "moe_top_k");
  r.moe_top_k.reset();
  r.mlp = "gelu";
  EXPECT_EQ(shape_conflict(r, qwen)->column, "mlp");
  // A dense catalog model has no experts.
  ValidationRow d = gpt_row();
  d.moe_experts = 8;
  EXPECT_EQ(shape_conflict(d, *io::builtin_catalog().find_model("gpt-1.7b"))->column,
            "moe_experts");
  // predict_row skips a contradicting row (io::check_catalog_models refuses its file).
  ValidationRow bad = gpt_row();
  bad.model = "Megatron GPT 1.7B";
  bad.layers = 25;
  const RowResult res = predict_row(bad, io::builtin_catalog());
  EXPECT_FALSE(res.predicted.has_value());
  EXPECT_EQ(res.skipped, "layers is 25, but catalog model 'gpt-1.7b' has 24");
}

TEST(ValidateRows, SummaryCountsAndMape) {
  ValidationRow a = gpt_row();
  ValidationRow b = gpt_row();
  b.id = "t2";
  b.value = 2 * a.value;
  const ValidationReport rep = validate_rows({a, b}, io::builtin_catalog());
  ASSERT_EQ(rep.rows.size(), 2u);
  const double ea = std::fabs(*rep.rows[0].error), eb = std::fabs(*rep.rows[1].error);
  EXPECT_EQ(rep.by_metric.at("step_time_s").count, 2);
  EXPECT_NEAR(rep.by_metric.at("step_time_s").mape, (ea + eb) / 2, 1e-12);
  EXPECT_EQ(rep.step_time_equivalent.count, 2);
  EXPECT_NEAR(rep.step_time_equivalent.mape, (ea + eb) / 2, 1e-12);
  EXPECT_EQ(rep.false_oom, 0);
}

TEST(ValidateRows, ThroughputRowsScoreAsTheStepTheyImply) {
  // A tokens/s row predicted at twice its measured value is a step predicted
  // 50 % too short: +100 % by its own metric, -50 % as a step time.
  RowResult r;
  r.metric = "tokens_per_s_per_gpu";
  r.measured = 1000;
  r.predicted = 2000;
  r.error = 1.0;
  ASSERT_TRUE(step_time_error(r).has_value());
  EXPECT_NEAR(*step_time_error(r), -0.5, 1e-12);
  r.metric = "mfu";
  EXPECT_NEAR(*step_time_error(r), -0.5, 1e-12);
  r.metric = "step_time_s";
  EXPECT_NEAR(*step_time_error(r), 1.0, 1e-12);
  r.metric = "peak_mem_gib";
  EXPECT_FALSE(step_time_error(r).has_value());
  r.metric = "gpu_hours";
  EXPECT_FALSE(step_time_error(r).has_value());
  r.metric = "tokens_per_s_per_gpu";
  r.error.reset();
  EXPECT_FALSE(step_time_error(r).has_value());

  // In a report: one step row and one throughput row of the same run.
  ValidationRow step = gpt_row();
  const RowResult base = predict_row(step, io::builtin_catalog());
  ASSERT_TRUE(base.predicted.has_value());
  ValidationRow tput = step;
  tput.id = "t-tput";
  tput.metric = "tokens_per_s_per_gpu";
  tput.value = 1.0;  // any positive value
  const ValidationReport rep = validate_rows({step, tput}, io::builtin_catalog());
  ASSERT_EQ(rep.step_time_equivalent.count, 2);
  const double e_tput = 1.0 / *rep.rows[1].predicted - 1.0;
  EXPECT_NEAR(rep.step_time_equivalent.mape,
              (std::fabs(*rep.rows[0].error) + std::fabs(e_tput)) / 2, 1e-12);
}

TEST(ValidateRows, PickRegretIsTheMeasuredCostOfThePredictedFastest) {
  // Five micro-batch sizes of one model on 32 GPUs. The row predicted fastest
  // is given a measured 1.2 s and another row 1.0 s: regret 20 %.
  std::vector<ValidationRow> rows;
  for (long long b : {1, 2, 4, 8, 16}) {
    ValidationRow r = gpt_row();
    r.id = "b" + std::to_string(b);
    r.micro_batch = b;
    rows.push_back(r);
  }
  size_t fastest = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (*predict_row(rows[i], io::builtin_catalog()).predicted <
        *predict_row(rows[fastest], io::builtin_catalog()).predicted)
      fastest = i;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].value = i == fastest ? 1.2 : 1.0 + 0.1 * static_cast<double>(i);
  }
  const ValidationReport rep = validate_rows(rows, io::builtin_catalog());
  ASSERT_EQ(rep.rank_correlation.size(), 1u);
  ASSERT_TRUE(rep.rank_correlation[0].pick_regret.has_value());
  // The fastest measured is row 0 (1.0 s), or row 1 (1.1 s) when row 0 is the pick.
  EXPECT_NEAR(*rep.rank_correlation[0].pick_regret, fastest == 0 ? 1.2 / 1.1 - 1 : 0.2, 1e-12);
  // Measured in step with the prediction: no regret.
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].value = *predict_row(rows[i], io::builtin_catalog()).predicted;
  }
  EXPECT_DOUBLE_EQ(*validate_rows(rows, io::builtin_catalog()).rank_correlation[0].pick_regret,
                   0.0);
  // Throughput rows: the time a row implies is 1 / value. Predicted fastest
  // measured 100 tokens/s, best 125: regret 125/100 - 1 = 25 %.
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].metric = "tokens_per_s_per_gpu";
    rows[i].value = i == fastest ? 100.0 : (i == (fastest + 1) % rows.size() ? 125.0 : 110.0);
  }
  const ValidationReport tput = validate_rows(rows, io::builtin_catalog());
  ASSERT_EQ(tput.rank_correlation.size(), 1u);
  EXPECT_NEAR(*tput.rank_correlation[0].pick_regret, 0.25, 1e-12);
  EXPECT_NEAR(*tput.rank_correlation[0].pick_regret_mean, 0.25, 1e-12);
  EXPECT_EQ(tput.rank_correlation[0].settings, 1);
  for (ValidationRow& r : rows) r.metric = "step_time_s";
  // One row per GPU count (32 ... 512, micro-batch 1): nothing to pick between.
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].micro_batch = 1;
    rows[i].num_gpus = 32LL << i;
    rows[i].dp = 32LL << i;
  }
  const ValidationReport spread = validate_rows(rows, io::builtin_catalog());
  ASSERT_EQ(spread.rank_correlation.size(), 1u);
  EXPECT_EQ(spread.rank_correlation[0].count, 5);
  EXPECT_FALSE(spread.rank_correlation[0].pick_regret.has_value());
  EXPECT_EQ(spread.rank_correlation[0].settings, 0);
}

TEST(ValidateRows, PickRegretCountsATieAgainstThePrediction) {
  // Five copies of one row: every prediction ties, so the pick is the worst
  // measured (1.4 s against the best 1.0 s): 40 %.
  std::vector<ValidationRow> rows(5, gpt_row());
  for (size_t i = 0; i < rows.size(); ++i) rows[i].value = 1.0 + 0.1 * static_cast<double>(i);
  const ValidationReport rep = validate_rows(rows, io::builtin_catalog());
  ASSERT_EQ(rep.rank_correlation.size(), 1u);
  EXPECT_NEAR(*rep.rank_correlation[0].pick_regret, 0.4, 1e-12);
}

TEST(ServerOf, DefaultsToOneNicPerGpuAtTheGenerationsRate) {
  ValidationRow r = gpt_row();
  r.nics_per_node.reset();
  r.nic_gbps.reset();
  const Server s = server_of(r, *io::builtin_catalog().find_gpu("h100-sxm"));
  EXPECT_EQ(s.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(s.nic_bw_Bps, 400e9 / 8);  // NDR for Hopper
  const Server a = server_of(r, *io::builtin_catalog().find_gpu("a100-sxm-80g"));
  EXPECT_DOUBLE_EQ(a.nic_bw_Bps, 200e9 / 8);  // HDR for Ampere
}

TEST(FabricOf, NamesTheFabricKindOfTheRowsColumn) {
  ValidationRow r = gpt_row();
  const Server s = server_of(r, *io::builtin_catalog().find_gpu("h100-sxm"));
  const auto kind = [&](const std::string& column) {
    r.fabric = column;
    return fabric_of(r, s)->kind;
  };
  EXPECT_EQ(kind(""), FabricKind::ib);
  EXPECT_EQ(kind("ib"), FabricKind::ib);
  EXPECT_EQ(kind("roce"), FabricKind::roce);
  EXPECT_EQ(kind("eth"), FabricKind::ethernet);
  EXPECT_EQ(kind("efa"), FabricKind::efa);
}

}  // namespace
}  // namespace scaleout
