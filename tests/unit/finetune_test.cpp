// Fine-tuning mechanisms (issue 19): executed FLOPs and MFU of adapters,
// quantised base weights and their dequantisation, memory savers and their
// time, peak kinds, the new workload keys and CSV columns.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "memory/memory.hpp"
#include "model/params.hpp"
#include "perf/step.hpp"
#include "search/planner.hpp"
#include "validation/validation.hpp"
#include "validation_rows.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }
const Gpu& gpu(const char* id) { return *cat().find_gpu(id); }
const Server& server(const char* id) { return *cat().find_server(id); }

Workload lora(const char* model, FinetuneMethod method, Framework f = Framework::fsdp) {
  Workload w;
  w.model = *cat().find_model(model);
  w.task = Task::finetune;
  w.finetune.method = method;
  w.finetune.rank = 16;
  w.framework = f;
  w.seq_len = 2048;
  w.layout.micro_batch = 1;
  w.global_batch = 8;
  return w;
}

StepEstimate step(const Workload& w, const char* srv = "dgx-a100") {
  const Server& s = server(srv);
  const Gpu& g = *cat().find_gpu(s.gpu_id);
  return estimate_step(w, s, g, nullptr, perf_constants(g, w.framework));
}

io::WorkloadFile read(const std::string& yaml) {
  return io::read_workload(yaml, "w.yaml", "", cat(), false);
}

// --- executed FLOPs and MFU -----------------------------------------------------------------

TEST(FinetuneFlops, LoraCountsFourNForTheFrozenBaseAndSixNForAdapters) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora);
  const DescribedLayers d = describe_layers(w);
  const double six_n = model_flops_per_token_6n(w, d);
  const double executed = model_flops_per_token(w, d);
  // 4 N + 6 N_a + attention against 6 N + attention: about two thirds.
  const double attention = 12.0 * 32 * 4096 * 2048.0;
  const double n = (six_n - attention) / 6.0;
  const double n_a = trainable_params(w);
  EXPECT_NEAR(executed, 4.0 * (n - 65 * 4096.0) + 6.0 * n_a + attention, 1e-6 * executed);
  w.finetune.method = FinetuneMethod::full;
  w.task = Task::pretrain;
  EXPECT_DOUBLE_EQ(model_flops_per_token(w, describe_layers(w)), six_n);
}

TEST(FinetuneFlops, MfuSixNEquivalentIsReportedBesideMfu) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora);
  w.layout.dp = 8;
  const StepEstimate s = step(w);
  EXPECT_GT(s.mfu, 0.0);
  EXPECT_GT(s.mfu_6n_equivalent, s.mfu);
  EXPECT_NEAR(s.mfu / s.mfu_6n_equivalent,
              model_flops_per_token(w, describe_layers(w)) /
                  model_flops_per_token_6n(w, describe_layers(w)),
              1e-12);
  // Full fine-tuning: the two agree.
  w.finetune.method = FinetuneMethod::full;
  const StepEstimate f = step(w);
  EXPECT_DOUBLE_EQ(f.mfu, f.mfu_6n_equivalent);
}

TEST(FinetuneFlops, LoraHeadComputesNoWeightGradient) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora);
  const Gpu& g = gpu("a100-sxm-80g");
  const ComputeConstants k = compute_constants(g);
  const OpTimes l = logits_forward_backward(w, g, k);
  w.task = Task::pretrain;
  const OpTimes f = logits_forward_backward(w, g, k);
  EXPECT_NEAR(l.flops / f.flops, 2.0 / 3.0, 1e-12);
}

// The plans of the two fine-tuning examples: MFU a practitioner recognises.
TEST(FinetuneFlops, ExamplePlansStayUnderOneHundredPercent) {
  for (const char* file : {"plan-llama3-70b-qlora.yaml", "plan-llama3-8b-lora.yaml"}) {
    const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/examples/" + file;
    const io::WorkloadFile wf =
        io::read_workload(io::read_text_file(path), path, SCALEOUT_SOURCE_DIR, cat(), false);
    for (int nodes : {1, 2}) {
      Workload w = wf.workload;
      w.cluster.nodes = nodes;
      w.layout.dp = 8 * nodes;
      w.layout.zero = 3;
      w.layout.recompute = Recompute::full;
      const StepEstimate s = step(w);
      EXPECT_LT(s.mfu, 0.60) << file;
      EXPECT_LT(s.mfu_6n_equivalent, 1.0) << file;
      EXPECT_LT(s.hfu, 1.0) << file;
    }
  }
}

