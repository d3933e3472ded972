// Reading input files and writing output files at the edge of the program.
#pragma once

#include <string>

namespace scaleout::io {

// Reads a whole file; throws InputError when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace scaleout::io
