#include "io/validation_csv.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/workload_reader.hpp"

namespace scaleout::io {
namespace {

TEST(Csv, QuotesCommasNewlinesBomAndCrlf) {
  const auto r = parse_csv(
      "\xEF\xBB\xBF"
      "a,b\r\n\"x, y\",\"say \"\"hi\"\"\nthere\"\r\n3,\n",
      "t.csv");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].second[0], "x, y");
  EXPECT_EQ(r[1].second[1], "say \"hi\"\nthere");
  EXPECT_EQ(r[2].first, 4);  // the quoted newline moves the next record to line 4
  EXPECT_EQ(r[2].second[1], "");
}

TEST(Csv, UnterminatedQuoteIsAnError) {
  EXPECT_THROW(parse_csv("a,b\n\"open,1\n", "t.csv"), InputError);
}

TEST(ValidationCsv, ReadsThePublishedDataSet) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  const auto rows = read_validation_csv(read_text_file(path), path);
  ASSERT_EQ(rows.size(), 114u);  // the README's row count
  EXPECT_EQ(rows[0].id, "nar21-t1-01");
  EXPECT_EQ(*rows[0].hidden, 2304);
  EXPECT_FALSE(rows[0].micro_batch.has_value());  // empty cell = unknown
  int memory_rows = 0;
  for (const auto& r : rows) memory_rows += r.metric == "peak_mem_gib";
  EXPECT_EQ(memory_rows, 13);
}

TEST(ValidationCsv, BadCellNamesLineAndColumn) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  std::string text = read_text_file(path);
  const std::string header = text.substr(0, text.find('\n') + 1);
  const std::string row =
      "x1,g,m,24,abc,24,24,9216,51200,gelu,,,2048,512,,1,1,32,1,1,n,1,full,0,full,,,"
      "a100-sxm-80g,32,8,8,200,ib,megatron,step_time_s,3.5,d,c\n";
  try {
    read_validation_csv(header + row, "v.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "v.csv:2: hidden: expected a non-negative whole number, got 'abc'");
  }
}

}  // namespace
}  // namespace scaleout::io
