#include "inference/serving_plan.hpp"

#include <algorithm>
#include <cmath>

#include "model/params.hpp"

namespace scaleout {

namespace {

double latency_s(const ServingCandidate& c, const Workload& w) {
  return c.estimate.ttft_s + static_cast<double>(w.inference.output_tokens) * c.estimate.tpot_s;
}

// Orders plans by the objective ($/hour or request latency); values within
// 0.1 % count as equal, then the other measure (whole nodes are paid for, so
// at one price the faster layout wins), then fewer GPUs, then the hardware's
// order.
bool better(const ServingCandidate& a, const ServingCandidate& b, Objective o, const Workload& w) {
  auto cost = [](const ServingCandidate& c) { return c.usd_per_hour > 0 ? c.usd_per_hour : 1e300; };
  auto cmp = [](double x, double y) {
    if (std::fabs(x - y) <= 1e-3 * std::max(std::fabs(x), std::fabs(y))) return 0;
    return x < y ? -1 : 1;
  };
  const int first =
      o == Objective::cost ? cmp(cost(a), cost(b)) : cmp(latency_s(a, w), latency_s(b, w));
  if (first != 0) return first < 0;
  const int second =
      o == Objective::cost ? cmp(latency_s(a, w), latency_s(b, w)) : cmp(cost(a), cost(b));
  if (second != 0) return second < 0;
  if (a.gpus() != b.gpus()) return a.gpus() < b.gpus();
  return std::tie(a.hardware, a.layout.tp, a.layout.pp, a.layout.ep) <
         std::tie(b.hardware, b.layout.tp, b.layout.pp, b.layout.ep);
}

std::vector<int> powers_of_two(int max) {
  std::vector<int> out;
  for (int v = 1; v <= max; v *= 2) out.push_back(v);
  return out;
}

// What the search learns about single-node plans and the closest miss, for the reasons.
struct SearchNotes {
  bool single_fit = false;      // one replica fits in memory on one node
  bool single_latency = false;  // ... and meets the latency objectives
  double single_best_rps = 0;   // the most requests/s one node serves within them
  std::string single_best_server;
  double roomiest_node = 0;  // GPU memory of the roomiest node tried
  std::string roomiest_server;
  std::optional<ServingCandidate> closest_latency;  // fits but misses the objectives
};

// What the search knows of the model before it starts.
struct ModelFacts {
  int max_nodes = 0;
  double weight_bytes = 0;  // all weights in their serving format (embeddings in 16 bit)
};

// One replica layout on one hardware option: memory, latency, replicas for
// the rate, nodes and price; a plan that passes joins the frontier (the best
// per hardware and node count).
void try_layout(const PlanRequest& r, const ServingConstants& k, const ModelFacts& f, int hi,
                int tp, int pp, int ep, ServingPlanResult& res, SearchNotes& notes) {
  const HardwareOption& hw = r.hardware[hi];
  const Workload& base = r.workload;
  const ModelShape& m = base.model;
  const InferenceSpec& in = base.inference;
  const int gpn = hw.server.gpus_per_node;
  ++res.stats.candidates;
  const long long gpr = static_cast<long long>(tp) * pp;
  const bool heads_ok =
      m.heads % tp == 0 && (m.kv_heads >= tp ? m.kv_heads % tp == 0 : tp % m.kv_heads == 0);
  const bool ep_ok = ep == 1 || (m.is_moe() && ep <= tp && tp % ep == 0 && m.moe.experts % ep == 0);
  if (!heads_ok || !ep_ok || pp > m.layers) {
    res.stats.rejected_by_reason.add(Rejection::divisibility);
    return;
  }
  const long long replica_nodes = (gpr + gpn - 1) / gpn;
  if (replica_nodes > f.max_nodes) {
    res.stats.rejected_by_reason.add(Rejection::max_nodes);
    return;
  }
  if (replica_nodes > 1 && hw.server.nics_per_node == 0) {
    res.stats.rejected_by_reason.add(Rejection::no_scale_out_network);
    return;
  }
  Workload w = base;
  w.layout = Layout{};
  w.layout.tp = tp;
  w.layout.pp = pp;
  w.layout.ep = ep;
  w.cluster.nodes = static_cast<int>(replica_nodes);
  ++res.stats.evaluated;
  const ServingMemory mem = serving_memory(w, hw.gpu, 0, k);
  if (!mem.fits) {
    res.stats.rejected_by_reason.add(Rejection::memory);
    return;
  }
  if (replica_nodes == 1) notes.single_fit = true;
  ServingCandidate c;
  c.hardware = hi;
  c.layout = w.layout;
  c.estimate = estimate_serving(w, hw.server, hw.gpu, hw.fabric ? &*hw.fabric : nullptr, k);
  // The serving regime's calibrated interval (the rule of
  // validation/serving_validation.cpp: framework "engine", scale by the
  // replica's GPUs).
  c.interval = prediction_interval(
      {.metric = IntervalMetric::time,
       .family = hw.gpu.family,
       .framework = "engine",
       .task = IntervalTask::serving,
       .moe = w.model.is_moe(),
       .scale = scale_band(static_cast<long long>(tp) * pp, domain_gpus(hw.server))});
  c.band = std::max(0.0, c.interval.high - 1.0);
  c.nodes = static_cast<int>(replica_nodes);  // one replica; replicas come below
  if (!c.estimate.meets_ttft || !c.estimate.meets_tpot) {
    res.stats.rejected_by_reason.add(Rejection::latency);
    if (!notes.closest_latency || latency_s(c, base) < latency_s(*notes.closest_latency, base)) {
      notes.closest_latency = c;
    }
    return;
  }
  c.replicas = c.estimate.replicas;
  if (gpr <= gpn) {
    const long long per_node = gpn / gpr;
    c.nodes = static_cast<int>((c.replicas + per_node - 1) / per_node);
    if (replica_nodes == 1) {
      notes.single_latency = true;
      const double rps = static_cast<double>(per_node) * c.estimate.capacity_requests_per_s;
      if (rps > notes.single_best_rps) {
        notes.single_best_rps = rps;
        notes.single_best_server = hw.server.id;
      }
    }
  } else {
    c.nodes = static_cast<int>(c.replicas * replica_nodes);
  }
  c.layout.dp = c.replicas;
  if (c.nodes > f.max_nodes) {
    res.stats.rejected_by_reason.add(Rejection::max_nodes);
    return;
  }
  c.served_rps = in.request_rate > 0 ? in.request_rate : c.replicas * c.estimate.requests_per_s;
  c.usd_per_hour = static_cast<double>(c.nodes) * gpn * hw.usd_per_gpu_hour;
  if (c.usd_per_hour > 0) {
    const double tokens_per_hour = c.served_rps * static_cast<double>(in.output_tokens) * 3600.0;
    c.usd_per_mtok = c.usd_per_hour / tokens_per_hour * 1e6;
  }
  // One frontier point per hardware and node count: the best by the objective.
  auto same = std::find_if(
      res.frontier.begin(), res.frontier.end(),
      [&](const ServingCandidate& q) { return q.hardware == c.hardware && q.nodes == c.nodes; });
  if (same == res.frontier.end()) {
    res.frontier.push_back(c);
  } else if (better(c, *same, r.objective, base)) {
    *same = c;
  }
}

// Every TP x PP (x EP for MoE) replica layout on every hardware option.
void search(const PlanRequest& r, const ServingConstants& k, const ModelFacts& f,
            ServingPlanResult& res, SearchNotes& notes) {
  const ModelShape& m = r.workload.model;
  for (size_t hi = 0; hi < r.hardware.size(); ++hi) {
    const HardwareOption& hw = r.hardware[hi];
    const int gpn = hw.server.gpus_per_node;
    const double node_bytes = gpn * hw.gpu.hbm_bytes;
    if (node_bytes > notes.roomiest_node) {
      notes.roomiest_node = node_bytes;
      notes.roomiest_server = hw.server.id;
    }
    const std::vector<int> tps =
        r.fixed.has(LayoutKey::tp) ? std::vector<int>{r.fixed.values.tp} : powers_of_two(gpn);
    const std::vector<int> pps = r.fixed.has(LayoutKey::pp) ? std::vector<int>{r.fixed.values.pp}
                                                            : powers_of_two(std::min(m.layers, 64));
    for (int tp : tps) {
      for (int pp : pps) {
        std::vector<int> eps = {1};
        if (r.fixed.has(LayoutKey::ep)) {
          eps = {r.fixed.values.ep};
        } else if (m.is_moe() && tp > 1 && m.moe.experts % tp == 0) {
          eps = {1, tp};
        }
        for (int ep : eps) try_layout(r, k, f, static_cast<int>(hi), tp, pp, ep, res, notes);
      }
    }
  }
}

// Keeps the Pareto front of cost (GPUs when unpriced) and request latency
// per hardware: a bigger deployment that is no faster is no option. Sorted
// by hardware, then node count.
void keep_pareto_front(std::vector<ServingCandidate>& frontier, const Workload& base) {
  auto price = [](const ServingCandidate& c) {
    return c.usd_per_hour > 0 ? c.usd_per_hour : static_cast<double>(c.gpus());
  };
  std::vector<ServingCandidate> front;
  for (const ServingCandidate& c : frontier) {
    const bool dominated =
        std::any_of(frontier.begin(), frontier.end(), [&](const ServingCandidate& q) {
          return q.hardware == c.hardware && price(q) <= price(c) &&
                 latency_s(q, base) <= latency_s(c, base) &&
                 (price(q) < price(c) || latency_s(q, base) < latency_s(c, base));
        });
    if (!dominated) front.push_back(c);
  }
  frontier = std::move(front);
  std::sort(frontier.begin(), frontier.end(),
            [](const ServingCandidate& a, const ServingCandidate& b) {
              return std::tie(a.hardware, a.nodes) < std::tie(b.hardware, b.nodes);
            });
}

ServingDeployment deployment(const PlanRequest& r, const ServingCandidate& c) {
  ServingDeployment d;
  d.server = r.hardware[c.hardware].server.id;
  d.replicas = c.replicas;
  d.tp = c.layout.tp;
  d.pp = c.layout.pp;
  d.ep = c.layout.ep;
  d.nodes = c.nodes;
  d.memory_bytes = c.estimate.memory.total();
  d.capacity_bytes = c.estimate.memory.capacity_bytes;
  d.ttft_s = c.estimate.ttft_s;
  d.tpot_s = c.estimate.tpot_s;
  d.requests_per_s = c.estimate.requests_per_s;
  return d;
}

// Why no single-node plan serves the workload; none when one does.
std::optional<ServingReason> why_not_single_node(const PlanRequest& r, const ServingConstants& k,
                                                 const ModelFacts& f, const SearchNotes& notes,
                                                 bool single_node_plan) {
  const InferenceSpec& in = r.workload.inference;
  ServingReason why;
  if (!notes.single_fit) {
    why.kind = ServingReasonKind::single_node_memory;
    why.bytes = f.weight_bytes;
    why.weights = in.weights;
    why.server = notes.roomiest_server;
    why.capacity_bytes = notes.roomiest_node;
    why.usable_share = k.memory_utilization;
    why.sequence_tokens = in.prompt_tokens + in.output_tokens;
  } else if (!notes.single_latency) {
    why.kind = ServingReasonKind::single_node_latency;
    why.ttft_objective_s = in.ttft_s;
    why.tpot_objective_s = in.tpot_s;
  } else if (!single_node_plan) {
    why.kind = ServingReasonKind::single_node_throughput;
    why.server = notes.single_best_server;
    why.requests_per_s = notes.single_best_rps;
    why.target_rps = in.request_rate;
  } else {
    return std::nullopt;
  }
  return why;
}

// Nothing serves the workload: the closest miss of the latency objectives,
// or why no layout fits.
void explain_infeasible(const PlanRequest& r, const ModelFacts& f, const SearchNotes& notes,
                        ServingPlanResult& res) {
  const InferenceSpec& in = r.workload.inference;
  ServingReason why;
  why.nodes = f.max_nodes;
  const RejectionCounts& rejected = res.stats.rejected_by_reason;
  if (notes.closest_latency) {
    res.recommended = notes.closest_latency;
    why.kind = ServingReasonKind::latency_missed;
    why.ttft_objective_s = in.ttft_s;
    why.tpot_objective_s = in.tpot_s;
    why.deployment = deployment(r, *notes.closest_latency);
  } else if (res.stats.evaluated == 0) {
    why.kind = ServingReasonKind::no_layout;
  } else if (rejected[Rejection::max_nodes] > 0 &&
             rejected[Rejection::memory] < res.stats.evaluated) {
    why.kind = ServingReasonKind::rate_needs_nodes;
    why.target_rps = in.request_rate;
  } else {
    why.kind = ServingReasonKind::no_room;
    why.bytes = f.weight_bytes;
    why.weights = in.weights;
    why.sequence_tokens = in.prompt_tokens + in.output_tokens;
  }
  res.reasons.push_back(why);
}

}  // namespace

int replica_nodes(const ServingCandidate& c, const Server& s) {
  const int per_node = std::max(1, s.gpus_per_node);
  return (c.gpus_per_replica() + per_node - 1) / per_node;
}

bool needs_scaleout_fabric(const ServingCandidate& c, const Server& s) {
  return scaleup_domains(s, replica_nodes(c, s)) > 1;
}

ServingPlanResult plan_serving(const PlanRequest& r, const ServingConstants& k) {
  ServingPlanResult res;
  const Workload& base = r.workload;
  ModelFacts f;
  f.max_nodes = r.fixed.nodes ? *r.fixed.nodes : r.constraints.max_nodes;
  const double wb = weight_bytes_per_param(base.inference.weights, k);
  const ParamCounts pc = count_params(base.model);
  f.weight_bytes = (pc.total() - pc.embedding - pc.output) * wb + (pc.embedding + pc.output) * 2.0;

  SearchNotes notes;
  search(r, k, f, res, notes);
  keep_pareto_front(res.frontier, base);

  std::optional<ServingCandidate> best, best_single, best_multi;
  for (const ServingCandidate& c : res.frontier) {
    if (!best || better(c, *best, r.objective, base)) best = c;
    if (c.nodes == 1 && (!best_single || better(c, *best_single, r.objective, base))) {
      best_single = c;
    }
    if (c.nodes > 1 && (!best_multi || better(c, *best_multi, r.objective, base))) best_multi = c;
    // Fewest nodes of a plan where one replica fits (the deployment's size).
    const int nodes = replica_nodes(c, r.hardware[c.hardware].server);
    if (!res.min_nodes_fit || nodes < *res.min_nodes_fit) res.min_nodes_fit = nodes;
  }
  res.single_node_best = best_single;
  res.best_multi_node = best_multi;
  res.single_node_reason = why_not_single_node(r, k, f, notes, best_single.has_value());

  if (best_single) {
    res.verdict = Verdict::single_node;
    res.recommended = best_single;
    res.reasons.push_back(
        {.kind = ServingReasonKind::one_node_serves, .deployment = deployment(r, *best_single)});
    if (best_multi && best_multi->usd_per_hour > 0 && best_single->usd_per_hour > 0) {
      ServingReason cost{.kind = ServingReasonKind::multi_node_cost};
      cost.usd_per_hour = best_multi->usd_per_hour;
      cost.other_usd_per_hour = best_single->usd_per_hour;
      cost.deployment = deployment(r, *best_multi);
      res.reasons.push_back(cost);
    }
  } else if (best) {
    // Replicas that each fit one node need no network between the nodes.
    const bool one_node_replicas = replica_nodes(*best, r.hardware[best->hardware].server) == 1;
    res.verdict = one_node_replicas ? Verdict::single_node_replicas : Verdict::multi_node;
    res.recommended = best;
    res.reasons.push_back(*res.single_node_reason);
    if (one_node_replicas) {
      res.reasons.push_back(
          {.kind = ServingReasonKind::independent_replicas, .nodes = best->nodes});
    }
    res.reasons.push_back(
        {.kind = ServingReasonKind::recommended, .deployment = deployment(r, *best)});
    if (res.min_nodes_fit && *res.min_nodes_fit > 1) {
      res.reasons.push_back(
          {.kind = ServingReasonKind::replica_nodes, .nodes = *res.min_nodes_fit});
    }
  } else {
    res.verdict = Verdict::infeasible;
    explain_infeasible(r, f, notes, res);
  }
  const InferenceSpec& in = base.inference;
  if (res.recommended && res.verdict != Verdict::infeasible && in.tpot_s > 0) {
    const double slack = in.tpot_s / res.recommended->estimate.tpot_s - 1.0;
    if (slack < res.recommended->band) {
      ServingReason b{.kind = ServingReasonKind::tpot_band};
      b.slack = slack;
      b.band = res.recommended->band;
      res.reasons.push_back(b);
    }
  }
  return res;
}

}  // namespace scaleout
