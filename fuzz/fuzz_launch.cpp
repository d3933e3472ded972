// libFuzzer target: the launch-file writers (report::launch_files,
// src/report/launch.hpp) on their own, with a PlanReport whose model, server,
// GPU and fabric ids are arbitrary fuzzed bytes (the readers would reject
// most of them; this checks the writers' escaping by itself) and whose
// layout, sizes, precision, fabric kind, verdict, framework row (launcher
// family), fine-tuning method and --smoke are fuzzed in legal ranges. Each file is compared with
// the same plan's file under benign ids.
//
// A finding (abort) is, for the fuzzed ids:
// - an exception other than InputError, or an InputError although every id
//   is a valid id (core/ids.hpp);
// - a control byte other than a line feed in a file;
// - a file with another number of lines than under benign ids, a comment
//   line that is not a comment (or the reverse), or a line outside comments
//   that differs other than by the job name;
// - a job name (slurm.sbatch --job-name, pytorchjob.yaml metadata.name) that
//   is not a Kubernetes name: lower-case letters, digits, '-', at most 63;
// - megatron.args or deepspeed.json that differ at all (they hold no id);
// - pytorchjob.yaml or trainjob.yaml that is not one yaml-cpp document equal to the benign
//   one but for metadata.name (read when the input has a non-ASCII byte;
//   otherwise the line checks settle it).
#include <fuzzer/FuzzedDataProvider.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "io/catalog_reader.hpp"
#include "report/launch.hpp"

