// Reads the canonical validation CSV (data/validation/README.md): RFC 4180,
// one header line, the 38 columns in order. Bad cells are InputErrors with
// file, line and column name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "validation/validation.hpp"

namespace scaleout::io {

std::vector<ValidationRow> read_validation_csv(const std::string& text, const std::string& file);

// Splits RFC 4180 text into records of fields; records[i].first is the line
// the record starts on. Throws on an unterminated quote.
std::vector<std::pair<int, std::vector<std::string>>> parse_csv(const std::string& text,
                                                                const std::string& file);

// GPU overrides: CSV with columns id,gpu,reason; returns id -> gpu.
std::map<std::string, std::string> read_gpu_overrides(const std::string& text,
                                                      const std::string& file);

// Applies the GPU overrides of the file `overrides`, or, when it is empty, of
// FILE.gpu-overrides.csv beside `csv_path` if that exists (the hardware
// corrections a data set's own README documents).
void apply_gpu_overrides(std::vector<ValidationRow>& rows, const std::string& csv_path,
                         const std::string& overrides = "");

}  // namespace scaleout::io
