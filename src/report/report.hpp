// Writers: turn model results into text, JSON or CSV strings. The CLI
// decides where the strings go.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/catalog.hpp"
#include "memory/memory.hpp"
#include "model/params.hpp"
#include "perf/step.hpp"
#include "search/planner.hpp"
#include "validation/validation.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

// Everything `estimate` computed for one workload on one cluster.
struct EstimateResult {
  Workload workload;
  Server server;
  Gpu gpu;
  std::string fabric_id;
  ParamCounts params;
  MemoryEstimate memory;
  StepEstimate step;
  std::optional<RunEconomics> run;  // the whole run, when the workload gives its tokens
  RunSettings run_settings;
};

std::string estimate_text(const EstimateResult& r);
std::string estimate_json(const EstimateResult& r);
// One CSV record (RFC 4180) of the estimate's figures; one HTML page (memory
// and step charts, the whole run).
std::string estimate_csv(const EstimateResult& r);
std::string estimate_html(const EstimateResult& r);
// A CSV field: as it is, or in double quotes (quotes doubled) when it holds a
// comma, a quote, CR or LF.
std::string csv_field(const std::string& s);

// A plan and what it was asked (training: PlanResult; serving: ServingPlanResult).
template <typename Result>
struct SearchReport {
  PlanRequest request;
  Result result;
  double seconds = 0;          // wall time of the search
  bool full_frontier = false;  // text: every frontier point, not the compact selection
  // The catalog's cloud prices (committed prices of the bill of materials).
  std::vector<CloudPrice> cloud_prices;
};
using PlanReport = SearchReport<PlanResult>;

std::string plan_text(const PlanReport& r);
std::string plan_json(const PlanReport& r);
// The frontier, one CSV record per hardware option and node count (RFC 4180,
// CRLF line ends, units in the header names).
std::string plan_csv(const PlanReport& r);
// One self-contained HTML page: verdict, reasons, SVG charts and tables.
std::string plan_html(const PlanReport& r);

std::string validate_text(const ValidationReport& r);
std::string validate_json(const ValidationReport& r);
// One CSV record per validation row: measured and predicted values.
std::string validate_csv(const ValidationReport& r);

// `s` with & < > " ' replaced by character references, safe in HTML text and
// attribute values.
std::string html_escape(const std::string& s);

// kind: gpus | servers | fabrics | models
std::string catalog_text(const Catalog& c, const std::string& kind);
std::string catalog_json(const Catalog& c, const std::string& kind);

}  // namespace scaleout::report
