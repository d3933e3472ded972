// Reasons as data: why the search rejected a candidate (`Rejection`, counted
// in a fixed array) and why a plan has its verdict (`PlanReason`: a kind and
// the figures its sentence quotes). The model writes no English; the writers
// in src/report turn these into sentences (report/reasons.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace scaleout {

// Why the search set a candidate aside. The first four are counted per
// layout; the last four per plan that fits but misses a constraint.
enum class Rejection {
  no_scale_out_network,  // several nodes of a server without NICs
  framework,             // a parallelism the framework does not implement
  divisibility,          // the layout does not divide the model, batch or cluster
  memory,                // does not fit in GPU memory
  max_nodes,             // serving: more nodes than allowed
  latency,               // serving: misses the TTFT or TPOT objective
  deadline,
  budget,
  power,
  goodput,
};
inline constexpr std::size_t kRejections = static_cast<std::size_t>(Rejection::goodput) + 1;

// Candidates rejected per reason: a fixed array, no allocation per candidate.
struct RejectionCounts {
  std::array<long long, kRejections> count{};
  void add(Rejection r, long long n = 1) { count[static_cast<std::size_t>(r)] += n; }
  long long operator[](Rejection r) const { return count[static_cast<std::size_t>(r)]; }
  RejectionCounts& operator+=(const RejectionCounts& o) {
    for (std::size_t i = 0; i < kRejections; ++i) count[i] += o.count[i];
    return *this;
  }
};

// A reason of a training plan. Each kind uses the figures listed beside it;
// the others stay at their defaults.
enum class PlanReasonKind {
  // Why there is no single-node plan. Alone they are the clause of
  // `single_node_reason`; in `reasons` they open a multi-node verdict under
  // a heading (Capacity, Time, Budget, Power, Goodput).
  single_node_memory,     // bytes (least per-GPU peak), capacity_bytes, zero1
  single_node_no_layout,  // (no figures)
  single_node_time,       // time_s, deadline_s
  single_node_budget,     // (no figures)
  single_node_power,      // power_W, power_limit_W
  single_node_goodput,    // goodput, min_goodput
  // Fits one node only at the central memory estimate (a safe plan on more
  // nodes exists): bytes (central), high_bytes (high end), capacity_bytes.
  single_node_margin,
  // Single-node verdict.
  one_node_fits,  // server, bytes, capacity_bytes, time_s, deadline_s (optional);
                  // gpus, whole_gpus when the plan uses part of the node (a slice)
  // The cheapest plan that meets the deadline (plans below a node searched,
  // a deadline given): server, nodes, gpus, whole_gpus (0: whole nodes), usd, time_s, deadline_s;
  // other_gpus, other_usd, other_time_s: the recommended plan when it is not
  // this one (within the objective's 0.1 % cost tie, it went to the faster).
  cheapest_deadline,
  scale_out_faster,  // nodes, time_s, speedup, usd (multi-node), other_usd (single-node); 0:
                     // unpriced; server (single-domain verdict only)
  // Single-domain verdict: several nodes of one NVLink domain hold the job.
  one_domain_fits,  // server, nodes, gpus, domain_gpus, domain_nodes, time_s, deadline_s
  // ... when a plan over several domains ranks higher by the objective (and
  // is not the faster one scale_out_faster names): server, nodes, time_s, usd
  scale_out_ranks_higher,
  // Multi-node verdict on hardware with NVLink domains of several nodes:
  // why one domain is not enough (server, domain_gpus, domain_nodes and):
  domain_memory,       // nodes (smallest fit on that server; 0: none up to max_nodes)
  domain_time,         // time_s (fastest one-domain plan), deadline_s
  domain_constraints,  // (no figures: budget, power, goodput, or a deadline at one node)
  // Multi-node verdict.
  smallest_fit,       // nodes
  smallest_deadline,  // nodes, deadline_s
  // Infeasible verdict.
  nothing_fits,             // any_legal, fixed_nodes, nodes (fixed count or max_nodes)
  fastest_misses_deadline,  // nodes, server, time_s, deadline_s
  fastest_over_budget,      // usd, other_usd (the budget)
  no_price,                 // own_basis, server (own: the server id; cloud: the GPU id)
  fastest_over_power,       // power_W, power_limit_W
  fastest_under_goodput,    // goodput, min_goodput
  // Any verdict but infeasible: the uncertainty band straddles the deadline.
  deadline_band,  // deadline_s, slack, band
  // ... the same for the budget: usd (the cost at the high end of the time
  // interval), other_usd (the budget).
  budget_band,
  // No deadline given: plans are held to kDefaultHorizonDays (deadline_s).
  default_horizon,
  // ... and no plan finishes within it: the horizon is dropped (deadline_s,
  // time_s: the fastest plan's time).
  horizon_dropped,
  // The recommended plan fits only at the central memory estimate (no plan
  // fits at the high end): bytes (central), high_bytes, capacity_bytes.
  memory_tight,
};

struct PlanReason {
  PlanReasonKind kind = PlanReasonKind::single_node_no_layout;
  std::string server{};  // a server id (no_price on the cloud basis: a GPU id)
  int nodes = 0;
  int gpus = 0;                           // one_domain_fits: GPUs of the plan
  int whole_gpus = 0;                     // a slice: the whole server's GPUs (0: whole nodes)
  int domain_gpus = 0, domain_nodes = 0;  // one NVLink domain: GPUs, nodes
  double bytes = 0, capacity_bytes = 0;   // per GPU
  double high_bytes = 0;                  // per GPU: the high end of the memory interval
  // single_node_memory of a MoE model: the routed experts' weights,
  // gradients and optimizer state, and the rest of the model state, per GPU.
  double expert_bytes = 0, state_bytes = 0;
  double time_s = 0;                   // time to train
  std::optional<double> deadline_s{};  // none: no deadline
  double usd = 0, other_usd = 0;
  int other_gpus = 0;       // cheapest_deadline: the recommended plan's GPUs (0: the same plan)
  double other_time_s = 0;  // cheapest_deadline: the recommended plan's time to train
  double power_W = 0, power_limit_W = 0;
  double goodput = 0, min_goodput = 0;  // shares of wall time
  double speedup = 0;                   // single-node time / multi-node time
  double slack = 0, band = 0;           // deadline / time - 1; relative uncertainty
  bool zero1 = false;                   // memory quoted with the distributed optimizer, else ZeRO-3
  bool any_legal = false;               // some layout was legal (nothing fitted in memory)
  bool fixed_nodes = false;             // the node count is fixed by cluster.nodes
  bool own_basis = false;               // costs on owned hardware, else cloud
};

}  // namespace scaleout
