// JSON pieces shared by the estimate and plan writers (report-internal).
#pragma once

#include <nlohmann/json.hpp>

#include "perf/step.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

nlohmann::ordered_json layout_json(const Layout& l);
nlohmann::ordered_json breakdown_json(const StepBreakdown& b);

}  // namespace scaleout::report
