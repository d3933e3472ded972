#include "report/sim_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "report/format.hpp"
#include "report/html_page.hpp"
#include "report/json_parts.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/schema.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

namespace {

constexpr double kH = 3600.0;

// Hours with a precision that fits a 9-character column: "0.25 h", "31.2 h", "1234 h".
std::string hours(double s) {
  const double h = s / kH;
  if (h < 9.995) return fmt::format("{:.2f} h", h);
  if (h < 99.95) return fmt::format("{:.1f} h", h);
  return fmt::format("{:.0f} h", h);
}

std::string usd(double v, bool priced) { return priced ? money(v) : "unpriced"; }

std::string label(const sim::CandidateCluster& c) {
  return fmt::format("{} x {}", c.nodes, c.server.id);
}

// Word-wraps `text` at 80 columns, each line starting with `indent`; a unit
// ("h", "min", "GPUs)", "%") stays on the line of the number before it.
std::string wrap(const std::string& text, const std::string& indent) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    const bool unit = !word.empty() && word.size() <= 5 &&
                      (std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '%');
    if (unit && !words.empty() && !words.back().empty() &&
        std::isdigit(static_cast<unsigned char>(words.back().back()))) {
      words.back() += " " + word;
    } else {
      words.push_back(std::move(word));
    }
    pos = end + 1;
  }
  std::string out, line = indent;
  for (const std::string& word : words) {
    if (line.size() > indent.size() && line.size() + 1 + word.size() > 80) {
      out += line + "\n";
      line = indent + "  ";
    }
    if (line.size() > indent.size() && line.back() != ' ') line += ' ';
    line += word;
  }
  return out + line + "\n";
}

// The verdict's reasons, then one per cluster that cannot run some job.
std::vector<std::string> mix_reasons(const SimulateReport& r) {
  std::vector<std::string> out = r.result.reasons;
  for (const sim::ClusterOutcome& c : r.result.clusters) {
    if (c.metrics.jobs_unrunnable == 0) continue;
    std::vector<std::string> names;
    for (size_t s = 0; s < r.mix.jobs.size(); ++s) {
      if (!c.sizing[s].fits) {
        names.push_back(fmt::format("{} ({})", r.mix.jobs[s].name,
                                    sizing_words(c.sizing[s], c.cluster.gpus())));
      }
    }
    out.push_back(fmt::format("{} cannot run {} job{}: {}.", label(c.cluster),
                              c.metrics.jobs_unrunnable, c.metrics.jobs_unrunnable == 1 ? "" : "s",
                              fmt::join(names, "; ")));
  }
  return out;
}

std::string size_words(const sim::Sizing& z, const sim::JobSpec& spec, long long cluster_gpus) {
  if (!z.fits) return "cannot run: " + sizing_words(z, cluster_gpus);
  std::string s = fmt::format("{} GPU{} x {}", z.gpus, z.gpus == 1 ? "" : "s", hours(z.duration_s));
  if (spec.workload) {
    s += fmt::format(" ({} node{}, tp {} pp {} dp {})", z.plan_nodes, z.plan_nodes == 1 ? "" : "s",
                     z.layout.tp, z.layout.pp, z.layout.dp);
  }
  return s;
}

}  // namespace

