// The serving model (src/inference/serving.cpp): hand-computed KV-cache and
// weight sizes, decode time equal to bytes over bandwidth where every
// operation is bandwidth-bound, the continuous-batching identities, and
// properties that hold for any model and layout.
#include "inference/serving.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/catalog_reader.hpp"
#include "model/params.hpp"
#include "perf/compute.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }

Workload serve(const char* model, int tp, int pp = 1, WeightFormat wf = WeightFormat::bf16,
               Precision kv = Precision::bf16) {
  Workload w;
  w.model = *cat().find_model(model);
  w.task = Task::inference;
  w.layout.tp = tp;
  w.layout.pp = pp;
  w.inference.prompt_tokens = 1024;
  w.inference.output_tokens = 256;
  w.inference.weights = wf;
  w.inference.kv_cache = kv;
  return w;
}

const Server& server(const char* id) { return *cat().find_server(id); }
const Gpu& gpu_of(const char* server_id) { return *cat().find_gpu(server(server_id).gpu_id); }

TEST(KvCache, Llama3_70bGqaHandComputed) {
  const ModelShape& m = *cat().find_model("llama3-70b");
  // 2 (K and V) x 80 layers x 8 KV heads x 128 head dim x 2 bytes = 327,680 B per token.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 2.0), 327680.0);
  // FP8 cache: half, 163,840 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 1.0), 163840.0);
  // TP 8: one KV head per GPU, 2 x 80 x 1 x 128 x 2 = 40,960 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, 2.0, 8, 1), 40960.0);
  // TP 16 > 8 KV heads: each GPU still keeps one (replicated) head: 40,960 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, 2.0, 16, 1), 40960.0);
  // PP 4: 20 layers per stage, TP 2: 4 heads: 2 x 20 x 4 x 128 x 2 = 40,960 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, 2.0, 2, 4), 40960.0);
}

TEST(KvCache, DeepSeekV3MlaHandComputed) {
  const ModelShape& m = *cat().find_model("deepseek-v3");
  // MLA caches the 512-value latent and the 64-value RoPE key per layer:
  // (512 + 64) x 61 layers x 2 bytes = 70,272 B per token.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 2.0), 70272.0);
  // The latent is not split over TP: the same on every rank.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, 2.0, 8, 1), 70272.0);
  // PP 2: ceil(61 / 2) = 31 layers on the first stage: 576 x 31 x 2 = 35,712 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, 2.0, 1, 2), 35712.0);
  // Versus 2 x 61 x 128 heads x (192 key + 128 value dims) / 2 ... MHA would be
  // ~70x larger; the MLA number is what vLLM and SGLang allocate.
}

TEST(ServingMemory, WeightsSplitOverTpHandComputed) {
  const Workload w = serve("llama3-70b", 8);
  const ServingMemory m = serving_memory(w, gpu_of("dgx-h100"), 0);
  // BF16 everywhere, TP 8, one stage: all parameters x 2 bytes / 8, but the
  // RMSNorms (2 per layer and the final one), which every rank keeps whole.
  const ParamCounts pc = count_params(w.model);
  const double total = pc.total();
  EXPECT_NEAR(m.weights, (total - pc.norms) * 2.0 / 8.0 + pc.norms * 2.0, 1.0);
  // ~70.6e9 x 2 / 8 = 17.6 GB per GPU.
  EXPECT_NEAR(m.weights / 1e9, 17.6, 0.1);
}

TEST(ServingMemory, Fp8WeightsKeepEmbeddingAndHeadIn16Bit) {
  const Workload w = serve("llama3-70b", 1, 1, WeightFormat::fp8);
  const ServingMemory m = serving_memory(w, gpu_of("dgx-h200"), 0);
  const ParamCounts pc = count_params(w.model);
  // Layers at 1 byte, embedding and LM head (2 x 128256 x 8192) at 2 bytes.
  const double expected =
      (pc.total() - pc.embedding - pc.output) * 1.0 + (pc.embedding + pc.output) * 2.0;
  EXPECT_NEAR(m.weights, expected, 1.0);
}

