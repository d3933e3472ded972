#include "sim/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

namespace scaleout::sim {

const char* to_string(Policy p) { return p == Policy::fifo ? "fifo" : "backfill"; }

int nodes_held(const Job& job, const Cluster& cluster) {
  if (job.gpus <= cluster.gpus_per_node) return 0;
  return (job.gpus + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
}

long long gpus_held(const Job& job, const Cluster& cluster) {
  const int k = nodes_held(job, cluster);
  return k == 0 ? job.gpus : static_cast<long long>(k) * cluster.gpus_per_node;
}

namespace {

constexpr int kNone = -1;

// Queue order: higher priority first, then earlier arrival, then input order.
struct QueueKey {
  int neg_priority;
  double arrival_s;
  int id;
  auto operator<=>(const QueueKey&) const = default;
};

class Simulator {
 public:
  Simulator(const std::vector<Job>& jobs, const Cluster& cluster, const SchedulerOptions& options)
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

}  // namespace

Schedule simulate(const std::vector<Job>& jobs, const Cluster& cluster,
                  const SchedulerOptions& options) {
  return Simulator(jobs, cluster, options).run();
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size())));
  return sorted[i - 1];
}

Metrics metrics(const Schedule& s, const Cluster& cluster) {
  Metrics m;
  std::vector<double> waits;
  double turnaround = 0;
  for (const JobOutcome& o : s.jobs) {
    if (!o.runs) {
      ++m.jobs_unrunnable;
      continue;
    }
    waits.push_back(o.wait_s());
    turnaround += o.end_s - o.arrival_s;
  }
  m.jobs_run = static_cast<int>(waits.size());
  m.busy_gpu_s = s.busy_gpu_s;
  if (waits.empty()) return m;
  m.makespan_s = s.last_end_s - s.first_arrival_s;
  m.utilisation =
      m.makespan_s > 0 ? s.busy_gpu_s / (static_cast<double>(cluster.gpus()) * m.makespan_s) : 0;
  double sum = 0;
  for (double w : waits) sum += w;
  m.wait_mean_s = sum / static_cast<double>(waits.size());
  m.turnaround_mean_s = turnaround / static_cast<double>(waits.size());
  std::sort(waits.begin(), waits.end());
  m.wait_p50_s = percentile(waits, 50);
  m.wait_p90_s = percentile(waits, 90);
  m.wait_p99_s = percentile(waits, 99);
  m.wait_max_s = waits.back();
  return m;
}

}  // namespace scaleout::sim
