#include "workload/checks.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

Workload llama70() {
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-70b");  // 64 heads, 8 kv heads, 80 layers
  w.seq_len = 8192;
  return w;
}

TEST(Checks, LegalLayoutHasNoProblems) {
  Workload w = llama70();
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 4;
  w.layout.interleave = 5;
  w.global_batch = 64;
  EXPECT_TRUE(check_layout(w, 128).empty());
}

TEST(Checks, EachRuleNamesItsKey) {
  struct Case {
    void (*edit)(Workload&);
    long long gpus;
    const char* key;
  };
  const Case cases[] = {
      {[](Workload& w) { w.layout.tp = 3; }, 0, "layout.tp"},
      {[](Workload& w) { w.layout.pp = 81; }, 0, "layout.pp"},
      {[](Workload& w) { w.layout.interleave = 2; }, 0, "layout.interleave"},
      {[](Workload& w) {
         w.layout.pp = 4;
         w.layout.interleave = 21;  // 84 chunks for 80 layers
       },
       0, "layout.interleave"},
      {[](Workload& w) { w.layout.cp = 3; }, 0, "layout.cp"},
      {[](Workload& w) { w.layout.ep = 2; }, 0, "layout.ep"},
      {[](Workload& w) {
         w.global_batch = 10;
         w.layout.dp = 4;
       },
       0, "global_batch"},
      {[](Workload& w) { w.layout.dp = 3; }, 8, "layout"},
  };
  for (const Case& c : cases) {
    Workload w = llama70();
    c.edit(w);
    const auto problems = check_layout(w, c.gpus);
    ASSERT_FALSE(problems.empty()) << c.key;
    EXPECT_EQ(problems[0].key, c.key);
    EXPECT_FALSE(problems[0].hint.empty());
  }
}

TEST(Checks, TensorParallelBeyondKvHeadsReplicatesThem) {
  // 8 kv heads: tp 16 is a multiple (kv heads replicated), tp 8 divides.
  Workload w = llama70();
  w.layout.tp = 16;
  EXPECT_TRUE(check_layout(w, 0).empty());
}

TEST(Checks, MegatronCoreInterleaveNeedsEqualChunks) {
  // Megatron-LM README H100 462B row: 112 layers, pp 16 -> 7 layers per
  // stage; Megatron-Core builds 7 / v layers per chunk and asserts v | 7
  // (core_r0.8.0 arguments.py L267; d98e8a6 transformer_block.py L175-178).
  Workload w = llama70();
  w.model.layers = 112;
  w.layout.tp = 8;
  w.layout.pp = 16;
  w.layout.dp = 1;
  w.global_batch = 64;
  for (Framework f : {Framework::megatron, Framework::nemo}) {
    w.framework = f;
    w.layout.interleave = 7;  // 1 layer per chunk: legal
    EXPECT_TRUE(check_layout(w, 0).empty()) << to_string(f);
    w.layout.interleave = 6;  // 7 / 6: illegal, though 96 chunks <= 112 layers
    const auto problems = check_layout(w, 0);
    ASSERT_FALSE(problems.empty()) << to_string(f);
    EXPECT_EQ(problems[0].key, "layout.interleave");
    EXPECT_NE(problems[0].message.find("7 layers per stage"), std::string::npos)
        << problems[0].message;
  }
  // 92 layers on pp 4 (the README's 119B): 23 per stage, even interleave 2 refused ...
  w.framework = Framework::megatron;
  w.model.layers = 92;
  w.layout.pp = 4;
  w.layout.interleave = 2;
  ASSERT_FALSE(check_layout(w, 0).empty());
  // ... but legal with first/last sizes in multiples of 2 (22 + 2 x 24 + 22 = 92).
  w.layout.first_stage_layers = 22;
  w.layout.last_stage_layers = 22;
  EXPECT_TRUE(check_layout(w, 0).empty());
  // Layers that do not divide over pp at all (90 on pp 4) with interleave.
  w.layout.first_stage_layers = w.layout.last_stage_layers = 0;
  w.model.layers = 90;
  const auto uneven = check_layout(w, 0);
  ASSERT_FALSE(uneven.empty());
  EXPECT_NE(uneven[0].message.find("do not divide over pp 4"), std::string::npos);
  // torchtitan (torch.distributed.pipelining) and in-house engines may
  // differ by a layer per chunk: still legal there.
  for (Framework f : {Framework::torchtitan, Framework::other}) {
    w.framework = f;
    w.layout.tp = 1;
    EXPECT_TRUE(check_layout(w, 0).empty()) << to_string(f);
  }
}

