// MoE expert compute (issue 17): grouped-GEMM tiles, the non-GEMM MoE
// kernels, load imbalance, multi-token prediction and the dispatch buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "memory/memory.hpp"
#include "model/params.hpp"
#include "perf/compute.hpp"
#include "perf/step.hpp"

namespace scaleout {
namespace {

const Gpu& gpu(const char* id) { return *io::builtin_catalog().find_gpu(id); }
const ModelShape& zoo(const char* id) { return *io::builtin_catalog().find_model(id); }

Workload moe_workload(const char* model, int ep, double imbalance = 1.0) {
  Workload w;
  w.model = zoo(model);
  w.seq_len = 4096;
  w.layout.micro_batch = 1;
  w.layout.ep = ep;
  w.layout.dp = ep;
  w.moe_load_imbalance = imbalance;
  return w;
}

// The routed experts' forward GEMM time and FLOPs of one layer.
std::pair<double, double> expert_gemms(const Workload& w, const ComputeConstants& k) {
  const LayerOps ops = describe_layer(w, true);
  double s = 0, flops = 0;
  const Gpu& g = gpu("h100-sxm");
  const double tokens = static_cast<double>(w.seq_len) * w.layout.micro_batch;
  for_each_matmul(ops, [&](const LayerOp& op, double n) {
    if (op.block != OpBlock::experts) return;
    const double m = tokens * op.rows;
    s += op.count * gemm_time_s(grouped_gemm_rows(m), n, op.k, g.bf16_flops, g.hbm_bw_Bps, k,
                                k.gemm_efficiency);
    flops += op.count * 2.0 * m * n * op.k / ops.expert_load;
  });
  return {s, flops};
}

TEST(GroupedGemm, RowsRoundUpToWholeTiles) {
  EXPECT_DOUBLE_EQ(grouped_gemm_rows(0), 0);
  EXPECT_DOUBLE_EQ(grouped_gemm_rows(1), 128);
  EXPECT_DOUBLE_EQ(grouped_gemm_rows(128), 128);
  EXPECT_DOUBLE_EQ(grouped_gemm_rows(129), 256);
}

TEST(GroupedGemm, FewRowsPerExpertRunSlowerPerFlop) {
  // Same FLOPs, split as many experts with few rows each or few experts with
  // many: the per-expert shape sets the rate, and a part-filled last tile
  // wastes the rest of it.
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  const Gpu& g = gpu("h100-sxm");
  auto per_flop = [&](double experts, double rows) {
    const double t = experts * gemm_time_s(grouped_gemm_rows(rows), 1536, 2048, g.bf16_flops,
                                           g.hbm_bw_Bps, k, k.gemm_efficiency);
    return t / (experts * 2.0 * rows * 1536 * 2048);
  };
  EXPECT_GT(per_flop(256, 64), 1.5 * per_flop(2, 8192));  // half of each tile is padding
  EXPECT_GT(per_flop(128, 128), per_flop(2, 8192));       // whole tiles, small M
  // In a layer: Qwen3-30B-A3B's 128 experts over EP 8 (16 local experts) with
  // 512 tokens per micro-batch run below the rate of 4096 tokens.
  Workload small = moe_workload("qwen3-30b-a3b", 8);
  small.seq_len = 512;
  const Workload large = moe_workload("qwen3-30b-a3b", 8);
  const auto [ts, fs] = expert_gemms(small, k);
  const auto [tl, fl] = expert_gemms(large, k);
  EXPECT_GT(ts / fs, 1.1 * tl / fl);
}

TEST(LoadImbalance, RaisesExpertTimeAndReceivedBytesByTheLoad) {
  const PerfConstants k = perf_constants(gpu("h100-sxm"), Framework::megatron);
  Workload w = moe_workload("mixtral-8x7b", 8, 1.0);
  Workload hot = w;
  hot.moe_load_imbalance = 1.5;
  // 8 experts over EP 8: one expert per rank, 4096 x 2 copies = 8192 rows, a
  // whole number of tiles both ways, so the expert GEMMs scale with the load
  // within the shape curve's change (8192 -> 12288 rows).
  const auto [t1, f1] = expert_gemms(w, k.compute);
  const auto [t15, f15] = expert_gemms(hot, k.compute);
  EXPECT_NEAR(t15 / t1, 1.5 * (8192.0 / (8192 + 96)) / (12288.0 / (12288 + 96)), 1e-9);
  EXPECT_DOUBLE_EQ(f15, f1);  // the mean rank's FLOPs
  // The expert rows and the stored expert tensors are the hot rank's.
  const LayerOps a = describe_layer(w, true), b = describe_layer(hot, true);
  EXPECT_DOUBLE_EQ(b.expert_load, 1.5);
  for (int i = 0; i < a.size; ++i) {
    if (a[i].block == OpBlock::experts) {
      EXPECT_DOUBLE_EQ(b[i].rows, 1.5 * a[i].rows);
    }
  }
  EXPECT_GT(stored_elems(b, Stored::gemm_input), stored_elems(a, Stored::gemm_input));
  // The all-to-all carries 1.5x the bytes on the hot rank.
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const LayoutTimes l1 = layout_times(w, server, gpu("h100-sxm"), nullptr, k, describe_layers(w));
  const LayoutTimes l15 =
      layout_times(hot, server, gpu("h100-sxm"), nullptr, k, describe_layers(hot));
  EXPECT_GT(l15.moe.ep, 1.4 * l1.moe.ep);
  EXPECT_LT(l15.moe.ep, 1.5 * l1.moe.ep + 1e-12);
  // One expert-parallel rank has nothing to wait for; serving stays balanced.
  Workload one = w;
  one.layout.ep = 1;
  one.moe_load_imbalance = 1.5;
  EXPECT_DOUBLE_EQ(describe_layer(one, true).expert_load, 1.0);
  Workload serve = hot;
  serve.task = Task::inference;
  EXPECT_DOUBLE_EQ(describe_layer(serve, true).expert_load, 1.0);
  // Memory: the hot rank's activations and dispatch buffers grow.
  const MemoryEstimate m1 = estimate_memory(w, gpu("h100-sxm"));
  const MemoryEstimate m15 = estimate_memory(hot, gpu("h100-sxm"));
  EXPECT_GT(m15.peak.activations, m1.peak.activations);
  EXPECT_GT(m15.peak.buffers, m1.peak.buffers);
}

TEST(MoeKernels, RouterAndLocalPermutesAreMemoryBound) {
  // Several local experts add the sort to expert order and back; one expert
  // per rank does not (Megatron-Core README: EP = E removes it).
  const Workload four = moe_workload("mixtral-8x7b", 2);  // 4 local experts
  const Workload one = moe_workload("mixtral-8x7b", 8);   // 1 local expert
  auto elementwise = [](const LayerOps& ops) {
    int n = 0;
    for (const LayerOp& op : ops) n += op.kind == OpKind::elementwise;
    return n;
  };
  EXPECT_EQ(elementwise(describe_layer(four, true)), elementwise(describe_layer(one, true)) + 2);
  // The router's score and top-k pass reads and writes E FP32 values per token.
  const LayerOps ops = describe_layer(one, true);
  bool found = false;
  for (const LayerOp& op : ops) {
    if (op.kind == OpKind::elementwise && op.bytes_per_token == 12.0 * 8) found = true;
  }
  EXPECT_TRUE(found);
}

TEST(Mtp, AddsALayerAProjectionAndAHeadToFlopsAndParams) {
  ModelShape m = zoo("deepseek-v3");
  ASSERT_EQ(m.mtp_layers, 0);
  const ParamCounts base = count_params(m);
  m.mtp_layers = 1;
  const ParamCounts with = count_params(m);
  const double h = static_cast<double>(m.hidden);
  const LayerOps moe = describe_layer(m, true);
  double layer = 0;
  for (double p : moe.params) layer += p;
  EXPECT_DOUBLE_EQ(with.mtp, layer + 2.0 * h * h + 3.0 * h);
  EXPECT_NEAR(with.total() - base.total(), with.mtp, 1.0);
  // Active: top_k of the MTP layer's routed experts.
  const double experts = block_params(moe, OpBlock::experts);
  EXPECT_NEAR(with.active - base.active, with.mtp - experts + experts * m.moe.top_k / m.moe.experts,
              1.0);

  // Model FLOPs per token: 6 x (those active weights + the extra head V h)
  // + the extra layer's attention 12 w s.
  Workload w;
  w.model = zoo("deepseek-v3");
  w.seq_len = 4096;
  const double f0 = model_flops_per_token(w);
  w.model.mtp_layers = 1;
  const double f1 = model_flops_per_token(w);
  const double width =
      m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) / 2.0;
  const double active_layer = layer - experts + experts * m.moe.top_k / m.moe.experts;
  EXPECT_NEAR(
      f1 - f0,
      6.0 * (active_layer + 2.0 * h * h + static_cast<double>(m.vocab) * h) + 12.0 * width * 4096,
      1e-6 * f1);
  // Serving trains no MTP head.
  Workload serve = w;
  serve.task = Task::inference;
  EXPECT_EQ(trained_mtp_layers(serve), 0);
}

TEST(Mtp, SlowsAndFillsTheLastPipelineStage) {
  Workload w = moe_workload("deepseek-v3", 8);
  w.layout.pp = 16;
  w.layout.dp = 8;
  w.layout.recompute = Recompute::full;
  w.global_batch = 64;
  w.precision = Precision::fp8;
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const PerfConstants k = perf_constants(gpu("h100-sxm"), w.framework);
  const StepEstimate s0 = estimate_step(w, server, gpu("h100-sxm"), nullptr, k);
  const MemoryEstimate m0 = estimate_memory(w, gpu("h100-sxm"));
  Workload mtp = w;
  mtp.model.mtp_layers = 1;
  const StepEstimate s1 = estimate_step(mtp, server, gpu("h100-sxm"), nullptr, k);
  // The last stage (4 layers of 61 over 16 stages here: 3 of the first 13
  // stages carry 4) gains a MoE layer and a second head: it becomes the slowest.
  EXPECT_GT(s1.step_s, s0.step_s * 1.1);
  EXPECT_GT(s1.model_flops_per_step, s0.model_flops_per_step);
  const MemoryEstimate m1 = estimate_memory(mtp, gpu("h100-sxm"));
  EXPECT_GE(m1.total(), m0.total());
}

// DeepSeek-V3's own layout (PP16 x EP64 x ZeRO-1 DP 128, no TP, FP8) under
// 1F1B and under DualPipe (arXiv:2412.19437 section 3.2.1, table 2).
TEST(DualPipe, HidesCommunicationShrinksTheBubbleAndHoldsTwoStages) {
  Workload w = moe_workload("deepseek-v3", 64);
  w.framework = Framework::other;
  w.layout.pp = 16;
  w.layout.dp = 128;
  w.layout.zero = 1;
  w.layout.recompute = Recompute::full;
  w.global_batch = 15360;
  w.precision = Precision::fp8;
  const Server& server = *io::builtin_catalog().find_server("hgx-h800");
  const Gpu& g = gpu("h800");
  const PerfConstants k = perf_constants(g, w.framework);
  Workload dual = w;
  dual.layout.schedule = PipeSchedule::dualpipe;
  const StepEstimate s1 = estimate_step(w, server, g, nullptr, k);
  const StepEstimate s2 = estimate_step(dual, server, g, nullptr, k);
  // The bubble: (p/2-1)(F&B+B-3W) against (p-1)(F+B), under half here.
  EXPECT_GT(s1.breakdown.bubble, 0.0);
  EXPECT_LT(s2.breakdown.bubble, s1.breakdown.bubble / 2.0);
  EXPECT_GT(s2.breakdown.bubble, 0.0);
  // All-to-all behind paired chunks (the SMs it takes cost compute); pipeline sends hidden.
  EXPECT_GT(s1.breakdown.ep_comm, 0.0);
  EXPECT_LT(s2.breakdown.ep_comm, 0.1 * s1.breakdown.ep_comm);
  EXPECT_GT(s2.breakdown.compute, s1.breakdown.compute);
  EXPECT_GT(s1.breakdown.pp_comm, 0.0);
  EXPECT_DOUBLE_EQ(s2.breakdown.pp_comm, 0.0);
  EXPECT_LT(s2.step_s, s1.step_s);
  // Memory: two stages' parameters, weights and gradients per rank, (p+1)
  // micro-batches of activations.
  const MemoryEstimate m1 = estimate_memory(w, g);
  const MemoryEstimate m2 = estimate_memory(dual, g);
  // (The 1F1B peak is a middle stage; DualPipe's is rank 0: stages 0 and 15,
  // embedding, head and MTP.)
  EXPECT_GT(m2.peak.weights, 1.5 * m1.peak.weights);
  EXPECT_GT(m2.peak.gradients, 1.5 * m1.peak.gradients);
  EXPECT_GT(m2.peak.params, 1.5 * m1.peak.params);
  EXPECT_DOUBLE_EQ(m2.peak.microbatches_in_flight, 17.0);
  EXPECT_TRUE(m2.peak.has_embedding && m2.peak.has_output);
  // The MTP module on stage 15 uses stage 0's embedding on the same rank
  // (arXiv:2412.19437 section 3.2.3): its depth adds a layer, the 2h x h
  // projection and norms, but no second V x h table.
  Workload no_mtp = dual;
  no_mtp.model.mtp_layers = 0;
  Workload one_mtp = dual;
  one_mtp.model.mtp_layers = 1;
  const double hid = static_cast<double>(dual.model.hidden);
  const double vh = static_cast<double>(dual.model.vocab) * hid;
  const double delta =
      estimate_memory(one_mtp, g).peak.params - estimate_memory(no_mtp, g).peak.params;
  EXPECT_GT(delta, 2.0 * hid * hid);
  EXPECT_LT(delta, vh);
}

TEST(Mtp, ReadFromTheConfigAndTheWorkload) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/tests/data/hf/deepseek-v3.json";
  const io::WorkloadFile wf = io::read_workload("model: " + path +
                                                    "\n"
                                                    "cluster:\n"
                                                    "  server: dgx-h100\n",
                                                "w.yaml", "", io::builtin_catalog());
  EXPECT_EQ(wf.workload.model.mtp_layers, 1);  // num_nextn_predict_layers
  const io::WorkloadFile off = io::read_workload("model: " + path +
                                                     "\n"
                                                     "mtp_layers: 0\n"
                                                     "cluster:\n"
                                                     "  server: dgx-h100\n",
                                                 "w.yaml", "", io::builtin_catalog());
  EXPECT_EQ(off.workload.model.mtp_layers, 0);
}

