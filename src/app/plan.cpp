// `plan`: builds the plan request from a workload file (fixed layout fields,
// hardware options, constraints), runs the training or serving planner and
// writes its report and, with --emit, the launch files.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "app/progress.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "io/files.hpp"
#include "report/launch.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"

namespace scaleout::app {

namespace {

// What plan refuses before it searches: --emit and --objective energy for
// serving; a training plan needs tokens and a global batch.
void check_plan_input(const Options& o, const Workload& w, bool serving) {
  if (serving && !o.emit.empty()) {
    throw InputError(o.workload, 0, "",
                     "--emit writes training launch files; this is a serving "
                     "workload (task: inference)",
                     "run plan without --emit");
  }
  if (serving && o.objective == Objective::energy) {
    throw InputError(o.workload, 0, "",
                     "--objective energy ranks training runs; this is a serving workload "
                     "(task: inference)",
                     "use --objective cost or time");
  }
  if (serving) {
    // tokens and global_batch are training keys (the reader rejects them).
  } else if (w.tokens <= 0) {
    throw InputError(o.workload, 0, "tokens", "plan needs the run's training tokens",
                     "add e.g. tokens: 2.0e12");
  }
  if (!serving && w.global_batch <= 0) {
    throw InputError(o.workload, 0, "global_batch", "plan needs the global batch in sequences",
                     "add e.g. global_batch: 1024");
  }
}

// Layout fields the file gives are fixed; the rest are searched.
FixedLayout fixed_layout(const io::WorkloadFile& wf) {
  FixedLayout fx;
  fx.values = wf.workload.layout;
  fx.keys = wf.plan.layout_keys;
  if (wf.plan.cluster_keys.count("nodes")) fx.nodes = wf.workload.cluster.nodes;
  if (wf.workload.cluster.gpus > 0) fx.nodes = 1;
  return fx;
}

// Hardware options: the file's servers (or cluster.server), else the whole
// catalog, each with every fabric named. Returns the warnings for servers
// left out (a GPU without a FLOP rate for the precision).
std::string add_hardware(const Options& o, const Catalog& catalog, const report::EntryFiles& files,
                         const io::WorkloadFile& wf, const RunSettings& run, bool serving,
                         std::vector<HardwareOption>& hardware) {
  const io::PlanInput& in = wf.plan;
  std::vector<std::string> servers = in.servers;
  const char* servers_key = "hardware.servers";
  if (in.cluster_keys.count("server")) {
    servers = {wf.workload.cluster.server_id};
    servers_key = "cluster.server";
  }
  const bool whole_catalog = servers.empty();
  if (whole_catalog) servers = catalog.ids<Server>();
  // A GPU without a FLOP rate for the workload's precision: an error when the
  // file chose it, else the server is left out of the search with a warning.
  const Precision precision = serving ? Precision::bf16 : wf.workload.precision;
  std::string warnings;
  std::vector<std::string> fabrics = in.fabrics;
  if (in.cluster_keys.count("fabric")) fabrics = {wf.workload.cluster.fabric_id};
  for (const std::string& id : servers) {
    const Server& server = *catalog.find_server(id);
    const std::string gpu_id =
        wf.workload.cluster.gpu_id.empty() ? server.gpu_id : wf.workload.cluster.gpu_id;
    const Gpu& gpu = *catalog.find_gpu(gpu_id);
    const std::string missing = report::missing_flop_rate(gpu, precision);
    if (!missing.empty() && !whole_catalog) {
      throw report::no_flop_rate_error(
          gpu, precision, files, o.workload,
          wf.workload.cluster.gpu_id.empty() ? servers_key : "cluster.gpu");
    }
    if (!missing.empty()) {
      const auto file = files.gpus.find(gpu.id);
      warnings += fmt::format(
          "scaleout: note: server '{}' left out of the search: its GPU '{}'{} has no FLOP rate "
          "for {} ({} is 0 or missing)\n",
          printable(id), printable(gpu.id),
          file == files.gpus.end() ? "" : " (" + printable(file->second, 1024) + ")",
          to_string(precision), missing);
      continue;
    }
    auto option = [&](const Fabric* f) {
      HardwareOption h;
      h.server = server;
      h.gpu = gpu;
      if (f) h.fabric = *f;
      h.usd_per_gpu_hour = cloud_price(catalog, wf.run, run, gpu.id);
      h.server_usd = server_price(catalog, wf.run, server.id);
      hardware.push_back(std::move(h));
    };
    if (fabrics.empty()) option(nullptr);
    for (const std::string& f : fabrics) option(catalog.find_fabric(f));
    for (const std::string& f : fabrics) {
      const Fabric* fab = catalog.find_fabric(f);
      if (fab && server.nic_bw_Bps > 0 && fab->port_bw_Bps > server.nic_bw_Bps) {
        warnings += fmt::format(
            "scaleout: warning: fabric '{}' ({:.0f} Gb/s ports) is faster than server '{}''s "
            "NICs; plans on it run at {} x {:.0f} Gb/s\n",
            printable(f), fab->port_bw_Bps / 1.25e8, printable(id), server.nics_per_node,
            server.nic_bw_Bps / 1.25e8);
      }
    }
  }
  if (hardware.empty()) {
    throw InputError(o.workload, 0, "",
                     fmt::format("no catalog GPU has a FLOP rate for {}", to_string(precision)),
                     "add the rate to the GPUs' catalog entries (tflops)");
  }
  return warnings;
}

// The constraints of the file's plan: section.
void set_constraints(const io::WorkloadFile& wf, PlanRequest& req) {
  const io::PlanInput& in = wf.plan;
  const FixedLayout& fx = req.fixed;
  if (in.deadline_days) req.constraints.deadline_s = *in.deadline_days * 86400.0;
  req.constraints.budget_usd = in.budget_usd;
  if (in.max_power_kw) req.constraints.max_power_W = *in.max_power_kw * 1000.0;
  req.constraints.min_goodput = in.min_goodput;
  if (in.max_nodes) req.constraints.max_nodes = *in.max_nodes;
  if (fx.nodes) req.constraints.max_nodes = std::max(req.constraints.max_nodes, *fx.nodes);
}

// The plan request of a workload file and the options; `warnings` gets the
// servers left out of the search.
PlanRequest plan_request(const Options& o, const Catalog& catalog, const report::EntryFiles& files,
                         const io::WorkloadFile& wf, std::string& warnings) {
  PlanRequest req;
  req.workload = wf.workload;
  req.global_batches = wf.plan.global_batches;
  const bool serving = req.workload.task == Task::inference;
  check_plan_input(o, req.workload, serving);
  req.fixed = fixed_layout(wf);
  req.run = io::resolve_run_settings(catalog, wf.run, o.workload);
  req.cost_basis = wf.run.cost_basis == "own" ? CostBasis::own : CostBasis::cloud;
  warnings = add_hardware(o, catalog, files, wf, req.run, serving, req.hardware);
  // Plans below a node (training): cluster.gpus fixes the slice; else 1, 2
  // and 4 GPUs of each server are searched beside whole nodes.
  if (!serving && wf.workload.cluster.gpus > 0) {
    for (HardwareOption& h : req.hardware) h = slice_option(h, wf.workload.cluster.gpus);
  } else if (!serving) {
    add_slice_options(req);
  }
  set_constraints(wf, req);
  req.objective = o.objective;
  req.threads = thread_count(o);
  return req;
}

// plan --emit DIR: the launch files of the recommended plan, checked before
// anything is written: none may be an input of the run (even with --force),
// and none may exist unless --force.
std::vector<io::OutputFile> launch_files(const Options& o, const report::PlanReport& rep) {
  if (!rep.result.recommended) {
    throw InputError(o.workload, 0, "",
                     "--emit: there is no recommended plan to write launch files for",
                     "no layout fits in memory; run plan without --emit for the reasons");
  }
  namespace fs = std::filesystem;
  const fs::path dir(o.emit);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw InputError(o.emit, 0, "", "--emit: this is a file, not a folder",
                     "give a folder for the launch files");
  }
  std::vector<io::OutputFile> files;
  std::vector<std::string> existing;
  auto emitted = report::launch_files(rep, *rep.result.recommended, o.smoke);
  // The plan itself, as plan --format json writes it, so a reader can compare
  // the launch files with the plan they implement.
  emitted.emplace_back("plan.json", report::plan_json(rep));
  for (const auto& [name, content] : emitted) {
    const std::string path = (dir / name).string();
    io::refuse_input_as_output(path, "--emit");
    if (fs::exists(fs::symlink_status(path, ec))) existing.push_back(name);
    files.push_back({path, content,
                     name.ends_with(".sh") || name.ends_with(".sbatch") || name.ends_with(".py")});
  }
  if (!existing.empty() && !o.force) {
    std::string names;
    for (const std::string& n : existing) names += (names.empty() ? "" : ", ") + n;
    throw InputError(o.emit, 0, "", "--emit: the folder already holds " + names,
                     "give --force to replace them, or another folder");
  }
  return files;
}

std::string plan_report_text(const report::PlanReport& rep, Format f) {
  switch (f) {
    case Format::json:
      return report::plan_json(rep);
    case Format::csv:
      return report::plan_csv(rep);
    case Format::html:
      return report::plan_html(rep);
    case Format::text:
      break;
  }
  return report::plan_text(rep);
}

}  // namespace

