#include "report/finite.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/enum_names.hpp"
#include "core/ids.hpp"
#include "perf/compute.hpp"
#include "report/parts.hpp"

namespace scaleout::report {

namespace {

// The ranges a figure may have.
enum class Range { non_negative, positive, share };

const char* range_text(Range r) {
  return enum_name(r, {"finite and >= 0", "finite and > 0", "in [0, 1]"});
}

bool in_range(double v, Range r) {
  if (!std::isfinite(v)) return false;
  switch (r) {
    case Range::non_negative:
      return v >= 0;
    case Range::positive:
      return v > 0;
    case Range::share:
      return v >= 0 && v <= 1;
  }
  return false;
}

// Collects the first bad figure; `where` and the hardware are set by the
// caller before each group of figures.
class Checker {
 public:
  // Checks one figure; keeps the first failure.
  void figure(const char* name, double value, Range range) {
    if (bad_ || in_range(value, range)) return;
    BadFigure b;
    b.where = where_;
    b.figure = name;
    b.value = value;
    b.range = range_text(range);
    b.server_id = server_;
    b.gpu_id = gpu_;
    b.fabric_id = fabric_;
    bad_ = std::move(b);
  }
  bool failed() const { return bad_.has_value(); }
  void at(std::string where, const std::string& server, const std::string& gpu,
          const std::string& fabric) {
    where_ = std::move(where);
    server_ = server;
    gpu_ = gpu;
    fabric_ = fabric;
  }
  std::optional<BadFigure> result() { return std::move(bad_); }

