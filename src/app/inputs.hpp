// Loading shared by the commands (app-internal): the catalog with the file
// each entry came from, prices, and the finite-figure check.
#pragma once

#include <optional>
#include <string>

#include "app/options.hpp"
#include "hw/catalog.hpp"
#include "io/workload_reader.hpp"
#include "report/finite.hpp"

namespace scaleout::app {

// The built-in catalog, then each --catalog file in order. `files` (when
// given) learns which file each GPU, server and fabric last came from.
Catalog load_catalog(const Options& o, report::EntryFiles* files = nullptr);

// Refuses a result with a figure that is not finite or out of its range.
template <typename Result, typename Check>
void require_finite(const Result& r, Check check, const report::EntryFiles& files) {
  if (const std::optional<report::BadFigure> bad = check(r)) report::refuse_bad_figure(*bad, files);
}

// The cloud price per GPU-hour the workload's settings select (0: none in the catalog).
double cloud_price(const Catalog& catalog, const io::RunInput& in, const RunSettings& s,
                   const std::string& gpu_id);

// The purchase price of one server (0: none in the catalog).
double server_price(const Catalog& catalog, const io::RunInput& in, const std::string& server_id);

// The search threads: --threads, else every core.
int thread_count(const Options& o);

}  // namespace scaleout::app