TEST(FinetuneFlops, LoraThirtyBStaysUnderOneHundredPercent) {
  // A 30B-class dense LoRA job (Qwen2.5-32B-like via llama2-70b's width is
  // not needed: mpt-30b is in the catalog) on one 8-GPU node.
  Workload w = lora("mpt-30b", FinetuneMethod::lora);
  w.layout.dp = 8;
  w.layout.zero = 3;
  w.global_batch = 64;
  for (int mb : {1, 2, 4}) {
    w.layout.micro_batch = mb;
    const StepEstimate s = step(w, "dgx-h100");
    EXPECT_LT(s.mfu, 1.0);
    EXPECT_LT(s.mfu_6n_equivalent, 1.0);
    EXPECT_LT(s.hfu, 1.0);
  }
}

// --- quantised base weights ----------------------------------------------------------------

TEST(FinetuneQuant, Nf4BytesWithDoubleQuantisation) {
  EXPECT_NEAR(kNf4BytesPerParam, 0.516, 5e-4);
  // Without double quantisation an fp32 absmax per 64 weights: 0.5625.
  EXPECT_NEAR(0.5 + 4.0 / 64.0, 0.5625, 1e-12);
}

TEST(FinetuneQuant, EagerDequantisationCostsPerPassAndNotPerToken) {
  Workload q = lora("llama2-7b", FinetuneMethod::qlora, Framework::hf);
  Workload l = lora("llama2-7b", FinetuneMethod::lora, Framework::hf);
  const Gpu& g = gpu("a100-sxm-40g");
  const PerfConstants k = perf_constants(g, Framework::hf);
  EXPECT_DOUBLE_EQ(k.compute.dequant_hbm_share, kEagerDequantHbmShare);
  const LayerTimes tq = layer_times(q, g, k.compute, false);
  const LayerTimes tl = layer_times(l, g, k.compute, false);
  EXPECT_EQ(tl.dequant_s, 0.0);
  // One pass over the layer's 202M base weights at 2.5 B each, 25 % of 1.555 TB/s.
  const LayerOps ops = describe_layer(q, false);
  double frozen = 0;
  for (const LayerOp& op : ops) {
    if (op.kind == OpKind::gemm && op.frozen_under_lora) frozen += op.local_params;
  }
  EXPECT_NEAR(tq.dequant_s, frozen * 2.5 / (g.hbm_bw_Bps * 0.25), 1e-12);
  EXPECT_NEAR(tq.forward.total() - tl.forward.total(), tq.dequant_s, 1e-9);
  EXPECT_NEAR(tq.backward.total() - tl.backward.total(), tq.dequant_s, 1e-9);
  // Lit-GPT Llama-2 7B on A100-40GB: ~40 ms per pass over the model.
  EXPECT_NEAR(tq.dequant_s * 32, 0.040, 0.012);
  // Full recompute dequantises a third time.
  q.layout.recompute = Recompute::full;
  l.layout.recompute = Recompute::full;
  const double extra =
      step(q, "dgx-a100").breakdown.compute - step(l, "dgx-a100").breakdown.compute;
  EXPECT_GT(extra, 0.0);
}

TEST(FinetuneStep, EagerLoraScalesAndAddsEachAdapterOutput) {
  // PEFT's Linear.forward (result + lora_B(lora_A(dropout(x))) * scaling),
  // Lit-GPT's and uncompiled torchtune's: two element-wise kernels per
  // adapted linear over its output, 10 bytes per element; compiled torchtune
  // (Inductor fuses them) and the fused-kernel rows add none.
  const Gpu& g = gpu("a100-sxm-80g");
  auto ew = [&](Framework f, Compile c) {
    Workload w = lora("llama3-8b", FinetuneMethod::lora, f);
    w.compile = c;
    return layer_times(w, g, perf_constants(g, f, c).compute, false);
  };
  const LayerTimes fused = ew(Framework::torchtune, Compile::all);
  const LayerTimes eager = ew(Framework::torchtune, Compile::none);
  // Llama 3 8B, all linears: q 4096 + k 1024 + v 1024 + o 4096, gate and up
  // 2 x 14336, down 4096.
  const double out_width = 4096 + 1024 + 1024 + 4096 + 2 * 14336 + 4096;
  const double bytes = 10.0 * out_width * 2048;
  const ComputeConstants k = perf_constants(g, Framework::torchtune, Compile::none).compute;
  const double added = bytes * k.elementwise_traffic / (g.hbm_bw_Bps * k.hbm_efficiency);
  // The same layer otherwise, but for the eager efficiency of its GEMMs.
  EXPECT_NEAR(eager.elementwise_s - fused.elementwise_s, added, 1e-9);
  EXPECT_GT(ew(Framework::hf, Compile::none).elementwise_s, fused.elementwise_s);
  EXPECT_DOUBLE_EQ(ew(Framework::automodel, Compile::none).elementwise_s, fused.elementwise_s);
  EXPECT_DOUBLE_EQ(ew(Framework::megatron, Compile::none).elementwise_s, fused.elementwise_s);
  // Full fine-tuning has no adapters.
  Workload full = lora("llama3-8b", FinetuneMethod::full, Framework::hf);
  Workload full_tt = lora("llama3-8b", FinetuneMethod::full, Framework::torchtune);
  full_tt.compile = Compile::all;
  EXPECT_DOUBLE_EQ(
      layer_times(full, g, perf_constants(g, Framework::hf).compute, false).elementwise_s,
      layer_times(full_tt, g, perf_constants(g, Framework::hf).compute, false).elementwise_s);
}

