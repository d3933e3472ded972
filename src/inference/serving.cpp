#include "inference/serving.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/params.hpp"
#include "network/topology.hpp"
#include "perf/compute.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

ComputeConstants serving_compute_constants(const Gpu& gpu, const ServingConstants& k) {
  return scaled_tensor_rates(compute_constants(gpu), k.gemm_efficiency_scale);
}

double weight_bytes_per_param(WeightFormat f, const ServingConstants& k) {
  switch (f) {
    case WeightFormat::bf16:
      return 2.0;
    case WeightFormat::fp8:
    case WeightFormat::int8:
      return 1.0;
    case WeightFormat::int4:
      return k.int4_bytes_per_param;
  }
  return 2.0;
}

double kv_value_bytes(Precision p) {
  if (p == Precision::fp8) return 1.0;
  if (p == Precision::fp32 || p == Precision::tf32) return 4.0;
  return 2.0;
}

double kv_bytes_per_token(const ModelShape& m, double value_bytes) {
  if (m.is_mla()) {
    return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * m.layers *
           value_bytes;
  }
  return 2.0 * m.layers * m.kv_heads * static_cast<double>(m.head_size()) * value_bytes;
}

namespace {

// The layers of the replica's most loaded pipeline stage (workload/pipeline.hpp).
int most_stage_layers(const ModelShape& m, int pp) {
  Layout ly;
  ly.pp = std::max(1, pp);
  return heaviest_stage_layers(m, ly);
}

// Matmuls run in FP8 when the weights are FP8 and the GPU has FP8 units;
// weight-only INT8/INT4 dequantise to 16-bit (docs/model.md, "Inference").
Precision compute_precision(const Workload& w, const Gpu& gpu) {
  return w.inference.weights == WeightFormat::fp8 && gpu.fp8_flops > 0 ? Precision::fp8
                                                                       : Precision::bf16;
}

ClusterLinks replica_links(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, bool small_messages, const ServingConstants& k) {
  const long long gpus = static_cast<long long>(w.layout.tp) * w.layout.pp;
  const int nodes =
      static_cast<int>((gpus + server.gpus_per_node - 1) / std::max(1, server.gpus_per_node));
  NetworkConstants nk;
  if (small_messages) {
    nk.nvlink_hop_s = k.ll_nvlink_hop_s;
    nk.pcie_hop_s = k.ll_pcie_hop_s;
    nk.net_hop_s = k.ll_net_hop_s;
  }
  return resolve_links(server, gpu, fabric, std::max(1, nodes), nk);
}

}  // namespace

double kv_bytes_per_token_per_gpu(const ModelShape& m, double value_bytes, int tp, int pp) {
  const double layers = most_stage_layers(m, pp);
  if (m.is_mla()) {
    return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * layers * value_bytes;
  }
  return 2.0 * layers * local_kv_heads(m, tp) * m.head_size() * value_bytes;
}

