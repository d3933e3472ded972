#include "io/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"

namespace scaleout::io {

namespace {

using json = nlohmann::json;
using Names = std::vector<std::string>;

constexpr long long kMaxInt = std::numeric_limits<int>::max();
constexpr long long kMaxSize = 1LL << 53;  // larger sizes would not round-trip through a double

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// What one pass over the JSON text finds: the 1-based line of every object
// key by dotted key path (keys inside arrays are skipped; nlohmann::json keeps
// no positions, so this gives errors found after parsing their line), the
// first key that appears twice in one object, and the first number too large
// for a double with the key it belongs to. The text is valid JSON up to the
// first error nlohmann::json reports, so the scan is exact that far.
struct KeyScan {
  std::map<std::string, int> lines;
  std::string duplicate;  // dotted path ("a[2].b" inside arrays); empty when none
  int duplicate_line = 0;
  int first_line = 0;    // where the duplicated key first appears
  std::string overflow;  // the number's key path ("" at the top level)
  std::string overflow_text;
  int overflow_line = 0;
};

// The decoded value of a JSON string body (escapes such as \u0061 resolved).
std::string decode_key(const std::string& raw) {
  if (raw.find('\\') == std::string::npos) return raw;
  try {
    return json::parse("\"" + raw + "\"").get<std::string>();
  } catch (const json::exception&) {
    return raw;  // not reached for valid JSON
  }
}

KeyScan scan_keys(const std::string& text) {
  struct Frame {
    bool object;
    bool record;        // its keys go into `lines`
    std::string path;   // for `lines`
    std::string where;  // for messages, with [i] inside arrays
    std::string last_key;
    int index = 0;                    // element index inside an array
    std::map<std::string, int> keys;  // key -> line, objects only
  };
  KeyScan out;
  std::vector<Frame> stack;
  int line = 1;
  // Where a value starting now sits, for messages.
  auto value_where = [&]() -> std::string {
    if (stack.empty()) return "";
    const Frame& top = stack.back();
    if (top.object) return join_path(top.where, top.last_key);
    return top.where + fmt::format("[{}]", top.index);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '{' || c == '[') {
      Frame f{c == '{', false, "", value_where(), "", 0, {}};
      if (stack.empty()) {
        f.record = f.object;
      } else if (f.object && stack.back().object && stack.back().record) {
        f.record = true;
        f.path = join_path(stack.back().path, stack.back().last_key);
      }
      stack.push_back(std::move(f));
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',') {
      if (!stack.empty() && !stack.back().object) ++stack.back().index;
    } else if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) s += text[i++];
        s += text[i];
      }
      size_t j = i + 1;
      while (j < text.size() &&
             (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n')) {
        ++j;
      }
      const bool is_key =
          j < text.size() && text[j] == ':' && !stack.empty() && stack.back().object;
      if (is_key) {
        Frame& top = stack.back();
        top.last_key = decode_key(s);
        if (top.record) out.lines[join_path(top.path, top.last_key)] = line;
        const auto [it, fresh] = top.keys.emplace(top.last_key, line);
        if (!fresh && out.duplicate.empty()) {
          out.duplicate = join_path(top.where, top.last_key);
          out.duplicate_line = line;
          out.first_line = it->second;
        }
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < text.size() &&
             std::string_view("0123456789+-.eE").find(text[j]) != std::string_view::npos) {
        ++j;
      }
      const std::string number = text.substr(i, j - i);
      if (out.overflow_line == 0 && !std::isfinite(std::strtod(number.c_str(), nullptr))) {
        out.overflow = value_where();
        out.overflow_text = number;
        out.overflow_line = line;
      }
      i = j - 1;
    }
  }
  return out;
}

int line_at_offset(const std::string& text, size_t offset) {
  const size_t end = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + end, '\n'));
}

