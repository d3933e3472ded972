#include "sim/scheduler.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
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

// A set of indices in [0, n) as a bit tree: level 0 holds one bit per index,
// each level above one bit per non-zero word of the level below. Insert,
// erase and "first index >= i" take one step per level (3 levels for 10^5
// nodes); no allocation after construction.
class IndexSet {
 public:
  IndexSet() = default;
  explicit IndexSet(int n) : n_(n) {
    size_t words = (static_cast<size_t>(n) + 63) / 64;
    do {
      levels_.emplace_back(std::max<size_t>(words, 1), 0);
      words = (words + 63) / 64;
    } while (levels_.back().size() > 1);
  }
  bool built() const { return !levels_.empty(); }
  bool empty() const { return count_ == 0; }
  int size() const { return count_; }
  void insert(int i) {
    ++count_;
    size_t k = static_cast<size_t>(i);
    for (auto& level : levels_) {
      const bool was_zero = level[k >> 6] == 0;
      level[k >> 6] |= 1ULL << (k & 63);
      if (!was_zero) return;
      k >>= 6;
    }
  }
  void erase(int i) {
    --count_;
    size_t k = static_cast<size_t>(i);
    for (auto& level : levels_) {
      level[k >> 6] &= ~(1ULL << (k & 63));
      if (level[k >> 6] != 0) return;
      k >>= 6;
    }
  }
  // The first index >= i in the set; kNone when there is none.
  int next(int i) const {
    if (i >= n_) return kNone;
    return static_cast<int>(next_at(0, static_cast<size_t>(i)));
  }
  // The largest index in the set; kNone when empty (scans the leaf words:
  // meant for small sets).
  int last() const {
    const auto& leaf = levels_[0];
    for (size_t w = leaf.size(); w-- > 0;) {
      if (leaf[w])
        return static_cast<int>(w * 64 + 63 - static_cast<size_t>(std::countl_zero(leaf[w])));
    }
    return kNone;
  }

 private:
  long long next_at(size_t l, size_t i) const {
    const auto& v = levels_[l];
    size_t w = i >> 6;
    if (w >= v.size()) return kNone;
    const std::uint64_t bits = v[w] & (~0ULL << (i & 63));
    if (bits) return static_cast<long long>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
    if (l + 1 == levels_.size()) return kNone;  // the top level is one word
    const long long up = next_at(l + 1, w + 1);
    if (up < 0) return kNone;
    return up * 64 + std::countr_zero(v[static_cast<size_t>(up)]);
  }

  int n_ = 0;
  int count_ = 0;
  std::vector<std::vector<std::uint64_t>> levels_;
};

// Free GPUs per node, and the nodes bucketed by their free GPUs (1 to g; a
// bucket is made when first used), with the set of non-empty buckets. The
// best-fit node for s GPUs is the lowest index of the first non-empty bucket
// >= s; the free whole nodes in index order are bucket g.
class NodePool {
 public:
  NodePool(int nodes, int g)
      : g_(g),
        free_(static_cast<size_t>(nodes), g),
        buckets_(static_cast<size_t>(g) + 1),
        nonempty_(g + 1) {
    for (int n = 0; n < nodes; ++n) add(n, g);
  }
  int free(int n) const { return free_[n]; }
  void take(int n, int gpus) { move(n, free_[n] - gpus); }
  void give(int n, int gpus) { move(n, free_[n] + gpus); }
  int whole() const { return buckets_[g_].size(); }
  int max_free() const { return std::max(nonempty_.last(), 0); }
  const IndexSet& bucket(int f) const { return buckets_[f]; }
  // Non-empty buckets of at least s free GPUs, fewest first: f = first(s),
  // then next(f + 1), until kNone.
  int first_bucket(int s) const { return nonempty_.next(s); }

