// JSON pieces shared by the estimate and plan writers (report-internal).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cost/run.hpp"
#include "perf/step.hpp"
#include "report/reasons.hpp"
#include "search/planner.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

// The workload facts a plan or estimate assumed (task, batch, precision,
// optimizer, framework, fine-tuning method): what launch files configure
// beside the layout.
nlohmann::ordered_json workload_json(const Workload& w);
nlohmann::ordered_json layout_json(const Layout& l);
nlohmann::ordered_json breakdown_json(const StepBreakdown& b);
// The search counts of a plan (defined in plan_report.cpp).
nlohmann::ordered_json search_json(const SearchStats& s, double seconds);
// The regime a prediction interval came from, its rows and its ratios
// (perf/intervals.hpp; defined in plan_report.cpp).
nlohmann::ordered_json interval_json(const PredictionInterval& i);

// The whole run: adds reliability, storage, power, network and cost objects to `into`.
void add_run_json(nlohmann::ordered_json& into, const RunEconomics& e, const RunSettings& s);

// The document as written (2-space indent, a final newline). Text that is
// not valid UTF-8 (a name read from a file) is written with U+FFFD in place
// of the bad bytes rather than failing the whole report.
inline std::string dump_json(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The value, or null when there is none.
template <typename T>
nlohmann::ordered_json nullable(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// The head of a plan, training or serving: verdict, objective, cost basis, reasons.
template <typename Result>
nlohmann::ordered_json plan_head_json(const Result& p, Objective objective,
                                      const std::string& cost_basis) {
  nlohmann::ordered_json j;
  j["verdict"] = to_string(p.verdict);
  j["objective"] = to_string(objective);
  j["cost_basis"] = cost_basis;
  j["reasons"] = sentences(p.reasons);
  return j;
}

// A plan's best candidates (`candidate_json(report, candidate)` writes one)
// and the fewest nodes that fit.
template <typename Report, typename CandidateJson>
void add_best_plans_json(nlohmann::ordered_json& j, const Report& r, CandidateJson candidate_json) {
  const auto& p = r.result;
  j["recommended"] =
      p.recommended ? candidate_json(r, *p.recommended) : nlohmann::ordered_json(nullptr);
  j["single_node_best"] =
      p.single_node_best ? candidate_json(r, *p.single_node_best) : nlohmann::ordered_json(nullptr);
  j["single_node_reason"] = clause(p.single_node_reason);
  j["min_nodes_fit"] = nullable(p.min_nodes_fit);
}

// The whole run as indented text lines (at most 80 columns).
std::string run_text(const RunEconomics& e, const RunSettings& s, const std::string& indent);

}  // namespace scaleout::report