// A JSON value as written, for messages: cut and escaped (printable()); a
// string that is not UTF-8 does not throw.
std::string shown(const json& v) {
  return printable(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// "string \"4096\"", "number 1.5", "an array": what a value is, for errors.
std::string describe(const json& v) {
  if (v.is_string()) return "string " + shown(v);
  if (v.is_boolean()) return "boolean " + v.dump();
  if (v.is_number()) return "number " + v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// Typed, range-checked access to one JSON object of the config. A key whose
// value is null counts as absent, as `transformers` then uses the default.
class Reader {
 public:
  Reader(const json& object, const std::string& file, const std::map<std::string, int>& lines,
         std::string path = {})
      : object_(object), file_(file), lines_(lines), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         const std::string& hint = {}) const {
    const std::string path = join_path(path_, key);
    const auto it = lines_.find(path);
    throw InputError(file_, it == lines_.end() ? 0 : it->second, path, message, hint);
  }

  bool is_null(const std::string& key) const {
    const auto it = object_.find(key);
    return it != object_.end() && it->is_null();
  }

  // The value of the first of `names` that is present and not null, else
  // nullptr; `used` gets the name found.
  const json* find(const Names& names, std::string* used = nullptr) const {
    for (const auto& n : names) {
      const auto it = object_.find(n);
      if (it != object_.end() && !it->is_null()) {
        if (used) *used = n;
        return &*it;
      }
    }
    return nullptr;
  }

  std::optional<long long> optional_size(const Names& names, long long min = 1,
                                         long long max = kMaxInt,
                                         std::string* used = nullptr) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    if (used) *used = key;
    long long x = 0;
    if (v->is_number_unsigned()) {
      const auto u = v->get<unsigned long long>();
      if (u > static_cast<unsigned long long>(max)) {
        fail(key, fmt::format("must be at most {}, got {}", max, u));
      }
      x = static_cast<long long>(u);
    } else if (v->is_number_integer()) {
      x = v->get<long long>();
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (!std::isfinite(d) || std::floor(d) != d) {
        fail(key, fmt::format("must be a whole number, got {}", shown(*v)));
      }
      if (std::fabs(d) > static_cast<double>(kMaxSize)) {
        fail(key, fmt::format("must be at most {}, got {}", max, shown(*v)));
      }
      x = static_cast<long long>(d);
    } else {
      fail(key, "expected an integer, got " + describe(*v));
    }
    if (x < min) {
      fail(key, min == 1 ? fmt::format("must be positive, got {}", x)
                         : fmt::format("must be at least {}, got {}", min, x));
    }
    if (x > max) fail(key, fmt::format("must be at most {}, got {}", max, x));
    return x;
  }

  long long size(const Names& names, long long min = 1, long long max = kMaxInt,
                 std::string* used = nullptr) const {
    if (auto v = optional_size(names, min, max, used)) return *v;
    std::string accepted;
    for (const auto& n : names) accepted += (accepted.empty() ? "" : ", ") + n;
    fail(names.front(), "required key is missing", "accepted names: " + accepted);
  }

  bool flag(const Names& names, bool fallback) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + describe(*v));
    return v->get<bool>();
  }

  // A probability such as a dropout rate, in [0, 1].
  double probability(const Names& names, double fallback) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return fallback;
    if (!v->is_number()) fail(key, "expected a number, got " + describe(*v));
    const double p = v->get<double>();
    if (!(p >= 0.0 && p <= 1.0)) fail(key, "must be between 0 and 1, got " + shown(*v));
    return p;
  }

  std::optional<std::string> string(const std::string& key) const {
    const json* v = find({key});
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, "expected a string, got " + describe(*v));
    return v->get<std::string>();
  }

  // The object at `key`; an empty object when absent.
  Reader child(const std::string& key) const {
    static const json kEmpty = json::object();
    const json* v = find({key});
    if (!v) return Reader(kEmpty, file_, lines_, join_path(path_, key));
    if (!v->is_object()) fail(key, "expected an object, got " + describe(*v));
    return Reader(*v, file_, lines_, join_path(path_, key));
  }

 private:
  const json& object_;
  const std::string& file_;
  const std::map<std::string, int>& lines_;
  std::string path_;
};

// A shape being read, with the names of the keys the final checks refer to.
struct Parsed {
  ModelShape m;
  std::string hidden_key;
  std::string heads_key;
  std::string kv_key;
  std::string top_k_key;
  std::string dense_layers_key;
  bool head_dim_given = false;  // head size not derived from hidden / heads
};

// The sizes every architecture has: layers, hidden, heads, vocabulary.
void read_core(const Reader& r, Parsed& p, const Names& layers, const Names& hidden,
               const Names& heads) {
  p.m.layers = static_cast<int>(r.size(layers));
  p.m.hidden = r.size(hidden, 1, kMaxSize, &p.hidden_key);
  p.m.heads = static_cast<int>(r.size(heads, 1, kMaxInt, &p.heads_key));
  p.m.kv_heads = p.m.heads;
  p.m.vocab = r.size({"vocab_size"}, 1, kMaxSize);
}

// Any dropout probability above zero means masks are kept for backward.
bool any_dropout(const Reader& r, const std::vector<std::pair<Names, double>>& keys) {
  bool on = false;
  for (const auto& [names, fallback] : keys) on = r.probability(names, fallback) > 0 || on;
  return on;
}