TEST(LoadImbalance, WorkloadKeyAndItsErrors) {
  const std::string base =
      "model: mixtral-8x7b\n"  // 1
      "moe:\n"                 // 2
      "  load_imbalance: X\n"  // 3
      "cluster:\n"             // 4
      "  server: dgx-h100\n";  // 5
  auto with = [&](const std::string& v) {
    std::string t = base;
    return t.replace(t.find('X'), 1, v);
  };
  EXPECT_DOUBLE_EQ(io::read_workload(with("1.5"), "w.yaml", "", io::builtin_catalog())
                       .workload.moe_load_imbalance,
                   1.5);
  EXPECT_DOUBLE_EQ(io::read_workload("model: mixtral-8x7b\ncluster:\n  server: dgx-h100\n",
                                     "w.yaml", "", io::builtin_catalog())
                       .workload.moe_load_imbalance,
                   kDefaultMoeLoadImbalance);
  expect_input_error([&] { io::read_workload(with("0.9"), "w.yaml", "", io::builtin_catalog()); },
                     {"w.yaml:3: moe.load_imbalance:"});
  expect_input_error(
      [&] {
        io::read_workload(
            "model: llama3-8b\nmoe:\n  load_imbalance: 1.2\ncluster:\n"
            "  server: dgx-h100\n",
            "w.yaml", "", io::builtin_catalog());
      },
      {": moe: model 'llama3-8b' has no routed experts"});
}

