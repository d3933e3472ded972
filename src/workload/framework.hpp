// Training frameworks as one table (docs/model.md, "Frameworks"): one row per
// framework holds everything the model tells frameworks apart by: its name,
// the parallelisms and ZeRO stages the planner searches, how it keeps model
// state, the bytes of a logit, what selective recompute recomputes, and how
// it schedules kernels and communication. A new framework is a new enum value
// and a new row here; the code reads the rows, not the enum (DeepSpeed's own
// engine, `deepspeed_engine`, is read by memory.cpp's ZeRO-3 gather and bucket
// caps, the calibration's DeepSpeed-only ZeRO-3 hidden share in
// validation.cpp, checks.cpp's recompute modules and the launch files).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scaleout {

// Who runs the job. `other` stays last: the table's size is checked against it.
enum class Framework {
  megatron,
  deepspeed,
  fsdp,
  torchtitan,
  nemo,
  mosaic,
  automodel,
  hf,
  torchtune,
  litgpt,
  automodel_torch,
  megatron_deepspeed_2021,
  other
};

// How the framework keeps each trainable parameter (memory.cpp `state_policy`,
// docs/model.md "Model state").
enum class StateKind {
  // Megatron-LM mixed precision (docs/distrib_optimizer.md): 16-bit weights,
  // fp32 main gradients all-reduced in fp32, fp32 master weights (18 B/param);
  // with fp16, fp16 gradients and an fp32 copy of them beside the master
  // weights (20 B/param).
  megatron_mixed,
  // DeepSpeed ZeRO (Rajbhandari et al. 2020): 16-bit weights and gradients,
  // fp32 master weights: 2 + 2 + 12 = 16 B/param.
  zero_16bit_grads,
  // PyTorch FSDP / AMP: fp32 parameters and gradients, 16-bit compute copies
  // gathered per layer, no separate master copy (with ZeRO-1/2, i.e. FSDP
  // SHARD_GRAD_OP, an unsharded 16-bit copy stays resident).
  fsdp_fp32,
  // Pure bf16: bf16 parameters, gradients and Adam moments, no fp32 master
  // copy (NeMo AutoModel's benchmark recipes cast the model to bf16 and step
  // torch.optim.Adam on it; FSDP2 reduces in fp32 and stores bf16): 8 B/param.
  bf16_pure,
};

// What `recompute: selective` recomputes (memory.cpp activations, step.cpp
// recompute time; docs/model.md "Activations per layer", "Backward pass").
enum class SelectiveRecompute {
  // Megatron-LM --recompute-activations: the attention core (scores, softmax,
  // dropout) runs again in the backward pass.
  attention_core,
  // torchtitan's op-level selective activation checkpointing: every second
  // matmul output and the attention output are kept, the rest runs again.
  op_level_sac,
};

// CUDA graph capture of the training step (workload `cuda_graphs`;
// docs/model.md, "Host launch floor"): which kernels the host still issues
// one by one. `none`: every kernel (eager PyTorch, Megatron-LM's default
// --cuda-graph-impl none). `scoped`: each layer's static-shape parts are
// replayed as graphs (Megatron-Core --cuda-graph-impl transformer_engine,
// Transformer Engine make_graphed_callables, with the scopes Megatron-Bridge's
// MoE recipes set: attn, moe_router, moe_preprocess; a dense layer's attn and
// mlp); the kernels between a MoE layer's token dispatch and combine (routed
// experts, their permutes and activation, the shared experts), whose shapes
// follow the routing, stay host-issued. `full`: the whole forward and backward
// replayed (Megatron-Core --cuda-graph-impl full_iteration,
// torch.compile mode="reduce-overhead"): no per-kernel host cost.
enum class CudaGraphs { none, scoped, full };
inline constexpr int kCudaGraphModes = 3;
constexpr unsigned cuda_graph_bit(CudaGraphs g) { return 1U << static_cast<unsigned>(g); }

