#include "memory/memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/params.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

namespace {

// The 16-bit logits the output projection writes.
constexpr double kLogit16 = 2.0;
// A loss compiled by torch.compile (compile: all): Inductor fuses the fp32
// upcast, the log-softmax and its backward into kernels that keep only each
// row's log-sum-exp, so the bf16 logits and their bf16 gradient remain: 2 + 2
// (docs/model.md, "Logits and loss").
constexpr double kCompiledLossLogitBytes = 4.0;
// The loss taken of the 16-bit logits themselves (loss_upcast false): PyTorch's
// log_softmax + nll_loss in the logits' dtype hold three 16-bit tensors of
// n_tok x V at the peak, in the forward pass the logits, their shifted
// contiguous copy and the log-probabilities, in the backward pass the
// log-probabilities, their gradient and the logits' gradient: 2 + 2 + 2, the
// fp32 path's 4 + 4 + 4 at half the width (docs/model.md, "Logits and loss").
constexpr double kLoss16LogitBytes = 3.0 * kLogit16;
// Bytes per logit alive at the peak of the loss computation: the framework's
// (workload/framework.hpp, docs/model.md "Logits and loss"), the 16-bit
// loss's or the compiled loss's where that is fewer.
double logit_bytes(const Workload& w) {
  double b = framework_traits(w.framework).logit_bytes;
  if (!w.loss_upcast) b = std::min(b, kLoss16LogitBytes);
  return w.compile == Compile::all ? std::min(b, kCompiledLossLogitBytes) : b;
}
// Chunked cross-entropy (loss_chunks c > 1, torchtune CEWithChunkedOutputLoss):
// the 16-bit logits are all kept, but only one chunk at a time is upcast and
// differentiated, so the rest of the loss's bytes per logit fall by c.
double chunked_logit_bytes(const Workload& w) {
  const double b = logit_bytes(w);
  if (w.loss_chunks <= 1 || b <= kLogit16) return b;
  return kLogit16 + (b - kLogit16) / w.loss_chunks;
}
// Activations are stored in 16-bit; dropout masks are 1 byte per element.
constexpr double kAct = 2.0;
constexpr double kMask = 1.0;
// An FP8 linear of Transformer Engine, which Megatron-Core and NeMo run FP8
// through, saves its FP8-cast input for the weight gradient (1 byte) instead
// of the 16-bit one (TE pytorch/module/linear.py: `saved_inputmat` is the FP8
// `inputmat` when fp8 is on; LayerNormLinear and LayerNormMLP keep their
// normalised input and the activation output the same way). Attention,
// norms, the router, MoE experts and LoRA runs stay 16-bit, and so does every
// other framework's FP8 path: an upper bound where the saving is not
// established.
constexpr double kFp8 = 1.0;
// Gradients accumulated in fp32 (FSDP2's reduce dtype under torchtitan).
constexpr double kFp32 = 4.0;

// Bytes per element of a stored GEMM input. Under LoRA the frozen FP8 linear
// computes no weight gradient and saves nothing; the adapter beside it keeps
// the 16-bit input.
double gemm_input_bytes(const Workload& w) {
  return (te_fp8(w) || fp8_activation_cache(w)) && !is_lora(w) ? kFp8 : kAct;
}
// Bytes per element of the MoE experts' SwiGLU input: DeepSeek-V3 caches it
// in FP8 with its fine-grained (1 x 128 tile) quantisation and recomputes
// the SwiGLU output from it (report §3.3.4, "Low-Precision Activation" (2));
// otherwise 16-bit.
double moe_act_input_bytes(const Workload& w) { return fp8_activation_cache(w) ? kFp8 : kAct; }

// Stage micro-batches of rank s's activations alive at the peak of
// Megatron-Core's interleaved schedule (pipeline_parallel/schedules.py @
// d98e8a6): forward chunks run in the order of `get_schedule_table` (groups
// of N micro-batches, microbatch_group_size_per_vp_stage: p, or the smallest
// legal group when p does not divide m, interleave_group_size; within a
// group chunk 0 for each of them, then chunk 1, ...), backward chunks in the
// same order with the chunk reversed (`get_model_chunk_id`); rank s first
// runs W = 2 (p - s - 1) + (v - 1) N forwards (`get_pp_rank_microbatches`),
// then one forward and one backward per step. The peak is the most layers
// alive after a steady-state forward, over the rank's layers. With chunks of
// equal size it is min(m v, W + 1) / v; with unequal chunks (layers not a
// multiple of v) it follows which chunk each pass runs.
double interleaved_in_flight(const ModelShape& model, const Layout& ly, int s, double m_steps) {
  const int p = std::max(1, ly.pp);
  const int v = pipeline_chunks(ly);
  const long long mbs = std::max(1LL, std::llround(m_steps));
  const long long n = interleave_group_size(p, mbs);
  const double warmup_closed = 2.0 * (p - s - 1) + (v - 1.0) * static_cast<double>(n);
  const int layers = rank_layer_count(model.layers, ly, s);
  // Chunks are equal when v divides the rank's layers (chunk_layer_count).
  if (layers % v == 0 || layers <= 0) return std::min(m_steps * v, warmup_closed + 1.0) / v;
  const long long total = mbs * v;
  // Groups of n micro-batches; the last one (Megatron: the group whose end
  // reaches m) takes the micro-batches left. Passes before it: t0.
  const long long last_start = (mbs - 1) / n * n;
  const long long last_size = mbs - last_start;
  const long long t0 = last_start * v;
  const long long period = n * v;
  // Layers run by the first j passes, forward (chunks in order) or backward
  // (reversed): whole groups, whole chunks of the current group, then single
  // passes of its current chunk.
  auto passes = [&](bool backward, long long j) {
    auto size = [&](long long c) {
      return chunk_layer_count(model.layers, ly, s, static_cast<int>(backward ? v - 1 - c : c));
    };
    auto within = [&](long long r, long long group) {
      const long long i = r / group;
      long long before = 0;  // layers of the chunks before chunk i
      for (long long c = 0; c < i && c < v; ++c) before += size(c);
      return before * group + (i < v ? (r % group) * size(i) : 0);
    };
    if (j <= t0) return j / period * n * layers + within(j % period, n);
    return last_start * layers + within(j - t0, last_size);
  };
  const long long warmup = std::min(total, static_cast<long long>(warmup_closed));
  const long long steady = total - warmup;
  if (steady == 0) return static_cast<double>(passes(false, total)) / layers;
  // After steady-state forward k the rank holds the first warmup + k + 1
  // forward passes less the first k backward ones. Within whole groups this
  // repeats every p v steps, so the first period and the steps whose passes
  // reach the last group are all that can differ.
  long long peak = passes(false, warmup);
  auto step = [&](long long k) {
    peak = std::max(peak, passes(false, warmup + k + 1) - passes(true, k));
  };
  for (long long k = 0; k < std::min(steady, period); ++k) step(k);
  for (long long k = std::max(0LL, t0 - warmup - period); k < steady; ++k) step(k);
  return static_cast<double>(peak) / layers;
}

double optimizer_moment_bytes(const Workload& w) {
  switch (w.optimizer) {
    case Optimizer::adam:
      return 8.0;  // fp32 m and v
    case Optimizer::adam8bit:
      // 8-bit m and v plus an fp32 absmax per 256-element block of each
      // (bitsandbytes optim/optimizer.py, blocksize 256): 2 + 2 x 4/256.
      return 2.0 + 2.0 * 4.0 / 256.0;
    case Optimizer::adam_bf16:
    case Optimizer::adam_bf16_moments:
      return 4.0;  // bf16 m and v
    case Optimizer::sgd:
      return 4.0;  // fp32 momentum
    case Optimizer::adafactor: {
      // Factored second moment: a row and a column vector per matrix
      // (Shazeer & Stern 2018), 4 bytes each, no first moment.
      const double h = static_cast<double>(w.model.hidden);
      const double f = static_cast<double>(std::max<long long>(w.model.ffn, w.model.hidden));
      return 4.0 * (1.0 / h + 1.0 / f);
    }
  }
  return 8.0;
}

// Bytes per local token stored by one described layer with nothing
// recomputed, or with the attention core dropped when `core_recomputed`
// (selective recompute or FlashAttention, which never materialises the
// s x s scores): every operation's saved input and output (Korthikanti et al.
// 2022 §4.1: 34sbh + 5as^2b for GPT with dropout), and the attention core's
// softmax (and dropout) or FlashAttention's log-sum-exp. The tensors that
// recomputing `dropped` frees (selective recompute of named modules,
// StoredTensor::dropped_by) are left out.
double layer_bytes_per_token(const Workload& w, const LayerOps& ops, bool core_recomputed,
                             RecomputeModules dropped = 0) {
  const double gemm_in = gemm_input_bytes(w);
  const double act_in = moe_act_input_bytes(w);
  double bytes = kAct * stored_elems(ops, Stored::act16) +
                 gemm_in * stored_elems(ops, Stored::gemm_input) +
                 act_in * stored_elems(ops, Stored::moe_act_input) +
                 kMask * stored_elems(ops, Stored::mask) + 4.0 * stored_elems(ops, Stored::fp32);
  if (dropped != 0) {
    auto bytes_of = [&](const StoredTensor& t) {
      if ((t.dropped_by & dropped) == 0) return 0.0;
      switch (t.kind) {
        case Stored::act16:
          return kAct * t.elems;
        case Stored::gemm_input:
          return gemm_in * t.elems;
        case Stored::moe_act_input:
          return act_in * t.elems;
        case Stored::mask:
          return kMask * t.elems;
        case Stored::fp32:
          return 4.0 * t.elems;
        case Stored::none:
          break;
      }
      return 0.0;
    };
    for (const LayerOp& op : ops) bytes -= bytes_of(op.input) + bytes_of(op.output);
  }
  const double heads = ops.core_heads;
  const double s_kv = static_cast<double>(w.seq_len);
  if (core_recomputed) {
    if (w.layout.flash_attention) bytes += 4.0 * heads;  // fp32 log-sum-exp per head
  } else {
    bytes += kAct * heads * s_kv;                                 // softmax output
    if (w.model.dropout) bytes += (kMask + kAct) * heads * s_kv;  // dropout mask and output
  }
  return bytes;
}

// torchtitan's default selective recompute is op-level SAC: it keeps the
// layer input, the attention output with its log-sum-exp and every second
// matmul output, and recomputes the rest (torchtitan
// activation_checkpoint.py, `_save_list`, "every second mm").
double torchtitan_sac_bytes_per_token(const Workload& w, const LayerOps& ops) {
  const LayerSplit sp = layer_split(w);
  const double h = static_cast<double>(w.model.hidden);
  double bytes = kAct * h / sp.seq_div;  // layer input
  double heads = 0;
  int matmul = 0;  // matmul outputs in execution order; every second one (from the first) is kept
  for (const LayerOp& op : ops) {
    if (op.kind == OpKind::attention) heads = op.heads;
    if (op.kind != OpKind::gemm || (op.block != OpBlock::attention && op.block != OpBlock::mlp))
      continue;
    // A row-parallel output is reduce-scattered to the residual stream's share.
    const double out = op.split == TpSplit::row ? h / sp.seq_div : op.n;
    if (matmul++ % 2 == 0) bytes += kAct * out;
  }
  return bytes + kAct * ops.attn_out_local + 4.0 * heads;  // attention output and log-sum-exp
}

double local_tokens(const Workload& w) {
  return static_cast<double>(w.seq_len) * w.layout.micro_batch / w.layout.cp;
}

// Parameters one GPU holds for one layer of a kind, by how they are stored.
struct LayerParams {
  double dense = 0;        // everything but routed experts (norms included)
  double quantisable = 0;  // dense without the norms (QLoRA quantises these)
  double experts = 0;      // routed experts, split over EP x TP
  double adapters = 0;     // LoRA adapters
};

LayerParams layer_params(const LayerOps& ops) {
  LayerParams p;
  p.experts = block_local_params(ops, OpBlock::experts);
  p.adapters = block_local_params(ops, OpBlock::adapter);
  for (int b = 0; b < kOpBlocks; ++b) p.dense += ops.local_params[static_cast<std::size_t>(b)];
  p.dense -= p.experts + p.adapters;
  p.quantisable = p.dense - block_local_params(ops, OpBlock::norm);
  return p;
}

}  // namespace

