#include "model/layer.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"
#include "memory/memory.hpp"
#include "model/params.hpp"
#include "perf/step.hpp"

namespace scaleout {
namespace {

const ModelShape& zoo(const char* id) { return *io::builtin_catalog().find_model(id); }

int count(const LayerOps& ops, OpKind kind) {
  int n = 0;
  for (const LayerOp& op : ops)
    if (op.kind == kind) ++n;
  return n;
}

TEST(Layer, DenseLlamaHasFusedQkvAndGatedMlp) {
  const LayerOps ops = describe_layer(zoo("llama3-8b"), false);
  int matmuls = 0;
  double qkv = 0;
  for_each_matmul(ops, [&](const LayerOp& op, double n) {
    if (matmuls++ == 0) qkv = n;
    EXPECT_GT(op.k, 0);
  });
  // QKV, O, gate+up, down: four matmuls as they run.
  EXPECT_EQ(matmuls, 4);
  EXPECT_DOUBLE_EQ(qkv, (32 + 2 * 8) * 128.0);
  EXPECT_EQ(count(ops, OpKind::attention), 1);
  EXPECT_EQ(ops.tp_reductions, 2);
}

TEST(Layer, BlocksSumToTheModelsParameters) {
  for (const char* id : {"llama3-8b", "gpt3-175b", "deepseek-v3", "mixtral-8x7b"}) {
    const ModelShape& m = zoo(id);
    const ParamCounts pc = count_params(m);
    const LayerOps dense = describe_layer(m, false);
    double layers = 0;
    for (const LayerOp& op : dense) layers += op.params;
    const int moe = moe_layer_count(m);
    layers *= m.layers - moe;
    if (moe > 0) {
      const LayerOps e = describe_layer(m, true);
      double one = 0;
      for (const LayerOp& op : e) one += op.params;
      layers += moe * one;
    }
    const double h = static_cast<double>(m.hidden);
    const double final_norm = m.norm == NormKind::layernorm ? 2.0 * h : h;
    EXPECT_NEAR(layers + final_norm, pc.total() - pc.embedding - pc.output, 1e-6 * pc.total())
        << id;
  }
}

TEST(Layer, GqaHeadsAreReplicatedBeyondTheirCount) {
  const ModelShape& m = zoo("llama3-8b");  // 8 K/V heads
  LayerSplit s;
  s.tp = 16;
  const LayerOps ops = describe_layer(m, false, s);
  // K and V keep one head each per rank: h * d weights each.
  const double kv_local = 2.0 * static_cast<double>(m.hidden) * m.head_size();
  double attn = block_local_params(ops, OpBlock::attention);
  const double qo = 2.0 * static_cast<double>(m.hidden) * m.heads * m.head_size() / 16;
  EXPECT_DOUBLE_EQ(attn, qo + kv_local);
  EXPECT_DOUBLE_EQ(local_kv_heads(m, 16), 1.0);
  EXPECT_DOUBLE_EQ(local_kv_heads(m, 4), 2.0);
}

TEST(Layer, ExpertsSplitOverEpAndExpertTp) {
  const ModelShape& m = zoo("mixtral-8x7b");
  const double copies = m.moe.top_k;
  LayerSplit s;
  s.tp = 2;
  s.seq_div = 2;
  s.ep = 4;
  s.etp = 2;  // Megatron-Core's default: expert TP = TP
  const LayerOps ops = describe_layer(m, true, s);
  EXPECT_DOUBLE_EQ(block_local_params(ops, OpBlock::experts),
                   block_params(ops, OpBlock::experts) / 8);
  EXPECT_EQ(ops.tp_reductions, 1);   // attention output
  EXPECT_EQ(ops.etp_reductions, 1);  // routed experts' output
  for (const LayerOp& op : ops) {
    if (op.block != OpBlock::experts) continue;
    EXPECT_DOUBLE_EQ(op.count, 2.0);  // 8 experts over EP 4
    EXPECT_DOUBLE_EQ(op.rows, copies / 2.0);
  }
  // Folded: expert TP 1 under TP 2. Each rank routes half the tokens through
  // whole-width experts; the FLOPs per GPU stay the same.
  LayerSplit folded = s;
  folded.etp = 1;
  const LayerOps f = describe_layer(m, true, folded);
  EXPECT_DOUBLE_EQ(block_local_params(f, OpBlock::experts), block_params(f, OpBlock::experts) / 4);
  double flops = 0, flops_folded = 0;
  for_each_matmul(ops, [&](const LayerOp& op, double n) {
    if (op.block == OpBlock::experts) flops += op.rows * op.count * n * op.k;
  });
  for_each_matmul(f, [&](const LayerOp& op, double n) {
    if (op.block != OpBlock::experts) return;
    EXPECT_DOUBLE_EQ(op.rows, copies / 2.0 / 2.0);
    flops_folded += op.rows * op.count * n * op.k;
  });
  EXPECT_DOUBLE_EQ(flops_folded, flops);
}

TEST(Layer, AdaptersAreTrainedAndOwnRTimesInPlusOut) {
  const ModelShape& m = zoo("llama3-8b");
  AdapterSpec a;
  a.rank = 16;
  const LayerOps ops = describe_layer(m, false, {}, a);
  const double h = static_cast<double>(m.hidden);
  const double d = m.head_size();
  const double f = static_cast<double>(m.ffn);
  const double expect = 16.0 * (2.0 * (h + m.heads * d) + 2.0 * (h + m.kv_heads * d) + 3 * (h + f));
  EXPECT_DOUBLE_EQ(block_params(ops, OpBlock::adapter), expect);
  for (const LayerOp& op : ops) EXPECT_EQ(op.frozen_under_lora, op.block != OpBlock::adapter);
  a.targets = AdapterTargets::attention;
  EXPECT_LT(block_params(describe_layer(m, false, {}, a), OpBlock::adapter), expect);
}

TEST(Layer, AbsorbedMlaReplacesTheKeyValueUpProjection) {
  const ModelShape& m = zoo("deepseek-v3");
  LayerSplit s;
  const LayerOps train = describe_layer(m, false, s);
  s.absorbed_mla = true;
  const LayerOps decode = describe_layer(m, false, s);
  // Same weights, one more matmul (W_UK and W_UV apart).
  EXPECT_DOUBLE_EQ(block_params(train, OpBlock::attention),
                   block_params(decode, OpBlock::attention));
  EXPECT_EQ(count(decode, OpKind::gemm), count(train, OpKind::gemm) + 1);
}

TEST(Layer, EveryDescriptionFitsTheFixedArray) {
  // The largest description: a MoE layer trained under Megatron-Core with
  // shared experts, several local experts, dropout, biases, a clamped
  // activation and adapters with dropout.
  ModelShape m = zoo("deepseek-v3");
  m.dropout = true;
  m.linear_bias = true;
  m.activation_clamp = 7;
  AdapterSpec a;
  a.rank = 8;
  a.dropout = 0.1;
  LayerSplit s;
  s.training = true;
  s.mcore_experts = true;
  s.ep = 2;
  const LayerOps ops = describe_layer(m, true, s, a);
  EXPECT_EQ(ops.size, 49);  // the count layer.hpp states
  EXPECT_LE(ops.size, kMaxLayerOps);
}

// Megatron-Core's TEGroupedMLP runs GPT-OSS's clamp and the experts' FC2
// bias as eager kernels of their own; other frameworks (and serving) keep
// them inside the fused kernels.
TEST(Layer, McoreExpertsRunTheirClampAndBiasApart) {
  ModelShape m = zoo("gpt-oss-120b");
  m.rope_scaling.clear();  // the unfused YaRN RoPE: McoreYarnRopeRunsUnfused
  ASSERT_GT(m.activation_clamp, 0);
  ASSERT_TRUE(m.linear_bias);
  LayerSplit s;
  s.training = true;
  s.ep = 8;
  const LayerOps fused = describe_layer(m, true, s);
  s.mcore_experts = true;
  const LayerOps mcore = describe_layer(m, true, s);
  auto bytes = [](const LayerOps& ops) {
    double b = 0;
    for (const LayerOp& op : ops) b += op.bytes_per_token;
    return b;
  };
  const double h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.moe.expert_ffn);
  const double rows = m.moe.top_k;  // routed rows per token, balanced
  EXPECT_EQ(mcore.size, fused.size + 2);
  // Clamp of both halves and their concatenation, 16 bytes per element of
  // f; FC2's bias, 12 bytes per element of h.
  EXPECT_DOUBLE_EQ(bytes(mcore) - bytes(fused), rows * (16.0 * f + 12.0 * h));
  // The clamped copy is kept for the activation's backward.
  EXPECT_DOUBLE_EQ(
      stored_elems(mcore, Stored::moe_act_input) - stored_elems(fused, Stored::moe_act_input),
      rows * 2.0 * f);
  // Neither without a clamp or biases.
  ModelShape plain = m;
  plain.activation_clamp = 0;
  plain.linear_bias = false;
  LayerSplit other = s;
  other.mcore_experts = false;
  EXPECT_EQ(describe_layer(plain, true, s).size, describe_layer(plain, true, other).size);
  EXPECT_DOUBLE_EQ(bytes(describe_layer(plain, true, s)),
                   bytes(describe_layer(plain, true, other)));
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// The planner describes a layout's layers once and hands them to memory and
// step time; the figures must be those of a fresh description.
TEST(Layer, DescribedOnceGivesTheSameEstimates) {
  const Catalog& c = io::builtin_catalog();
  const Gpu& gpu = *c.find_gpu("h100-sxm");
  const Server& server = *c.find_server("dgx-h100");
  for (const char* id : {"llama3-70b", "mixtral-8x7b", "deepseek-v3"}) {
    Workload w;
    w.model = *c.find_model(id);
    w.seq_len = 4096;
    w.global_batch = 512;
    w.layout.tp = 8;
    w.layout.pp = 4;
    w.layout.dp = 16;
    w.layout.ep = w.model.is_moe() ? 8 : 1;
    w.layout.sp = true;
    w.cluster.nodes = 64;
    const DescribedLayers layers = describe_layers(w);
    const PerfConstants k = perf_constants(gpu, w.framework);
    for (int mb : {1, 2}) {
      w.layout.micro_batch = mb;
      const MemoryEstimate fresh = estimate_memory(w, gpu);
      const MemoryEstimate reused = estimate_memory(w, gpu, {}, layers);
      EXPECT_EQ(fresh.total(), reused.total()) << id;
      EXPECT_EQ(estimate_step(w, server, gpu, c.find_fabric("ib-ndr"), k, fresh).step_s,
                estimate_step(w, server, gpu, c.find_fabric("ib-ndr"), k, reused, layers).step_s)
          << id;
    }
  }
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// The Megatron-Core rows train through TEGroupedMLP; AutoModel, DeepSpeed
// and serving do not.
TEST(Layer, McoreExpertsFollowTheFramework) {
  Workload w;
  w.model = *io::builtin_catalog().find_model("gpt-oss-120b");
  w.framework = Framework::nemo;
  EXPECT_TRUE(layer_split(w).mcore_experts);
  w.framework = Framework::megatron;
  EXPECT_TRUE(layer_split(w).mcore_experts);
  for (Framework f : {Framework::automodel, Framework::deepspeed, Framework::torchtitan}) {
    w.framework = f;
    EXPECT_FALSE(layer_split(w).mcore_experts) << framework_traits(f).name;
  }
  w.framework = Framework::nemo;
  w.task = Task::inference;
  EXPECT_FALSE(layer_split(w).mcore_experts);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// Elementwise bytes per token and kernels of a description.
std::pair<double, double> elementwise_totals(const LayerOps& ops) {
  std::pair<double, double> t{0, 0};
  for (const LayerOp& op : ops) {
    if (op.kind != OpKind::elementwise) continue;
    t.first += op.bytes_per_token;
    t.second += op.count;
  }
  return t;
}

// Megatron-Core applies GPT-OSS's YaRN RoPE (factor 32, concentration factor
// 0.1 ln 32 + 1 != 1) through its unfused PyTorch path: six kernels of 24
// bytes per element in all on q and on k, where the fused kernel reads and
// writes each element once (4 bytes, one kernel).
TEST(Layer, McoreYarnRopeRunsUnfused) {
  const ModelShape& m = zoo("gpt-oss-120b");
  ASSERT_EQ(m.rope_scaling, "yarn");
  ASSERT_GT(m.rope_scaling_factor, 1);
  LayerSplit s;
  s.training = true;
  const LayerOps fused = describe_layer(m, false, s);  // a dense layer: only RoPE differs
  s.mcore_experts = true;
  const LayerOps unfused = describe_layer(m, false, s);
  const double rotated = m.heads * m.head_size() + m.kv_heads * m.head_size();  // q and k
  EXPECT_EQ(unfused.size, fused.size);
  EXPECT_DOUBLE_EQ(elementwise_totals(unfused).first - elementwise_totals(fused).first,
                   20.0 * rotated);
  EXPECT_DOUBLE_EQ(elementwise_totals(unfused).second - elementwise_totals(fused).second, 11.0);
  // Not Llama 3's scaling, nor a YaRN factor of 1 (concentration factor 1).
  for (const auto& [type, factor] :
       {std::pair<const char*, double>{"llama3", 8.0}, {"yarn", 1.0}}) {
    ModelShape other = m;
    other.rope_scaling = type;
    other.rope_scaling_factor = factor;
    EXPECT_EQ(elementwise_totals(describe_layer(other, false, s)), elementwise_totals(fused))
        << type;
  }
}

// Through the workload: Megatron-Core training only (not other frameworks,
// not serving), and MLA keeps its own fused YaRN kernels.
TEST(Layer, UnfusedRopeFollowsTheFramework) {
  const Catalog& c = io::builtin_catalog();
  Workload w;
  w.model = *c.find_model("gpt-oss-120b");
  auto totals = [&](Framework f, Task t = Task::pretrain) {
    w.framework = f;
    w.task = t;
    return elementwise_totals(describe_layer(w, false));
  };
  const auto nemo = totals(Framework::nemo);
  EXPECT_EQ(totals(Framework::megatron), nemo);
  for (Framework f : {Framework::automodel, Framework::deepspeed, Framework::torchtitan}) {
    EXPECT_DOUBLE_EQ(nemo.second - totals(f).second, 11.0) << framework_traits(f).name;
  }
  EXPECT_DOUBLE_EQ(nemo.second - totals(Framework::nemo, Task::inference).second, 11.0);
  w.model = *c.find_model("deepseek-v3");  // MLA with YaRN 40
  EXPECT_EQ(totals(Framework::nemo), totals(Framework::torchtitan));
}

// The element-wise kernels of a description count in the step's kernels
// (the host launch floor): the unfused RoPE issues 12 forward kernels, not 1.
TEST(Layer, ElementwiseKernelCountsReachTheLayerTimes) {
  const Catalog& c = io::builtin_catalog();
  Workload w;
  w.model = *c.find_model("gpt-oss-120b");
  w.framework = Framework::nemo;
  w.seq_len = 4096;
  const Gpu& b200 = *c.find_gpu("b200");
  const PerfConstants k = perf_constants(b200, w.framework);
  const LayerTimes unfused = layer_times(w, b200, k.compute, false);
  w.framework = Framework::torchtitan;
  const LayerTimes fused = layer_times(w, b200, k.compute, false);
  EXPECT_DOUBLE_EQ(unfused.forward.kernels - fused.forward.kernels, 11.0);
  EXPECT_GT(unfused.forward.elementwise_s, fused.forward.elementwise_s);
}

}  // namespace
}  // namespace scaleout