TEST(FinetuneStep, LoraDropoutAddsAKernelPerAdapter) {
  // PEFT lora/layer.py: lora_B(lora_A(dropout(x))) with nn.Dropout(p) when
  // lora_dropout > 0 (nn.Identity at 0): one element-wise kernel over each
  // adapter's input (read 2, write 2, mask 1 byte).
  const Gpu& g = gpu("a100-sxm-80g");
  const ComputeConstants k = perf_constants(g, Framework::hf).compute;
  Workload w = lora("llama3-8b", FinetuneMethod::lora, Framework::hf);
  w.layout.recompute = Recompute::none;
  const LayerTimes off = layer_times(w, g, k, false);
  const double mem_off = estimate_memory(w, g).peak.activations;
  w.finetune.lora_dropout = 0.1;
  const LayerTimes on = layer_times(w, g, k, false);
  // Inputs of the adapted linears: q, k, v, gate, up 4096 each, o 4096, down 14336.
  const double in_width = 6 * 4096.0 + 14336;
  const double bytes = 5.0 * in_width * 2048;
  EXPECT_NEAR(on.elementwise_s - off.elementwise_s,
              bytes * k.elementwise_traffic / (g.hbm_bw_Bps * k.hbm_efficiency), 1e-9);
  EXPECT_DOUBLE_EQ(on.forward.kernels - off.forward.kernels, 7.0);
  // Its mask and dropped input are not counted (docs/model.md).
  EXPECT_DOUBLE_EQ(estimate_memory(w, g).peak.activations, mem_off);
  // A probability of 0 is no dropout.
  w.finetune.lora_dropout = 0;
  EXPECT_DOUBLE_EQ(layer_times(w, g, k, false).elementwise_s, off.elementwise_s);
  EXPECT_DOUBLE_EQ(estimate_memory(w, g).peak.activations, mem_off);
}

TEST(FinetuneQuant, CompiledTorchaoIsNearlyFree) {
  EXPECT_DOUBLE_EQ(framework_traits(Framework::torchtune).dequant_hbm_share,
                   kCompiledDequantHbmShare);
  Workload q = lora("llama3-8b", FinetuneMethod::qlora, Framework::torchtune);
  Workload l = lora("llama3-8b", FinetuneMethod::lora, Framework::torchtune);
  q.seq_len = l.seq_len = 4096;
  q.layout.micro_batch = l.layout.micro_batch = 2;
  const double ratio = step(q).step_s / step(l).step_s;
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.05);  // torchtune README: QLoRA 2.1 % slower than LoRA
  Workload qe = q;
  qe.framework = Framework::hf;
  Workload le = l;
  le.framework = Framework::hf;
  EXPECT_GT(step(qe).step_s / step(le).step_s, ratio);
}

// --- ZeRO-3 gathers of adapters' base weights ----------------------------------------------

// Llama-2 7B adapters on two GPUs of a GeForce RTX 4090 workstation, ZeRO-3.
Workload two_gpu_zero3(FinetuneMethod method, Framework f, long long seq, int micro_batch) {
  Workload w = lora("llama2-7b", method, f);
  w.layout.dp = 2;
  w.layout.zero = 3;
  w.layout.recompute = Recompute::full;
  w.layout.micro_batch = micro_batch;
  w.seq_len = seq;
  w.global_batch = 2LL * micro_batch;
  return w;
}

TEST(FinetuneStep, QloraGathersTheNf4Weights) {
  // Under `hf` every gather is exposed (below), so dp_comm is the gathers
  // alone: NF4 moves kNf4BytesPerParam of the 2 bytes per weight.
  const char* ws = "workstation-4x-rtx-4090";
  const StepEstimate q = step(two_gpu_zero3(FinetuneMethod::qlora, Framework::hf, 512, 1), ws);
  const StepEstimate l = step(two_gpu_zero3(FinetuneMethod::lora, Framework::hf, 512, 1), ws);
  EXPECT_NEAR(q.breakdown.dp_comm / l.breakdown.dp_comm, kNf4BytesPerParam / 2.0, 0.01);
  // LoRA: 32 layers x 2 gathers x half of 202.4M weights x 2 B over the
  // host-staged 6.4 GB/s (no peer-to-peer on GeForce): about 2.0 s a step.
  EXPECT_NEAR(l.breakdown.dp_comm, 32 * 2 * 202.4e6 / 6.4e9, 0.05);
}

