// Token dropping (issue 17; docs/model.md, "Token dropping"): Megatron-Core's
// capacity factor, with and without padding to capacity, as a setting of the
// training run: the hot rank's load, the padded traffic and buffers, the
// dispatcher's synchronisation that drop-and-pad removes, and the inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "memory/memory.hpp"
#include "perf/compute.hpp"
#include "perf/step.hpp"
#include "validation_rows.hpp"
#include "workload/checks.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }
const Gpu& h100() { return *cat().find_gpu("h100-sxm"); }
const Server& dgx() { return *cat().find_server("dgx-h100"); }

// Mixtral 8x7B (top 2, 8 experts) over EP 8 on one DGX H100: one expert per rank.
Workload mixtral(double imbalance, double capacity, bool pad) {
  Workload w;
  w.model = *cat().find_model("mixtral-8x7b");
  w.framework = Framework::megatron;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.layout.micro_batch = 1;
  w.layout.ep = 8;
  w.layout.dp = 8;
  w.layout.zero = 1;
  w.moe_load_imbalance = imbalance;
  w.moe_capacity_factor = capacity;
  w.moe_pad_to_capacity = pad;
  w.cluster.server_id = "dgx-h100";
  w.cluster.nodes = 1;
  return w;
}

LayoutTimes times(const Workload& w) {
  return layout_times(w, dgx(), h100(), nullptr, perf_constants(h100(), w.framework),
                      describe_layers(w));
}

TEST(TokenDrop, CapacityCapsTheHotRankAndPaddingRunsExactlyTheCapacity) {
  // Dropless: the hot rank runs gamma x the mean copies.
  EXPECT_DOUBLE_EQ(describe_layer(mixtral(1.5, 0, false), true).expert_load, 1.5);
  // Dropped at F without padding: at most F x the fair share, min(gamma, F).
  EXPECT_DOUBLE_EQ(describe_layer(mixtral(1.5, 1.25, false), true).expert_load, 1.25);
  EXPECT_DOUBLE_EQ(describe_layer(mixtral(1.1, 1.25, false), true).expert_load, 1.1);
  // Padded: every rank runs F x the fair share, whatever the routing.
  EXPECT_DOUBLE_EQ(describe_layer(mixtral(1.5, 1.25, true), true).expert_load, 1.25);
  EXPECT_DOUBLE_EQ(describe_layer(mixtral(1.0, 2.0, true), true).expert_load, 2.0);
  // Padding applies on one expert-parallel rank too (its grouped GEMM takes
  // capacity x tp x ep rows per expert, token_dispatcher.py); serving never drops.
  Workload one = mixtral(1.5, 2.0, true);
  one.layout.ep = 1;
  EXPECT_DOUBLE_EQ(describe_layer(one, true).expert_load, 2.0);
  one.moe_pad_to_capacity = false;
  EXPECT_DOUBLE_EQ(describe_layer(one, true).expert_load, 1.0);
  Workload serve = mixtral(1.5, 2.0, true);
  serve.task = Task::inference;
  EXPECT_DOUBLE_EQ(describe_layer(serve, true).expert_load, 1.0);
  // Expert rows: top_k x F per token on the one local expert (2 x 1.25 = 2.5);
  // the FLOPs counted are the model's (top_k rows), not the padding's.
  const LayerOps pad = describe_layer(mixtral(1.0, 1.25, true), true);
  const LayerOps drop = describe_layer(mixtral(1.0, 0, false), true);
  const ComputeConstants k = perf_constants(h100(), Framework::megatron).compute;
  const LayerTimes tp = layer_times(mixtral(1.0, 1.25, true), h100(), k, pad);
  const LayerTimes td = layer_times(mixtral(1.0, 0, false), h100(), k, drop);
  for (const LayerOp& op : pad) {
    if (op.block == OpBlock::experts) {
      EXPECT_DOUBLE_EQ(op.rows, 2.0 * 1.25);
    }
  }
  EXPECT_NEAR(tp.forward.flops, td.forward.flops, 1e-6 * td.forward.flops);
  EXPECT_GT(tp.forward.gemm_s, td.forward.gemm_s);
}