std::string simulate_text(const SimulateReport& r, int text_jobs) {
  const sim::JobMix& mix = r.mix;
  const sim::MixResult& res = r.result;
  std::string o;
  o += wrap(fmt::format(
                "Job mix: {} job{} from {} entr{}, seed {}, {} scheduling, p90 wait "
                "target {}",
                res.jobs.size(), res.jobs.size() == 1 ? "" : "s", mix.jobs.size(),
                mix.jobs.size() == 1 ? "y" : "ies", mix.seed,
                mix.scheduler.policy == sim::Policy::fifo ? "strict FIFO" : "FIFO + EASY backfill",
                hours(mix.wait_target_s)),
            "");
  o += "\n";
  o += res.recommended >= 0
           ? fmt::format("Verdict: {}\n", label(res.clusters[res.recommended].cluster))
           : "Verdict: none\n";
  for (const std::string& reason : mix_reasons(r)) o += wrap(reason, "  ");
  o += "\n";
  o += "Candidates\n";
  o += fmt::format("  {:<16}{:>6}{:>9}{:>9}{:>9}{:>10}{:>6}{:>10}\n", "cluster", "GPUs", "p50 wait",
                   "p90 wait", "p99 wait", "makespan", "util", "cost");
  for (const sim::ClusterOutcome& c : res.clusters) {
    const sim::Metrics& m = c.metrics;
    std::string name = label(c.cluster);  // in full in the cluster's own block below
    if (name.size() > 15) name = name.substr(0, 14) + "~";
    o += fmt::format("  {:<16}{:>6}{:>9}{:>9}{:>9}{:>10}{:>5.0f}%{:>10}\n", name, c.cluster.gpus(),
                     hours(m.wait_p50_s), hours(m.wait_p90_s), hours(m.wait_p99_s),
                     hours(m.makespan_s), 100 * m.utilisation,
                     usd(c.cost_usd, c.cluster.usd_per_gpu_hour > 0));
  }
  o += "  (cost: cluster GPUs x makespan x the GPU's default cloud price)\n";

  for (const sim::ClusterOutcome& c : res.clusters) {
    const sim::Metrics& m = c.metrics;
    o += "\n";
    o += fmt::format("{} ({} x {}, {} GPUs): {} of {} jobs run\n", label(c.cluster),
                     c.cluster.server.gpus_per_node, c.cluster.gpu.id, c.cluster.gpus(), m.jobs_run,
                     res.jobs.size());
    o += fmt::format("  makespan {}, GPU utilisation {}, {:.0f} GPU-hours held, {}\n",
                     hours(m.makespan_s), percent(m.utilisation), c.held_gpu_hours,
                     usd(c.cost_usd, c.cluster.usd_per_gpu_hour > 0));
    o += fmt::format("  wait: mean {}, p50 {}, p90 {}, p99 {}, max {}\n", hours(m.wait_mean_s),
                     hours(m.wait_p50_s), hours(m.wait_p90_s), hours(m.wait_p99_s),
                     hours(m.wait_max_s));
    o += fmt::format("  turnaround (arrival to completion): mean {}\n", hours(m.turnaround_mean_s));
    o += "  sizes:\n";
    for (size_t s = 0; s < mix.jobs.size(); ++s) {
      o += wrap(fmt::format("{}: {}", mix.jobs[s].name,
                            size_words(c.sizing[s], mix.jobs[s], c.cluster.gpus())),
                "    ");
    }
    std::vector<size_t> idx(res.jobs.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return c.schedule.jobs[a].wait_s() > c.schedule.jobs[b].wait_s();
    });
    const size_t shown = std::min(idx.size(), static_cast<size_t>(std::max(text_jobs, 0)));
    if (shown == 0) continue;
    o += fmt::format("  {}:\n", shown == idx.size() ? "jobs, longest wait first"
                                                    : fmt::format("the {} longest waits", shown));
    o += fmt::format("    {:<20}{:>10}{:>5}{:>10}{:>10}{:>10}{:>10}\n", "job", "kind", "GPUs",
                     "arrival", "start", "end", "wait");
    for (size_t k = 0; k < shown; ++k) {
      const sim::MixJob& j = res.jobs[idx[k]];
      const sim::JobOutcome& jo = c.schedule.jobs[idx[k]];
      std::string name = sim::job_name(mix, j);
      if (name.size() > 19) name = name.substr(0, 18) + "~";
      const sim::Sizing& z = c.sizing[j.spec];
      if (!jo.runs) {
        o += fmt::format("    {:<20}{:>10}{:>5}{:>10}  never runs\n", name,
                         sim::to_string(mix.jobs[j.spec].kind), "-", hours(jo.arrival_s));
        continue;
      }
      o += fmt::format("    {:<20}{:>10}{:>5}{:>10}{:>10}{:>10}{:>10}\n", name,
                       sim::to_string(mix.jobs[j.spec].kind), z.gpus, hours(jo.arrival_s),
                       hours(jo.start_s), hours(jo.end_s), hours(jo.wait_s()));
    }
    if (shown < idx.size()) {
      o += fmt::format("    ({} more; --format json lists every job)\n", idx.size() - shown);
    }
  }
  return o;
}

