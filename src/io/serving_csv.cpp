#include "io/serving_csv.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
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
    auto number = [&](size_t c, double min, double max, bool optional = false) {
      if (f[c].empty() && optional) return 0.0;
      char* end = nullptr;
      const double v = std::strtod(f[c].c_str(), &end);
      if (f[c].empty() || *end != '\0' || !std::isfinite(v) || v < min || v > max) {
        throw InputError(
            file, line, columns[c],
            fmt::format("expected a number from {:g} to {:g}, got '{}'", min, max, f[c]));
      }
      return v;
    };
    auto choice = [&](size_t c, std::vector<std::string> allowed) {
      for (const std::string& a : allowed) {
        if (f[c] == a) return f[c];
      }
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(file, line, columns[c], fmt::format("unknown value '{}'", f[c]),
                       "one of " + list);
    };
    ServingRow r;
    r.line = line;
    r.id = f[0];
    r.source = f[1];
    r.model = f[2];
    r.server = f[3];
    if (!catalog.find_model(r.model)) {
      throw InputError(file, line, "model", fmt::format("unknown model '{}'", r.model),
                       suggestion(r.model, catalog.model_ids()));
    }
    if (!catalog.find_server(r.server)) {
      throw InputError(file, line, "server", fmt::format("unknown server '{}'", r.server),
                       suggestion(r.server, catalog.server_ids()));
    }
    r.weights = choice(4, {"bf16", "fp8", "int8", "int4"});
    r.kv_cache = choice(5, {"bf16", "fp16", "fp8"});
    r.tp = static_cast<int>(number(6, 1, 1024));
    r.pp = static_cast<int>(number(7, 1, 1024));
    r.prompt_tokens = static_cast<long long>(number(8, 1, 1e7));
    r.output_tokens = static_cast<long long>(number(9, 1, 1e7));
    r.concurrency = static_cast<int>(number(10, 1, 1e6, true));
    r.max_batch = static_cast<int>(number(11, 1, 1e6));
    r.metric = choice(12, {"output_tokens_per_s", "ttft_s", "tpot_s"});
    r.measured = number(13, 1e-12, 1e15);
    out.push_back(r);
  }
  return out;
}

}  // namespace scaleout::io
