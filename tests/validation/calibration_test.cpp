// The fitted constants of docs/validation.md ("Fitted constants"), refitted
// from the data: each built-in value must be a minimum of its fit set's MAPE
// on a grid around it (so the fit still puts the constant where the code
// has it), and the held-out errors recorded in docs/validation.md must hold.
// The splits are those of scripts/calibrate.py, which prints the full grids:
// mostly the even rows (by position) fit and the odd rows are held out; some
// held-out sets are whole groups, and the ZeRO-3 share splits by model size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "io/catalog_reader.hpp"
#include "io/serving_csv.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "perf/step.hpp"
#include "validation/serving_validation.hpp"
#include "validation/validation.hpp"

namespace scaleout {
namespace {

std::string data_path(const std::string& name) {
  return std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/" + name;
}

// Step-time and throughput rows of a training-schema CSV, with the sibling
// GPU overrides applied as `scaleout validate` applies them.
std::vector<ValidationRow> time_rows(const std::string& name) {
  const std::string path = data_path(name);
  std::vector<ValidationRow> rows;
  for (ValidationRow& r : io::read_validation_csv(io::read_text_file(path), path)) {
    if (r.metric != "peak_mem_gib") rows.push_back(std::move(r));
  }
  io::apply_gpu_overrides(rows, path);
  io::check_catalog_models(rows, io::builtin_catalog(), path);
  return rows;
}

template <typename Keep>
std::vector<ValidationRow> select(const std::vector<ValidationRow>& rows, Keep keep) {
  std::vector<ValidationRow> out;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(out), keep);
  return out;
}

double mape(const std::vector<ValidationRow>& rows, const ModelTuning& tuning) {
  const ValidationReport r = validate_rows(rows, io::builtin_catalog(), tuning);
  const auto predicted = std::count_if(r.rows.begin(), r.rows.end(),
                                       [](const RowResult& row) { return row.error.has_value(); });
  EXPECT_EQ(predicted, static_cast<long>(rows.size())) << "every row must be predicted";
  return overall_mape(r);
}

using Knob = std::optional<double> ModelTuning::*;

// MAPE with one model constant (`knob`) set to `value`.
double mape_with(const std::vector<ValidationRow>& rows, Knob knob, double value) {
  ModelTuning t;
  t.*knob = value;
  return mape(rows, t);
}

// The built-in `value` is no worse on the fit set than `step` either side.
void expect_minimum(const std::vector<ValidationRow>& fit, Knob knob, double value, double step) {
  const double at = mape_with(fit, knob, value);
  EXPECT_LE(at, mape_with(fit, knob, value - step));
  EXPECT_LE(at, mape_with(fit, knob, value + step));
}

double mape_at_scale(const std::vector<ValidationRow>& rows, double scale) {
  return mape_with(rows, &ModelTuning::gemm_efficiency_scale, scale);
}

// The built-in value (scale 1) is no worse on the fit set than 3 % either side.
void expect_scale_minimum(const std::vector<ValidationRow>& fit) {
  expect_minimum(fit, &ModelTuning::gemm_efficiency_scale, 1.0, 0.03);
}

// The 41 Megatron-LM A100 rows of training.csv in the order of the joint fit
// (scripts/calibrate.py): korthikanti22 and narayanan21 (33, of which the
// six ZeRO-3 rows run DeepSpeed and the three 175B ones also fit
// kDeepSpeedZero3HiddenShare), then the A100 rows of megatron2020 (8).
std::vector<ValidationRow> megatron_a100_rows() {
  const auto training = time_rows("training.csv");
  auto rows = select(training, [](const ValidationRow& r) {
    return r.group == "korthikanti22" || r.group == "narayanan21";
  });
  EXPECT_EQ(rows.size(), 33u);
  const auto meg2020 = select(training, [](const ValidationRow& r) {
    return r.group == "megatron2020" && r.gpu.starts_with("a100");
  });
  EXPECT_EQ(meg2020.size(), 8u);
  rows.insert(rows.end(), meg2020.begin(), meg2020.end());
  return rows;
}

// Ampere's sustained factor is fitted jointly on two sources, each weighing
// the same: the mean of the MAPEs of vtrain-multi's even rows (55, one
// 64-GPU Megatron-DeepSpeed cluster) and of every other Megatron-LM A100 row
// (21), so that one cluster's many runs do not outweigh three papers. Their
// other halves are held out.
TEST(Calibration, AmpereSustainedFactorJointlyOnVtrainMultiAndMegatronA100) {
  const auto multi = time_rows("vtrain-multi.csv");
  const auto megatron = megatron_a100_rows();
  const auto multi_fit = rows_in_half(multi, RowHalf::even);
  const auto megatron_fit = rows_in_half(megatron, RowHalf::even);
  ASSERT_EQ(multi_fit.size(), 55u);
  ASSERT_EQ(rows_in_half(multi, RowHalf::odd).size(), 54u);
  ASSERT_EQ(megatron_fit.size(), 21u);
  ASSERT_EQ(rows_in_half(megatron, RowHalf::odd).size(), 20u);
  auto joint = [&](double scale) {
    return 0.5 * (mape_at_scale(multi_fit, scale) + mape_at_scale(megatron_fit, scale));
  };
  // The built-in value (scale 1) is no worse than 3 % either side (fit: 6.3 %;
  // 6.1 % before session 21 charged DeepSpeed's serial pipeline exchanges,
  // docs/model.md "Frameworks").
  const double at = joint(1.0);
  EXPECT_LE(at, joint(0.97));
  EXPECT_LE(at, joint(1.03));
  EXPECT_LE(at, 0.064);
  // Held out: vtrain-multi's odd rows 8.3 % (8.0 % before the serial
  // exchanges), the odd Megatron-LM A100 rows 6.6 %.
  EXPECT_LE(mape_at_scale(rows_in_half(multi, RowHalf::odd), 1.0), 0.085);
  EXPECT_LE(mape_at_scale(rows_in_half(megatron, RowHalf::odd), 1.0), 0.068);
}

TEST(Calibration, DeepSpeedKernelFloorOnVtrainSingle) {
  const auto single = time_rows("vtrain-single.csv");
  const auto fit = rows_in_half(single, RowHalf::even);
  ASSERT_EQ(fit.size(), 720u);
  ASSERT_EQ(rows_in_half(single, RowHalf::odd).size(), 720u);
  expect_minimum(fit, &ModelTuning::kernel_floor_s, kDeepSpeedKernelFloor_s, 5e-6);
  EXPECT_LE(mape_with(rows_in_half(single, RowHalf::odd), &ModelTuning::kernel_floor_s,
                      kDeepSpeedKernelFloor_s),
            0.092);  // held out: 8.7 %
}

TEST(Calibration, HopperSustainedFactorOnServing) {
  const std::string path = data_path("inference.csv");
  const auto rows = io::read_serving_csv(io::read_text_file(path), path, io::builtin_catalog());
  auto at_scale = [](const std::vector<ServingRow>& r, double scale) {
    ServingConstants k;
    k.gemm_efficiency_scale = scale;
    return validate_serving_rows(r, io::builtin_catalog(), k).overall.mape;
  };
  const auto fit = rows_in_half(rows, RowHalf::even);
  ASSERT_EQ(fit.size(), 50u);
  ASSERT_EQ(rows_in_half(rows, RowHalf::odd).size(), 50u);
  const double at = at_scale(fit, 1.0);
  EXPECT_LE(at, at_scale(fit, 0.97));
  EXPECT_LE(at, at_scale(fit, 1.03));
  EXPECT_LE(at_scale(rows_in_half(rows, RowHalf::odd), 1.0), 0.123);  // held out: 11.8 %
}

bool eager(const ValidationRow& r) {
  return r.framework == "mosaic" || r.framework == "torchtitan" || r.framework == "fsdp" ||
         r.framework == "other";
}

TEST(Calibration, AmpereEagerEfficiency) {
  const auto a100 = select(time_rows("training.csv"), [](const ValidationRow& r) {
    return r.gpu.starts_with("a100") && eager(r);
  });
  ASSERT_EQ(rows_in_half(a100, RowHalf::even).size(), 16u);
  ASSERT_EQ(rows_in_half(a100, RowHalf::odd).size(), 16u);
  expect_scale_minimum(rows_in_half(a100, RowHalf::even));
  // Held out: 8.0 % (7.3 % before session 16 scaled the eager overhead by
  // each GPU's FLOPs per HBM byte: the 4 held-out A100 40GB rows, at 201
  // against the fitted rows' 165, run 3 % slower, the 80GB ones 1 % faster).
  EXPECT_LE(mape_at_scale(rows_in_half(a100, RowHalf::odd), 1.0), 0.082);
}

TEST(Calibration, HopperEagerEfficiency) {
  const auto training = time_rows("training.csv");
  const auto mosaic = select(training, [](const ValidationRow& r) {
    return r.gpu.starts_with("h100") && r.group == "mosaic";
  });
  ASSERT_EQ(rows_in_half(mosaic, RowHalf::even).size(), 7u);
  ASSERT_EQ(rows_in_half(mosaic, RowHalf::odd).size(), 6u);
  expect_scale_minimum(rows_in_half(mosaic, RowHalf::even));
  EXPECT_LE(mape_at_scale(rows_in_half(mosaic, RowHalf::odd), 1.0), 0.078);  // held out: 7.3 %
  const auto titan = select(training, [](const ValidationRow& r) {
    return r.gpu.starts_with("h100") && r.group == "torchtitan";
  });
  ASSERT_EQ(titan.size(), 10u);
  EXPECT_LE(mape_at_scale(titan, 1.0), 0.092);  // held out: 8.7 %
}

TEST(Calibration, DeepSpeedZero3HiddenShareOnNarayanan21) {
  const auto zero3 = select(time_rows("training.csv"), [](const ValidationRow& r) {
    return r.group == "narayanan21" && r.framework == "deepspeed" && r.zero == 3;
  });
  auto only = [&](const char* model) {
    return select(zero3, [model](const ValidationRow& r) { return r.model == model; });
  };
  const auto fit = only("GPT 174.6B"), held = only("GPT 529.6B");
  ASSERT_EQ(fit.size(), 3u);
  ASSERT_EQ(held.size(), 3u);
  expect_minimum(fit, &ModelTuning::zero3_hidden_share, kDeepSpeedZero3HiddenShare, 0.05);
  EXPECT_LE(mape_with(held, &ModelTuning::zero3_hidden_share, kDeepSpeedZero3HiddenShare),
            0.070);  // held out: 6.5 %
}

}  // namespace
}  // namespace scaleout
