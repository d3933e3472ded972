// validate_serving_rows (src/validation/serving_validation.cpp): each row is
// predicted with estimate_serving at the row's concurrency (or the engine's
// limit), and the scores are the mean absolute and signed relative errors.
#include "validation/serving_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "inference/serving.hpp"
#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

ServingRow row(const char* id, const char* source, const char* metric, double measured,
               int concurrency) {
  ServingRow r;
  r.id = id;
  r.source = source;
  r.model = "llama3.1-8b";
  r.server = "dgx-h100";
  r.weights = "fp8";
  r.kv_cache = "fp8";
  r.prompt_tokens = 1000;
  r.output_tokens = 1000;
  r.concurrency = concurrency;
  r.max_batch = 2048;
  r.metric = metric;
  r.measured = measured;
  return r;
}

TEST(ServingValidation, PredictsWithTheServingModel) {
  const Catalog& cat = io::builtin_catalog();
  const ServingValidationReport rep =
      validate_serving_rows({row("a", "s1", "tpot_s", 0.010, 16)}, cat);
  ASSERT_EQ(rep.rows.size(), 1u);
  Workload w;
  w.model = *cat.find_model("llama3.1-8b");
  w.task = Task::inference;
  w.inference.prompt_tokens = 1000;
  w.inference.output_tokens = 1000;
  w.inference.weights = WeightFormat::fp8;
  w.inference.kv_cache = Precision::fp8;
  const ServingEstimate e =
      estimate_serving_at(w, *cat.find_server("dgx-h100"), *cat.find_gpu("h100-sxm"), nullptr, 16);
  EXPECT_EQ(rep.rows[0].batch, 16);
  EXPECT_DOUBLE_EQ(rep.rows[0].predicted, e.tpot_s);
}

TEST(ServingValidation, UnlimitedRateFillsTheEngine) {
  // An empty concurrency runs the engine at min(max_batch, sequences the KV
  // pool holds): 1000 + 1000 tokens x 65,536 B per token (FP8, 32 layers x 8
  // heads x 128 x 2) = 131 MB per sequence; a pool of ~63 GB holds ~500.
  const Catalog& cat = io::builtin_catalog();
  const ServingValidationReport rep =
      validate_serving_rows({row("a", "s1", "output_tokens_per_s", 15000, 0)}, cat);
  Workload w;
  w.model = *cat.find_model("llama3.1-8b");
  w.task = Task::inference;
  w.inference.prompt_tokens = 1000;
  w.inference.output_tokens = 1000;
  w.inference.weights = WeightFormat::fp8;
  w.inference.kv_cache = Precision::fp8;
  w.inference.max_batch = 2048;  // the row's max_batch (it sizes the logits buffer)
  const long long limit = serving_memory(w, *cat.find_gpu("h100-sxm"), 0).max_sequences;
  EXPECT_EQ(rep.rows[0].batch, limit);
  EXPECT_GT(limit, 300);
  EXPECT_LT(limit, 2048);
}

TEST(ServingValidation, ScoresPerMetricAndSource) {
  ServingValidationReport rep;
  const Catalog& cat = io::builtin_catalog();
  rep = validate_serving_rows({row("a", "s1", "tpot_s", 0.010, 8), row("b", "s1", "ttft_s", 0.2, 8),
                               row("c", "s2", "tpot_s", 0.020, 8)},
                              cat);
  ASSERT_EQ(rep.rows.size(), 3u);
  const double ea = rep.rows[0].error(), eb = rep.rows[1].error(), ec = rep.rows[2].error();
  EXPECT_NEAR(rep.overall.mape, (std::fabs(ea) + std::fabs(eb) + std::fabs(ec)) / 3, 1e-12);
  EXPECT_NEAR(rep.overall.bias, (ea + eb + ec) / 3, 1e-12);
  EXPECT_EQ(rep.by_source.at("s1").rows, 2);
  EXPECT_NEAR(rep.by_source.at("s1").mape, (std::fabs(ea) + std::fabs(eb)) / 2, 1e-12);
  EXPECT_EQ(rep.by_metric.at("tpot_s").rows, 2);
  // Rows a and c are the same prediction against measurements 2x apart.
  EXPECT_DOUBLE_EQ(rep.rows[0].predicted, rep.rows[2].predicted);
  EXPECT_NEAR(1 + ea, 2 * (1 + ec), 1e-12);
}

}  // namespace
}  // namespace scaleout
