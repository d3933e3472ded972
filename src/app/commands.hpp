// The commands, one unit each (estimate.cpp, plan.cpp, simulate.cpp,
// validate.cpp, catalog.cpp): each loads its inputs, runs the model, checks
// the result (report::check_*) and returns what to write. src/cli parses the
// command line and calls one of them; write_result puts the output where
// the options say.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "io/files.hpp"

namespace scaleout::app {

// What a command prints: the report (to -o FILE or standard output), then
// notes for standard output, and warnings for standard error.
struct Output {
  std::string report{};
  std::string notes{};
  std::string warnings{};
  std::vector<io::OutputFile> launch_files{};  // plan --emit: written with the report
};

Output run_estimate(const Options& o);
Output run_plan(const Options& o);
Output run_simulate(const Options& o);
Output run_validate(const Options& o);
Output run_catalog(const Options& o);
// The overlay is the report (-o FILE); what was fitted goes to the notes.
Output run_calibrate(const Options& o);

// Writes the result: the launch files and the -o file all-or-nothing (the
// folder of --emit created if missing), each through a temporary file; the
// report to `out` without -o.
void write_result(const Options& o, const Output& result, std::ostream& out);

}  // namespace scaleout::app
