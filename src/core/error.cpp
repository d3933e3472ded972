#include "core/error.hpp"

#include <fmt/format.h>

namespace scaleout {

namespace {

// Length of the well-formed UTF-8 character at s[i] that may be shown, or 0
// (a stray byte, an overlong form, a surrogate, a C1 control or a
// bidirectional override, which can reorder what a terminal shows).
std::size_t shown_utf8(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  unsigned int cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1fU;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0fU;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07U;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0U) != 0x80U) return 0;
    cp = (cp << 6U) | (b(k) & 0x3fU);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
  const bool c1 = cp >= 0x80 && cp <= 0x9f;
  const bool bidi = (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
                    cp == 0x2028 || cp == 0x2029;
  if (overlong || surrogate || c1 || bidi || cp > 0x10ffff) return 0;
  return n;
}

std::string compose(const std::string& file, int line, const std::string& key,
                    const std::string& message, const std::string& hint) {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
  }
  if (!key.empty()) out += key + ": ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

}  // namespace

std::string error_text(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t take = 1;
    std::string piece;
    if (c >= 0x20 && c < 0x7f) {
      piece.assign(1, static_cast<char>(c));
    } else if (const std::size_t n = c >= 0x80 ? shown_utf8(text, i) : 0; n > 0) {
      take = n;
      piece.assign(text.substr(i, n));
    } else {
      piece = fmt::format("\\x{:02x}", c);
    }
    if (out.size() + piece.size() > max) break;
    out += piece;
    i += take;
  }
  if (i < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

InputError::InputError(std::string file_, int line_, std::string key_, std::string message_,
                       std::string hint_)
    : std::runtime_error(
          compose(error_text(file_, kMaxErrorFile), line_, error_text(key_, kMaxErrorKey),
                  error_text(message_, kMaxErrorMessage), error_text(hint_, kMaxErrorHint))),
      file(error_text(file_, kMaxErrorFile)),
      line(line_),
      key(error_text(key_, kMaxErrorKey)),
      message(error_text(message_, kMaxErrorMessage)),
      hint(error_text(hint_, kMaxErrorHint)) {}

}  // namespace scaleout