TEST(Checks, ExpertParallelNeedsDividingExperts) {
  Workload w;
  w.model = *io::builtin_catalog().find_model("mixtral-8x7b");
  w.layout.dp = 8;
  w.layout.ep = 8;
  EXPECT_TRUE(check_layout(w, 0).empty());
  w.layout.ep = 3;
  ASSERT_FALSE(check_layout(w, 0).empty());
  EXPECT_EQ(check_layout(w, 0)[0].message, "ep 3 does not divide the model's 8 experts");
}

// check_fixed_layout (plan): a rule is raised only when every value it reads is fixed.
TEST(Checks, FixedLayoutRaisesOnlyRulesWhoseValuesAreAllFixed) {
  Workload w = llama70();  // 64 heads, 8 kv heads, 80 layers, seq_len 8192
  w.global_batch = 64;
  w.layout.tp = 3;
  FixedLayoutKeys fixed;
  EXPECT_TRUE(check_fixed_layout(w, fixed).empty());  // tp searched: nothing to say
  fixed.keys.add(LayoutKey::tp);
  auto problems = check_fixed_layout(w, fixed);
  ASSERT_EQ(problems.size(), 2u);  // 64 % 3 != 0, and 8 % 3, 3 % 8 != 0
  EXPECT_EQ(problems[0].key, "layout.tp");
  EXPECT_EQ(problems[0].message, "tp 3 does not divide the model's 64 attention heads");
}

TEST(Checks, FixedInterleaveWithPpSearchedNeedsTwoStagesOfChunks) {
  Workload w = llama70();
  FixedLayoutKeys fixed;
  fixed.keys.add(LayoutKey::interleave);
  w.layout.interleave = 40;  // pp 2 x 40 = 80 chunks for 80 layers: legal at pp 2
  EXPECT_TRUE(check_fixed_layout(w, fixed).empty());
  w.layout.interleave = 41;  // 82 chunks at the smallest pp, 2
  const auto problems = check_fixed_layout(w, fixed);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "layout.interleave");
}

TEST(Checks, FixedDegreesMustDivideAFixedClusterSize) {
  Workload w = llama70();
  FixedLayoutKeys fixed;
  fixed.keys.add(LayoutKey::tp);
  fixed.keys.add(LayoutKey::pp);
  w.layout.tp = 8;
  w.layout.pp = 4;
  EXPECT_TRUE(check_fixed_layout(w, fixed).empty());  // node count searched
  fixed.cluster_gpus = 64;                            // 32 divides 64: dp 2 is left
  EXPECT_TRUE(check_fixed_layout(w, fixed).empty());
  fixed.cluster_gpus = 48;  // 48 % 32 != 0
  auto problems = check_fixed_layout(w, fixed);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "layout");
  EXPECT_EQ(problems[0].message, "tp 8 x pp 4 = 32 does not divide the cluster's 48 GPUs");
  // All four fixed: the product is the cluster size.
  fixed.cluster_gpus = 64;
  fixed.keys.add(LayoutKey::dp);
  fixed.keys.add(LayoutKey::cp);
  w.layout.dp = 1;
  problems = check_fixed_layout(w, fixed);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].message, "tp 8 x pp 4 x dp 1 x cp 1 = 32 GPUs, but the cluster has 64");
}

TEST(Checks, FixedDpAgainstOneGlobalBatchOnly) {
  Workload w = llama70();
  w.global_batch = 64;
  w.layout.dp = 3;
  FixedLayoutKeys fixed;
  fixed.keys.add(LayoutKey::dp);
  ASSERT_EQ(check_fixed_layout(w, fixed).size(), 1u);
  EXPECT_EQ(check_fixed_layout(w, fixed)[0].key, "global_batch");
  fixed.one_global_batch = false;  // a list: each value is a search cell
  EXPECT_TRUE(check_fixed_layout(w, fixed).empty());
}