ServingMemory serving_memory(const Workload& w, const Gpu& gpu, int batch,
                             const ServingConstants& k) {
  const ModelShape& m = w.model;
  const InferenceSpec& in = w.inference;
  const int tp = w.layout.tp, pp = w.layout.pp;
  const ParamCounts pc = count_params(m);
  const double wb = weight_bytes_per_param(in.weights, k);
  ServingMemory mem;
  // Layer weights (attention, MLPs, experts, routers, norms) as one GPU holds
  // them (the layer description: split over TP, a GQA K/V head replicated
  // when TP exceeds the K/V heads, routers replicated; experts over EP x TP
  // hold the same bytes per GPU as over TP) on its PP stage's share of the
  // layers; the embedding and the LM head stay 16-bit, vocabulary-parallel
  // over TP, on the first and last stage.
  LayerSplit split;
  split.tp = tp;
  split.etp = tp;
  const int moe_layers = moe_layer_count(m);
  double layer_params =
      (m.layers - moe_layers) * local_layer_params(describe_layer(m, false, split));
  if (moe_layers > 0)
    layer_params += moe_layers * local_layer_params(describe_layer(m, true, split));
  const double share = static_cast<double>(most_stage_layers(m, pp)) / m.layers;
  const double ends = pp == 1 ? pc.embedding + pc.output : std::max(pc.embedding, pc.output);
  const double h = static_cast<double>(m.hidden);
  const double final_norm = m.norm == NormKind::layernorm ? 2.0 * h : h;  // whole on every rank
  mem.weights = layer_params * share * wb + final_norm * wb + ends / tp * 2.0;
  // Activations: the largest transient set, the prefill chunk through one
  // layer (residual, fused QKV, gated MLP input and output, 16-bit), or the
  // 32-bit logits of a full decode batch, whichever is larger.
  const double f =
      static_cast<double>(m.is_moe() && m.moe.expert_ffn > 0 ? std::max(m.ffn, m.moe.expert_ffn)
                                                             : m.ffn) /
      tp;
  const double qkv =
      m.is_mla()
          ? m.heads * static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) / tp +
                m.mla.kv_lora_rank + m.mla.qk_rope_head_dim
          : (m.heads + 2.0 * local_kv_heads(m, tp) * tp) * m.head_size() / tp;
  // The engine sizes its working set for a full chunk (it packs prompts).
  const double chunk = static_cast<double>(in.prefill_chunk);
  const double mats = m.mlp == MlpKind::swiglu ? 3.0 : 2.0;
  const double prefill_act = chunk * 2.0 * (2.0 * h + qkv + mats * f);
  const double logits = static_cast<double>(in.max_batch) * static_cast<double>(m.vocab) / tp * 4;
  mem.activations = std::max(prefill_act, logits);
  mem.overhead = k.fixed_overhead_bytes;
  mem.capacity_bytes = gpu.hbm_bytes;
  mem.usable_bytes = gpu.hbm_bytes * k.memory_utilization;
  mem.kv_bytes_per_token = kv_bytes_per_token_per_gpu(m, kv_value_bytes(in.kv_cache), tp, pp);
  const double pool = mem.usable_bytes - mem.weights - mem.activations - mem.overhead;
  mem.kv_pool_bytes = std::max(0.0, pool);
  mem.shortfall_bytes = std::max(0.0, -pool);
  const double seq_bytes =
      mem.kv_bytes_per_token * static_cast<double>(in.prompt_tokens + in.output_tokens);
  const double seqs = mem.kv_pool_bytes > 0 ? std::floor(mem.kv_pool_bytes / seq_bytes) : 0.0;
  mem.max_sequences = static_cast<long long>(std::min(seqs, 1e9));
  mem.fits = mem.max_sequences >= 1;
  mem.kv_cache = seq_bytes * std::max(0, batch);
  return mem;
}