TEST(LoadImbalance, ValidationColumnAndItsErrors) {
  // The first row of the shipped MoE file with its two new cells replaced.
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/moe-training.csv";
  const auto records = io::parse_csv(io::read_text_file(path), path);
  const std::vector<std::string>& header = records[0].second;
  auto file = [&](const std::string& imbalance, const std::string& mtp) {
    std::string text;
    for (size_t r = 0; r < 2; ++r) {
      const std::vector<std::string>& rec = records[r].second;
      for (size_t i = 0; i < rec.size(); ++i) {
        std::string cell = rec[i];
        if (r == 1 && header[i] == "moe_load_imbalance") cell = imbalance;
        if (r == 1 && header[i] == "mtp_layers") cell = mtp;
        std::string quoted = "\"";
        for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        text += (i ? "," : "") + quoted + "\"";
      }
      text += "\n";
    }
    return text;
  };
  const auto rows = io::read_validation_csv(file("1", "0"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*rows[0].moe_load_imbalance, 1.0);
  EXPECT_EQ(*rows[0].mtp_layers, 0);
  EXPECT_FALSE(io::read_validation_csv(file("", ""), "v.csv")[0].moe_load_imbalance.has_value());
  expect_input_error([&] { io::read_validation_csv(file("0.5", ""), "v.csv"); },
                     {"v.csv:2: moe_load_imbalance: must be in [1, 100]"});
  EXPECT_THROW(io::read_validation_csv(file("1", "x"), "v.csv"), InputError);
}

TEST(TokenDispatcher, DeepepAndHybridepSendOneCopyPerNode) {
  // Mixtral (top-2) over EP 32 on four DGX H100 nodes: the flex dispatcher's
  // backends cross the network once per destination node, the all-to-all
  // dispatcher once per routed copy; the framework's own applies when none
  // is named (all-to-all for nemo, DeepEP for automodel).
  const PerfConstants k = perf_constants(gpu("h100-sxm"), Framework::nemo);
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  auto ep_time = [&](Framework f, MoeDispatcher d, int ep) {
    Workload w = moe_workload("deepseek-v3", ep);
    w.framework = f;
    w.moe_dispatcher = d;
    return layout_times(w, server, gpu("h100-sxm"), nullptr, k, describe_layers(w)).moe.ep;
  };
  const double a2a = ep_time(Framework::nemo, MoeDispatcher::alltoall, 32);
  const double deepep = ep_time(Framework::nemo, MoeDispatcher::deepep, 32);
  EXPECT_GT(a2a, 0);
  EXPECT_LT(deepep, 0.8 * a2a);
  EXPECT_DOUBLE_EQ(ep_time(Framework::nemo, MoeDispatcher::hybridep, 32), deepep);
  EXPECT_DOUBLE_EQ(ep_time(Framework::nemo, MoeDispatcher::framework, 32), a2a);
  EXPECT_DOUBLE_EQ(ep_time(Framework::automodel, MoeDispatcher::framework, 32), deepep);
  EXPECT_DOUBLE_EQ(ep_time(Framework::automodel, MoeDispatcher::alltoall, 32), a2a);
  // Inside one node DeepEP and HybridEP send a token once to every rank that
  // holds one of its experts (DeepEP's is_token_in_rank): 8 (1 - (7/8)^8) =
  // 5.25 of the all-to-all's 8 routed copies for top-8 over 8 ranks.
  const double a2a8 = ep_time(Framework::nemo, MoeDispatcher::alltoall, 8);
  const double deepep8 = ep_time(Framework::nemo, MoeDispatcher::deepep, 8);
  EXPECT_NEAR(deepep8 / a2a8, rank_copies_per_token(8, 8) / 8.0, 0.02);
  EXPECT_DOUBLE_EQ(ep_time(Framework::nemo, MoeDispatcher::hybridep, 8), deepep8);
  EXPECT_DOUBLE_EQ(ep_time(Framework::automodel, MoeDispatcher::framework, 8), deepep8);
}

TEST(TokenDispatcher, WorkloadKeyAndItsErrors) {
  const std::string base =
      "model: mixtral-8x7b\n"  // 1
      "moe:\n"                 // 2
      "  dispatcher: X\n"      // 3
      "cluster:\n"             // 4
      "  server: dgx-h100\n";  // 5
  auto with = [&](const std::string& v) {
    std::string t = base;
    return t.replace(t.find('X'), 1, v);
  };
  auto read = [](const std::string& text) {
    return io::read_workload(text, "w.yaml", "", io::builtin_catalog()).workload.moe_dispatcher;
  };
  EXPECT_EQ(read(with("deepep")), MoeDispatcher::deepep);
  EXPECT_EQ(read(with("hybridep")), MoeDispatcher::hybridep);
  EXPECT_EQ(read(with("alltoall")), MoeDispatcher::alltoall);
  EXPECT_EQ(read("model: mixtral-8x7b\ncluster:\n  server: dgx-h100\n"), MoeDispatcher::framework);
  expect_input_error([&] { read(with("flex")); }, {"w.yaml:3: moe.dispatcher:", "hybridep"});
}

TEST(TokenDispatcher, ValidationColumnAndItsErrors) {
  // The first row of the shipped MoE file with some cells replaced.
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/moe-training.csv";
  const auto records = io::parse_csv(io::read_text_file(path), path);
  const std::vector<std::string>& header = records[0].second;
  auto file = [&](const std::string& dispatcher, const std::string& ep) {
    std::string text;
    for (size_t r = 0; r < 2; ++r) {
      const std::vector<std::string>& rec = records[r].second;
      for (size_t i = 0; i < rec.size(); ++i) {
        std::string cell = rec[i];
        if (r == 1 && header[i] == "moe_dispatcher") cell = dispatcher;
        if (r == 1 && header[i] == "ep" && !ep.empty()) cell = ep;
        if (r == 1 && header[i] == "ep_overlap" && !ep.empty()) cell = "";
        std::string quoted = "\"";
        for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        text += (i ? "," : "") + quoted + "\"";
      }
      text += "\n";
    }
    return text;
  };
  EXPECT_EQ(io::read_validation_csv(file("deepep", ""), "v.csv")[0].moe_dispatcher, "deepep");
  EXPECT_EQ(io::read_validation_csv(file("", ""), "v.csv")[0].moe_dispatcher, "");
  expect_input_error([&] { io::read_validation_csv(file("nccl", ""), "v.csv"); },
                     {"v.csv:2: moe_dispatcher:"});
  if (const auto e =
          input_error_of([&] { io::read_validation_csv(file("hybridep", "1"), "v.csv"); })) {
    EXPECT_NE(
        std::string(e->what()).find("v.csv:2: moe_dispatcher: a token dispatcher needs ep > 1"),
        std::string::npos)
        << e->what();
  }
}

// DeepSeek-V3's memory savers (arXiv:2412.19437 section 3.3.4): linear inputs
// and the MoE SwiGLU inputs cached in FP8, Adam moments in BF16 beside the
// fp32 master copy.
TEST(Fp8Activations, CacheLinearAndSwigluInputsInOneByte) {
  Workload w = moe_workload("deepseek-v3", 64);
  w.framework = Framework::other;
  w.layout.pp = 16;
  w.layout.dp = 128;
  w.layout.zero = 1;
  w.global_batch = 15360;
  w.precision = Precision::fp8;
  const Gpu& g = gpu("h800");
  Workload cached = w;
  cached.fp8_activations = true;
  const double a0 = activation_bytes_per_layer(w, true);
  const double a1 = activation_bytes_per_layer(cached, true);
  // The routed experts' FC1 input and SwiGLU inputs alone (hot copies x
  // (h + 2 f) elements) save a byte each per token.
  const ModelShape& m = w.model;
  const double saved =
      static_cast<double>(w.seq_len) * m.moe.top_k *
      (static_cast<double>(m.hidden) + 2.0 * static_cast<double>(m.moe.expert_ffn));
  EXPECT_GT(a0 - a1, saved);
  EXPECT_LT(a1, a0);
  // Without fp8 precision the key does nothing.
  Workload bf = cached;
  bf.precision = Precision::bf16;
  Workload bf0 = w;
  bf0.precision = Precision::bf16;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(bf, true), activation_bytes_per_layer(bf0, true));
  EXPECT_LT(estimate_memory(cached, g).peak.activations, estimate_memory(w, g).peak.activations);
}

