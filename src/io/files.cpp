#include "io/files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "core/error.hpp"
#include "core/ids.hpp"

namespace scaleout::io {

namespace fs = std::filesystem;

namespace {

// One recorded input: the path as given, its resolved absolute path and,
// when it exists, its device and inode (hard links share them).
struct InputEntry {
  std::string given;
  std::string resolved;
  bool has_inode = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

InputEntry entry_of(const std::string& path) {
  InputEntry e;
  e.given = path;
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = fs::path(path);
  const fs::path resolved = fs::weakly_canonical(abs, ec);
  e.resolved = ec ? abs.lexically_normal().string() : resolved.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    e.has_inode = true;
    e.dev = st.st_dev;
    e.ino = st.st_ino;
  }
  return e;
}

bool same_file(const InputEntry& a, const InputEntry& b) {
  if (a.resolved == b.resolved) return true;
  return a.has_inode && b.has_inode && a.dev == b.dev && a.ino == b.ino;
}

std::mutex registry_mu;
std::vector<InputEntry>& registry() {
  static std::vector<InputEntry> entries;
  return entries;
}

// The error of a failed read of `path`.
[[noreturn]] void too_large(const std::string& path, std::uintmax_t bytes) {
  throw InputError(path, 0, "",
                   fmt::format("the file is too large ({} bytes; inputs are limited to 8 MiB, "
                               "{} bytes)",
                               bytes, kMaxInputBytes),
                   "give a smaller file");
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(path, 0, "", "is a directory, expected a file");
  }
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    throw InputError(path, 0, "", "is not a regular file (a device, FIFO or socket)",
                     "give the path of a text file");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputBytes) too_large(path, size);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file", "check the path and permissions");
  note_input(path);
  // Read at most one byte past the cap: a file that grows while it is read
  // is refused too.
  std::string text;
  text.reserve(ec ? 0 : static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes) too_large(path, text.size());
  }
  if (in.bad()) throw InputError(path, 0, "", "cannot read file", "check the path and permissions");
  return text;
}

void clear_inputs() {
  std::lock_guard<std::mutex> lock(registry_mu);
  registry().clear();
}

void note_input(const std::string& path) {
  InputEntry e = entry_of(path);
  std::lock_guard<std::mutex> lock(registry_mu);
  registry().push_back(std::move(e));
}

std::optional<std::string> input_named_by(const std::string& path) {
  const InputEntry out = entry_of(path);
  std::lock_guard<std::mutex> lock(registry_mu);
  for (const InputEntry& in : registry()) {
    if (same_file(in, out)) return in.given;
  }
  return std::nullopt;
}

void refuse_input_as_output(const std::string& path, const std::string& what) {
  const std::optional<std::string> input = input_named_by(path);
  if (!input) return;
  const std::string as = *input == path
                             ? std::string()
                             : fmt::format(" (the same file as {})", printable(*input, 1024));
  throw InputError(path, 0, "",
                   fmt::format("{}: refusing to write over a file this run reads{}", what, as),
                   "write the output to another file or folder");
}

namespace {

// One file of write_files_atomic on its way to its target.
struct Pending {
  std::string given;  // the path as the caller gave it, for messages
  fs::path target;    // where it goes (a symbolic link's target)
  fs::path temp;      // the written temporary; empty once renamed or removed
  fs::path backup;    // a hard link to the replaced file; empty when none
  bool existed = false;
  bool renamed = false;
};

[[noreturn]] void write_error(const std::string& path, const std::string& problem) {
  throw InputError(path, 0, "", "cannot write the file: " + problem,
                   "give a file path in a writable folder with free space");
}

// A fresh name beside `target` ("." + name + suffix + a unique number).
fs::path beside(const fs::path& target, const char* suffix) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() /
         fmt::format(".{}.{}-{}-{}", target.filename().string(), suffix, ::getpid(), counter++);
}

bool write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

// Writes the temporary of `f` into p.temp: the text, the permission bits,
// fsync. Throws (after removing the temporary) on failure.
void write_temp(const OutputFile& f, Pending& p) {
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    p.temp = beside(p.target, "tmp");
    fd = ::open(p.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const std::string problem = std::strerror(errno);
    p.temp.clear();
    write_error(p.given, problem);
  }
  struct stat st {};
  int err = 0;
  if ((p.existed ? ::stat(p.target.c_str(), &st) : ::fstat(fd, &st)) != 0) err = errno;
  if (err == 0) {
    auto mode = static_cast<mode_t>(st.st_mode & 07777);
    if (f.executable) mode |= static_cast<mode_t>((mode & 0444) >> 2);
    if (::fchmod(fd, mode) != 0 || !write_all(fd, f.text) || ::fsync(fd) != 0) err = errno;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(p.temp.c_str());
    p.temp.clear();
    write_error(p.given, std::strerror(err));
  }
}

// Best effort: makes the renames in `folder` durable.
void sync_folder(const fs::path& folder) {
  const std::string name = folder.empty() ? std::string(".") : folder.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Undoes what write_files_atomic did so far.
void roll_back(std::vector<Pending>& pending) {
  for (Pending& p : pending) {
    if (!p.temp.empty()) ::unlink(p.temp.c_str());
    if (p.renamed && !p.existed) ::unlink(p.target.c_str());
    if (p.renamed && !p.backup.empty()) ::rename(p.backup.c_str(), p.target.c_str());
    if (!p.renamed && !p.backup.empty()) ::unlink(p.backup.c_str());
  }
}

}  // namespace

void write_files_atomic(const std::vector<OutputFile>& files) {
  std::vector<Pending> pending;
  pending.reserve(files.size());
  for (const OutputFile& f : files) {
    Pending p;
    p.given = f.path;
    std::error_code ec;
    p.target = fs::path(f.path);
    if (fs::is_symlink(p.target, ec)) {
      const fs::path resolved = fs::weakly_canonical(p.target, ec);
      if (!ec) p.target = resolved;
    }
    const fs::path folder = p.target.parent_path().empty() ? fs::path(".") : p.target.parent_path();
    if (fs::is_directory(p.target, ec)) {
      roll_back(pending);
      write_error(f.path, "this is a folder");
    }
    if (!fs::is_directory(folder, ec)) {
      roll_back(pending);
      write_error(f.path, "the folder " + printable(folder.string(), 1024) + " does not exist");
    }
    p.existed = fs::exists(p.target, ec);
    pending.push_back(std::move(p));
    try {
      write_temp(f, pending.back());
    } catch (...) {
      roll_back(pending);
      throw;
    }
  }
  // Every temporary is written: keep a hard link to each file about to be
  // replaced, so that a failed rename can put it back, then rename.
  for (Pending& p : pending) {
    if (!p.existed) continue;
    const fs::path backup = beside(p.target, "old");
    if (::link(p.target.c_str(), backup.c_str()) == 0) p.backup = backup;
  }
  for (Pending& p : pending) {
    if (::rename(p.temp.c_str(), p.target.c_str()) != 0) {
      const std::string problem = std::strerror(errno);
      roll_back(pending);
      write_error(p.given, problem);
    }
    p.temp.clear();
    p.renamed = true;
  }
  for (Pending& p : pending) {
    if (!p.backup.empty()) ::unlink(p.backup.c_str());
    sync_folder(p.target.parent_path());
  }
}

void write_file_atomic(const std::string& path, const std::string& text, bool executable) {
  write_files_atomic({OutputFile{path, text, executable}});
}

}  // namespace scaleout::io
