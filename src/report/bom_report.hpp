// The bill of materials of a plan (cost/bom.hpp) for every writer: built
// from a training or serving candidate, and worded as text lines (80
// columns), a JSON object, CSV fields and HTML rows (report-internal).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cost/bom.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"

namespace scaleout::report {

BillOfMaterials plan_bom(const PlanReport& r, const PlanCandidate& c);
BillOfMaterials serving_bom(const ServingPlanReport& r, const ServingCandidate& c);

// "What to buy" lines, two-space indented, at most 80 columns.
std::string bom_text(const BillOfMaterials& b);
nlohmann::ordered_json bom_json(const BillOfMaterials& b);
// Header names and the values of one plan (units in the names).
std::vector<std::string> bom_csv_header();
std::vector<std::string> bom_csv_fields(const BillOfMaterials& b);
// <tr> rows of a two-column table (escaped).
std::string bom_html_rows(const BillOfMaterials& b);

}  // namespace scaleout::report
