#include <cmath>
#include <nlohmann/json.hpp>

#include "report/json_parts.hpp"
#include "report/parts.hpp"
#include "report/report.hpp"
#include "report/schema.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

namespace {

ordered_json model_json(const ModelShape& m) {
  ordered_json j = {{"id", m.id},
                    {"name", m.name},
                    {"layers", m.layers},
                    {"hidden", m.hidden},
                    {"heads", m.heads},
                    {"kv_heads", m.kv_heads},
                    {"head_dim", m.head_size()},
                    {"ffn", m.ffn},
                    {"vocab", m.vocab},
                    {"mlp", to_string(m.mlp)},
                    {"tied_embeddings", m.tied_embeddings},
                    {"position", to_string(m.position)},
                    {"norm", to_string(m.norm)},
                    {"dropout", m.dropout}};
  if (m.is_moe()) {
    j["moe"] = {{"experts", m.moe.experts},
                {"top_k", m.moe.top_k},
                {"shared_experts", m.moe.shared_experts},
                {"expert_ffn", m.moe.expert_ffn},
                {"dense_layers", m.moe.dense_layers}};
  }
  if (m.is_mla()) {
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  }
  const ParamCounts pc = count_params(m);
  j["params"] = pc.total();
  j["active_params"] = pc.active;
  if (m.published_params > 0) j["published_params"] = m.published_params;
  j["source"] = m.source;
  return j;
}

ordered_json memory_parts_json(const StageMemory& m) {
  ordered_json j = ordered_json::object();
  for (const auto& part : kMemoryParts) j[part.key] = m.*part.value;
  return j;
}

}  // namespace

std::string estimate_json(const EstimateResult& r) {
  const Workload& w = r.workload;
  const MemoryEstimate& mem = r.memory;
  const StageMemory& st = mem.peak;
  ordered_json j;
  j["model"] = model_json(w.model);
  j["workload"] = workload_json(w);
  j["cluster"] = {{"server", r.server.id},
                  {"gpu", r.gpu.id},
                  {"nodes", w.cluster.nodes},
                  {"gpus", static_cast<long long>(w.cluster.nodes) * r.server.gpus_per_node},
                  {"server_gpus", server_gpus(r.server)},
                  {"fabric", r.fabric_id}};
  j["layout"] = layout_json(w.layout);
  j["memory"] = {{"total_bytes", mem.total()},
                 {"capacity_bytes", mem.capacity_bytes},
                 {"fits", mem.fits},
                 {"headroom_bytes", mem.headroom_bytes},
                 {"breakdown_bytes", memory_parts_json(st)},
                 {"peak_stage",
                  {{"stage", st.stage},
                   {"stages", mem.stages},
                   {"layers", st.layers},
                   {"embedding", st.has_embedding},
                   {"output", st.has_output},
                   {"microbatches_in_flight", st.microbatches_in_flight}}},
                 {"params_per_gpu", st.params},
                 {"trainable_params_per_gpu", st.trainable_params},
                 {"activation_bytes_per_layer", mem.activation_bytes_per_layer},
                 {"host_offload_bytes", mem.host_offload_bytes}};
  const StepEstimate& t = r.step;
  const StepBreakdown& b = t.breakdown;
  j["time"] = {{"step_s", t.step_s},
               {"tokens_per_s", t.tokens_per_s},
               {"tokens_per_s_per_gpu", t.tokens_per_s_per_gpu},
               {"mfu", t.mfu},
               {"mfu_6n_equivalent", t.mfu_6n_equivalent},
               {"hfu", t.hfu},
               {"time_to_train_s", t.time_to_train_s},
               {"microbatches", t.microbatches},
               {"network_wait_fraction", t.network_wait_fraction},
               {"breakdown_s", breakdown_json(b)}};
  if (r.run) {
    j["time"]["time_to_train_with_failures_s"] = r.run->reliability.wall_time_s;
    add_run_json(j, *r.run, r.run_settings);
  }
  return dump_json(versioned(j));
}

