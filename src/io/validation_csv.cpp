#include "io/validation_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "io/files.hpp"
#include "workload/checks.hpp"
#include "workload/framework.hpp"
#include "workload/layout_dims.hpp"

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
                                           "etp",
                                           "moe_load_imbalance",
                                           "mtp_layers",
                                           "ep_overlap",
                                           "dp_overlap",
                                           "embedding_in_split",
                                           "loss_in_split",
                                           "moe_dispatcher",
                                           "moe_capacity_factor",
                                           "moe_pad_to_capacity",
                                           "sp",
                                           "interleave",
                                           "recompute",
                                           "recompute_modules",
                                           "recompute_layers",
                                           "zero",
                                           "finetune",
                                           "lora_rank",
                                           "precision",
                                           "gpu",
                                           "num_gpus",
                                           "gpus_per_node",
                                           "scaleup_domain_gpus",
                                           "nics_per_node",
                                           "nic_gbps",
                                           "fabric",
                                           "framework",
                                           "metric",
                                           "value",
                                           "train_tokens",
                                           "derivation",
                                           "cite",
                                           "optimizer",
                                           "offload",
                                           "activation_offload",
                                           "loss_chunks",
                                           "optimizer_in_backward",
                                           "lora_targets",
                                           "peak_kind",
                                           "first_stage_layers",
                                           "last_stage_layers",
                                           "pipeline_schedule",
                                           "pipeline_layout",
                                           "fp8_activations",
                                           "grad_reduce_in_bf16",
                                           "loss_upcast",
                                           "lora_dropout",
                                           "cuda_graphs",
                                           "shard_group",
                                           "host_link_gbyte_s",
                                           "compile"};

// The whole-number columns, in column order, with the largest value each accepts.
struct WholeColumn {
  const char* name;
  std::optional<long long> ValidationRow::*value;
  long long max;
};
const WholeColumn kWholeColumns[] = {
    {"layers", &ValidationRow::layers, 1000000},
    {"hidden", &ValidationRow::hidden, 100000000},
    {"heads", &ValidationRow::heads, 1000000},
    {"kv_heads", &ValidationRow::kv_heads, 1000000},
    {"ffn_hidden", &ValidationRow::ffn_hidden, 1000000000},
    {"vocab", &ValidationRow::vocab, 1000000000},
    {"moe_experts", &ValidationRow::moe_experts, 1000000},
    {"moe_top_k", &ValidationRow::moe_top_k, 1000000},
    {"seq_len", &ValidationRow::seq_len, 1000000000},
    {"global_batch", &ValidationRow::global_batch, 1000000000000},
    {"micro_batch", &ValidationRow::micro_batch, 1000000000000},
    {"tp", &ValidationRow::tp, 1000000},
    {"pp", &ValidationRow::pp, 1000000},
    {"dp", &ValidationRow::dp, 1000000},
    {"cp", &ValidationRow::cp, 1000000},
    {"ep", &ValidationRow::ep, 1000000},
    {"etp", &ValidationRow::etp, 1000000},
    {"mtp_layers", &ValidationRow::mtp_layers, 16},
    {"interleave", &ValidationRow::interleave, 1000},
    {"first_stage_layers", &ValidationRow::first_stage_layers, 1000000},
    {"last_stage_layers", &ValidationRow::last_stage_layers, 1000000},
    {"zero", &ValidationRow::zero, 3},
    {"lora_rank", &ValidationRow::lora_rank, 1000000},
    {"num_gpus", &ValidationRow::num_gpus, 10000000},
    {"gpus_per_node", &ValidationRow::gpus_per_node, 100000},
    {"scaleup_domain_gpus", &ValidationRow::scaleup_domain_gpus, 100000},
    {"nics_per_node", &ValidationRow::nics_per_node, 100000},
    {"loss_chunks", &ValidationRow::loss_chunks, 1000000},
    {"shard_group", &ValidationRow::shard_group, 1000000},
};

