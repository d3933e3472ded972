#include "perf/compute.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"
#include "perf/step.hpp"

namespace scaleout {
namespace {

const Gpu& gpu(const char* id) { return *io::builtin_catalog().find_gpu(id); }

Workload workload(const char* model, long long seq_len, int tp = 1) {
  Workload w;
  w.model = *io::builtin_catalog().find_model(model);
  w.seq_len = seq_len;
  w.layout.tp = tp;
  w.layout.micro_batch = 1;
  return w;
}

TEST(GemmTime, LargeGemmIsComputeBound) {
  // 8192^3 on 989 TFLOPS at 0.80: shape = (8192/8288)^3 = 0.96565191;
  // 2*8192^3 = 1.0995e12 FLOPs / (989e12 * 0.8 * 0.96565191) = 1.43910653 ms.
  // The memory roof is 2*(3*8192^2) B / (3.35e12 * 0.8) = 0.150 ms, far below.
  const ComputeConstants k;  // gemm_half_dim 96, hbm_efficiency 0.80
  const double m = 8192, n = 8192, kd = 8192;
  const double shape = (m / (m + 96)) * (n / (n + 96)) * (kd / (kd + 96));
  EXPECT_NEAR(shape, 0.96565191, 1e-8);
  const double t = gemm_time_s(m, n, kd, 989e12, 3.35e12, k, 0.8);
  EXPECT_DOUBLE_EQ(t, 2 * m * n * kd / (989e12 * 0.8 * shape));
  EXPECT_NEAR(t, 1.43910653e-3, 1e-11);
}

TEST(GemmTime, SkinnyGemmHitsTheBandwidthRoof) {
  // 16 x 8192 x 8192: compute 2*16*8192^2 / (791.2e12 * 16/112 * (8192/8288)^2) = 19.4 us,
  // memory 2*(16*8192 + 8192^2 + 16*8192) B / (3.35e12 * 0.8) = 50.2768716 us.
  const ComputeConstants k;
  const double t = gemm_time_s(16, 8192, 8192, 989e12, 3.35e12, k, 0.8);
  const double memory = 2.0 * (16 * 8192.0 + 8192.0 * 8192 + 16 * 8192.0) / (3.35e12 * 0.8);
  EXPECT_DOUBLE_EQ(t, memory);
  EXPECT_NEAR(t, 50.2768716e-6, 1e-12);
  // A faster GPU does not help; more bandwidth does.
  EXPECT_DOUBLE_EQ(gemm_time_s(16, 8192, 8192, 2 * 989e12, 3.35e12, k, 0.8), t);
  EXPECT_LT(gemm_time_s(16, 8192, 8192, 989e12, 2 * 3.35e12, k, 0.8), t);
}

TEST(GemmTime, EmptyGemmIsFree) {
  const ComputeConstants k;
  EXPECT_DOUBLE_EQ(gemm_time_s(0, 8192, 8192, 989e12, 3.35e12, k, 0.8), 0.0);
}

TEST(ComputeConstants, MeasuredMatmulRateReplacesTheFamilyShare) {
  // RTX 4090: 167.2 measured against the 165.2 peak, Ada sustained factor 1.
  const Gpu& r4090 = gpu("rtx-4090");
  EXPECT_DOUBLE_EQ(compute_constants(r4090).gemm_efficiency,
                   167.2 / 165.2 * r4090.family_data.sustained_factor);
  // RTX A6000: 123.3 of 154.8, times Ampere's sustained factor (0.90).
  const Gpu& a6000 = gpu("rtx-a6000");
  EXPECT_DOUBLE_EQ(compute_constants(a6000).gemm_efficiency,
                   123.3 / 154.8 * a6000.family_data.sustained_factor);
  // Without one the family's share applies; attention and FP8 keep the family's.
  const Gpu& ada6000 = gpu("rtx-6000-ada");
  EXPECT_DOUBLE_EQ(compute_constants(ada6000).gemm_efficiency,
                   ada6000.family_data.gemm_share * ada6000.family_data.sustained_factor);
  EXPECT_DOUBLE_EQ(compute_constants(r4090).attention_efficiency,
                   r4090.family_data.attention_share * r4090.family_data.sustained_factor);
}

TEST(KernelFloor, HugeFloorCountsKernels) {
  // GPT-3 layer (GELU, dropout, learned positions), FlashAttention, with a 1 s floor:
  // forward GEMMs QKV, O, fc1, fc2 = 4 kernels -> 4 s; attention 1 kernel -> 1 s;
  // element-wise 2 norms + 2 residuals + 2 dropouts + GELU = 7 kernels -> 7 s. 12 kernels.
  Workload w = workload("gpt3-175b", 2048, 8);
  ComputeConstants k = compute_constants(gpu("h100-sxm"));
  k.kernel_floor_s = 1.0;
  const OpTimes f = layer_forward(w, gpu("h100-sxm"), k, false);
  EXPECT_DOUBLE_EQ(f.gemm_s, 4.0);
  EXPECT_DOUBLE_EQ(f.attention_s, 1.0);
  EXPECT_DOUBLE_EQ(f.elementwise_s, 7.0);
  EXPECT_DOUBLE_EQ(f.kernels, 12.0);
  // Backward: dgrad + wgrad (8 GEMMs), attention backward 2.5x, element-wise twice.
  const OpTimes b = layer_backward(w, gpu("h100-sxm"), k, false);
  EXPECT_DOUBLE_EQ(b.gemm_s, 8.0);
  EXPECT_DOUBLE_EQ(b.attention_s, 2.5);
  EXPECT_DOUBLE_EQ(b.elementwise_s, 14.0);
  EXPECT_DOUBLE_EQ(b.kernels, 24.0);
}

TEST(KernelFloor, LlamaLayerAndLoraAdapters) {
  // Llama 3 8B: 4 GEMMs (fused QKV, O, fused gate/up, down); element-wise 2 norms +
  // 2 residuals + SwiGLU + rotary = 6; attention 1: 11 kernels.
  Workload w = workload("llama3-8b", 4096);
  ComputeConstants k = compute_constants(gpu("h100-sxm"));
  k.kernel_floor_s = 1.0;
  const OpTimes f = layer_forward(w, gpu("h100-sxm"), k, false);
  EXPECT_DOUBLE_EQ(f.gemm_s, 4.0);
  EXPECT_DOUBLE_EQ(f.kernels, 11.0);
  // LoRA on 7 linears: 2 adapter GEMMs each, 14 more forward -> 18.
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::lora;
  const OpTimes lf = layer_forward(w, gpu("h100-sxm"), k, false);
  EXPECT_DOUBLE_EQ(lf.gemm_s, 18.0);
  EXPECT_DOUBLE_EQ(lf.kernels, 25.0);
  // Backward: frozen bases only dgrad (4), adapters dgrad + wgrad (28): 32.
  const OpTimes lb = layer_backward(w, gpu("h100-sxm"), k, false);
  EXPECT_DOUBLE_EQ(lb.gemm_s, 32.0);
  // Attention-only adapters: 4 linears, 8 forward adapter GEMMs -> 12.
  w.finetune.targets = AdapterTargets::attention;
  EXPECT_DOUBLE_EQ(layer_forward(w, gpu("h100-sxm"), k, false).gemm_s, 12.0);
}

TEST(Flops, LlamaLayerForwardByHand) {
  // Llama 3 8B, s = 8192, b = 1, T = 8192: matmuls 2*T*4096*(6144 + 4096 + 2*14336 + 14336)
  // = 2*T*4096*53248; causal FlashAttention 2*T*8192*32*(128+128)*0.5 = 2*T*8192*32*128.
  const Workload w = workload("llama3-8b", 8192);
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  const double T = 8192;
  const double matmul = 2 * T * 4096 * 53248.0;
  const double attn = 2 * T * 8192 * 32 * 128.0;
  EXPECT_DOUBLE_EQ(attention_core_forward(w, gpu("h100-sxm"), k).flops, attn);
  EXPECT_DOUBLE_EQ(layer_forward(w, gpu("h100-sxm"), k, false).flops, matmul + attn);
  // Backward: dgrad + wgrad = 2x the matmuls; FlashAttention backward 2.5x.
  EXPECT_DOUBLE_EQ(layer_backward(w, gpu("h100-sxm"), k, false).flops, 2 * matmul + 2.5 * attn);
}

TEST(Flops, BackwardRatiosAcrossModels) {
  for (const char* id : {"llama3-70b", "gpt3-175b", "mixtral-8x7b"}) {
    for (bool flash : {true, false}) {
      Workload w = workload(id, 4096, 8);
      w.layout.flash_attention = flash;
      const bool moe = w.model.is_moe();
      const ComputeConstants k = compute_constants(gpu("h100-sxm"));
      const OpTimes f = layer_forward(w, gpu("h100-sxm"), k, moe);
      const OpTimes a = attention_core_forward(w, gpu("h100-sxm"), k);
      const OpTimes b = layer_backward(w, gpu("h100-sxm"), k, moe);
      // FlashAttention backward recomputes the scores: 5 matmuls to 2 (2.5x);
      // the unfused backward is twice its forward.
      const double attn_scale = flash ? 2.5 : 2.0;
      EXPECT_NEAR(b.flops, 2.0 * (f.flops - a.flops) + attn_scale * a.flops, 1e-9 * b.flops)
          << id << " flash " << flash;
    }
  }
}

TEST(Flops, SlidingWindowLayersVisitOnlyTheirKeyBlocks) {
  // GPT-OSS-120B at s = 4096: 18 of 36 layers see 128 keys, computed as two
  // 128-key blocks (the window and the diagonal block) against the causal
  // 2048: the mean core is (18 x 2048 + 18 x 256) / (36 x 2048) of full.
  Workload w = workload("gpt-oss-120b", 4096);
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  Workload full = w;
  full.model.sliding_layers = 0;
  full.model.sliding_window = 0;
  const double windowed = attention_core_forward(w, gpu("h100-sxm"), k).flops;
  const double causal = attention_core_forward(full, gpu("h100-sxm"), k).flops;
  EXPECT_DOUBLE_EQ(windowed / causal, (18.0 * 2048 + 18.0 * 256) / (36.0 * 2048));
  // A window longer than the sequence changes nothing.
  w.model.sliding_window = 100000;
  EXPECT_DOUBLE_EQ(attention_core_forward(w, gpu("h100-sxm"), k).flops, causal);
  // Unfused attention computes and masks the full scores.
  w.model.sliding_window = 128;
  w.layout.flash_attention = false;
  full.layout.flash_attention = false;
  EXPECT_DOUBLE_EQ(attention_core_forward(w, gpu("h100-sxm"), k).flops,
                   attention_core_forward(full, gpu("h100-sxm"), k).flops);
}

TEST(Flops, FlashAttentionSkipsTheMaskedHalf) {
  // Causal FlashAttention computes half of the s x s scores the unfused kernels do.
  for (const char* id : {"llama3-8b", "gpt3-175b"}) {
    Workload w = workload(id, 4096, 8);
    const ComputeConstants k = compute_constants(gpu("a100-sxm-80g"));
    const double flash = attention_core_forward(w, gpu("a100-sxm-80g"), k).flops;
    w.layout.flash_attention = false;
    const double unfused = attention_core_forward(w, gpu("a100-sxm-80g"), k).flops;
    EXPECT_DOUBLE_EQ(flash / unfused, 0.5) << id;
  }
}

TEST(Precision, Fp8SpeedsUpGemmsNotAttention) {
  // H100: FP8 GEMMs at 1979 x 1402.6/1979 x 0.88 = 1234 TFLOPS against BF16
  // 989 x 794.5/989 x 0.88 = 699 TFLOPS; attention stays BF16.
  Workload w = workload("llama3-70b", 8192, 8);
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  const OpTimes bf16 = layer_forward(w, gpu("h100-sxm"), k, false);
  w.precision = Precision::fp8;
  const OpTimes fp8 = layer_forward(w, gpu("h100-sxm"), k, false);
  EXPECT_LT(fp8.gemm_s, bf16.gemm_s);
  EXPECT_DOUBLE_EQ(fp8.attention_s, bf16.attention_s);
  EXPECT_DOUBLE_EQ(fp8.flops, bf16.flops);
  // On a GPU without FP8 units (A100) FP8 runs as BF16: nothing changes.
  w.precision = Precision::bf16;
  const OpTimes a_bf16 = layer_forward(w, gpu("a100-sxm-80g"), k, false);
  w.precision = Precision::fp8;
  const OpTimes a_fp8 = layer_forward(w, gpu("a100-sxm-80g"), k, false);
  EXPECT_DOUBLE_EQ(a_fp8.gemm_s, a_bf16.gemm_s);
}

TEST(Constants, GpuFamilies) {
  // data/catalog/families.json: each share times the family's sustained factor.
  // Ampere: MAMF 271.2 of 312 TFLOPS x 0.90 sustained = 0.782308; FA2 60 % x 0.90.
  const ComputeConstants a = compute_constants(gpu("a100-sxm-80g"));
  EXPECT_DOUBLE_EQ(gpu("a100-sxm-80g").family_data.sustained_factor, 0.90);
  EXPECT_DOUBLE_EQ(a.gemm_efficiency, 271.2 / 312.0 * 0.90);
  EXPECT_NEAR(a.gemm_efficiency, 0.782308, 1e-6);
  EXPECT_DOUBLE_EQ(a.attention_efficiency, 0.60 * 0.90);
  // Hopper: 794.5/989 x 0.88 = 0.706936; FP8 1402.6/1979 x 0.88 = 0.623693; FA2 0.35 x 0.88.
  const ComputeConstants h = compute_constants(gpu("h100-sxm"));
  EXPECT_DOUBLE_EQ(gpu("h100-sxm").family_data.sustained_factor, 0.88);
  EXPECT_DOUBLE_EQ(h.gemm_efficiency, 794.5 / 989.0 * 0.88);
  EXPECT_NEAR(h.gemm_efficiency, 0.706936, 1e-6);
  EXPECT_DOUBLE_EQ(h.fp8_gemm_efficiency, 1402.6 / 1979.0 * 0.88);
  EXPECT_NEAR(h.fp8_gemm_efficiency, 0.623693, 1e-6);
  EXPECT_DOUBLE_EQ(h.attention_efficiency, 0.35 * 0.88);
  // Blackwell: the MAMF share x 0.76, fitted on the even B200/GB200 rows of
  // blackwell-training.csv.
  EXPECT_DOUBLE_EQ(gpu("b200").family_data.sustained_factor, 0.76);
  EXPECT_DOUBLE_EQ(compute_constants(gpu("b200")).gemm_efficiency, 1745.0 / 2250.0 * 0.76);
  EXPECT_DOUBLE_EQ(compute_constants(gpu("b200")).fp8_gemm_efficiency, 3432.5 / 4500.0 * 0.76);
  // Unscaled families: the MAMF share itself.
  EXPECT_DOUBLE_EQ(compute_constants(gpu("mi300x")).gemm_efficiency, 668.4 / 1307.4);
  EXPECT_DOUBLE_EQ(compute_constants(gpu("mi300x")).attention_efficiency, 0.30);
  EXPECT_DOUBLE_EQ(compute_constants(gpu("gaudi3")).gemm_efficiency, 1243.0 / 1835.0);
  EXPECT_DOUBLE_EQ(compute_constants(gpu("b200")).attention_efficiency, 0.35 * 0.76);
  // Shared defaults.
  EXPECT_DOUBLE_EQ(h.gemm_half_dim, 96.0);
  EXPECT_DOUBLE_EQ(h.hbm_efficiency, 0.80);
  EXPECT_DOUBLE_EQ(h.kernel_floor_s, 0.0);
  // A GPU of no family: the common 0.80 and 0.50, FP8 0.70; Volta and Ada
  // have no measurement and carry the same values in the catalog.
  Gpu other = gpu("h100-sxm");
  other.family = "";
  other.family_data = GpuFamily{};
  for (const Gpu& g : {other, gpu("v100-sxm-32g"), gpu("l40s")}) {
    const ComputeConstants o = compute_constants(g);
    EXPECT_DOUBLE_EQ(o.gemm_efficiency, 0.80) << g.id;
    EXPECT_DOUBLE_EQ(o.fp8_gemm_efficiency, 0.70) << g.id;
    EXPECT_DOUBLE_EQ(o.attention_efficiency, 0.50) << g.id;
  }
}

TEST(Constants, FamilyRecordsCarryTheEagerEfficiencies) {
  // The fitted eager efficiencies of step.hpp, per family, in families.json
  // (Ampere's also for Volta; Hopper's for every other family).
  for (const char* id : {"a100-sxm-80g", "v100-sxm-32g", "rtx-a6000"}) {
    EXPECT_DOUBLE_EQ(gpu(id).family_data.eager_efficiency, 0.84) << id;
  }
  for (const char* id : {"h100-sxm", "b200", "l40s", "mi300x", "gaudi3"}) {
    EXPECT_DOUBLE_EQ(gpu(id).family_data.eager_efficiency, 0.70) << id;
  }
  EXPECT_DOUBLE_EQ(GpuFamily{}.eager_efficiency, 0.70);
}

TEST(Properties, TensorParallelSplitsLayerFlops) {
  // Matmul and attention FLOPs per GPU divide by t (Llama 3 70B: 64 heads, 8 KV heads).
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  const double one =
      layer_forward(workload("llama3-70b", 4096, 1), gpu("h100-sxm"), k, false).flops;
  const double eight =
      layer_forward(workload("llama3-70b", 4096, 8), gpu("h100-sxm"), k, false).flops;
  EXPECT_NEAR(eight * 8, one, 1e-9 * one);
}

// What selective recompute of named modules runs again (rerun_forward).
TEST(Rerun, ModulesOfDeepSeekV3ByHand) {
  Workload w = workload("deepseek-v3", 4096);
  w.framework = Framework::megatron;
  w.layout.ep = 8;
  w.layout.dp = 8;
  const ComputeConstants k = compute_constants(gpu("h100-sxm"));
  const LayerTimes moe = layer_times(w, gpu("h100-sxm"), k, true);
  const LayerTimes dense = layer_times(w, gpu("h100-sxm"), k, false);
  auto bit = [](RecomputeModule m) { return module_bit(m); };
  const double T = 4096;
  // core_attn: the attention core's forward, as before.
  const RerunPart core = rerun_forward(moe, bit(RecomputeModule::core_attn));
  EXPECT_DOUBLE_EQ(core.forward.total(), moe.core.total());
  EXPECT_DOUBLE_EQ(core.forward.flops, moe.core.flops);
  // mla_up_proj: q_b (1536 -> 128*192) and kv_b (512 -> 128*256) matmuls:
  // 2*T*(1536*24576 + 512*32768) FLOPs, no reduction.
  const RerunPart up = rerun_forward(moe, bit(RecomputeModule::mla_up_proj));
  EXPECT_DOUBLE_EQ(up.forward.flops, 2 * T * (1536 * 24576.0 + 512 * 32768.0));
  EXPECT_GT(up.forward.elementwise_s, 0.0);  // RoPE
  EXPECT_EQ(up.tp_reductions + up.etp_reductions, 0.0);
  // mlp (dense layers): FC1, gate, FC2 of 7168 x 18432: 2*T*3*7168*18432
  // FLOPs and FC2's reduction; nothing in a MoE layer.
  const RerunPart mlp = rerun_forward(dense, bit(RecomputeModule::mlp));
  EXPECT_DOUBLE_EQ(mlp.forward.flops, 2 * T * 3 * 7168.0 * 18432);
  EXPECT_EQ(mlp.tp_reductions, 1.0);
  EXPECT_EQ(rerun_forward(moe, bit(RecomputeModule::mlp)).forward.total(), 0.0);
  // moe_act: an element-wise kernel only.
  const RerunPart act = rerun_forward(moe, bit(RecomputeModule::moe_act));
  EXPECT_EQ(act.forward.flops, 0.0);
  EXPECT_GT(act.forward.elementwise_s, 0.0);
  // moe: the whole block; moe_act and shared_experts inside it count once.
  const RerunPart block = rerun_forward(moe, bit(RecomputeModule::moe));
  const RerunPart both =
      rerun_forward(moe, bit(RecomputeModule::moe) | bit(RecomputeModule::moe_act) |
                             bit(RecomputeModule::shared_experts));
  EXPECT_DOUBLE_EQ(both.forward.total(), block.forward.total());
  EXPECT_GT(block.forward.total(),
            act.forward.total() +
                rerun_forward(moe, bit(RecomputeModule::shared_experts)).forward.total());
  // Routed FC2 over expert-TP, the shared experts' FC2 over TP.
  EXPECT_EQ(block.etp_reductions, 1.0);
  EXPECT_EQ(block.tp_reductions, 1.0);
  // The parts add up to no more than the layer's forward.
  const RerunPart all = rerun_forward(moe, 0x7f);
  EXPECT_LT(all.forward.total(), moe.forward.total());
}

}  // namespace
}  // namespace scaleout
