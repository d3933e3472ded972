#include "memory/memory.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"
#include "model/layer.hpp"
#include "model/params.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {
namespace {

// A GPT layer as in Korthikanti et al. 2022: f = 4h, dropout, no FlashAttention.
Workload korthikanti(int tp, bool sp, Recompute rc) {
  Workload w;
  w.model.layers = 4;
  w.model.hidden = 6144;
  w.model.heads = 64;
  w.model.kv_heads = 64;
  w.model.ffn = 4 * 6144;
  w.model.vocab = 51200;
  w.model.mlp = MlpKind::gelu;
  w.model.dropout = true;
  w.seq_len = 2048;
  w.framework = Framework::megatron;
  w.layout.tp = tp;
  w.layout.sp = sp;
  w.layout.micro_batch = 4;
  w.layout.recompute = rc;
  w.layout.flash_attention = false;
  return w;
}

constexpr double s = 2048, b = 4, h = 6144, a = 64;

TEST(Activations, KorthikantiNoParallelism) {
  // s*b*h*(34 + 5*a*s/h) bytes per layer.
  const Workload w = korthikanti(1, false, Recompute::none);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h * (34 + 5 * a * s / h));
}

TEST(Activations, KorthikantiTensorParallel) {
  // s*b*h*(10 + 24/t + 5*a*s/(h*t)).
  const double t = 8;
  const Workload w = korthikanti(8, false, Recompute::none);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false),
                   s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
}

TEST(Activations, KorthikantiTensorAndSequenceParallel) {
  // s*b*h/t*(34 + 5*a*s/h).
  const double t = 8;
  const Workload w = korthikanti(8, true, Recompute::none);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h / t * (34 + 5 * a * s / h));
}

TEST(Activations, KorthikantiSelectiveRecompute) {
  // s*b*h/t*34: the attention core is recomputed.
  const double t = 8;
  const Workload w = korthikanti(8, true, Recompute::selective);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h / t * 34);
}

TEST(Activations, TransformerEngineFp8StoresGemmInputsInOneByte) {
  // Of the 34 sbh/t, the QKV input (2), the output projection input (2), the
  // fc1 input (2) and the fc2 input (8, f = 4h) are FP8-cast GEMM inputs:
  // half of 14 is saved, leaving 27 sbh/t.
  const double t = 8;
  Workload w = korthikanti(8, true, Recompute::selective);
  w.precision = Precision::fp8;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h / t * 27);
  w.framework = Framework::nemo;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h / t * 27);
  // Full recomputation keeps only the 16-bit layer input.
  w.layout.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), 2 * s * b * h / t);
  // Other FP8 stacks are not credited with the saving.
  w.layout.recompute = Recompute::selective;
  w.framework = Framework::torchtitan;
  w.layout.flash_attention = true;
  const double fp8 = activation_bytes_per_layer(w, false);
  w.precision = Precision::bf16;
  EXPECT_DOUBLE_EQ(fp8, activation_bytes_per_layer(w, false));
}

TEST(Activations, KorthikantiFullRecompute) {
  // Only the layer input: 2*s*b*h, divided by t with SP.
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(korthikanti(8, false, Recompute::full), false),
                   2 * s * b * h);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(korthikanti(8, true, Recompute::full), false),
                   2 * s * b * h / 8);
}

TEST(Activations, FlashAttentionStoresNoScores) {
  // FlashAttention keeps Q, K, V, the output and an fp32 log-sum-exp per head:
  // 34*s*b*h (dropout masks included) + 4*a*s*b.
  Workload w = korthikanti(1, false, Recompute::none);
  w.layout.flash_attention = true;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), s * b * h * 34 + 4 * a * s * b);
}

