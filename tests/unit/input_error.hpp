// One way for the unit tests to check that bad input is refused with an
// InputError (instead of each file repeating try / FAIL / catch).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace scaleout {

// The InputError `f` throws; records a test failure (and returns nullopt)
// when `f` returns normally.
template <typename F>
std::optional<InputError> input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "the input was accepted; an InputError was expected";
  return std::nullopt;
}

// `f` throws an InputError whose message contains every one of `parts`.
template <typename F>
void expect_input_error(F&& f, std::initializer_list<std::string_view> parts) {
  const std::optional<InputError> e = input_error_of(f);
  if (!e) return;
  const std::string what = e->what();
  for (std::string_view part : parts) {
    EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
  }
}

}  // namespace scaleout
