// Reads a jobs file (`scaleout simulate JOBS.yaml`) into a JobMix, strictly
// (docs/input-format.md, "Jobs file"): unknown keys, wrong types and
// out-of-range values are InputErrors naming the file, line and key, with a
// suggestion. Workloads (inline or by path) go through read_workload.
#pragma once

#include <string>

#include "hw/catalog.hpp"
#include "sim/mix.hpp"

namespace scaleout::io {

// Most jobs one file may expand to (sum of `count`).
constexpr long long kMaxSimJobs = 1000000;

// `dir` resolves relative workload paths (the jobs file's folder).
sim::JobMix read_jobs(const std::string& text, const std::string& file, const std::string& dir,
                      const Catalog& catalog);

}  // namespace scaleout::io
