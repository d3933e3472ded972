// Hybrid sharding (layout `shard_group`: FSDP HYBRID_SHARD / HSDP, DeepSpeed
// MiCS, SageMaker SMP): the reader's errors, model state sharded by the
// group, the gathers inside the group and the all-reduce across replicas,
// and the validation CSV column.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "memory/memory.hpp"
#include "perf/step.hpp"
#include "workload/checks.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }

// A 16-node A100 ZeRO-3 run written as a workload file, one key per line.
std::string workload(const std::string& framework, const std::string& extra) {
  return "model: llama2-13b\n"  // 1
         "seq_len: 4096\n"      // 2
         "global_batch: 256\n"  // 3
         "framework: " +
         framework +
         "\n"                     // 4
         "layout:\n"              // 5
         "  dp: 128\n"            // 6
         "  zero: 3\n"            // 7
         "  recompute: full\n" +  // 8
         extra +                  // 9...
         "cluster:\n"
         "  server: dgx-a100\n"
         "  nodes: 16\n";
}

io::WorkloadFile read(const std::string& text) {
  return io::read_workload(text, "w.yaml", "", cat(), false);
}

// The InputError of a workload text; fails the test when it reads.
InputError error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", 0, "", "");
}

TEST(HybridShard, ReadFromTheLayout) {
  const io::WorkloadFile wf = read(workload("fsdp", "  shard_group: 8\n"));
  EXPECT_EQ(wf.workload.layout.shard_group, 8);
  EXPECT_EQ(wf.workload.layout.zero_shard_dp(), 8);
  EXPECT_EQ(wf.workload.layout.zero_replicas(), 16);
  // Absent: every data-parallel rank, one replica.
  const Layout plain = read(workload("fsdp", "")).workload.layout;
  EXPECT_EQ(plain.zero_shard_dp(), 128);
  EXPECT_EQ(plain.zero_replicas(), 1);
}

TEST(HybridShard, ErrorsNameFileLineKeyAndTheFix) {
  struct Case {
    std::string framework, extra, message_part, hint_part;
  };
  const Case cases[] = {
      // Not a divisor of dp 128.
      {"fsdp", "  shard_group: 48\n", "does not divide dp 128", "divides the data-parallel"},
      // Megatron-LM has no hybrid sharding in the model.
      {"megatron", "  shard_group: 8\n", "has no hybrid sharding", "deepspeed (MiCS)"},
      // MiCS is ZeRO-3 only.
      {"deepspeed", "  shard_group: 8\n  zero: 2\n", "only at ZeRO stage 3", "zero: 3"},
  };
  for (const Case& c : cases) {
    std::string text = workload(c.framework, c.extra);
    if (c.extra.find("zero: 2") != std::string::npos) {
      text.replace(text.find("  zero: 3\n"), 10, "");
    }
    const InputError e = error_of(text);
    EXPECT_EQ(e.file, "w.yaml") << c.extra;
    EXPECT_EQ(e.key, "layout.shard_group") << c.extra;
    EXPECT_GT(e.line, 0) << c.extra;
    EXPECT_NE(e.message.find(c.message_part), std::string::npos) << e.message;
    EXPECT_NE(e.hint.find(c.hint_part), std::string::npos) << e.hint;
  }
  // Out of range: the table's integer check.
  EXPECT_EQ(error_of(workload("fsdp", "  shard_group: -1\n")).key, "layout.shard_group");
}

TEST(HybridShard, CheckLayoutRules) {
  Workload w = read(workload("fsdp", "  shard_group: 8\n")).workload;
  EXPECT_TRUE(check_layout(w, 128).empty());
  w.layout.zero = 0;
  ASSERT_FALSE(check_layout(w, 128).empty());
  EXPECT_EQ(check_layout(w, 128).front().key, "layout.shard_group");
  Workload moe = w;
  moe.layout.zero = 3;
  moe.model = *cat().find_model("mixtral-8x7b");
  moe.layout.ep = 1;
  const auto problems = check_layout(moe, 128);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().message.find("mixture-of-experts"), std::string::npos);
}