TEST(Activations, SwigluGqaWithoutDropout) {
  // Llama 3 8B layer, no dropout, FlashAttention, selective: per token
  // 2h (norm in) + 2h (QKV in) + 2h (Q) + 2*2*1024 (K,V) + 4a (lse) + 2h (O in)
  // + 2h (norm in) + 2h (MLP in) + 3*2*14336 (gate, up, product).
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.seq_len = 8192;
  w.layout.micro_batch = 1;
  w.layout.recompute = Recompute::selective;
  const double per_token = 6 * 2 * 4096.0 + 4 * 1024.0 + 4 * 32.0 + 6 * 14336.0;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), 8192 * per_token);
  // FP8 under Megatron-LM: QKV, O and MLP inputs 1 byte each (3h saved) and
  // the SwiGLU product 1 byte (14336 saved); gate and up stay 16-bit.
  w.framework = Framework::megatron;
  w.precision = Precision::fp8;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), 8192 * (per_token - 3 * 4096.0 - 14336.0));
  // LoRA on the same layer: the adapters keep the 16-bit inputs.
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::lora;
  w.finetune.rank = 16;
  const double lora_fp8 = activation_bytes_per_layer(w, false);
  w.precision = Precision::bf16;
  EXPECT_DOUBLE_EQ(lora_fp8, activation_bytes_per_layer(w, false));
}

// Selective recompute of named modules (Megatron-Core --recompute-modules):
// each frees the tensors its checkpoint drops.
RecomputeModules with(RecomputeModule m) { return kDefaultRecomputeModules | module_bit(m); }

TEST(Activations, SelectiveMlpModuleFreesTheDenseMlp) {
  // Llama 3 8B (as above): mlp recompute frees the MLP input (2h, the fused
  // norm's output), gate, up and product (3*2*14336); the norm's input stays
  // as the checkpoint's input.
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.seq_len = 8192;
  w.layout.micro_batch = 1;
  w.layout.recompute = Recompute::selective;
  const double base = activation_bytes_per_layer(w, false);
  w.layout.recompute_modules = with(RecomputeModule::mlp);
  EXPECT_DOUBLE_EQ(base - activation_bytes_per_layer(w, false), 8192 * (2 * 4096.0 + 6 * 14336.0));
  // layernorm: the dense layer's norms are fused into QKV and FC1 under
  // Transformer Engine, so nothing is freed.
  w.layout.recompute_modules = with(RecomputeModule::layernorm);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), base);
}

TEST(Activations, SelectiveModulesOfDeepSeekV3) {
  // DeepSeek-V3, tp 1, ep 8, bf16, seq 4096: per token (h 7168, 128 heads,
  // q/k head 128 + 64, v head 128, expert FFN 2048, top-8).
  Workload w;
  w.model = *io::builtin_catalog().find_model("deepseek-v3");
  w.framework = Framework::megatron;
  w.seq_len = 4096;
  w.layout.micro_batch = 1;
  w.layout.ep = 8;
  w.layout.dp = 8;
  w.layout.recompute = Recompute::selective;
  const double T = 4096;
  const double base_moe = activation_bytes_per_layer(w, true);
  const double base_dense = activation_bytes_per_layer(w, false);
  auto freed = [&](RecomputeModule m, bool moe) {
    w.layout.recompute_modules = with(m);
    const double x = activation_bytes_per_layer(w, moe);
    w.layout.recompute_modules = kDefaultRecomputeModules;
    return (moe ? base_moe : base_dense) - x;
  };
  // mla_up_proj: queries 128*192 and keys and values 128*(192 + 128), 2 B each.
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::mla_up_proj, true), T * 2 * 128 * (192 + 320.0));
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::mla_up_proj, false), T * 2 * 128 * (192 + 320.0));
  // layernorm: MLA's projection input (2h) and, in a MoE layer, the router
  // input (2h); the dense layer's pre-MLP norm is fused into FC1.
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::layernorm, true), T * 2 * 2 * 7168.0);
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::layernorm, false), T * 2 * 7168.0);
  // moe_act: the routed experts' FC2 input, top_k x load rows of
  // 2048, 2 B each.
  const LayerOps ops = describe_layer(w, true);
  const double rows = 8 * ops.expert_load;
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::moe_act, true), T * 2 * rows * 2048);
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::moe_act, false), 0.0);
  // shared_experts: one shared expert's FC1, gate and FC2 input, 3*2*2048.
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::shared_experts, true), T * 3 * 2 * 2048.0);
  // moe frees all of those (and the router's and dispatch's) but keeps its
  // input, the router input that layernorm frees.
  const double moe = freed(RecomputeModule::moe, true);
  EXPECT_GT(moe, freed(RecomputeModule::moe_act, true) + T * 3 * 2 * 2048.0);
  w.layout.recompute_modules = with(RecomputeModule::moe) | module_bit(RecomputeModule::moe_act);
  EXPECT_DOUBLE_EQ(base_moe - activation_bytes_per_layer(w, true), moe);  // freed once
  // mlp frees the dense layers' MLP only.
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::mlp, true), 0.0);
  EXPECT_DOUBLE_EQ(freed(RecomputeModule::mlp, false), T * (2 * 7168.0 + 3 * 2 * 18432.0));
}

