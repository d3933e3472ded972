#include "report/calibration_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "report/json_parts.hpp"
#include "report/schema.hpp"

namespace scaleout::report {

namespace {

using nlohmann::ordered_json;

// A YAML double-quoted scalar (JSON string escapes are YAML's too).
std::string q(const std::string& s) {
  return ordered_json(s).dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}
// The shortest text that reads back as the same double.
std::string num(double v) { return fmt::format("{}", v); }

}  // namespace

const char* collective_label(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::all_gather:
      return "all_gather";
    case Collective::all_to_all:
      return "alltoall";
    case Collective::send_recv:
      return "sendrecv";
  }
  return "";
}

namespace {

std::string server_yaml(const Server& s, const std::string& source) {
  std::string o = "servers:\n";
  o += fmt::format("  - id: {}\n    name: {}\n    kind: {}\n    gpu: {}\n", s.id, q(s.name), s.kind,
                   s.gpu_id);
  o += fmt::format("    gpus_per_node: {}\n    intra_node: {}\n", s.gpus_per_node,
                   to_string(s.intra_node));
  o += fmt::format("    intra_node_gbyte_s: {}\n    scaleup_domain_gpus: {}\n",
                   num(s.intra_node_bw_Bps / units::kGBps), s.scaleup_domain_gpus);
  o += fmt::format("    nics: {}\n    nic_gbit_s: {}\n", s.nics_per_node,
                   num(s.nic_bw_Bps / units::kGbps));
  o += fmt::format("    host_mem_gib: {}\n    local_nvme_tb: {}\n    power_w: {}\n",
                   num(s.host_mem_bytes / units::kGiB), num(s.local_nvme_bytes / units::kTB),
                   num(s.power_W));
  if (s.scaleup_switch_failures_per_1000_days > 0) {
    o += fmt::format("    scaleup_switch_failures_per_1000_days: {}\n",
                     num(s.scaleup_switch_failures_per_1000_days));
  }
  o += fmt::format("    source: {}\n", q(source));
  return o;
}

std::string fabric_yaml(const Fabric& f, const std::string& source) {
  std::string o = "fabrics:\n";
  o += fmt::format("  - id: {}\n    name: {}\n    kind: {}\n", f.id, q(f.name), to_string(f.kind));
  o += fmt::format("    port_gbit_s: {}\n    latency_us: {}\n", num(f.port_bw_Bps / units::kGbps),
                   num(f.latency_s * 1e6));
  o += fmt::format("    topology: {}\n    oversubscription: {}\n", to_string(f.topology),
                   num(f.oversubscription));
  if (f.switch_ports > 0) o += fmt::format("    switch_ports: {}\n", f.switch_ports);
  o += fmt::format("    switch_w: {}\n    transceiver_w: {}\n", num(f.switch_W),
                   num(f.transceiver_W));
  o += fmt::format("    switch_usd: {}\n    nic_usd: {}\n    cable_usd: {}\n", num(f.switch_usd),
                   num(f.nic_usd), num(f.cable_usd));
  o += fmt::format("    source: {}\n", q(source));
  return o;
}

std::string family_yaml(const CalibrationResult& r, const GpuFamily& f) {
  const std::string kept = "unchanged from the catalog scaleout calibrate read";
  auto share = [&](const char* key, double v, const std::string& source) {
    return fmt::format("    {}: {{share: {}, source: {}}}\n", key, num(v),
                       q(source.empty() ? kept : source));
  };
  auto value = [&](const char* key, double v, const std::string& fitted) {
    return fitted.empty()
               ? fmt::format("    {}: {{value: {}, source: {}}}\n", key, num(v), q(kept))
               : fmt::format("    {}: {{value: {}, fitted_on: {}}}\n", key, num(v), q(fitted));
  };
  std::string o = "families:\n";
  o += fmt::format("  - id: {}\n    name: {}\n", f.id, q(f.name));
  o += share("gemm", f.gemm_share, r.family_gemm_source);
  o += share("fp8_gemm", f.fp8_gemm_share, r.family_fp8_source);
  o += share("attention", f.attention_share, "");
  o += value("sustained_factor", f.sustained_factor, r.family_sustained_source);
  o += value("eager_efficiency", f.eager_efficiency, "");
  if (f.eager_flops_per_byte > 0) o += value("eager_flops_per_byte", f.eager_flops_per_byte, "");
  o += value("step_time_band", f.step_time_band, "");
  if (f.validation_rows > 0) {
    o +=
        fmt::format("    validation_rows: {{count: {}, source: {}}}\n", f.validation_rows, q(kept));
  }
  o += fmt::format(
      "    validation: {{nic_gbit_s: {}, nvswitch: {}, megatron_fused_attention: {}, source: "
      "{}}}\n",
      num(f.validation_nic_gbit_s), f.validation_nvswitch, f.megatron_fused_attention,
      q(f.validation_source.empty() ? kept : f.validation_source));
  return o;
}

ordered_json link_json(const LinkFit& f) {
  ordered_json j;
  j["file"] = f.file;
  j["collective"] = collective_label(f.collective);
  j["level"] = f.inter ? "inter-node" : "intra-node";
  j["ranks"] = f.span.size;
  j["nodes"] = f.span.nodes;
  j["ranks_per_node"] = f.span.per_node;
  j["sizes"] = f.samples;
  j["bus_bw_gbyte_s"] = f.fitted.bus_bw_Bps / 1e9;
  j["hop_latency_us"] = f.fitted.hop_latency_s * 1e6;
  j["catalog_bus_bw_gbyte_s"] = f.catalog.bus_bw_Bps / 1e9;
  j["catalog_hop_latency_us"] = f.catalog.hop_latency_s * 1e6;
  j["rms_error_before"] = f.rms_error_before;
  j["rms_error_after"] = f.rms_error_after;
  return j;
}

ordered_json share_json(const ShareFit& f) {
  ordered_json j;
  j["samples"] = f.samples;
  j["share"] = f.share;
  j["catalog_share"] = f.catalog_share;
  j["error_before"] = f.error_before;
  j["error_after"] = f.error_after;
  return j;
}

std::string pct(double v) { return fmt::format("{:.1f} %", 100.0 * v); }

}  // namespace