TEST(TokenDrop, PaddedAllToAllCarriesTheCapacityNotTheHotRanksLoad) {
  // Hand-computed: every rank sends F x top_k copies of its 4096 tokens (2 x
  // 4096 x 4096 x 2 B x F), so padding at F = 2 moves what dropless routing
  // at gamma = 2 moves on the hot rank, and padding at F = 1 what balanced
  // dropless routing moves, however unbalanced the routing.
  EXPECT_DOUBLE_EQ(times(mixtral(1.0, 2.0, true)).moe.ep, times(mixtral(2.0, 0, false)).moe.ep);
  EXPECT_DOUBLE_EQ(times(mixtral(1.7, 1.0, true)).moe.ep, times(mixtral(1.0, 0, false)).moe.ep);
  // Dropped without padding at F = 1.25: the hot rank receives min(1.7, 1.25).
  EXPECT_DOUBLE_EQ(times(mixtral(1.7, 1.25, false)).moe.ep, times(mixtral(1.25, 0, false)).moe.ep);
}

TEST(TokenDrop, PaddedDispatchBuffersHoldTheCapacity) {
  // Send and receive buffers: 4096 tokens x top_k 2 x h 4096 x 2 B each,
  // times F on both sides when padded (dropless balanced: 1 + 1).
  const double sent = 4096.0 * 2 * 4096 * 2;
  const MemoryEstimate drop = estimate_memory(mixtral(1.0, 0, false), h100());
  const MemoryEstimate pad = estimate_memory(mixtral(1.0, 2.0, true), h100());
  EXPECT_NEAR(pad.peak.buffers - drop.peak.buffers, sent * (2 + 2 - 1 - 1), 1.0);
  // Dropping without padding sends what is routed: only the hot rank's
  // receive buffer, min(gamma, F), changes.
  const MemoryEstimate cut = estimate_memory(mixtral(1.5, 1.25, false), h100());
  const MemoryEstimate hot = estimate_memory(mixtral(1.5, 0, false), h100());
  EXPECT_NEAR(hot.peak.buffers - cut.peak.buffers, sent * (1.5 - 1.25), 1.0);
}

// Qwen3-30B-A3B on one DGX H100, EP 8, 256-token micro-batches: 16 local
// experts, many small kernels (the host floor's own test case).
Workload small_qwen(CudaGraphs g, double capacity, bool pad) {
  Workload w;
  w.model = *cat().find_model("qwen3-30b-a3b");
  w.framework = Framework::megatron;
  w.seq_len = 256;
  w.global_batch = 64;
  w.layout.dp = 8;
  w.layout.ep = 8;
  w.layout.zero = 1;
  w.moe_load_imbalance = 1.0;
  w.moe_capacity_factor = capacity;
  w.moe_pad_to_capacity = pad;
  w.cuda_graphs = g;
  w.cluster.server_id = "dgx-h100";
  w.cluster.nodes = 1;
  return w;
}

LayerTimes moe_layer(const Workload& w) {
  return layer_times(w, h100(), perf_constants(h100(), w.framework).compute, true);
}

StepEstimate step(const Workload& w) {
  return estimate_step(w, dgx(), h100(), nullptr, perf_constants(h100(), w.framework));
}

TEST(TokenDrop, DropAndPadHasNoSynchronisationAndGraphsTheWholeMoeLayer) {
  const LayerTimes dropless = moe_layer(small_qwen(CudaGraphs::none, 0, false));
  const LayerTimes pad = moe_layer(small_qwen(CudaGraphs::none, 1.0, true));
  const LayerTimes cut = moe_layer(small_qwen(CudaGraphs::none, 1.0, false));
  // Every kernel is still issued without graphs, but no split is timed apart.
  EXPECT_DOUBLE_EQ(pad.host_s, dropless.host_s);
  EXPECT_GT(dropless.host_dispatch_s, 0.0);
  EXPECT_EQ(pad.host_dispatch_s, 0.0);
  EXPECT_EQ(pad.dispatch_gpu_s, 0.0);
  // Dropping without padding synchronises (before the first permutation).
  EXPECT_DOUBLE_EQ(cut.host_dispatch_s, dropless.host_dispatch_s);
  // Scoped graphs: dropless leaves the experts host-issued, drop-and-pad
  // captures them (the `moe` module).
  EXPECT_GT(moe_layer(small_qwen(CudaGraphs::scoped, 0, false)).host_s, 0.0);
  EXPECT_EQ(moe_layer(small_qwen(CudaGraphs::scoped, 1.0, true)).host_s, 0.0);
  EXPECT_GT(moe_layer(small_qwen(CudaGraphs::scoped, 1.0, false)).host_s, 0.0);
}

