#include "core/ids.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace scaleout {

namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool id_char(char c) {
  return alnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '/';
}

}  // namespace

bool is_valid_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdLength || !alnum(id.front())) return false;
  for (char c : id) {
    if (!id_char(c)) return false;
  }
  return true;
}

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && out.size() < max; ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x20 || u >= 0x7f || u == '\\') {
      out += u == '\\' ? std::string("\\\\") : fmt::format("\\x{:02x}", u);
    } else {
      out += static_cast<char>(u);
    }
  }
  if (i < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

void check_id(std::string_view id, const std::string& file, int line, const std::string& key) {
  if (is_valid_id(id)) return;
  std::string what;
  if (id.empty()) {
    what = "an id may not be empty";
  } else if (id.size() > kMaxIdLength) {
    what = fmt::format("id '{}' is longer than {} characters", printable(id), kMaxIdLength);
  } else if (!alnum(id.front())) {
    what = fmt::format("id '{}' must start with a letter or a digit", printable(id));
  } else {
    std::size_t bad = 0;
    while (bad < id.size() && id_char(id[bad])) ++bad;
    what = fmt::format("id '{}' has a character ids may not hold ('{}' at position {})",
                       printable(id), printable(id.substr(bad, 1)), bad + 1);
  }
  throw InputError(file, line, key, what, std::string("ids are names: ") + kIdCharset);
}

}  // namespace scaleout