TEST(Fp8Activations, Bf16MomentsKeepTheMasterCopy) {
  Workload w = moe_workload("deepseek-v3", 64);
  w.precision = Precision::fp8;
  Workload m = w;
  m.optimizer = Optimizer::adam_bf16_moments;
  const StatePolicy p0 = state_policy(w), p1 = state_policy(m);
  EXPECT_DOUBLE_EQ(p1.master_bytes, p0.master_bytes);
  EXPECT_DOUBLE_EQ(p1.grad_bytes, p0.grad_bytes);
  EXPECT_DOUBLE_EQ(p1.optimizer_bytes, p0.optimizer_bytes / 2.0);
  const Gpu& g = gpu("h800");
  EXPECT_LT(estimate_memory(m, g).peak.optimizer, estimate_memory(w, g).peak.optimizer);
}

TEST(Fp8Activations, WorkloadKeyAndItsErrors) {
  const std::string base =
      "model: deepseek-v3\n"            // 1
      "precision: P\n"                  // 2
      "optimizer: adam-bf16-moments\n"  // 3
      "fp8_activations: true\n"         // 4
      "cluster:\n"                      // 5
      "  server: hgx-h800\n";           // 6
  auto with = [&](const std::string& v) {
    std::string t = base;
    return t.replace(t.find('P'), 1, v);
  };
  const Workload w = io::read_workload(with("fp8"), "w.yaml", "", io::builtin_catalog()).workload;
  EXPECT_TRUE(w.fp8_activations);
  EXPECT_EQ(w.optimizer, Optimizer::adam_bf16_moments);
  expect_input_error([&] { io::read_workload(with("bf16"), "w.yaml", "", io::builtin_catalog()); },
                     {"w.yaml:4: fp8_activations: caches activations in FP8"});
}

