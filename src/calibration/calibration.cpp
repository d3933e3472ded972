#include "calibration/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "perf/step.hpp"

namespace scaleout {

namespace {

// Time of the run's collective of `bytes` with the exercised level set to `level`.
double model_time_s(const NcclRun& run, const GroupSpan& g, ClusterLinks links, bool inter,
                    const LinkLevel& level, double bytes) {
  (inter ? links.inter : links.intra) = level;
  return collective_time_s(run.collective, bytes, g, links);
}

double rms_error(const NcclRun& run, const GroupSpan& g, const ClusterLinks& links, bool inter,
                 const LinkLevel& level) {
  double sum = 0;
  for (const NcclSample& s : run.samples) {
    const double r = model_time_s(run, g, links, inter, level, s.bytes) / s.time_s - 1.0;
    sum += r * r;
  }
  return run.samples.empty() ? 0 : std::sqrt(sum / static_cast<double>(run.samples.size()));
}

}  // namespace

LinkFit fit_link(const NcclRun& run, const ClusterLinks& links) {
  LinkFit fit;
  fit.file = run.file;
  fit.collective = run.collective;
  fit.inter = run.nodes > 1;
  fit.samples = static_cast<int>(run.samples.size());
  GroupSpan& g = fit.span;
  g.size = run.ranks;
  g.nodes = std::max(1, run.nodes);
  g.per_node = fit.inter ? std::max(1, run.ranks_per_node) : run.ranks;
  fit.catalog = fit.inter ? links.inter : links.intra;

  // t(h, v) = t0 + a h + b v with v = 1 / bus bandwidth: three evaluations
  // give the coefficients exactly (the model is affine in both).
  constexpr double kNoTime = 1e300;  // a bus bandwidth so high its term vanishes
  double sxx = 0, sxv = 0, svv = 0, sxy = 0, svy = 0;
  for (const NcclSample& s : run.samples) {
    const double t0 = model_time_s(run, g, links, fit.inter, {kNoTime, 0}, s.bytes);
    const double a = model_time_s(run, g, links, fit.inter, {kNoTime, 1}, s.bytes) - t0;
    const double b = model_time_s(run, g, links, fit.inter, {1, 0}, s.bytes) - t0;
    // Relative residual (t0 + a h + b v - t) / t.
    const double x = a / s.time_s, v = b / s.time_s, y = (s.time_s - t0) / s.time_s;
    sxx += x * x;
    sxv += x * v;
    svv += v * v;
    sxy += x * y;
    svy += v * y;
  }
  double h = 0, inv_bw = 0;
  bool free_fit = false;
  const double det = sxx * svv - sxv * sxv;
  if (run.samples.size() >= 2 && det > 1e-12 * sxx * svv) {
    h = (sxy * svv - svy * sxv) / det;
    inv_bw = (sxx * svy - sxv * sxy) / det;
    free_fit = h >= 0;
  }
  if (!free_fit) {
    // One size: the bandwidth alone at the catalog's hop latency; a free fit
    // whose latency went below 0: the constrained optimum at 0.
    h = run.samples.size() < 2 ? fit.catalog.hop_latency_s : 0.0;
    inv_bw = svv > 0 ? (svy - h * sxv) / svv : 0;
  }
  if (!(inv_bw > 0) || !std::isfinite(inv_bw)) {
    throw std::invalid_argument("no positive bus bandwidth fits the times");
  }
  fit.fitted = {1.0 / inv_bw, h};
  fit.rms_error_before = rms_error(run, g, links, fit.inter, fit.catalog);
  fit.rms_error_after = rms_error(run, g, links, fit.inter, fit.fitted);
  return fit;
}

double intra_node_bw_for(double bus_bw_Bps, const Server& server, const Gpu& gpu,
                         const NetworkConstants& k) {
  return bus_bw_Bps / intra_node_efficiency(server, gpu, k);
}

double nic_bw_for(double bus_bw_Bps, const Server& server, const Fabric* fabric,
                  const NetworkConstants& k) {
  if (server.nics_per_node <= 0) return 0;
  const FabricKind kind = fabric ? fabric->kind : FabricKind::ib;
  const double eff = kind == FabricKind::ib     ? k.ib_efficiency
                     : kind == FabricKind::roce ? k.roce_efficiency
                     : kind == FabricKind::efa  ? k.efa_efficiency
                                                : k.other_efficiency;
  const double oversubscription = fabric ? fabric->oversubscription : 1.0;
  // resolve_links: bus = nics * nic / gpus_per_node * eff / oversubscription.
  return bus_bw_Bps * oversubscription / eff * std::max(1, server.gpus_per_node) /
         server.nics_per_node;
}

double fabric_latency_for(double hop_s, const NetworkConstants& k) {
  return std::max(0.0, hop_s - k.net_hop_s);
}

double fit_scale(const std::vector<double>& measured,
                 const std::function<std::vector<double>(double)>& predict, double lo, double hi) {
  auto loss = [&](double log_s) {
    const std::vector<double> p = predict(std::exp(log_s));
    double sum = 0;
    for (size_t i = 0; i < measured.size() && i < p.size(); ++i) {
      const double r = std::log(p[i] / measured[i]);
      sum += std::isfinite(r) ? std::abs(r) : 1e30;
    }
    return sum;
  };
  // Golden-section search on log s (the loss is unimodal in it for times
  // that fall as the rate rises). Absolute log errors: a median-like fit that
  // a few outlying runs do not pull, and the one that lowers the mean
  // absolute error calibrate reports.
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = std::log(lo), b = std::log(hi);
  double c = b - phi * (b - a), d = a + phi * (b - a);
  double fc = loss(c), fd = loss(d);
  while (b - a > 1e-7) {
    if (fc <= fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - phi * (b - a);
      fc = loss(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + phi * (b - a);
      fd = loss(d);
    }
  }
  return std::exp((a + b) / 2.0);
}

double mean_abs_error(const std::vector<double>& predicted, const std::vector<double>& measured) {
  double sum = 0;
  const size_t n = std::min(predicted.size(), measured.size());
  for (size_t i = 0; i < n; ++i) sum += std::abs(predicted[i] / measured[i] - 1.0);
  return n == 0 ? 0 : sum / static_cast<double>(n);
}

ShareFit fit_gemm_share(const std::vector<GemmSample>& samples, const Gpu& gpu, bool fp8,
                        const ComputeConstants& base) {
  std::vector<GemmSample> mine;
  std::vector<double> measured;
  for (const GemmSample& s : samples) {
    if ((s.precision == Precision::fp8) != fp8) continue;
    mine.push_back(s);
    measured.push_back(s.time_s);
  }
  ShareFit fit;
  fit.catalog_share = fp8 ? gpu.family_data.fp8_gemm_share : gpu.family_data.gemm_share;
  fit.samples = static_cast<int>(mine.size());
  if (mine.empty()) return fit;
  auto predict = [&](double share) {
    std::vector<double> t;
    for (const GemmSample& s : mine) {
      t.push_back(gemm_time_s(s.m, s.n, s.k, compute_peak_flops(gpu, s.precision), gpu.hbm_bw_Bps,
                              base, share, fp8 ? 1.0 : 2.0));
    }
    return t;
  };
  fit.share = fit_scale(measured, predict, 1e-3, 1.0);
  fit.error_before = mean_abs_error(predict(fit.catalog_share), measured);
  fit.error_after = mean_abs_error(predict(fit.share), measured);
  return fit;
}

double predicted_step_s(const StepSample& s, double scale) {
  PerfConstants k = perf_constants(s.gpu, s.workload.framework, s.workload.compile);
  k.compute = scaled_tensor_rates(k.compute, scale);
  return estimate_step(s.workload, s.server, s.gpu, s.fabric, k).step_s;
}

namespace {

// Fits on `fit_on`; the errors on `score_on` before (scale 1) and after.
struct Scored {
  double scale = 1, before = 0, after = 0;
};
Scored fit_and_score(const std::vector<const StepSample*>& fit_on,
                     const std::vector<const StepSample*>& score_on) {
  auto measured = [](const std::vector<const StepSample*>& v) {
    std::vector<double> m;
    for (const StepSample* s : v) m.push_back(s->measured_s);
    return m;
  };
  auto predict = [](const std::vector<const StepSample*>& v, double scale) {
    std::vector<double> p;
    for (const StepSample* s : v) p.push_back(predicted_step_s(*s, scale));
    return p;
  };
  Scored r;
  r.scale = fit_scale(measured(fit_on), [&](double scale) { return predict(fit_on, scale); });
  r.before = mean_abs_error(predict(score_on, 1.0), measured(score_on));
  r.after = mean_abs_error(predict(score_on, r.scale), measured(score_on));
  return r;
}

}  // namespace

StepFit fit_steps(const std::vector<StepSample>& samples) {
  StepFit fit;
  if (samples.empty()) return fit;
  std::vector<const StepSample*> all, even, odd;
  for (size_t i = 0; i < samples.size(); ++i) {
    all.push_back(&samples[i]);
    (i % 2 == 0 ? even : odd).push_back(&samples[i]);
  }
  const Scored whole = fit_and_score(all, all);
  fit.scale = whole.scale;
  fit.error_before = whole.before;
  fit.error_after = whole.after;
  if (samples.size() >= 2) {
    const Scored held = fit_and_score(even, odd);
    fit.heldout_fit_count = static_cast<int>(even.size());
    fit.heldout_count = static_cast<int>(odd.size());
    fit.heldout_scale = held.scale;
    fit.heldout_error_before = held.before;
    fit.heldout_error_after = held.after;
  }
  return fit;
}

}  // namespace scaleout
