// Every JSON document scaleout writes carries `schema_version` as its first
// key (report/schema.hpp; docs/input-format.md, "JSON output"): each JSON
// golden transcript, and the commands without one.
#include "report/schema.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.hpp"

namespace scaleout {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The JSON document at the start of `text` (a transcript may go on with notes).
nlohmann::ordered_json leading_json(const std::string& text) {
  const auto end = text.find("\n}\n");
  return nlohmann::ordered_json::parse(
      text.substr(0, end == std::string::npos ? text.size() : end + 2));
}

void expect_versioned(const nlohmann::ordered_json& j, const std::string& what) {
  ASSERT_TRUE(j.is_object()) << what;
  ASSERT_FALSE(j.empty()) << what;
  EXPECT_EQ(j.begin().key(), "schema_version") << what;
  EXPECT_EQ(j.at("schema_version"), report::kJsonSchemaVersion) << what;
}

TEST(JsonSchema, EveryJsonGoldenCarriesTheVersion) {
  const std::filesystem::path dir = std::filesystem::path(SCALEOUT_SOURCE_DIR) / "tests/golden";
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".cmd") continue;
    if (slurp(e.path()).find("--format json") == std::string::npos) continue;
    auto out = e.path();
    out.replace_extension(".out");
    std::string text = slurp(out);
    if (text.rfind("$ ", 0) == 0) text.erase(0, text.find('\n') + 1);  // the command line
    if (text.rfind("{", 0) != 0) continue;                             // an error transcript
    expect_versioned(leading_json(text), out.filename().string());
    ++seen;
  }
  EXPECT_GE(seen, 5);
}

std::string run(std::vector<std::string> args) {
  args.insert(args.begin(), "scaleout");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  EXPECT_EQ(run_cli(static_cast<int>(args.size()), argv.data(), out, err), 0) << err.str();
  return out.str();
}

TEST(JsonSchema, CatalogAndValidate) {
  for (const char* kind : {"gpus", "servers", "fabrics", "models", "prices", "economics"}) {
    expect_versioned(nlohmann::ordered_json::parse(run({"catalog", kind, "--format", "json"})),
                     kind);
  }
  const std::string data = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/";
  expect_versioned(leading_json(run({"validate", data + "vtrain-multi.csv", "--format", "json"})),
                   "validate training");
  expect_versioned(leading_json(run({"validate", data + "inference.csv", "--format", "json"})),
                   "validate serving");
}

}  // namespace
}  // namespace scaleout