// RoPE base and scaling for the launch files: rope_theta, and rope_scaling's
// rope_type (or type, older configs) with its factor; other types are left out.
void read_rope(const Reader& r, ModelShape& m) {
  if (const json* t = r.find({"rope_theta"})) {
    if (!t->is_number()) r.fail("rope_theta", "expected a number, got " + describe(*t));
    const double v = t->get<double>();
    if (!(v >= 1 && v <= 1e12))
      r.fail("rope_theta", "must be between 1 and 1e12, got " + shown(*t));
    m.rope_theta = v;
  }
  const Reader rs = r.child("rope_scaling");
  std::optional<std::string> type = rs.string("rope_type");
  if (!type) type = rs.string("type");
  if (!type || (*type != "llama3" && *type != "yarn" && *type != "linear" && *type != "dynamic")) {
    return;
  }
  double factor = 1;
  if (const json* f = rs.find({"factor"})) {
    if (!f->is_number()) rs.fail("factor", "expected a number, got " + describe(*f));
    factor = f->get<double>();
    if (!(factor >= 1 && factor <= 1e6))
      rs.fail("factor", "must be between 1 and 1e6, got " + shown(*f));
  }
  m.rope_scaling = *type;
  m.rope_scaling_factor = factor;
}

// The Llama-style core (the Llama family, DeepSeek, GPT-OSS): grouped-query heads, the
// head size when given (`head_dim`: the key is read), a SwiGLU MLP of
// intermediate_size, RoPE, RMSNorm, untied embeddings by default, attention dropout.
void read_llama_core(const Reader& r, Parsed& p, bool head_dim) {
  ModelShape& m = p.m;
  read_core(r, p, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"});
  m.kv_heads = static_cast<int>(
      r.optional_size({"num_key_value_heads"}, 1, kMaxInt, &p.kv_key).value_or(m.heads));
  if (const auto d = head_dim ? r.optional_size({"head_dim"}) : std::nullopt) {
    m.head_dim = static_cast<int>(*d);
    p.head_dim_given = true;
  }
  m.ffn = r.size({"intermediate_size"}, 1, kMaxSize);
  m.mlp = MlpKind::swiglu;
  m.position = PositionKind::rope;
  m.norm = NormKind::rmsnorm;
  m.tied_embeddings = r.flag({"tie_word_embeddings"}, false);
  m.dropout = any_dropout(r, {{{"attention_dropout"}, 0.0}});
  read_rope(r, m);
}

// Qwen2MoeConfig / Qwen3MoeConfig: a layer is MoE when it is not in
// mlp_only_layers and (index + 1) is a multiple of decoder_sparse_step; only a
// leading run of dense layers (of intermediate_size) can be expressed.
void read_qwen_moe_layers(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  if (r.optional_size({"decoder_sparse_step"}).value_or(1) != 1) {
    r.fail("decoder_sparse_step", "only 1 (every layer MoE) is supported");
  }
  if (const json* only = r.find({"mlp_only_layers"})) {
    bool prefix = only->is_array();
    for (size_t i = 0; prefix && i < only->size(); ++i) {
      prefix = (*only)[i].is_number_integer() &&
               (*only)[i].get<long long>() == static_cast<long long>(i);
    }
    if (!prefix) {
      r.fail("mlp_only_layers", "only a leading run of dense layers [0, 1, ..., k-1] is supported");
    }
    m.moe.dense_layers = static_cast<int>(only->size());
    p.dense_layers_key = "mlp_only_layers";
  }
}

// LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen2MoeConfig,
// Qwen3Config, Qwen3MoeConfig: gated (SwiGLU) MLP, RoPE, RMSNorm, untied
// embeddings by default. Llama's attention_bias puts biases on Q, K, V and O;
// without mlp_bias it is recorded as qkv_bias (the O bias, h values, is left
// out). Qwen2 always has Q, K, V biases; Qwen3 has none by default, and its
// QK-norm weights (2 x head_dim per layer) are not counted.
void read_llama_family(const Reader& r, const std::string& type, Parsed& p) {
  ModelShape& m = p.m;
  read_llama_core(r, p, true);
  if (type == "qwen3" && !p.head_dim_given) {
    m.head_dim = 128;  // Qwen3Config's default head_dim
    p.head_dim_given = true;
  }
  const bool is_qwen2 = type == "qwen2" || type == "qwen2_moe";
  const bool attention_bias = r.flag({"attention_bias"}, false);
  const bool mlp_bias = r.flag({"mlp_bias"}, false);
  m.linear_bias = attention_bias && mlp_bias;
  m.qkv_bias = is_qwen2 || (attention_bias && !mlp_bias);

  if (type == "mixtral") {
    m.moe.experts = static_cast<int>(r.size({"num_local_experts"}));
    m.moe.top_k = static_cast<int>(r.size({"num_experts_per_tok"}, 1, kMaxInt, &p.top_k_key));
    m.moe.expert_ffn = m.ffn;
  } else if (type == "qwen2_moe" || type == "qwen3_moe") {
    m.moe.experts = static_cast<int>(r.size({"num_experts"}));
    m.moe.top_k = static_cast<int>(r.size({"num_experts_per_tok"}, 1, kMaxInt, &p.top_k_key));
    m.moe.expert_ffn = r.size({"moe_intermediate_size"}, 1, kMaxSize);
    if (type == "qwen2_moe") {
      // One shared expert of shared_expert_intermediate_size, counted as that
      // many routed-expert widths (Qwen2-57B-A14B: 20480 = 8 x 2560); its
      // sigmoid gate (h values per layer) is not counted. Qwen3-MoE has no
      // shared expert.
      const long long shared =
          r.optional_size({"shared_expert_intermediate_size"}, 0, kMaxSize).value_or(0);
      if (shared % m.moe.expert_ffn != 0) {
        r.fail("shared_expert_intermediate_size",
               fmt::format("{} is not a multiple of moe_intermediate_size {}", shared,
                           m.moe.expert_ffn),
               "shared experts are modelled as whole routed-expert widths");
      }
      m.moe.shared_experts = static_cast<int>(shared / m.moe.expert_ffn);
    }
    read_qwen_moe_layers(r, p);
  }
}

// GptOssConfig (gpt-oss-20b, gpt-oss-120b): every layer MoE with
// num_local_experts experts (num_experts in early configs) of
// intermediate_size, num_experts_per_tok per token (experts_per_token in
// early configs), SwiGLU, RoPE, RMSNorm, untied; head_dim 64 by default.
// Attention has biases (attention_bias, true by default) and the experts
// always do; with attention_bias both are recorded as linear_bias, without it
// neither (the experts' biases, 2f + h values each, are then left out). The
// router's bias and the per-head attention sinks are not counted.
// swiglu_limit (7.0 by default) -> activation_clamp.
// layer_types / sliding_window alternate sliding-window (128 tokens) and full
// attention: sliding_window is read, and the "sliding_attention" entries of
// layer_types counted (absent: GptOssConfig's default, every even-indexed
// layer, i.e. ceil(L/2)).
void read_gpt_oss(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_llama_core(r, p, true);
  m.sliding_window = static_cast<int>(r.optional_size({"sliding_window"}).value_or(128));
  if (const json* types = r.find({"layer_types"})) {
    if (!types->is_array() || types->size() != static_cast<size_t>(m.layers)) {
      r.fail("layer_types",
             fmt::format("expected an array of {} strings (one per layer)", m.layers));
    }
    int sliding = 0;
    for (const json& t : *types) {
      const bool known = t.is_string() && (t == "sliding_attention" || t == "full_attention");
      if (!known) {
        r.fail("layer_types",
               "expected \"sliding_attention\" or \"full_attention\", got " + describe(t));
      }
      sliding += t == "sliding_attention" ? 1 : 0;
    }
    m.sliding_layers = sliding;
  } else {
    m.sliding_layers = (m.layers + 1) / 2;
  }
  if (m.sliding_layers == 0) m.sliding_window = 0;
  if (!p.head_dim_given) {
    m.head_dim = 64;  // GptOssConfig's default head_dim
    p.head_dim_given = true;
  }
  m.linear_bias = r.flag({"attention_bias"}, true);
  // swiglu_limit: the clamp on the experts' gate and linear halves
  // (GptOssConfig's default 7.0).
  m.activation_clamp = 7.0;
  if (const json* c = r.find({"swiglu_limit"})) {
    if (!c->is_number()) r.fail("swiglu_limit", "expected a number, got " + describe(*c));
    const double v = c->get<double>();
    if (!(v > 0 && v <= 1e6))
      r.fail("swiglu_limit", "must be above 0 and at most 1e6, got " + shown(*c));
    m.activation_clamp = v;
  }
  m.moe.experts = static_cast<int>(r.size({"num_local_experts", "num_experts"}));
  m.moe.top_k = static_cast<int>(
      r.size({"num_experts_per_tok", "experts_per_token"}, 1, kMaxInt, &p.top_k_key));
  m.moe.expert_ffn = m.ffn;
}

// The GPT-style block of GPT-2, GPT-NeoX, Falcon, OPT, BLOOM and MPT: a
// 2-matrix GELU MLP of `ffn`, LayerNorm, biases per `bias`, embeddings tied per
// tie_word_embeddings (default `tied`). The position encoding is the caller's.
void read_gpt_block(const Reader& r, ModelShape& m, long long ffn, bool bias, bool tied) {
  m.ffn = ffn;
  m.mlp = MlpKind::gelu;
  m.norm = NormKind::layernorm;
  m.linear_bias = bias;
  m.tied_embeddings = r.flag({"tie_word_embeddings"}, tied);
}

// GPT2Config: learned positions (n_positions), 2-matrix GELU MLP of n_inner
// (4h when null), LayerNorm, biases everywhere, tied embeddings, dropout 0.1
// by default.
void read_gpt2(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"n_layer", "num_hidden_layers"}, {"n_embd", "hidden_size"},
            {"n_head", "num_attention_heads"});
  const long long ffn = r.optional_size({"n_inner"}, 1, kMaxSize).value_or(4 * m.hidden);
  m.position = PositionKind::learned;
  m.max_position =
      r.optional_size({"n_positions", "max_position_embeddings"}, 1, kMaxSize).value_or(1024);
  read_gpt_block(r, m, ffn, true, true);
  m.dropout =
      any_dropout(r, {{{"resid_pdrop"}, 0.1}, {{"attn_pdrop"}, 0.1}, {{"embd_pdrop"}, 0.1}});
}

