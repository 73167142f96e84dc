// `floorsim review`: outputs (JSON, CSV, Markdown) and the Prometheus alerting rules.
#include <cmath>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/app/review.hpp"

namespace floorsim::app::review {

namespace {
json rollup_json(const std::vector<Rollup>& rows) {
  json a = json::array();
  for (const auto& r : rows)
    a.push_back({{"period", r.period}, {"class", r.klass}, {"jobs", r.jobs}, {"used_gpu_h", r.used_gpu_h},
                 {"entitled_gpu_h", r.entitled_gpu_h}, {"allocated_gpu_h", r.allocated_gpu_h}, {"wait_p50_s", r.wait_p50_s},
                 {"wait_p95_s", r.wait_p95_s}, {"wait_max_s", r.wait_max_s}});
  return a;
}
json capacity_json(const std::vector<Capacity>& rows) {
  json a = json::array();
  for (const auto& c : rows)
    a.push_back({{"period", c.period}, {"capacity_gpu_h", c.capacity_gpu_h}, {"used_gpu_h", c.used_gpu_h}, {"idle_gpu_h", c.idle_gpu_h},
                 {"idle_while_waiting_gpu_h", c.idle_while_waiting_gpu_h}});
  return a;
}
std::string hours(double s) { return cell(s / 3600, 2); }
}  // namespace

json to_json(const Review& r) {
  json totals = json::array(), piles = json::array(), reb = json::array(), alerts = json::array();
  for (const auto& t : r.totals)
    totals.push_back({{"class", t.klass}, {"jobs", t.jobs}, {"used_gpu_h", t.used_gpu_h}, {"entitled_gpu_h", t.entitled_gpu_h},
                      {"allocated_gpu_h", t.allocated_gpu_h}, {"wait_p95_s", t.wait_p95_s}, {"peak_week_gpus", t.peak_week_gpus},
                      {"demand_p95_gpus", t.demand_p95_gpus}});
  for (const auto& a : r.alerts)
    alerts.push_back({{"alert", a.alert}, {"class", a.klass}, {"severity", a.severity}, {"expr", a.expr}, {"threshold", a.threshold},
                      {"for_s", r.alert_for_s}, {"summary", a.summary}, {"description", a.description}});
  for (const auto& p : r.pileups)
    piles.push_back({{"class", p.klass}, {"from", p.from}, {"to", p.to}, {"wait_h", p.wait_h}, {"threshold_h_per_day", p.threshold_h}});
  for (const auto& b : r.rebalance)
    reb.push_back({{"class", b.klass}, {"floor_gpus", b.floor_gpus}, {"demand_gpus", b.demand_gpus}, {"proposed_floor_gpus", b.proposed_floor_gpus}});
  return {{"source", r.source}, {"from_s", r.from_s}, {"to_s", r.to_s}, {"capacity_gpus", r.capacity_gpus},
          {"classes", totals}, {"weekly", rollup_json(r.weekly)}, {"monthly", rollup_json(r.monthly)},
          {"capacity_weekly", capacity_json(r.capacity_weekly)}, {"capacity_monthly", capacity_json(r.capacity_monthly)},
          {"pileups", piles}, {"rebalance", reb}, {"alerts", alerts}, {"warnings", r.warnings}};
}

TextTable rollup_table(const std::vector<Rollup>& rows) {
  TextTable t{{"period", "class", "jobs", "used_gpu_h", "entitled_gpu_h", "allocated_gpu_h", "used_of_entitled", "wait_p50_h",
               "wait_p95_h", "wait_max_h"}, {}};
  for (const auto& r : rows)
    t.rows.push_back({r.period, r.klass, std::to_string(r.jobs), cell(r.used_gpu_h, 1), cell(r.entitled_gpu_h, 1),
                      cell(r.allocated_gpu_h, 1), r.entitled_gpu_h > 0 ? cell(r.used_gpu_h / r.entitled_gpu_h, 3) : "",
                      hours(r.wait_p50_s), hours(r.wait_p95_s), hours(r.wait_max_s)});
  return t;
}

TextTable capacity_table(const std::vector<Capacity>& rows, Period p) {
  TextTable t{{p == Period::Week ? "week_of" : "month", "capacity_gpu_h", "used_gpu_h", "idle_gpu_h", "idle_while_waiting_gpu_h"}, {}};
  for (const auto& c : rows)
    t.rows.push_back({c.period, cell(c.capacity_gpu_h, 1), cell(c.used_gpu_h, 1), cell(c.idle_gpu_h, 1), cell(c.idle_while_waiting_gpu_h, 1)});
  return t;
}

std::string to_markdown(const Review& r, const std::string& source) {
  std::string s = fmt::format("# Accounting review\n\nSource: {}.\n\n## Per class\n\n", source);
  TextTable t{{"class", "jobs", "used_gpu_h", "entitled_gpu_h", "allocated_gpu_h", "wait_p95_h", "busiest_week_gpus",
               "demand_p95_gpus"}, {}};
  for (const auto& c : r.totals)
    t.rows.push_back({c.klass, std::to_string(c.jobs), cell(c.used_gpu_h, 1), cell(c.entitled_gpu_h, 1), cell(c.allocated_gpu_h, 1),
                      hours(c.wait_p95_s), cell(c.peak_week_gpus, 1), cell(c.demand_p95_gpus, 1)});
  s += to_markdown(t);
  s += "\nAllocated = used, except for a reserved floor, whose idle time is booked as used.\n\n## Recommended rebalancing\n\n";
  TextTable b{{"class", "floor_gpus", "demand_p95_gpus", "proposed_floor_gpus", "change"}, {}};
  for (const auto& x : r.rebalance)
    b.rows.push_back({x.klass, cell(x.floor_gpus, 0), cell(x.demand_gpus, 1), cell(x.proposed_floor_gpus, 0),
                      fmt::format("{:+.0f}", x.proposed_floor_gpus - x.floor_gpus)});
  s += to_markdown(b);
  s += "\nDemand: GPUs running + waiting, the 95th percentile over the time the class wanted any. Classes whose demand "
       "exceeds their floor gain GPUs from those whose demand leaves part of theirs unused, in proportion to the shortfall "
       "and the surplus; the total of the floors is kept.\n\n"
       "## Where cumulative wait piles up\n\n";
  TextTable p{{"class", "from", "to", "wait_h", "threshold_h_per_day"}, {}};
  for (size_t i = 0; i < r.pileups.size() && i < 10; ++i)
    p.rows.push_back({r.pileups[i].klass, r.pileups[i].from, r.pileups[i].to, cell(r.pileups[i].wait_h, 1), cell(r.pileups[i].threshold_h, 1)});
  s += r.pileups.empty() ? std::string("None.\n") : to_markdown(p);
  s += "\n## Capacity by month\n\n" + to_markdown(capacity_table(r.capacity_monthly, Period::Month));
  s += "\n## Capacity by week\n\n" + to_markdown(capacity_table(r.capacity_weekly));
  s += "\nIdle while waiting: GPUs idle while some job waited (fragmented, or held back by policy).\n\n## Monthly\n\n" +
       to_markdown(rollup_table(r.monthly)) + "\n## Weekly\n\n" + to_markdown(rollup_table(r.weekly));
  if (!r.warnings.empty()) {
    s += "\n## Warnings\n\n";
    for (const auto& w : r.warnings) s += "- " + w + "\n";
  }
  return s;
}

std::vector<AlertRule> alert_rules(const Review& r, const Entitlements& e) {
  std::vector<AlertRule> out;
  for (const auto& t : r.totals) {
    const auto it = e.classes.find(t.klass);
    if (it == e.classes.end()) continue;
    const ClassEntitlement& c = it->second;
    const std::string sel = fmt::format("{{class=\"{}\"}}", t.klass);
    if (c.floor_gpus > 0) {
      double proposed = c.floor_gpus;
      for (const auto& b : r.rebalance)
        if (b.klass == t.klass) proposed = b.proposed_floor_gpus;
      out.push_back({"FloorsimClassNearQuota", t.klass, "warning",
                     fmt::format("floorsim_class_gpus_used{0} / floorsim_class_floor_gpus{0} >= {1}", sel, e.quota_fraction),
                     fmt::format("{} uses {:.0f}% or more of its {:.0f}-GPU floor", t.klass, e.quota_fraction * 100, c.floor_gpus),
                     fmt::format("Reviewed: p95 demand {:.1f} GPUs; the recommended floor is {:.0f}.", t.demand_p95_gpus, proposed),
                     e.quota_fraction});
    }
    const double wait = std::isnan(c.wait_alert_s) ? std::max(60.0, std::ceil(t.wait_p95_s)) : c.wait_alert_s;
    out.push_back({"FloorsimClassQueueingDelay", t.klass, "warning",
                   fmt::format("floorsim_class_oldest_pending_seconds{} > {:.0f}", sel, wait),
                   fmt::format("{} has a job waiting longer than {:.0f} s", t.klass, wait),
                   std::isnan(c.wait_alert_s) ? fmt::format("Threshold: the class's p95 wait over the reviewed span ({:.0f} s).", t.wait_p95_s)
                                              : std::string("Threshold: wait_alert_s of the entitlements."),
                   wait});
    if (!std::isnan(c.sla_margin_s))
      out.push_back({"FloorsimClassSlaMargin", t.klass, "critical",
                     fmt::format("floorsim_class_deadline_margin_seconds{} < {:.0f}", sel, c.sla_margin_s),
                     fmt::format("{} is projected to finish less than {:.0f} s before its deadline", t.klass, c.sla_margin_s),
                     "The margin the risk function signs off; below it, the pre-agreed fallback applies.", c.sla_margin_s});
  }
  return out;
}

std::string alert_rules_yaml(const Review& r, const Entitlements& e) {
  YAML::Emitter y;
  const std::string for_s = fmt::format("{:.0f}s", e.alert_for_s);
  y << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "floorsim-review";
  y << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const AlertRule& a : r.alerts) {
    y << YAML::BeginMap << YAML::Key << "alert" << YAML::Value << a.alert << YAML::Key << "expr" << YAML::Value << a.expr;
    y << YAML::Key << "for" << YAML::Value << for_s;
    y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap << YAML::Key << "severity" << YAML::Value << a.severity
      << YAML::Key << "class" << YAML::Value << a.klass << YAML::EndMap;
    y << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap << YAML::Key << "summary" << YAML::Value << a.summary
      << YAML::Key << "description" << YAML::Value << a.description << YAML::EndMap << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace floorsim::app::review
