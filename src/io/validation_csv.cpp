#include "io/validation_csv.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/spelling.hpp"
#include "io/workload_reader.hpp"

namespace scaleout::io {

namespace {

const std::vector<std::string> kColumns = {"id",
                                           "group",
                                           "model",
                                           "layers",
                                           "hidden",
                                           "heads",
                                           "kv_heads",
                                           "ffn_hidden",
                                           "vocab",
                                           "mlp",
                                           "moe_experts",
                                           "moe_top_k",
                                           "seq_len",
                                           "global_batch",
                                           "micro_batch",
                                           "tp",
                                           "pp",
                                           "dp",
                                           "cp",
                                           "ep",
                                           "sp",
                                           "interleave",
                                           "recompute",
                                           "zero",
                                           "finetune",
                                           "lora_rank",
                                           "precision",
                                           "gpu",
                                           "num_gpus",
                                           "gpus_per_node",
                                           "nics_per_node",
                                           "nic_gbps",
                                           "fabric",
                                           "framework",
                                           "metric",
                                           "value",
                                           "derivation",
                                           "cite"};

struct Cells {
  const std::vector<std::string>& f;
  const std::string& file;
  int line;

  const std::string& str(size_t col) const { return f[col]; }

  std::optional<long long> integer(size_t col, long long max = 1000000000000LL) const {
    const std::string& s = f[col];
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > max) {
      throw InputError(file, line, kColumns[col],
                       fmt::format("expected a non-negative whole number, got '{}'", s));
    }
    return v;
  }

  std::optional<double> number(size_t col) const {
    const std::string& s = f[col];
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v)) {
      throw InputError(file, line, kColumns[col], fmt::format("expected a number, got '{}'", s));
    }
    return v;
  }

  std::string choice(size_t col, const std::vector<std::string>& allowed) const {
    const std::string& s = f[col];
    if (s.empty()) return s;
    for (const auto& a : allowed) {
      if (a == s) return s;
    }
    throw InputError(file, line, kColumns[col], fmt::format("unknown value '{}'", s),
                     suggestion(s, allowed));
  }
};

}  // namespace

std::vector<std::pair<int, std::vector<std::string>>> parse_csv(const std::string& text_in,
                                                                const std::string& file) {
  std::string_view text(text_in);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark
  if (text.find('\0') != std::string_view::npos) {
    throw InputError(file, 0, "", "file is binary (contains NUL bytes), expected CSV text");
  }
  std::vector<std::pair<int, std::vector<std::string>>> records;
  std::vector<std::string> fields;
  std::string field;
  int line = 1, record_line = 1;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\r') {
      // CRLF line ends: the '\n' ends the record.
    } else if (c == '\n') {
      if (any || !field.empty()) {
        fields.push_back(std::move(field));
        records.emplace_back(record_line, std::move(fields));
      }
      fields.clear();
      field.clear();
      any = false;
      ++line;
      record_line = line;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) throw InputError(file, record_line, "", "unterminated quoted field");
  if (any || !field.empty()) {
    fields.push_back(std::move(field));
    records.emplace_back(record_line, std::move(fields));
  }
  return records;
}