TEST(FinetuneStep, PeftFsdpUnitsExposeTheGathers) {
  // Enough compute per layer to hide the gathers: plain FSDP hides them,
  // PEFT's units under the rate limiter (hf) do not.
  const char* ws = "workstation-4x-rtx-4090";
  const StepEstimate fsdp = step(two_gpu_zero3(FinetuneMethod::lora, Framework::fsdp, 4096, 4), ws);
  const StepEstimate hf = step(two_gpu_zero3(FinetuneMethod::lora, Framework::hf, 4096, 4), ws);
  EXPECT_DOUBLE_EQ(fsdp.breakdown.dp_comm, 0.0);
  EXPECT_NEAR(hf.breakdown.dp_comm, 32 * 2 * 202.4e6 / 6.4e9, 0.05);
  EXPECT_NEAR(hf.step_s - fsdp.step_s, hf.breakdown.dp_comm, 1e-9);
  // Full fine-tuning under hf has no adapter units: hidden as under fsdp.
  const StepEstimate full = step(two_gpu_zero3(FinetuneMethod::full, Framework::hf, 4096, 4), ws);
  EXPECT_DOUBLE_EQ(full.breakdown.dp_comm, 0.0);
  // With peer-to-peer (4x the bus bandwidth) the exposed gathers are 4x shorter.
  Gpu p2p = gpu("rtx-4090");
  p2p.peer_to_peer = true;
  const Workload w = two_gpu_zero3(FinetuneMethod::lora, Framework::hf, 4096, 4);
  const StepEstimate direct =
      estimate_step(w, server(ws), p2p, nullptr, perf_constants(p2p, Framework::hf));
  EXPECT_NEAR(hf.breakdown.dp_comm / direct.breakdown.dp_comm, 4.0, 0.05);
}

TEST(FinetuneStep, LitgptNoSyncReduceScattersTheWholeBlockOncePerStep) {
  // Lit-GPT's FSDP1 no_sync(): the gathers run every micro-batch, the
  // block's whole flat gradient (frozen weights too) is reduce-scattered once
  // a step. Short sequences keep every gather exposed, so the step's FSDP
  // time is m x (2 gathers - hidden) + one reduce-scatter R:
  // 4 x D(m = 1) - D(m = 4) = 3 R.
  const char* ws = "workstation-4x-rtx-4090";
  auto dp_comm = [&](Framework f, int micro_batches) {
    Workload w = two_gpu_zero3(FinetuneMethod::lora, f, 512, 1);
    w.global_batch = 2LL * micro_batches;
    return step(w, ws).breakdown.dp_comm;
  };
  const double r = (4.0 * dp_comm(Framework::litgpt, 1) - dp_comm(Framework::litgpt, 4)) / 3.0;
  // 32 layers x half of 202.4M weights x 2 B (bf16-true) over the
  // host-staged 6.4 GB/s: as long as one gather.
  EXPECT_NEAR(r, 32 * 202.4e6 / 6.4e9, 0.05);
  // Plain FSDP LoRA reduce-scatters no base-weight gradient at all.
  EXPECT_NEAR(4.0 * dp_comm(Framework::fsdp, 1) - dp_comm(Framework::fsdp, 4), 0.0, 1e-9);
}

// --- memory savers --------------------------------------------------------------------------

TEST(FinetuneMemory, OptimizerBytes) {
  Workload w = lora("llama3-8b", FinetuneMethod::full);
  w.task = Task::pretrain;
  w.optimizer = Optimizer::adam8bit;
  EXPECT_NEAR(state_policy(w).optimizer_bytes, 2.03125, 1e-12);
  w.optimizer = Optimizer::adam_bf16;
  const StatePolicy p = state_policy(w);
  EXPECT_DOUBLE_EQ(p.weight_bytes + p.grad_bytes + p.master_bytes + p.optimizer_bytes, 8.0);
  EXPECT_STREQ(to_string(Optimizer::adam_bf16), "adam-bf16");
}

TEST(FinetuneMemory, ChunkedLossDividesTheUpcastLogits) {
  Workload w = lora("llama3-8b", FinetuneMethod::full, Framework::torchtune);
  w.task = Task::pretrain;
  const Gpu& g = gpu("a100-sxm-80g");
  const double whole = estimate_memory(w, g).peak.logits;
  w.loss_chunks = 8;
  const double chunked = estimate_memory(w, g).peak.logits;
  // 12 bytes per logit -> 2 + 10 / 8.
  EXPECT_NEAR(chunked / whole, (2.0 + 10.0 / 8.0) / 12.0, 1e-12);
}