std::string validate_json(const ValidationReport& r) {
  ordered_json rows = ordered_json::array();
  for (const RowResult& x : r.rows) {
    rows.push_back(
        {{"id", x.id},
         {"group", x.group},
         {"metric", x.metric},
         {"measured", x.measured},
         {"predicted", nullable(x.predicted)},
         {"error", nullable(x.error)},
         {"predicted_low", nullable(x.predicted_low)},
         {"predicted_high", nullable(x.predicted_high)},
         {"regime", x.regime.empty() ? ordered_json(nullptr) : ordered_json(x.regime)},
         {"interval_regime",
          x.regime.empty() ? ordered_json(nullptr) : ordered_json(x.interval.regime)},
         {"interval_rows", x.interval.rows},
         {"fits", x.memory_evaluated ? ordered_json(x.fits) : ordered_json(nullptr)},
         {"peak_bytes", x.peak_bytes},
         {"capacity_bytes", x.capacity_bytes},
         {"gpu", x.gpu_id},
         {"breakdown_s", x.step_s > 0 ? breakdown_json(x.breakdown) : ordered_json(nullptr)},
         {"filled", x.filled},
         {"skipped", x.skipped.empty() ? ordered_json(nullptr) : ordered_json(x.skipped)}});
  }
  auto score = [](const MetricSummary& s) {
    return ordered_json{{"count", s.count},
                        {"mape", s.count ? ordered_json(s.mape) : ordered_json(nullptr)},
                        {"skipped", s.skipped}};
  };
  auto summary = [&score](const std::map<std::string, MetricSummary>& m) {
    ordered_json j = ordered_json::object();
    for (const auto& [k, s] : m) j[k] = score(s);
    return j;
  };
  ordered_json j;
  j["rows"] = rows;
  ordered_json ranks = ordered_json::array();
  for (const RankCorrelation& c : r.rank_correlation) {
    ranks.push_back(
        {{"group", c.group},
         {"model", c.model},
         {"metric", c.metric},
         {"count", c.count},
         {"spearman", c.spearman},
         {"pick_regret", c.pick_regret ? ordered_json(*c.pick_regret) : ordered_json(nullptr)},
         {"pick_regret_mean",
          c.pick_regret_mean ? ordered_json(*c.pick_regret_mean) : ordered_json(nullptr)},
         {"settings", c.settings}});
  }
  auto coverage = [](const IntervalCoverage& c) {
    return ordered_json{{"rows", c.rows},
                        {"inside", c.inside},
                        {"share", c.rows ? ordered_json(c.share()) : ordered_json(nullptr)}};
  };
  ordered_json coverage_by_group = ordered_json::object();
  for (const auto& [k, c] : r.coverage_by_group) coverage_by_group[k] = coverage(c);
  j["summary"] = {{"by_metric", summary(r.by_metric)},
                  {"by_group", summary(r.by_group)},
                  {"step_time_equivalent", score(r.step_time_equivalent)},
                  {"interval_coverage", coverage(r.coverage)},
                  {"interval_coverage_by_group", coverage_by_group},
                  {"rank_correlation", ranks},
                  {"false_oom", r.false_oom}};
  return dump_json(versioned(j));
}

std::string catalog_json(const Catalog& c, const std::string& kind) {
  ordered_json out = ordered_json::array();
  if (kind == "gpus") {
    for (const Gpu* g : c.all<Gpu>()) {
      out.push_back({{"id", g->id},
                     {"name", g->name},
                     {"vendor", g->vendor},
                     {"family", g->family},
                     {"hbm_bytes", g->hbm_bytes},
                     {"hbm_bw_Bps", g->hbm_bw_Bps},
                     {"peak_flops",
                      {{"fp32", g->fp32_flops},
                       {"tf32", g->tf32_flops},
                       {"bf16", g->bf16_flops},
                       {"fp16", g->fp16_flops},
                       {"fp8", g->fp8_flops}}},
                     {"scaleup_bw_Bps", g->scaleup_bw_Bps},
                     {"host_link_Bps", g->host_link_Bps},
                     {"tdp_W", g->tdp_W},
                     {"source", g->source}});
    }
  } else if (kind == "servers") {
    for (const Server* s : c.all<Server>()) {
      out.push_back({{"id", s->id},
                     {"name", s->name},
                     {"kind", s->kind},
                     {"gpu", s->gpu_id},
                     {"gpus_per_node", s->gpus_per_node},
                     {"intra_node", to_string(s->intra_node)},
                     {"intra_node_bw_Bps", s->intra_node_bw_Bps},
                     {"scaleup_domain_gpus", s->scaleup_domain_gpus},
                     {"nics_per_node", s->nics_per_node},
                     {"nic_bw_Bps", s->nic_bw_Bps},
                     {"host_mem_bytes", s->host_mem_bytes},
                     {"local_nvme_bytes", s->local_nvme_bytes},
                     {"power_W", s->power_W},
                     {"source", s->source}});
    }
  } else if (kind == "fabrics") {
    for (const Fabric* f : c.all<Fabric>()) {
      out.push_back({{"id", f->id},
                     {"name", f->name},
                     {"kind", to_string(f->kind)},
                     {"port_bw_Bps", f->port_bw_Bps},
                     {"latency_s", f->latency_s},
                     {"topology", to_string(f->topology)},
                     {"oversubscription", f->oversubscription},
                     {"source", f->source}});
    }
  } else if (kind == "prices") {
    for (const CloudPrice& p : c.cloud_prices()) {
      out.push_back({{"gpu", p.gpu_id},
                     {"usd_per_gpu_hour", p.usd_per_gpu_hour},
                     {"pricing", p.pricing},
                     {"provider", p.provider},
                     {"instance", p.instance},
                     {"date", p.date},
                     {"default", p.is_default},
                     {"source", p.source}});
    }
  } else if (kind == "economics") {
    ordered_json j;
    j["failure_rates"] = ordered_json::array();
    for (const FailureRate* f : c.all<FailureRate>()) {
      j["failure_rates"].push_back({{"id", f->id},
                                    {"per_1000_node_days", f->per_1000_node_days},
                                    {"default", f->is_default},
                                    {"source", f->source}});
    }
    j["storage"] = ordered_json::array();
    for (const StorageSystem* x : c.all<StorageSystem>()) {
      j["storage"].push_back({{"id", x->id},
                              {"kind", x->shared ? "shared" : "local"},
                              {"node_read_Bps", x->node_read_Bps},
                              {"node_write_Bps", x->node_write_Bps},
                              {"gpu_read_Bps", x->gpu_read_Bps},
                              {"gpu_write_Bps", x->gpu_write_Bps},
                              {"total_read_Bps", x->total_read_Bps},
                              {"total_write_Bps", x->total_write_Bps},
                              {"default", x->is_default},
                              {"source", x->source}});
    }
    j["facilities"] = ordered_json::array();
    for (const Facility* f : c.all<Facility>()) {
      j["facilities"].push_back({{"id", f->id},
                                 {"pue", f->pue},
                                 {"usd_per_kwh", f->usd_per_kwh},
                                 {"colo_usd_per_kw_month", f->colo_usd_per_kw_month},
                                 {"rack_kw", f->rack_W / 1e3},
                                 {"life_years", f->life_years},
                                 {"operations_share", f->operations_share},
                                 {"default", f->is_default},
                                 {"source", f->source}});
    }
    return dump_json(versioned(j));
  } else {
    for (const ModelShape* m : c.all<ModelShape>()) out.push_back(model_json(*m));
  }
  return dump_json(versioned(out, kind));
}

