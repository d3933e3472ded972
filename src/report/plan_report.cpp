#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "report/bom_report.hpp"
#include "report/json_parts.hpp"
#include "report/parts.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/schema.hpp"
#include "search/frontier.hpp"
#include "search/knee.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

std::string wrap(const std::string& text, const std::string& first, const std::string& rest,
                 const std::string& sep, std::size_t width) {
  // A break after `sep` keeps its non-blank part (", " leaves "," at the line end).
  const std::string at_break = sep.substr(0, sep.find_last_not_of(' ') + 1);
  std::string out, line = first;
  bool empty = true;  // no piece on `line` yet
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = std::min(text.find(sep, i), text.size());
    const std::string piece = text.substr(i, end - i);
    i = end + sep.size();
    if (piece.empty()) continue;
    // Room is kept for the break mark, which a later break may add.
    if (!empty && line.size() + sep.size() + piece.size() + at_break.size() > width) {
      out += line + at_break + "\n";
      line = rest;
      empty = true;
    }
    line += (empty ? "" : sep) + piece;
    empty = false;
  }
  return out + line + "\n";
}

std::string layout_parallel(const Layout& l) {
  std::string s = fmt::format("tp {} pp {} dp {}", l.tp, l.pp, l.dp);
  if (l.cp > 1) s += fmt::format(" cp {}", l.cp);
  if (l.ep > 1) s += fmt::format(" ep {}", l.ep);
  if (l.etp > 0 && l.etp != l.tp) s += fmt::format(" etp {}", l.etp);
  if (l.ep_overlap) s += " +ep-overlap";
  if (l.interleave > 1) s += fmt::format(" (interleave {})", l.interleave);
  if (l.schedule != PipeSchedule::one_f_one_b) s += fmt::format(" ({})", to_string(l.schedule));
  return s + stage_split_label(l);
}

std::string stage_split_label(const Layout& l) {
  if (!l.pipeline_layout.empty()) return fmt::format(", pipeline layout {}", l.pipeline_layout);
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    return fmt::format(", first/last stage {}/{} layers", l.first_stage_layers,
                       l.last_stage_layers);
  }
  if (l.embedding_in_split && l.loss_in_split) return ", embedding/loss in split";
  if (l.embedding_in_split) return ", embedding in split";
  if (l.loss_in_split) return ", loss in split";
  return "";
}

std::string layout_settings(const Layout& l) {
  std::string s = fmt::format("micro-batch {}, zero {}", l.micro_batch, l.zero);
  // Hybrid sharding: "zero 3 in groups of 8" (layout shard_group).
  if (l.zero_replicas() > 1) s += fmt::format(" in groups of {}", l.zero_shard_dp());
  s += fmt::format(", recompute {}", recompute_label(l));
  if (l.offload_optimizer) s += ", optimizer offload";
  if (l.fp8_param_gather) s += ", FP8 weight gather";
  if (!l.dp_overlap) s += ", gradient reduction after the backward";
  return s;
}

std::string layout_line(const Layout& l) { return layout_parallel(l) + ", " + layout_settings(l); }

std::string fabric_name(const HardwareOption& hw) {
  return hw.fabric ? hw.fabric->id
                   : fmt::format("{} x {:.0f} Gb/s NICs", hw.server.nics_per_node,
                                 hw.server.nic_bw_Bps / units::kGbps);
}

bool several_fabrics(const std::vector<HardwareOption>& hw) {
  // Fabric ids only: servers that differ in their own NICs are one "fabric".
  // Plans below a node need no fabric: left out.
  auto id = [](const HardwareOption& h) { return h.fabric ? h.fabric->id : std::string(); };
  const HardwareOption* first = nullptr;
  for (const HardwareOption& h : hw) {
    if (h.is_slice()) continue;
    if (!first) first = &h;
    if (id(h) != id(*first)) return true;
  }
  return false;
}

