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
// One CSV record (RFC 4180) per candidate cluster; one HTML page (p90 wait and
// utilisation charts, the candidates table).
std::string simulate_csv(const SimulateReport& r);
std::string simulate_html(const SimulateReport& r);

}  // namespace scaleout::report
