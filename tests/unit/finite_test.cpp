// Tests of issue 23's "finite or refused" check (report/finite): every
// reported figure is finite and in its range, or the command fails naming the
// input that caused it; a GPU without a FLOP rate for the precision is found
// before the model runs.
#include "report/finite.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "input_error.hpp"

namespace scaleout::report {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Gpu gpu_with(double fp32, double bf16, double fp16, double fp8) {
  Gpu g;
  g.id = "g";
  g.fp32_flops = fp32;
  g.bf16_flops = bf16;
  g.fp16_flops = fp16;
  g.fp8_flops = fp8;
  return g;
}

TEST(MissingFlopRate, FollowsTheModelsFallbacks) {
  // No rate at all: nothing to run on.
  EXPECT_EQ(missing_flop_rate(gpu_with(0, 0, 0, 0), Precision::bf16), "tflops.bf16");
  EXPECT_EQ(missing_flop_rate(gpu_with(0, 0, 0, 0), Precision::fp8), "tflops.fp8");
  // H100-like: every precision has its own rate.
  const Gpu h100 = gpu_with(67e12, 989e12, 989e12, 1979e12);
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16, Precision::fp8}) {
    EXPECT_EQ(missing_flop_rate(h100, p), "") << to_string(p);
  }
  // V100: BF16 runs at the FP16 rate, FP8 at the 16-bit rate.
  const Gpu v100 = gpu_with(15.7e12, 0, 125e12, 0);
  EXPECT_EQ(missing_flop_rate(v100, Precision::bf16), "");
  EXPECT_EQ(missing_flop_rate(v100, Precision::fp8), "");
  // Only FP32: the matmuls fall back to it, but MFU has no 16-bit rate to divide by.
  EXPECT_EQ(missing_flop_rate(gpu_with(30e12, 0, 0, 0), Precision::bf16), "tflops.bf16");
  EXPECT_EQ(missing_flop_rate(gpu_with(30e12, 0, 0, 0), Precision::fp32), "");
  // Only BF16: FP16 and FP32 kernels have no rate (the fallback is FP16, then FP32).
  EXPECT_EQ(missing_flop_rate(gpu_with(0, 100e12, 0, 0), Precision::fp16), "tflops.fp16");
  EXPECT_EQ(missing_flop_rate(gpu_with(0, 100e12, 0, 0), Precision::fp32), "tflops.fp32");
}

TEST(NoFlopRateError, NamesTheCatalogFileWhenKnown) {
  const Gpu g = gpu_with(0, 0, 0, 0);
  EntryFiles files;
  const InputError in_workload =
      no_flop_rate_error(g, Precision::bf16, files, "w.yaml", "cluster.gpu");
  EXPECT_EQ(in_workload.file, "w.yaml");
  EXPECT_EQ(in_workload.key, "cluster.gpu");
  EXPECT_EQ(in_workload.message,
            "GPU 'g' has no FLOP rate for the workload's precision bf16 (tflops.bf16 is 0 or "
            "missing)");
  files.gpus["g"] = "cat.yaml";
  const InputError in_catalog =
      no_flop_rate_error(g, Precision::bf16, files, "w.yaml", "cluster.gpu");
  EXPECT_EQ(in_catalog.file, "cat.yaml");
  EXPECT_EQ(in_catalog.key, "tflops.bf16");
}

// A training estimate whose every figure is in range.
EstimateResult good_estimate() {
  EstimateResult r;
  r.server.id = "srv";
  r.gpu.id = "gpu";
  r.memory.capacity_bytes = 80e9;
  r.memory.peak.weights = 16e9;
  r.step.step_s = 2.0;
  r.step.breakdown.compute = 2.0;
  r.step.microbatches = 4;
  r.step.tokens_per_s = 1e5;
  r.step.tokens_per_s_per_gpu = 1.25e4;
  r.step.mfu = 0.45;
  r.step.hfu = 0.6;
  return r;
}

TEST(CheckEstimate, AcceptsFiguresInRange) {
  EXPECT_EQ(check_estimate(good_estimate()), std::nullopt);
}

