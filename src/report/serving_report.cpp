#include "report/serving_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "report/json_parts.hpp"
#include "report/parts.hpp"
#include "report/reasons.hpp"
#include "report/schema.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

namespace {

// Dollars to the cent with a unit: "$98.40/hour"; "unpriced" for 0.
std::string usd(double v, const char* unit) {
  if (v <= 0) return "unpriced";
  return fmt::format("${:.2f}{}", v, unit);
}

std::string request_line(const Workload& w) {
  const InferenceSpec& in = w.inference;
  std::string s =
      fmt::format("{} prompt + {} output tokens, weights {}, KV cache {}", in.prompt_tokens,
                  in.output_tokens, to_string(in.weights), to_string(in.kv_cache));
  if (in.request_rate > 0) s += fmt::format(", {:g} requests/s", in.request_rate);
  if (in.ttft_s > 0) s += fmt::format(", TTFT <= {:g} ms", in.ttft_s * 1e3);
  if (in.tpot_s > 0) s += fmt::format(", TPOT <= {:g} ms", in.tpot_s * 1e3);
  return s;
}

ordered_json memory_json(const ServingMemory& m) {
  return {{"weights_bytes", m.weights},
          {"kv_cache_bytes", m.kv_cache},
          {"activations_bytes", m.activations},
          {"overhead_bytes", m.overhead},
          {"total_bytes", m.total()},
          {"capacity_bytes", m.capacity_bytes},
          {"usable_bytes", m.usable_bytes},
          {"kv_pool_bytes", m.kv_pool_bytes},
          {"shortfall_bytes", m.shortfall_bytes},
          {"kv_bytes_per_token", m.kv_bytes_per_token},
          {"max_sequences", m.max_sequences},
          {"fits", m.fits}};
}

ordered_json serving_json(const ServingEstimate& e) {
  const DecodeStep& d = e.decode;
  return {{"batch", e.batch},
          {"prefill_s", e.prefill_s},
          {"ttft_s", e.ttft_s},
          {"queue_s", e.queue_s},
          {"tpot_s", e.tpot_s},
          {"decode_step_s", d.step_s},
          {"decode_breakdown_s",
           {{"gemm", d.gemm_s},
            {"attention", d.attention_s},
            {"tp_comm", d.tp_comm_s},
            {"pp_comm", d.pp_comm_s},
            {"overhead", d.overhead_s}}},
          {"decode_hbm_bytes", d.hbm_bytes},
          {"decode_flops", d.flops},
          {"requests_per_s", e.requests_per_s},
          {"capacity_requests_per_s", e.capacity_requests_per_s},
          {"output_tokens_per_s", e.output_tokens_per_s},
          {"replicas", e.replicas},
          {"meets_ttft", e.meets_ttft},
          {"meets_tpot", e.meets_tpot}};
}

void estimate_lines(std::string& o, const ServingEstimate& e, const char* indent) {
  const ServingMemory& m = e.memory;
  o += fmt::format(
      "{}memory     {} of {} per GPU: weights {}, KV cache {} ({} sequences), "
      "activations {}, overhead {}\n",
      indent, gib(m.total()), gib(m.capacity_bytes), gib(m.weights), gib(m.kv_cache), e.batch,
      gib(m.activations), gib(m.overhead));
  o += fmt::format(
      "{}KV pool    {} ({:.0f} % of memory usable), {:.0f} KiB per token per GPU, "
      "up to {} full-length sequences\n",
      indent, gib(m.kv_pool_bytes), 100.0 * m.usable_bytes / m.capacity_bytes,
      m.kv_bytes_per_token / 1024.0, m.max_sequences);
  o += fmt::format(
      "{}latency    TTFT {} (prefill {}, queue {}), TPOT {} (decode step {}) at {} concurrent "
      "sequences\n",
      indent, ms(e.ttft_s), ms(e.prefill_s), ms(e.queue_s), ms(e.tpot_s), ms(e.decode.step_s),
      e.batch);
  o += fmt::format("{}throughput {:.0f} output tokens/s, {:.2f} requests/s per replica\n", indent,
                   e.output_tokens_per_s, e.requests_per_s);
}

void plan_block(std::string& o, const ServingPlanReport& r, const ServingCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  o += fmt::format("  hardware   {} x {} ({} x {}, {} GPUs used), {}\n", c.nodes, hw.server.id,
                   hw.server.gpus_per_node, hw.gpu.id, c.gpus(), fabric_name(hw));
  o += fmt::format("  replicas   {} x (tp {} pp {}{}), {} GPUs each\n", c.replicas, c.layout.tp,
                   c.layout.pp, c.layout.ep > 1 ? fmt::format(" ep {}", c.layout.ep) : "",
                   c.gpus_per_replica());
  estimate_lines(o, c.estimate, "  ");
  o += fmt::format("  serves     {:.2f} requests/s (+/- {}), {}, {}\n", c.served_rps,
                   percent(c.band, 0), usd(c.usd_per_hour, "/hour"),
                   usd(c.usd_per_mtok, " per million output tokens"));
}

ordered_json candidate_json(const ServingPlanReport& r, const ServingCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  return {
      {"server", hw.server.id},
      {"gpu", hw.gpu.id},
      {"nodes", c.nodes},
      {"gpus", c.gpus()},
      {"fabric", hw.fabric ? ordered_json(hw.fabric->id) : ordered_json(nullptr)},
      {"replicas", c.replicas},
      {"layout", {{"tp", c.layout.tp}, {"pp", c.layout.pp}, {"ep", c.layout.ep}}},
      {"memory", memory_json(c.estimate.memory)},
      {"serving", serving_json(c.estimate)},
      {"served_requests_per_s", c.served_rps},
      {"band", c.band},
      {"usd_per_hour", c.usd_per_hour > 0 ? ordered_json(c.usd_per_hour) : ordered_json(nullptr)},
      {"usd_per_million_output_tokens",
       c.usd_per_mtok > 0 ? ordered_json(c.usd_per_mtok) : ordered_json(nullptr)}};
}

}  // namespace

