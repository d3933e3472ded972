// Reads a workload YAML file into a Workload, strictly (docs/input-format.md):
// unknown keys, wrong types, out-of-range values and illegal layouts are
// InputErrors naming the file, line and key, with a suggestion.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hw/catalog.hpp"
#include "io/files.hpp"
#include "workload/layout_dims.hpp"
#include "workload/run_settings.hpp"
#include "workload/workload.hpp"

namespace YAML {
class Node;
}

namespace scaleout::io {

// The workload's whole-run settings (reliability:, storage:, facility:,
// cost:); unset fields take the catalog's defaults (resolve_run_settings).
struct RunInput {
  std::optional<std::string> failure_rate;  // catalog id
  std::optional<double> failures_per_1000_node_days;
  std::optional<double> requeue_minutes;
  std::optional<bool> async_checkpoint;
  std::optional<std::string> storage;  // catalog id
  std::optional<double> bytes_per_token;
  std::optional<double> stall_target;
  std::optional<std::string> facility;  // catalog id
  std::optional<double> pue, usd_per_kwh, colo_usd_per_kw_month, rack_kw, life_years,
      operations_share;
  std::optional<std::string> cost_basis;     // cloud | own
  std::optional<std::string> cloud_pricing;  // on-demand | reserved | spot | capacity-block
  std::optional<double> usd_per_gpu_hour;    // overrides the catalog's cloud price
  std::optional<double> server_usd;          // overrides the catalog's purchase price
};

// Catalog defaults with the workload's overrides. Throws InputError when the
// catalog lacks a default the workload does not give.
RunSettings resolve_run_settings(const Catalog& catalog, const RunInput& in,
                                 const std::string& file);

// What `plan` may not change and what it must meet (docs/input-format.md).
struct PlanInput {
  LayoutKeySet layout_keys;            // layout keys the file fixes (tp, zero, ...)
  std::set<std::string> cluster_keys;  // cluster keys the file fixes (server, nodes, fabric)
  std::optional<double> deadline_days;
  std::optional<double> budget_usd;
  std::optional<double> max_power_kw;
  std::optional<double> min_goodput;
  std::optional<int> max_nodes;
  std::vector<std::string> servers;       // hardware.servers; empty = every server
  std::vector<std::string> fabrics;       // hardware.fabrics; empty = the servers' own NICs
  std::vector<long long> global_batches;  // global_batch given as a list (plan searches them)
};

struct WorkloadFile {
  Workload workload;
  bool has_cluster = false;  // `cluster:` given
  bool has_layout = false;   // `layout:` given
  PlanInput plan;
  RunInput run;
};

// `dir` resolves relative paths (a Hugging Face config.json named by `model:`).
// With check_layout false the layout is not checked against the model and
// cluster (plan searches it and reports what is illegal).
WorkloadFile read_workload(const std::string& text, const std::string& file, const std::string& dir,
                           const Catalog& catalog, bool check_layout = true);

// The same from a parsed YAML mapping (an inline `workload:` of a jobs file);
// errors name `file` and the node's own lines.
WorkloadFile read_workload(const YAML::Node& root, const std::string& file, const std::string& dir,
                           const Catalog& catalog, bool check_layout = true);

}  // namespace scaleout::io