TEST(Activations, TorchtitanOpLevelSelectiveKeepsEverySecondMatmul) {
  // Layer input 2h, attention output 2h + lse 4a, and wq (2h), wv (2*1024),
  // w1 (2f), w2 (2h) of the seven matmul outputs.
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.framework = Framework::torchtitan;
  w.seq_len = 8192;
  w.layout.recompute = Recompute::selective;
  const double per_token =
      2 * 4096.0 + 2 * 4096.0 + 4 * 32.0 + 2 * 4096.0 + 2 * 1024.0 + 2 * 14336.0 + 2 * 4096.0;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(w, false), 8192 * per_token);
}

TEST(PartialRecompute, TheRecomputedShareCountsLayersPerModelChunk) {
  Layout ly;
  ly.recompute = Recompute::full;
  StageLayers st;
  st.layers = 16;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 1.0);  // 0: every layer
  ly.recompute_layers = 4;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 0.25);
  ly.recompute_layers = 40;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 1.0);
  // Interleaved pipeline: 16 layers in 4 chunks of 4; 2 of each chunk.
  st.chunks = 4;
  ly.recompute_layers = 2;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 0.5);
  // Uneven chunks: 7 layers in chunks of 4 and 3; 3 of each: 3 + 3 = 6 of 7.
  st.layers = 7;
  st.chunks = 2;
  ly.recompute_layers = 3;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 6.0 / 7.0);
  ly.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(recomputed_share(ly, st), 0.0);
}

TEST(PartialRecompute, MemoryLiesBetweenNoneAndFullAndFallsAsMoreLayersAreRecomputed) {
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-70b");
  w.seq_len = 8192;
  w.global_batch = 64;
  w.framework = Framework::megatron;
  w.layout.tp = 8;
  w.layout.sp = true;
  w.layout.pp = 4;  // 20 layers per stage
  w.layout.dp = 2;
  w.layout.zero = 1;
  auto peak_activations = [&](Recompute rc, int n) {
    w.layout.recompute = rc;
    w.layout.recompute_layers = n;
    return estimate_memory(w, gpu).peak.activations;
  };
  const double none = peak_activations(Recompute::none, 0);
  const double full = peak_activations(Recompute::full, 0);
  double previous = none;
  for (int n = 1; n < 20; ++n) {
    const double partial = peak_activations(Recompute::full, n);
    EXPECT_LT(partial, previous) << n;
    EXPECT_GT(partial, full) << n;
    previous = partial;
  }
  EXPECT_DOUBLE_EQ(peak_activations(Recompute::full, 20), full);
}

