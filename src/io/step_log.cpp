// Step timing lines of training logs: see calibration_inputs.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "io/calibration_inputs.hpp"

namespace scaleout::io {

namespace {

// Seconds in one `unit` of a logged time, or 0 when the unit is unknown.
double seconds_per(const std::string& unit) {
  if (unit == "ms") return 1e-3;
  if (unit == "s" || unit == "sec") return 1.0;
  return 0;
}

}  // namespace

StepLog read_step_log(const std::string& text, const std::string& file, double tokens_per_step,
                      int gpus) {
  // Megatron-LM: "elapsed time per iteration (ms): 1234.5"
  static const std::regex kMegatron(R"(elapsed time per iteration \(([^)]*)\):\s*([-0-9.eE+]+))");
  // NeMo (Lightning): "train_step_timing in s: 12.3" (or "train_step_timing=12.3")
  static const std::regex kNemo(R"(train_step_timing(?: in (\w+))?\s*[:=]\s*([-0-9.eE+]+))");
  // torchtitan: "step:  10  loss:  7.9  memory: ...  tps: 4,345  ..." (wps in older versions)
  static const std::regex kTitan(R"(step:\s*(\d+)\s.*?\b(?:tps|wps):\s*([0-9][0-9,]*(?:\.\d+)?))");
  // Hugging Face Trainer's summary: {'train_runtime': ..., 'train_steps_per_second': 0.45, ...}
  static const std::regex kHf(R"(['"]train_steps_per_second['"]\s*:\s*([-0-9.eE+]+))");
  StepLog log;
  int line_no = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::smatch m;
    std::string format, unit = "s";
    double value = 0;
    auto parse = [&](const std::string& s) {
      std::string t = s;
      t.erase(std::remove(t.begin(), t.end(), ','), t.end());
      char* end = nullptr;
      const double v = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0) {
        throw InputError(file, line_no, "", fmt::format("'{}' is not a positive number", s));
      }
      return v;
    };
    if (std::regex_search(line, m, kMegatron)) {
      format = "megatron";
      unit = m[1].str();
      value = parse(m[2].str());
    } else if (std::regex_search(line, m, kNemo)) {
      format = "nemo";
      unit = m[1].matched ? m[1].str() : "s";
      value = parse(m[2].str());
    } else if (std::regex_search(line, m, kTitan)) {
      format = "torchtitan";
      const double tps = parse(m[2].str());  // tokens/s per GPU
      value = tokens_per_step / (tps * std::max(1, gpus));
    } else if (std::regex_search(line, m, kHf)) {
      format = "hf-trainer";
      value = 1.0 / parse(m[1].str());
    } else {
      continue;
    }
    const double scale = seconds_per(unit);
    if (scale == 0) {
      throw InputError(file, line_no, "", fmt::format("unknown time unit '{}'", unit), "ms or s");
    }
    if (!log.format.empty() && log.format != format) {
      throw InputError(file, line_no, "", fmt::format("a {} line in a {} log", format, log.format),
                       "give one run's log per --steps file");
    }
    log.format = format;
    log.step_s.push_back(value * scale);
    log.lines.push_back(line_no);
  }
  if (log.step_s.empty()) {
    throw InputError(file, line_no, "", "no step timing lines",
                     "Megatron-LM 'elapsed time per iteration (ms): X', NeMo "
                     "'train_step_timing in s: X', torchtitan 'step: N ... tps: X' or "
                     "Hugging Face Trainer 'train_steps_per_second'");
  }
  std::vector<double> v = log.step_s;
  if (v.size() >= 3) v.erase(v.begin());  // the first step warms up
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  log.median_s = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  return log;
}

}  // namespace scaleout::io
