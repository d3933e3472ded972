// The host launch floor (docs/model.md, "Host launch floor"): the kernels the
// host issues one by one under each `cuda_graphs` mode, the floor binding only
// where issuing them outlasts the GPU's work, and the inputs' checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "perf/compute.hpp"
#include "perf/step.hpp"
#include "validation_rows.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }

// Qwen3-30B-A3B on one DGX H100, EP 8, one 256-token sequence per micro-batch:
// small experts, many kernels, little GPU work per layer.
Workload small_moe(CudaGraphs g) {
  Workload w;
  w.model = *cat().find_model("qwen3-30b-a3b");
  w.seq_len = 256;
  w.global_batch = 64;
  w.framework = Framework::megatron;
  w.layout.dp = 8;
  w.layout.ep = 8;
  w.layout.zero = 1;
  w.cuda_graphs = g;
  w.cluster.server_id = "dgx-h100";
  w.cluster.nodes = 1;
  return w;
}

StepEstimate step(const Workload& w) {
  const Server& s = *cat().find_server(w.cluster.server_id);
  const Gpu& g = *cat().find_gpu(s.gpu_id);
  return estimate_step(w, s, g, nullptr, perf_constants(g, w.framework));
}

LayerTimes moe_layer(const Workload& w) {
  const Gpu& g = *cat().find_gpu(cat().find_server(w.cluster.server_id)->gpu_id);
  return layer_times(w, g, perf_constants(g, w.framework).compute, true);
}

TEST(HostFloor, NoneIssuesEveryKernelScopedOnlyThoseAfterTheDispatch) {
  const LayerTimes none = moe_layer(small_moe(CudaGraphs::none));
  const double k = kHostSecondsPerKernel;
  EXPECT_DOUBLE_EQ(none.host_s, (none.forward.kernels + none.backward.kernels) * k);
  EXPECT_DOUBLE_EQ(none.host_forward_s, none.forward.kernels * k);
  const LayerTimes scoped = moe_layer(small_moe(CudaGraphs::scoped));
  EXPECT_GT(scoped.host_s, 0.0);
  EXPECT_LT(scoped.host_s, none.host_s);
  // The routed experts' GEMMs are host-issued: at least two per local expert forward.
  const double local_experts = 128.0 / 8;
  EXPECT_GE(scoped.host_forward_s, 2 * local_experts * k);
  // What the host issues under scoped graphs is the part after the dispatch,
  // timed on its own behind the dispatcher's synchronisation.
  EXPECT_DOUBLE_EQ(scoped.host_dispatch_s, scoped.host_forward_s);
  EXPECT_DOUBLE_EQ(none.host_dispatch_s, scoped.host_dispatch_s);
  EXPECT_GT(none.dispatch_gpu_s, 0.0);
  const LayerTimes full = moe_layer(small_moe(CudaGraphs::full));
  EXPECT_EQ(full.host_s, 0.0);
  EXPECT_EQ(full.host_dispatch_s, 0.0);
  // A dense layer is captured whole under scoped.
  Workload dense = small_moe(CudaGraphs::scoped);
  const Gpu& g = *cat().find_gpu("h100-sxm");
  EXPECT_EQ(layer_times(dense, g, perf_constants(g, dense.framework).compute, false).host_s, 0.0);
}

TEST(HostFloor, BindsOnlyWhereTheHostIsSlowerThanTheGpu) {
  const StepEstimate none = step(small_moe(CudaGraphs::none));
  const StepEstimate full = step(small_moe(CudaGraphs::full));
  EXPECT_GE(none.step_s, full.step_s);
  // Here the host is slower: a step takes at least the host time of its
  // micro-batches' layers.
  const Workload w = small_moe(CudaGraphs::none);
  const LayerTimes t = moe_layer(w);
  const double mb = 64.0 / 8;
  EXPECT_GT(none.step_s, full.step_s);
  EXPECT_GE(none.step_s, mb * w.model.layers * t.host_s * (1 - 1e-12));
  // Long sequences: the GPU's work per layer outlasts the host's, no floor.
  Workload big = small_moe(CudaGraphs::none);
  big.seq_len = 16384;
  big.global_batch = 8;
  Workload big_full = big;
  big_full.cuda_graphs = CudaGraphs::full;
  EXPECT_DOUBLE_EQ(step(big).step_s, step(big_full).step_s);
}

TEST(HostFloor, DeepSpeedKeepsItsFittedKernelFloorInstead) {
  EXPECT_EQ(framework_traits(Framework::deepspeed).host_s_per_kernel, 0.0);
  EXPECT_EQ(framework_traits(Framework::megatron).host_s_per_kernel, kHostSecondsPerKernel);
  EXPECT_EQ(framework_traits(Framework::hf).host_s_per_kernel, kHostSecondsPerKernel);
}

// --- input ----------------------------------------------------------------------------------

io::WorkloadFile read(const std::string& yaml) {
  return io::read_workload(yaml, "w.yaml", "", cat(), false);
}

void expect_error(const std::string& yaml, const std::string& word) {
  SCOPED_TRACE(yaml);
  expect_input_error([&] { read(yaml); }, {"w.yaml:", "cuda_graphs", word});
}

TEST(HostFloorInput, WorkloadKeyIsReadAndChecked) {
  const std::string base = "model: llama3-8b\n";
  EXPECT_EQ(read(base).workload.cuda_graphs, CudaGraphs::none);
  EXPECT_EQ(read(base + "framework: nemo\ncuda_graphs: scoped\n").workload.cuda_graphs,
            CudaGraphs::scoped);
  EXPECT_EQ(read(base + "framework: torchtune\ncuda_graphs: full\n").workload.cuda_graphs,
            CudaGraphs::full);
  // An unknown mode names the accepted ones.
  expect_error(base + "cuda_graphs: partial\n", "scoped");
  // Scoped graphs need Megatron-Core; DeepSpeed runs none.
  expect_error(base + "framework: hf\ncuda_graphs: scoped\n", "megatron, nemo");
  expect_error(base + "framework: deepspeed\ncuda_graphs: full\n", "DeepSpeed");
}

std::string csv_with(const std::string& framework, const std::string& graphs) {
  return one_row_validation_csv({{"id", "r1"},
                                 {"model", "llama3-8b"},
                                 {"seq_len", "2048"},
                                 {"gpu", "h100-sxm"},
                                 {"num_gpus", "8"},
                                 {"framework", framework},
                                 {"metric", "mfu"},
                                 {"value", "0.4"},
                                 {"cuda_graphs", graphs}});
}

TEST(HostFloorInput, CsvColumnIsReadAndChecked) {
  EXPECT_EQ(io::read_validation_csv(csv_with("nemo", "scoped"), "v.csv").at(0).cuda_graphs,
            "scoped");
  EXPECT_EQ(io::read_validation_csv(csv_with("hf", ""), "v.csv").at(0).cuda_graphs, "");
  for (const auto& cell : {std::pair<std::string, std::string>{"megatron", "y"},
                           {"hf", "scoped"},
                           {"deepspeed", "full"}}) {
    SCOPED_TRACE(cell.first + " cuda_graphs=" + cell.second);
    expect_input_error([&] { io::read_validation_csv(csv_with(cell.first, cell.second), "v.csv"); },
                       {"cuda_graphs", "v.csv:2"});
  }
}

}  // namespace
}  // namespace scaleout
