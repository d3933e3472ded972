// Reads a jobs file (`scaleout simulate JOBS.yaml`) into a JobMix, strictly
// (docs/input-format.md, "Jobs file"): unknown keys, wrong types and
// out-of-range values are InputErrors naming the file, line and key, with a
// suggestion. Workloads (inline or by path) go through read_workload.
#pragma once

#include <cstddef>
#include <string>

#include "hw/catalog.hpp"
#include "sim/mix.hpp"

namespace scaleout::io {

// Most jobs one file may expand to (sum of `count`), checked before any job
// is expanded.
constexpr long long kMaxSimJobs = 1000000;

// Most entries the `jobs` list may hold (`count` makes copies of one entry):
// each entry costs a few KB of parsed YAML, so 10^6 separate entries took
// 4.45 GB and 54 s to read; 10^5 take 361 MB and under 5 s.
constexpr long long kMaxSimJobEntries = 100000;

// Most nodes of one candidate cluster, and most candidate clusters.
constexpr long long kMaxSimNodes = 100000;
constexpr size_t kMaxSimClusters = 64;

// `dir` resolves relative workload paths (the jobs file's folder).
sim::JobMix read_jobs(const std::string& text, const std::string& file, const std::string& dir,
                      const Catalog& catalog);

}  // namespace scaleout::io