constexpr const char* kDecimalHint =
    "plain decimal digits, e.g. 3.5 or 1e-3 (no '+', hex, inf or nan)";

// Measured values: positive, finite and at most a bound far above any real
// measurement, in the metric's unit.
const MeasuredRange kMeasuredRanges[] = {
    {"step_time_s", 1e6, "s", "seconds per optimizer step"},
    {"tokens_per_s_per_gpu", 1e9, "tokens/s", "training tokens per second per GPU"},
    {"peak_mem_gib", 10000, "GiB", "peak memory per GPU in GiB (2^30 bytes)"},
    {"mfu", 1, "", "model-FLOPs utilisation as a fraction (0.45 for 45 %)"},
    {"gpu_hours", 1e10, "GPU-hours", "GPU-hours of the whole training run"},
    {"train_days", 1e4, "days", "wall-clock days of the whole training run"},
    {"output_tokens_per_s", 1e9, "tokens/s", "output tokens per second of the whole system"},
    {"ttft_s", 1e6, "s", "time to first token in seconds"},
    {"tpot_s", 1e6, "s", "time per output token in seconds"},
};

// The names of a choice row of the layout-dimension table.
std::vector<std::string> layout_choices(LayoutKey k) {
  const auto& names = layout_dim(k).choices;
  return {names.begin(), names.end()};
}

// The dispatchers a row may name; an empty cell is the framework's own.
std::vector<std::string> csv_dispatcher_names() {
  std::vector<std::string> names = enum_names<MoeDispatcher>();
  std::erase(names, to_string(MoeDispatcher::framework));
  return names;
}

// The longest display name (the `model` column) accepted.
constexpr std::size_t kMaxNameLength = 128;

bool is_recipe_setting_column(std::string_view name);

// Columns added after the first schema: a file may leave them out (every
// row then has the empty cell, the default).
bool is_optional_column(std::string_view name) {
  return name == "etp" || name == "scaleup_domain_gpus" || name == "moe_load_imbalance" ||
         name == "mtp_layers" || name == "train_tokens" || name == "first_stage_layers" ||
         name == "last_stage_layers" || name == "ep_overlap" || name == "pipeline_schedule" ||
         name == "pipeline_layout" || name == "moe_dispatcher" || name == "moe_capacity_factor" ||
         name == "moe_pad_to_capacity" || name == "dp_overlap" || name == "embedding_in_split" ||
         name == "loss_in_split" || name == "recompute_modules" || name == "recompute_layers" ||
         name == "shard_group" || name == "host_link_gbyte_s" || is_recipe_setting_column(name);
}

// The recipe settings beyond the layout (memory savers, loss and gradient
// precision, compile, adapter dropout), each optional.
bool is_recipe_setting_column(std::string_view name) {
  return name == "optimizer" || name == "offload" || name == "activation_offload" ||
         name == "loss_chunks" || name == "optimizer_in_backward" || name == "lora_targets" ||
         name == "peak_kind" || name == "compile" || name == "loss_upcast" ||
         name == "fp8_activations" || name == "lora_dropout" || name == "grad_reduce_in_bf16" ||
         name == "cuda_graphs";
}

// The canonical index of a column name (a name of kColumns; the reader
// names only those).
size_t column(std::string_view name) {
  return static_cast<size_t>(std::find(kColumns.begin(), kColumns.end(), name) - kColumns.begin());
}

// The cells of one record, looked up by column name through the header's
// positions (`at`: canonical index -> field index).
struct Cells {
  const std::vector<std::string>& fields;
  const std::vector<size_t>& at;
  const std::string& file;
  int line;

  // The cell; empty for an optional column the file leaves out.
  const std::string& str(std::string_view name) const {
    static const std::string kEmpty;
    const size_t i = at[column(name)];
    return i < fields.size() ? fields[i] : kEmpty;
  }

  // An id cell (core/ids.hpp); empty means unknown where `optional`.
  const std::string& id(std::string_view name, bool optional) const {
    const std::string& s = str(name);
    if (!(optional && s.empty())) check_id(s, file, line, std::string(name));
    return s;
  }

