// Failures, checkpoints and goodput of a whole run (docs/model.md,
// "Reliability and checkpoints"): the job's mean time between interruptions
// from a per-node failure rate, the checkpoint interval of Young (1974) and
// Daly (2006), and the expected wall time of a run with failures, restarts
// and checkpoints (Daly 2006, exponential failures). Also the storage
// bandwidth a run needs and whether the storage system is the bottleneck.
#pragma once

#include <string>

#include "hw/hardware.hpp"

namespace scaleout {

// Shortest stop of an asynchronous checkpoint: staging the state in host
// memory takes seconds, not the bare PCIe copy time (PyTorch DCP async: 6.3 s
// for a 7B model [PT-ASYNC]; MegaScale: "several seconds" [MEGASCALE]).
inline constexpr double kAsyncSnapshotMin_s = 6.3;

// Mean time between job interruptions, seconds, when any of `nodes` nodes
// failing stops the job: 1 / (nodes x rate) (Kokolis et al. 2025 project
// their cluster's MTTF this way). A scale-up domain that spans chassis
// (NVL72) adds its shared switch trays once per domain the job spans:
// 1 / (nodes x rate + domains x domain_rate).
double job_mtbf_s(double failures_per_1000_node_days, int nodes,
                  double domain_failures_per_1000_days = 0, int domains = 0);

// Young (1974): tau = sqrt(2 delta M). delta = checkpoint save time (the part
// that stops training), M = mean time between interruptions; seconds.
double young_interval_s(double delta_s, double mtbf_s);

// Daly (2006), higher-order estimate: tau = sqrt(2 delta M) [1 + 1/3
// sqrt(delta / 2M) + 1/9 (delta / 2M)] - delta for delta < 2M, else M.
double daly_interval_s(double delta_s, double mtbf_s);

// Expected wall time of `solve_s` seconds of work checkpointed every `tau_s`
// seconds of work, each checkpoint stopping training for `delta_s`, each
// interruption costing `restart_s` before work resumes, with exponentially
// distributed interruptions of mean `mtbf_s` (Daly 2006, eq. 20):
//   T = M e^(R/M) (e^((tau + delta)/M) - 1) solve / tau.
double daly_wall_time_s(double solve_s, double tau_s, double delta_s, double restart_s,
                        double mtbf_s);

// What a run needs from storage, and what the storage system gives it.
struct StorageCheck {
  double required_read_Bps = 0;   // training data: tokens/s x bytes per token
  double required_write_Bps = 0;  // checkpoints: to keep stalls under the target share
  double available_read_Bps = 0;  // the storage system for this cluster
  double available_write_Bps = 0;
  std::string bottleneck;  // "none", "checkpoint writes", "data reads" or both
};

// Read/write bandwidth a storage system gives `nodes` nodes of `gpus_per_node`
// GPUs: the smallest of its per-node, per-GPU and whole-system limits (a
// limit of 0 is no limit).
double storage_read_Bps(const StorageSystem& s, int nodes, int gpus_per_node);
double storage_write_Bps(const StorageSystem& s, int nodes, int gpus_per_node);

struct ReliabilityInput {
  double ideal_time_s = 0;  // time to train without failures or checkpoints
  int nodes = 1;
  int gpus_per_node = 1;
  double failures_per_1000_node_days = 0;
  // Shared switch trays of the scale-up domains the job spans (NVL72),
  // counted only when the per-node rate is above 0 (a rate of 0 turns
  // failures off).
  int domains = 0;
  double domain_failures_per_1000_days = 0;
  double checkpoint_bytes = 0;   // whole model state saved
  double host_link_Bps = 0;      // GPU to host, one GPU (asynchronous snapshots)
  double requeue_s = 600;        // detection, re-queue and process start per interruption
  bool async_checkpoint = true;  // snapshot to host memory, write in the background
  StorageSystem storage;         // where checkpoints go and data comes from
  double tokens_per_s = 0;       // training throughput (data reads)
  double bytes_per_token = 2;    // stored token format
  double stall_target = 0.02;    // largest share of time checkpoints may stop training
};

struct Reliability {
  double failures_per_1000_node_days = 0;
  double domain_failures_per_1000_days = 0;  // switch trays of one domain (0: none)
  int domains = 0;                           // scale-up domains counted
  double mtbf_s = 0;                         // of the whole job
  double checkpoint_bytes = 0;
  double checkpoint_write_s = 0;  // writing one checkpoint to storage
  double checkpoint_block_s = 0;  // training stopped per checkpoint (delta)
  double restart_s = 0;           // re-queue + reading the last checkpoint back
  double young_interval_s = 0;
  double checkpoint_interval_s = 0;   // Daly's, at least the background write time
  double wall_time_s = 0;             // expected, with failures, restarts and checkpoints
  double goodput = 1;                 // ideal time / wall time
  double expected_interruptions = 0;  // wall time / MTBF
  StorageCheck storage;
};

Reliability estimate_reliability(const ReliabilityInput& in);

}  // namespace scaleout
