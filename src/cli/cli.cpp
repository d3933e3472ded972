#include "cli/cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/spelling.hpp"
#include "io/files.hpp"

namespace scaleout {

namespace {

constexpr const char* kVersion = "0.1.0";

}  // namespace

int run_cli(int argc, char** argv) { return run_cli(argc, argv, std::cout, std::cerr); }

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  app::Options o;
  std::string format = "text", objective = "cost";  // parsed into o once CLI11 has checked them
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
  est->add_option("--format", format, "text, json, csv (one record) or html (one page)")
      ->check(CLI::IsMember({"text", "json", "csv", "html"}));
  est->add_option("-o,--output", o.output, output_help);

  auto* pl = app.add_subcommand(
      "plan", "one node or several? searches hardware, node count and layout for a workload");
  pl->add_option("workload", o.workload, "workload YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  pl->add_option("--format", format,
                 "text, json, csv (the frontier) or html (a self-contained report with charts)")
      ->check(CLI::IsMember({"text", "json", "csv", "html"}));
  pl->add_option("-o,--output", o.output, output_help);
  pl->add_option("--objective", objective,
                 "rank plans that meet the constraints by cost, time or energy")
      ->check(CLI::IsMember({"cost", "time", "energy"}));
  pl->add_option("--threads", o.threads, "search threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  auto* emit = pl->add_option(
      "--emit", o.emit,
      "write launch files for the recommended plan into this folder (plan.json, slurm.sbatch, "
      "torchrun.sh, deepspeed.json, pytorchjob.yaml, trainjob.yaml and the framework's files: "
      "megatron.args, torchtitan.toml, accelerate_fsdp.yaml, finetune_peft.yaml or "
      "torchtune.yaml)");
  pl->add_flag("--force", o.force, "--emit may replace launch files that already exist");
  pl->add_flag("--full-frontier", o.full_frontier,
               "text: list every frontier point (default: a compact selection)");
  pl->add_flag("--smoke", o.smoke,
               "with --emit: torchrun.sh runs smoke_train.py, a tiny model of the plan's "
               "parallel structure, at 2 processes on this host with gloo")
      ->needs(emit);

  auto* sm = app.add_subcommand(
      "simulate", "a team's job mix on candidate clusters: queueing delay, utilisation, makespan");
  sm->add_option("jobs", o.jobs, "jobs YAML file (clusters, seed, jobs)")
      ->required()
      ->check(CLI::ExistingFile);
  sm->add_option("--format", format,
                 "text, json, csv (one record per cluster) or html (one page with charts)")
      ->check(CLI::IsMember({"text", "json", "csv", "html"}));
  sm->add_option("-o,--output", o.output, output_help);
  sm->add_option("--threads", o.threads,
                 "planner threads for gpus: auto (default: all cores; the answer does not "
                 "depend on it)")
      ->check(CLI::Range(1, 1024));

  auto* val = app.add_subcommand("validate", "predict published measurements and report errors");
  val->add_option("csv", o.csv, "validation CSV (data/validation/README.md schema)")
      ->required()
      ->check(CLI::ExistingFile);
  val->add_option("--format", format, "text, json or csv (one record per row)")
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
  cat->add_option("--format", format, "text or json")->check(CLI::IsMember(formats));
  cat->add_option("-o,--output", o.output, output_help);

  auto* cal = app.add_subcommand(
      "calibrate",
      "fit a server's catalog figures to nccl-tests, GEMM and step-time measurements; write them "
      "as a catalog overlay");
  cal->add_option("--server", o.server, "the catalog server measured")->required();
  cal->add_option("--fabric", o.fabric, "its scale-out fabric (the overlay then fits its latency)");
  cal->add_option("--nccl-tests", o.nccl_tests,
                  "output of all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf "
                  "or sendrecv_perf; repeatable")
      ->check(CLI::ExistingFile);
  cal->add_option("--gemm", o.gemm, "GEMM benchmark CSV m,n,k,dtype,time_s|tflops")
      ->check(CLI::ExistingFile);
  cal->add_option("--steps", o.steps,
                  "training log (Megatron-LM, NeMo, torchtitan, HF Trainer); repeatable, each "
                  "with a --workload")
      ->check(CLI::ExistingFile);
  cal->add_option("--workload", o.step_workloads, "the workload YAML of each --steps log, in order")
      ->check(CLI::ExistingFile);
  cal->add_option("--format", format, "what was fitted: text or json")
      ->check(CLI::IsMember(formats));
  cal->add_option("-o,--output", o.output, "the catalog overlay to write")->required();

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
          << suggestion(rest.front(),
                        {"plan", "estimate", "simulate", "validate", "catalog", "calibrate"})
          << ")\n";
    } else {
      err << "scaleout: " << e.what() << "\n";
    }
    err << "Run 'scaleout --help' for the commands and options.\n";
    return 2;
  }

  o.format = app::parse_format(format);
  o.objective = app::parse_objective(objective);
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
    for (const auto* list : {&o.nccl_tests, &o.steps, &o.step_workloads}) {
      for (const std::string& path : *list) io::note_input(path);
    }
    if (!o.gemm.empty()) io::note_input(o.gemm);
    if (!o.output.empty()) io::refuse_input_as_output(o.output, "-o");
    app::Output result;
    if (*est)
      result = app::run_estimate(o);
    else if (*pl)
      result = app::run_plan(o);
    else if (*sm)
      result = app::run_simulate(o);
    else if (*val)
      result = app::run_validate(o);
    else if (*cat)
      result = app::run_catalog(o);
    else if (*cal)
      result = app::run_calibrate(o);
    errno = 0;
    app::write_result(o, result, out);
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
