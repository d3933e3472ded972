#include "search/planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "io/catalog_reader.hpp"
#include "io/workload_reader.hpp"
#include "network/topology.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "workload/checks.hpp"

namespace scaleout {
namespace {

PlanRequest request(const char* model, std::vector<const char*> servers, double tokens) {
  const Catalog& cat = io::builtin_catalog();
  PlanRequest r;
  r.workload.model = *cat.find_model(model);
  r.workload.tokens = tokens;
  r.workload.seq_len = 2048;
  r.workload.global_batch = 512;
  for (const char* id : servers) {
    HardwareOption h;
    h.server = *cat.find_server(id);
    h.gpu = *cat.find_gpu(h.server.gpu_id);
    const CloudPrice* price = cat.default_cloud_price(h.gpu.id);
    h.usd_per_gpu_hour = price ? price->usd_per_gpu_hour : 0.0;
    const PurchasePrice* buy = cat.find_purchase_price(h.server.id);
    h.server_usd = buy ? buy->usd : 0.0;
    r.hardware.push_back(h);
  }
  r.constraints.max_nodes = 64;
  r.run = io::resolve_run_settings(cat, {}, "test");
  return r;
}

TEST(NodeCounts, EveryCountIsVisitedAndTheLadderIsSampled) {
  const std::vector<int> n = node_counts(64);
  ASSERT_EQ(n.size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(n[static_cast<std::size_t>(i)], i + 1);
  EXPECT_EQ(node_counts(1), std::vector<int>{1});
  const std::vector<int> ladder = ladder_node_counts(64);
  const std::vector<int> expected = {1,  2,  3,  4,  5,  6,  7,  8,  10, 12,
                                     14, 16, 20, 24, 28, 32, 40, 48, 56, 64};
  EXPECT_EQ(ladder, expected);
  EXPECT_EQ(ladder_node_counts(100).back(), 100);  // the limit itself is on the ladder
  EXPECT_EQ(ladder_node_counts(1), std::vector<int>{1});
}

// Whether some layout the search enumerates is legal at `nodes` (brute force
// over the planner's option lists, with check_layout).
bool has_legal_layout(const PlanRequest& r, int hw, int nodes, long long batch) {
  const HardwareOption& h = r.hardware[static_cast<std::size_t>(hw)];
  const ModelShape& m = r.workload.model;
  const long long gpus = static_cast<long long>(nodes) * h.server.gpus_per_node;
  Workload w = r.workload;
  w.global_batch = batch;
  std::vector<int> eps = {1};
  for (int e = 2; m.is_moe() && e <= m.moe.experts; e *= 2) eps.push_back(e);
  for (int tp = 1; tp <= h.server.gpus_per_node; tp *= 2) {
    for (int cp : {1, 2, 4, 8, 16}) {
      if (cp > 1 && r.workload.seq_len < 16384) continue;
      for (int pp = 1; pp <= std::min(m.layers, 128); ++pp) {
        if ((pp & (pp - 1)) != 0 && m.layers % pp != 0) continue;
        const long long mp = static_cast<long long>(tp) * cp * pp;
        if (gpus % mp != 0) continue;
        for (int ep : eps) {
          for (int mb : {1, 2, 4, 8}) {
            for (int v : {1, 2, 4}) {
              w.layout = Layout{};
              w.layout.tp = tp;
              w.layout.cp = cp;
              w.layout.pp = pp;
              w.layout.dp = static_cast<int>(gpus / mp);
              w.layout.ep = ep;
              w.layout.micro_batch = mb;
              w.layout.interleave = v;
              if (check_layout(w, gpus).empty()) return true;
            }
          }
        }
      }
    }
  }
  return false;
}

TEST(NodeCounts, NoCountWithALegalLayoutIsSkipped) {
  // Dense, GQA and MoE models, 8- and 4-GPU servers, batches with few and
  // many divisors: every count that has a legal layout is searched.
  struct Case {
    const char* model;
    const char* server;
    long long batch;
    long long seq;
  };
  for (const Case& k :
       {Case{"gpt3-175b", "dgx-h100", 1536, 2048}, Case{"llama3-70b", "dgx-a100", 512, 8192},
        Case{"mixtral-8x7b", "dgx-h100", 1000, 4096}, Case{"llama3-8b", "dgx-h100", 96, 32768},
        Case{"mistral-7b", "smc-as-4125gs-tnrt", 7, 4096}}) {
    PlanRequest r = request(k.model, {k.server}, 1e12);
    r.workload.seq_len = k.seq;
    r.constraints.max_nodes = 300;
    const std::vector<int> searched = searched_node_counts(r, 0, k.batch);
    int legal = 0;
    for (int n = 1; n <= 300; ++n) {
      const bool is_legal = has_legal_layout(r, 0, n, k.batch);
      legal += is_legal;
      const bool visited = std::binary_search(searched.begin(), searched.end(), n);
      EXPECT_TRUE(!is_legal || visited) << k.model << " " << k.server << " " << n;
    }
    EXPECT_GT(legal, 0) << k.model;
    // The cheap test leaves out most of the counts that have no layout.
    EXPECT_LT(searched.size(), 150u) << k.model;
  }
}

TEST(Verdict, StateThatCannotFitOneNodeIsACapacityTrigger) {
  // GPT-3 175B: 175e9 x 18 B / 8 GPUs = 394 GB per GPU of model state alone.
  const PlanResult p = plan(request("gpt3-175b", {"dgx-h100"}, 3e11));
  EXPECT_EQ(p.verdict, Verdict::multi_node);
  ASSERT_FALSE(p.reasons.empty());
  EXPECT_EQ(p.reasons[0].kind, PlanReasonKind::single_node_memory);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("Capacity:", 0), 0u);
  EXPECT_FALSE(p.single_node_best.has_value());
  ASSERT_TRUE(p.min_nodes_fit.has_value());
  EXPECT_GT(*p.min_nodes_fit, 1);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_TRUE(p.recommended->memory.fits);
}

TEST(ScaleUpDomain, TheTraysOfOneNvl72RackAreOneDomain) {
  const Catalog& cat = io::builtin_catalog();
  const Server& rack = *cat.find_server("dgx-gb200-nvl72");  // 4-GPU trays, 72-GPU domain
  const Server& dgx = *cat.find_server("dgx-h100");
  EXPECT_EQ(domain_gpus(rack), 72);
  EXPECT_EQ(scaleup_domains(rack, 1), 1);
  EXPECT_EQ(scaleup_domains(rack, 18), 1);  // 72 GPUs: the whole rack
  EXPECT_EQ(scaleup_domains(rack, 19), 2);  // 76 GPUs
  EXPECT_EQ(scaleup_domains(rack, 36), 2);
  EXPECT_EQ(domain_gpus(dgx), 8);  // the node
  EXPECT_EQ(scaleup_domains(dgx, 5), 5);
}

// Llama 3.1 405B on 20B tokens (examples/plan-llama3.1-405b-nvl72.yaml):
// 405e9 x 18 B = 7.3 TB of model state fits no 8 x 180 GB chassis but one
// 72 x 186 GB NVL72 rack.
constexpr double kRackMissDays = 4;  // one rack's fastest: 5.8 days (16 trays)

PlanRequest rack_request(double deadline_days) {
  PlanRequest r = request("llama3.1-405b", {"dgx-b200", "dgx-gb200-nvl72"}, 2e10);
  r.workload.seq_len = 8192;
  r.workload.global_batch = 576;
  r.workload.framework = Framework::megatron;
  r.constraints.max_nodes = 36;
  r.constraints.deadline_s = deadline_days * 86400.0;
  return r;
}

TEST(Verdict, A405BRunThatOneNvl72RackHoldsIsSingleDomain) {
  const PlanResult p = plan(rack_request(14));
  EXPECT_EQ(p.verdict, Verdict::single_domain);
  EXPECT_STREQ(to_string(p.verdict), "single-domain");
  ASSERT_TRUE(p.recommended.has_value());
  const PlanCandidate& c = *p.recommended;
  const PlanRequest r = rack_request(14);
  EXPECT_EQ(r.hardware[static_cast<std::size_t>(c.hardware)].server.id, "dgx-gb200-nvl72");
  EXPECT_GT(c.nodes, 1);
  EXPECT_LE(c.nodes, 18);
  EXPECT_EQ(c.scaleup_domains, 1);
  EXPECT_TRUE(c.meets_deadline);
  // No scale-out network: no switches or NICs, and nothing charged or drawn for them.
  EXPECT_EQ(c.run.network.switches(), 0);
  EXPECT_EQ(c.run.cost.network_capex_usd, 0.0);
  EXPECT_EQ(c.run.power.network_W, 0.0);
  ASSERT_TRUE(p.single_domain_best.has_value());
  EXPECT_EQ(p.single_domain_best->nodes, c.nodes);
  // Why not one chassis, then why one domain is enough.
  ASSERT_GE(p.reasons.size(), 2u);
  EXPECT_EQ(p.reasons[0].kind, PlanReasonKind::single_node_memory);
  EXPECT_EQ(p.reasons[1].kind, PlanReasonKind::one_domain_fits);
  EXPECT_EQ(p.reasons[1].domain_gpus, 72);
  EXPECT_EQ(p.reasons[1].domain_nodes, 18);
  const std::string s = report::sentence(p.reasons[1]);
  EXPECT_EQ(s.rfind("Scale up: one NVLink domain (72 GPUs across 18 nodes of dgx-gb200-nvl72)", 0),
            0u)
      << s;
  EXPECT_NE(s.find("no scale-out fabric is needed"), std::string::npos) << s;
  // Scale up first, honestly: a cheaper plan over several domains (B200s over
  // InfiniBand) is named, not hidden.
  const PlanCandidate* cheapest = nullptr;
  for (const PlanCandidate& f : p.frontier) {
    if (f.scaleup_domains > 1 && f.meets_deadline && f.cost_usd > 0 &&
        (!cheapest || f.cost_usd < cheapest->cost_usd)) {
      cheapest = &f;
    }
  }
  const bool named = std::any_of(p.reasons.begin(), p.reasons.end(), [](const PlanReason& x) {
    return x.kind == PlanReasonKind::scale_out_ranks_higher;
  });
  EXPECT_EQ(named, cheapest && cheapest->cost_usd < 0.999 * c.cost_usd);
}

TEST(Verdict, ADeadlineOneRackMissesScalesOutOverTheNetwork) {
  const PlanResult p = plan(rack_request(kRackMissDays));
  EXPECT_EQ(p.verdict, Verdict::multi_node);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_GT(p.recommended->scaleup_domains, 1);
  ASSERT_GE(p.reasons.size(), 2u);
  EXPECT_EQ(p.reasons[0].kind, PlanReasonKind::single_node_memory);
  EXPECT_EQ(p.reasons[1].kind, PlanReasonKind::domain_time);
  EXPECT_GT(p.reasons[1].time_s, kRackMissDays * 86400.0);
  const std::string s = report::sentence(p.reasons[1]);
  EXPECT_EQ(s.rfind("Scale out: one 72-GPU NVLink domain (18 nodes of dgx-gb200-nvl72) needs", 0),
            0u)
      << s;
  EXPECT_FALSE(p.single_domain_best.has_value());
}

TEST(Search, TensorAndExpertGroupsStayInsideTheNvl72Domain) {
  // Qwen3-235B-A22B (128 experts) on two NVL72 racks (36 trays, 144 GPUs): EP
  // could span both racks, but the fastest layout keeps every TP and EP group
  // inside one rack's NVLink domain, whose all-to-all runs at NVLink speed.
  PlanRequest r = request("qwen3-235b-a22b", {"dgx-gb200-nvl72"}, 1e11);
  r.workload.seq_len = 4096;
  r.workload.global_batch = 1152;
  r.workload.framework = Framework::megatron;
  r.fixed.nodes = 36;
  r.constraints.max_nodes = 36;
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  const PlanCandidate& c = *p.recommended;
  EXPECT_EQ(c.scaleup_domains, 2);
  const Layout& l = c.layout;
  EXPECT_GT(l.ep, 1);
  EXPECT_EQ(span_of(l.tp, l.stride(Dim::tp), 72).nodes, 1) << l.tp;
  EXPECT_EQ(span_of(l.ep, l.expert_tp(), 72).nodes, 1) << l.ep << " x etp " << l.expert_tp();
  // The cluster was fixed: no reason claims the job needs several domains.
  for (const PlanReason& x : p.reasons) EXPECT_NE(x.kind, PlanReasonKind::domain_memory);
}

TEST(Search, TensorParallelismSpansTraysOfAnNvl72Rack) {
  // GB200 trays hold 4 GPUs; the rack's NVLink domain lets a TP group of 8
  // span two trays. The search offers it, and some frontier point takes it,
  // its TP group inside one domain.
  const PlanRequest r = rack_request(14);
  const PlanResult p = plan(r);
  bool tp8 = false;
  for (const PlanCandidate& c : p.frontier) {
    if (r.hardware[c.hardware].server.id != "dgx-gb200-nvl72") continue;
    if (c.layout.tp == 8) {
      tp8 = true;
      EXPECT_EQ(span_of(c.layout.tp, c.layout.stride(Dim::tp), 72).nodes, 1);
    }
  }
  EXPECT_TRUE(tp8);
  // An 8-GPU server keeps TP within the node.
  for (const PlanCandidate& c : p.frontier) EXPECT_LE(c.layout.tp, 8);
}

TEST(Verdict, ADeadlineOneNodeMissesIsATimeTrigger) {
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e12);
  r.constraints.deadline_s = 7 * 86400.0;
  const PlanResult p = plan(r);
  EXPECT_EQ(p.verdict, Verdict::multi_node);
  EXPECT_EQ(p.reasons[0].kind, PlanReasonKind::single_node_time);
  EXPECT_EQ(p.reasons[0].deadline_s, 7 * 86400.0);
  EXPECT_EQ(report::sentence(p.reasons[0]).rfind("Time: one node needs", 0), 0u)
      << report::sentence(p.reasons[0]);
  ASSERT_TRUE(p.single_node_best.has_value());
  EXPECT_GT(p.single_node_best->time_to_train_s, 7 * 86400.0);
  EXPECT_LE(p.recommended->time_to_train_s, 7 * 86400.0);
  ASSERT_TRUE(p.min_nodes_deadline.has_value());
  EXPECT_LE(*p.min_nodes_deadline, p.recommended->nodes);
}

TEST(Verdict, ASmallFineTuneStaysOnOneNode) {
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e8);
  r.workload.task = Task::finetune;
  r.workload.finetune.method = FinetuneMethod::lora;
  r.workload.framework = Framework::fsdp;
  r.constraints.deadline_s = 86400.0;
  const PlanResult p = plan(r);
  EXPECT_EQ(p.verdict, Verdict::single_node);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.recommended->nodes, 1);
}

