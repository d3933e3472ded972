#include "workload/checks.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

Workload llama70() {
  Workload w;
  w.model = *io::builtin_catalog().find_model("llama3-70b");  // 64 heads, 8 kv heads, 80 layers
  w.seq_len = 8192;
  return w;
}

TEST(Checks, LegalLayoutHasNoProblems) {
  Workload w = llama70();
  w.layout.tp = 8;
  w.layout.pp = 4;
  w.layout.dp = 4;
  w.layout.interleave = 5;
  w.global_batch = 64;
  EXPECT_TRUE(check_layout(w, 128).empty());
}

TEST(Checks, EachRuleNamesItsKey) {
  struct Case {
    void (*edit)(Workload&);
    long long gpus;
    const char* key;
  };
  const Case cases[] = {
      {[](Workload& w) { w.layout.tp = 3; }, 0, "layout.tp"},
      {[](Workload& w) { w.layout.pp = 81; }, 0, "layout.pp"},
      {[](Workload& w) { w.layout.interleave = 2; }, 0, "layout.interleave"},
      {[](Workload& w) {
         w.layout.pp = 4;
         w.layout.interleave = 21;  // 84 chunks for 80 layers
       },
       0, "layout.interleave"},
      {[](Workload& w) { w.layout.cp = 3; }, 0, "layout.cp"},
      {[](Workload& w) { w.layout.ep = 2; }, 0, "layout.ep"},
      {[](Workload& w) {
         w.global_batch = 10;
         w.layout.dp = 4;
       },
       0, "global_batch"},
      {[](Workload& w) { w.layout.dp = 3; }, 8, "layout"},
  };
  for (const Case& c : cases) {
    Workload w = llama70();
    c.edit(w);
    const auto problems = check_layout(w, c.gpus);
    ASSERT_FALSE(problems.empty()) << c.key;
    EXPECT_EQ(problems[0].key, c.key);
    EXPECT_FALSE(problems[0].hint.empty());
  }
}

TEST(Checks, TensorParallelBeyondKvHeadsReplicatesThem) {
  // 8 kv heads: tp 16 is a multiple (kv heads replicated), tp 8 divides.
  Workload w = llama70();
  w.layout.tp = 16;
  EXPECT_TRUE(check_layout(w, 0).empty());
}

TEST(Checks, ExpertParallelNeedsDividingExperts) {
  Workload w;
  w.model = *io::builtin_catalog().find_model("mixtral-8x7b");
  w.layout.dp = 8;
  w.layout.ep = 8;
  EXPECT_TRUE(check_layout(w, 0).empty());
  w.layout.ep = 3;
  ASSERT_FALSE(check_layout(w, 0).empty());
  EXPECT_EQ(check_layout(w, 0)[0].message, "ep 3 does not divide the model's 8 experts");
}

}  // namespace
}  // namespace scaleout
