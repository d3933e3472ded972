// Issue 23, the strict readers: ids are names, numbers are plain decimal, a
// file holds one YAML document with no repeated key, lists and counts are
// capped, a fixed layout that no legal layout can take is an input error for
// plan too, and no error message echoes a huge or hostile value in full.
// Each case fails on the readers before issue 23 (noted beside it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/jobs_reader.hpp"
#include "io/workload_reader.hpp"

namespace scaleout::io {
namespace {

// A valid workload, one key per line so that errors have known lines.
const std::string kBase =
    "model: llama3-8b\n"    // 1 (32 heads, 8 kv heads, 32 layers)
    "seq_len: 4096\n"       // 2
    "global_batch: 64\n"    // 3
    "tokens: 1e9\n"         // 4
    "layout:\n"             // 5
    "  tp: 2\n"             // 6
    "  micro_batch: 1\n"    // 7
    "cluster:\n"            // 8
    "  server: dgx-h100\n"  // 9
    "  nodes: 1\n";         // 10

std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) return "edit failed: '" + from + "' not found";
  return text.replace(at, from.size(), to);
}

// e.what() of reading `text` as a workload (for estimate, or for plan when
// `plan` is true), or "<no InputError>".
std::string workload_error(const std::string& text, bool plan = false) {
  try {
    read_workload(text, "w.yaml", "", builtin_catalog(), !plan);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

std::string catalog_error(const std::string& text) {
  Catalog c = builtin_catalog();
  try {
    read_catalog(text, "c.json", c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

std::string jobs_error(const std::string& text) {
  try {
    read_jobs(text, "j.yaml", "", builtin_catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kGpu =
    R"({"id": "my-gpu", "hbm_gib": 80, "tdp_w": 700, "hbm_bw_gbyte_s": 3000, "tflops": {"bf16": 900},
        "source": "mine"})";

// --- 1. ids are names ------------------------------------------------------------------------
// Before: every one of these was read and the id later printed into reports and
// launch files (the inline model id into the first comment line of slurm.sbatch).

TEST(StrictInput, InlineModelIdWithANewlineIsRefused) {
  const std::string text =
      "model:\n"
      "  id: \"llama\\nrm -rf ~\"\n"  // 2
      "  layers: 4\n  hidden: 1536\n  heads: 12\n  vocab: 1000\n"
      "cluster:\n  server: dgx-h100\n";
  EXPECT_EQ(workload_error(text),
            "w.yaml:2: model.id: id 'llama\\x0arm -rf ~' has a character ids may not hold "
            "('\\x0a' at position 6) (ids are names: letters, digits and . _ - + / (starting "
            "with a letter or digit), at most 128 characters)");
}

TEST(StrictInput, CatalogIdsAndReferencesAreNames) {
  // Before: all accepted.
  EXPECT_TRUE(contains(catalog_error(R"({"gpus": [{"id": "x;reboot", "hbm_gib": 80,
      "hbm_bw_gbyte_s": 3000, "tflops": {"bf16": 900}, "source": "s"}]})"),
                       "c.json:1: gpus[0].id: id 'x;reboot' has a character"));
  EXPECT_TRUE(contains(catalog_error("{\"gpus\": [" + kGpu + R"(],
      "servers": [{"id": "box\nrm -rf ~", "gpu": "my-gpu", "gpus_per_node": 8, "source": "s"}]})"),
                       "c.json:3: servers[0].id: id 'box\\x0arm -rf ~' has a character"));
  EXPECT_TRUE(contains(catalog_error(R"({"fabrics": [{"id": "-ib", "port_gbit_s": 400,
      "source": "s"}]})"),
                       "fabrics[0].id: id '-ib' must start with a letter or a digit"));
  EXPECT_TRUE(contains(catalog_error(R"({"models": [{"id": "m$(id)x", "layers": 2, "hidden": 64,
      "heads": 4, "vocab": 100
}]
})"),
                       "models[0].id: id 'm$(id)x' has a character"));
  EXPECT_TRUE(contains(catalog_error(R"({"cloud": [{"gpu": "h100 sxm", "usd_per_gpu_hour": 2,
      "date": "2024", "source": "s"}]})"),
                       "cloud[0].gpu: id 'h100 sxm' has a character"));
  EXPECT_TRUE(contains(catalog_error(R"({"purchase": [{"server": "a'b", "usd": 2,
      "date": "2024", "source": "s"}]})"),
                       "purchase[0].server: id 'a'b' has a character"));
  EXPECT_TRUE(contains(catalog_error(R"({"failure_rates": [{"id": "a b",
      "per_1000_node_days": 2, "source": "s"}]})"),
                       "failure_rates[0].id: id 'a b'"));
  EXPECT_TRUE(contains(catalog_error(R"({"storage": [{"id": "a`b", "node_read_gbyte_s": 2,
      "node_write_gbyte_s": 2, "source": "s"}]})"),
                       "storage[0].id: id 'a`b'"));
  EXPECT_TRUE(contains(catalog_error(R"({"facilities": [{"id": "", "rack_kw": 40,
      "source": "s"}]})"),
                       "facilities[0].id: an id may not be empty"));
  // A name or a source is free text, but one line: a newline in it is refused.
  EXPECT_TRUE(contains(catalog_error(R"({"gpus": [{"id": "g", "name": "H100\n#!/bin/sh",
      "hbm_gib": 80, "hbm_bw_gbyte_s": 3000, "tflops": {"bf16": 900}, "source": "s"}]})"),
                       "gpus[0].name: 'H100\\x0a#!/bin/sh' holds a control character"));
}