// GPTNeoXConfig: RoPE (on rotary_pct of each head), LayerNorm, biases,
// 2-matrix GELU MLP of intermediate_size, untied embeddings by default. The
// 20B config spells the dropouts attention_probs_dropout_prob and
// hidden_dropout_prob.
void read_gpt_neox(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"});
  m.position = PositionKind::rope;
  read_gpt_block(r, m, r.size({"intermediate_size"}, 1, kMaxSize), true, false);
  m.dropout = any_dropout(r, {{{"attention_dropout", "attention_probs_dropout_prob"}, 0.0},
                              {{"hidden_dropout", "hidden_dropout_prob"}, 0.0}});
}

// FalconConfig (and the RefinedWeb/RefinedWebModel configs it replaced):
// key/value heads are num_kv_heads with the new decoder architecture or
// without multi_query, else 1 (FalconAttention); MLP ffn_hidden_size, 4h when
// null; ALiBi when `alibi`, else RoPE; biases per `bias`; tied embeddings.
void read_falcon(const Reader& r, const std::string& type, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"num_hidden_layers", "n_layer"}, {"hidden_size"},
            {"num_attention_heads", "n_head"});
  const bool new_arch = r.flag({"new_decoder_architecture"}, type == "RefinedWeb");
  const bool multi_query = r.flag({"multi_query"}, true);
  if (new_arch || !multi_query) {
    m.kv_heads = static_cast<int>(
        r.optional_size({"num_kv_heads", "n_head_kv"}, 1, kMaxInt, &p.kv_key).value_or(m.heads));
  } else {
    m.kv_heads = 1;
  }
  const long long ffn = r.optional_size({"ffn_hidden_size"}, 1, kMaxSize).value_or(4 * m.hidden);
  m.position = r.flag({"alibi"}, false) ? PositionKind::alibi : PositionKind::rope;
  read_gpt_block(r, m, ffn, r.flag({"bias"}, false), true);
  m.dropout = any_dropout(r, {{{"attention_dropout"}, 0.0}, {{"hidden_dropout"}, 0.0}});
}

