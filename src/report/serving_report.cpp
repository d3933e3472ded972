#include "report/serving_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "report/bom_report.hpp"
#include "report/html_page.hpp"
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
  const std::string rest = std::string(indent) + std::string(11, ' ');
  o += wrap(fmt::format("{} of {} per GPU: weights {}, KV cache {} ({} sequences), "
                        "activations {}, overhead {}",
                        gib(m.total()), gib(m.capacity_bytes), gib(m.weights), gib(m.kv_cache),
                        e.batch, gib(m.activations), gib(m.overhead)),
            std::string(indent) + "memory     ", rest, ", ");
  o += wrap(fmt::format("{} ({:.0f} % of memory usable), {:.0f} KiB per token per GPU, "
                        "up to {} full-length sequences",
                        gib(m.kv_pool_bytes), 100.0 * m.usable_bytes / m.capacity_bytes,
                        m.kv_bytes_per_token / 1024.0, m.max_sequences),
            std::string(indent) + "KV pool    ", rest, ", ");
  o += wrap(fmt::format("TTFT {} (prefill {}, queue {}), TPOT {} (decode step {}) at {} "
                        "concurrent sequences",
                        ms(e.ttft_s), ms(e.prefill_s), ms(e.queue_s), ms(e.tpot_s),
                        ms(e.decode.step_s), e.batch),
            std::string(indent) + "latency    ", rest, ", ");
  o += wrap(fmt::format("{:.0f} output tokens/s, {:.2f} requests/s per replica",
                        e.output_tokens_per_s, e.requests_per_s),
            std::string(indent) + "throughput ", rest, ", ");
}

// What connects the nodes of a serving plan: nothing for one node; nothing
// between independent one-node replicas; the fabric where a replica spans nodes.
std::string network_words(const HardwareOption& hw, const ServingCandidate& c) {
  if (c.nodes == 1) return "one node; no inter-node fabric needed";
  if (!needs_scaleout_fabric(c, hw.server)) {
    if (replica_nodes(c, hw.server) == 1) {
      return fmt::format("{} nodes of independent one-node replicas; no inter-node fabric needed",
                         c.nodes);
    }
    return fmt::format("each replica spans {} nodes of one NVLink domain; no scale-out fabric",
                       replica_nodes(c, hw.server));
  }
  return fmt::format("each replica spans {} nodes over {}", replica_nodes(c, hw.server),
                     fabric_name(hw));
}

void plan_block(std::string& o, const ServingPlanReport& r, const ServingCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  o += fmt::format("  hardware   {} x {} ({} x {}, {} GPUs used)\n", c.nodes, hw.server.id,
                   hw.server.gpus_per_node, hw.gpu.id, c.gpus());
  o += wrap(network_words(hw, c), "  network    ", std::string(13, ' '), "; ");
  if (const std::string cap = nic_cap_words(hw); !cap.empty()) {
    o += wrap(cap, "  warning    ", std::string(13, ' '));
  }
  o += fmt::format("  replicas   {} x (tp {} pp {}{}), {} GPUs each\n", c.replicas, c.layout.tp,
                   c.layout.pp, c.layout.ep > 1 ? fmt::format(" ep {}", c.layout.ep) : "",
                   c.gpus_per_replica());
  estimate_lines(o, c.estimate, "  ");
  o += wrap(fmt::format("{:.2f} requests/s (80 %: {:.2f} - {:.2f}{}), {}, {}", c.served_rps,
                        c.served_rps / c.interval.high, c.served_rps / c.interval.low,
                        c.interval.validated ? "" : ", unvalidated", usd(c.usd_per_hour, "/hour"),
                        usd(c.usd_per_mtok, " per million output tokens")),
            "  serves     ", std::string(13, ' '), ", ");
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
      {"replica_nodes", replica_nodes(c, hw.server)},
      {"needs_scaleout_fabric", needs_scaleout_fabric(c, hw.server)},
      {"scaleup_domains", scaleup_domains(hw.server, c.nodes)},
      {"domain_gpus", domain_gpus(hw.server)},
      {"layout", {{"tp", c.layout.tp}, {"pp", c.layout.pp}, {"ep", c.layout.ep}}},
      {"memory", memory_json(c.estimate.memory)},
      {"serving", serving_json(c.estimate)},
      {"served_requests_per_s", c.served_rps},
      {"band", c.band},
      {"served_requests_per_s_low", c.served_rps / c.interval.high},
      {"served_requests_per_s_high", c.served_rps / c.interval.low},
      {"interval", interval_json(c.interval)},
      {"usd_per_hour", c.usd_per_hour > 0 ? ordered_json(c.usd_per_hour) : ordered_json(nullptr)},
      {"usd_per_million_output_tokens",
       c.usd_per_mtok > 0 ? ordered_json(c.usd_per_mtok) : ordered_json(nullptr)}};
}

}  // namespace