TEST(StrictInput, WorkloadIdsAreCheckedBeforeTheyAreLookedUp) {
  // Before: "unknown server 'dgx h100'" with a suggestion, i.e. the hostile text echoed.
  EXPECT_EQ(workload_error(with(kBase, "server: dgx-h100", "server: \"dgx\\th100\"")),
            "w.yaml:9: cluster.server: id 'dgx\\x09h100' has a character ids may not hold "
            "('\\x09' at position 4) (ids are names: letters, digits and . _ - + / (starting "
            "with a letter or digit), at most 128 characters)");
  EXPECT_TRUE(contains(workload_error(with(kBase, "nodes: 1", "gpu: 'h100;x'")),
                       "w.yaml:10: cluster.gpu: id 'h100;x' has a character"));
  EXPECT_TRUE(contains(workload_error(with(kBase, "nodes: 1", "fabric: 'ib ndr'")),
                       "w.yaml:10: cluster.fabric: id 'ib ndr' has a character"));
  EXPECT_TRUE(contains(workload_error(with(kBase, "llama3-8b", "'llama 3'")),
                       "w.yaml:1: model: id 'llama 3' has a character"));
  EXPECT_TRUE(contains(workload_error(kBase + "hardware:\n  servers: [dgx-h100, 'a|b']\n"),
                       "w.yaml:12: hardware.servers: id 'a|b' has a character"));
  EXPECT_TRUE(contains(workload_error(kBase + "reliability:\n  failure_rate: 'x y'\n"),
                       "w.yaml:12: reliability.failure_rate: id 'x y' has a character"));
  EXPECT_TRUE(contains(workload_error(kBase + "storage:\n  system: 'x<y'\n"),
                       "w.yaml:12: storage.system: id 'x<y' has a character"));
  EXPECT_TRUE(contains(workload_error(kBase + "facility:\n  site: 'x>y'\n"),
                       "w.yaml:12: facility.site: id 'x>y' has a character"));
}

TEST(StrictInput, JobNamesAndClusterIdsAreNames) {
  const std::string clusters = "clusters: [{server: dgx-h100, nodes: 2}]\n";
  // Before: accepted and printed in the simulate report.
  EXPECT_TRUE(contains(jobs_error(clusters + "jobs:\n  - {name: \"a\\rb\", gpus: 1, "
                                             "duration_h: 1}\n"),
                       "j.yaml:3: jobs[0].name: id 'a\\x0db' has a character"));
  EXPECT_TRUE(contains(jobs_error("clusters: [{server: 'dgx h100'}]\n"
                                  "jobs: [{name: a, gpus: 1, duration_h: 1}]\n"),
                       "j.yaml:1: clusters[0].server: id 'dgx h100' has a character"));
  EXPECT_TRUE(contains(jobs_error("clusters: [{server: dgx-h100, fabric: 'ib;x'}]\n"
                                  "jobs: [{name: a, gpus: 1, duration_h: 1}]\n"),
                       "j.yaml:1: clusters[0].fabric: id 'ib;x' has a character"));
}

// --- 2. decimal-only numbers -----------------------------------------------------------------