// Host (CPU) time to issue one kernel that no CUDA graph replays: PyTorch's
// eager dispatch chain (Python, pybind11, autograd recording, the ATen
// dispatcher, the backend's launch set-up) plus cudaLaunchKernel, about 5-25
// us per operator; 10 us taken. Sources: PyTorch's operator micro-benchmarks
// give 3.3 us for the C++ dispatch of a trivial CUDA op alone (pytorch/pytorch
// #32194); a walk through the chain adds Python, autograd and the driver to
// 5-25 us per op (jiahuanglin.xyz gpu_kernel_serving lesson 18, "From
// PyTorch op to kernel launch"); TorchBench's maintainers measure eager
// ResNet-50 training's CPU dispatch time equal to its GPU time at batch 32 on
// V100 and CUDA graphs cutting it by two thirds (pytorch/benchmark PR #706).
// Not fitted on any row (docs/model.md, "Host launch floor").
inline constexpr double kHostSecondsPerKernel = 10e-6;

// Fitted constants (docs/validation.md gives the fit and held-out errors).
// Megatron-DeepSpeed: Megatron's kernels under DeepSpeed's engine; small
// kernels wait on the host (fitted on the even rows of vtrain-single: 60 us).
inline constexpr double kDeepSpeedKernelFloor_s = 60e-6;
// DeepSpeed ZeRO-3 (2021) prefetches parameters, but its per-tensor gathers
// and gradient reduce-scatters hide behind under half of the compute
// (fitted on the GPT-3 175B ZeRO-3 rows of Narayanan et al. 2021, Table 2:
// no speed-up from 768 to 1536 GPUs, where the per-GPU traffic stays and the
// compute halves).
inline constexpr double kDeepSpeedZero3HiddenShare = 0.45;
// Share of HBM bandwidth an eager bitsandbytes NF4 dequantisation reaches
// (read 0.5 B, write 2 B per weight, then a dense GEMM): derived from Lit-GPT's
// Llama-2 7B LoRA vs NF4 pair on A100-40GB (79 ms extra per micro-batch for
// two passes over 6.5B weights = 160 G weights/s = 0.40 TB/s of 1.555 TB/s;
// docs/model.md "Quantised base weights").
inline constexpr double kEagerDequantHbmShare = 0.25;
// torch.compile'd torchao NF4 (torchtune): the dequantisation is a fused,
// streaming kernel at the element-wise kernels' HBM share (measured: QLoRA
// 2.1 % slower than LoRA, torchtune README).
inline constexpr double kCompiledDequantHbmShare = 0.80;