TEST(FinetuneMemory, CompiledLossKeepsFourBytesPerLogit) {
  Workload w = lora("llama3-8b", FinetuneMethod::full, Framework::torchtune);
  w.task = Task::pretrain;
  const Gpu& g = gpu("a100-sxm-80g");
  const double eager = estimate_memory(w, g).peak.logits;
  w.compile = Compile::model;  // the layers only: the loss stays eager
  EXPECT_DOUBLE_EQ(estimate_memory(w, g).peak.logits, eager);
  w.compile = Compile::all;
  EXPECT_NEAR(estimate_memory(w, g).peak.logits / eager, 4.0 / 12.0, 1e-12);
  w.loss_chunks = 8;  // chunks of the compiled loss: 2 + 2 / 8
  EXPECT_NEAR(estimate_memory(w, g).peak.logits / eager, (2.0 + 2.0 / 8.0) / 12.0, 1e-12);
}

TEST(FinetuneMemory, SixteenBitLossKeepsSixBytesPerLogit) {
  // Qwen-1's modeling code under DeepSpeed's 16-bit engine: CrossEntropyLoss
  // of the fp16 lm_head output, no upcast, no autocast.
  Workload w = lora("llama3-8b", FinetuneMethod::qlora, Framework::hf);
  const Gpu& g = gpu("a100-sxm-80g");
  const double upcast = estimate_memory(w, g).peak.logits;
  w.loss_upcast = false;
  // 4 + 4 + 4 -> 2 + 2 + 2.
  EXPECT_NEAR(estimate_memory(w, g).peak.logits / upcast, 6.0 / 12.0, 1e-12);
  w.loss_chunks = 8;  // chunks of the 16-bit loss: 2 + 4 / 8
  EXPECT_NEAR(estimate_memory(w, g).peak.logits / upcast, (2.0 + 4.0 / 8.0) / 12.0, 1e-12);
  w.loss_chunks = 1;
  w.compile = Compile::all;  // a compiled loss keeps fewer still
  EXPECT_NEAR(estimate_memory(w, g).peak.logits / upcast, 4.0 / 12.0, 1e-12);
  // A fused loss that already keeps no more is unchanged (llm-foundry: 4).
  for (Framework f : {Framework::mosaic, Framework::megatron}) {
    Workload m = lora("llama3-8b", FinetuneMethod::full, f);
    m.task = Task::pretrain;
    const double own = estimate_memory(m, g).peak.logits;
    m.loss_upcast = false;
    EXPECT_DOUBLE_EQ(estimate_memory(m, g).peak.logits, own) << to_string(f);
  }
}

TEST(FinetuneMemory, OptimizerInBackwardKeepsOneLayersGradients) {
  Workload w = lora("llama3-8b", FinetuneMethod::full, Framework::torchtune);
  w.task = Task::pretrain;
  const Gpu& g = gpu("a100-sxm-80g");
  const double whole = estimate_memory(w, g).peak.gradients;
  w.optimizer_in_backward = true;
  EXPECT_NEAR(estimate_memory(w, g).peak.gradients, whole / 32, 1e-6 * whole);
}

TEST(FinetuneMemory, OffloadAllMovesWeightsAndGradientsToTheHost) {
  Workload w = lora("llama3-70b", FinetuneMethod::full, Framework::torchtune);
  w.task = Task::pretrain;
  w.layout.dp = 8;
  w.layout.zero = 3;
  w.layout.recompute = Recompute::full;
  const Gpu& g = gpu("a100-sxm-80g");
  const MemoryEstimate none = estimate_memory(w, g);
  w.layout.offload_optimizer = true;
  const MemoryEstimate opt = estimate_memory(w, g);
  w.layout.offload_params = true;
  const MemoryEstimate all = estimate_memory(w, g);
  EXPECT_LT(opt.total(), none.total());
  EXPECT_LT(all.total(), opt.total());
  EXPECT_EQ(all.peak.weights, 0.0);
  EXPECT_EQ(all.peak.gradients, 0.0);
  EXPECT_NEAR(all.host_offload_bytes, none.peak.weights + none.peak.gradients + none.peak.optimizer,
              1.0);
  // The time: the CPU optimizer step and the host-link copies.
  w.layout.offload_params = false;
  w.layout.offload_optimizer = false;
  const StepEstimate s0 = step(w);
  w.layout.offload_optimizer = true;
  const StepEstimate s1 = step(w);
  EXPECT_GT(s1.breakdown.optimizer, s0.breakdown.optimizer);
  w.layout.offload_params = true;
  const StepEstimate s2 = step(w);
  EXPECT_GE(s2.breakdown.other, 0.0);
  EXPECT_GE(s2.step_s, s1.step_s);
}

