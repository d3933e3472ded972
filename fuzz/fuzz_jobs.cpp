// libFuzzer target: read_jobs on the input as jobs YAML text, with the
// built-in catalog, then the simulation of its fixed-size jobs. InputError is
// the expected answer to bad input; any other exception, crash or sanitizer
// report is a bug. Jobs sized by the planner (`workload:`) are read but not
// simulated, and only mixes of at most 2000 jobs on at most 64 nodes, to keep
// each input fast.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/jobs_reader.hpp"
#include "sim/mix.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const scaleout::Catalog& catalog = scaleout::io::builtin_catalog();
  try {
    // `workload: w.yaml` resolves in fuzz/cli-files (SCALEOUT_FUZZ_HF_DIR).
    scaleout::sim::JobMix mix =
        scaleout::io::read_jobs(text, "fuzz.yaml", SCALEOUT_FUZZ_HF_DIR, catalog);
    std::erase_if(mix.jobs, [](const scaleout::sim::JobSpec& s) { return s.workload.has_value(); });
    long long jobs = 0;
    for (const auto& s : mix.jobs) jobs += s.count;
    bool small = jobs <= 2000;
    for (const auto& c : mix.clusters) small = small && c.nodes <= 64;
    if (!mix.jobs.empty() && small) (void)scaleout::sim::simulate_mix(mix, 1);
  } catch (const scaleout::InputError&) {
  }
  return 0;
}