TEST(Verdict, NothingMeetsAnImpossibleDeadline) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e13);
  r.constraints.deadline_s = 3600.0;
  r.constraints.max_nodes = 4;
  const PlanResult p = plan(r);
  EXPECT_EQ(p.verdict, Verdict::infeasible);
  ASSERT_TRUE(p.recommended.has_value());  // the closest plan
  EXPECT_FALSE(p.recommended->meets_deadline);
  EXPECT_EQ(p.reasons[0].kind, PlanReasonKind::fastest_misses_deadline);
}

TEST(Search, SameAnswerForAnyThreadCount) {
  PlanRequest r = request("llama3-70b", {"dgx-h100", "dgx-a100"}, 1e12);
  r.constraints.deadline_s = 60 * 86400.0;
  report::PlanReport one, many;
  one.request = many.request = r;
  one.request.threads = 1;
  many.request.threads = 7;
  one.result = plan(one.request);
  many.result = plan(many.request);
  EXPECT_EQ(report::plan_json(one), report::plan_json(many));
}

TEST(Search, ProgressIsReportedOncePerCellWithoutChangingTheAnswer) {
  PlanRequest r = request("llama3-70b", {"dgx-h100", "dgx-a100"}, 1e12);
  r.threads = 7;
  report::PlanReport quiet, counted;
  quiet.request = r;
  quiet.result = plan(quiet.request);
  std::mutex mu;
  std::vector<long long> done;
  long long total = -1;
  counted.request = r;
  counted.request.progress = [&](long long d, long long t) {
    std::lock_guard<std::mutex> lock(mu);
    done.push_back(d);
    total = t;
  };
  counted.result = plan(counted.request);
  // One cell per server and searched node count (1 batch); each done count
  // reported exactly once, in any order across threads.
  const long long cells = static_cast<long long>(searched_node_counts(r, 0, 512).size() +
                                                 searched_node_counts(r, 1, 512).size());
  EXPECT_EQ(total, cells);
  std::sort(done.begin(), done.end());
  std::vector<long long> expected(static_cast<std::size_t>(cells));
  for (long long i = 0; i < cells; ++i) expected[static_cast<std::size_t>(i)] = i + 1;
  EXPECT_EQ(done, expected);
  EXPECT_EQ(report::plan_json(quiet), report::plan_json(counted));
}

