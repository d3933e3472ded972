// `plan` for a serving workload: searches server x replica layout (TP x PP,
// EP for MoE) x concurrency x replica count, keeps the layouts that fit in
// memory and meet the latency objectives, sizes the replicas for the request
// rate, and answers "one node or several?" with the same verdicts as the
// training planner (docs/model.md, "Inference plan").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inference/serving.hpp"
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
  double band = 0;          // relative uncertainty (docs/validation.md)
  int gpus_per_replica() const { return layout.tp * layout.pp; }
  int gpus() const { return replicas * gpus_per_replica(); }
};

struct ServingPlanResult {
  Verdict verdict = Verdict::infeasible;
  std::vector<std::string> reasons;  // plain words, the binding one first
  std::optional<ServingCandidate> recommended;
  std::optional<ServingCandidate> single_node_best;
  std::string single_node_reason;  // why there is no single-node plan
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
