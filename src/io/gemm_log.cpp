// The GEMM benchmark CSV (scripts/gemm_bench.py writes it): see calibration_inputs.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/spelling.hpp"
#include "io/calibration_inputs.hpp"

namespace scaleout::io {

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    const auto a = cell.find_first_not_of(" \t");
    const auto b = cell.find_last_not_of(" \t");
    out.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

std::vector<GemmSample> read_gemm_log(const std::string& text, const std::string& file) {
  const std::vector<std::string> known = {"m", "n", "k", "dtype", "time_s", "tflops"};
  std::vector<std::string> header;
  std::vector<GemmSample> out;
  int line_no = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    const std::vector<std::string> c = cells(line);
    if (header.empty()) {
      header = c;
      for (const std::string& h : header) {
        if (std::find(known.begin(), known.end(), h) == known.end()) {
          throw InputError(file, line_no, h, "unknown column", suggestion(h, known));
        }
        if (std::count(header.begin(), header.end(), h) > 1) {
          throw InputError(file, line_no, h, "column given twice");
        }
      }
      for (const char* need : {"m", "n", "k", "dtype"}) {
        if (std::find(header.begin(), header.end(), need) == header.end()) {
          throw InputError(file, line_no, need, "missing column",
                           "the header is m,n,k,dtype,time_s (or tflops)");
        }
      }
      const bool time = std::find(header.begin(), header.end(), "time_s") != header.end();
      const bool rate = std::find(header.begin(), header.end(), "tflops") != header.end();
      if (time == rate) {
        throw InputError(file, line_no, "time_s", "give one of time_s and tflops",
                         "seconds per GEMM, or TFLOP/s (2 m n k / time)");
      }
      continue;
    }
    if (c.size() != header.size()) {
      throw InputError(file, line_no, "",
                       fmt::format("{} cells, the header has {}", c.size(), header.size()));
    }
    GemmSample s;
    s.line = line_no;
    double time_s = 0, tflops = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      const std::string& key = header[i];
      if (key == "dtype") {
        if (c[i] == "bf16") {
          s.precision = Precision::bf16;
        } else if (c[i] == "fp16") {
          s.precision = Precision::fp16;
        } else if (c[i] == "fp8") {
          s.precision = Precision::fp8;
        } else {
          throw InputError(file, line_no, key, fmt::format("unknown dtype '{}'", c[i]),
                           "bf16, fp16 or fp8");
        }
        continue;
      }
      char* end = nullptr;
      const double v = std::strtod(c[i].c_str(), &end);
      if (c[i].empty() || end != c[i].c_str() + c[i].size() || !std::isfinite(v) || v <= 0 ||
          v > 1e12) {
        throw InputError(file, line_no, key, fmt::format("'{}' is not a positive number", c[i]),
                         key == "time_s" ? "seconds, e.g. 0.00123" : "");
      }
      if (key == "m") s.m = v;
      if (key == "n") s.n = v;
      if (key == "k") s.k = v;
      if (key == "time_s") time_s = v;
      if (key == "tflops") tflops = v;
    }
    s.time_s = time_s > 0 ? time_s : 2.0 * s.m * s.n * s.k / (tflops * 1e12);
    out.push_back(s);
  }
  if (out.empty()) {
    throw InputError(file, line_no, "", "no GEMM rows",
                     "a header m,n,k,dtype,time_s and one row per GEMM");
  }
  return out;
}

}  // namespace scaleout::io