TEST(FinetuneStep, PagedEightBitAdamStepsOnTheGpuAndPagesOnlyWhatDoesNotFit) {
  // bitsandbytes' paged 8-bit AdamW (adam8bit + offload: optimizer) has no
  // CPU step: the GPU kernel updates the state in unified memory.
  Workload w = lora("llama3-8b", FinetuneMethod::full, Framework::torchtune);
  w.layout.recompute = Recompute::full;
  w.optimizer = Optimizer::adam8bit;
  const Server& s = server("dgx-a100");
  const Gpu& g = *cat().find_gpu(s.gpu_id);
  const StepEstimate resident = step(w);
  w.layout.offload_optimizer = true;
  const MemoryEstimate mem = estimate_memory(w, g);
  const StepEstimate paged = step(w);
  // 80 GB holds the 8-bit state beside the step's peak: the same GPU pass as
  // without offload, no page traffic, far below the 4.5 s a host Adam step
  // of 8 B parameters would take.
  ASSERT_GT(mem.headroom_bytes, mem.host_offload_bytes);
  EXPECT_NEAR(paged.breakdown.optimizer, resident.breakdown.optimizer, 1e-12);
  EXPECT_LT(paged.breakdown.optimizer, 0.5);
  // A GPU about 4 GiB short of the state beyond the peak pages the part
  // that does not fit in and out: + 2 x (state - headroom) / host link.
  Gpu small = g;
  small.hbm_bytes = mem.total() + mem.host_offload_bytes - 4.0 * (1ull << 30);
  const MemoryEstimate small_mem = estimate_memory(w, small);
  const double overflow = small_mem.host_offload_bytes - small_mem.headroom_bytes;
  ASSERT_GT(overflow, 3.0 * (1ull << 30));
  const StepEstimate tight =
      estimate_step(w, s, small, nullptr, perf_constants(small, w.framework));
  EXPECT_NEAR(tight.breakdown.optimizer - paged.breakdown.optimizer,
              2.0 * overflow / g.host_link_Bps, 1e-9);
}

TEST(FinetuneMemory, ActivationOffloadKeepsTwoLayers) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora, Framework::torchtune);
  const Gpu& g = gpu("a100-sxm-80g");
  const MemoryEstimate on_gpu = estimate_memory(w, g);
  w.layout.activation_offload = true;
  const MemoryEstimate off = estimate_memory(w, g);
  // Two layers' worth, plus the final norm's and output projection's inputs.
  EXPECT_NEAR(off.peak.activations,
              2.0 * on_gpu.activation_bytes_per_layer + 2.0 * 2.0 * 2048 * 4096, 1.0);
  EXPECT_LT(off.peak.activations, on_gpu.peak.activations);
  // The copies cross a slow host link: a PCIe 4090-class link shows them.
  Gpu slow = g;
  slow.host_link_Bps = 1e9;
  const Server& s = server("dgx-a100");
  const StepEstimate st = estimate_step(w, s, slow, nullptr, perf_constants(slow, w.framework));
  EXPECT_GT(st.breakdown.other, 0.0);
}

TEST(FinetuneMemory, Fp8LoraKeepsNoCachedFp8Copy) {
  // Megatron-Bridge's FP8 LoRA recipes keep bf16 frozen weights and disable
  // the transpose cache: only a transient FP8 copy of one layer.
  Workload w = lora("llama3-70b", FinetuneMethod::lora, Framework::nemo);
  w.layout.tp = 8;
  w.precision = Precision::bf16;
  const Gpu& g = gpu("h100-sxm");
  const MemoryEstimate bf16 = estimate_memory(w, g);
  w.precision = Precision::fp8;
  const MemoryEstimate fp8 = estimate_memory(w, g);
  EXPECT_DOUBLE_EQ(fp8.peak.weights, bf16.peak.weights);
  EXPECT_GT(fp8.peak.buffers, bf16.peak.buffers);
  EXPECT_LT(fp8.peak.buffers - bf16.peak.buffers, 0.05 * bf16.peak.weights);
}

TEST(FinetuneMemory, AllocatedAndReservedPeaks) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora, Framework::hf);
  const MemoryEstimate m = estimate_memory(w, gpu("a100-sxm-80g"));
  EXPECT_LT(m.allocated_bytes(), m.reserved_bytes());
  EXPECT_LT(m.reserved_bytes(), m.total());
  EXPECT_NEAR(m.total() - m.reserved_bytes(), OverheadModel{}.fixed_bytes, 1.0);
}