TEST(ServingMemory, MaxSequencesFillThePool) {
  const Workload w = serve("llama3-70b", 2, 1, WeightFormat::fp8, Precision::fp8);
  const ServingMemory m = serving_memory(w, gpu_of("dgx-h100"), 0);
  const double seq = m.kv_bytes_per_token * (1024 + 256);
  ASSERT_TRUE(m.fits);
  EXPECT_LE(static_cast<double>(m.max_sequences) * seq, m.kv_pool_bytes);
  EXPECT_GT(static_cast<double>(m.max_sequences + 1) * seq, m.kv_pool_bytes);
  // pool = 0.90 x 80 GiB - weights - activations - 1 GiB overhead.
  EXPECT_NEAR(m.kv_pool_bytes, 0.9 * m.capacity_bytes - m.weights - m.activations - m.overhead,
              1.0);
}

TEST(ServingMemory, Llama405bBf16DoesNotFitOneH100Node) {
  // 405e9 x 2 bytes / 8 GPUs = 101 GB per GPU > 80 GB.
  const ServingMemory bf16 = serving_memory(serve("llama3.1-405b", 8), gpu_of("dgx-h100"), 0);
  EXPECT_FALSE(bf16.fits);
  // The pool is empty, not negative; the deficit is its own figure (a negative
  // pool was printed as "leave -21 GiB for the KV cache"; found by fuzz_plan_finite).
  EXPECT_EQ(bf16.kv_pool_bytes, 0.0);
  EXPECT_NEAR(bf16.shortfall_bytes,
              bf16.weights + bf16.activations + bf16.overhead - bf16.usable_bytes, 1.0);
  EXPECT_GT(bf16.shortfall_bytes, 0.0);
  // FP8 on H200: 405e9 / 8 = 51 GB of 141 GB per GPU.
  EXPECT_TRUE(
      serving_memory(serve("llama3.1-405b", 8, 1, WeightFormat::fp8), gpu_of("dgx-h200"), 0).fits);
}

TEST(Decode, BandwidthBoundStepIsBytesOverBandwidth) {
  // Llama 3 8B, BF16, one GPU, one sequence: every GEMM has m = 1 and is
  // bandwidth-bound, and there is no communication, so the step is the bytes
  // read divided by the achievable HBM bandwidth.
  const Workload w = serve("llama3-8b", 1);
  const Gpu& g = gpu_of("dgx-h100");
  const DecodeStep d = decode_step(w, server("dgx-h100"), g, nullptr, 1, 1024);
  const double bw = g.hbm_bw_Bps * compute_constants(g).hbm_efficiency;  // 3.35e12 x 0.80
  EXPECT_NEAR(d.step_s, d.hbm_bytes / bw, 1e-12);
  EXPECT_DOUBLE_EQ(d.tp_comm_s, 0.0);
  // Bytes: every weight but the embedding (8.03e9 - 0.525e9 params x 2 B =
  // 15.0 GB) plus the KV cache of 1,024 tokens (1024 x 131,072 B = 134 MB),
  // plus a few kB of activations.
  const ParamCounts pc = count_params(w.model);
  const double weights = (pc.total() - pc.embedding) * 2.0;
  const double kv = 1024.0 * 2 * 32 * 8 * 128 * 2;
  EXPECT_NEAR(d.hbm_bytes, weights + kv, 1e-3 * d.hbm_bytes);
  // 15.15e9 B / 2.68e12 B/s = 5.65 ms.
  EXPECT_NEAR(d.step_s * 1e3, 5.65, 0.05);
}

TEST(Decode, Fp8HalvesTheBandwidthBoundStep) {
  const Gpu& g = gpu_of("dgx-h100");
  const DecodeStep bf = decode_step(serve("llama3-70b", 4), server("dgx-h100"), g, nullptr, 1, 128);
  const DecodeStep f8 = decode_step(serve("llama3-70b", 4, 1, WeightFormat::fp8),
                                    server("dgx-h100"), g, nullptr, 1, 128);
  // The layer weights (all but ~2 GB of embedding and head) are half the bytes.
  EXPECT_LT(f8.gemm_s, 0.55 * bf.gemm_s);
  EXPECT_GT(f8.gemm_s, 0.45 * bf.gemm_s);
}

