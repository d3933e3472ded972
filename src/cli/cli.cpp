#include "cli/cli.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/jobs_reader.hpp"
#include "io/serving_csv.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "report/finite.hpp"
#include "report/launch.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"
#include "report/sim_report.hpp"
#include "search/planner.hpp"

namespace scaleout {

namespace {

constexpr const char* kVersion = "0.1.0";

struct Options {
  std::vector<std::string> catalogs;
  std::string objective = "cost";
  int threads = 0;
  std::string format = "text";
  std::string workload;
  std::string csv;
  std::string overrides;
  std::string kind;
  std::string emit;                  // plan --emit DIR: launch files for the recommended plan
  bool force = false;                // plan --force: --emit may replace existing files
  std::string output;                // -o FILE: the report goes there instead of standard output
  std::ostream* progress = nullptr;  // plan: draw a progress bar here (a terminal)
  std::string jobs;                  // simulate JOBS.yaml
};

// The built-in catalog, then each --catalog file in order. `files` (when
// given) learns which file each GPU, server and fabric last came from.
Catalog load_catalog(const Options& o, report::EntryFiles* files = nullptr) {
  Catalog c = io::builtin_catalog();
  for (const std::string& path : o.catalogs) {
    const std::string text = io::read_text_file(path);
    if (!files) {
      io::read_catalog(text, path, c);
      continue;
    }
    // Read into a copy whose entries carry a mark instead of their source:
    // an entry without the mark afterwards came from this file.
    static const std::string kMark = "\x01unchanged";
    Catalog marked = c;
    auto mark = [&](auto entry) {
      entry.source = kMark;
      marked.add(std::move(entry));
    };
    for (const Gpu* g : c.gpus()) mark(*g);
    for (const Server* v : c.servers()) mark(*v);
    for (const Fabric* f : c.fabrics()) mark(*f);
    io::read_catalog(text, path, marked);
    for (const Gpu* g : marked.gpus()) {
      if (g->source == kMark)
        marked.add(*c.find_gpu(g->id));
      else
        files->gpus[g->id] = path;
    }
    for (const Server* v : marked.servers()) {
      if (v->source == kMark)
        marked.add(*c.find_server(v->id));
      else
        files->servers[v->id] = path;
    }
    for (const Fabric* f : marked.fabrics()) {
      if (f->source == kMark)
        marked.add(*c.find_fabric(f->id));
      else
        files->fabrics[f->id] = path;
    }
    c = std::move(marked);
  }
  return c;
}

// Refuses a result with a figure that is not finite or out of its range.
template <typename Result, typename Check>
void require_finite(const Result& r, Check check, const report::EntryFiles& files) {
  if (const std::optional<report::BadFigure> bad = check(r)) report::refuse_bad_figure(*bad, files);
}

// The cloud price per GPU-hour the workload's settings select (0: none in the catalog).
double cloud_price(const Catalog& catalog, const io::RunInput& in, const RunSettings& s,
                   const std::string& gpu_id) {
  if (in.usd_per_gpu_hour) return *in.usd_per_gpu_hour;
  const CloudPrice* p = catalog.cloud_price(gpu_id, s.cloud_pricing);
  return p ? p->usd_per_gpu_hour : 0.0;
}

// The purchase price of one server (0: none in the catalog).
double server_price(const Catalog& catalog, const io::RunInput& in, const std::string& server_id) {
  if (in.server_usd) return *in.server_usd;
  const PurchasePrice* p = catalog.find_purchase_price(server_id);
  return p ? p->usd : 0.0;
}

std::string run_estimate(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.workload).parent_path().string();
  const io::WorkloadFile wf =
      io::read_workload(io::read_text_file(o.workload), o.workload, dir, catalog);
  if (wf.plan.global_batches.size() > 1) {
    throw InputError(o.workload, 0, "global_batch", "estimate takes one global batch, not a list",
                     "give one number, or use plan to search the list");
  }
  if (!wf.has_cluster) {
    throw InputError(o.workload, 0, "cluster", "estimate needs a cluster",
                     "add cluster: {server: dgx-h100, nodes: 1}");
  }
  // The cluster's server, GPU (the server's own unless cluster.gpu names one) and fabric.
  const ClusterSpec& cs = wf.workload.cluster;
  const Server& server = *catalog.find_server(cs.server_id);
  const Gpu& gpu = *catalog.find_gpu(cs.gpu_id.empty() ? server.gpu_id : cs.gpu_id);
  const Fabric* fabric = cs.fabric_id.empty() ? nullptr : catalog.find_fabric(cs.fabric_id);
  const bool serving = wf.workload.task == Task::inference;
  // Serving runs its matmuls at the 16-bit rate (FP8 weights fall back to it).
  const Precision precision = serving ? Precision::bf16 : wf.workload.precision;
  if (!report::missing_flop_rate(gpu, precision).empty()) {
    throw report::no_flop_rate_error(gpu, precision, files, o.workload,
                                     cs.gpu_id.empty() ? "cluster.server" : "cluster.gpu");
  }
  if (serving) {
    report::ServingEstimateReport r;
    r.workload = wf.workload;
    r.server = server;
    r.gpu = gpu;
    r.fabric_id = r.workload.cluster.fabric_id;
    r.params = count_params(r.workload.model);
    r.cluster_replicas = r.workload.layout.dp;
    r.estimate = estimate_serving(r.workload, r.server, r.gpu, fabric);
    require_finite(r, report::check_serving_estimate, files);
    return o.format == "json" ? report::serving_estimate_json(r) : report::serving_estimate_text(r);
  }
  report::EstimateResult r;
  r.workload = wf.workload;
  r.server = server;
  r.gpu = gpu;
  r.fabric_id = r.workload.cluster.fabric_id;
  r.params = count_params(r.workload.model);
  r.memory = estimate_memory(r.workload, r.gpu);
  r.step = estimate_step(r.workload, r.server, r.gpu, fabric,
                         perf_constants(r.gpu, r.workload.framework), r.memory);
  if (r.workload.tokens > 0) {
    const RunSettings settings = io::resolve_run_settings(catalog, wf.run, o.workload);
    r.run_settings = settings;
    r.run = evaluate_run(r.workload, r.server, r.gpu, fabric, r.workload.cluster.nodes, r.step,
                         server_price(catalog, wf.run, r.server.id),
                         cloud_price(catalog, wf.run, settings, r.gpu.id), settings);
  }
  require_finite(r, report::check_estimate, files);
  return o.format == "json" ? report::estimate_json(r) : report::estimate_text(r);
}

// What a command prints: the report (to -o FILE or standard output), then
// notes for standard output, and warnings for standard error.
struct Output {
  std::string report;
  std::string notes;
  std::string warnings;
  std::vector<io::OutputFile> launch_files;  // plan --emit: written with the report
};

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
  for (const auto& [name, content] : report::launch_files(rep, *rep.result.recommended)) {
    const std::string path = (dir / name).string();
    io::refuse_input_as_output(path, "--emit");
    if (fs::exists(fs::symlink_status(path, ec))) existing.push_back(name);
    files.push_back({path, content, name.ends_with(".sh") || name.ends_with(".sbatch")});
  }
  if (!existing.empty() && !o.force) {
    std::string names;
    for (const std::string& n : existing) names += (names.empty() ? "" : ", ") + n;
    throw InputError(o.emit, 0, "", "--emit: the folder already holds " + names,
                     "give --force to replace them, or another folder");
  }
  return files;
}