TEST(FinetuneMemory, AdapterTargets) {
  Workload w = lora("llama3-8b", FinetuneMethod::lora);
  const double all = trainable_params(w);
  w.finetune.targets = AdapterTargets::attention;
  const double attn = trainable_params(w);
  w.finetune.targets = AdapterTargets::qkv;
  const double qkv = trainable_params(w);
  w.finetune.targets = AdapterTargets::qv;
  const double qv = trainable_params(w);
  EXPECT_GT(all, attn);
  EXPECT_GT(attn, qkv);
  EXPECT_GT(qkv, qv);
  // q and v: r (h + h) + r (h + 1024) per layer, 32 layers.
  EXPECT_DOUBLE_EQ(qv, 32 * 16.0 * ((4096 + 4096) + (4096 + 1024)));
}

// --- input ----------------------------------------------------------------------------------

const char* kBase =
    "model: llama3-8b\n"
    "task: finetune\n"
    "finetune: {method: lora, targets: qv}\n";

TEST(FinetuneInput, KeysAreRead) {
  const io::WorkloadFile f = read(std::string(kBase) +
                                  "optimizer: adam-bf16\n"
                                  "loss_chunks: 8\n"
                                  "optimizer_in_backward: true\n"
                                  "layout: {offload: all, activation_offload: true}\n");
  const Workload& w = f.workload;
  EXPECT_EQ(w.optimizer, Optimizer::adam_bf16);
  EXPECT_EQ(w.loss_chunks, 8);
  EXPECT_TRUE(w.optimizer_in_backward);
  EXPECT_TRUE(w.layout.offload_optimizer);
  EXPECT_TRUE(w.layout.offload_params);
  EXPECT_TRUE(w.layout.activation_offload);
  EXPECT_EQ(w.finetune.targets, AdapterTargets::qv);
  for (const char* v : {"true", "optimizer"}) {
    const Workload o = read(std::string(kBase) + "layout: {offload: " + v + "}\n").workload;
    EXPECT_TRUE(o.layout.offload_optimizer) << v;
    EXPECT_FALSE(o.layout.offload_params) << v;
  }
  for (const char* v : {"false", "none"}) {
    const Workload o = read(std::string(kBase) + "layout: {offload: " + v + "}\n").workload;
    EXPECT_FALSE(o.layout.offload_optimizer) << v;
  }
}

void expect_error(const std::string& yaml, const std::string& key, const std::string& word) {
  expect_input_error([&] { read(yaml); }, {"w.yaml:", key, word});
}

TEST(FinetuneInput, BadValuesNameTheKeyAndTheAcceptedValues) {
  expect_error(std::string(kBase) + "optimizer: adam16\n", "optimizer", "adam");
  expect_error(std::string(kBase) + "layout: {offload: everything}\n", "offload", "all");
  expect_error(std::string(kBase) + "layout: {activation_offload: maybe}\n", "activation_offload",
               "true");
  expect_error(std::string(kBase) + "loss_chunks: 0\n", "loss_chunks", "1");
  expect_error(std::string(kBase) + "optimizer_in_backward: perhaps\n", "optimizer_in_backward",
               "true");
  expect_error("model: llama3-8b\ntask: finetune\nfinetune: {method: lora, targets: qk}\n",
               "targets", "qkv");
}

TEST(FinetuneInput, LoraDropoutKey) {
  EXPECT_DOUBLE_EQ(read(kBase).workload.finetune.lora_dropout, 0.0);
  EXPECT_DOUBLE_EQ(
      read("model: llama3-8b\ntask: finetune\nfinetune: {method: qlora, lora_dropout: 0.1}\n")
          .workload.finetune.lora_dropout,
      0.1);
  expect_error("model: llama3-8b\ntask: finetune\nfinetune: {method: lora, lora_dropout: 1.5}\n",
               "lora_dropout", "0 to 1");
  expect_error("model: llama3-8b\ntask: finetune\nfinetune: {method: lora, lora_dropout: lots}\n",
               "lora_dropout", "number");
  expect_error("model: llama3-8b\ntask: finetune\nfinetune: {method: full, lora_dropout: 0.1}\n",
               "lora_dropout", "lora or qlora");
}

TEST(FinetuneInput, LossUpcastKey) {
  EXPECT_TRUE(read(std::string(kBase) + "framework: hf\n").workload.loss_upcast);
  EXPECT_FALSE(
      read(std::string(kBase) + "framework: hf\nloss_upcast: false\n").workload.loss_upcast);
  EXPECT_TRUE(read(std::string(kBase) + "loss_upcast: true\n").workload.loss_upcast);
  expect_error(std::string(kBase) + "loss_upcast: fp16\n", "loss_upcast", "true");
}