TEST(FsdpUnderPipeline, TorchtitanKeepsTheStageGatheredAndItsGradientsUnshardedInFp32) {
  // Llama 3 8B, FSDP 4 x PP 2 under torchtitan: each stage's 16 layers stay
  // gathered (2 B/param) and their gradients accumulate unsharded in fp32
  // (4 B/param) across the micro-batches; without a pipeline FSDP holds two
  // layers' weights and one layer's gradients.
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.seq_len = 8192;
  w.global_batch = 32;
  w.framework = Framework::torchtitan;
  w.layout.dp = 4;
  w.layout.zero = 3;
  w.layout.recompute = Recompute::full;
  w.layout.pp = 2;
  const MemoryEstimate piped = estimate_memory(w, gpu);
  // One layer's weights on one GPU (tp 1), as the layer description counts them.
  const double per_layer = local_layer_params(describe_layers(w).dense);
  EXPECT_GE(piped.peak.buffers, 16 * per_layer * (2.0 + 4.0));
  // NeMo AutoModel (FSDP2 as well, no such trait) keeps the per-layer buffers.
  w.framework = Framework::automodel;
  const MemoryEstimate other = estimate_memory(w, gpu);
  EXPECT_LT(other.peak.buffers, 4 * per_layer * 4.0);
}

// A model of P parameters trained with DeepSpeed ZeRO on 64 GPUs.
Workload zero_workload(int stage) {
  Workload w;
  w.model = *io::builtin_catalog().find_model("gpt-7.5b");
  w.framework = Framework::deepspeed;
  w.layout.dp = 64;
  w.layout.zero = stage;
  w.layout.recompute = Recompute::full;
  return w;
}

double model_state(const MemoryEstimate& e) {
  return e.peak.weights + e.peak.gradients + e.peak.optimizer;
}

TEST(ModelState, ZeroPaperSixteenBytesPerParameterAndItsShards) {
  // Rajbhandari et al. 2020 Fig. 1, psi = 7.5B, N_d = 64: 120 GB, 31.4 GB (P_os),
  // 16.6 GB (P_os+g), 1.9 GB (P_os+g+p). Here psi is the zoo's 7.47B.
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const double psi = count_params(zero_workload(0).model).total();
  EXPECT_NEAR(model_state(estimate_memory(zero_workload(0), gpu)), 16 * psi, 1e-6 * psi);
  EXPECT_NEAR(model_state(estimate_memory(zero_workload(1), gpu)), 4 * psi + 12 * psi / 64,
              1e-6 * psi);
  EXPECT_NEAR(model_state(estimate_memory(zero_workload(2), gpu)), 2 * psi + 14 * psi / 64,
              1e-6 * psi);
  EXPECT_NEAR(model_state(estimate_memory(zero_workload(3), gpu)), 16 * psi / 64, 1e-6 * psi);
  // The paper's figures for psi = 7.5e9: 16*psi = 120 GB, 4*psi + 12*psi/64 = 31.4 GB.
  EXPECT_NEAR(4 * 7.5e9 + 12 * 7.5e9 / 64, 31.4e9, 0.05e9);
}

TEST(ModelState, MegatronEighteenBytesAndDistributedOptimizer) {
  // Megatron-LM docs/distrib_optimizer.md: bf16 params + fp32 grads = 18 B/param,
  // distributed optimizer 6 + 12/d.
  Workload w = zero_workload(0);
  w.framework = Framework::megatron;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const double psi = count_params(w.model).total();
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), 18 * psi, 1e-6 * psi);
  w.layout.zero = 1;
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), 6 * psi + 12 * psi / 64, 1e-6 * psi);
  // The same table's fp16 row: fp16 params + fp16 grads = 20 B/param,
  // distributed optimizer 4 + 16/d; the gradients reduced are fp16.
  w.precision = Precision::fp16;
  EXPECT_DOUBLE_EQ(state_policy(w).grad_bytes, 2.0);
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), 4 * psi + 16 * psi / 64, 1e-6 * psi);
  w.layout.zero = 0;
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), 20 * psi, 1e-6 * psi);
}

