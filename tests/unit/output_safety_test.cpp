// Tests of issue 23's output safety in io/files: the input registry that
// keeps outputs off the run's inputs (by path, symbolic link, hard link), the
// input size cap, and atomic, all-or-nothing writes that keep permission bits
// and leave the old target untouched on failure.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/files.hpp"

namespace scaleout::io {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "scaleout_output_safety" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

long entries(const fs::path& dir) {
  return std::distance(fs::directory_iterator(dir), fs::directory_iterator());
}

TEST(InputRegistry, ReadFilesAreFoundByAnyNameOfTheSameFile) {
  const fs::path dir = fresh_dir("registry");
  put(dir / "w.yaml", "model: x\n");
  put(dir / "other.yaml", "model: y\n");
  fs::create_symlink(dir / "w.yaml", dir / "link.yaml");
  fs::create_hard_link(dir / "w.yaml", dir / "hard.yaml");
  clear_inputs();
  EXPECT_EQ(read_text_file((dir / "w.yaml").string()), "model: x\n");
  const std::string given = (dir / "w.yaml").string();
  EXPECT_EQ(input_named_by(given), given);
  EXPECT_EQ(input_named_by((dir / "." / "w.yaml").string()), given);
  EXPECT_EQ(input_named_by((dir / "sub" / ".." / "w.yaml").string()), given);
  EXPECT_EQ(input_named_by((dir / "link.yaml").string()), given);
  EXPECT_EQ(input_named_by((dir / "hard.yaml").string()), given);
  EXPECT_EQ(input_named_by((dir / "other.yaml").string()), std::nullopt);
  EXPECT_EQ(input_named_by((dir / "new.txt").string()), std::nullopt);
  EXPECT_THROW(refuse_input_as_output((dir / "hard.yaml").string(), "-o"), InputError);
  EXPECT_NO_THROW(refuse_input_as_output((dir / "other.yaml").string(), "-o"));
  // A path noted without being read (it may not exist yet).
  note_input((dir / "absent.csv").string());
  EXPECT_EQ(input_named_by((dir / "absent.csv").string()), (dir / "absent.csv").string());
  clear_inputs();
  EXPECT_EQ(input_named_by(given), std::nullopt);
}

TEST(InputRegistry, RefusalNamesTheInput) {
  const fs::path dir = fresh_dir("refusal");
  put(dir / "w.yaml", "x");
  fs::create_hard_link(dir / "w.yaml", dir / "h.yaml");
  clear_inputs();
  read_text_file((dir / "w.yaml").string());
  if (const auto e =
          input_error_of([&] { refuse_input_as_output((dir / "h.yaml").string(), "-o"); })) {
    EXPECT_EQ(e->file, (dir / "h.yaml").string());
    EXPECT_EQ(e->message, "-o: refusing to write over a file this run reads (the same file as " +
                              (dir / "w.yaml").string() + ")");
  }
  clear_inputs();
}

TEST(ReadTextFile, RefusesFilesOverTheCap) {
  // A sparse file one byte over 8 MiB: refused before it is read.
  const fs::path dir = fresh_dir("cap");
  put(dir / "big.yaml", "");
  fs::resize_file(dir / "big.yaml", kMaxInputBytes + 1);
  if (const auto e = input_error_of([&] { read_text_file((dir / "big.yaml").string()); })) {
    EXPECT_EQ(e->message,
              "the file is too large (8388609 bytes; inputs are limited to 8 MiB, 8388608 "
              "bytes)");
  }
  // Exactly at the cap is read (8 MiB = 8,388,608 bytes).
  fs::resize_file(dir / "big.yaml", kMaxInputBytes);
  EXPECT_EQ(read_text_file((dir / "big.yaml").string()).size(), kMaxInputBytes);
  fs::remove(dir / "big.yaml");
}

TEST(ReadTextFile, RefusesDevicesAndFolders) {
  EXPECT_THROW(read_text_file("/dev/zero"), InputError);
  EXPECT_THROW(read_text_file(testing::TempDir()), InputError);
}

TEST(WriteFileAtomic, ReplacesKeepingTheModeAndLeavesNoTemporary) {
  const fs::path dir = fresh_dir("replace");
  put(dir / "r.txt", "old");
  fs::permissions(dir / "r.txt", fs::perms(0640));
  write_file_atomic((dir / "r.txt").string(), "new text");
  EXPECT_EQ(slurp(dir / "r.txt"), "new text");
  EXPECT_EQ(fs::status(dir / "r.txt").permissions(), fs::perms(0640));
  EXPECT_EQ(entries(dir), 1);
}

TEST(WriteFileAtomic, ExecutableAddsAnExecuteBitPerReadBit) {
  const fs::path dir = fresh_dir("exec");
  put(dir / "run.sh", "old");
  fs::permissions(dir / "run.sh", fs::perms(0640));
  write_file_atomic((dir / "run.sh").string(), "#!/bin/sh\n", true);
  EXPECT_EQ(fs::status(dir / "run.sh").permissions(), fs::perms(0750));
}

TEST(WriteFileAtomic, FollowsASymbolicLink) {
  const fs::path dir = fresh_dir("symlink");
  put(dir / "target.txt", "old");
  fs::create_symlink(dir / "target.txt", dir / "link.txt");
  write_file_atomic((dir / "link.txt").string(), "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "target.txt"), "new");
}

TEST(WriteFileAtomic, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  // A file size limit makes write() fail part-way (EFBIG), like a full disk.
  const fs::path dir = fresh_dir("failed-write");
  put(dir / "r.txt", "the previous report");
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    write_file_atomic((dir / "r.txt").string(), std::string(5000, 'x'));
  } catch (const InputError& e) {
    threw = true;
    EXPECT_EQ(e.message, "cannot write the file: File too large");
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(slurp(dir / "r.txt"), "the previous report");
  EXPECT_EQ(entries(dir), 1);
}

TEST(WriteFilesAtomic, AllOrNothing) {
  // The second file's folder is missing: the first is not written either.
  const fs::path dir = fresh_dir("all-or-nothing");
  put(dir / "a.txt", "old a");
  EXPECT_THROW(write_files_atomic({{(dir / "a.txt").string(), "new a", false},
                                   {(dir / "b.txt").string(), "new b", false},
                                   {(dir / "missing" / "c.txt").string(), "c", false}}),
               InputError);
  EXPECT_EQ(slurp(dir / "a.txt"), "old a");
  EXPECT_FALSE(fs::exists(dir / "b.txt"));
  EXPECT_EQ(entries(dir), 1);
  // A folder as a target is refused the same way.
  fs::create_directory(dir / "d");
  EXPECT_THROW(write_files_atomic({{(dir / "b.txt").string(), "new b", false},
                                   {(dir / "d").string(), "x", false}}),
               InputError);
  EXPECT_FALSE(fs::exists(dir / "b.txt"));
  write_files_atomic(
      {{(dir / "a.txt").string(), "new a", false}, {(dir / "b.txt").string(), "new b", false}});
  EXPECT_EQ(slurp(dir / "a.txt"), "new a");
  EXPECT_EQ(slurp(dir / "b.txt"), "new b");
  EXPECT_EQ(entries(dir), 3);  // a.txt, b.txt and the folder d
}

}  // namespace
}  // namespace scaleout::io