struct FrameworkTraits {
  Framework framework;
  std::string_view name;     // the input word (workload `framework:`, validation CSV)
  std::string_view display;  // what the row stands for, in words
  // The engine whose validation rows give the row's prediction intervals
  // (the framework of the interval regime key, perf/intervals.hpp): a row
  // that is a version or kernel variant of another engine's row shares that
  // engine's regime rather than standing on its own few rows.
  std::string_view engine;
  // Runs Megatron-LM's transformer layers and training loop defaults
  // (Megatron-LM, NeMo, Megatron-DeepSpeed): GPT dropout 0.1, unfused
  // softmax before Hopper, gradient accumulation (validation.cpp).
  bool megatron_family;
  // FP8 runs through Transformer Engine under Megatron-Core, with
  // --fp8-param-gather (workload.hpp `te_fp8`).
  bool transformer_engine_fp8;
  // Parallelisms besides data and expert parallelism that the framework
  // implements (the planner searches only these; docs/model.md "Search space").
  bool tp, pp, cp;
  // The pipeline runs virtual stages (layout `interleave` > 1): Megatron-
  // Core's interleaved 1F1B, torch.distributed.pipelining's Interleaved1F1B.
  // DeepSpeed's PipelineEngine runs one schedule, TrainSchedule: 1F1B over one
  // model chunk per stage (deepspeed/runtime/pipe/schedule.py).
  bool interleaved_pp;
  // With interleave v > 1 and neither a pipeline layout, first/last stage
  // sizes nor the embedding/loss places (each has its own rule), the split
  // must be even: every rank the same layers and every chunk the same, L
  // divisible by pp x v. Megatron-Core builds L/pp layers per rank and L/(pp v) per chunk
  // and refuses the rest: at core_r0.8.0 (baf94af, 2024-08) arguments.py
  // L264-268 asserts num_layers % pp == 0 and (num_layers / pp) %
  // --num-layers-per-virtual-pipeline-stage == 0; at core_v0.11.0, which
  // added --num-virtual-stages-per-pipeline-rank, and at d98e8a6 (2026)
  // transformer_block.py get_num_layers_to_build still asserts both
  // (d98e8a6 L155-158, L175-178). Uneven stages came only as explicit
  // sizes in multiples of v (--decoder-first/last-pipeline-num-layers,
  // core_v0.9.0) and layout strings (core_v0.13.0). False: the chunks may
  // differ by a layer (torch.distributed.pipelining, in-house engines).
  bool even_virtual_stages;
  // Highest ZeRO stage the planner tries, without and with pipeline
  // parallelism: Megatron-LM's distributed optimizer is ZeRO-1; DeepSpeed's
  // pipeline engine runs ZeRO-1 at most.
  int max_zero, max_zero_with_pp;
  StateKind state;
  // Bytes per logit alive at the peak of the loss computation, by how the
  // framework computes cross-entropy (docs/model.md, "Logits and loss"):
  // - Megatron-LM's fused vocab-parallel cross-entropy keeps an fp32 softmax
  //   and writes the gradient into it in place, beside the bf16 logits: 4 + 2.
  // - llm-foundry's fused cross-entropy (flash-attn xentropy) works on the
  //   bf16 logits and writes the gradient in place: 2 + 2.
  // - PyTorch's log_softmax + nll_loss on upcast logits holds the fp32
  //   log-softmax, its gradient and the input gradient at once: 4 + 4 + 4.
  double logit_bytes;
  SelectiveRecompute selective;
  // Step-time scheduling (perf/step.cpp `framework_constants`; docs/model.md
  // "Constants per framework").
  // Eager PyTorch: unfused element-wise ops, casts and communication kernels
  // competing for SMs; takes the GPU family's eager efficiency (perf
  // `eager_efficiency`). Fused kernels (false) are the reference the
  // GPU-family constants describe.
  bool eager;
  double kernel_floor_s;  // shortest kernel, host-bound; 0 = none
  // Share of a layer's compute behind which its ZeRO-3/FSDP gathers and
  // gradient reduce-scatters run (prefetching).
  double zero3_hidden_share;
  // One ZeRO-3 gather per weight tensor over a flat ring (DeepSpeed 2021)
  // instead of one per block, hierarchical.
  bool zero3_per_tensor;
  // Under LoRA/QLoRA with ZeRO-3 the blocks' gathers are not hidden at all.
  // PEFT's FSDP wrap policy (peft.utils.other.fsdp_auto_wrap_policy, and
  // fsdp_qlora's "llama-recipes" policy) makes every trainable adapter
  // matrix an FSDP unit of its own inside its block's unit, and FSDP1's rate
  // limiter (limit_all_gathers=True: Accelerate's default, set in
  // fsdp_qlora's train.py at 02586ac) makes the host wait, before it issues a gather,
  // for the free of the unit two frees back: with a dozen adapter units per
  // block that is an adapter of the block running now, so the next block's
  // gather is issued only when this block's compute has all but finished;
  // backward prefetch likewise reaches an adapter unit, not the next block.
  bool lora_zero3_exposed;
  // ZeRO-0/1 gradient reduction overlapped with the backward pass (bucketed
  // hooks); DeepSpeed's engine reduces only after the whole backward (PR
  // #1246; the pipeline engine's ReduceGrads runs after the last micro-batch).
  bool dp_overlap;
  // The backward TP all-reduces of the column-parallel layers' input
  // gradients run behind their weight-gradient GEMMs (Megatron-LM
  // --async-tensor-model-parallel-allreduce, on by default since 2022).
  // Not under DeepSpeed's engine: Megatron-DeepSpeed turns the asynchronous
  // all-reduce off whenever --deepspeed is set (microsoft/Megatron-DeepSpeed
  // f90b8877, 2023-07-12; megatron/arguments.py:395-399 at f4157bea), and
  // its earlier code and the bigscience fork never had it.
  bool tp_backward_overlap;
  // The pipeline sends each TP rank's 1/t of the activation gradient to the
  // stage before (which all-gathers it over its TP group), as it sends the
  // activations forward. DeepSpeed's pipeline engine up to v0.5.3 hard-codes
  // `self.is_grad_partitioned = False` (runtime/pipe/engine.py @ v0.5.3
  // 30537e7, line 114): every TP rank sends the whole gradient, and the
  // receiving stage all-gathers its partitioned output before the backward
  // (`_exec_recv_grads`, lines 971-979); v0.5.4 (bc7778e, 2021-10-06) sets it
  // to `is_model_parallel` (line 116).
  bool pp_grad_partitioned;
  // The pipeline's sends and receives run one at a time, each blocking the
  // stage's compute stream until its partner has it, one neighbour per step:
  // DeepSpeed's PipelineEngine executes TrainSchedule's steps in order
  // (runtime/pipe/schedule.py @ v0.5.3 30537e7, lines 205-219: a forward
  // step receives the activation from the stage before, then sends it the
  // previous micro-batch's gradient; a backward step sends the activation to
  // the stage after, then receives its gradient), each tensor as its own
  // blocking p2p call (runtime/pipe/p2p.py @ v0.5.3, lines 31-55: a
  // broadcast in the two stages' group with async_op forced False;
  // dist.send/recv from torch 1.8 on, still blocking, at v0.8.2 and later;
  // engine.py `_exec_send_activations`, `_exec_recv_grads`, a loop of
  // p2p.send/recv per tensor). A stage between two others therefore waits,
  // every micro-batch, for the activation and the gradient of both of its
  // boundaries in turn: 2 (tau_act + tau_grad), where Megatron-LM's
  // send_forward_recv_backward moves a boundary's two directions at once
  // (tau_act + tau_grad in all). An event simulation of that op order
  // (scripts/deepspeed_pipe_sim.py) gives exactly 2 (tau_act + tau_grad)
  // per micro-batch from p = 3 on and tau_act + tau_grad at p = 2.
  bool pp_serial_exchanges;
  // DeepSpeed's own engine runs the job (Megatron-DeepSpeed): its ZeRO-3
  // gather and bucket caps (memory.cpp), its fitted ZeRO-3 hidden share
  // (validation.cpp calibration), no --recompute-modules (checks.cpp), and
  // Megatron-DeepSpeed launch files with deepspeed.json (report/launch.cpp).
  bool deepspeed_engine;
  // The MoE all-to-all can run behind another micro-batch's compute (layout
  // `ep_overlap`): Megatron-Core's --overlap-moe-expert-parallel-comm, and
  // the catch-all row for in-house engines (DeepSeek-V3's DualPipe).
  bool ep_overlap;
  // MoE dispatch through DeepEP: one network copy per destination node,
  // forwarded over NVLink (NeMo AutoModel's recipes, in-house engines).
  bool dedup_dispatch;
  // QLoRA: share of HBM bandwidth at which a 4-bit base weight is
  // dequantised to 16 bit before each GEMM that uses it (forward, input
  // gradient, and the recompute forward): eager bitsandbytes
  // (kEagerDequantHbmShare) or compiled torchao (kCompiledDequantHbmShare).
  double dequant_hbm_share;
  // FSDP2 under a pipeline (zero 3, pp > 1) keeps the stage unsharded
  // through its micro-batches: torchtitan's default reshard policy does not
  // reshard after forward when pipelining (reshard_after_forward = not
  // pp_enabled, to avoid one all-gather per micro-batch), and
  // torch.distributed.pipelining turns gradient sync off until the last
  // backward, so FSDP2 accumulates the unsharded gradients, upcast to the
  // reduce dtype (fp32 under torchtitan's mixed_precision_reduce). One
  // gather and one reduce-scatter per step instead of per micro-batch.
  bool pp_keeps_unsharded;
  // Pipeline schedules the framework ships (layout `pipeline_schedule`), one
  // bit per PipeSchedule value (schedule_bit); 1F1B, interleaved with
  // interleave > 1, everywhere. Megatron-Core's only overlap of the MoE
  // all-to-all is the 1F1B one (`ep_overlap`); torchtitan runs
  // torch.distributed.pipelining's ScheduleDualPipeV; in-house engines
  // (`other`) may run DeepSeek's DualPipe and DualPipeV
  // (github.com/deepseek-ai/DualPipe) or ZB1P (sail-sg/zero-bubble-pipeline-parallelism).
  unsigned pipeline_schedules;
  // The row's fused kernels (`eager` false) and its compiled NF4
  // dequantisation come from torch.compile, so a run with `compile` none is
  // eager PyTorch: torchtune's modules are plain PyTorch and its recipes
  // leave `compile: False` by default, and so are NeMo AutoModel's without
  // Transformer Engine (automodel-torch) (perf `perf_constants`).
  bool fused_by_compile;
  // The routed experts run Megatron-Core's TEGroupedMLP in its unfused
  // (default) path: an activation clamp (ModelShape::activation_clamp) and
  // FC2's bias (linear_bias) run as eager PyTorch kernels beside the grouped
  // GEMMs and the fused activation (docs/model.md, "Expert clamp and bias
  // under Megatron-Core"). Its token dispatcher's capacity factor and
  // padding are the token dropping the model knows (takes_token_drop).
  bool mcore_grouped_mlp;
  // Host launch floor (docs/model.md, "Host launch floor"): the host time to
  // issue one kernel outside a CUDA graph (kHostSecondsPerKernel everywhere:
  // every row dispatches from Python through PyTorch), and the CUDA graph
  // modes the framework can run (workload `cuda_graphs`, one cuda_graph_bit
  // each; `none` everywhere): Megatron-Core (megatron, nemo) scoped and full;
  // torch.compile's reduce-overhead mode full where the row compiles
  // (torchtitan, torchtune, fsdp, mosaic, litgpt, other; the Hugging Face
  // Trainer's torch_compile_mode); DeepSpeed's engine and NeMo AutoModel none.
  double host_s_per_kernel;
  unsigned cuda_graph_modes;
  // Hybrid sharding (layout `shard_group`): ZeRO state sharded within groups
  // of data-parallel ranks and replicated across them. PyTorch FSDP
  // ShardingStrategy.HYBRID_SHARD and FSDP2's 2-D device mesh (torchtitan
  // data_parallel_replicate_degree; llm-foundry, Accelerate and Lightning
  // Fabric pass FSDP's sharding_strategy through), DeepSpeed MiCS
  // (zero_optimization.mics_shard_size, deepspeed/runtime/zero/mics.py).
  // Megatron-Core's partial distributed optimizer
  // (--num-distributed-optimizer-instances) is not modelled; torchtune's
  // recipes shard over every rank. The value is the lowest ZeRO stage the
  // framework shards that way (FSDP's _HYBRID_SHARD_ZERO2 and HYBRID_SHARD,
  // FSDP2 HSDP with or without reshard after forward: 1, a ZeRO-1 plan
  // launching as SHARD_GRAD_OP as elsewhere; MiCS: 3 only); 0: none.
  int hybrid_shard_zero;
  // Gradient accumulation under FSDP1 `no_sync()` with use_orig_params=True
  // (docs/model.md, "Unsharded gradients under no_sync"): the accumulating
  // micro-batches keep each FSDP unit's gradient unsharded ("FSDP will
  // accumulate the full model gradients (instead of gradient shards) until
  // the eventual sync", FullyShardedDataParallel.no_sync), and a unit that
  // mixes frozen and trainable parameters gets a gradient for all of them
  // ("equivalent to not freezing those parameters", the class's warning on
  // freezing; https://pytorch.org/docs/2.1/fsdp.html). Lit-GPT
  // (finetune/lora.py @8641822 L215 `fabric.no_backward_sync(model,
  // enabled=is_accumulating)`; Lightning 2.1.0
  // src/lightning/fabric/strategies/fsdp.py L171 use_orig_params=True, L760
  // `module.no_sync()`; LoRA adapters wrapped with their frozen Block).
  bool no_sync_unsharded_grads;
};