std::string nic_cap_words(const HardwareOption& hw) {
  const Server& s = hw.server;
  if (!hw.fabric || s.nic_bw_Bps <= 0 || hw.fabric->port_bw_Bps <= s.nic_bw_Bps) return "";
  return fmt::format("{} runs at the server's {} x {:.0f} Gb/s NICs (its ports are {:.0f} Gb/s)",
                     hw.fabric->id, s.nics_per_node, s.nic_bw_Bps / units::kGbps,
                     hw.fabric->port_bw_Bps / units::kGbps);
}

std::string scale_out_name(const HardwareOption& hw, const PlanCandidate& c) {
  return scaleup_domains(hw.server, c.nodes) > 1 ? fabric_name(hw)
                                                 : std::string("no scale-out network");
}

int server_gpus(const Server& s) { return s.whole_gpus > 0 ? s.whole_gpus : s.gpus_per_node; }

std::string hardware_words(const Server& s, const Gpu& gpu, int nodes) {
  if (s.whole_gpus > 0) {
    return fmt::format("{} x {} ({} of {} GPUs, {})", nodes, s.id, s.gpus_per_node, s.whole_gpus,
                       gpu.id);
  }
  return fmt::format("{} x {} ({} x {}, {} GPUs)", nodes, s.id, s.gpus_per_node, gpu.id,
                     static_cast<long long>(nodes) * s.gpus_per_node);
}

bool domain_spans_nodes(const Server& s) { return domain_gpus(s) > s.gpus_per_node; }

std::string domains_text(const HardwareOption& hw, const PlanCandidate& c) {
  const Server& s = hw.server;
  const char* kind = s.intra_node == IntraNodeKind::pcie   ? "PCIe"
                     : s.intra_node == IntraNodeKind::xgmi ? "xGMI"
                                                           : "NVLink";
  const int per = domain_gpus(s);
  const int n = scaleup_domains(s, c.nodes);
  std::string o = fmt::format("{} {} domain{} of {} GPUs", n, kind, n == 1 ? "" : "s", per);
  if (domain_spans_nodes(s)) o += fmt::format(" ({} nodes each)", per / s.gpus_per_node);
  return o;
}

const char* validation_status(const Gpu& gpu) {
  return gpu.family_data.validation_rows > 0 ? "validated" : "unvalidated";
}

std::string validation_words(const Gpu& gpu) {
  const GpuFamily& f = gpu.family_data;
  const std::string family = gpu.family.empty() ? std::string("no") : "the " + gpu.family;
  if (f.validation_rows > 0) {
    return fmt::format("validated on {} published training runs of {} family", f.validation_rows,
                       family);
  }
  return fmt::format("unvalidated: no published training runs of {} family in the validation data",
                     family);
}

bool is_recommended(const PlanResult& p, const PlanCandidate& c) {
  return p.recommended && p.recommended->hardware == c.hardware && p.recommended->nodes == c.nodes;
}

bool feasible(const PlanCandidate& c) {
  return c.meets_deadline && c.within_budget && c.within_power && c.meets_goodput;
}