TEST(Search, FixedLayoutFieldsAreKept) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e12);
  r.fixed.set(LayoutKey::tp, 8);
  r.fixed.set(LayoutKey::recompute, static_cast<int>(Recompute::full));
  const PlanResult p = plan(r);
  ASSERT_FALSE(p.frontier.empty());
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_EQ(c.layout.tp, 8);
    EXPECT_EQ(c.layout.recompute, Recompute::full);
  }
}

TEST(Search, PartialRecomputeFillsTheGapBetweenNoneAndFull) {
  // Llama 3 70B at 8K on 8 nodes, tp 8 fixed: no recompute does not fit, so
  // the planner recomputes the fewest layers per chunk that fit, which is
  // faster than recomputing them all.
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e12);
  r.workload.seq_len = 8192;
  r.workload.global_batch = 256;
  r.constraints.max_nodes = 8;
  r.fixed.set(LayoutKey::tp, 8);
  r.fixed.set(LayoutKey::pp, 2);  // 40 layers per stage
  r.fixed.set(LayoutKey::zero, 1);
  r.fixed.set(LayoutKey::micro_batch, 4);
  r.fixed.set(LayoutKey::interleave, 1);
  r.fixed.set(LayoutKey::recompute, static_cast<int>(Recompute::none));
  ASSERT_TRUE(plan(r).frontier.empty()) << "no recompute must not fit for this test";
  r.fixed.reset(LayoutKey::recompute);
  r.fixed.set(LayoutKey::offload, 0);
  const PlanResult p = plan(r);
  ASSERT_FALSE(p.frontier.empty());
  const PlanCandidate& best = p.frontier.front();
  ASSERT_EQ(best.layout.recompute, Recompute::full);
  EXPECT_GT(best.layout.recompute_layers, 0);
  EXPECT_LT(best.layout.recompute_layers, 40);
  EXPECT_TRUE(best.memory.fits);
  EXPECT_TRUE(best.memory_safe);
  // One layer fewer no longer fits at the high end of the memory interval:
  // the search found the least recompute with a safe margin.
  r.fixed.set(LayoutKey::recompute, static_cast<int>(Recompute::full));
  r.fixed.set(LayoutKey::recompute_layers, best.layout.recompute_layers - 1);
  r.constraints.max_nodes = best.nodes;
  if (best.layout.recompute_layers > 1) {
    for (const PlanCandidate& c : plan(r).frontier) {
      if (c.nodes == best.nodes) {
        EXPECT_FALSE(c.memory_safe);
      }
    }
  }
  // Recomputing every layer is slower.
  r.fixed.set(LayoutKey::recompute_layers, 0);
  const PlanResult all = plan(r);
  ASSERT_FALSE(all.frontier.empty());
  EXPECT_GT(all.frontier.front().step.step_s, best.step.step_s);
}

