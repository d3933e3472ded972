// libFuzzer target: the validation CSV reader, the GPU-overrides reader and
// the serving validation CSV reader (with the predictions of its rows) on the
// input. InputError is the expected answer to bad input; anything else is
// a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/serving_csv.hpp"
#include "io/validation_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)scaleout::io::read_validation_csv(text, "fuzz.csv");
  } catch (const scaleout::InputError&) {
  }
  try {
    (void)scaleout::io::read_gpu_overrides(text, "fuzz.gpu-overrides.csv");
  } catch (const scaleout::InputError&) {
  }
  try {
    const scaleout::Catalog& catalog = scaleout::io::builtin_catalog();
    (void)scaleout::validate_serving_rows(scaleout::io::read_serving_csv(text, "fuzz.csv", catalog),
                                          catalog);
  } catch (const scaleout::InputError&) {
  }
  return 0;
}