std::string serving_estimate_text(const ServingEstimateReport& r) {
  const Workload& w = r.workload;
  const ServingEstimate& e = r.estimate;
  std::string o;
  o += wrap(fmt::format("{} ({:.1f} B parameters), inference: {}", w.model.id,
                        r.params.total() / 1e9, request_line(w)),
            "Workload   ", std::string(11, ' '), ", ");
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
  o += wrap(fmt::format("{:.1f} GB read per GPU per step; gemm {}, attention {}, TP {}, PP {}",
                        d.hbm_bytes / 1e9, ms(d.gemm_s), ms(d.attention_s), ms(d.tp_comm_s),
                        ms(d.pp_comm_s)),
            "decode     ", std::string(11, ' '), ", ");
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
  return dump_json(versioned(j));
}

std::string serving_plan_text(const ServingPlanReport& r) {
  const ServingPlanResult& p = r.result;
  std::string o;
  o += wrap(
      fmt::format("Serving {}: {}", r.request.workload.model.id, request_line(r.request.workload)),
      "", "  ", ", ");
  o += fmt::format("Verdict: {}\n", to_string(p.verdict));
  for (const ServingReason& reason : p.reasons) o += wrap(sentence(reason), "  ", "    ");
  o += "\n";
  best_plans_text(o, r, plan_block, "Closest plan (misses the objectives)\n",
                  "Best single-node plan\n");
  if (!p.single_node_best) {
    o += wrap(fmt::format("Single node: none ({})", clause(p.single_node_reason)), "", "  ") + "\n";
  }
  if (p.recommended) {
    o += p.verdict == Verdict::infeasible ? "What to buy (closest plan)\n"
                                          : "What to buy (recommended plan)\n";
    o += bom_text(serving_bom(r, *p.recommended)) + "\n";
  }
  // The fabric column only when the search compared fabrics.
  const bool fabrics = several_fabrics(r.request.hardware);
  o += "Frontier: best plan per server and node count\n";
  const std::string head = fmt::format("  {:<24} {:>5} {:>5} {:>8} {:>9} {:>9} {:>9}", "server",
                                       "nodes", "GPUs", "replicas", "TTFT", "TPOT", "$/hour");
  o += head + (fabrics ? "  fabric" : "") + "\n";
  for (const ServingCandidate& c : p.frontier) {
    const HardwareOption& hw = r.request.hardware[c.hardware];
    o += fmt::format("  {:<24} {:>5} {:>5} {:>8} {:>9} {:>9} {:>9}", hw.server.id, c.nodes,
                     c.gpus(), c.replicas, ms(c.estimate.ttft_s), ms(c.estimate.tpot_s),
                     c.usd_per_hour > 0 ? fmt::format("{:.2f}", c.usd_per_hour) : "unpriced");
    // "-": no scale-out network (one node, or replicas that each fit one).
    const std::string fabric = !needs_scaleout_fabric(c, hw.server) ? "-"
                               : hw.fabric                          ? hw.fabric->id
                                                                    : "NICs";
    o += (fabrics ? "  " + fabric : std::string()) + "\n";
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
  j["bill_of_materials"] =
      p.recommended ? bom_json(serving_bom(r, *p.recommended)) : ordered_json(nullptr);
  j["min_nodes_deadline"] = nullptr;
  ordered_json frontier = ordered_json::array();
  for (const ServingCandidate& c : p.frontier) {
    frontier.push_back(
        {{"server", r.request.hardware[c.hardware].server.id},
         {"nodes", c.nodes},
         {"gpus", c.gpus()},
         {"replicas", c.replicas},
         {"replica_nodes", replica_nodes(c, r.request.hardware[c.hardware].server)},
         {"needs_scaleout_fabric", needs_scaleout_fabric(c, r.request.hardware[c.hardware].server)},
         {"ttft_s", c.estimate.ttft_s},
         {"tpot_s", c.estimate.tpot_s},
         {"usd_per_hour",
          c.usd_per_hour > 0 ? ordered_json(c.usd_per_hour) : ordered_json(nullptr)},
         {"feasible", true}});
  }
  j["frontier"] = frontier;
  j["search"] = search_json(p.stats, r.seconds);
  return dump_json(versioned(j));
}

std::string serving_plan_html(const ServingPlanReport& r) {
  const ServingPlanResult& p = r.result;
  const std::string verdict = to_string(p.verdict);
  std::string body;
  std::vector<ChartBar> cost_bars, latency_bars;
  std::vector<std::vector<std::string>> rows;
  for (const ServingCandidate& c : p.frontier) {
    const HardwareOption& hw = r.request.hardware[c.hardware];
    const std::string name = fmt::format("{} x {}", c.nodes, hw.server.id);
    cost_bars.push_back({name, c.usd_per_hour,
                         c.usd_per_hour > 0 ? money_cents(c.usd_per_hour) + "/h" : "unpriced"});
    latency_bars.push_back({name, c.estimate.tpot_s * 1e3, ms(c.estimate.tpot_s)});
    rows.push_back({hw.server.id, std::to_string(c.nodes), std::to_string(c.gpus()),
                    std::to_string(c.replicas), std::to_string(replica_nodes(c, hw.server)),
                    needs_scaleout_fabric(c, hw.server) ? "yes" : "no", ms(c.estimate.ttft_s),
                    ms(c.estimate.tpot_s),
                    c.usd_per_hour > 0 ? money_cents(c.usd_per_hour) : "unpriced"});
  }
  if (p.recommended) {
    std::string plan;
    plan_block(plan, r, *p.recommended);
    body +=
        html_section("plan", p.verdict == Verdict::infeasible ? "Closest plan" : "Recommended plan",
                     "<table>\n" + key_value_rows(plan) + "</table>\n");
    body += html_section(
        "bom", "What to buy",
        "<table class=\"bom\">\n" + bom_html_rows(serving_bom(r, *p.recommended)) + "</table>\n");
  }
  body += html_section("cost", "Cost per hour of each frontier point",
                       bar_chart("chart-cost", "Cost per hour", cost_bars,
                                 "USD per hour (cloud GPU-hours of whole nodes)"));
  body += html_section("latency", "Time per output token of each frontier point",
                       bar_chart("chart-latency", "TPOT", latency_bars, "ms per output token"));
  body += html_section("frontier-table", "Frontier",
                       html_table({"server", "nodes", "GPUs", "replicas", "replica nodes",
                                   "scale-out fabric", "TTFT", "TPOT", "$/hour"},
                                  rows));
  body += html_section("search", "Search",
                       "<pre>" + html_escape(search_text(p.stats, r.seconds)) + "</pre>\n");
  std::vector<std::string> reasons = sentences(p.reasons);
  reasons.insert(reasons.begin(), fmt::format("Serving {}: {}", r.request.workload.model.id,
                                              request_line(r.request.workload)));
  return html_page(
      fmt::format("scaleout plan: {} serving ({})", r.request.workload.model.name, verdict),
      verdict, "Verdict: " + verdict, reasons, body);
}

std::string serving_estimate_csv(const ServingEstimateReport& r) {
  const ServingEstimate& e = r.estimate;
  const ServingMemory& m = e.memory;
  const bool fits = m.fits;
  auto timed = [&](double v) { return fits ? fmt::format("{}", v) : std::string(); };
  std::string o =
      "model,server,gpu,fabric,nodes,tp,pp,ep,cluster_replicas,fits,memory_per_gpu_bytes,"
      "capacity_per_gpu_bytes,weights_bytes,kv_cache_bytes,kv_pool_bytes,max_sequences,"
      "batch_sequences,ttft_s,tpot_s,prefill_s,decode_step_s,requests_per_s_per_replica,"
      "output_tokens_per_s_per_replica,replicas_needed,meets_ttft,meets_tpot\r\n";
  const Workload& w = r.workload;
  o += fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n",
      csv_field(w.model.id), csv_field(r.server.id), csv_field(r.gpu.id), csv_field(r.fabric_id),
      w.cluster.nodes, w.layout.tp, w.layout.pp, w.layout.ep, r.cluster_replicas,
      fits ? "true" : "false", m.total(), m.capacity_bytes, m.weights, m.kv_cache, m.kv_pool_bytes,
      m.max_sequences, fits ? std::to_string(e.batch) : "", timed(e.ttft_s), timed(e.tpot_s),
      timed(e.prefill_s), timed(e.decode.step_s), timed(e.requests_per_s),
      timed(e.output_tokens_per_s), fits ? std::to_string(e.replicas) : "",
      fits ? (e.meets_ttft ? "true" : "false") : "", fits ? (e.meets_tpot ? "true" : "false") : "");
  return o;
}