std::string serving_estimate_text(const ServingEstimateReport& r) {
  const Workload& w = r.workload;
  const ServingEstimate& e = r.estimate;
  std::string o;
  o += fmt::format("Workload   {} ({:.1f} B parameters), inference: {}\n", w.model.id,
                   r.params.total() / 1e9, request_line(w));
  o += fmt::format("Cluster    {} x {} ({} x {}){}\n", w.cluster.nodes, r.server.id,
                   r.server.gpus_per_node, r.gpu.id,
                   r.fabric_id.empty() ? std::string() : ", fabric " + r.fabric_id);
  o += fmt::format(
      "Replica    tp {} pp {}{} ({} GPUs); the cluster holds {} replica{}\n", w.layout.tp,
      w.layout.pp, w.layout.ep > 1 ? fmt::format(" ep {}", w.layout.ep) : std::string(),
      w.layout.tp * w.layout.pp, r.cluster_replicas, r.cluster_replicas == 1 ? "" : "s");
  o += "\n";
  if (!e.memory.fits) {
    const ServingMemory& m = e.memory;
    const long long seq = w.inference.prompt_tokens + w.inference.output_tokens;
    const std::string room =
        m.shortfall_bytes > 0
            ? fmt::format("exceed the {} usable by {}, leaving nothing for the KV cache",
                          gib(m.usable_bytes), gib(m.shortfall_bytes))
            : fmt::format("leave {} of the {} usable for the KV cache", gib(m.kv_pool_bytes),
                          gib(m.usable_bytes));
    o += fmt::format(
        "Does not fit: weights {}, activations {} and overhead {} {}; one {}-token sequence "
        "needs {}.\n",
        gib(m.weights), gib(m.activations), gib(m.overhead), room, seq,
        gib(m.kv_bytes_per_token * static_cast<double>(seq)));
    return o;
  }
  estimate_lines(o, e, "");
  const DecodeStep& d = e.decode;
  o += fmt::format(
      "decode     {:.1f} GB read per GPU per step; gemm {}, attention {}, TP {}, PP {}\n",
      d.hbm_bytes / 1e9, ms(d.gemm_s), ms(d.attention_s), ms(d.tp_comm_s), ms(d.pp_comm_s));
  if (w.inference.request_rate > 0) {
    o += fmt::format("replicas   {} needed for {:g} requests/s ({} GPUs); the cluster has {}\n",
                     e.replicas, w.inference.request_rate, e.replicas * w.layout.tp * w.layout.pp,
                     r.cluster_replicas);
  }
  if (!e.meets_ttft) o += "misses     the TTFT objective\n";
  if (!e.meets_tpot) o += "misses     the TPOT objective\n";
  return o;
}

