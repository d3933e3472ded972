// libFuzzer target: `plan --emit DIR` on a fuzzed catalog file and a fuzzed
// workload ("CATALOG\n#8<\nWORKLOAD", fuzz_util.hpp), run in-process
// (run_cli) into a fresh folder that is removed after each run. Each launch
// file is checked with its format's parser and against the plan the JSON
// report recommends.
//
// A finding (abort) is:
// - an exit code other than 0 or 2, or exit 2 without a message; exit 2 that
//   leaves launch files behind (--emit writes all or nothing);
// - on success: a folder that does not hold exactly the files of every plan
//   and those of one launcher family (launch_names, family_names), each
//   listed ("wrote ..."), a control byte other than a line feed in a file, a line
//   break that an id brought in (the file has another line count once each
//   id's raw text is replaced by a benign "x"), a number that is not finite;
// - deepspeed.json that does not parse with nlohmann or whose batch sizes
//   and ZeRO stage are not the plan's; pytorchjob.yaml that is not one
//   yaml-cpp document with the PyTorchJob keys, a Kubernetes name, the
//   plan's replicas (and, with megatron.args, tensor-parallel size);
//   trainjob.yaml without the TrainJob keys and the plan's nodes; plan.json
//   that does not parse; megatron.args with a line that
//   is not an option, or without the plan's sizes; slurm.sbatch with an
//   #SBATCH line after the first command (sbatch ignores those) or without
//   the plan's node count; torchrun.sh without it.
//
// Speed: only workloads whose search is tiny (kMaxPlanCells) are planned,
// with one thread; the folder is on /dev/shm when there is one.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fuzz_util.hpp"

namespace {

namespace fz = scaleout::fuzz;
using fz::CliRun;
using fz::fail;
using nlohmann::json;

constexpr long long kMaxPlanCells = 8;

// The files of every plan, and the launcher families' own files.
const std::vector<std::string>& launch_names() {
  static const std::vector<std::string> names = {"slurm.sbatch",   "torchrun.sh",
                                                 "deepspeed.json", "pytorchjob.yaml",
                                                 "trainjob.yaml",  "plan.json"};
  return names;
}

const std::vector<std::vector<std::string>>& family_names() {
  static const std::vector<std::vector<std::string>> names = {
      {"megatron.args"},
      {"torchtitan.toml"},
      {"accelerate_fsdp.yaml"},
      {"accelerate_fsdp.yaml", "finetune_peft.yaml"},
      {"torchtune.yaml"}};
  return names;
}

size_t line_breaks(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::string read_file(const fz::fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains_line(const std::string& text, const std::string& line) {
  for (const std::string& l : lines_of(text)) {
    if (l == line) return true;
  }
  return false;
}

// A Kubernetes object name (RFC 1123 label) and a Slurm job name here:
// lower-case letters, digits and '-', starting and ending with a letter or
// digit, at most 63 characters.
bool k8s_name(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
}

// What the JSON report recommends.
struct Plan {
  long long nodes = 0, gpus = 0, global_batch = 0;
  long long tp = 0, pp = 0, dp = 0, micro_batch = 0, zero = 0;
  std::vector<std::string> ids;  // model, server, GPU and fabric ids
  bool megatron = false;         // megatron.args was written
};

Plan recommended(const CliRun& r, const std::string& model_id) {
  const size_t end = r.out.find("\nwrote ");
  if (end == std::string::npos) fail(r, "--emit printed no 'wrote FILE' line");
  Plan p;
  try {
    const json j = json::parse(r.out.substr(0, end + 1));
    const json& c = j.at("recommended");
    const json& l = c.at("layout");
    p.nodes = c.at("nodes").get<long long>();
    p.gpus = c.at("gpus").get<long long>();
    p.global_batch = c.at("global_batch").get<long long>();
    p.tp = l.at("tp").get<long long>();
    p.pp = l.at("pp").get<long long>();
    p.dp = l.at("dp").get<long long>();
    p.micro_batch = l.at("micro_batch").get<long long>();
    p.zero = l.at("zero").get<long long>();
    p.ids = {model_id, c.at("server").get<std::string>(), c.at("gpu").get<std::string>()};
    if (!c.at("fabric").is_null()) p.ids.push_back(c.at("fabric").get<std::string>());
  } catch (const json::exception& e) {
    fail(r, std::string("the JSON report of plan --emit does not read: ") + e.what());
  }
  if (p.nodes <= 0 || p.gpus <= 0 || p.gpus % p.nodes != 0) fail(r, "odd node or GPU count");
  return p;
}

// `text` with every raw occurrence of each id replaced by "x", longest id
// first: what the file would be under benign ids, as far as line breaks go.
std::string with_benign_ids(std::string text, std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& id : ids) {
    if (id.empty()) continue;
    for (size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1)) {
      text.replace(at, id.size(), "x");
    }
  }
  return text;
}

void check_any_file(const CliRun& r, const std::string& name, const std::string& text,
                    const Plan& p, const std::set<std::string>& allowed) {
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if ((u < 0x20 && ch != '\n') || u == 0x7f) {
      fail(r, name + " holds control byte " + std::to_string(u));
    }
  }
  if (line_breaks(with_benign_ids(text, p.ids)) != line_breaks(text)) {
    fail(r, name + ": an id brings a line break into the file:\n" + text);
  }
  fz::check_finite_text(r, text, allowed, name);
}