namespace {

double days(double s) { return s / 86400.0; }

void plan_block(std::string& o, const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  // The scale-out fabric only where the plan uses one (several scale-up domains).
  const bool scale_out = scaleup_domains(hw.server, c.nodes) > 1;
  o += fmt::format("  hardware   {}{}\n", hardware_words(hw.server, hw.gpu, c.nodes),
                   scale_out ? ", " + fabric_name(hw) : std::string());
  if (const std::string cap = nic_cap_words(hw); scale_out && !cap.empty()) {
    o += wrap(cap, "  warning    ", std::string(13, ' '));
  }
  if (domain_spans_nodes(hw.server)) {
    o += fmt::format("  scale-up   {}{}\n", domains_text(hw, c),
                     scale_out ? "" : ", no scale-out network");
  }
  // One line when it fits 80 columns; otherwise the degrees on the first
  // and the settings after it, broken after a comma.
  const std::string layout = layout_line(c.layout);
  if (layout.size() + 13 <= 80) {
    o += fmt::format("  layout     {}\n", layout);
  } else {
    const std::string indent(13, ' ');
    const std::string parallel = layout_parallel(c.layout);
    if (parallel.size() + 14 <= 80) {
      o += fmt::format("  layout     {},\n", parallel);
    } else {
      // The degrees, the schedule and the stage split broken after a comma too.
      std::string lines = wrap(parallel, "  layout     ", indent, ", ");
      lines.pop_back();  // the final newline, for the comma before the settings
      o += lines + ",\n";
    }
    o += wrap(layout_settings(c.layout), indent, indent, ", ");
  }
  if (r.request.global_batches.size() > 1) {
    o += fmt::format("  batch      {} sequences per step\n", c.global_batch);
  }
  // The memory interval beside the figure where it fits 80 columns, else on the next line.
  const std::string mem_interval = fmt::format(
      "80 %: {} - {}{}{}", gib(c.memory_low_bytes), gib(c.memory_high_bytes),
      c.memory_interval.validated ? "" : ", unvalidated", c.memory_safe ? "" : ", tight");
  const std::string mem = fmt::format("  memory     {} of {} per GPU", gib(c.memory.total()),
                                      gib(c.memory.capacity_bytes));
  if (mem.size() + mem_interval.size() + 3 <= 80) {
    o += fmt::format("{} ({})\n", mem, mem_interval);
  } else {
    o += fmt::format("{}\n             ({})\n", mem, mem_interval);
  }
  o += fmt::format("  step       {:.2f} s, MFU {}, network wait {}\n", c.step.step_s,
                   percent(c.step.mfu), percent(c.step.network_wait_fraction));
  // The interval beside the time where it fits 80 columns, else on the next line.
  const std::string interval = fmt::format("80 %: {} - {}{}", duration(c.time_to_train_low_s),
                                           duration(c.time_to_train_high_s),
                                           c.time_interval.validated ? "" : ", unvalidated");
  const std::string train = fmt::format("  train      {} ({}), {}", duration(c.time_to_train_s),
                                        interval, cost(c.cost_usd));
  if (train.size() <= 80) {
    o += train + "\n";
  } else {
    o += fmt::format("  train      {}, {}\n             ({})\n", duration(c.time_to_train_s),
                     cost(c.cost_usd), interval);
  }
  if (hw.gpu.family_data.validation_rows == 0) {
    o += wrap(validation_words(hw.gpu), "  validation ", "             ");
  }
  o += run_text(c.run, r.request.run, "  ");
}

// The scale-out fabric a plan uses: none (null) inside one scale-up domain.
ordered_json fabric_json(const HardwareOption& hw, const PlanCandidate& c) {
  return hw.fabric && scaleup_domains(hw.server, c.nodes) > 1 ? ordered_json(hw.fabric->id)
                                                              : ordered_json(nullptr);
}

ordered_json validation_json(const Gpu& gpu) {
  return {{"family", gpu.family.empty() ? ordered_json(nullptr) : ordered_json(gpu.family)},
          {"rows", gpu.family_data.validation_rows},
          {"status", validation_status(gpu)}};
}

ordered_json candidate_json(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  const Layout& l = c.layout;
  const StepBreakdown& b = c.step.breakdown;
  ordered_json j = {{"server", hw.server.id},
                    {"gpu", hw.gpu.id},
                    {"nodes", c.nodes},
                    {"gpus", c.gpus()},
                    {"gpus_per_node", hw.server.gpus_per_node},
                    {"server_gpus", server_gpus(hw.server)},
                    {"global_batch", c.global_batch},
                    {"fabric", fabric_json(hw, c)},
                    {"scaleup_domains", scaleup_domains(hw.server, c.nodes)},
                    {"needs_scaleout_fabric", scaleup_domains(hw.server, c.nodes) > 1},
                    {"domain_gpus", domain_gpus(hw.server)},
                    {"layout", layout_json(l)},
                    {"memory",
                     {{"total_bytes", c.memory.total()},
                      {"total_bytes_low", c.memory_low_bytes},
                      {"total_bytes_high", c.memory_high_bytes},
                      {"capacity_bytes", c.memory.capacity_bytes},
                      {"fits", c.memory.fits},
                      {"memory_margin", c.memory_safe ? "safe" : "tight"},
                      {"interval", interval_json(c.memory_interval)}}},
                    {"time",
                     {{"step_s", c.step.step_s},
                      {"mfu", c.step.mfu},
                      {"mfu_6n_equivalent", c.step.mfu_6n_equivalent},
                      {"tokens_per_s", c.step.tokens_per_s},
                      {"time_to_train_days", days(c.time_to_train_s)},
                      {"time_to_train_days_low", days(c.time_to_train_low_s)},
                      {"time_to_train_days_high", days(c.time_to_train_high_s)},
                      {"time_to_train_band", c.band},
                      {"interval", interval_json(c.time_interval)},
                      {"network_wait_fraction", c.step.network_wait_fraction},
                      {"breakdown_s", breakdown_json(b)}}},
                    {"cost_usd", c.cost_usd > 0 ? ordered_json(c.cost_usd) : ordered_json(nullptr)},
                    {"meets_deadline", c.meets_deadline},
                    {"within_budget", c.within_budget},
                    {"within_power", c.within_power},
                    {"meets_goodput", c.meets_goodput},
                    {"validation", validation_json(hw.gpu)}};
  add_run_json(j, c.run, r.request.run);
  return j;
}

}  // namespace

