// Reads the serving validation CSV (data/validation/inference.md): RFC 4180,
// one header line, the 15 columns in order. Bad cells are InputErrors with
// file, line and column name.
#pragma once

#include <string>
#include <vector>

#include "hw/catalog.hpp"
#include "validation/serving_validation.hpp"

namespace scaleout::io {

// The header line that marks a serving validation file.
inline constexpr const char* kServingCsvHeader =
    "id,source,model,server,weights,kv_cache,tp,pp,prompt_tokens,output_tokens,concurrency,"
    "max_batch,metric,measured,reference";

bool is_serving_csv(const std::string& text);

// Model and server ids must be in the catalog.
std::vector<ServingRow> read_serving_csv(const std::string& text, const std::string& file,
                                         const Catalog& catalog);

}  // namespace scaleout::io