TEST(StrictInput, NumbersMustBePlainDecimal) {
  // Before: 0x10 was read as 16 by strtod, quoted and tagged numbers as numbers.
  struct Case {
    const char* value;
    const char* expected;
  };
  const Case cases[] = {
      {"0x10",
       "w.yaml:4: tokens: '0x10' is not a plain decimal number (write it as a plain "
       "decimal number, e.g. 16, -3, 0.5 or 2.0e12)"},
      {"0o17", "w.yaml:4: tokens: '0o17' is not a plain decimal number"},
      {"017", "w.yaml:4: tokens: '017' is not a plain decimal number"},
      {"0b101", "w.yaml:4: tokens: '0b101' is not a plain decimal number"},
      {"1_000", "w.yaml:4: tokens: '1_000' is not a plain decimal number"},
      {"\"123\"",
       "w.yaml:4: tokens: expected a number, got the quoted string '123' (write it as "
       "a plain decimal number, e.g. 16, -3, 0.5 or 2.0e12, without quotes)"},
      {"'123'", "w.yaml:4: tokens: expected a number, got the quoted string '123'"},
      {"!!int 16",
       "w.yaml:4: tokens: expected a number, got a value tagged "
       "'tag:yaml.org,2002:int'"},
      {".inf", "w.yaml:4: tokens: '.inf' is not a finite number"},
      {"infinity", "w.yaml:4: tokens: 'infinity' is not a finite number"},
  };
  for (const Case& c : cases) {
    const std::string error =
        workload_error(with(kBase, "tokens: 1e9", std::string("tokens: ") + c.value));
    EXPECT_TRUE(contains(error, c.expected)) << c.value << ": " << error;
  }
  for (const char* ok : {"1e9", "1000000000", "1.5e9", "2.0e12", "+7", "0.5e9", "1000000000."}) {
    EXPECT_EQ(workload_error(with(kBase, "tokens: 1e9", std::string("tokens: ") + ok)),
              "<no InputError>")
        << ok;
  }
  // In a list and in a JSON catalog file alike.
  EXPECT_TRUE(contains(workload_error(with(kBase, "global_batch: 64", "global_batch: [64, 0x40]")),
                       "w.yaml:3: global_batch: '0x40' is not a plain decimal number"));
  EXPECT_TRUE(contains(catalog_error(R"({"gpus": [{"id": "g", "hbm_gib": "80",
      "hbm_bw_gbyte_s": 3000, "tflops": {"bf16": 900}, "source": "s"}]})"),
                       "c.json:1: gpus[0].hbm_gib: expected a number, got the quoted string "
                       "'80'"));
}

// --- 3. one document, no repeated key ------------------------------------------------------

TEST(StrictInput, ASecondYamlDocumentIsAnError) {
  // Before: everything after `---` was silently ignored.
  EXPECT_EQ(workload_error(kBase + "---\nseq_len: 8192\n"),
            "w.yaml:12: a second YAML document (after '---'); the file must hold one (remove "
            "the '---' line and merge the keys into one mapping)");
  EXPECT_TRUE(contains(catalog_error("gpus: []\n---\nservers: []\n"), "c.json:3: a second YAML"));
  EXPECT_TRUE(contains(jobs_error("seed: 1\n---\nseed: 2\n"), "j.yaml:3: a second YAML"));
  // A leading `---`, a lone trailing one or an end marker holds no second document.
  EXPECT_EQ(workload_error("---\n" + kBase), "<no InputError>");
  EXPECT_EQ(workload_error(kBase + "---\n"), "<no InputError>");
  EXPECT_EQ(workload_error(kBase + "...\n"), "<no InputError>");
}

TEST(StrictInput, AGpuNeedsItsBoardPower) {
  // Before: tdp_w defaulted to 0, and a server without power_w on such a GPU
  // divided the rack budget by 0 W (UBSan: inf cast to int, found by fuzz_plan_finite).
  EXPECT_TRUE(
      contains(catalog_error(R"({"gpus": [{"id": "g", "hbm_gib": 80, "hbm_bw_gbyte_s": 3000,
      "tflops": {"bf16": 900}, "source": "s"}]})"),
               "gpus[0].tdp_w: missing required key (the GPU's board power in W, e.g. 700)"));
  EXPECT_TRUE(contains(catalog_error(R"({"gpus": [{"id": "g", "hbm_gib": 80, "hbm_bw_gbyte_s": 3000,
      "tflops": {"bf16": 900}, "tdp_w": 0, "source": "s"}]})"),
                       "gpus[0].tdp_w: 0 is out of range"));
}

