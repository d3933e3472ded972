// Evaluations per second: the memory model (the planner's cheap check), memory
// plus step time (one full candidate), and a whole plan; for serving, a decode
// step, an estimate and a serving plan.
#include <benchmark/benchmark.h>

#include "inference/serving.hpp"
#include "inference/serving_plan.hpp"
#include "io/catalog_reader.hpp"
#include "io/embedded_catalog.hpp"
#include "memory/memory.hpp"
#include "perf/step.hpp"
#include "search/planner.hpp"

namespace {

// A catalog model's workload of `seq` tokens, `batch` sequences per step, on `nodes` nodes.
scaleout::Workload workload_of(const char* model, long long seq, long long batch, int nodes) {
  scaleout::Workload w;
  w.model = *scaleout::io::builtin_catalog().find_model(model);
  w.seq_len = seq;
  w.global_batch = batch;
  w.cluster.nodes = nodes;
  return w;
}

// Llama 3 70B, TP 8 x PP 4 x DP 16 on 64 DGX H100 nodes: a typical candidate.
scaleout::Workload llama70_candidate() {
  scaleout::Workload w = workload_of("llama3-70b", 8192, 1024, 64);
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 16;
  w.layout.sp = true;
  w.layout.zero = 1;
  w.layout.recompute = scaleout::Recompute::selective;
  return w;
}

void BM_EstimateMemory(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::Workload w = llama70_candidate();
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  int mb = 1;
  for (auto _ : state) {
    w.layout.micro_batch = mb;
    mb = mb % 4 + 1;
    benchmark::DoNotOptimize(scaleout::estimate_memory(w, gpu));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateMemory);

}  // namespace

namespace {

// One full evaluation the planner makes per candidate: memory, then step
// time, with the layers described once per (tp, sp, ep) as the planner does
// (micro-batch, interleaving, ZeRO stage, recompute and offload leave the
// description unchanged).
void BM_EstimateMemoryAndStep(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::Workload w = llama70_candidate();
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  const scaleout::Server& server = *c.find_server("dgx-h100");
  const scaleout::Fabric* fabric = c.find_fabric("ib-ndr");
  const scaleout::PerfConstants k = scaleout::perf_constants(gpu, w.framework);
  const scaleout::DescribedLayers layers = scaleout::describe_layers(w);
  int mb = 1;
  for (auto _ : state) {
    w.layout.micro_batch = mb;
    mb = mb % 4 + 1;
    const scaleout::MemoryEstimate mem = scaleout::estimate_memory(w, gpu, {}, layers);
    benchmark::DoNotOptimize(scaleout::estimate_step(w, server, gpu, fabric, k, mem, layers));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateMemoryAndStep);

// The planner's inner loop: a layout (here its micro-batch changes every
// iteration) is described once per (tp, sp, ep) and timed once
// (layout_times); then every memory-saving setting the planner tries, ZeRO
// 1-3 x recompute none/selective/full, is one memory + step evaluation
// against those times. Items: evaluations (9 per iteration).
void BM_EvaluateMemorySettings(benchmark::State& state, scaleout::Workload w) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  const scaleout::Server& server = *c.find_server("dgx-h100");
  const scaleout::Fabric* fabric = c.find_fabric("ib-ndr");
  const scaleout::PerfConstants k = scaleout::perf_constants(gpu, w.framework);
  const scaleout::DescribedLayers layers = scaleout::describe_layers(w);
  constexpr scaleout::Recompute kRecomputes[] = {
      scaleout::Recompute::none, scaleout::Recompute::selective, scaleout::Recompute::full};
  int mb = 1;
  for (auto _ : state) {
    w.layout.micro_batch = mb;
    mb = mb % 4 + 1;
    const scaleout::LayoutTimes times = scaleout::layout_times(w, server, gpu, fabric, k, layers);
    for (int zero = 1; zero <= 3; ++zero) {
      for (scaleout::Recompute rc : kRecomputes) {
        w.layout.zero = zero;
        w.layout.recompute = rc;
        const scaleout::MemoryEstimate mem = scaleout::estimate_memory(w, gpu, {}, layers);
        benchmark::DoNotOptimize(scaleout::estimate_step(w, gpu, k, mem, layers, times));
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * 9);
}
// DeepSeek-V3 (MoE: 3 dense + 58 MoE layers, MLA, 256 experts) in its
// published layout, TP 1 x PP 16 x DP 128 x EP 64 on 256 nodes, all-to-all
// overlapped (timed on the same DGX H100 nodes as the dense candidate). MoE
// evaluations should cost within 2x of dense ones.
scaleout::Workload deepseek_v3_candidate() {
  scaleout::Workload w = workload_of("deepseek-v3", 4096, 15360, 256);
  w.precision = scaleout::Precision::fp8;
  w.layout.pp = 16;
  w.layout.dp = 128;
  w.layout.ep = 64;
  w.layout.ep_overlap = true;
  w.layout.zero = 1;
  return w;
}
BENCHMARK_CAPTURE(BM_EvaluateMemorySettings, llama3_70b, llama70_candidate());
BENCHMARK_CAPTURE(BM_EvaluateMemorySettings, deepseek_v3, deepseek_v3_candidate());

// Describing a candidate's layers (once per tp, sp and ep in the planner).
void BM_DescribeLayers(benchmark::State& state) {
  scaleout::Workload w = llama70_candidate();
  int tp = 1;
  for (auto _ : state) {
    w.layout.tp = tp;
    tp = tp % 8 + 1;
    benchmark::DoNotOptimize(scaleout::describe_layers(w));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DescribeLayers);

}  // namespace

namespace {

// The speed target: a GPT-3 175B plan over every node count 1-512
// (plan visits them all, skipping those no layout divides) of two server
// types, under 0.1 s on two threads.
void BM_PlanGpt3TwoServers(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::PlanRequest r;
  r.workload.model = *c.find_model("gpt3-175b");
  r.workload.tokens = 3e11;
  r.workload.seq_len = 2048;
  r.workload.global_batch = 1536;
  for (const char* id : {"dgx-a100", "dgx-h100"}) {
    scaleout::HardwareOption h;
    h.server = *c.find_server(id);
    h.gpu = *c.find_gpu(h.server.gpu_id);
    h.usd_per_gpu_hour = c.default_cloud_price(h.gpu.id)->usd_per_gpu_hour;
    r.hardware.push_back(h);
  }
  r.constraints.max_nodes = 512;
  scaleout::add_slice_options(r);  // as plan does: 1, 2 and 4 GPUs of each server too
  r.threads = static_cast<int>(state.range(0));
  long long evaluated = 0;
  int divisible = 0;
  for (auto _ : state) {
    const scaleout::PlanResult p = scaleout::plan(r);
    evaluated = p.stats.evaluated;
    divisible = p.stats.node_counts_divisible;
    benchmark::DoNotOptimize(p.recommended);
  }
  state.counters["evaluations"] = static_cast<double>(evaluated);
  state.counters["evaluations_per_s"] = benchmark::Counter(
      static_cast<double>(evaluated), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["node_counts_divisible"] = static_cast<double>(divisible);
}
BENCHMARK(BM_PlanGpt3TwoServers)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Start-up: the built-in catalog, compiled into code at build time
// (tools/embed_catalog.cpp), added to an empty Catalog.
void BM_EmbeddedCatalog(benchmark::State& state) {
  for (auto _ : state) {
    scaleout::Catalog c;
    scaleout::io::add_embedded_catalog(c);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_EmbeddedCatalog)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// Serving: one decode step and one whole estimate (the concurrency search) of
// Llama 3 70B in FP8 on two H100s, and a serving plan over two servers.
scaleout::Workload llama70_serving() {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::Workload w;
  w.model = *c.find_model("llama3-70b");
  w.task = scaleout::Task::inference;
  w.layout.tp = 2;
  w.inference.prompt_tokens = 1000;
  w.inference.output_tokens = 250;
  w.inference.weights = scaleout::WeightFormat::fp8;
  w.inference.kv_cache = scaleout::Precision::fp8;
  return w;
}

void BM_DecodeStep(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  const scaleout::Workload w = llama70_serving();
  const scaleout::Server& server = *c.find_server("dgx-h100");
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  int batch = 1;
  for (auto _ : state) {
    batch = batch % 256 + 1;
    benchmark::DoNotOptimize(scaleout::decode_step(w, server, gpu, nullptr, batch, 1125));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeStep);

void BM_EstimateServing(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  const scaleout::Workload w = llama70_serving();
  const scaleout::Server& server = *c.find_server("dgx-h100");
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  for (auto _ : state) {
    benchmark::DoNotOptimize(scaleout::estimate_serving(w, server, gpu, nullptr));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateServing)->Unit(benchmark::kMicrosecond);

void BM_PlanServingTwoServers(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::PlanRequest r;
  r.workload = llama70_serving();
  r.workload.inference.request_rate = 20;
  r.workload.inference.tpot_s = 0.040;
  for (const char* id : {"dgx-h100", "dgx-h200"}) {
    scaleout::HardwareOption h;
    h.server = *c.find_server(id);
    h.gpu = *c.find_gpu(h.server.gpu_id);
    h.usd_per_gpu_hour = c.default_cloud_price(h.gpu.id)->usd_per_gpu_hour;
    r.hardware.push_back(h);
  }
  r.constraints.max_nodes = 64;
  for (auto _ : state) {
    benchmark::DoNotOptimize(scaleout::plan_serving(r).recommended);
  }
}
BENCHMARK(BM_PlanServingTwoServers)->Unit(benchmark::kMillisecond);

}  // namespace
