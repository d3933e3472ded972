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
//
// The scheduler places jobs through buckets of nodes by free GPUs; the
// reference below is the earlier scheduler that scanned every node for every
// placement and reservation, kept here only to check that both give the same
// schedule, job by job, on random mixes and cluster shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/scheduler.hpp"

namespace scaleout::sim {
namespace {

// The reference scheduler: the same rules, O(nodes) per placement.
namespace reference {

constexpr int kNone = -1;

// Queue order: higher priority first, then earlier arrival, then input order.
struct QueueKey {
  int neg_priority;
  double arrival_s;
  int id;
  auto operator<=>(const QueueKey&) const = default;
};

class ReferenceSimulator {
 public:
  ReferenceSimulator(const std::vector<Job>& jobs, const Cluster& cluster,
                     const SchedulerOptions& options)
      : jobs_(jobs),
        cluster_(cluster),
        options_(options),
        g_(cluster.gpus_per_node),
        free_(static_cast<size_t>(cluster.nodes), cluster.gpus_per_node),
        held_(jobs.size()) {
    if (cluster.nodes < 1 || cluster.gpus_per_node < 1) {
      throw std::invalid_argument("simulate: a cluster needs at least one node and one GPU");
    }
    out_.jobs.resize(jobs.size());
  }

  Schedule run() {
    std::vector<int> order;
    for (size_t i = 0; i < jobs_.size(); ++i) {
      const Job& j = jobs_[i];
      if (j.gpus < 1 || !(j.duration_s >= 0) || !std::isfinite(j.arrival_s) ||
          !std::isfinite(j.duration_s)) {
        throw std::invalid_argument("simulate: a job needs gpus >= 1 and finite times");
      }
      out_.jobs[i].arrival_s = j.arrival_s;
      if (j.gpus <= cluster_.gpus()) order.push_back(static_cast<int>(i));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return jobs_[a].arrival_s < jobs_[b].arrival_s; });
    size_t next = 0;
    while (next < order.size() || !running_.empty()) {
      double t = std::numeric_limits<double>::infinity();
      if (next < order.size()) t = jobs_[order[next]].arrival_s;
      if (!running_.empty()) t = std::min(t, running_.begin()->first);
      while (!running_.empty() && running_.begin()->first <= t) {
        finish(running_.begin()->second);
        running_.erase(running_.begin());
      }
      while (next < order.size() && jobs_[order[next]].arrival_s <= t) {
        const int id = order[next++];
        queue_.insert({-jobs_[id].priority, jobs_[id].arrival_s, id});
      }
      pass(t);
    }
    if (!queue_.empty()) throw std::logic_error("simulate: jobs left in the queue");
    bool first = true;
    for (size_t i = 0; i < jobs_.size(); ++i) {
      const JobOutcome& o = out_.jobs[i];
      if (!o.runs) continue;
      ++out_.jobs_run;
      out_.first_arrival_s = first ? o.arrival_s : std::min(out_.first_arrival_s, o.arrival_s);
      out_.last_end_s = first ? o.end_s : std::max(out_.last_end_s, o.end_s);
      out_.busy_gpu_s += static_cast<double>(gpus_held(jobs_[i], cluster_)) * jobs_[i].duration_s;
      first = false;
    }
    return std::move(out_);
  }

 private:
  // Nodes a job would take now, given free GPUs per node, leaving out the
  // nodes marked in `exclude` (may be empty); empty when it does not fit.
  // `extra_node`/`extra` admit one excluded node for a one-node job of at
  // most `extra` GPUs (backfill beside the head's reservation).
  std::vector<int> choose(const Job& j, const std::vector<int>& free,
                          const std::vector<char>& exclude, int extra_node = kNone,
                          int extra = 0) const {
    const int k = nodes_held(j, cluster_);
    const size_t n = free.size();
    if (k == 0) {
      int best = kNone;
      for (size_t i = 0; i < n; ++i) {
        if (free[i] < j.gpus) continue;
        const bool excluded = !exclude.empty() && exclude[i];
        if (excluded && !(static_cast<int>(i) == extra_node && j.gpus <= extra)) continue;
        if (best == kNone || free[i] < free[best]) best = static_cast<int>(i);
      }
      if (best == kNone) return {};
      return {best};
    }
    std::vector<int> nodes;
    for (size_t i = 0; i < n && static_cast<int>(nodes.size()) < k; ++i) {
      if (free[i] == g_ && (exclude.empty() || !exclude[i])) nodes.push_back(static_cast<int>(i));
    }
    if (static_cast<int>(nodes.size()) < k) return {};
    return nodes;
  }

  void start(int id, std::vector<int> nodes, double t) {
    const Job& j = jobs_[id];
    const bool one = nodes_held(j, cluster_) == 0;
    for (int n : nodes) free_[n] -= one ? j.gpus : g_;
    JobOutcome& o = out_.jobs[id];
    o.runs = true;
    o.start_s = t;
    o.end_s = t + j.duration_s;
    o.first_node = nodes.front();
    held_[id] = std::move(nodes);
    running_.insert({o.end_s, id});
  }

