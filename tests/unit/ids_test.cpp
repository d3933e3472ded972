// Ids are names: the character set, the length cap and the messages.
#include "core/ids.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "input_error.hpp"

namespace scaleout {
namespace {

TEST(Ids, CatalogStyleIdsAreValid) {
  for (const char* id : {"dgx-h100", "h100-sxm", "llama3.1-405b", "ib-ndr",
                         "meta-llama/Llama-3.1-8B", "a", "gpt_3+moe"}) {
    EXPECT_TRUE(is_valid_id(id)) << id;
  }
}

TEST(Ids, NewlinesQuotesAndShellCharactersAreRefused) {
  for (const char* id : {"", "-rf", ".hidden", "x\ny", "x\rz", "a b", "a;b", "a$b", "a`b", "a'b",
                         "a\"b", "a\\b", "a#b", "a:b", "a{b", "a\tb", "caf\xc3\xa9"}) {
    EXPECT_FALSE(is_valid_id(id)) << id;
  }
  EXPECT_TRUE(is_valid_id(std::string(kMaxIdLength, 'a')));
  EXPECT_FALSE(is_valid_id(std::string(kMaxIdLength + 1, 'a')));
}

TEST(Ids, CheckIdNamesFileLineKeyAndTheCharacter) {
  if (const auto e =
          input_error_of([&] { check_id("llama\n#!/bin/sh rm -rf ~", "w.yaml", 3, "model.id"); })) {
    EXPECT_EQ(e->file, "w.yaml");
    EXPECT_EQ(e->line, 3);
    EXPECT_EQ(e->key, "model.id");
    const std::string what = e->what();
    EXPECT_NE(what.find("'\\x0a' at position 6"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(Ids, LongIdsAreCutInMessages) {
  const std::string huge(10'000'000, 'x');
  if (const auto e = input_error_of([&] { check_id(huge, "c.yaml", 1, "gpus.id"); })) {
    EXPECT_LT(std::string(e->what()).size(), 400u);
    EXPECT_NE(std::string(e->what()).find("(10000000 bytes)"), std::string::npos);
  }
}

TEST(Ids, PrintableEscapesControlBytes) {
  EXPECT_EQ(printable("a\nb\\c"), "a\\x0ab\\\\c");
  EXPECT_EQ(printable("abcdef", 3), "abc... (6 bytes)");
}

}  // namespace
}  // namespace scaleout
