#include "perf/step.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "memory/memory.hpp"
#include "model/params.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

PerfConstants perf_constants(const Gpu& gpu, Framework framework, Compile compile) {
  PerfConstants k;
  const FrameworkTraits& t = framework_traits(framework);
  FrameworkConstants f = framework_constants(framework, gpu);
  double dequant = t.dequant_hbm_share;
  if (t.fused_by_compile && compile == Compile::none) {
    f.compute_efficiency = eager_efficiency(gpu);
    dequant = kEagerDequantHbmShare;
  }
  k.compute = scaled_tensor_rates(compute_constants(gpu), f.compute_efficiency);
  k.compute.kernel_floor_s = f.kernel_floor_s;
  k.compute.dequant_hbm_share = dequant;
  k.compute.host_s_per_kernel = t.host_s_per_kernel;
  k.framework = f;
  return k;
}

PerfConstants perf_constants(const Gpu& gpu, Framework framework) {
  return perf_constants(gpu, framework, Compile::all);
}

double eager_efficiency(const Gpu& gpu) {
  // Eager step time = GEMM time + unfused element-wise time; the second is
  // HBM-bound, so its share against the first grows with the GPU's dense
  // FLOPs per HBM byte: 1/e - 1 is proportional to that ratio, anchored at
  // the family's fitted value on the GPUs it was fitted on.
  const GpuFamily& f = gpu.family_data;
  const double flops = gpu.bf16_flops > 0 ? gpu.bf16_flops : gpu.fp16_flops;
  if (f.eager_flops_per_byte <= 0 || flops <= 0 || gpu.hbm_bw_Bps <= 0) return f.eager_efficiency;
  const double ratio = flops / gpu.hbm_bw_Bps / f.eager_flops_per_byte;
  return 1.0 / (1.0 + (1.0 / f.eager_efficiency - 1.0) * ratio);
}

FrameworkConstants framework_constants(Framework framework, const Gpu& gpu) {
  const FrameworkTraits& t = framework_traits(framework);
  FrameworkConstants f;
  f.compute_efficiency = t.eager ? eager_efficiency(gpu) : 1.0;
  f.kernel_floor_s = t.kernel_floor_s;
  f.zero3_hidden_share = t.zero3_hidden_share;
  f.zero3_per_tensor = t.zero3_per_tensor;
  f.lora_zero3_exposed = t.lora_zero3_exposed;
  f.dp_overlap = t.dp_overlap;
  f.tp_backward_overlap = t.tp_backward_overlap;
  f.pp_grad_partitioned = t.pp_grad_partitioned;
  f.pp_serial_exchanges = t.pp_serial_exchanges;
  return f;
}

namespace {

// Matmul weights every token passes through once: active parameters without
// the input embedding (a lookup), with the output projection (also when
// tied): every layer block but the adapters, top_k of the E routed experts.
double matmul_weights(const ModelShape& m, const DescribedLayers& d, int mtp) {
  auto layer = [](const LayerOps& ops, double expert_share) {
    double p = 0;
    for (int b = 0; b < kOpBlocks; ++b) {
      const OpBlock block = static_cast<OpBlock>(b);
      if (block == OpBlock::adapter) continue;
      p += block_params(ops, block) * (block == OpBlock::experts ? expert_share : 1.0);
    }
    return p;
  };
  const int moe_layers = moe_layer_count(m);
  const double h = static_cast<double>(m.hidden);
  const double final_norm = m.norm == NormKind::layernorm ? 2.0 * h : h;
  double n =
      (m.layers - moe_layers) * layer(d.dense, 1.0) + final_norm + static_cast<double>(m.vocab) * h;
  const double expert_share = m.is_moe() ? static_cast<double>(m.moe.top_k) / m.moe.experts : 0.0;
  if (moe_layers > 0) n += moe_layers * layer(d.moe, expert_share);
  if (mtp > 0) {
    // Each MTP depth: a layer of the last layer's kind, the projection 2h -> h
    // and one more output head (Megatron-LM's FLOP count, training.py).
    const double last = moe_layers > 0 ? layer(d.moe, expert_share) : layer(d.dense, 1.0);
    n += mtp * (last + 2.0 * h * h + static_cast<double>(m.vocab) * h);
  }
  return n;
}

// Attention's 12 L w s per token (no weights).
double attention_flops_per_token(const ModelShape& m, long long seq_len, int mtp) {
  const double width =
      m.is_mla()
          ? m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) / 2.0
          : static_cast<double>(m.heads) * m.head_size();
  return 12.0 * (m.layers + mtp) * width * static_cast<double>(seq_len);
}

}  // namespace

double model_flops_per_token(const ModelShape& m, long long seq_len) {
  DescribedLayers d;
  d.dense = describe_layer(m, false);
  if (m.is_moe()) d.moe = describe_layer(m, true);
  return 6.0 * matmul_weights(m, d, m.mtp_layers) +
         attention_flops_per_token(m, seq_len, m.mtp_layers);
}

double model_flops_per_token_6n(const Workload& w, const DescribedLayers& d) {
  const int mtp = trained_mtp_layers(w);
  return 6.0 * matmul_weights(w.model, d, mtp) + attention_flops_per_token(w.model, w.seq_len, mtp);
}

double model_flops_per_token(const Workload& w) {
  return model_flops_per_token(w, describe_layers(w));
}