TEST(ModelState, TransformerEngineFp8KeepsWeightCopiesUnlessParamsAreFp8) {
  // FP8 under Megatron-LM: an FP8 copy and its transpose of every layer
  // weight, 2 B on top of the 18 B/param; embeddings and norms stay 16-bit.
  Workload w = zero_workload(0);
  w.framework = Framework::megatron;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  const double psi = count_params(w.model).total();
  const ModelShape& m = w.model;
  const double linears = m.layers * (attention_params_per_layer(m) + mlp_params_per_layer(m));
  w.precision = Precision::fp8;
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), 18 * psi + 2 * linears, 1e-6 * psi);
  // --fp8-param-gather: the FP8 weights replace the 16-bit copy (18 B/param).
  w.layout.zero = 1;
  const double dist = 6 * psi + 12 * psi / 64;
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), dist + 2 * linears, 1e-6 * psi);
  w.layout.fp8_param_gather = true;
  EXPECT_NEAR(model_state(estimate_memory(w, gpu)), dist, 1e-6 * psi);
  // Other frameworks' FP8 keeps no such copies in this model.
  w.layout.fp8_param_gather = false;
  w.framework = Framework::torchtitan;
  w.precision = Precision::bf16;
  const double bf16 = model_state(estimate_memory(w, gpu));
  w.precision = Precision::fp8;
  EXPECT_DOUBLE_EQ(model_state(estimate_memory(w, gpu)), bf16);
}

TEST(ModelState, LoraTrainsOnlyTheAdapters) {
  // Llama 3 8B, rank 16 on q,k,v,o and gate/up/down: per layer
  // 16*(4096+4096)*2 + 16*(4096+1024)*2 + 3*16*(4096+14336) = 1,310,720; x32 = 41,943,040.
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::lora;
  w.finetune.rank = 16;
  w.framework = Framework::fsdp;
  w.layout.recompute = Recompute::full;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  const MemoryEstimate e = estimate_memory(w, gpu);
  EXPECT_DOUBLE_EQ(e.peak.trainable_params, 41943040.0);
  // Frozen base in bf16 (2 B/param) plus the fp32 adapters (4 B/param).
  const double base = count_params(w.model).total();
  EXPECT_NEAR(e.peak.weights, 2 * base + 4 * 41943040.0, 1.0);
  // Gradients and Adam state only for the adapters: 4 + 8 bytes each.
  EXPECT_DOUBLE_EQ(e.peak.gradients, 4 * 41943040.0);
  EXPECT_DOUBLE_EQ(e.peak.optimizer, 8 * 41943040.0);
}

TEST(ModelState, LitgptNoSyncKeepsEveryBlocksGradientUnsharded) {
  // Lit-GPT LoRA on 2 GPUs under FSDP (zero 3) accumulating 64 micro-batches
  // per GPU: FSDP1 no_sync() with use_orig_params=True keeps each block's
  // whole gradient (frozen weights included) unsharded, in bf16 (bf16-true).
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::lora;
  w.finetune.rank = 8;
  w.framework = Framework::litgpt;
  w.layout.dp = 2;
  w.layout.zero = 3;
  w.layout.recompute = Recompute::full;
  w.global_batch = 128;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const MemoryEstimate e = estimate_memory(w, gpu);
  const ModelShape& m = w.model;
  const double blocks = m.layers * (attention_params_per_layer(m) + mlp_params_per_layer(m) +
                                    2.0 * static_cast<double>(m.hidden));
  EXPECT_NEAR(e.peak.gradients, 2.0 * (blocks + e.peak.trainable_params), 1e-3 * blocks);
  // One micro-batch per step (no accumulation): only the adapters' shards.
  w.global_batch = 2;
  const MemoryEstimate one = estimate_memory(w, gpu);
  EXPECT_DOUBLE_EQ(one.peak.gradients, 2.0 * one.peak.trainable_params / 2);
  // A framework without the trait (torchtune, also bf16 and FSDP) shards them.
  w.global_batch = 128;
  w.framework = Framework::torchtune;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.gradients, 2.0 * e.peak.trainable_params / 2);
}

