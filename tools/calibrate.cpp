// Calibration experiments: validation MAPE for a grid of model constants,
// on a fit set and on held-out sets (docs/validation.md records the result).
//
//   scaleout_calibrate FIT.csv[:odd|:even] [HOLDOUT.csv ...]
//       --kernel-floor 0,5e-6,1e-5 --half-dim 64,96,128 --gemm-scale 0.9,1.0
//       --zero3-hidden 0.4,0.45,0.5
//
// ":odd" / ":even" keeps every other row of a file (by position), so one
// file can be split into a fit half and a held-out half. A serving CSV
// (data/validation/inference.csv) takes only --gemm-scale, which multiplies
// the kernel rates the serving model uses. --rank adds, under each grid
// line, the Spearman rank correlation of every (group, model, metric) of the
// training-schema sets with 5 or more rows (nothing for serving or --memory).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inference/serving.hpp"
#include "io/catalog_reader.hpp"
#include "io/serving_csv.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "validation/serving_validation.hpp"
#include "validation/validation.hpp"

namespace {

std::vector<double> list(const char* s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atof(item.c_str()));
  return out;
}

struct Set {
  std::string name;
  std::vector<scaleout::ValidationRow> rows;
  bool is_serving = false;  // a serving CSV: its rows are in `serving`
  std::vector<scaleout::ServingRow> serving;
};

// Step-time experiments use the time rows; --memory switches to peak_mem_gib rows.
bool memory_rows = false;
// --rank: print the per-model rank correlations under each grid line.
bool rank_rows = false;

Set load(const std::string& spec) {
  // FILE:even or FILE:odd keeps that half; any other name is a path.
  std::string path = spec;
  scaleout::RowHalf part = scaleout::RowHalf::all;
  for (const auto& [suffix, half] :
       {std::pair{":even", scaleout::RowHalf::even}, std::pair{":odd", scaleout::RowHalf::odd}}) {
    if (spec.ends_with(suffix)) {
      path = spec.substr(0, spec.size() - std::string(suffix).size());
      part = half;
    }
  }
  const std::string text = scaleout::io::read_text_file(path);
  Set s{spec, {}, false, {}};
  if (scaleout::io::is_serving_csv(text)) {
    if (memory_rows) throw std::runtime_error(path + ": a serving CSV has no peak_mem_gib rows");
    s.is_serving = true;
    auto rows = scaleout::io::read_serving_csv(text, path, scaleout::io::builtin_catalog());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (scaleout::in_half(part, i)) s.serving.push_back(rows[i]);
    }
    return s;
  }
  auto rows = scaleout::io::read_validation_csv(text, path);
  scaleout::io::apply_gpu_overrides(rows, path);
  scaleout::io::check_catalog_models(rows, scaleout::io::builtin_catalog(), path);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!scaleout::in_half(part, i) || (rows[i].metric == "peak_mem_gib") != memory_rows) continue;
    s.rows.push_back(rows[i]);
  }
  return s;
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scaleout_calibrate: %s\n", e.what());
    return 2;
  }
}

