// Writers for `simulate`: the comparison of the candidate clusters, each
// cluster's figures and its jobs, as text (80 columns) or JSON strings.
#pragma once

#include <string>

#include "sim/mix.hpp"

namespace scaleout::report {

struct SimulateReport {
  sim::JobMix mix;
  sim::MixResult result;
};

// Text lists the `text_jobs` longest waits of each cluster; JSON lists every job.
std::string simulate_text(const SimulateReport& r, int text_jobs = 10);
std::string simulate_json(const SimulateReport& r);

}  // namespace scaleout::report