 private:
  void add(int n, int f) {
    free_[n] = f;
    if (f == 0) return;
    IndexSet& b = buckets_[f];
    if (!b.built()) b = IndexSet(static_cast<int>(free_.size()));
    if (b.empty()) nonempty_.insert(f);
    b.insert(n);
  }
  void remove(int n) {
    const int f = free_[n];
    if (f == 0) return;
    buckets_[f].erase(n);
    if (buckets_[f].empty()) nonempty_.erase(f);
  }
  void move(int n, int f) {
    remove(n);
    add(n, f);
  }

  int g_;
  std::vector<int> free_;
  std::vector<IndexSet> buckets_;  // by free GPUs; [0] unused
  IndexSet nonempty_;              // free counts with a non-empty bucket
};

// A running job, with what its completion frees: `gpus` on `node` (a
// one-node job), or whole nodes (node kNone; the list is in held_). Ordered
// by end, then input order.
struct Running {
  double end_s;
  int id;
  int node;
  int gpus;
  bool operator>(const Running& o) const {
    return end_s > o.end_s || (end_s == o.end_s && id > o.id);
  }
};

// Queue order: higher priority first, then earlier arrival, then input order.
// A queued job carries what the backfill scan reads (its GPUs, whole nodes
// and duration), so that the scan does not look the job up.
struct Queued {
  int neg_priority;
  double arrival_s;
  int id;
  int gpus;
  int nodes;  // nodes_held: 0 for a one-node job
  double duration_s;
  bool operator<(const Queued& o) const {
    if (neg_priority != o.neg_priority) return neg_priority < o.neg_priority;
    if (arrival_s != o.arrival_s) return arrival_s < o.arrival_s;
    return id < o.id;
  }
};

// The queue: one list per priority, in arrival order (a job always arrives
// after those of its priority already queued, so it joins the end of its
// list). Lists are contiguous, so the backfill scan reads the queue in order
// without chasing pointers; a job removed from the middle by the scan leaves
// no hole (the scanned part is closed up when the scan leaves it).
class JobQueue {
 public:
  bool empty() const { return levels_.empty(); }
  const Queued& head() const { return levels_.begin()->second.front(); }

  void push(const Queued& q) {
    Level& l = levels_[q.neg_priority];
    if (l.begin < l.items.size() && q < l.items.back()) {
      throw std::logic_error("simulate: a job arrived before one already queued");
    }
    l.items.push_back(q);
  }

  void pop_head() {
    auto it = levels_.begin();
    Level& l = it->second;
    if (++l.begin == l.items.size()) {
      levels_.erase(it);
    } else if (l.begin >= 1024 && 2 * l.begin > l.items.size()) {
      l.items.erase(l.items.begin(), l.items.begin() + static_cast<std::ptrdiff_t>(l.begin));
      l.begin = 0;
    }
  }