TEST(Decode, MoeReadsOnlyTheExpertsItsTokensReach) {
  // DeepSeek-V3 on 8 GPUs at batch 1: 8 of 256 routed experts per layer are
  // read, so the bytes are far below the 671e9-parameter total.
  const Workload w = serve("deepseek-v3", 8, 1, WeightFormat::fp8, Precision::bf16);
  const DecodeStep d = decode_step(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr, 1, 1024);
  const double total_per_gpu = count_params(w.model).total() / 8.0;  // FP8: 1 byte each
  EXPECT_LT(d.hbm_bytes, 0.15 * total_per_gpu);
  // Active parameters ~37e9 / 8 GPUs ~ 4.6 GB (+ 16-bit head and the MLA cache).
  EXPECT_GT(d.hbm_bytes, 0.8 * count_params(w.model).active / 8.0);
}

TEST(Serving, ContinuousBatchingIdentities) {
  const Workload w = serve("llama3-70b", 2, 1, WeightFormat::fp8, Precision::fp8);
  const ServingEstimate e =
      estimate_serving_at(w, server("dgx-h100"), gpu_of("dgx-h100"), nullptr, 32);
  ASSERT_EQ(e.batch, 32);
  // The engine packs 8192 / 1024 = 8 prompts into one prefill chunk; each
  // request costs an eighth of that chunk, less than its own prefill alone.
  EXPECT_EQ(e.prefill_batch, 8);
  EXPECT_LT(e.prefill_share_s, e.prefill_s);
  EXPECT_NEAR(e.prefill_share_s,
              prefill_time_s(w, server("dgx-h100"), gpu_of("dgx-h100"), nullptr, 1024, {}, 8) / 8,
              1e-12);
  // One cycle finishes 32 requests: 256 decode steps + 32 prefill shares.
  const double cycle = 256 * e.decode.step_s + 32 * e.prefill_share_s;
  // TPOT: the decode step plus the other 31 requests' prefills over 256 tokens.
  EXPECT_NEAR(e.tpot_s, e.decode.step_s + 31 * e.prefill_share_s / 256, 1e-12);
  EXPECT_NEAR(e.requests_per_s, 32 / cycle, 1e-9);
  EXPECT_NEAR(e.output_tokens_per_s, 32 * 256 / cycle, 1e-6);
  // TTFT: own prefill, one running step and the M/D/1 wait for queued
  // prefills, rho = 32 x share / cycle, W = rho x share / (2 (1 - rho)).
  const double rho = 32 * e.prefill_share_s / cycle;
  EXPECT_NEAR(e.queue_s, rho * e.prefill_share_s / (2 * (1 - rho)), 1e-12);
  EXPECT_NEAR(e.ttft_s, e.prefill_s + e.decode.step_s + e.queue_s, 1e-12);
}

TEST(Serving, ReplicasCoverTheRequestRate) {
  Workload w = serve("llama3-8b", 1);
  w.inference.request_rate = 50;
  const ServingEstimate e = estimate_serving(w, server("dgx-h100"), gpu_of("dgx-h100"), nullptr);
  EXPECT_GE(e.replicas * e.requests_per_s, 50.0);
  EXPECT_LT((e.replicas - 1) * e.requests_per_s, 50.0);
}

TEST(Serving, ARateRunsAtTheLowestConcurrencyThatCarriesIt) {
  Workload w = serve("llama3-70b", 8, 1, WeightFormat::fp8, Precision::fp8);
  const ServingEstimate free = estimate_serving(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr);
  w.inference.request_rate = 0.5 * free.requests_per_s;  // half of one replica's best
  const ServingEstimate e = estimate_serving(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr);
  EXPECT_EQ(e.replicas, 1);
  EXPECT_LT(e.batch, free.batch);
  EXPECT_LE(e.tpot_s, free.tpot_s);
  EXPECT_GE(e.requests_per_s, w.inference.request_rate);
  EXPECT_DOUBLE_EQ(e.capacity_requests_per_s, free.requests_per_s);
  // One sequence less would not carry the rate.
  EXPECT_LT(estimate_serving_at(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr, e.batch - 1)
                .requests_per_s,
            w.inference.request_rate);
}

TEST(Serving, BestBatchMeetsTheTpotObjective) {
  Workload w = serve("llama3-70b", 4, 1, WeightFormat::fp8, Precision::fp8);
  w.inference.max_batch = 1024;
  w.inference.tpot_s = 0.030;
  const ServingEstimate e = estimate_serving(w, server("dgx-h100"), gpu_of("dgx-h100"), nullptr);
  EXPECT_TRUE(e.meets_tpot);
  EXPECT_LE(e.tpot_s, 0.030);
  Workload loose = w;
  loose.inference.tpot_s = 0;
  const ServingEstimate f =
      estimate_serving(loose, server("dgx-h100"), gpu_of("dgx-h100"), nullptr);
  EXPECT_GE(f.output_tokens_per_s, e.output_tokens_per_s);
}

