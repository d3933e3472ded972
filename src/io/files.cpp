#include "io/files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace scaleout::io {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path, 0, "", "is a directory, expected a file");
  }
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw InputError(path, 0, "", "is not a regular file (a device, FIFO or socket)",
                     "give the path of a text file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file", "check the path and permissions");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace scaleout::io
