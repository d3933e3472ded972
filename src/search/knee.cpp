#include "search/knee.hpp"

#include <map>

namespace scaleout {

std::vector<bool> frontier_knees(const std::vector<PlanCandidate>& frontier, double premium,
                                 const std::vector<HardwareOption>* hardware) {
  auto group = [&](const PlanCandidate& c) {
    if (!hardware || c.hardware < 0 || c.hardware >= static_cast<int>(hardware->size())) {
      return c.hardware;
    }
    const int whole = (*hardware)[static_cast<size_t>(c.hardware)].whole;
    return whole >= 0 ? whole : c.hardware;
  };
  // GPU-hours, not dollars: within one hardware option the price per GPU-hour
  // is fixed, so both give the same knee, and unpriced options get one too.
  auto gpu_hours = [](const PlanCandidate& c) {
    return static_cast<double>(c.gpus()) * c.time_to_train_s / 3600.0;
  };
  std::map<int, double> least;  // hardware option -> fewest GPU-hours
  for (const PlanCandidate& c : frontier) {
    auto [it, fresh] = least.try_emplace(group(c), gpu_hours(c));
    if (!fresh && gpu_hours(c) < it->second) it->second = gpu_hours(c);
  }
  std::map<int, std::size_t> knee;  // hardware option -> index of its knee
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const PlanCandidate& c = frontier[i];
    if (gpu_hours(c) > (1.0 + premium) * least[group(c)]) continue;
    auto [it, fresh] = knee.try_emplace(group(c), i);
    const PlanCandidate& k = frontier[it->second];
    // Fastest; on a tie of times, fewer nodes.
    if (!fresh && (c.time_to_train_s < k.time_to_train_s ||
                   (c.time_to_train_s == k.time_to_train_s && c.nodes < k.nodes))) {
      it->second = i;
    }
  }
  std::vector<bool> out(frontier.size(), false);
  for (const auto& [hw, i] : knee) out[i] = true;
  return out;
}

}  // namespace scaleout
