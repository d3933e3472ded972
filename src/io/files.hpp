// Reading input files and writing output files at the edge of the program.
//
// Every input file goes through read_text_file, which refuses files larger
// than kMaxInputBytes and records the path in the run's input registry. The
// CLI clears the registry at the start of each run and refuses any output
// path that is one of the run's inputs (the same file by path, symbolic link
// or hard link), so a report never replaces its own workload. Output files are
// written atomically: a temporary file in the target's folder, flushed,
// fsync'ed and renamed over the target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scaleout::io {

// The largest input file read_text_file accepts: 8 MiB. yaml-cpp holds about
// 85 bytes per byte of a parsed file (a 4.3 MB jobs file of 10^5 entries
// peaks at 361 MB), so this bounds one read at well under 1 GB; the largest
// real inputs (catalogs, validation CSVs) are a few hundred KB.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{8} << 20;

// Reads a whole file and records it as an input of the run; throws InputError
// when it cannot be read, is not a regular file or is larger than
// kMaxInputBytes.
std::string read_text_file(const std::string& path);

// The run's input registry (thread-safe). clear_inputs() empties it;
// note_input() records a path without reading it (an input that may be read
// later, e.g. the default <csv>.gpu-overrides.csv beside a validation CSV).
void clear_inputs();
void note_input(const std::string& path);

// The recorded input that `path` names (the same resolved path, or the same
// device and inode), as it was recorded; empty when it names none.
std::optional<std::string> input_named_by(const std::string& path);

// Throws InputError when `path` is one of the run's inputs. `what` names the
// output in the message, e.g. "-o" or "--emit".
void refuse_input_as_output(const std::string& path, const std::string& what);

// Writes `text` into `path` atomically: a temporary file in the same folder,
// written, flushed and fsync'ed, then renamed over `path` (a symbolic link is
// followed: its target is replaced). An existing target keeps its permission
// bits; a new file gets 0666 less the umask. `executable` adds an execute bit
// for each read bit. On any error the temporary file is removed, the target
// is left as it was, and an InputError naming `path` is thrown.
void write_file_atomic(const std::string& path, const std::string& text, bool executable = false);

// One file of a set written all-or-nothing.
struct OutputFile {
  std::string path;
  std::string text;
  bool executable = false;
};

// Writes every file to its temporary first, then renames them all. On a
// failure it removes the temporaries and the files this call created, and
// throws InputError; files it had already replaced keep their new content
// (only possible when the caller allowed replacing, e.g. --emit --force).
void write_files_atomic(const std::vector<OutputFile>& files);

}  // namespace scaleout::io