// Values of PipeSchedule (workload.hpp, which includes this file).
inline constexpr int kPipeSchedules = 4;
// The bit of a pipeline schedule in FrameworkTraits::pipeline_schedules
// (the PipeSchedule value of workload.hpp, 0 = 1F1B).
constexpr unsigned schedule_bit(int schedule) { return 1U << static_cast<unsigned>(schedule); }
inline constexpr unsigned kOnly1f1b = schedule_bit(0);
inline constexpr unsigned kEverySchedule = schedule_bit(kPipeSchedules) - 1;

// The two families of rows: Megatron-Core's fused kernels and distributed
// optimizer, and eager PyTorch FSDP. A row is its family's defaults and what
// the framework does otherwise.
constexpr FrameworkTraits megatron_core_row(Framework framework, std::string_view name,
                                            std::string_view display) {
  return {.framework = framework,
          .name = name,
          .display = display,
          .engine = name,
          .megatron_family = true,
          .transformer_engine_fp8 = true,
          .tp = true,
          .pp = true,
          .cp = true,
          .interleaved_pp = true,
          .even_virtual_stages = true,
          .max_zero = 1,
          .max_zero_with_pp = 1,
          .state = StateKind::megatron_mixed,
          .logit_bytes = 6.0,
          .selective = SelectiveRecompute::attention_core,
          .eager = false,
          .kernel_floor_s = 0.0,
          .zero3_hidden_share = 1.0,
          .zero3_per_tensor = false,
          .lora_zero3_exposed = false,
          .dp_overlap = true,
          .tp_backward_overlap = true,
          .pp_grad_partitioned = true,
          .pp_serial_exchanges = false,
          .deepspeed_engine = false,
          .ep_overlap = false,
          .dedup_dispatch = false,
          .dequant_hbm_share = kEagerDequantHbmShare,
          .pp_keeps_unsharded = false,
          .pipeline_schedules = kOnly1f1b,
          .fused_by_compile = false,
          .mcore_grouped_mlp = true,
          .host_s_per_kernel = kHostSecondsPerKernel,
          .cuda_graph_modes = cuda_graph_bit(CudaGraphs::none) |
                              cuda_graph_bit(CudaGraphs::scoped) | cuda_graph_bit(CudaGraphs::full),
          .hybrid_shard_zero = 0,
          .no_sync_unsharded_grads = false};
}