TEST(Search, BalancedStagesOffsetTheEmbeddingAndTheOutputLayer) {
  // Llama 3 8B on pp 4: the output layer (4096 x 128256 weights, about 2.4
  // layers' FLOPs) and the loss make the last stage of the even split (8
  // layers each) pace the pipeline; the planner moves layers off the first
  // and last stages (workload/pipeline.hpp, balanced_stage_split).
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e11);
  r.workload.seq_len = 4096;
  r.workload.global_batch = 256;
  r.constraints.max_nodes = 1;
  r.fixed.set(LayoutKey::tp, 1);
  r.fixed.set(LayoutKey::pp, 4);
  r.fixed.set(LayoutKey::interleave, 1);
  r.fixed.set(LayoutKey::micro_batch, 1);
  const PlanResult p = plan(r);
  ASSERT_FALSE(p.frontier.empty());
  const PlanCandidate& best = p.frontier.front();
  EXPECT_GT(best.layout.first_stage_layers, 0);
  EXPECT_GT(best.layout.last_stage_layers, 0);
  EXPECT_LT(best.layout.last_stage_layers, 8);
  // The even split (both fixed at 0) is slower.
  r.fixed.set(LayoutKey::first_stage_layers, 0);
  r.fixed.set(LayoutKey::last_stage_layers, 0);
  const PlanResult even = plan(r);
  ASSERT_FALSE(even.frontier.empty());
  EXPECT_EQ(even.frontier.front().layout.first_stage_layers, 0);
  EXPECT_EQ(even.frontier.front().layout.last_stage_layers, 0);
  EXPECT_LT(best.step.step_s, even.frontier.front().step.step_s);
  // Fixed sizes are kept.
  r.fixed.set(LayoutKey::first_stage_layers, 6);
  r.fixed.set(LayoutKey::last_stage_layers, 6);
  const PlanResult fixed = plan(r);
  ASSERT_FALSE(fixed.frontier.empty());
  EXPECT_EQ(fixed.frontier.front().layout.first_stage_layers, 6);
  EXPECT_EQ(fixed.frontier.front().layout.last_stage_layers, 6);
}