TEST(Fp8Activations, ValidationColumnAndItsErrors) {
  // The first row of the shipped MoE file with its precision, optimizer and
  // fp8_activations cells replaced (appended where the file has none).
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/moe-training.csv";
  const auto records = io::parse_csv(io::read_text_file(path), path);
  auto file = [&](const std::string& precision, const std::string& cell) {
    const std::vector<std::string>& header = records[0].second;
    std::string text;
    for (size_t r = 0; r < 2; ++r) {
      const std::vector<std::string>& rec = records[r].second;
      std::vector<std::string> out;
      for (size_t i = 0; i < rec.size(); ++i) {
        const std::string& name = header[i];
        if (name == "precision" || name == "optimizer" || name == "fp8_activations") continue;
        out.push_back(rec[i]);
      }
      if (r == 0) {
        out.insert(out.end(), {"precision", "optimizer", "fp8_activations"});
      } else {
        out.insert(out.end(), {precision, "adam-bf16-moments", cell});
      }
      for (size_t i = 0; i < out.size(); ++i) {
        std::string quoted = "\"";
        for (char ch : out[i]) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        text += (i ? "," : "") + quoted + "\"";
      }
      text += "\n";
    }
    return text;
  };
  const auto rows = io::read_validation_csv(file("fp8", "y"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].fp8_activations, "y");
  EXPECT_EQ(rows[0].optimizer, "adam-bf16-moments");
  expect_input_error([&] { io::read_validation_csv(file("bf16", "y"), "v.csv"); },
                     {"v.csv:2: fp8_activations: y needs precision fp8"});
  EXPECT_THROW(io::read_validation_csv(file("fp8", "yes"), "v.csv"), InputError);
}

