// libFuzzer target: read_hf_config on the input as a Hugging Face config.json.
// InputError is the expected answer to bad input; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)scaleout::io::read_hf_config(text, "fuzz/config.json");
  } catch (const scaleout::InputError&) {
  }
  return 0;
}