void check_deepspeed(const CliRun& r, const std::string& text, const Plan& p) {
  try {
    const json j = json::parse(text);
    const long long mb = j.at("train_micro_batch_size_per_gpu").get<long long>();
    const long long accum = j.at("gradient_accumulation_steps").get<long long>();
    if (j.at("train_batch_size").get<long long>() != p.global_batch || mb != p.micro_batch ||
        mb * accum * p.dp != p.global_batch ||
        j.at("zero_optimization").at("stage").get<long long>() != p.zero) {
      fail(r, "deepspeed.json does not hold the plan's batch sizes and ZeRO stage:\n" + text);
    }
  } catch (const json::exception& e) {
    fail(r, std::string("deepspeed.json does not read: ") + e.what() + "\n" + text);
  }
}

void check_pytorchjob(const CliRun& r, const std::string& text, const Plan& p) {
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() != 1 || !docs[0].IsMap()) fail(r, "pytorchjob.yaml is not one mapping");
    const YAML::Node& job = docs[0];
    std::set<std::string> keys;
    for (const auto& kv : job) keys.insert(kv.first.as<std::string>());
    if (keys != std::set<std::string>{"apiVersion", "kind", "metadata", "spec"}) {
      fail(r, "pytorchjob.yaml has other top-level keys:\n" + text);
    }
    const std::string name = job["metadata"]["name"].as<std::string>();
    if (job["apiVersion"].as<std::string>() != "kubeflow.org/v1" ||
        job["kind"].as<std::string>() != "PyTorchJob" || !k8s_name(name)) {
      fail(r, "pytorchjob.yaml: apiVersion, kind or metadata.name is wrong:\n" + text);
    }
    const YAML::Node spec = job["spec"];
    const YAML::Node replicas = spec["pytorchReplicaSpecs"];
    if (spec["nprocPerNode"].as<std::string>() != std::to_string(p.gpus / p.nodes) ||
        replicas["Master"]["replicas"].as<long long>() != 1 ||
        (p.nodes > 1) != static_cast<bool>(replicas["Worker"]) ||
        (p.nodes > 1 && replicas["Worker"]["replicas"].as<long long>() != p.nodes - 1)) {
      fail(r, "pytorchjob.yaml: GPUs per node or replicas are not the plan's:\n" + text);
    }
    if (!p.megatron) return;
    const YAML::Node args = replicas["Master"]["template"]["spec"]["containers"][0]["args"];
    bool tp = false;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      tp = tp || (args[i].as<std::string>() == "--tensor-model-parallel-size" &&
                  args[i + 1].as<std::string>() == std::to_string(p.tp));
    }
    if (!tp) fail(r, "pytorchjob.yaml: args lack the plan's tensor-parallel size:\n" + text);
  } catch (const YAML::Exception& e) {
    fail(r, std::string("pytorchjob.yaml does not read: ") + e.what() + "\n" + text);
  }
}

void check_trainjob(const CliRun& r, const std::string& text, const Plan& p) {
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() != 1 || !docs[0].IsMap()) fail(r, "trainjob.yaml is not one mapping");
    const YAML::Node& job = docs[0];
    const YAML::Node trainer = job["spec"]["trainer"];
    if (job["apiVersion"].as<std::string>() != "trainer.kubeflow.org/v1alpha1" ||
        job["kind"].as<std::string>() != "TrainJob" ||
        !k8s_name(job["metadata"]["name"].as<std::string>()) ||
        job["spec"]["runtimeRef"]["name"].as<std::string>().empty() ||
        trainer["numNodes"].as<long long>() != p.nodes ||
        trainer["numProcPerNode"].as<long long>() != p.gpus / p.nodes) {
      fail(r, "trainjob.yaml: keys, nodes or processes per node are not the plan's:\n" + text);
    }
  } catch (const YAML::Exception& e) {
    fail(r, std::string("trainjob.yaml does not read: ") + e.what() + "\n" + text);
  }
}

void check_megatron(const CliRun& r, const std::string& text, const Plan& p) {
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("--", 0) != 0) fail(r, "megatron.args: a line is not an option: " + line);
  }
  const auto has = [&](const std::string& flag, long long v) {
    return contains_line(text, flag + " " + std::to_string(v));
  };
  if (!has("--tensor-model-parallel-size", p.tp) || !has("--pipeline-model-parallel-size", p.pp) ||
      !has("--micro-batch-size", p.micro_batch) || !has("--global-batch-size", p.global_batch)) {
    fail(r, "megatron.args lacks the plan's sizes:\n" + text);
  }
}

