#include <fmt/format.h>

#include <cmath>

#include "core/units.hpp"
#include "report/json_parts.hpp"
#include "report/parts.hpp"
#include "report/report.hpp"

namespace scaleout::report {

namespace {

std::string count(double n) {
  if (n >= 1e12) return fmt::format("{:.2f} T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.2f} B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.1f} M", n / 1e6);
  return fmt::format("{:.0f}", n);
}

std::string pct(double f) { return fmt::format("{:.1f}%", 100.0 * f); }

// At most `max` characters of `s`, ending in "..." when cut (JSON output
// has sources whole).
std::string brief(const std::string& s, std::size_t max = 40) {
  return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

// A catalog entry's source on its own line under the entry, within 80 columns.
std::string source_line(const std::string& source) {
  return "    source: " + brief(source, 68) + "\n";
}

}  // namespace

std::string estimate_text(const EstimateResult& r) {
  const Workload& w = r.workload;
  const Layout& l = w.layout;
  const MemoryEstimate& mem = r.memory;
  const StageMemory& st = mem.peak;
  std::string o;
  o += fmt::format("Model     {} ({} parameters", w.model.name, count(r.params.total()));
  if (w.model.is_moe()) o += fmt::format(", {} active", count(r.params.active));
  o += ")\n";
  std::string task = to_string(w.task);
  if (w.task == Task::finetune) {
    task += fmt::format(" ({}", to_string(w.finetune.method));
    if (w.finetune.method != FinetuneMethod::full)
      task += fmt::format(", rank {}", w.finetune.rank);
    task += ")";
  }
  task += fmt::format(", seq {} tokens, micro-batch {}, {} / {} / {}", w.seq_len, l.micro_batch,
                      to_string(w.precision), to_string(w.optimizer), to_string(w.framework));
  if (fp8_activation_cache(w)) task += ", FP8 activation cache";
  o += wrap(task, "Task      ", "          ", ", ");
  o += fmt::format("Cluster   {}\n", hardware_words(r.server, r.gpu, w.cluster.nodes));
  o += wrap(
      fmt::format("tp {} pp {} dp {} cp {} ep {}{}{}, zero {}, recompute {}{}{}{}", l.tp, l.pp,
                  l.dp, l.cp, l.ep, l.etp > 0 && l.etp != l.tp ? fmt::format(" etp {}", l.etp) : "",
                  l.sp && l.tp > 1 ? " +sp" : "", l.zero, recompute_label(l),
                  l.flash_attention ? ", flash-attn" : "",
                  l.interleave > 1 ? fmt::format(", interleave {}", l.interleave)
                  : l.schedule != PipeSchedule::one_f_one_b
                      ? fmt::format(", schedule {}", to_string(l.schedule))
                      : "",
                  stage_split_label(l)),
      "Layout    ", "          ", ", ");
  o += "\n";
  std::string where = mem.stages == 1
                          ? std::string("single stage")
                          : fmt::format("pipeline stage {} of {}", st.stage + 1, mem.stages);
  if (st.has_embedding) where += ", embedding";
  if (st.has_output) where += ", output layer";
  o += wrap(fmt::format("Memory per GPU ({}; {} layers, {:g} micro-batches in flight)", where,
                        st.layers, std::round(st.microbatches_in_flight * 100) / 100),
            "", "  ", "; ");
  const double total = mem.total();
  for (const auto& part : kMemoryParts) {
    const double bytes = st.*part.value;
    o += fmt::format("  {:<24}{:>12}  {:>6}\n", part.words, gib(bytes, 2),
                     total > 0 ? pct(bytes / total) : "-");
  }
  o += fmt::format("  {:<24}{:>12}\n", "total", gib(total, 2));
  o += fmt::format("  {:<24}{:>12}\n", "capacity", gib(mem.capacity_bytes, 2));
  if (mem.host_offload_bytes > 0) {
    o += fmt::format("  {:<24}{:>12}\n", "offloaded to host", gib(mem.host_offload_bytes, 2));
  }
  o += "\n";
  const StepEstimate& t = r.step;
  const StepBreakdown& b = t.breakdown;
  o += fmt::format("Step time {:.3f} s ({:g} micro-batches), {:.0f} tokens/s ({:.0f} per GPU)\n",
                   t.step_s, t.microbatches, t.tokens_per_s, t.tokens_per_s_per_gpu);
  o += fmt::format("  MFU {}, HFU {}, GPUs wait on the network {} of the step\n", pct(t.mfu),
                   pct(t.hfu), pct(t.network_wait_fraction));
  for (const auto& part : kStepParts) {
    const double s = b.*part.value;
    if (s > 0) o += fmt::format("  {:<24}{:>10.3f} s  {:>6}\n", part.words, s, pct(s / t.step_s));
  }
  if (t.time_to_train_s > 0) {
    std::string train = fmt::format("Time to train {:.1f} days for {:.3g} tokens without failures",
                                    t.time_to_train_s / 86400.0, w.tokens);
    if (r.run) {
      train += fmt::format(", {:.1f} days with them", r.run->reliability.wall_time_s / 86400.0);
    }
    o += wrap(train, "", "  ", ", ");
  }
  if (r.run) {
    o += "\nWhole run\n";
    o += run_text(*r.run, r.run_settings, "  ");
  }
  o += "\n";
  if (mem.fits) {
    o += fmt::format("Fits: yes, {} headroom ({} of capacity)\n", gib(mem.headroom_bytes, 2),
                     pct(mem.headroom_bytes / mem.capacity_bytes));
  } else {
    o += fmt::format("Fits: NO, {} over capacity\n", gib(-mem.headroom_bytes, 2));
  }
  return o;
}

std::string validate_text(const ValidationReport& r) {
  std::string o;
  // 79 columns with the longest ids (25) and metric names (20) of data/validation.
  o += fmt::format("{:<25} {:<20} {:>9} {:>9} {:>7} {:>4}\n", "id", "metric", "measured",
                   "predicted", "error", "fits");
  for (const RowResult& x : r.rows) {
    o += fmt::format("{:<25} {:<20} {:>9.4g} {:>9} {:>7} {:>4}\n", x.id, x.metric, x.measured,
                     x.predicted ? fmt::format("{:.4g}", *x.predicted) : "-",
                     x.error ? pct(*x.error) : "-",
                     x.memory_evaluated ? (x.fits ? "yes" : "NO") : "-");
    if (!x.filled.empty()) o += wrap(x.filled, "    filled: ", "      ", "; ");
    if (!x.skipped.empty()) o += wrap(x.skipped, "    not predicted: ", "      ");
  }
  for (const auto& [title, scores] :
       {std::pair{"\nMAPE by metric\n", &r.by_metric}, std::pair{"MAPE by group\n", &r.by_group}}) {
    o += title;
    for (const auto& [k, s] : *scores) {
      o += fmt::format("  {:<22} {:>4} rows  {:>8}  ({} not predicted)\n", k, s.count,
                       s.count ? pct(s.mape) : "-", s.skipped);
    }
  }
  if (const MetricSummary& s = r.step_time_equivalent; s.count > 0) {
    o += fmt::format("Step time, throughput rows as the step they imply: {} rows  {}\n", s.count,
                     pct(s.mape));
  }
  if (!r.rank_correlation.empty()) {
    o += "Rank correlation (Spearman) of predicted and measured, per model and metric;\n"
         "regret: how much slower the layout predicted fastest ran than the fastest of\n"
         "the same setting (GPUs, batch, sequence, precision), mean and worst\n";
    o += fmt::format("  {:<13} {:<15} {:<20} {:>4} {:>5} {:>7} {:>7}\n", "group", "model", "metric",
                     "rows", "rho", "regret", "worst");
    for (const RankCorrelation& c : r.rank_correlation) {
      o += fmt::format("  {:<13} {:<15} {:<20} {:>4} {:>5.3f} {:>7} {:>7}\n", brief(c.group, 13),
                       brief(c.model, 15), c.metric, c.count, c.spearman,
                       c.pick_regret_mean ? pct(*c.pick_regret_mean) : "-",
                       c.pick_regret ? pct(*c.pick_regret) : "-");
    }
  }
  if (r.coverage.rows > 0) {
    o += fmt::format("80 % interval coverage: {} of {} rows inside ({})\n", r.coverage.inside,
                     r.coverage.rows, pct(r.coverage.share()));
  }
  o += fmt::format("False out-of-memory verdicts: {}\n", r.false_oom);
  return o;
}

std::string catalog_text(const Catalog& c, const std::string& kind) {
  std::string o;
  if (kind == "gpus") {
    o += fmt::format("{:<16} {:>8} {:>9} {:>9} {:>9} {:>9} {:>6}\n", "id", "HBM GiB", "HBM GB/s",
                     "bf16 TF/s", "fp8 TF/s", "link GB/s", "TDP W");
    for (const Gpu* g : c.all<Gpu>()) {
      o += fmt::format("{:<16} {:>8.0f} {:>9.0f} {:>9.1f} {:>9.1f} {:>9.0f} {:>6.0f}\n", g->id,
                       g->hbm_bytes / units::kGiB, g->hbm_bw_Bps / units::kGBps,
                       g->bf16_flops / units::kTFLOPS, g->fp8_flops / units::kTFLOPS,
                       g->scaleup_bw_Bps / units::kGBps, g->tdp_W);
      o += source_line(g->source);
    }
  } else if (kind == "servers") {
    o += fmt::format("{:<28} {:<13} {:>4} {:<13} {:>5} {:>11}\n", "id", "gpu", "gpus", "intra-node",
                     "GB/s", "NICs x Gb/s");
    for (const Server* s : c.all<Server>()) {
      o += fmt::format("{:<28} {:<13} {:>4} {:<13} {:>5.0f} {:>11}\n", s->id, s->gpu_id,
                       s->gpus_per_node, to_string(s->intra_node),
                       s->intra_node_bw_Bps / units::kGBps,
                       fmt::format("{} x {:.0f}", s->nics_per_node, s->nic_bw_Bps / units::kGbps));
      o += source_line(s->source);
    }
    o += "GB/s: intra-node bandwidth per GPU\n";
  } else if (kind == "fabrics") {
    o += fmt::format("{:<24} {:<9} {:>9} {:>11} {:<15} {:>7}\n", "id", "kind", "port Gb/s",
                     "latency us", "topology", "oversub");
    for (const Fabric* f : c.all<Fabric>()) {
      o += fmt::format("{:<24} {:<9} {:>9.0f} {:>11} {:<15} {:>7.1f}\n", f->id, to_string(f->kind),
                       f->port_bw_Bps / units::kGbps,
                       f->latency_s > 0 ? fmt::format("{:.2f}", f->latency_s * 1e6) : "-",
                       to_string(f->topology), f->oversubscription);
      o += source_line(f->source);
    }
  } else if (kind == "prices") {
    o += fmt::format("{:<14} {:>8} {:<15} {:<12} {}\n", "gpu", "$/GPU-h", "pricing", "provider",
                     "date");
    for (const CloudPrice& p : c.cloud_prices()) {
      std::string line = fmt::format("{:<14} {:>8.2f} {:<15} {:<12} {:<20}{}", p.gpu_id,
                                     p.usd_per_gpu_hour, p.pricing, brief(p.provider).substr(0, 12),
                                     brief(p.date).substr(0, 20), p.is_default ? "  *" : "");
      o += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
      o += source_line(p.source);
    }
    o += "* the price plan uses for that GPU\n";
    o += fmt::format("\n{:<28} {:>10} {:<10}  {}\n", "server (purchase)", "USD", "date", "source");
    for (const Server* s : c.all<Server>()) {
      if (const PurchasePrice* p = c.find_purchase_price(s->id)) {
        o += fmt::format("{:<28} {:>10.0f} {:<10}  {}\n", s->id, p->usd, brief(p->date),
                         brief(p->source));
      }
    }
  } else if (kind == "economics") {
    o += "Failure rates (unexpected interruptions per 1,000 node-days)\n";
    for (const FailureRate* f : c.all<FailureRate>()) {
      o += fmt::format("  {:<18} {:>6.2f}  {}{}\n", f->id, f->per_1000_node_days, brief(f->source),
                       f->is_default ? "  *" : "");
    }
    o += "Storage (GB/s: per node / per GPU / whole system; 0 = no limit)\n";
    for (const StorageSystem* x : c.all<StorageSystem>()) {
      o += fmt::format(
          "  {:<18} {:<6} write {:>4.0f} / {:>3.0f} / {:>5.0f}, read {:>4.0f} / {:>3.0f} "
          "/ {:>5.0f}{}\n",
          x->id, x->shared ? "shared" : "local", x->node_write_Bps / units::kGBps,
          x->gpu_write_Bps / units::kGBps, x->total_write_Bps / units::kGBps,
          x->node_read_Bps / units::kGBps, x->gpu_read_Bps / units::kGBps,
          x->total_read_Bps / units::kGBps, x->is_default ? "  *" : "");
    }
    o += "Facilities\n";
    for (const Facility* f : c.all<Facility>()) {
      o += fmt::format(
          "  {:<18} PUE {:.2f} ${:.3f}/kWh colo ${:.0f}/kW-mo rack {:.0f} kW {:.0f}y ops "
          "{:.0f}%{}\n",
          f->id, f->pue, f->usd_per_kwh, f->colo_usd_per_kw_month, f->rack_W / 1e3, f->life_years,
          100 * f->operations_share, f->is_default ? " *" : "");
    }
    o += "* the default unless the workload names another (data/catalog/economics.json)\n";
  } else {
    o += fmt::format("{:<16} {:>9} {:>6} {:>6} {:>5} {:>4} {:>7} {:>7} {:<7}\n", "id", "params",
                     "layers", "hidden", "heads", "kv", "ffn", "vocab", "mlp");
    for (const ModelShape* m : c.all<ModelShape>()) {
      std::string params = count(count_params(*m).total());
      if (m->is_moe()) params += "*";
      o += fmt::format("{:<16} {:>9} {:>6} {:>6} {:>5} {:>4} {:>7} {:>7} {:<7}\n", m->id, params,
                       m->layers, m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab,
                       to_string(m->mlp));
      o += source_line(m->source);
    }
    o += "* mixture of experts: total parameters\n";
  }
  return o;
}

}  // namespace scaleout::report
