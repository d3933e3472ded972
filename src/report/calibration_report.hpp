// What `scaleout calibrate` fitted, and the catalog overlay it writes
// (the format --catalog reads: whole entries that replace the built-in ones
// by id, the fitted figures changed and sourced to their input file).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/calibration.hpp"
#include "hw/hardware.hpp"

namespace scaleout::report {

// One --steps log and its workload, with the predictions before and after.
struct StepLogFit {
  std::string file, workload_file, format;
  int steps = 0;
  double measured_s = 0, before_s = 0, after_s = 0;
};

struct CalibrationResult {
  std::string date;  // YYYY-MM-DD, the day of the run
  Server server;     // as the catalog had it
  Gpu gpu;
  std::optional<Fabric> fabric;
  std::vector<LinkFit> links;  // one per nccl-tests file, in order given
  // The fit each level's overlay figure comes from (all_reduce's where given).
  std::optional<LinkFit> intra, inter;
  std::string gemm_file;
  ShareFit gemm, fp8_gemm;
  std::vector<StepLogFit> steps;
  std::optional<StepFit> step_fit;
  // The overlay's entries (changed ones only).
  std::optional<Server> new_server;
  std::optional<Fabric> new_fabric;
  std::optional<GpuFamily> new_family;
  std::vector<std::string> changes;  // "nic_gbit_s 400 -> 200 (nccl-tests FILE)", one per figure
  std::string server_source, family_gemm_source, family_fp8_source, family_sustained_source;
  std::vector<std::string> warnings;
};

// "all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv".
const char* collective_label(Collective c);

std::string calibration_overlay_yaml(const CalibrationResult& r);
std::string calibration_text(const CalibrationResult& r);
std::string calibration_json(const CalibrationResult& r);

}  // namespace scaleout::report