constexpr FrameworkTraits pytorch_fsdp_row(Framework framework, std::string_view name,
                                           std::string_view display, double logit_bytes) {
  FrameworkTraits r = megatron_core_row(framework, name, display);
  r.megatron_family = false;
  r.transformer_engine_fp8 = false;
  r.mcore_grouped_mlp = false;
  r.tp = r.pp = r.cp = false;
  r.even_virtual_stages = false;
  r.max_zero = r.max_zero_with_pp = 3;
  r.state = StateKind::fsdp_fp32;
  r.logit_bytes = logit_bytes;
  r.eager = true;
  r.tp_backward_overlap = false;
  r.cuda_graph_modes = cuda_graph_bit(CudaGraphs::none) | cuda_graph_bit(CudaGraphs::full);
  r.hybrid_shard_zero = 1;
  return r;
}

// A row whose engine overlaps the MoE all-to-all with compute: Megatron-Core
// (--overlap-moe-expert-parallel-comm) and in-house engines (DualPipe).
constexpr FrameworkTraits with_ep_overlap(FrameworkTraits r) {
  r.ep_overlap = true;
  return r;
}

// An in-house engine: overlapped, node-deduplicated dispatch, and the
// pipeline (with its schedules), tensor and context parallelism the planner
// searches (DeepSeek-V3's HAI-LLM: PP16 DualPipe x EP64 x ZeRO-1 DP,
// arXiv:2412.19437 section 3.2).
constexpr FrameworkTraits in_house(FrameworkTraits r) {
  r = with_ep_overlap(r);
  r.tp = r.pp = r.cp = true;
  r.dedup_dispatch = true;
  r.pipeline_schedules = kEverySchedule;
  return r;
}