TEST(GradReduceInBf16, HalvesGradientBytesAndTheirReduction) {
  Workload w = moe_workload("deepseek-v3", 64);
  w.framework = Framework::nemo;
  w.precision = Precision::bf16;
  Workload b = w;
  b.grad_reduce_in_bf16 = true;
  const StatePolicy p0 = state_policy(w), p1 = state_policy(b);
  EXPECT_DOUBLE_EQ(p0.grad_bytes, 4.0);
  EXPECT_DOUBLE_EQ(p1.grad_bytes, 2.0);
  EXPECT_DOUBLE_EQ(p1.master_bytes, p0.master_bytes);
  EXPECT_DOUBLE_EQ(p1.optimizer_bytes, p0.optimizer_bytes);
  const Gpu& g = gpu("h100-sxm");
  EXPECT_DOUBLE_EQ(estimate_memory(b, g).peak.gradients,
                   estimate_memory(w, g).peak.gradients / 2.0);
  // fp16 keeps its own 2-byte gradients: the key changes nothing there.
  Workload h = b;
  h.precision = Precision::fp16;
  Workload h0 = w;
  h0.precision = Precision::fp16;
  EXPECT_DOUBLE_EQ(state_policy(h).grad_bytes, state_policy(h0).grad_bytes);
}

