// `calibrate`: fits the catalog's figures for one server to the cluster's own
// nccl-tests tables, GEMM benchmark and training logs, and writes them as a
// catalog overlay (docs/input-format.md, "calibrate").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "calibration/calibration.hpp"
#include "core/error.hpp"
#include "core/spelling.hpp"
#include "core/units.hpp"
#include "io/calibration_inputs.hpp"
#include "io/files.hpp"
#include "report/calibration_report.hpp"

namespace scaleout::app {

namespace {

// Today (UTC), or the day SOURCE_DATE_EPOCH names (reproducible output).
std::string today() {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (end != e && *end == '\0' && v >= 0) t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// The fit an overlay figure comes from: all_reduce's (the data-parallel and
// tensor-parallel collective) where given, else the first.
std::optional<LinkFit> pick(const std::vector<LinkFit>& fits, bool inter) {
  std::optional<LinkFit> out;
  for (const LinkFit& f : fits) {
    if (f.inter != inter) continue;
    if (!out ||
        (f.collective == Collective::all_reduce && out->collective != Collective::all_reduce))
      out = f;
  }
  return out;
}

// A link fit's relative RMS error above which calibrate adds a note.
constexpr double kPoorFit = 0.15;

LinkFit fit_or_throw(const NcclRun& run, const ClusterLinks& links) {
  try {
    return fit_link(run, links);
  } catch (const std::invalid_argument&) {
    throw InputError(run.file, run.samples.front().line, "",
                     "no positive bus bandwidth fits the size table",
                     "check that the times grow with the size");
  }
}

}  // namespace

Output run_calibrate(const Options& o) {
  const Catalog catalog = load_catalog(o);
  const Server* server = catalog.find_server(o.server);
  if (!server) {
    throw InputError("", 0, "--server", fmt::format("unknown server '{}'", o.server),
                     suggestion(o.server, catalog.ids<Server>()));
  }
  const Gpu& gpu = *catalog.find_gpu(server->gpu_id);
  const Fabric* fabric = nullptr;
  if (!o.fabric.empty()) {
    fabric = catalog.find_fabric(o.fabric);
    if (!fabric) {
      throw InputError("", 0, "--fabric", fmt::format("unknown fabric '{}'", o.fabric),
                       suggestion(o.fabric, catalog.ids<Fabric>()));
    }
  }
  if (o.nccl_tests.empty() && o.gemm.empty() && o.steps.empty()) {
    throw InputError("", 0, "", "nothing to calibrate",
                     "give --nccl-tests FILE, --gemm FILE or --steps FILE --workload W.yaml");
  }
  if (o.steps.size() != o.step_workloads.size()) {
    throw InputError("", 0, "--workload",
                     fmt::format("{} --steps logs and {} --workload files", o.steps.size(),
                                 o.step_workloads.size()),
                     "give each --steps log its --workload, in the same order");
  }
  report::CalibrationResult r;
  r.date = today();
  r.server = *server;
  r.gpu = gpu;
  if (fabric) r.fabric = *fabric;
  const NetworkConstants nk;
  Server new_server = *server;
  GpuFamily new_family = gpu.family_data;
  std::vector<std::string> server_sources;

  // Collectives: the node's level first, so that the inter-node fits see it.
  if (!o.nccl_tests.empty()) {
    std::vector<NcclRun> runs;
    for (const std::string& f : o.nccl_tests) {
      runs.push_back(io::read_nccl_tests(io::read_text_file(f), f));
      const NcclRun& run = runs.back();
      if (run.ranks < 2) {
        throw InputError(f, 0, "", "one rank moves no data", "run nccl-tests on 2 or more GPUs");
      }
      if (run.ranks_per_node > server->gpus_per_node) {
        throw InputError(f, 0, "",
                         fmt::format("{} ranks on one host; server {} has {} GPUs per node",
                                     run.ranks_per_node, server->id, server->gpus_per_node),
                         "calibrate the server the log was measured on");
      }
    }
    ClusterLinks links = resolve_links(*server, gpu, fabric, 2, nk);
    for (const NcclRun& run : runs) {
      if (run.nodes == 1) r.links.push_back(fit_or_throw(run, links));
    }
    r.intra = pick(r.links, false);
    if (r.intra) links.intra = r.intra->fitted;
    for (const NcclRun& run : runs) {
      if (run.nodes > 1) r.links.push_back(fit_or_throw(run, links));
    }
    r.inter = pick(r.links, true);
    for (const LinkFit& f : r.links) {
      if (f.rms_error_after > kPoorFit) {
        r.warnings.push_back(fmt::format(
            "{}: the alpha-beta model fits its times with {:.0f} % RMS error (NCCL changes "
            "protocol and algorithm across sizes); read the fitted figures with care",
            f.file, 100 * f.rms_error_after));
      }
    }
    if (r.intra) {
      new_server.intra_node_bw_Bps =
          intra_node_bw_for(r.intra->fitted.bus_bw_Bps, *server, gpu, nk);
      const double before =
          server->intra_node_bw_Bps > 0 ? server->intra_node_bw_Bps : gpu.scaleup_bw_Bps;
      r.changes.push_back(fmt::format(
          "servers {}: intra_node_gbyte_s {:.4g} -> {:.4g} (bus bandwidth {:.1f} GB/s, {} in {})",
          server->id, before / 1e9, new_server.intra_node_bw_Bps / 1e9,
          r.intra->fitted.bus_bw_Bps / 1e9, report::collective_label(r.intra->collective),
          r.intra->file));
      server_sources.push_back(
          fmt::format("intra_node_gbyte_s fitted on nccl-tests {} ({})", r.intra->file, r.date));
      if (new_server.intra_node_bw_Bps > before * 1.05) {
        r.warnings.push_back(
            fmt::format("the fitted node bandwidth {:.4g} GB/s is above the catalog's {:.4g} GB/s: "
                        "in-switch reduction (NVLS) moves less data than the ring model counts",
                        new_server.intra_node_bw_Bps / 1e9, before / 1e9));
      }
    }
    if (r.inter) {
      const double nic = nic_bw_for(r.inter->fitted.bus_bw_Bps, *server, fabric, nk);
      if (nic <= 0) {
        r.warnings.push_back(
            fmt::format("server {} has no scale-out NICs: the inter-node bandwidth is not written",
                        server->id));
      } else {
        new_server.nic_bw_Bps = nic;
        r.changes.push_back(fmt::format(
            "servers {}: nic_gbit_s {:.4g} -> {:.4g} (bus bandwidth {:.1f} GB/s per GPU, {} in {})",
            server->id, server->nic_bw_Bps / units::kGbps, nic / units::kGbps,
            r.inter->fitted.bus_bw_Bps / 1e9, report::collective_label(r.inter->collective),
            r.inter->file));
        server_sources.push_back(
            fmt::format("nic_gbit_s fitted on nccl-tests {} ({})", r.inter->file, r.date));
        if (nic > server->nic_bw_Bps * 1.05) {
          r.warnings.push_back(fmt::format(
              "the fitted NIC rate {:.4g} Gb/s is above the catalog's {:.4g} Gb/s line rate: "
              "in-network reduction (SHARP, NVLS) or a tree moves less data than the ring model "
              "counts",
              nic / units::kGbps, server->nic_bw_Bps / units::kGbps));
        }
        if (fabric && nic > fabric->port_bw_Bps) {
          r.warnings.push_back(fmt::format(
              "the fitted NIC rate {:.4g} Gb/s is above fabric {}'s port rate {:.4g} Gb/s, "
              "which caps it",
              nic / units::kGbps, fabric->id, fabric->port_bw_Bps / units::kGbps));
        }
      }
      if (fabric) {
        Fabric f = *fabric;
        f.latency_s = fabric_latency_for(r.inter->fitted.hop_latency_s, nk);
        r.changes.push_back(fmt::format("fabrics {}: latency_us {:.3g} -> {:.3g} (hop {:.1f} us)",
                                        f.id, fabric->latency_s * 1e6, f.latency_s * 1e6,
                                        r.inter->fitted.hop_latency_s * 1e6));
        r.new_fabric = f;
      }
    }
    if (r.intra || (r.inter && new_server.nic_bw_Bps != server->nic_bw_Bps)) {
      r.new_server = new_server;
      std::string src;
      for (const std::string& s : server_sources) src += s + "; ";
      r.server_source = src + "other figures: " + server->source;
    }
  }

  // GEMMs: the family's kernel shares.
  const bool has_family = !gpu.family.empty();
  if (!o.gemm.empty()) {
    r.gemm_file = o.gemm;
    const std::vector<GemmSample> samples = io::read_gemm_log(io::read_text_file(o.gemm), o.gemm);
    ComputeConstants base;
    r.gemm = fit_gemm_share(samples, gpu, false, base);
    r.fp8_gemm = fit_gemm_share(samples, gpu, true, base);
    const std::string src =
        fmt::format("GEMM benchmark {} fitted by scaleout calibrate ({})", o.gemm, r.date);
    if (r.gemm.samples > 0) {
      new_family.gemm_share = r.gemm.share;
      r.family_gemm_source = src;
      r.changes.push_back(fmt::format("families {}: gemm share {:.3f} -> {:.3f} ({} GEMMs in {})",
                                      gpu.family, r.gemm.catalog_share, r.gemm.share,
                                      r.gemm.samples, o.gemm));
    }
    if (r.fp8_gemm.samples > 0) {
      if (gpu.fp8_flops <= 0) {
        throw InputError(o.gemm, 0, "dtype",
                         fmt::format("fp8 GEMMs, but {} has no FP8 rate", gpu.id));
      }
      new_family.fp8_gemm_share = r.fp8_gemm.share;
      r.family_fp8_source = src;
      r.changes.push_back(
          fmt::format("families {}: fp8_gemm share {:.3f} -> {:.3f} ({} GEMMs in {})", gpu.family,
                      r.fp8_gemm.catalog_share, r.fp8_gemm.share, r.fp8_gemm.samples, o.gemm));
    }
  }

  // Step logs: the family's sustained factor, on the catalog with the
  // figures fitted above.
  if (!o.steps.empty()) {
    Catalog cal = catalog;
    if (r.new_server) cal.add(*r.new_server);
    if (r.new_fabric) cal.add(*r.new_fabric);
    if (has_family) cal.add(new_family);
    std::vector<StepSample> samples;
    for (size_t i = 0; i < o.steps.size(); ++i) {
      const std::string& wpath = o.step_workloads[i];
      const std::string dir = std::filesystem::path(wpath).parent_path().string();
      const io::WorkloadFile wf = io::read_workload(io::read_text_file(wpath), wpath, dir, cal);
      const ClusterSpec& cs = wf.workload.cluster;
      if (!wf.has_cluster || wf.workload.task == Task::inference) {
        throw InputError(wpath, 0, "cluster", "a step log needs a training workload with a cluster",
                         fmt::format("add cluster: {{server: {}, nodes: N}}", server->id));
      }
      if (cs.server_id != server->id) {
        throw InputError(
            wpath, 0, "cluster.server",
            fmt::format("the workload runs on {}, not on {}", cs.server_id, server->id),
            "calibrate one server at a time");
      }
      StepSample s;
      s.file = o.steps[i];
      s.workload = wf.workload;
      s.server = *cal.find_server(cs.server_id);
      s.gpu = *cal.find_gpu(cs.gpu_id.empty() ? s.server.gpu_id : cs.gpu_id);
      s.fabric = cs.fabric_id.empty() ? nullptr : cal.find_fabric(cs.fabric_id);
      const Layout& l = s.workload.layout;
      const double batch = s.workload.global_batch > 0
                               ? static_cast<double>(s.workload.global_batch)
                               : static_cast<double>(l.micro_batch) * l.dp;
      const io::StepLog log = io::read_step_log(io::read_text_file(o.steps[i]), o.steps[i],
                                                batch * static_cast<double>(s.workload.seq_len),
                                                cs.nodes * s.server.gpus_per_node);
      s.measured_s = log.median_s;
      s.steps = static_cast<int>(log.step_s.size());
      samples.push_back(s);
      r.steps.push_back({o.steps[i], wpath, log.format, s.steps, s.measured_s, 0, 0});
    }
    r.step_fit = fit_steps(samples);
    for (size_t i = 0; i < samples.size(); ++i) {
      r.steps[i].before_s = predicted_step_s(samples[i], 1.0);
      r.steps[i].after_s = predicted_step_s(samples[i], r.step_fit->scale);
    }
    const double before = new_family.sustained_factor;
    double after = before * r.step_fit->scale;
    if (after > 1.0) {
      r.warnings.push_back(fmt::format(
          "the logs ask for a sustained factor of {:.3f}; the catalog holds at most 1 (check the "
          "GEMM share and the workloads' layouts)",
          after));
      after = 1.0;
    }
    new_family.sustained_factor = std::max(after, 1e-3);
    r.family_sustained_source = fmt::format("{} step log(s) ({}) by scaleout calibrate ({})",
                                            o.steps.size(), fmt::join(o.steps, ", "), r.date);
    r.changes.push_back(fmt::format("families {}: sustained_factor {:.3f} -> {:.3f} ({} step logs)",
                                    gpu.family, before, new_family.sustained_factor,
                                    o.steps.size()));
  }
  if (!o.gemm.empty() || !o.steps.empty()) {
    if (has_family) {
      new_family.id = gpu.family;
      r.new_family = new_family;
      r.warnings.push_back(fmt::format(
          "the families entry '{}' applies to every GPU of that family: pass the overlay only "
          "for plans on this cluster",
          gpu.family));
    } else {
      r.warnings.push_back(fmt::format(
          "GPU {} names no family: the GEMM and step figures are printed, not written", gpu.id));
    }
  }
  Output out;
  out.report = report::calibration_overlay_yaml(r);
  out.notes = o.format == Format::json ? report::calibration_json(r) : report::calibration_text(r);
  return out;
}

}  // namespace scaleout::app
