// libFuzzer target: the validation CSV reader and the GPU-overrides reader on
// the input. InputError is the expected answer to bad input; anything else is
// a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
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
  return 0;
}
