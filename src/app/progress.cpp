#include "app/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace scaleout {

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

}  // namespace scaleout