DecodeStep decode_step(const Workload& w, const Server& server, const Gpu& gpu,
                       const Fabric* fabric, int batch, double context, const ServingConstants& k) {
  const ModelShape& m = w.model;
  const int tp = w.layout.tp, pp = w.layout.pp, ep = w.layout.ep;
  const ComputeConstants cc = serving_compute_constants(gpu, k);
  const Precision prec = compute_precision(w, gpu);
  const double pk = compute_peak_flops(gpu, prec);
  const double eff = prec == Precision::fp8 ? cc.fp8_gemm_efficiency : cc.gemm_efficiency;
  const double bw = gpu.hbm_bw_Bps * cc.hbm_efficiency;
  const double wb = weight_bytes_per_param(w.inference.weights, k);
  const double h = static_cast<double>(m.hidden);
  // PP: the batch runs as pp micro-batches, one per stage, so a step is pp
  // stage times at batch / pp (docs/model.md, "Inference").
  const double mb = std::ceil(static_cast<double>(std::max(1, batch)) / pp);
  const double layers = most_stage_layers(m, pp);

  struct Tally {
    double s = 0, bytes = 0, flops = 0;
  };
  // One GEMM [mm x kk] * [kk x nn], weights of wbytes per element, `count` times.
  auto gemm = [&](Tally& t, double mm, double nn, double kk, double wbytes, double count = 1.0) {
    if (mm <= 0 || nn <= 0 || kk <= 0 || count <= 0) return;
    t.s += count * gemm_time_s(mm, nn, kk, pk, gpu.hbm_bw_Bps, cc, eff, wbytes);
    t.bytes += count * (2.0 * (mm * kk + mm * nn) + wbytes * kk * nn);
    t.flops += count * 2.0 * mm * nn * kk;
  };
  const double kvb = kv_value_bytes(w.inference.kv_cache);
  const double heads = static_cast<double>(m.heads) / tp;
  Tally proj, core, dense, moe, head;
  // The attention core reads every sequence's KV cache once (16-bit math).
  auto attention = [&](double kv_bytes_per_seq, double flops_per_seq) {
    core.bytes = mb * kv_bytes_per_seq;
    core.flops = mb * flops_per_seq;
    core.s = std::max(core.bytes / bw, core.flops / (compute_peak_flops(gpu, Precision::bf16) *
                                                     cc.attention_efficiency));
  };
  // The layer's matmuls from its description; MLA decodes weight-absorbed
  // (DeepSeek-V2 §2.1.2): queries and outputs pass through the latent and
  // attention reads the latent cache only.
  LayerSplit split;
  split.tp = tp;
  split.etp = tp;  // a replica's experts spread over EP x TP
  split.ep = ep;
  split.absorbed_mla = true;
  const int moe_layers = moe_layer_count(m);
  const LayerOps dense_ops = describe_layer(m, false, split);
  for_each_matmul(dense_ops, [&](const LayerOp& op, double n) {
    if (op.block == OpBlock::attention) gemm(proj, mb, n, op.k, wb);
    if (op.block == OpBlock::mlp && m.layers - moe_layers > 0) gemm(dense, mb, n, op.k, wb);
  });
  if (m.is_mla()) {
    const MlaShape& x = m.mla;
    const double latent = x.kv_lora_rank + x.qk_rope_head_dim;
    attention(context * latent * kvb, 2.0 * context * heads * (latent + x.kv_lora_rank));
  } else {
    // QK^T and AV: 2 * 2 * context * d FLOPs per head and token.
    const double d_head = m.head_size();
    const double kv_local = local_kv_heads(m, tp) * d_head;
    attention(context * 2.0 * kv_local * kvb, 2.0 * context * heads * 2.0 * d_head);
  }
  if (moe_layers > 0) {
    const MoeShape& e = m.moe;
    // Distinct experts the batch's tokens reach under uniform routing,
    // E * (1 - (1 - top_k/E)^tokens); each is read once. Split over TP, every
    // GPU holds a 1/tp slice of each; with EP, 1/ep of the experts at ep/tp
    // of their width: the same bytes per GPU, wider GEMMs.
    const double reached =
        e.experts * (1.0 - std::pow(1.0 - static_cast<double>(e.top_k) / e.experts, mb));
    const double per_expert = mb * e.top_k / std::max(1.0, reached);
    for_each_matmul(describe_layer(m, true, split), [&](const LayerOp& op, double n) {
      switch (op.block) {
        case OpBlock::router:
          gemm(moe, mb, n, op.k, 2.0);  // 16-bit router
          break;
        case OpBlock::experts:
          // fc1 (with the gate) widens n, fc2 its input k.
          if (op.split == TpSplit::column) {
            gemm(moe, per_expert, n * ep, op.k, wb, reached / ep);
          } else {
            gemm(moe, per_expert, n, op.k * ep, wb, reached / ep);
          }
          break;
        case OpBlock::shared_experts:
          gemm(moe, mb, n, op.k, wb);
          break;
        default:
          break;
      }
    });
  }
  gemm(head, mb, static_cast<double>(m.vocab) / tp, h, 2.0);  // LM head, last stage

  // A stage holds `layers` layers, dense and MoE in the model's proportion;
  // the last stage also runs the LM head (it is the busiest).
  const double moe_share = static_cast<double>(moe_layers) / m.layers;
  const double dense_share = 1.0 - moe_share;
  auto stage = [&](auto field) {
    return layers *
               (field(proj) + field(core) + dense_share * field(dense) + moe_share * field(moe)) +
           field(head);
  };
  DecodeStep d;
  d.gemm_s = pp * (layers * (proj.s + dense_share * dense.s + moe_share * moe.s) + head.s);
  d.attention_s = pp * layers * core.s;
  d.hbm_bytes = pp * stage([](const Tally& t) { return t.bytes; });
  d.flops = pp * stage([](const Tally& t) { return t.flops; });

  // Communication, with the LL protocol's latencies (a few kilobytes each):
  // two all-reduces of the activations per layer (Megatron TP). With EP over
  // the TP ranks every rank already holds every token after the attention
  // all-reduce, so the dispatch is local and the combine is the MLP's
  // all-reduce: the same traffic (vLLM and TensorRT-LLM without attention
  // data parallelism, which is not modelled).
  const ClusterLinks links = replica_links(w, server, gpu, fabric, true, k);
  const double act = mb * h * 2.0;
  const double ar =
      collective_time_s(Collective::all_reduce, act, span_of(tp, 1, links.gpus_per_domain), links);
  const double tp_s = layers * 2.0 * ar;
  const double pp_s = pp > 1 ? collective_time_s(Collective::send_recv, act,
                                                 span_of(2, tp, links.gpus_per_domain), links)
                             : 0.0;
  d.tp_comm_s = pp * tp_s;
  d.pp_comm_s = pp * pp_s;
  d.overhead_s = k.step_overhead_s;
  d.step_s = d.gemm_s + d.attention_s + d.tp_comm_s + d.pp_comm_s + d.overhead_s;
  return d;
}

