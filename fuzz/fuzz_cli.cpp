// libFuzzer target: the whole command line. The input is split into at most
// kMaxWords argv words at NUL or newline bytes, "scaleout" is put in front,
// and run_cli runs with string streams. Exit code 0 or 2 is expected; 1 (an
// internal error: an exception other than InputError), a crash or a
// sanitizer report is a bug.
//
// Files: the target works in a private copy of fuzz/cli-files
// (SCALEOUT_FUZZ_CLI_DIR; fuzz_util.hpp's scratch folder, removed at exit),
// whose small workloads, catalog and CSVs keep every command quick; -o and
// --emit write there, never into the source tree. An input with a
// word naming an existing path outside that folder (/dev/zero, a FIFO, a big
// file, ../..) is skipped, so no run reads arbitrary files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "fuzz_util.hpp"

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxWords = 8;

fs::path& sandbox() {
  static fs::path dir;
  return dir;
}

// False when `word` names an existing path that is not a regular file or
// folder inside the sandbox.
bool allowed(const std::string& word) {
  if (word.empty()) return true;
  std::error_code ec;
  const fs::path p(word);
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) {
    // Not there (or not reachable): CLI11 rejects it without opening it. A
    // dangling link or an unreadable parent folder is left out to be safe.
    return !fs::is_symlink(fs::symlink_status(p, ec));
  }
  if (!fs::is_regular_file(st) && !fs::is_directory(st)) return false;
  const fs::path canon = fs::weakly_canonical(p, ec);
  if (ec) return false;
  const auto [end, unused] =
      std::mismatch(sandbox().begin(), sandbox().end(), canon.begin(), canon.end());
  (void)unused;
  return end == sandbox().end();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::error_code ec;
  const fs::path& dir = scaleout::fuzz::scratch_dir();
  fs::copy(SCALEOUT_FUZZ_CLI_DIR, dir,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (!ec) sandbox() = fs::canonical(dir, ec);
  if (ec || chdir(sandbox().c_str()) != 0) {
    std::fprintf(stderr, "fuzz_cli: cannot enter %s\n", SCALEOUT_FUZZ_CLI_DIR);
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words = {"scaleout"};
  std::string word;
  for (size_t i = 0; i <= size && words.size() <= kMaxWords; ++i) {
    if (i == size || data[i] == '\0' || data[i] == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(data[i]);
    }
  }
  for (const std::string& w : words) {
    if (!allowed(w)) return 0;
    // --catalog=FILE and --gpu-overrides=FILE name a file after the '='.
    const size_t eq = w.find('=');
    if (w.rfind("-", 0) == 0 && eq != std::string::npos && !allowed(w.substr(eq + 1))) return 0;
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  std::ostringstream out, err;
  const int rc = scaleout::run_cli(static_cast<int>(words.size()), argv.data(), out, err);
  if (rc == 1 || (rc != 0 && rc != 2) || (rc == 2 && (!out.str().empty() || err.str().empty()))) {
    std::fprintf(stderr, "fuzz_cli: exit code %d\nstdout:\n%s\nstderr:\n%s\n", rc,
                 out.str().c_str(), err.str().c_str());
    std::abort();
  }
  return 0;
}
