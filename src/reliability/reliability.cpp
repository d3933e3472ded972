#include "reliability/reliability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scaleout {

namespace {

constexpr double kDay_s = 86400.0;
// Longest wall time reported (about 3e22 years): runs that would take longer
// never finish, and the figure stays finite for the writers.
constexpr double kNever_s = 1e30;

// The smallest of the limits that apply (0 = no limit).
double min_limit(std::initializer_list<double> limits) {
  double best = std::numeric_limits<double>::infinity();
  for (double v : limits) {
    if (v > 0) best = std::min(best, v);
  }
  return std::isfinite(best) ? best : 0.0;
}

}  // namespace

double job_mtbf_s(double failures_per_1000_node_days, int nodes,
                  double domain_failures_per_1000_days, int domains) {
  if (failures_per_1000_node_days <= 0 || nodes <= 0) {
    return std::numeric_limits<double>::infinity();
  }
  const double per_1000_days = failures_per_1000_node_days * nodes +
                               std::max(0.0, domain_failures_per_1000_days) * std::max(0, domains);
  return 1000.0 * kDay_s / per_1000_days;
}

double young_interval_s(double delta_s, double mtbf_s) {
  if (!std::isfinite(mtbf_s)) return std::numeric_limits<double>::infinity();
  return std::sqrt(2.0 * delta_s * mtbf_s);
}

double daly_interval_s(double delta_s, double mtbf_s) {
  if (!std::isfinite(mtbf_s)) return std::numeric_limits<double>::infinity();
  if (delta_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = delta_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * delta_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

double daly_wall_time_s(double solve_s, double tau_s, double delta_s, double restart_s,
                        double mtbf_s) {
  if (solve_s <= 0) return 0.0;
  if (!std::isfinite(mtbf_s)) {
    // No failures: only the checkpoints themselves cost time.
    return std::isfinite(tau_s) && tau_s > 0 ? solve_s * (1.0 + delta_s / tau_s) : solve_s;
  }
  const double a = restart_s / mtbf_s;
  const double b = (tau_s + delta_s) / mtbf_s;
  // log of M e^a (e^b - 1) solve / tau, to stay finite as long as possible.
  const double log_t =
      std::log(mtbf_s) + a + std::log(std::expm1(std::min(b, 700.0))) + std::log(solve_s / tau_s);
  if (!std::isfinite(log_t) || log_t > std::log(kNever_s)) return kNever_s;
  return std::exp(log_t);
}

double storage_read_Bps(const StorageSystem& s, int nodes, int gpus_per_node) {
  return min_limit(
      {s.node_read_Bps * nodes, s.gpu_read_Bps * nodes * gpus_per_node, s.total_read_Bps});
}

double storage_write_Bps(const StorageSystem& s, int nodes, int gpus_per_node) {
  return min_limit(
      {s.node_write_Bps * nodes, s.gpu_write_Bps * nodes * gpus_per_node, s.total_write_Bps});
}

Reliability estimate_reliability(const ReliabilityInput& in) {
  Reliability r;
  r.failures_per_1000_node_days = in.failures_per_1000_node_days;
  if (in.failures_per_1000_node_days > 0 && in.domain_failures_per_1000_days > 0) {
    r.domain_failures_per_1000_days = in.domain_failures_per_1000_days;
    r.domains = in.domains;
  }
  r.mtbf_s = job_mtbf_s(in.failures_per_1000_node_days, in.nodes, r.domain_failures_per_1000_days,
                        r.domains);
  r.checkpoint_bytes = in.checkpoint_bytes;
  const int gpus = std::max(1, in.nodes * in.gpus_per_node);
  const double write_Bps = storage_write_Bps(in.storage, in.nodes, in.gpus_per_node);
  const double read_Bps = storage_read_Bps(in.storage, in.nodes, in.gpus_per_node);
  r.checkpoint_write_s = write_Bps > 0 ? in.checkpoint_bytes / write_Bps : kNever_s;
  // Asynchronous: every GPU copies its shard to host memory, then training
  // goes on while the copy drains to storage. Blocking: training waits for
  // the write.
  const double snapshot_s =
      std::max(kAsyncSnapshotMin_s, in.checkpoint_bytes / gpus / std::max(in.host_link_Bps, 1e9));
  r.checkpoint_block_s = in.async_checkpoint ? snapshot_s : r.checkpoint_write_s;
  r.restart_s = in.requeue_s + (read_Bps > 0 ? in.checkpoint_bytes / read_Bps : kNever_s);
  r.young_interval_s = young_interval_s(r.checkpoint_block_s, r.mtbf_s);
  double tau = daly_interval_s(r.checkpoint_block_s, r.mtbf_s);
  // A background write must finish before the next checkpoint starts.
  if (in.async_checkpoint) tau = std::max(tau, r.checkpoint_write_s);
  r.checkpoint_interval_s = std::isfinite(tau) ? std::max(tau, 1.0) : 0.0;
  r.wall_time_s = daly_wall_time_s(in.ideal_time_s, std::isfinite(tau) ? std::max(tau, 1.0) : tau,
                                   r.checkpoint_block_s, r.restart_s, r.mtbf_s);
  r.goodput = r.wall_time_s > 0 ? in.ideal_time_s / r.wall_time_s : 1.0;
  r.expected_interruptions = std::isfinite(r.mtbf_s) ? r.wall_time_s / r.mtbf_s : 0.0;

  // Storage: data reads, and the checkpoint bandwidth that keeps stalls under
  // the target share s. Blocking: delta / tau = sqrt(delta / 2M) (Young) stays
  // under s' = s / (1 - s) when delta <= 2 M s'^2. Asynchronous: the write
  // must drain within one interval.
  StorageCheck& sc = r.storage;
  sc.required_read_Bps = in.tokens_per_s * in.bytes_per_token;
  if (std::isfinite(r.mtbf_s) && in.checkpoint_bytes > 0) {
    if (in.async_checkpoint) {
      const double t = daly_interval_s(snapshot_s, r.mtbf_s);
      sc.required_write_Bps = in.checkpoint_bytes / std::max(t, 1.0);
    } else {
      const double s = in.stall_target / (1.0 - in.stall_target);
      sc.required_write_Bps = in.checkpoint_bytes / (2.0 * r.mtbf_s * s * s);
    }
  }
  sc.available_read_Bps = read_Bps;
  sc.available_write_Bps = write_Bps;
  const bool writes = sc.required_write_Bps > write_Bps;
  const bool reads = sc.required_read_Bps > read_Bps;
  sc.bottleneck = writes && reads ? "checkpoint writes and data reads"
                  : writes        ? "checkpoint writes"
                  : reads         ? "data reads"
                                  : "none";
  return r;
}

}  // namespace scaleout