// DeepseekV2Config / DeepseekV3Config (and Kimi K2, whose config.json says
// model_type kimi_k2 for the DeepSeek-V3 architecture and is read with the
// deepseek_v3 defaults): SwiGLU, RoPE, RMSNorm, untied; MoE
// after the first first_k_dense_replace dense layers; multi-head latent
// attention. q_lora_rank null means queries are projected directly. The head
// size recorded is the query/key one, qk_nope_head_dim + qk_rope_head_dim.
void read_deepseek(const Reader& r, const std::string& type, Parsed& p) {
  ModelShape& m = p.m;
  read_llama_core(r, p, false);

  m.moe.experts = static_cast<int>(r.size({"n_routed_experts"}));
  m.moe.top_k = static_cast<int>(r.size({"num_experts_per_tok"}, 1, kMaxInt, &p.top_k_key));
  m.moe.shared_experts = static_cast<int>(
      r.optional_size({"n_shared_experts"}, 0).value_or(type == "deepseek_v3" ? 1 : 0));
  m.moe.expert_ffn = r.size({"moe_intermediate_size"}, 1, kMaxSize);
  m.moe.dense_layers = static_cast<int>(
      r.optional_size({"first_k_dense_replace"}, 0).value_or(type == "deepseek_v3" ? 3 : 0));
  p.dense_layers_key = "first_k_dense_replace";
  // Multi-token prediction modules (DeepSeek-V3 §2.2: one, stored after the
  // last layer); trained with the model, not counted in num_hidden_layers.
  m.mtp_layers = static_cast<int>(r.optional_size({"num_nextn_predict_layers"}, 0, 16).value_or(0));
  // Router: DeepSeek-V3 scores with a sigmoid (scoring_func) and selects with
  // a per-expert bias (topk_method noaux_tc); V2 and V3 route within
  // topk_group of n_group groups and scale by routed_scaling_factor.
  if (const auto f = r.string("scoring_func")) m.moe.sigmoid_router = *f == "sigmoid";
  if (const auto t = r.string("topk_method")) m.moe.expert_bias = *t == "noaux_tc";
  m.moe.router_groups = static_cast<int>(r.optional_size({"n_group"}).value_or(0));
  m.moe.router_group_topk = static_cast<int>(r.optional_size({"topk_group"}).value_or(0));
  if (m.moe.router_groups > 0 &&
      (m.moe.experts % m.moe.router_groups != 0 || m.moe.router_group_topk > m.moe.router_groups)) {
    r.fail("n_group", fmt::format("{} experts in {} groups, {} of them per token", m.moe.experts,
                                  m.moe.router_groups, m.moe.router_group_topk));
  }
  if (const json* f = r.find({"routed_scaling_factor"}); f && f->is_number()) {
    const double v = f->get<double>();
    if (v > 0 && v <= 1e6) m.moe.routed_scaling = v;
  }
  if (r.optional_size({"moe_layer_freq"}).value_or(1) != 1) {
    r.fail("moe_layer_freq", "only 1 (every layer after the dense ones is MoE) is supported");
  }

  m.mla.q_lora_rank = r.is_null("q_lora_rank") ? 0 : static_cast<int>(r.size({"q_lora_rank"}, 0));
  m.mla.kv_lora_rank = static_cast<int>(r.size({"kv_lora_rank"}));
  m.mla.qk_nope_head_dim = static_cast<int>(r.size({"qk_nope_head_dim"}));
  m.mla.qk_rope_head_dim = static_cast<int>(r.size({"qk_rope_head_dim"}));
  m.mla.v_head_dim = static_cast<int>(r.size({"v_head_dim"}));
  const long long head_dim =
      static_cast<long long>(m.mla.qk_nope_head_dim) + m.mla.qk_rope_head_dim;
  if (head_dim > kMaxInt) {
    r.fail("qk_rope_head_dim",
           fmt::format("qk_nope_head_dim + qk_rope_head_dim must be at most {}, got {}", kMaxInt,
                       head_dim));
  }
  m.head_dim = static_cast<int>(head_dim);
  p.head_dim_given = true;
}