// FSDP2 composed with TP, PP and CP (torchtitan, NeMo AutoModel).
constexpr FrameworkTraits fsdp2_parallel_row(Framework framework, std::string_view name,
                                             std::string_view display, double logit_bytes) {
  FrameworkTraits r = pytorch_fsdp_row(framework, name, display, logit_bytes);
  r.tp = r.pp = r.cp = true;
  return r;
}

// NeMo AutoModel: FSDP2 with TP, PP, CP and EP (DeepEP dispatch, grouped
// GEMM); its benchmark recipes train pure bf16 and take the loss on bf16
// logits (MaskedCrossEntropy, fp32_upcast false): logits, log-softmax and
// gradient at 2 bytes each. Transformer Engine linears, norms and attention
// and grouped-GEMM experts: Megatron-Core's kernels, not eager PyTorch's.
constexpr FrameworkTraits automodel_row(Framework framework, std::string_view name,
                                        std::string_view display) {
  FrameworkTraits r = fsdp2_parallel_row(framework, name, display, 6.0);
  r.state = StateKind::bf16_pure;
  r.dedup_dispatch = true;  // enable_deepep in every MoE recipe
  r.eager = false;
  r.cuda_graph_modes = cuda_graph_bit(CudaGraphs::none);
  return r;
}