double model_flops_per_token(const Workload& w, const DescribedLayers& d) {
  const ModelShape& m = w.model;
  const int mtp = trained_mtp_layers(w);
  const double weights = matmul_weights(m, d, mtp);
  const double attention = attention_flops_per_token(m, w.seq_len, mtp);
  if (!is_lora(w)) return 6.0 * weights + attention;
  // Frozen weights: forward and input gradient (4 N, not 6 N); the adapters
  // train (6 N_a). Attention has no weights and stays.
  const int moe_layers = moe_layer_count(m);
  double adapters = (m.layers - moe_layers) * block_params(d.dense, OpBlock::adapter);
  if (moe_layers > 0) adapters += moe_layers * block_params(d.moe, OpBlock::adapter);
  // The frozen norms run no matmul: LoRA's count is of executed matmul work.
  double norms = (m.layers - moe_layers) * block_params(d.dense, OpBlock::norm) +
                 (m.norm == NormKind::layernorm ? 2.0 : 1.0) * static_cast<double>(m.hidden);
  if (moe_layers > 0) norms += moe_layers * block_params(d.moe, OpBlock::norm);
  return 4.0 * (weights - norms) + 6.0 * adapters + attention;
}

namespace {

// 16-bit activations cross the TP, CP, EP and PP links.
constexpr double kActBytes = 2.0;

// Share of the SMs the all-to-all kernels hold while they overlap compute:
// DeepEP's default 20 of an H100's 132 (Megatron-Core's flex dispatcher,
// deepseek-ai/DeepEP README; DeepSeek-V3 report §3.2.2 also dedicates 20 SMs).
constexpr double kOverlapSmShare = 20.0 / 132.0;

struct StageTime {
  double compute = 0;  // forward + backward + recompute, per micro-batch
  double tp = 0, cp = 0, ep = 0;
  double flops = 0;         // hardware FLOPs per micro-batch
  double fsdp_exposed = 0;  // ZeRO-3 gathers not hidden behind the layers, per micro-batch
  double total() const { return compute + tp + cp + ep + fsdp_exposed; }
};

double optimizer_bytes_per_param(Optimizer o) {
  // Read and write of master weights, moments; read gradient, write 16-bit weight.
  switch (o) {
    case Optimizer::adam:
      return 8.0 + 8.0 + 8.0 + 4.0 + 2.0;
    case Optimizer::adam8bit:
      return 8.0 + 4.0 + 4.0 + 2.0;
    case Optimizer::sgd:
      return 8.0 + 8.0 + 4.0 + 2.0;
    case Optimizer::adafactor:
      return 8.0 + 4.0 + 2.0;
    case Optimizer::adam_bf16:
      // Read and write bf16 weights and moments, read the bf16 gradient.
      return 4.0 + 8.0 + 2.0;
    case Optimizer::adam_bf16_moments:
      // Read and write fp32 master weights and bf16 moments, read the fp32
      // gradient, write the 16-bit weight.
      return 8.0 + 8.0 + 4.0 + 2.0;
  }
  return 30.0;
}

// Host CPU AdamW throughput per GPU, in parameters per second
// [derived estimate, no sourced per-core figure]: CPU Adam is memory-bound
// at about 28 bytes per parameter (read fp32 weight, m, v and a 16-bit
// gradient, write the three and a 16-bit weight); a two-socket server's
// ~400 GB/s of usable DRAM bandwidth over 8 GPUs is 50 GB/s per GPU, i.e.
// 1.8e9 parameters/s (docs/model.md, "Offload").
constexpr double kHostAdamParamsPerSecPerGpu = 50e9 / 28.0;

}  // namespace

// Host-link (PCIe) traffic of one micro-batch that offloading adds, beyond
// the micro-batch's compute it overlaps (separate copy streams, prefetch):
// offload: all copies the stage's weights to the GPU for the forward and the
// backward (and the recompute forward) and its trainable gradients back;
// activation_offload sends the saved activations out and back.
double host_offload_exposed_s(const Workload& w, const MemoryEstimate& mem, double compute_s,
                              const Gpu& gpu) {
  const Layout& ly = w.layout;
  if (!ly.offload_params && !ly.activation_offload) return 0;
  const StageMemory& st = mem.peak;
  double bytes = 0;
  if (ly.offload_params) {
    const double passes = 2.0 + recomputed_share(ly, stage_layers(w.model, ly, st.stage));
    // ZeRO-3 shards them over the shard group, the routed experts over the
    // expert-data-parallel replicas (as the memory model).
    const double shard = ly.zero >= 3 ? static_cast<double>(ly.zero_shard_dp()) * ly.cp : 1.0;
    const double expert_shard = ly.zero >= 3 ? static_cast<double>(ly.expert_dp()) : 1.0;
    auto local = [&](double params, double experts) {
      return (params - experts) / shard + experts / expert_shard;
    };
    const double frozen =
        local(st.params - st.trainable_params, st.expert_params - st.trainable_expert_params);
    const double trainable = local(st.trainable_params, st.trainable_expert_params);
    // The weights as held on the host: NF4 under QLoRA, 16-bit frozen LoRA
    // bases, the state policy's weight bytes otherwise.
    const bool qlora = is_lora(w) && w.finetune.method == FinetuneMethod::qlora;
    const double wbytes = qlora        ? kNf4BytesPerParam
                          : is_lora(w) ? 2.0
                                       : state_policy(w).weight_bytes;
    bytes += passes * frozen * wbytes + passes * trainable * state_policy(w).weight_bytes +
             trainable * state_policy(w).grad_bytes;
  }
  if (ly.activation_offload) {
    bytes += 2.0 * st.layers * mem.activation_bytes_per_layer;
  }
  return std::max(0.0, bytes / std::max(1.0, gpu.host_link_Bps) - compute_s);
}

StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k) {
  return estimate_step(w, server, gpu, fabric, k, estimate_memory(w, gpu));
}

StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k,
                           const MemoryEstimate& mem) {
  return estimate_step(w, server, gpu, fabric, k, mem, describe_layers(w));
}

LayoutTimes layout_times(const Workload& w, const Server& server, const Gpu& gpu,
                         const Fabric* fabric, const PerfConstants& k,
                         const DescribedLayers& layers) {
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  LayoutTimes out;
  out.links = resolve_links(server, gpu, fabric, w.cluster.nodes, k.network);
  const ClusterLinks& links = out.links;
  // Groups are placed on NVLink domains (a node, or a whole NVL72 rack).
  const int gpn = out.links.gpus_per_domain;

  // Groups placed in the layout's rank order (Megatron-LM: TP innermost, then
  // CP, DP, PP outermost).
  // The ZeRO / FSDP shard group is DP x CP (or shard_group x CP: the inner
  // data-parallel ranks, FSDP2's (replicate, shard) mesh, MiCS's
  // consecutive-rank partition groups); EP groups are carved out of it.
  const long long shard_stride = std::min(ly.stride(Dim::dp), ly.stride(Dim::cp));
  const GroupSpan tp_g = span_of(ly.tp, ly.stride(Dim::tp), gpn);
  const GroupSpan cp_g = span_of(ly.cp, ly.stride(Dim::cp), gpn);
  // Expert groups (MoE parallel folding): etp innermost, then ep, over the
  // stage's ranks (Megatron-Core's expert rank order tp-ep-dp-pp, tp = etp).
  const int etp = ly.expert_tp();
  const GroupSpan etp_g = span_of(etp, 1, gpn);
  const GroupSpan ep_g = span_of(ly.ep, etp, gpn);
  out.shard_group = span_of(ly.zero_shard_dp() * ly.cp, shard_stride, gpn);
  out.replica_group = span_of(
      ly.zero_replicas(), shard_stride * ly.zero_shard_dp() * static_cast<long long>(ly.cp), gpn);
  // Expert data parallelism: the stage's tp x cp x dp ranks folded as
  // etp x ep x expert-dp, expert-dp outermost (Megatron-Core parallel_state.py
  // expert rank order tp-ep-dp-pp; NeMo Automodel's ep_shard mesh axis).
  out.expert_shard_group =
      span_of(static_cast<int>(ly.expert_dp()), static_cast<long long>(ly.ep) * etp, gpn);

  const double tokens_mb = static_cast<double>(w.seq_len) * ly.micro_batch / ly.cp;
  const double h = static_cast<double>(m.hidden);
  // TP: an all-reduce (or reduce-scatter + all-gather pair with SP) of T*h
  // 16-bit values after each row-parallel matmul forward, and one for each
  // column-parallel input backward (Megatron-LM: two of each per layer).
  out.tp_one = collective_time_s(Collective::all_reduce, tokens_mb * h * kActBytes, tp_g, links);

  auto layer = [&](bool moe_layer) {
    const LayerOps& ops = moe_layer ? layers.moe : layers.dense;
    LayoutTimes::Layer one;
    one.times = layer_times(w, gpu, k.compute, ops);
    if (moe_layer) {
      // Token dispatch (alltoall dispatcher): each rank sends its tokens/tp
      // (sequence-parallel share) top_k x capacity-factor times over the EP
      // group, forward and back (dispatch, combine) in both passes; an
      // expert's etp ranks then gather the copies and reduce-scatter the
      // outputs (Megatron-Core token_dispatcher.py). DeepEP and HybridEP
      // (`moe.dispatcher`) send one network copy per destination node.
      // The most loaded rank receives expert_load times the mean copies and
      // paces the exchange.
      // Token dropping enters through expert_load: padded to capacity every
      // rank sends F x its copies, padding included (docs/model.md, "Token
      // dropping").
      const double copies = m.moe.top_k;
      const double local_tokens = tokens_mb / ly.tp * ops.expert_load;
      if (ly.ep > 1) {
        // Within one node DeepEP's and HybridEP's kernels send a token once
        // to every rank that holds one of its experts (and combine one sum
        // per rank), not once per routed copy: rank_copies_per_token.
        const bool dedup = deduplicated_dispatch(w);
        const double sent = dedup ? rank_copies_per_token(ly.ep, m.moe.top_k) : copies;
        const double a2a_bytes = local_tokens * sent * h * kActBytes;
        const double a2a =
            dedup && ep_g.nodes > 1
                ? deduplicated_dispatch_s(local_tokens * h * kActBytes, m.moe.top_k, ep_g, links)
                : collective_time_s(Collective::all_to_all, a2a_bytes, ep_g, links);
        one.ep = 4.0 * a2a;
      }
      one.etp_one = collective_time_s(Collective::all_reduce,
                                      etp * local_tokens * copies * h * kActBytes, etp_g, links);
    }
    if (ly.cp > 1) {
      // Ring attention passes K and V blocks cp-1 times forward (and K, V and
      // their gradients backward), hidden behind the attention kernels.
      const double kv_local =
          local_kv_heads(m, ly.tp) * m.head_size() * 2.0 * kActBytes * tokens_mb;
      const double hop = collective_time_s(Collective::send_recv, kv_local, cp_g, links);
      const double comm = (ly.cp - 1) * hop * 3.0;
      const double attn = one.times.core.total() * 3.5;
      one.cp = std::max(0.0, comm - attn);
    }
    return one;
  };
  const int moe_first = m.is_moe() ? m.moe.dense_layers : m.layers;
  if (moe_first > 0) out.dense = layer(false);
  if (moe_first < m.layers) out.moe = layer(true);
  out.embedding = embedding_forward_backward(w, gpu, k.compute);
  out.logits = logits_forward_backward(w, gpu, k.compute);
  if (const int mtp = trained_mtp_layers(w); mtp > 0) {
    const OpTimes one = mtp_depth_forward_backward(w, gpu, k.compute);
    out.mtp.gemm_s = mtp * one.gemm_s;
    out.mtp.elementwise_s = mtp * one.elementwise_s;
    out.mtp.flops = mtp * one.flops;
    out.mtp.kernels = mtp * one.kernels;
  }

  if (ly.pp > 1) {
    // Each tensor-parallel rank sends 1/t of the activation and the receiving
    // stage all-gathers it over the TP group (Megatron-LM's scatter/gather,
    // Narayanan et al. 2021 §4.1; DeepSpeed's pipeline engine partitions
    // activations and gradients the same way); with SP they are already split.
    const GroupSpan pp_g = span_of(ly.pp, ly.stride(Dim::pp), gpn);
    const double act = tokens_mb * h * kActBytes;
    const double hop = collective_time_s(Collective::send_recv, act / ly.tp, pp_g, links);
    const double regather =
        ly.sp ? 0.0 : collective_time_s(Collective::all_gather, act, tp_g, links);
    out.pp_hop = hop + regather;
    // The gradient goes back the same way, unless the engine sends it whole
    // (DeepSpeed <= 0.5.3, `pp_grad_partitioned` false): every TP rank then
    // sends the T x h gradient it holds (1/t of it under SP) and the stage
    // before all-gathers its partitioned output once, before the backward
    // (runtime/pipe/engine.py @ v0.5.3 `_exec_send_grads`, `_exec_recv_grads`).
    const double grad_send = k.framework.pp_grad_partitioned || ly.sp
                                 ? hop
                                 : collective_time_s(Collective::send_recv, act, pp_g, links);
    out.pp_grad_hop = grad_send + regather;
    out.pp_p2p = hop + grad_send;
  }
  out.model_flops_per_token = model_flops_per_token(w, layers);
  out.model_flops_per_token_6n =
      is_lora(w) ? model_flops_per_token_6n(w, layers) : out.model_flops_per_token;
  // The dense peak the run's kernels get (compute_peak_flops: the one fallback rule).
  out.peak_flops = compute_peak_flops(gpu, w.precision);
  return out;
}