// OPTConfig: learned positions with a table of max_position_embeddings + 2
// (OPTLearnedPositionalEmbedding's offset), 2-matrix ReLU MLP of ffn_dim,
// LayerNorm, biases per enable_bias, tied embeddings, dropout 0.1 by default.
// The embedding projection of word_embed_proj_dim != hidden (OPT-350M) is not
// modelled.
void read_opt(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"});
  const long long ffn = r.size({"ffn_dim"}, 1, kMaxSize);
  m.position = PositionKind::learned;
  m.max_position = r.optional_size({"max_position_embeddings"}, 1, kMaxSize).value_or(2048) + 2;
  read_gpt_block(r, m, ffn, r.flag({"enable_bias"}, true), true);
  m.dropout = any_dropout(r, {{{"dropout"}, 0.1}, {{"attention_dropout"}, 0.0}});
}

// BloomConfig: ALiBi, LayerNorm, biases, 2-matrix GELU MLP of 4h, tied
// embeddings. Older configs spell hidden_size n_embed. The LayerNorm after the
// word embeddings (2h) is not modelled.
void read_bloom(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"},
            {"n_head", "num_attention_heads"});
  m.position = PositionKind::alibi;
  read_gpt_block(r, m, 4 * m.hidden, true, true);
  m.dropout = any_dropout(r, {{{"attention_dropout"}, 0.0}, {{"hidden_dropout"}, 0.0}});
}

