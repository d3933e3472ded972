// The job mix: arrivals (deterministic, Poisson), sizing through the planner,
// and the verdict on mixes with known answers.
#include "sim/mix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "io/catalog_reader.hpp"
#include "report/reasons.hpp"
#include "report/sim_report.hpp"
#include "search/planner.hpp"

namespace scaleout::sim {
namespace {

constexpr double kH = 3600.0;

CandidateCluster dgx(int nodes) {
  const Catalog& c = io::builtin_catalog();
  CandidateCluster out;
  out.server = *c.find_server("dgx-h100");
  out.gpu = *c.find_gpu(out.server.gpu_id);
  out.nodes = nodes;
  out.usd_per_gpu_hour = c.default_cloud_price(out.gpu.id)->usd_per_gpu_hour;
  return out;
}

JobSpec fixed(const std::string& name, int gpus, double duration_h, double at_h = 0) {
  JobSpec s;
  s.name = name;
  s.gpus = gpus;
  s.duration_s = duration_h * kH;
  s.at_s = at_h * kH;
  return s;
}

TEST(Mix, Exponential) {
  EXPECT_EQ(exponential(0, 5), 0);                                  // u = 0
  EXPECT_DOUBLE_EQ(exponential(1ULL << 63, 5), 5 * std::log(2.0));  // u = 1/2: 5 ln 2
  // u = 1 - 2^-53 at most: finite, 53 ln 2 = 36.7 means.
  EXPECT_NEAR(exponential(~0ULL, 1), 53 * std::log(2.0), 1e-9);
}

TEST(Mix, ArrivalsWithoutRateAllAtOnce) {
  JobSpec s = fixed("a", 1, 1, 3);
  s.count = 4;
  EXPECT_EQ(arrivals(s, 1, 0), (std::vector<double>(4, 3 * kH)));
}

TEST(Mix, ArrivalsArePoissonAndDeterministic) {
  JobSpec s = fixed("a", 1, 1, 2);
  s.count = 100000;
  s.rate_per_s = 4 / kH;  // 4 an hour: mean gap 0.25 h
  const std::vector<double> a = arrivals(s, 7, 0);
  EXPECT_EQ(a, arrivals(s, 7, 0));  // same seed, same arrivals
  EXPECT_NE(a, arrivals(s, 8, 0));  // another seed, others
  EXPECT_NE(a, arrivals(s, 7, 1));  // another spec, another stream
  EXPECT_GT(a.front(), 2 * kH);     // they start after `at`
  for (size_t i = 1; i < a.size(); ++i) ASSERT_GE(a[i], a[i - 1]);
  // Mean gap 0.25 h within 1 % (standard error 0.25 / sqrt(1e5) = 0.3 %).
  const double mean_gap_h = (a.back() - 2 * kH) / kH / 100000;
  EXPECT_NEAR(mean_gap_h, 0.25, 0.0025);
  // Pinned: the first gap from std::mt19937_64 (fully specified by the
  // standard) and our own conversion, the same on every platform.
  std::mt19937_64 g(7ULL ^ 0x9E3779B97F4A7C15ULL);
  EXPECT_DOUBLE_EQ(a.front(), 2 * kH + exponential(g(), kH / 4));
}

TEST(Mix, FixedSizing) {
  const Sizing a = size_job(fixed("a", 8, 2), dgx(1), 1);
  EXPECT_TRUE(a.fits);
  EXPECT_EQ(a.gpus, 8);
  EXPECT_EQ(a.duration_s, 2 * kH);
  const Sizing b = size_job(fixed("b", 16, 2), dgx(1), 1);
  EXPECT_FALSE(b.fits);
  EXPECT_EQ(b.miss, SizingMiss::too_many_gpus);
  EXPECT_EQ(report::sizing_words(b, 8), "needs 16 GPUs, the cluster has 8");
}

TEST(Mix, AutoSizingUsesThePlanner) {
  const Catalog& c = io::builtin_catalog();
  JobSpec s;
  s.name = "pretrain";
  Workload w;
  w.model = *c.find_model("llama3-8b");
  w.tokens = 1e10;
  w.seq_len = 4096;
  w.global_batch = 256;
  s.workload = w;
  const Sizing fast = size_job(s, dgx(4), 2);
  s.size_by = SizeBy::cost;
  const Sizing cheap = size_job(s, dgx(4), 2);
  ASSERT_TRUE(fast.fits);
  ASSERT_TRUE(cheap.fits);
  // The fastest plan on at most 4 nodes uses at least as many GPUs as the
  // one with the fewest GPU-hours, and is not slower.
  EXPECT_GE(fast.gpus, cheap.gpus);
  EXPECT_LE(fast.duration_s, cheap.duration_s);
  EXPECT_LE(cheap.gpus * cheap.duration_s, fast.gpus * fast.duration_s);
  EXPECT_LE(fast.plan_nodes, 4);
  EXPECT_EQ(fast.gpus % 8, 0);  // the planner plans whole nodes
  // The duration is the plan's time to train: the same plan searched directly.
  PlanRequest req;
  req.workload = w;
  HardwareOption h;
  h.server = dgx(1).server;
  h.gpu = dgx(1).gpu;
  req.hardware.push_back(h);
  req.constraints.max_nodes = 4;
  double best = 1e300;
  for (const PlanCandidate& p : plan(req).frontier) best = std::min(best, p.time_to_train_s);
  EXPECT_DOUBLE_EQ(fast.duration_s, best);
  // Thread count does not change the answer.
  s.size_by = SizeBy::time;
  const Sizing one = size_job(s, dgx(4), 1);
  EXPECT_EQ(one.gpus, fast.gpus);
  EXPECT_EQ(one.duration_s, fast.duration_s);
}

TEST(Mix, AutoSizingInferenceIsNotSupportedYet) {
  JobSpec s;
  s.name = "serve";
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.task = Task::inference;
  s.workload = w;
  const Sizing z = size_job(s, dgx(1), 1);
  EXPECT_FALSE(z.fits);
  EXPECT_EQ(z.miss, SizingMiss::inference);
  EXPECT_EQ(report::sizing_words(z, 8), "inference sizing is not supported yet");
}

TEST(Mix, VerdictPicksTheSmallestClusterWithinTheTarget) {
  // Two 8-GPU jobs of 10 h at 0. One node: waits 0 and 10 h, p90 10 h (the
  // 2nd of 2). Two nodes: waits 0. Four nodes: waits 0 too, but bigger.
  JobMix mix;
  mix.clusters = {dgx(1), dgx(4), dgx(2)};
  mix.jobs = {fixed("a", 8, 10), fixed("b", 8, 10)};
  const MixResult r = simulate_mix(mix, 1);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.clusters[0].metrics.wait_p90_s, 10 * kH);
  EXPECT_EQ(r.clusters[2].metrics.wait_p90_s, 0);
  EXPECT_EQ(r.recommended, 2);
  EXPECT_EQ(r.reasons.at(0),
            "2 x dgx-h100 (16 GPUs) is the smallest candidate that runs every job with a p90 "
            "wait within the 1.0 h target (0 s).");
  // Held GPU-hours: 16 GPUs x 10 h makespan.
  EXPECT_DOUBLE_EQ(r.clusters[2].held_gpu_hours, 160);
  EXPECT_DOUBLE_EQ(r.clusters[2].cost_usd, 160 * dgx(2).usd_per_gpu_hour);
}

TEST(Mix, VerdictComparesWithTheSmallestAndLargest) {
  // Same mix on 1, 2 and 4 nodes: 2 nodes is the choice. Against one node it
  // cuts the p90 wait from 10 h to 0 and the makespan from 20 h to 10 h at 2x
  // the hardware: 16 GPUs x 10 h = 160 GPU-h against 8 x 20 = 160, the same
  // cost; utilisation 160 / 160 = 100 % on both. Four nodes: 32 x 10 = 320
  // GPU-h, 50 % busy.
  JobMix mix;
  mix.clusters = {dgx(1), dgx(2), dgx(4)};
  for (CandidateCluster& c : mix.clusters) c.usd_per_gpu_hour = 2;  // $320 per 160 GPU-h
  mix.jobs = {fixed("a", 8, 10), fixed("b", 8, 10)};
  const MixResult r = simulate_mix(mix, 1);
  ASSERT_EQ(r.recommended, 1);
  ASSERT_EQ(r.reasons.size(), 3u);
  EXPECT_EQ(r.reasons[1],
            "2 nodes cut the p90 wait from 10 h to 0 s and the makespan from 20 h to 10 h at 2x "
            "the hardware (the same $320 for the GPU-hours held); GPU utilisation is 100 % on "
            "one node and 100 % on 2 nodes.");
  EXPECT_EQ(r.reasons[2],
            "4 nodes keep the p90 wait at 0 s and keep the same "
            "makespan (10 h) at 2x the hardware ($640 instead of $320 for the GPU-hours held); "
            "GPU utilisation is 100 % on 2 nodes and 50 % on 4 nodes.");
}

TEST(Mix, VerdictWhenNothingMeetsTheTarget) {
  // Three 8-GPU jobs on 1 or 2 nodes: one node waits 0, 10, 20 h (p90 20 h);
  // two nodes 0, 0, 10 h (p90 10 h): closest to the target.
  JobMix mix;
  mix.clusters = {dgx(1), dgx(2)};
  mix.jobs = {fixed("a", 8, 10), fixed("b", 8, 10), fixed("c", 8, 10)};
  const MixResult r = simulate_mix(mix, 1);
  EXPECT_EQ(r.recommended, 1);
  EXPECT_EQ(r.reasons.at(0),
            "No candidate keeps the p90 wait within the 1.0 h target; 2 x dgx-h100 (16 GPUs) "
            "comes closest (10 h).");
}

TEST(Mix, AJobTooBigForOneNode) {
  JobMix mix;
  mix.clusters = {dgx(1), dgx(2)};
  mix.jobs = {fixed("big", 16, 10), fixed("small", 1, 1)};
  const MixResult r = simulate_mix(mix, 1);
  EXPECT_EQ(r.clusters[0].metrics.jobs_unrunnable, 1);
  EXPECT_EQ(r.recommended, 1);  // the only one that runs every job
  EXPECT_EQ(r.clusters[0].sizing[0].miss, SizingMiss::too_many_gpus);
  // The writer words the clusters that cannot run a job after the verdict's reasons.
  const std::string text = report::simulate_text({mix, r});
  EXPECT_NE(text.find("  1 x dgx-h100 cannot run 1 job: big (needs 16 GPUs, the cluster has 8).\n"),
            std::string::npos)
      << text;
}

TEST(Mix, JobNames) {
  JobMix mix;
  mix.jobs = {fixed("a", 1, 1), fixed("b", 1, 1)};
  mix.jobs[1].count = 3;
  EXPECT_EQ(job_name(mix, {0, 0, 0}), "a");
  EXPECT_EQ(job_name(mix, {1, 2, 0}), "b#3");
}

TEST(Mix, AFixedSpecIsSmall) {
  // A jobs file may hold 10^6 fixed-size specs: the workload and run settings
  // (about 900 bytes inline before) are shared pointers, empty for them.
  EXPECT_LE(sizeof(JobSpec), 160U);
  const JobSpec a = fixed("a", 1, 1);
  EXPECT_FALSE(a.workload);
  EXPECT_EQ(a.run.value_or_default().requeue_s, RunSettings{}.requeue_s);  // the defaults
  JobSpec b = a;
  Workload w;
  w.tokens = 5;
  b.workload = w;
  b.run = RunSettings{};
  const JobSpec c = b;  // copies share the value
  EXPECT_EQ(&*c.workload, &*b.workload);
  EXPECT_EQ(c.workload->tokens, 5);
  EXPECT_FALSE(a.workload.has_value());
}

TEST(Mix, ProgressCountsSpecsAndJobs) {
  // Two candidates x (2 specs + 1 + 40 jobs) = 86 units, rising to 86.
  JobMix mix;
  mix.clusters = {dgx(1), dgx(2)};
  mix.jobs = {fixed("a", 8, 1), fixed("b", 1, 1)};
  mix.jobs[1].count = 40;
  mix.jobs[1].rate_per_s = 1 / kH;
  std::vector<long long> done;
  simulate_mix(mix, 1, [&](long long d, long long total) {
    EXPECT_EQ(total, 86);
    done.push_back(d);
  });
  ASSERT_FALSE(done.empty());
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_EQ(done.back(), 86);
  // Each spec sized is reported: 1 and 2 on the first candidate, 44 and 45 on
  // the second (after its 41 jobs).
  EXPECT_EQ(done[0], 1);
  EXPECT_EQ(done[1], 2);
  EXPECT_NE(std::find(done.begin(), done.end(), 45), done.end());
}

}  // namespace
}  // namespace scaleout::sim
