#include "perf/step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "io/catalog_reader.hpp"
#include "model/params.hpp"

namespace scaleout {
namespace {

// A workload on a catalog server, with cluster.nodes = gpus / gpus_per_node.
struct Case {
  std::string name;
  Workload w;
  Server server;
  Gpu gpu;
  const Fabric* fabric = nullptr;
};

Layout layout(int tp, int pp, int dp) {
  Layout ly;
  ly.tp = tp;
  ly.pp = pp;
  ly.dp = dp;
  ly.sp = tp > 1;
  return ly;
}

Case make(const std::string& name, const char* model, const char* server_id, const Layout& ly,
          long long global_batch, long long seq_len, Framework fw = Framework::megatron,
          const char* fabric_id = "ib-ndr") {
  const Catalog& cat = io::builtin_catalog();
  Case c;
  c.name = name;
  c.server = *cat.find_server(server_id);
  c.gpu = *cat.find_gpu(c.server.gpu_id);
  c.fabric = fabric_id ? cat.find_fabric(fabric_id) : nullptr;
  c.w.model = *cat.find_model(model);
  c.w.layout = ly;
  c.w.global_batch = global_batch;
  c.w.seq_len = seq_len;
  c.w.framework = fw;
  c.w.cluster.server_id = server_id;
  c.w.cluster.fabric_id = fabric_id ? fabric_id : "";
  c.w.cluster.nodes = std::max(1, ly.gpus() / c.server.gpus_per_node);
  return c;
}

StepEstimate run(const Case& c) {
  return estimate_step(c.w, c.server, c.gpu, c.fabric, perf_constants(c.gpu, c.w.framework));
}

// Pure DP: Llama 3 8B, DP 16 with the distributed optimizer on 2 DGX H100.
Case pure_dp() {
  Layout ly = layout(1, 1, 16);
  ly.zero = 1;
  ly.recompute = Recompute::selective;
  return make("pure-dp", "llama3-8b", "dgx-h100", ly, 64, 8192);
}

// TP 8 x PP 4 interleaved (v = 5) x DP 2: Llama 3 70B on 8 DGX H100.
Case tp_pp() {
  Layout ly = layout(8, 4, 2);
  ly.interleave = 5;
  ly.zero = 1;
  ly.recompute = Recompute::selective;
  return make("tp-pp", "llama3-70b", "dgx-h100", ly, 64, 8192);
}

// GPT-3 175B, TP 8 x PP 8 (v = 3) x DP 4 on 32 DGX A100 (Megatron, Narayanan et al.).
Case gpt3() {
  Layout ly = layout(8, 8, 4);
  ly.interleave = 3;
  ly.recompute = Recompute::selective;
  return make("gpt3", "gpt3-175b", "dgx-a100", ly, 512, 2048, Framework::megatron, "ib-hdr");
}

// ZeRO-3 / FSDP: Llama 3 70B, DP 32, full recompute, on 4 DGX H100.
Case zero3(Framework fw = Framework::fsdp) {
  Layout ly = layout(1, 1, 32);
  ly.zero = 3;
  ly.recompute = Recompute::full;
  return make("zero3", "llama3-70b", "dgx-h100", ly, 64, 4096, fw);
}

// Context parallel: Llama 3 8B, TP 8 x CP 4, 64K tokens, on 4 DGX H100.
Case cp() {
  Layout ly = layout(8, 1, 1);
  ly.cp = 4;
  ly.recompute = Recompute::selective;
  return make("cp", "llama3-8b", "dgx-h100", ly, 8, 65536);
}

// MoE: Mixtral 8x7B, TP 2 x DP 8 with EP 8 (spanning two nodes), on 2 DGX H100.
Case moe() {
  Layout ly = layout(2, 1, 8);
  ly.ep = 8;
  ly.zero = 1;
  ly.recompute = Recompute::selective;
  return make("moe", "mixtral-8x7b", "dgx-h100", ly, 64, 4096);
}

std::vector<Case> all_cases() { return {pure_dp(), tp_pp(), gpt3(), zero3(), cp(), moe()}; }

TEST(RankOrder, TensorParallelAcrossNodesIsSlower) {
  // Megatron order packs TP 8 into one NVSwitch node; with DP innermost the TP
  // group's neighbours are dp = 2 ranks apart, so TP 8 spans two nodes.
  Case c = tp_pp();
  const StepEstimate packed = run(c);
  c.w.layout.order = {Dim::dp, Dim::tp, Dim::cp, Dim::pp};
  EXPECT_EQ(c.w.layout.stride(Dim::tp), 2);
  const StepEstimate spread = run(c);
  EXPECT_GT(spread.breakdown.tp_comm, packed.breakdown.tp_comm);
  EXPECT_GT(spread.step_s, packed.step_s);
}

TEST(Breakdown, PartsAddUpToTheStep) {
  for (const Case& c : all_cases()) {
    const StepEstimate e = run(c);
    const StepBreakdown& b = e.breakdown;
    EXPECT_GT(e.step_s, 0) << c.name;
    EXPECT_DOUBLE_EQ(e.step_s, b.compute + b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm +
                                   b.dp_comm + b.bubble + b.optimizer + b.other)
        << c.name;
    for (double part : {b.compute, b.tp_comm, b.cp_comm, b.ep_comm, b.pp_comm, b.dp_comm, b.bubble,
                        b.optimizer, b.other}) {
      EXPECT_GE(part, 0) << c.name;
    }
    // Micro-batches m = B / (b * dp).
    EXPECT_DOUBLE_EQ(e.microbatches, static_cast<double>(c.w.global_batch) /
                                         (c.w.layout.micro_batch * c.w.layout.dp))
        << c.name;
  }
}

TEST(Breakdown, EachLayoutShowsItsOwnCommunication) {
  // Pure DP: no TP, PP, CP or EP traffic, no bubble.
  const StepBreakdown dp = run(pure_dp()).breakdown;
  EXPECT_DOUBLE_EQ(dp.tp_comm, 0);
  EXPECT_DOUBLE_EQ(dp.pp_comm, 0);
  EXPECT_DOUBLE_EQ(dp.bubble, 0);
  EXPECT_DOUBLE_EQ(dp.cp_comm, 0);
  EXPECT_DOUBLE_EQ(dp.ep_comm, 0);
  // TP + PP: tensor-parallel all-reduces, stage send/recv and a bubble.
  const StepBreakdown tpp = run(tp_pp()).breakdown;
  EXPECT_GT(tpp.tp_comm, 0);
  EXPECT_GT(tpp.pp_comm, 0);
  EXPECT_GT(tpp.bubble, 0);
  // MoE with EP across two nodes: all-to-all.
  EXPECT_GT(run(moe()).breakdown.ep_comm, 0);
  // CP and ZeRO-3 without PP: no bubble.
  EXPECT_DOUBLE_EQ(run(cp()).breakdown.bubble, 0);
  EXPECT_DOUBLE_EQ(run(zero3()).breakdown.bubble, 0);
}

TEST(Pipeline, BubbleIsAtMostPMinusOneOverVStageTimes) {
  // With DP = CP = 1 no gradient reduction runs, so compute + tp + cp + ep + dp is
  // m x the slowest stage's per-micro-batch time. Fill and drain pass one
  // micro-batch through the p-1 other stages, divided by v: at most (p-1)/v
  // slowest-stage times (equal stages), and only a little less here, where the
  // last stage's output layer is the only difference:
  // bubble / (that sum) <= (p-1) / (v m), and above 0.9 of it.
  struct Pp {
    const char* model;
    const char* server;
    int pp, v, batch;
  };
  for (const Pp& x : {Pp{"llama3-70b", "dgx-h100", 4, 5, 32},   // 3/(5*32) = 0.01875
                      Pp{"llama3-70b", "dgx-h100", 4, 1, 8},    // 3/8 = 0.375
                      Pp{"gpt3-175b", "dgx-a100", 8, 3, 64},    // 7/(3*64) = 0.036458
                      Pp{"gpt3-175b", "dgx-a100", 8, 1, 16},    // 7/16 = 0.4375
                      Pp{"llama3-8b", "dgx-h100", 2, 2, 4}}) {  // 1/(2*4) = 0.125
    Layout ly = layout(8, x.pp, 1);
    ly.interleave = x.v;
    ly.recompute = Recompute::selective;
    const Case c = make(x.model, x.model, x.server, ly, x.batch, 2048);
    const StepEstimate e = run(c);
    const StepBreakdown& b = e.breakdown;
    const double stage_sum = b.compute + b.tp_comm + b.cp_comm + b.ep_comm + b.dp_comm;
    const double expected = (x.pp - 1.0) / (x.v * static_cast<double>(x.batch));
    EXPECT_LE(b.bubble / stage_sum, expected * (1 + 1e-12)) << x.model << " p " << x.pp;
    EXPECT_GT(b.bubble / stage_sum, 0.9 * expected) << x.model << " p " << x.pp;
    EXPECT_DOUBLE_EQ(e.microbatches, x.batch);
  }
}

// GPT-3 175B, TP 8 x PP 8 x DP 4 on DGX A100, without SP: the activation a
// stage hands on is T x h 16-bit values.
Case gpt3_no_sp(Framework fw) {
  Layout ly = layout(8, 8, 4);
  ly.sp = false;
  ly.recompute = Recompute::full;
  return make("gpt3-no-sp", "gpt3-175b", "dgx-a100", ly, 512, 2048, fw, "ib-hdr");
}

TEST(Pipeline, StagesSendOneTpShareAndRegatherIt) {
  // Scatter/gather: each TP rank sends 1/t of the activation to the next
  // stage's node, which all-gathers it over NVLink; one send forward and one
  // backward per micro-batch (m = 512 / 4 = 128, v = 1).
  const Case c = gpt3_no_sp(Framework::megatron);
  const StepEstimate e = run(c);
  const ClusterLinks l = resolve_links(c.server, c.gpu, c.fabric, c.w.cluster.nodes, {});
  const double act = 2048.0 * 12288 * 2;
  const GroupSpan pp = span_of(8, 32, 8), tp = span_of(8, 1, 8);
  const double one = collective_time_s(Collective::send_recv, act / 8, pp, l) +
                     collective_time_s(Collective::all_gather, act, tp, l);
  EXPECT_NEAR(e.breakdown.pp_comm, 2.0 * 128 * one, 1e-12);
  // The whole activation over the rail would take far longer.
  EXPECT_LT(e.breakdown.pp_comm, 2.0 * 128 * collective_time_s(Collective::send_recv, act, pp, l));
}

TEST(Frameworks, MegatronDeepSpeed2021SendsWholeGradients) {
  // The 2021 engine against today's deepspeed row on one layout (GPT-3 175B,
  // TP 8 x PP 8 x DP 4, full recompute, no SP; m = 512 / 4 = 128, 12 layers a
  // stage). Compute and TP are the same (both all-reduce the backward TP
  // synchronously); the pipeline differs, by hand:
  const Case ds = gpt3_no_sp(Framework::deepspeed);
  const Case old = gpt3_no_sp(Framework::megatron_deepspeed_2021);
  const StepEstimate a = run(ds);
  const StepEstimate b = run(old);
  EXPECT_DOUBLE_EQ(b.breakdown.compute, a.breakdown.compute);
  EXPECT_DOUBLE_EQ(b.breakdown.tp_comm, a.breakdown.tp_comm);
  // The forward hop is the same 1/t send and TP regather; the gradient goes
  // back whole (DeepSpeed <= 0.5.3): one send of T x h instead of T x h / 8
  // per micro-batch, the regather the same. Both rows wait for each send
  // twice (serial exchanges, p = 8 >= 3), so the difference counts twice.
  const ClusterLinks l = resolve_links(ds.server, ds.gpu, ds.fabric, ds.w.cluster.nodes, {});
  const double act = 2048.0 * 12288 * 2;  // 50.3 MB
  const GroupSpan pp = span_of(8, 32, 8);
  const double whole = collective_time_s(Collective::send_recv, act, pp, l);
  const double share = collective_time_s(Collective::send_recv, act / 8, pp, l);
  EXPECT_NEAR(b.breakdown.pp_comm - a.breakdown.pp_comm, 2 * 128 * (whole - share), 1e-12);
  // By hand: each GPU's rail is one 200 Gb/s HDR NIC at InfiniBand's 0.92
  // (23 GB/s); the latencies of the two sends cancel, so the gradient adds
  // 2 x 128 x (50.3 MB x 7/8) / 23 GB/s = 2 x 128 x 1.91 ms = 0.49 s.
  EXPECT_NEAR(b.breakdown.pp_comm - a.breakdown.pp_comm, 2 * 128 * (act * 7 / 8) / (0.92 * 25e9),
              2e-3);
  EXPECT_GT(b.step_s, a.step_s + 2 * 128 * (whole - share) - 1e-9);
  // With SP the gradient each rank holds already is its 1/t share: the same hop.
  Case sp_ds = ds, sp_old = old;
  sp_ds.w.layout.sp = sp_old.w.layout.sp = true;
  EXPECT_DOUBLE_EQ(run(sp_old).breakdown.pp_comm, run(sp_ds).breakdown.pp_comm);
}

TEST(Pipeline, DeepSpeedWaitsForBothBoundariesInTurn) {
  // DeepSpeed's PipelineEngine runs each send and receive alone and blocking,
  // one neighbour per step (TrainSchedule): a stage between two others waits
  // for the activation and the gradient of both its boundaries every
  // micro-batch. Megatron-LM moves a boundary's two directions at once. GPT-3
  // 175B, TP 8 x PP 8 x DP 4, no SP, m = 128: each hop is a 1/8 send over the
  // rail plus the TP regather (both rows send 1/t gradients), so
  //   megatron:  128 x 2 x (send + AG)
  //   deepspeed: 128 x (2 x (send + AG) + 2 x send)
  const Case mlm = gpt3_no_sp(Framework::megatron);
  const Case ds = gpt3_no_sp(Framework::deepspeed);
  EXPECT_FALSE(perf_constants(mlm.gpu, Framework::megatron).framework.pp_serial_exchanges);
  EXPECT_TRUE(perf_constants(ds.gpu, Framework::deepspeed).framework.pp_serial_exchanges);
  const ClusterLinks l = resolve_links(ds.server, ds.gpu, ds.fabric, ds.w.cluster.nodes, {});
  const double act = 2048.0 * 12288 * 2;
  const double send = collective_time_s(Collective::send_recv, act / 8, span_of(8, 32, 8), l);
  const double ag = collective_time_s(Collective::all_gather, act, span_of(8, 1, 8), l);
  EXPECT_NEAR(run(mlm).breakdown.pp_comm, 128 * 2 * (send + ag), 1e-12);
  EXPECT_NEAR(run(ds).breakdown.pp_comm, 128 * (2 * (send + ag) + 2 * send), 1e-12);
  // By hand: send = 6.3 MB / 23 GB/s = 0.27 ms plus latency, so the serial
  // exchanges add 128 x 2 x 0.27 ms = 0.07 s or more.
  EXPECT_GT(run(ds).breakdown.pp_comm - run(mlm).breakdown.pp_comm, 0.06);
  // With two stages each has one neighbour, one exchange per step: nothing
  // more than Megatron-LM's charge (pp 2, dp 16, m = 32).
  Case mlm2 = mlm, ds2 = ds;
  for (Case* c : {&mlm2, &ds2}) {
    c->w.layout.pp = 2;
    c->w.layout.dp = 16;
  }
  EXPECT_DOUBLE_EQ(run(ds2).breakdown.pp_comm, run(mlm2).breakdown.pp_comm);
}

TEST(Tp, DeepSpeedExposesTheBackwardAllReduces) {
  // Megatron-DeepSpeed turns --async-tensor-model-parallel-allreduce off
  // under --deepspeed: the two backward all-reduces of the column-parallel
  // layers run exposed instead of behind half the forward GEMM time, per
  // layer and micro-batch: min(2 all-reduces, 0.5 x forward GEMMs) more than
  // the same row with the overlap (GPT-3 175B, TP 8 x PP 8 x DP 4, m = 128,
  // 12 layers a stage).
  const Case ds = gpt3_no_sp(Framework::deepspeed);
  PerfConstants k = perf_constants(ds.gpu, Framework::deepspeed);
  EXPECT_FALSE(k.framework.tp_backward_overlap);
  const StepEstimate exposed = estimate_step(ds.w, ds.server, ds.gpu, ds.fabric, k);
  const LayoutTimes lt = layout_times(ds.w, ds.server, ds.gpu, ds.fabric, k, describe_layers(ds.w));
  const double hidden = std::min(2.0 * lt.tp_one, 0.5 * lt.dense.times.forward.gemm_s);
  EXPECT_GT(hidden, 0);
  k.framework.tp_backward_overlap = true;
  const StepEstimate overlapped = estimate_step(ds.w, ds.server, ds.gpu, ds.fabric, k);
  EXPECT_DOUBLE_EQ(exposed.breakdown.compute, overlapped.breakdown.compute);
  EXPECT_NEAR(exposed.breakdown.tp_comm - overlapped.breakdown.tp_comm, 128 * 12 * hidden, 1e-9);
  EXPECT_GT(exposed.step_s, overlapped.step_s + 128 * 12 * hidden - 1e-9);
}

TEST(Tp, MegatronHidesBackwardAllReducesBehindWeightGradients) {
  // Without the overlap a layer pays 6 all-reduces under full recompute
  // (2 forward, 2 recompute, 2 backward); Megatron-LM hides up to the 2
  // backward ones, so its TP time lies between 4/6 and 6/6 of that.
  const double megatron = run(gpt3_no_sp(Framework::megatron)).breakdown.tp_comm;
  const double eager = run(gpt3_no_sp(Framework::fsdp)).breakdown.tp_comm;
  EXPECT_GT(megatron, 0);
  EXPECT_GE(megatron, eager * 4.0 / 6.0 * (1 - 1e-12));
  EXPECT_LT(megatron, eager);
}

TEST(Dp, DeepSpeedReducesGradientsAfterTheBackwardPass) {
  // ZeRO-0/1: Megatron-LM's bucketed all-reduce runs behind the last
  // micro-batch's backward pass; DeepSpeed's engine all-reduces after it, so
  // the whole reduction is exposed.
  Case c = gpt3_no_sp(Framework::deepspeed);
  EXPECT_TRUE(framework_constants(Framework::megatron, c.gpu).dp_overlap);
  EXPECT_FALSE(framework_constants(Framework::deepspeed, c.gpu).dp_overlap);
  c.w.global_batch = 16;  // m = 4
  PerfConstants k = perf_constants(c.gpu, c.w.framework);
  const double exposed = estimate_step(c.w, c.server, c.gpu, c.fabric, k).breakdown.dp_comm;
  k.framework.dp_overlap = true;
  const double hidden = estimate_step(c.w, c.server, c.gpu, c.fabric, k).breakdown.dp_comm;
  EXPECT_GT(exposed, 0);
  EXPECT_LT(hidden, exposed);
}

TEST(Dp, LayoutDpOverlapOffExposesTheReduction) {
  // Megatron-LM before --overlap-grad-reduce (or with it left off) reduces
  // after the whole backward: layout dp_overlap false exposes what the
  // framework's overlap hides behind the last micro-batch's backward.
  Case c = gpt3_no_sp(Framework::megatron);
  c.w.global_batch = 16;  // m = 4
  const StepEstimate overlapped = run(c);
  c.w.layout.dp_overlap = false;
  const StepEstimate after = run(c);
  EXPECT_GT(after.breakdown.dp_comm, overlapped.breakdown.dp_comm);
  EXPECT_DOUBLE_EQ(after.breakdown.compute, overlapped.breakdown.compute);
  // The same as a framework without the overlap (DeepSpeed's engine).
  PerfConstants k = perf_constants(c.gpu, c.w.framework);
  k.framework.dp_overlap = false;
  c.w.layout.dp_overlap = true;
  EXPECT_DOUBLE_EQ(estimate_step(c.w, c.server, c.gpu, c.fabric, k).breakdown.dp_comm,
                   after.breakdown.dp_comm);
}

TEST(Dp, Fp8ParamGatherHalvesTheWeightAllGather) {
  // Pure DP 16 with the distributed optimizer: the updated weights are
  // all-gathered after the step, 2 bytes each, or 1 with --fp8-param-gather.
  Case c = pure_dp();
  c.w.precision = Precision::fp8;
  const StepEstimate plain = run(c);
  c.w.layout.fp8_param_gather = true;
  const StepEstimate fp8 = run(c);
  EXPECT_LT(fp8.breakdown.dp_comm, plain.breakdown.dp_comm);
  EXPECT_LE(fp8.step_s, plain.step_s);
  EXPECT_DOUBLE_EQ(fp8.breakdown.compute, plain.breakdown.compute);
}

TEST(Properties, MoreMicrobatchesNeverRaiseTheBubbleShare) {
  for (Case c : {tp_pp(), gpt3()}) {
    double last = 1.0;
    for (long long m : {1, 2, 4, 8, 16, 32, 64, 128}) {
      c.w.global_batch = m * c.w.layout.micro_batch * c.w.layout.dp;
      const StepEstimate e = run(c);
      const double share = e.breakdown.bubble / e.step_s;
      EXPECT_LE(share, last) << c.name << " m " << m;
      EXPECT_GT(share, 0) << c.name;
      last = share;
    }
  }
}

TEST(Properties, MoreNicBandwidthNeverSlowsAStep) {
  for (bool flash : {true, false}) {
    for (Case c : all_cases()) {
      c.fabric = nullptr;  // no port cap: the NIC alone sets the rail
      c.w.layout.flash_attention = flash;
      double last = 1e300;
      for (double gbit : {50.0, 100.0, 200.0, 400.0, 800.0, 1600.0}) {
        c.server.nic_bw_Bps = gbit * 1e9 / 8;
        const double t = run(c).step_s;
        EXPECT_LE(t, last) << c.name << " flash " << flash << " nic " << gbit << " Gb/s";
        last = t;
      }
    }
  }
}

TEST(Properties, MoreHbmBandwidthNeverSlowsAStep) {
  for (bool flash : {true, false}) {
    for (Case c : all_cases()) {
      c.w.layout.flash_attention = flash;
      const double base = c.gpu.hbm_bw_Bps;
      double last = 1e300;
      for (double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        c.gpu.hbm_bw_Bps = base * scale;
        const double t = run(c).step_s;
        EXPECT_LE(t, last) << c.name << " flash " << flash << " hbm x" << scale;
        last = t;
      }
    }
  }
}

TEST(Throughput, TokensPerGpuTimesGpusTimesStepIsTheBatch) {
  for (const Case& c : all_cases()) {
    const StepEstimate e = run(c);
    const double gpus = c.w.layout.gpus();
    const double tokens = static_cast<double>(c.w.global_batch) * static_cast<double>(c.w.seq_len);
    EXPECT_DOUBLE_EQ(e.tokens_per_step, tokens) << c.name;
    EXPECT_NEAR(e.tokens_per_s_per_gpu * gpus * e.step_s, tokens, 1e-9 * tokens) << c.name;
    EXPECT_NEAR(e.tokens_per_s * e.step_s, tokens, 1e-9 * tokens) << c.name;
  }
}

TEST(Throughput, MfuIsModelFlopsOverPeak) {
  for (const Case& c : all_cases()) {
    const StepEstimate e = run(c);
    const double gpus = c.w.layout.gpus();
    // BF16 dense peaks: H100 989, A100 312 TFLOPS.
    const double peak = c.gpu.bf16_flops;
    EXPECT_NEAR(e.mfu, e.model_flops_per_step / (e.step_s * gpus * peak), 1e-12) << c.name;
    EXPECT_NEAR(e.model_flops_per_step,
                e.tokens_per_step * model_flops_per_token(c.w.model, c.w.seq_len),
                1e-9 * e.model_flops_per_step)
        << c.name;
    EXPECT_GT(e.mfu, 0) << c.name;
    EXPECT_LT(e.mfu, 1) << c.name;
    EXPECT_NEAR(e.hfu, e.hardware_flops_per_step / (e.step_s * gpus * peak), 1e-12) << c.name;
  }
}

TEST(Throughput, HfuIsAtLeastMfuWithUnfusedAttention) {
  // Unfused attention computes the full s x s scores, as the 12*L*h*s term of the
  // model FLOPs counts them; recomputation only adds executed FLOPs, so HFU >= MFU.
  // (With causal FlashAttention the executed attention FLOPs are halved while the
  // model FLOPs are not: at long sequences HFU < MFU, e.g. the CP case; see report.)
  for (Case c : all_cases()) {
    c.w.layout.flash_attention = false;
    const StepEstimate e = run(c);
    EXPECT_GE(e.hfu, e.mfu * (1 - 1e-9)) << c.name;
  }
}

TEST(ModelFlops, LlamaIsSixNPlusAttention) {
  // Llama 3 8B, s = 8192. Per layer: attention 2*4096^2 + 2*4096*1024 = 41,943,040,
  // MLP 3*4096*14336 = 176,160,768, two RMSNorms 8,192: 218,112,000; x32 = 6,979,584,000,
  // + final norm 4,096 + output projection 128256*4096 = 525,336,576 (untied, a real
  // matmul): N = 7,504,924,672. Attention 12*L*h*s = 12*32*4096*8192 = 12,884,901,888.
  const ModelShape& m = *io::builtin_catalog().find_model("llama3-8b");
  const double n = 7504924672.0;
  EXPECT_DOUBLE_EQ(model_flops_per_token(m, 8192), 6 * n + 12.0 * 32 * 4096 * 8192);
}

TEST(ModelFlops, Gpt3IsSixNPlusAttention) {
  // GPT-3 175B, s = 2048, tied embeddings, learned positions. Non-embedding
  // parameters: per layer attention 4h^2 + 4h (biases), MLP 8h^2 + 5h, two
  // LayerNorms 4h: 12h^2 + 13h = 1,812,099,072 for h = 12288; x96 = 173,961,510,912;
  // + final LayerNorm 2h = 24,576: 173,961,535,488. The tied output projection is
  // a matmul too: + V*h = 50257*12288 = 617,558,016 -> N = 174,579,093,504.
  // 12*L*h*s = 28,991,029,248.
  const ModelShape& m = *io::builtin_catalog().find_model("gpt3-175b");
  const double n = 174579093504.0;
  EXPECT_DOUBLE_EQ(model_flops_per_token(m, 2048), 6 * n + 28991029248.0);
}

TEST(Throughput, TimeToTrain) {
  for (Case c : all_cases()) {
    c.w.tokens = 1e12;
    const StepEstimate e = run(c);
    // tokens / (B*s) steps of step_s each.
    const double steps =
        1e12 / (static_cast<double>(c.w.global_batch) * static_cast<double>(c.w.seq_len));
    EXPECT_NEAR(e.time_to_train_s, steps * e.step_s, 1e-9 * e.time_to_train_s) << c.name;
    c.w.tokens = 0;
    EXPECT_DOUBLE_EQ(run(c).time_to_train_s, 0) << c.name;
  }
}

TEST(Throughput, NetworkWaitFractionIsAShare) {
  for (const Case& c : all_cases()) {
    const StepEstimate e = run(c);
    EXPECT_GE(e.network_wait_fraction, 0) << c.name;
    EXPECT_LE(e.network_wait_fraction, 1) << c.name;
    const StepBreakdown& b = e.breakdown;
    EXPECT_NEAR(e.network_wait_fraction,
                (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm) / e.step_s, 1e-12)
        << c.name;
  }
}

TEST(Finetune, LoraIsFasterThanFullFinetuning) {
  // Same model and layout: LoRA skips the frozen weights' wgrad, their gradient
  // reduction and most of the optimizer.
  for (int zero : {1, 3}) {
    Layout ly = layout(1, 1, 16);
    ly.zero = zero;
    ly.recompute = Recompute::full;
    for (const char* model : {"llama3-8b", "llama3-70b"}) {
      Case c = make(model, model, "dgx-h100", ly, 32, 4096, Framework::fsdp);
      c.w.task = Task::finetune;
      c.w.finetune.method = FinetuneMethod::full;
      const StepEstimate full = run(c);
      c.w.finetune.method = FinetuneMethod::lora;
      const StepEstimate lora = run(c);
      EXPECT_LT(lora.step_s, full.step_s) << model << " zero " << zero;
      EXPECT_LT(lora.breakdown.compute, full.breakdown.compute) << model;
      EXPECT_LT(lora.breakdown.optimizer, full.breakdown.optimizer) << model;
    }
  }
}

TEST(Finetune, LoraModelFlopsCountNoFrozenWeightGradients) {
  // Llama 3 8B, s = 8192, LoRA r = 16 on the 7 linears of each layer: the frozen
  // N = 7,504,924,672 weights cost 4 N (forward + input gradient), the adapters
  // 6 N_a, attention's 12 L h s stays.
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-8b");
  w.seq_len = 8192;
  w.task = Task::finetune;
  w.finetune.method = FinetuneMethod::lora;
  w.finetune.rank = 16;
  const double n = 7504924672.0;
  const double adapters = trainable_params(w);
  EXPECT_GT(adapters, 0);
  EXPECT_LT(adapters, 0.01 * n);
  // The 65 RMSNorm weight vectors (2 per layer and the final one) run no matmul.
  const double norms = 65 * 4096.0;
  EXPECT_DOUBLE_EQ(model_flops_per_token(w),
                   4 * (n - norms) + 6 * adapters + 12.0 * 32 * 4096 * 8192);
  w.finetune.method = FinetuneMethod::full;
  EXPECT_DOUBLE_EQ(model_flops_per_token(w), model_flops_per_token(w.model, 8192));
}

TEST(Finetune, LoraMfuStaysAtOrBelowHfuWithUnfusedAttention) {
  // MFU used to count 6 N for LoRA, so a LoRA run's MFU exceeded its HFU (and
  // 100 % on fast plans). Counting only needed FLOPs, MFU <= HFU again.
  Layout ly = layout(1, 1, 8);
  ly.flash_attention = false;
  for (FinetuneMethod method : {FinetuneMethod::lora, FinetuneMethod::qlora}) {
    Case c = make("llama3-8b", "llama3-8b", "dgx-h100", ly, 32, 4096, Framework::fsdp);
    c.w.task = Task::finetune;
    c.w.finetune.method = method;
    const StepEstimate e = run(c);
    EXPECT_GT(e.mfu, 0);
    EXPECT_LE(e.mfu, e.hfu * (1 + 1e-9)) << to_string(method);
    EXPECT_LT(e.mfu, 1);
  }
}

TEST(Recompute, TorchtitanSelectiveCostsMoreThanMegatronSelective) {
  // Megatron's selective recompute repeats the attention core; torchtitan's
  // op-level SAC repeats every second matmul and the element-wise ops. With the
  // same kernel constants, the extra compute over no recomputation is larger.
  for (const char* model : {"llama3-8b", "llama3-70b"}) {
    Layout ly = layout(8, 1, 1);
    Case c = make(model, model, "dgx-h100", ly, 8, 8192);
    const PerfConstants k = perf_constants(c.gpu, Framework::megatron);
    auto compute = [&](Framework fw, Recompute rc) {
      c.w.framework = fw;
      c.w.layout.recompute = rc;
      return estimate_step(c.w, c.server, c.gpu, c.fabric, k).breakdown.compute;
    };
    const double meg = compute(Framework::megatron, Recompute::selective) -
                       compute(Framework::megatron, Recompute::none);
    const double titan = compute(Framework::torchtitan, Recompute::selective) -
                         compute(Framework::torchtitan, Recompute::none);
    EXPECT_GT(meg, 0) << model;
    EXPECT_GT(titan, meg) << model;
    // Both cost less than full recomputation.
    EXPECT_LT(titan, compute(Framework::torchtitan, Recompute::full) -
                         compute(Framework::torchtitan, Recompute::none))
        << model;
  }
  // With each framework's own constants the torchtitan step is slower as well.
  Layout ly = layout(8, 1, 1);
  ly.recompute = Recompute::selective;
  EXPECT_GT(run(make("titan", "llama3-8b", "dgx-h100", ly, 8, 8192, Framework::torchtitan)).step_s,
            run(make("meg", "llama3-8b", "dgx-h100", ly, 8, 8192, Framework::megatron)).step_s);
}

TEST(Recompute, NamedModulesCostTheirForwardBetweenSelectiveAndFull) {
  // DeepSeek-V3 on 8 DGX H100, ep 64 (all-to-all over the network): each
  // module adds its forward to the step, all of them less than full
  // recompute; moe also repeats the forward dispatch and combine.
  Layout ly = layout(1, 1, 64);
  ly.ep = 64;
  ly.zero = 1;
  ly.recompute = Recompute::selective;
  Case c = make("dsv3", "deepseek-v3", "dgx-h100", ly, 512, 4096);
  auto step = [&](RecomputeModules mods) {
    c.w.layout.recompute_modules = mods;
    return run(c).breakdown;
  };
  const StepBreakdown core = step(kDefaultRecomputeModules);
  double previous = core.compute;
  for (RecomputeModule m :
       {RecomputeModule::moe_act, RecomputeModule::layernorm, RecomputeModule::mla_up_proj,
        RecomputeModule::shared_experts, RecomputeModule::mlp, RecomputeModule::moe}) {
    const RecomputeModules mods =
        static_cast<RecomputeModules>(c.w.layout.recompute_modules | module_bit(m));
    const double compute = step(mods).compute;
    EXPECT_GT(compute, previous) << kRecomputeModuleNames[static_cast<int>(m)];
    previous = compute;
  }
  EXPECT_GT(step(kDefaultRecomputeModules | module_bit(RecomputeModule::moe)).ep_comm,
            core.ep_comm);
  c.w.layout.recompute = Recompute::full;
  c.w.layout.recompute_modules = kDefaultRecomputeModules;
  EXPECT_LT(previous, run(c).breakdown.compute);
}

TEST(Zero3, DeepSpeedWithPartialOverlapIsSlowerThanFsdp) {
  // Same workload and kernel constants: DeepSpeed's per-tensor gathers hide
  // behind 45 % of a layer's compute; FSDP hides its gathers behind all of it.
  const Case c = zero3(Framework::fsdp);
  const PerfConstants fsdp = perf_constants(c.gpu, Framework::fsdp);
  PerfConstants ds = fsdp;
  const FrameworkConstants f = framework_constants(Framework::deepspeed, c.gpu);
  EXPECT_DOUBLE_EQ(f.zero3_hidden_share, kDeepSpeedZero3HiddenShare);
  EXPECT_DOUBLE_EQ(fsdp.framework.zero3_hidden_share, 1.0);
  EXPECT_TRUE(f.zero3_per_tensor);
  ds.framework.zero3_hidden_share = f.zero3_hidden_share;
  ds.framework.zero3_per_tensor = f.zero3_per_tensor;
  const StepEstimate a = estimate_step(c.w, c.server, c.gpu, c.fabric, fsdp);
  const StepEstimate b = estimate_step(c.w, c.server, c.gpu, c.fabric, ds);
  EXPECT_GT(b.breakdown.dp_comm, a.breakdown.dp_comm);
  EXPECT_GT(b.step_s, a.step_s);
  // Each framework with all its own constants, same layout.
  const StepEstimate fsdp_step = run(zero3(Framework::fsdp));
  const StepEstimate ds_step = run(zero3(Framework::deepspeed));
  EXPECT_GT(ds_step.step_s, fsdp_step.step_s);
  EXPECT_GT(ds_step.breakdown.dp_comm, fsdp_step.breakdown.dp_comm);
}

TEST(Zero3, HiddenShareHidesThatShareOfEachLayersCompute) {
  // Exposed per layer: max(0, comm - share x compute). Where the comm is the
  // larger, equal steps of the share hide equal times, and share 0 exposes it all.
  const Case c = zero3(Framework::deepspeed);
  PerfConstants k = perf_constants(c.gpu, Framework::deepspeed);
  auto dp_at = [&](double share) {
    k.framework.zero3_hidden_share = share;
    return estimate_step(c.w, c.server, c.gpu, c.fabric, k).breakdown.dp_comm;
  };
  const double none = dp_at(0.0), a = dp_at(0.1), b = dp_at(0.2);
  ASSERT_GT(b, 0);  // comm-bound at these shares
  EXPECT_GT(none, a);
  EXPECT_NEAR(none - a, a - b, 1e-9 * none);
  EXPECT_GE(dp_at(0.45), dp_at(1.0));
  EXPECT_DOUBLE_EQ(dp_at(100.0), 0.0);  // hidden behind enough compute: nothing exposed
}

TEST(Frameworks, EagerPyTorchLosesMoreOnHopperThanOnAmpere) {
  // Eager kernels run at about 0.84 of the fused rate on A100 and 0.70 on
  // H100: their non-tensor-core work weighs more next to faster tensor cores.
  const Catalog& cat = io::builtin_catalog();
  for (const char* id : {"a100-sxm-80g", "h100-sxm"}) {
    const Gpu& g = *cat.find_gpu(id);
    const double eager = eager_efficiency(g);
    const PerfConstants fused = perf_constants(g, Framework::megatron);
    const PerfConstants fsdp = perf_constants(g, Framework::fsdp);
    EXPECT_DOUBLE_EQ(fused.compute.gemm_efficiency, compute_constants(g).gemm_efficiency);
    EXPECT_DOUBLE_EQ(fsdp.compute.gemm_efficiency, fused.compute.gemm_efficiency * eager) << id;
    EXPECT_DOUBLE_EQ(fsdp.compute.attention_efficiency, fused.compute.attention_efficiency * eager);
  }
  // The fitted values (families.json, docs/validation.md) the loop used.
  const double ampere = cat.find_gpu("a100-sxm-80g")->family_data.eager_efficiency;
  const double hopper = cat.find_gpu("h100-sxm")->family_data.eager_efficiency;
  EXPECT_DOUBLE_EQ(ampere, 0.84);
  EXPECT_DOUBLE_EQ(hopper, 0.70);
  EXPECT_LT(hopper, ampere);
}

TEST(Frameworks, TorchtuneWithoutCompileRunsEager) {
  // torchtune's fused kernels and its fused NF4 dequantisation are
  // torch.compile's; with compile none its plain PyTorch modules run eager.
  const Gpu& g = *io::builtin_catalog().find_gpu("a100-sxm-80g");
  const PerfConstants fused = perf_constants(g, Framework::megatron);
  for (Compile c : {Compile::model, Compile::all}) {
    const PerfConstants k = perf_constants(g, Framework::torchtune, c);
    EXPECT_DOUBLE_EQ(k.compute.gemm_efficiency, fused.compute.gemm_efficiency);
    EXPECT_DOUBLE_EQ(k.compute.dequant_hbm_share, kCompiledDequantHbmShare);
  }
  const PerfConstants eager = perf_constants(g, Framework::torchtune, Compile::none);
  EXPECT_DOUBLE_EQ(eager.compute.gemm_efficiency,
                   fused.compute.gemm_efficiency * eager_efficiency(g));
  EXPECT_DOUBLE_EQ(eager.compute.dequant_hbm_share, kEagerDequantHbmShare);
  EXPECT_DOUBLE_EQ(eager.framework.compute_efficiency, eager_efficiency(g));
  // Rows whose kernels do not come from torch.compile keep them either way.
  for (Framework f : {Framework::automodel, Framework::fsdp, Framework::megatron}) {
    EXPECT_DOUBLE_EQ(perf_constants(g, f, Compile::none).compute.gemm_efficiency,
                     perf_constants(g, f, Compile::all).compute.gemm_efficiency);
  }
}

TEST(Frameworks, AutomodelOnPyTorchKernelsRunsEagerUncompiled) {
  // NeMo AutoModel without Transformer Engine (Llama builder at 01926a5):
  // plain PyTorch modules, fused only by torch.compile; the same FSDP2/PP/TP
  // row otherwise.
  const Gpu& g = *io::builtin_catalog().find_gpu("h100-sxm");
  const PerfConstants te = perf_constants(g, Framework::automodel, Compile::none);
  const PerfConstants eager = perf_constants(g, Framework::automodel_torch, Compile::none);
  const PerfConstants compiled = perf_constants(g, Framework::automodel_torch, Compile::all);
  EXPECT_DOUBLE_EQ(eager.compute.gemm_efficiency, te.compute.gemm_efficiency * eager_efficiency(g));
  EXPECT_LT(eager_efficiency(g), 1.0);
  EXPECT_DOUBLE_EQ(compiled.compute.gemm_efficiency, te.compute.gemm_efficiency);
  const FrameworkTraits& a = framework_traits(Framework::automodel);
  const FrameworkTraits& t = framework_traits(Framework::automodel_torch);
  EXPECT_EQ(t.state, a.state);
  EXPECT_EQ(t.logit_bytes, a.logit_bytes);
  EXPECT_TRUE(t.pp && t.tp && t.cp && t.interleaved_pp);
  EXPECT_FALSE(a.fused_by_compile);
}

TEST(Frameworks, EagerEfficiencyScalesWithFlopsPerHbmByte) {
  // 1/e - 1 (unfused, HBM-bound time per GEMM time) grows with the GPU's
  // dense FLOPs per HBM byte, anchored at the family's fitted value.
  const Catalog& cat = io::builtin_catalog();
  Gpu g = *cat.find_gpu("h100-sxm");
  const double fitted = g.family_data.eager_efficiency;
  g.hbm_bw_Bps = g.bf16_flops / g.family_data.eager_flops_per_byte;  // at the anchor
  EXPECT_NEAR(eager_efficiency(g), fitted, 1e-12);
  g.hbm_bw_Bps /= 2;  // twice the ratio: twice the unfused share
  EXPECT_NEAR(1 / eager_efficiency(g) - 1, 2 * (1 / fitted - 1), 1e-12);
  g.family_data.eager_flops_per_byte = 0;  // no anchor: the family's value
  EXPECT_DOUBLE_EQ(eager_efficiency(g), fitted);
  // GeForce cards have few FLOPs per byte (RTX 4090 164, RTX 3090 76): they
  // lose less to eager PyTorch than their families' reference GPUs; L40S
  // (419) and H200 (206) bracket H100 (295) within Ada/Hopper.
  const auto e = [&](const char* id) { return eager_efficiency(*cat.find_gpu(id)); };
  EXPECT_GT(e("rtx-4090"), e("h100-sxm"));
  EXPECT_LT(e("l40s"), e("rtx-4090"));
  EXPECT_GT(e("h200-sxm"), e("h100-sxm"));
  EXPECT_GT(e("rtx-3090"), e("a100-sxm-80g"));
  EXPECT_LT(e("a100-sxm-40g"), e("a100-sxm-80g"));
  EXPECT_NEAR(e("rtx-4090"), 0.81, 0.01);
  EXPECT_NEAR(e("rtx-3090"), 0.92, 0.01);
}

}  // namespace
}  // namespace scaleout
