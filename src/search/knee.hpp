// The knee of the time/cost frontier (docs/model.md, "Knee"): per hardware
// option, the fastest frontier point whose GPU-hours are at most
// (1 + premium) times the option's fewest; past it, going faster costs more
// than that premium.
#pragma once

#include <vector>

#include "search/planner.hpp"

namespace scaleout {

// Default premium: 10 % above the cheapest point of the same hardware option.
inline constexpr double kKneePremium = 0.10;

// For each point of `frontier`, whether it is its hardware option's knee.
// Exactly one point per hardware option with frontier points is a knee. With
// `hardware` (the request's options), a server's slices (plans below a node)
// count as its whole-node option: one knee for all.
std::vector<bool> frontier_knees(const std::vector<PlanCandidate>& frontier,
                                 double premium = kKneePremium,
                                 const std::vector<HardwareOption>* hardware = nullptr);

}  // namespace scaleout
