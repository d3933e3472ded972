// CSV writers (RFC 4180): one header line, then one record per row, fields
// separated by commas and records by CRLF; a field holding a comma, a double
// quote, CR or LF is enclosed in double quotes, its quotes doubled. Units are
// in the header names; numbers are written in full precision (shortest form
// that reads back to the same double).
#include <fmt/format.h>

#include "report/bom_report.hpp"
#include "report/parts.hpp"
#include "report/report.hpp"
#include "search/knee.hpp"

namespace scaleout::report {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string num(double v) { return fmt::format("{}", v); }
std::string num(long long v) { return fmt::format("{}", v); }
std::string num(int v) { return fmt::format("{}", v); }
std::string flag(bool b) { return b ? "true" : "false"; }

// The ZeRO shard group under hybrid sharding (layout shard_group); empty when
// state is sharded over all of dp, as plan.json leaves the key out.
std::string shard_group_field(const Layout& l) {
  return l.zero_replicas() > 1 ? num(l.zero_shard_dp()) : std::string();
}

void record(std::string& o, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) o += ',';
    o += field(fields[i]);
  }
  o += "\r\n";
}

}  // namespace

std::string csv_field(const std::string& s) { return field(s); }

std::string estimate_csv(const EstimateResult& r) {
  const Workload& w = r.workload;
  const Layout& l = w.layout;
  const StepEstimate& t = r.step;
  std::string o;
  std::vector<std::string> header = {"model",
                                     "task",
                                     "server",
                                     "gpu",
                                     "fabric",
                                     "nodes",
                                     "gpus",
                                     "tp",
                                     "pp",
                                     "dp",
                                     "cp",
                                     "ep",
                                     "etp",
                                     "micro_batch_sequences",
                                     "interleave",
                                     "zero",
                                     "shard_group",
                                     "pipeline_layout",
                                     "recompute",
                                     "memory_per_gpu_bytes",
                                     "capacity_per_gpu_bytes",
                                     "fits",
                                     "step_time_s",
                                     "tokens_per_s",
                                     "mfu_fraction",
                                     "hfu_fraction",
                                     "network_wait_fraction",
                                     "time_to_train_s"};
  for (const auto& part : kStepParts) header.push_back(std::string(part.key) + "_s");
  for (const char* h : {"wall_time_s", "goodput_fraction", "cluster_power_kw", "energy_kwh",
                        "own_cost_usd", "cloud_cost_usd"}) {
    header.push_back(h);
  }
  record(o, header);
  std::vector<std::string> f = {
      w.model.id,
      to_string(w.task),
      r.server.id,
      r.gpu.id,
      r.fabric_id,
      num(w.cluster.nodes),
      num(static_cast<long long>(w.cluster.nodes) * r.server.gpus_per_node),
      num(l.tp),
      num(l.pp),
      num(l.dp),
      num(l.cp),
      num(l.ep),
      num(l.expert_tp()),
      num(l.micro_batch),
      num(l.interleave),
      num(l.zero),
      shard_group_field(l),
      l.pipeline_layout,
      recompute_label(l),
      num(r.memory.total()),
      num(r.memory.capacity_bytes),
      flag(r.memory.fits),
      num(t.step_s),
      num(t.tokens_per_s),
      num(t.mfu),
      num(t.hfu),
      num(t.network_wait_fraction),
      t.time_to_train_s > 0 ? num(t.time_to_train_s) : std::string()};
  for (const auto& part : kStepParts) f.push_back(num(t.breakdown.*part.value));
  if (r.run) {
    const RunEconomics& e = *r.run;
    f.push_back(num(e.reliability.wall_time_s));
    f.push_back(num(e.reliability.goodput));
    f.push_back(num(e.power.cluster_W / 1e3));
    f.push_back(num(e.power.energy_kWh));
    f.push_back(e.cost.own_priced ? num(e.cost.own_usd) : std::string());
    f.push_back(e.cost.cloud_priced ? num(e.cost.cloud_usd) : std::string());
  } else {
    f.insert(f.end(), 6, std::string());
  }
  record(o, f);
  return o;
}

