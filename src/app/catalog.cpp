// `catalog KIND`: the catalog's entries of one kind with key figures and source.
#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "report/report.hpp"

namespace scaleout::app {

Output run_catalog(const Options& o) {
  const Catalog catalog = load_catalog(o);
  return {o.format == Format::json ? report::catalog_json(catalog, o.kind)
                                   : report::catalog_text(catalog, o.kind)};
}

}  // namespace scaleout::app
