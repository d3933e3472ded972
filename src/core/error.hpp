// One error path for user input: every bad input becomes an InputError that
// names the file, the line, the key, what is wrong and, where possible, a
// suggestion. The CLI prints it and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace scaleout {

// what() reads "file:line: key: message (hint)", the empty parts left out.
struct InputError : std::runtime_error {
  InputError(std::string file, int line, std::string key, std::string message,
             std::string hint = {});

  std::string file;     // path as the user gave it; empty for command-line input
  int line = 0;         // 1-based; 0 when unknown
  std::string key;      // dotted key path, e.g. "layout.tp"; may be empty
  std::string message;  // what is wrong
  std::string hint;     // a suggestion, e.g. "did you mean 'seq_len'?"
};


}  // namespace scaleout
