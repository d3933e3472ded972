#include "search/planner.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <thread>

#include "core/enum_names.hpp"
#include "memory/memory.hpp"
#include "workload/checks.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

const char* to_string(Objective o) { return enum_name(o, {"cost", "time", "energy"}); }

const char* to_string(CostBasis b) { return enum_name(b, {"cloud", "own"}); }

const char* to_string(Verdict v) {
  return enum_name(
      v, {"single-node", "single-domain", "multi-node", "infeasible", "single-node-replicas"});
}

std::vector<int> node_counts(int max_nodes) {
  std::vector<int> out;
  out.reserve(static_cast<size_t>(std::max(1, max_nodes)));
  for (int n = 1; n <= max_nodes; ++n) out.push_back(n);
  if (out.empty()) out.push_back(1);
  return out;
}

std::vector<int> ladder_node_counts(int max_nodes) {
  std::vector<int> out;
  for (int n = 1; n <= std::min(8, max_nodes); ++n) out.push_back(n);
  for (int base = 8; base < max_nodes; base *= 2) {
    for (int k : {5, 6, 7, 8}) {  // 10, 12, 14, 16 then 20, 24, 28, 32, ...
      const int n = base * k / 4;
      if (n > out.back() && n <= max_nodes) out.push_back(n);
    }
  }
  if (out.back() != max_nodes && max_nodes > 1) out.push_back(max_nodes);
  return out;
}

HardwareOption slice_option(const HardwareOption& hw, int gpus) {
  HardwareOption out = hw;
  out.server = slice_server(hw.server, gpus);
  out.server_usd = hw.server_usd * server_share(out.server);
  out.fabric.reset();
  return out;
}

void add_slice_options(PlanRequest& r) {
  if (r.fixed.nodes && *r.fixed.nodes != 1) return;
  std::vector<HardwareOption> out;
  out.reserve(r.hardware.size() * (kSliceGpus.size() + 1));
  for (size_t i = 0; i < r.hardware.size(); ++i) {
    const HardwareOption& hw = r.hardware[i];
    const bool first = !hw.is_slice() &&
                       std::none_of(r.hardware.begin(), r.hardware.begin() + static_cast<long>(i),
                                    [&](const HardwareOption& h) {
                                      return h.server.id == hw.server.id && h.gpu.id == hw.gpu.id;
                                    });
    if (first) {
      const int whole = static_cast<int>(
          out.size() + std::count_if(kSliceGpus.begin(), kSliceGpus.end(),
                                     [&](int g) { return g < hw.server.gpus_per_node; }));
      for (int g : kSliceGpus) {
        if (g >= hw.server.gpus_per_node) continue;
        out.push_back(slice_option(hw, g));
        out.back().whole = whole;
      }
    }
    out.push_back(hw);
  }
  r.hardware = std::move(out);
}

RegimeKey regime_of(const Workload& w, const HardwareOption& hw, int nodes, IntervalMetric metric) {
  // A full fine-tune runs the step of a pre-training: only adapters are the
  // finetune regime (the rule of src/validation).
  return {.metric = metric,
          .family = hw.gpu.family,
          .framework = std::string(framework_traits(w.framework).engine),
          .task = is_lora(w) ? IntervalTask::finetune : IntervalTask::pretrain,
          .moe = w.model.is_moe(),
          .scale = scale_band(static_cast<long long>(nodes) * hw.server.gpus_per_node,
                              domain_gpus(hw.server))};
}