std::string calibration_overlay_yaml(const CalibrationResult& r) {
  std::string o = fmt::format(
      "# Catalog overlay written by scaleout calibrate on {} for server {} ({}).\n"
      "# Entries replace the catalog's of the same id; only the figures below changed:\n",
      r.date, r.server.id, r.gpu.id);
  for (const std::string& c : r.changes) o += "#   " + c + "\n";
  if (r.changes.empty()) o += "#   none (nothing was fitted)\n";
  o += "# Use: scaleout estimate W.yaml --catalog THIS_FILE\n";
  if (r.new_family) o += family_yaml(r, *r.new_family);
  if (r.new_server) o += server_yaml(*r.new_server, r.server_source);
  if (r.new_fabric) {
    o += fabric_yaml(*r.new_fabric,
                     fmt::format("latency_us fitted by scaleout calibrate on {} from {}; other "
                                 "figures: {}",
                                 r.date, r.inter ? r.inter->file : "", r.fabric->source));
  }
  return o;
}

std::string calibration_text(const CalibrationResult& r) {
  std::string o = fmt::format("Calibration of {} ({}), {}\n", r.server.id, r.gpu.name, r.date);
  if (!r.links.empty()) {
    o += "\nCollectives (nccl-tests; relative RMS error of the times, catalog -> fitted):\n";
    for (const LinkFit& f : r.links) {
      o += fmt::format(
          "  {:<15} {:<10} {:>3} ranks on {} node(s): bus {:.1f} GB/s (catalog {:.1f}), hop "
          "{:.1f} us (catalog {:.1f}); error {} -> {}  [{}]\n",
          collective_label(f.collective), f.inter ? "inter-node" : "intra-node", f.span.size,
          f.span.nodes, f.fitted.bus_bw_Bps / 1e9, f.catalog.bus_bw_Bps / 1e9,
          f.fitted.hop_latency_s * 1e6, f.catalog.hop_latency_s * 1e6, pct(f.rms_error_before),
          pct(f.rms_error_after), f.file);
    }
  }
  if (r.gemm.samples + r.fp8_gemm.samples > 0) {
    o += fmt::format("\nGEMMs ({}; mean error of the times, catalog -> fitted):\n", r.gemm_file);
    if (r.gemm.samples > 0) {
      o += fmt::format("  16-bit GEMM share {:.3f} (catalog {:.3f}) on {} GEMMs; error {} -> {}\n",
                       r.gemm.share, r.gemm.catalog_share, r.gemm.samples, pct(r.gemm.error_before),
                       pct(r.gemm.error_after));
    }
    if (r.fp8_gemm.samples > 0) {
      o += fmt::format("  FP8 GEMM share {:.3f} (catalog {:.3f}) on {} GEMMs; error {} -> {}\n",
                       r.fp8_gemm.share, r.fp8_gemm.catalog_share, r.fp8_gemm.samples,
                       pct(r.fp8_gemm.error_before), pct(r.fp8_gemm.error_after));
    }
  }
  if (r.step_fit) {
    const StepFit& s = *r.step_fit;
    o += "\nStep times (median logged step; predicted before -> after):\n";
    for (const StepLogFit& l : r.steps) {
      o += fmt::format("  {} ({}, {} steps, {}): measured {:.3f} s, predicted {:.3f} -> {:.3f} s\n",
                       l.file, l.format, l.steps, l.workload_file, l.measured_s, l.before_s,
                       l.after_s);
    }
    o +=
        fmt::format("  scale of the sustained factor {:.3f}; mean error {} -> {} (fitted on all)\n",
                    s.scale, pct(s.error_before), pct(s.error_after));
    if (s.heldout_count > 0) {
      o += fmt::format(
          "  held out: fitted on {} log(s) (scale {:.3f}), scored on the other {}: {} -> {}\n",
          s.heldout_fit_count, s.heldout_scale, s.heldout_count, pct(s.heldout_error_before),
          pct(s.heldout_error_after));
    }
  }
  o += "\nOverlay:\n";
  for (const std::string& c : r.changes) o += "  " + c + "\n";
  if (r.changes.empty()) o += "  nothing changed\n";
  for (const std::string& w : r.warnings) o += "Note: " + w + "\n";
  return o;
}

