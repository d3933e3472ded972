// validate_serving_rows (src/validation/serving_validation.cpp): each row is
// predicted with estimate_serving at the row's concurrency (or the engine's
// limit), and the scores are the mean absolute and signed relative errors.
#include "validation/serving_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "inference/serving.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/serving_csv.hpp"

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

// --- The serving CSV reader (io/serving_csv.cpp), issue 23 -----------------------------------

// A one-row serving CSV whose cell `col` is `value` (quoted when needed).
std::string serving_csv_with(std::size_t col, const std::string& value) {
  std::vector<std::string> cells = {"r1",  "src",  "llama3.1-8b", "dgx-h100", "fp8",
                                    "fp8", "1",    "1",           "1000",     "1000",
                                    "16",  "2048", "tpot_s",      "0.01",     "ref"};
  std::string v = value;
  if (v.find_first_of(",\"\n\r") != std::string::npos) {
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    v = q + "\"";
  }
  cells.at(col) = v;
  std::string row;
  for (std::size_t i = 0; i < cells.size(); ++i) row += (i ? "," : "") + cells[i];
  return std::string(io::kServingCsvHeader) + "\n" + row + "\n";
}

// The error of reading it, as "file:line: key: message (hint)"; "accepted" when none.
std::string serving_error(std::size_t col, const std::string& value) {
  try {
    io::read_serving_csv(serving_csv_with(col, value), "s.csv", io::builtin_catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ServingCsv, ShippedFileReads) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/inference.csv";
  const auto rows = io::read_serving_csv(io::read_text_file(path), path, io::builtin_catalog());
  EXPECT_EQ(rows.size(), 100u);
  EXPECT_EQ(serving_error(13, "0.01"), "accepted");
}

TEST(ServingCsv, MeasuredValueInItsMetricsRange) {
  // Before issue 23 anything from 1e-12 to 1e15 was taken for every metric.
  EXPECT_EQ(serving_error(13, "0"),
            "s.csv:2: measured: measured tpot_s must be in (0, 1000000] s, got 0 "
            "(time per output token in seconds)");
  EXPECT_NE(serving_error(13, "-3.5"), "accepted");
  EXPECT_NE(serving_error(13, "1e308"), "accepted");
  EXPECT_NE(serving_error(13, "1e7"), "accepted");
  EXPECT_EQ(serving_error(13, "1e6"), "accepted");
}

TEST(ServingCsv, NumbersAreDecimalAndWhole) {
  for (const char* bad : {"0x10", "inf", "nan", "+0.01", "0.01 ", "1e"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(serving_error(13, bad).rfind("s.csv:2: measured: expected a number, got '", 0), 0u);
  }
  // tp 1.5 was read as 1 and 0x2 as 2.
  EXPECT_EQ(
      serving_error(6, "1.5"),
      "s.csv:2: tp: expected a whole number from 1 to 1024, got '1.5' (plain decimal digits)");
  EXPECT_NE(serving_error(6, "0x2"), "accepted");
  EXPECT_NE(serving_error(8, "+1000"), "accepted");
  EXPECT_NE(serving_error(10, "16.0"), "accepted");
  EXPECT_EQ(serving_error(10, ""), "accepted");  // concurrency: empty = unlimited
}

TEST(ServingCsv, IdsAreCheckedAndLongCellsCut) {
  EXPECT_EQ(serving_error(0, "r1\n`id`").rfind("s.csv:2: id: id 'r1\\x0a`id`' has a character", 0),
            0u);
  EXPECT_EQ(serving_error(1, "a b").rfind("s.csv:2: source: ", 0), 0u);
  EXPECT_EQ(serving_error(2, "llama3.1-8b; rm -rf ~").rfind("s.csv:2: model: ", 0), 0u);
  EXPECT_EQ(serving_error(3, "dgx-h100\r").rfind("s.csv:2: server: ", 0), 0u);
  const std::string big(1 << 20, 'w');
  for (std::size_t col : {std::size_t{0}, std::size_t{4}, std::size_t{6}, std::size_t{13}}) {
    EXPECT_LT(serving_error(col, big).size(), 400u) << col;
  }
}

}  // namespace
}  // namespace scaleout