TEST(HybridShard, StateShardsOverTheGroupNotDp) {
  Workload w = read(workload("fsdp", "")).workload;
  const Gpu& gpu = *cat().find_gpu("a100-sxm-80g");
  const MemoryEstimate full = estimate_memory(w, gpu);
  w.layout.shard_group = 32;
  const MemoryEstimate hybrid = estimate_memory(w, gpu);
  // Weights, gradients and optimizer state: 4x those sharded over all 128.
  EXPECT_NEAR(hybrid.peak.optimizer, 4.0 * full.peak.optimizer, 1e-6 * hybrid.peak.optimizer);
  EXPECT_NEAR(hybrid.peak.gradients, 4.0 * full.peak.gradients, 1e-6 * hybrid.peak.gradients);
  EXPECT_NEAR(hybrid.peak.weights, 4.0 * full.peak.weights, 1e-6 * hybrid.peak.weights);
  EXPECT_DOUBLE_EQ(hybrid.peak.activations, full.peak.activations);
  // shard_group equal to dp is plain sharding.
  w.layout.shard_group = 128;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).total(), full.total());
}

TEST(HybridShard, GathersInsideTheGroupAllReduceAcrossReplicas) {
  Workload w = read(workload("fsdp", "")).workload;
  const Server& s = *cat().find_server("dgx-a100");
  const Gpu& g = *cat().find_gpu(s.gpu_id);
  const Fabric* ib = cat().find_fabric("ib-hdr");
  ASSERT_NE(ib, nullptr);
  const PerfConstants k = perf_constants(g, w.framework);
  const LayoutTimes plain = layout_times(w, s, g, ib, k, describe_layers(w));
  EXPECT_EQ(plain.shard_group.nodes, 16);
  EXPECT_EQ(plain.replica_group.size, 1);
  // Sharded within a node: the gathers never leave NVLink; the gradient
  // shards are all-reduced over 16 replicas, one per node.
  w.layout.shard_group = 8;
  const LayoutTimes node = layout_times(w, s, g, ib, k, describe_layers(w));
  EXPECT_EQ(node.shard_group.size, 8);
  EXPECT_EQ(node.shard_group.nodes, 1);
  EXPECT_EQ(node.replica_group.size, 16);
  EXPECT_EQ(node.replica_group.nodes, 16);
  // The gathers on NVLink: no more exposed data-parallel time than over IB.
  const StepEstimate hybrid = estimate_step(w, s, g, ib, k);
  w.layout.shard_group = 0;
  EXPECT_LE(hybrid.breakdown.dp_comm, estimate_step(w, s, g, ib, k).breakdown.dp_comm);
  w.layout.shard_group = 8;
  // Reduced after the backward (dp_overlap false): the replica all-reduce
  // is exposed in the step's data-parallel time.
  w.layout.dp_overlap = false;
  const StepEstimate off = estimate_step(w, s, g, ib, k);
  w.layout.shard_group = 0;
  const StepEstimate off_plain = estimate_step(w, s, g, ib, k);
  EXPECT_GT(off.breakdown.dp_comm, 0.0);
  EXPECT_NE(off.breakdown.dp_comm, off_plain.breakdown.dp_comm);
}

TEST(HybridShard, ValidationColumn) {
  const std::string head =
      "id,group,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,moe_experts,moe_top_k,"
      "seq_len,global_batch,micro_batch,tp,pp,dp,cp,ep,sp,interleave,recompute,zero,finetune,"
      "lora_rank,precision,gpu,num_gpus,gpus_per_node,nics_per_node,nic_gbps,fabric,framework,"
      "metric,value,derivation,cite,shard_group\n";
  const std::string row =
      "r1,g,llama2-13b,,,,,,,,,,4096,256,1,1,1,128,1,1,,1,full,3,full,,bf16,a100-sxm-80g,128,8,"
      ",,,fsdp,step_time_s,10,d,c,";
  const auto rows = io::read_validation_csv(head + row + "8\n", "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].shard_group.has_value());
  EXPECT_EQ(*rows[0].shard_group, 8);
  if (const auto e =
          input_error_of([&] { io::read_validation_csv(head + row + "x\n", "v.csv"); })) {
    EXPECT_EQ(e->file, "v.csv");
    EXPECT_EQ(e->line, 2);
    EXPECT_EQ(e->key, "shard_group");
  }
}

}  // namespace
}  // namespace scaleout