std::string calibration_json(const CalibrationResult& r) {
  ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["date"] = r.date;
  j["server"] = r.server.id;
  j["gpu"] = r.gpu.id;
  j["fabric"] = r.fabric ? ordered_json(r.fabric->id) : ordered_json(nullptr);
  j["collectives"] = ordered_json::array();
  for (const LinkFit& f : r.links) j["collectives"].push_back(link_json(f));
  j["gemm"] = r.gemm.samples > 0 ? share_json(r.gemm) : ordered_json(nullptr);
  j["fp8_gemm"] = r.fp8_gemm.samples > 0 ? share_json(r.fp8_gemm) : ordered_json(nullptr);
  if (r.step_fit) {
    const StepFit& s = *r.step_fit;
    ordered_json st;
    st["logs"] = ordered_json::array();
    for (const StepLogFit& l : r.steps) {
      st["logs"].push_back({{"file", l.file},
                            {"workload", l.workload_file},
                            {"format", l.format},
                            {"steps", l.steps},
                            {"measured_s", l.measured_s},
                            {"predicted_before_s", l.before_s},
                            {"predicted_after_s", l.after_s}});
    }
    st["scale"] = s.scale;
    st["error_before"] = s.error_before;
    st["error_after"] = s.error_after;
    if (s.heldout_count > 0) {
      st["heldout"] = {{"fit_count", s.heldout_fit_count},
                       {"count", s.heldout_count},
                       {"scale", s.heldout_scale},
                       {"error_before", s.heldout_error_before},
                       {"error_after", s.heldout_error_after}};
    }
    j["steps"] = st;
  } else {
    j["steps"] = nullptr;
  }
  j["changes"] = r.changes;
  j["warnings"] = r.warnings;
  j["overlay"] = calibration_overlay_yaml(r);
  return dump_json(j);
}

}  // namespace scaleout::report