std::string plan_csv(const PlanReport& r) {
  const PlanResult& p = r.result;
  const std::vector<bool> knees = frontier_knees(p.frontier, kKneePremium, &r.request.hardware);
  std::string o;
  std::vector<std::string> header = {"server",
                                     "gpu",
                                     "fabric",
                                     "nodes",
                                     "gpus",
                                     "global_batch_sequences",
                                     "tp",
                                     "pp",
                                     "dp",
                                     "cp",
                                     "ep",
                                     "etp",
                                     "micro_batch_sequences",
                                     "interleave",
                                     "zero",
                                     "shard_group",
                                     "pipeline_layout",
                                     "recompute",
                                     "optimizer_offload",
                                     "memory_per_gpu_bytes",
                                     "capacity_per_gpu_bytes",
                                     "step_time_s",
                                     "mfu_fraction",
                                     "network_wait_fraction",
                                     "time_to_train_s",
                                     "time_to_train_band_fraction",
                                     "cost_usd",
                                     "meets_deadline",
                                     "within_budget",
                                     "knee",
                                     "recommended",
                                     "within_power",
                                     "meets_goodput",
                                     "goodput_fraction",
                                     "cluster_power_kw",
                                     "energy_kwh",
                                     "own_cost_usd",
                                     "cloud_cost_usd",
                                     "fp8_param_gather",
                                     "scaleup_domains",
                                     "domain_gpus",
                                     "validation",
                                     "needs_scaleout_fabric",
                                     "gpus_per_node",
                                     "server_gpus"};
  // Each point's bill of materials (cost/bom.hpp).
  for (const std::string& h : bom_csv_header()) header.push_back(h);
  record(o, header);
  for (std::size_t i = 0; i < p.frontier.size(); ++i) {
    const PlanCandidate& c = p.frontier[i];
    const HardwareOption& hw = r.request.hardware[static_cast<std::size_t>(c.hardware)];
    const Layout& l = c.layout;
    std::vector<std::string> fields = {
        hw.server.id,
        hw.gpu.id,
        hw.fabric && scaleup_domains(hw.server, c.nodes) > 1 ? hw.fabric->id : std::string(),
        num(c.nodes),
        num(c.gpus()),
        num(c.global_batch),
        num(l.tp),
        num(l.pp),
        num(l.dp),
        num(l.cp),
        num(l.ep),
        num(l.expert_tp()),
        num(l.micro_batch),
        num(l.interleave),
        num(l.zero),
        shard_group_field(l),
        l.pipeline_layout,
        recompute_label(l),
        flag(l.offload_optimizer),
        num(c.memory.total()),
        num(c.memory.capacity_bytes),
        num(c.step.step_s),
        num(c.step.mfu),
        num(c.step.network_wait_fraction),
        num(c.time_to_train_s),
        num(c.band),
        c.cost_usd > 0 ? num(c.cost_usd) : std::string(),
        flag(c.meets_deadline),
        flag(c.within_budget),
        flag(knees[i]),
        flag(is_recommended(p, c)),
        flag(c.within_power),
        flag(c.meets_goodput),
        num(c.run.reliability.goodput),
        num(c.run.power.cluster_W / 1e3),
        num(c.run.power.energy_kWh),
        c.run.cost.own_priced ? num(c.run.cost.own_usd) : std::string(),
        c.run.cost.cloud_priced ? num(c.run.cost.cloud_usd) : std::string(),
        flag(l.fp8_param_gather),
        num(scaleup_domains(hw.server, c.nodes)),
        num(domain_gpus(hw.server)),
        validation_status(hw.gpu),
        flag(scaleup_domains(hw.server, c.nodes) > 1),
        num(hw.server.gpus_per_node),
        num(server_gpus(hw.server))};
    for (const std::string& f : bom_csv_fields(plan_bom(r, c))) fields.push_back(f);
    record(o, fields);
  }
  return o;
}

