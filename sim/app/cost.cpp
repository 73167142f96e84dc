#include "sim/app/cost.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/capacity_block.hpp"
#include "sim/core/config_spec.hpp"

namespace floorsim::app::cost {
using namespace cfg;

namespace {

std::shared_ptr<const ObjectSpec> prices_spec() {
  auto onprem = obj("onprem", "on-premises GPU-hour: given, or from a node's capital cost, lifetime and power",
                    {number("gpu_hour_usd", nullptr, "the GPU-hour rate (null = from the node figures below)").at_least(0).in_unit("USD").or_null(),
                     number("node_capital_usd", 0.0, "purchase price of one node").at_least(0).in_unit("USD"),
                     number("node_lifetime_years", 4.0, "years over which the node is written off").at_least(0.1).in_unit("years"),
                     number("node_power_kw", 0.0, "a node's average power draw (with cooling)").at_least(0).in_unit("kW"),
                     number("power_usd_per_kwh", 0.0, "price of power").at_least(0).in_unit("USD/kWh"),
                     integer("gpus_per_node", 8, "GPUs per node").at_least(1).in_unit("gpus")});
  onprem->check = [](const json& r, const std::string& ptr, const std::string& file) {
    if (r["gpu_hour_usd"].is_null() && r["node_capital_usd"].get<double>() <= 0)
      fail(file, child(ptr, "gpu_hour_usd"), "no on-premises rate; expected gpu_hour_usd or node_capital_usd > 0");
  };
  auto klass = obj("class_price", "a deadline class's prices and policy",
                   {number("missed_deadline_usd", 0.0, "cost of one night whose deadline the class misses").at_least(0).in_unit("USD"),
                    boolean("isolation", false, "the class may not share nodes (isolation rules out sharing)"),
                    number("reserved_window_h", nullptr, "the reservation's length per night (null = first submission to last deadline, measured)").at_least(0).in_unit("h").or_null()});
  return obj("prices", "prices for `floorsim cost`",
             {object("onprem", onprem, "on-premises capacity"),
              number("cloud_gpu_hour_usd", nullptr, "cloud on-demand GPU-hour").at_least(0).in_unit("USD").must(),
              number("capacity_block_gpu_hour_usd", 0.0, "capacity block GPU-hour, for blocks without price_usd").at_least(0).in_unit("USD"),
              number("period_h", 24.0, "dedicated nodes are paid over this per night").at_least(0.01).in_unit("h"),
              number("most_fraction", 0.5, "a floor at or above this share of the cluster is most of what it can give").at_least(0).at_most(1),
              map_of("classes", klass, "per deadline class: missed-deadline cost, isolation, window")});
}

double nan_or(const json& v) { return v.is_null() ? kUnknown : v.get<double>(); }

}  // namespace

double onprem_gpu_hour(double capital, double lifetime_years, double power_kw, double usd_per_kwh, int64_t gpus_per_node) {
  return (capital / (lifetime_years * 8760.0) + power_kw * usd_per_kwh) / static_cast<double>(gpus_per_node);
}

Prices load_prices(const json& doc, const std::string& file) {
  const json r = resolve(doc, *prices_spec(), "", file);
  Prices p;
  const json& o = r["onprem"];
  p.onprem_gpu_hour_usd = !o["gpu_hour_usd"].is_null()
                              ? o["gpu_hour_usd"].get<double>()
                              : onprem_gpu_hour(o["node_capital_usd"], o["node_lifetime_years"], o["node_power_kw"],
                                                o["power_usd_per_kwh"], o["gpus_per_node"]);
  p.cloud_gpu_hour_usd = r["cloud_gpu_hour_usd"];
  p.block_gpu_hour_usd = r["capacity_block_gpu_hour_usd"];
  p.period_h = r["period_h"];
  p.most_fraction = r["most_fraction"];
  if (r.contains("classes"))
    for (const auto& [name, c] : r["classes"].items())
      p.classes[name] = {c["missed_deadline_usd"], c["isolation"], nan_or(c["reserved_window_h"])};
  return p;
}

double block_cost(double nodes, double gpus_per_node, double days, double price_usd, double block_gpu_hour_usd) {
  return std::isnan(price_usd) ? nodes * gpus_per_node * days * 24.0 * block_gpu_hour_usd : price_usd;
}

OptionCost shared_option(const ClassObservation& c, const Prices& p, double missed_usd) {
  OptionCost o{.option = "shared"};
  o.capacity_gpu_h = c.used_gpu_h;
  o.capacity_usd = c.used_gpu_h * p.onprem_gpu_hour_usd;
  o.p_miss = std::isnan(c.p_miss_without_blocks) ? c.p_miss : c.p_miss_without_blocks;  // no burst capacity
  o.expected_missed_usd = o.p_miss * missed_usd;
  return o;
}

double dedicated_gpus(double floor_gpus, double gpn) { return std::ceil(floor_gpus / gpn - 1e-9) * gpn; }

bool dedicated_overflows(double used_gpu_h, double floor_gpus, double gpn, double window_h) {
  return used_gpu_h > dedicated_gpus(floor_gpus, gpn) * window_h + 1e-9;
}

OptionCost dedicated_option(const ClassObservation& c, const Prices& p, double gpn, double missed_usd) {
  OptionCost o{.option = "dedicated"};
  o.capacity_gpu_h = dedicated_gpus(c.floor_gpus, gpn) * p.period_h;
  o.capacity_usd = o.capacity_gpu_h * p.onprem_gpu_hour_usd;
  o.idle_gpu_h = std::max(0.0, o.capacity_gpu_h - c.used_gpu_h);
  o.idle_usd = o.idle_gpu_h * p.onprem_gpu_hour_usd;
  // Not simulated: the fit bound (per point when a sweep measured it, else on this observation).
  o.p_miss_basis = "fit bound";
  o.p_miss = !std::isnan(c.dedicated_overflow_share) ? c.dedicated_overflow_share
                                                     : dedicated_overflows(c.used_gpu_h, c.floor_gpus, gpn, c.window_h) ? 1.0 : 0.0;
  o.expected_missed_usd = o.p_miss * missed_usd;
  return o;
}

OptionCost reserved_burst_option(const ClassObservation& c, const Prices& p, double burst_usd, double q, double missed_usd) {
  OptionCost o{.option = "reserved+burst"};
  const double reserved = c.floor_gpus * c.window_h;
  const double above = std::max(0.0, c.used_gpu_h - reserved);  // ran outside the reservation, shared
  o.capacity_gpu_h = reserved + above;
  o.capacity_usd = o.capacity_gpu_h * p.onprem_gpu_hour_usd;
  o.idle_gpu_h = std::max(0.0, reserved - c.used_gpu_h);
  o.idle_usd = o.idle_gpu_h * p.onprem_gpu_hour_usd;
  o.burst_usd = burst_usd;
  const double without = std::isnan(c.p_miss_without_blocks) ? 1.0 : c.p_miss_without_blocks;
  o.p_miss = q > 0 ? (1 - q) * c.p_miss + q * without : c.p_miss;
  if (q > 0 && std::isnan(c.p_miss_without_blocks)) o.p_miss_basis = "simulated with blocks, 1 assumed without";
  o.expected_missed_usd = o.p_miss * missed_usd;
  return o;
}

double missed_breakeven(const OptionCost& shared, const OptionCost& a) {
  if (!(shared.p_miss > a.p_miss)) return kUnknown;
  return std::max(0.0, (a.fixed_usd() - shared.fixed_usd()) / (shared.p_miss - a.p_miss));
}

namespace {
// Whether block b serves class c: their windows overlap, or either window is unknown.
bool serves(const Block& b, const ClassObservation& c) {
  if (std::isnan(b.from_s) || std::isnan(c.window_from_s)) return true;
  return b.from_s < c.window_to_s && c.window_from_s < b.to_s;
}
}  // namespace

CostReport price(const Observation& obs, const Prices& prices) {
  CostReport r{obs, prices, {}};
  // Each block's price, shared by used GPU-hours among the classes it serves.
  std::vector<double> burst(obs.classes.size(), 0), had_all(obs.classes.size(), 1);
  for (const auto& b : obs.blocks) {
    double used = 0, n = 0;
    for (const auto& c : obs.classes)
      if (serves(b, c)) used += c.used_gpu_h, n += 1;
    for (size_t i = 0; i < obs.classes.size(); ++i) {
      if (!serves(b, obs.classes[i])) continue;
      burst[i] += b.cost_usd * (used > 0 ? obs.classes[i].used_gpu_h / used : 1.0 / n);
      had_all[i] *= 1 - b.unavailable_probability;
    }
  }
  for (size_t ci = 0; ci < obs.classes.size(); ++ci) {
    const ClassObservation& c = obs.classes[ci];
    const auto it = prices.classes.find(c.name);
    const ClassPrice cp = it == prices.classes.end() ? ClassPrice{} : it->second;
    if (it == prices.classes.end())
      r.obs.warnings.push_back(fmt::format("class {}: no price in the prices file; missed deadlines priced 0, isolation false", c.name));
    ClassCost cc;
    cc.name = c.name;
    cc.options = {shared_option(c, prices, cp.missed_deadline_usd),
                  dedicated_option(c, prices, obs.gpus_per_node, cp.missed_deadline_usd),
                  reserved_burst_option(c, prices, burst[ci], 1 - had_all[ci], cp.missed_deadline_usd)};
    cc.missed_breakeven_dedicated_usd = missed_breakeven(cc.options[0], cc.options[1]);
    cc.missed_breakeven_reserved_usd = missed_breakeven(cc.options[0], cc.options[2]);
    const OptionCost& ded = cc.options[1];
    cc.dedicated_utilisation = ded.capacity_gpu_h > 0 ? c.used_gpu_h / ded.capacity_gpu_h : 0;
    if (prices.cloud_gpu_hour_usd > 0) cc.utilisation_breakeven = prices.onprem_gpu_hour_usd / prices.cloud_gpu_hour_usd;
    cc.case_floor_most = obs.cluster_gpus > 0 && c.floor_gpus >= prices.most_fraction * obs.cluster_gpus;
    cc.case_isolation = cp.isolation;
    cc.case_miss_over_idle = cc.options[0].expected_missed_usd > ded.idle_usd;
    const auto best = std::min_element(cc.options.begin(), cc.options.end(),
                                       [](const OptionCost& a, const OptionCost& b) { return a.total_usd() < b.total_usd(); });
    cc.cheapest = best->option;
    r.classes.push_back(std::move(cc));
  }
  return r;
}

}  // namespace floorsim::app::cost
