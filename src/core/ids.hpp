// What an id may be. Every id a user or a catalog file gives (model, GPU,
// server, fabric, job, catalog entries) is a name: it is written into reports,
// error messages and launch files (shell scripts, YAML, JSON), so it must not
// carry line breaks, quotes, shell metacharacters or control bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scaleout {

// The longest id accepted, in bytes.
inline constexpr std::size_t kMaxIdLength = 128;

// The documented character set, for messages and docs/input-format.md.
inline constexpr const char* kIdCharset =
    "letters, digits and . _ - + / (starting with a letter or digit), at most 128 characters";

// True when `id` is a name: 1..kMaxIdLength bytes of [A-Za-z0-9._+/-], the
// first a letter or a digit.
bool is_valid_id(std::string_view id);

// Throws InputError(file, line, key, ...) naming what is wrong with `id`
// (shown cut and escaped) when it is not a valid id.
void check_id(std::string_view id, const std::string& file, int line, const std::string& key);

// `text` made printable for a one-line message: control bytes and non-ASCII
// bytes as \xNN, cut to `max` bytes with "..." and the full length.
std::string printable(std::string_view text, std::size_t max = 60);

}  // namespace scaleout
