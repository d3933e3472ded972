// `plan`: searches server x node count x fabric x parallel layout for a
// workload, checks cheap things first (divisibility, memory), then time and
// cost, and returns the verdict the article asks for: one node or several,
// with the binding reason, the recommended plan and the time/cost frontier
// (docs/model.md, "Plan").
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cost/run.hpp"
#include "hw/hardware.hpp"
#include "perf/intervals.hpp"
#include "perf/step.hpp"
#include "search/reason.hpp"
#include "workload/layout_dims.hpp"
#include "workload/workload.hpp"

namespace scaleout {

enum class Objective { cost, time, energy };
// Which cost `cost`, budgets and the frontier use.
enum class CostBasis { cloud, own };
// The scale-up answer: one chassis; one NVLink domain of several chassis (a
// GB200 NVL72 rack: no scale-out network); several domains over the network.
// Serving only: several nodes that each hold whole replicas, with no network
// between them (single_node_replicas).
enum class Verdict { single_node, single_domain, multi_node, infeasible, single_node_replicas };

const char* to_string(Objective o);
const char* to_string(Verdict v);
const char* to_string(CostBasis b);

// One kind of cluster the search may use: a server, its GPU, a scale-out
// fabric (none: the server's own NICs at InfiniBand efficiency) and a price.
struct HardwareOption {
  Server server;
  Gpu gpu;
  std::optional<Fabric> fabric;
  double usd_per_gpu_hour = 0;  // 0: no price in the catalog
  double server_usd = 0;        // purchase price of one server; 0: not priced
  // A plan below a node (slice_option): the index in PlanRequest::hardware of
  // the whole server's option it is a slice of; -1: whole nodes.
  int whole = -1;
  bool is_slice() const { return server.whole_gpus > 0; }
};

// GPUs of one server a plan below a node may use (those fewer than the server's).
inline constexpr std::array<int, 3> kSliceGpus = {1, 2, 4};

// `gpus` GPUs of `hw`'s server (slice_server) on one node, priced by the
// GPU-hour: the cloud price per GPU-hour unchanged, the purchase price the
// slice's share of the server's; no scale-out fabric (docs/model.md, "Plans
// below a node").
HardwareOption slice_option(const HardwareOption& hw, int gpus);

// Layout fields the user fixed, by row of the layout-dimension table
// (workload/layout_dims.hpp: `get(LayoutKey::tp)`, `has`, `values`); the
// rest are searched. `nodes`: cluster.nodes.
struct FixedLayout : FixedValues {
  std::optional<int> nodes;
};

struct PlanConstraints {
  std::optional<double> deadline_s;
  std::optional<double> budget_usd;
  std::optional<double> max_power_W;  // cluster IT power at the plan's load
  std::optional<double> min_goodput;  // share of wall time spent on useful steps
  int max_nodes = 512;
};

struct PlanRequest {
  Workload workload;  // model, task, tokens, batch, precision, optimizer, framework
  // Global batches (sequences) to consider; empty: the workload's own.
  std::vector<long long> global_batches;
  FixedLayout fixed;
  std::vector<HardwareOption> hardware;
  PlanConstraints constraints;
  Objective objective = Objective::cost;
  CostBasis cost_basis = CostBasis::cloud;
  RunSettings run;  // failures, checkpoints, storage, site and prices
  int threads = 1;
  // Called once after each searched cell with (cells done, cells in all),
  // from the search threads and possibly from several at once: it must be
  // thread-safe and cheap. Empty: not called. It never changes the result.
  std::function<void(long long done, long long total)> progress;
};

struct PlanCandidate {
  int hardware = 0;  // index into PlanRequest::hardware
  int nodes = 0;
  int scaleup_domains = 1;     // NVLink domains the nodes span; 1: no scale-out network
  long long global_batch = 0;  // sequences per step
  Layout layout;
  MemoryEstimate memory;
  StepEstimate step;
  RunEconomics run;            // reliability, storage, power, cost of the whole run
  double time_to_train_s = 0;  // wall time with failures and checkpoints (run.reliability)
  double cost_usd = 0;         // the run's cost on the request's basis; 0 when unpriced
  // The central 80 % intervals of the plan's regime (perf/intervals.hpp,
  // docs/model.md "Prediction intervals"): time to train and per-GPU memory.
  PredictionInterval time_interval, memory_interval;
  double time_to_train_low_s = 0, time_to_train_high_s = 0;
  double memory_low_bytes = 0, memory_high_bytes = 0;
  // The high end of the memory interval fits: the plan the search recommends
  // when one exists ("tight" otherwise; docs/model.md, "Memory margin").
  bool memory_safe = true;
  // Relative uncertainty of the time: the high end of its interval less 1
  // (the launch files' wall-clock margin).
  double band = 0;
  bool within_horizon = true;  // finishes within kDefaultHorizonDays
  bool meets_deadline = true;
  bool within_budget = true;
  bool within_power = true;
  bool meets_goodput = true;
  int gpus() const { return layout.gpus(); }
};

// With no deadline, plans are held to this horizon: a run that would take
// longer than a quarter of a year on the recommended cluster is rarely what
// anyone buys hardware for, and without a horizon the cheapest plan of a
// large pre-training is a single node for years (issue 21). Plans within it
// are preferred; when none is, the horizon is dropped and the reasons say so.
inline constexpr double kDefaultHorizonDays = 90;

struct SearchStats {
  int node_counts = 0;            // node counts in the searched range (max_nodes; 1 when fixed)
  int node_counts_divisible = 0;  // ... at which some layout divides the cluster and batch
  long long candidates = 0;       // layouts enumerated
  long long evaluated = 0;        // full evaluations (memory; time where it fits)
  RejectionCounts rejected_by_reason;
};

struct PlanResult {
  Verdict verdict = Verdict::infeasible;
  std::vector<PlanReason> reasons;  // the binding one first (report/reasons.hpp words them)
  std::optional<PlanCandidate> recommended;
  std::optional<PlanCandidate> single_node_best;  // fastest single-node plan that fits
  std::optional<PlanReason> single_node_reason;   // why there is none (a single_node_* kind)
  std::optional<PlanCandidate> best_multi_node;   // what scaling out would buy
  // Best plan on several nodes of one NVLink domain (the recommended one of a
  // single-domain verdict); none when no such plan meets the constraints.
  std::optional<PlanCandidate> single_domain_best;
  std::optional<int> min_nodes_fit;       // smallest node count with a plan that fits
  std::optional<int> min_nodes_deadline;  // ... that also meets the deadline
  std::vector<PlanCandidate> frontier;    // per hardware and node count, the fastest fit
  SearchStats stats;
};

// Adds the plans below a node to a training request: for each server of
// `r.hardware` (once, whatever its fabrics), its slices of kSliceGpus GPUs
// fewer than the server's, placed before the server's whole-node options.
// None when the file fixes more than one node. The search tries a slice on
// one node only; a slice no layout fits never reaches the frontier.
void add_slice_options(PlanRequest& r);

// The node counts the search visits: every count from 1 to max_nodes.
std::vector<int> node_counts(int max_nodes);

// The ladder the text frontier shows: every count to 8, then four per
// doubling (10, 12, 14, 16, 20, 24, 28, 32, ...), and max_nodes.
std::vector<int> ladder_node_counts(int max_nodes);

// The node counts `plan` searches on hardware option `hardware` for one
// global batch: those of node_counts(max_nodes) at which some tensor x
// context x pipeline degree the search tries divides the cluster with a
// data-parallel degree that splits the batch into whole micro-batches (and
// the framework runs it); the fixed count alone when cluster.nodes is given.
// No count with a legal layout is left out.
std::vector<int> searched_node_counts(const PlanRequest& r, int hardware, long long batch);

// The interval regime of a plan on `nodes` nodes of `hw`.
RegimeKey regime_of(const Workload& w, const HardwareOption& hw, int nodes, IntervalMetric metric);

PlanResult plan(const PlanRequest& request);

}  // namespace scaleout
