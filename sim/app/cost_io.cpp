// `floorsim cost`: observations from runs and sweeps, and the outputs (JSON, CSV, Markdown).
#include <cmath>

#include <fmt/format.h>

#include "sim/app/capacity_block.hpp"
#include "sim/app/cost.hpp"
#include "sim/core/error.hpp"

namespace floorsim::app::cost {

namespace {

bool is_deadline_class(const json& c) { return c.contains("deadline_margin_s") && !c["deadline_margin_s"].is_null(); }

double window_of(const std::string& name, const Windows& measured, const Prices& p) {
  if (auto it = p.classes.find(name); it != p.classes.end() && !std::isnan(it->second.reserved_window_h))
    return it->second.reserved_window_h;
  auto m = measured.find(name);
  return m == measured.end() ? kUnknown : std::max(0.0, m->second.second - m->second.first) / 3600.0;
}

double gpus_per_node(const json& m) {
  const double nodes = m["cluster"].value("nodes", 0.0);
  return nodes > 0 ? m["cluster"].value("gpus", 0.0) / nodes : 8.0;
}

}  // namespace

Observation observe_run(const json& m, const json& resolved, const Windows& windows,
                        const json* without, const Prices& prices, std::string source) {
  Observation o;
  o.source = std::move(source);
  o.cluster_gpus = m["cluster"].value("gpus", 0.0);
  o.gpus_per_node = gpus_per_node(m);
  const json blocks = resolved.contains("capacity_blocks") ? resolved["capacity_blocks"] : json::array();
  for (const auto& b : blocks) {
    o.blocks.push_back({b["prefix"], block_cost(b["nodes"], b["gpus_per_node"], static_cast<double>(capacity_block_days(b)),
                                                b["price_usd"].is_null() ? kUnknown : b["price_usd"].get<double>(), prices.block_gpu_hour_usd),
                        b["unavailable_probability"], b["from_s"], b["to_s"]});
    o.cluster_gpus -= b["nodes"].get<double>() * b["gpus_per_node"].get<double>();  // the shared cluster is the base
  }
  for (const auto& [name, c] : m["classes"].items()) {
    if (!is_deadline_class(c)) continue;
    ClassObservation co{.name = name};
    co.floor_gpus = c["floor_gpus"];
    co.used_gpu_h = c["gpu_s_used"].get<double>() / 3600.0;
    co.window_h = window_of(name, windows, prices);
    if (auto w = windows.find(name); w != windows.end()) co.window_from_s = w->second.first, co.window_to_s = w->second.second;
    co.p_miss = c["deadline_misses"].get<double>() > 0 ? 1.0 : 0.0;
    co.preemptions = c["preemptions"];
    if (without && (*without)["classes"].contains(name))
      co.p_miss_without_blocks = (*without)["classes"][name]["deadline_misses"].get<double>() > 0 ? 1.0 : 0.0;
    o.classes.push_back(co);
  }
  if (!o.blocks.empty() && !without)
    o.warnings.push_back("the run had capacity blocks and no run without them was given: shared is priced with the run's "
                         "misses, and reserved+burst assumes every deadline is missed when a block is not had (run `cost` on "
                         "the scenario to simulate both)");
  return o;
}

Observation observe_sweep(const std::vector<json>& lines, const Prices& prices, std::string source, const std::string& file) {
  Observation o;
  o.source = std::move(source);
  std::map<std::string, ClassObservation> acc;
  std::map<std::string, double> overflows;  // points whose work does not fit dedicated GPUs x window
  std::vector<std::string> order;
  size_t points = 0;
  for (const auto& l : lines) {
    if (!l.contains("metrics")) continue;  // a point whose run failed
    const json& m = l["metrics"];
    ++points;
    o.cluster_gpus = m["cluster"].value("gpus", 0.0);
    o.gpus_per_node = gpus_per_node(m);
    for (const auto& [name, c] : m["classes"].items()) {
      if (!is_deadline_class(c)) continue;
      auto [it, fresh] = acc.try_emplace(name, ClassObservation{.name = name, .runs = 0});
      if (fresh) {
        order.push_back(name);
        if (std::isnan(window_of(name, {}, prices)))
          throw InputError(file, "", fmt::format("a sweep's results hold no deadline windows; expected "
                                                 "classes.{}.reserved_window_h in the prices file", name));
      }
      ClassObservation& a = it->second;
      if (dedicated_overflows(c["gpu_s_used"].get<double>() / 3600.0, c["floor_gpus"].get<double>(), o.gpus_per_node, window_of(name, {}, prices)))
        overflows[name] += 1;
      a.floor_gpus += c["floor_gpus"].get<double>();
      a.used_gpu_h += c["gpu_s_used"].get<double>() / 3600.0;
      a.p_miss += c["deadline_misses"].get<double>() > 0 ? 1.0 : 0.0;
      a.preemptions += c["preemptions"].get<double>();
      ++a.runs;
    }
  }
  if (points == 0) throw InputError(file, "", "no point of the sweep has metrics; expected a sweep that ran");
  for (const auto& name : order) {
    ClassObservation a = acc[name];
    const double n = static_cast<double>(a.runs);
    a.floor_gpus /= n, a.used_gpu_h /= n, a.p_miss /= n, a.preemptions /= n;
    a.window_h = window_of(name, {}, prices);
    a.dedicated_overflow_share = overflows[name] / n;
    o.classes.push_back(a);
  }
  o.warnings.push_back(fmt::format("sweep of {} points: floors and used GPU-hours are means over the points, the miss chance "
                                   "is the share of points that missed (dedicated's: the share whose work does not fit, see p_miss_basis); capacity "
                                   "blocks are not priced (results hold none)", points));
  return o;
}

json to_json(const CostReport& r) {
  json classes = json::array();
  auto num = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  for (const auto& c : r.classes) {
    json opts = json::array();
    for (const auto& o : c.options)
      opts.push_back({{"option", o.option}, {"capacity_gpu_h", o.capacity_gpu_h}, {"capacity_usd", o.capacity_usd},
                      {"idle_gpu_h", o.idle_gpu_h}, {"idle_usd", o.idle_usd}, {"burst_usd", o.burst_usd},
                      {"p_miss", o.p_miss}, {"p_miss_basis", o.p_miss_basis}, {"expected_missed_usd", o.expected_missed_usd},
                      {"total_usd", o.total_usd()}});
    classes.push_back({{"class", c.name}, {"options", opts}, {"cheapest", c.cheapest},
                       {"break_even", {{"missed_deadline_usd_dedicated", num(c.missed_breakeven_dedicated_usd)},
                                       {"missed_deadline_usd_reserved_burst", num(c.missed_breakeven_reserved_usd)},
                                       {"dedicated_utilisation", c.dedicated_utilisation},
                                       {"utilisation_vs_cloud", num(c.utilisation_breakeven)}}},
                       {"dedicated_cases", {{"floor_is_most_of_cluster", c.case_floor_most},
                                            {"isolation_rules_out_sharing", c.case_isolation},
                                            {"missed_deadline_costs_more_than_idle", c.case_miss_over_idle}}}});
  }
  json blocks = json::array();
  for (const auto& b : r.obs.blocks)
    blocks.push_back({{"prefix", b.prefix}, {"cost_usd", b.cost_usd}, {"unavailable_probability", b.unavailable_probability}});
  return {{"source", r.obs.source},
          {"prices", {{"onprem_gpu_hour_usd", r.prices.onprem_gpu_hour_usd}, {"cloud_gpu_hour_usd", r.prices.cloud_gpu_hour_usd},
                      {"capacity_block_gpu_hour_usd", r.prices.block_gpu_hour_usd}, {"period_h", r.prices.period_h}}},
          {"cluster_gpus", r.obs.cluster_gpus}, {"capacity_blocks", blocks}, {"classes", classes}, {"warnings", r.obs.warnings}};
}

TextTable options_table(const CostReport& r) {
  TextTable t{{"class", "option", "capacity_gpu_h", "capacity_usd", "idle_gpu_h", "idle_usd", "burst_usd", "p_miss", "p_miss_basis",
               "expected_missed_usd", "total_usd"}, {}};
  for (const auto& c : r.classes)
    for (const auto& o : c.options)
      t.rows.push_back({c.name, o.option, cell(o.capacity_gpu_h, 1), cell(o.capacity_usd), cell(o.idle_gpu_h, 1), cell(o.idle_usd),
                        cell(o.burst_usd), cell(o.p_miss, 3), o.p_miss_basis, cell(o.expected_missed_usd), cell(o.total_usd())});
  return t;
}

std::string to_markdown(const CostReport& r) {
  std::string s = fmt::format("# Cost of the deadline classes\n\nSource: {}. On-premises GPU-hour {:.4f} USD, cloud on demand "
                              "{:.4f} USD, dedicated nodes paid over {} h per night.\n\n",
                              r.obs.source, r.prices.onprem_gpu_hour_usd, r.prices.cloud_gpu_hour_usd, r.prices.period_h);
  s += to_markdown(options_table(r));
  s += "\np_miss is simulated (measured over the runs) except where p_miss_basis says fit bound: dedicated's is 1 when the "
       "class's work (the GPU-hours it used on the shared cluster) exceeds the dedicated GPUs x its window, else 0 (over a sweep, "
       "the share of points where it does). A lower bound: packing, arrival times and failures, which can make a fitting night "
       "late, are not simulated; so dedicated's expected missed-deadline cost and break-even are optimistic.\n";
  TextTable be{{"class", "cheapest", "missed-deadline break-even, dedicated (USD)", "missed-deadline break-even, reserved+burst (USD)",
                "dedicated utilisation", "utilisation break-even vs cloud", "floor is most of the cluster", "isolation",
                "miss costs more than idle"}, {}};
  auto yn = [](bool b) { return std::string(b ? "yes" : "no"); };
  for (const auto& c : r.classes)
    be.rows.push_back({c.name, c.cheapest, cell(c.missed_breakeven_dedicated_usd), cell(c.missed_breakeven_reserved_usd),
                       cell(c.dedicated_utilisation, 3), cell(c.utilisation_breakeven, 3), yn(c.case_floor_most), yn(c.case_isolation),
                       yn(c.case_miss_over_idle)});
  s += "\n## Break-even points and the cases for dedicated nodes\n\n" + to_markdown(be);
  s += "\nA break-even missed-deadline cost is where that option's total equals shared's (`-`: it never does, as it misses no "
       "less often). Dedicated nodes cost less than renting the same GPU-hours on demand above the utilisation break-even.\n";
  if (!r.obs.warnings.empty()) {
    s += "\n## Assumed\n\n";
    for (const auto& w : r.obs.warnings) s += "- " + w + "\n";
  }
  return s;
}

}  // namespace floorsim::app::cost
