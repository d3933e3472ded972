// The progress bar `plan` and `simulate` draw on a terminal's standard error.
#pragma once

#include <chrono>
#include <iosfwd>
#include <mutex>
#include <string>

namespace scaleout {

// One line of the progress bar `plan` and `simulate` draw on a terminal's
// standard error: "searching [#####.....]  50 % 120/240 cells, 3 s" (`what`
// and `unit` name the work), at most 79 columns.
std::string progress_line(long long done, long long total, double elapsed_s,
                          const char* what = "searching", const char* unit = "cells");

// The search's progress bar on a terminal (run_cli makes one only when
// standard error is a terminal): drawn once the search has run for
// `show_after`, redrawn at most ten times a second, erased by finish() (or
// the destructor). update() may be called from several threads at once; one
// draws, the others skip.
class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressBar(std::ostream& err,
                       std::chrono::milliseconds show_after = std::chrono::seconds(1),
                       const char* what = "searching", const char* unit = "cells");
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  void update(long long done, long long total);
  void finish();

 private:
  std::ostream& err_;
  std::chrono::milliseconds show_after_;
  const char* what_;
  const char* unit_;
  std::mutex mu_;
  Clock::time_point start_;
  Clock::time_point last_{};
  bool drawn_ = false;
};

}  // namespace scaleout
