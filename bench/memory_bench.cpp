// Memory-model evaluations per second (the planner's cheap check).
#include <benchmark/benchmark.h>

#include "io/catalog_reader.hpp"
#include "memory/memory.hpp"
#include "perf/step.hpp"

namespace {

void BM_EstimateMemory(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::Workload w;
  w.model = *c.find_model("llama3-70b");
  w.seq_len = 8192;
  w.global_batch = 1024;
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 16;
  w.layout.sp = true;
  w.layout.zero = 1;
  w.layout.recompute = scaleout::Recompute::selective;
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

// One full evaluation the planner makes per candidate: memory, then step time.
void BM_EstimateMemoryAndStep(benchmark::State& state) {
  const scaleout::Catalog& c = scaleout::io::builtin_catalog();
  scaleout::Workload w;
  w.model = *c.find_model("llama3-70b");
  w.seq_len = 8192;
  w.global_batch = 1024;
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 16;
  w.layout.sp = true;
  w.layout.zero = 1;
  w.layout.recompute = scaleout::Recompute::selective;
  w.cluster.nodes = 64;
  const scaleout::Gpu& gpu = *c.find_gpu("h100-sxm");
  const scaleout::Server& server = *c.find_server("dgx-h100");
  const scaleout::Fabric* fabric = c.find_fabric("ib-ndr");
  const scaleout::PerfConstants k = scaleout::perf_constants(gpu, w.framework);
  int mb = 1;
  for (auto _ : state) {
    w.layout.micro_batch = mb;
    mb = mb % 4 + 1;
    const scaleout::MemoryEstimate mem = scaleout::estimate_memory(w, gpu);
    benchmark::DoNotOptimize(scaleout::estimate_step(w, server, gpu, fabric, k, mem));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateMemoryAndStep);

}  // namespace
