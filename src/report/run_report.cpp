// Writers for the whole-run figures of a plan or an estimate: reliability,
// storage, power, network and cost (docs/model.md, "Whole run").
#include <fmt/format.h>

#include <cmath>

#include "report/format.hpp"
#include "report/json_parts.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

namespace {

ordered_json number_or_null(double v, bool known) {
  return known && std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

}  // namespace

void add_run_json(ordered_json& into, const RunEconomics& e, const RunSettings& s) {
  const Reliability& r = e.reliability;
  const bool failures = std::isfinite(r.mtbf_s);
  into["reliability"] = {
      {"failures_per_1000_node_days", r.failures_per_1000_node_days},
      {"failure_rate", s.failure_rate_id},
      {"mtbf_hours", number_or_null(r.mtbf_s / 3600.0, failures)},
      {"checkpoint", s.async_checkpoint ? "async" : "blocking"},
      {"checkpoint_interval_s", number_or_null(r.checkpoint_interval_s, failures)},
      {"young_interval_s", number_or_null(r.young_interval_s, failures)},
      {"checkpoint_block_s", r.checkpoint_block_s},
      {"checkpoint_write_s", r.checkpoint_write_s},
      {"restart_s", r.restart_s},
      {"goodput", r.goodput},
      {"expected_interruptions", r.expected_interruptions},
      {"wall_time_days", r.wall_time_s / 86400.0}};
  into["storage"] = {{"system", s.storage.id},
                     {"checkpoint_bytes", r.checkpoint_bytes},
                     {"required_read_Bps", r.storage.required_read_Bps},
                     {"required_write_Bps", r.storage.required_write_Bps},
                     {"available_read_Bps", r.storage.available_read_Bps},
                     {"available_write_Bps", r.storage.available_write_Bps},
                     {"bottleneck", r.storage.bottleneck}};
  const Power& p = e.power;
  into["power"] = {{"busy_fraction", e.busy},
                   {"node_kw", p.node_W / 1e3},
                   {"node_max_kw", p.node_max_W / 1e3},
                   {"network_kw", p.network_W / 1e3},
                   {"cluster_kw", p.cluster_W / 1e3},
                   {"pue", s.facility.pue},
                   {"energy_kwh", p.energy_kWh},
                   {"rack_kw", s.facility.rack_W / 1e3},
                   {"nodes_per_rack", p.nodes_per_rack},
                   {"racks", p.racks},
                   {"node_exceeds_rack", p.node_exceeds_rack}};
  into["network"] = {{"tiers", e.network.tiers},
                     {"leaf_switches", e.network.leaves},
                     {"spine_switches", e.network.spines},
                     {"core_switches", e.network.cores},
                     {"cables", e.network.cables}};
  const Cost& c = e.cost;
  into["cost"] = {{"own_usd", number_or_null(c.own_usd, c.own_priced)},
                  {"cloud_usd", number_or_null(c.cloud_usd, c.cloud_priced)},
                  {"usd_per_hour", number_or_null(c.own_usd_per_hour, c.own_priced)},
                  {"cloud_usd_per_hour", number_or_null(c.cloud_usd_per_hour, c.cloud_priced)},
                  {"breakeven_utilisation",
                   number_or_null(c.breakeven_utilisation, c.own_priced && c.cloud_priced)},
                  {"capex_usd", number_or_null(c.capex_usd, c.own_priced)},
                  {"server_capex_usd", number_or_null(c.server_capex_usd, c.own_priced)},
                  {"network_capex_usd", number_or_null(c.network_capex_usd, c.own_priced)},
                  {"network_pricing", c.network_itemised ? "itemised" : "share of cluster cost"},
                  {"cloud_pricing", s.cloud_pricing},
                  {"life_years", s.facility.life_years},
                  {"usd_per_kwh", s.facility.usd_per_kwh},
                  {"colo_usd_per_kw_month", s.facility.colo_usd_per_kw_month},
                  {"operations_share", s.facility.operations_share}};
}

std::string run_text(const RunEconomics& e, const RunSettings& s, const std::string& in) {
  const Reliability& r = e.reliability;
  std::string o;
  if (std::isfinite(r.mtbf_s)) {
    o += fmt::format(
        "{}failures   MTBF {}, {} interruptions expected, goodput {}\n", in, interval(r.mtbf_s),
        r.expected_interruptions < 10 ? fmt::format("{:.1f}", r.expected_interruptions)
                                      : fmt::format("{:.0f}", r.expected_interruptions),
        percent(r.goodput));
    o += fmt::format("{}checkpoint {} {} every {}, stops {} each\n", in, bytes(r.checkpoint_bytes),
                     s.async_checkpoint ? "async" : "blocking", interval(r.checkpoint_interval_s),
                     r.checkpoint_block_s < 1 ? fmt::format("{:.2f} s", r.checkpoint_block_s)
                                              : interval(r.checkpoint_block_s));

  } else {
    o += fmt::format("{}failures   none modelled (failure rate 0)\n", in);
  }
  o += fmt::format("{}storage    {}: needs {} write, {} read; bottleneck {}\n", in, s.storage.id,
                   rate(r.storage.required_write_Bps), rate(r.storage.required_read_Bps),
                   r.storage.bottleneck);
  const Power& p = e.power;
  o += fmt::format("{}power      {} per node, {} in all, {} rack{}, {}\n", in, power(p.node_W),
                   power(p.cluster_W), p.racks, p.racks == 1 ? "" : "s", energy(p.energy_kWh));
  if (p.node_exceeds_rack) {
    o += fmt::format("{}           warning: one {} exceeds a {} rack\n", in,
                     p.nodes_per_rack > 1 ? "rack system" : "node", power(s.facility.rack_W));
  }
  const Cost& c = e.cost;
  const std::string own =
      c.own_priced ? fmt::format("own {} ({}/h)", money(c.own_usd), money(c.own_usd_per_hour))
                   : "own unpriced";
  const std::string cloud =
      c.cloud_priced ? fmt::format("cloud {}", money(c.cloud_usd)) : "cloud unpriced";
  o += fmt::format("{}cost       {}, {}\n", in, own, cloud);
  if (c.own_priced && c.cloud_priced) {
    o += c.breakeven_utilisation <= 1
             ? fmt::format("{}           owning is cheaper above {} utilisation\n", in,
                           percent(c.breakeven_utilisation, 0))
             : fmt::format("{}           renting is cheaper at any utilisation\n", in);
  }
  return o;
}

}  // namespace scaleout::report
