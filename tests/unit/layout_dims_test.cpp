// The layout-dimension table (workload/layout_dims.hpp) and what is derived
// from it: the workload reader's layout keys, the fixed layout of `plan`, the
// validation CSV's columns read by header name.
#include "workload/layout_dims.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"

namespace scaleout {
namespace {

TEST(LayoutDims, RowsAreInKeyOrderWithUniqueNames) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kLayoutKeys; ++i) {
    const LayoutDim& d = layout_dims()[i];
    EXPECT_EQ(static_cast<std::size_t>(d.key), i) << d.name;
    EXPECT_EQ(&layout_dim(d.key), &d);
    EXPECT_EQ(find_layout_dim(d.name), &d);
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    const bool no_value = d.kind == DimKind::order || d.kind == DimKind::text;
    EXPECT_EQ(d.get == nullptr, no_value) << d.name;
    EXPECT_EQ(d.set == nullptr, no_value) << d.name;
    if (d.kind == DimKind::choice) {
      EXPECT_EQ(d.choices.size(), static_cast<size_t>(d.max + 1));
    }
  }
  EXPECT_EQ(find_layout_dim("tensor"), nullptr);
}

// The `layout:` table of docs/input-format.md lists exactly the table's rows.
TEST(LayoutDims, EveryDocumentedLayoutKeyIsARow) {
  std::ifstream in(std::string(SCALEOUT_SOURCE_DIR) + "/docs/input-format.md");
  std::string line;
  bool in_layout = false;
  std::set<std::string> documented;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) in_layout = line == "### `layout:`";
    if (in_layout && line.rfind("| `", 0) == 0) {
      documented.insert(line.substr(3, line.find('`', 3) - 3));
    }
  }
  std::set<std::string> rows;
  for (const LayoutDim& d : layout_dims()) rows.insert(d.name);
  EXPECT_EQ(documented, rows);
}

// Each row is read from a workload file into its Layout member, and only
// that member: the table covers every Layout field that files can set.
TEST(LayoutDims, TheReaderSetsEachRowsMember) {
  const std::string base =
      "model: mixtral-8x7b\nseq_len: 4096\nglobal_batch: 64\nprecision: fp8\n"
      "framework: megatron\n";
  // Hybrid sharding needs a dense model under a framework that has it.
  const std::string dense_base =
      "model: llama3-8b\nseq_len: 4096\nglobal_batch: 64\nframework: fsdp\n";
  for (const LayoutDim& d : layout_dims()) {
    const std::string& here = d.key == LayoutKey::shard_group ? dense_base : base;
    const Layout defaults =
        io::read_workload(here, "w.yaml", "", io::builtin_catalog(), false).workload.layout;
    // The rank order and a text (pipeline_layout) have no integer value; a
    // set (recompute_modules) needs recompute: selective beside it, a text
    // pp (workload_reader_test).
    if (d.kind == DimKind::order || d.kind == DimKind::set || d.kind == DimKind::text) continue;
    int value = 0;
    std::string text;
    switch (d.kind) {
      case DimKind::integer:
        value = 2;
        text = "2";
        break;
      case DimKind::flag:
        value = d.get(defaults) == 0 ? 1 : 0;
        text = value ? "true" : "false";
        break;
      case DimKind::choice:
        value = static_cast<int>(d.choices.size()) - 1;
        text = d.choices.back();
        break;
      case DimKind::order:
      case DimKind::set:
      case DimKind::text:
        break;
    }
    SCOPED_TRACE(d.name);
    const io::WorkloadFile wf =
        io::read_workload(here + "layout:\n  " + d.name + ": " + text + "\n", "w.yaml", "",
                          io::builtin_catalog(), false);
    EXPECT_EQ(d.get(wf.workload.layout), value);
    EXPECT_NE(d.get(defaults), value);
    for (const LayoutDim& other : layout_dims()) {
      if (other.kind == DimKind::order || other.kind == DimKind::text) continue;
      EXPECT_EQ(wf.plan.layout_keys.has(other.key), other.key == d.key) << other.name;
      if (other.key != d.key && !(d.key == LayoutKey::tp && other.key == LayoutKey::sp)) {
        EXPECT_EQ(other.get(wf.workload.layout), other.get(defaults)) << other.name;
      }
    }
    // set() writes the same member get() reads.
    Layout ly;
    d.set(ly, value);
    EXPECT_EQ(d.get(ly), value);
  }
}

TEST(LayoutDims, FixedValuesHoldOnlyTheKeysSet) {
  FixedValues fx;
  EXPECT_FALSE(fx.get(LayoutKey::tp));
  fx.set(LayoutKey::tp, 4);
  fx.set(LayoutKey::recompute, static_cast<int>(Recompute::full));
  EXPECT_EQ(fx.get(LayoutKey::tp), 4);
  EXPECT_EQ(fx.values.recompute, Recompute::full);
  EXPECT_FALSE(fx.has(LayoutKey::pp));
}

// --- The validation CSV read by header name ---------------------------------------------------

std::string training_csv() {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  return io::read_text_file(path);
}

std::vector<std::string> split(const std::string& line) {
  return io::parse_csv(line + "\n", "t.csv").front().second;
}

std::string quote(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string join(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + quote(cells[i]);
  return out + "\n";
}

TEST(LayoutDims, EveryCsvRowIsAValidationColumn) {
  const auto& columns = io::validation_csv_columns();
  for (const LayoutDim& d : layout_dims()) {
    const bool column = std::find(columns.begin(), columns.end(), d.name) != columns.end();
    EXPECT_EQ(column, d.csv_column) << d.name;
  }
}

TEST(ValidationCsvHeader, ReorderedColumnsReadTheSameRows) {
  const std::string text = training_csv();
  const auto records = io::parse_csv(text, "t.csv");
  // Reverse the columns of every record.
  std::string reversed;
  for (const auto& [line, cells] : records) {
    std::vector<std::string> r(cells.rbegin(), cells.rend());
    reversed += join(r);
  }
  const auto a = io::read_validation_csv(text, "a.csv");
  const auto b = io::read_validation_csv(reversed, "b.csv");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].tp, b[i].tp);
    EXPECT_EQ(a[i].sp, b[i].sp);
    EXPECT_EQ(a[i].recompute, b[i].recompute);
    EXPECT_EQ(a[i].gpu, b[i].gpu);
    EXPECT_EQ(a[i].metric, b[i].metric);
    EXPECT_EQ(a[i].value, b[i].value);
  }
}

std::string header_error(const std::vector<std::string>& header) {
  try {
    io::read_validation_csv(join(header), "v.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ValidationCsvHeader, UnknownMissingAndRepeatedColumnsAreErrors) {
  const std::string text = training_csv();
  std::vector<std::string> header = split(text.substr(0, text.find('\n')));
  header[1] = "grup";
  EXPECT_EQ(header_error(header), "v.csv:1: grup: unknown column (did you mean 'group'?)");
  header[1] = "group";
  header.push_back("pipeline");
  EXPECT_NE(header_error(header).find("v.csv:1: pipeline: unknown column ("), std::string::npos);
  header.back() = "tp";
  EXPECT_EQ(header_error(header),
            "v.csv:1: tp: column given twice (columns 16 and 40) (name each column once)");
  header.pop_back();
  header.erase(header.begin() + 20);  // sp
  EXPECT_EQ(header_error(header),
            "v.csv:1: sp: missing column (the canonical schema is in "
            "data/validation/README.md)");
}

}  // namespace
}  // namespace scaleout
