// `simulate`: a team's job mix (training, fine-tuning and inference jobs) run
// on candidate clusters (one node vs N nodes of a server type) with the gang
// scheduler of scheduler.hpp, and the comparison between the candidates
// (docs/model.md, "Simulate"). Plain structs in and out, no I/O.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/run.hpp"
#include "hw/hardware.hpp"
#include "search/reason.hpp"
#include "sim/scheduler.hpp"
#include "workload/workload.hpp"

namespace scaleout::sim {

// What a job does. Only the label differs today; a workload's task gives it.
enum class JobKind { pretrain, finetune, inference, other };
const char* to_string(JobKind k);

// How `gpus: auto` picks among the plans that fit the cluster.
enum class SizeBy { time, cost };
const char* to_string(SizeBy s);

// A large value that most job specs leave out (a workload, its run
// settings), held by pointer and shared by copies, so that a fixed-size spec
// stays small (a jobs file may hold 10^6 of them). Reads like std::optional:
// `if (s.workload)`, `*s.workload`, `s.workload->task`; set by assignment.
template <class T>
class Shared {
 public:
  Shared() = default;
  // Implicit, like std::optional's.
  Shared(const T& value) : p_(std::make_shared<const T>(value)) {}
  Shared& operator=(const T& value) {
    p_ = std::make_shared<const T>(value);
    return *this;
  }
  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *p_; }
  const T* operator->() const { return p_.get(); }
  // The value, or a default-constructed T when none was set.
  const T& value_or_default() const {
    static const T kDefault{};
    return p_ ? *p_ : kDefault;
  }

 private:
  std::shared_ptr<const T> p_;
};

// One entry of the jobs file: how big a job is, how many arrive and when.
// Either `workload` is set (the planner sizes it per cluster: GPUs and the
// time to train its tokens) or `gpus` and `duration_s` are given. Inference
// jobs are given as a fixed GPU count and a serving window; a workload with
// task inference is where inference sizing will plug in (size_job).
struct JobSpec {
  std::string name;
  JobKind kind = JobKind::pretrain;
  Shared<Workload> workload;
  // Failures, checkpoints, storage for the workload's plan (unset: the
  // defaults of RunSettings).
  Shared<RunSettings> run;
  SizeBy size_by = SizeBy::time;
  int gpus = 0;           // fixed size (no workload)
  double duration_s = 0;  // fixed run time (no workload)
  double at_s = 0;        // the arrival, or where Poisson arrivals start
  int count = 1;          // copies
  double rate_per_s = 0;  // Poisson arrival rate; 0: every copy arrives at at_s
  int priority = 0;       // higher first
};

struct CandidateCluster {
  Server server;
  Gpu gpu;
  std::optional<Fabric> fabric;  // for sizing multi-node plans; none: the server's NICs
  int nodes = 1;
  double usd_per_gpu_hour = 0;  // 0: unpriced
  long long gpus() const { return static_cast<long long>(nodes) * server.gpus_per_node; }
};

struct JobMix {
  std::vector<CandidateCluster> clusters;
  std::vector<JobSpec> jobs;
  unsigned long long seed = 1;
  SchedulerOptions scheduler;
  double wait_target_s = 3600;  // p90 queueing delay the team accepts
};

// Why a spec can never run on a cluster (report/reasons.hpp words it).
enum class SizingMiss {
  none,
  too_many_gpus,  // a fixed job asks for more GPUs than the cluster has (`gpus`)
  inference,      // serving workloads are not sized yet
  no_plan,        // the planner found no plan within the cluster (`plan_reason`)
};

// A spec's size on one cluster.
struct Sizing {
  bool fits = false;  // false: it can never run on this cluster
  int gpus = 0;
  double duration_s = 0;
  int plan_nodes = 0;                     // nodes of the plan (workload jobs)
  Layout layout;                          // the plan's layout (workload jobs)
  SizingMiss miss = SizingMiss::none;     // why it does not fit
  std::optional<PlanReason> plan_reason;  // no_plan: the planner's first reason, if any
};

// Sizes a spec on a cluster: a fixed job fits when the cluster has its GPUs;
// a workload job takes the fastest (SizeBy::time) or fewest-GPU-hours
// (SizeBy::cost) plan of `plan` on this server with at most the cluster's
// nodes, for the plan's wall time to train the workload's tokens (failures,
// restarts and checkpoints included, with `spec.run`).
Sizing size_job(const JobSpec& spec, const CandidateCluster& cluster, int threads);

// Arrival times (seconds) of a spec's copies: all at at_s, or a Poisson
// process from at_s. Deterministic for (seed, spec index) on any platform:
// std::mt19937_64 with our own uniform and exponential conversion.
std::vector<double> arrivals(const JobSpec& spec, unsigned long long seed, int spec_index);

// Exponential variate with the given mean from one 64-bit draw:
// u = (x >> 11) x 2^-53 in [0, 1), then -mean x log(1 - u).
double exponential(unsigned long long x, double mean);

// One job of the expanded mix; the same arrivals on every cluster.
struct MixJob {
  int spec = 0;
  int copy = 0;  // 0-based
  double arrival_s = 0;
};

struct ClusterOutcome {
  CandidateCluster cluster;
  std::vector<Sizing> sizing;  // per spec
  Schedule schedule;           // per MixJob
  Metrics metrics;
  double held_gpu_hours = 0;  // cluster GPUs x makespan
  double cost_usd = 0;        // held_gpu_hours x price; 0 when unpriced
};

struct MixResult {
  std::vector<MixJob> jobs;
  std::vector<ClusterOutcome> clusters;
  int recommended = -1;  // index into clusters; -1: none runs every job
  // Plain words, the choice first. The clusters that cannot run some job
  // are worded by the writer from `clusters` (report/sim_report.cpp).
  std::vector<std::string> reasons;
};

// Job name as printed: the spec's name, with #k (1-based) when count > 1.
std::string job_name(const JobMix& mix, const MixJob& job);

// Runs the mix on every candidate. `progress`, when set, is called from this
// thread with (units done, total units), where a unit is one spec sized or one
// job scheduled on one candidate: total = candidates x (specs + jobs).
MixResult simulate_mix(const JobMix& mix, int threads, const Progress& progress = {});

}  // namespace scaleout::sim
