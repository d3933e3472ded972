// read_workload against the bundled examples and against one bad input per
// kind of mistake. Each bad input must fail with the exact text the user sees:
// "file:line: key: message (hint)".
#include "io/workload_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"

namespace scaleout::io {
namespace {

const Catalog& catalog() { return builtin_catalog(); }

WorkloadFile read(const std::string& text, const std::string& dir = "") {
  return read_workload(text, "w.yaml", dir, catalog());
}

// A valid workload, one key per line so that errors have known lines.
const std::string kBase =
    "model: llama3-8b\n"        // 1
    "seq_len: 4096\n"           // 2
    "global_batch: 64\n"        // 3
    "precision: bf16\n"         // 4
    "optimizer: adam\n"         // 5
    "framework: megatron\n"     // 6
    "layout:\n"                 // 7
    "  tp: 2\n"                 // 8
    "  micro_batch: 1\n"        // 9
    "  recompute: selective\n"  // 10
    "cluster:\n"                // 11
    "  server: dgx-h100\n"      // 12
    "  nodes: 1\n";             // 13

// A valid LoRA fine-tune.
const std::string kFinetune =
    "model: llama3-8b\n"     // 1
    "task: finetune\n"       // 2
    "finetune:\n"            // 3
    "  method: lora\n"       // 4
    "  rank: 16\n"           // 5
    "cluster:\n"             // 6
    "  server: dgx-h100\n";  // 7

// A valid serving workload.
const std::string kServe =
    "model: llama3-70b\n"      // 1
    "task: inference\n"        // 2
    "inference:\n"             // 3
    "  prompt_tokens: 2048\n"  // 4
    "  output_tokens: 256\n"   // 5
    "  weights: fp8\n"         // 6
    "  tpot_ms: 50\n"          // 7
    "layout:\n"                // 8
    "  tp: 4\n"                // 9
    "cluster:\n"               // 10
    "  server: dgx-h100\n";    // 11

// A small inline model; one key per line.
const std::string kInline =
    "model:\n"               // 1
    "  layers: 4\n"          // 2
    "  hidden: 1536\n"       // 3
    "  heads: 12\n"          // 4
    "  kv_heads: 4\n"        // 5
    "  vocab: 1000\n"        // 6
    "cluster:\n"             // 7
    "  server: dgx-h100\n";  // 8

// `text` with its first occurrence of `from` replaced by `to`; a text that
// cannot parse when `from` is missing, so that a stale case fails loudly.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) return "edit failed: '" + from + "' not found";
  return text.replace(at, from.size(), to);
}

struct BadCase {
  const char* name;
  std::string text;
  std::string expected;  // e.what()
};

std::string error_of(const std::string& text, const std::string& dir = "") {
  try {
    read(text, dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

class WorkloadReaderBad : public testing::TestWithParam<BadCase> {};

TEST_P(WorkloadReaderBad, ReportsFileLineKeyAndHint) {
  EXPECT_EQ(error_of(GetParam().text), GetParam().expected) << GetParam().text;
}

const std::vector<BadCase> kBadCases = {
    {"Fp8ParamGatherWithBf16",
     with(kBase, "micro_batch: 1", "micro_batch: 1\n  fp8_param_gather: true"),
     "w.yaml:10: layout.fp8_param_gather: needs precision: fp8 with framework megatron or nemo "
     "(Megatron-LM's --fp8-param-gather) (remove it, or set precision: fp8 and framework: "
     "megatron)"},
    {"Fp8ParamGatherWithoutDistributedOptimizer",
     with(with(kBase, "precision: bf16", "precision: fp8"), "micro_batch: 1",
          "micro_batch: 1\n  fp8_param_gather: true"),
     "w.yaml:10: layout.fp8_param_gather: fp8_param_gather needs the distributed optimizer (zero "
     ">= 1) (set zero: 1; Megatron-LM refuses --fp8-param-gather without "
     "--use-distributed-optimizer)"},
    {"RecomputeModuleUnknown",
     with(kBase, "  recompute: selective\n",
          "  recompute: selective\n  recompute_modules: [core_attn, moe_atc]\n"),
     "w.yaml:11: layout.recompute_modules: unknown module 'moe_atc' (did you mean 'moe_act'? "
     "accepted: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts)"},
    {"RecomputeModuleTwice",
     with(kBase, "  recompute: selective\n",
          "  recompute: selective\n  recompute_modules: [mlp, mlp]\n"),
     "w.yaml:11: layout.recompute_modules: 'mlp' given twice (name each module once)"},
    {"RecomputeModulesWithoutSelective",
     with(kBase, "  recompute: selective\n", "  recompute: full\n  recompute_modules: [mlp]\n"),
     "w.yaml:11: layout.recompute_modules: names the sub-blocks selective recompute re-runs, but "
     "recompute is full (set recompute: selective, or leave recompute_modules out)"},
    {"RecomputeModulesWithoutRecompute",
     with(kBase, "  recompute: selective\n", "  recompute_modules: [mlp]\n"),
     "w.yaml:10: layout.recompute_modules: names the sub-blocks selective recompute re-runs, but "
     "recompute is not given (set recompute: selective, or leave recompute_modules out)"},
    {"RecomputeModuleTheModelLacks",
     with(kBase, "  recompute: selective\n",
          "  recompute: selective\n  recompute_modules: [mla_up_proj]\n"),
     "w.yaml:11: layout.recompute_modules: mla_up_proj needs multi-latent attention; model "
     "'llama3-8b' has none (leave mla_up_proj out)"},
    {"RankOrderNotAPermutation",
     with(kBase, "micro_batch: 1", "micro_batch: 1\n  order: tp-dp-dp-pp"),
     "w.yaml:10: layout.order: 'tp-dp-dp-pp' is not an order of tp, cp, dp and pp (write all four "
     "once, innermost first, e.g. tp-cp-dp-pp)"},
    // --- misspelt keys ---------------------------------------------------------------------
    {"MisspeltTopLevelKey", with(kBase, "seq_len:", "seq_lenght:"),
     "w.yaml:2: seq_lenght: unknown key (did you mean 'seq_len'?)"},
    {"MisspeltLayoutKey", with(kBase, "micro_batch:", "micro_bach:"),
     "w.yaml:9: layout.micro_bach: unknown key (did you mean 'micro_batch'?)"},
    {"MisspeltClusterKey", with(kBase, "nodes:", "node:"),
     "w.yaml:13: cluster.node: unknown key (did you mean 'nodes'?)"},
    {"MisspeltFinetuneKey", with(kFinetune, "rank:", "rnak:"),
     "w.yaml:5: finetune.rnak: unknown key (did you mean 'rank'?)"},
    {"MisspeltInlineModelKey", with(kInline, "hidden:", "hiden:"),
     "w.yaml:3: model.hiden: unknown key (did you mean 'hidden'?)"},
    {"MisspeltModelKey", with(kBase, "model:", "modle:"),
     "w.yaml:1: modle: unknown key (did you mean 'model'?)"},
    {"MisspeltServerKey", with(kBase, "server:", "sever:"),
     "w.yaml:12: cluster.sever: unknown key (did you mean 'server'?)"},
    {"DuplicateTopLevelKey", with(kBase, "global_batch: 64\n", "seq_len: 2048\n"),
     "w.yaml:3: seq_len: duplicate key (it is already set on line 2; keep one)"},
    {"DuplicateLayoutKey", with(kBase, "  micro_batch: 1\n", "  tp: 4\n"),
     "w.yaml:9: layout.tp: duplicate key (it is already set on line 8; keep one)"},

    // --- misspelt values -------------------------------------------------------------------
    {"MisspeltPrecision", with(kBase, "bf16", "bf61"),
     "w.yaml:4: precision: unknown value 'bf61' (did you mean 'bf16'?)"},
    {"MisspeltRecompute", with(kBase, "selective", "selectve"),
     "w.yaml:10: layout.recompute: unknown value 'selectve' (did you mean 'selective'?)"},
    {"UnknownOptimizer", with(kBase, "optimizer: adam", "optimizer: adamw"),
     "w.yaml:5: optimizer: unknown value 'adamw' (did you mean 'adam'?)"},
    {"MisspeltTask", with(kBase, "optimizer: adam", "task: pretrian"),
     "w.yaml:5: task: unknown value 'pretrian' (did you mean 'pretrain'?)"},
    {"MisspeltFramework", with(kBase, "megatron", "megatorn"),
     "w.yaml:6: framework: unknown value 'megatorn' (did you mean 'megatron'?)"},
    {"MisspeltFinetuneMethod", with(kFinetune, "method: lora", "method: qlorra"),
     "w.yaml:4: finetune.method: unknown value 'qlorra' (did you mean 'qlora'?)"},
    {"NotABoolean", with(kBase, "  micro_batch: 1\n", "  sp: maybe\n"),
     "w.yaml:9: layout.sp: expected true or false, got 'maybe'"},
    // --- serving workloads ------------------------------------------------------------------
    {"InferenceRejectsTrainingKey", with(kBase, "optimizer: adam", "task: inference"),
     "w.yaml:2: seq_len: is a training key; task: inference does not use it (set "
     "inference.prompt_tokens and inference.output_tokens)"},
    {"InferenceRejectsPrecision",
     with(kServe, "task: inference\n", "task: inference\nprecision: fp8\n"),
     "w.yaml:3: precision: is a training key; task: inference does not use it (set "
     "inference.weights (bf16, fp8, int8, int4) and inference.kv_cache)"},
    {"InferenceRejectsZero", with(kServe, "  tp: 4\n", "  tp: 4\n  zero: 1\n"),
     "w.yaml:10: layout.zero: is a training setting; a serving replica takes tp, pp and ep "
     "(remove it (dp is the replica count, which plan sizes from the request rate))"},
    {"InferenceMisspeltKey", with(kServe, "output_tokens:", "output_token:"),
     "w.yaml:5: inference.output_token: unknown key (did you mean 'output_tokens'?)"},
    {"InferenceMisspeltWeights", with(kServe, "weights: fp8", "weights: fp4"),
     "w.yaml:6: inference.weights: unknown value 'fp4' (did you mean 'fp8'?)"},
    {"InferenceZeroPrompt", with(kServe, "prompt_tokens: 2048", "prompt_tokens: 0"),
     "w.yaml:4: inference.prompt_tokens: 0 is out of range (expected a whole number from 1 to "
     "10000000)"},
    {"InferenceBlockNeedsTask", with(kServe, "task: inference\n", ""),
     "w.yaml:3: inference: inference settings need task: inference (set task: inference, or "
     "remove the inference block)"},
    {"InferenceTpSplitsHeads", with(kServe, "tp: 4", "tp: 3"),
     "w.yaml:9: layout.tp: tp 3 does not split the model's 64 attention heads and 8 key/value "
     "heads (use a tp that divides the head count, e.g. 1, 2, 4 or 8)"},
    {"InferenceRejectsReliability", kServe + "reliability:\n  checkpoint_interval_h: 1\n",
     "w.yaml:13: reliability: is a training key; task: inference does not use it (remove it; "
     "serving plans do not model failures or checkpoints)"},
    {"InferenceRejectsDeadline", kServe + "constraints:\n  deadline_days: 3\n",
     "w.yaml:13: constraints.deadline_days: is a training constraint; a serving plan has none "
     "(give inference.request_rate, inference.ttft_ms and inference.tpot_ms instead)"},

    // --- wrong types -----------------------------------------------------------------------
    {"ListForNumber", with(kBase, "seq_len: 4096", "seq_len: [1, 2]"),
     "w.yaml:2: seq_len: expected a number, got a list"},
    {"MappingForString", with(kBase, "framework: megatron", "framework: {name: megatron}"),
     "w.yaml:6: framework: expected a string, got a mapping"},
    {"WordForNumber", with(kBase, "tp: 2", "tp: abc"),
     "w.yaml:8: layout.tp: expected a number, got 'abc'"},
    {"LayoutNotAMapping",
     with(kBase, "layout:\n  tp: 2\n  micro_batch: 1\n  recompute: selective\n",
          "layout: [2, 1]\n"),
     "w.yaml:7: layout: expected a mapping of keys to values, got a list"},
    {"ModelIsAList", with(kBase, "model: llama3-8b", "model: [llama3-8b]"),
     "w.yaml:1: model: expected a string, got a list"},
    {"ModelMissing", with(kBase, "model: llama3-8b\n", ""),
     "w.yaml:1: model: missing required key (name a zoo model (see `scaleout catalog models`), a "
     "config.json path or a mapping)"},

    // --- numbers out of range --------------------------------------------------------------
    {"ZeroTp", with(kBase, "tp: 2", "tp: 0"),
     "w.yaml:8: layout.tp: 0 is out of range (expected a whole number from 1 to 1000000)"},
    {"NegativeSeqLen", with(kBase, "seq_len: 4096", "seq_len: -5"),
     "w.yaml:2: seq_len: -5 is out of range (expected a whole number from 1 to 100000000)"},
    {"FractionalTp", with(kBase, "tp: 2", "tp: 2.5"),
     "w.yaml:8: layout.tp: expected a whole number, got 2.5"},
    {"YamlNan", with(kBase, "seq_len: 4096", "seq_len: .nan"),
     "w.yaml:2: seq_len: '.nan' is not a finite number (use a finite decimal value such as "
     "1.5e12)"},
    {"YamlInfinity", with(kBase, "optimizer: adam", "tokens: .inf"),
     "w.yaml:5: tokens: '.inf' is not a finite number (use a finite decimal value such as 1.5e12)"},
    {"YamlMinusInfinity", with(kBase, "optimizer: adam", "tokens: -.Inf"),
     "w.yaml:5: tokens: '-.Inf' is not a finite number (use a finite decimal value such as "
     "1.5e12)"},
    {"PlainNan", with(kBase, "optimizer: adam", "tokens: nan"),
     "w.yaml:5: tokens: 'nan' is not a finite number (use a finite decimal value such as 1.5e12)"},
    {"OverflowingNumber", with(kBase, "optimizer: adam", "tokens: 1e999"),
     "w.yaml:5: tokens: '1e999' is not a finite number (use a finite decimal value such as "
     "1.5e12)"},
    {"HugeTokens", with(kBase, "optimizer: adam", "tokens: 1e30"),
     "w.yaml:5: tokens: 1e30 is out of range (expected a value from 0 to 1e+18)"},
    {"HugeNodes", with(kBase, "nodes: 1", "nodes: 1e12"),
     "w.yaml:13: cluster.nodes: 1e12 is out of range (expected a whole number from 1 to "
     "1000000)"},
    {"ZeroStageTooHigh", with(kBase, "  micro_batch: 1\n", "  zero: 4\n"),
     "w.yaml:9: layout.zero: 4 is out of range (expected a whole number from 0 to 3)"},
    {"TooManyGpusInCluster", with(kBase, "nodes: 1", "nodes: 200000"),
     "w.yaml:12: cluster: 1600000 GPUs is more than the supported 1000000"},
    {"LayoutProductOverflows",
     with(kBase, "  micro_batch: 1\n", "  pp: 1000000\n  dp: 1000000\n  cp: 1000000\n"),
     "w.yaml:8: layout: tp 2 x pp 1000000 x dp 1000000 x cp 1000000 is more than the supported "
     "1000000 GPUs"},

    // --- layouts that do not fit the model or the cluster -----------------------------------
    {"TpDoesNotDivideHeads", with(kBase, "tp: 2", "tp: 3"),
     "w.yaml:8: layout.tp: tp 3 does not divide the model's 32 attention heads (use a tp that "
     "divides the head count, e.g. 1, 2, 4 or 8)"},
    {"TpAndKvHeads", with(kInline, "cluster:", "layout: {tp: 6, micro_batch: 1}\ncluster:"),
     "w.yaml:7: layout.tp: tp 6 and the model's 4 key/value heads do not divide one another (use "
     "a tp that divides kv_heads or is a multiple of it)"},
    {"PpLargerThanLayers", with(with(kBase, "tp: 2", "pp: 64"), "nodes: 1", "nodes: 8"),
     "w.yaml:8: layout.pp: pp 64 is larger than the model's 32 layers (use at most one pipeline "
     "stage per layer)"},
    {"InterleaveWithoutPp", with(kBase, "micro_batch: 1", "interleave: 2"),
     "w.yaml:9: layout.interleave: interleave > 1 needs pipeline parallelism (set layout.pp > 1 "
     "or interleave: 1)"},
    {"InterleaveMoreChunksThanLayers", with(kBase, "  tp: 2\n", "  pp: 4\n  interleave: 9\n"),
     "w.yaml:9: layout.interleave: 32 layers are fewer than pp 4 x interleave 9 pipeline chunks "
     "(lower interleave or pp so that every chunk holds at least one layer)"},
    {"InterleaveUnderDeepSpeed",
     with(with(kBase, "framework: megatron", "framework: deepspeed"), "  tp: 2\n",
          "  pp: 4\n  interleave: 2\n"),
     "w.yaml:9: layout.interleave: DeepSpeed (ZeRO, Megatron-DeepSpeed) has no interleaved "
     "pipeline schedule (its pipeline engine runs 1F1B over one model chunk per stage) (set "
     "interleave: 1, or a framework with an interleaved schedule (megatron, nemo, torchtitan))"},
    {"FirstStageLayersLeaveAnUnevenRest",
     with(kBase, "  tp: 2\n", "  pp: 4\n  first_stage_layers: 7\n"),
     "w.yaml:9: layout.first_stage_layers: the 25 layers left after first_stage_layers 7 and "
     "last_stage_layers 0 do not split evenly over the 3 other stage(s) (choose sizes that leave "
     "a multiple of 3 layers: Megatron-LM splits the rest evenly)"},
    {"PipelineScheduleTheFrameworkLacks",
     with(kBase, "  tp: 2\n", "  pp: 2\n  pipeline_schedule: dualpipe\n"),
     "w.yaml:9: layout.pipeline_schedule: Megatron-LM does not ship the dualpipe pipeline "
     "schedule (use pipeline_schedule: 1f1b (interleave > 1 for the interleaved one), or a "
     "framework that runs dualpipe: other)"},
    {"PipelineScheduleUnknown",
     with(kBase, "  tp: 2\n", "  pp: 2\n  pipeline_schedule: dualpipe2\n"),
     "w.yaml:9: layout.pipeline_schedule: unknown value 'dualpipe2' (did you mean 'dualpipe'?)"},
    {"PipelineScheduleWithInterleave",
     with(with(kBase, "  tp: 2\n", "  pp: 2\n  interleave: 2\n  pipeline_schedule: zb1p\n"),
          "framework: megatron", "framework: other"),
     "w.yaml:10: layout.pipeline_schedule: pipeline_schedule zb1p places its own model chunks; "
     "it does not take interleave 2 (leave interleave out (or 1), or use pipeline_schedule: "
     "1f1b)"},
    {"LastStageLayersWithoutPp",
     with(kBase, "  tp: 2\n", "  tp: 2\n  pp: 1\n  last_stage_layers: 4\n"),
     "w.yaml:10: layout.last_stage_layers: first_stage_layers and last_stage_layers size pipeline "
     "stages, but pp is 1 (set layout.pp > 1, or leave first_stage_layers and last_stage_layers "
     "out)"},
    {"CpDoesNotDivideSeqLen", with(with(kBase, "seq_len: 4096", "seq_len: 1000"), "tp: 2", "cp: 8"),
     "w.yaml:8: layout.cp: seq_len 1000 is not divisible by 2 * cp = 16 (context parallelism "
     "splits each sequence into 2*cp load-balanced chunks)"},
    {"EpForDenseModel", with(kBase, "tp: 2", "ep: 2"),
     "w.yaml:8: layout.ep: ep > 1 needs a mixture-of-experts model (set ep: 1 for dense models)"},
    {"EpDoesNotDivideExperts",
     with(with(kBase, "llama3-8b", "mixtral-8x7b"), "  micro_batch: 1\n",
          "  ep: 3\n  micro_batch: 1\n"),
     "w.yaml:9: layout.ep: ep 3 does not divide the model's 8 experts (choose ep among the "
     "divisors of the expert count)"},
    {"GlobalBatchNotMultiple", with(kBase, "global_batch: 64", "global_batch: 66"),
     "w.yaml:3: global_batch: global_batch 66 is not a multiple of micro_batch 1 x dp 4 (each "
     "step must be a whole number of micro-batches on every data-parallel rank)"},
    {"LayoutGpusNotClusterGpus", with(kBase, "  micro_batch: 1\n", "  dp: 2\n"),
     "w.yaml:8: layout: tp 2 x pp 1 x dp 2 x cp 1 = 4 GPUs, but the cluster has 8 (make the "
     "parallel sizes multiply to nodes x GPUs per node, or leave dp out to derive it)"},
    // --- cluster.gpus: part of one node -------------------------------------------------------
    {"ClusterGpusZero", kBase + "  gpus: 0\n",
     "w.yaml:14: cluster.gpus: 0 is out of range (expected a whole number from 1 to 8)"},
    {"ClusterGpusNegative", kBase + "  gpus: -2\n",
     "w.yaml:14: cluster.gpus: -2 is out of range (expected a whole number from 1 to 8)"},
    {"ClusterGpusAboveTheNode", kBase + "  gpus: 16\n",
     "w.yaml:14: cluster.gpus: 16 is out of range (expected a whole number from 1 to 8)"},
    {"ClusterGpusNotAWholeNumber", kBase + "  gpus: 2.5\n",
     "w.yaml:14: cluster.gpus: expected a whole number, got 2.5"},
    {"ClusterGpusWithSeveralNodes", with(kBase, "nodes: 1", "nodes: 2") + "  gpus: 2\n",
     "w.yaml:14: cluster.gpus: gpus 2 uses part of one node, but nodes is 2 (use gpus with nodes: "
     "1, or leave gpus out to use whole nodes)"},
    {"ClusterGpusLayoutDoesNotDivide", kBase + "  gpus: 3\n",
     "w.yaml:8: layout: tp 2 x pp 1 x cp 1 = 2 does not divide the cluster's 3 GPUs, so dp cannot "
     "be derived (choose tp, pp and cp whose product divides cluster.gpus)"},
    {"ClusterGpusLayoutOtherSize", with(kBase, "  micro_batch: 1\n", "  dp: 2\n") + "  gpus: 2\n",
     "w.yaml:8: layout: tp 2 x pp 1 x dp 2 x cp 1 = 4 GPUs, but the cluster has 2 (make the "
     "parallel sizes multiply to nodes x GPUs per node, or leave dp out to derive it)"},
    {"DpCannotBeDerived", with(with(kBase, "llama3-8b", "gpt-18.4b"), "tp: 2", "tp: 3"),
     "w.yaml:8: layout: tp 3 x pp 1 x cp 1 = 3 does not divide the cluster's 8 GPUs, so dp cannot "
     "be derived (choose tp, pp and cp whose product divides nodes x GPUs per node)"},
    {"QloraWithFp8", with(kFinetune, "method: lora", "method: qlora") + "precision: fp8\n",
     "w.yaml:8: precision: QLoRA computes in 16-bit; fp8 is not supported with it (use bf16)"},
    {"FinetuneBlockWithPretrain", with(kFinetune, "task: finetune", "task: pretrain"),
     "w.yaml:4: finetune: finetune settings need task: finetune (set task: finetune, or remove "
     "the finetune block)"},

    // --- names that are not in the catalog --------------------------------------------------
    {"UnknownModel", with(kBase, "llama3-8b", "llama3-7b"),
     "w.yaml:1: model: unknown model 'llama3-7b' (did you mean 'llama3-70b'?)"},
    {"UnknownServer", with(kBase, "dgx-h100", "dgx-h10"),
     "w.yaml:12: cluster.server: unknown server 'dgx-h10' (did you mean 'dgx-h100'?)"},
    {"MissingServer", with(kBase, "  server: dgx-h100\n", ""),
     "w.yaml:12: cluster.server: missing required key (e.g. server: dgx-h100)"},
    {"UnknownGpu", with(kBase, "nodes: 1", "gpu: h100-sxn"),
     "w.yaml:13: cluster.gpu: unknown GPU 'h100-sxn' (did you mean 'h100-sxm'?)"},
    {"UnknownFabric", with(kBase, "nodes: 1", "fabric: ib-nd"),
     "w.yaml:13: cluster.fabric: unknown fabric 'ib-nd' (did you mean 'ib-ndr'?)"},
    {"MissingHfConfig", with(kBase, "model: llama3-8b", "model: configs/nope.json"),
     "w.yaml:1: model: file 'configs/nope.json' not found (relative paths are resolved from the "
     "workload file's folder)"},

    // --- files that are not a workload ------------------------------------------------------
    {"EmptyFile", "",
     "w.yaml: workload file is empty (start from an example in examples/, e.g. "
     "examples/llama3-8b-lora.yaml)"},
    {"OnlyComments", "# nothing here yet\n",
     "w.yaml: workload file is empty (start from an example in examples/, e.g. "
     "examples/llama3-8b-lora.yaml)"},
    {"TopLevelScalar", "llama3-8b\n",
     "w.yaml:1: expected a mapping of keys to values, got a scalar"},
    {"TopLevelList", "- model: llama3-8b\n- seq_len: 4096\n",
     "w.yaml:1: expected a mapping of keys to values, got a list"},
    {"InvalidYaml", with(kBase, "layout:\n  tp: 2\n", "layout: {tp: 2\n"),
     "w.yaml:8: not valid YAML: end of map flow not found (check indentation, colons and "
     "brackets)"},
    {"TabIndentation", "model: llama3-8b\n\tseq_len: 4096\n",
     "w.yaml:2: not valid YAML: illegal tab when looking for indentation (check indentation, "
     "colons and brackets)"},
    {"BinaryContent", std::string("model: llama3-8b\n\0\x01\x02", 20),
     "w.yaml: file is binary (contains NUL bytes), expected YAML text"},

    // --- inline models ----------------------------------------------------------------------
    {"InlineModelWithoutLayers", with(kInline, "  layers: 4\n", ""),
     "w.yaml:2: model.layers: missing required key"},
    {"InlineHeadsDoNotDivideHidden", with(kInline, "hidden: 1536", "hidden: 1000"),
     "w.yaml:4: model.heads: hidden 1000 is not divisible by heads 12 (set head_dim, or choose "
     "heads that divide hidden)"},
    {"InlineKvHeadsDoNotDivideHeads", with(kInline, "kv_heads: 4", "kv_heads: 5"),
     "w.yaml:5: model.kv_heads: kv_heads 5 does not divide heads 12 (grouped-query attention "
     "needs heads to be a multiple of kv_heads)"},
    {"InlineMoreSlidingLayersThanLayers",
     with(kInline, "  vocab: 1000\n",
          "  vocab: 1000\n  sliding_window: 128\n  sliding_layers: 9\n"),
     "w.yaml:8: model.sliding_layers: 9 sliding-window layers but the model has 4 layers (at "
     "most layers)"},
    {"InlineSlidingWindowWithoutLayers",
     with(kInline, "  vocab: 1000\n", "  vocab: 1000\n  sliding_window: 128\n"),
     "w.yaml:7: model.sliding_window: sliding_window and sliding_layers go together (set both "
     "(the window in tokens and how many layers use it), or neither)"},
    {"InlineClampWithoutGatedMlp",
     with(kInline, "  vocab: 1000\n", "  vocab: 1000\n  activation_clamp: 7\n"),
     "w.yaml:7: model.activation_clamp: a clamp needs a gated MLP (mlp: swiglu) (mlp: swiglu, or "
     "leave activation_clamp out)"},
    {"InlineClampNotPositive",
     with(kInline, "  vocab: 1000\n", "  vocab: 1000\n  mlp: swiglu\n  activation_clamp: 0\n"),
     "w.yaml:8: model.activation_clamp: 0 is out of range (expected a value from 1e-06 to "
     "1e+06)"},
    {"InlineUnknownKey", with(kInline, "  vocab: 1000\n", "  vocab: 1000\n  vocab_size: 1000\n"),
     "w.yaml:7: model.vocab_size: unknown key (did you mean 'vocab'?)"},

    // --- whole-run settings -----------------------------------------------------------------
    {"MisspeltReliabilityKey", kBase + "reliability:\n  restart_minute: 10\n",
     "w.yaml:15: reliability.restart_minute: unknown key (did you mean 'restart_minutes'?)"},
    {"UnknownFailureRate", kBase + "reliability:\n  failure_rate: llama3-h10\n",
     "w.yaml:15: reliability.failure_rate: unknown id 'llama3-h10' (did you mean "
     "'llama3-h100'?)"},
    {"FailureRateGivenTwice",
     kBase + "reliability:\n  failure_rate: llama3-h100\n  failures_per_1000_node_days: 4\n",
     "w.yaml:16: reliability.failures_per_1000_node_days: give failure_rate or "
     "failures_per_1000_node_days, not both"},
    {"CheckpointModeNotAChoice", kBase + "reliability:\n  checkpoint: sometimes\n",
     "w.yaml:15: reliability.checkpoint: unknown value 'sometimes' (expected one of: async, "
     "blocking)"},
    {"UnknownStorageSystem", kBase + "storage:\n  system: lustre\n",
     "w.yaml:15: storage.system: unknown id 'lustre' (expected one of: ddn-ethernet-b200, "
     "local-nvme, parallel-fs, tectonic)"},
    {"StallTargetOutOfRange", kBase + "storage:\n  checkpoint_stall_target: 2\n",
     "w.yaml:15: storage.checkpoint_stall_target: 2 is out of range (expected a value from 1e-06 "
     "to 0.5)"},
    {"PueBelowOne", kBase + "facility:\n  pue: 0.9\n",
     "w.yaml:15: facility.pue: 0.9 is out of range (expected a value from 1 to 10)"},
    {"CostBasisNotAChoice", kBase + "cost:\n  basis: lease\n",
     "w.yaml:15: cost.basis: unknown value 'lease' (expected one of: cloud, own)"},
    {"MisspeltConstraint", kBase + "constraints:\n  max_power_kwh: 100\n",
     "w.yaml:15: constraints.max_power_kwh: unknown key (did you mean 'max_power_kw'?)"},
};

INSTANTIATE_TEST_SUITE_P(WorkloadReader, WorkloadReaderBad, testing::ValuesIn(kBadCases),
                         [](const testing::TestParamInfo<BadCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// --- valid input -----------------------------------------------------------------------------

TEST(WorkloadReader, RunSettingsOverrideTheCatalog) {
  const WorkloadFile wf = read(kBase +
                               "reliability:\n  failures_per_1000_node_days: 6.5\n"
                               "  checkpoint: blocking\n  restart_minutes: 20\n"
                               "storage:\n  system: tectonic\n  bytes_per_token: 4\n"
                               "facility:\n  pue: 1.5\n  rack_kw: 20\n"
                               "cost:\n  basis: own\n  cloud_pricing: reserved\n");
  const RunSettings s = resolve_run_settings(catalog(), wf.run, "w.yaml");
  EXPECT_DOUBLE_EQ(s.failures_per_1000_node_days, 6.5);
  EXPECT_EQ(s.failure_rate_id, "workload");
  EXPECT_FALSE(s.async_checkpoint);
  EXPECT_DOUBLE_EQ(s.requeue_s, 1200.0);
  EXPECT_EQ(s.storage.id, "tectonic");
  EXPECT_DOUBLE_EQ(s.bytes_per_token, 4.0);
  EXPECT_DOUBLE_EQ(s.facility.pue, 1.5);
  EXPECT_DOUBLE_EQ(s.facility.rack_W, 20000.0);
  EXPECT_EQ(s.cloud_pricing, "reserved");
  EXPECT_EQ(wf.run.cost_basis, "own");
  // Without overrides: the catalog's defaults.
  const RunSettings d = resolve_run_settings(catalog(), read(kBase).run, "w.yaml");
  EXPECT_EQ(d.failure_rate_id, "llama3-h100");
  EXPECT_EQ(d.storage.id, "parallel-fs");
  EXPECT_EQ(d.facility.id, "us-colo-2025");
  EXPECT_TRUE(d.async_checkpoint);
}

TEST(WorkloadReader, BaseWorkloadIsValid) {
  const WorkloadFile wf = read(kBase);
  EXPECT_TRUE(wf.has_cluster);
  EXPECT_TRUE(wf.has_layout);
  EXPECT_EQ(wf.workload.seq_len, 4096);
  EXPECT_EQ(wf.workload.layout.tp, 2);
  EXPECT_EQ(wf.workload.cluster.server_id, "dgx-h100");
}

TEST(WorkloadReader, EveryExampleParses) {
  const std::filesystem::path dir = std::filesystem::path(SCALEOUT_SOURCE_DIR) / "examples";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    // simulate-*.yaml are jobs files (jobs_reader_test.cpp reads them).
    if (entry.path().filename().string().rfind("simulate-", 0) == 0) continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    try {
      const WorkloadFile wf = read_workload(read_text_file(entry.path().string()),
                                            entry.path().string(), dir.string(), catalog());
      // estimate examples name a cluster; plan examples leave it to the search.
      const bool plan_example = entry.path().filename().string().rfind("plan-", 0) == 0;
      EXPECT_EQ(wf.has_cluster, !plan_example);
      EXPECT_GT(wf.workload.model.layers, 0);
    } catch (const InputError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(count, 7);
}

TEST(WorkloadReader, DpIsDerivedFromTheCluster) {
  const WorkloadFile wf = read(with(kBase, "nodes: 1", "nodes: 2"));
  EXPECT_EQ(wf.workload.layout.tp, 2);
  EXPECT_EQ(wf.workload.layout.dp, 8);  // 2 nodes x 8 GPUs / tp 2
  EXPECT_EQ(wf.workload.layout.gpus(), 16);
}

TEST(WorkloadReader, DpIsDerivedWithoutALayout) {
  const WorkloadFile wf = read("model: llama3-8b\ncluster: {server: dgx-h100, nodes: 4}\n");
  EXPECT_FALSE(wf.has_layout);
  EXPECT_EQ(wf.workload.layout.dp, 32);
}

TEST(WorkloadReader, GivenDpIsKept) {
  const WorkloadFile wf = read(with(kBase, "  micro_batch: 1\n", "  dp: 4\n"));
  EXPECT_EQ(wf.workload.layout.dp, 4);
}

TEST(WorkloadReader, HfConfigRelativeToTheWorkloadFolder) {
  const WorkloadFile wf =
      read(with(kBase, "model: llama3-8b", "model: hf/llama3-8b.json"), SCALEOUT_TEST_DATA_DIR);
  const ModelShape* zoo = catalog().find_model("llama3-8b");
  ASSERT_NE(zoo, nullptr);
  EXPECT_EQ(wf.workload.model.layers, zoo->layers);
  EXPECT_EQ(wf.workload.model.hidden, zoo->hidden);
  EXPECT_EQ(wf.workload.model.heads, zoo->heads);
  EXPECT_EQ(wf.workload.model.kv_heads, zoo->kv_heads);
  EXPECT_EQ(wf.workload.model.vocab, zoo->vocab);
}

TEST(WorkloadReader, MissingHfConfigNamesTheResolvedPath) {
  EXPECT_EQ(error_of(with(kBase, "model: llama3-8b", "model: hf/nope.json"), "/data/wl"),
            "w.yaml:1: model: file '/data/wl/hf/nope.json' not found (relative paths are "
            "resolved from the workload file's folder)");
}

TEST(WorkloadReader, InlineModel) {
  const WorkloadFile wf = read(kInline);
  EXPECT_EQ(wf.workload.model.layers, 4);
  EXPECT_EQ(wf.workload.model.hidden, 1536);
  EXPECT_EQ(wf.workload.model.kv_heads, 4);
}

TEST(WorkloadReader, InferenceBlock) {
  const WorkloadFile f = read(kServe);
  const InferenceSpec& in = f.workload.inference;
  EXPECT_EQ(f.workload.task, Task::inference);
  EXPECT_EQ(in.prompt_tokens, 2048);
  EXPECT_EQ(in.output_tokens, 256);
  EXPECT_EQ(in.weights, WeightFormat::fp8);
  EXPECT_EQ(in.kv_cache, Precision::bf16);  // default
  EXPECT_DOUBLE_EQ(in.tpot_s, 0.050);       // 50 ms
  EXPECT_EQ(in.ttft_s, 0.0);                // not given
  EXPECT_EQ(f.workload.layout.dp, 2);       // 8 GPUs / tp 4 = 2 replicas
}

TEST(WorkloadReader, FinetuneBlock) {
  const WorkloadFile wf = read(with(kFinetune, "rank: 16", "rank: 64"));
  EXPECT_EQ(wf.workload.task, Task::finetune);
  EXPECT_EQ(wf.workload.finetune.method, FinetuneMethod::lora);
  EXPECT_EQ(wf.workload.finetune.rank, 64);
}

TEST(WorkloadReader, ErrorFieldsAreFilledIn) {
  if (const auto e = input_error_of([&] { read(with(kBase, "seq_len:", "seq_lenght:")); })) {
    EXPECT_EQ(e->file, "w.yaml");
    EXPECT_EQ(e->line, 2);
    EXPECT_EQ(e->key, "seq_lenght");
    EXPECT_EQ(e->message, "unknown key");
    EXPECT_EQ(e->hint, "did you mean 'seq_len'?");
  }
}

TEST(WorkloadReader, ClusterGpusIsPartOfOneNode) {
  // 2 of the 8 GPUs of a dgx-h100 with tp 2: dp is derived as 2 / 2 = 1.
  const WorkloadFile wf = read(kBase + "  gpus: 2\n");
  EXPECT_EQ(wf.workload.cluster.gpus, 2);
  EXPECT_EQ(wf.workload.cluster.nodes, 1);
  EXPECT_EQ(wf.workload.layout.dp, 1);
  EXPECT_EQ(read(kBase).workload.cluster.gpus, 0);  // absent: whole nodes
}

TEST(WorkloadReader, RecomputeModulesAreReadAsASet) {
  const std::string text =
      "model: deepseek-v3\nseq_len: 4096\nglobal_batch: 64\nframework: megatron\n"
      "layout:\n  ep: 8\n  dp: 8\n  recompute: selective\n  recompute_modules: [mlp, "
      "mla_up_proj]\n";
  const Layout ly = read(text).workload.layout;
  EXPECT_EQ(ly.recompute, Recompute::selective);
  // mla_up_proj is bit 3, mlp bit 4: 8 + 16.
  EXPECT_EQ(ly.recompute_modules, 24);
  EXPECT_EQ(recompute_label(ly), "selective mla_up_proj+mlp");
  // Left out: Megatron-Core's default, core_attn (bit 0).
  EXPECT_EQ(read(kBase).workload.layout.recompute_modules, 1);
  EXPECT_EQ(recompute_label(read(kBase).workload.layout), "selective");
}

// layout.pipeline_layout: the parser and errors of the validation CSV's
// column; the layout sets interleave and fixes it and the schedule for plan.
TEST(WorkloadReader, PipelineLayoutIsReadAndChecked) {
  // kBase's line 10 is pp, 11 the layout (32 layers, 8 GPUs, tp 2).
  auto layout = [](const std::string& lines) {
    return with(kBase, "  micro_batch: 1\n", "  micro_batch: 1\n  pp: 2\n" + lines);
  };
  const WorkloadFile wf = read(layout("  pipeline_layout: \"Et*7|t*8|(t*8|)*1t*9L\"\n"));
  const Layout& ly = wf.workload.layout;
  EXPECT_EQ(ly.pipeline_layout, "Et*7|t*8|(t*8|)*1t*9L");
  EXPECT_EQ(ly.chunk_layers, (std::vector<int>{7, 8, 8, 9}));
  EXPECT_EQ(ly.interleave, 2);
  EXPECT_TRUE(wf.plan.layout_keys.has(LayoutKey::pipeline_layout));
  EXPECT_TRUE(wf.plan.layout_keys.has(LayoutKey::interleave));
  EXPECT_TRUE(wf.plan.layout_keys.has(LayoutKey::pipeline_schedule));
  const std::string hint =
      " (Megatron-Core's --pipeline-model-parallel-layout, e.g. Et*4|(t*4|)*14tmL: stages split "
      "by '|', E embedding, t layer, m MTP depth, L loss, x*n and (...)*n repeat)";
  EXPECT_EQ(error_of(layout("  pipeline_layout: Et*16|t*16X\n")),
            "w.yaml:11: layout.pipeline_layout: 'Et*16|t*16X': unknown layer character 'X' (E "
            "embedding, t transformer layer, m MTP depth, L loss, '|' between stages)" +
                hint);
  EXPECT_EQ(error_of(layout("  pipeline_layout: Et*16|(t*16L\n")),
            "w.yaml:11: layout.pipeline_layout: 'Et*16|(t*16L': a '(' needs a non-empty group "
            "without parentheses, then ')*' and a count" +
                hint);
  EXPECT_EQ(error_of(layout("  interleave: 2\n  pipeline_layout: Et*16|t*16L\n")),
            "w.yaml:12: layout.pipeline_layout: 2 stages, but pp 2 x interleave 2 is 4 (give pp "
            "x interleave stages, or leave interleave out (the layout sets it))");
  EXPECT_EQ(error_of(with(kBase, "  micro_batch: 1\n",
                          "  micro_batch: 1\n  pipeline_layout: Et*16|t*16L\n")),
            "w.yaml:10: layout.pipeline_layout: a pipeline layout needs pp of 2 or more (give pp, "
            "or leave pipeline_layout out)");
  // Against the model: checked with the layout (estimate) and as a fixed
  // layout (plan).
  const std::string short_by_one = layout("  pipeline_layout: Et*16|t*15L\n");
  const std::string expected =
      "w.yaml:11: layout.pipeline_layout: the layout places 31 transformer layers t, the model "
      "has 32 (place every layer of the model once)";
  EXPECT_EQ(error_of(short_by_one), expected);
  try {
    read_workload(short_by_one, "w.yaml", "", catalog(), false);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  EXPECT_EQ(error_of(layout("  pipeline_schedule: zb1p\n  pipeline_layout: Et*16|t*16L\n")),
            "w.yaml:12: layout.pipeline_layout: a pipeline layout is Megatron-Core's, for its "
            "1F1B schedules (leave pipeline_schedule empty (1f1b) with a layout)");
}

// The validation CSV reads its choice columns through these: every name
// to_string gives, in enum order, and back.
TEST(EnumNames, ListEveryValueAndReadThemBack) {
  EXPECT_EQ(enum_names<AdapterTargets>(),
            (std::vector<std::string>{"all", "attention", "qkv", "qv"}));
  EXPECT_EQ(enum_names<Optimizer>().size(), 6u);
  for (const std::string& n : enum_names<Optimizer>()) {
    ASSERT_TRUE(enum_from_name<Optimizer>(n).has_value()) << n;
    EXPECT_EQ(to_string(*enum_from_name<Optimizer>(n)), n);
  }
  EXPECT_EQ(enum_from_name<MoeDispatcher>("deepep"), MoeDispatcher::deepep);
  EXPECT_FALSE(enum_from_name<MoeDispatcher>("").has_value());
  EXPECT_FALSE(enum_from_name<Optimizer>("adamw").has_value());
}

}  // namespace
}  // namespace scaleout::io
