// Reads catalog files (YAML or JSON: the embedded data/catalog/*.json and
// users' --catalog files) into a Catalog, strictly: unknown keys, wrong
// types and out-of-range values are InputErrors with file and line.
#pragma once

#include <string>

#include "hw/catalog.hpp"
#include "io/yaml_fields.hpp"

namespace scaleout::io {

// Adds (or replaces, by id) every entry of the file's `gpus`, `servers`,
// `fabrics` and `models` lists.
void read_catalog(const std::string& text, const std::string& file, Catalog& into);

// The catalog compiled into the binary (data/catalog/*.json).
const Catalog& builtin_catalog();

// A model given as a mapping (catalog entry or a workload's inline `model:`).
// `fields` is consumed but not finished.
ModelShape read_model_fields(Fields& fields, const std::string& default_id);

// Checks a model's sizes against each other (heads divide hidden, kv_heads
// divide heads, ...); throws at the mapping's line.
void check_model(const ModelShape& m, const Fields& fields);

}  // namespace scaleout::io