// Megatron-LM's layers under DeepSpeed's engine and ZeRO (Megatron-DeepSpeed).
constexpr FrameworkTraits deepspeed_row(Framework framework, std::string_view name,
                                        std::string_view display) {
  FrameworkTraits r = megatron_core_row(framework, name, display);
  r.deepspeed_engine = true;
  r.transformer_engine_fp8 = false;
  r.mcore_grouped_mlp = false;  // Megatron-DeepSpeed's own MoE layers
  r.max_zero = 3;
  r.state = StateKind::zero_16bit_grads;
  r.kernel_floor_s = kDeepSpeedKernelFloor_s;
  // The fitted kernel floor already is this row's host floor.
  r.host_s_per_kernel = 0.0;
  r.zero3_hidden_share = kDeepSpeedZero3HiddenShare;
  r.zero3_per_tensor = true;
  r.dp_overlap = false;
  r.tp_backward_overlap = false;  // synchronous under --deepspeed (tp_backward_overlap)
  r.pp_serial_exchanges = true;   // TrainSchedule's blocking p2p, one tensor at a time
  r.interleaved_pp = false;
  r.cuda_graph_modes = cuda_graph_bit(CudaGraphs::none);
  r.hybrid_shard_zero = 3;  // MiCS (mics_shard_size): ZeRO-3 only
  return r;
}

// One row per framework, in enum order.
inline constexpr std::array<FrameworkTraits, 13> kFrameworkTable = {{
    with_ep_overlap(megatron_core_row(Framework::megatron, "megatron", "Megatron-LM")),
    deepspeed_row(Framework::deepspeed, "deepspeed", "DeepSpeed (ZeRO, Megatron-DeepSpeed)"),
    pytorch_fsdp_row(Framework::fsdp, "fsdp", "PyTorch FSDP", 12.0),
    [] {
      FrameworkTraits r = fsdp2_parallel_row(Framework::torchtitan, "torchtitan",
                                             "torchtitan (PyTorch FSDP2, TP, PP, CP)", 12.0);
      r.selective = SelectiveRecompute::op_level_sac;
      r.pp_keeps_unsharded = true;
      // pipeline_parallel_schedule = "DualPipeV" (torch.distributed.pipelining
      // ScheduleDualPipeV, PyTorch 2.9 on).
      r.pipeline_schedules = kOnly1f1b | schedule_bit(3);
      return r;
    }(),
    with_ep_overlap(megatron_core_row(Framework::nemo, "nemo", "NeMo (Megatron-Core)")),
    pytorch_fsdp_row(Framework::mosaic, "mosaic", "MosaicML llm-foundry (PyTorch FSDP)", 4.0),
    automodel_row(Framework::automodel, "automodel", "NeMo AutoModel (PyTorch FSDP2, EP, PP)"),
    [] {
      // Hugging Face Trainer with PEFT/TRL (and Accelerate's FSDP or DeepSpeed
      // ZeRO): eager PyTorch under AMP (fp32 parameters, 16-bit compute),
      // bitsandbytes 4-bit layers, the loss on fp32-upcast logits; PEFT's
      // FSDP wrap policy under the rate limiter (`lora_zero3_exposed`).
      FrameworkTraits r = pytorch_fsdp_row(
          Framework::hf, "hf", "Hugging Face Trainer / PEFT / TRL (eager, bitsandbytes)", 12.0);
      r.lora_zero3_exposed = true;
      return r;
    }(),
    [] {
      // torchtune: FSDP2, recipes built in bf16 (no fp32 master copy) and
      // run under torch.compile; torchao NF4 base weights.
      FrameworkTraits r = pytorch_fsdp_row(Framework::torchtune, "torchtune",
                                           "torchtune (FSDP2, torch.compile, torchao NF4)", 12.0);
      r.state = StateKind::bf16_pure;
      r.eager = false;
      r.dequant_hbm_share = kCompiledDequantHbmShare;
      r.fused_by_compile = true;
      r.hybrid_shard_zero = 0;
      return r;
    }(),
    [] {
      // Lit-GPT (Lightning Fabric): eager PyTorch, --precision bf16-true
      // (bf16 parameters and moments), bitsandbytes NF4 layers.
      FrameworkTraits r = pytorch_fsdp_row(
          Framework::litgpt, "litgpt", "Lit-GPT (Lightning Fabric, bf16-true, bitsandbytes)", 12.0);
      r.state = StateKind::bf16_pure;
      r.no_sync_unsharded_grads = true;
      return r;
    }(),
    [] {
      // NeMo AutoModel on PyTorch's own kernels: nn.Linear, PyTorch RMSNorm,
      // SiLU, multiply and RoPE as kernels of their own, SDPA attention; its
      // fusion is torch.compile's (`enable_compile`), so uncompiled it runs
      // as eager PyTorch (`fused_by_compile`). The Llama builder at 01926a5
      // (2025-10) builds these and no Transformer Engine module
      // (nemo_automodel/components/models/llama/model.py: nn.Linear
      // qkv_proj/gate_up_proj, LlamaRMSNorm, ACT2FN), and that commit's
      // performance summary lists its Llama 3 70B LoRA PP run with "Kernel
      // Optimizations: -". Later versions choose it with
      // BackendConfig(linear="torch", rms_norm="torch", attn="sdpa").
      FrameworkTraits r =
          automodel_row(Framework::automodel_torch, "automodel-torch",
                        "NeMo AutoModel on PyTorch kernels (no Transformer Engine)");
      r.fused_by_compile = true;
      r.engine = "automodel";
      return r;
    }(),
    [] {
      // Megatron-DeepSpeed as MT-NLG ran it in 2021 (docs/model.md,
      // "Frameworks"): DeepSpeed's pipeline engine up to v0.5.3 sends whole
      // activation gradients between stages (`pp_grad_partitioned`). Its
      // backward TP all-reduce is synchronous, as on every deepspeed row.
      FrameworkTraits r =
          deepspeed_row(Framework::megatron_deepspeed_2021, "megatron-deepspeed-2021",
                        "Megatron-DeepSpeed of 2021 (DeepSpeed <= 0.5.3 pipeline engine)");
      r.pp_grad_partitioned = false;
      r.engine = "deepspeed";
      return r;
    }(),
    in_house(pytorch_fsdp_row(Framework::other, "other",
                              "another framework, taken as plain PyTorch FSDP", 12.0)),
}};