TEST(Serving, OneSequenceDecodesAtTheStepTime) {
  // Alone, a request's TPOT is the decode step: no other prefill interleaves.
  const Workload w = serve("llama3-8b", 1);
  const ServingEstimate e =
      estimate_serving_at(w, server("dgx-h100"), gpu_of("dgx-h100"), nullptr, 1);
  EXPECT_DOUBLE_EQ(e.tpot_s, e.decode.step_s);
}

TEST(Serving, BatchOptions) {
  EXPECT_EQ(batch_options(1), (std::vector<int>{1}));
  EXPECT_EQ(batch_options(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(batch_options(10), (std::vector<int>{1, 2, 4, 8, 10}));
}

// --- properties over random workloads ----------------------------------------------------

struct Random {
  std::mt19937 rng{20261130};
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
};

const std::vector<const char*> kModels = {"llama3-8b",    "llama3-70b",  "llama3.1-405b",
                                          "mixtral-8x7b", "deepseek-v3", "qwen2.5-72b"};
const std::vector<WeightFormat> kFormats = {WeightFormat::bf16, WeightFormat::fp8,
                                            WeightFormat::int8, WeightFormat::int4};

TEST(ServingProperty, MoreTpNeverRaisesPerGpuWeights) {
  for (const char* id : kModels) {
    for (WeightFormat f : kFormats) {
      double last = 1e300;
      for (int tp = 1; tp <= 8; tp *= 2) {
        const double weights = serving_memory(serve(id, tp, 1, f), gpu_of("dgx-h100"), 0).weights;
        EXPECT_LE(weights, last) << id << " tp " << tp;
        last = weights;
      }
    }
  }
}

TEST(ServingProperty, MoreBandwidthNeverSlowsDecode) {
  Random r;
  for (int i = 0; i < 300; ++i) {
    const char* id = kModels[static_cast<size_t>(r.pick(static_cast<int>(kModels.size())))];
    const int tp = 1 << r.pick(4);
    Workload w = serve(id, tp, 1 << r.pick(3), kFormats[static_cast<size_t>(r.pick(4))]);
    Gpu g = gpu_of("dgx-h100");
    const int batch = 1 + r.pick(512);
    const double ctx = 1 + r.pick(32768);
    const double before = decode_step(w, server("dgx-h100"), g, nullptr, batch, ctx).step_s;
    g.hbm_bw_Bps *= 1.5;
    const double after = decode_step(w, server("dgx-h100"), g, nullptr, batch, ctx).step_s;
    EXPECT_LE(after, before) << id << " batch " << batch;
  }
}

TEST(ServingProperty, SmallerWeightsNeverSlowDecodeOrGrowMemory) {
  // Two chains with the same matmul precision each: weight-only formats
  // (bf16 -> int8 -> int4, 16-bit math) and bf16 -> fp8 (FP8 math). INT8 and
  // FP8 store the same bytes but FP8 also computes faster, so they are not
  // ordered against each other.
  const std::vector<std::vector<WeightFormat>> chains = {
      {WeightFormat::bf16, WeightFormat::int8, WeightFormat::int4},
      {WeightFormat::bf16, WeightFormat::fp8}};
  for (const char* id : kModels) {
    for (const auto& chain : chains) {
      double last_mem = 1e300, last_step = 1e300;
      for (WeightFormat f : chain) {
        const Workload w = serve(id, 8, 1, f);
        const double mem = serving_memory(w, gpu_of("dgx-h200"), 0).weights;
        const double step =
            decode_step(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr, 1, 2048).step_s;
        EXPECT_LE(mem, last_mem) << id << " " << to_string(f);
        EXPECT_LE(step, last_step * (1 + 1e-9)) << id << " " << to_string(f);
        last_mem = mem;
        last_step = step;
      }
    }
  }
}

TEST(ServingProperty, LongerContextOrLargerBatchNeverSpeedsDecode) {
  Random r;
  for (int i = 0; i < 200; ++i) {
    const char* id = kModels[static_cast<size_t>(r.pick(static_cast<int>(kModels.size())))];
    const Workload w = serve(id, 1 << r.pick(4));
    const int batch = 1 + r.pick(256);
    const double ctx = 1 + r.pick(16384);
    const Server& s = server("dgx-h100");
    const Gpu& g = gpu_of("dgx-h100");
    const double base = decode_step(w, s, g, nullptr, batch, ctx).step_s;
    EXPECT_GE(decode_step(w, s, g, nullptr, batch * 2, ctx).step_s, base) << id;
    EXPECT_GE(decode_step(w, s, g, nullptr, batch, ctx * 2).step_s, base) << id;
  }
}

TEST(ServingProperty, MemoryPartsAddUpAndAreFinite) {
  Random r;
  for (int i = 0; i < 300; ++i) {
    const char* id = kModels[static_cast<size_t>(r.pick(static_cast<int>(kModels.size())))];
    Workload w = serve(id, 1 << r.pick(4), 1 << r.pick(4), kFormats[static_cast<size_t>(r.pick(4))],
                       r.pick(2) ? Precision::fp8 : Precision::bf16);
    w.inference.prompt_tokens = 1 + r.pick(32768);
    w.inference.output_tokens = 1 + r.pick(4096);
    const ServingEstimate e = estimate_serving(w, server("dgx-h200"), gpu_of("dgx-h200"), nullptr);
    const ServingMemory& m = e.memory;
    EXPECT_NEAR(m.total(), m.weights + m.kv_cache + m.activations + m.overhead, 1e-6 * m.total());
    EXPECT_TRUE(std::isfinite(e.tpot_s) && e.tpot_s > 0) << id;
    EXPECT_TRUE(std::isfinite(e.output_tokens_per_s) && e.output_tokens_per_s > 0) << id;
    if (m.fits) {
      EXPECT_LE(m.total(), m.usable_bytes * (1 + 1e-9)) << id;
    }
  }
}

TEST(Calibration, GemmEfficiencyScaleMultipliesTheKernelRates) {
  // Scale 1 leaves the family's constants; scale s multiplies the three
  // tensor-core efficiencies and so divides a compute-bound prefill by s.
  const Gpu& g = gpu_of("dgx-h100");
  const ComputeConstants base = compute_constants(g);
  const ComputeConstants one = serving_compute_constants(g, {});
  EXPECT_DOUBLE_EQ(one.gemm_efficiency, base.gemm_efficiency);
  EXPECT_DOUBLE_EQ(one.attention_efficiency, base.attention_efficiency);
  ServingConstants k;
  k.gemm_efficiency_scale = 0.5;
  const ComputeConstants half = serving_compute_constants(g, k);
  EXPECT_DOUBLE_EQ(half.gemm_efficiency, 0.5 * base.gemm_efficiency);
  EXPECT_DOUBLE_EQ(half.fp8_gemm_efficiency, 0.5 * base.fp8_gemm_efficiency);
  EXPECT_DOUBLE_EQ(half.attention_efficiency, 0.5 * base.attention_efficiency);
  EXPECT_DOUBLE_EQ(half.hbm_efficiency, base.hbm_efficiency);
  // Llama 3 70B, 8192-token prompt on TP8: the compute-bound GEMMs and
  // attention take twice as long; the prefill, with its all-reduces and
  // element-wise kernels, between 1 and 2 times.
  Workload w = serve("llama3-70b", 8);
  w.seq_len = 8192;
  w.layout.flash_attention = true;
  const OpTimes a = layer_forward(w, g, one, false);
  const OpTimes b = layer_forward(w, g, half, false);
  EXPECT_NEAR(b.gemm_s, 2.0 * a.gemm_s, 1e-12);
  EXPECT_NEAR(b.attention_s, 2.0 * a.attention_s, 1e-12);
  EXPECT_DOUBLE_EQ(b.elementwise_s, a.elementwise_s);
  const double t1 = prefill_time_s(w, server("dgx-h100"), g, nullptr, 8192, {});
  const double t2 = prefill_time_s(w, server("dgx-h100"), g, nullptr, 8192, k);
  EXPECT_GT(t2 / t1, 1.5);
  EXPECT_LT(t2 / t1, 2.0);
}

}  // namespace
}  // namespace scaleout
