// `plan` for a serving workload: searches server x replica layout (TP x PP,
// EP for MoE) x concurrency x replica count, keeps the layouts that fit in
// memory and meet the latency objectives, sizes the replicas for the request
// rate, and answers "one node or several?" with the same verdicts as the
// training planner (docs/model.md, "Inference plan").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inference/serving.hpp"
#include "perf/intervals.hpp"
#include "search/planner.hpp"

namespace scaleout {

struct ServingCandidate {
  int hardware = 0;  // index into PlanRequest::hardware
  Layout layout;     // tp, pp, ep of one replica (dp = replicas)
  ServingEstimate estimate;
  int replicas = 1;
  int nodes = 1;            // whole nodes the replicas take
  double usd_per_hour = 0;  // nodes x GPUs per node x cloud price; 0 when unpriced
  double usd_per_mtok = 0;  // per million output tokens at the served rate; 0 when unpriced
  double served_rps = 0;    // requests/s the deployment sustains
  double band = 0;          // relative uncertainty: the interval's high end - 1
  // The calibrated 80 % interval of the serving regime (perf/intervals.hpp):
  // measured / predicted time at its ends; served_rps / high ... / low.
  PredictionInterval interval;
  int gpus_per_replica() const { return layout.tp * layout.pp; }
  int gpus() const { return replicas * gpus_per_replica(); }
};

// Nodes one replica of `c` spans on `s` (1 when it fits one node).
int replica_nodes(const ServingCandidate& c, const Server& s);
// Whether a replica spans several scale-up domains, so that its nodes talk
// over a scale-out network; replicas themselves never talk to each other.
bool needs_scaleout_fabric(const ServingCandidate& c, const Server& s);

// A deployment a reason names ("2 replicas of TP 4 x PP 1 on 1 node of
// dgx-h100") and the figures it quotes.
struct ServingDeployment {
  std::string server;
  int replicas = 1, tp = 1, pp = 1, ep = 1, nodes = 1;
  double memory_bytes = 0, capacity_bytes = 0;  // per GPU
  double ttft_s = 0, tpot_s = 0;
  double requests_per_s = 0;  // per replica
};

// A reason of a serving plan. Each kind uses the figures listed beside it;
// the others stay at their defaults. report/reasons.hpp words them.
enum class ServingReasonKind {
  // Why there is no single-node plan. Alone they are the clause of
  // `single_node_reason`; in `reasons` they open a multi-node verdict under
  // a heading (Capacity, Latency, Throughput).
  single_node_memory,      // bytes (weights), weights, server and capacity_bytes (the roomiest
                           // node), usable_share, sequence_tokens
  single_node_latency,     // ttft_objective_s, tpot_objective_s (0: none)
  single_node_throughput,  // server, requests_per_s (one node's most), target_rps
  // Single-node verdict.
  one_node_serves,  // deployment
  multi_node_cost,  // deployment (the best multi-node plan), usd_per_hour (it), other_usd_per_hour
  // Multi-node verdict.
  recommended,    // deployment
  replica_nodes,  // nodes (that one replica needs)
  // Single-node-replicas verdict: nodes of independent one-node replicas.
  independent_replicas,  // nodes (of the recommended plan)
  // Infeasible verdict.
  latency_missed,    // ttft_objective_s, tpot_objective_s, deployment (the closest)
  no_layout,         // nodes (max_nodes)
  rate_needs_nodes,  // target_rps, nodes (max_nodes)
  no_room,           // bytes (weights), weights, nodes (max_nodes), sequence_tokens
  // Any verdict but infeasible: the uncertainty band straddles the TPOT objective.
  tpot_band,  // slack, band
};

struct ServingReason {
  ServingReasonKind kind = ServingReasonKind::no_layout;
  std::string server{};
  WeightFormat weights = WeightFormat::bf16;
  int nodes = 0;
  double bytes = 0, capacity_bytes = 0;
  double usable_share = 0;  // of GPU memory the engine may take
  long long sequence_tokens = 0;
  double ttft_objective_s = 0, tpot_objective_s = 0;  // 0: none
  double requests_per_s = 0, target_rps = 0;
  double usd_per_hour = 0, other_usd_per_hour = 0;
  double slack = 0, band = 0;  // objective / predicted - 1; relative uncertainty
  std::optional<ServingDeployment> deployment{};
};

struct ServingPlanResult {
  Verdict verdict = Verdict::infeasible;
  std::vector<ServingReason> reasons;  // the binding one first
  std::optional<ServingCandidate> recommended;
  std::optional<ServingCandidate> single_node_best;
  std::optional<ServingReason> single_node_reason;  // why there is no single-node plan
  std::optional<ServingCandidate> best_multi_node;
  std::optional<int> min_nodes_fit;        // fewest nodes of any plan that fits one replica
  std::vector<ServingCandidate> frontier;  // per hardware and node count, the best plan
  SearchStats stats;
};

// Uses the request's workload (task: inference), fixed tp/pp/ep, hardware,
// max_nodes, objective (cost: lowest $/hour, then the lowest request latency
// TTFT + O x TPOT; time: the lowest latency, then $/hour). Deadline and budget are not used.
ServingPlanResult plan_serving(const PlanRequest& request, const ServingConstants& k = {});

}  // namespace scaleout
