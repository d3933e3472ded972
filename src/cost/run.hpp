// The whole run of a plan (docs/model.md, "Whole run"): reliability and
// checkpoints, storage, power and cost together, from the step estimate of
// one layout on one cluster and the run's settings (catalog defaults with
// the workload's overrides).
#pragma once

#include <string>

#include "cost/cost.hpp"
#include "hw/hardware.hpp"
#include "perf/step.hpp"
#include "reliability/reliability.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// What a run assumes about failures, checkpoints, storage, the site and
// prices. Every field has a catalog default (data/catalog/economics.json);
// the workload may override each one (docs/input-format.md).
struct RunSettings {
  double failures_per_1000_node_days = 0;
  std::string failure_rate_id;  // where the rate came from ("workload" when given)
  double requeue_s = 600;       // detection, re-queue and start per interruption
  bool async_checkpoint = true;
  StorageSystem storage;
  double bytes_per_token = 0;  // stored training data; 0: 2 if vocab <= 65,536 else 4
  double stall_target = 0.02;  // checkpoint stalls as a share of the run
  Facility facility;
  std::string cloud_pricing = "on-demand";
};

struct RunEconomics {
  Reliability reliability;
  SwitchCount network;
  Power power;
  Cost cost;
  double busy = 1;  // share of the step the GPUs compute
};

// Megatron's indexed datasets store token ids as uint16 below 65,536 entries,
// else int32.
double default_bytes_per_token(const ModelShape& m);

RunEconomics evaluate_run(const Workload& w, const Server& server, const Gpu& gpu,
                          const Fabric* fabric, int nodes, const StepEstimate& step,
                          double server_usd, double cloud_usd_per_gpu_hour,
                          const RunSettings& settings);

}  // namespace scaleout