std::string plan_text(const PlanReport& r) {
  const PlanResult& p = r.result;
  std::string o;
  o += fmt::format("Verdict: {}\n", to_string(p.verdict));
  for (const PlanReason& reason : p.reasons) {
    if (said(reason)) o += wrap(sentence(reason), "  ", "    ");
  }
  o += "\n";
  best_plans_text(o, r, plan_block, "Closest plan\n",
                  "Best single-node plan (does not meet the constraints)\n");
  if (!p.single_node_best) {
    o += wrap(fmt::format("Single node: none ({})", clause(p.single_node_reason)), "", "  ") + "\n";
  }
  if (p.recommended) {
    o += p.verdict == Verdict::infeasible ? "What to buy (closest plan)\n"
                                          : "What to buy (recommended plan)\n";
    o += bom_text(plan_bom(r, *p.recommended)) + "\n";
  }
  // The fabric column only when the search compared fabrics.
  const bool fabrics = several_fabrics(r.request.hardware);
  o += "Frontier: fastest plan that fits, per server and node count\n";
  // With a fabric column the server column narrows to keep 80 columns.
  const std::size_t server_w = fabrics ? 24 : 28;
  o += fmt::format("  {:<{}} {:>5} {:>6} {:>11} {:>8} {:>6}{}\n", "server", server_w, "nodes",
                   "GPUs", "time", "cost", "MFU", fabrics ? "     fabric" : "");
  const std::vector<bool> knees = frontier_knees(p.frontier, kKneePremium, &r.request.hardware);
  std::vector<bool> shown = frontier_shown(p, r.request, kKneePremium, true);
  if (r.full_frontier) shown.assign(p.frontier.size(), true);
  bool any_tight = false, any_slice = false;
  for (std::size_t i = 0; i < p.frontier.size(); ++i) {
    const PlanCandidate& c = p.frontier[i];
    if (!shown[i]) continue;
    const HardwareOption& hw = r.request.hardware[c.hardware];
    std::string marks;
    if (is_recommended(p, c)) marks += "*";
    if (knees[i]) marks += "k";
    if (!feasible(c)) marks += "x";
    if (!c.memory_safe) marks += "m";
    any_tight = any_tight || !c.memory_safe;
    // A plan below a node: its GPUs of the node's ("2/8").
    const std::string nodes = hw.server.whole_gpus > 0
                                  ? fmt::format("{}/{}", c.gpus(), hw.server.whole_gpus)
                                  : std::to_string(c.nodes);
    any_slice = any_slice || hw.server.whole_gpus > 0;
    std::string row =
        fmt::format("  {:<{}} {:>5} {:>6} {:>11} {:>8} {:>5.1f}%", hw.server.id, server_w, nodes,
                    c.gpus(), duration(c.time_to_train_s), cost(c.cost_usd), 100 * c.step.mfu);
    if (fabrics) {
      // "-": no scale-out network (one node or one NVLink domain).
      const std::string fabric = scaleup_domains(hw.server, c.nodes) <= 1 ? "-"
                                 : hw.fabric                              ? hw.fabric->id
                                                                          : "NICs";
      row += fmt::format(" {:<3} {}", marks, fabric);
    } else if (!marks.empty())
      row += "  " + marks;
    o += row.substr(0, row.find_last_not_of(' ') + 1) + "\n";
  }
  o += "  (* recommended; x misses a constraint: deadline, budget, power or goodput;\n";
  o +=
      fmt::format("   k knee: the fastest point within {:.0f} % of its server's least GPU-hours)\n",
                  100 * kKneePremium);
  if (any_tight)
    o += "  (m: fits in memory at the prediction, not at the high end of its interval)\n";
  if (any_slice) o += "  (nodes 2/8: 2 of one node's 8 GPUs, priced by the GPU-hour)\n";
  o += frontier_counts_text(
           p, static_cast<std::size_t>(std::count(shown.begin(), shown.end(), true))) +
       "\n";
  o += search_text(p.stats, r.seconds);
  return o;
}