double prefill_time_s(const Workload& w, const Server& server, const Gpu& gpu, const Fabric* fabric,
                      double tokens, const ServingConstants& k, int sequences) {
  const ModelShape& m = w.model;
  // The training roofline's forward pass of one sequence of `tokens` tokens:
  // GEMMs (FP8 where the weights are FP8), causal FlashAttention, element-wise.
  Workload f = w;
  f.seq_len = std::max(1LL, static_cast<long long>(tokens));
  f.layout.micro_batch = std::max(1, sequences);
  f.layout.cp = 1;
  f.layout.sp = false;
  f.layout.flash_attention = true;
  f.model.dropout = false;
  f.precision = compute_precision(w, gpu);
  const ComputeConstants cc = serving_compute_constants(gpu, k);
  const int moe_layers = moe_layer_count(m);
  double s = (m.layers - moe_layers) * layer_forward(f, gpu, cc, false).total();
  if (moe_layers > 0) s += moe_layers * layer_forward(f, gpu, cc, true).total();
  // LM head for the last token (16-bit).
  s +=
      gemm_time_s(1, static_cast<double>(m.vocab) / w.layout.tp, static_cast<double>(m.hidden),
                  compute_peak_flops(gpu, Precision::bf16), gpu.hbm_bw_Bps, cc, cc.gemm_efficiency);
  // Two all-reduces of the prompt's activations per layer, and one hop per
  // stage boundary (large messages: NCCL's Simple protocol constants).
  const ClusterLinks links = replica_links(w, server, gpu, fabric, false, k);
  const double act =
      static_cast<double>(f.seq_len) * f.layout.micro_batch * static_cast<double>(m.hidden) * 2.0;
  s += m.layers * 2.0 *
       collective_time_s(Collective::all_reduce, act,
                         span_of(w.layout.tp, 1, links.gpus_per_domain), links);
  if (w.layout.pp > 1) {
    s += (w.layout.pp - 1) * collective_time_s(Collective::send_recv, act,
                                               span_of(2, w.layout.tp, links.gpus_per_domain),
                                               links);
  }
  return s + k.step_overhead_s;
}

std::vector<int> batch_options(int limit) {
  std::vector<int> out;
  for (int b = 1; b < limit; b *= 2) out.push_back(b);
  if (limit >= 1) out.push_back(limit);
  return out;
}

