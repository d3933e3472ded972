// JSON pieces shared by the estimate and plan writers (report-internal).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cost/run.hpp"
#include "perf/step.hpp"
#include "search/planner.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

nlohmann::ordered_json layout_json(const Layout& l);
nlohmann::ordered_json breakdown_json(const StepBreakdown& b);
// The search counts of a plan (defined in plan_report.cpp).
nlohmann::ordered_json search_json(const SearchStats& s, double seconds);

// The whole run: adds reliability, storage, power, network and cost objects to `into`.
void add_run_json(nlohmann::ordered_json& into, const RunEconomics& e, const RunSettings& s);

// The whole run as indented text lines (at most 80 columns).
std::string run_text(const RunEconomics& e, const RunSettings& s, const std::string& indent);

}  // namespace scaleout::report