TEST(TokenDrop, StepLosesTheSynchronisedWaitHandComputed) {
  // Per layer and micro-batch, with G the layer's GPU time, G_d its part
  // after the dispatch (plus a quarter of the all-to-all), H and H_d the
  // host's: dropless adds max(0, H_d - G_d) + max(0, (H - H_d) - max(0, G -
  // G_d)) (docs/model.md, "Host launch floor"); drop-and-pad, with no
  // synchronisation, max(0, H - G). Padded at F = 1 under balanced routing
  // the GPU work is the same, so the steps' compute differs by layers x
  // micro-batches x the difference.
  for (const CudaGraphs g : {CudaGraphs::none, CudaGraphs::scoped}) {
    SCOPED_TRACE(static_cast<int>(g));
    const Workload d = small_qwen(g, 0, false);
    const Workload p = small_qwen(g, 1.0, true);
    const LayoutTimes lt = times(d);
    const LayerTimes& t = lt.moe.times;
    const double gpu = t.forward.total() + t.backward.total() + lt.moe.ep;
    const double g_d = t.dispatch_gpu_s + 0.25 * lt.moe.ep;
    const double h_d = t.host_dispatch_s, h = t.host_s;
    const double synced =
        std::max(0.0, h_d - g_d) + std::max(0.0, (h - h_d) - std::max(0.0, gpu - g_d));
    const double h_pad = moe_layer(p).host_s;
    const double unsynced = std::max(0.0, h_pad - gpu);
    const double mb = 64.0 / 8, layers = 48;
    const double want = mb * layers * (synced - unsynced);
    EXPECT_NEAR(step(d).breakdown.compute - step(p).breakdown.compute, want,
                1e-9 * step(d).breakdown.compute);
    if (g == CudaGraphs::scoped) {
      // Under scoped graphs the padded layer issues nothing and the
      // dropless one waits at its synchronisation: the case binds.
      EXPECT_EQ(h_pad, 0.0);
      EXPECT_GT(h_d, g_d);
      EXPECT_GT(want, 0.0);
    }
  }
}

// --- input ----------------------------------------------------------------------------------

io::WorkloadFile read(const std::string& yaml) {
  return io::read_workload(yaml, "w.yaml", "", cat(), false);
}

TEST(TokenDropInput, WorkloadKeysAreReadAndChecked) {
  const std::string base = "model: mixtral-8x7b\nframework: megatron\n";
  const Workload none = read(base).workload;
  EXPECT_EQ(none.moe_capacity_factor, 0.0);
  EXPECT_FALSE(none.moe_pad_to_capacity);
  const Workload w =
      read(base + "moe:\n  capacity_factor: 1.25\n  pad_to_capacity: true\n").workload;
  EXPECT_DOUBLE_EQ(w.moe_capacity_factor, 1.25);
  EXPECT_TRUE(w.moe_pad_to_capacity);
  EXPECT_TRUE(moe_drop_and_pad(w));
  auto fails = [&](const std::string& yaml, std::initializer_list<std::string_view> words) {
    SCOPED_TRACE(yaml);
    expect_input_error([&] { read(yaml); }, words);
  };
  fails(base + "moe:\n  capacity_factor: 0.5\n", {"w.yaml:4", "moe.capacity_factor", "below 1"});
  fails(base + "moe:\n  capacity_factor: -1\n", {"w.yaml:4", "moe.capacity_factor"});
  fails(base + "moe:\n  pad_to_capacity: true\n",
        {"w.yaml:4", "moe.pad_to_capacity", "needs a capacity_factor"});
  fails(base + "moe:\n  capacity_factor: 1\n  pad_to_capacity: true\n  dispatcher: deepep\n",
        {"moe.pad_to_capacity", "deepep", "alltoall"});
  fails("model: mixtral-8x7b\nframework: torchtitan\nmoe:\n  capacity_factor: 1\n",
        {"w.yaml:4", "moe.capacity_factor", "Megatron-Core", "megatron or nemo"});
  fails("model: llama3-8b\nframework: nemo\nmoe:\n  capacity_factor: 1\n", {"no routed experts"});
}