ServingEstimate estimate_serving_at(const Workload& w, const Server& server, const Gpu& gpu,
                                    const Fabric* fabric, int batch, const ServingConstants& k) {
  const InferenceSpec& in = w.inference;
  ServingEstimate e;
  const ServingMemory probe = serving_memory(w, gpu, 0, k);
  const long long limit = std::max(1LL, probe.max_sequences);
  e.batch = static_cast<int>(std::clamp<long long>(batch, 1, limit));
  e.memory = serving_memory(w, gpu, e.batch, k);
  const double prompt = static_cast<double>(in.prompt_tokens);
  const double out = static_cast<double>(in.output_tokens);
  e.prefill_s = prefill_time_s(w, server, gpu, fabric, prompt, k);
  // Mean context over a request's decode: the prompt plus half the output.
  e.decode = decode_step(w, server, gpu, fabric, e.batch, prompt + out / 2.0, k);
  // Continuous batching at a steady concurrency B: finishing B requests takes
  // O decode steps plus B prefills (pipelined over the PP stages), so each
  // output token waits a decode step plus B/O prefills (docs/model.md).
  // The engine packs short prompts into one chunk of prefill_chunk tokens
  // (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens), so each
  // request costs its share of a batched prefill, and the PP stages work on
  // different chunks at once.
  e.prefill_batch = static_cast<int>(
      std::clamp<long long>(in.prefill_chunk / std::max(1LL, in.prompt_tokens), 1, e.batch));
  e.prefill_share_s =
      (e.prefill_batch == 1 ? e.prefill_s
                            : prefill_time_s(w, server, gpu, fabric, prompt, k, e.prefill_batch)) /
      e.prefill_batch / w.layout.pp;
  const double cycle_s = out * e.decode.step_s + e.batch * e.prefill_share_s;
  // Between a request's first and last token the other B - 1 sequences are
  // each replaced about once: their prefills stretch its decode steps.
  e.tpot_s = (cycle_s - e.prefill_share_s) / out;
  // A new request waits for the prefills queued before it: arrivals at
  // B / cycle per second, each prefill holding the replica for its share, an
  // M/D/1 queue (Pollaczek-Khinchine: W = rho S / (2 (1 - rho)); rho < 1
  // because the cycle also holds O decode steps).
  const double rho = e.batch * e.prefill_share_s / cycle_s;
  e.queue_s = rho * e.prefill_share_s / (2.0 * (1.0 - rho));
  e.ttft_s = e.prefill_s + e.decode.step_s + e.queue_s;
  e.requests_per_s = e.batch / cycle_s;
  e.output_tokens_per_s = e.requests_per_s * out;
  e.capacity_requests_per_s = e.requests_per_s;
  e.replicas = in.request_rate > 0
                   ? static_cast<int>(std::ceil(in.request_rate / e.requests_per_s - 1e-9))
                   : 1;
  e.replicas = std::max(1, e.replicas);
  e.meets_ttft = in.ttft_s <= 0 || e.ttft_s <= in.ttft_s;
  e.meets_tpot = in.tpot_s <= 0 || e.tpot_s <= in.tpot_s;
  return e;
}

ServingEstimate estimate_serving(const Workload& w, const Server& server, const Gpu& gpu,
                                 const Fabric* fabric, const ServingConstants& k) {
  if (w.inference.batch > 0)
    return estimate_serving_at(w, server, gpu, fabric, w.inference.batch, k);
  const ServingMemory probe = serving_memory(w, gpu, 0, k);
  const long long limit =
      std::max(1LL, std::min<long long>(w.inference.max_batch, probe.max_sequences));
  std::optional<ServingEstimate> best, lowest;
  for (int b : batch_options(static_cast<int>(limit))) {
    const ServingEstimate e = estimate_serving_at(w, server, gpu, fabric, b, k);
    if (!lowest || e.tpot_s < lowest->tpot_s) lowest = e;
    if (!e.meets_ttft || !e.meets_tpot) continue;
    if (!best || e.output_tokens_per_s > best->output_tokens_per_s) best = e;
  }
  if (!best) return *lowest;
  if (w.inference.request_rate <= 0) return *best;
  // A rate to serve: the replicas the best concurrency needs, then the lowest
  // concurrency at which those replicas still carry the rate (lower
  // concurrency, lower TPOT). Throughput grows with concurrency, so bisect.
  const int replicas = best->replicas;
  const double per_replica = w.inference.request_rate / replicas;
  int lo = 1, hi = best->batch;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (estimate_serving_at(w, server, gpu, fabric, mid, k).requests_per_s >= per_replica) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  ServingEstimate e = estimate_serving_at(w, server, gpu, fabric, lo, k);
  if (!e.meets_ttft || !e.meets_tpot || e.requests_per_s < per_replica) return *best;
  e.replicas = replicas;
  e.capacity_requests_per_s = best->requests_per_s;
  return e;
}

}  // namespace scaleout
