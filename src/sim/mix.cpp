#include "sim/mix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>

#include "core/enum_names.hpp"
#include "search/planner.hpp"

namespace scaleout::sim {

const char* to_string(JobKind k) {
  return enum_name(k, {"pretrain", "finetune", "inference", "other"});
}

const char* to_string(SizeBy s) { return s == SizeBy::time ? "time" : "cost"; }

Sizing size_job(const JobSpec& spec, const CandidateCluster& cluster, int threads) {
  Sizing out;
  if (!spec.workload) {
    out.gpus = spec.gpus;
    out.duration_s = spec.duration_s;
    out.fits = spec.gpus <= cluster.gpus();
    if (!out.fits) out.miss = SizingMiss::too_many_gpus;
    return out;
  }
  if (spec.workload->task == Task::inference) {
    // Inference sizing (weights + KV cache, serving throughput) plugs in here.
    out.miss = SizingMiss::inference;
    return out;
  }
  PlanRequest req;
  req.workload = *spec.workload;
  HardwareOption h;
  h.server = cluster.server;
  h.gpu = cluster.gpu;
  h.fabric = cluster.fabric;
  h.usd_per_gpu_hour = cluster.usd_per_gpu_hour;
  req.hardware.push_back(std::move(h));
  // Plans below a node: a job may take 1, 2 or 4 of a node's GPUs, and the
  // scheduler packs such jobs onto the nodes' free GPUs.
  add_slice_options(req);
  req.constraints.max_nodes = cluster.nodes;
  req.run = spec.run.value_or_default();
  req.objective = spec.size_by == SizeBy::time ? Objective::time : Objective::cost;
  req.threads = std::max(1, threads);
  const PlanResult r = plan(req);
  const PlanCandidate* best = nullptr;
  auto gpu_hours = [](const PlanCandidate& c) { return c.gpus() * c.time_to_train_s; };
  for (const PlanCandidate& c : r.frontier) {
    if (c.nodes > cluster.nodes) continue;
    // The frontier is in (hardware, node count) order, a server's slices
    // first, so a tie keeps the smaller plan. By cost, GPU-hours within 0.1 %
    // count as equal (the planner's rule) and the plan with fewer GPUs is
    // kept: it packs beside other jobs.
    bool better = !best;
    if (best && spec.size_by == SizeBy::time) {
      better = c.time_to_train_s < best->time_to_train_s;
    } else if (best) {
      const double a = gpu_hours(c), b = gpu_hours(*best);
      better = std::fabs(a - b) <= 1e-3 * std::max(a, b) ? c.gpus() < best->gpus() : a < b;
    }
    if (better) best = &c;
  }
  if (!best) {
    out.miss = SizingMiss::no_plan;
    if (!r.reasons.empty()) out.plan_reason = r.reasons.front();
    return out;
  }
  out.fits = true;
  out.gpus = best->gpus();
  out.duration_s = best->time_to_train_s;
  out.plan_nodes = best->nodes;
  out.layout = best->layout;
  return out;
}

double exponential(unsigned long long x, double mean) {
  const double u = static_cast<double>(x >> 11) * 0x1.0p-53;  // [0, 1)
  return -mean * std::log1p(-u);
}

std::vector<double> arrivals(const JobSpec& spec, unsigned long long seed, int spec_index) {
  std::vector<double> out(static_cast<size_t>(spec.count), spec.at_s);
  if (spec.rate_per_s <= 0) return out;
  // One stream per spec, so that adding a spec does not move the others' arrivals.
  std::mt19937_64 gen(seed ^
                      (0x9E3779B97F4A7C15ULL * static_cast<unsigned long long>(spec_index + 1)));
  double t = spec.at_s;
  for (double& a : out) {
    t += exponential(gen(), 1.0 / spec.rate_per_s);
    a = t;
  }
  return out;
}

std::string job_name(const JobMix& mix, const MixJob& job) {
  const JobSpec& s = mix.jobs[job.spec];
  return s.count > 1 ? fmt::format("{}#{}", s.name, job.copy + 1) : s.name;
}

namespace {

std::string label(const CandidateCluster& c) {
  return fmt::format("{} x {}", c.nodes, c.server.id);
}

std::string nodes_words(const CandidateCluster& c) {
  return c.nodes == 1 ? "one node" : fmt::format("{} nodes", c.nodes);
}

// "45 s", "12 min", "3.4 h", "31 h"
std::string duration_words(double s) {
  const double h = s / 3600.0;
  if (s < 59.5) return fmt::format("{:.0f} s", s);
  if (h < 0.995) return fmt::format("{:.0f} min", s / 60.0);
  if (h < 9.95) return fmt::format("{:.1f} h", h);
  return fmt::format("{:.0f} h", h);
}

std::string percent(double f) { return fmt::format("{:.0f} %", 100.0 * f); }

std::string money(double usd) {
  if (usd >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.1f}k", usd / 1e3);
  return fmt::format("${:.0f}", usd);
}

}  // namespace

MixResult simulate_mix(const JobMix& mix, int threads, const Progress& progress) {
  MixResult out;
  for (size_t i = 0; i < mix.jobs.size(); ++i) {
    const std::vector<double> a = arrivals(mix.jobs[i], mix.seed, static_cast<int>(i));
    for (size_t k = 0; k < a.size(); ++k) {
      out.jobs.push_back({static_cast<int>(i), static_cast<int>(k), a[k]});
    }
  }
  const long long per_cluster = static_cast<long long>(mix.jobs.size() + out.jobs.size());
  const long long total = per_cluster * static_cast<long long>(mix.clusters.size());
  long long done = 0;
  for (const CandidateCluster& c : mix.clusters) {
    ClusterOutcome co;
    co.cluster = c;
    for (const JobSpec& s : mix.jobs) {
      co.sizing.push_back(size_job(s, c, threads));
      if (progress) progress(++done, total);
    }
    const Cluster shape{c.nodes, c.server.gpus_per_node};
    std::vector<Job> jobs;
    jobs.reserve(out.jobs.size());
    for (const MixJob& mj : out.jobs) {
      const Sizing& z = co.sizing[mj.spec];
      Job j;
      // A job that cannot be sized asks for more than the cluster: never queued.
      j.gpus = z.fits ? z.gpus : static_cast<int>(std::min<long long>(c.gpus() + 1, 2000000000));
      j.gpus = std::max(j.gpus, 1);
      j.duration_s = z.fits ? z.duration_s : 0;
      j.arrival_s = mj.arrival_s;
      j.priority = mix.jobs[mj.spec].priority;
      jobs.push_back(j);
    }
    Progress step;
    if (progress) {
      step = [&, base = done](long long d, long long) { progress(base + d, total); };
    }
    co.schedule = simulate(jobs, shape, mix.scheduler, step);
    done += static_cast<long long>(jobs.size());
    co.metrics = metrics(co.schedule, shape);
    co.held_gpu_hours = static_cast<double>(c.gpus()) * co.metrics.makespan_s / 3600.0;
    co.cost_usd = co.held_gpu_hours * c.usd_per_gpu_hour;
    out.clusters.push_back(std::move(co));
  }

  // The verdict: the smallest candidate that runs every job within the wait
  // target; else the one that runs every job with the shortest p90 wait.
  const auto& cs = out.clusters;
  std::vector<int> eligible;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].metrics.jobs_unrunnable == 0) eligible.push_back(static_cast<int>(i));
  }
  auto smaller = [&](int a, int b) {
    if (cs[a].cluster.gpus() != cs[b].cluster.gpus()) {
      return cs[a].cluster.gpus() < cs[b].cluster.gpus();
    }
    return cs[a].cost_usd < cs[b].cost_usd;
  };
  int rec = -1;
  bool meets = false;
  for (int i : eligible) {
    if (cs[i].metrics.wait_p90_s > mix.wait_target_s) continue;
    if (rec < 0 || smaller(i, rec)) rec = i;
    meets = true;
  }
  if (rec < 0) {
    for (int i : eligible) {
      if (rec < 0 || cs[i].metrics.wait_p90_s < cs[rec].metrics.wait_p90_s ||
          (cs[i].metrics.wait_p90_s == cs[rec].metrics.wait_p90_s && smaller(i, rec))) {
        rec = i;
      }
    }
  }
  out.recommended = rec;
  const std::string target = duration_words(mix.wait_target_s);
  if (rec < 0) {
    out.reasons.push_back("No candidate runs every job of the mix.");
  } else {
    const ClusterOutcome& r = cs[rec];
    out.reasons.push_back(
        meets ? fmt::format("{} ({} GPUs) is the smallest candidate that runs every job with a p90 "
                            "wait within the {} target ({}).",
                            label(r.cluster), r.cluster.gpus(), target,
                            duration_words(r.metrics.wait_p90_s))
              : fmt::format("No candidate keeps the p90 wait within the {} target; {} ({} GPUs) "
                            "comes closest ({}).",
                            target, label(r.cluster), r.cluster.gpus(),
                            duration_words(r.metrics.wait_p90_s)));
    if (r.metrics.wait_max_s > mix.wait_target_s) {
      size_t worst = 0;
      for (size_t k = 0; k < r.schedule.jobs.size(); ++k) {
        if (r.schedule.jobs[k].wait_s() > r.schedule.jobs[worst].wait_s()) worst = k;
      }
      const int gpus = r.sizing[out.jobs[worst].spec].gpus;
      out.reasons.push_back(fmt::format(
          "Its longest wait is {} ({}, {} GPU{}).", duration_words(r.metrics.wait_max_s),
          job_name(mix, out.jobs[worst]), gpus, gpus == 1 ? "" : "s"));
    }
    int small = rec, big = rec;
    for (int i : eligible) {
      if (smaller(i, small)) small = i;
      if (smaller(big, i)) big = i;
    }
    auto compare = [&](const ClusterOutcome& a, const ClusterOutcome& b) {
      // b against a (a has fewer GPUs).
      const double ratio =
          static_cast<double>(b.cluster.gpus()) / static_cast<double>(a.cluster.gpus());
      const std::string who = nodes_words(b.cluster) + (b.cluster.server.id == a.cluster.server.id
                                                            ? std::string()
                                                            : " of " + b.cluster.server.id);
      const double pa = a.metrics.wait_p90_s, pb = b.metrics.wait_p90_s;
      const std::string wait =
          duration_words(pa) == duration_words(pb)
              ? fmt::format(
                    "keep the p90 wait at {}{}", duration_words(pb),
                    duration_words(b.metrics.wait_mean_s) == duration_words(a.metrics.wait_mean_s)
                        ? std::string()
                        : fmt::format(" (mean {} instead of {})",
                                      duration_words(b.metrics.wait_mean_s),
                                      duration_words(a.metrics.wait_mean_s)))
              : fmt::format("{} the p90 wait from {} to {}", pb < pa ? "cut" : "raise",
                            duration_words(pa), duration_words(pb));
      const std::string ma = duration_words(a.metrics.makespan_s);
      const std::string mb = duration_words(b.metrics.makespan_s);
      const std::string makespan = ma == mb ? fmt::format("the same makespan ({})", mb)
                                            : fmt::format("the makespan from {} to {}", ma, mb);
      std::string s = fmt::format("{} {} and {} at {:.3g}x the hardware", who, wait,
                                  ma == mb ? "keep " + makespan : makespan, ratio);
      if (a.cluster.usd_per_gpu_hour > 0 && b.cluster.usd_per_gpu_hour > 0) {
        s += money(b.cost_usd) == money(a.cost_usd)
                 ? fmt::format(" (the same {} for the GPU-hours held)", money(b.cost_usd))
                 : fmt::format(" ({} instead of {} for the GPU-hours held)", money(b.cost_usd),
                               money(a.cost_usd));
      }
      s += fmt::format("; GPU utilisation is {} on {} and {} on {}.",
                       percent(a.metrics.utilisation), nodes_words(a.cluster),
                       percent(b.metrics.utilisation), nodes_words(b.cluster));
      s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
      return s;
    };
    if (small != rec) out.reasons.push_back(compare(cs[small], r));
    if (big != rec) out.reasons.push_back(compare(r, cs[big]));
  }
  return out;
}

}  // namespace scaleout::sim
