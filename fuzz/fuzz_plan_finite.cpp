// libFuzzer target: a fuzzed catalog file with a fuzzed workload, run
// through `estimate` and a small `plan` in-process (run_cli), each as JSON
// and as text. The input is "CATALOG\n#8<\nWORKLOAD" (fuzz_util.hpp); the
// catalog part is loaded with --catalog on top of the built-in catalog.
//
// A finding (abort) is:
// - an exit code other than 0 or 2, or exit 2 without a message;
// - on success, a report that shows a number that is not finite: a word
//   such as "inf", "-nan", "nan%" or "infx" in the text or in a JSON string
//   (unless the input itself has that word, e.g. as an id), or a JSON null
//   under a key that is not one of the report's optional values (nlohmann
//   writes NaN and infinity as null);
// - an MFU or HFU outside [0, 100 %], a fraction (goodput, *_fraction)
//   outside [0, 1], a negative figure (but a memory headroom), or an integer at the limit of its
//   type (a non-finite value cast to an integer).
//
// Speed: `plan` runs only when the search is tiny (kMaxPlanCells cells: one
// or two servers and a few node counts, as in the seeds), with one thread;
// other workloads get `estimate` only.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fuzz_util.hpp"

namespace {

using nlohmann::json;
using scaleout::fuzz::CliRun;
using scaleout::fuzz::fail;

// The most cells (hardware options x node counts x global batches) a fuzzed
// plan may search; larger searches are skipped to keep executions fast.
constexpr long long kMaxPlanCells = 8;

// Keys whose value the estimate and plan writers write as null on purpose
// (an optional figure: no fabric, no price, no constraint, no plan, a
// reliability figure without failures, a GPU without a family). Any other
// null is a number that was not finite. They are the keys the plan and
// estimate schemas in docs/schemas mark nullable.
const std::set<std::string>& nullable_keys() {
  static const std::set<std::string> keys = {
      "fabric", "cost_usd", "deadline_days", "budget_usd", "max_power_kw", "min_goodput",
      "recommended", "single_node_best", "single_domain_best", "family",
      // bill_of_materials: null without a recommended plan; its money when unpriced.
      "bill_of_materials", "purchase_usd", "unit_usd", "usd", "own", "depreciation", "colocation",
      "operations", "energy", "cloud", "breakeven_vs_cloud", "min_nodes_fit", "min_nodes_deadline",
      "serving", "ttft_s", "tpot_s", "usd_per_hour", "usd_per_million_output_tokens", "mtbf_hours",
      "checkpoint_interval_s", "young_interval_s", "own_usd", "cloud_usd", "cloud_usd_per_hour",
      "breakeven_utilisation", "capex_usd", "server_capex_usd", "network_capex_usd"};
  return keys;
}

// Figures that may be below zero: memory headroom (negative: does not fit).
bool may_be_negative(const std::string& key) { return key.find("headroom") != std::string::npos; }

bool is_fraction_key(const std::string& key) {
  return key == "goodput" || key == "mfu" || key == "hfu" ||
         (key.size() > 9 && key.compare(key.size() - 9, 9, "_fraction") == 0);
}

void check_json_value(const CliRun& r, const json& j, const std::string& key,
                      const std::string& path, const std::set<std::string>& allowed) {
  switch (j.type()) {
    case json::value_t::object:
      for (const auto& [k, v] : j.items()) check_json_value(r, v, k, path + "." + k, allowed);
      break;
    case json::value_t::array:
      for (size_t i = 0; i < j.size(); ++i) {
        check_json_value(r, j[i], key, path + "[" + std::to_string(i) + "]", allowed);
      }
      break;
    case json::value_t::null:
      if (!nullable_keys().count(key)) fail(r, "JSON " + path + " is null (not finite?)");
      break;
    case json::value_t::number_float: {
      const double v = j.get<double>();
      if (!std::isfinite(v)) fail(r, "JSON " + path + " is not finite");
      if (v < 0 && !may_be_negative(key)) fail(r, "JSON " + path + " is negative: " + j.dump());
      if (is_fraction_key(key) && v > 1) fail(r, "JSON " + path + " is above 1: " + j.dump());
      break;
    }
    case json::value_t::number_integer: {
      const auto v = j.get<long long>();
      if (v < 0 && !may_be_negative(key)) fail(r, "JSON " + path + " is negative: " + j.dump());
      break;
    }
    case json::value_t::number_unsigned: {
      const auto v = j.get<unsigned long long>();
      if (v == INT_MAX || v == LLONG_MAX || v == ULLONG_MAX) {
        fail(r, "JSON " + path + " is at the limit of its type: " + j.dump());
      }
      break;
    }
    case json::value_t::string:
      scaleout::fuzz::check_finite_text(r, j.get<std::string>(), allowed, "JSON " + path);
      break;
    default:
      break;
  }
}

// "MFU 57.0 %", "MFU 57.0%", "HFU ...": the figure is within [0, 100].
void check_text_percentages(const CliRun& r) {
  for (const char* label : {"MFU ", "HFU "}) {
    for (size_t at = r.out.find(label); at != std::string::npos; at = r.out.find(label, at + 1)) {
      const char* start = r.out.c_str() + at + 4;
      char* end = nullptr;
      const double v = std::strtod(start, &end);
      if (end == start) continue;  // a column heading
      while (*end == ' ') ++end;
      if (*end != '%') continue;
      if (!(v >= 0 && v <= 100)) {
        fail(r, std::string("text shows ") + label +
                    std::string(start, static_cast<size_t>(end + 1 - start)));
      }
    }
  }
}

void check_report(const CliRun& r, bool json_format, const std::set<std::string>& allowed) {
  scaleout::fuzz::check_exit(r);
  if (r.rc != 0) return;
  if (json_format) {
    json j;
    try {
      j = json::parse(r.out);
    } catch (const json::exception& e) {
      fail(r, std::string("--format json output does not parse: ") + e.what());
    }
    check_json_value(r, j, "", "", allowed);
  } else {
    scaleout::fuzz::check_finite_text(r, r.out, allowed, "text report");
    check_text_percentages(r);
  }
}

// Runs the command as JSON, then (when that succeeds) as text.
void run_both(std::vector<std::string> words, const std::set<std::string>& allowed) {
  words.insert(words.end(), {"--format", "json"});
  const CliRun as_json = scaleout::fuzz::run_cli_words(words);
  check_report(as_json, true, allowed);
  if (as_json.rc != 0) return;
  words.back() = "text";
  check_report(scaleout::fuzz::run_cli_words(words), false, allowed);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)scaleout::fuzz::scratch_dir();
  (void)scaleout::io::builtin_catalog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fz = scaleout::fuzz;
  const fz::Parts parts = fz::split_input(data, size);
  const fz::fs::path& dir = fz::scratch_dir();
  const std::string workload = (dir / "w.yaml").string();
  const std::string catalog = (dir / "c.yaml").string();
  fz::write_file(workload, parts.workload);
  std::vector<std::string> extra;
  if (!parts.catalog.empty()) {
    fz::write_file(catalog, parts.catalog);
    extra = {"--catalog", catalog};
  }
  const std::set<std::string> allowed = fz::input_words(parts);

  std::vector<std::string> estimate = {"estimate", workload};
  estimate.insert(estimate.end(), extra.begin(), extra.end());
  run_both(estimate, allowed);

  const long long cells = fz::preview(parts, dir).plan_cells;
  if (cells > 0 && cells <= kMaxPlanCells) {
    // The objective changes the ranking (and so what is printed): pick one
    // from the input so that each objective is fuzzed.
    static const char* const kObjectives[] = {"cost", "time", "energy"};
    std::vector<std::string> plan = {"plan", workload,      "--threads",
                                     "1",    "--objective", kObjectives[parts.workload.size() % 3]};
    plan.insert(plan.end(), extra.begin(), extra.end());
    run_both(plan, allowed);
  }
  return 0;
}