// Writes the result: the launch files and the -o file all-or-nothing (the
// folder of --emit created if missing), each through a temporary file; the
// report to standard output without -o.
void write_result(const Options& o, const Output& result, std::ostream& out) {
  std::vector<io::OutputFile> files = result.launch_files;
  if (!o.output.empty()) {
    io::refuse_input_as_output(o.output, "-o");
    for (const io::OutputFile& f : files) {
      if (io::input_named_by(f.path)) continue;  // refused above
      std::error_code ec;
      const auto a = std::filesystem::weakly_canonical(std::filesystem::absolute(o.output), ec);
      const auto b = std::filesystem::weakly_canonical(std::filesystem::absolute(f.path), ec);
      if (a == b) {
        throw InputError(o.output, 0, "", "-o: --emit writes this file too",
                         "write the report to another file");
      }
    }
    files.push_back({o.output, result.report, false});
  }
  if (!o.emit.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.emit, ec);
    if (ec || !std::filesystem::is_directory(o.emit)) {
      throw InputError(o.emit, 0, "",
                       "--emit: cannot create the folder" + (ec ? ": " + ec.message() : ""),
                       "give a writable folder");
    }
  }
  io::write_files_atomic(files);
  if (o.output.empty()) out << result.report;
}

Output run_plan(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.workload).parent_path().string();
  const io::WorkloadFile wf =
      io::read_workload(io::read_text_file(o.workload), o.workload, dir, catalog, false);
  const io::PlanInput& in = wf.plan;
  report::PlanReport rep;
  PlanRequest& req = rep.request;
  req.workload = wf.workload;
  req.global_batches = in.global_batches;
  const bool serving = req.workload.task == Task::inference;
  if (serving && !o.emit.empty()) {
    throw InputError(o.workload, 0, "",
                     "--emit writes training launch files; this is a serving "
                     "workload (task: inference)",
                     "run plan without --emit");
  }
  if (serving && o.objective == "energy") {
    throw InputError(o.workload, 0, "",
                     "--objective energy ranks training runs; this is a serving workload "
                     "(task: inference)",
                     "use --objective cost or time");
  }
  if (serving && (o.format == "csv" || o.format == "html")) {
    throw InputError(
        o.workload, 0, "",
        fmt::format("--format {}: serving plans are written as text or json only", o.format),
        "use --format text or --format json for a task: inference workload");
  }
  if (serving) {
    // tokens and global_batch are training keys (the reader rejects them).
  } else if (req.workload.tokens <= 0) {
    throw InputError(o.workload, 0, "tokens", "plan needs the run's training tokens",
                     "add e.g. tokens: 2.0e12");
  }
  if (!serving && req.workload.global_batch <= 0) {
    throw InputError(o.workload, 0, "global_batch", "plan needs the global batch in sequences",
                     "add e.g. global_batch: 1024");
  }
  // Layout fields the file gives are fixed; the rest are searched.
  const Layout& ly = wf.workload.layout;
  FixedLayout& fx = req.fixed;
  auto given = [&](const char* key) { return in.layout_keys.count(key) > 0; };
  if (given("tp")) fx.tp = ly.tp;
  if (given("pp")) fx.pp = ly.pp;
  if (given("dp")) fx.dp = ly.dp;
  if (given("cp")) fx.cp = ly.cp;
  if (given("ep")) fx.ep = ly.ep;
  if (given("micro_batch")) fx.micro_batch = ly.micro_batch;
  if (given("interleave")) fx.interleave = ly.interleave;
  if (given("zero")) fx.zero = ly.zero;
  if (given("recompute")) fx.recompute = ly.recompute;
  if (given("sp")) fx.sp = ly.sp;
  if (given("flash_attention")) fx.flash_attention = ly.flash_attention;
  if (given("offload")) fx.offload = ly.offload_optimizer;
  if (given("fp8_param_gather")) fx.fp8_param_gather = ly.fp8_param_gather;
  if (in.cluster_keys.count("nodes")) fx.nodes = wf.workload.cluster.nodes;
  req.run = io::resolve_run_settings(catalog, wf.run, o.workload);
  req.cost_basis = wf.run.cost_basis == "own" ? CostBasis::own : CostBasis::cloud;
  // Hardware: the file's servers (or cluster.server), else the whole catalog.
  std::vector<std::string> servers = in.servers;
  const char* servers_key = "hardware.servers";
  if (in.cluster_keys.count("server")) {
    servers = {wf.workload.cluster.server_id};
    servers_key = "cluster.server";
  }
  const bool whole_catalog = servers.empty();
  if (whole_catalog) servers = catalog.server_ids();
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
      h.usd_per_gpu_hour = cloud_price(catalog, wf.run, req.run, gpu.id);
      h.server_usd = server_price(catalog, wf.run, server.id);
      req.hardware.push_back(std::move(h));
    };
    if (fabrics.empty()) option(nullptr);
    for (const std::string& f : fabrics) option(catalog.find_fabric(f));
  }
  if (req.hardware.empty()) {
    throw InputError(o.workload, 0, "",
                     fmt::format("no catalog GPU has a FLOP rate for {}", to_string(precision)),
                     "add the rate to the GPUs' catalog entries (tflops)");
  }
  if (in.deadline_days) req.constraints.deadline_s = *in.deadline_days * 86400.0;
  req.constraints.budget_usd = in.budget_usd;
  if (in.max_power_kw) req.constraints.max_power_W = *in.max_power_kw * 1000.0;
  req.constraints.min_goodput = in.min_goodput;
  if (in.max_nodes) req.constraints.max_nodes = *in.max_nodes;
  if (fx.nodes) req.constraints.max_nodes = std::max(req.constraints.max_nodes, *fx.nodes);
  req.objective = o.objective == "time"     ? Objective::time
                  : o.objective == "energy" ? Objective::energy
                                            : Objective::cost;
  req.threads = o.threads > 0 ? o.threads
                              : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::optional<ProgressBar> bar;
  if (o.progress) {
    bar.emplace(*o.progress);
    req.progress = [&bar](long long done, long long total) { bar->update(done, total); };
  }
  const auto start = std::chrono::steady_clock::now();
  if (serving) {
    report::ServingPlanReport srep;
    srep.request = req;
    srep.result = plan_serving(req);
    srep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar) bar->finish();
    require_finite(srep, report::check_serving_plan, files);
    return {o.format == "json" ? report::serving_plan_json(srep) : report::serving_plan_text(srep),
            "",
            warnings,
            {}};
  }
  rep.result = plan(req);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (bar) bar->finish();
  require_finite(rep, report::check_plan, files);
  std::string text;
  if (o.format == "json") {
    text = report::plan_json(rep);
  } else if (o.format == "csv") {
    text = report::plan_csv(rep);
  } else if (o.format == "html") {
    text = report::plan_html(rep);
  } else {
    text = report::plan_text(rep);
  }
  Output result{text, "", warnings, {}};
  if (!o.emit.empty()) {
    result.launch_files = launch_files(o, rep);
    // The list of launch files goes to standard output after the report.
    for (const io::OutputFile& f : result.launch_files) result.notes += "wrote " + f.path + "\n";
  }
  return result;
}