std::string serving_estimate_html(const ServingEstimateReport& r) {
  const ServingEstimate& e = r.estimate;
  const ServingMemory& m = e.memory;
  const std::string text = serving_estimate_text(r);
  // The head lines (workload, cluster, replica) are the reasons; the rest a table.
  const std::size_t blank = text.find("\n\n");
  const std::string head = text.substr(0, blank);
  const std::string rest = blank == std::string::npos ? "" : text.substr(blank + 2);
  std::vector<std::string> lines;
  std::string body;
  body += html_section("memory", "Memory per GPU",
                       bar_chart("chart-memory", "Memory per GPU",
                                 {{"weights", m.weights, gib(m.weights)},
                                  {"KV cache", m.kv_cache, gib(m.kv_cache)},
                                  {"activations", m.activations, gib(m.activations)},
                                  {"overhead", m.overhead, gib(m.overhead)},
                                  {"total", m.total(), gib(m.total())},
                                  {"capacity", m.capacity_bytes, gib(m.capacity_bytes)}},
                                 "bytes per GPU"));
  if (m.fits) {
    body += html_section("latency", "Latency",
                         bar_chart("chart-latency", "Latency",
                                   {{"TTFT", e.ttft_s * 1e3, ms(e.ttft_s)},
                                    {"prefill", e.prefill_s * 1e3, ms(e.prefill_s)},
                                    {"queue", e.queue_s * 1e3, ms(e.queue_s)},
                                    {"TPOT", e.tpot_s * 1e3, ms(e.tpot_s)},
                                    {"decode step", e.decode.step_s * 1e3, ms(e.decode.step_s)}},
                                   "milliseconds"));
  }
  body += html_section("figures", "Figures", "<table>\n" + key_value_rows(rest, 11) + "</table>\n");
  std::size_t i = 0;
  while (i < head.size()) {
    const std::size_t end = std::min(head.find('\n', i), head.size());
    const std::string line = head.substr(i, end - i);
    if (!line.empty() && line[0] == ' ' && !lines.empty()) {
      lines.back() += " " + line.substr(line.find_first_not_of(' '));
    } else {
      lines.push_back(line);
    }
    i = end + 1;
  }
  const std::string verdict = m.fits ? "fits" : "infeasible";
  return html_page(fmt::format("scaleout estimate: {} serving", r.workload.model.name), verdict,
                   m.fits ? "Fits: yes" : "Fits: NO", lines, body);
}

