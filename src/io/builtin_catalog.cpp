#include "io/catalog_reader.hpp"
#include "io/embedded_catalog.hpp"

namespace scaleout::io {

const Catalog& builtin_catalog() {
  static const Catalog catalog = [] {
    Catalog c;
    add_embedded_catalog(c);
    return c;
  }();
  return catalog;
}

}  // namespace scaleout::io
