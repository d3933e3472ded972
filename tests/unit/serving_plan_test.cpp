// plan_serving (src/inference/serving_plan.cpp): the four verdicts with their
// binding reasons, the article's 405B example (BF16 on H100 needs two nodes,
// FP8 on H200 fits one), replicas for a rate, fixed layout fields, ranking.
#include "inference/serving_plan.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"
#include "report/reasons.hpp"

namespace scaleout {
namespace {

PlanRequest request(const char* model, std::vector<const char*> servers, WeightFormat wf,
                    Precision kv = Precision::bf16) {
  const Catalog& cat = io::builtin_catalog();
  PlanRequest r;
  r.workload.model = *cat.find_model(model);
  r.workload.task = Task::inference;
  r.workload.inference.prompt_tokens = 2048;
  r.workload.inference.output_tokens = 256;
  r.workload.inference.weights = wf;
  r.workload.inference.kv_cache = kv;
  for (const char* id : servers) {
    HardwareOption h;
    h.server = *cat.find_server(id);
    h.gpu = *cat.find_gpu(h.server.gpu_id);
    const CloudPrice* price = cat.default_cloud_price(h.gpu.id);
    h.usd_per_gpu_hour = price ? price->usd_per_gpu_hour : 0.0;
    r.hardware.push_back(h);
  }
  r.constraints.max_nodes = 16;
  return r;
}

TEST(ServingPlan, Llama405bBf16NeedsTwoH100Nodes) {
  // 405e9 x 2 bytes = 810 GB > 8 x 80 GB x 0.90 usable.
  const ServingPlanResult p =
      plan_serving(request("llama3.1-405b", {"dgx-h100"}, WeightFormat::bf16));
  EXPECT_EQ(p.verdict, Verdict::multi_node);
  ASSERT_FALSE(p.reasons.empty());
  EXPECT_EQ(p.reasons[0].kind, ServingReasonKind::single_node_memory);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("Capacity:", 0), 0u);
  EXPECT_FALSE(p.single_node_best.has_value());
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.recommended->nodes, 2);
  // One 16-GPU replica spans two 8-GPU NVLink domains: it needs the fabric.
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  EXPECT_EQ(replica_nodes(*p.recommended, server), 2);
  EXPECT_TRUE(needs_scaleout_fabric(*p.recommended, server));
  EXPECT_TRUE(p.recommended->estimate.memory.fits);
  ASSERT_TRUE(p.min_nodes_fit.has_value());
  EXPECT_EQ(*p.min_nodes_fit, 2);
}

TEST(ServingPlan, Llama405bFp8FitsOneH200Node) {
  const ServingPlanResult p =
      plan_serving(request("llama3.1-405b", {"dgx-h200"}, WeightFormat::fp8, Precision::fp8));
  EXPECT_EQ(p.verdict, Verdict::single_node);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.recommended->nodes, 1);
  EXPECT_EQ(p.reasons[0].kind, ServingReasonKind::one_node_serves);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("One node serves it", 0), 0u);
}

TEST(ServingPlan, RateBeyondOneNodeIsAThroughputTrigger) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, WeightFormat::fp8, Precision::fp8);
  r.workload.inference.request_rate = 200;  // far more than 8 H100s serve
  const ServingPlanResult p = plan_serving(r);
  // Every replica fits one node: independent one-node replicas, not "multi-node".
  EXPECT_EQ(p.verdict, Verdict::single_node_replicas);
  EXPECT_STREQ(to_string(p.verdict), "single-node-replicas");
  EXPECT_EQ(p.reasons[0].kind, ServingReasonKind::single_node_throughput);
  ASSERT_GE(p.reasons.size(), 2u);
  EXPECT_EQ(p.reasons[1].kind, ServingReasonKind::independent_replicas);
  EXPECT_NE(report::sentence(p.reasons[1])
                .find("nodes of independent one-node replicas; no inter-node fabric needed"),
            std::string::npos);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_GT(p.recommended->nodes, 1);
  EXPECT_EQ(p.reasons[1].nodes, p.recommended->nodes);
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  EXPECT_EQ(replica_nodes(*p.recommended, server), 1);
  EXPECT_FALSE(needs_scaleout_fabric(*p.recommended, server));
  EXPECT_GE(p.recommended->replicas * p.recommended->estimate.requests_per_s, 200.0);
  ASSERT_TRUE(p.single_node_best == std::nullopt);
}