TEST(GradReduceInBf16, WorkloadKeyAndItsErrors) {
  const std::string base =
      "model: deepseek-v3\n"         // 1
      "precision: P\n"               // 2
      "framework: F\n"               // 3
      "grad_reduce_in_bf16: true\n"  // 4
      "cluster:\n"                   // 5
      "  server: hgx-h800\n";        // 6
  auto with = [&](const std::string& p, const std::string& f) {
    std::string t = base;
    t.replace(t.find('P'), 1, p);
    return t.replace(t.find('F'), 1, f);
  };
  const Workload w =
      io::read_workload(with("fp8", "nemo"), "w.yaml", "", io::builtin_catalog()).workload;
  EXPECT_TRUE(w.grad_reduce_in_bf16);
  auto error_of = [&](const std::string& p, const std::string& f) {
    try {
      io::read_workload(with(p, f), "w.yaml", "", io::builtin_catalog());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("bf16", "deepspeed").find("w.yaml:4: grad_reduce_in_bf16: "),
            std::string::npos)
      << error_of("bf16", "deepspeed");
  EXPECT_NE(error_of("bf16", "fsdp").find("no fp32 main-gradient buffer"), std::string::npos);
  EXPECT_NE(error_of("fp16", "megatron").find("w.yaml:4: grad_reduce_in_bf16: reduces bf16"),
            std::string::npos)
      << error_of("fp16", "megatron");
}

TEST(GradReduceInBf16, ValidationColumnAndItsErrors) {
  // The first row of the shipped MoE file with its precision, framework and
  // grad_reduce_in_bf16 cells replaced (appended where the file has none).
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/moe-training.csv";
  const auto records = io::parse_csv(io::read_text_file(path), path);
  auto file = [&](const std::string& precision, const std::string& framework,
                  const std::string& cell) {
    const std::vector<std::string>& header = records[0].second;
    std::string text;
    for (size_t r = 0; r < 2; ++r) {
      const std::vector<std::string>& rec = records[r].second;
      std::vector<std::string> out;
      for (size_t i = 0; i < rec.size(); ++i) {
        const std::string& name = header[i];
        if (name == "precision" || name == "framework" || name == "grad_reduce_in_bf16") continue;
        out.push_back(rec[i]);
      }
      if (r == 0) {
        out.insert(out.end(), {"precision", "framework", "grad_reduce_in_bf16"});
      } else {
        out.insert(out.end(), {precision, framework, cell});
      }
      for (size_t i = 0; i < out.size(); ++i) {
        std::string quoted = "\"";
        for (char ch : out[i]) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        text += (i ? "," : "") + quoted + "\"";
      }
      text += "\n";
    }
    return text;
  };
  const auto rows = io::read_validation_csv(file("bf16", "nemo", "y"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].grad_reduce_in_bf16, "y");
  auto error_of = [&](const std::string& p, const std::string& f, const std::string& c) {
    try {
      io::read_validation_csv(file(p, f, c), "v.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("fp16", "nemo", "y").find("v.csv:2: grad_reduce_in_bf16: y needs precision"),
            std::string::npos);
  EXPECT_NE(error_of("bf16", "deepspeed", "y")
                .find("v.csv:2: grad_reduce_in_bf16: y needs a framework with fp32 main gradients"),
            std::string::npos);
  EXPECT_FALSE(error_of("bf16", "nemo", "yes").empty());
}

// Expert data parallelism (MoE parallel folding): the routed experts'
// gradients, weights and optimizer state go over the expert-data-parallel
// group, tp x cp x dp / (ep x etp) ranks (Megatron-Core's expert buffers on
// its expt_dp group; NeMo Automodel's ep_shard mesh), not the whole DP group.
// Qwen3-30B-A3B, EP 8 x DP 8 on one DGX-H100: one rank per expert group, so
// the experts are neither reduced nor sharded.
Workload qwen3_ep8(Framework framework, int zero) {
  Workload w = moe_workload("qwen3-30b-a3b", 8);
  w.framework = framework;
  w.layout.zero = zero;
  w.layout.dp_overlap = false;
  w.layout.recompute = Recompute::none;
  w.global_batch = 64;
  return w;
}

TEST(ExpertDataParallel, GroupIsTheRanksHoldingTheSameExperts) {
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const Gpu& g = gpu("h100-sxm");
  const PerfConstants k = perf_constants(g, Framework::megatron);
  Workload w = qwen3_ep8(Framework::megatron, 1);
  EXPECT_EQ(layout_times(w, server, g, nullptr, k, describe_layers(w)).expert_shard_group.size, 1);
  // DP 16 on 2 nodes: tp x cp x dp / (ep x etp) = 16 / 8 = 2 ranks, 8 apart:
  // one on each node.
  w.layout.dp = 16;
  w.cluster.nodes = 2;
  const GroupSpan e = layout_times(w, server, g, nullptr, k, describe_layers(w)).expert_shard_group;
  EXPECT_EQ(e.size, 2);
  EXPECT_EQ(e.per_node, 1);
  EXPECT_EQ(e.nodes, 2);
  // EP 1 with etp = tp: the expert group is the dense shard group.
  w.layout.ep = 1;
  const LayoutTimes lt = layout_times(w, server, g, nullptr, k, describe_layers(w));
  EXPECT_EQ(lt.expert_shard_group.size, lt.shard_group.size);
  EXPECT_EQ(lt.expert_shard_group.per_node, lt.shard_group.per_node);
}

TEST(ExpertDataParallel, OptimizerStepShardsExpertsOverTheExpertGroup) {
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const Gpu& g = gpu("h100-sxm");
  const PerfConstants k = perf_constants(g, Framework::megatron);
  const Workload w = qwen3_ep8(Framework::megatron, 1);
  const MemoryEstimate mem = estimate_memory(w, g);
  // 48 layers x 128/8 local experts x 3 x 2048 x 768 = 3,623,878,656.
  const double experts = 48.0 * 16 * 3 * 2048 * 768;
  EXPECT_DOUBLE_EQ(mem.peak.trainable_expert_params, experts);
  const double dense = mem.peak.trainable_params - experts;
  EXPECT_GT(dense, 0.0);
  Workload unsharded = w;
  unsharded.layout.zero = 0;
  const double opt1 = estimate_step(w, server, g, nullptr, k).breakdown.optimizer;
  const double opt0 = estimate_step(unsharded, server, g, nullptr, k).breakdown.optimizer;
  // ZeRO-1 shards the dense state 8 ways and the experts' not at all (one
  // expert-data-parallel rank), against all of it held at ZeRO-0.
  EXPECT_NEAR(opt1 / opt0, (dense / 8.0 + experts) / (dense + experts), 1e-12);
}

TEST(ExpertDataParallel, GradientReduceAndGatherSkipUnreplicatedExperts) {
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const Gpu& g = gpu("h100-sxm");
  const PerfConstants k = perf_constants(g, Framework::megatron);
  const Workload w = qwen3_ep8(Framework::megatron, 1);
  const MemoryEstimate mem = estimate_memory(w, g);
  const LayoutTimes lt = layout_times(w, server, g, nullptr, k, describe_layers(w));
  const double dense = mem.peak.trainable_params - mem.peak.trainable_expert_params;
  // ZeRO-1, no overlap: the dense gradients' reduce-scatter and the 16-bit
  // weights' all-gather over the 8 DP ranks; nothing for the experts.
  const double expected =
      collective_time_s(Collective::reduce_scatter, dense * state_policy(w).grad_bytes,
                        lt.shard_group, lt.links) +
      collective_time_s(Collective::all_gather, dense * 2.0, lt.shard_group, lt.links);
  EXPECT_NEAR(estimate_step(w, server, g, nullptr, k).breakdown.dp_comm, expected,
              1e-12 * expected);
}

TEST(ExpertDataParallel, Zero3GathersOnlyTheLayersDenseWeightsOverDp) {
  const Server& server = *io::builtin_catalog().find_server("dgx-h100");
  const Gpu& g = gpu("h100-sxm");
  PerfConstants k = perf_constants(g, Framework::automodel);
  k.framework.zero3_hidden_share = 0.0;  // every FSDP collective exposed
  const Workload w = qwen3_ep8(Framework::automodel, 3);
  const DescribedLayers layers = describe_layers(w);
  const LayoutTimes lt = layout_times(w, server, g, nullptr, k, layers);
  const double layer_dense =
      local_layer_params(layers.moe) - block_local_params(layers.moe, OpBlock::experts);
  EXPECT_GT(block_local_params(layers.moe, OpBlock::experts), layer_dense);
  const double gather =
      collective_time_s(Collective::all_gather, layer_dense * 2.0, lt.shard_group, lt.links);
  const double reduce =
      collective_time_s(Collective::reduce_scatter, layer_dense * state_policy(w).grad_bytes,
                        lt.shard_group, lt.links);
  // 64 / 8 = 8 micro-batches, 48 MoE layers, each gathered forward and
  // backward and reduce-scattered once; the experts stay whole on their rank
  // (Automodel leaves them out of FSDP when the ep_shard mesh has one rank).
  ASSERT_FALSE(framework_traits(w.framework).no_sync_unsharded_grads);
  const double expected = 8.0 * 48.0 * (2.0 * gather + reduce);
  EXPECT_NEAR(estimate_step(w, server, g, nullptr, k).breakdown.dp_comm, expected,
              1e-12 * expected);
}

}  // namespace
}  // namespace scaleout
