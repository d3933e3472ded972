// simulate: a team-like mix of 1-, 2-, 4- and 8-GPU jobs and 2- and 4-node
// jobs arriving as a Poisson process at about 90 % offered load, with strict
// FIFO and with EASY backfill: 10^5 jobs on 16 eight-GPU nodes (the target is
// under one second), and 10^6 jobs on 10^5 nodes (the largest jobs file and
// cluster the reader accepts; the target is a few seconds).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/mix.hpp"
#include "sim/scheduler.hpp"

namespace {

std::vector<scaleout::sim::Job> team_mix(int n, int nodes) {
  std::mt19937_64 g(42);
  const int sizes[] = {1, 1, 1, 2, 2, 4, 8, 16, 32};
  // Mean size 67/9 GPUs x mean duration 4 h = 29.8 GPU-h per job; 128 GPUs at
  // 90 % take 115 GPU-h/h: one job every 0.26 h, and 16 times more often per
  // 16 nodes.
  const double gap_s = 0.26 * 3600.0 * 16.0 / nodes;
  std::vector<scaleout::sim::Job> jobs;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += scaleout::sim::exponential(g(), gap_s);
    scaleout::sim::Job j;
    j.gpus = sizes[g() % 9];
    j.duration_s = scaleout::sim::exponential(g(), 4 * 3600.0);
    j.arrival_s = t;
    j.priority = static_cast<int>(g() % 3);
    jobs.push_back(j);
  }
  return jobs;
}

void BM_Simulate(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(1));
  const auto jobs = team_mix(static_cast<int>(state.range(0)), nodes);
  const scaleout::sim::Cluster cluster{nodes, 8};
  const scaleout::sim::SchedulerOptions options{
      state.range(2) ? scaleout::sim::Policy::backfill : scaleout::sim::Policy::fifo, 1000};
  double util = 0;
  for (auto _ : state) {
    const scaleout::sim::Schedule s = scaleout::sim::simulate(jobs, cluster, options);
    util = scaleout::sim::metrics(s, cluster).utilisation;
    benchmark::DoNotOptimize(s.jobs.data());
  }
  state.counters["utilisation"] = util;
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Simulate)
    ->ArgNames({"jobs", "nodes", "backfill"})
    ->Args({100000, 16, 0})
    ->Args({100000, 16, 1})
    ->Args({1000000, 100000, 0})
    ->Args({1000000, 100000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
