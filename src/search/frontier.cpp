#include "search/frontier.hpp"

#include <algorithm>
#include <map>

namespace scaleout {

std::vector<bool> frontier_shown(const PlanResult& p, const PlanRequest& r, double knee_premium,
                                 bool compact) {
  const std::vector<PlanCandidate>& f = p.frontier;
  std::vector<bool> shown = frontier_knees(f, knee_premium, &r.hardware);
  const int max_nodes = std::max(1, r.constraints.max_nodes);
  std::vector<int> ladder;
  if (compact) {
    for (int n = 1; n < max_nodes; n *= 2) ladder.push_back(n);
    ladder.push_back(max_nodes);
  } else {
    ladder = ladder_node_counts(max_nodes);
  }
  auto same = [](const std::optional<PlanCandidate>& a, const PlanCandidate& b) {
    return a && a->hardware == b.hardware && a->nodes == b.nodes;
  };
  std::map<int, std::size_t> first;           // hardware option -> its smallest count
  std::map<int, std::size_t> first_deadline;  // ... that meets the deadline
  for (std::size_t i = 0; i < f.size(); ++i) {
    const PlanCandidate& c = f[i];
    if (r.fixed.nodes || std::binary_search(ladder.begin(), ladder.end(), c.nodes) ||
        same(p.recommended, c) || same(p.best_multi_node, c) || same(p.single_node_best, c)) {
      shown[i] = true;
    }
    first.try_emplace(c.hardware, i);
    if (c.meets_deadline) first_deadline.try_emplace(c.hardware, i);
  }
  for (const auto& [hw, i] : first) shown[i] = true;
  if (r.constraints.deadline_s) {
    for (const auto& [hw, i] : first_deadline) {
      shown[i] = true;
      // The point before it of the same option misses the deadline.
      if (i > 0 && f[i - 1].hardware == hw) shown[i - 1] = true;
    }
  }
  return shown;
}

}  // namespace scaleout