std::string run_simulate(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.jobs).parent_path().string();
  report::SimulateReport rep;
  rep.mix = io::read_jobs(io::read_text_file(o.jobs), o.jobs, dir, catalog);
  const int threads = o.threads > 0
                          ? o.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Workload jobs are sized by plan on every cluster: each cluster's GPU needs
  // a FLOP rate for each workload's precision.
  for (const sim::JobSpec& job : rep.mix.jobs) {
    if (!job.workload) continue;
    const Precision p =
        job.workload->task == Task::inference ? Precision::bf16 : job.workload->precision;
    for (const sim::CandidateCluster& c : rep.mix.clusters) {
      if (!report::missing_flop_rate(c.gpu, p).empty()) {
        throw report::no_flop_rate_error(c.gpu, p, files, o.jobs, "clusters");
      }
    }
  }
  std::optional<ProgressBar> bar;
  sim::Progress progress;
  if (o.progress) {
    bar.emplace(*o.progress, std::chrono::seconds(1), "simulating", "steps");
    progress = [&bar](long long done, long long total) { bar->update(done, total); };
  }
  rep.result = sim::simulate_mix(rep.mix, threads, progress);
  if (bar) bar->finish();
  require_finite(rep, report::check_simulate, files);
  return o.format == "json" ? report::simulate_json(rep) : report::simulate_text(rep);
}

