#include "report/reasons.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "report/format.hpp"

namespace scaleout::report {

namespace {

using PK = PlanReasonKind;
using SK = ServingReasonKind;

std::string deadline_words(const std::optional<double>& deadline_s) {
  return deadline_s ? duration(*deadline_s) : std::string("none");
}

std::string objective_ms(double s) { return s > 0 ? ms(s) : std::string("none"); }

// The heading a single-node kind opens a multi-node verdict with; none for other kinds.
template <typename Kind, std::size_t N>
const char* heading_of(Kind k, const std::pair<Kind, const char*> (&headings)[N]) {
  for (const auto& [kind, heading] : headings) {
    if (kind == k) return heading;
  }
  return nullptr;
}

const char* heading(PK k) {
  return heading_of(k, {{PK::single_node_memory, "Capacity"},
                        {PK::single_node_no_layout, "Capacity"},
                        {PK::single_node_time, "Time"},
                        {PK::single_node_budget, "Budget"},
                        {PK::single_node_power, "Power"},
                        {PK::single_node_goodput, "Goodput"},
                        {PK::single_node_margin, "Margin"}});
}

const char* heading(SK k) {
  return heading_of(k, {{SK::single_node_memory, "Capacity"},
                        {SK::single_node_latency, "Latency"},
                        {SK::single_node_throughput, "Throughput"}});
}

std::string single_node_clause(const PlanReason& r) {
  switch (r.kind) {
    case PK::single_node_memory:
      return fmt::format(
          "model state and activations need {} per GPU on one node{} even with {}, full "
          "recompute, FlashAttention and optimizer offload; one node's GPUs have {}",
          gib(r.bytes),
          r.expert_bytes > 0 ? fmt::format(" (the routed experts' model state {}, the "
                                           "dense layers' {}, activations and buffers {})",
                                           gib(r.expert_bytes), gib(r.state_bytes),
                                           gib(r.bytes - r.expert_bytes - r.state_bytes))
                             : std::string(),
          r.zero1 ? "the distributed optimizer (ZeRO-1)" : "ZeRO-3", gib(r.capacity_bytes));
    case PK::single_node_no_layout:
      return "no legal single-node layout (the global batch or the model's shape does not "
             "divide over one node's GPUs)";
    case PK::single_node_time:
      return fmt::format("one node needs {}; the deadline is {}", duration(r.time_s),
                         deadline_words(r.deadline_s));
    case PK::single_node_budget:
      return "the best single-node plan exceeds the budget";
    case PK::single_node_power:
      return fmt::format("one node draws {}; the power limit is {}", kw(r.power_W),
                         kw(r.power_limit_W));
    case PK::single_node_goodput:
      return fmt::format("one node's goodput is {}; the minimum is {}", percent(r.goodput),
                         percent(r.min_goodput));
    case PK::single_node_margin:
      return fmt::format(
          "one node fits at the predicted {} per GPU but not at the high end of its 80 % "
          "interval ({} of {}), and a plan that does exists",
          gib(r.bytes), gib(r.high_bytes), gib(r.capacity_bytes));
    default:
      return "";
  }
}

// "2 replicas of TP 4 x PP 1 on 1 node of dgx-h100"
std::string describe(const ServingDeployment& d) {
  return fmt::format("{} replica{} of TP {} x PP {}{} on {} node{} of {}", d.replicas,
                     d.replicas == 1 ? "" : "s", d.tp, d.pp,
                     d.ep > 1 ? fmt::format(" x EP {}", d.ep) : std::string(), d.nodes,
                     d.nodes == 1 ? "" : "s", d.server);
}

// "40.1 GiB of 80.0 GiB per GPU, TTFT 120.0 ms, TPOT 20.0 ms, 3.20 requests/s per replica"
std::string figures(const ServingDeployment& d) {
  return fmt::format("{} of {} per GPU, TTFT {}, TPOT {}, {:.2f} requests/s per replica",
                     gib(d.memory_bytes), gib(d.capacity_bytes), ms(d.ttft_s), ms(d.tpot_s),
                     d.requests_per_s);
}

std::string single_node_clause(const ServingReason& r) {
  switch (r.kind) {
    case SK::single_node_memory:
      return fmt::format(
          "the weights alone take {} in {}; the roomiest node ({}) has {} of GPU memory, of "
          "which {} is usable, and no TP x PP split of one node leaves room for the KV cache "
          "of one {}-token sequence",
          gib(r.bytes), to_string(r.weights), r.server, gib(r.capacity_bytes),
          percent(r.usable_share, 0), r.sequence_tokens);
    case SK::single_node_latency:
      return fmt::format(
          "every single-node layout misses the latency objectives (TTFT {}, TPOT {})",
          objective_ms(r.ttft_objective_s), objective_ms(r.tpot_objective_s));
    case SK::single_node_throughput:
      return fmt::format(
          "one {} node serves at most {:.2f} requests/s within the objectives; the target is "
          "{:.2f} requests/s",
          r.server, r.requests_per_s, r.target_rps);
    default:
      return "";
  }
}

// "2 GPUs" (of a slice: the plan's GPUs of one node).
std::string slice_words(const PlanReason& r) {
  return fmt::format("{} GPU{}", r.gpus, r.gpus == 1 ? "" : "s");
}

}  // namespace

std::string sentence(const PlanReason& r) {
  if (const char* head = heading(r.kind)) {
    return fmt::format("{}: {}.", head, single_node_clause(r));
  }
  switch (r.kind) {
    case PK::one_node_fits:
      if (r.whole_gpus > 0) {
        return fmt::format(
            "{} of one {} node fit{}: {} of {} per GPU, and it trains in {}{}.", slice_words(r),
            r.server, r.gpus == 1 ? "s" : "", gib(r.bytes), gib(r.capacity_bytes),
            duration(r.time_s),
            r.deadline_s ? fmt::format(" (deadline {})", duration(*r.deadline_s)) : std::string());
      }
      return fmt::format(
          "One {} node fits: {} of {} per GPU, and trains in {}{}.", r.server, gib(r.bytes),
          gib(r.capacity_bytes), duration(r.time_s),
          r.deadline_s ? fmt::format(" (deadline {})", duration(*r.deadline_s)) : std::string());
    case PK::cheapest_deadline:
      return fmt::format(
          "{} {} the {} deadline at the lowest cost: {} in {}{}.",
          r.whole_gpus > 0 ? fmt::format("{} of one {}", slice_words(r), r.server)
                           : fmt::format("{} {} node{} ({} GPUs)", r.nodes, r.server,
                                         r.nodes == 1 ? "" : "s", r.gpus),
          (r.whole_gpus > 0 ? r.gpus : r.nodes) == 1 ? "meets" : "meet",
          deadline_words(r.deadline_s), r.usd > 0 ? money(r.usd) : std::string("unpriced"),
          duration(r.time_s),
          r.other_gpus > 0 ? fmt::format("; the recommended {} GPUs cost {} (within 0.1 %) and "
                                         "finish in {}",
                                         r.other_gpus, money(r.other_usd), duration(r.other_time_s))
                           : std::string());
    case PK::scale_out_faster:
      return fmt::format(
          "Scaling out to {} nodes{} would finish in {} ({:.1f}x faster){}.", r.nodes,
          r.server.empty() ? std::string() : " of " + r.server, duration(r.time_s), r.speedup,
          r.usd > 0 && r.other_usd > 0
              ? fmt::format(" for {} instead of {}", money(r.usd), money(r.other_usd))
              : std::string());
    case PK::one_domain_fits:
      return fmt::format(
          "Scale up: one NVLink domain ({} GPUs across {} nodes of {}) holds the job on {} nodes "
          "({} GPUs) and trains in {}{}; its collectives stay on NVLink, so no scale-out fabric "
          "is needed.",
          r.domain_gpus, r.domain_nodes, r.server, r.nodes, r.gpus, duration(r.time_s),
          r.deadline_s ? fmt::format(" (deadline {})", duration(*r.deadline_s)) : std::string());
    case PK::scale_out_ranks_higher:
      return fmt::format(
          "By the objective alone, {} nodes of {} over the network would rank higher: {}{}.",
          r.nodes, r.server, duration(r.time_s),
          r.usd > 0 ? fmt::format(" for {}", money(r.usd)) : std::string());
    case PK::domain_memory:
      return fmt::format(
          "Scale out: the job needs more than one {}-GPU NVLink domain ({} nodes of {}): {}; "
          "the domains are joined over the scale-out network.",
          r.domain_gpus, r.domain_nodes, r.server,
          r.nodes > 0 ? fmt::format("the smallest plan that fits on it has {} nodes", r.nodes)
                      : std::string("no plan fits on it"));
    case PK::domain_time:
      return fmt::format(
          "Scale out: one {}-GPU NVLink domain ({} nodes of {}) needs {}; the deadline is {}, so "
          "the job scales out over the network.",
          r.domain_gpus, r.domain_nodes, r.server, duration(r.time_s),
          deadline_words(r.deadline_s));
    case PK::domain_constraints:
      return fmt::format(
          "Scale out: no plan within one {}-GPU NVLink domain ({} nodes of {}) meets every "
          "constraint, so the job scales out over the network.",
          r.domain_gpus, r.domain_nodes, r.server);
    case PK::smallest_fit:
      return fmt::format("The smallest cluster that fits has {} node{}.", r.nodes,
                         r.nodes == 1 ? "" : "s");
    case PK::smallest_deadline:
      return fmt::format("The smallest that meets the {} deadline has {} node(s).",
                         deadline_words(r.deadline_s), r.nodes);
    case PK::nothing_fits:
      return fmt::format(
          "Nothing fits: {} on any allowed hardware {}.",
          r.any_legal ? "model state and activations exceed the GPUs' memory" : "no legal layout",
          r.fixed_nodes ? fmt::format("at {} nodes (fixed by cluster.nodes)", r.nodes)
                        : fmt::format("up to {} nodes", r.nodes));
    case PK::fastest_misses_deadline:
      return fmt::format("Time: the fastest plan ({} nodes of {}) needs {}; the deadline is {}.",
                         r.nodes, r.server, duration(r.time_s), deadline_words(r.deadline_s));
    case PK::fastest_over_budget:
      return fmt::format("Budget: the fastest plan costs {}; the budget is {}.", money(r.usd),
                         money(r.other_usd));
    case PK::no_price:
      return fmt::format(
          "Budget: the catalog has no {} for {}, so no plan can be checked against the budget.",
          r.own_basis ? "purchase price" : "cloud price", r.server);
    case PK::fastest_over_power:
      return fmt::format("Power: the fastest plan draws {}; the limit is {}.", kw(r.power_W),
                         kw(r.power_limit_W));
    case PK::fastest_under_goodput:
      return fmt::format(
          "Goodput: the fastest plan spends {} of its wall time on useful steps; the minimum is "
          "{}.",
          percent(r.goodput), percent(r.min_goodput));
    case PK::deadline_band:
      return fmt::format(
          "It meets the {} deadline unless the model is more than {} optimistic (the high "
          "end of its 80 % time interval is {} longer).",
          deadline_words(r.deadline_s), percent(r.slack, 0), percent(r.band, 0));
    case PK::budget_band:
      return fmt::format(
          "It is within the budget of {} only on the optimistic side: at the high end of its "
          "80 % time interval it costs {}.",
          money(r.other_usd), money(r.usd));
    case PK::default_horizon:
      return fmt::format(
          "No deadline given: plans are held to a default horizon of {} (docs/model.md).",
          duration(r.deadline_s.value_or(0)));
    case PK::horizon_dropped:
      return fmt::format(
          "No deadline given, and no plan finishes within the default horizon of {}: the "
          "fastest takes {}.",
          duration(r.deadline_s.value_or(0)), duration(r.time_s));
    case PK::memory_tight:
      return fmt::format(
          "Memory is tight: {} per GPU fits {} at the prediction, but the high end of its "
          "80 % interval is {}; no plan fits there.",
          gib(r.bytes), gib(r.capacity_bytes), gib(r.high_bytes));
    default:
      return "";
  }
}

std::string sentence(const ServingReason& r) {
  if (const char* head = heading(r.kind)) {
    return fmt::format("{}: {}.", head, single_node_clause(r));
  }
  const ServingDeployment d = r.deployment.value_or(ServingDeployment{});
  switch (r.kind) {
    case SK::one_node_serves:
      return fmt::format("One node serves it: {}; {}.", describe(d), figures(d));
    case SK::multi_node_cost:
      return fmt::format("The best plan on more nodes ({}) would cost {}/hour instead of {}/hour.",
                         describe(d), money_cents(r.usd_per_hour),
                         money_cents(r.other_usd_per_hour));
    case SK::recommended:
      return fmt::format("Recommended: {}; {}.", describe(d), figures(d));
    case SK::replica_nodes:
      return fmt::format("One replica needs at least {} nodes.", r.nodes);
    case SK::independent_replicas:
      return fmt::format(
          "Replicated: {} nodes of independent one-node replicas; no inter-node fabric needed.",
          r.nodes);
    case SK::latency_missed:
      return fmt::format(
          "Latency: no layout meets the objectives (TTFT {}, TPOT {}); the closest ({}) reaches "
          "TTFT {} and TPOT {}.",
          objective_ms(r.ttft_objective_s), objective_ms(r.tpot_objective_s), describe(d),
          ms(d.ttft_s), ms(d.tpot_s));
    case SK::no_layout:
      return fmt::format(
          "Nothing fits: no legal layout of the model's heads and layers up to {} nodes.", r.nodes);
    case SK::rate_needs_nodes:
      return fmt::format(
          "Throughput: the request rate ({:.2f} requests/s) needs more than {} nodes.",
          r.target_rps, r.nodes);
    case SK::no_room:
      return fmt::format(
          "Capacity: the weights take {} in {} and no layout up to {} nodes leaves room for the "
          "KV cache of one {}-token sequence.",
          gib(r.bytes), to_string(r.weights), r.nodes, r.sequence_tokens);
    case SK::tpot_band:
      return fmt::format(
          "It meets the TPOT objective unless the model is more than {} optimistic (its "
          "validation error band is {}).",
          percent(r.slack, 0), percent(r.band, 0));
    default:
      return "";
  }
}

std::string clause(const std::optional<PlanReason>& r) {
  return r ? single_node_clause(*r) : std::string();
}

std::string clause(const std::optional<ServingReason>& r) {
  return r ? single_node_clause(*r) : std::string();
}

bool said(const PlanReason& r) {
  // time_s is the faster plan's; speedup = the compared plan's time / time_s.
  return r.kind != PK::scale_out_faster || r.time_s * r.speedup > kSpeedupWorthSayingS;
}

std::vector<std::string> sentences(const std::vector<PlanReason>& rs) {
  std::vector<std::string> out;
  out.reserve(rs.size());
  for (const PlanReason& r : rs) {
    if (said(r)) out.push_back(sentence(r));
  }
  return out;
}

std::vector<std::string> sentences(const std::vector<ServingReason>& rs) {
  std::vector<std::string> out;
  out.reserve(rs.size());
  for (const ServingReason& r : rs) out.push_back(sentence(r));
  return out;
}

const char* rejection_name(Rejection r) {
  // In the order of the enum.
  static constexpr const char* kNames[kRejections] = {"no scale-out network",
                                                      "framework",
                                                      "divisibility",
                                                      "memory",
                                                      "max nodes",
                                                      "latency",
                                                      "deadline",
                                                      "budget",
                                                      "power",
                                                      "goodput"};
  return kNames[static_cast<std::size_t>(r)];
}

const std::vector<Rejection>& rejections_by_name() {
  static const std::vector<Rejection> order = [] {
    std::vector<Rejection> v;
    for (std::size_t i = 0; i < kRejections; ++i) v.push_back(static_cast<Rejection>(i));
    std::sort(v.begin(), v.end(), [](Rejection a, Rejection b) {
      return std::string(rejection_name(a)) < rejection_name(b);
    });
    return v;
  }();
  return order;
}

std::string sizing_words(const sim::Sizing& z, long long cluster_gpus) {
  switch (z.miss) {
    case sim::SizingMiss::none:
      return "";
    case sim::SizingMiss::too_many_gpus:
      return fmt::format("needs {} GPUs, the cluster has {}", z.gpus, cluster_gpus);
    case sim::SizingMiss::inference:
      return "inference sizing is not supported yet";
    case sim::SizingMiss::no_plan:
      return z.plan_reason ? sentence(*z.plan_reason) : std::string("no layout fits");
  }
  return "";
}

}  // namespace scaleout::report