TEST(ServingPlan, ImpossibleTpotIsInfeasibleWithTheClosestPlan) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, WeightFormat::bf16);
  r.workload.inference.tpot_s = 0.0005;  // 0.5 ms per token
  const ServingPlanResult p = plan_serving(r);
  EXPECT_EQ(p.verdict, Verdict::infeasible);
  EXPECT_EQ(p.reasons[0].kind, ServingReasonKind::latency_missed);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("Latency:", 0), 0u);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_FALSE(p.recommended->estimate.meets_tpot);
  EXPECT_EQ(p.recommended->nodes,
            (p.recommended->gpus_per_replica() + 7) / 8);  // one replica's whole nodes
  EXPECT_GT(p.stats.rejected_by_reason[Rejection::latency], 0);
}

TEST(ServingPlan, NothingFitsIsACapacityInfeasible) {
  PlanRequest r = request("llama3.1-405b", {"dgx-a100-40g"}, WeightFormat::bf16);
  r.constraints.max_nodes = 1;
  const ServingPlanResult p = plan_serving(r);
  EXPECT_EQ(p.verdict, Verdict::infeasible);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_EQ(p.reasons[0].kind, ServingReasonKind::no_room);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("Capacity:", 0), 0u);
}

TEST(ServingPlan, FixedTpIsKept) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, WeightFormat::fp8);
  r.fixed.set(LayoutKey::tp, 8);
  const ServingPlanResult p = plan_serving(r);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.recommended->layout.tp, 8);
  for (const ServingCandidate& c : p.frontier) EXPECT_EQ(c.layout.tp, 8);
}

TEST(ServingPlan, TimeObjectiveIsNeverSlowerThanCost) {
  PlanRequest r = request("llama3-70b", {"dgx-h100", "dgx-h200"}, WeightFormat::fp8);
  r.workload.inference.request_rate = 5;
  const ServingPlanResult cost = plan_serving(r);
  r.objective = Objective::time;
  const ServingPlanResult time = plan_serving(r);
  ASSERT_TRUE(cost.recommended && time.recommended);
  auto latency = [&](const ServingCandidate& c) {
    return c.estimate.ttft_s + 256 * c.estimate.tpot_s;
  };
  EXPECT_LE(latency(*time.recommended), latency(*cost.recommended) * (1 + 1e-3));
  EXPECT_LE(cost.recommended->usd_per_hour, time.recommended->usd_per_hour * (1 + 1e-3));
}

TEST(ServingPlan, MoeSearchesExpertParallelism) {
  const ServingPlanResult p =
      plan_serving(request("deepseek-v3", {"dgx-h200"}, WeightFormat::fp8, Precision::bf16));
  EXPECT_EQ(p.verdict, Verdict::single_node);  // 671 GB of FP8 weights in 8 x 141 GB
  // TP 1, 2, 4, 8 x PP 1, 2, 4, 8, 16, 32 (61 layers), and EP 1 or tp for
  // TP > 1 (256 experts divide): (1 + 2 + 2 + 2) x 6 = 42 layouts.
  EXPECT_EQ(p.stats.candidates, 42);
  ASSERT_TRUE(p.recommended.has_value());
  // MLA: the cache of one token is (512 + 64) x ceil(61 / pp) x 2 B on every
  // GPU, whatever the TP degree.
  const int pp = p.recommended->layout.pp;
  EXPECT_DOUBLE_EQ(p.recommended->estimate.memory.kv_bytes_per_token,
                   576.0 * ((61 + pp - 1) / pp) * 2.0);
}

TEST(ServingPlan, EstimateOfTheRecommendedLayoutAgrees) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, WeightFormat::fp8, Precision::fp8);
  r.workload.inference.request_rate = 8;
  r.workload.inference.tpot_s = 0.040;
  const ServingPlanResult p = plan_serving(r);
  ASSERT_TRUE(p.recommended.has_value());
  const ServingCandidate& c = *p.recommended;
  Workload w = r.workload;
  w.layout = c.layout;
  const ServingEstimate e = estimate_serving(w, r.hardware[0].server, r.hardware[0].gpu, nullptr);
  EXPECT_EQ(e.batch, c.estimate.batch);
  EXPECT_DOUBLE_EQ(e.tpot_s, c.estimate.tpot_s);
  EXPECT_DOUBLE_EQ(e.ttft_s, c.estimate.ttft_s);
  EXPECT_EQ(e.replicas, c.replicas);
  EXPECT_LE(e.tpot_s, 0.040);
  EXPECT_GE(c.replicas * e.requests_per_s, 8.0);
}

}  // namespace
}  // namespace scaleout
