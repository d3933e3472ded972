// Helpers shared by the fuzz targets that run whole commands on a fuzzed
// catalog and workload (fuzz_plan_finite, fuzz_emit): a private scratch
// folder, the input split into its two files, a bound on the plan search, the
// command run in-process, and the checks on what it prints.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/workload_reader.hpp"
#include "search/planner.hpp"

namespace scaleout::fuzz {

namespace fs = std::filesystem;

// The line that separates the catalog part of an input from the workload
// part: "CATALOG\n#8<\nWORKLOAD". A YAML comment, so a seed stays readable. An
// input without it is a workload with no extra catalog.
inline constexpr std::string_view kSeparator = "\n#8<\n";

struct Parts {
  std::string catalog;  // empty: none
  std::string workload;
};

inline Parts split_input(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t cut = in.find(kSeparator);
  if (cut == std::string_view::npos) return {std::string(), std::string(in)};
  return {std::string(in.substr(0, cut)), std::string(in.substr(cut + kSeparator.size()))};
}

// A folder of this process's own (under /dev/shm when there is one, so that
// the fsync of every written file costs nothing), removed at exit. A run that
// ends in a finding exits without cleaning up, so each new process first
// removes the folders of processes that are gone (named by their pid). The
// folder holds the config.json of fuzz/cli-files, so `model: config.json`
// resolves as it does for fuzz_workload.
inline const fs::path& scratch_dir() {
  // Never destroyed, so that the atexit handler still finds it.
  static const fs::path& dir = *new fs::path([] {
    std::error_code ec;
    const fs::path base =
        fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    const std::string prefix = "scaleout-fuzz-";
    for (const auto& e : fs::directory_iterator(base, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) != 0) continue;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      std::error_code ignored;
      if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
        fs::remove_all(e.path(), ignored);
      }
    }
    std::string pattern = (base / (prefix + std::to_string(getpid()) + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data())) {
      std::perror("scaleout fuzz: mkdtemp");
      std::abort();
    }
    const fs::path made(pattern);
    fs::copy_file(fs::path(SCALEOUT_FUZZ_CLI_DIR) / "config.json", made / "config.json", ec);
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(scratch_dir(), ignored);
    });
    return made;
  }());
  return dir;
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) {
    std::fprintf(stderr, "scaleout fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

struct CliRun {
  std::vector<std::string> words;
  int rc = 0;
  std::string out, err;
};

inline CliRun run_cli_words(std::vector<std::string> words) {
  CliRun r;
  r.words = words;
  words.insert(words.begin(), "scaleout");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  r.rc = run_cli(static_cast<int>(words.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Prints the command, what is wrong and its output, then aborts (a finding).
[[noreturn]] inline void fail(const CliRun& r, const std::string& what) {
  std::string cmd = "scaleout";
  for (const std::string& w : r.words) cmd += " " + w;
  std::fprintf(stderr, "FINDING: %s\ncommand: %s\nexit code %d\nstdout:\n%s\nstderr:\n%s\n",
               what.c_str(), cmd.c_str(), r.rc, r.out.c_str(), r.err.c_str());
  std::abort();
}

// Success (0) or bad input (2, a message on standard error and nothing on
// standard output); 1 (an internal error) or anything else is a finding.
inline void check_exit(const CliRun& r) {
  if (r.rc != 0 && r.rc != 2) fail(r, "exit code is neither 0 nor 2");
  if (r.rc == 2 && (!r.out.empty() || r.err.empty())) {
    fail(r, "exit code 2 must print a message on standard error and nothing on standard output");
  }
}

// Words of `text`: runs of the characters an id may hold (core/ids.hpp) and
// '%'; the rest separates them.
inline std::vector<std::string_view> words_of(std::string_view text) {
  auto id_char = [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return std::isalnum(u) || ch == '.' || ch == '_' || ch == '-' || ch == '+' || ch == '/' ||
           ch == '%';
  };
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !id_char(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && id_char(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// True for the way C, fmt and iostreams print a number that is not finite,
// with what a report puts around it: "inf", "-nan", "+inf", "nan%", "infx",
// "INF", "-nan(ind)", "infinity".
inline bool non_finite_word(std::string_view w) {
  std::string s;
  for (char ch : w) s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  while (!s.empty() && (s.front() == '-' || s.front() == '+' || s.front() == '$')) s.erase(0, 1);
  while (!s.empty() && (s.back() == '%' || s.back() == 'x' || s.back() == '.')) s.pop_back();
  return s == "inf" || s == "nan" || s == "infinity" || s == "nan(ind)";
}

// The input's own words: an id such as "inf" that the input gives may be
// printed back; anything else that reads as a non-finite number is nonsense.
inline std::set<std::string> input_words(const Parts& p) {
  std::set<std::string> words;
  for (const std::string* t : {&p.catalog, &p.workload}) {
    for (std::string_view w : words_of(*t)) words.emplace(w);
  }
  return words;
}

// Fails when `text` (a report or a launch file) shows a non-finite number
// that is not one of the input's own words.
inline void check_finite_text(const CliRun& r, const std::string& text,
                              const std::set<std::string>& allowed, const std::string& where) {
  for (std::string_view w : words_of(text)) {
    if (non_finite_word(w) && !allowed.count(std::string(w))) {
      fail(r, where + " shows a number that is not finite: '" + std::string(w) + "'");
    }
  }
}

// What the target needs to know of a workload before running it.
struct Preview {
  // How much searching `plan` would do: hardware options x node counts x
  // global batches, the cells the planner searches one by one; 0 when the
  // catalog or the workload does not read (the command will say why).
  long long plan_cells = 0;
  std::string model_id;
};

inline Preview preview(const Parts& p, const fs::path& dir) {
  try {
    Catalog catalog = io::builtin_catalog();
    if (!p.catalog.empty()) io::read_catalog(p.catalog, "c.yaml", catalog);
    const io::WorkloadFile wf =
        io::read_workload(p.workload, "w.yaml", dir.string(), catalog, false);
    const io::PlanInput& in = wf.plan;
    long long servers = static_cast<long long>(in.servers.size());
    if (in.cluster_keys.count("server")) servers = 1;
    if (servers == 0) servers = static_cast<long long>(catalog.ids<Server>().size());
    long long fabrics = static_cast<long long>(in.fabrics.size());
    if (in.cluster_keys.count("fabric")) fabrics = 1;
    int max_nodes = in.max_nodes.value_or(PlanConstraints{}.max_nodes);
    if (in.cluster_keys.count("nodes")) max_nodes = std::max(max_nodes, wf.workload.cluster.nodes);
    const auto counts = static_cast<long long>(node_counts(max_nodes).size());
    const auto batches = std::max<long long>(1, static_cast<long long>(in.global_batches.size()));
    return {servers * std::max<long long>(1, fabrics) * counts * batches, wf.workload.model.id};
  } catch (const InputError&) {
    return {};
  }
}

}  // namespace scaleout::fuzz