void check_slurm(const CliRun& r, const std::string& text, const Plan& p) {
  const std::vector<std::string> lines = lines_of(text);
  if (lines.empty() || lines[0] != "#!/usr/bin/env bash") fail(r, "slurm.sbatch: no shebang");
  bool command_seen = false;
  std::string job;
  for (const std::string& line : lines) {
    if (line.rfind("#SBATCH ", 0) == 0) {
      if (command_seen) fail(r, "slurm.sbatch: #SBATCH after the first command:\n" + text);
      if (line.rfind("#SBATCH --job-name=", 0) == 0) job = line.substr(19);
    } else if (!line.empty() && line[0] != '#') {
      command_seen = true;
    }
  }
  if (!k8s_name(job)) fail(r, "slurm.sbatch: job name '" + job + "'");
  if (!contains_line(text, "#SBATCH --nodes=" + std::to_string(p.nodes))) {
    fail(r, "slurm.sbatch lacks the plan's node count:\n" + text);
  }
}

void check_torchrun(const CliRun& r, const std::string& text, const Plan& p) {
  if (text.rfind("#!/usr/bin/env bash\n", 0) != 0) fail(r, "torchrun.sh: no shebang");
  if (!contains_line(text, "  --nnodes=" + std::to_string(p.nodes) + " \\") &&
      !contains_line(text, "  --num_machines " + std::to_string(p.nodes) + " \\")) {
    fail(r, "torchrun.sh lacks the plan's node count:\n" + text);
  }
}

std::vector<std::string> files_in(const fz::fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fz::fs::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)fz::scratch_dir();
  (void)scaleout::io::builtin_catalog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fz::Parts parts = fz::split_input(data, size);
  const fz::fs::path& dir = fz::scratch_dir();
  const fz::Preview preview = fz::preview(parts, dir);
  if (preview.plan_cells <= 0 || preview.plan_cells > kMaxPlanCells) return 0;
  const std::string workload = (dir / "w.yaml").string();
  const std::string catalog = (dir / "c.yaml").string();
  const fz::fs::path emit = dir / "emit";
  fz::write_file(workload, parts.workload);
  std::vector<std::string> words = {"plan",     workload, "--threads", "1",
                                    "--format", "json",   "--emit",    emit.string()};
  if (!parts.catalog.empty()) {
    fz::write_file(catalog, parts.catalog);
    words.insert(words.end(), {"--catalog", catalog});
  }
  std::error_code ec;
  fz::fs::remove_all(emit, ec);
  const CliRun r = fz::run_cli_words(words);
  fz::check_exit(r);
  const std::vector<std::string> made = files_in(emit);
  if (r.rc != 0) {
    if (!made.empty()) fail(r, "exit 2 left launch files behind (--emit is all or nothing)");
    fz::fs::remove_all(emit, ec);
    return 0;
  }
  std::vector<std::string> names;
  for (const auto& family : family_names()) {
    std::vector<std::string> expected = launch_names();
    expected.insert(expected.end(), family.begin(), family.end());
    std::sort(expected.begin(), expected.end());
    if (made == expected) names = expected;
  }
  if (names.empty()) fail(r, "the --emit folder does not hold one launcher family's files");
  for (const std::string& name : names) {
    if (r.out.find("\nwrote " + (emit / name).string() + "\n") == std::string::npos) {
      fail(r, "no 'wrote' line for " + name);
    }
  }
  Plan p = recommended(r, preview.model_id);
  p.megatron = std::find(names.begin(), names.end(), "megatron.args") != names.end();
  const std::set<std::string> allowed = fz::input_words(parts);
  for (const std::string& name : names) {
    const std::string text = read_file(emit / name);
    if (name == "plan.json") {
      // The JSON report itself: it parses (its figures are fuzz_plan_finite's).
      if (!json::accept(text)) fail(r, "plan.json does not parse");
      continue;
    }
    check_any_file(r, name, text, p, allowed);
    if (name == "deepspeed.json") check_deepspeed(r, text, p);
    if (name == "pytorchjob.yaml") check_pytorchjob(r, text, p);
    if (name == "trainjob.yaml") check_trainjob(r, text, p);
    if (name == "megatron.args") check_megatron(r, text, p);
    if (name == "slurm.sbatch") check_slurm(r, text, p);
    if (name == "torchrun.sh") check_torchrun(r, text, p);
    if (name.ends_with(".yaml")) {
      try {
        (void)YAML::LoadAll(text);
      } catch (const YAML::Exception& e) {
        fail(r, name + " does not read: " + e.what() + "\n" + text);
      }
    }
  }
  fz::fs::remove_all(emit, ec);
  return 0;
}