std::string serving_plan_csv(const ServingPlanReport& r) {
  const ServingPlanResult& p = r.result;
  std::string o;
  std::vector<std::string> header = {"server",
                                     "gpu",
                                     "fabric",
                                     "nodes",
                                     "gpus",
                                     "replicas",
                                     "replica_nodes",
                                     "needs_scaleout_fabric",
                                     "tp",
                                     "pp",
                                     "ep",
                                     "batch_sequences",
                                     "memory_per_gpu_bytes",
                                     "capacity_per_gpu_bytes",
                                     "ttft_s",
                                     "tpot_s",
                                     "requests_per_s_per_replica",
                                     "served_requests_per_s",
                                     "band_fraction",
                                     "usd_per_hour",
                                     "usd_per_million_output_tokens",
                                     "recommended"};
  for (const std::string& h : bom_csv_header()) header.push_back(h);
  record(o, header);
  for (const ServingCandidate& c : p.frontier) {
    const HardwareOption& hw = r.request.hardware[static_cast<std::size_t>(c.hardware)];
    const bool rec =
        p.recommended && p.recommended->hardware == c.hardware && p.recommended->nodes == c.nodes;
    std::vector<std::string> fields = {
        hw.server.id,
        hw.gpu.id,
        hw.fabric && needs_scaleout_fabric(c, hw.server) ? hw.fabric->id : std::string(),
        num(c.nodes),
        num(c.gpus()),
        num(c.replicas),
        num(replica_nodes(c, hw.server)),
        flag(needs_scaleout_fabric(c, hw.server)),
        num(c.layout.tp),
        num(c.layout.pp),
        num(c.layout.ep),
        num(c.estimate.batch),
        num(c.estimate.memory.total()),
        num(c.estimate.memory.capacity_bytes),
        num(c.estimate.ttft_s),
        num(c.estimate.tpot_s),
        num(c.estimate.requests_per_s),
        num(c.served_rps),
        num(c.band),
        c.usd_per_hour > 0 ? num(c.usd_per_hour) : std::string(),
        c.usd_per_mtok > 0 ? num(c.usd_per_mtok) : std::string(),
        flag(rec)};
    for (const std::string& f : bom_csv_fields(serving_bom(r, c))) fields.push_back(f);
    record(o, fields);
  }
  return o;
}

std::string validate_csv(const ValidationReport& r) {
  std::string o;
  record(o, {"id",
             "group",
             "metric",
             "gpu",
             "measured",
             "predicted",
             "predicted_low",
             "predicted_high",
             "error_fraction",
             "fits",
             "peak_memory_bytes",
             "capacity_bytes",
             "step_time_s",
             "network_wait_fraction",
             "compute_s",
             "tp_comm_s",
             "cp_comm_s",
             "ep_comm_s",
             "pp_comm_s",
             "dp_comm_s",
             "bubble_s",
             "optimizer_s",
             "filled",
             "not_predicted"});
  auto opt = [](const std::optional<double>& v) { return v ? num(*v) : std::string(); };
  for (const RowResult& x : r.rows) {
    const bool timed = x.step_s > 0;
    auto part = [&](double v) { return timed ? num(v) : std::string(); };
    const StepBreakdown& b = x.breakdown;
    record(o, {x.id,
               x.group,
               x.metric,
               x.gpu_id,
               num(x.measured),
               opt(x.predicted),
               opt(x.predicted_low),
               opt(x.predicted_high),
               opt(x.error),
               x.memory_evaluated ? flag(x.fits) : std::string(),
               x.memory_evaluated ? num(x.peak_bytes) : std::string(),
               x.memory_evaluated ? num(x.capacity_bytes) : std::string(),
               part(x.step_s),
               part(x.network_wait_fraction),
               part(b.compute),
               part(b.tp_comm),
               part(b.cp_comm),
               part(b.ep_comm),
               part(b.pp_comm),
               part(b.dp_comm),
               part(b.bubble),
               part(b.optimizer),
               x.filled,
               x.skipped});
  }
  return o;
}

}  // namespace scaleout::report
