// Which points of a plan's frontier a compact listing shows. The search
// visits every node count, so a frontier may hold hundreds of points per
// hardware option; JSON and CSV list them all, the text report and the HTML
// table show a readable selection (docs/model.md, "Plan").
#pragma once

#include <vector>

#include "search/knee.hpp"
#include "search/planner.hpp"

namespace scaleout {

// For each point of `p.frontier`, whether a compact listing shows it: the
// counts of ladder_node_counts(max_nodes) (every point when the node count
// is fixed), and per hardware option its smallest count that fits, its knee,
// the deadline crossing (the last count below the first that meets the
// deadline, and that first one), the recommended plan and the fastest
// multi-node plan. `compact` (the text report's default): powers of two
// (1, 2, 4, ..., and max_nodes) instead of the ladder, with the same special
// points.
std::vector<bool> frontier_shown(const PlanResult& p, const PlanRequest& r,
                                 double knee_premium = kKneePremium, bool compact = false);

}  // namespace scaleout
