// libFuzzer target: read_workload on the input as workload YAML text, with
// the built-in catalog. InputError is the expected answer to bad input; any
// other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/workload_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const scaleout::Catalog& catalog = scaleout::io::builtin_catalog();
  // `model: config.json` resolves in fuzz/cli-files (SCALEOUT_FUZZ_HF_DIR).
  for (const bool check_layout : {true, false}) {
    try {
      (void)scaleout::io::read_workload(text, "fuzz.yaml", SCALEOUT_FUZZ_HF_DIR, catalog,
                                        check_layout);
    } catch (const scaleout::InputError&) {
    }
  }
  return 0;
}
