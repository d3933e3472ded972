// Plain-text pieces shared by the writers (report-internal; defined in
// plan_report.cpp). Figures (bytes, money, durations) come from format.hpp.
#pragma once

#include <string>

#include "report/format.hpp"
#include "search/planner.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

// `text` broken at each `sep` (" " or ", ") into lines of at most `width`
// columns (a longer piece stays whole): the first line starts with `first`,
// the others with `rest`; a line broken after ", " ends with ","; every line
// ends with a newline.
std::string wrap(const std::string& text, const std::string& first, const std::string& rest,
                 const std::string& sep = " ", std::size_t width = 80);

// "tp 4 pp 2 dp 128 (interleave 4), micro-batch 1, zero 1, recompute none":
// the parallel sizes, then the settings.
std::string layout_line(const Layout& l);
std::string layout_parallel(const Layout& l);
std::string layout_settings(const Layout& l);
// The fabric id, or "8 x 400 Gb/s NICs" for the server's own NICs.
std::string fabric_name(const HardwareOption& hw);
// Whether frontier point `c` is the recommended plan (same hardware option and node count).
bool is_recommended(const PlanResult& p, const PlanCandidate& c);
// Whether a plan meets every constraint: deadline, budget, power and goodput.
bool feasible(const PlanCandidate& c);
// "Searched every node count 1-N; M divide the cluster and the batch; S of F
// points shown ...": the frontier's closing line ("" when one count was searched).
std::string frontier_counts_text(const PlanResult& p, std::size_t shown);
// "Search: N layouts, M evaluations in T s" and one line per rejection reason.
std::string search_text(const SearchStats& s, double seconds);

}  // namespace scaleout::report
