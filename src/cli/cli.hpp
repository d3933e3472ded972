// The scaleout command line. main() only forwards here.
#pragma once

#include <iosfwd>

#include "app/progress.hpp"  // ProgressBar, progress_line

namespace scaleout {

// Runs one command; returns the exit code: 0 success, 2 bad input (message on
// standard error, nothing on standard output), 1 an internal error.
int run_cli(int argc, char** argv);
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace scaleout