std::string serving_estimate_json(const ServingEstimateReport& r) {
  const Workload& w = r.workload;
  const InferenceSpec& in = w.inference;
  ordered_json j;
  j["workload"] = {{"model", w.model.id},
                   {"task", to_string(w.task)},
                   {"params", r.params.total()},
                   {"prompt_tokens", in.prompt_tokens},
                   {"output_tokens", in.output_tokens},
                   {"weights", to_string(in.weights)},
                   {"kv_cache", to_string(in.kv_cache)},
                   {"request_rate", in.request_rate},
                   {"ttft_s", in.ttft_s > 0 ? ordered_json(in.ttft_s) : ordered_json(nullptr)},
                   {"tpot_s", in.tpot_s > 0 ? ordered_json(in.tpot_s) : ordered_json(nullptr)}};
  j["cluster"] = {
      {"server", r.server.id},
      {"gpu", r.gpu.id},
      {"nodes", w.cluster.nodes},
      {"fabric", r.fabric_id.empty() ? ordered_json(nullptr) : ordered_json(r.fabric_id)},
      {"replicas", r.cluster_replicas}};
  j["layout"] = {{"tp", w.layout.tp}, {"pp", w.layout.pp}, {"ep", w.layout.ep}};
  j["memory"] = memory_json(r.estimate.memory);
  // Nothing to time when not even one sequence fits.
  j["serving"] = r.estimate.memory.fits ? serving_json(r.estimate) : ordered_json(nullptr);
  return versioned(j).dump(2) + "\n";
}

std::string serving_plan_text(const ServingPlanReport& r) {
  const ServingPlanResult& p = r.result;
  std::string o;
  o += fmt::format("Serving {}: {}\n", r.request.workload.model.id,
                   request_line(r.request.workload));
  o += fmt::format("Verdict: {}\n", to_string(p.verdict));
  for (const ServingReason& reason : p.reasons) o += "  " + sentence(reason) + "\n";
  o += "\n";
  best_plans_text(o, r, plan_block, "Closest plan (misses the objectives)\n",
                  "Best single-node plan\n");
  if (!p.single_node_best) {
    o += fmt::format("Single node: none ({})\n\n", clause(p.single_node_reason));
  }
  o += "Frontier: best plan per server and node count\n";
  o += fmt::format("  {:<26} {:>6} {:>6} {:>9} {:>10} {:>10} {:>11}\n", "server", "nodes", "GPUs",
                   "replicas", "TTFT", "TPOT", "$/hour");
  for (const ServingCandidate& c : p.frontier) {
    o += fmt::format("  {:<26} {:>6} {:>6} {:>9} {:>10} {:>10} {:>11}\n",
                     r.request.hardware[c.hardware].server.id, c.nodes, c.gpus(), c.replicas,
                     ms(c.estimate.ttft_s), ms(c.estimate.tpot_s),
                     c.usd_per_hour > 0 ? fmt::format("{:.2f}", c.usd_per_hour) : "unpriced");
  }
  o += "\n";
  o += search_text(p.stats, r.seconds);
  return o;
}