// MptConfig with its attn_config: 2-matrix GELU MLP of expansion_ratio *
// d_model, ALiBi when attn_config.alibi, else learned positions of
// max_seq_len; biases unless no_bias; multi-query attention has 1 key/value
// head, grouped-query attention kv_n_heads; tied embeddings.
void read_mpt(const Reader& r, Parsed& p) {
  ModelShape& m = p.m;
  read_core(r, p, {"n_layers"}, {"d_model"}, {"n_heads"});
  const long long ratio = r.optional_size({"expansion_ratio"}).value_or(4);
  if (ratio > kMaxSize / m.hidden) {
    r.fail("expansion_ratio",
           fmt::format("expansion_ratio x d_model must be at most {}, got {} x {}", kMaxSize, ratio,
                       m.hidden));
  }
  read_gpt_block(r, m, ratio * m.hidden, !r.flag({"no_bias"}, true), true);

  const Reader attn = r.child("attn_config");
  const std::string attn_type = attn.string("attn_type").value_or("multihead_attention");
  if (attn_type == "multiquery_attention") {
    m.kv_heads = 1;
  } else if (attn_type == "grouped_query_attention") {
    m.kv_heads = static_cast<int>(attn.optional_size({"kv_n_heads"}).value_or(1));
    p.kv_key = "attn_config.kv_n_heads";
  } else if (attn_type != "multihead_attention") {
    const std::vector<std::string> kinds = {"multihead_attention", "multiquery_attention",
                                            "grouped_query_attention"};
    attn.fail("attn_type", fmt::format("unsupported attention type '{}'", printable(attn_type)),
              suggestion(attn_type, kinds));
  }
  if (attn.flag({"alibi"}, false)) {
    m.position = PositionKind::alibi;
  } else {
    m.position = PositionKind::learned;
    m.max_position = r.optional_size({"max_seq_len"}, 1, kMaxSize).value_or(2048);
  }
  m.dropout = any_dropout(r, {{{"resid_pdrop"}, 0.0}, {{"emb_pdrop"}, 0.0}}) ||
              any_dropout(attn, {{{"attn_pdrop"}, 0.0}});
}

struct Architecture {
  const char* model_type;
  std::vector<const char*> classes;  // `architectures` entries that mean it
};

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> kAll = {
      {"llama", {"LlamaForCausalLM"}},
      {"mistral", {"MistralForCausalLM"}},
      {"mixtral", {"MixtralForCausalLM"}},
      {"qwen2", {"Qwen2ForCausalLM"}},
      {"qwen2_moe", {"Qwen2MoeForCausalLM"}},
      {"qwen3", {"Qwen3ForCausalLM"}},
      {"qwen3_moe", {"Qwen3MoeForCausalLM"}},
      {"gpt_oss", {"GptOssForCausalLM"}},
      {"gpt2", {"GPT2LMHeadModel"}},
      {"gpt_neox", {"GPTNeoXForCausalLM"}},
      {"falcon", {"FalconForCausalLM", "RWForCausalLM"}},
      {"deepseek_v2", {"DeepseekV2ForCausalLM"}},
      {"deepseek_v3", {"DeepseekV3ForCausalLM"}},
      {"kimi_k2", {}},  // Kimi K2 names DeepseekV3ForCausalLM; read as deepseek_v3
      {"opt", {"OPTForCausalLM"}},
      {"bloom", {"BloomForCausalLM"}},
      {"mpt", {"MptForCausalLM", "MPTForCausalLM"}},
  };
  return kAll;
}

std::vector<std::string> model_types() {
  std::vector<std::string> out;
  for (const auto& a : architectures()) out.emplace_back(a.model_type);
  return out;
}

// The model_type to read the config as: `model_type`, else the type of
// `architectures[0]`. Old Falcon configs say RefinedWeb or RefinedWebModel.
std::string architecture_of(const Reader& r) {
  if (auto type = r.string("model_type")) {
    if (*type == "RefinedWeb" || *type == "RefinedWebModel") return *type;
    for (const auto& a : architectures()) {
      if (*type == a.model_type) return *type;
    }
    r.fail("model_type", fmt::format("unsupported model_type '{}'", printable(*type)),
           suggestion(*type, model_types()));
  }
  const json* list = r.find({"architectures"});
  if (!list) {
    r.fail("model_type", "required key is missing", "accepted names: model_type, architectures");
  }
  if (!list->is_array() || list->empty() || !(*list)[0].is_string()) {
    r.fail("architectures", "expected a list of model class names, got " + describe(*list));
  }
  const std::string cls = (*list)[0].get<std::string>();
  std::vector<std::string> classes;
  for (const auto& a : architectures()) {
    for (const char* c : a.classes) {
      if (cls == c) return a.model_type;
      classes.emplace_back(c);
    }
  }
  r.fail("architectures", fmt::format("unsupported architecture '{}'", printable(cls)),
         suggestion(cls, classes));
}