TEST(Checks, FixedLayoutAgreesWithCheckLayoutWhenEverythingIsFixed) {
  // Each rule of EachRuleNamesItsKey is also a fixed-layout rule once all is fixed.
  FixedLayoutKeys all;
  for (const LayoutDim& d : layout_dims()) all.keys.add(d.key);
  for (void (*edit)(Workload&) : {
           +[](Workload& w) { w.layout.tp = 3; },
           +[](Workload& w) { w.layout.pp = 81; },
           +[](Workload& w) { w.layout.interleave = 2; },
           +[](Workload& w) { w.layout.cp = 3; },
           +[](Workload& w) { w.layout.ep = 2; },
           +[](Workload& w) {
             w.global_batch = 10;
             w.layout.dp = 4;
           },
       }) {
    Workload w = llama70();
    edit(w);
    const auto expected = check_layout(w, 0);
    const auto got = check_fixed_layout(w, all);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0].key, expected[0].key);
    EXPECT_EQ(got[0].message, expected[0].message);
  }
}

TEST(Checks, CheapRecomputeModulesAreLegalAndModelSpecific) {
  auto bit = [](RecomputeModule m) { return module_bit(m); };
  Workload w;
  w.model = *io::builtin_catalog().find_model("deepseek-v3");
  w.framework = Framework::megatron;
  w.layout.ep = 8;
  w.layout.dp = 8;
  // MLA and experts, bf16: core_attn + moe_act + layernorm + mla_up_proj.
  const RecomputeModules all = kDefaultRecomputeModules | bit(RecomputeModule::moe_act) |
                               bit(RecomputeModule::layernorm) | bit(RecomputeModule::mla_up_proj);
  EXPECT_EQ(cheap_recompute_modules(w), all);
  w.layout.recompute = Recompute::selective;
  w.layout.recompute_modules = all;
  EXPECT_TRUE(check_layout(w, 0).empty());
  // FP8 under Megatron-Core: delayed scaling refuses moe_act and layernorm.
  w.precision = Precision::fp8;
  EXPECT_EQ(cheap_recompute_modules(w),
            kDefaultRecomputeModules | bit(RecomputeModule::mla_up_proj));
  ASSERT_EQ(check_layout(w, 0).size(), 1u);
  EXPECT_EQ(check_layout(w, 0)[0].key, "layout.recompute_modules");
  w.layout.recompute_modules = cheap_recompute_modules(w);
  EXPECT_TRUE(check_layout(w, 0).empty());
  // A dense model without MLA: the default; torchtitan: the default.
  EXPECT_EQ(cheap_recompute_modules(llama70()), kDefaultRecomputeModules);
  w.precision = Precision::bf16;
  w.framework = Framework::torchtitan;
  EXPECT_EQ(cheap_recompute_modules(w), kDefaultRecomputeModules);
  // Modules without selective recompute, or the model lacks them.
  Workload d = llama70();
  d.layout.recompute = Recompute::full;
  d.layout.recompute_modules = bit(RecomputeModule::mlp);
  ASSERT_FALSE(check_layout(d, 0).empty());
  EXPECT_EQ(check_layout(d, 0)[0].key, "layout.recompute_modules");
  d.layout.recompute = Recompute::selective;
  EXPECT_TRUE(check_layout(d, 0).empty());
  // Megatron-DeepSpeed has no module list: refused, and not searched.
  const Framework was = d.framework;
  d.framework = Framework::deepspeed;
  ASSERT_FALSE(check_layout(d, 0).empty());
  EXPECT_EQ(check_layout(d, 0)[0].key, "layout.recompute_modules");
  EXPECT_EQ(cheap_recompute_modules(d), kDefaultRecomputeModules);
  // The 2021 engine is the same fork (its `deepspeed_engine` column).
  d.framework = Framework::megatron_deepspeed_2021;
  ASSERT_FALSE(check_layout(d, 0).empty());
  EXPECT_EQ(check_layout(d, 0)[0].key, "layout.recompute_modules");
  EXPECT_EQ(cheap_recompute_modules(d), kDefaultRecomputeModules);
  d.framework = was;
  d.layout.recompute_modules = bit(RecomputeModule::moe_act);
  EXPECT_FALSE(check_layout(d, 0).empty());
  EXPECT_FALSE(layout_legal(d, 0));
}

}  // namespace
}  // namespace scaleout