double trainable_params(const Workload& w) {
  if (!is_lora(w)) return count_params(w.model).total();
  const ModelShape& m = w.model;
  const int moe_layers = moe_layer_count(m);
  double n = (m.layers - moe_layers) *
             block_params(describe_layer(m, false, {}, adapter_spec(w)), OpBlock::adapter);
  if (moe_layers > 0) {
    n += moe_layers * block_params(describe_layer(m, true, {}, adapter_spec(w)), OpBlock::adapter);
  }
  return n;
}

double checkpoint_bytes(const Workload& w) {
  // A checkpoint holds what training needs to resume: the trained weights
  // (16-bit copies, or the fp32 parameters themselves) and the optimizer's
  // master copy and moments; gradients are not saved. LoRA saves the adapters
  // only (the frozen base model is already stored).
  const StatePolicy pol = state_policy(w);
  return trainable_params(w) * (pol.weight_bytes + pol.master_bytes + pol.optimizer_bytes);
}

StatePolicy state_policy(const Workload& w) {
  StatePolicy p;
  // The kinds are described in workload/framework.hpp (StateKind).
  switch (framework_traits(w.framework).state) {
    case StateKind::megatron_mixed:
      // BF16: fp32 main gradients (the default
      // --accumulate-allreduce-grads-in-fp32 under bf16), 18 B/param; FP16:
      // fp16 gradients and an fp32 copy of them in the optimizer, 20 B/param.
      p = w.precision == Precision::fp16 ? StatePolicy{2.0, 2.0, 8.0, 8.0}
                                         : StatePolicy{2.0, 4.0, 4.0, 8.0};
      // --grad-reduce-in-bf16 (Bridge ddp.grad_reduce_in_fp32=False): the
      // main-grad buffer takes the parameters' dtype (Megatron-Core
      // param_and_grad_buffer.py: grad_dtype = torch.float if
      // grad_reduce_in_fp32 else param.dtype), 2 B/param.
      if (w.grad_reduce_in_bf16 && w.precision != Precision::fp16) p.grad_bytes = 2.0;
      break;
    case StateKind::zero_16bit_grads:
      p = {2.0, 2.0, 4.0, 8.0};
      break;
    case StateKind::fsdp_fp32:
      // With ZeRO-1/2 (FSDP SHARD_GRAD_OP: parameters not resharded after
      // forward) the fp32 parameters are sharded like optimizer state and an
      // unsharded 16-bit copy stays resident.
      p = (w.layout.zero == 1 || w.layout.zero == 2) ? StatePolicy{2.0, 4.0, 4.0, 8.0}
                                                     : StatePolicy{4.0, 4.0, 0.0, 8.0};
      break;
    case StateKind::bf16_pure:
      p = {2.0, 2.0, 0.0, 8.0};
      break;
  }
  if (w.precision == Precision::fp32) p = {4.0, 4.0, 0.0, 8.0};
  p.optimizer_bytes = optimizer_moment_bytes(w);
  // Pure bf16 keeps the moments in bf16: half of their fp32 bytes.
  if (framework_traits(w.framework).state == StateKind::bf16_pure) p.optimizer_bytes /= 2.0;
  // optimizer: adam-bf16 is pure bf16 under any framework: bf16 weights,
  // gradients and moments, no fp32 master copy (2 + 2 + 4 = 8 B/param).
  if (w.optimizer == Optimizer::adam_bf16) p = {2.0, 2.0, 0.0, 4.0};
  return p;
}