std::string simulate_json(const SimulateReport& r) {
  const sim::JobMix& mix = r.mix;
  const sim::MixResult& res = r.result;
  ordered_json j;
  j["seed"] = mix.seed;
  j["policy"] = sim::to_string(mix.scheduler.policy);
  j["backfill_depth"] = mix.scheduler.backfill_depth;
  j["wait_target_h"] = mix.wait_target_s / kH;
  j["jobs"] = res.jobs.size();
  j["recommended"] = res.recommended >= 0
                         ? ordered_json(label(res.clusters[res.recommended].cluster))
                         : ordered_json(nullptr);
  j["reasons"] = mix_reasons(r);
  ordered_json clusters = ordered_json::array();
  for (const sim::ClusterOutcome& c : res.clusters) {
    const sim::Metrics& m = c.metrics;
    const bool priced = c.cluster.usd_per_gpu_hour > 0;
    ordered_json cj;
    cj["server"] = c.cluster.server.id;
    cj["gpu"] = c.cluster.gpu.id;
    cj["nodes"] = c.cluster.nodes;
    cj["gpus"] = c.cluster.gpus();
    cj["fabric"] = c.cluster.fabric ? ordered_json(c.cluster.fabric->id) : ordered_json(nullptr);
    cj["usd_per_gpu_hour"] =
        priced ? ordered_json(c.cluster.usd_per_gpu_hour) : ordered_json(nullptr);
    cj["jobs_run"] = m.jobs_run;
    cj["jobs_unrunnable"] = m.jobs_unrunnable;
    cj["makespan_h"] = m.makespan_s / kH;
    cj["utilisation"] = m.utilisation;
    cj["busy_gpu_hours"] = m.busy_gpu_s / kH;
    cj["held_gpu_hours"] = c.held_gpu_hours;
    cj["cost_usd"] = priced ? ordered_json(c.cost_usd) : ordered_json(nullptr);
    cj["wait_h"] = {{"mean", m.wait_mean_s / kH},
                    {"p50", m.wait_p50_s / kH},
                    {"p90", m.wait_p90_s / kH},
                    {"p99", m.wait_p99_s / kH},
                    {"max", m.wait_max_s / kH}};
    cj["turnaround_mean_h"] = m.turnaround_mean_s / kH;
    ordered_json sizes = ordered_json::array();
    for (size_t s = 0; s < mix.jobs.size(); ++s) {
      const sim::Sizing& z = c.sizing[s];
      ordered_json sj = {
          {"name", mix.jobs[s].name}, {"kind", sim::to_string(mix.jobs[s].kind)}, {"fits", z.fits}};
      if (z.fits) {
        sj["gpus"] = z.gpus;
        sj["duration_h"] = z.duration_s / kH;
      } else {
        sj["reason"] = sizing_words(z, c.cluster.gpus());
      }
      if (z.fits && mix.jobs[s].workload) {
        sj["plan_nodes"] = z.plan_nodes;
        sj["layout"] = layout_json(z.layout);
      }
      sizes.push_back(std::move(sj));
    }
    cj["sizes"] = std::move(sizes);
    ordered_json jobs = ordered_json::array();
    for (size_t k = 0; k < res.jobs.size(); ++k) {
      const sim::MixJob& mj = res.jobs[k];
      const sim::JobOutcome& o = c.schedule.jobs[k];
      ordered_json jj = {{"name", sim::job_name(mix, mj)},
                         {"kind", sim::to_string(mix.jobs[mj.spec].kind)},
                         {"priority", mix.jobs[mj.spec].priority},
                         {"runs", o.runs},
                         {"arrival_h", o.arrival_s / kH}};
      if (o.runs) {
        jj["gpus"] = c.sizing[mj.spec].gpus;
        jj["node"] = o.first_node;
        jj["start_h"] = o.start_s / kH;
        jj["end_h"] = o.end_s / kH;
        jj["wait_h"] = o.wait_s() / kH;
      }
      jobs.push_back(std::move(jj));
    }
    cj["jobs"] = std::move(jobs);
    clusters.push_back(std::move(cj));
  }
  j["clusters"] = std::move(clusters);
  return dump_json(versioned(j));
}

