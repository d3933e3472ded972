// Properties of the gang scheduler over random job mixes (docs/model.md,
// "Simulate", "What holds when the cluster grows").
//
// Proved, and checked here: with strict FIFO, equal priorities and known
// durations, when every job takes whole nodes (or every job one GPU), adding
// a node never makes any job start later, so never raises the mean wait.
// (Induction over the FIFO order: job i starts at the first time >= the start
// of job i-1 and >= its arrival when it fits; with more nodes, jobs 1..i-1
// started no later, so end no later, so from the start of job i-1 on they hold
// a subset of the nodes they hold on the smaller cluster.)
//
// Not true in general, and measured here: with jobs of mixed sizes inside
// nodes, placement (fragmentation) can break the induction, and EASY backfill
// has the classic scheduling anomalies. The tests count the mixes where one
// more node raised the mean wait and print the count; docs/model.md reports it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "sim/scheduler.hpp"

namespace scaleout::sim {
namespace {

constexpr double kH = 3600.0;

double uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// n jobs arriving as a Poisson process of mean gap `gap_h`, sizes from `sizes`,
// durations uniform in [0.5, 20] h.
std::vector<Job> random_mix(std::mt19937_64& g, int n, const std::vector<int>& sizes,
                            double gap_h) {
  std::vector<Job> jobs;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += -gap_h * std::log1p(-uniform(g));
    Job j;
    j.gpus = sizes[g() % sizes.size()];
    j.duration_s = (0.5 + 19.5 * uniform(g)) * kH;
    j.arrival_s = t * kH;
    jobs.push_back(j);
  }
  return jobs;
}

struct Count {
  int mixes = 0;
  int mean_wait_rose = 0;
  int some_job_later = 0;
};

// For each mix and each node count n from 2 to 5: compares n with n + 1
// nodes. Every size must fit 2 nodes (else a job that cannot run on the
// smaller cluster runs on the larger and the two lists differ).
Count compare(const std::vector<int>& sizes, Policy policy, int mixes, unsigned seed) {
  std::mt19937_64 g(seed);
  Count c;
  for (int m = 0; m < mixes; ++m) {
    // Light to heavy load: a mean gap of 0.5, 2 or 8 h between arrivals.
    const double gap_h = m % 3 == 0 ? 0.5 : m % 3 == 1 ? 2.0 : 8.0;
    const std::vector<Job> jobs = random_mix(g, 60, sizes, gap_h);
    for (int n = 2; n < 6; ++n) {
      const Cluster small{n, 8}, big{n + 1, 8};
      const Schedule a = simulate(jobs, small, {policy, 1000});
      const Schedule b = simulate(jobs, big, {policy, 1000});
      ++c.mixes;
      bool later = false;
      for (size_t i = 0; i < jobs.size(); ++i) {
        later = later || (a.jobs[i].runs && b.jobs[i].start_s > a.jobs[i].start_s);
      }
      c.some_job_later += later;
      // Tolerance: sums of the same doubles in another order.
      c.mean_wait_rose +=
          metrics(b, big).wait_mean_s > metrics(a, small).wait_mean_s * (1 + 1e-12) + 1e-9;
    }
  }
  return c;
}

TEST(SchedulerProperty, FifoWholeNodesNeverLater) {
  const Count c = compare({8, 16}, Policy::fifo, 300, 1);
  EXPECT_EQ(c.mixes, 1200);
  EXPECT_EQ(c.some_job_later, 0);
  EXPECT_EQ(c.mean_wait_rose, 0);
}

TEST(SchedulerProperty, FifoOneGpuJobsNeverLater) {
  const Count c = compare({1}, Policy::fifo, 300, 2);
  EXPECT_EQ(c.some_job_later, 0);
  EXPECT_EQ(c.mean_wait_rose, 0);
}

TEST(SchedulerProperty, FifoMixedSizesMeasured) {
  const Count c = compare({1, 2, 4, 8, 16}, Policy::fifo, 1000, 3);
  std::printf(
      "strict FIFO, mixed sizes: mean wait rose with one more node in %d of %d cases; "
      "some job started later in %d\n",
      c.mean_wait_rose, c.mixes, c.some_job_later);
  RecordProperty("mean_wait_rose", c.mean_wait_rose);
  // The counts found with this seed, recorded in docs/model.md; a change to
  // the scheduler that moves them should update the docs. Not proved: one job
  // started later with one more node (best-fit placement differs), though the
  // mean wait never rose.
  EXPECT_EQ(c.mixes, 4000);
  EXPECT_EQ(c.mean_wait_rose, 0);
  EXPECT_EQ(c.some_job_later, 1);
}

TEST(SchedulerProperty, BackfillMeasured) {
  const Count c = compare({1, 2, 4, 8, 16}, Policy::backfill, 1000, 4);
  std::printf(
      "EASY backfill, mixed sizes: mean wait rose with one more node in %d of %d "
      "cases; some job started later in %d\n",
      c.mean_wait_rose, c.mixes, c.some_job_later);
  RecordProperty("mean_wait_rose", c.mean_wait_rose);
  // Counter-examples exist: 4 of 4000 (docs/model.md).
  EXPECT_EQ(c.mean_wait_rose, 4);
  EXPECT_EQ(c.some_job_later, 2804);
}

TEST(SchedulerProperty, BackfillNeverDelaysAReservation) {
  // EASY's guarantee, with equal priorities and exact durations: a job that
  // waited at the head of the queue starts no later than the reservation it
  // got then, whatever was backfilled around it.
  std::mt19937_64 g(6);
  int reserved = 0;
  for (int m = 0; m < 300; ++m) {
    const double gap_h = m % 3 == 0 ? 0.5 : m % 3 == 1 ? 2.0 : 8.0;
    const std::vector<Job> jobs = random_mix(g, 60, {1, 2, 4, 8, 16, 24}, gap_h);
    for (int n = 3; n < 6; ++n) {
      const Schedule s = simulate(jobs, {n, 8}, {Policy::backfill, 1000});
      for (const JobOutcome& o : s.jobs) {
        if (o.reservation_s < 0) continue;
        ++reserved;
        ASSERT_LE(o.start_s, o.reservation_s);
      }
    }
  }
  EXPECT_GT(reserved, 1000);  // the check is not vacuous
}

}  // namespace
}  // namespace scaleout::sim