namespace {

double activation_bytes(const Workload& w, const LayerOps& ops) {
  const double tokens = local_tokens(w);
  switch (w.layout.recompute) {
    case Recompute::full:
      // Only the layer input is kept (2sbh, /t with SP).
      return tokens * kAct * static_cast<double>(w.model.hidden) / layer_split(w).seq_div;
    case Recompute::selective:
      if (framework_traits(w.framework).selective == SelectiveRecompute::op_level_sac && !ops.moe &&
          !w.model.is_mla()) {
        return tokens * torchtitan_sac_bytes_per_token(w, ops);
      }
      {
        // Megatron-Core's named modules (layout recompute_modules): the
        // attention core's scores go with core_attn (or FlashAttention).
        const RecomputeModules mods = w.layout.recompute_modules;
        const bool core = (mods & module_bit(RecomputeModule::core_attn)) != 0;
        return tokens * layer_bytes_per_token(w, ops, core || w.layout.flash_attention, mods);
      }
    case Recompute::none:
      return tokens * layer_bytes_per_token(w, ops, w.layout.flash_attention);
  }
  return 0;
}

}  // namespace

double activation_bytes_per_layer(const Workload& w, bool moe_layer) {
  return activation_bytes(w, describe_layer(w, moe_layer));
}

MemoryEstimate estimate_memory(const Workload& w, const Gpu& gpu, const OverheadModel& ovh) {
  return estimate_memory(w, gpu, ovh, describe_layers(w));
}