TEST(ModelState, QloraStoresNf4WithItsScales) {
  // NF4 with double quantisation: 0.5 + 1/64 + 4/(64*256) bytes per weight for
  // the transformer-block linears; embeddings, output and norms stay bf16.
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-70b");
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::qlora;
  w.finetune.rank = 16;
  w.framework = Framework::fsdp;
  w.layout.recompute = Recompute::full;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  const MemoryEstimate e = estimate_memory(w, gpu);
  const ModelShape& m = w.model;
  const double linears = m.layers * (attention_params_per_layer(m) + mlp_params_per_layer(m));
  const double other = count_params(m).total() - linears;
  const double nf4 = 0.5 + 1.0 / 64 + 4.0 / (64 * 256);
  EXPECT_NEAR(e.peak.weights, linears * nf4 + other * 2 + 4 * e.peak.trainable_params, 1.0);
  // 70B in 4 bits is about 36 GiB: one 80 GB GPU holds it.
  EXPECT_LT(e.peak.weights, 40.0 * 1024 * 1024 * 1024);
}

// 32 layers of the Korthikanti GPT on pp 4, 64 sequences per step.
Workload pp4_32_layers() {
  Workload w = korthikanti(8, true, Recompute::selective);
  w.model.layers = 32;
  w.layout.pp = 4;
  w.global_batch = 64;
  return w;
}

TEST(Pipeline, FirstStageHoldsPMicrobatches) {
  // 1F1B: stage 0 keeps p micro-batches of L/p layers in flight (Korthikanti §4.2.3).
  Workload w = pp4_32_layers();
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const MemoryEstimate e = estimate_memory(w, gpu);
  EXPECT_EQ(e.peak.stage, 0);
  EXPECT_DOUBLE_EQ(e.peak.microbatches_in_flight, 4.0);
  // Interleaving with v = 2 multiplies by 1 + (p-1)/(p*v) = 1.375.
  w.layout.interleave = 2;
  const MemoryEstimate ei = estimate_memory(w, gpu);
  EXPECT_DOUBLE_EQ(ei.peak.microbatches_in_flight, 4.0 * 1.375);
  // Megatron-Core's interleaved warm-up: rank s runs 2 (p - s - 1) + (v - 1) p
  // forward chunks first. With v = 4, p = 4: stage 0 holds 6 + 12 + 1 = 19
  // chunks (4.75 stage micro-batches); with only m = 4 micro-batches every
  // forward runs first: m v = 16 chunks, 4 stage micro-batches.
  w.layout.interleave = 4;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 19.0 / 4.0);
  w.global_batch = 4LL * w.layout.micro_batch * w.layout.dp;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 4.0);
}

TEST(Pipeline, UnequalChunksCountTheLayersOfTheChunksInFlight) {
  // 28 layers on pp 4, v 2: every rank holds 7 layers as chunks of 4 and 3;
  // m = 64 / 4 = 16 micro-batches. Megatron-Core's schedule table runs, per
  // group of p = 4 micro-batches, chunk 0 four times then chunk 1 four times
  // (forward layers 4 4 4 4 3 3 3 3, repeated), and the backward passes the
  // same table with the chunk reversed (3 3 3 3 4 4 4 4, ...). Rank 0's
  // warm-up is 2 x 3 + 1 x 4 = 10 forwards: 4 x 4 + 4 x 3 + 2 x 4 = 36
  // layers. Steady state, forward then backward: 36 + 4 = 40, - 3 = 37;
  // + 4 = 41, - 3; + 3 = 41, - 3; + 3 = 41, - 3; + 3 = 41, - 4; ... the peak is
  // 41 layer-micro-batches, 41 / 7 stage micro-batches (the equal-chunk
  // formula (W + 1) / v = 5.5 would give 38.5 layers).
  Workload w = pp4_32_layers();
  w.model.layers = 28;
  w.layout.interleave = 2;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const MemoryEstimate e = estimate_memory(w, gpu);
  EXPECT_EQ(e.peak.stage, 0);
  EXPECT_DOUBLE_EQ(e.peak.microbatches_in_flight, 41.0 / 7.0);
  // The same every p v = 8 steps while whole groups run: m = 64, still 41.
  w.global_batch = 64LL * w.layout.micro_batch;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 41.0 / 7.0);
  // m = 6: a last group of 2 < p is refused by Megatron-Core, so one group
  // of 6 (interleave_group_size): the warm-up 2 x 3 + 6 = 12 covers every
  // pass, 6 x (4 + 3) = 42 layers, 6 stage micro-batches.
  w.global_batch = 6LL * w.layout.micro_batch;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 6.0);
  // m = 14: groups of 5, 5 and a last group of 4 (forward 4 x5, 3 x5, 4 x5,
  // 3 x5, 4 x4, 3 x4). Warm-up 2 x 3 + 5 = 11 passes, 39 layers; each
  // steady step adds a 4-layer forward and frees a 3-layer backward: 43,
  // 44, 45, 46, the peak, 46 / 7 (a replay of the whole order agrees).
  w.global_batch = 14LL * w.layout.micro_batch;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 46.0 / 7.0);
  w.global_batch = 64;
  // 32 layers: chunks of 4 and 4, the closed form (2 x 3 + 4 + 1) / 2 = 5.5.
  w.model.layers = 32;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 5.5);
}