TEST(CheckEstimate, RefusesInfinityNanAndOutOfRange) {
  EstimateResult r = good_estimate();
  r.step.step_s = kInf;  // what a GPU without a FLOP rate gave before issue 23
  auto bad = check_estimate(r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->figure, "step time (s)");
  EXPECT_EQ(bad->where, "estimate");
  EXPECT_EQ(bad->gpu_id, "gpu");
  EXPECT_EQ(bad->server_id, "srv");

  r = good_estimate();
  r.step.mfu = kNaN;
  bad = check_estimate(r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->figure, "MFU");

  r = good_estimate();
  r.step.mfu = 1.2;  // MFU above 100 % is impossible
  bad = check_estimate(r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->figure, "MFU");
  EXPECT_EQ(bad->range, "in [0, 1]");

  r = good_estimate();
  r.memory.peak.activations = -1;
  ASSERT_TRUE(check_estimate(r));
  EXPECT_EQ(check_estimate(r)->figure, "activation memory (bytes)");

  r = good_estimate();
  r.run = RunEconomics{};
  EXPECT_EQ(check_estimate(r), std::nullopt);
  r.run->cost.cloud_usd = -kInf;
  ASSERT_TRUE(check_estimate(r));
  EXPECT_EQ(check_estimate(r)->figure, "cloud cost (USD)");
}

TEST(CheckPlan, FindsABadFrontierEntryAndItsHardware) {
  PlanReport rep;
  HardwareOption a, b;
  a.server.id = "srv-a";
  a.gpu.id = "gpu-a";
  b.server.id = "srv-b";
  b.gpu.id = "gpu-b";
  b.fabric = Fabric{};
  b.fabric->id = "fab-b";
  rep.request.hardware = {a, b};
  PlanCandidate good;
  const EstimateResult e = good_estimate();
  good.memory = e.memory;
  good.step = e.step;
  rep.result.recommended = good;
  rep.result.frontier = {good, good};
  EXPECT_EQ(check_plan(rep), std::nullopt);
  rep.result.frontier[1].hardware = 1;
  rep.result.frontier[1].step.tokens_per_s = kInf / kInf;  // NaN
  const auto bad = check_plan(rep);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->where, "frontier entry 2");
  EXPECT_EQ(bad->figure, "tokens/s");
  EXPECT_EQ(bad->server_id, "srv-b");
  EXPECT_EQ(bad->gpu_id, "gpu-b");
  EXPECT_EQ(bad->fabric_id, "fab-b");
  rep.result.frontier[1].step.tokens_per_s = 1;
  rep.result.frontier[1].cost_usd = -5;  // a negative cost
  ASSERT_TRUE(check_plan(rep));
  EXPECT_EQ(check_plan(rep)->figure, "cost (USD)");
}

TEST(CheckSimulate, RefusesAnInfiniteMakespan) {
  SimulateReport rep;
  sim::ClusterOutcome o;
  o.cluster.server.id = "srv";
  o.cluster.nodes = 2;
  rep.result.clusters.push_back(o);
  EXPECT_EQ(check_simulate(rep), std::nullopt);
  rep.result.clusters[0].metrics.makespan_s = kInf;
  const auto bad = check_simulate(rep);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->where, "cluster 2 x srv");
  EXPECT_EQ(bad->figure, "makespan (s)");
}

TEST(CheckValidation, RefusesAnInfinitePrediction) {
  ValidationReport rep;
  RowResult row;
  row.id = "r1";
  row.measured = 2.0;
  row.predicted = 2.5;
  row.error = 0.25;
  rep.rows.push_back(row);
  EXPECT_EQ(check_validation(rep), std::nullopt);
  rep.rows[0].predicted = kInf;
  ASSERT_TRUE(check_validation(rep));
  EXPECT_EQ(check_validation(rep)->where, "row 'r1'");
  EXPECT_EQ(check_validation(rep)->figure, "predicted value");
}

TEST(RefuseBadFigure, BlamesAUserCatalogEntryElseIsAnInternalError) {
  BadFigure bad;
  bad.where = "recommended plan";
  bad.figure = "step time (s)";
  bad.value = kInf;
  bad.range = "finite and > 0";
  bad.server_id = "srv";
  bad.gpu_id = "gpu";
  EntryFiles files;
  try {
    refuse_bad_figure(bad, files);
    FAIL() << "expected an internal error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the step time (s) of the recommended plan is inf (expected finite and > 0) on "
              "server srv GPU gpu; please report this");
  }
  files.servers["srv"] = "cat.yaml";
  if (const auto e = input_error_of([&] { refuse_bad_figure(bad, files); })) {
    EXPECT_EQ(e->file, "cat.yaml");
    EXPECT_EQ(e->message,
              "server 'srv': the step time (s) of the recommended plan is inf (expected finite "
              "and > 0)");
  }
}

}  // namespace
}  // namespace scaleout::report
