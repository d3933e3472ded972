// Serving a decoder-only model (task: inference): per-GPU memory of one
// replica (weights, KV cache, activations, overhead), prefill as a
// compute-bound and decode as a bandwidth-bound per-operation roofline, TP,
// PP and EP communication, continuous batching, throughput per replica and
// replicas for a target request rate. Equations, units and sources:
// docs/model.md, "Inference".
#pragma once

#include <vector>

#include "hw/hardware.hpp"
#include "perf/compute.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// Named constants of the serving model (docs/model.md, "Inference").
struct ServingConstants {
  // Share of device memory the engine may take: vLLM's gpu_memory_utilization
  // default (0.90); TensorRT-LLM's kv_cache_free_gpu_mem_fraction (0.90 of
  // what is free after the weights) is close to it.
  double memory_utilization = 0.90;
  // CUDA context, cuBLAS workspaces, NCCL buffers and CUDA graphs, per GPU.
  double fixed_overhead_bytes = 1.0 * 1024 * 1024 * 1024;
  // INT4 weights with one 16-bit scale and one 16-bit zero point per group of
  // 128 (AWQ/GPTQ defaults): 0.5 + 4/128 bytes per parameter.
  double int4_bytes_per_param = 0.5 + 4.0 / 128.0;
  // NCCL's low-latency (LL) protocol hop latencies (tuning.cc hwLat, ring,
  // LL): decode all-reduces carry a few kilobytes and run LL, not Simple.
  double ll_nvlink_hop_s = 0.6e-6;
  double ll_pcie_hop_s = 1.0e-6;
  double ll_net_hop_s = 2.7e-6;
  // Host-side work per engine step (scheduling, sampling, launching the
  // CUDA graph); 0 until a fit justifies a value (docs/validation.md).
  double step_overhead_s = 0.0;
  // Multiplies the GPU family's kernel rates (calibration experiments only:
  // scripts/calibrate.py fits Hopper's sustained_factor through it).
  double gemm_efficiency_scale = 1.0;
};

// The GPU family's kernel constants with `k.gemm_efficiency_scale` applied.
ComputeConstants serving_compute_constants(const Gpu& gpu, const ServingConstants& k);

// Bytes one stored weight takes: bf16 2, fp8 and int8 1, int4 0.5 + scales.
double weight_bytes_per_param(WeightFormat f, const ServingConstants& k = {});
// Bytes one KV-cache value takes: fp8 1, fp32 4, else 2.
double kv_value_bytes(Precision p);
// KV-cache bytes one token of one sequence adds over all layers of the model:
// 2 * L * k * d * bytes (MHA/GQA); (kv_lora_rank + qk_rope_head_dim) * L *
// bytes (MLA stores the compressed latent and the shared RoPE key).
double kv_bytes_per_token(const ModelShape& m, double value_bytes);
// The same for one GPU of a replica split tp x pp: the layers of one stage,
// K/V heads divided over TP (each GPU keeps at least one head; MLA's latent
// is replicated on every TP rank).
double kv_bytes_per_token_per_gpu(const ModelShape& m, double value_bytes, int tp, int pp);

// Per-GPU memory of one replica (the most loaded pipeline stage), bytes.
struct ServingMemory {
  double weights = 0;      // the stage's share of the weights under TP/EP
  double kv_cache = 0;     // KV cache of `batch` sequences at full length
  double activations = 0;  // prefill-chunk working set and the logits of a decode step
  double overhead = 0;     // fixed per-GPU overhead
  double capacity_bytes = 0;
  double usable_bytes = 0;        // capacity x memory_utilization
  double kv_pool_bytes = 0;       // usable - weights - activations - overhead, at least 0
  double shortfall_bytes = 0;     // how far weights + activations + overhead exceed usable
  double kv_bytes_per_token = 0;  // one token of one sequence, this GPU
  long long max_sequences = 0;    // full-length sequences the pool holds
  bool fits = false;              // room for the weights and one full-length sequence
  double total() const { return weights + kv_cache + activations + overhead; }
};

// The layout comes from w.layout (tp, pp, ep); `batch` sizes kv_cache.
ServingMemory serving_memory(const Workload& w, const Gpu& gpu, int batch,
                             const ServingConstants& k = {});

// One decode step of a replica: every sequence of the batch emits one token.
struct DecodeStep {
  double step_s = 0;     // wall time of the step
  double hbm_bytes = 0;  // bytes moved through HBM by the busiest GPU
  double flops = 0;      // FLOPs of the busiest GPU
  double gemm_s = 0;     // projections, MLP, experts, LM head (each op a roofline)
  double attention_s = 0;
  double tp_comm_s = 0;
  double pp_comm_s = 0;
  double overhead_s = 0;
};

// Decode step of `batch` sequences whose KV caches hold `context` tokens each.
DecodeStep decode_step(const Workload& w, const Server& server, const Gpu& gpu,
                       const Fabric* fabric, int batch, double context,
                       const ServingConstants& k = {});

// Time to run one prompt of `tokens` tokens through every stage of a replica
// (the first token included), seconds.
// With `sequences` > 1: that many prompts batched into one forward pass.
double prefill_time_s(const Workload& w, const Server& server, const Gpu& gpu, const Fabric* fabric,
                      double tokens, const ServingConstants& k = {}, int sequences = 1);

// A replica under continuous batching at a steady concurrency of `batch`.
struct ServingEstimate {
  ServingMemory memory;
  int batch = 0;                       // concurrent sequences per replica
  double prefill_s = 0;                // one prompt alone
  int prefill_batch = 1;               // prompts the engine packs into one prefill chunk
  double prefill_share_s = 0;          // replica time one request's prefill takes in that chunk
  DecodeStep decode;                   // one step at `batch`, mean context P + O/2
  double queue_s = 0;                  // mean wait for the prefills queued ahead (M/D/1)
  double ttft_s = 0;                   // prefill + one running decode step + queue_s
  double tpot_s = 0;                   // decode step + the prefills interleaved per output token
  double requests_per_s = 0;           // per replica
  double output_tokens_per_s = 0;      // per replica
  double capacity_requests_per_s = 0;  // per replica at the highest-throughput concurrency
  int replicas = 1;                    // for the workload's request rate (1 when none)
  bool meets_ttft = true;
  bool meets_tpot = true;
};

// Estimate at a given concurrency (clamped to 1..max_sequences).
ServingEstimate estimate_serving_at(const Workload& w, const Server& server, const Gpu& gpu,
                                    const Fabric* fabric, int batch,
                                    const ServingConstants& k = {});

// Concurrencies the search tries: 1, 2, 4, ... below `limit`, and `limit`.
std::vector<int> batch_options(int limit);

// w.inference.batch when given; else the concurrency (of batch_options up to
// min(max_batch, max_sequences)) with the highest throughput that meets the
// latency objectives, or, with a request rate, the lowest concurrency at which
// the replicas that concurrency needs still carry the rate; when no
// concurrency meets the objectives, the one with the lowest TPOT.
ServingEstimate estimate_serving(const Workload& w, const Server& server, const Gpu& gpu,
                                 const Fabric* fabric, const ServingConstants& k = {});

}  // namespace scaleout