std::string run_validate(const Options& o) {
  report::EntryFiles files;
  Catalog catalog = load_catalog(o, &files);
  const std::string text = io::read_text_file(o.csv);
  // The default overrides file beside the CSV is an input even while absent.
  std::filesystem::path side(o.csv);
  side.replace_extension(".gpu-overrides.csv");
  io::note_input(side.string());
  if (io::is_serving_csv(text)) {
    if (o.format == "csv" || o.format == "html") {
      throw InputError(o.csv, 0, "",
                       fmt::format("--format {}: serving validation is written as text or json "
                                   "only",
                                   o.format),
                       "use --format text or --format json for a serving CSV");
    }
    const ServingValidationReport rep =
        validate_serving_rows(io::read_serving_csv(text, o.csv, catalog), catalog);
    require_finite(rep, report::check_serving_validation, files);
    return o.format == "json" ? report::serving_validate_json(rep)
                              : report::serving_validate_text(rep);
  }
  std::vector<ValidationRow> rows = io::read_validation_csv(text, o.csv);
  io::apply_gpu_overrides(rows, o.csv, o.overrides);
  const ValidationReport rep = validate_rows(rows, catalog);
  require_finite(rep, report::check_validation, files);
  if (o.format == "json") return report::validate_json(rep);
  if (o.format == "csv") return report::validate_csv(rep);
  return report::validate_text(rep);
}

