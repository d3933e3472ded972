// nccl-tests output (NVIDIA/nccl-tests, src/common.cu): see calibration_inputs.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "io/calibration_inputs.hpp"

namespace scaleout::io {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A finite number filling the whole word, or nullopt.
std::optional<double> number(const std::string& w) {
  char* end = nullptr;
  const double v = std::strtod(w.c_str(), &end);
  if (w.empty() || end != w.c_str() + w.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The collective a binary name or file name names, if any.
std::optional<Collective> collective_in(const std::string& s) {
  static const std::pair<std::regex, Collective> kNames[] = {
      {std::regex("all_?reduce", std::regex::icase), Collective::all_reduce},
      {std::regex("all_?gather", std::regex::icase), Collective::all_gather},
      {std::regex("reduce_?scatter", std::regex::icase), Collective::reduce_scatter},
      {std::regex("all_?to_?all", std::regex::icase), Collective::all_to_all},
      {std::regex("send_?recv", std::regex::icase), Collective::send_recv},
  };
  for (const auto& [re, c] : kNames) {
    if (std::regex_search(s, re)) return c;
  }
  return std::nullopt;
}

}  // namespace

NcclRun read_nccl_tests(const std::string& text, const std::string& file) {
  NcclRun run;
  run.file = file;
  static const std::regex kRank(
      R"(^#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s+(.*?)\s*$)");
  static const std::regex kBinary(R"(([A-Za-z_]+)_perf\b)");
  std::optional<Collective> collective;
  std::map<std::string, int> per_host;
  bool header = false, footer = false, bounds_ok = false;
  std::vector<std::string> columns;
  size_t time_col = 0, busbw_col = 0;
  std::vector<size_t> wrong_cols;
  int line_no = 0, last_line = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    last_line = line_no;
    std::smatch m;
    if (!collective && std::regex_search(line, m, kBinary)) collective = collective_in(m[1].str());
    if (std::regex_search(line, m, kRank)) {
      ++run.ranks;
      ++per_host[m[2].str()];
      if (run.gpu_name.empty()) run.gpu_name = m[3].str();
      continue;
    }
    if (w[0] == "#" && w.size() > 2 && w[1] == "size" && w[2] == "count") {
      if (header) {
        throw InputError(file, line_no, "", "a second size table",
                         "give one nccl-tests run per file");
      }
      header = true;
      // The columns the rows have: size count type redop [root] time algbw
      // busbw #wrong, out-of-place then in-place (newer versions may add
      // more, e.g. a bit-wise check); found by name.
      columns.assign(w.begin() + 1, w.end());
      const auto first = [&](const char* name) {
        return static_cast<size_t>(std::find(columns.begin(), columns.end(), name) -
                                   columns.begin());
      };
      time_col = first("time");
      busbw_col = first("busbw");
      for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] == "#wrong") wrong_cols.push_back(i);
      }
      if (time_col >= columns.size() || busbw_col >= columns.size()) {
        throw InputError(file, line_no, "", "the size table's header has no time or busbw column",
                         "keep nccl-tests' header line as printed");
      }
      continue;
    }
    if (w[0] == "#" && w.size() > 1 && w[1] == "(B)") {
      // The units line: sizes in bytes, times in microseconds, rates in GB/s.
      std::vector<std::string> units(w.begin() + 1, w.end());
      const std::vector<std::string> known = {"(B)", "(elements)", "(us)", "(GB/s)"};
      for (const std::string& u : units) {
        if (std::find(known.begin(), known.end(), u) == known.end()) {
          throw InputError(file, line_no, "", fmt::format("unknown unit {}", u),
                           "nccl-tests prints (B), (elements), (us) and (GB/s)");
        }
      }
      continue;
    }
    if (line.find("Out of bounds values") != std::string::npos) {
      const auto colon = line.find(':');
      const std::vector<std::string> v = words(line.substr(colon + 1));
      if (v.empty() || v[0] != "0") {
        throw InputError(file, line_no, "", "nccl-tests found out-of-bounds values",
                         "the run's results are wrong; fix the cluster and rerun");
      }
      bounds_ok = true;
      continue;
    }
    if (line.find("Avg bus bandwidth") != std::string::npos) {
      footer = true;
      continue;
    }
    if (w[0][0] == '#' || !header || footer) continue;  // comments, NCCL INFO, launcher lines
    if (!std::isdigit(static_cast<unsigned char>(w[0][0]))) continue;
    if (w.size() != columns.size()) {
      throw InputError(
          file, line_no, "",
          fmt::format("a size-table row has {} columns, the header {}", w.size(), columns.size()),
          "size count type redop root, then time algbw busbw #wrong out-of-place "
          "and in-place (a truncated table?)");
    }
    const auto bytes = number(w[0]);
    const auto time_us = number(w[time_col]);
    const auto busbw = number(w[busbw_col]);
    if (!bytes || !time_us || !busbw || *bytes < 0 || *time_us < 0 || *busbw < 0) {
      throw InputError(file, line_no, "", "a size-table row with a value that is not a number",
                       "size, time and busbw must be non-negative numbers");
    }
    for (size_t wrong : wrong_cols) {
      if (w[wrong] != "N/A" && w[wrong] != "0") {
        throw InputError(file, line_no, "#wrong",
                         fmt::format("nccl-tests counted {} wrong values", w[wrong]),
                         "the run's results are wrong; fix the cluster and rerun");
      }
    }
    if (*bytes <= 0 || *time_us <= 0) continue;  // an empty size measures nothing
    run.samples.push_back({line_no, *bytes, *time_us * 1e-6, *busbw * 1e9});
  }
  if (run.ranks == 0) {
    throw InputError(file, 0, "", "no '#  Rank N Group G Pid P on HOST device D [..] GPU' lines",
                     "keep the whole nccl-tests output, header included");
  }
  if (!header) {
    throw InputError(file, last_line, "", "no size table ('#  size  count  type ...')",
                     "keep the whole nccl-tests output");
  }
  if (!footer || !bounds_ok) {
    throw InputError(file, last_line, "",
                     "the size table ends without the '# Out of bounds values' and '# Avg bus "
                     "bandwidth' footer (truncated?)",
                     "keep the whole nccl-tests output, up to its last line");
  }
  if (run.samples.empty()) throw InputError(file, last_line, "", "the size table has no rows");
  if (!collective) collective = collective_in(std::filesystem::path(file).filename().string());
  if (!collective) {
    throw InputError(file, 0, "", "cannot tell which collective this is",
                     "keep the command line (all_reduce_perf -b 8 ...) in the file or name the "
                     "file after the binary, e.g. all_reduce_perf.log");
  }
  run.collective = *collective;
  run.nodes = static_cast<int>(per_host.size());
  for (const auto& [host, n] : per_host) run.ranks_per_node = std::max(run.ranks_per_node, n);
  return run;
}

}  // namespace scaleout::io
