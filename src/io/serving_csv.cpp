#include "io/serving_csv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "io/validation_csv.hpp"

namespace scaleout::io {

bool is_serving_csv(const std::string& text) {
  const std::string header(kServingCsvHeader);
  std::string first = text.substr(0, text.find('\n'));
  if (!first.empty() && first.back() == '\r') first.pop_back();
  return first == header;
}

std::vector<ServingRow> read_serving_csv(const std::string& text, const std::string& file,
                                         const Catalog& catalog) {
  const auto records = parse_csv(text, file);
  if (records.empty() || !is_serving_csv(text)) {
    throw InputError(file, 1, "", "not a serving validation CSV",
                     fmt::format("the first line must be {}", kServingCsvHeader));
  }
  const std::vector<std::string> columns = records.front().second;
  std::vector<ServingRow> out;
  for (size_t i = 1; i < records.size(); ++i) {
    const int line = records[i].first;
    const std::vector<std::string>& f = records[i].second;
    if (f.size() == 1 && f[0].empty()) continue;  // blank line
    if (f.size() != columns.size()) {
      throw InputError(file, line, "",
                       fmt::format("{} fields, expected {}", f.size(), columns.size()));
    }
    // A whole number of plain digits from min to max; empty gives 0 where optional.
    auto whole = [&](size_t c, long long min, long long max, bool optional = false) {
      if (f[c].empty() && optional) return 0LL;
      long long v = -1;
      const bool ok = is_whole(f[c]) &&
                      std::from_chars(f[c].data(), f[c].data() + f[c].size(), v).ec == std::errc();
      if (!ok || v < min || v > max) {
        throw InputError(file, line, columns[c],
                         fmt::format("expected a whole number from {} to {}, got '{}'", min, max,
                                     printable(f[c])),
                         "plain decimal digits");
      }
      return v;
    };
    auto id = [&](size_t c) -> const std::string& {
      check_id(f[c], file, line, columns[c]);
      return f[c];
    };
    auto choice = [&](size_t c, std::vector<std::string> allowed) {
      for (const std::string& a : allowed) {
        if (f[c] == a) return f[c];
      }
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(file, line, columns[c], fmt::format("unknown value '{}'", printable(f[c])),
                       "one of " + list);
    };
    ServingRow r;
    r.line = line;
    r.id = id(0);
    r.source = id(1);
    r.model = id(2);
    r.server = id(3);
    if (!catalog.find_model(r.model)) {
      throw InputError(file, line, "model", fmt::format("unknown model '{}'", r.model),
                       suggestion(r.model, catalog.ids<ModelShape>()));
    }
    if (!catalog.find_server(r.server)) {
      throw InputError(file, line, "server", fmt::format("unknown server '{}'", r.server),
                       suggestion(r.server, catalog.ids<Server>()));
    }
    r.weights = choice(4, {"bf16", "fp8", "int8", "int4"});
    r.kv_cache = choice(5, {"bf16", "fp16", "fp8"});
    r.tp = static_cast<int>(whole(6, 1, 1024));
    r.pp = static_cast<int>(whole(7, 1, 1024));
    r.prompt_tokens = whole(8, 1, 10000000);
    r.output_tokens = whole(9, 1, 10000000);
    r.concurrency = static_cast<int>(whole(10, 1, 1000000, true));
    r.max_batch = static_cast<int>(whole(11, 1, 1000000));
    r.metric = choice(12, {"output_tokens_per_s", "ttft_s", "tpot_s"});
    const double measured = is_decimal(f[13]) ? std::strtod(f[13].c_str(), nullptr) : NAN;
    if (!std::isfinite(measured)) {
      throw InputError(file, line, columns[13],
                       fmt::format("expected a number, got '{}'", printable(f[13])),
                       "plain decimal digits, e.g. 3.5 or 1e-3 (no '+', hex, inf or nan)");
    }
    check_measured(r.metric, measured, f[13], file, line, columns[13]);
    r.measured = measured;
    out.push_back(r);
  }
  return out;
}

}  // namespace scaleout::io