std::string run_catalog(const Options& o) {
  const Catalog catalog = load_catalog(o);
  return o.format == "json" ? report::catalog_json(catalog, o.kind)
                            : report::catalog_text(catalog, o.kind);
}

}  // namespace

ProgressBar::ProgressBar(std::ostream& err, std::chrono::milliseconds show_after, const char* what,
                         const char* unit)
    : err_(err), show_after_(show_after), what_(what), unit_(unit), start_(Clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(long long done, long long total) {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is drawing
  const auto now = Clock::now();
  if (now - start_ < show_after_ || now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  err_ << '\r'
       << progress_line(done, total, std::chrono::duration<double>(now - start_).count(), what_,
                        unit_)
       << std::flush;
  drawn_ = true;
}

void ProgressBar::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!drawn_) return;
  err_ << '\r' << std::string(79, ' ') << '\r' << std::flush;
  drawn_ = false;
}

std::string progress_line(long long done, long long total, double elapsed_s, const char* what,
                          const char* unit) {
  constexpr int kWidth = 30;
  const double f =
      total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0)
                : 0.0;
  const int filled = static_cast<int>(f * kWidth);
  std::string line = std::string(what) + " [" + std::string(static_cast<std::size_t>(filled), '#') +
                     std::string(static_cast<std::size_t>(kWidth - filled), '.') + "] ";
  line += fmt::format("{:3.0f} % {}/{} {}, {:.0f} s", 100 * f, done, total, unit, elapsed_s);
  return line.size() > 79 ? line.substr(0, 79) : line;
}