  // A display name: printable ASCII (no line breaks or control bytes), at
  // most kMaxNameLength bytes; empty means unknown.
  const std::string& name(std::string_view col) const {
    const std::string& s = str(col);
    const bool printable_ascii = std::all_of(s.begin(), s.end(), [](char ch) {
      return static_cast<unsigned char>(ch) >= 0x20 && static_cast<unsigned char>(ch) < 0x7f;
    });
    if (!printable_ascii || s.size() > kMaxNameLength) {
      throw InputError(
          file, line, std::string(col), fmt::format("'{}' is not a name", printable(s)),
          fmt::format("a name is printable ASCII of at most {} characters, on one line",
                      kMaxNameLength));
    }
    return s;
  }

  std::optional<long long> integer(std::string_view col, long long max) const {
    const std::string& s = str(col);
    if (s.empty()) return std::nullopt;
    long long v = -1;
    const bool ok =
        is_whole(s) && std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc();
    if (!ok || v > max) {
      throw InputError(file, line, std::string(col),
                       fmt::format("expected a non-negative whole number, got '{}'", printable(s)),
                       ok ? fmt::format("at most {}", max) : "plain decimal digits");
    }
    return v;
  }

  std::optional<double> number(std::string_view col) const {
    const std::string& s = str(col);
    if (s.empty()) return std::nullopt;
    const double v = is_decimal(s) ? std::strtod(s.c_str(), nullptr) : NAN;
    if (!std::isfinite(v)) {
      throw InputError(file, line, std::string(col),
                       fmt::format("expected a number, got '{}'", printable(s)), kDecimalHint);
    }
    return v;
  }

  std::string choice(std::string_view col, const std::vector<std::string>& allowed) const {
    const std::string& s = str(col);
    if (s.empty()) return s;
    for (const auto& a : allowed) {
      if (a == s) return s;
    }
    throw InputError(file, line, std::string(col), fmt::format("unknown value '{}'", printable(s)),
                     suggestion(s, allowed));
  }
};

// The recompute_modules cell: module names joined by '+' (mla_up_proj+mlp),
// each a name of layout recompute_modules, at most once, and only with
// recompute "selective"; empty: the default.
std::optional<RecomputeModules> recompute_modules_cell(const Cells& c,
                                                       const std::string& recompute) {
  const std::string& s = c.str("recompute_modules");
  if (s.empty()) return std::nullopt;
  const std::vector<std::string> names = layout_choices(LayoutKey::recompute_modules);
  if (recompute != "selective") {
    throw InputError(c.file, c.line, "recompute_modules",
                     fmt::format("'{}' names the sub-blocks selective recompute re-runs, but "
                                 "recompute is {}",
                                 printable(s), recompute.empty() ? "empty" : recompute),
                     "set recompute to selective, or leave recompute_modules empty");
  }
  RecomputeModules bits = 0;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t plus = s.find('+', pos);
    const std::string name = s.substr(pos, plus == std::string::npos ? plus : plus - pos);
    const auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) {
      std::string accepted;
      for (const std::string& x : names) accepted += (accepted.empty() ? "" : ", ") + x;
      const std::string close = closest_match(name, names);
      throw InputError(
          c.file, c.line, "recompute_modules", fmt::format("unknown module '{}'", printable(name)),
          fmt::format("{}modules joined by '+', e.g. mla_up_proj+mlp; accepted: {}",
                      close.empty() ? "" : "did you mean '" + close + "'? ", accepted));
    }
    const auto bit = static_cast<RecomputeModules>(1U << (at - names.begin()));
    if ((bits & bit) != 0) {
      throw InputError(c.file, c.line, "recompute_modules", fmt::format("'{}' given twice", name),
                       "name each module once");
    }
    bits = static_cast<RecomputeModules>(bits | bit);
    if (plus == std::string::npos) break;
    pos = plus + 1;
  }
  return bits;
}