namespace {

// The balanced stage split moves a few layers between stages, so it is
// tried only where the even split's least memory over its settings is
// within this factor of capacity (or fits): a search bound, not a model
// constant (moving one layer off the first stage of a p-stage pipeline
// changes its memory by about 1/(L/p) of its layers' share).
constexpr double kBalancedSplitReach = 1.15;

struct Work {
  int hardware;
  int nodes;
  long long batch;
};

// Everything one (hardware, node count) cell of the search produced.
struct CellResult {
  std::optional<PlanCandidate> fastest;  // fastest layout that fits
  double least_memory = 1e300;           // smallest per-GPU peak of any legal layout
  StageMemory least;                     // that peak's stage
  bool any_legal = false;
  long long candidates = 0, evaluated = 0;
  RejectionCounts rejected;
};

// The values each searched layout dimension takes on one hardware option
// (a fixed value alone), built once per option before the cells: one list
// per row of the layout-dimension table searched by options
// (workload/layout_dims.hpp, DimSearch::options).
struct Dimensions {
  std::array<std::vector<int>, kLayoutKeys> values;
  const std::vector<int>& operator[](LayoutKey k) const { return values[static_cast<size_t>(k)]; }
};

// The widest tensor-parallel group searched across the trays of a
// rack-scale NVLink domain: 8, the widest the search tries on an 8-GPU
// NVSwitch server, so that a GB200 NVL72 (4 GPUs a tray) is offered the same
// TP degrees over the same kind of link (its TP traffic stays on NVLink: the
// domain's bandwidth, docs/model.md "Scale-up domains"). A design choice,
// not a measured optimum; the file can fix any tp.
constexpr int kMaxCrossTrayTp = 8;

// Hybrid sharding: the shard groups searched, in nodes' worth of
// data-parallel ranks (one node's, then 2 and 4 nodes'). One node keeps the
// ZeRO-3 gathers on NVLink; wider groups shard the state further and halve
// or quarter the gathers' inter-node share against sharding over all of dp,
// which wins where a node has no NVLink (PCIe servers) or its group does not
// fit (DeepSpeed MiCS groups span nodes too, arXiv:2205.00119 section 4.2).
// A search bound, not a model constant; the file can fix any shard_group.
constexpr std::array<int, 3> kHybridShardNodes = {1, 2, 4};
int tp_limit(const Server& s) {
  return std::max(s.gpus_per_node, std::min(domain_gpus(s), kMaxCrossTrayTp));
}

// The values plan tries for an options row the file does not fix.
std::vector<int> plan_options(LayoutKey k, const PlanRequest& r, const HardwareOption& hw) {
  const ModelShape& m = r.workload.model;
  std::vector<int> out;
  switch (k) {
    case LayoutKey::tp:
      // Within one NVLink domain: the node's GPUs, or up to kMaxCrossTrayTp
      // GPUs of a rack-scale domain (NVL72 trays hold 4).
      for (int t = 1; t <= tp_limit(hw.server); t *= 2) out.push_back(t);
      break;
    case LayoutKey::cp:
      out = {1};
      if (r.workload.seq_len >= 16384) out = {1, 2, 4, 8, 16};
      break;
    case LayoutKey::pp:
      for (int p = 1; p <= std::min(m.layers, 128); ++p) {
        if ((p & (p - 1)) == 0 || m.layers % p == 0) out.push_back(p);
      }
      break;
    case LayoutKey::ep:
      out = {1};
      if (m.is_moe()) {
        out.clear();
        for (int e = 1; e <= m.moe.experts; e *= 2) {
          if (m.moe.experts % e == 0) out.push_back(e);
        }
      }
      break;
    case LayoutKey::etp:
      // Expert TP 1 or the layout's tp (the loop skips the others unless fixed).
      out = {0};
      if (m.is_moe()) {
        out.clear();
        for (int t = 1; t <= tp_limit(hw.server); t *= 2) out.push_back(t);
      }
      break;
    case LayoutKey::micro_batch:
      out = {1, 2, 4, 8};
      break;
    case LayoutKey::interleave:
      out = {1, 2, 4};
      break;
    case LayoutKey::pipeline_schedule:
      // 1F1B and the schedules the framework ships (framework.hpp).
      for (int s = 0; s < static_cast<int>(layout_dim(k).choices.size()); ++s) {
        if (schedule_allowed(r.workload.framework, static_cast<PipeSchedule>(s))) out.push_back(s);
      }
      break;
    default:  // not searched by options: the table's default
      out = {layout_dim(k).get(Layout{})};
      break;
  }
  return out;
}

Dimensions dimensions(const PlanRequest& r, const HardwareOption& hw) {
  Dimensions d;
  for (const LayoutDim& dim : layout_dims()) {
    if (dim.search != DimSearch::options) continue;
    const std::optional<int> fixed = r.fixed.get(dim.key);
    d.values[static_cast<size_t>(dim.key)] =
        fixed ? std::vector<int>{*fixed} : plan_options(dim.key, r, hw);
  }
  return d;
}

// The node counts in 1..max_nodes at which some (tp, cp, pp) of `d` divides
// the cluster with a data-parallel degree that splits `batch` into whole
// micro-batches (checks.cpp: tp x pp x dp x cp is the cluster, and the
// global batch a multiple of micro_batch x dp), and which the framework runs.
// Every layout the search could call legal passes these two rules, so no
// count with a legal layout is left out; most others fail them at once.
std::vector<int> divisible_counts(const PlanRequest& r, const Dimensions& d, int gpus_per_node,
                                  long long batch) {
  const int max_nodes = std::max(1, r.constraints.max_nodes);
  std::vector<char> hit(static_cast<size_t>(max_nodes) + 1, 0);
  const int min_mb =
      *std::min_element(d[LayoutKey::micro_batch].begin(), d[LayoutKey::micro_batch].end());
  const Framework fw = r.workload.framework;
  // Data-parallel degrees that split the batch: the divisors of batch / min_mb.
  std::vector<long long> dps;
  if (batch > 0 && batch % min_mb == 0) {
    const long long q = batch / min_mb;
    for (long long i = 1; i * i <= q; ++i) {
      if (q % i != 0) continue;
      dps.push_back(i);
      if (i != q / i) dps.push_back(q / i);
    }
  }
  const std::optional<int> fixed_dp = r.fixed.get(LayoutKey::dp);
  if (fixed_dp) std::erase_if(dps, [&](long long x) { return x != *fixed_dp; });
  const long long gpn = gpus_per_node;
  for (int tp : d[LayoutKey::tp]) {
    for (int cp : d[LayoutKey::cp]) {
      for (int pp : d[LayoutKey::pp]) {
        if (!framework_allows(fw, tp, pp, cp)) continue;
        const long long mp = static_cast<long long>(tp) * cp * pp;
        if (batch <= 0) {  // no batch to split: any dp
          for (long long n = 1; n <= max_nodes; ++n) {
            const long long g = n * gpn;
            if (g % mp == 0 && (!fixed_dp || g / mp == *fixed_dp)) hit[n] = 1;
          }
          continue;
        }
        for (long long dp : dps) {
          const long long g = mp * dp;
          if (g % gpn == 0 && g / gpn <= max_nodes) hit[static_cast<size_t>(g / gpn)] = 1;
        }
      }
    }
  }
  std::vector<int> out;
  for (int n = 1; n <= max_nodes; ++n) {
    if (hit[static_cast<size_t>(n)]) out.push_back(n);
  }
  return out;
}

CellResult search_cell(const PlanRequest& r, const Dimensions& dims, int hw_index, int nodes,
                       long long batch) {
  CellResult out;
  const HardwareOption& hw = r.hardware[hw_index];
  const FixedLayout& fx = r.fixed;
  const int gpn = hw.server.gpus_per_node;
  const long long gpus = static_cast<long long>(nodes) * gpn;
  const Fabric* fabric = hw.fabric ? &*hw.fabric : nullptr;
  const int domains = scaleup_domains(hw.server, nodes);
  if (domains > 1 && hw.server.nics_per_node == 0) {
    out.rejected.add(Rejection::no_scale_out_network);
    return out;
  }
  const PerfConstants perf = perf_constants(hw.gpu, r.workload.framework, r.workload.compile);
  // The high end of the cell's memory interval: a layout whose peak fits
  // there is safe (docs/model.md, "Memory margin").
  const double memory_high =
      prediction_interval(regime_of(r.workload, hw, nodes, IntervalMetric::memory)).high;

  // What each framework implements is its row (workload/framework.hpp).
  const Framework fw = r.workload.framework;
  // FP8 weights gathered in FP8 (--fp8-param-gather) save memory and traffic
  // wherever the distributed optimizer runs, so they are on there unless the
  // file says no.
  const bool te = te_fp8(r.workload);
  auto fp8_gather_at = [&fx, te](int zero) {
    return fx.has(LayoutKey::fp8_param_gather) ? fx.values.fp8_param_gather : te && zero >= 1;
  };
  // The memory-saving settings, cheapest in time first (fixed arrays: nothing
  // is allocated per candidate).
  // Recompute: none, selective (Megatron-Core's default modules), the
  // model's cheap modules where it has any (checks.hpp
  // cheap_recompute_modules: output-discarding ones), full; or the file's.
  struct RecomputeChoice {
    Recompute rc;
    RecomputeModules modules;
  };
  constexpr RecomputeModules kCore = kDefaultRecomputeModules;
  std::array<RecomputeChoice, 4> recomputes = {{{Recompute::none, kCore},
                                                {Recompute::selective, kCore},
                                                {Recompute::full, kCore},
                                                {Recompute::full, kCore}}};
  size_t n_recomputes = 3;
  if (fx.has(LayoutKey::recompute)) {
    recomputes[0] = {fx.values.recompute, r.workload.layout.recompute_modules};
    n_recomputes = 1;
  } else if (const RecomputeModules cheap = cheap_recompute_modules(r.workload); cheap != kCore) {
    recomputes[2] = {Recompute::selective, cheap};
    n_recomputes = 4;
  }
  // Partial recompute: the file's recompute_layers, or searched when the
  // file fixes neither it nor recompute (a fixed `full` means every layer).
  const int fixed_rc_layers = fx.has(LayoutKey::recompute_layers) ? fx.values.recompute_layers : 0;
  const bool search_rc_layers =
      !fx.has(LayoutKey::recompute_layers) && !fx.has(LayoutKey::recompute);
  // Stage split: the file's first/last sizes or pipeline layout (kept as
  // given: r.workload.layout's chunk_layers), or searched (even, balanced)
  // when it gives none.
  const int fixed_first = fx.has(LayoutKey::first_stage_layers) ? fx.values.first_stage_layers : 0;
  const int fixed_last = fx.has(LayoutKey::last_stage_layers) ? fx.values.last_stage_layers : 0;
  const bool search_split = !fx.has(LayoutKey::first_stage_layers) &&
                            !fx.has(LayoutKey::last_stage_layers) &&
                            !fx.has(LayoutKey::pipeline_layout);
  // The embedding and loss in the split may be tried (the framework has it,
  // the file sizes no stage and fixes neither flag); per candidate with pp > 1.
  const bool may_account_split = search_split && !fx.has(LayoutKey::embedding_in_split) &&
                                 !fx.has(LayoutKey::loss_in_split) &&
                                 counts_embedding_in_split(r.workload.framework);
  std::array<bool, 2> offloads = {false, true};
  size_t n_offloads = 2;
  if (fx.has(LayoutKey::offload)) {
    offloads[0] = fx.values.offload_optimizer;
    n_offloads = 1;
  }
  // One workload, its layout rewritten per candidate (no copy on the hot path).
  Workload w = r.workload;
  w.global_batch = batch;
  w.cluster.nodes = nodes;
  Layout& ly = w.layout;
  // The layers depend on tp, sp, ep and etp only: described once for every
  // candidate that shares them (micro-batch, interleaving, ZeRO, recompute).
  // What every plan of the cell shares.
  PlanCandidate cell;
  cell.hardware = hw_index;
  cell.nodes = nodes;
  cell.scaleup_domains = domains;
  cell.global_batch = batch;
  DescribedLayers layers;
  int described_tp = 0, described_ep = 0, described_etp = -1;
  bool described_sp = false;

  ly.flash_attention = !fx.has(LayoutKey::flash_attention) || fx.values.flash_attention;
  // Hybrid sharding as the file gives it; otherwise over all of dp, and
  // within one node (FSDP HYBRID_SHARD's default group, HSDP) where the
  // framework shards that way and the model is dense, tried per candidate
  // below.
  ly.shard_group = fx.has(LayoutKey::shard_group) ? fx.values.shard_group : 0;
  const int hybrid_zero = framework_traits(r.workload.framework).hybrid_shard_zero;
  const bool search_hybrid =
      !fx.has(LayoutKey::shard_group) && hybrid_zero > 0 && !r.workload.model.is_moe();
  // Interleaving and pipeline schedule together: the zero-bubble and
  // DualPipe schedules place their own chunks (interleave 1).
  std::vector<std::pair<int, int>> pipelines;
  for (int v : dims[LayoutKey::interleave]) {
    for (int sch : dims[LayoutKey::pipeline_schedule]) {
      if (v == 1 || sch == 0) pipelines.emplace_back(v, sch);
    }
  }
  for (int tp : dims[LayoutKey::tp]) {
    ly.tp = tp;
    ly.sp = fx.has(LayoutKey::sp) ? fx.values.sp : tp > 1;
    for (int cp : dims[LayoutKey::cp]) {
      ly.cp = cp;
      for (int pp : dims[LayoutKey::pp]) {
        const long long mp = static_cast<long long>(tp) * cp * pp;
        if (gpus % mp != 0) continue;
        const int dp = static_cast<int>(gpus / mp);
        if (fx.has(LayoutKey::dp) && fx.values.dp != dp) continue;
        ly.pp = pp;
        ly.dp = dp;
        if (!framework_allows(fw, tp, pp, cp)) {
          out.rejected.add(Rejection::framework);
          continue;
        }
        // ZeRO stages 0..the framework row's highest (workload/framework.hpp).
        std::array<int, 4> zeros = {0, 1, 2, 3};
        size_t n_zeros = static_cast<size_t>(max_zero_stage(fw, pp)) + 1;
        if (fx.has(LayoutKey::zero)) {
          zeros[0] = fx.values.zero;
          n_zeros = 1;
        } else if (dp * cp <= 1) {
          n_zeros = 1;
        }
        if (fx.has(LayoutKey::fp8_param_gather) && fx.values.fp8_param_gather && zeros[0] == 0) {
          // --fp8-param-gather runs only with the distributed optimizer.
          if (n_zeros == 1) {
            zeros[0] = 1;
          } else {
            std::copy(zeros.begin() + 1, zeros.begin() + static_cast<long>(n_zeros), zeros.begin());
            --n_zeros;
          }
        }
        for (int ep : dims[LayoutKey::ep]) {
          ly.ep = ep;
          for (int etp : dims[LayoutKey::etp]) {
            if (etp > 1 && etp != tp && !fx.has(LayoutKey::etp)) continue;
            ly.etp = etp;
            for (int mb : dims[LayoutKey::micro_batch]) {
              ly.micro_batch = mb;
              for (const auto& [v, sch] : pipelines) {
                if (pp == 1 && (v > 1 || sch != 0)) continue;
                ly.interleave = v;
                ly.schedule = static_cast<PipeSchedule>(sch);
                // The file's first/last stage sizes, or the even split
                // (the balanced one is tried below).
                ly.first_stage_layers = fixed_first;
                ly.last_stage_layers = fixed_last;
                ly.embedding_in_split = r.workload.layout.embedding_in_split;
                ly.loss_in_split = r.workload.layout.loss_in_split;
                // Overlapping the MoE all-to-all hides it wherever it is allowed.
                ly.ep_overlap =
                    fx.has(LayoutKey::ep_overlap) ? fx.values.ep_overlap : ep_overlap_allowed(w);
                // Checked with a stage (and its FP8 gather) the loop below tries.
                ly.zero = zeros.front();
                // A fixed hybrid shard group runs at the framework's hybrid stages only.
                if (ly.shard_group > 0) {
                  ly.zero = std::max(ly.zero, std::min(hybrid_zero, zeros[n_zeros - 1]));
                }
                ly.fp8_param_gather = fp8_gather_at(ly.zero);
                ++out.candidates;
                // Megatron-Core's interleaved schedule runs micro-batches in
                // groups of at least pp (schedules.py
                // forward_backward_pipelining_with_interleaving): fewer per
                // step than stages is refused. Where pp does not divide them,
                // the groups are larger (interleave_group_size), which the
                // memory model counts.
                const bool too_few_for_interleave =
                    v > 1 && batch < static_cast<long long>(mb) * dp * pp;
                // Where only the embedding and loss in the split make the
                // chunks legal (more chunks than layers), that is the base.
                bool legal = layout_legal(w, gpus);
                const bool may_account = may_account_split && pp > 1;
                bool base_accounted = false;
                if (!legal && may_account) {
                  ly.embedding_in_split = true;
                  ly.loss_in_split = true;
                  legal = base_accounted = layout_legal(w, gpus);
                  if (!legal) {
                    ly.embedding_in_split = false;
                    ly.loss_in_split = false;
                  }
                }
                if (batch % (static_cast<long long>(mb) * dp) != 0 || too_few_for_interleave ||
                    !legal) {
                  out.rejected.add(Rejection::divisibility);
                  continue;
                }
                out.any_legal = true;
                if (ly.tp != described_tp || ly.ep != described_ep || ly.etp != described_etp ||
                    ly.sp != described_sp) {
                  layers = describe_layers(w);
                  described_tp = ly.tp;
                  described_ep = ly.ep;
                  described_etp = ly.etp;
                  described_sp = ly.sp;
                }
                // Memory-saving settings, cheapest in time first; keep the fastest that
                // fits. The layout is timed once, when a setting first fits.
                std::optional<LayoutTimes> times;
                // Fits at the high end of the cell's memory interval.
                auto is_safe = [&](const MemoryEstimate& mem) {
                  return mem.total() * memory_high <= mem.capacity_bytes;
                };
                // The fastest safe layout; the fastest tight one only where none is safe.
                auto keep_if_faster = [&](const MemoryEstimate& mem, bool safe) {
                  if (!times) times = layout_times(w, hw.server, hw.gpu, fabric, perf, layers);
                  const StepEstimate step = estimate_step(w, hw.gpu, perf, mem, layers, *times);
                  if (!out.fastest || (safe && !out.fastest->memory_safe) ||
                      (safe == out.fastest->memory_safe &&
                       step.step_s < out.fastest->step.step_s)) {
                    if (!out.fastest) out.fastest = cell;
                    out.fastest->layout = ly;
                    out.fastest->memory = mem;
                    out.fastest->step = step;
                    out.fastest->memory_safe = safe;
                  }
                };
                // The memory-saving settings of one stage split; least_here:
                // the least memory of the settings tried, over capacity.
                double least_here = 1e300;
                auto try_settings = [&] {
                  // Layers per model chunk of the heaviest stage: the most that
                  // partial recompute can leave out.
                  const int chunks = pipeline_chunks(ly);
                  const int chunk_layers =
                      (heaviest_stage_layers(w.model, ly) + chunks - 1) / chunks;
                  for (size_t zi = 0; zi < n_zeros; ++zi) {
                    const int z = zeros[zi];
                    if (ly.shard_group > 0 && z < hybrid_zero) continue;
                    bool none_fits = false;
                    for (size_t ri = 0; ri < n_recomputes; ++ri) {
                      const Recompute rc = recomputes[ri].rc;
                      for (size_t oi = 0; oi < n_offloads; ++oi) {
                        const bool off = offloads[oi];
                        ly.zero = z;
                        ly.fp8_param_gather = fp8_gather_at(z);
                        ly.recompute = rc;
                        ly.recompute_modules = recomputes[ri].modules;
                        ly.recompute_layers = rc == Recompute::full ? fixed_rc_layers : 0;
                        ly.offload_optimizer = off;
                        ++out.evaluated;
                        const MemoryEstimate mem = estimate_memory(w, hw.gpu, {}, layers);
                        least_here = std::min(least_here, mem.total() / mem.capacity_bytes);
                        if (mem.total() < out.least_memory) {
                          out.least_memory = mem.total();
                          out.least = mem.peak;
                        }
                        if (!mem.fits) {
                          out.rejected.add(Rejection::memory);
                          continue;
                        }
                        const bool safe = is_safe(mem);
                        if (rc == Recompute::none && !off && safe) none_fits = true;
                        keep_if_faster(mem, safe);
                        // Full recompute fits but none does not fit safely:
                        // the fewest layers per chunk to recompute that still
                        // fit (safely, where every layer recomputed does;
                        // memory falls as N grows), found by bisection.
                        if (rc == Recompute::full && search_rc_layers && !none_fits &&
                            chunk_layers > 1) {
                          auto good = [&](const MemoryEstimate& x) {
                            return safe ? is_safe(x) : x.fits;
                          };
                          int lo = 1, hi = chunk_layers;  // hi: every layer, known to be good
                          std::optional<MemoryEstimate> best;
                          while (lo < hi) {
                            const int mid = lo + (hi - lo) / 2;
                            ly.recompute_layers = mid;
                            ++out.evaluated;
                            MemoryEstimate trial = estimate_memory(w, hw.gpu, {}, layers);
                            if (good(trial)) {
                              hi = mid;
                              best = std::move(trial);
                            } else {
                              lo = mid + 1;
                            }
                          }
                          if (best && hi < chunk_layers) {
                            ly.recompute_layers = hi;
                            keep_if_faster(*best, is_safe(*best));
                          }
                          ly.recompute_layers = 0;
                        }
                        if (!off && safe) break;  // offload only when nothing else fits safely
                      }
                    }
                  }
                };
                try_settings();
                // Balanced stages: the first and last stages give up layers
                // for the embedding and the output layer and loss, when that
                // evens the stages' time (workload/pipeline.hpp); kept where
                // it is faster or fits where the even split does not.
                if (search_split && pp > 1 && least_here <= kBalancedSplitReach) {
                  if (!times) times = layout_times(w, hw.server, hw.gpu, fabric, perf, layers);
                  if (const auto split = balanced_stage_split(w, *times)) {
                    ly.first_stage_layers = split->first;
                    ly.last_stage_layers = split->last;
                    if (layout_legal(w, gpus)) try_settings();
                    ly.first_stage_layers = 0;
                    ly.last_stage_layers = 0;
                  }
                }
                // The embedding and the loss each in a layer's place of the
                // split (Megatron-Core's account flags; Llama 3 405B's
                // layout), where the framework has them and the file fixes
                // no stage sizing: kept where it is faster or fits.
                if (may_account && !base_accounted && least_here <= kBalancedSplitReach) {
                  ly.embedding_in_split = true;
                  ly.loss_in_split = true;
                  if (layout_legal(w, gpus)) try_settings();
                  ly.embedding_in_split = false;
                  ly.loss_in_split = false;
                }
                // Hybrid sharding (the base split): the data-parallel ranks
                // of one node (kHybridShardNodes: or of 2 or 4) hold the
                // state, replicated across the groups; the ZeRO-3 gathers
                // stay inside the group (on NVLink for one node) and each
                // rank's gradient shard is all-reduced across the replicas
                // once a step. Timed apart (its groups differ); kept where faster.
                const long long node_ranks = static_cast<long long>(hw.server.gpus_per_node);
                const int top_zero = zeros[n_zeros - 1];
                if (search_hybrid && node_ranks % (static_cast<long long>(tp) * cp) == 0 &&
                    top_zero >= hybrid_zero) {
                  const int per_node =
                      static_cast<int>(node_ranks / (static_cast<long long>(tp) * cp));
                  for (const int group_nodes : kHybridShardNodes) {
                    const int g = per_node * group_nodes;
                    if (g <= 1 || g >= dp || dp % g != 0) continue;
                    std::optional<LayoutTimes> base_times = std::move(times);
                    times.reset();
                    ly.shard_group = g;
                    ly.zero = top_zero;
                    if (layout_legal(w, gpus)) try_settings();
                    ly.shard_group = 0;
                    times = std::move(base_times);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

// Orders plans by the objective. Values within 0.1 % count as equal (they
// differ by rounding, not in any way a user could act on); ties go to the
// other measure, then fewer GPUs, then the hardware's order (deterministic).
bool better(const PlanCandidate& a, const PlanCandidate& b, Objective o) {
  auto cost = [](const PlanCandidate& c) { return c.cost_usd > 0 ? c.cost_usd : 1e300; };
  auto cmp = [](double x, double y) {
    if (std::fabs(x - y) <= 1e-3 * std::max(std::fabs(x), std::fabs(y))) return 0;
    return x < y ? -1 : 1;
  };
  const int first = o == Objective::cost     ? cmp(cost(a), cost(b))
                    : o == Objective::energy ? cmp(a.run.power.energy_kWh, b.run.power.energy_kWh)
                                             : cmp(a.time_to_train_s, b.time_to_train_s);
  if (first != 0) return first < 0;
  const int second =
      o == Objective::cost ? cmp(a.time_to_train_s, b.time_to_train_s) : cmp(cost(a), cost(b));
  if (second != 0) return second < 0;
  return std::make_tuple(a.gpus(), a.hardware) < std::make_tuple(b.gpus(), b.hardware);
}

// The single-node cells that had a legal layout, for the capacity reason:
// the roomiest server tried (the one closest to fitting by capacity) and its
// least per-GPU memory.
struct SingleNodeMemory {
  bool legal = false;
  double least_bytes = 0, capacity_bytes = 0;
  StageMemory least;

  void add(const CellResult& c, const Gpu& gpu) {
    if (!c.any_legal) return;
    if (!legal || gpu.hbm_bytes > capacity_bytes ||
        (gpu.hbm_bytes == capacity_bytes && c.least_memory < least_bytes)) {
      least_bytes = c.least_memory;
      least = c.least;
      capacity_bytes = gpu.hbm_bytes;
    }
    legal = true;
  }
};

// A cell's fastest layout with its whole run (reliability, power, cost) and
// the constraints it meets.
PlanCandidate with_run(const PlanRequest& r, PlanCandidate p) {
  const HardwareOption& hw = r.hardware[p.hardware];
  Workload w = r.workload;
  w.layout = p.layout;
  w.global_batch = p.global_batch;
  p.run = evaluate_run(w, hw.server, hw.gpu, hw.fabric ? &*hw.fabric : nullptr, p.nodes, p.step,
                       hw.server_usd, hw.usd_per_gpu_hour, r.run);
  p.time_to_train_s = p.run.reliability.wall_time_s;
  p.cost_usd = r.cost_basis == CostBasis::own ? p.run.cost.own_usd : p.run.cost.cloud_usd;
  // The calibrated 80 % intervals of the plan's regime (perf/intervals.hpp).
  p.time_interval = prediction_interval(regime_of(w, hw, p.nodes, IntervalMetric::time));
  p.memory_interval = prediction_interval(regime_of(w, hw, p.nodes, IntervalMetric::memory));
  p.time_to_train_low_s = p.time_to_train_s * p.time_interval.low;
  p.time_to_train_high_s = p.time_to_train_s * p.time_interval.high;
  p.memory_low_bytes = p.memory.total() * p.memory_interval.low;
  p.memory_high_bytes = p.memory.total() * p.memory_interval.high;
  p.memory_safe = p.memory_high_bytes <= p.memory.capacity_bytes;
  // The launch files' margin: how much longer than predicted the run may take.
  p.band = std::max(0.0, p.time_interval.high - 1.0);
  const PlanConstraints& k = r.constraints;
  p.within_horizon = p.time_to_train_s <= kDefaultHorizonDays * 86400.0;
  // No deadline: the default horizon stands in (plan() drops it when no plan meets it).
  p.meets_deadline = k.deadline_s ? p.time_to_train_s <= *k.deadline_s : p.within_horizon;
  p.within_budget = !k.budget_usd || (p.cost_usd > 0 && p.cost_usd <= *k.budget_usd);
  p.within_power = !k.max_power_W || p.run.power.cluster_W <= *k.max_power_W;
  p.meets_goodput = !k.min_goodput || p.run.reliability.goodput >= *k.min_goodput;
  return p;
}

void count_misses(const PlanCandidate& p, RejectionCounts& rejected) {
  if (!p.meets_deadline) rejected.add(Rejection::deadline);
  if (!p.within_budget) rejected.add(Rejection::budget);
  if (!p.within_power) rejected.add(Rejection::power);
  if (!p.meets_goodput) rejected.add(Rejection::goodput);
}

// The deadline plans are held to: the file's, else the default horizon
// (none once the search has dropped it: no plan finishes within it).
std::optional<double> effective_deadline(const PlanRequest& r) {
  if (r.constraints.deadline_s) return r.constraints.deadline_s;
  return kDefaultHorizonDays * 86400.0;
}

bool feasible(const PlanCandidate& p) {
  return p.meets_deadline && p.within_budget && p.within_power && p.meets_goodput;
}

// The frontier points the verdict is made of.
struct Picks {
  std::optional<PlanCandidate> best;            // by the objective, meeting every constraint
  std::optional<PlanCandidate> best_single;     // ... on one node
  std::optional<PlanCandidate> best_multi;      // fastest on several nodes meeting every constraint
  std::optional<PlanCandidate> fastest_single;  // fastest on one node, constraints or not
  // Several nodes of one NVLink domain: by the objective meeting every
  // constraint, and the fastest, constraints or not.
  std::optional<PlanCandidate> best_domain, fastest_domain;
  // Fastest on several NVLink domains meeting every constraint.
  std::optional<PlanCandidate> best_multi_domain;
  bool any_safe = false;  // some plan meeting the constraints fits at the high end of memory
};

bool in_one_domain(const PlanCandidate& p) { return p.nodes > 1 && p.scaleup_domains == 1; }

// Picks the plans and sets the smallest node counts that fit and meet the deadline.
Picks pick(const PlanRequest& r, PlanResult& res) {
  Picks k;
  // A plan that fits only at the central memory estimate is recommended
  // only when no plan that meets the constraints fits at the high end.
  const bool any_safe =
      std::any_of(res.frontier.begin(), res.frontier.end(),
                  [](const PlanCandidate& p) { return feasible(p) && p.memory_safe; });
  k.any_safe = any_safe;
  for (const PlanCandidate& p : res.frontier) {
    if (res.min_nodes_fit.value_or(1 << 30) > p.nodes) res.min_nodes_fit = p.nodes;
    if (p.meets_deadline && res.min_nodes_deadline.value_or(1 << 30) > p.nodes) {
      res.min_nodes_deadline = p.nodes;
    }
    if (p.nodes == 1 &&
        (!k.fastest_single || p.time_to_train_s < k.fastest_single->time_to_train_s)) {
      k.fastest_single = p;
    }
    if (in_one_domain(p) &&
        (!k.fastest_domain || p.time_to_train_s < k.fastest_domain->time_to_train_s)) {
      k.fastest_domain = p;
    }
    if (!feasible(p) || (any_safe && !p.memory_safe)) continue;
    if (!k.best || better(p, *k.best, r.objective)) k.best = p;
    if (p.nodes == 1 && (!k.best_single || better(p, *k.best_single, r.objective))) {
      k.best_single = p;
    }
    if (p.nodes > 1 && (!k.best_multi || p.time_to_train_s < k.best_multi->time_to_train_s)) {
      k.best_multi = p;
    }
    if (in_one_domain(p) && (!k.best_domain || better(p, *k.best_domain, r.objective))) {
      k.best_domain = p;
    }
    if (p.scaleup_domains > 1 &&
        (!k.best_multi_domain || p.time_to_train_s < k.best_multi_domain->time_to_train_s)) {
      k.best_multi_domain = p;
    }
  }
  return k;
}

// Why no single-node plan meets the constraints; none when one does.
std::optional<PlanReason> why_not_single_node(const PlanRequest& r, const Picks& k,
                                              const SingleNodeMemory& one) {
  PlanReason why;
  if (!k.fastest_single) {
    if (!one.legal) {
      why.kind = PlanReasonKind::single_node_no_layout;
      return why;
    }
    why.kind = PlanReasonKind::single_node_memory;
    why.bytes = one.least_bytes;
    why.capacity_bytes = one.capacity_bytes;
    // MoE: how much of it is the routed experts' state.
    const StageMemory& m = one.least;
    why.expert_bytes = m.expert_state;
    why.state_bytes = m.weights + m.gradients + m.optimizer - m.expert_state;
    why.zero1 = max_zero_stage(r.workload.framework, 1) == 1;
    return why;
  }
  if (k.best_single) return std::nullopt;
  const PlanCandidate& s = *k.fastest_single;
  if (!s.meets_deadline) {
    why.kind = PlanReasonKind::single_node_time;
    why.time_s = s.time_to_train_s;
    why.deadline_s = effective_deadline(r);
  } else if (k.any_safe && !s.memory_safe) {
    why.kind = PlanReasonKind::single_node_margin;
    why.bytes = s.memory.total();
    why.high_bytes = s.memory_high_bytes;
    why.capacity_bytes = s.memory.capacity_bytes;
  } else if (!s.within_budget) {
    why.kind = PlanReasonKind::single_node_budget;
  } else if (!s.within_power) {
    why.kind = PlanReasonKind::single_node_power;
    why.power_W = s.run.power.cluster_W;
    why.power_limit_W = r.constraints.max_power_W.value_or(0);
  } else {
    why.kind = PlanReasonKind::single_node_goodput;
    why.goodput = s.run.reliability.goodput;
    why.min_goodput = r.constraints.min_goodput.value_or(0);
  }
  return why;
}

// What the fastest scale-out plan `m` would buy over the chosen `base`.
PlanReason scale_out_faster(const PlanCandidate& m, const PlanCandidate& base) {
  PlanReason out{.kind = PlanReasonKind::scale_out_faster};
  out.nodes = m.nodes;
  out.time_s = m.time_to_train_s;
  out.speedup = base.time_to_train_s / m.time_to_train_s;
  out.usd = m.cost_usd;
  out.other_usd = base.cost_usd;
  return out;
}

// Single node: it fits, and what scaling out would buy.
void explain_single_node(const PlanRequest& r, const Picks& k, PlanResult& res) {
  const PlanCandidate& s = *k.best_single;
  PlanReason fits{.kind = PlanReasonKind::one_node_fits};
  const Server& server = r.hardware[s.hardware].server;
  fits.server = server.id;
  if (server.whole_gpus > 0) {
    fits.gpus = s.gpus();
    fits.whole_gpus = server.whole_gpus;
  }
  fits.bytes = s.memory.total();
  fits.capacity_bytes = s.memory.capacity_bytes;
  fits.time_s = s.time_to_train_s;
  fits.deadline_s = r.constraints.deadline_s;
  res.reasons.push_back(fits);
  if (k.best_multi) res.reasons.push_back(scale_out_faster(*k.best_multi, s));
}

// One NVLink domain of several nodes: why not one node, that the domain
// holds the job without a scale-out network, and what scaling out would buy.
void explain_single_domain(const PlanRequest& r, const Picks& k, PlanResult& res) {
  res.reasons.push_back(*res.single_node_reason);
  const PlanCandidate& d = *k.best_domain;
  const Server& server = r.hardware[d.hardware].server;
  PlanReason fits{.kind = PlanReasonKind::one_domain_fits, .server = server.id, .nodes = d.nodes};
  fits.gpus = d.gpus();
  fits.domain_gpus = domain_gpus(server);
  fits.domain_nodes = fits.domain_gpus / std::max(1, server.gpus_per_node);
  fits.time_s = d.time_to_train_s;
  fits.deadline_s = r.constraints.deadline_s;
  res.reasons.push_back(fits);
  if (k.best_multi_domain && k.best_multi_domain->time_to_train_s < d.time_to_train_s) {
    PlanReason out = scale_out_faster(*k.best_multi_domain, d);
    // Named: it may be other hardware.
    out.server = r.hardware[k.best_multi_domain->hardware].server.id;
    res.reasons.push_back(out);
  }
  // Honest about the trade: the objective alone would scale out.
  if (k.best && k.best->scaleup_domains > 1 &&
      !(k.best_multi_domain && k.best->hardware == k.best_multi_domain->hardware &&
        k.best->nodes == k.best_multi_domain->nodes &&
        k.best_multi_domain->time_to_train_s < d.time_to_train_s)) {
    const PlanCandidate& b = *k.best;
    PlanReason out{.kind = PlanReasonKind::scale_out_ranks_higher};
    out.server = r.hardware[b.hardware].server.id;
    out.nodes = b.nodes;
    out.time_s = b.time_to_train_s;
    out.usd = b.cost_usd;
    res.reasons.push_back(out);
  }
}

// A multi-node verdict where some hardware joins several nodes in one NVLink
// domain: why that domain is not enough (the largest domain searched); none
// when no hardware option has such a domain.
std::optional<PlanReason> why_not_one_domain(const PlanRequest& r, const Picks& k,
                                             const PlanResult& res) {
  if (r.fixed.nodes) return std::nullopt;  // the file chose the cluster
  int h = -1;
  for (size_t i = 0; i < r.hardware.size(); ++i) {
    const Server& s = r.hardware[i].server;
    if (domain_gpus(s) <= s.gpus_per_node) continue;
    if (h < 0 || domain_gpus(s) > domain_gpus(r.hardware[static_cast<size_t>(h)].server)) {
      h = static_cast<int>(i);
    }
  }
  if (h < 0) return std::nullopt;
  const PlanCandidate* fastest = k.fastest_domain ? &*k.fastest_domain : nullptr;
  if (fastest) h = fastest->hardware;
  const Server& server = r.hardware[static_cast<size_t>(h)].server;
  PlanReason why{.server = server.id};
  why.domain_gpus = domain_gpus(server);
  why.domain_nodes = why.domain_gpus / std::max(1, server.gpus_per_node);
  if (!fastest) {
    why.kind = PlanReasonKind::domain_memory;
    for (const PlanCandidate& p : res.frontier) {
      if (p.hardware == h && (why.nodes == 0 || p.nodes < why.nodes)) why.nodes = p.nodes;
    }
    // It fits within one domain (on one node), but no such plan meets the constraints.
    if (why.nodes > 0 && why.nodes <= why.domain_nodes) {
      why.kind = PlanReasonKind::domain_constraints;
      why.nodes = 0;
    }
  } else if (!fastest->meets_deadline) {
    why.kind = PlanReasonKind::domain_time;
    why.time_s = fastest->time_to_train_s;
    why.deadline_s = effective_deadline(r);
  } else {
    why.kind = PlanReasonKind::domain_constraints;
  }
  return why;
}

// Several nodes: why not one, and the smallest clusters that fit and meet the deadline.
void explain_multi_node(const PlanRequest& r, const Picks& k, PlanResult& res) {
  res.reasons.push_back(*res.single_node_reason);
  if (const std::optional<PlanReason> why = why_not_one_domain(r, k, res)) {
    res.reasons.push_back(*why);
  }
  if (res.min_nodes_fit) {
    res.reasons.push_back({.kind = PlanReasonKind::smallest_fit, .nodes = *res.min_nodes_fit});
  }
  if (r.constraints.deadline_s && res.min_nodes_deadline) {
    PlanReason d{.kind = PlanReasonKind::smallest_deadline, .nodes = *res.min_nodes_deadline};
    d.deadline_s = r.constraints.deadline_s;
    res.reasons.push_back(d);
  }
}

// A single-node verdict with plans below a node searched and a deadline
// given: the cheapest plan that
// meets it and every other constraint (the recommended plan may differ by
// the objective's 0.1 % tie, going to the faster); none when no plan is
// priced or none meets the constraints.
std::optional<PlanReason> cheapest_for_deadline(const PlanRequest& r, const Picks& k,
                                                const PlanResult& res) {
  const bool slices = std::any_of(r.hardware.begin(), r.hardware.end(),
                                  [](const HardwareOption& h) { return h.is_slice(); });
  if (!slices || !r.constraints.deadline_s) return std::nullopt;
  const PlanCandidate* best = nullptr;
  for (const PlanCandidate& p : res.frontier) {
    if (!feasible(p) || (k.any_safe && !p.memory_safe) || p.cost_usd <= 0) continue;
    // Strictly the lowest cost (not the objective's 0.1 % tie): this names
    // the cheapest; on an exact tie, fewer GPUs.
    if (!best || p.cost_usd < best->cost_usd ||
        (p.cost_usd == best->cost_usd && p.gpus() < best->gpus())) {
      best = &p;
    }
  }
  if (!best) return std::nullopt;
  const Server& server = r.hardware[best->hardware].server;
  PlanReason why{.kind = PlanReasonKind::cheapest_deadline, .server = server.id};
  why.nodes = best->nodes;
  why.gpus = best->gpus();
  why.whole_gpus = server.whole_gpus;
  why.usd = best->cost_usd;
  why.time_s = best->time_to_train_s;
  why.deadline_s = r.constraints.deadline_s;
  const std::optional<PlanCandidate>& rec = res.recommended;
  if (rec && (rec->hardware != best->hardware || rec->nodes != best->nodes)) {
    why.other_gpus = rec->gpus();
    why.other_usd = rec->cost_usd;
    why.other_time_s = rec->time_to_train_s;
  }
  return why;
}

// Nothing meets the constraints: the closest plan (the fastest that fits,
// whatever it costs) and every constraint it misses.
void explain_infeasible(const PlanRequest& r, bool single_legal, PlanResult& res) {
  for (const PlanCandidate& p : res.frontier) {
    if (!res.recommended || p.time_to_train_s < res.recommended->time_to_train_s) {
      res.recommended = p;
    }
  }
  if (!res.recommended) {
    PlanReason none{.kind = PlanReasonKind::nothing_fits};
    none.any_legal = single_legal;
    none.fixed_nodes = r.fixed.nodes.has_value();
    none.nodes = r.fixed.nodes.value_or(r.constraints.max_nodes);
    res.reasons.push_back(none);
    return;
  }
  const PlanCandidate& c = *res.recommended;
  const HardwareOption& hw = r.hardware[c.hardware];
  if (!c.meets_deadline) {
    PlanReason t{.kind = PlanReasonKind::fastest_misses_deadline, .server = hw.server.id};
    t.nodes = c.nodes;
    t.time_s = c.time_to_train_s;
    t.deadline_s = r.constraints.deadline_s;
    res.reasons.push_back(t);
  }
  if (!c.within_budget) {
    PlanReason b;
    if (c.cost_usd > 0) {
      b.kind = PlanReasonKind::fastest_over_budget;
      b.usd = c.cost_usd;
      b.other_usd = r.constraints.budget_usd.value_or(0);
    } else {
      b.kind = PlanReasonKind::no_price;
      b.own_basis = r.cost_basis == CostBasis::own;
      b.server = b.own_basis ? hw.server.id : hw.gpu.id;
    }
    res.reasons.push_back(b);
  }
  if (!c.within_power) {
    PlanReason w{.kind = PlanReasonKind::fastest_over_power};
    w.power_W = c.run.power.cluster_W;
    w.power_limit_W = r.constraints.max_power_W.value_or(0);
    res.reasons.push_back(w);
  }
  if (!c.meets_goodput) {
    PlanReason g{.kind = PlanReasonKind::fastest_under_goodput};
    g.goodput = c.run.reliability.goodput;
    g.min_goodput = r.constraints.min_goodput.value_or(0);
    res.reasons.push_back(g);
  }
}

// Honest uncertainty: does the plan meet the deadline or budget only below
// the high end of its time interval (the optimistic side)? And does it fit
// only at the central memory estimate?
void add_interval_reasons(const PlanRequest& r, PlanResult& res) {
  if (!res.recommended || res.verdict == Verdict::infeasible) return;
  const PlanCandidate& c = *res.recommended;
  if (r.constraints.deadline_s && c.time_to_train_high_s > *r.constraints.deadline_s) {
    PlanReason b{.kind = PlanReasonKind::deadline_band};
    b.deadline_s = r.constraints.deadline_s;
    b.slack = *r.constraints.deadline_s / c.time_to_train_s - 1.0;
    b.band = c.band;
    res.reasons.push_back(b);
  }
  const double high_usd = c.cost_usd * c.time_interval.high;
  if (r.constraints.budget_usd && c.cost_usd > 0 && high_usd > *r.constraints.budget_usd) {
    PlanReason b{.kind = PlanReasonKind::budget_band};
    b.usd = high_usd;
    b.other_usd = *r.constraints.budget_usd;
    res.reasons.push_back(b);
  }
  if (!c.memory_safe) {
    PlanReason m{.kind = PlanReasonKind::memory_tight};
    m.bytes = c.memory.total();
    m.high_bytes = c.memory_high_bytes;
    m.capacity_bytes = c.memory.capacity_bytes;
    res.reasons.push_back(m);
  }
}

}  // namespace

std::vector<int> searched_node_counts(const PlanRequest& r, int hardware, long long batch) {
  if (r.fixed.nodes) return {*r.fixed.nodes};
  const HardwareOption& hw = r.hardware[static_cast<size_t>(hardware)];
  std::vector<int> out = divisible_counts(r, dimensions(r, hw), hw.server.gpus_per_node, batch);
  if (hw.is_slice()) std::erase_if(out, [](int n) { return n != 1; });
  return out;
}

PlanResult plan(const PlanRequest& r) {
  PlanResult res;
  const std::vector<long long> batches =
      r.global_batches.empty() ? std::vector<long long>{r.workload.global_batch} : r.global_batches;
  std::vector<Dimensions> dims;
  dims.reserve(r.hardware.size());
  for (const HardwareOption& hw : r.hardware) dims.push_back(dimensions(r, hw));
  // Every node count up to max_nodes, less those no layout can divide
  // (divisible_counts); a fixed node count is searched as given.
  std::vector<Work> work;
  std::vector<char> divisible(static_cast<size_t>(std::max(1, r.constraints.max_nodes)) + 1, 0);
  for (size_t h = 0; h < r.hardware.size(); ++h) {
    for (long long b : batches) {
      // A slice of a server: one node only.
      std::vector<int> counts =
          r.fixed.nodes ? std::vector<int>{*r.fixed.nodes}
                        : divisible_counts(r, dims[h], r.hardware[h].server.gpus_per_node, b);
      if (r.hardware[h].is_slice()) std::erase_if(counts, [](int n) { return n != 1; });
      for (int n : counts) {
        work.push_back({static_cast<int>(h), n, b});
        if (n < static_cast<int>(divisible.size())) divisible[static_cast<size_t>(n)] = 1;
      }
    }
  }
  // Cells in (hardware, node count, batch) order: the frontier below keeps
  // one point per hardware and node count.
  std::stable_sort(work.begin(), work.end(), [](const Work& x, const Work& y) {
    return std::tie(x.hardware, x.nodes) < std::tie(y.hardware, y.nodes);
  });
  res.stats.node_counts = r.fixed.nodes ? 1 : std::max(1, r.constraints.max_nodes);
  res.stats.node_counts_divisible =
      static_cast<int>(std::count(divisible.begin(), divisible.end(), 1));
  // Cells are independent: threads take every k-th cell; results land in place.
  std::vector<CellResult> cells(work.size());
  const int threads = std::max(1, std::min<int>(r.threads, static_cast<int>(work.size())));
  std::atomic<long long> done{0};
  const auto total = static_cast<long long>(work.size());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < work.size(); i += static_cast<size_t>(threads)) {
        cells[i] = search_cell(r, dims[static_cast<size_t>(work[i].hardware)], work[i].hardware,
                               work[i].nodes, work[i].batch);
        if (r.progress) r.progress(++done, total);
      }
    });
  }
  for (std::thread& th : pool) th.join();

  SingleNodeMemory one;
  for (size_t i = 0; i < cells.size(); ++i) {
    CellResult& c = cells[i];
    res.stats.candidates += c.candidates;
    res.stats.evaluated += c.evaluated;
    res.stats.rejected_by_reason += c.rejected;
    const HardwareOption& hw = r.hardware[work[i].hardware];
    if (work[i].nodes == 1) one.add(c, hw.gpu);
    if (!c.fastest) continue;
    const PlanCandidate p = with_run(r, *c.fastest);
    count_misses(p, res.stats.rejected_by_reason);
    // One frontier point per hardware and node count: the fastest over the batches.
    // Cells of one hardware and node count are adjacent (work is sorted).
    if (res.frontier.empty() || res.frontier.back().hardware != p.hardware ||
        res.frontier.back().nodes != p.nodes) {
      res.frontier.push_back(std::move(p));
    } else if (p.time_to_train_s < res.frontier.back().time_to_train_s) {
      res.frontier.back() = std::move(p);
    }
  }

  // No deadline: the default horizon stands in unless no plan meets it
  // (then it is dropped, and the reasons say so).
  std::optional<PlanReason> horizon;
  if (!r.constraints.deadline_s && !res.frontier.empty()) {
    horizon = PlanReason{.kind = PlanReasonKind::default_horizon};
    horizon->deadline_s = kDefaultHorizonDays * 86400.0;
    const bool any = std::any_of(res.frontier.begin(), res.frontier.end(),
                                 [](const PlanCandidate& p) { return feasible(p); });
    if (!any) {
      // Nothing finishes within the horizon and the other constraints: drop it.
      double fastest = 1e300;
      for (PlanCandidate& p : res.frontier) {
        p.meets_deadline = true;
        fastest = std::min(fastest, p.time_to_train_s);
      }
      horizon->kind = PlanReasonKind::horizon_dropped;
      horizon->time_s = fastest;
      res.stats.rejected_by_reason.count[static_cast<size_t>(Rejection::deadline)] = 0;
    }
  }

  // Verdict.
  const Picks k = pick(r, res);
  res.single_node_best = k.best_single ? k.best_single : k.fastest_single;
  res.best_multi_node = k.best_multi;
  res.single_domain_best = k.best_domain;
  res.single_node_reason = why_not_single_node(r, k, one);
  if (k.best_single) {
    res.verdict = Verdict::single_node;
    res.recommended = k.best_single;
    explain_single_node(r, k, res);
  } else if (k.best_domain) {
    // Scale up before scaling out: one NVLink domain needs no scale-out network.
    res.verdict = Verdict::single_domain;
    res.recommended = k.best_domain;
    explain_single_domain(r, k, res);
  } else if (k.best) {
    res.verdict = Verdict::multi_node;
    res.recommended = k.best;
    explain_multi_node(r, k, res);
  } else {
    res.verdict = Verdict::infeasible;
    explain_infeasible(r, one.legal, res);
  }
  if (res.verdict == Verdict::single_node) {
    if (const std::optional<PlanReason> c = cheapest_for_deadline(r, k, res)) {
      res.reasons.push_back(*c);
    }
  }
  add_interval_reasons(r, res);
  if (horizon && res.verdict != Verdict::infeasible) res.reasons.push_back(*horizon);
  std::sort(res.frontier.begin(), res.frontier.end(),
            [](const PlanCandidate& a, const PlanCandidate& b) {
              return std::tie(a.hardware, a.nodes) < std::tie(b.hardware, b.nodes);
            });
  return res;
}

}  // namespace scaleout
