// One error path for user input: every bad input becomes an InputError that
// names the file, the line, the key, what is wrong and, where possible, a
// suggestion. The CLI prints it and exits with code 2.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scaleout {

// The most bytes each part of an InputError keeps (before "... (N bytes)"),
// so that one message stays on one line and under 1 KB whatever the input.
inline constexpr std::size_t kMaxErrorFile = 160;
inline constexpr std::size_t kMaxErrorKey = 100;
inline constexpr std::size_t kMaxErrorMessage = 360;
inline constexpr std::size_t kMaxErrorHint = 240;

// what() reads "file:line: key: message (hint)", the empty parts left out.
// Each part is stored made one-line and cut (error_text), so a hostile or
// huge value in any of them is never printed in full.
struct InputError : std::runtime_error {
  InputError(std::string file, int line, std::string key, std::string message,
             std::string hint = {});

  std::string file;     // path as the user gave it; empty for command-line input
  int line = 0;         // 1-based; 0 when unknown
  std::string key;      // dotted key path, e.g. "layout.tp"; may be empty
  std::string message;  // what is wrong
  std::string hint;     // a suggestion, e.g. "did you mean 'seq_len'?"
};

// `text` as one printable line: control bytes (line breaks, ESC, ...), C1
// controls, bidirectional overrides and bytes that are not UTF-8 become
// \xNN; cut to at most `max` bytes (never inside a character or an escape)
// with "... (N bytes)" giving the full length. Printable ASCII, backslashes
// included, and well-formed UTF-8 are kept, so text that is already clean
// (such as printable()'s output) comes back unchanged.
std::string error_text(std::string_view text, std::size_t max);

}  // namespace scaleout