Output run_plan(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.workload).parent_path().string();
  const io::WorkloadFile wf =
      io::read_workload(io::read_text_file(o.workload), o.workload, dir, catalog, false);
  std::string warnings;
  report::PlanReport rep;
  rep.request = plan_request(o, catalog, files, wf, warnings);
  PlanRequest& req = rep.request;
  const bool serving = req.workload.task == Task::inference;
  std::optional<ProgressBar> bar;
  if (o.progress) {
    bar.emplace(*o.progress);
    req.progress = [&bar](long long done, long long total) { bar->update(done, total); };
  }
  const auto start = std::chrono::steady_clock::now();
  if (serving) {
    report::ServingPlanReport srep;
    srep.request = req;
    srep.cloud_prices = catalog.cloud_prices();
    srep.result = plan_serving(req);
    srep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar) bar->finish();
    require_finite(srep, report::check_serving_plan, files);
    return {o.format == Format::json   ? report::serving_plan_json(srep)
            : o.format == Format::csv  ? report::serving_plan_csv(srep)
            : o.format == Format::html ? report::serving_plan_html(srep)
                                       : report::serving_plan_text(srep),
            "",
            warnings,
            {}};
  }
  rep.full_frontier = o.full_frontier;
  rep.cloud_prices = catalog.cloud_prices();
  rep.result = plan(req);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (bar) bar->finish();
  require_finite(rep, report::check_plan, files);
  Output result{plan_report_text(rep, o.format), "", warnings, {}};
  if (!o.emit.empty()) {
    result.launch_files = launch_files(o, rep);
    // The list of launch files goes to standard output after the report.
    for (const io::OutputFile& f : result.launch_files) result.notes += "wrote " + f.path + "\n";
  }
  return result;
}

}  // namespace scaleout::app