  void finish(int id) {
    const Job& j = jobs_[id];
    const bool one = nodes_held(j, cluster_) == 0;
    for (int n : held_[id]) free_[n] += one ? j.gpus : g_;
    held_[id].clear();
    held_[id].shrink_to_fit();
  }

  void pass(double t) {
    ++out_.passes;
    static const std::vector<char> kNoExclusion;
    while (!queue_.empty()) {
      const int head = queue_.begin()->id;
      std::vector<int> nodes = choose(jobs_[head], free_, kNoExclusion);
      if (nodes.empty()) break;
      queue_.erase(queue_.begin());
      start(head, std::move(nodes), t);
    }
    if (queue_.empty() || options_.policy == Policy::fifo) return;

    // EASY backfill. The head's reservation: the earliest time it fits when
    // the running jobs end as predicted, and the nodes it would take then.
    // Only the nodes a completion frees change, so the walk checks those
    // (a one-node head) or counts whole free nodes (a larger head): O(nodes)
    // per pass, not O(running x nodes).
    const Job& head = jobs_[queue_.begin()->id];
    const int head_nodes = nodes_held(head, cluster_);
    std::vector<int> later = free_;
    int whole = static_cast<int>(std::count(later.begin(), later.end(), g_));
    double shadow = std::numeric_limits<double>::infinity();
    std::vector<int> reserved;
    for (const auto& [end, id] : running_) {
      const bool one = nodes_held(jobs_[id], cluster_) == 0;
      bool fits = false;
      for (int n : held_[id]) {
        later[n] += one ? jobs_[id].gpus : g_;
        if (head_nodes == 0) fits = fits || later[n] >= head.gpus;
        if (later[n] == g_) ++whole;
      }
      if (head_nodes > 0) fits = whole >= head_nodes;
      if (fits) {
        reserved = choose(head, later, kNoExclusion);
        shadow = end;
        break;
      }
    }
    if (reserved.empty()) throw std::logic_error("simulate: the head job never fits");
    double& first_reservation = out_.jobs[queue_.begin()->id].reservation_s;
    if (first_reservation < 0) first_reservation = shadow;
    std::vector<char> exclude(free_.size(), 0);
    for (int n : reserved) exclude[n] = 1;
    // GPUs of a one-node head's reserved node left over at the shadow time.
    const bool head_one = nodes_held(head, cluster_) == 0;
    const int extra_node = head_one ? reserved.front() : kNone;
    int extra = head_one ? later[reserved.front()] - head.gpus : 0;

    // The largest free block and the whole free nodes now: a job bigger than
    // either is skipped without a placement scan.
    int max_free = 0, whole_free = 0;
    auto measure = [&] {
      max_free = *std::max_element(free_.begin(), free_.end());
      whole_free = static_cast<int>(std::count(free_.begin(), free_.end(), g_));
    };
    measure();
    int depth = 0;
    for (auto it = std::next(queue_.begin()); it != queue_.end() && max_free > 0;) {
      if (depth++ >= options_.backfill_depth) break;
      const int id = it->id;
      const Job& j = jobs_[id];
      const int k = nodes_held(j, cluster_);
      if (k == 0 ? j.gpus > max_free : k > whole_free) {
        ++it;
        continue;
      }
      const bool ends_in_time = t + j.duration_s <= shadow;
      std::vector<int> nodes = ends_in_time ? choose(j, free_, kNoExclusion)
                                            : choose(j, free_, exclude, extra_node, extra);
      if (nodes.empty()) {
        ++it;
        continue;
      }
      if (!ends_in_time && nodes.size() == 1 && nodes.front() == extra_node) extra -= j.gpus;
      it = queue_.erase(it);
      start(id, std::move(nodes), t);
      measure();
    }
  }

  const std::vector<Job>& jobs_;
  Cluster cluster_;
  SchedulerOptions options_;
  int g_;
  std::vector<int> free_;                     // free GPUs per node
  std::vector<std::vector<int>> held_;        // nodes held by each running job
  std::set<std::pair<double, int>> running_;  // (end, id)
  std::set<QueueKey> queue_;
  Schedule out_;
};

Schedule simulate(const std::vector<Job>& jobs, const Cluster& cluster,
                  const SchedulerOptions& options) {
  return ReferenceSimulator(jobs, cluster, options).run();
}

}  // namespace reference

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

// A random mix for the comparison with the reference: sizes from 1 GPU to
// past the cluster (some never run), durations and arrivals on a coarse grid
// (whole quarter hours) so that ties of time (completions at the same time as
// arrivals, ends exactly at a shadow time) are common, and a few priorities.
std::vector<Job> tie_heavy_mix(std::mt19937_64& g, int n, const Cluster& c) {
  std::vector<Job> jobs;
  double t = 0;
  const int max_gpus = static_cast<int>(std::min<long long>(c.gpus() + 2, 4 * c.gpus_per_node));
  for (int i = 0; i < n; ++i) {
    if (g() % 3 != 0) t += 0.25 * static_cast<double>(g() % 8);
    Job j;
    // Half the jobs inside a node, the others up to a few nodes or past the cluster.
    j.gpus = g() % 2 ? 1 + static_cast<int>(g() % static_cast<unsigned>(c.gpus_per_node))
                     : 1 + static_cast<int>(g() % static_cast<unsigned>(max_gpus));
    j.duration_s = 0.25 * static_cast<double>(g() % 40) * kH;
    j.arrival_s = t * kH;
    j.priority = g() % 4 == 0 ? static_cast<int>(g() % 3) : 0;
    jobs.push_back(j);
  }
  return jobs;
}

void expect_same(const Schedule& a, const Schedule& b, const std::string& what) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size()) << what;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const JobOutcome& x = a.jobs[i];
    const JobOutcome& y = b.jobs[i];
    ASSERT_EQ(x.runs, y.runs) << what << " job " << i;
    ASSERT_EQ(x.start_s, y.start_s) << what << " job " << i;
    ASSERT_EQ(x.end_s, y.end_s) << what << " job " << i;
    ASSERT_EQ(x.first_node, y.first_node) << what << " job " << i;
    ASSERT_EQ(x.reservation_s, y.reservation_s) << what << " job " << i;
  }
  EXPECT_EQ(a.jobs_run, b.jobs_run) << what;
  EXPECT_EQ(a.passes, b.passes) << what;
  EXPECT_EQ(a.busy_gpu_s, b.busy_gpu_s) << what;
  EXPECT_EQ(a.last_end_s, b.last_end_s) << what;
}