int run(int argc, char** argv) {
  std::vector<Set> sets;
  std::vector<double> floors = {-1}, dims = {-1}, scales = {1.0}, traffic = {-1};
  std::vector<double> fixed = {-1}, fragmentation = {-1}, hidden = {-1};
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--kernel-floor" && i + 1 < argc)
      floors = list(argv[++i]);
    else if (a == "--half-dim" && i + 1 < argc)
      dims = list(argv[++i]);
    else if (a == "--gemm-scale" && i + 1 < argc)
      scales = list(argv[++i]);
    else if (a == "--elementwise" && i + 1 < argc)
      traffic = list(argv[++i]);
    else if (a == "--zero3-hidden" && i + 1 < argc)
      hidden = list(argv[++i]);
    else if (a == "--overhead-gib" && i + 1 < argc)
      fixed = list(argv[++i]);
    else if (a == "--fragmentation" && i + 1 < argc)
      fragmentation = list(argv[++i]);
    else if (a == "--memory")
      memory_rows = true;
    else if (a == "--rank")
      rank_rows = true;
    else
      specs.push_back(a);
  }
  for (const std::string& spec : specs) sets.push_back(load(spec));
  const bool serving =
      std::any_of(sets.begin(), sets.end(), [](const Set& s) { return s.is_serving; });
  if (serving && (floors.size() > 1 || dims.size() > 1 || traffic.size() > 1 || hidden.size() > 1 ||
                  floors[0] >= 0 || dims[0] >= 0 || traffic[0] >= 0 || hidden[0] >= 0))
    std::fprintf(stderr,
                 "scaleout_calibrate: serving CSVs take only --gemm-scale; --kernel-floor, "
                 "--half-dim, --elementwise and --zero3-hidden leave their figures unchanged\n");
  if (memory_rows && !sets.empty()) {
    const scaleout::Catalog& cat = scaleout::io::builtin_catalog();
    std::printf("%-12s %-13s", "overhead_gib", "fragmentation");
    for (const Set& s : sets) std::printf(" %24s", s.name.substr(s.name.rfind('/') + 1).c_str());
    std::printf("\n");
    for (double f : fixed) {
      for (double g : fragmentation) {
        scaleout::ModelTuning t;
        if (f >= 0) t.overhead.fixed_bytes = f * 1024.0 * 1024.0 * 1024.0;
        if (g >= 0) t.overhead.fragmentation = g;
        std::printf("%-12g %-13g", f, g);
        for (const Set& s : sets) {
          std::printf(" %23.1f%%",
                      100.0 * scaleout::overall_mape(scaleout::validate_rows(s.rows, cat, t)));
        }
        std::printf("\n");
      }
    }
    return 0;
  }
  if (sets.empty()) {
    std::fprintf(stderr,
                 "usage: scaleout_calibrate FIT.csv[:odd|:even] [HOLDOUT.csv ...] "
                 "[--kernel-floor L] [--half-dim L] [--gemm-scale L] [--elementwise L] "
                 "[--zero3-hidden L] [--rank]\n"
                 "       scaleout_calibrate --memory FILE.csv ... [--overhead-gib L] "
                 "[--fragmentation L]\n");
    return 2;
  }
  const scaleout::Catalog& catalog = scaleout::io::builtin_catalog();
  std::printf("%-12s %-9s %-10s %-11s %-12s", "kernel_floor", "half_dim", "gemm_scale",
              "elementwise", "zero3_hidden");
  for (const Set& s : sets) std::printf(" %24s", s.name.substr(s.name.rfind('/') + 1).c_str());
  std::printf("\n");
  for (double f : floors) {
    for (double d : dims) {
      for (double g : scales) {
        for (double e : traffic) {
          for (double z : hidden) {
            // A negative value keeps the built-in constant.
            scaleout::ModelTuning t;
            if (f >= 0) t.kernel_floor_s = f;
            if (d >= 0) t.gemm_half_dim = d;
            t.gemm_efficiency_scale = g;
            if (e >= 0) t.elementwise_traffic = e;
            if (z >= 0) t.zero3_hidden_share = z;
            std::printf("%-12g %-9g %-10g %-11g %-12g", f, d, g, e, z);
            std::string ranks;
            for (const Set& s : sets) {
              double m = 0;
              if (s.is_serving) {
                scaleout::ServingConstants k;
                k.gemm_efficiency_scale = g;
                m = scaleout::validate_serving_rows(s.serving, catalog, k).overall.mape;
              } else {
                const scaleout::ValidationReport r = scaleout::validate_rows(s.rows, catalog, t);
                m = scaleout::overall_mape(r);
                for (const auto& rc : r.rank_correlation) {
                  ranks += "  rank " + s.name.substr(s.name.rfind('/') + 1) + ": " + rc.group +
                           " / " + rc.model + " / " + rc.metric + ": " +
                           std::to_string(rc.spearman).substr(0, 5) + "\n";
                }
              }
              std::printf(" %23.2f%%", 100.0 * m);
            }
            std::printf("\n");
            if (rank_rows) std::printf("%s", ranks.c_str());
            std::fflush(stdout);
          }
        }
      }
    }
  }
  return 0;
}