TEST(StrictInput, ALeadingCommaEndsWithAnErrorNotAHang) {
  // yaml-cpp's LoadAll looped without end on these (found by fuzz_plan_finite);
  // each read must end, with the file's own error or none.
  for (const std::string text : {",a", ",a\n---\nb: 1\n", "---\n,a\n", ",\n...\n,"}) {
    EXPECT_NE(workload_error(text), "") << text;
    EXPECT_NE(jobs_error(text), "") << text;
  }
  // yaml-cpp reads ",a" as an empty document; it is named as malformed, not empty.
  EXPECT_TRUE(
      contains(workload_error(",a"), "w.yaml:1: not valid YAML: no document could be read"));
}

TEST(StrictInput, DuplicateJsonKeysInACatalogFileAreAnError) {
  // yaml-cpp keeps both; the reader names the key and both lines.
  EXPECT_EQ(catalog_error("{\"gpus\": [{\"id\": \"g\",\n"
                          " \"hbm_gib\": 80,\n"
                          " \"hbm_gib\": 40,\n"
                          " \"hbm_bw_gbyte_s\": 3000, \"tflops\": {\"bf16\": 900}, "
                          "\"source\": \"s\"}]}"),
            "c.json:3: gpus[0].hbm_gib: duplicate key (it is already set on line 2; keep one)");
  EXPECT_TRUE(contains(catalog_error("{\"gpus\": [],\n \"gpus\": []}"),
                       "c.json:2: gpus: duplicate key (it is already set on line 1"));
}

TEST(StrictInput, ManyKeysAreCheckedForDuplicatesInLinearTime) {
  // 50,000 distinct keys: the pairwise check before made 1.25e9 comparisons.
  std::string text = "{";
  for (int i = 0; i < 50000; ++i) text += "k" + std::to_string(i) + ": 1, ";
  text += "k7: 2}";
  const std::string error = workload_error(text);
  EXPECT_TRUE(contains(error, "k7: duplicate key")) << error.substr(0, 200);
}

// --- 4. caps ---------------------------------------------------------------------------------

std::string batch_list(int n) {
  std::string list = "[";
  for (int i = 1; i <= n; ++i) list += (i > 1 ? ", " : "") + std::to_string(8 * i);
  return list + "]";
}

TEST(StrictInput, GlobalBatchListIsCapped) {
  // Before: any length (10^5 values took over a minute to plan).
  const std::string base = with(kBase, "layout:\n  tp: 2\n  micro_batch: 1\n", "");
  EXPECT_EQ(workload_error(with(base, "global_batch: 64", "global_batch: " + batch_list(64)), true),
            "<no InputError>");
  EXPECT_EQ(workload_error(with(base, "global_batch: 64", "global_batch: " + batch_list(65)), true),
            "w.yaml:3: global_batch: 65 values; a global_batch list holds at most 64 (plan "
            "searches every value; list the batch sizes worth comparing)");
}

TEST(StrictInput, HardwareListsNameEachIdOnce) {
  // Before: [dgx-h100, dgx-h100, ...] searched the same hardware again per copy.
  EXPECT_EQ(workload_error(kBase + "hardware:\n  servers: [dgx-h100, dgx-h100]\n", true),
            "w.yaml:12: hardware.servers: 'dgx-h100' is listed twice (name each id once)");
}

TEST(StrictInput, CatalogListsAreCapped) {
  // Before: read entry by entry (the first one failing for its missing id).
  std::string text = "{\"gpus\": [";
  for (int i = 0; i <= 10000; ++i) text += i ? ", {}" : "{}";
  text += "]}";
  EXPECT_EQ(catalog_error(text),
            "c.json:1: gpus: 10001 entries; a catalog list holds at most 10000 (split the entries "
            "over several --catalog files)");
}

TEST(StrictInput, JobsListHoldsAtMostOneHundredThousandEntries) {
  // Before: up to 10^6 separate entries were read, 4.45 GB of parsed YAML.
  std::string text = "clusters: [{server: dgx-h100}]\njobs:\n";
  for (long long i = 0; i <= kMaxSimJobEntries; ++i) text += "- {}\n";
  EXPECT_TRUE(contains(jobs_error(text),
                       "jobs: 100001 entries; a jobs file holds at most 100000 entries (use count "
                       "on one entry for many jobs of the same kind)"));
}

