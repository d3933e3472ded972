// Runs the command line in-process for the unit tests (cli_test, calibration_test).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace scaleout::testing_cli {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

// `scaleout ARGS...`: the exit code, standard output and standard error.
inline Result run(std::vector<std::string> args) {
  args.insert(args.begin(), "scaleout");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  Result r;
  r.code = run_cli(static_cast<int>(args.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace scaleout::testing_cli
