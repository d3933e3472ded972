// Writers for serving workloads (task: inference): `estimate` (memory per GPU,
// concurrency, TTFT, TPOT, throughput, replicas) and `plan` (the same
// top-level shape as training plans: verdict, reasons, recommended,
// single_node_best, frontier, search), as text or JSON strings.
#pragma once

#include <string>

#include "hw/hardware.hpp"
#include "inference/serving.hpp"
#include "inference/serving_plan.hpp"
#include "model/params.hpp"
#include "report/report.hpp"
#include "search/planner.hpp"
#include "validation/serving_validation.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

struct ServingEstimateReport {
  Workload workload;
  Server server;
  Gpu gpu;
  std::string fabric_id;
  ParamCounts params;
  ServingEstimate estimate;
  int cluster_replicas = 1;  // replicas the workload's cluster holds (its dp)
};

std::string serving_estimate_text(const ServingEstimateReport& r);
std::string serving_estimate_json(const ServingEstimateReport& r);
// One CSV record (RFC 4180) of the estimate's figures; one HTML page.
std::string serving_estimate_csv(const ServingEstimateReport& r);
std::string serving_estimate_html(const ServingEstimateReport& r);

using ServingPlanReport = SearchReport<ServingPlanResult>;

std::string serving_plan_text(const ServingPlanReport& r);
std::string serving_plan_json(const ServingPlanReport& r);
// The frontier, one CSV record per server and node count (as plan_csv), with
// each point's replicas, latencies, price and bill of materials.
std::string serving_plan_csv(const ServingPlanReport& r);
// One self-contained HTML page: verdict, reasons, the recommended plan, what
// to buy, cost and TPOT charts (chart-cost, chart-latency), the frontier.
std::string serving_plan_html(const ServingPlanReport& r);

// `validate` of a serving CSV: per-row predictions, MAPE per metric and source.
std::string serving_validate_text(const ServingValidationReport& r);
std::string serving_validate_json(const ServingValidationReport& r);

}  // namespace scaleout::report
