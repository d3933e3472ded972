// What the command line asked for, parsed once by src/cli: the options every
// command reads, with the output format and the objective as enums.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "search/planner.hpp"

namespace scaleout::app {

// The report's format; which ones a command accepts is checked when parsing.
enum class Format { text, json, csv, html };

const char* to_string(Format f);
// "text", "json", "csv" or "html" (others are refused before this is called).
Format parse_format(const std::string& name);
// "cost", "time" or "energy".
Objective parse_objective(const std::string& name);

struct Options {
  std::vector<std::string> catalogs;  // --catalog files, in order
  Objective objective = Objective::cost;
  int threads = 0;  // 0: all cores
  Format format = Format::text;
  std::string workload;              // estimate, plan: the workload YAML
  std::string csv;                   // validate: the CSV
  std::string overrides;             // validate --gpu-overrides
  std::string kind;                  // catalog: gpus, servers, ...
  std::string emit;                  // plan --emit DIR: launch files for the recommended plan
  bool force = false;                // plan --force: --emit may replace existing files
  bool full_frontier = false;        // plan --full-frontier: every frontier point in text
  bool smoke = false;                // plan --smoke: --emit's torchrun.sh runs smoke_train.py
  std::string output;                // -o FILE: the report goes there instead of standard output
  std::ostream* progress = nullptr;  // plan, simulate: draw a progress bar here (a terminal)
  std::string jobs;                  // simulate JOBS.yaml
  // calibrate: the cluster's server (and fabric), and its measurements
  std::string server, fabric, gemm;
  std::vector<std::string> nccl_tests, steps, step_workloads;
};

}  // namespace scaleout::app
