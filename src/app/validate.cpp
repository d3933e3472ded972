// `validate CSV`: predicts published measurements (training or serving CSV)
// and scores the predictions.
#include <fmt/format.h>

#include <filesystem>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "core/error.hpp"
#include "io/files.hpp"
#include "io/serving_csv.hpp"
#include "io/validation_csv.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"

namespace scaleout::app {

Output run_validate(const Options& o) {
  report::EntryFiles files;
  Catalog catalog = load_catalog(o, &files);
  const std::string text = io::read_text_file(o.csv);
  // The default overrides file beside the CSV is an input even while absent.
  std::filesystem::path side(o.csv);
  side.replace_extension(".gpu-overrides.csv");
  io::note_input(side.string());
  if (io::is_serving_csv(text)) {
    if (o.format == Format::csv || o.format == Format::html) {
      throw InputError(o.csv, 0, "",
                       fmt::format("--format {}: serving validation is written as text or json "
                                   "only",
                                   to_string(o.format)),
                       "use --format text or --format json for a serving CSV");
    }
    const ServingValidationReport rep =
        validate_serving_rows(io::read_serving_csv(text, o.csv, catalog), catalog);
    require_finite(rep, report::check_serving_validation, files);
    return {o.format == Format::json ? report::serving_validate_json(rep)
                                     : report::serving_validate_text(rep)};
  }
  std::vector<ValidationRow> rows = io::read_validation_csv(text, o.csv);
  io::apply_gpu_overrides(rows, o.csv, o.overrides);
  io::check_catalog_models(rows, catalog, o.csv);
  const ValidationReport rep = validate_rows(rows, catalog);
  require_finite(rep, report::check_validation, files);
  switch (o.format) {
    case Format::json:
      return {report::validate_json(rep)};
    case Format::csv:
      return {report::validate_csv(rep)};
    default:
      return {report::validate_text(rep)};
  }
}

}  // namespace scaleout::app