StepEstimate estimate_step(const Workload& w, const Server& server, const Gpu& gpu,
                           const Fabric* fabric, const PerfConstants& k, const MemoryEstimate& mem,
                           const DescribedLayers& layers) {
  return estimate_step(w, gpu, k, mem, layers, layout_times(w, server, gpu, fabric, k, layers));
}

StepEstimate estimate_step(const Workload& w, const Gpu& gpu, const PerfConstants& k,
                           const MemoryEstimate& mem, const DescribedLayers& layers,
                           const LayoutTimes& lt) {
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  const int p = std::max(1, ly.pp);
  const double v = std::max(1, ly.interleave);
  const ClusterLinks& links = lt.links;
  const GroupSpan& shard_g = lt.shard_group;
  const bool lora = is_lora(w);
  const bool qlora = lora && w.finetune.method == FinetuneMethod::qlora;
  const StatePolicy pol = state_policy(w);
  const FrameworkTraits& traits = framework_traits(w.framework);
  const bool hides_comm = p > 1 && schedule_hides_comm(ly.schedule);
  // DualPipe: rank r runs half the micro-batches through stage r and half
  // through stage p-1-r (pipeline.hpp).
  const bool two_stages = schedule_parameter_copies(ly.schedule, p) == 2;

  // One layer of one micro-batch under the recompute policy and ZeRO stage.
  // No global batch given: p micro-batches per step, as the memory model assumes.
  const double global_batch = w.global_batch > 0 ? static_cast<double>(w.global_batch)
                                                 : static_cast<double>(ly.micro_batch) * ly.dp * p;
  const double mb = std::max(1.0, global_batch / (static_cast<double>(ly.micro_batch) * ly.dp));

  // Full recompute runs the forward again for every layer, partial recompute
  // (recompute_layers) for its share `rc_share` of the stage's layers.
  auto layer_time = [&](bool moe_layer, double rc_share) {
    const LayerOps& ops = moe_layer ? layers.moe : layers.dense;
    const LayoutTimes::Layer& one = moe_layer ? lt.moe : lt.dense;
    const OpTimes& f = one.times.forward;
    const OpTimes& b = one.times.backward;
    StageTime st;
    double compute = f.total() + b.total();
    double flops = f.flops + b.flops;
    const double reductions = ops.tp_reductions;
    // Backward: the column-parallel layers (QKV, MLP in) all-reduce their
    // input gradients; overlapped, they hide behind the weight-gradient GEMMs,
    // about half of the forward GEMM time (QKV + MLP in: 7/12 of its FLOPs).
    const double tp_backward = k.framework.tp_backward_overlap
                                   ? std::max(0.0, reductions * lt.tp_one - 0.5 * f.gemm_s)
                                   : reductions * lt.tp_one;
    // The routed experts' expert-TP gather and reduce-scatter, both passes.
    const double etp_comm = ops.etp_reductions * one.etp_one;
    double tp = reductions * lt.tp_one + tp_backward + 2.0 * etp_comm;
    double ep = one.ep;
    if (ly.recompute == Recompute::full) {
      compute += rc_share * f.total();
      flops += rc_share * f.flops;
      tp += rc_share * (reductions * lt.tp_one + etp_comm);
      ep *= 1.0 + 0.5 * rc_share;
    } else if (ly.recompute == Recompute::selective) {
      if (traits.selective == SelectiveRecompute::op_level_sac) {
        // Op-level SAC keeps every second matmul output: the others and all
        // element-wise ops run again; the attention output is kept.
        compute += 0.5 * f.gemm_s + one.times.elementwise_s;
        flops += 0.5 * (f.flops - one.times.core.flops);
      } else {
        // Megatron-Core's named modules (layout recompute_modules; the
        // default, core_attn, is the attention core alone): their forward
        // runs again, with the TP reductions of their row-parallel matmuls
        // and, for the whole MoE block, its dispatch and combine (the
        // forward half of the all-to-all time).
        const RecomputeModules mods = ly.recompute_modules;
        const RerunPart again = rerun_forward(one.times, mods);
        compute += again.forward.total();
        flops += again.forward.flops;
        tp += again.tp_reductions * lt.tp_one + again.etp_reductions * one.etp_one;
        if ((mods & module_bit(RecomputeModule::moe)) != 0 && ops.moe) ep *= 1.5;
      }
    }
    // DualPipe(V) pairs every forward chunk with a backward chunk for the
    // same purpose (arXiv:2412.19437 section 3.2.1).
    if ((ly.ep_overlap || hides_comm) && ep > 0) {
      // One micro-batch's dispatch and combine run behind another's forward
      // and backward of the same layer (Megatron-Core's 1F1B all-to-all
      // overlap, DualPipe); the communication kernels take
      // kOverlapSmShare of the SMs from the GEMMs meanwhile. The first
      // forward and the last backward have no partner: 1/m stays exposed.
      const double overlapped = compute * (1.0 - kOverlapSmShare);
      const double hidden = std::min(ep, overlapped);
      compute += hidden * kOverlapSmShare / (1.0 - kOverlapSmShare);
      ep = (ep - hidden) + hidden / mb;
    }
    // Host launch floor: the host issues the layer's kernels ahead of the GPU
    // and the GPU waits only where issuing them takes longer than running
    // them with the exposed communication (docs/model.md, "Host launch
    // floor"). Per layer, as the MoE dispatcher synchronises the host with
    // the GPU in every MoE layer's forward (Megatron-Core's all-to-all
    // dispatcher before the all-to-all, for its split sizes): the part from
    // the dispatch to the combine runs at the slower of host and GPU on its
    // own, with the dispatch all-to-all (a quarter of the layer's) as GPU
    // work the host issues behind; full recompute runs it again.
    double host = one.times.host_s;
    if (ly.recompute == Recompute::full) host += rc_share * one.times.host_forward_s;
    if (ly.recompute == Recompute::selective && w.cuda_graphs == CudaGraphs::none &&
        traits.selective != SelectiveRecompute::op_level_sac) {
      host += rerun_forward(one.times, ly.recompute_modules).forward.kernels *
              k.compute.host_s_per_kernel;
    }
    const double syncs = 1.0 + (ly.recompute == Recompute::full ? rc_share : 0.0);
    const double host_dispatch = syncs * one.times.host_dispatch_s;
    // No synchronisation (a dense layer, full graphs, drop-and-pad token
    // dropping): no part is timed apart.
    const bool synced = one.times.host_dispatch_s > 0;
    const double gpu_dispatch = synced ? syncs * (one.times.dispatch_gpu_s + 0.25 * one.ep) : 0.0;
    const double gpu_s = compute + tp + ep + one.cp;
    compute += std::max(0.0, host_dispatch - gpu_dispatch) +
               std::max(0.0, (host - host_dispatch) - std::max(0.0, gpu_s - gpu_dispatch));
    st.compute = compute;
    st.flops = flops;
    st.tp = tp;
    st.ep = ep;
    st.cp = one.cp;
    // ZeRO-3 / FSDP: gather the layer's weights forward and backward, reduce-
    // scatter its gradients; prefetching hides them behind the layer's compute.
    // The routed experts shard over the expert-data-parallel group instead
    // (Layout::expert_dp; NeMo Automodel wraps them in an FSDP unit of their
    // own on its ep_shard mesh, and leaves them unsharded when that has one rank).
    const double expert_params = block_local_params(ops, OpBlock::experts);
    const bool dense_sharded = ly.zero_shard_dp() * ly.cp > 1;
    const bool experts_sharded = expert_params > 0 && ly.expert_dp() > 1;
    if (ly.zero >= 3 && (dense_sharded || experts_sharded)) {
      // The layer's weights one GPU holds (its description; adapters are not
      // sharded), but the routed experts.
      const double layer_params = local_layer_params(ops) - expert_params;
      // FSDP gathers one flat buffer per block; DeepSpeed ZeRO-3 one collective
      // per weight tensor (QKV, output, the MLP matrices), each paying the
      // ring's latency across all shard ranks; the routed experts' matrices
      // are one more per local expert.
      const double mlp_matrices = m.mlp == MlpKind::swiglu ? 3.0 : 2.0;
      const double pieces = k.framework.zero3_per_tensor ? 2.0 + mlp_matrices : 1.0;
      const double expert_pieces =
          k.framework.zero3_per_tensor && m.is_moe()
              ? mlp_matrices * std::max(1.0, static_cast<double>(m.moe.experts) / ly.ep)
              : 1.0;
      // Per-tensor gathers run as one flat ring over the whole shard group:
      // every rank's share crosses its own rail, with no node-local stage
      // (DeepSpeed added hierarchical gathers later, in MiCS and ZeRO++ hpZ).
      // MiCS (a hybrid shard group under DeepSpeed) gathers hierarchically,
      // node-local first (arXiv:2205.00119 section 4.2).
      const CrossNode algo = k.framework.zero3_per_tensor && ly.zero_replicas() == 1
                                 ? CrossNode::flat_ring
                                 : CrossNode::hierarchical;
      // The gathered weights as the GPUs hold them: 16-bit, or NF4 under
      // QLoRA (bitsandbytes' Params4bit packed into a 16-bit quant_storage
      // for FSDP, fsdp_qlora; torchao's NF4Tensor all-gathers its packed
      // data and scales, torchtune): the memory model's gathered buffer.
      const double gathered_bytes = qlora ? kNf4BytesPerParam : 2.0;
      // FSDP1 no_sync() accumulation (FrameworkTraits::no_sync_unsharded_grads):
      // a block's flat gradient covers its frozen weights too (use_orig_params),
      // so LoRA reduce-scatters the whole block, once a step at the last
      // micro-batch (the memory model holds the same unsharded gradient).
      const bool no_sync = traits.no_sync_unsharded_grads;
      const double grad_share = lora && !no_sync ? 0.0 : pol.grad_bytes;
      // One group's collectives: its weights' gather and its gradients'
      // reduce-scatter, `n` of each (collective_time_s is 0 over one rank).
      auto gather_of = [&](double params, const GroupSpan& g, double n) {
        return n * collective_time_s(Collective::all_gather, params * gathered_bytes / n, g, links,
                                     algo);
      };
      auto reduce_of = [&](double params, const GroupSpan& g, double n) {
        return n * collective_time_s(Collective::reduce_scatter, params * grad_share / n, g, links,
                                     algo);
      };
      const GroupSpan& expert_g = lt.expert_shard_group;
      const double gather =
          gather_of(layer_params, shard_g, pieces) +
          (expert_params > 0 ? gather_of(expert_params, expert_g, expert_pieces) : 0);
      const double reduce =
          reduce_of(layer_params, shard_g, pieces) +
          (expert_params > 0 ? reduce_of(expert_params, expert_g, expert_pieces) : 0);
      // FSDP2 under a pipeline (torchtitan) gathers a stage once per step and
      // reduce-scatters its accumulated gradients once: per micro-batch, 1/m.
      // no_sync reduce-scatters once a step but gathers every micro-batch.
      const double comm = traits.pp_keeps_unsharded && p > 1 ? (gather + reduce) / mb
                          : no_sync                          ? 2.0 * gather + reduce / mb
                                                             : 2.0 * gather + reduce;
      const double hidden =
          lora && k.framework.lora_zero3_exposed ? 0.0 : k.framework.zero3_hidden_share;
      st.fsdp_exposed = std::max(0.0, comm - hidden * compute);
    }
    return st;
  };

  // Stages (workload/pipeline.hpp: split evenly, or the layout's first/last
  // sizes): the first holds the embedding, the last the output layer and
  // loss. Layers of one kind cost the same under one recompute share, so one
  // of each is timed per share (partial recompute differs between stages
  // only when their layer counts do) and every stage is summed from counts
  // (a middle stage of MoE layers can be the slowest).
  const int moe_first = m.is_moe() ? m.moe.dense_layers : m.layers;
  struct ShareTimes {
    double share = -1;
    StageTime dense, moe;
  };
  std::array<ShareTimes, 4> timed;  // the few shares a pipeline's stages have
  ShareTimes spare;                 // a fifth share (not expected), timed each time
  auto times_at = [&](double share) -> const ShareTimes& {
    ShareTimes* slot = &spare;
    for (ShareTimes& x : timed) {
      if (x.share == share) return x;
      if (x.share < 0) {
        slot = &x;
        break;
      }
    }
    slot->share = share;
    if (moe_first > 0) slot->dense = layer_time(false, share);
    if (moe_first < m.layers) slot->moe = layer_time(true, share);
    return *slot;
  };
  // MTP depths run on the last stage, each a layer of the last layer's kind
  // (Megatron-Core's default placement, multi_token_prediction.py).
  const int mtp = trained_mtp_layers(w);
  auto stage_counts = [&](int s, int& dense_n, int& moe_n) {
    const StageLayers here = stage_layers(m, ly, s);
    dense_n = here.dense;
    moe_n = here.moe;
    if (here.output) (moe_first < m.layers ? moe_n : dense_n) += mtp;
    return ly.recompute == Recompute::full ? recomputed_share(ly, here) : 0.0;
  };
  // Totals first (one multiply-add per stage), then the slowest stage's parts.
  double stage_sum = 0;  // one micro-batch through every stage
  double slowest_total = -1;
  int slowest_s = 0;
  // Middle stages of one layer count cost the same unless the model mixes
  // dense and MoE layers (their placement differs): timed once per run of them.
  const bool mixed = moe_first > 0 && moe_first < m.layers;
  int previous_layers = -1;
  double previous_t = 0;
  std::vector<double> stage_t;  // DualPipe: every stage's time, for the pairs
  if (two_stages) stage_t.resize(static_cast<size_t>(p));
  for (int s = 0; s < p; ++s) {
    if (!mixed && s > 0 && s < p - 1) {
      const int n = rank_layer_count(m.layers, ly, s);
      if (n == previous_layers) {
        stage_sum += previous_t;
        if (two_stages) stage_t[static_cast<size_t>(s)] = previous_t;
        continue;  // not slower than the stage before it
      }
      previous_layers = n;
    }
    int dense_n = 0, moe_n = 0;
    const ShareTimes& one = times_at(stage_counts(s, dense_n, moe_n));
    double t = dense_n * one.dense.total() + moe_n * one.moe.total();
    if (s == 0) t += lt.embedding.total();
    if (s == p - 1) t += lt.logits.total() + lt.mtp.total();
    stage_sum += t;
    previous_t = t;
    if (two_stages) stage_t[static_cast<size_t>(s)] = t;
    if (t > slowest_total) {
      slowest_total = t;
      slowest_s = s;
    }
  }
  if (two_stages) {
    // The slowest rank: the mean of its two stages.
    slowest_total = -1;
    for (int s = 0; s < p / 2; ++s) {
      const double t =
          0.5 * (stage_t[static_cast<size_t>(s)] + stage_t[static_cast<size_t>(p - 1 - s)]);
      if (t > slowest_total) {
        slowest_total = t;
        slowest_s = s;
      }
    }
  }
  auto stage_parts = [&](int s) {
    StageTime st;
    int dense_n = 0, moe_n = 0;
    const ShareTimes& one = times_at(stage_counts(s, dense_n, moe_n));
    for (const auto& [x, n] : {std::pair{&one.dense, dense_n}, std::pair{&one.moe, moe_n}}) {
      st.compute += n * x->compute;
      st.flops += n * x->flops;
      st.tp += n * x->tp;
      st.ep += n * x->ep;
      st.cp += n * x->cp;
      st.fsdp_exposed += n * x->fsdp_exposed;
    }
    if (s == 0) st.compute += lt.embedding.total();
    if (s == p - 1) {
      st.compute += lt.logits.total() + lt.mtp.total();
      st.flops += lt.logits.flops + lt.mtp.flops;
    }
    return st;
  };
  StageTime slowest = stage_parts(slowest_s);
  if (two_stages) {
    const StageTime o = stage_parts(p - 1 - slowest_s);
    slowest.compute = 0.5 * (slowest.compute + o.compute);
    slowest.flops = 0.5 * (slowest.flops + o.flops);
    slowest.tp = 0.5 * (slowest.tp + o.tp);
    slowest.ep = 0.5 * (slowest.ep + o.ep);
    slowest.cp = 0.5 * (slowest.cp + o.cp);
    slowest.fsdp_exposed = 0.5 * (slowest.fsdp_exposed + o.fsdp_exposed);
  }

  StepEstimate out;
  out.microbatches = mb;
  StepBreakdown& br = out.breakdown;
  br.compute = mb * slowest.compute;
  br.tp_comm = mb * slowest.tp;
  br.cp_comm = mb * slowest.cp;
  br.ep_comm = mb * slowest.ep;
  br.dp_comm = mb * slowest.fsdp_exposed;
  // Pipeline: the slowest stage paces the m micro-batches; fill and drain pass
  // one micro-batch through every other stage, divided by v chunks
  // (Narayanan et al. 2021 §2.2: (p-1)/v stage-times when stages are equal).
  // One activation and its gradient cross each stage boundary per chunk and
  // micro-batch.
  // Zero-bubble and DualPipe schedules scale 1F1B's bubble by
  // schedule_bubble_ratio (pipeline.hpp), with B the layer's backward and W
  // its weight-gradient GEMMs (one per forward GEMM, the forward's FLOPs);
  // DualPipe(V) hides the pipeline sends behind paired chunks.
  if (p > 1) {
    const LayoutTimes::Layer& kind = moe_first < m.layers ? lt.moe : lt.dense;
    const double fb = kind.times.forward.total() + kind.times.backward.total();
    const double b_share = fb > 0 ? kind.times.backward.total() / fb : 2.0 / 3.0;
    const double w_share = fb > 0 ? kind.times.forward.gemm_s / fb : 1.0 / 3.0;
    br.bubble =
        (stage_sum - slowest_total) / v * schedule_bubble_ratio(ly.schedule, p, b_share, w_share);
    // Under serial blocking exchanges (DeepSpeed's PipelineEngine,
    // FrameworkTraits::pp_serial_exchanges) a stage with two neighbours waits
    // for both boundaries' transfers in turn: the point-to-point part twice.
    const double serial = k.framework.pp_serial_exchanges && p >= 3 ? lt.pp_p2p : 0.0;
    br.pp_comm = hides_comm ? 0.0 : v * mb * (lt.pp_hop + lt.pp_grad_hop + serial);
  }

  // Data-parallel gradient reduction of the stage's parameters, overlapped with
  // the last micro-batch's backward pass; ZeRO-1/2 then all-gather the updated
  // 16-bit weights after the optimizer step, exposed (Megatron-LM overlaps it
  // with the next forward only with --overlap-param-gather, off by default).
  // The routed experts' gradients and weights go over the expert-data-parallel
  // group, which also shards their optimizer state (Megatron-Core keeps them in
  // buffers of their own on that group: distributed_data_parallel.py:285-289,
  // distrib_optimizer.py:211-231 at d98e8a6); none when it is one rank.
  const double trainable = mem.peak.trainable_params;
  const double trainable_experts = mem.peak.trainable_expert_params;
  const double trainable_dense = trainable - trainable_experts;
  const GroupSpan& expert_g = lt.expert_shard_group;
  if (ly.zero < 3 && (ly.dp * ly.cp > 1 || expert_g.size > 1)) {
    const Collective grad_op = ly.zero == 0 ? Collective::all_reduce : Collective::reduce_scatter;
    const double reduce =
        collective_time_s(grad_op, trainable_dense * pol.grad_bytes, shard_g, links) +
        collective_time_s(grad_op, trainable_experts * pol.grad_bytes, expert_g, links);
    // --fp8-param-gather gathers the weights in FP8 (the layer weights, which
    // dominate, are counted at 1 byte for all); LoRA trains 16-bit adapters only.
    const double weight_bytes = ly.fp8_param_gather && !lora ? 1.0 : 2.0;
    const double gather =
        ly.zero == 0 ? 0.0
                     : collective_time_s(Collective::all_gather, trainable_dense * weight_bytes,
                                         shard_g, links) +
                           collective_time_s(Collective::all_gather,
                                             trainable_experts * weight_bytes, expert_g, links);
    const double backward_last =
        k.framework.dp_overlap && ly.dp_overlap ? slowest.compute * 2.0 / 3.0 : 0.0;
    br.dp_comm += std::max(0.0, reduce - backward_last) + gather;
  }
  if (ly.zero >= 1 && ly.zero_replicas() > 1) {
    // Hybrid sharding: each rank's gradient shard is all-reduced across the
    // replicas of its shard group once a step (MiCS's second hop at the
    // accumulation boundary, arXiv:2205.00119 section 4.3; FSDP HYBRID_SHARD's
    // all-reduce after the reduce-scatter), behind the last backward where
    // the framework overlaps its gradient reduction, as above.
    const double shard_grads =
        trainable / (static_cast<double>(ly.zero_shard_dp()) * ly.cp) * pol.grad_bytes;
    const double all_reduce =
        collective_time_s(Collective::all_reduce, shard_grads, lt.replica_group, links);
    const double backward_last =
        k.framework.dp_overlap && ly.dp_overlap ? slowest.compute * 2.0 / 3.0 : 0.0;
    br.dp_comm += std::max(0.0, all_reduce - backward_last);
  }

  // Optimizer: a memory-bound pass over the local (sharded) optimizer state,
  // the routed experts' sharded over the expert-data-parallel replicas (as in
  // the memory model).
  // (DualPipe's two copies of a stage share one optimizer shard group.)
  const double copies = schedule_parameter_copies(ly.schedule, p);
  const double shard =
      ly.zero >= 1 ? static_cast<double>(ly.zero_shard_dp()) * ly.cp * copies : 1.0;
  const double expert_shard = ly.zero >= 1 ? static_cast<double>(ly.expert_dp()) * copies : 1.0;
  const double local_params = trainable_dense / shard + trainable_experts / expert_shard;
  br.optimizer = local_params * optimizer_bytes_per_param(w.optimizer) /
                 (gpu.hbm_bw_Bps * k.compute.hbm_efficiency);
  if (ly.offload_optimizer && w.optimizer == Optimizer::adam8bit) {
    // bitsandbytes' 8-bit AdamW has no CPU step: "offloaded" 8-bit state is
    // its paged state, in CUDA unified memory, updated by the GPU kernel. The
    // GPU keeps what the step's peak leaves free; the rest migrates in for
    // the step and the pages it displaces go back out, both over the host link.
    const double state = mem.host_offload_bytes - mem.peak.host_bytes;
    const double overflow = std::max(0.0, state - std::max(0.0, mem.headroom_bytes));
    br.optimizer += 2.0 * overflow / std::max(1.0, gpu.host_link_Bps);
  } else if (ly.offload_optimizer) {
    // Gradients down and weights up over PCIe, then Adam on the host CPU.
    br.optimizer = local_params * (4.0 + 2.0) / std::max(1.0, gpu.host_link_Bps) +
                   local_params / kHostAdamParamsPerSecPerGpu;
  }
  br.other = mb * host_offload_exposed_s(w, mem, slowest.compute, gpu);

  out.step_s = br.total();
  out.tokens_per_step = global_batch * static_cast<double>(w.seq_len);
  const double gpus = static_cast<double>(ly.gpus());
  out.tokens_per_s = out.tokens_per_step / out.step_s;
  out.tokens_per_s_per_gpu = out.tokens_per_s / gpus;
  out.model_flops_per_step = out.tokens_per_step * lt.model_flops_per_token;
  // Executed FLOPs: every micro-batch on every stage, data-parallel replicas.
  out.hardware_flops_per_step = mb * slowest.flops * p * ly.dp * ly.cp * ly.tp;
  out.mfu = out.model_flops_per_step / (out.step_s * gpus * lt.peak_flops);
  out.mfu_6n_equivalent =
      out.tokens_per_step * lt.model_flops_per_token_6n / (out.step_s * gpus * lt.peak_flops);
  out.hfu = out.hardware_flops_per_step / (out.step_s * gpus * lt.peak_flops);
  if (w.tokens > 0) out.time_to_train_s = w.tokens / out.tokens_per_step * out.step_s;
  out.network_wait_fraction =
      (br.tp_comm + br.cp_comm + br.ep_comm + br.pp_comm + br.dp_comm) / out.step_s;
  return out;
}

std::optional<StageSplit> balanced_stage_split(const Workload& w, const LayoutTimes& lt) {
  const ModelShape& m = w.model;
  const LayoutTimes::Layer& one = moe_layer_count(m) > 0 ? lt.moe : lt.dense;
  const double layer_s = one.times.forward.total() + one.times.backward.total();
  if (!(layer_s > 0)) return std::nullopt;
  const double first_extra = lt.embedding.total() / layer_s;
  const double last_extra = (lt.logits.total() + lt.mtp.total()) / layer_s + trained_mtp_layers(w);
  return balanced_stage_split(m.layers, w.layout, first_extra, last_extra);
}

}  // namespace scaleout
