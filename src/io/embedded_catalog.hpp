// The built-in catalog (data/catalog/*.json) compiled into the binary: at
// build time tools/embed_catalog.cpp reads the JSON files with the catalog
// reader and writes the source of add_embedded_catalog, which adds every
// entry as code (no JSON is parsed at start-up; docs/input-format.md).
#pragma once

#include "hw/catalog.hpp"

namespace scaleout::io {

// Adds every entry of the built-in catalog to `into`.
void add_embedded_catalog(Catalog& into);

}  // namespace scaleout::io