// Checks that need the whole shape: head counts that divide, MoE counts that fit.
void check(const Reader& r, const Parsed& p) {
  const ModelShape& m = p.m;
  if (!p.head_dim_given && m.hidden % m.heads != 0) {
    r.fail(p.heads_key,
           fmt::format("hidden size {} is not divisible by {} attention heads", m.hidden, m.heads),
           fmt::format("check {} and {}, or give head_dim", p.hidden_key, p.heads_key));
  }
  if (m.heads % m.kv_heads != 0) {
    r.fail(p.kv_key,
           fmt::format("{} attention heads are not divisible by {} key/value heads", m.heads,
                       m.kv_heads),
           "each key/value head must serve the same number of query heads");
  }
  if (m.is_moe() && m.moe.top_k > m.moe.experts) {
    r.fail(p.top_k_key, fmt::format("{} experts per token exceed the {} routed experts",
                                    m.moe.top_k, m.moe.experts));
  }
  if (m.moe.dense_layers > m.layers) {
    r.fail(p.dense_layers_key,
           fmt::format("{} dense layers exceed the {} layers", m.moe.dense_layers, m.layers));
  }
}

}  // namespace

ModelShape read_hf_config(const std::string& text, const std::string& file) {
  if (text.find('\0') != std::string::npos) {
    throw InputError(file, 0, "", "file is binary (contains NUL bytes), expected JSON text");
  }
  json top;
  try {
    top = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts the characters read, the offending one included.
    std::string detail = e.what();
    const size_t colon = detail.find(": ", detail.find("parse error"));
    if (colon != std::string::npos) detail = detail.substr(colon + 2);
    throw InputError(file, line_at_offset(text, e.byte > 0 ? e.byte - 1 : 0), "",
                     "not valid JSON: " + printable(detail, 200),
                     "check commas, quotes and brackets");
  } catch (const json::out_of_range& e) {
    // A number too large for a double (1e400): nlohmann::json gives no
    // position, so the scan finds the first such number and its key.
    const KeyScan scan = scan_keys(text);
    std::string detail = e.what();
    const size_t bracket = detail.find("] ");
    if (bracket != std::string::npos) detail = detail.substr(bracket + 2);
    throw InputError(file, scan.overflow_line, scan.overflow,
                     "not valid JSON: " + printable(detail, 120),
                     "numbers must fit in a double (up to 1.8e308)");
  }
  if (!top.is_object()) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    throw InputError(file, line_at_offset(text, first == std::string::npos ? 0 : first), "",
                     "expected a JSON object of config keys, got " + describe(top));
  }
  const KeyScan scan = scan_keys(text);
  if (!scan.duplicate.empty()) {
    // nlohmann::json keeps the last value, other readers the first.
    throw InputError(file, scan.duplicate_line, scan.duplicate,
                     fmt::format("duplicate key (first given at line {})", scan.first_line),
                     "give each key once; JSON readers disagree on which value wins");
  }
  const std::map<std::string, int>& lines = scan.lines;
  const Reader r(top, file, lines);

  const std::string type = architecture_of(r);
  Parsed p;
  if (type == "gpt2") {
    read_gpt2(r, p);
  } else if (type == "gpt_neox") {
    read_gpt_neox(r, p);
  } else if (type == "falcon" || type == "RefinedWeb" || type == "RefinedWebModel") {
    read_falcon(r, type, p);
  } else if (type == "deepseek_v2" || type == "deepseek_v3" || type == "kimi_k2") {
    read_deepseek(r, type == "kimi_k2" ? "deepseek_v3" : type, p);
  } else if (type == "gpt_oss") {
    read_gpt_oss(r, p);
  } else if (type == "opt") {
    read_opt(r, p);
  } else if (type == "bloom") {
    read_bloom(r, p);
  } else if (type == "mpt") {
    read_mpt(r, p);
  } else {
    read_llama_family(r, type, p);
  }
  check(r, p);

  ModelShape& m = p.m;
  // The id is the file name, so it must be a name: it reaches reports and
  // launch files. `_name_or_path` is kept as the name only when it is a valid
  // id too (a Hub name such as meta-llama/Meta-Llama-3-8B); a local path or
  // anything else gives way to the id.
  m.id = std::filesystem::path(file).stem().string();
  if (!is_valid_id(m.id)) {
    throw InputError(file, 0, "",
                     fmt::format("the file name gives the model id, and '{}' is not a valid id",
                                 printable(m.id)),
                     std::string("rename the file; ids are ") + kIdCharset);
  }
  const std::optional<std::string> name = r.string("_name_or_path");
  m.name = name && is_valid_id(*name) ? *name : m.id;
  m.source = "Hugging Face config.json: " + printable(file, 4096);
  return m;
}

}  // namespace scaleout::io
