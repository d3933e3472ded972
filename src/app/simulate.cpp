// `simulate JOBS`: a team's job mix on candidate clusters (sizing through
// plan, the gang scheduler, the verdict).
#include <chrono>
#include <filesystem>
#include <optional>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "app/progress.hpp"
#include "io/files.hpp"
#include "io/jobs_reader.hpp"
#include "report/sim_report.hpp"

namespace scaleout::app {

Output run_simulate(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.jobs).parent_path().string();
  report::SimulateReport rep;
  rep.mix = io::read_jobs(io::read_text_file(o.jobs), o.jobs, dir, catalog);
  const int threads = thread_count(o);
  // Workload jobs are sized by plan on every cluster: each cluster's GPU needs
  // a FLOP rate for each workload's precision.
  for (const sim::JobSpec& job : rep.mix.jobs) {
    if (!job.workload) continue;
    const Precision p =
        job.workload->task == Task::inference ? Precision::bf16 : job.workload->precision;
    for (const sim::CandidateCluster& c : rep.mix.clusters) {
      if (!report::missing_flop_rate(c.gpu, p).empty()) {
        throw report::no_flop_rate_error(c.gpu, p, files, o.jobs, "clusters");
      }
    }
  }
  std::optional<ProgressBar> bar;
  sim::Progress progress;
  if (o.progress) {
    bar.emplace(*o.progress, std::chrono::seconds(1), "simulating", "steps");
    progress = [&bar](long long done, long long total) { bar->update(done, total); };
  }
  rep.result = sim::simulate_mix(rep.mix, threads, progress);
  if (bar) bar->finish();
  require_finite(rep, report::check_simulate, files);
  switch (o.format) {
    case Format::json:
      return {report::simulate_json(rep)};
    case Format::csv:
      return {report::simulate_csv(rep)};
    case Format::html:
      return {report::simulate_html(rep)};
    case Format::text:
      break;
  }
  return {report::simulate_text(rep)};
}

}  // namespace scaleout::app