TEST(Search, TriesTheEmbeddingAndLossInTheSplit) {
  // Llama 3.1 405B on pp 16 x interleave 8 (Llama 3's own layout): 126 layers
  // are fewer than the 128 chunks, so only the split that gives the
  // embedding and the loss a chunk each is legal, and the planner finds it.
  PlanRequest r = request("llama3.1-405b", {"dgx-h100"}, 1e11);
  r.workload.framework = Framework::megatron;
  r.workload.seq_len = 8192;
  r.workload.global_batch = 64;
  r.constraints.max_nodes = 16;
  r.fixed.set(LayoutKey::tp, 8);
  r.fixed.set(LayoutKey::pp, 16);
  r.fixed.set(LayoutKey::interleave, 8);
  r.fixed.set(LayoutKey::micro_batch, 1);
  const PlanResult p = plan(r);
  ASSERT_FALSE(p.frontier.empty());
  EXPECT_TRUE(p.frontier.front().layout.embedding_in_split);
  EXPECT_TRUE(p.frontier.front().layout.loss_in_split);
  // Fixed off: no legal layout is left.
  r.fixed.set(LayoutKey::embedding_in_split, 0);
  r.fixed.set(LayoutKey::loss_in_split, 0);
  EXPECT_TRUE(plan(r).frontier.empty());
}

TEST(Search, Fp8ParamGatherKeepsTheDistributedOptimizer) {
  // Megatron-LM refuses --fp8-param-gather without the distributed optimizer:
  // every plan keeps zero >= 1, and it needs less memory than without the option.
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e11);
  r.workload.precision = Precision::fp8;
  r.constraints.max_nodes = 2;
  r.fixed.set(LayoutKey::fp8_param_gather, 0);
  const PlanResult plain = plan(r);
  ASSERT_FALSE(plain.frontier.empty());
  for (const PlanCandidate& c : plain.frontier) EXPECT_FALSE(c.layout.fp8_param_gather);
  r.fixed.set(LayoutKey::fp8_param_gather, 1);
  const PlanResult p = plan(r);
  ASSERT_FALSE(p.frontier.empty());
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_TRUE(c.layout.fp8_param_gather);
    EXPECT_GE(c.layout.zero, 1);
  }
  // The same layout without the option needs more (the search may pick
  // different layouts for the two: it prefers those safe at the high end of
  // the memory interval, docs/model.md "Memory margin").
  const PlanCandidate& c = p.frontier.front();
  Workload w = r.workload;
  w.layout = c.layout;
  w.global_batch = c.global_batch;
  w.cluster.nodes = c.nodes;
  const Gpu& gpu = r.hardware[static_cast<std::size_t>(c.hardware)].gpu;
  const double with = estimate_memory(w, gpu).total();
  w.layout.fp8_param_gather = false;
  EXPECT_LT(with, estimate_memory(w, gpu).total());
  EXPECT_NEAR(with, c.memory.total(), 1.0);
}

TEST(Search, Fp8ParamGatherIsOnWhereverTheDistributedOptimizerRuns) {
  // Not fixed by the file: on with zero >= 1 (it only saves memory and
  // traffic there), off with zero 0 and off for anything but TE FP8.
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e11);
  r.workload.precision = Precision::fp8;
  r.workload.framework = Framework::megatron;
  r.constraints.max_nodes = 2;
  const PlanResult fp8 = plan(r);
  ASSERT_FALSE(fp8.frontier.empty());
  for (const PlanCandidate& c : fp8.frontier)
    EXPECT_EQ(c.layout.fp8_param_gather, c.layout.zero >= 1) << c.layout.zero;
  // Never slower than the same search without it, cell by cell.
  r.fixed.set(LayoutKey::fp8_param_gather, 0);
  const PlanResult off = plan(r);
  r.fixed.reset(LayoutKey::fp8_param_gather);
  ASSERT_EQ(off.frontier.size(), fp8.frontier.size());
  for (size_t i = 0; i < off.frontier.size(); ++i) {
    EXPECT_EQ(fp8.frontier[i].nodes, off.frontier[i].nodes);
    EXPECT_LE(fp8.frontier[i].step.step_s, off.frontier[i].step.step_s * (1 + 1e-12));
  }
  r.fixed.set(LayoutKey::zero, 1);
  const PlanResult zero1 = plan(r);
  ASSERT_FALSE(zero1.frontier.empty());
  EXPECT_TRUE(zero1.frontier.front().layout.fp8_param_gather);
  r.fixed.set(LayoutKey::zero, 0);
  const PlanResult zero0 = plan(r);
  ASSERT_FALSE(zero0.frontier.empty());
  for (const PlanCandidate& c : zero0.frontier) EXPECT_FALSE(c.layout.fp8_param_gather);
  r.fixed.reset(LayoutKey::zero);
  r.workload.precision = Precision::bf16;
  for (const PlanCandidate& c : plan(r).frontier) EXPECT_FALSE(c.layout.fp8_param_gather);
  r.workload.precision = Precision::fp8;
  r.workload.framework = Framework::deepspeed;
  for (const PlanCandidate& c : plan(r).frontier) EXPECT_FALSE(c.layout.fp8_param_gather);
}

TEST(Search, CountsRejectionsAndNeverRecommendsWhatDoesNotFit) {
  const PlanResult p = plan(request("llama3-70b", {"dgx-a100"}, 1e12));
  EXPECT_GT(p.stats.candidates, 0);
  EXPECT_GT(p.stats.rejected_by_reason[Rejection::memory], 0);
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_TRUE(c.memory.fits);
    EXPECT_LE(c.memory.total(), c.memory.capacity_bytes);
  }
}

TEST(Search, CostIsGpuHoursTimesThePrice) {
  const PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e11);
  const PlanResult p = plan(r);
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_NEAR(c.cost_usd, c.gpus() * c.time_to_train_s / 3600.0 * r.hardware[0].usd_per_gpu_hour,
                1e-6 * c.cost_usd);
  }
}