ordered_json workload_json(const Workload& w) {
  ordered_json j = {{"task", to_string(w.task)},
                    {"seq_len", w.seq_len},
                    {"global_batch", w.global_batch},
                    {"tokens", w.tokens},
                    {"precision", to_string(w.precision)},
                    {"optimizer", to_string(w.optimizer)},
                    {"framework", to_string(w.framework)},
                    {"finetune",
                     {{"method", w.task == Task::finetune ? to_string(w.finetune.method) : "none"},
                      {"rank", w.finetune.rank}}}};
  // Given only when CUDA graphs capture the step (workload `cuda_graphs`;
  // none is what every earlier output implies); scripts/check_launch.py
  // checks the launch files switch it on.
  if (w.cuda_graphs != CudaGraphs::none) j["cuda_graphs"] = to_string(w.cuda_graphs);
  return j;
}

ordered_json layout_json(const Layout& l) {
  ordered_json j = {{"tp", l.tp},
                    {"pp", l.pp},
                    {"dp", l.dp},
                    {"cp", l.cp},
                    {"ep", l.ep},
                    {"etp", l.expert_tp()},
                    {"ep_overlap", l.ep_overlap},
                    {"sp", l.sp},
                    {"micro_batch", l.micro_batch},
                    {"interleave", l.interleave},
                    {"first_stage_layers", l.first_stage_layers},
                    {"last_stage_layers", l.last_stage_layers},
                    {"zero", l.zero},
                    {"recompute", to_string(l.recompute)},
                    {"recompute_layers", l.recompute_layers},
                    {"flash_attention", l.flash_attention},
                    {"offload", l.offload_optimizer},
                    {"fp8_param_gather", l.fp8_param_gather},
                    {"order", order_string(l.order)}};
  // Given only when not 1F1B (the default every earlier output implies).
  if (l.schedule != PipeSchedule::one_f_one_b) j["pipeline_schedule"] = to_string(l.schedule);
  // Given only when switched off (layout `dp_overlap: false`).
  if (!l.dp_overlap) j["dp_overlap"] = false;
  // Given only under hybrid sharding (layout shard_group).
  if (l.zero_replicas() > 1) j["shard_group"] = l.zero_shard_dp();
  // Given only when on (layout embedding_in_split / loss_in_split).
  if (l.embedding_in_split) j["embedding_in_split"] = true;
  if (l.loss_in_split) j["loss_in_split"] = true;
  // Given only with a pipeline layout (layout pipeline_layout).
  if (!l.pipeline_layout.empty()) j["pipeline_layout"] = l.pipeline_layout;
  // Given only with selective recompute of modules other than core_attn.
  if (l.recompute == Recompute::selective && l.recompute_modules != kDefaultRecomputeModules) {
    ordered_json mods = ordered_json::array();
    for (int i = 0; i < kRecomputeModules; ++i) {
      if ((l.recompute_modules & module_bit(static_cast<RecomputeModule>(i))) != 0)
        mods.push_back(kRecomputeModuleNames[i]);
    }
    j["recompute_modules"] = mods;
  }
  return j;
}

ordered_json breakdown_json(const StepBreakdown& b) {
  ordered_json j = ordered_json::object();
  for (const auto& part : kStepParts) j[part.key] = b.*part.value;
  return j;
}

}  // namespace scaleout::report
