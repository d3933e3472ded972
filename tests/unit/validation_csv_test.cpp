#include "io/validation_csv.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"

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
      "a100-sxm-80g,32,8,8,200,ib,megatron,step_time_s,3.5,d,c,\n";
  if (const auto e = input_error_of([&] { read_validation_csv(header + row, "v.csv"); })) {
    EXPECT_STREQ(e->what(),
                 "v.csv:2: hidden: expected a non-negative whole number, got 'abc' "
                 "(plain decimal digits)");
  }
}

// A one-row CSV of training.csv's columns plus one optional `column`, the
// row's recompute cell and that column's cell given; `error_of` reads it and
// returns the InputError's text.
struct ExtraColumnCsv {
  std::string header;
  explicit ExtraColumnCsv(const std::string& column) {
    const std::string text =
        read_text_file(std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv");
    header = text.substr(0, text.find('\n')) + "," + column + "\n";
  }
  std::string csv(const std::string& recompute, const std::string& cell) const {
    return header + "x1,g,m,24,3072,24,24,9216,51200,gelu,,,2048,512,,1,1,32,1,1,n,1," + recompute +
           ",0,full,,,a100-sxm-80g,32,8,8,200,ib,megatron,step_time_s,3.5,d,c,," + cell + "\n";
  }
  std::string error_of(const std::string& recompute, const std::string& cell) const {
    try {
      read_validation_csv(csv(recompute, cell), "v.csv");
    } catch (const InputError& e) {
      return e.what();
    }
    return "<no InputError>";
  }
};

// The optional recompute_modules column: names joined by '+', only with
// recompute selective.
TEST(ValidationCsv, RecomputeModulesCell) {
  const ExtraColumnCsv f("recompute_modules");
  const auto rows = read_validation_csv(f.csv("selective", "mlp+core_attn"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  // core_attn bit 0 + mlp bit 4 = 17.
  EXPECT_EQ(rows[0].recompute_modules, RecomputeModules{17});
  EXPECT_FALSE(read_validation_csv(f.csv("selective", ""), "v.csv")[0].recompute_modules);
  EXPECT_EQ(f.error_of("selective", "mlp+moe_atc"),
            "v.csv:2: recompute_modules: unknown module 'moe_atc' (did you mean 'moe_act'? "
            "modules joined by '+', e.g. mla_up_proj+mlp; accepted: core_attn, moe_act, "
            "layernorm, mla_up_proj, mlp, moe, shared_experts)");
  EXPECT_EQ(f.error_of("full", "mlp"),
            "v.csv:2: recompute_modules: 'mlp' names the sub-blocks selective recompute re-runs, "
            "but recompute is full (set recompute to selective, or leave recompute_modules "
            "empty)");
  EXPECT_EQ(f.error_of("selective", "mlp+mlp"),
            "v.csv:2: recompute_modules: 'mlp' given twice (name each module once)");
}

// The optional recompute_layers column: a whole number >= 1, only with
// recompute full.
TEST(ValidationCsv, RecomputeLayersCell) {
  const ExtraColumnCsv f("recompute_layers");
  const auto rows = read_validation_csv(f.csv("full", "5"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].recompute_layers, 5);
  EXPECT_FALSE(read_validation_csv(f.csv("full", ""), "v.csv")[0].recompute_layers);
  EXPECT_EQ(f.error_of("full", "0"),
            "v.csv:2: recompute_layers: must be at least 1, got 0 (the layers of each model "
            "chunk that full recompute re-runs (--recompute-num-layers); leave it empty when "
            "every layer is recomputed)");
  EXPECT_EQ(f.error_of("selective", "5"),
            "v.csv:2: recompute_layers: 5 chooses the layers full recompute re-runs, but "
            "recompute is selective (set recompute to full, or leave recompute_layers empty)");
  EXPECT_EQ(f.error_of("", "2"),
            "v.csv:2: recompute_layers: 2 chooses the layers full recompute re-runs, but "
            "recompute is empty (set recompute to full, or leave recompute_layers empty)");
  EXPECT_EQ(f.error_of("full", "x"),
            "v.csv:2: recompute_layers: expected a non-negative whole number, got 'x' (plain "
            "decimal digits)");
}

TEST(ValidationCsv, ShapeCellContradictingTheNamedCatalogModelIsAnInputError) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  const std::string text = read_text_file(path);
  const std::string header = text.substr(0, text.find('\n') + 1);
  // Llama 3 8B in the catalog: 32 layers, h 4096, 32 / 8 heads, ffn 14336, V 128256.
  const std::string agrees =
      "x1,g,Llama 3 8B,32,4096,32,8,14336,128256,swiglu,,,8192,512,,1,1,8,1,1,n,1,full,0,full,,"
      "bf16,h100-sxm,8,8,8,400,ib,other,mfu,0.4,d,c,\n";
  const std::string shapeless =
      "x2,g,llama3-8b,,,,,,,,,,8192,512,,1,1,8,1,1,n,1,full,0,full,,"
      "bf16,h100-sxm,8,8,8,400,ib,other,mfu,0.4,d,c,\n";
  const std::string contradicts =
      "x3,g,Llama 3 8B,,4096,32,8,14336,128000,swiglu,,,8192,512,,1,1,8,1,1,n,1,full,0,full,,"
      "bf16,h100-sxm,8,8,8,400,ib,other,mfu,0.4,d,c,\n";
  const auto rows = read_validation_csv(header + agrees + shapeless, "v.csv");
  EXPECT_NO_THROW(check_catalog_models(rows, builtin_catalog(), "v.csv"));
  if (const auto e = input_error_of([&] {
        check_catalog_models(read_validation_csv(header + agrees + contradicts, "v.csv"),
                             builtin_catalog(), "v.csv");
      })) {
    EXPECT_EQ(e->line, 3);
    EXPECT_EQ(e->key, "vocab");
    EXPECT_EQ(e->message, "is 128000, but catalog model 'llama3-8b' has 128256");
  }
}

TEST(ValidationCsv, TheDataFilesAgreeWithTheCatalogModelsTheyName) {
  for (const char* name :
       {"training.csv", "external.csv", "vtrain-multi.csv", "vtrain-single.csv"}) {
    const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/" + name;
    const auto rows = read_validation_csv(read_text_file(path), path);
    EXPECT_NO_THROW(check_catalog_models(rows, builtin_catalog(), path)) << name;
    // They give the whole shape, so none takes the catalog's (figures unchanged).
    for (const auto& r : rows) EXPECT_EQ(catalog_shape_of(r, builtin_catalog()), nullptr) << r.id;
  }
}

// --- Issue 23: measured values per metric, decimal numbers, ids, cut messages ----------------

// The header of training.csv and one good row (columns 0-38), a cell
// of which is replaced; the replacement is quoted when it needs to be.
std::string header_line() {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  const std::string text = read_text_file(path);
  return text.substr(0, text.find('\n') + 1);
}

std::string row_with(std::size_t col, const std::string& value) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(
      "x1,nar21,GPT 3.6B,24,2304,24,24,9216,51200,gelu,,,2048,512,,1,1,32,1,1,n,1,full,0,full,,,"
      "a100-sxm-80g,32,8,8,200,ib,megatron,step_time_s,3.5,d,c");
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  std::string v = value;
  if (v.find_first_of(",\"\n\r") != std::string::npos) {
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    v = q + "\"";
  }
  cells.at(col) = v;
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
  return out + ",\n";  // training.csv's optional compile column, empty
}

// The InputError of reading the one-row file; fails when none is thrown.
InputError error_of(std::size_t col, const std::string& value) {
  try {
    read_validation_csv(header_line() + row_with(col, value), "v.csv");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for column " << col << " = '" << value << "'";
  return InputError("", 0, "", "");
}

ValidationRow read_one(std::size_t col, const std::string& value) {
  const auto rows = read_validation_csv(header_line() + row_with(col, value), "v.csv");
  EXPECT_EQ(rows.size(), 1u);
  return rows.empty() ? ValidationRow{} : rows[0];
}

constexpr std::size_t kMetric = 34, kValue = 35;

TEST(ValidationCsv, GoodRowReads) {
  const ValidationRow r = read_one(kValue, "3.5");
  EXPECT_EQ(r.value, 3.5);
  EXPECT_EQ(r.model, "GPT 3.6B");
  EXPECT_EQ(r.fabric, "ib");
}

TEST(ValidationCsv, MeasuredStepTimeMustBePositiveAndBounded) {
  for (const char* bad : {"0", "-3.5", "1e308", "1000001"}) {
    const InputError e = error_of(kValue, bad);
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.key, "value");
    EXPECT_EQ(e.message, std::string("measured step_time_s must be in (0, 1000000] s, got ") + bad);
    EXPECT_EQ(e.hint, "seconds per optimizer step");
  }
  EXPECT_EQ(read_one(kValue, "1e6").value, 1e6);  // the bound itself
  EXPECT_EQ(read_one(kValue, "0.0581").value, 0.0581);
}

TEST(ValidationCsv, EachMetricHasItsRange) {
  auto error_for = [](const std::string& metric, const std::string& value) {
    const std::string text = header_line() + row_with(kMetric, metric);
    const auto at = text.rfind(",3.5,");
    try {
      read_validation_csv(text.substr(0, at) + "," + value + "," + text.substr(at + 5), "v.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // MFU is a fraction: 45 (meaning 45 %) and 1.5 are refused, 0.45 and 1 read.
  EXPECT_EQ(error_for("mfu", "45"),
            "v.csv:2: value: measured mfu must be in (0, 1], got 45 "
            "(model-FLOPs utilisation as a fraction (0.45 for 45 %))");
  EXPECT_NE(error_for("mfu", "1.5"), "accepted");
  EXPECT_EQ(error_for("mfu", "0.45"), "accepted");
  EXPECT_EQ(error_for("mfu", "1"), "accepted");
  EXPECT_EQ(error_for("peak_mem_gib", "0"),
            "v.csv:2: value: measured peak_mem_gib must be in (0, 10000] GiB, got 0 "
            "(peak memory per GPU in GiB (2^30 bytes))");
  EXPECT_NE(error_for("peak_mem_gib", "10001"), "accepted");
  EXPECT_EQ(error_for("peak_mem_gib", "80"), "accepted");
  EXPECT_NE(error_for("tokens_per_s_per_gpu", "-1"), "accepted");
  EXPECT_NE(error_for("tokens_per_s_per_gpu", "1e10"), "accepted");
  EXPECT_EQ(error_for("tokens_per_s_per_gpu", "163750"), "accepted");
}

// Issue 20: the whole-run metrics and their optional train_tokens column.
TEST(ValidationCsv, WholeRunMetricsNeedTrainTokens) {
  const std::string header = header_line().substr(0, header_line().size() - 1) + ",train_tokens\n";
  auto row = [](const std::string& metric, const std::string& value, const std::string& tokens) {
    std::string r = row_with(kMetric, metric);
    r.pop_back();
    const auto at = r.rfind(",3.5,");
    return r.substr(0, at) + "," + value + "," + r.substr(at + 5) + "," + tokens + "\n";
  };
  const auto rows = read_validation_csv(header + row("gpu_hours", "184320", "2e12"), "v.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].metric, "gpu_hours");
  EXPECT_EQ(rows[0].train_tokens, 2e12);
  EXPECT_NO_THROW(read_validation_csv(header + row("train_days", "14", "1.5e12"), "v.csv"));
  if (const auto e = input_error_of(
          [&] { read_validation_csv(header + row("train_days", "14", ""), "v.csv"); })) {
    EXPECT_EQ(e->line, 2);
    EXPECT_EQ(e->key, "train_tokens");
    EXPECT_EQ(e->message, "metric train_days needs the tokens of the whole run");
  }
  if (const auto e = input_error_of(
          [&] { read_validation_csv(header + row("gpu_hours", "10", "0"), "v.csv"); })) {
    EXPECT_EQ(e->key, "train_tokens");
    EXPECT_EQ(e->message, "must be in [1, 1e16] tokens, got 0");
  }
  if (const auto e = input_error_of(
          [&] { read_validation_csv(header + row("gpu_hours", "2e10", "1e12"), "v.csv"); })) {
    EXPECT_EQ(e->key, "value");
  }
  // A file without the column still reads; its step rows have no tokens.
  EXPECT_FALSE(read_one(kValue, "3.5").train_tokens.has_value());
}

TEST(ValidationCsv, NumbersAreDecimalOnly) {
  for (const char* bad : {"0x10", "1e", "inf", "nan", "+3.5", " 3.5", "3.5 ", "3.", ".5", "1e+",
                          "3,5", "1_000", "INFINITY", "0x1p3"}) {
    SCOPED_TRACE(bad);
    const InputError e = error_of(kValue, bad);
    EXPECT_EQ(e.key, "value");
    EXPECT_EQ(e.message.rfind("expected a number, got '", 0), 0u) << e.message;
  }
  EXPECT_EQ(read_one(kValue, "1.5e-1").value, 0.15);
  EXPECT_EQ(read_one(kValue, "2E+1").value, 20);
  // Whole-number columns: plain digits.
  for (const char* bad : {"0x10", "+24", " 24", "24.0", "-1", "1e2", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    const InputError e = error_of(3, bad);  // layers
    EXPECT_EQ(e.key, "layers");
    EXPECT_EQ(e.message.rfind("expected a non-negative whole number, got '", 0), 0u) << e.message;
  }
  EXPECT_EQ(error_of(31, "0").message, "must be in (0, 100000] Gb/s, got 0");  // nic_gbps
}

TEST(ValidationCsv, IdCellsAreIds) {
  EXPECT_EQ(error_of(0, "x1\n$(reboot)").message,
            "id 'x1\\x0a$(reboot)' has a character ids may not hold ('\\x0a' at position 3)");
  EXPECT_EQ(error_of(0, "x1\n$(reboot)").key, "id");
  EXPECT_EQ(error_of(1, "nar 21").key, "group");
  EXPECT_EQ(error_of(27, "a100; rm -rf ~").key, "gpu");
  EXPECT_EQ(read_one(27, "").gpu, "");  // empty = unknown
  EXPECT_EQ(read_one(1, "").group, "");
}

TEST(ValidationCsv, ModelIsAPrintableOneLineName) {
  EXPECT_EQ(read_one(2, "Llama 3.1 8B (LoRA)").model, "Llama 3.1 8B (LoRA)");
  const InputError e = error_of(2, "GPT\n\x1b[2J");
  EXPECT_EQ(e.key, "model");
  EXPECT_EQ(e.message, "'GPT\\x0a\\x1b[2J' is not a name");
  EXPECT_EQ(error_of(2, std::string(129, 'm')).key, "model");
  EXPECT_EQ(error_of(2, "caf\xc3\xa9").key, "model");
}

TEST(ValidationCsv, FabricIsIbRoceEthOrEfa) {
  EXPECT_EQ(read_one(32, "roce").fabric, "roce");
  EXPECT_EQ(read_one(32, "efa").fabric, "efa");
  EXPECT_EQ(read_one(32, "").fabric, "");
  EXPECT_EQ(error_of(32, "omnipath").message, "unknown value 'omnipath'");
}

// The optional ep_overlap column: y or n, and y only with expert parallelism.
TEST(ValidationCsv, EpOverlapIsYOrNAndNeedsExpertParallelism) {
  const std::string head = header_line();
  const std::string header = head.substr(0, head.size() - 1) + ",ep_overlap\n";
  auto read = [&](const std::string& ep, const std::string& overlap) {
    std::string row = row_with(19, ep);  // column 19: ep
    row.insert(row.size() - 1, "," + overlap);
    return read_validation_csv(header + row, "v.csv");
  };
  EXPECT_EQ(read("8", "y").at(0).ep_overlap, "y");
  EXPECT_EQ(read("1", "n").at(0).ep_overlap, "n");
  EXPECT_EQ(read("1", "").at(0).ep_overlap, "");
  try {
    read("8", "yes");
    ADD_FAILURE() << "ep_overlap 'yes' accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key, "ep_overlap");
    EXPECT_EQ(e.message, "unknown value 'yes'");
  }
  try {
    read("1", "y");
    ADD_FAILURE() << "ep_overlap y accepted with ep 1";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key, "ep_overlap");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "the all-to-all overlap needs ep > 1");
  }
}

// The optional host_link_gbyte_s column: the machine's PCIe rate per GPU, GB/s.
TEST(ValidationCsv, HostLinkIsAPositiveRate) {
  const std::string head = header_line();
  const std::string header = head.substr(0, head.size() - 1) + ",host_link_gbyte_s\n";
  auto read = [&](const std::string& link) {
    std::string row = row_with(19, "1");  // column 19: ep
    row.insert(row.size() - 1, "," + link);
    return read_validation_csv(header + row, "v.csv");
  };
  EXPECT_EQ(read("16").at(0).host_link_gbyte_s, 16.0);
  EXPECT_FALSE(read("").at(0).host_link_gbyte_s.has_value());
  for (const char* bad : {"0", "-8", "2000"}) {
    SCOPED_TRACE(bad);
    try {
      read(bad);
      ADD_FAILURE() << "host_link_gbyte_s accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key, "host_link_gbyte_s");
      EXPECT_EQ(e.line, 2);
      EXPECT_EQ(e.message, std::string("must be in (0, 1000] GB/s, got ") + bad);
    }
  }
  try {
    read("x16");
    ADD_FAILURE() << "host_link_gbyte_s 'x16' accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key, "host_link_gbyte_s");
  }
}

// The optional dp_overlap column: y, n or empty (the framework's overlap).
TEST(ValidationCsv, DpOverlapIsYOrN) {
  const std::string head = header_line();
  const std::string header = head.substr(0, head.size() - 1) + ",dp_overlap\n";
  auto read = [&](const std::string& overlap) {
    std::string row = row_with(19, "1");  // column 19: ep
    row.insert(row.size() - 1, "," + overlap);
    return read_validation_csv(header + row, "v.csv");
  };
  EXPECT_EQ(read("n").at(0).dp_overlap, "n");
  {
    // The embedding_in_split and loss_in_split columns read the same way.
    const std::string h2 = head.substr(0, head.size() - 1) + ",embedding_in_split,loss_in_split\n";
    std::string row = row_with(19, "1");
    row.insert(row.size() - 1, ",y,n");
    const auto rows = read_validation_csv(h2 + row, "v.csv");
    EXPECT_EQ(rows.at(0).embedding_in_split, "y");
    EXPECT_EQ(rows.at(0).loss_in_split, "n");
  }
  EXPECT_EQ(read("y").at(0).dp_overlap, "y");
  EXPECT_EQ(read("").at(0).dp_overlap, "");
  try {
    read("off");
    ADD_FAILURE() << "dp_overlap 'off' accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key, "dp_overlap");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "unknown value 'off'");
  }
}

TEST(ValidationCsv, PipelineScheduleIsAnOptionalLayoutChoice) {
  std::string header = header_line();
  header.insert(header.size() - 1, ",pipeline_schedule");
  auto row = [](const std::string& schedule) {
    std::string r = row_with(kValue, "3.5");
    r.insert(r.size() - 1, "," + schedule);
    return r;
  };
  EXPECT_EQ(read_validation_csv(header + row("dualpipe"), "v.csv").at(0).pipeline_schedule,
            "dualpipe");
  EXPECT_EQ(read_validation_csv(header + row(""), "v.csv").at(0).pipeline_schedule, "");
  EXPECT_EQ(read_one(kValue, "3.5").pipeline_schedule, "");  // a file without the column
  try {
    read_validation_csv(header + row("dual-pipe"), "v.csv");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.key, "pipeline_schedule");
    EXPECT_EQ(e.message, "unknown value 'dual-pipe'");
  }
}

TEST(ValidationCsv, PipelineLayoutIsParsedAndCheckedAgainstPp) {
  std::string header = header_line();
  header.insert(header.size() - 1, ",pipeline_layout");
  // pp (column 16) and interleave (column 21) of the row, then the layout.
  auto row = [](const std::string& pp, const std::string& v, const std::string& layout) {
    std::string r = row_with(16, pp);
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(r.substr(0, r.size() - 1));
    while (std::getline(in, cell, ',')) cells.push_back(cell);
    cells.at(21) = v;
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    return out + ",," + layout + "\n";
  };
  // 24 layers on pp 4 x 2 chunks: the embedding with 2 layers, 6 chunks of
  // 3, then 4 layers and the loss.
  const ValidationRow r =
      read_validation_csv(header + row("4", "2", "Ett|(ttt|)*6ttttL"), "v.csv").at(0);
  EXPECT_EQ(r.layout_chunk_layers, (std::vector<int>{2, 3, 3, 3, 3, 3, 3, 4}));
  EXPECT_EQ(r.layout_mtp_layers, 0);
  // Interleave left empty: the layout gives the chunks.
  EXPECT_EQ(read_validation_csv(header + row("4", "", "Et*5|t*6|t*6|t*7L"), "v.csv")
                .at(0)
                .layout_chunk_layers.size(),
            4u);
  struct Bad {
    std::string pp, v, layout, message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"4", "1", "Et*5|t*6|t*6|t*7X", "unknown layer character 'X'"},
           {"4", "1", "Et*12|t*12L", "2 stages do not split over pp 4"},
           {"4", "1", "Et*2|(t*3|)*6t*4L", "8 stages, but pp 4 x interleave 1 is 4"},
           {"1", "1", "Et*24L", "a pipeline layout needs pp of 2 or more"},
           {"4", "1", "t*6|Et*6|t*6|t*6L", "the embedding E must come first"},
           {"4", "1", "Et*6|t*6|t*5m|t*7L", "place them in the last stage"},
           {"4", "1", "Et*6|t*6|t*6|t*5mtL", "must come before the MTP depths"},
           {"4", "1", "Et*6|(t*6|*2t*6L", "a '(' needs a non-empty group"},
       }) {
    if (const auto e = input_error_of(
            [&] { read_validation_csv(header + row(b.pp, b.v, b.layout), "v.csv"); })) {
      EXPECT_EQ(e->file, "v.csv");
      EXPECT_EQ(e->line, 2);
      EXPECT_EQ(e->key, "pipeline_layout");
      EXPECT_NE(e->message.find(b.message), std::string::npos) << e->message;
      EXPECT_NE(e->hint, "") << b.layout;
    }
  }
}

TEST(ValidationCsv, LongCellsAreCutInMessages) {
  const std::string big(10 * 1024 * 1024, '7');
  for (std::size_t col : {std::size_t{0}, std::size_t{3}, kValue, std::size_t{9}}) {
    const InputError e = error_of(col, big + "x");
    EXPECT_LT(std::string(e.what()).size(), 400u) << col;
  }
}

TEST(ValidationCsv, GpuOverrideIdsAreIds) {
  EXPECT_EQ(read_gpu_overrides("id,gpu,reason\nr1,h100-sxm-96g,why\n", "o.csv").at("r1"),
            "h100-sxm-96g");
  if (const auto e = input_error_of(
          [&] { read_gpu_overrides("id,gpu,reason\nr1,\"h100\n# x\",why\n", "o.csv"); })) {
    EXPECT_EQ(e->line, 2);
    EXPECT_EQ(e->key, "gpu");
  }
}

TEST(ValidationCsv, EveryShippedFileStillReads) {
  for (const char* name :
       {"training", "external", "vtrain-single", "vtrain-multi", "moe-training", "whole-runs"}) {
    const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/" + name + ".csv";
    EXPECT_NO_THROW(read_validation_csv(read_text_file(path), path)) << name;
  }
  const std::string path =
      std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.gpu-overrides.csv";
  EXPECT_NO_THROW(read_gpu_overrides(read_text_file(path), path));
}

}  // namespace
}  // namespace scaleout::io