TEST(Search, HybridShardGroupsOfSeveralNodes) {
  // DeepSpeed MiCS (ZeRO-3 in shard groups) for Llama 3 70B at 4k tokens on
  // up to 64 DGX-H100s: at tp 2 a one-node group (4 data-parallel ranks)
  // would hold 35B parameters' state at about 16 B each over 4 ranks, 140 GB
  // (it does not fit), and sharding over all of dp gathers across every
  // node; a group of two nodes' data-parallel ranks (kHybridShardNodes) fits
  // and keeps the gathers' inter-node share at half (7.94 -> 7.64 s at 64
  // nodes against ZeRO-2 at tp 4, the best without it).
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e12);
  r.workload.framework = Framework::deepspeed;
  r.workload.seq_len = 4096;
  r.workload.global_batch = 1024;
  const PlanResult ds = plan(r);
  bool wide = false;
  for (const PlanCandidate& c : ds.frontier) {
    if (c.layout.shard_group == 0) continue;
    const int group_gpus = c.layout.zero_shard_dp() * c.layout.tp * c.layout.cp;
    // One, two or four nodes' worth, never all of dp.
    EXPECT_TRUE(group_gpus == 8 || group_gpus == 16 || group_gpus == 32) << group_gpus;
    EXPECT_LT(c.layout.shard_group, c.layout.dp);
    EXPECT_EQ(c.layout.zero, 3);
    wide |= group_gpus > 8;
    Workload w = r.workload;
    w.layout = c.layout;
    w.global_batch = c.global_batch;
    EXPECT_TRUE(check_layout(w, c.gpus()).empty());
  }
  EXPECT_TRUE(wide);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

TEST(Search, ARangeOfGlobalBatchesIsSearched) {
  // Larger batches amortise the pipeline bubble and communication: with a
  // list the planner may pick any of them, and never does worse than with one.
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e12);
  r.fixed.nodes = 16;
  r.constraints.max_nodes = 16;
  const PlanResult one = plan(r);
  r.global_batches = {256, 512, 1024};
  const PlanResult many = plan(r);
  ASSERT_TRUE(one.recommended && many.recommended);
  EXPECT_NE(
      std::find(r.global_batches.begin(), r.global_batches.end(), many.recommended->global_batch),
      r.global_batches.end());
  EXPECT_LE(many.recommended->time_to_train_s, one.recommended->time_to_train_s * (1 + 1e-12));
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

TEST(WholeRun, TimeToTrainIncludesFailuresAndCheckpoints) {
  const PlanResult p = plan(request("llama3-8b", {"dgx-h100"}, 1e12));
  ASSERT_TRUE(p.recommended.has_value());
  for (const PlanCandidate& c : p.frontier) {
    const double ideal = 1e12 / c.step.tokens_per_s;
    EXPECT_DOUBLE_EQ(c.time_to_train_s, c.run.reliability.wall_time_s);
    EXPECT_GT(c.time_to_train_s, ideal);
    EXPECT_NEAR(c.run.reliability.goodput, ideal / c.time_to_train_s, 1e-12);
    EXPECT_NEAR(c.cost_usd, c.run.cost.cloud_usd, 1e-6);  // cloud basis by default
    EXPECT_GT(c.run.power.cluster_W, 0.0);
  }
}

TEST(WholeRun, PowerLimitKeepsThePlanOnOneNode) {
  // A week's deadline needs several DGX H100 nodes; a 9 kW site allows one.
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e12);
  r.constraints.deadline_s = 7 * 86400.0;
  r.constraints.max_power_W = 9000;
  const PlanResult p = plan(r);
  EXPECT_EQ(p.verdict, Verdict::infeasible);
  EXPECT_GT(p.stats.rejected_by_reason[Rejection::power], 0);
  bool power_reason = false;
  for (const PlanReason& s : p.reasons) {
    power_reason |= s.kind == PlanReasonKind::fastest_over_power;
  }
  EXPECT_TRUE(power_reason);
  r.constraints.deadline_s.reset();
  const PlanResult one = plan(r);
  EXPECT_EQ(one.verdict, Verdict::single_node);
  EXPECT_LE(one.recommended->run.power.cluster_W, 9000.0);
}

TEST(WholeRun, MinimumGoodputRejectsFailureProneClusters) {
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e12);
  r.run.failures_per_1000_node_days = 200;  // a failure every 5 days per node
  r.constraints.min_goodput = 0.9;
  const PlanResult p = plan(r);
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_EQ(c.meets_goodput, c.run.reliability.goodput >= 0.9);
  }
  ASSERT_TRUE(p.recommended.has_value());
  if (p.verdict != Verdict::infeasible) {
    EXPECT_GE(p.recommended->run.reliability.goodput, 0.9);
  }
}

TEST(WholeRun, EnergyObjectivePicksTheLeastEnergy) {
  PlanRequest r = request("llama3-8b", {"dgx-h100", "dgx-a100"}, 1e12);
  r.objective = Objective::energy;
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_GE(c.run.power.energy_kWh, p.recommended->run.power.energy_kWh * (1 - 1e-3));
  }
}

TEST(WholeRun, OwnCostBasisUsesPurchasePrices) {
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e12);
  r.cost_basis = CostBasis::own;
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_TRUE(p.recommended->run.cost.own_priced);
  EXPECT_DOUBLE_EQ(p.recommended->cost_usd, p.recommended->run.cost.own_usd);
  EXPECT_LT(p.recommended->cost_usd, p.recommended->run.cost.cloud_usd);
}

