// Every text output of the golden transcripts (tests/golden/*.out whose
// command asks for no --format json, csv or html) fits 80 columns: the
// reports a user reads in a terminal. Diagnostics ("scaleout: FILE:LINE:
// ...", on standard error) are left whole: they carry file paths and are read
// by editors and scripts as one line each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace scaleout {
namespace {

constexpr std::size_t kColumns = 80;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool text_format(const std::string& command) {
  for (const char* f : {"--format json", "--format csv", "--format html"}) {
    if (command.find(f) != std::string::npos) return false;
  }
  return true;
}

TEST(GoldenWidth, EveryTextOutputFits80Columns) {
  const std::filesystem::path dir = std::filesystem::path(SCALEOUT_SOURCE_DIR) / "tests/golden";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".out") continue;
    const std::string text = read(entry.path());
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);  // "$ scaleout ARGS": the command, not its output
    if (!text_format(line)) continue;
    ++checked;
    int number = 1;
    while (std::getline(lines, line)) {
      ++number;
      if (line.rfind("scaleout: ", 0) == 0) continue;
      EXPECT_LE(line.size(), kColumns)
          << entry.path().filename().string() << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(checked, 20);  // the text goldens were found
}

}  // namespace
}  // namespace scaleout
