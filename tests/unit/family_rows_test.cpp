// Each GPU family's validation_rows (data/catalog/families.json) is the number
// of training rows of data/validation on its GPUs: recounted here from the
// CSVs (gpu column, after the overrides beside a CSV, mapped to the catalog
// GPU's family), so a row added or removed without the count fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"

namespace scaleout {
namespace {

TEST(FamilyRows, EqualTheRowsOfTheValidationCsvs) {
  namespace fs = std::filesystem;
  const Catalog& cat = io::builtin_catalog();
  std::map<std::string, int> counted;
  int files = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(SCALEOUT_SOURCE_DIR) + "/data/validation")) {
    const std::string path = e.path().string();
    const std::string name = e.path().filename().string();
    // The training CSVs (a gpu column); not the overrides, not serving's.
    if (e.path().extension() != ".csv" || name.find(".gpu-overrides") != std::string::npos ||
        name == "inference.csv") {
      continue;
    }
    std::vector<ValidationRow> rows = io::read_validation_csv(io::read_text_file(path), path);
    io::apply_gpu_overrides(rows, path);
    ++files;
    for (const ValidationRow& r : rows) {
      // A GPU the catalog lacks is listed as not predicted by validate: no family.
      const Gpu* gpu = cat.find_gpu(r.gpu);
      if (gpu) ++counted[gpu->family];
    }
  }
  EXPECT_GE(files, 5);  // training, external, moe-training, vtrain-single, vtrain-multi
  for (const GpuFamily* f : cat.all<GpuFamily>()) {
    const int rows = counted.count(f->id) ? counted.at(f->id) : 0;
    EXPECT_EQ(f->validation_rows, rows)
        << "data/catalog/families.json: " << f->id << ": validation_rows.count is "
        << f->validation_rows << ", data/validation has " << rows << " rows on its GPUs";
  }
}

TEST(FamilyRows, TheReaderTakesAnOptionalSourcedCountStrictly) {
  auto read = [](const std::string& rows) -> std::string {
    Catalog c;
    try {
      io::read_catalog(
          "families:\n  - id: f\n    gemm: {share: 0.5, source: s}\n"
          "    fp8_gemm: {share: 0.7, source: s}\n    attention: {share: 0.4, source: s}\n"
          "    sustained_factor: {value: 1, source: s}\n"
          "    eager_efficiency: {value: 0.7, source: s}\n"
          "    step_time_band: {value: 0.2, source: s}\n"
          "    validation: {nic_gbit_s: 800, nvswitch: true, megatron_fused_attention: true, "
          "source: s}\n" +
              rows,
          "user.yaml", c);
      return std::to_string(c.find<GpuFamily>("f")->validation_rows);
    } catch (const InputError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(read(""), "0");  // absent: no rows, unvalidated
  EXPECT_EQ(read("    validation_rows: {count: 27, source: training.csv}\n"), "27");
  EXPECT_NE(read("    validation_rows: {count: 27}\n").find("source: missing required key"),
            std::string::npos);
  EXPECT_NE(read("    validation_rows: {source: s}\n").find("count: missing required key"),
            std::string::npos);
  EXPECT_NE(read("    validation_rows: {cont: 3, source: s}\n").find("cont: unknown key"),
            std::string::npos)
      << read("    validation_rows: {cont: 3, source: s}\n");
  EXPECT_NE(read("    validaton_rows: {count: 3, source: s}\n").find("validaton_rows: unknown key"),
            std::string::npos);
}

}  // namespace
}  // namespace scaleout