// Issue 21: with no deadline the default horizon stands in, so a large
// pre-training is not silently recommended on one node for years.
TEST(Horizon, NoDeadlineHoldsPlansToTheDefaultHorizon) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 2e12);
  r.constraints.deadline_s.reset();
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.verdict, Verdict::multi_node);
  EXPECT_LE(p.recommended->time_to_train_s, kDefaultHorizonDays * 86400.0);
  const bool said = std::any_of(p.reasons.begin(), p.reasons.end(), [](const PlanReason& x) {
    return x.kind == PlanReasonKind::default_horizon;
  });
  EXPECT_TRUE(said);
  EXPECT_NE(report::sentence(p.reasons.back()).find("default horizon"), std::string::npos);
}

TEST(Horizon, IsDroppedWhenNoPlanMeetsIt) {
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 2e12);
  r.constraints.max_nodes = 1;
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.verdict, Verdict::single_node);
  EXPECT_GT(p.recommended->time_to_train_s, kDefaultHorizonDays * 86400.0);
  EXPECT_EQ(p.reasons.back().kind, PlanReasonKind::horizon_dropped);
}

// Issue 21: every plan carries its 80 % intervals; the recommended plan fits
// at the high end of its memory interval whenever some plan does.
TEST(Intervals, PlansCarryIntervalsAndTheRecommendedOneIsSafe) {
  PlanRequest r = request("llama3-70b", {"dgx-h100", "dgx-a100"}, 2e12);
  r.constraints.deadline_s = 60 * 86400.0;
  const PlanResult p = plan(r);
  ASSERT_TRUE(p.recommended.has_value());
  bool any_safe = false;
  for (const PlanCandidate& c : p.frontier) {
    EXPECT_LE(c.time_to_train_low_s, c.time_to_train_high_s);
    EXPECT_LE(c.memory_low_bytes, c.memory_high_bytes);
    EXPECT_NEAR(c.memory_high_bytes, c.memory.total() * c.memory_interval.high, 1.0);
    EXPECT_EQ(c.memory_safe, c.memory_high_bytes <= c.memory.capacity_bytes);
    EXPECT_DOUBLE_EQ(c.band, std::max(0.0, c.time_interval.high - 1.0));
    any_safe |= c.memory_safe && c.meets_deadline;
  }
  EXPECT_TRUE(any_safe);
  EXPECT_TRUE(p.recommended->memory_safe);
  EXPECT_LE(p.recommended->memory_high_bytes, p.recommended->memory.capacity_bytes);
}

TEST(Intervals, AFamilyWithoutRowsIsUnvalidatedAndWide) {
  const PredictionInterval i = prediction_interval(
      {.metric = IntervalMetric::time, .family = "cdna3", .framework = "other"});
  EXPECT_FALSE(i.validated);
  EXPECT_EQ(i.regime, "unvalidated");
  EXPECT_DOUBLE_EQ(i.low, kUnvalidatedTimeLow);
  EXPECT_DOUBLE_EQ(i.high, kUnvalidatedTimeHigh);
  const PredictionInterval h = prediction_interval({.metric = IntervalMetric::time,
                                                    .family = "hopper",
                                                    .framework = "megatron",
                                                    .task = IntervalTask::pretrain,
                                                    .moe = false,
                                                    .scale = ScaleBand::over_64});
  EXPECT_TRUE(h.validated);
  EXPECT_GE(h.rows, kMinIntervalRows);
  EXPECT_LT(h.low, 1.0);
  EXPECT_GT(h.high, 1.0);
}

TEST(Intervals, AWholeRunWithoutItsFamilysRunsTakesEveryFamilysRuns) {
  // A family with step regimes but no whole-run regime takes the pool of
  // every family's runs (scripts/fit_intervals.py RUN_POOL); a family with no
  // rows stays unvalidated for runs too.
  auto has = [](std::string_view metric, std::string_view family) {
    for (const IntervalEntry& e : interval_table())
      if (metric == e.metric && family == e.family && e.rows >= kMinIntervalRows) return true;
    return false;
  };
  ASSERT_TRUE(has("run", "*")) << "no pooled whole-run regime in the interval table";
  bool checked = false;
  for (const char* family : {"hopper", "blackwell", "ampere"}) {
    if (!has("time", family) || has("run", family)) continue;
    const PredictionInterval i = prediction_interval({.metric = IntervalMetric::run,
                                                      .family = family,
                                                      .framework = "other",
                                                      .task = IntervalTask::pretrain,
                                                      .moe = false,
                                                      .scale = ScaleBand::over_64});
    EXPECT_TRUE(i.validated) << family;
    EXPECT_EQ(i.regime, "run/*/*/training/*/*") << family;
    checked = true;
  }
  EXPECT_TRUE(checked) << "every family has its own run regime: pick another";
  const PredictionInterval none =
      prediction_interval({.metric = IntervalMetric::run, .family = "cdna3", .framework = "other"});
  EXPECT_FALSE(none.validated);
  EXPECT_EQ(none.regime, "unvalidated");
}

TEST(Intervals, MoeIsKeptBeforeTheFrameworkIsPooled) {
  // A framework with no rows of its own takes the MoE regime of its family
  // (every framework pooled), not its family's dense-dominated pool.
  bool checked = false;
  for (const IntervalEntry& e : interval_table()) {
    if (std::string_view(e.metric) != "time" || std::string_view(e.framework) != "*" ||
        std::string_view(e.task) != "pretrain" || std::string_view(e.moe) != "moe" ||
        std::string_view(e.scale) != "*" || e.rows < kMinIntervalRows)
      continue;
    const PredictionInterval i = prediction_interval({.metric = IntervalMetric::time,
                                                      .family = e.family,
                                                      .framework = "no-such-framework",
                                                      .task = IntervalTask::pretrain,
                                                      .moe = true,
                                                      .scale = ScaleBand::up_to_64});
    EXPECT_TRUE(i.validated) << e.family;
    EXPECT_NE(i.regime.find("/pretrain/moe/"), std::string::npos) << i.regime;
    checked = true;
  }
  EXPECT_TRUE(checked) << "no pooled MoE pre-training regime in the interval table";
}