  // Calls `remove(q)` on the jobs behind the head in queue order, at most
  // `limit` of them, while `more()`; a job for which it returns true leaves
  // the queue.
  template <class More, class Remove>
  void scan_behind_head(int limit, More more, Remove remove) {
    int seen = 0;
    bool first = true;
    for (auto it = levels_.begin(); it != levels_.end() && seen < limit && more();) {
      Level& l = it->second;
      size_t i = l.begin + (first ? 1 : 0);
      size_t removed = 0;
      for (; i < l.items.size() && seen < limit && more(); ++i, ++seen) {
        if (remove(l.items[i])) {
          l.items[i].id = kNone;
          ++removed;
        }
      }
      if (removed > 0) {
        // Close up [begin, i) towards i, keeping the order.
        size_t w = i;
        for (size_t r = i; r-- > l.begin;) {
          if (l.items[r].id != kNone) l.items[--w] = l.items[r];
        }
        l.begin = w;
      }
      first = false;
      if (l.begin == l.items.size()) {
        it = levels_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  struct Level {
    std::vector<Queued> items;  // [begin, end) queued
    size_t begin = 0;
    const Queued& front() const { return items[begin]; }
  };
  std::map<int, Level> levels_;  // by -priority
};

class Simulator {
 public:
  Simulator(const std::vector<Job>& jobs, const Cluster& cluster, const SchedulerOptions& options,
            const Progress& progress)
      : jobs_(jobs),
        cluster_(cluster),
        options_(options),
        progress_(progress),
        g_(cluster.gpus_per_node),
        pool_(std::max(cluster.nodes, 1), std::max(cluster.gpus_per_node, 1)),
        held_(jobs.size()) {
    if (cluster.nodes < 1 || cluster.gpus_per_node < 1) {
      throw std::invalid_argument("simulate: a cluster needs at least one node and one GPU");
    }
    out_.jobs.resize(jobs.size());
    delta_.assign(static_cast<size_t>(cluster.nodes), 0);
    excluded_.assign(static_cast<size_t>(cluster.nodes), 0);
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
    decided_ = static_cast<long long>(jobs_.size() - order.size());
    const long long total = static_cast<long long>(jobs_.size());
    report_every_ = std::max<long long>(1, total / 256);
    next_report_ = decided_ + report_every_;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return jobs_[a].arrival_s < jobs_[b].arrival_s; });
    size_t next = 0;
    while (next < order.size() || !running_.empty()) {
      double t = std::numeric_limits<double>::infinity();
      if (next < order.size()) t = jobs_[order[next]].arrival_s;
      if (!running_.empty()) t = std::min(t, running_.front().end_s);
      while (!running_.empty() && running_.front().end_s <= t) {
        finish(running_.front());
        std::pop_heap(running_.begin(), running_.end(), std::greater<>());
        running_.pop_back();
      }
      while (next < order.size() && jobs_[order[next]].arrival_s <= t) {
        const int id = order[next++];
        const Job& j = jobs_[id];
        queue_.push({-j.priority, j.arrival_s, id, j.gpus, nodes_held(j, cluster_), j.duration_s});
      }
      pass(t);
      if (progress_ && decided_ >= next_report_) {
        progress_(decided_, total);
        next_report_ = decided_ + report_every_;
      }
    }
    if (!queue_.empty()) throw std::logic_error("simulate: jobs left in the queue");
    if (progress_) progress_(total, total);
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
  // Whether node n may take a job of `gpus` GPUs under the pass's exclusion:
  // not reserved for the head, or the head's one reserved node with at least
  // `gpus` spare GPUs (`extra`).
  bool allowed(int n, int gpus) const {
    if (!excluded_[n]) return true;
    return n == extra_node_ && gpus <= extra_;
  }

  // The best-fit node for a one-node job of `gpus` GPUs now (the fewest free
  // GPUs that suffice, lowest index on a tie), optionally honouring the
  // exclusion; kNone when none fits.
  int best_fit(int gpus, bool exclude) const {
    for (int f = pool_.first_bucket(gpus); f != kNone; f = pool_.first_bucket(f + 1)) {
      const IndexSet& b = pool_.bucket(f);
      for (int n = b.next(0); n != kNone; n = b.next(n + 1)) {
        if (!exclude || allowed(n, gpus)) return n;
      }
    }
    return kNone;
  }

  // The k free whole nodes of lowest index (not excluded, with `exclude`)
  // into `nodes`; false when there are fewer.
  bool whole_nodes(int k, bool exclude, std::vector<int>& nodes) const {
    nodes.clear();
    if (pool_.whole() < k) return false;
    const IndexSet& b = pool_.bucket(g_);
    for (int n = b.next(0); n != kNone && static_cast<int>(nodes.size()) < k; n = b.next(n + 1)) {
      if (!exclude || !excluded_[n]) nodes.push_back(n);
    }
    return static_cast<int>(nodes.size()) == k;
  }

  // Starts job `id` at t on node `node` (one-node job) or on the nodes in
  // `nodes` (a larger job; taken over).
  void start(int id, int node, std::vector<int>* nodes, double t) {
    const Job& j = jobs_[id];
    JobOutcome& o = out_.jobs[id];
    if (nodes) {
      for (int n : *nodes) pool_.take(n, g_);
      o.first_node = nodes->front();
      held_[id] = std::move(*nodes);
    } else {
      pool_.take(node, j.gpus);
      o.first_node = node;
    }
    o.runs = true;
    o.start_s = t;
    o.end_s = t + j.duration_s;
    running_.push_back({o.end_s, id, nodes ? kNone : node, nodes ? g_ : j.gpus});
    std::push_heap(running_.begin(), running_.end(), std::greater<>());
    ++decided_;
  }

  void finish(const Running& r) {
    if (r.node != kNone) {
      pool_.give(r.node, r.gpus);
      return;
    }
    for (int n : held_[r.id]) pool_.give(n, g_);
    std::vector<int>().swap(held_[r.id]);
  }

  // Tries to start job id now; `exclude`: keep off the head's reservation.
  bool try_start(int id, bool exclude, double t) {
    const Job& j = jobs_[id];
    const int k = nodes_held(j, cluster_);
    if (k == 0) {
      const int n = best_fit(j.gpus, exclude);
      if (n == kNone) return false;
      if (exclude && n == extra_node_ && excluded_[n]) extra_ -= j.gpus;
      start(id, n, nullptr, t);
      return true;
    }
    if (!whole_nodes(k, exclude, scratch_)) return false;
    start(id, kNone, &scratch_, t);
    return true;
  }

  // EASY's reservation for the head: the earliest running job (in end order)
  // after whose completion the head fits, and the nodes it would take then.
  // Walks the running jobs by end, keeping the GPUs they free per node in
  // `delta_` (only the nodes they touch). Sets shadow_, marks the reserved
  // nodes in excluded_ (listed in reserved_), and extra_node_/extra_.
  double reserve(const Job& head) {
    const int head_nodes = nodes_held(head, cluster_);
    int whole = pool_.whole();
    touched_.clear();
    freed_whole_.clear();
    double shadow = std::numeric_limits<double>::infinity();
    int last_id = kNone;
    auto free_node = [&](int n, int gpus) {
      if (delta_[n] == 0) touched_.push_back(n);
      delta_[n] += gpus;
      const int later = pool_.free(n) + delta_[n];
      if (later == g_) {
        ++whole;
        freed_whole_.push_back(n);
      }
      return head_nodes == 0 && later >= head.gpus;
    };
    // The running jobs in (end, id) order without sorting them all: a second
    // heap of positions in running_ holds the next candidates (a popped
    // position's two children join it), so visiting v jobs costs O(v log v).
    auto later_first = [&](size_t a, size_t b) { return running_[a] > running_[b]; };
    walk_.clear();
    if (!running_.empty()) walk_.push_back(0);
    while (!walk_.empty()) {
      std::pop_heap(walk_.begin(), walk_.end(), later_first);
      const size_t at = walk_.back();
      walk_.pop_back();
      for (size_t child = 2 * at + 1; child <= 2 * at + 2 && child < running_.size(); ++child) {
        walk_.push_back(child);
        std::push_heap(walk_.begin(), walk_.end(), later_first);
      }
      const Running& r = running_[at];
      bool fits = false;
      if (r.node != kNone) {
        fits = free_node(r.node, r.gpus);
      } else {
        for (int n : held_[r.id]) fits = free_node(n, g_) || fits;
      }
      if (head_nodes > 0) fits = whole >= head_nodes;
      if (fits) {
        shadow = r.end_s;
        last_id = r.id;
        break;
      }
    }
    if (last_id == kNone) throw std::logic_error("simulate: the head job never fits");
    reserved_.clear();
    extra_node_ = kNone;
    extra_ = 0;
    if (head_nodes == 0) {
      // Only the nodes of the job that ended last can fit the head (no node
      // fitted before it): its one node, or its whole nodes, all with g
      // free then, of which best fit takes the lowest index.
      const int r = nodes_held(jobs_[last_id], cluster_) == 0 ? out_.jobs[last_id].first_node
                                                              : held_[last_id].front();
      reserved_.push_back(r);
      extra_node_ = r;
      extra_ = pool_.free(r) + delta_[r] - head.gpus;
    } else {
      // The head_nodes lowest-index nodes whole then: those whole now
      // (bucket g) merged with those the walk freed whole.
      std::sort(freed_whole_.begin(), freed_whole_.end());
      const IndexSet& b = pool_.bucket(g_);
      int n = b.next(0);
      size_t i = 0;
      while (static_cast<int>(reserved_.size()) < head_nodes) {
        if (n != kNone && (i == freed_whole_.size() || n < freed_whole_[i])) {
          reserved_.push_back(n);
          n = b.next(n + 1);
        } else {
          reserved_.push_back(freed_whole_[i++]);
        }
      }
    }
    for (int t : touched_) delta_[t] = 0;
    for (int r : reserved_) excluded_[r] = 1;
    return shadow;
  }

  void pass(double t) {
    ++out_.passes;
    while (!queue_.empty()) {
      if (!try_start(queue_.head().id, false, t)) break;
      queue_.pop_head();
    }
    if (queue_.empty() || options_.policy == Policy::fifo) return;

    // EASY backfill.
    const Job& head = jobs_[queue_.head().id];
    const double shadow = reserve(head);
    double& first_reservation = out_.jobs[queue_.head().id].reservation_s;
    if (first_reservation < 0) first_reservation = shadow;

    // Free GPUs only shrink during the backfill, so a size that did not fit
    // does not fit later in the pass either: the smallest size known not to
    // fit, per kind (one-node GPUs or whole nodes, anywhere or off the
    // reservation), skips every job at least as large without a placement
    // search. Sizes above the largest free block or the free whole nodes are
    // known not to fit from the start.
    constexpr int kAll = std::numeric_limits<int>::max();
    int fail_one = kAll, fail_whole = kAll, fail_one_excl = kAll, fail_whole_excl = kAll;
    auto measure = [&] {
      fail_one = std::min(fail_one, pool_.max_free() + 1);
      fail_whole = std::min(fail_whole, pool_.whole() + 1);
    };
    measure();
    queue_.scan_behind_head(
        options_.backfill_depth, [&] { return fail_one > 1; },
        [&](const Queued& q) {
          const int size = q.nodes == 0 ? q.gpus : q.nodes;
          int& fail_any = q.nodes == 0 ? fail_one : fail_whole;
          if (size >= fail_any) return false;
          const bool ends_in_time = t + q.duration_s <= shadow;
          int& fail_excl = q.nodes == 0 ? fail_one_excl : fail_whole_excl;
          if ((!ends_in_time && size >= fail_excl) || !try_start(q.id, !ends_in_time, t)) {
            int& fail = ends_in_time ? fail_any : fail_excl;
            fail = std::min(fail, size);
            return false;
          }
          measure();
          return true;
        });
    for (int r : reserved_) excluded_[r] = 0;
  }

  const std::vector<Job>& jobs_;
  Cluster cluster_;
  SchedulerOptions options_;
  const Progress& progress_;
  int g_;
  NodePool pool_;
  std::vector<std::vector<int>> held_;  // nodes held by each running multi-node job
  std::vector<Running> running_;        // a binary min-heap by (end, id)
  JobQueue queue_;
  Schedule out_;
  // Backfill scratch, reused by every pass.
  std::vector<int> delta_;        // GPUs the reservation walk freed per node
  std::vector<char> excluded_;    // reserved for the head in this pass
  std::vector<int> touched_;      // nodes with a non-zero delta_
  std::vector<int> freed_whole_;  // nodes the walk freed whole
  std::vector<int> reserved_;
  std::vector<int> scratch_;
  std::vector<size_t> walk_;  // positions in running_ (reserve)
  int extra_node_ = kNone;
  int extra_ = 0;
  long long decided_ = 0, report_every_ = 1, next_report_ = 1;
};

}  // namespace

Schedule simulate(const std::vector<Job>& jobs, const Cluster& cluster,
                  const SchedulerOptions& options, const Progress& progress) {
  return Simulator(jobs, cluster, options, progress).run();
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