std::string serving_plan_json(const ServingPlanReport& r) {
  const ServingPlanResult& p = r.result;
  // Serving plans price cloud GPU-hours only.
  ordered_json j = plan_head_json(p, r.request.objective, "cloud");
  add_best_plans_json(j, r, candidate_json);
  j["min_nodes_deadline"] = nullptr;
  ordered_json frontier = ordered_json::array();
  for (const ServingCandidate& c : p.frontier) {
    frontier.push_back({{"server", r.request.hardware[c.hardware].server.id},
                        {"nodes", c.nodes},
                        {"gpus", c.gpus()},
                        {"replicas", c.replicas},
                        {"ttft_s", c.estimate.ttft_s},
                        {"tpot_s", c.estimate.tpot_s},
                        {"usd_per_hour",
                         c.usd_per_hour > 0 ? ordered_json(c.usd_per_hour) : ordered_json(nullptr)},
                        {"feasible", true}});
  }
  j["frontier"] = frontier;
  j["search"] = search_json(p.stats, r.seconds);
  return versioned(j).dump(2) + "\n";
}

namespace {

ordered_json score_json(const ServingScore& s) {
  return {{"rows", s.rows}, {"mape", s.mape}, {"bias", s.bias}};
}

std::string unit_value(const std::string& metric, double v) {
  if (metric == "output_tokens_per_s") return fmt::format("{:.0f} tok/s", v);
  return ms(v);
}

}  // namespace

std::string serving_validate_text(const ServingValidationReport& r) {
  std::string o;
  o += fmt::format("{:<44} {:<20} {:>5} {:>14} {:>14} {:>8}\n", "row", "metric", "batch",
                   "measured", "predicted", "error");
  for (const ServingRowResult& x : r.rows) {
    o += fmt::format("{:<44} {:<20} {:>5} {:>14} {:>14} {:>+7.1f}%\n", x.id, x.metric, x.batch,
                     unit_value(x.metric, x.measured), unit_value(x.metric, x.predicted),
                     100 * x.error());
  }
  o += "\n";
  o += fmt::format("All rows: {} rows, MAPE {:.1f} %, bias {:+.1f} %\n", r.overall.rows,
                   100 * r.overall.mape, 100 * r.overall.bias);
  if (r.overall.rows > 0) {
    o += fmt::format("80 % interval coverage: {} of {} rows inside ({:.0f} %)\n", r.covered,
                     r.overall.rows, 100.0 * r.covered / r.overall.rows);
  }
  for (const auto& [by, scores] :
       {std::pair{"metric", &r.by_metric}, std::pair{"source", &r.by_source}}) {
    for (const auto& [name, s] : *scores) {
      o += fmt::format("  {} {:<26} {:>3} rows, MAPE {:5.1f} %, bias {:+.1f} %\n", by, name, s.rows,
                       100 * s.mape, 100 * s.bias);
    }
  }
  return o;
}

std::string serving_validate_json(const ServingValidationReport& r) {
  ordered_json j;
  ordered_json by_metric = ordered_json::object(), by_group = ordered_json::object();
  for (const auto& [k, s] : r.by_metric) by_metric[k] = score_json(s);
  for (const auto& [k, s] : r.by_source) by_group[k] = score_json(s);
  j["summary"] = {{"rows", r.overall.rows}, {"mape", r.overall.mape}, {"bias", r.overall.bias},
                  {"by_metric", by_metric}, {"by_group", by_group},   {"false_oom", 0}};
  j["summary"]["interval_coverage"] = {
      {"rows", r.overall.rows},
      {"inside", r.covered},
      {"share", r.overall.rows ? ordered_json(static_cast<double>(r.covered) / r.overall.rows)
                               : ordered_json(nullptr)}};
  ordered_json rows = ordered_json::array();
  for (const ServingRowResult& x : r.rows) {
    rows.push_back({{"id", x.id},
                    {"source", x.source},
                    {"metric", x.metric},
                    {"batch", x.batch},
                    {"measured", x.measured},
                    {"predicted", x.predicted},
                    {"error", x.error()},
                    {"predicted_low", x.predicted_low},
                    {"predicted_high", x.predicted_high},
                    {"regime", x.regime},
                    {"interval_regime", x.interval.regime},
                    {"interval_rows", x.interval.rows}});
  }
  j["rows"] = rows;
  return versioned(j).dump(2) + "\n";
}

}  // namespace scaleout::report