static_assert(kFrameworkTable.size() == static_cast<std::size_t>(Framework::other) + 1,
              "one row per Framework value");
static_assert(
    [] {
      for (std::size_t i = 0; i < kFrameworkTable.size(); ++i) {
        if (static_cast<std::size_t>(kFrameworkTable[i].framework) != i) return false;
        for (std::size_t j = 0; j < i; ++j) {
          if (kFrameworkTable[j].name == kFrameworkTable[i].name) return false;
        }
      }
      return true;
    }(),
    "rows in enum order, names unique");

// The row of `f`.
constexpr const FrameworkTraits& framework_traits(Framework f) {
  return kFrameworkTable[static_cast<std::size_t>(f)];
}

// The framework an input word names; nullopt for an unknown word.
std::optional<Framework> framework_from_name(std::string_view name);

// Every framework's name, in table order (the allowed values of the input
// readers and their spelling suggestions).
const std::vector<std::string>& framework_names();

// Whether the workload key `compile` (torch.compile) applies: PyTorch-native
// frameworks; Megatron-LM, NeMo and DeepSpeed do not compile model or loss.
inline bool takes_torch_compile(Framework f) { return !framework_traits(f).megatron_family; }
// Token dropping (workload moe.capacity_factor, moe.pad_to_capacity) is
// modelled as Megatron-Core's MoE layer runs it (its dispatcher's capacity
// and padding): the rows whose experts run that layer.
inline bool takes_token_drop(Framework f) { return framework_traits(f).mcore_grouped_mlp; }

const char* to_string(Framework f);

// The name of a CUDA graph mode (workload `cuda_graphs`), and the names of
// the frameworks that run `g`, joined by ", " (for messages).
const char* to_string(CudaGraphs g);
// The mode a name gives: "scoped", "full"; anything else (none, empty) none.
CudaGraphs cuda_graphs_from_name(std::string_view name);
std::string cuda_graph_framework_names(CudaGraphs g);

// The names of the frameworks that run FP8 through Transformer Engine, joined
// by " or " ("megatron or nemo"), for messages.
std::string transformer_engine_fp8_names();

// Whether the framework implements tensor, pipeline and context parallelism
// of these degrees (1 is always allowed).
constexpr bool framework_allows(Framework f, int tp, int pp, int cp) {
  const FrameworkTraits& t = framework_traits(f);
  return (tp <= 1 || t.tp) && (pp <= 1 || t.pp) && (cp <= 1 || t.cp);
}

// The highest ZeRO stage the framework runs with `pp` pipeline stages.
constexpr int max_zero_stage(Framework f, int pp) {
  const FrameworkTraits& t = framework_traits(f);
  return pp > 1 ? t.max_zero_with_pp : t.max_zero;
}

}  // namespace scaleout
