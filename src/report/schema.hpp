// The version of every JSON document scaleout writes (plan, estimate,
// simulate, validate, catalog, calibrate): its top-level `schema_version`.
// Raised when a key is removed, renamed or changes meaning (adding a key does
// not raise it); docs/input-format.md, "JSON output".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scaleout::report {

inline constexpr int kJsonSchemaVersion = 1;

// `body` with `schema_version` as its first key; a list becomes the value of
// `list_key` beside it.
inline nlohmann::ordered_json versioned(const nlohmann::ordered_json& body,
                                        const std::string& list_key = "items") {
  nlohmann::ordered_json out;
  out["schema_version"] = kJsonSchemaVersion;
  if (!body.is_object()) {
    out[list_key] = body;
    return out;
  }
  for (const auto& [key, value] : body.items()) out[key] = value;
  return out;
}

}  // namespace scaleout::report