MemoryEstimate estimate_memory(const Workload& w, const Gpu& gpu, const OverheadModel& ovh,
                               const DescribedLayers& layers) {
  const ModelShape& m = w.model;
  const Layout& ly = w.layout;
  const double t = ly.tp;
  const int p = std::max(1, ly.pp);
  // ZeRO / FSDP shard group: DP x CP, or shard_group x CP under hybrid sharding.
  const double shard = static_cast<double>(ly.zero_shard_dp()) * ly.cp;
  // Routed experts' state shards over the expert-data-parallel replicas
  // (tp x cp x dp / (ep x etp), MoE parallel folding).
  const double expert_shard = static_cast<double>(ly.expert_dp());
  const StatePolicy pol = state_policy(w);
  const bool lora = is_lora(w);
  const bool qlora = lora && w.finetune.method == FinetuneMethod::qlora;
  const double mtp = trained_mtp_layers(w);

  const double h = static_cast<double>(m.hidden);
  const double norm_params = m.norm == NormKind::layernorm ? 2.0 * h : h;

  // Micro-batches per step: B / (b * D); unknown global batch -> enough to fill the pipeline.
  const double m_steps =
      w.global_batch > 0
          ? std::max(1.0, static_cast<double>(w.global_batch) / (ly.micro_batch * ly.dp))
          : static_cast<double>(p);

  // The two kinds of layer (dense, MoE), described once: the parameters one
  // GPU holds and the activations it stores per layer.
  const int moe_first = m.is_moe() ? m.moe.dense_layers : m.layers;
  const LayerOps& dense_ops = layers.dense;
  const LayerParams dense_p = layer_params(dense_ops);
  const double act_dense = activation_bytes(w, dense_ops);
  LayerParams moe_p;
  double act_moe = 0;
  double full_dense = 0, full_moe = 0;  // full recompute: the working set of one layer
  const bool full = ly.recompute == Recompute::full;
  if (full) full_dense = local_tokens(w) * layer_bytes_per_token(w, dense_ops, ly.flash_attention);
  if (m.is_moe()) {
    const LayerOps& moe_ops = layers.moe;
    moe_p = layer_params(moe_ops);
    act_moe = activation_bytes(w, moe_ops);
    if (full) full_moe = local_tokens(w) * layer_bytes_per_token(w, moe_ops, ly.flash_attention);
  }

  // The largest frozen base matrix one GPU holds (QLoRA's dequantised copy).
  double largest_frozen = 0;
  for (const LayerOps* ops : {&layers.dense, &layers.moe}) {
    for (const LayerOp& op : *ops) {
      if (op.kind == OpKind::gemm && op.frozen_under_lora && op.count > 0)
        largest_frozen = std::max(largest_frozen, op.local_params / op.count);
    }
  }

  // DualPipe: rank s runs stage s and stage p-1-s (two parameter copies of
  // the model across the pipeline).
  const bool two_stages = schedule_parameter_copies(ly.schedule, p) == 2;
  auto stage_memory = [&](int s) {
    StageMemory st;
    st.stage = s;
    // The stage's layers (workload/pipeline.hpp: even, or the layout's
    // first/last sizes).
    const StageLayers here = stage_layers(m, ly, s);
    st.layers = here.layers;
    st.has_embedding = here.embedding;
    st.has_output = here.output;

    // Parameters held by one GPU of this stage, split into frozen/trainable and expert/dense.
    double moe_layers_here = here.moe;
    double dense_layers_here = here.dense;
    // MTP depths sit on the last stage (Megatron-Core's default placement):
    // each a layer of the last layer's kind, the projection 2h -> h and three
    // norms; a rank without the embedding holds a copy for the shifted tokens.
    // Under DualPipe the last stage shares rank 0 with the first, whose
    // embedding the MTP module uses in place ("the shallowest layers
    // (including the embedding layer) and deepest layers (including the
    // output head) ... on the same PP rank ... enables the physical sharing
    // of parameters and gradients", arXiv:2412.19437 §3.2.3).
    const double mtp_here = st.has_output ? mtp : 0.0;
    (moe_first < m.layers ? moe_layers_here : dense_layers_here) += mtp_here;
    double dense = dense_layers_here * dense_p.dense + moe_layers_here * moe_p.dense;
    if (mtp_here > 0) {
      dense += mtp_here * (2.0 * h * h / t + 3.0 * norm_params);
      const bool embedding_on_rank =
          st.has_embedding || (two_stages && stage_layers(m, ly, p - 1 - s).embedding);
      if (!embedding_on_rank) dense += static_cast<double>(m.vocab) * h / t;
    }
    double quantisable =
        dense_layers_here * dense_p.quantisable + moe_layers_here * moe_p.quantisable;
    const double experts = moe_layers_here * moe_p.experts;
    const double lora_here =
        lora ? dense_layers_here * dense_p.adapters + moe_layers_here * moe_p.adapters : 0.0;
    // Transformer blocks only (no embedding or output layer).
    const double block_params = dense + experts;
    if (st.has_embedding) {
      // Token embedding split over TP (vocab-parallel); a learned position table is replicated.
      const double positions =
          m.position == PositionKind::learned ? static_cast<double>(m.max_position) * h : 0.0;
      dense += static_cast<double>(m.vocab) * h / t + positions;
    }
    if (st.has_output)
      dense +=
          (m.tied_embeddings && p == 1 ? 0.0 : static_cast<double>(m.vocab) * h / t) + norm_params;
    quantisable += experts;
    st.params = dense + experts + lora_here;

    // Model state.
    const int zero = ly.zero;
    const double w_shard = zero >= 3 ? shard : 1.0;
    const double w_shard_e = zero >= 3 ? expert_shard : 1.0;
    double frozen_expert_bytes = 0;
    if (lora) {
      const double frozen_bytes = qlora ? kNf4BytesPerParam : 2.0;
      const double frozen_other = (dense + experts) - quantisable;
      // Frozen expert weights shard over the expert data-parallel group.
      const double frozen_experts = experts * frozen_bytes / w_shard_e;
      frozen_expert_bytes = frozen_experts;
      st.weights =
          ((quantisable - experts) * frozen_bytes + frozen_other * 2.0) / w_shard + frozen_experts;
      st.trainable_params = lora_here;
    } else {
      st.weights = (dense / w_shard + experts / w_shard_e) * pol.weight_bytes;
      st.trainable_params = dense + experts;
    }
    // Transformer Engine keeps an FP8 copy of every FP8 linear's weight and
    // its transpose between micro-batches (TE module/base.py
    // `get_fp8_workspace`, cached under `_fp8_workspaces`; Megatron-Core
    // passes is_first_microbatch unless --disable-parameter-transpose-cache):
    // 2 bytes per layer weight under FP8 with Megatron-LM or NeMo. With
    // --fp8-param-gather the FP8 weight and its transpose replace the 16-bit
    // copy, which costs the same 2 bytes.
    if (te_fp8(w) && !ly.fp8_param_gather && !lora) {
      st.weights += 2.0 * kFp8 * quantisable;
    } else if (te_fp8(w) && lora && st.layers > 0) {
      // FP8 LoRA (Megatron-Bridge's LoRA perf recipes: bf16 frozen weights,
      // --disable-parameter-transpose-cache): each frozen weight is cast to
      // FP8 for its GEMM and not kept, so one layer's FP8 copy is transient.
      st.buffers += kFp8 * quantisable / st.layers;
    }
    const double train_dense = lora ? lora_here : dense;
    const double train_expert = lora ? 0.0 : experts;
    st.expert_params = experts;
    st.trainable_expert_params = train_expert;
    if (lora) st.weights += lora_here * pol.weight_bytes / w_shard;
    const double g_shard = zero >= 2 ? shard : 1.0;
    const double g_shard_e = zero >= 2 ? expert_shard : 1.0;
    st.gradients = (train_dense / g_shard + train_expert / g_shard_e) * pol.grad_bytes;
    const double o_shard = zero >= 1 ? shard : 1.0;
    const double o_shard_e = zero >= 1 ? expert_shard : 1.0;
    st.optimizer = (train_dense / o_shard + train_expert / o_shard_e) *
                   (pol.master_bytes + pol.optimizer_bytes);
    // The routed experts' share of the three (16-bit or frozen weights).
    st.expert_state =
        lora ? frozen_expert_bytes
             : experts / w_shard_e * pol.weight_bytes + train_expert / g_shard_e * pol.grad_bytes +
                   (ly.offload_optimizer
                        ? 0.0  // the optimizer state lives in host memory
                        : train_expert / o_shard_e * (pol.master_bytes + pol.optimizer_bytes));

    // FSDP1 no_sync() accumulation (FrameworkTraits::no_sync_unsharded_grads):
    // while micro-batches accumulate, every FSDP unit that trains keeps its
    // whole gradient unsharded, and under use_orig_params a unit's frozen
    // parameters get gradients too: under LoRA every block (its frozen
    // weights and adapters), while the frozen embedding and output unit has
    // none; NF4 (QLoRA) storage is not a FlatParameter gradient and is left out.
    const bool unsharded_grads = framework_traits(w.framework).no_sync_unsharded_grads &&
                                 zero >= 3 && shard > 1 && m_steps > 1 && !qlora &&
                                 !ly.offload_params;
    if (unsharded_grads) {
      st.gradients = lora ? (block_params + lora_here) * pol.grad_bytes
                          : (train_dense + train_expert) * pol.grad_bytes;
      if (!lora) st.expert_state -= train_expert / g_shard_e * pol.grad_bytes;
    }

    // optimizer_in_backward: each gradient is applied and freed as soon as
    // it is computed, so about one layer's gradients are alive at once.
    if (w.optimizer_in_backward && st.layers > 0) st.gradients /= st.layers;
    // offload: all keeps parameters and gradients in host memory too; the GPU
    // holds the layers gathered from it (buffers below).
    if (ly.offload_params) {
      st.host_bytes = st.weights + st.gradients;
      st.weights = 0;
      st.gradients = 0;
      st.expert_state = 0;
    }

    // Activations: 1F1B keeps min(p - s, m) micro-batches on stage s.
    // Interleaved, rank s runs 2 (p - s - 1) + (v - 1) N forward chunks
    // before its first backward (Megatron-Core schedules.py
    // get_pp_rank_microbatches, micro-batch groups of N = p when p divides
    // m, else interleave_group_size), so
    // min(m v, that + 1) chunks of its layers are in flight: in stage
    // micro-batches p + (p - 1 - 2 s) / v, on the first stage the
    // L/p (p + (p-1)/v) layers of Korthikanti et al. 2022 §4.2.3; with
    // chunks of unequal size, the layers of the chunks those passes run
    // (interleaved_in_flight). Each stage counts its own layers.
    // Zero-bubble and DualPipe schedules (pipeline.hpp `schedule_in_flight`):
    // ZB1P as 1F1B; DualPipe (p+1)/2 on each of the rank's two stages;
    // DualPipeV p + 1/2.
    double in_flight = schedule_in_flight(ly.schedule, p, s, m_steps);
    if (ly.interleave > 1 && p > 1) in_flight = interleaved_in_flight(m, ly, s, m_steps);
    st.microbatches_in_flight = in_flight;
    // Partial recompute (recompute_layers): the recomputed share of the
    // stage's layers keeps its input only, the rest their whole working set.
    const double share = full ? recomputed_share(ly, here) : 1.0;
    const double per_dense = share * act_dense + (1.0 - share) * full_dense;
    const double per_moe = share * act_moe + (1.0 - share) * full_moe;
    st.activations = in_flight * (dense_layers_here * per_dense + moe_layers_here * per_moe);
    if (ly.activation_offload) {
      // Saved activations go to host memory as they are made and come back
      // layer by layer in the backward pass: about two layers' worth stays
      // (one leaving, one arriving; torchtune OffloadActivations streams).
      st.activations = std::min(st.activations, 2.0 * std::max(act_dense, act_moe));
    }
    if (ly.recompute == Recompute::full && st.layers > 0) {
      // The layer being recomputed holds its full activations during its backward.
      st.activations += moe_layers_here > 0 ? full_moe : full_dense;
    }
    const double tokens = local_tokens(w);
    const double seq_div = (ly.sp && ly.tp > 1) ? t : 1.0;
    if (st.has_embedding && m.dropout) st.activations += in_flight * tokens * kMask * h / seq_div;
    if (st.has_output) {
      // Final norm and output-projection inputs, then the logits of one micro-batch.
      st.activations += 2.0 * kAct * tokens * h / seq_div;
      // Each MTP depth keeps its two norms' inputs, the projection's input
      // (2h) and its head's norm and projection inputs; its loss comes after
      // the main one, so one micro-batch's logits are alive at a time.
      st.activations += in_flight * mtp_here * kAct * tokens * 6.0 * h / seq_div;
      st.logits = tokens * static_cast<double>(m.vocab) / t * chunked_logit_bytes(w);
    }

    // Buffers: ZeRO-3/FSDP gathers two layers' 16-bit weights (current and
    // prefetched) and reduce-scatters one layer's gradients; pipeline stages
    // exchange one micro-batch of activations each way.
    if (((zero >= 3 && shard > 1) || ly.offload_params) && st.layers > 0) {
      // Gathered copies are 16-bit, or the NF4 storage itself under QLoRA.
      const double per_layer = block_params / st.layers;
      const double gathered_bytes = qlora ? kNf4BytesPerParam : 2.0;
      const double trainable_per_layer = (lora ? lora_here : block_params) / st.layers;
      double gathered = 2.0 * per_layer;  // FSDP: the current and the prefetched block
      // One block's gradients before reduce-scatter; under no_sync accumulation
      // they are the unsharded gradients already counted.
      double reduced = unsharded_grads ? 0.0 : trainable_per_layer;
      double reduced_bytes = pol.grad_bytes;
      if (framework_traits(w.framework).pp_keeps_unsharded && p > 1 && zero >= 3) {
        // FSDP2 under a pipeline: the stage's weights stay gathered and its
        // gradients accumulate unsharded in fp32 across the micro-batches.
        gathered = st.layers * per_layer;
        reduced = st.layers * trainable_per_layer;
        reduced_bytes = kFp32;
      }
      if (framework_traits(w.framework).deepspeed_engine) {
        // DeepSpeed ZeRO-3 gathers per module up to stage3_max_live_parameters
        // (1e9) and reduces in buckets of reduce_bucket_size (5e8) elements
        // (DeepSpeed configuration defaults).
        gathered = std::min(gathered, 1e9);
        reduced = std::min(reduced, 5e8);
      }
      st.buffers += gathered * gathered_bytes + reduced * reduced_bytes;
      if (st.has_output || st.has_embedding) {
        st.buffers += static_cast<double>(m.vocab) * h / t * 2.0;
      }
    }
    if (p > 1) st.buffers += 2.0 * tokens * h / seq_div * kAct;
    if (moe_layers_here > 0 && ly.ep > 1) {
      // Token dispatch: the all-to-all's send buffer (this rank's tokens/t,
      // top_k copies; padded to capacity, F x that) and receive buffer
      // (expert_load times top_k copies on the most loaded rank; padded, F x),
      // 16-bit, alive while a MoE layer runs (Megatron-Core
      // token_dispatcher.py; docs/model.md "Communication and prefetch
      // buffers", "Token dropping").
      const double sent = tokens / t * m.moe.top_k * h * kAct;
      const double send_load = moe_drop_and_pad(w) ? layers.moe.expert_load : 1.0;
      st.buffers += sent * (send_load + layers.moe.expert_load);
    }
    // QLoRA dequantises one base weight at a time to 16 bit before its GEMM
    // (bitsandbytes dequantize_4bit, torchao linear_nf4): the largest one's
    // transient copy.
    if (qlora) st.buffers += kAct * largest_frozen;

    const double transient = st.activations + st.logits + st.buffers;
    st.fragmentation = ovh.fragmentation * transient;
    st.overhead = ovh.fixed_bytes + st.fragmentation;
    return st;
  };

  MemoryEstimate est;
  est.stages = p;
  est.capacity_bytes = gpu.hbm_bytes;
  est.activation_bytes_per_layer = act_dense;
  // The most loaded stage is the first (most activations in flight, embedding)
  // or the last (logits, output layer); check every stage when p is small.
  const std::array<int, 4> candidates =
      p <= 4 ? std::array<int, 4>{0, 1, 2, 3} : std::array<int, 4>{0, 1, p - 2, p - 1};
  bool first = true;
  // DualPipe (two_stages): ZeRO-1 and up shard the optimizer state over both
  // copies' data-parallel ranks (2 x dp).
  auto rank_memory = [&](int s) {
    StageMemory st = stage_memory(s);
    if (!two_stages) return st;
    const StageMemory o = stage_memory(p - 1 - s);
    st.layers += o.layers;
    st.has_embedding = st.has_embedding || o.has_embedding;
    st.has_output = st.has_output || o.has_output;
    st.microbatches_in_flight += o.microbatches_in_flight;
    st.params += o.params;
    st.trainable_params += o.trainable_params;
    st.expert_params += o.expert_params;
    st.trainable_expert_params += o.trainable_expert_params;
    st.weights += o.weights;
    st.gradients += o.gradients;
    st.optimizer = ly.zero >= 1 ? (st.optimizer + o.optimizer) / 2.0 : st.optimizer + o.optimizer;
    st.expert_state += o.expert_state;
    st.activations += o.activations;
    st.logits = std::max(st.logits, o.logits);
    st.buffers += o.buffers;
    st.host_bytes += o.host_bytes;
    const double transient = st.activations + st.logits + st.buffers;
    st.fragmentation = ovh.fragmentation * transient;
    st.overhead = ovh.fixed_bytes + st.fragmentation;
    return st;
  };
  for (int s : candidates) {
    if (s >= p) break;
    StageMemory st = rank_memory(s);
    double host = st.host_bytes;
    if (ly.offload_optimizer) {  // optimizer state lives in host memory
      host += st.optimizer;
      st.optimizer = 0;
    }
    if (first || st.total() > est.peak.total()) {
      est.peak = st;
      est.host_offload_bytes = host;
    }
    first = false;
  }
  // What must fit is the allocated memory and the fixed overhead: before it
  // reports out of memory, PyTorch's caching allocator frees its cached
  // blocks and retries (c10/cuda/CUDACachingAllocator.cpp `malloc`:
  // release_available_cached_blocks, then release_cached_blocks), so the
  // reserved-minus-allocated gap is given back at the limit (docs/model.md,
  // "Fit and headroom").
  est.headroom_bytes = est.capacity_bytes - (est.total() - est.peak.fragmentation);
  est.fits = est.headroom_bytes >= 0;
  return est;
}

}  // namespace scaleout
