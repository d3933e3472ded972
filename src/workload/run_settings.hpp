// The settings of a whole run (failures, checkpoints, storage, site, prices):
// plain data that the workload reader fills and the whole-run model
// (cost/run.hpp, evaluate_run) reads.
#pragma once

#include <string>

#include "hw/hardware.hpp"

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

}  // namespace scaleout
