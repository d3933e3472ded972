// The Python extension `scaleout._scaleout`: one entry point that runs a
// scaleout command in this process exactly as the command line does
// (src/cli), so that the Python functions of python/scaleout/__init__.py
// return the CLI's own JSON. Thin by design: no model code here.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli.hpp"

namespace py = pybind11;

namespace {

// Runs `scaleout ARGS...`; returns (exit code, standard output, standard error).
std::tuple<int, std::string, std::string> run(const std::vector<std::string>& args) {
  std::vector<std::string> owned;
  owned.reserve(args.size() + 1);
  owned.emplace_back("scaleout");
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(owned.size() + 1);
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  int code = 0;
  {
    // The model never calls back into Python: let other Python threads run.
    py::gil_scoped_release unlocked;
    code = scaleout::run_cli(static_cast<int>(owned.size()), argv.data(), out, err);
  }
  return {code, out.str(), err.str()};
}

}  // namespace

PYBIND11_MODULE(_scaleout, m) {
  m.doc() = "scaleout's command line, run in-process (use the functions of the scaleout package)";
  m.def("run", &run, py::arg("args"),
        "Runs `scaleout ARGS...` in this process; returns (exit code, stdout, stderr).");
}
