// The held-out check of `scaleout calibrate`'s step-time fit (issue 24,
// docs/validation.md "Calibrating to one cluster"): the vTrain measurements
// are many runs on one cluster (64 A100s for vtrain-multi, one 8-GPU node for
// vtrain-single). The per-cluster scale of the tensor-core rates (what
// calibrate writes as the family's sustained factor) is fitted with
// fit_scale on the even rows' step times and scored on the odd rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "calibration/calibration.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"
#include "validation/validation.hpp"

namespace scaleout {
namespace {

struct Split {
  std::vector<ValidationRow> fit, held;
};

Split split(const std::string& name) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/" + name;
  std::vector<ValidationRow> rows;
  for (ValidationRow& r : io::read_validation_csv(io::read_text_file(path), path)) {
    if (r.metric == "step_time_s") rows.push_back(std::move(r));
  }
  io::apply_gpu_overrides(rows, path);
  Split s;
  for (size_t i = 0; i < rows.size(); ++i) (i % 2 == 0 ? s.fit : s.held).push_back(rows[i]);
  return s;
}

std::vector<double> measured(const std::vector<ValidationRow>& rows) {
  std::vector<double> v;
  for (const ValidationRow& r : rows) v.push_back(r.value);
  return v;
}

std::vector<double> predicted(const std::vector<ValidationRow>& rows, double scale) {
  ModelTuning t;
  t.gemm_efficiency_scale = scale;
  std::vector<double> v;
  for (const ValidationRow& r : rows) {
    const RowResult p = predict_row(r, io::builtin_catalog(), t);
    v.push_back(p.predicted.value_or(0));
  }
  return v;
}

struct Heldout {
  double scale, fit_before, fit_after, before, after;
  double capped_scale, capped_after;  // the scale the overlay can hold (sustained factor <= 1)
};

Heldout heldout(const std::string& name) {
  const Split s = split(name);
  const double scale = fit_scale(
      measured(s.fit), [&](double x) { return predicted(s.fit, x); }, 0.2, 5.0);
  Heldout h{scale,
            mean_abs_error(predicted(s.fit, 1.0), measured(s.fit)),
            mean_abs_error(predicted(s.fit, scale), measured(s.fit)),
            mean_abs_error(predicted(s.held, 1.0), measured(s.held)),
            mean_abs_error(predicted(s.held, scale), measured(s.held)),
            0,
            0};
  // calibrate writes sustained_factor x scale, at most 1.
  const Gpu& gpu = *io::builtin_catalog().find_gpu(s.fit.front().gpu);
  h.capped_scale = std::min(scale, 1.0 / gpu.family_data.sustained_factor);
  h.capped_after = mean_abs_error(predicted(s.held, h.capped_scale), measured(s.held));
  std::printf(
      "%s: %zu fit rows, %zu held out; scale %.3f; fit MAPE %.1f %% -> %.1f %%; held-out "
      "MAPE %.1f %% -> %.1f %%\n",
      name.c_str(), s.fit.size(), s.held.size(), h.scale, 100 * h.fit_before, 100 * h.fit_after,
      100 * h.before, 100 * h.after);
  std::printf("  capped at a sustained factor of 1 (scale %.3f): held-out MAPE %.1f %%\n",
              h.capped_scale, 100 * h.capped_after);
  return h;
}

TEST(ClusterCalibration, VtrainMultiHeldOut) {
  const Heldout h = heldout("vtrain-multi.csv");
  // These even rows are one of the two halves the Ampere sustained factor is
  // fitted on jointly, with every other Megatron-LM A100 row of training.csv
  // (docs/validation.md, "Fitted constants"); calibrated to this one cluster
  // alone the scale rises to about 1.03 (fit 7.0 -> 6.5 %, held out 8.0 -> 7.7 %).
  EXPECT_GT(h.scale, 1.01);
  EXPECT_LT(h.scale, 1.06);
  EXPECT_LT(h.fit_after, h.fit_before - 0.003);
  EXPECT_LT(h.after, h.before - 0.002);
}

TEST(ClusterCalibration, VtrainSingleHeldOut) {
  const Heldout h = heldout("vtrain-single.csv");
  // Never fitted on for the sustained factor: the held-out error falls (8.7 -> 7.2 %).
  EXPECT_LT(h.fit_after, h.fit_before - 0.005);
  EXPECT_LT(h.after, h.before - 0.005);
  EXPECT_LT(h.capped_after, h.before);
}

}  // namespace
}  // namespace scaleout
