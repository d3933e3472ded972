// Launch files (`plan --emit DIR`): emitted end to end through run_cli for two
// examples, then parsed back with the tools' formats (JSON, YAML, bash -n);
// the pipeline split arguments of report::megatron_args for uneven layouts;
// and a plan whose ids are hostile (line breaks, quotes, $(...), backticks,
// YAML/JSON specials, non-ASCII bytes) against tests/golden/launch-hostile/.
#include "report/launch.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "io/catalog_reader.hpp"
#include "report/json_parts.hpp"

namespace scaleout {
namespace {

namespace fs = std::filesystem;

struct Emitted {
  int code = -1;
  std::string err;
  nlohmann::json plan;  // plan --format json
  std::vector<std::string> wrote;
  fs::path dir;
};

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Emitted emit(const std::string& example, const std::string& dirname) {
  Emitted e;
  e.dir = fs::path(::testing::TempDir()) / ("scaleout-launch-" + dirname);
  fs::remove_all(e.dir);
  std::vector<std::string> args = {
      "scaleout", "plan",   std::string(SCALEOUT_SOURCE_DIR) + "/examples/" + example,
      "--format", "json",   "--threads",
      "2",        "--emit", e.dir.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  e.code = run_cli(static_cast<int>(args.size()), argv.data(), out, err);
  e.err = err.str();
  const std::string text = out.str();
  const auto cut = text.find("\nwrote ");
  if (cut == std::string::npos) return e;
  e.plan = nlohmann::json::parse(text.substr(0, cut + 1));
  std::istringstream lines(text.substr(cut + 1));
  for (std::string line; std::getline(lines, line);) e.wrote.push_back(line);
  return e;
}

// "--flag value" lines of megatron.args as flag -> value ("" for switches).
std::map<std::string, std::string> read_args(const fs::path& file) {
  std::map<std::string, std::string> m;
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) {
    const auto sp = line.find(' ');
    m[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return m;
}

// The files every plan gets, and those of each launcher family.
const std::vector<std::string> kCommonFiles = {"slurm.sbatch",    "torchrun.sh",   "deepspeed.json",
                                               "pytorchjob.yaml", "trainjob.yaml", "plan.json"};

void check_example(const std::string& example, const std::string& name,
                   const std::vector<std::string>& family_files = {"megatron.args"}) {
  SCOPED_TRACE(example);
  const Emitted e = emit(example, name);
  ASSERT_EQ(e.code, 0) << e.err;
  ASSERT_EQ(e.wrote.size(), kCommonFiles.size() + family_files.size());
  for (const auto& f : kCommonFiles) EXPECT_TRUE(fs::exists(e.dir / f)) << f;
  for (const auto& f : family_files) EXPECT_TRUE(fs::exists(e.dir / f)) << f;
  const nlohmann::json& rec = e.plan.at("recommended");
  const int gpus = rec.at("gpus").get<int>();
  const int nodes = rec.at("nodes").get<int>();
  const int dp = rec.at("layout").at("dp").get<int>();
  const int zero = rec.at("layout").at("zero").get<int>();
  const long long batch = rec.at("global_batch").get<long long>();

  // plan.json is the plan the launch files implement.
  const auto plan = nlohmann::json::parse(read_file(e.dir / "plan.json"));
  EXPECT_EQ(plan.at("recommended").at("layout"), rec.at("layout"));

  const bool megatron = fs::exists(e.dir / "megatron.args");
  if (megatron) {
    // megatron.args: the model-parallel sizes times dp give the GPU count.
    const auto args = read_args(e.dir / "megatron.args");
    const int tp = std::stoi(args.at("--tensor-model-parallel-size"));
    const int pp = std::stoi(args.at("--pipeline-model-parallel-size"));
    const int cp = std::stoi(args.at("--context-parallel-size"));
    EXPECT_EQ(tp * pp * cp * dp, gpus);
    EXPECT_EQ(std::stoll(args.at("--global-batch-size")), batch);
    EXPECT_EQ(args.count("--train-tokens"), 0u);  // not a Megatron-LM option
    EXPECT_GT(std::stoll(args.at("--train-iters")), 0);
    EXPECT_EQ(args.count("--use-distributed-optimizer"), zero == 1 ? 1u : 0u);
    if (dp > 1) {
      EXPECT_EQ(args.count("--overlap-grad-reduce"), 1u);
    }
  }

  // deepspeed.json: batch = micro x accumulation x dp.
  const auto ds = nlohmann::json::parse(read_file(e.dir / "deepspeed.json"));
  EXPECT_EQ(ds.at("train_batch_size").get<long long>(), batch);
  EXPECT_EQ(ds.at("train_batch_size").get<long long>(),
            ds.at("train_micro_batch_size_per_gpu").get<long long>() *
                ds.at("gradient_accumulation_steps").get<long long>() * dp);
  EXPECT_EQ(ds.at("zero_optimization").at("stage").get<int>(), zero);
  EXPECT_EQ(ds.at("gradient_clipping").get<double>(), 1.0);

  // pytorchjob.yaml: one master and nodes - 1 workers, each with a node's GPUs.
  const YAML::Node job = YAML::LoadFile((e.dir / "pytorchjob.yaml").string());
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "kubeflow.org/v1");
  EXPECT_EQ(job["kind"].as<std::string>(), "PyTorchJob");
  const YAML::Node specs = job["spec"]["pytorchReplicaSpecs"];
  EXPECT_EQ(specs["Master"]["replicas"].as<int>(), 1);
  const int per_node = gpus / nodes;
  EXPECT_EQ(job["spec"]["nprocPerNode"].as<std::string>(), std::to_string(per_node));
  const YAML::Node container = specs["Master"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["name"].as<std::string>(), "pytorch");
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"].as<int>(), per_node);
  if (nodes > 1) {
    EXPECT_EQ(specs["Worker"]["replicas"].as<int>(), nodes - 1);
  }

  // trainjob.yaml: Trainer v2 with the plan's nodes and processes per node.
  const YAML::Node tj = YAML::LoadFile((e.dir / "trainjob.yaml").string());
  EXPECT_EQ(tj["apiVersion"].as<std::string>(), "trainer.kubeflow.org/v1alpha1");
  EXPECT_EQ(tj["kind"].as<std::string>(), "TrainJob");
  EXPECT_EQ(tj["spec"]["runtimeRef"]["name"].as<std::string>(), "torch-distributed");
  EXPECT_EQ(tj["spec"]["trainer"]["numNodes"].as<int>(), nodes);
  EXPECT_EQ(tj["spec"]["trainer"]["numProcPerNode"].as<int>(), per_node);
  EXPECT_EQ(tj["spec"]["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"].as<int>(),
            per_node);

  // The family's YAML files parse.
  for (const auto& f : family_files) {
    if (f.ends_with(".yaml")) {
      EXPECT_NO_THROW(YAML::LoadFile((e.dir / f).string())) << f;
    }
  }

  // The Slurm script asks for the plan's nodes and GPUs.
  const std::string sbatch = read_file(e.dir / "slurm.sbatch");
  EXPECT_NE(sbatch.find("#SBATCH --nodes=" + std::to_string(nodes) + "\n"), std::string::npos);
  EXPECT_NE(sbatch.find("#SBATCH --gpus-per-node=" + std::to_string(per_node) + "\n"),
            std::string::npos);

  // Both shell scripts parse.
  if (std::system("bash -c true >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "bash is missing";
  }
  for (const char* f : {"slurm.sbatch", "torchrun.sh"}) {
    const std::string cmd = "bash -n '" + (e.dir / f).string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << f;
  }
}

TEST(Launch, Llama3_70bPretrain) { check_example("plan-llama3-70b-pretrain.yaml", "llama"); }

TEST(Launch, Mixtral8x7b) {
  check_example("plan-mixtral-8x7b.yaml", "mixtral");
  const auto args =
      read_args(fs::path(::testing::TempDir()) / "scaleout-launch-mixtral" / "megatron.args");
  EXPECT_EQ(args.count("--num-experts"), 1u);
  EXPECT_EQ(args.at("--moe-router-topk"), "2");
  EXPECT_EQ(args.count("--expert-model-parallel-size"), 1u);
}

TEST(Launch, LoraGetsPeftNotPretrain) {
  // A LoRA plan (framework fsdp) runs TRL's SFT script with PEFT, never a
  // full-parameter pretrain_gpt.py job.
  check_example("plan-llama3-8b-lora.yaml", "lora", {"accelerate_fsdp.yaml", "finetune_peft.yaml"});
  const fs::path dir = fs::path(::testing::TempDir()) / "scaleout-launch-lora";
  EXPECT_FALSE(fs::exists(dir / "megatron.args"));
  const YAML::Node peft = YAML::LoadFile((dir / "finetune_peft.yaml").string());
  EXPECT_TRUE(peft["use_peft"].as<bool>());
  EXPECT_EQ(peft["lora_r"].as<int>(), 16);
  for (const char* f : {"torchrun.sh", "pytorchjob.yaml", "trainjob.yaml"}) {
    EXPECT_EQ(read_file(dir / f).find("pretrain_gpt.py"), std::string::npos) << f;
  }
}

TEST(Launch, QloraLoadsIn4Bit) {
  check_example("plan-llama3-70b-qlora.yaml", "qlora",
                {"accelerate_fsdp.yaml", "finetune_peft.yaml"});
  const YAML::Node peft = YAML::LoadFile(
      (fs::path(::testing::TempDir()) / "scaleout-launch-qlora" / "finetune_peft.yaml").string());
  EXPECT_TRUE(peft["load_in_4bit"].as<bool>());
  EXPECT_EQ(peft["bnb_4bit_quant_type"].as<std::string>(), "nf4");
}

TEST(Launch, FullFinetuneFsdpGetsAccelerate) {
  check_example("plan-mistral-7b-pcie.yaml", "mistral", {"accelerate_fsdp.yaml"});
}

TEST(Launch, SmokeVariantRunsTheSmokeScript) {
  const fs::path dir = fs::path(::testing::TempDir()) / "scaleout-launch-smoke";
  fs::remove_all(dir);
  std::vector<std::string> args = {
      "scaleout",
      "plan",
      std::string(SCALEOUT_SOURCE_DIR) + "/examples/plan-llama3-70b-pretrain.yaml",
      "--threads",
      "2",
      "--emit",
      dir.string(),
      "--smoke"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  ASSERT_EQ(run_cli(static_cast<int>(args.size()), argv.data(), out, err), 0) << err.str();
  ASSERT_TRUE(fs::exists(dir / "smoke_train.py"));
  const std::string sh = read_file(dir / "torchrun.sh");
  EXPECT_NE(sh.find("--nproc_per_node=2"), std::string::npos);
  EXPECT_NE(sh.find("smoke_train.py"), std::string::npos);
  EXPECT_NE(read_file(dir / "smoke_train.py").find("dist.init_process_group(\"gloo\")"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "megatron.args"));  // the real files stay beside it
}

TEST(Launch, SmokeNeedsEmit) {
  std::vector<std::string> args = {
      "scaleout", "plan",
      std::string(SCALEOUT_SOURCE_DIR) + "/examples/plan-llama3-70b-pretrain.yaml", "--smoke"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  EXPECT_NE(run_cli(static_cast<int>(args.size()), argv.data(), out, err), 0);
}

TEST(Launch, NoRecommendedPlanExits2) {
  const fs::path dir = fs::path(::testing::TempDir()) / "scaleout-launch-none";
  const fs::path yaml = fs::path(::testing::TempDir()) / "scaleout-launch-none.yaml";
  // 405B in bf16 on one 8 x 80 GB node: no layout fits.
  std::ofstream(yaml) << "model: llama3.1-405b\ntokens: 1.0e12\nseq_len: 8192\nglobal_batch: 1024\n"
                         "constraints: {max_nodes: 1}\nhardware: {servers: [dgx-h100]}\n";
  std::vector<std::string> args = {"scaleout", "plan", yaml.string(), "--emit", dir.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(args.size()), argv.data(), out, err);
  EXPECT_EQ(code, 2);
  EXPECT_TRUE(out.str().empty());
  EXPECT_NE(err.str().find("no recommended plan"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(dir));
}

// A PlanReport of a small dense model (`layers` layers, hidden 1024) with one
// hardware option, and a one-node candidate of data parallelism 2.
report::PlanReport small_report(int layers = 8) {
  report::PlanReport r;
  Workload& w = r.request.workload;
  w.model.id = "test";
  w.model.layers = layers;
  w.model.hidden = 1024;
  w.model.heads = 8;
  w.model.kv_heads = 8;
  w.model.ffn = 4096;
  w.tokens = 1e9;
  w.seq_len = 2048;
  r.request.hardware.emplace_back();
  return r;
}

PlanCandidate small_candidate() {
  PlanCandidate c;
  c.layout.dp = 2;
  c.global_batch = 64;
  c.nodes = 1;
  return c;
}

// Megatron-LM's arguments for a candidate of the given pipeline layout.
std::vector<std::string> args_for(int layers, int pp, int interleave, int first = 0, int last = 0) {
  PlanCandidate c = small_candidate();
  c.layout.pp = pp;
  c.layout.interleave = interleave;
  c.layout.first_stage_layers = first;
  c.layout.last_stage_layers = last;
  return report::megatron_args(small_report(layers), c);
}

bool has(const std::vector<std::string>& a, const std::string& s) {
  return std::find(a.begin(), a.end(), s) != a.end();
}

TEST(Launch, Fp8ParamGatherFlag) {
  report::PlanReport r = small_report();
  r.request.workload.precision = Precision::fp8;
  PlanCandidate c = small_candidate();
  c.layout.zero = 1;
  EXPECT_TRUE(has(report::megatron_args(r, c), "--fp8-format hybrid"));
  EXPECT_FALSE(has(report::megatron_args(r, c), "--fp8-param-gather"));
  c.layout.fp8_param_gather = true;
  EXPECT_TRUE(has(report::megatron_args(r, c), "--fp8-param-gather"));
}

TEST(Launch, RecomputeModulesFlags) {
  // The default module set is --recompute-activations; any other names its
  // modules (Megatron-Core --recompute-granularity selective --recompute-modules).
  report::PlanReport r = small_report();
  PlanCandidate c = small_candidate();
  auto recompute_args = [&] {
    std::vector<std::string> out;
    for (const std::string& a : report::megatron_args(r, c)) {
      if (a.find("--recompute") == 0) out.push_back(a);
    }
    return out;
  };
  EXPECT_EQ(recompute_args(), std::vector<std::string>{});
  c.layout.recompute = Recompute::selective;
  EXPECT_EQ(recompute_args(), std::vector<std::string>{"--recompute-activations"});
  c.layout.recompute_modules =
      module_bit(RecomputeModule::mla_up_proj) | module_bit(RecomputeModule::mlp);
  EXPECT_EQ(recompute_args(), (std::vector<std::string>{"--recompute-granularity selective",
                                                        "--recompute-modules mla_up_proj mlp"}));
  c.layout.recompute_modules = kDefaultRecomputeModules | module_bit(RecomputeModule::moe_act);
  EXPECT_EQ(recompute_args(), (std::vector<std::string>{"--recompute-granularity selective",
                                                        "--recompute-modules core_attn moe_act"}));
}

TEST(Launch, MoeDispatcherFlags) {
  // Megatron-Core's dispatcher arguments follow the workload's moe.dispatcher;
  // all-to-all, Megatron-LM's own, when the run leaves it to the framework.
  report::PlanReport r = small_report();
  Workload& w = r.request.workload;
  w.model.moe.experts = 8;
  w.model.moe.top_k = 2;
  w.model.moe.expert_ffn = 1024;
  PlanCandidate c = small_candidate();
  c.layout.ep = 2;
  auto dispatcher_args = [&] {
    std::vector<std::string> out;
    for (const std::string& a : report::megatron_args(r, c)) {
      if (a.find("dispatcher") != std::string::npos) out.push_back(a);
    }
    return out;
  };
  EXPECT_EQ(dispatcher_args(), std::vector<std::string>{"--moe-token-dispatcher-type alltoall"});
  w.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_EQ(dispatcher_args(), std::vector<std::string>{"--moe-token-dispatcher-type alltoall"});
  w.moe_dispatcher = MoeDispatcher::hybridep;
  EXPECT_EQ(dispatcher_args(),
            (std::vector<std::string>{"--moe-token-dispatcher-type flex",
                                      "--moe-flex-dispatcher-backend hybridep"}));
}

TEST(Launch, TokenDropFlags) {
  // Workload moe.capacity_factor / pad_to_capacity as Megatron-LM's
  // --moe-expert-capacity-factor and --moe-pad-expert-input-to-capacity;
  // scoped graphs capture the whole MoE layer (`moe`) when it drops and pads,
  // the router only when it drops without padding.
  report::PlanReport r = small_report();
  Workload& w = r.request.workload;
  w.model.moe.experts = 8;
  w.model.moe.top_k = 2;
  w.model.moe.expert_ffn = 1024;
  w.framework = Framework::megatron;
  w.cuda_graphs = CudaGraphs::scoped;
  PlanCandidate c = small_candidate();
  c.layout.ep = 2;
  auto args = [&] {
    std::vector<std::string> out;
    for (const std::string& a : report::megatron_args(r, c)) {
      if (a.find("capacity") != std::string::npos || a.find("graph-modules") != std::string::npos)
        out.push_back(a);
    }
    return out;
  };
  EXPECT_EQ(args(),
            std::vector<std::string>{"--cuda-graph-modules attn moe_router moe_preprocess"});
  w.moe_capacity_factor = 1.25;
  EXPECT_EQ(args(), (std::vector<std::string>{"--moe-expert-capacity-factor 1.25",
                                              "--cuda-graph-modules attn moe_router"}));
  w.moe_pad_to_capacity = true;
  EXPECT_EQ(args(), (std::vector<std::string>{"--moe-expert-capacity-factor 1.25",
                                              "--moe-pad-expert-input-to-capacity",
                                              "--cuda-graph-modules attn moe"}));
}

TEST(Launch, CudaGraphsFlags) {
  // Workload cuda_graphs as Megatron-LM spells it at the pinned commit
  // (data/launch/megatron_options.txt): none writes nothing; scoped is
  // Transformer Engine per-layer graphs of the static-shape parts; full the
  // whole iteration, with the NaN check validate_args forbids beside it.
  report::PlanReport r = small_report();
  Workload& w = r.request.workload;
  const PlanCandidate c = small_candidate();
  auto graph_args = [&] {
    std::vector<std::string> out;
    for (const std::string& a : report::megatron_args(r, c)) {
      if (a.find("cuda-graph") != std::string::npos || a.find("check-for-nan") != std::string::npos)
        out.push_back(a);
    }
    return out;
  };
  EXPECT_EQ(graph_args(), std::vector<std::string>{});
  w.cuda_graphs = CudaGraphs::scoped;
  EXPECT_EQ(graph_args(), (std::vector<std::string>{"--cuda-graph-impl transformer_engine",
                                                    "--cuda-graph-modules attn mlp"}));
  w.cuda_graphs = CudaGraphs::full;
  EXPECT_EQ(graph_args(), (std::vector<std::string>{"--cuda-graph-impl full_iteration",
                                                    "--no-check-for-nan-in-loss-and-grad"}));
  // A MoE layer's router and preprocess, not its routed experts; dense
  // layers beside the MoE ones keep their mlp.
  w.model.moe.experts = 8;
  w.model.moe.top_k = 2;
  w.model.moe.expert_ffn = 1024;
  w.cuda_graphs = CudaGraphs::scoped;
  EXPECT_EQ(graph_args(), (std::vector<std::string>{"--cuda-graph-impl transformer_engine",
                                                    "--cuda-graph-modules attn moe_router "
                                                    "moe_preprocess"}));
  w.model.moe.dense_layers = 1;
  EXPECT_EQ(graph_args(), (std::vector<std::string>{"--cuda-graph-impl transformer_engine",
                                                    "--cuda-graph-modules attn mlp moe_router "
                                                    "moe_preprocess"}));
}

// The layers of each pipeline-model-parallel-layout stage ('|'-separated,
// "t" one layer, "t*n" n layers), or empty when the args have none.
std::vector<int> layout_stages(const std::vector<std::string>& a) {
  std::vector<int> stages;
  for (const std::string& s : a) {
    if (s.rfind("--pipeline-model-parallel-layout ", 0) != 0) continue;
    const std::string v = s.substr(s.find(' ') + 1);
    EXPECT_EQ(v.front(), 'E');
    EXPECT_EQ(v.back(), 'L');
    stages.push_back(0);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '|') stages.push_back(0);
      if (v[i] != 't') continue;
      stages.back() += i + 1 < v.size() && v[i + 1] == '*' ? std::stoi(v.substr(i + 2)) : 1;
    }
  }
  return stages;
}

TEST(Launch, PipelineSplitsAreTheSplitThePlanWasEvaluatedWith) {
  // Even split: layers per virtual stage.
  auto a = args_for(80, 2, 4);
  EXPECT_TRUE(has(a, "--num-layers-per-virtual-pipeline-stage 10"));
  a = args_for(80, 4, 1);
  for (const std::string& s : a) EXPECT_EQ(s.find("pipeline-num-layers"), std::string::npos);
  EXPECT_TRUE(layout_stages(a).empty());
  // 126 layers on 8 stages, split as the model splits them
  // (workload/pipeline.hpp): 126 = 8 x 15 + 6, ranks 0-5 take 16, 6-7 15.
  a = args_for(126, 8, 1);
  EXPECT_EQ(layout_stages(a), (std::vector<int>{16, 16, 16, 16, 16, 16, 15, 15}));
  // Interleaved, pp 4, v 2: ranks 32, 32, 31, 31; chunks listed virtual
  // stage by virtual stage (chunk 0 of every rank, then chunk 1).
  a = args_for(126, 4, 2);
  EXPECT_EQ(layout_stages(a), (std::vector<int>{16, 16, 16, 16, 16, 16, 15, 15}));
  // The layout's own first/last sizes are written as they are.
  a = args_for(126, 16, 1, 7, 7);
  EXPECT_TRUE(has(a, "--decoder-first-pipeline-num-layers 7"));
  EXPECT_TRUE(has(a, "--decoder-last-pipeline-num-layers 7"));
  EXPECT_TRUE(layout_stages(a).empty());
  a = args_for(60, 4, 2, 14, 14);
  EXPECT_TRUE(has(a, "--num-virtual-stages-per-pipeline-rank 2"));
  EXPECT_TRUE(has(a, "--decoder-first-pipeline-num-layers 14"));
  EXPECT_TRUE(has(a, "--decoder-last-pipeline-num-layers 14"));
  // The embedding and loss counted in the split: the chunk count and the
  // account flags (Megatron-LM arguments.py takes them together).
  {
    PlanCandidate c = small_candidate();
    c.layout.pp = 16;
    c.layout.interleave = 8;
    c.layout.embedding_in_split = true;
    c.layout.loss_in_split = true;
    a = report::megatron_args(small_report(126), c);
    EXPECT_TRUE(has(a, "--num-virtual-stages-per-pipeline-rank 8"));
    EXPECT_TRUE(has(a, "--account-for-embedding-in-pipeline-split"));
    EXPECT_TRUE(has(a, "--account-for-loss-in-pipeline-split"));
    EXPECT_TRUE(layout_stages(a).empty());
  }
  // Only the first given: no last-stage option (Megatron-LM's default).
  a = args_for(30, 4, 1, 6, 0);
  EXPECT_TRUE(has(a, "--decoder-first-pipeline-num-layers 6"));
  for (const std::string& s : a) EXPECT_EQ(s.find("--decoder-last"), std::string::npos);
  // The layout's pipeline layout string as given, alone: Megatron-LM derives
  // the virtual stages from it (no chunk or first/last stage options).
  {
    PlanCandidate c = small_candidate();
    c.layout.pp = 4;
    c.layout.interleave = 2;
    c.layout.pipeline_layout = "Et*2|(t*3|)*6t*4L";
    c.layout.chunk_layers = {2, 3, 3, 3, 3, 3, 3, 4};
    a = report::megatron_args(small_report(24), c);
    EXPECT_TRUE(has(a, "--pipeline-model-parallel-layout Et*2|(t*3|)*6t*4L"));
    for (const std::string& s : a) {
      EXPECT_EQ(s.find("virtual"), std::string::npos) << s;
      EXPECT_EQ(s.find("pipeline-num-layers"), std::string::npos) << s;
    }
    // Every character is a word character of megatron.args (no quoting:
    // torchrun.sh reads its words with `read -r -a`).
    EXPECT_NE(report::megatron_args_file(small_report(24), c).find(c.layout.pipeline_layout),
              std::string::npos);
  }
}

TEST(Launch, MicrobatchGroupWherePpDoesNotDivideTheMicrobatches) {
  // 64 sequences on dp 2: 32 micro-batches, a multiple of pp 4: the default
  // group (pp), no option.
  const std::string flag = "--microbatch-group-size-per-virtual-pipeline-stage";
  auto group_args = [&](long long batch, int interleave) {
    PlanCandidate c = small_candidate();
    c.layout.pp = 4;
    c.layout.interleave = interleave;
    c.global_batch = batch;
    return report::megatron_args(small_report(32), c);
  };
  for (const std::string& s : group_args(64, 2)) EXPECT_EQ(s.find(flag), std::string::npos);
  // 20 sequences: 10 micro-batches; groups of 4 would leave 2 (< pp,
  // refused by Megatron-Core), groups of 5 divide them.
  EXPECT_TRUE(has(group_args(20, 2), flag + " 5"));
  // Not interleaved: no groups.
  for (const std::string& s : group_args(20, 1)) EXPECT_EQ(s.find(flag), std::string::npos);
}

// A plan report of fixed figures (2 nodes x 4 GPUs, tp 2 pp 2 dp 2) whose
// model, server, GPU and fabric ids are the given strings.
report::PlanReport id_report(const std::string& model, const std::string& server,
                             const std::string& gpu, const std::string& fabric) {
  report::PlanReport r;
  ModelShape& m = r.request.workload.model;
  m.id = model;
  m.name = model;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn = 14336;
  m.mlp = MlpKind::swiglu;
  m.norm = NormKind::rmsnorm;
  r.request.workload.tokens = 1e11;
  r.request.workload.seq_len = 4096;
  HardwareOption hw;
  hw.server.id = server;
  hw.server.gpu_id = gpu;
  hw.server.gpus_per_node = 4;
  hw.server.nics_per_node = 4;
  hw.gpu.id = gpu;
  Fabric f;
  f.id = fabric;
  f.kind = FabricKind::ib;
  hw.fabric = f;
  r.request.hardware.push_back(hw);
  PlanCandidate c;
  c.nodes = 2;
  c.layout.tp = 2;
  c.layout.pp = 2;
  c.layout.dp = 2;
  c.layout.zero = 1;
  c.global_batch = 256;
  c.step.step_s = 1.5;
  c.time_to_train_s = 3 * 86400.0;
  c.band = 0.1;
  r.result.verdict = Verdict::multi_node;
  r.result.recommended = c;
  return r;
}

// Every hostile thing at once: a line break followed by commands, quotes of
// both kinds, $(...), backticks, '; rm -rf ~', a backslash, YAML and JSON
// specials, a carriage return, an escape sequence, NEL and U+2028 (line
// breaks to some YAML readers) and bytes that are not UTF-8.
std::string hostile(const std::string& tag) {
  return tag + "\ntouch /tmp/pwned-" + tag +
         " $(id) `id`; rm -rf ~ #\"'\\ {a: [b, *c]} &d !e %f @g |h >i: -j ? k"
         "\r\x1b[31m\xc2\x85\xe2\x80\xa8 caf\xc3\xa9 \xff\xfe\n# end";
}

std::vector<std::pair<std::string, std::string>> files_for(const report::PlanReport& r) {
  return report::launch_files(r, *r.result.recommended);
}

std::size_t line_count(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(LaunchHostile, MatchesGoldenFiles) {
  const auto files =
      files_for(id_report(hostile("model"), hostile("server"), hostile("gpu"), hostile("fabric")));
  const fs::path dir = fs::path(SCALEOUT_SOURCE_DIR) / "tests/golden/launch-hostile";
  const bool update = std::getenv("SCALEOUT_UPDATE_GOLDEN") != nullptr;
  ASSERT_EQ(files.size(), 6u);
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    if (update) {
      fs::create_directories(dir);
      std::ofstream(dir / name, std::ios::binary) << text;
      continue;
    }
    ASSERT_TRUE(fs::exists(dir / name)) << "run with SCALEOUT_UPDATE_GOLDEN=1 to write it";
    EXPECT_EQ(text, read_file(dir / name));
    // Every launch file is printable ASCII on its lines.
    for (char ch : text) {
      const auto u = static_cast<unsigned char>(ch);
      EXPECT_TRUE(ch == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << int(u);
      if (!(ch == '\n' || (u >= 0x20 && u < 0x7f))) break;
    }
  }
}

TEST(LaunchHostile, SameShapeAsBenignIds) {
  const auto benign = files_for(id_report("llama3-8b", "dgx-h100", "h100-sxm", "ib-ndr"));
  const auto bad =
      files_for(id_report(hostile("model"), hostile("server"), hostile("gpu"), hostile("fabric")));
  ASSERT_EQ(benign.size(), bad.size());
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const std::string& name = bad[i].first;
    SCOPED_TRACE(name);
    EXPECT_EQ(line_count(bad[i].second), line_count(benign[i].second));
    // The ids reach the files only in comments and in the cleaned job name.
    const auto a = lines_of(benign[i].second), b = lines_of(bad[i].second);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      const auto first = b[k].find_first_not_of(' ');
      const bool comment = first != std::string::npos && b[k][first] == '#';
      const bool job = b[k].find("scaleout-model-") != std::string::npos;
      EXPECT_TRUE(comment || job) << "line " << k + 1 << ": " << b[k];
    }
  }
  // megatron.args and deepspeed.json hold no id: identical.
  EXPECT_EQ(bad[2].second, benign[2].second);
  EXPECT_EQ(bad[3].second, benign[3].second);
}

TEST(LaunchHostile, ParsesWithEachFormat) {
  const auto files =
      files_for(id_report(hostile("model"), hostile("server"), hostile("gpu"), hostile("fabric")));
  std::map<std::string, std::string> f(files.begin(), files.end());

  // deepspeed.json parses and round-trips byte for byte.
  const auto ds = nlohmann::ordered_json::parse(f.at("deepspeed.json"));
  EXPECT_EQ(ds.dump(2) + "\n", f.at("deepspeed.json"));

  // pytorchjob.yaml: one document; the name read back is the cleaned job name
  // (an RFC 1123 label), and the tree is the benign file's but for that name.
  const std::vector<YAML::Node> docs = YAML::LoadAll(f.at("pytorchjob.yaml"));
  ASSERT_EQ(docs.size(), 1u);
  const std::string name = docs[0]["metadata"]["name"].as<std::string>();
  EXPECT_EQ(name, "scaleout-model-touch--tmp-pwned-model---id---id---rm--rf");
  EXPECT_LE(name.size(), 63u);
  EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(name.back())));
  for (char ch : name) EXPECT_TRUE(ch == '-' || std::isdigit(ch) || std::islower(ch)) << ch;
  const auto benign = files_for(id_report("llama3-8b", "dgx-h100", "h100-sxm", "ib-ndr"));
  YAML::Node good = YAML::Load(benign[4].second);
  YAML::Node got = YAML::Clone(docs[0]);
  got["metadata"]["name"] = good["metadata"]["name"].as<std::string>();
  EXPECT_EQ(YAML::Dump(got), YAML::Dump(good));
  const YAML::Node args =
      got["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["args"];
  EXPECT_EQ(args[0].as<std::string>(), "/workspace/Megatron-LM/pretrain_gpt.py");

  // megatron.args: words of the safe set only (torchrun.sh splits them unquoted).
  for (char ch : f.at("megatron.args")) {
    EXPECT_TRUE(ch == ' ' || ch == '\n' || std::isalnum(static_cast<unsigned char>(ch)) ||
                std::string("-_.,:=+*/|()[]").find(ch) != std::string::npos)
        << ch;
  }

  // The shell scripts parse.
  if (!fs::exists("/bin/bash")) GTEST_SKIP() << "no /bin/bash";
  const fs::path dir = fs::path(::testing::TempDir()) / "scaleout-launch-hostile";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* script : {"slurm.sbatch", "torchrun.sh"}) {
    std::ofstream(dir / script, std::ios::binary) << f.at(script);
    const std::string cmd = "/bin/bash -n '" + (dir / script).string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << script;
  }
}

TEST(LaunchHostile, JobNameNeverEndsInADash) {
  // "scaleout-" + 53 letters + '-' + more: the 63-character cut lands on the
  // '-', which a Kubernetes name may not end with.
  const std::string id = std::string(53, 'a') + "-bbbbbbbbbb";
  const auto files = files_for(id_report(id, "dgx-h100", "h100-sxm", "ib-ndr"));
  const YAML::Node job = YAML::Load(files[4].second);
  EXPECT_EQ(job["metadata"]["name"].as<std::string>(), "scaleout-" + std::string(53, 'a'));
}

TEST(LaunchHostile, NonFiniteTimeIsCappedNotCast) {
  report::PlanReport r = id_report("m", "s", "g", "f");
  r.result.recommended->time_to_train_s = std::nan("");
  const std::string s = report::slurm_script(r, *r.result.recommended);
  EXPECT_NE(s.find("#SBATCH --time=7-00:00:00\n"), std::string::npos) << s;
}

// A report for a catalog model under a framework, 2 nodes x 8 GPUs.
report::PlanReport catalog_report(const std::string& model, Framework fw, const Layout& l) {
  report::PlanReport r;
  r.request.workload.model = *io::builtin_catalog().find_model(model);
  r.request.workload.framework = fw;
  r.request.workload.tokens = 1e11;
  r.request.workload.seq_len = 4096;
  HardwareOption hw;
  hw.server.id = "dgx-h100";
  hw.server.gpus_per_node = 8;
  hw.server.nics_per_node = 8;
  hw.gpu.id = "h100-sxm";
  Fabric f;
  f.id = "ib-ndr";
  f.kind = FabricKind::ib;
  hw.fabric = f;
  r.request.hardware.push_back(hw);
  PlanCandidate c;
  c.nodes = 2;
  c.layout = l;
  c.global_batch = 64LL * l.micro_batch * l.dp;
  c.step.step_s = 2.0;
  c.time_to_train_s = 86400.0;
  c.band = 0.1;
  r.result.verdict = Verdict::multi_node;
  r.result.recommended = c;
  return r;
}

std::map<std::string, std::string> file_map(const report::PlanReport& r, bool smoke = false) {
  const auto files = report::launch_files(r, *r.result.recommended, smoke);
  return {files.begin(), files.end()};
}

TEST(LaunchPlan, Llama3RotaryBaseAndOverlap) {
  Layout l;
  l.tp = 4;
  l.dp = 4;
  l.zero = 1;
  const auto r = catalog_report("llama3-70b", Framework::megatron, l);
  const auto a = report::megatron_args(r, *r.result.recommended);
  EXPECT_TRUE(has(a, "--rotary-base 500000"));
  EXPECT_FALSE(has(a, "--use-rope-scaling"));
  EXPECT_TRUE(has(a, "--use-distributed-optimizer"));
  EXPECT_TRUE(has(a, "--overlap-grad-reduce"));
  // Priced exposed (perf/step.cpp): not overlapped in the launched run either.
  EXPECT_FALSE(has(a, "--overlap-param-gather"));
  const auto r31 = catalog_report("llama3.1-405b", Framework::megatron, l);
  const auto a31 = report::megatron_args(r31, *r31.result.recommended);
  EXPECT_TRUE(has(a31, "--use-rope-scaling"));
  EXPECT_TRUE(has(a31, "--rope-scaling-factor 8"));
  // Layout dp_overlap false: priced after the backward, launched without the flag.
  l.dp_overlap = false;
  const auto off = catalog_report("llama3-70b", Framework::megatron, l);
  EXPECT_FALSE(has(report::megatron_args(off, *off.result.recommended), "--overlap-grad-reduce"));
}

TEST(LaunchPlan, DeepSeekV3Router) {
  Layout l;
  l.tp = 1;
  l.pp = 2;
  l.dp = 8;
  l.ep = 8;
  l.zero = 1;
  auto r = catalog_report("deepseek-v3", Framework::megatron, l);
  r.request.workload.precision = Precision::fp8;
  const auto a = report::megatron_args(r, *r.result.recommended);
  for (const char* want :
       {"--moe-router-score-function sigmoid", "--moe-router-enable-expert-bias",
        "--moe-router-num-groups 8", "--moe-router-group-topk 4", "--moe-router-topk 8",
        "--moe-router-topk-scaling-factor 2.5", "--moe-grouped-gemm",
        "--expert-model-parallel-size 8", "--expert-tensor-parallel-size 1", "--rope-type yarn",
        "--rotary-scaling-factor 40", "--fp8-format hybrid", "--fp8-recipe delayed",
        "--multi-latent-attention"}) {
    EXPECT_TRUE(has(a, want)) << want;
  }
}

TEST(LaunchPlan, FsdpZero3GetsAccelerateNotDistributedOptimizer) {
  Layout l;
  l.dp = 16;
  l.zero = 3;
  l.recompute = Recompute::full;
  const auto f = file_map(catalog_report("llama3-8b", Framework::fsdp, l));
  EXPECT_EQ(f.count("megatron.args"), 0u);
  const YAML::Node acc = YAML::Load(f.at("accelerate_fsdp.yaml"));
  EXPECT_EQ(acc["distributed_type"].as<std::string>(), "FSDP");
  EXPECT_EQ(acc["num_processes"].as<int>(), 16);
  EXPECT_EQ(acc["fsdp_config"]["fsdp_sharding_strategy"].as<std::string>(), "FULL_SHARD");
  EXPECT_TRUE(acc["fsdp_config"]["fsdp_activation_checkpointing"].as<bool>());
  for (const auto& [name, text] : f) {
    EXPECT_EQ(text.find("--use-distributed-optimizer"), std::string::npos) << name;
  }
  const auto ds = nlohmann::json::parse(f.at("deepspeed.json"));
  EXPECT_EQ(ds.at("zero_optimization").at("stage").get<int>(), 3);
}

TEST(LaunchPlan, DeepSpeedZero3UsesZeroStage) {
  Layout l;
  l.tp = 2;
  l.dp = 8;
  l.zero = 3;
  const auto r = catalog_report("llama3-8b", Framework::deepspeed, l);
  const auto a = report::megatron_args(r, *r.result.recommended);
  EXPECT_TRUE(has(a, "--deepspeed"));
  EXPECT_TRUE(has(a, "--zero-stage 3"));
  EXPECT_FALSE(has(a, "--use-distributed-optimizer"));
  const auto f = file_map(r);
  EXPECT_NE(f.at("torchrun.sh").find("--deepspeed_config \"$here/deepspeed.json\""),
            std::string::npos);
  const auto ds = nlohmann::json::parse(f.at("deepspeed.json"));
  EXPECT_EQ(ds.at("train_batch_size").get<long long>(),
            ds.at("train_micro_batch_size_per_gpu").get<long long>() *
                ds.at("gradient_accumulation_steps").get<long long>() * 8);
}

TEST(LaunchPlan, TorchtitanToml) {
  Layout l;
  l.tp = 2;
  l.pp = 2;
  l.dp = 4;
  l.micro_batch = 2;
  l.zero = 3;
  l.recompute = Recompute::selective;
  auto r = catalog_report("llama3-8b", Framework::torchtitan, l);
  r.request.workload.precision = Precision::fp8;
  const auto f = file_map(r);
  ASSERT_EQ(f.count("torchtitan.toml"), 1u);
  const std::string& t = f.at("torchtitan.toml");
  for (const char* want :
       {"name = \"llama3\"\n", "flavor = \"8B\"\n", "data_parallel_replicate_degree = 1\n",
        "data_parallel_shard_degree = 4\n", "fsdp_reshard_after_forward = \"default\"\n",
        "tensor_parallel_degree = 2\n", "pipeline_parallel_degree = 2\n",
        "context_parallel_degree = 1\n", "local_batch_size = 2\n", "global_batch_size = 512\n",
        "mode = \"selective\"\n", "converters = [\"quantize.linear.float8\"]\n",
        "[quantize.linear.float8]\n"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want;
  }
  EXPECT_NE(f.at("torchrun.sh").find("torchtitan.train"), std::string::npos);
  EXPECT_EQ(f.count("megatron.args"), 0u);
}

TEST(LaunchPlan, PipelineScheduleWrittenWhereTheLauncherHasItElseSaidNotRun) {
  Layout l;
  l.pp = 4;
  l.dp = 4;
  l.zero = 1;
  l.schedule = PipeSchedule::dualpipev;
  const auto titan = file_map(catalog_report("llama3-8b", Framework::torchtitan, l));
  EXPECT_NE(titan.at("torchtitan.toml").find("pipeline_parallel_schedule = \"DualPipeV\"\n"),
            std::string::npos);
  EXPECT_EQ(titan.at("torchrun.sh").find("NOT IN THESE FILES"), std::string::npos);
  // An in-house engine's DualPipe: every file says these files do not run it.
  l.schedule = PipeSchedule::dualpipe;
  const auto other = file_map(catalog_report("llama3-8b", Framework::other, l));
  EXPECT_NE(other.at("torchrun.sh").find("NOT IN THESE FILES: pipeline schedule dualpipe"),
            std::string::npos);
  for (const auto& [name, text] : other) {
    if (text.find("Generated by scaleout plan") == std::string::npos) continue;  // JSON
    EXPECT_NE(text.find("NOT IN THESE FILES: pipeline schedule dualpipe"), std::string::npos)
        << name;
  }
  // 1F1B: nothing written.
  l.schedule = PipeSchedule::one_f_one_b;
  const auto plain = file_map(catalog_report("llama3-8b", Framework::torchtitan, l));
  EXPECT_EQ(plain.at("torchtitan.toml").find("pipeline_parallel_schedule"), std::string::npos);
}

TEST(LaunchPlan, CudaGraphsWrittenWhereTheLauncherHasThemElseSaidNotRun) {
  Layout l;
  l.dp = 16;
  l.zero = 1;
  auto mega = catalog_report("llama3-8b", Framework::megatron, l);
  auto titan = catalog_report("llama3-8b", Framework::torchtitan, l);
  for (CudaGraphs g : {CudaGraphs::none, CudaGraphs::scoped, CudaGraphs::full}) {
    SCOPED_TRACE(to_string(g));
    mega.request.workload.cuda_graphs = g;
    const auto m = file_map(mega);
    EXPECT_EQ(m.at("megatron.args").find("--cuda-graph-impl") != std::string::npos,
              g != CudaGraphs::none);
    EXPECT_EQ(m.at("torchrun.sh").find("NOT IN THESE FILES"), std::string::npos);
    // plan.json's workload names the mode the step credits (absent: none).
    const auto plan = report::workload_json(mega.request.workload);
    EXPECT_EQ(plan.contains("cuda_graphs"), g != CudaGraphs::none);
    if (g != CudaGraphs::none) {
      EXPECT_EQ(plan.at("cuda_graphs").get<std::string>(), to_string(g));
    }
    if (g == CudaGraphs::scoped) continue;  // torchtitan runs none or full
    // torchtitan's [compile] has no mode key: every file says so.
    titan.request.workload.cuda_graphs = g;
    for (const auto& [name, text] : file_map(titan)) {
      if (text.find("Generated by scaleout plan") == std::string::npos) continue;  // JSON
      EXPECT_EQ(text.find("NOT IN THESE FILES: cuda_graphs full") != std::string::npos,
                g == CudaGraphs::full)
          << name;
      EXPECT_EQ(text.find("--cuda-graph-impl"), std::string::npos) << name;
    }
  }
}

TEST(LaunchPlan, TorchtuneQlora) {
  Layout l;
  l.dp = 8;
  l.zero = 3;
  l.recompute = Recompute::full;
  l.activation_offload = true;
  auto r = catalog_report("llama3-8b", Framework::torchtune, l);
  r.request.workload.task = Task::finetune;
  r.request.workload.finetune.method = FinetuneMethod::qlora;
  r.request.workload.finetune.rank = 8;
  r.request.workload.loss_chunks = 8;
  const auto f = file_map(r);
  const YAML::Node t = YAML::Load(f.at("torchtune.yaml"));
  EXPECT_EQ(t["model"]["lora_rank"].as<int>(), 8);
  EXPECT_EQ(t["loss"]["num_output_chunks"].as<int>(), 8);
  EXPECT_TRUE(t["enable_activation_offloading"].as<bool>());
  EXPECT_TRUE(t["enable_activation_checkpointing"].as<bool>());
  EXPECT_NE(f.at("torchrun.sh").find("lora_finetune_distributed"), std::string::npos);
  EXPECT_EQ(t["model"]["_component_"].as<std::string>(), "torchtune.models.llama3.qlora_llama3_8b");
}

TEST(LaunchPlan, EveryFileNamesThePlan) {
  Layout l;
  l.dp = 16;
  const auto f = file_map(catalog_report("llama3-8b", Framework::megatron, l), true);
  for (const auto& [name, text] : f) {
    if (name == "deepspeed.json" || name == "megatron.args") continue;  // no comments there
    EXPECT_NE(text.find("Generated by scaleout plan: llama3-8b"), std::string::npos) << name;
    EXPECT_NE(text.find("Layout: tp 1 pp 1 dp 16"), std::string::npos) << name;
    EXPECT_NE(text.find("global batch"), std::string::npos) << name;
    EXPECT_NE(text.find("memory"), std::string::npos) << name;
  }
}

TEST(LaunchPlan, RdmaResourcePerFabric) {
  Layout l;
  l.dp = 16;
  auto r = catalog_report("llama3-8b", Framework::megatron, l);
  r.request.hardware[0].fabric->kind = FabricKind::efa;
  const YAML::Node tj = YAML::Load(file_map(r).at("trainjob.yaml"));
  EXPECT_EQ(tj["spec"]["trainer"]["resourcesPerNode"]["limits"]["vpc.amazonaws.com/efa"].as<int>(),
            8);
  const std::string sbatch = file_map(r).at("slurm.sbatch");
  EXPECT_NE(sbatch.find("export FI_PROVIDER=efa"), std::string::npos);
  EXPECT_NE(sbatch.find("##SBATCH --partition=CHANGE-ME"), std::string::npos);
}

TEST(LaunchPlan, HybridShardingWrittenPerLauncher) {
  // Layout shard_group: FSDP2 HSDP (replicate x shard), MiCS, HYBRID_SHARD.
  Layout l;
  l.dp = 16;
  l.zero = 3;
  l.shard_group = 8;
  const auto titan = file_map(catalog_report("llama3-8b", Framework::torchtitan, l));
  const std::string& t = titan.at("torchtitan.toml");
  EXPECT_NE(t.find("data_parallel_replicate_degree = 2\n"), std::string::npos);
  EXPECT_NE(t.find("data_parallel_shard_degree = 8\n"), std::string::npos);
  const auto ds = nlohmann::json::parse(
      file_map(catalog_report("llama3-8b", Framework::deepspeed, l)).at("deepspeed.json"));
  EXPECT_EQ(ds.at("zero_optimization").at("mics_shard_size").get<int>(), 8);
  EXPECT_TRUE(ds.at("zero_optimization").at("mics_hierarchical_params_gather").get<bool>());
  const auto fsdp = file_map(catalog_report("llama3-8b", Framework::fsdp, l));
  const YAML::Node acc = YAML::Load(fsdp.at("accelerate_fsdp.yaml"));
  EXPECT_EQ(acc["fsdp_config"]["fsdp_sharding_strategy"].as<std::string>(), "HYBRID_SHARD");
  // Without it: plain sharding, no MiCS keys.
  l.shard_group = 0;
  const auto plain = nlohmann::json::parse(
      file_map(catalog_report("llama3-8b", Framework::deepspeed, l)).at("deepspeed.json"));
  EXPECT_FALSE(plain.at("zero_optimization").contains("mics_shard_size"));
}

}  // namespace
}  // namespace scaleout