 private:
  std::optional<BadFigure> bad_;
  std::string where_, server_, gpu_, fabric_;
};

void check_memory(Checker& c, const MemoryEstimate& m) {
  const StageMemory& s = m.peak;
  c.figure("weight memory (bytes)", s.weights, Range::non_negative);
  c.figure("gradient memory (bytes)", s.gradients, Range::non_negative);
  c.figure("optimizer memory (bytes)", s.optimizer, Range::non_negative);
  c.figure("activation memory (bytes)", s.activations, Range::non_negative);
  c.figure("logit memory (bytes)", s.logits, Range::non_negative);
  c.figure("buffer memory (bytes)", s.buffers, Range::non_negative);
  c.figure("memory overhead (bytes)", s.overhead, Range::non_negative);
  c.figure("memory per GPU (bytes)", m.total(), Range::non_negative);
  c.figure("GPU memory capacity (bytes)", m.capacity_bytes, Range::positive);
  c.figure("host offload memory (bytes)", m.host_offload_bytes, Range::non_negative);
}

void check_step(Checker& c, const StepEstimate& s) {
  c.figure("step time (s)", s.step_s, Range::positive);
  const StepBreakdown& b = s.breakdown;
  for (const auto& part : kStepParts) {
    c.figure("a part of the step time (s)", b.*part.value, Range::non_negative);
  }
  c.figure("micro-batches per step", s.microbatches, Range::positive);
  c.figure("tokens/s", s.tokens_per_s, Range::positive);
  c.figure("tokens/s per GPU", s.tokens_per_s_per_gpu, Range::positive);
  c.figure("MFU", s.mfu, Range::share);
  c.figure("HFU", s.hfu, Range::share);
  c.figure("time to train (s)", s.time_to_train_s, Range::non_negative);
  c.figure("network-wait share", s.network_wait_fraction, Range::share);
}

void check_run(Checker& c, const RunEconomics& r) {
  c.figure("wall time of the run (s)", r.reliability.wall_time_s, Range::non_negative);
  c.figure("goodput", r.reliability.goodput, Range::share);
  c.figure("expected interruptions", r.reliability.expected_interruptions, Range::non_negative);
  c.figure("busy share", r.busy, Range::share);
  c.figure("node power (W)", r.power.node_W, Range::non_negative);
  c.figure("cluster power (W)", r.power.cluster_W, Range::non_negative);
  c.figure("energy (kWh)", r.power.energy_kWh, Range::non_negative);
  c.figure("capital cost (USD)", r.cost.capex_usd, Range::non_negative);
  c.figure("own cost (USD)", r.cost.own_usd, Range::non_negative);
  c.figure("cloud cost (USD)", r.cost.cloud_usd, Range::non_negative);
  c.figure("break-even utilisation", r.cost.breakeven_utilisation, Range::non_negative);
}

// Names the candidate's hardware option (none when its index is out of range).
void at_candidate(Checker& c, const PlanRequest& req, int hardware, const std::string& where) {
  const bool known = hardware >= 0 && static_cast<std::size_t>(hardware) < req.hardware.size();
  if (known) {
    const HardwareOption& h = req.hardware[static_cast<std::size_t>(hardware)];
    c.at(where, h.server.id, h.gpu.id, h.fabric ? h.fabric->id : std::string());
  } else {
    c.at(where, "", "", "");
  }
}

void check_candidate(Checker& c, const PlanRequest& req, const PlanCandidate& p,
                     const std::string& where) {
  at_candidate(c, req, p.hardware, where);
  check_memory(c, p.memory);
  check_step(c, p.step);
  check_run(c, p.run);
  c.figure("time to train (s)", p.time_to_train_s, Range::non_negative);
  c.figure("cost (USD)", p.cost_usd, Range::non_negative);
  c.figure("uncertainty band", p.band, Range::non_negative);
}

void check_serving(Checker& c, const ServingEstimate& e) {
  const ServingMemory& m = e.memory;
  c.figure("weight memory (bytes)", m.weights, Range::non_negative);
  c.figure("KV cache (bytes)", m.kv_cache, Range::non_negative);
  c.figure("activation memory (bytes)", m.activations, Range::non_negative);
  c.figure("memory overhead (bytes)", m.overhead, Range::non_negative);
  c.figure("memory per GPU (bytes)", m.total(), Range::non_negative);
  c.figure("KV pool (bytes)", m.kv_pool_bytes, Range::non_negative);
  c.figure("memory shortfall (bytes)", m.shortfall_bytes, Range::non_negative);
  c.figure("prefill time (s)", e.prefill_s, Range::non_negative);
  c.figure("decode step (s)", e.decode.step_s, Range::positive);
  c.figure("TTFT (s)", e.ttft_s, Range::positive);
  c.figure("TPOT (s)", e.tpot_s, Range::positive);
  c.figure("requests/s", e.requests_per_s, Range::non_negative);
  c.figure("output tokens/s", e.output_tokens_per_s, Range::non_negative);
  c.figure("capacity (requests/s)", e.capacity_requests_per_s, Range::non_negative);
}

void check_serving_candidate(Checker& c, const PlanRequest& req, const ServingCandidate& p,
                             const std::string& where) {
  at_candidate(c, req, p.hardware, where);
  check_serving(c, p.estimate);
  c.figure("cost per hour (USD)", p.usd_per_hour, Range::non_negative);
  c.figure("cost per million tokens (USD)", p.usd_per_mtok, Range::non_negative);
  c.figure("served requests/s", p.served_rps, Range::non_negative);
  c.figure("uncertainty band", p.band, Range::non_negative);
}

// The plans a search reports: recommended, single-node, multi-node, frontier.
template <typename Result, typename CheckCandidate>
std::optional<BadFigure> check_plans(const PlanRequest& req, const Result& p,
                                     CheckCandidate check) {
  Checker c;
  if (p.recommended) check(c, req, *p.recommended, "recommended plan");
  if (p.single_node_best) check(c, req, *p.single_node_best, "single-node plan");
  if (p.best_multi_node) check(c, req, *p.best_multi_node, "best multi-node plan");
  for (std::size_t i = 0; i < p.frontier.size() && !c.failed(); ++i) {
    check(c, req, p.frontier[i], fmt::format("frontier entry {}", i + 1));
  }
  return c.result();
}

}  // namespace

std::optional<BadFigure> check_estimate(const EstimateResult& r) {
  Checker c;
  c.at("estimate", r.server.id, r.gpu.id, r.fabric_id);
  check_memory(c, r.memory);
  check_step(c, r.step);
  if (r.run) check_run(c, *r.run);
  return c.result();
}

std::optional<BadFigure> check_serving_estimate(const ServingEstimateReport& r) {
  Checker c;
  c.at("estimate", r.server.id, r.gpu.id, r.fabric_id);
  check_serving(c, r.estimate);
  return c.result();
}

std::optional<BadFigure> check_plan(const PlanReport& r) {
  return check_plans(r.request, r.result, check_candidate);
}

std::optional<BadFigure> check_serving_plan(const ServingPlanReport& r) {
  return check_plans(r.request, r.result, check_serving_candidate);
}

std::optional<BadFigure> check_simulate(const SimulateReport& r) {
  Checker c;
  for (const sim::ClusterOutcome& o : r.result.clusters) {
    if (c.failed()) break;
    const sim::CandidateCluster& cl = o.cluster;
    c.at(fmt::format("cluster {} x {}", cl.nodes, cl.server.id), cl.server.id, cl.gpu.id,
         cl.fabric ? cl.fabric->id : std::string());
    for (const sim::Sizing& s : o.sizing) {
      if (s.fits) c.figure("job duration (s)", s.duration_s, Range::positive);
    }
    const sim::Metrics& m = o.metrics;
    c.figure("makespan (s)", m.makespan_s, Range::non_negative);
    c.figure("utilisation", m.utilisation, Range::share);
    c.figure("mean wait (s)", m.wait_mean_s, Range::non_negative);
    c.figure("p50 wait (s)", m.wait_p50_s, Range::non_negative);
    c.figure("p90 wait (s)", m.wait_p90_s, Range::non_negative);
    c.figure("p99 wait (s)", m.wait_p99_s, Range::non_negative);
    c.figure("longest wait (s)", m.wait_max_s, Range::non_negative);
    c.figure("mean turnaround (s)", m.turnaround_mean_s, Range::non_negative);
    c.figure("held GPU-hours", o.held_gpu_hours, Range::non_negative);
    c.figure("cost (USD)", o.cost_usd, Range::non_negative);
  }
  return c.result();
}

std::optional<BadFigure> check_validation(const ValidationReport& r) {
  Checker c;
  for (const RowResult& row : r.rows) {
    if (c.failed()) break;
    if (!row.predicted) continue;
    c.at(fmt::format("row '{}'", printable(row.id)), "", row.gpu_id, "");
    c.figure("measured value", row.measured, Range::positive);
    c.figure("predicted value", *row.predicted, Range::non_negative);
    if (row.error) c.figure("relative error", std::fabs(*row.error), Range::non_negative);
  }
  for (const auto& [name, s] : r.by_metric) {
    c.at(fmt::format("metric '{}'", name), "", "", "");
    c.figure("MAPE", s.mape, Range::non_negative);
  }
  return c.result();
}

std::optional<BadFigure> check_serving_validation(const ServingValidationReport& r) {
  Checker c;
  for (const ServingRowResult& row : r.rows) {
    if (c.failed()) break;
    c.at(fmt::format("row '{}'", printable(row.id)), "", "", "");
    c.figure("measured value", row.measured, Range::positive);
    c.figure("predicted value", row.predicted, Range::non_negative);
  }
  c.at("all rows", "", "", "");
  c.figure("MAPE", r.overall.mape, Range::non_negative);
  return c.result();
}

void refuse_bad_figure(const BadFigure& bad, const EntryFiles& files) {
  const std::string what = fmt::format("the {} of the {} is {} (expected {})", bad.figure,
                                       bad.where, bad.value, bad.range);
  // An entry of a --catalog file is the input that caused it.
  auto blame = [&](const std::map<std::string, std::string>& from, const std::string& id,
                   const char* kind) {
    if (id.empty()) return;
    const auto it = from.find(id);
    if (it == from.end()) return;
    throw InputError(it->second, 0, "", fmt::format("{} '{}': {}", kind, printable(id), what),
                     "check this entry's figures (rates, bandwidths, sizes, power)");
  };
  blame(files.gpus, bad.gpu_id, "GPU");
  blame(files.servers, bad.server_id, "server");
  blame(files.fabrics, bad.fabric_id, "fabric");
  std::string hardware;
  if (!bad.server_id.empty()) hardware += " server " + printable(bad.server_id);
  if (!bad.gpu_id.empty()) hardware += " GPU " + printable(bad.gpu_id);
  if (!bad.fabric_id.empty()) hardware += " fabric " + printable(bad.fabric_id);
  throw std::logic_error(what + (hardware.empty() ? "" : " on" + hardware) +
                         "; please report this");
}

std::string missing_flop_rate(const Gpu& gpu, Precision p) {
  const bool mfu_rate = gpu.peak_flops(p) > 0 || gpu.bf16_flops > 0 || gpu.fp16_flops > 0;
  if (compute_peak_flops(gpu, p) > 0 && mfu_rate) return {};
  return std::string("tflops.") + to_string(p);
}

InputError no_flop_rate_error(const Gpu& gpu, Precision p, const EntryFiles& files,
                              const std::string& workload_file, const std::string& key) {
  const std::string rate = missing_flop_rate(gpu, p);
  const std::string message =
      fmt::format("GPU '{}' has no FLOP rate for the workload's precision {} ({} is 0 or missing)",
                  printable(gpu.id), to_string(p), rate);
  const std::string hint = fmt::format(
      "add the GPU's dense {} rate to its catalog entry, e.g. tflops: {{{}: 989}}, or choose "
      "another GPU",
      to_string(p), to_string(p));
  const auto it = files.gpus.find(gpu.id);
  if (it != files.gpus.end()) return InputError(it->second, 0, rate, message, hint);
  return InputError(workload_file, 0, key, message, hint);
}

}  // namespace scaleout::report