std::string plan_json(const PlanReport& r) {
  const PlanResult& p = r.result;
  ordered_json j = plan_head_json(p, r.request.objective, to_string(r.request.cost_basis));
  j["workload"] = workload_json(r.request.workload);
  const PlanConstraints& k = r.request.constraints;
  j["constraints"] = {
      {"deadline_days", k.deadline_s ? ordered_json(days(*k.deadline_s)) : ordered_json(nullptr)},
      {"budget_usd", k.budget_usd ? ordered_json(*k.budget_usd) : ordered_json(nullptr)},
      {"max_power_kw", k.max_power_W ? ordered_json(*k.max_power_W / 1e3) : ordered_json(nullptr)},
      {"min_goodput", k.min_goodput ? ordered_json(*k.min_goodput) : ordered_json(nullptr)},
      {"max_nodes", k.max_nodes},
      {"knee_premium", kKneePremium}};
  add_best_plans_json(j, r, candidate_json);
  j["bill_of_materials"] =
      p.recommended ? bom_json(plan_bom(r, *p.recommended)) : ordered_json(nullptr);
  j["single_domain_best"] =
      p.single_domain_best ? candidate_json(r, *p.single_domain_best) : ordered_json(nullptr);
  j["min_nodes_deadline"] = nullable(p.min_nodes_deadline);
  ordered_json frontier = ordered_json::array();
  const std::vector<bool> knees = frontier_knees(p.frontier, kKneePremium, &r.request.hardware);
  for (std::size_t i = 0; i < p.frontier.size(); ++i) {
    const PlanCandidate& c = p.frontier[i];
    const HardwareOption& hw = r.request.hardware[c.hardware];
    ordered_json point = {
        {"server", hw.server.id},
        {"nodes", c.nodes},
        {"gpus", c.gpus()},
        {"gpus_per_node", hw.server.gpus_per_node},
        {"server_gpus", server_gpus(hw.server)},
        {"time_to_train_days", days(c.time_to_train_s)},
        {"cost_usd", c.cost_usd > 0 ? ordered_json(c.cost_usd) : ordered_json(nullptr)},
        {"mfu", c.step.mfu},
        {"energy_kwh", c.run.power.energy_kWh},
        {"cluster_kw", c.run.power.cluster_W / 1e3},
        {"goodput", c.run.reliability.goodput},
        {"own_usd",
         c.run.cost.own_priced ? ordered_json(c.run.cost.own_usd) : ordered_json(nullptr)},
        {"cloud_usd",
         c.run.cost.cloud_priced ? ordered_json(c.run.cost.cloud_usd) : ordered_json(nullptr)},
        {"feasible", feasible(c)},
        {"knee", static_cast<bool>(knees[i])},
        {"recommended", is_recommended(p, c)},
        {"gpu", hw.gpu.id},
        {"fabric", fabric_json(hw, c)},
        {"scaleup_domains", scaleup_domains(hw.server, c.nodes)},
        {"needs_scaleout_fabric", scaleup_domains(hw.server, c.nodes) > 1},
        {"validation", validation_status(hw.gpu)},
        {"global_batch", c.global_batch},
        {"layout", layout_json(c.layout)},
        {"memory_bytes", c.memory.total()},
        {"memory_bytes_high", c.memory_high_bytes},
        {"memory_margin", c.memory_safe ? "safe" : "tight"},
        {"capacity_bytes", c.memory.capacity_bytes},
        {"step_s", c.step.step_s},
        {"network_wait_fraction", c.step.network_wait_fraction},
        {"time_to_train_band", c.band},
        {"time_to_train_days_low", days(c.time_to_train_low_s)},
        {"time_to_train_days_high", days(c.time_to_train_high_s)},
        {"meets_deadline", c.meets_deadline},
        {"within_budget", c.within_budget},
        {"within_power", c.within_power},
        {"meets_goodput", c.meets_goodput}};
    add_run_json(point, c.run, r.request.run);
    frontier.push_back(point);
  }
  j["frontier"] = frontier;
  j["search"] = search_json(p.stats, r.seconds);
  j["search"]["node_counts"] = p.stats.node_counts;
  j["search"]["node_counts_divisible"] = p.stats.node_counts_divisible;
  return dump_json(versioned(j));
}