std::string simulate_csv(const SimulateReport& r) {
  const sim::MixResult& res = r.result;
  std::string o =
      "cluster,server,gpu,nodes,gpus,jobs,jobs_run,jobs_unrunnable,wait_mean_s,wait_p50_s,"
      "wait_p90_s,wait_p99_s,wait_max_s,turnaround_mean_s,makespan_s,utilisation_fraction,"
      "held_gpu_hours,cost_usd,recommended\r\n";
  for (std::size_t i = 0; i < res.clusters.size(); ++i) {
    const sim::ClusterOutcome& c = res.clusters[i];
    const sim::Metrics& m = c.metrics;
    o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n",
                     csv_field(label(c.cluster)), csv_field(c.cluster.server.id),
                     csv_field(c.cluster.gpu.id), c.cluster.nodes, c.cluster.gpus(),
                     res.jobs.size(), m.jobs_run, m.jobs_unrunnable, m.wait_mean_s, m.wait_p50_s,
                     m.wait_p90_s, m.wait_p99_s, m.wait_max_s, m.turnaround_mean_s, m.makespan_s,
                     m.utilisation, c.held_gpu_hours,
                     c.cluster.usd_per_gpu_hour > 0 ? fmt::format("{}", c.cost_usd) : "",
                     static_cast<int>(i) == res.recommended ? "true" : "false");
  }
  return o;
}

std::string simulate_html(const SimulateReport& r) {
  const sim::MixResult& res = r.result;
  std::vector<ChartBar> wait_bars, util_bars;
  std::vector<std::vector<std::string>> rows;
  for (const sim::ClusterOutcome& c : res.clusters) {
    const sim::Metrics& m = c.metrics;
    wait_bars.push_back({label(c.cluster), m.wait_p90_s / kH, hours(m.wait_p90_s)});
    util_bars.push_back({label(c.cluster), 100 * m.utilisation, percent(m.utilisation)});
    rows.push_back({label(c.cluster), std::to_string(c.cluster.gpus()),
                    fmt::format("{} of {}", m.jobs_run, res.jobs.size()), hours(m.wait_p50_s),
                    hours(m.wait_p90_s), hours(m.wait_p99_s), hours(m.makespan_s),
                    percent(m.utilisation), usd(c.cost_usd, c.cluster.usd_per_gpu_hour > 0)});
  }
  std::string body;
  body += html_section("wait", "Queueing delay",
                       bar_chart("chart-wait", "p90 queueing delay per cluster", wait_bars,
                                 fmt::format("hours (target {})", hours(r.mix.wait_target_s))));
  body += html_section("utilisation", "GPU utilisation",
                       bar_chart("chart-utilisation", "GPU utilisation per cluster", util_bars,
                                 "per cent of the cluster's GPU-hours busy"));
  body += html_section("clusters", "Candidates",
                       html_table({"cluster", "GPUs", "jobs run", "p50 wait", "p90 wait",
                                   "p99 wait", "makespan", "utilisation", "cost"},
                                  rows));
  const std::string verdict =
      res.recommended >= 0 ? label(res.clusters[res.recommended].cluster) : "none";
  return html_page("scaleout simulate: " + verdict, res.recommended >= 0 ? "chosen" : "none",
                   "Verdict: " + verdict, mix_reasons(r), body);
}

}  // namespace scaleout::report