namespace {

ordered_json score_json(const ServingScore& s) {
  return {{"rows", s.rows}, {"mape", s.mape}, {"bias", s.bias}};
}

// The metric's short name and its value in the unit the header names:
// output tokens/s, or milliseconds for TTFT and TPOT.
std::string metric_short(const std::string& metric) {
  if (metric == "output_tokens_per_s") return "tok/s";
  if (metric == "ttft_s") return "TTFT";
  if (metric == "tpot_s") return "TPOT";
  return metric;
}

std::string unit_value(const std::string& metric, double v) {
  if (metric == "output_tokens_per_s") return fmt::format("{:.0f}", v);
  return fmt::format("{:.1f}", v * 1e3);
}

}  // namespace

std::string serving_validate_text(const ServingValidationReport& r) {
  std::string o;
  // 80 columns with the longest row ids (40) of data/validation/inference.csv.
  o += fmt::format("{:<40} {:<5} {:>5} {:>9} {:>9} {:>7}\n", "row", "unit", "batch", "measured",
                   "predicted", "error");
  for (const ServingRowResult& x : r.rows) {
    o += fmt::format("{:<40} {:<5} {:>5} {:>9} {:>9} {:>+6.1f}%\n", x.id, metric_short(x.metric),
                     x.batch, unit_value(x.metric, x.measured), unit_value(x.metric, x.predicted),
                     100 * x.error());
  }
  o += "(tok/s: output tokens/s; TTFT and TPOT in ms)\n\n";
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
  return dump_json(versioned(j));
}

}  // namespace scaleout::report