TEST(Pipeline, MicrobatchGroupsWherePpDoesNotDivideTheMicrobatches) {
  // pp 4, v 2, m = 10: Megatron-Core refuses groups of p = 4 (the last group
  // would hold 2 < p); groups of N = 5 are legal (interleave_group_size).
  // Rank 0's warm-up is 2 x 3 + (v - 1) x 5 = 11 forwards, so 12 chunks,
  // 6 stage micro-batches, are alive (5.5 with groups of 4). A replay of the
  // schedule order (groups of 5, chunk-major, 1F1B after the warm-up) gives
  // the same peak, and an ideal bubble.
  Workload w = pp4_32_layers();
  w.layout.interleave = 2;
  w.global_batch = 10LL * w.layout.micro_batch * w.layout.dp;
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 6.0);
  // 28 layers, chunks of 4 and 3: forward layers per group 4 4 4 4 4 3 3 3 3
  // 3; the 11 warm-up passes hold 5 x 4 + 5 x 3 + 4 = 39 layers, and the
  // replay's peak is 46 layer-micro-batches, 46 / 7 stage micro-batches.
  w.model.layers = 28;
  EXPECT_DOUBLE_EQ(estimate_memory(w, gpu).peak.microbatches_in_flight, 46.0 / 7.0);
}

TEST(Pipeline, FewerLayersOnTheFirstStageMoveThePeakToTheSecond) {
  // 32 layers on pp 4 under 1F1B: stage 0 keeps 4 micro-batches of 8 layers
  // (32 layer-micro-batches), stage 1 3 of 8 (24). With first_stage_layers 5
  // and last_stage_layers 5 the middle stages take 11 each: stage 0 holds
  // 4 x 5 = 20, stage 1 3 x 11 = 33, the peak.
  Workload w = pp4_32_layers();
  const Gpu& gpu = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const MemoryEstimate even = estimate_memory(w, gpu);
  EXPECT_EQ(even.peak.stage, 0);
  EXPECT_EQ(even.peak.layers, 8);
  w.layout.first_stage_layers = 5;
  w.layout.last_stage_layers = 5;
  const MemoryEstimate uneven = estimate_memory(w, gpu);
  EXPECT_EQ(uneven.peak.stage, 1);
  EXPECT_EQ(uneven.peak.layers, 11);
  EXPECT_DOUBLE_EQ(uneven.peak.microbatches_in_flight, 3.0);
  // Activations per layer and micro-batch are the same: 33 / 32 of stage 0's
  // with the even split (the first stage's embedding dropout mask aside).
  const double per_layer = activation_bytes_per_layer(w, false);
  EXPECT_DOUBLE_EQ(uneven.peak.activations, 33 * per_layer);
  EXPECT_GT(even.peak.activations, 32 * per_layer);  // + the embedding's dropout masks
}

