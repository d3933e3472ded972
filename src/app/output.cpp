// Where a command's output goes: standard output, -o FILE, the --emit folder.
#include <filesystem>
#include <ostream>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "io/files.hpp"

namespace scaleout::app {

void write_result(const Options& o, const Output& result, std::ostream& out) {
  std::vector<io::OutputFile> files = result.launch_files;
  if (!o.output.empty()) {
    io::refuse_input_as_output(o.output, "-o");
    for (const io::OutputFile& f : files) {
      if (io::input_named_by(f.path)) continue;  // refused above
      std::error_code ec;
      const auto a = std::filesystem::weakly_canonical(std::filesystem::absolute(o.output), ec);
      const auto b = std::filesystem::weakly_canonical(std::filesystem::absolute(f.path), ec);
      if (a == b) {
        throw InputError(o.output, 0, "", "-o: --emit writes this file too",
                         "write the report to another file");
      }
    }
    files.push_back({o.output, result.report, false});
  }
  if (!o.emit.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.emit, ec);
    if (ec || !std::filesystem::is_directory(o.emit)) {
      throw InputError(o.emit, 0, "",
                       "--emit: cannot create the folder" + (ec ? ": " + ec.message() : ""),
                       "give a writable folder");
    }
  }
  io::write_files_atomic(files);
  if (o.output.empty()) out << result.report;
}

}  // namespace scaleout::app