// Same schedule as the node-scanning reference, job by job (start, node,
// reservation), for strict FIFO and EASY backfill (depth 1000 and a shallow
// one) on 1 to 40 nodes of 1 to 8 GPUs, light to overloaded.
TEST(SchedulerProperty, SameScheduleAsTheReferenceScan) {
  std::mt19937_64 g(23);
  int schedules = 0, backfilled = 0, reserved = 0;
  for (int m = 0; m < 400; ++m) {
    const Cluster c{1 + static_cast<int>(g() % 40), 1 + static_cast<int>(g() % 8)};
    const std::vector<Job> jobs = tie_heavy_mix(g, 20 + static_cast<int>(g() % 200), c);
    for (const SchedulerOptions o :
         {SchedulerOptions{Policy::fifo, 1000}, SchedulerOptions{Policy::backfill, 1000},
          SchedulerOptions{Policy::backfill, 3}}) {
      const Schedule got = simulate(jobs, c, o);
      const Schedule want = reference::simulate(jobs, c, o);
      expect_same(got, want,
                  "mix " + std::to_string(m) + " on " + std::to_string(c.nodes) + " x " +
                      std::to_string(c.gpus_per_node) + " " + to_string(o.policy));
      if (HasFatalFailure()) return;
      ++schedules;
      for (size_t i = 0; i < jobs.size(); ++i) {
        reserved += got.jobs[i].reservation_s >= 0;
        // A job that started before one that arrived earlier at its priority.
        for (size_t k = 0; k < i && o.policy == Policy::backfill && got.jobs[i].runs; ++k) {
          if (got.jobs[k].runs && jobs[k].priority == jobs[i].priority &&
              jobs[k].arrival_s < jobs[i].arrival_s && got.jobs[k].start_s > got.jobs[i].start_s) {
            ++backfilled;
            break;
          }
        }
      }
    }
  }
  EXPECT_EQ(schedules, 1200);
  // The comparison is not vacuous: backfill and reservations happen often.
  EXPECT_GT(backfilled, 1000);
  EXPECT_GT(reserved, 1000);
}

// The same on the team-like mix of the benchmark, on wider clusters: Poisson
// arrivals, exponential durations, 1 to 32 GPUs on 16 and 64 nodes of 8.
TEST(SchedulerProperty, SameScheduleAsTheReferenceOnWideClusters) {
  std::mt19937_64 g(31);
  for (int m = 0; m < 4; ++m) {
    const std::vector<Job> jobs = random_mix(g, 2000, {1, 1, 1, 2, 2, 4, 8, 16, 32}, 0.02);
    for (const Cluster c : {Cluster{16, 8}, Cluster{64, 8}}) {
      for (const Policy p : {Policy::fifo, Policy::backfill}) {
        expect_same(simulate(jobs, c, {p, 1000}), reference::simulate(jobs, c, {p, 1000}),
                    "wide mix " + std::to_string(m) + " on " + std::to_string(c.nodes));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(SchedulerProperty, ProgressCountsEveryJob) {
  // 1000 jobs, one of them too big to run: reported every 1000 / 256 = 3
  // jobs or more, rising, ending at (1000, 1000).
  std::mt19937_64 g(5);
  std::vector<Job> jobs = random_mix(g, 999, {1, 2, 8}, 0.5);
  jobs.push_back({100, kH, 0, 0});
  std::vector<long long> done;
  const Schedule s =
      simulate(jobs, {2, 8}, {Policy::backfill, 1000}, [&](long long d, long long total) {
        EXPECT_EQ(total, 1000);
        done.push_back(d);
      });
  EXPECT_EQ(s.jobs_run, 999);
  ASSERT_GE(done.size(), 100U);
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_EQ(done.back(), 1000);
}

}  // namespace
}  // namespace scaleout::sim
