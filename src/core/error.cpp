#include "core/error.hpp"

namespace scaleout {

namespace {
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

InputError::InputError(std::string file_, int line_, std::string key_, std::string message_,
                       std::string hint_)
    : std::runtime_error(compose(file_, line_, key_, message_, hint_)),
      file(std::move(file_)),
      line(line_),
      key(std::move(key_)),
      message(std::move(message_)),
      hint(std::move(hint_)) {}


}  // namespace scaleout