TEST(TokenDropInput, OneRuleSetServesBothReaders) {
  const auto mc = Framework::megatron;
  const auto a2a = MoeDispatcher::alltoall, deepep = MoeDispatcher::deepep;
  EXPECT_FALSE(broken_token_drop_rule(std::nullopt, std::nullopt, std::nullopt, a2a));
  EXPECT_FALSE(broken_token_drop_rule(1.0, true, mc, a2a));
  EXPECT_FALSE(broken_token_drop_rule(1.0, false, mc, deepep));  // drops, does not pad
  EXPECT_EQ(broken_token_drop_rule(0.0, std::nullopt, mc, a2a), TokenDropRule::factor_below_one);
  EXPECT_EQ(broken_token_drop_rule(std::nullopt, true, mc, a2a), TokenDropRule::pad_without_factor);
  // A stated n needs a capacity too (padding is a setting of a token-dropping run).
  EXPECT_EQ(broken_token_drop_rule(std::nullopt, false, mc, a2a),
            TokenDropRule::pad_without_factor);
  EXPECT_EQ(broken_token_drop_rule(1.0, std::nullopt, Framework::torchtitan, a2a),
            TokenDropRule::not_megatron_core);
  EXPECT_EQ(broken_token_drop_rule(1.0, std::nullopt, std::nullopt, a2a),
            TokenDropRule::not_megatron_core);
  EXPECT_EQ(broken_token_drop_rule(1.0, true, mc, MoeDispatcher::hybridep),
            TokenDropRule::flex_dispatcher_pad);
  // The message names the settings as the input spells them.
  const Problem p = token_drop_problem(TokenDropRule::flex_dispatcher_pad,
                                       {"cf", "pad", "disp", "fw"}, 1.0, deepep, mc);
  EXPECT_EQ(p.key, "pad");
  EXPECT_NE(p.message.find("deepep"), std::string::npos);
  EXPECT_NE(p.hint.find("disp alltoall"), std::string::npos);
}

TEST(TokenDropInput, ModelsNoLongerTakeACapacityFactor) {
  const std::string model =
      "model:\n"                     // 1
      "  layers: 2\n"                // 2
      "  hidden: 256\n"              // 3
      "  heads: 4\n"                 // 4
      "  vocab: 1000\n"              // 5
      "  moe:\n"                     // 6
      "    experts: 4\n"             // 7
      "    top_k: 2\n"               // 8
      "    capacity_factor: 1.25\n"  // 9
      "cluster:\n"
      "  server: dgx-h100\n";
  expect_input_error([&] { read(model); }, {"w.yaml:9", "capacity_factor", "training run", "moe:"});
}

std::string csv_with(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> cells = {{"id", "r1"},
                                                            {"model", "Mixtral 8x7B"},
                                                            {"seq_len", "4096"},
                                                            {"gpu", "h100-sxm"},
                                                            {"num_gpus", "8"},
                                                            {"ep", "8"},
                                                            {"framework", "megatron"},
                                                            {"metric", "mfu"},
                                                            {"value", "0.3"}};
  cells.insert(cells.end(), extra.begin(), extra.end());
  return one_row_validation_csv(cells);
}

TEST(TokenDropInput, CsvColumnsAreReadAndChecked) {
  const auto rows = io::read_validation_csv(
      csv_with({{"moe_capacity_factor", "1"}, {"moe_pad_to_capacity", "y"}}), "v.csv");
  EXPECT_DOUBLE_EQ(*rows.at(0).moe_capacity_factor, 1.0);
  EXPECT_EQ(rows.at(0).moe_pad_to_capacity, "y");
  EXPECT_FALSE(io::read_validation_csv(csv_with({}), "v.csv").at(0).moe_capacity_factor);
  // A row stating no padding may use a flex dispatcher.
  EXPECT_NO_THROW(io::read_validation_csv(csv_with({{"moe_capacity_factor", "1"},
                                                    {"moe_pad_to_capacity", "n"},
                                                    {"moe_dispatcher", "deepep"}}),
                                          "v.csv"));
  for (const auto& [cells, column] :
       {std::pair<std::vector<std::pair<std::string, std::string>>, std::string>{
            {{"moe_capacity_factor", "0.8"}}, "moe_capacity_factor"},
        {{{"moe_pad_to_capacity", "y"}}, "moe_pad_to_capacity"},
        {{{"moe_capacity_factor", "1"}, {"moe_pad_to_capacity", "yes"}}, "moe_pad_to_capacity"},
        {{{"moe_capacity_factor", "1"}, {"moe_pad_to_capacity", "y"}, {"moe_dispatcher", "deepep"}},
         "moe_pad_to_capacity"},
        {{{"moe_capacity_factor", "1"}, {"framework", "torchtitan"}}, "moe_capacity_factor"}}) {
    SCOPED_TRACE(column);
    const std::string text = csv_with(cells);
    expect_input_error([&] { io::read_validation_csv(text, "v.csv"); }, {"v.csv:2", column});
  }
}

}  // namespace
}  // namespace scaleout