int run_cli(int argc, char** argv) { return run_cli(argc, argv, std::cout, std::cerr); }

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  Options o;
  CLI::App app{
      "scaleout: single node or multi-node? Plans GPU training and serving from a workload and "
      "a hardware catalog."};
  app.require_subcommand(1);
  app.fallthrough();  // --catalog may also follow the subcommand
  app.add_option("--catalog", o.catalogs, "extra catalog file (YAML/JSON); repeatable")
      ->check(CLI::ExistingFile);
  app.set_version_flag("--version", kVersion);
  const std::vector<std::string> formats = {"text", "json"};
  const std::string output_help = "write the report to FILE instead of standard output";

  auto* est =
      app.add_subcommand("estimate",
                         "per-GPU memory and step time of one workload on one cluster (serving: "
                         "memory, TTFT, TPOT, throughput, replicas)");
  est->add_option("workload", o.workload, "workload YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  est->add_option("--format", o.format, "text or json")->check(CLI::IsMember(formats));
  est->add_option("-o,--output", o.output, output_help);

  auto* pl = app.add_subcommand(
      "plan", "one node or several? searches hardware, node count and layout for a workload");
  pl->add_option("workload", o.workload, "workload YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  pl->add_option("--format", o.format,
                 "text, json, csv (the frontier) or html (a self-contained report with charts)")
      ->check(CLI::IsMember({"text", "json", "csv", "html"}));
  pl->add_option("-o,--output", o.output, output_help);
  pl->add_option("--objective", o.objective,
                 "rank plans that meet the constraints by cost, time or energy")
      ->check(CLI::IsMember({"cost", "time", "energy"}));
  pl->add_option("--threads", o.threads, "search threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  pl->add_option("--emit", o.emit,
                 "write launch files for the recommended plan into this folder (slurm.sbatch, "
                 "torchrun.sh, megatron.args, deepspeed.json, pytorchjob.yaml)");
  pl->add_flag("--force", o.force, "--emit may replace launch files that already exist");

  auto* sm = app.add_subcommand(
      "simulate", "a team's job mix on candidate clusters: queueing delay, utilisation, makespan");
  sm->add_option("jobs", o.jobs, "jobs YAML file (clusters, seed, jobs)")
      ->required()
      ->check(CLI::ExistingFile);
  sm->add_option("--format", o.format, "text or json")->check(CLI::IsMember(formats));
  sm->add_option("-o,--output", o.output, output_help);
  sm->add_option("--threads", o.threads,
                 "planner threads for gpus: auto (default: all cores; the answer does not "
                 "depend on it)")
      ->check(CLI::Range(1, 1024));

  auto* val = app.add_subcommand("validate", "predict published measurements and report errors");
  val->add_option("csv", o.csv, "validation CSV (data/validation/README.md schema)")
      ->required()
      ->check(CLI::ExistingFile);
  val->add_option("--format", o.format, "text, json or csv (one record per row)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  val->add_option("-o,--output", o.output, output_help);
  val->add_option("--gpu-overrides", o.overrides,
                  "CSV id,gpu,reason of hardware corrections (default: <csv>.gpu-overrides.csv "
                  "beside the file)")
      ->check(CLI::ExistingFile);

  auto* cat = app.add_subcommand("catalog", "list catalog entries with key figures and source");
  cat->add_option("kind", o.kind, "gpus, servers, fabrics, models, prices or economics")
      ->required()
      ->check(CLI::IsMember({"gpus", "servers", "fabrics", "models", "prices", "economics"}));
  cat->add_option("--format", o.format, "text or json")->check(CLI::IsMember(formats));
  cat->add_option("-o,--output", o.output, output_help);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << kVersion << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // A misspelt command is left over as an argument, and CLI11 then only says
    // that a subcommand is required; name the word instead.
    const std::vector<std::string> rest = app.remaining();
    if (app.get_subcommands().empty() && !rest.empty() && rest.front().rfind('-', 0) != 0) {
      err << "scaleout: unknown command '" << rest.front() << "' ("
          << suggestion(rest.front(), {"plan", "estimate", "simulate", "validate", "catalog"})
          << ")\n";
    } else {
      err << "scaleout: " << e.what() << "\n";
    }
    err << "Run 'scaleout --help' for the commands and options.\n";
    return 2;
  }

  // The progress bars (plan, simulate) only on a terminal: never into a pipe, a file or a test's
  // stream.
  if (&err == &std::cerr && isatty(STDERR_FILENO)) o.progress = &err;

  io::clear_inputs();
  try {
    // Refuse -o over an input named on the command line before the work
    // starts (files those inputs name are refused when written).
    for (const std::string* path : {&o.workload, &o.csv, &o.overrides, &o.jobs}) {
      if (!path->empty()) io::note_input(*path);
    }
    for (const std::string& path : o.catalogs) io::note_input(path);
    if (!o.output.empty()) io::refuse_input_as_output(o.output, "-o");
    Output result;
    if (*est)
      result.report = run_estimate(o);
    else if (*pl)
      result = run_plan(o);
    else if (*sm)
      result.report = run_simulate(o);
    else if (*val)
      result.report = run_validate(o);
    else if (*cat)
      result.report = run_catalog(o);
    errno = 0;
    write_result(o, result, out);
    out << result.notes;
    err << result.warnings;
    out.flush();
    if (!out) {
      const int e = errno;
      err << "scaleout: cannot write to standard output: "
          << (e != 0 ? std::strerror(e) : "the stream failed") << "\n";
      return 1;
    }
    return 0;
  } catch (const InputError& e) {
    err << "scaleout: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "scaleout: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace scaleout