// The recompute_layers cell: with recompute "full", the layers of each model
// chunk recomputed (Megatron-LM --recompute-method block
// --recompute-num-layers N), at least 1; empty: every layer.
std::optional<long long> recompute_layers_cell(const Cells& c, const std::string& recompute) {
  const std::optional<long long> n = c.integer("recompute_layers", 1000000);
  if (!n) return n;
  if (*n < 1) {
    throw InputError(c.file, c.line, "recompute_layers", "must be at least 1, got 0",
                     "the layers of each model chunk that full recompute re-runs "
                     "(--recompute-num-layers); leave it empty when every layer is recomputed");
  }
  if (recompute != "full") {
    throw InputError(c.file, c.line, "recompute_layers",
                     fmt::format("{} chooses the layers full recompute re-runs, but recompute "
                                 "is {}",
                                 *n, recompute.empty() ? "empty" : recompute),
                     "set recompute to full, or leave recompute_layers empty");
  }
  return n;
}

// The position in the header of each canonical column (index of kColumns).
// The header names the columns in any order: an unknown name, a name given
// twice or a missing column is an error.
std::vector<size_t> column_positions(const std::vector<std::string>& header,
                                     const std::string& file) {
  constexpr size_t kAbsent = static_cast<size_t>(-1);
  std::vector<size_t> at(kColumns.size(), kAbsent);
  for (size_t i = 0; i < header.size(); ++i) {
    const size_t col = column(header[i]);
    if (col == kColumns.size()) {
      throw InputError(file, 1, printable(header[i]), "unknown column",
                       suggestion(header[i], kColumns));
    }
    if (at[col] != kAbsent) {
      throw InputError(file, 1, kColumns[col],
                       fmt::format("column given twice (columns {} and {})", at[col] + 1, i + 1),
                       "name each column once");
    }
    at[col] = i;
  }
  for (size_t col = 0; col < kColumns.size(); ++col) {
    if (at[col] == kAbsent && !is_optional_column(kColumns[col])) {
      throw InputError(file, 1, kColumns[col], "missing column",
                       "the canonical schema is in data/validation/README.md");
    }
  }
  return at;
}

}  // namespace

const std::vector<std::string>& validation_csv_columns() { return kColumns; }

