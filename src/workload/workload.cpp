#include "workload/workload.hpp"

namespace scaleout {

const char* to_string(Task t) {
  switch (t) {
    case Task::pretrain:
      return "pretrain";
    case Task::finetune:
      return "finetune";
    case Task::inference:
      return "inference";
  }
  return "?";
}

const char* to_string(WeightFormat f) {
  switch (f) {
    case WeightFormat::bf16:
      return "bf16";
    case WeightFormat::fp8:
      return "fp8";
    case WeightFormat::int8:
      return "int8";
    case WeightFormat::int4:
      return "int4";
  }
  return "?";
}

const char* to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adam:
      return "adam";
    case Optimizer::adam8bit:
      return "adam8bit";
    case Optimizer::sgd:
      return "sgd";
    case Optimizer::adafactor:
      return "adafactor";
  }
  return "?";
}

const char* to_string(FinetuneMethod m) {
  switch (m) {
    case FinetuneMethod::full:
      return "full";
    case FinetuneMethod::lora:
      return "lora";
    case FinetuneMethod::qlora:
      return "qlora";
  }
  return "?";
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

const char* to_string(Dim d) {
  switch (d) {
    case Dim::tp:
      return "tp";
    case Dim::cp:
      return "cp";
    case Dim::dp:
      return "dp";
    case Dim::pp:
      return "pp";
  }
  return "?";
}

std::string order_string(const std::array<Dim, 4>& order) {
  std::string s;
  for (Dim d : order) {
    if (!s.empty()) s += "-";
    s += to_string(d);
  }
  return s;
}

}  // namespace scaleout
