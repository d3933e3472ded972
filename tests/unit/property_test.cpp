// Property tests over thousands of random valid workloads: whatever the
// model, layout and hardware, the figures are finite and positive, the
// breakdowns add up, and plan and estimate agree.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "io/catalog_reader.hpp"
#include "memory/memory.hpp"
#include "perf/step.hpp"
#include "search/planner.hpp"
#include "workload/checks.hpp"

namespace scaleout {
namespace {

struct Random {
  std::mt19937_64 rng{20261130};
  int pick(int n) { return static_cast<int>(rng() % static_cast<unsigned long long>(n)); }
  template <typename T>
  const T& of(const std::vector<T>& v) {
    return v[static_cast<size_t>(pick(static_cast<int>(v.size())))];
  }
};

bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0; }

TEST(Properties, RandomWorkloadsGiveFiniteBreakdownsThatAddUp) {
  const Catalog& cat = io::builtin_catalog();
  const std::vector<const ModelShape*> models = cat.all<ModelShape>();
  const std::vector<const char*> servers = {"dgx-a100", "dgx-h100", "dgx-b200",
                                            "smc-as-4125gs-tnrt-l40s", "amd-mi300x-platform"};
  Random r;
  int checked = 0;
  for (int i = 0; i < 4000; ++i) {
    Workload w;
    w.model = *r.of(models);
    w.framework = r.of(std::vector<Framework>{Framework::megatron, Framework::deepspeed,
                                              Framework::fsdp, Framework::torchtitan});
    w.precision = r.of(std::vector<Precision>{Precision::bf16, Precision::fp8});
    w.optimizer = r.of(std::vector<Optimizer>{Optimizer::adam, Optimizer::adam8bit, Optimizer::sgd,
                                              Optimizer::adafactor});
    if (r.pick(4) == 0) {
      w.task = Task::finetune;
      w.finetune.method =
          r.of(std::vector<FinetuneMethod>{FinetuneMethod::lora, FinetuneMethod::qlora});
      w.precision = Precision::bf16;
    }
    w.seq_len = r.of(std::vector<long long>{1024, 2048, 4096, 8192, 32768});
    Layout& ly = w.layout;
    ly.tp = r.of(std::vector<int>{1, 2, 4, 8});
    ly.pp = r.of(std::vector<int>{1, 2, 4, 8});
    ly.cp = r.of(std::vector<int>{1, 1, 2});
    ly.dp = r.of(std::vector<int>{1, 2, 4, 16, 64});
    ly.ep = w.model.is_moe() ? r.of(std::vector<int>{1, 2, 8}) : 1;
    ly.sp = ly.tp > 1 && r.pick(2) == 0;
    ly.micro_batch = r.of(std::vector<int>{1, 2, 4});
    ly.interleave = ly.pp > 1 ? r.of(std::vector<int>{1, 2}) : 1;
    ly.zero = r.pick(4);
    ly.recompute =
        r.of(std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full});
    ly.flash_attention = r.pick(3) != 0;
    ly.offload_optimizer = r.pick(5) == 0;
    w.global_batch =
        static_cast<long long>(ly.micro_batch) * ly.dp * r.of(std::vector<int>{1, 4, 16});
    w.tokens = 1e10;
    const Server& server = *cat.find_server(r.of(servers));
    const Gpu& gpu = *cat.find_gpu(server.gpu_id);
    w.cluster.nodes = std::max(1, (ly.gpus() + server.gpus_per_node - 1) / server.gpus_per_node);
    if (!check_layout(w, 0).empty()) continue;
    ++checked;

    const MemoryEstimate m = estimate_memory(w, gpu);
    const StageMemory& s = m.peak;
    for (double x :
         {s.weights, s.gradients, s.optimizer, s.activations, s.logits, s.buffers, s.overhead}) {
      ASSERT_TRUE(finite_nonnegative(x)) << w.model.id;
    }
    EXPECT_GT(m.total(), 0);
    EXPECT_DOUBLE_EQ(m.total(), s.weights + s.gradients + s.optimizer + s.activations + s.logits +
                                    s.buffers + s.overhead);

    const StepEstimate t = estimate_step(w, server, gpu, nullptr, perf_constants(gpu, w.framework));
    const StepBreakdown& b = t.breakdown;
    for (double x : {b.compute, b.tp_comm, b.cp_comm, b.ep_comm, b.pp_comm, b.dp_comm, b.bubble,
                     b.optimizer, b.other}) {
      ASSERT_TRUE(finite_nonnegative(x)) << w.model.id;
    }
    ASSERT_GT(t.step_s, 0) << w.model.id;
    EXPECT_NEAR(t.step_s, b.total(), 1e-9 * t.step_s);
    EXPECT_TRUE(std::isfinite(t.mfu) && t.mfu > 0);
    EXPECT_TRUE(t.network_wait_fraction >= 0 && t.network_wait_fraction <= 1);
    EXPECT_TRUE(std::isfinite(t.time_to_train_s) && t.time_to_train_s > 0);
  }
  EXPECT_GT(checked, 1000);  // most random layouts are legal
}