TEST(StrictInput, SimulateCapsAreNamedConstants) {
  EXPECT_EQ(kMaxSimJobs, 1000000);
  EXPECT_EQ(kMaxSimJobEntries, 100000);
  EXPECT_EQ(kMaxSimNodes, 100000);
  const std::string jobs = "jobs: [{name: a, gpus: 1, duration_h: 1}]\n";
  EXPECT_TRUE(contains(jobs_error("clusters: [{server: dgx-h100, nodes: 100001}]\n" + jobs),
                       "clusters[0].nodes: 100001 is out of range (expected a whole number from "
                       "1 to 100000)"));
  EXPECT_TRUE(contains(
      jobs_error("clusters: [{server: dgx-h100}]\njobs: [{name: a, gpus: 1, duration_h: 1, "
                 "count: 1000001}]\n"),
      "jobs[0].count: 1000001 is out of range (expected a whole number from 1 to 1000000)"));
}

// --- 5. fixed layouts that cannot be legal, for plan too -------------------------------------
// Before: plan read these with check_layout false and reported "infeasible"
// with a divisibility count.

struct FixedCase {
  const char* name;
  std::string text;
  std::string expected;  // e.what(), read for plan
};

class FixedLayoutForPlan : public testing::TestWithParam<FixedCase> {};

TEST_P(FixedLayoutForPlan, IsAnInputErrorNamingTheRule) {
  EXPECT_EQ(workload_error(GetParam().text, true), GetParam().expected) << GetParam().text;
}

// kBase without its cluster: plan searches the servers and node counts.
const std::string kNoCluster = with(kBase, "cluster:\n  server: dgx-h100\n  nodes: 1\n", "");

INSTANTIATE_TEST_SUITE_P(
    StrictInput, FixedLayoutForPlan,
    testing::Values(
        FixedCase{"TpVsHeads", with(kNoCluster, "tp: 2", "tp: 3"),
                  "w.yaml:6: layout.tp: tp 3 does not divide the model's 32 attention heads (use "
                  "a tp that divides the head count, e.g. 1, 2, 4 or 8)"},
        FixedCase{"PpVsLayers", with(kNoCluster, "tp: 2", "pp: 64"),
                  "w.yaml:6: layout.pp: pp 64 is larger than the model's 32 layers (use at most "
                  "one pipeline stage per layer)"},
        FixedCase{"CpVsSeqLen",
                  with(with(kNoCluster, "seq_len: 4096", "seq_len: 1000"), "tp: 2", "cp: 8"),
                  "w.yaml:6: layout.cp: seq_len 1000 is not divisible by 2 * cp = 16 (context "
                  "parallelism splits each sequence into 2*cp load-balanced chunks)"},
        FixedCase{"EpForDenseModel", with(kNoCluster, "tp: 2", "ep: 2"),
                  "w.yaml:6: layout.ep: ep > 1 needs a mixture-of-experts model (set ep: 1 for "
                  "dense models)"},
        FixedCase{"EpVsExperts",
                  with(with(kNoCluster, "llama3-8b", "mixtral-8x7b"), "tp: 2", "ep: 3"),
                  "w.yaml:6: layout.ep: ep 3 does not divide the model's 8 experts (choose ep "
                  "among the divisors of the expert count)"},
        FixedCase{"InterleaveWithPpOne", with(kNoCluster, "tp: 2", "pp: 1\n  interleave: 2"),
                  "w.yaml:7: layout.interleave: interleave > 1 needs pipeline parallelism (set "
                  "layout.pp > 1 or interleave: 1)"},
        FixedCase{"InterleaveWithPpSearched", with(kNoCluster, "tp: 2", "interleave: 20"),
                  "w.yaml:6: layout.interleave: 32 layers are fewer than the 2 x interleave 20 "
                  "pipeline chunks of the smallest interleaved pipeline (pp 2) (lower interleave "
                  "so that every chunk holds at least one layer)"},
        FixedCase{"BatchVsFixedDp", with(kNoCluster, "tp: 2", "dp: 3"),
                  "w.yaml:3: global_batch: global_batch 64 is not a multiple of micro_batch 1 x "
                  "dp 3 (each step must be a whole number of micro-batches on every "
                  "data-parallel rank)"},
        FixedCase{"DegreesVsFixedCluster", with(kBase, "tp: 2", "tp: 2\n  pp: 3"),
                  "w.yaml:6: layout: tp 2 x pp 3 = 6 does not divide the cluster's 8 GPUs "
                  "(tp x pp x dp x cp is the cluster size: choose degrees that divide nodes x "
                  "GPUs per node, or leave cluster.nodes out to search it)"},
        FixedCase{"AllDegreesVsFixedCluster",
                  with(kBase, "tp: 2", "tp: 2\n  pp: 1\n  dp: 2\n  cp: 1"),
                  "w.yaml:6: layout: tp 2 x pp 1 x dp 2 x cp 1 = 4 GPUs, but the cluster has 8 "
                  "(make the "
                  "parallel sizes multiply to nodes x GPUs per node, or leave dp out to derive "
                  "it)"}),
    [](const testing::TestParamInfo<FixedCase>& param) { return std::string(param.param.name); });