namespace {

using scaleout::report::PlanReport;
using Files = std::vector<std::pair<std::string, std::string>>;

[[noreturn]] void fail(const std::string& what, const std::string& fuzzed,
                       const std::string& benign) {
  std::fprintf(stderr, "FINDING: %s\n--- with fuzzed ids:\n%s\n--- with benign ids:\n%s\n",
               what.c_str(), fuzzed.c_str(), benign.c_str());
  std::abort();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

bool is_comment(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  return first != std::string::npos && line[first] == '#';
}

bool k8s_name(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
}

std::string job_name_of(const Files& files) {
  for (const std::string& line : lines_of(files.at(0).second)) {
    if (line.rfind("#SBATCH --job-name=", 0) == 0) return line.substr(19);
  }
  return {};
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string yaml_without_name(const std::string& text) {
  const std::vector<YAML::Node> docs = YAML::LoadAll(text);
  if (docs.size() != 1) return "(" + std::to_string(docs.size()) + " documents)";
  YAML::Node doc = YAML::Clone(docs[0]);
  if (doc["metadata"]) doc["metadata"]["name"] = "NAME";
  std::ostringstream out;
  out << doc;
  return out.str();
}

void compare(const Files& fuzzed, const Files& benign, bool non_ascii) {
  const std::string job = job_name_of(fuzzed);
  const std::string benign_job = job_name_of(benign);
  if (!k8s_name(job)) fail("job name '" + job + "'", fuzzed.at(0).second, benign.at(0).second);
  for (size_t f = 0; f < fuzzed.size(); ++f) {
    const std::string& name = fuzzed[f].first;
    const std::string& text = fuzzed[f].second;
    const std::string& ref = benign.at(f).second;
    if (name != benign[f].first) fail("file " + name + " is not " + benign[f].first, text, ref);
    for (const char ch : text) {
      const auto u = static_cast<unsigned char>(ch);
      if ((u < 0x20 && ch != '\n') || u == 0x7f) {
        fail(name + " holds control byte " + std::to_string(u), text, ref);
      }
    }
    const std::vector<std::string> lines = lines_of(text);
    const std::vector<std::string> ref_lines = lines_of(ref);
    if (lines.size() != ref_lines.size()) {
      fail(name + " has " + std::to_string(lines.size()) + " lines, not " +
               std::to_string(ref_lines.size()),
           text, ref);
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (is_comment(lines[i]) != is_comment(ref_lines[i])) {
        fail(name + " line " + std::to_string(i + 1) + " is (or is not) a comment", text, ref);
      }
      if (!is_comment(ref_lines[i]) && replace_all(lines[i], job, benign_job) != ref_lines[i]) {
        fail(name + " line " + std::to_string(i + 1) + " differs outside comments", text, ref);
      }
    }
    if ((name == "megatron.args" || name == "deepspeed.json") && text != ref) {
      fail(name + " depends on an id", text, ref);
    }
    // The line checks above settle YAML's structure as long as a line feed
    // is its only line break; with non-ASCII ids (YAML 1.1 also breaks lines
    // at NEL, LS and PS) the file is also read with yaml-cpp. Parsing every
    // time would make this target several times slower.
    if ((name == "pytorchjob.yaml" || name == "trainjob.yaml") && non_ascii) {
      try {
        const YAML::Node doc = YAML::Load(text);
        if (doc["metadata"]["name"].as<std::string>() != job) {
          fail("metadata.name is not the job name " + job, text, ref);
        }
        if (yaml_without_name(text) != yaml_without_name(ref)) {
          fail(name + " reads differently under benign ids", text, ref);
        }
      } catch (const YAML::Exception& e) {
        fail(name + " does not read: " + e.what(), text, ref);
      }
    }
  }
}

template <typename T, size_t N>
T pick(FuzzedDataProvider& in, const T (&values)[N]) {
  return values[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scaleout;
  FuzzedDataProvider in(data, size);
  const Catalog& catalog = io::builtin_catalog();
  static const std::vector<const ModelShape*> models = catalog.all<ModelShape>();
  static const std::vector<const Server*> servers = catalog.all<Server>();
  static const std::vector<const Fabric*> fabrics = catalog.all<Fabric>();

  PlanReport r;
  Workload& w = r.request.workload;
  w.model = *models.at(in.ConsumeIntegralInRange<size_t>(0, models.size() - 1));
  w.seq_len = in.ConsumeIntegralInRange(128, 131072);
  w.tokens = in.ConsumeFloatingPointInRange(1e6, 1e13);
  w.precision = pick(
      in, {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32, Precision::tf32});
  HardwareOption hw;
  hw.server = *servers.at(in.ConsumeIntegralInRange<size_t>(0, servers.size() - 1));
  hw.gpu = *catalog.find_gpu(hw.server.gpu_id);
  if (in.ConsumeBool())
    hw.fabric = *fabrics.at(in.ConsumeIntegralInRange<size_t>(0, fabrics.size() - 1));
  r.request.hardware.push_back(hw);
  r.result.verdict = pick(in, {Verdict::single_node, Verdict::multi_node, Verdict::infeasible});

  PlanCandidate c;
  Layout& l = c.layout;
  l.tp = in.ConsumeIntegralInRange(1, 8);
  l.pp = in.ConsumeIntegralInRange(1, 16);
  l.dp = in.ConsumeIntegralInRange(1, 64);
  l.cp = in.ConsumeIntegralInRange(1, 4);
  l.ep = in.ConsumeIntegralInRange(1, 8);
  l.micro_batch = in.ConsumeIntegralInRange(1, 16);
  l.interleave = in.ConsumeIntegralInRange(1, 4);
  l.zero = in.ConsumeIntegralInRange(0, 3);
  l.recompute = pick(in, {Recompute::none, Recompute::selective, Recompute::full});
  l.sp = in.ConsumeBool();
  l.flash_attention = in.ConsumeBool();
  l.offload_optimizer = in.ConsumeBool();
  l.fp8_param_gather = in.ConsumeBool();
  c.nodes = in.ConsumeIntegralInRange(1, 64);
  c.global_batch = static_cast<long long>(l.micro_batch) * l.dp * in.ConsumeIntegralInRange(1, 64);
  c.step.step_s = in.ConsumeFloatingPointInRange(1e-3, 1e3);
  c.time_to_train_s = in.ConsumeFloatingPointInRange(1.0, 1e9);
  c.band = in.ConsumeFloatingPointInRange(0.0, 1.0);
  // Framework row and fine-tuning method: every launcher family's writers.
  w.framework =
      static_cast<Framework>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(Framework::other)));
  if (in.ConsumeBool()) {
    w.task = Task::finetune;
    w.finetune.method =
        pick(in, {FinetuneMethod::full, FinetuneMethod::lora, FinetuneMethod::qlora});
    w.finetune.rank = in.ConsumeIntegralInRange(1, 256);
  }
  const bool smoke = in.ConsumeBool();

  // The same plan under benign ids, then under the fuzzed ones.
  PlanReport benign = r;
  benign.request.workload.model.id = "model";
  benign.request.hardware[0].server.id = "server";
  benign.request.hardware[0].gpu.id = "gpu";
  if (benign.request.hardware[0].fabric) benign.request.hardware[0].fabric->id = "fabric";
  const Files ref = report::launch_files(benign, c, smoke);

  HardwareOption& fhw = r.request.hardware[0];
  w.model.id = in.ConsumeRandomLengthString(300);
  fhw.server.id = in.ConsumeRandomLengthString(300);
  fhw.gpu.id = in.ConsumeRandomLengthString(300);
  if (fhw.fabric) fhw.fabric->id = in.ConsumeRandomLengthString(300);
  std::vector<const std::string*> ids = {&w.model.id, &fhw.server.id, &fhw.gpu.id};
  if (fhw.fabric) ids.push_back(&fhw.fabric->id);
  bool valid = true, non_ascii = false;
  for (const std::string* id : ids) {
    valid = valid && is_valid_id(*id);
    non_ascii = non_ascii || std::any_of(id->begin(), id->end(), [](char ch) { return ch & 0x80; });
  }
  Files files;
  try {
    files = report::launch_files(r, c, smoke);
  } catch (const InputError& e) {
    if (valid) fail(std::string("InputError with valid ids: ") + e.what(), "", "");
    return 0;
  }
  compare(files, ref, non_ascii);
  return 0;
}