TEST(Properties, EstimateOfTheRecommendedPlanAgreesWithPlan) {
  const Catalog& cat = io::builtin_catalog();
  for (const char* model : {"llama3-8b", "mixtral-8x7b", "gpt3-175b"}) {
    PlanRequest r;
    r.workload.model = *cat.find_model(model);
    r.workload.tokens = 1e11;
    r.workload.seq_len = 2048;
    r.workload.global_batch = 512;
    HardwareOption h;
    h.server = *cat.find_server("dgx-h100");
    h.gpu = *cat.find_gpu("h100-sxm");
    h.fabric = *cat.find_fabric("ib-ndr");
    r.hardware.push_back(h);
    r.constraints.max_nodes = 16;
    const PlanResult p = plan(r);
    ASSERT_TRUE(p.recommended.has_value()) << model;
    // Re-estimate the recommended layout the way `estimate` does.
    Workload w = r.workload;
    w.layout = p.recommended->layout;
    w.cluster.nodes = p.recommended->nodes;
    const MemoryEstimate m = estimate_memory(w, h.gpu);
    const StepEstimate t =
        estimate_step(w, h.server, h.gpu, &*h.fabric, perf_constants(h.gpu, w.framework), m);
    EXPECT_DOUBLE_EQ(m.total(), p.recommended->memory.total()) << model;
    EXPECT_DOUBLE_EQ(t.step_s, p.recommended->step.step_s) << model;
  }
}

TEST(Properties, HugeModelsAndClustersStayFinite) {
  // 10^13 parameters (a 1T-hidden-scaled GPT) on 10^6 GPUs: byte and FLOP
  // counts are doubles, so nothing wraps; figures stay finite.
  Workload w;
  w.model.layers = 400;
  w.model.hidden = 40960;
  w.model.heads = 320;
  w.model.kv_heads = 320;
  w.model.ffn = 4 * 40960;
  w.model.vocab = 256000;
  w.seq_len = 8192;
  w.layout.tp = 8;
  w.layout.pp = 100;
  w.layout.dp = 1250;
  w.layout.zero = 1;
  w.global_batch = 1250 * 64;
  w.tokens = 1e15;
  w.cluster.nodes = 125000;
  const Catalog& cat = io::builtin_catalog();
  const MemoryEstimate m = estimate_memory(w, *cat.find_gpu("b200"));
  EXPECT_TRUE(std::isfinite(m.total()));
  const StepEstimate t = estimate_step(w, *cat.find_server("dgx-b200"), *cat.find_gpu("b200"),
                                       nullptr, perf_constants(*cat.find_gpu("b200"), w.framework));
  EXPECT_TRUE(std::isfinite(t.step_s) && t.step_s > 0);
  EXPECT_TRUE(std::isfinite(t.time_to_train_s));
  EXPECT_EQ(w.layout.gpus(), 1000000);
}

}  // namespace
}  // namespace scaleout
