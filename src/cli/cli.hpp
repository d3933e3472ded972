// The scaleout command line. main() only forwards here.
#pragma once

#include <iosfwd>
#include <string>

namespace scaleout {

// Runs one command; returns the exit code: 0 success, 2 bad input (message on
// standard error, nothing on standard output), 1 an internal error.
int run_cli(int argc, char** argv);
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

// One line of the search progress bar `plan` draws on a terminal's standard
// error: "searching [#####.....]  50 % 120/240 cells, 3 s", at most 79 columns.
std::string progress_line(long long done, long long total, double elapsed_s);

}  // namespace scaleout
