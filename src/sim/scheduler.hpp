// A discrete-event simulation of a gang scheduler on a cluster of identical
// nodes (docs/model.md, "Simulate"): jobs arrive, wait in one queue ordered by
// priority (higher first) and arrival, and start when all their GPUs are free
// at once. Strict FIFO starts only the head of the queue; EASY backfill also
// starts later jobs that do not delay the head's reservation. Non-preemptive;
// durations are known exactly. Plain structs in and out, no I/O.
#pragma once

#include <functional>
#include <vector>

namespace scaleout::sim {

// Progress of a long run: `done` units of `total` finished (for simulate, jobs
// started or found unrunnable). Called from the simulation's thread; it must
// not throw. The simulation itself does no I/O.
using Progress = std::function<void(long long done, long long total)>;

enum class Policy { fifo, backfill };

const char* to_string(Policy p);

// One job as the scheduler sees it. Times in seconds.
struct Job {
  int gpus = 1;           // GPUs it needs at once (gang)
  double duration_s = 0;  // run time once started
  double arrival_s = 0;   // when it enters the queue
  int priority = 0;       // higher runs first; FIFO within a priority
};

struct Cluster {
  int nodes = 1;
  int gpus_per_node = 8;
  long long gpus() const { return static_cast<long long>(nodes) * gpus_per_node; }
};

struct SchedulerOptions {
  Policy policy = Policy::backfill;
  // Backfill looks at most this many queued jobs behind the head per pass
  // (Slurm's bf_max_job_test plays the same role); it bounds the cost of a
  // pass when the queue is long.
  int backfill_depth = 1000;
};

// Placement rule: a job of at most one node's GPUs runs on one node (the
// fullest node it fits on, lowest index on a tie: best fit); a larger job
// holds ceil(gpus / gpus_per_node) whole nodes (the free nodes of lowest index).
int nodes_held(const Job& job, const Cluster& cluster);  // 0 for a one-node job
long long gpus_held(const Job& job, const Cluster& cluster);

struct JobOutcome {
  bool runs = false;  // false: needs more GPUs than the cluster has; never queued
  double arrival_s = 0;
  double start_s = 0;  // when it started (runs only)
  double end_s = 0;
  int first_node = 0;  // the node it ran on (one-node job) or its lowest node
  // Backfill: the reservation the job got when it first waited at the head of
  // the queue (its shadow time); negative when it never did. With equal
  // priorities and exact durations it starts no later (EASY's guarantee).
  double reservation_s = -1;
  double wait_s() const { return runs ? start_s - arrival_s : 0; }
};

struct Schedule {
  std::vector<JobOutcome> jobs;  // same order as the input
  int jobs_run = 0;
  double first_arrival_s = 0;  // of the jobs that run
  double last_end_s = 0;
  double busy_gpu_s = 0;  // sum of GPUs held x duration over the jobs that run
  long long passes = 0;   // scheduling passes (for the benchmark)
};

// Simulates the whole job list to the end. Deterministic: ties of time are
// broken by completions before arrivals, then by input order. Placement finds
// the best-fit node or the lowest free whole nodes through buckets of nodes by
// free GPUs (docs/model.md, "Simulate", "Speed"), not by scanning the nodes.
// `progress`, when set, is called with (jobs decided, jobs) about every 1/256
// of the jobs and once at the end.
Schedule simulate(const std::vector<Job>& jobs, const Cluster& cluster,
                  const SchedulerOptions& options, const Progress& progress = {});

// Figures of a schedule (docs/model.md, "Simulate", for the definitions).
struct Metrics {
  int jobs_run = 0;
  int jobs_unrunnable = 0;
  double makespan_s = 0;   // last completion - first arrival
  double utilisation = 0;  // busy GPU-seconds / (cluster GPUs x makespan)
  double wait_mean_s = 0;  // queueing delay: start - arrival
  double wait_p50_s = 0;   // nearest-rank percentiles of the waits
  double wait_p90_s = 0;
  double wait_p99_s = 0;
  double wait_max_s = 0;
  double turnaround_mean_s = 0;  // completion - arrival
  double busy_gpu_s = 0;
};

Metrics metrics(const Schedule& s, const Cluster& cluster);

// Nearest-rank percentile (p in (0, 100]) of values sorted ascending: the
// ceil(p/100 x n)-th smallest; 0 for an empty list.
double percentile(const std::vector<double>& sorted, double p);

}  // namespace scaleout::sim
