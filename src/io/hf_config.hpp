// Reads a Hugging Face `config.json` (the file `transformers` saves next to
// the weights) into a ModelShape.
//
// The architecture comes from `model_type`, or from `architectures[0]` when
// `model_type` is absent. Supported: llama, mistral, mixtral, qwen2,
// qwen2_moe, gpt2, gpt_neox, falcon (also the older RefinedWeb/RefinedWebModel
// configs), deepseek_v2, deepseek_v3, opt, bloom, mpt. Each architecture reads
// the keys its `transformers` configuration class defines, and a key the file
// leaves out (or sets to null) takes that class's default where the class has
// one; the sizes (layers, hidden, heads, vocabulary, MLP width where the
// class has no rule for it) are required. Keys the planner does not need are
// ignored.
#pragma once

#include <string>

#include "model/transformer.hpp"

namespace scaleout::io {

// Parses `text`, the contents of the config file `file` (used in errors, for
// the id, and in `source`). id is the file name without directory and
// extension; name is `_name_or_path` when the config has one, else the id.
// Throws InputError on invalid JSON (with its line), an unsupported
// architecture, a missing required key, a value of the wrong type or range,
// and head counts that do not divide (hidden by heads when there is no
// head_dim, heads by key/value heads).
ModelShape read_hf_config(const std::string& text, const std::string& file);

}  // namespace scaleout::io
