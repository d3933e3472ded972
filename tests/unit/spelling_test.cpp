#include "core/spelling.hpp"

#include <gtest/gtest.h>

namespace scaleout {
namespace {

TEST(Spelling, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0);
  EXPECT_EQ(edit_distance("abc", ""), 3);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);  // classic example
  EXPECT_EQ(edit_distance("seq_lenght", "seq_len"), 3);
}

TEST(Spelling, ClosestMatchWithinCutOff) {
  const std::vector<std::string> keys = {"seq_len", "global_batch", "precision"};
  EXPECT_EQ(closest_match("seqlen", keys), "seq_len");
  EXPECT_EQ(closest_match("precison", keys), "precision");
  EXPECT_EQ(closest_match("zzzzzzzz", keys), "");
  EXPECT_EQ(closest_match("global_batch_size", keys), "global_batch");
  // Ties go to the longer shared prefix; a prefix of a candidate finds it.
  EXPECT_EQ(closest_match("llama3-7b", {"llama2-7b", "llama3-8b"}), "llama3-8b");
  EXPECT_EQ(closest_match("tpp", {"pp", "tp"}), "tp");
  EXPECT_EQ(closest_match("h100", {"h800", "h100-sxm"}), "h100-sxm");
  EXPECT_EQ(closest_match("tdp_watts", {"tdp_w", "name"}), "tdp_w");
}

TEST(Spelling, SuggestionListsChoicesWithoutCloseMatch) {
  EXPECT_EQ(suggestion("bf61", {"bf16", "fp16", "fp8"}), "did you mean 'bf16'?");
  EXPECT_EQ(suggestion("xxxxxxx", {"none", "full"}), "expected one of: none, full");
}

TEST(Spelling, ShortListsWholeLongListsCut) {
  std::vector<std::string> words;
  for (int i = 0; i < 16; ++i) words.push_back("w" + std::to_string(i));
  // Sixteen words: every one is named.
  EXPECT_EQ(suggestion("zzzzzzz", words).find("..."), std::string::npos);
  EXPECT_NE(suggestion("zzzzzzz", words).find("w15"), std::string::npos);
  // Seventeen: the first twelve and the count.
  words.push_back("w16");
  const std::string cut = suggestion("zzzzzzz", words);
  EXPECT_NE(cut.find("w11, ... (17 in all)"), std::string::npos) << cut;
  EXPECT_EQ(cut.find("w12"), std::string::npos) << cut;
}

}  // namespace
}  // namespace scaleout