TEST(StrictInput, FixedValuesThatTheSearchCanMendAreLeftToPlan) {
  // tp 4 x pp 4 = 16 GPUs on a cluster whose node count plan searches.
  EXPECT_EQ(workload_error(with(with(kBase, "tp: 2", "tp: 4\n  pp: 4"), "  nodes: 1\n", ""), true),
            "<no InputError>");
  // dp 3 with a list of batches: each batch is a search cell of its own.
  EXPECT_EQ(workload_error(with(with(kNoCluster, "tp: 2", "dp: 3"), "global_batch: 64",
                                "global_batch: [64, 96]"),
                           true),
            "<no InputError>");
  // interleave 4 with pp searched: pp 2 x 4 = 8 chunks for 32 layers.
  EXPECT_EQ(workload_error(with(kNoCluster, "tp: 2", "interleave: 4"), true), "<no InputError>");
}

// --- 6. long and hostile values are cut in messages ------------------------------------------

TEST(StrictInput, InputErrorCutsAndEscapesEveryPart) {
  const std::string huge(10'000'000, 'x');
  const std::string message = "bad \x1b[31mred\x1b[0m " + huge;
  const InputError e(huge + "\n", 3, huge, message, huge);
  const std::string what = e.what();
  EXPECT_LT(what.size(), 1024u);
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_EQ(what.find('\x1b'), std::string::npos);
  EXPECT_TRUE(contains(what, "bad \\x1b[31mred\\x1b[0m x")) << what;
  EXPECT_TRUE(contains(what, "... (10000001 bytes):3: ")) << what;
  EXPECT_TRUE(contains(what, "... (" + std::to_string(message.size()) + " bytes)")) << what;
  EXPECT_LE(e.file.size(), kMaxErrorFile + 32);
  EXPECT_LE(e.message.size(), kMaxErrorMessage + 32);
}

TEST(StrictInput, ErrorTextKeepsCleanTextAndUtf8) {
  // Already-escaped text (printable()'s output) and UTF-8 come back unchanged.
  EXPECT_EQ(error_text("id 'a\\x0ab' at 1 \xc3\x97 2", 100), "id 'a\\x0ab' at 1 \xc3\x97 2");
  // Stray bytes, C1 controls and bidirectional overrides are escaped.
  EXPECT_EQ(error_text("a\xff"
                       "b\xc2\x9b"
                       "c\xe2\x80\xae"
                       "d",
                       100),
            "a\\xffb\\xc2\\x9bc\\xe2\\x80\\xaed");
  // A cut never splits a character or an escape.
  EXPECT_EQ(error_text("ab\xc3\x97", 3), "ab... (4 bytes)");
  EXPECT_EQ(error_text("ab\ncd", 4), "ab... (5 bytes)");
}

TEST(StrictInput, HugeValuesAreCutInReaderMessages) {
  const std::string huge(1'000'000, 'q');
  // Before: the 1 MB id or value was echoed in full (and spell-checked); a key
  // (YAML caps an implicit key at 1024 characters) likewise.
  for (const std::string& text :
       {with(kBase, "llama3-8b", huge), with(kBase, "tokens: 1e9", "precision: " + huge),
        with(kBase, "tokens: 1e9", std::string(1000, 'k') + ": 1"),
        with(kBase, "tokens: 1e9", "tokens: 1" + huge),
        with(kBase, "tokens: 1e9", "tokens: " + std::string(500'000, '9'))}) {
    const std::string error = workload_error(text);
    EXPECT_LT(error.size(), 1024u) << error.substr(0, 200);
    EXPECT_TRUE(contains(error, "bytes)")) << error.substr(0, 200);
  }
}

}  // namespace
}  // namespace scaleout::io