TEST(Intervals, ScaleBands) {
  EXPECT_EQ(scale_band(8, 8), ScaleBand::one_domain);
  EXPECT_EQ(scale_band(1, 8), ScaleBand::one_domain);
  EXPECT_EQ(scale_band(64, 8), ScaleBand::up_to_64);
  EXPECT_EQ(scale_band(72, 4), ScaleBand::over_64);
  EXPECT_EQ(to_string(ScaleBand::one_domain), std::string("1-domain"));
}

TEST(Intervals, ARackScaleDomainIsOneScaleBand) {
  // 64 GPUs in one GB200 NVL72 rack run their step inside one NVLink domain,
  // as 8 GPUs of one DGX do; 64 DGX GPUs need the scale-out network.
  const Catalog& cat = io::builtin_catalog();
  const Server& rack = *cat.find_server("dgx-gb200-nvl72");
  const Server& dgx = *cat.find_server("dgx-h100");
  EXPECT_EQ(scale_band(64, domain_gpus(rack)), ScaleBand::one_domain);
  EXPECT_EQ(scale_band(72, domain_gpus(rack)), ScaleBand::one_domain);
  EXPECT_EQ(scale_band(76, domain_gpus(rack)), ScaleBand::over_64);
  EXPECT_EQ(scale_band(8, domain_gpus(dgx)), ScaleBand::one_domain);
  EXPECT_EQ(scale_band(64, domain_gpus(dgx)), ScaleBand::up_to_64);
  // A plan's regime takes the same band (search/planner.cpp regime_of).
  PlanRequest r = request("llama3-8b", {"dgx-gb200-nvl72"}, 1e10);
  const HardwareOption& hw = r.hardware[0];
  EXPECT_EQ(regime_of(r.workload, hw, 16, IntervalMetric::time).scale, ScaleBand::one_domain);
  EXPECT_EQ(regime_of(r.workload, hw, 19, IntervalMetric::time).scale, ScaleBand::over_64);
}

TEST(Search, DeepSpeedPipelinesRunWithoutInterleaving) {
  // DeepSpeed's PipelineEngine has no interleaved schedule; Megatron-LM's
  // frontier for the same job does interleave (the rule changes the search).
  PlanRequest r = request("llama3-70b", {"dgx-h100"}, 1e12);
  bool megatron_interleaves = false;
  for (const PlanCandidate& c : plan(r).frontier) megatron_interleaves |= c.layout.interleave > 1;
  EXPECT_TRUE(megatron_interleaves);
  r.workload.framework = Framework::deepspeed;
  const PlanResult ds = plan(r);
  ASSERT_FALSE(ds.frontier.empty());
  for (const PlanCandidate& c : ds.frontier) EXPECT_EQ(c.layout.interleave, 1);
}

TEST(Search, HybridShardingWithinANodeWhereTheFrameworkHasIt) {
  // FSDP ZeRO-3 of an 8B model on 8-16 nodes with one or two 1k-token
  // sequences per GPU: the per-layer gathers over the network outlast the
  // layer's compute; sharding within each node (HYBRID_SHARD) keeps them on
  // NVLink and the state fits eight-fold, so the planner takes it there.
  PlanRequest r = request("llama3-8b", {"dgx-h100"}, 1e10);
  r.workload.framework = Framework::fsdp;
  r.workload.seq_len = 1024;
  r.workload.global_batch = 128;
  r.constraints.max_nodes = 16;
  const PlanResult fsdp = plan(r);
  bool hybrid = false;
  for (const PlanCandidate& c : fsdp.frontier) {
    if (c.layout.shard_group > 0) {
      EXPECT_GT(c.nodes, 1);
      // One node's data-parallel ranks here at 16 nodes; at 8 nodes a group
      // of two nodes' (kHybridShardNodes) is 1 % faster.
      const int group_gpus = c.layout.zero_shard_dp() * c.layout.tp * c.layout.cp;
      EXPECT_TRUE(group_gpus == 8 || group_gpus == 16 || group_gpus == 32) << group_gpus;
      hybrid |= group_gpus == 8;
      EXPECT_GE(c.layout.zero, 1);
      Workload w = r.workload;
      w.layout = c.layout;
      w.global_batch = c.global_batch;
      EXPECT_TRUE(check_layout(w, c.gpus()).empty());
    }
  }
  EXPECT_TRUE(hybrid);
  // Megatron-LM: never (its partial distributed optimizer is not modelled).
  r.workload.framework = Framework::megatron;
  for (const PlanCandidate& c : plan(r).frontier) EXPECT_EQ(c.layout.shard_group, 0);
  // A fixed group is kept; zero below the framework's hybrid stage is not tried.
  r.workload.framework = Framework::deepspeed;
  r.fixed.set(LayoutKey::shard_group, 8);
  r.constraints.max_nodes = 4;
  const PlanResult ds = plan(r);
  ASSERT_FALSE(ds.frontier.empty());
  for (const PlanCandidate& c : ds.frontier) {
    EXPECT_EQ(c.layout.shard_group, 8);
    EXPECT_EQ(c.layout.zero, 3);  // MiCS: ZeRO-3 only
  }
}

}  // namespace
}  // namespace scaleout