TEST(Properties, MoreShardingNeverRaisesModelState) {
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  for (const char* id : {"llama3-70b", "mixtral-8x7b", "gpt3-175b"}) {
    Workload w;
    w.model = *io::builtin_catalog().find_model(id);
    w.layout.dp = 8;
    double last_weights = 1e300, last_state = 1e300;
    for (int tp : {1, 2, 4, 8}) {
      w.layout.tp = tp;
      w.layout.zero = 0;
      const MemoryEstimate e = estimate_memory(w, gpu);
      EXPECT_LE(e.peak.weights, last_weights) << id << " tp " << tp;
      last_weights = e.peak.weights;
    }
    for (int z = 0; z <= 3; ++z) {
      w.layout.zero = z;
      const MemoryEstimate e = estimate_memory(w, gpu);
      EXPECT_LE(model_state(e), last_state) << id << " zero " << z;
      last_state = model_state(e);
    }
  }
}

TEST(Properties, RecomputeOrdersActivations) {
  for (bool flash : {false, true}) {
    Workload w = korthikanti(4, true, Recompute::none);
    w.layout.flash_attention = flash;
    const double none = activation_bytes_per_layer(w, false);
    w.layout.recompute = Recompute::selective;
    const double sel = activation_bytes_per_layer(w, false);
    w.layout.recompute = Recompute::full;
    const double full = activation_bytes_per_layer(w, false);
    EXPECT_LE(sel, none);
    EXPECT_LT(full, sel);
  }
}

TEST(Properties, BreakdownSumsToTotalAndHeadroom) {
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-70b");
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 2;
  w.layout.sp = true;
  w.layout.interleave = 5;
  w.layout.zero = 1;
  w.layout.recompute = Recompute::selective;
  w.global_batch = 64;
  const MemoryEstimate e = estimate_memory(w, gpu);
  const StageMemory& p = e.peak;
  EXPECT_DOUBLE_EQ(e.total(), p.weights + p.gradients + p.optimizer + p.activations + p.logits +
                                  p.buffers + p.overhead);
  // What must fit leaves out the caching allocator's gap (given back before
  // an out-of-memory error), which the total shows.
  EXPECT_GT(p.fragmentation, 0.0);
  EXPECT_DOUBLE_EQ(e.headroom_bytes, e.capacity_bytes - (e.total() - p.fragmentation));
  EXPECT_EQ(e.fits, e.headroom_bytes >= 0);
}

TEST(Properties, AllocatorGapDoesNotDecideTheFit) {
  // Llama 3 405B as Dubey et al. 2024 §3.3.2 ran it (Table 4 row 1): TP 8,
  // PP 16, DP 64, interleaved with one place per chunk (V = 8), embedding and
  // output in the split, no activation checkpointing at 8K. Allocated plus
  // the fixed overhead fits in 80 GiB; with the 10 % allocator gap the total
  // does not, and the run happened.
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3.1-405b");
  w.seq_len = 8192;
  w.global_batch = 2048;
  w.framework = Framework::other;
  w.layout.tp = 8;
  w.layout.pp = 16;
  w.layout.dp = 64;
  w.layout.sp = true;
  w.layout.interleave = 8;
  w.layout.zero = 2;
  w.layout.recompute = Recompute::none;
  w.layout.embedding_in_split = true;
  w.layout.loss_in_split = true;
  const MemoryEstimate e = estimate_memory(w, gpu);
  EXPECT_GT(e.total(), e.capacity_bytes);
  EXPECT_LE(e.total() - e.peak.fragmentation, e.capacity_bytes);
  EXPECT_TRUE(e.fits);
  // Without the gap's release it would not: a zero-gap overhead changes nothing.
  OverheadModel no_gap;
  no_gap.fragmentation = 0;
  const MemoryEstimate z = estimate_memory(w, gpu, no_gap);
  EXPECT_NEAR(z.headroom_bytes, e.headroom_bytes, 1.0);
}

TEST(Properties, OffloadMovesOptimizerToHost) {
  const Gpu& gpu = *io::builtin_catalog().find_gpu("h100-sxm");
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  const MemoryEstimate on = estimate_memory(w, gpu);
  w.layout.offload_optimizer = true;
  const MemoryEstimate off = estimate_memory(w, gpu);
  EXPECT_DOUBLE_EQ(off.peak.optimizer, 0.0);
  EXPECT_DOUBLE_EQ(off.host_offload_bytes, on.peak.optimizer);
}

}  // namespace
}  // namespace scaleout