TEST(FinetuneInput, CompileKey) {
  EXPECT_EQ(read(std::string(kBase) + "framework: torchtitan\n").workload.compile, Compile::none);
  for (const auto& [v, want] : {std::pair<std::string, Compile>{"all", Compile::all},
                                {"true", Compile::all},
                                {"model", Compile::model},
                                {"false", Compile::none},
                                {"none", Compile::none}}) {
    EXPECT_EQ(
        read(std::string(kBase) + "framework: torchtune\ncompile: " + v + "\n").workload.compile,
        want)
        << v;
  }
  expect_error(std::string(kBase) + "framework: torchtune\ncompile: loss\n", "compile", "model");
  expect_error(std::string(kBase) + "framework: megatron\ncompile: true\n", "compile",
               "PyTorch-native");
}

std::string csv_with(const std::string& column, const std::string& value) {
  return one_row_validation_csv({{"id", "r1"},
                                 {"model", "llama3-8b"},
                                 {"seq_len", "2048"},
                                 {"gpu", "a100-sxm-80g"},
                                 {"num_gpus", "1"},
                                 {"finetune", "lora"},
                                 {"metric", "peak_mem_gib"},
                                 {"value", "20"},
                                 {column, value}});
}

TEST(FinetuneInput, CsvColumnsAreReadByName) {
  const auto rows = io::read_validation_csv(csv_with("optimizer", "adam8bit"), "v.csv");
  EXPECT_EQ(rows.at(0).optimizer, "adam8bit");
  EXPECT_EQ(io::read_validation_csv(csv_with("offload", "all"), "v.csv").at(0).offload, "all");
  EXPECT_EQ(io::read_validation_csv(csv_with("loss_chunks", "8"), "v.csv").at(0).loss_chunks, 8);
  EXPECT_EQ(io::read_validation_csv(csv_with("peak_kind", "reserved"), "v.csv").at(0).peak_kind,
            "reserved");
  EXPECT_EQ(io::read_validation_csv(csv_with("compile", "model"), "v.csv").at(0).compile, "model");
  EXPECT_EQ(io::read_validation_csv(csv_with("loss_upcast", "n"), "v.csv").at(0).loss_upcast, "n");
  EXPECT_EQ(io::read_validation_csv(csv_with("lora_dropout", "0.1"), "v.csv").at(0).lora_dropout,
            0.1);
  // compile is the last column: a megatron row that says it compiles is refused.
  std::string megatron = csv_with("framework", "megatron");
  megatron.insert(megatron.size() - 1, "y");
  expect_input_error([&] { io::read_validation_csv(megatron, "v.csv"); }, {"compile"});
  for (const auto& cell : {std::pair<std::string, std::string>{"optimizer", "adamw"},
                           {"offload", "some"},
                           {"activation_offload", "yes"},
                           {"optimizer_in_backward", "x"},
                           {"lora_targets", "mlp"},
                           {"peak_kind", "active"},
                           {"compile", "yes"},
                           {"loss_upcast", "no"},
                           {"lora_dropout", "-0.1"},
                           {"lora_dropout", "1.5"},
                           {"lora_dropout", "some"},
                           {"loss_chunks", "0"},
                           {"loss_chunks", "two"}}) {
    SCOPED_TRACE(cell.first + "=" + cell.second);
    expect_input_error([&] { io::read_validation_csv(csv_with(cell.first, cell.second), "v.csv"); },
                       {cell.first, "v.csv:2"});
  }
}

TEST(FinetuneInput, PeakKindPicksThePredictedPeak) {
  ValidationRow r = io::read_validation_csv(csv_with("peak_kind", ""), "v.csv").at(0);
  r.micro_batch = 1;
  r.tp = r.pp = r.dp = 1;
  r.recompute = "none";
  r.zero = 0;
  r.interleave = 1;
  const double device = *predict_row(r, cat()).predicted;
  r.peak_kind = "reserved";
  const double reserved = *predict_row(r, cat()).predicted;
  r.peak_kind = "allocated";
  const double allocated = *predict_row(r, cat()).predicted;
  EXPECT_LT(allocated, reserved);
  EXPECT_LT(reserved, device);
}

TEST(FinetuneInput, LossUpcastColumnSetsTheLossPath) {
  ValidationRow r = io::read_validation_csv(csv_with("framework", "hf"), "v.csv").at(0);
  r.micro_batch = 1;
  r.tp = r.pp = r.dp = 1;
  r.recompute = "full";
  r.zero = 2;
  r.interleave = 1;
  const double upcast = *predict_row(r, cat()).predicted;
  r.loss_upcast = "n";
  const double sixteen = *predict_row(r, cat()).predicted;
  // 6 of the 12 bytes per logit of one 2048-token sequence (Llama 3 8B's
  // vocabulary 128256), plus the allocator's share of them, in GiB.
  const double saved = 2048.0 * 128256.0 * 6.0 / (1024.0 * 1024.0 * 1024.0);
  EXPECT_GT(upcast - sixteen, saved);
  EXPECT_LT(upcast - sixteen, 1.2 * saved);
}

}  // namespace
}  // namespace scaleout
