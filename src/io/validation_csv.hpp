// Reads the canonical validation CSV (data/validation/README.md): RFC 4180,
// one header line naming the 38 columns in any order (read by name; an
// unknown, repeated or missing column is an error). Bad cells are InputErrors with
// file, line and column name, the cell shown cut and escaped. Numbers are
// plain decimals; the measured value lies in its metric's range; the row id,
// group and GPU are ids (core/ids.hpp); the model is a display name of
// printable ASCII of at most 128 characters; the fabric is ib, roce or eth.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "validation/validation.hpp"

namespace scaleout::io {

std::vector<ValidationRow> read_validation_csv(const std::string& text, const std::string& file);

// The canonical columns, in the order the data files write them.
const std::vector<std::string>& validation_csv_columns();

// Splits RFC 4180 text into records of fields; records[i].first is the line
// the record starts on. Throws on an unterminated quote.
std::vector<std::pair<int, std::vector<std::string>>> parse_csv(const std::string& text,
                                                                const std::string& file);

// A plain decimal number as the validation CSVs write it: an optional '-',
// digits, optionally '.' and digits, optionally 'e' or 'E', a sign and
// digits ("3.5", "0.000125", "1e-3"). No '+' in front, no hexadecimal, no
// inf or nan, no blanks, nothing after it.
bool is_decimal(std::string_view s);

// Only the digits 0-9, at least one.
bool is_whole(std::string_view s);

// The range a measured value of a metric must lie in, (0, max] in the
// metric's unit (data/validation/README.md and inference.md).
struct MeasuredRange {
  const char* metric;
  double max;
  const char* unit;
  const char* hint;
};

// The range of `metric`, or nullptr when the metric has none here.
const MeasuredRange* measured_range(std::string_view metric);

// Throws InputError(file, line, column) when `value` (written `cell`) is
// outside the range of `metric`; a metric without a range passes.
void check_measured(const std::string& metric, double value, const std::string& cell,
                    const std::string& file, int line, const std::string& column);

// Rows whose `model` cell names a catalog model (its id, or its name
// exactly) must agree with it in every shape cell they give; the first that
// does not is an InputError(file, row line, column). Such a row that leaves
// any of layers, hidden, heads and vocab empty takes the catalog's shape
// (validation/validation.hpp, catalog_shape_of).
void check_catalog_models(const std::vector<ValidationRow>& rows, const Catalog& catalog,
                          const std::string& file);

// GPU overrides: CSV with columns id,gpu,reason (id and gpu are ids);
// returns id -> gpu.
std::map<std::string, std::string> read_gpu_overrides(const std::string& text,
                                                      const std::string& file);

// Applies the GPU overrides of the file `overrides`, or, when it is empty, of
// FILE.gpu-overrides.csv beside `csv_path` if that exists (the hardware
// corrections a data set's own README documents).
void apply_gpu_overrides(std::vector<ValidationRow>& rows, const std::string& csv_path,
                         const std::string& overrides = "");

}  // namespace scaleout::io