std::string frontier_counts_text(const PlanResult& p, std::size_t shown) {
  const SearchStats& s = p.stats;
  if (s.node_counts <= 1) return "";  // one node count: nothing was sampled or left out
  std::string o = fmt::format("Searched every node count 1-{}; {} divide the cluster and the batch",
                              s.node_counts, s.node_counts_divisible);
  if (shown < p.frontier.size()) {
    o += fmt::format("; {} of {} points shown (all with --full-frontier, or in json or csv)", shown,
                     p.frontier.size());
  }
  return wrap(o + ".", "  ", "  ");
}

std::string search_text(const SearchStats& s, double seconds) {
  std::string o = fmt::format("Search: {} layouts, {} evaluations in {:.2f} s\n", s.candidates,
                              s.evaluated, seconds);
  for (Rejection why : rejections_by_name()) {
    if (const long long n = s.rejected_by_reason[why]) {
      o += fmt::format("  rejected for {}: {}\n", rejection_name(why), n);
    }
  }
  return o;
}

ordered_json interval_json(const PredictionInterval& i) {
  return {{"regime", i.regime},
          {"rows", i.rows},
          {"status", i.validated ? "validated" : "unvalidated"},
          {"low_ratio", i.low},
          {"high_ratio", i.high}};
}

ordered_json search_json(const SearchStats& s, double seconds) {
  ordered_json rejected = ordered_json::object();
  for (Rejection why : rejections_by_name()) {
    if (const long long n = s.rejected_by_reason[why]) rejected[rejection_name(why)] = n;
  }
  return {{"candidates", s.candidates},
          {"evaluated", s.evaluated},
          {"seconds", seconds},
          {"rejected_by_reason", rejected}};
}

}  // namespace scaleout::report
