// libFuzzer target: read_catalog on the input (YAML/JSON) into a copy of the
// built-in catalog. InputError is the expected answer to bad input; anything
// else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  scaleout::Catalog catalog = scaleout::io::builtin_catalog();
  try {
    scaleout::io::read_catalog(text, "fuzz.yaml", catalog);
  } catch (const scaleout::InputError&) {
  }
  return 0;
}