bool is_whole(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_decimal(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

const MeasuredRange* measured_range(std::string_view metric) {
  for (const MeasuredRange& r : kMeasuredRanges) {
    if (metric == r.metric) return &r;
  }
  return nullptr;
}

void check_measured(const std::string& metric, double value, const std::string& cell,
                    const std::string& file, int line, const std::string& column) {
  const MeasuredRange* range = measured_range(metric);
  if (!range || (value > 0 && value <= range->max)) return;
  throw InputError(file, line, column,
                   fmt::format("measured {} must be in (0, {}]{}{}, got {}", metric, range->max,
                               *range->unit ? " " : "", range->unit, printable(cell)),
                   range->hint);
}

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
  const std::vector<size_t> at = column_positions(header, file);
  std::vector<ValidationRow> rows;
  for (size_t k = 1; k < records.size(); ++k) {
    const auto& [line, f] = records[k];
    if (f.size() != header.size()) {
      throw InputError(file, line, "",
                       fmt::format("row has {} fields, expected {}", f.size(), header.size()),
                       "quote cells that contain commas");
    }
    const Cells c{f, at, file, line};
    ValidationRow r;
    r.line = line;
    if (c.str("id").empty()) throw InputError(file, line, "id", "empty row id");
    r.id = c.id("id", false);
    r.group = c.id("group", true);
    r.model = c.name("model");
    // The whole-number cells are checked before the words and the GPU id.
    for (const WholeColumn& col : kWholeColumns) r.*col.value = c.integer(col.name, col.max);
    r.mlp = c.choice("mlp", {"gelu", "swiglu"});
    r.sp = c.choice("sp", {"y", "n"});
    // A setting of expert parallelism given on a row without it.
    auto needs_ep = [&](bool given, const char* column, const char* what) {
      if (given && r.ep.value_or(1) < 2) {
        throw InputError(file, r.line, column, fmt::format("{} needs ep > 1", what),
                         fmt::format("give ep (expert-parallel degree, at least 2) or leave {} "
                                     "empty",
                                     column));
      }
    };
    r.ep_overlap = c.choice("ep_overlap", {"y", "n"});
    needs_ep(r.ep_overlap == "y", "ep_overlap", "the all-to-all overlap");
    r.dp_overlap = c.choice("dp_overlap", {"y", "n"});
    r.embedding_in_split = c.choice("embedding_in_split", {"y", "n"});
    r.loss_in_split = c.choice("loss_in_split", {"y", "n"});
    r.moe_dispatcher = c.choice("moe_dispatcher", csv_dispatcher_names());
    needs_ep(!r.moe_dispatcher.empty(), "moe_dispatcher", "a token dispatcher");
    // Token dropping (workload moe.capacity_factor, moe.pad_to_capacity);
    // empty: dropless.
    r.moe_capacity_factor = c.number("moe_capacity_factor");
    if (r.moe_capacity_factor && *r.moe_capacity_factor > 100) {
      throw InputError(
          file, line, "moe_capacity_factor",
          fmt::format("must be in [1, 100], got {}", printable(c.str("moe_capacity_factor"))),
          "the expert capacity over its fair share of the routed copies (Megatron-Core "
          "--moe-expert-capacity-factor); empty for a dropless run");
    }
    r.moe_pad_to_capacity = c.choice("moe_pad_to_capacity", {"y", "n"});
    r.recompute = c.choice("recompute", layout_choices(LayoutKey::recompute));
    r.recompute_modules = recompute_modules_cell(c, r.recompute);
    r.recompute_layers = recompute_layers_cell(c, r.recompute);
    r.pipeline_schedule =
        c.choice("pipeline_schedule", layout_choices(LayoutKey::pipeline_schedule));
    r.pipeline_layout = c.str("pipeline_layout");
    if (!r.pipeline_layout.empty()) {
      // The same rules as a workload's layout.pipeline_layout (workload/checks.hpp).
      Layout ly;
      ly.pp = r.pp ? static_cast<int>(*r.pp) : 1;
      if (r.interleave) ly.interleave = static_cast<int>(*r.interleave);
      if (const auto bad = set_pipeline_layout(r.pipeline_layout, r.interleave.has_value(),
                                               "pipeline_layout", ly)) {
        throw InputError(file, line, bad->key, bad->message, bad->hint);
      }
      r.layout_chunk_layers = ly.chunk_layers;
      r.layout_mtp_layers = ly.layout_mtp_layers;
    }
    r.finetune = c.choice("finetune", enum_names<FinetuneMethod>());
    r.precision = c.choice("precision", {"bf16", "fp16", "fp8", "fp32"});
    r.gpu = c.id("gpu", true);
    r.nic_gbps = c.number("nic_gbps");
    if (r.nic_gbps && !(*r.nic_gbps > 0 && *r.nic_gbps <= 100000)) {
      throw InputError(
          file, line, "nic_gbps",
          fmt::format("must be in (0, 100000] Gb/s, got {}", printable(c.str("nic_gbps"))),
          "the speed of one NIC in Gb/s, e.g. 400");
    }
    r.host_link_gbyte_s = c.number("host_link_gbyte_s");
    if (r.host_link_gbyte_s && !(*r.host_link_gbyte_s > 0 && *r.host_link_gbyte_s <= 1000)) {
      throw InputError(
          file, line, "host_link_gbyte_s",
          fmt::format("must be in (0, 1000] GB/s, got {}", printable(c.str("host_link_gbyte_s"))),
          "the PCIe rate of each GPU of the measured machine to its host, one "
          "direction, e.g. 16 for PCIe 4.0 x8; empty: the GPU's catalog figure");
    }
    r.moe_load_imbalance = c.number("moe_load_imbalance");
    if (r.moe_load_imbalance && !(*r.moe_load_imbalance >= 1 && *r.moe_load_imbalance <= 100)) {
      throw InputError(
          file, line, "moe_load_imbalance",
          fmt::format("must be in [1, 100], got {}", printable(c.str("moe_load_imbalance"))),
          "routed copies on the most loaded expert-parallel rank over the mean; "
          "1 for force-balanced routing");
    }
    r.fabric = c.choice("fabric", {"ib", "roce", "eth", "efa"});
    r.optimizer = c.choice("optimizer", enum_names<Optimizer>());
    r.offload = c.choice("offload", layout_choices(LayoutKey::offload));
    r.activation_offload = c.choice("activation_offload", {"y", "n"});
    r.optimizer_in_backward = c.choice("optimizer_in_backward", {"y", "n"});
    r.lora_targets = c.choice("lora_targets", enum_names<AdapterTargets>());
    r.lora_dropout = c.number("lora_dropout");
    if (r.lora_dropout && !(*r.lora_dropout >= 0 && *r.lora_dropout <= 1)) {
      throw InputError(file, line, "lora_dropout",
                       fmt::format("must be in [0, 1], got {}", printable(c.str("lora_dropout"))),
                       "the dropout probability on each LoRA adapter's input, e.g. 0.1; 0 = none");
    }
    if (r.lora_dropout.value_or(0) > 0 && r.finetune != "lora" && r.finetune != "qlora") {
      throw InputError(file, line, "lora_dropout",
                       fmt::format("needs finetune lora or qlora, got finetune '{}'", r.finetune),
                       "set finetune to lora or qlora, or leave lora_dropout empty or 0");
    }
    r.peak_kind = c.choice("peak_kind", {"allocated", "reserved"});
    r.loss_upcast = c.choice("loss_upcast", {"y", "n"});
    r.fp8_activations = c.choice("fp8_activations", {"y", "n"});
    if (r.fp8_activations == "y" && r.precision != "fp8") {
      throw InputError(file, line, "fp8_activations",
                       fmt::format("y needs precision fp8, got precision '{}'", r.precision),
                       "set precision fp8, or leave fp8_activations empty or n");
    }
    if (r.loss_chunks && *r.loss_chunks < 1) {
      throw InputError(file, line, "loss_chunks", "must be at least 1",
                       "chunks of the chunked cross-entropy; 1 = off");
    }
    r.framework = c.choice("framework", framework_names());
    r.grad_reduce_in_bf16 = c.choice("grad_reduce_in_bf16", {"y", "n"});
    if (r.grad_reduce_in_bf16 == "y") {
      if (r.precision != "bf16" && r.precision != "fp8" && !r.precision.empty()) {
        throw InputError(
            file, line, "grad_reduce_in_bf16",
            fmt::format("y needs precision bf16 or fp8, got precision '{}'", r.precision),
            "set precision bf16 or fp8, or leave grad_reduce_in_bf16 empty or n");
      }
      if (r.framework.empty() ||
          framework_traits(*framework_from_name(r.framework)).state != StateKind::megatron_mixed) {
        throw InputError(file, line, "grad_reduce_in_bf16",
                         fmt::format("y needs a framework with fp32 main gradients, got "
                                     "framework '{}'",
                                     r.framework),
                         "set framework megatron or nemo, or leave grad_reduce_in_bf16 empty or n");
      }
    }
    // Token dropping (workload moe.capacity_factor, moe.pad_to_capacity);
    // empty: dropless. A stated n needs a capacity like y: padding is a
    // setting of a token-dropping run.
    {
      const auto row_framework = framework_from_name(r.framework);
      const MoeDispatcher dispatcher = r.moe_dispatcher.empty()
                                           ? MoeDispatcher::framework
                                           : *enum_from_name<MoeDispatcher>(r.moe_dispatcher);
      const std::optional<bool> pad = r.moe_pad_to_capacity.empty()
                                          ? std::nullopt
                                          : std::optional(r.moe_pad_to_capacity == "y");
      if (const auto rule =
              broken_token_drop_rule(r.moe_capacity_factor, pad, row_framework, dispatcher)) {
        const Problem p = token_drop_problem(
            *rule, {"moe_capacity_factor", "moe_pad_to_capacity", "moe_dispatcher", "framework"},
            r.moe_capacity_factor, dispatcher, row_framework);
        throw InputError(file, line, p.key, p.message, p.hint);
      }
    }
    r.compile = c.choice("compile", {"y", "n", "model", "all"});
    if (r.compile != "" && r.compile != "n" && !r.framework.empty() &&
        !takes_torch_compile(*framework_from_name(r.framework))) {
      throw InputError(file, line, "compile",
                       fmt::format("{} does not torch.compile its model or loss", r.framework),
                       "leave compile empty or n for megatron, nemo, deepspeed and "
                       "megatron-deepspeed-2021 rows");
    }
    // CUDA graph capture (workload cuda_graphs): none (or empty), scoped or
    // full, where the row's framework runs that mode.
    r.cuda_graphs = c.choice("cuda_graphs", {"none", "scoped", "full"});
    if (!r.cuda_graphs.empty() && !r.framework.empty()) {
      const CudaGraphs g = cuda_graphs_from_name(r.cuda_graphs);
      if ((framework_traits(*framework_from_name(r.framework)).cuda_graph_modes &
           cuda_graph_bit(g)) == 0) {
        throw InputError(file, line, "cuda_graphs",
                         fmt::format("{} does not run CUDA graphs {}", r.framework, r.cuda_graphs),
                         fmt::format("leave cuda_graphs empty or none, or set a framework that "
                                     "runs {} ({})",
                                     r.cuda_graphs, cuda_graph_framework_names(g)));
      }
    }
    r.metric = c.choice("metric", {"step_time_s", "tokens_per_s_per_gpu", "peak_mem_gib", "mfu",
                                   "gpu_hours", "train_days"});
    if (r.metric.empty()) {
      throw InputError(
          file, line, "metric", "empty metric",
          "one of step_time_s, tokens_per_s_per_gpu, peak_mem_gib, mfu, gpu_hours, train_days");
    }
    const auto v = c.number("value");
    if (!v) throw InputError(file, line, "value", "empty measured value");
    r.value = *v;
    check_measured(r.metric, r.value, c.str("value"), file, line, "value");
    r.train_tokens = c.number("train_tokens");
    if (r.train_tokens && !(*r.train_tokens >= 1 && *r.train_tokens <= 1e16)) {
      throw InputError(
          file, line, "train_tokens",
          fmt::format("must be in [1, 1e16] tokens, got {}", printable(c.str("train_tokens"))),
          "the tokens of the whole training run, e.g. 1.5e13");
    }
    if (is_whole_run_metric(r.metric) && !r.train_tokens) {
      throw InputError(file, line, "train_tokens",
                       fmt::format("metric {} needs the tokens of the whole run", r.metric),
                       "give train_tokens, e.g. 1.5e13 for 15T tokens");
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void check_catalog_models(const std::vector<ValidationRow>& rows, const Catalog& catalog,
                          const std::string& file) {
  for (const ValidationRow& r : rows) {
    const ModelShape* m = named_catalog_model(r, catalog);
    if (!m) continue;
    if (const auto conflict = shape_conflict(r, *m)) {
      throw InputError(file, r.line, conflict->column, conflict->message,
                       fmt::format("leave the shape cells empty to take catalog model '{}' "
                                   "as it is, or name a model the catalog does not have",
                                   m->id));
    }
    if (r.moe_capacity_factor && !m->is_moe()) {
      throw InputError(file, r.line, "moe_capacity_factor",
                       fmt::format("catalog model '{}' has no routed experts", m->id),
                       "leave moe_capacity_factor empty for a dense model");
    }
  }
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
    check_id(f[0], file, line, "id");
    check_id(f[1], file, line, "gpu");
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
