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
#include "workload/run_settings.hpp"
#include "workload/workload.hpp"

namespace scaleout {

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
