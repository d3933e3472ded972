// The framework table (workload/framework.hpp): complete, names round-trip,
// unknown names refused by both readers, and the code that tells frameworks
// apart reads the rows.
#include "workload/framework.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/validation_csv.hpp"
#include "io/workload_reader.hpp"
#include "memory/memory.hpp"
#include "perf/step.hpp"
#include "validation/validation.hpp"
#include "validation_rows.hpp"

namespace scaleout {
namespace {

// Every enum value, written out: a new value missing here fails the size test.
const Framework kAll[] = {Framework::megatron,
                          Framework::deepspeed,
                          Framework::fsdp,
                          Framework::torchtitan,
                          Framework::nemo,
                          Framework::mosaic,
                          Framework::automodel,
                          Framework::hf,
                          Framework::torchtune,
                          Framework::litgpt,
                          Framework::automodel_torch,
                          Framework::megatron_deepspeed_2021,
                          Framework::other};

TEST(FrameworkTable, EveryFrameworkHasItsRowAndNamesRoundTrip) {
  ASSERT_EQ(std::size(kAll), kFrameworkTable.size());
  std::set<std::string> names;
  for (Framework f : kAll) {
    const FrameworkTraits& t = framework_traits(f);
    EXPECT_EQ(t.framework, f);
    EXPECT_FALSE(t.display.empty());
    EXPECT_EQ(std::string(to_string(f)), std::string(t.name));
    EXPECT_EQ(framework_from_name(to_string(f)), f);
    names.insert(std::string(t.name));
  }
  EXPECT_EQ(names.size(), kFrameworkTable.size());
  // The readers' list: the table's names in table (enum) order.
  EXPECT_EQ(framework_names(),
            (std::vector<std::string>{"megatron", "deepspeed", "fsdp", "torchtitan", "nemo",
                                      "mosaic", "automodel", "hf", "torchtune", "litgpt",
                                      "automodel-torch", "megatron-deepspeed-2021", "other"}));
}

TEST(FrameworkTable, UnknownNamesAreNotFrameworks) {
  for (const char* s : {"", "megatorn", "Megatron", "megatron ", "pytorch", "megatron-lm"}) {
    EXPECT_FALSE(framework_from_name(s).has_value()) << s;
  }
}

TEST(FrameworkTable, OneMegatronFamily) {
  // Megatron-LM's layers and defaults: Megatron-LM, NeMo and Megatron-DeepSpeed.
  std::set<Framework> family, te;
  for (Framework f : kAll) {
    if (framework_traits(f).megatron_family) family.insert(f);
    if (framework_traits(f).transformer_engine_fp8) te.insert(f);
  }
  EXPECT_EQ(family, (std::set<Framework>{Framework::megatron, Framework::deepspeed, Framework::nemo,
                                         Framework::megatron_deepspeed_2021}));
  // FP8 through Transformer Engine is a Megatron-Core feature, inside the family.
  EXPECT_EQ(te, (std::set<Framework>{Framework::megatron, Framework::nemo}));
  EXPECT_EQ(transformer_engine_fp8_names(), "megatron or nemo");
  for (Framework f : kAll) {
    Workload w;
    w.framework = f;
    w.precision = Precision::fp8;
    EXPECT_EQ(te_fp8(w), te.count(f) == 1) << to_string(f);
  }
}

// The validation rows follow the same family: a GPT row on A100 runs
// Megatron's unfused softmax and dropout 0.1 in the family only.
TEST(FrameworkTable, ValidationRowsFollowTheFamilyFlag) {
  for (Framework f : kAll) {
    ValidationRow r = gpt_row();
    r.framework = to_string(f);
    r.metric = "step_time_s";
    r.value = 3.5;
    const RowResult res = predict_row(r, io::builtin_catalog());
    ASSERT_TRUE(res.predicted.has_value()) << to_string(f) << ": " << res.skipped;
    EXPECT_EQ(res.filled.find("flash_attention=off") != std::string::npos,
              framework_traits(f).megatron_family)
        << to_string(f);
  }
}

TEST(FrameworkTable, PredictRowRefusesAnUnknownFrameworkInsteadOfTakingOther) {
  ValidationRow r;
  r.id = "t";
  r.layers = 24;
  r.hidden = 2304;
  r.heads = 24;
  r.vocab = 51200;
  r.seq_len = 2048;
  r.num_gpus = 8;
  r.gpus_per_node = 8;
  r.gpu = "a100-sxm-80g";
  r.metric = "step_time_s";
  r.value = 1;
  r.framework = "megatorn";
  const RowResult res = predict_row(r, io::builtin_catalog());
  EXPECT_FALSE(res.predicted.has_value());
  EXPECT_FALSE(res.memory_evaluated);
  EXPECT_EQ(res.skipped, "framework 'megatorn' is not known");
  r.framework = "";  // an empty cell is `other` (docs/input-format.md)
  EXPECT_TRUE(predict_row(r, io::builtin_catalog()).memory_evaluated);
}

TEST(FrameworkTable, StepConstantsAreTheRows) {
  const Catalog& cat = io::builtin_catalog();
  const Gpu& a100 = *cat.find_gpu("a100-sxm-80g");
  const Gpu& h100 = *cat.find_gpu("h100-sxm");
  // Within 1 % of the fitted values: A100 80GB and H100 SXM are (about) the
  // ratios the values were fitted at.
  EXPECT_NEAR(eager_efficiency(a100), a100.family_data.eager_efficiency, 0.01);
  EXPECT_NEAR(eager_efficiency(h100), h100.family_data.eager_efficiency, 0.001);
  for (Framework f : kAll) {
    const FrameworkTraits& t = framework_traits(f);
    for (const Gpu* g : {&a100, &h100}) {
      const FrameworkConstants k = framework_constants(f, *g);
      EXPECT_DOUBLE_EQ(k.compute_efficiency, t.eager ? eager_efficiency(*g) : 1.0);
      EXPECT_DOUBLE_EQ(k.kernel_floor_s, t.kernel_floor_s);
      EXPECT_DOUBLE_EQ(k.zero3_hidden_share, t.zero3_hidden_share);
      EXPECT_EQ(k.zero3_per_tensor, t.zero3_per_tensor);
      EXPECT_EQ(k.lora_zero3_exposed, t.lora_zero3_exposed);
      EXPECT_EQ(k.dp_overlap, t.dp_overlap);
      EXPECT_EQ(k.tp_backward_overlap, t.tp_backward_overlap);
      EXPECT_EQ(k.pp_grad_partitioned, t.pp_grad_partitioned);
      EXPECT_EQ(k.pp_serial_exchanges, t.pp_serial_exchanges);
    }
  }
  // PEFT's FSDP units under the rate limiter: only the Hugging Face row.
  for (Framework f : kAll) EXPECT_EQ(framework_traits(f).lora_zero3_exposed, f == Framework::hf);
  EXPECT_DOUBLE_EQ(framework_traits(Framework::deepspeed).kernel_floor_s, kDeepSpeedKernelFloor_s);
  EXPECT_DOUBLE_EQ(framework_traits(Framework::deepspeed).zero3_hidden_share,
                   kDeepSpeedZero3HiddenShare);
}

TEST(FrameworkTable, MegatronDeepSpeed2021IsDeepSpeedWithWholeStageGradients) {
  // The 2021 engine is the deepspeed row but for whole activation gradients
  // between stages (DeepSpeed <= 0.5.3); both all-reduce the backward TP
  // synchronously (Megatron-DeepSpeed turns the asynchronous all-reduce off
  // under --deepspeed); only DeepSpeed's rows run its engine.
  const FrameworkTraits& ds = framework_traits(Framework::deepspeed);
  const FrameworkTraits& old = framework_traits(Framework::megatron_deepspeed_2021);
  for (Framework f : kAll) {
    EXPECT_EQ(framework_traits(f).deepspeed_engine,
              f == Framework::deepspeed || f == Framework::megatron_deepspeed_2021)
        << to_string(f);
    EXPECT_EQ(framework_traits(f).pp_grad_partitioned, f != Framework::megatron_deepspeed_2021)
        << to_string(f);
    // TrainSchedule's serial blocking exchanges: every version of the engine.
    EXPECT_EQ(framework_traits(f).pp_serial_exchanges, framework_traits(f).deepspeed_engine)
        << to_string(f);
  }
  EXPECT_FALSE(ds.tp_backward_overlap);
  EXPECT_FALSE(old.tp_backward_overlap);
  for (Framework f : {Framework::megatron, Framework::nemo}) {
    EXPECT_TRUE(framework_traits(f).tp_backward_overlap) << to_string(f);
  }
  EXPECT_EQ(old.state, ds.state);
  EXPECT_EQ(old.dp_overlap, ds.dp_overlap);
  EXPECT_EQ(old.interleaved_pp, ds.interleaved_pp);
  EXPECT_EQ(old.max_zero, ds.max_zero);
  EXPECT_EQ(old.max_zero_with_pp, ds.max_zero_with_pp);
  EXPECT_DOUBLE_EQ(old.kernel_floor_s, ds.kernel_floor_s);
  EXPECT_DOUBLE_EQ(old.zero3_hidden_share, ds.zero3_hidden_share);
  EXPECT_EQ(old.selective, ds.selective);
}

TEST(FrameworkTable, VariantRowsShareTheirEnginesIntervalRegime) {
  // A version or kernel variant of an engine takes that engine's prediction
  // intervals (perf/intervals.hpp regime key); every other row is its own.
  for (Framework f : kAll) {
    const std::string_view engine = framework_traits(f).engine;
    ASSERT_TRUE(framework_from_name(engine).has_value()) << to_string(f);
    if (f == Framework::megatron_deepspeed_2021) {
      EXPECT_EQ(engine, "deepspeed");
    } else if (f == Framework::automodel_torch) {
      EXPECT_EQ(engine, "automodel");
    } else {
      EXPECT_EQ(engine, to_string(f));
    }
  }
}

TEST(FrameworkTable, TokenDroppingIsMegatronCoresMoeLayers) {
  // The capacity factor and padding are Megatron-Core's MoE layer's: the
  // rows whose experts run it, megatron and nemo.
  for (Framework f : kAll) {
    EXPECT_EQ(takes_token_drop(f), f == Framework::megatron || f == Framework::nemo)
        << to_string(f);
  }
}

TEST(FrameworkTable, PlannerRulesAsBefore) {
  // The stages and parallelisms the search tried before the table.
  for (Framework f : kAll) {
    const bool megatron = f == Framework::megatron || f == Framework::nemo;
    // `other` (in-house engines) searches TP, PP and CP since DualPipe.
    const bool plain_fsdp = f == Framework::fsdp || f == Framework::mosaic || f == Framework::hf ||
                            f == Framework::torchtune || f == Framework::litgpt;
    EXPECT_EQ(max_zero_stage(f, 1), megatron ? 1 : 3) << to_string(f);
    EXPECT_EQ(max_zero_stage(f, 4), megatron || framework_traits(f).deepspeed_engine ? 1 : 3)
        << to_string(f);
    EXPECT_TRUE(framework_allows(f, 1, 1, 1));
    for (auto [tp, pp, cp] : {std::tuple{2, 1, 1}, std::tuple{1, 2, 1}, std::tuple{1, 1, 2}}) {
      EXPECT_EQ(framework_allows(f, tp, pp, cp), !plain_fsdp) << to_string(f);
    }
  }
}

TEST(FrameworkTable, MemoryReadsStateKindAndLogitBytes) {
  Workload w;
  w.precision = Precision::bf16;
  const double grads[] = {4.0, 2.0, 4.0, 4.0, 4.0, 4.0, 2.0,
                          4.0, 2.0, 2.0, 2.0, 2.0, 4.0};  // enum order
  for (Framework f : kAll) {
    w.framework = f;
    EXPECT_DOUBLE_EQ(state_policy(w).grad_bytes, grads[static_cast<int>(f)]) << to_string(f);
  }
  EXPECT_DOUBLE_EQ(framework_traits(Framework::megatron).logit_bytes, 6.0);
  EXPECT_DOUBLE_EQ(framework_traits(Framework::mosaic).logit_bytes, 4.0);
  EXPECT_DOUBLE_EQ(framework_traits(Framework::fsdp).logit_bytes, 12.0);
  // NeMo AutoModel's recipes: pure bf16, 2 + 2 + 2 x 2 bytes per parameter.
  w.framework = Framework::automodel;
  const StatePolicy a = state_policy(w);
  EXPECT_DOUBLE_EQ(a.weight_bytes + a.grad_bytes + a.master_bytes + a.optimizer_bytes, 8.0);
}

// --- the readers ----------------------------------------------------------------------------

const std::string kWorkload =
    "model: llama3-8b\n"
    "seq_len: 4096\n"
    "global_batch: 64\n"
    "framework: NAME\n"
    "cluster:\n"
    "  server: dgx-h100\n"
    "  nodes: 1\n";

std::string workload_with(const std::string& name) {
  std::string s = kWorkload;
  s.replace(s.find("NAME"), 4, name);
  return s;
}

TEST(FrameworkTable, WorkloadReaderTakesEveryName) {
  for (Framework f : kAll) {
    const io::WorkloadFile wf =
        io::read_workload(workload_with(to_string(f)), "w.yaml", "", io::builtin_catalog(), false);
    EXPECT_EQ(wf.workload.framework, f);
  }
}

TEST(FrameworkTable, WorkloadReaderRefusesAnUnknownNameWithASuggestion) {
  auto message = [](const std::string& name) {
    try {
      io::read_workload(workload_with(name), "w.yaml", "", io::builtin_catalog(), false);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("fdsp"), "w.yaml:4: framework: unknown value 'fdsp' (did you mean 'fsdp'?)");
  EXPECT_EQ(message("jax"),
            "w.yaml:4: framework: unknown value 'jax' (expected one of: megatron, deepspeed, "
            "fsdp, torchtitan, nemo, mosaic, automodel, hf, torchtune, litgpt, automodel-torch, "
            "megatron-deepspeed-2021, other)");
}

TEST(FrameworkTable, ValidationCsvRefusesAnUnknownNameWithASuggestion) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv";
  const std::string text = io::read_text_file(path);
  const std::string header = text.substr(0, text.find('\n') + 1);
  auto row = [](const std::string& framework) {
    return "x1,g,m,24,2304,24,24,9216,51200,gelu,,,2048,512,,1,1,32,1,1,n,1,full,0,full,,,"
           "a100-sxm-80g,32,8,8,200,ib," +
           framework + ",step_time_s,3.5,d,c,\n";  // compile empty
  };
  EXPECT_EQ(io::read_validation_csv(header + row("torchtitan"), "v.csv").at(0).framework,
            "torchtitan");
  EXPECT_EQ(io::read_validation_csv(header + row(""), "v.csv").at(0).framework, "");
  if (const auto e =
          input_error_of([&] { io::read_validation_csv(header + row("deepspeeed"), "v.csv"); })) {
    EXPECT_STREQ(e->what(),
                 "v.csv:2: framework: unknown value 'deepspeeed' (did you mean 'deepspeed'?)");
  }
}

}  // namespace
}  // namespace scaleout
