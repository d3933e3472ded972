// Reads a workload YAML file into a Workload, strictly (docs/input-format.md):
// unknown keys, wrong types, out-of-range values and illegal layouts are
// InputErrors naming the file, line and key, with a suggestion.
#pragma once

#include <string>

#include "hw/catalog.hpp"
#include "workload/workload.hpp"

namespace scaleout::io {

struct WorkloadFile {
  Workload workload;
  bool has_cluster = false;  // `cluster:` given
  bool has_layout = false;   // `layout:` given
};

// `dir` resolves relative paths (a Hugging Face config.json named by `model:`).
WorkloadFile read_workload(const std::string& text, const std::string& file, const std::string& dir,
                           const Catalog& catalog);

// Reads a whole file; throws InputError when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace scaleout::io
