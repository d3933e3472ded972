// Writers: turn model results into text, JSON or CSV strings. The CLI
// decides where the strings go.
#pragma once

#include <string>

#include "hw/catalog.hpp"
#include "memory/memory.hpp"
#include "model/params.hpp"
#include "perf/step.hpp"
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
};

std::string estimate_text(const EstimateResult& r);
std::string estimate_json(const EstimateResult& r);

std::string validate_text(const ValidationReport& r);
std::string validate_json(const ValidationReport& r);

// kind: gpus | servers | fabrics | models
std::string catalog_text(const Catalog& c, const std::string& kind);
std::string catalog_json(const Catalog& c, const std::string& kind);

}  // namespace scaleout::report