std::vector<ValidationRow> read_validation_csv(const std::string& text, const std::string& file) {
  const auto records = parse_csv(text, file);
  if (records.empty()) throw InputError(file, 0, "", "file is empty", "expected a header line");
  const auto& header = records.front().second;
  for (size_t i = 0; i < kColumns.size(); ++i) {
    if (i >= header.size() || header[i] != kColumns[i]) {
      throw InputError(file, 1, i < header.size() ? header[i] : "",
                       fmt::format("column {} must be '{}'", i + 1, kColumns[i]),
                       "the canonical schema is in data/validation/README.md");
    }
  }
  if (header.size() != kColumns.size()) {
    throw InputError(file, 1, header[kColumns.size()], "unexpected extra column",
                     fmt::format("the schema has {} columns", kColumns.size()));
  }
  std::vector<ValidationRow> rows;
  for (size_t k = 1; k < records.size(); ++k) {
    const auto& [line, f] = records[k];
    if (f.size() != kColumns.size()) {
      throw InputError(file, line, "",
                       fmt::format("row has {} fields, expected {}", f.size(), kColumns.size()),
                       "quote cells that contain commas");
    }
    const Cells c{f, file, line};
    ValidationRow r;
    r.line = line;
    r.id = c.str(0);
    if (r.id.empty()) throw InputError(file, line, "id", "empty row id");
    r.group = c.str(1);
    r.model = c.str(2);
    r.layers = c.integer(3, 1000000);
    r.hidden = c.integer(4, 100000000);
    r.heads = c.integer(5, 1000000);
    r.kv_heads = c.integer(6, 1000000);
    r.ffn_hidden = c.integer(7, 1000000000);
    r.vocab = c.integer(8, 1000000000);
    r.mlp = c.choice(9, {"gelu", "swiglu"});
    r.moe_experts = c.integer(10, 1000000);
    r.moe_top_k = c.integer(11, 1000000);
    r.seq_len = c.integer(12, 1000000000);
    r.global_batch = c.integer(13);
    r.micro_batch = c.integer(14);
    r.tp = c.integer(15, 1000000);
    r.pp = c.integer(16, 1000000);
    r.dp = c.integer(17, 1000000);
    r.cp = c.integer(18, 1000000);
    r.ep = c.integer(19, 1000000);
    r.sp = c.choice(20, {"y", "n"});
    r.interleave = c.integer(21, 1000);
    r.recompute = c.choice(22, {"none", "selective", "full"});
    r.zero = c.integer(23, 3);
    r.finetune = c.choice(24, {"full", "lora", "qlora"});
    r.lora_rank = c.integer(25, 1000000);
    r.precision = c.choice(26, {"bf16", "fp16", "fp8", "fp32"});
    r.gpu = c.str(27);
    r.num_gpus = c.integer(28, 10000000);
    r.gpus_per_node = c.integer(29, 100000);
    r.nics_per_node = c.integer(30, 100000);
    r.nic_gbps = c.number(31);
    r.fabric = c.str(32);
    r.framework =
        c.choice(33, {"megatron", "deepspeed", "fsdp", "torchtitan", "nemo", "mosaic", "other"});
    r.metric = c.choice(34, {"step_time_s", "tokens_per_s_per_gpu", "peak_mem_gib", "mfu"});
    const auto v = c.number(35);
    if (!v) throw InputError(file, line, "value", "empty measured value");
    r.value = *v;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::map<std::string, std::string> read_gpu_overrides(const std::string& text,
                                                      const std::string& file) {
  const auto records = parse_csv(text, file);
  if (records.empty() || records.front().second.size() < 2 || records.front().second[0] != "id" ||
      records.front().second[1] != "gpu") {
    throw InputError(file, 1, "", "expected a header 'id,gpu,reason'");
  }
  std::map<std::string, std::string> out;
  for (size_t k = 1; k < records.size(); ++k) {
    const auto& [line, f] = records[k];
    if (f.size() < 2 || f[0].empty() || f[1].empty()) {
      throw InputError(file, line, "", "expected 'id,gpu,reason'");
    }
    out[f[0]] = f[1];
  }
  return out;
}

void apply_gpu_overrides(std::vector<ValidationRow>& rows, const std::string& csv_path,
                         const std::string& overrides) {
  std::string file = overrides;
  if (file.empty()) {
    std::filesystem::path side(csv_path);
    side.replace_extension(".gpu-overrides.csv");
    if (!std::filesystem::exists(side)) return;
    file = side.string();
  }
  const auto map = read_gpu_overrides(read_text_file(file), file);
  for (ValidationRow& r : rows) {
    if (const auto it = map.find(r.id); it != map.end()) r.gpu = it->second;
  }
}

}  // namespace scaleout::io
