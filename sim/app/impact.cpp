#include "sim/app/impact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/app/runner.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {

Impact analyse_impact(const Scenario& sc, const std::vector<std::string>& ids, Warnings* caller) {
  WarningScope warnings(caller);
  if (sc.changes.empty()) throw InputError(sc.file, "/changes", "the scenario has no changes; expected at least one proposed change");
  std::vector<std::string> pick = ids;
  if (pick.empty())
    for (const auto& c : sc.changes) pick.push_back(c.id);
  for (const auto& id : pick)
    if (std::none_of(sc.changes.begin(), sc.changes.end(), [&](const PolicyChange& c) { return c.id == id; })) {
      std::string known;
      for (const auto& c : sc.changes) known += (known.empty() ? "" : ", ") + c.id;
      throw InputError(sc.file, "/changes", fmt::format("no change with id \"{}\"; expected one of: {}", id, known));
    }
  Scenario without = sc;
  without.changes.erase(std::remove_if(without.changes.begin(), without.changes.end(),
                                       [&](const PolicyChange& c) { return std::find(pick.begin(), pick.end(), c.id) != pick.end(); }),
                        without.changes.end());
  RunOptions ro;
  ro.render_csv = false;
  ro.warnings = &warnings.sink();
  const RunResult before = run_scenario(without, ro);
  ro.force_changes = pick;
  const RunResult after = run_scenario(sc, ro);
  Impact im;
  im.changes = pick;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (StrId k : sc.classes) {
    const std::string name = sc.workload.strings.str(k);
    const auto& b = before.metrics["classes"][name];
    const auto& a = after.metrics["classes"][name];
    ClassImpact ci;
    ci.klass = name;
    ci.attain_before = b["floor_attainment"];
    ci.attain_after = a["floor_attainment"];
    auto margin = [&](const nlohmann::json& c) {
      if (c["deadline_misses"].get<uint64_t>() > 0 && c["deadline_margin_s"].is_null()) return -std::numeric_limits<double>::infinity();
      return c["deadline_margin_s"].is_null() ? nan : c["deadline_margin_s"].get<double>();
    };
    ci.margin_before_s = margin(b);
    ci.margin_after_s = margin(a);
    ci.p99_before_s = b["wait_s"]["p99"];
    ci.p99_after_s = a["wait_s"]["p99"];
    im.classes.push_back(ci);
  }
  warnings.done();
  return im;
}

namespace {
using io::json_finite;
std::string cell(double v, const char* f = "{:.0f}") {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v < 0 ? "missed" : "inf";
  return fmt::format(fmt::runtime(f), v);
}
}  // namespace

nlohmann::json to_json(const Impact& im) {
  nlohmann::json cs = nlohmann::json::object();
  for (const auto& c : im.classes) {
    cs[c.klass] = {
        {"floor_attainment", {{"before", c.attain_before}, {"after", c.attain_after}, {"delta", c.attain_after - c.attain_before}}},
        {"deadline_margin_s", {{"before", json_finite(c.margin_before_s)}, {"after", json_finite(c.margin_after_s)}, {"delta", json_finite(c.margin_after_s - c.margin_before_s)}}},
        {"p99_wait_s", {{"before", c.p99_before_s}, {"after", c.p99_after_s}, {"delta", c.p99_after_s - c.p99_before_s}}}};
  }
  return {{"changes", im.changes}, {"classes", cs}};
}

std::string impact_table(const Impact& im) {
  std::string ids;
  for (const auto& i : im.changes) ids += (ids.empty() ? "" : ", ") + i;
  std::string out = fmt::format("impact of {} (without -> with)\n", ids);
  out += fmt::format("{:<14} {:>8} {:>8} {:>8}  {:>9} {:>9} {:>9}  {:>9} {:>9} {:>9}\n", "class", "attain", "->", "delta",
                     "margin_s", "->", "delta", "p99_s", "->", "delta");
  for (const auto& c : im.classes)
    out += fmt::format("{:<14} {:>8.3f} {:>8.3f} {:>+8.3f}  {:>9} {:>9} {:>9}  {:>9.1f} {:>9.1f} {:>+9.1f}\n", c.klass,
                       c.attain_before, c.attain_after, c.attain_after - c.attain_before, cell(c.margin_before_s),
                       cell(c.margin_after_s), cell(c.margin_after_s - c.margin_before_s, "{:+.0f}"), c.p99_before_s,
                       c.p99_after_s, c.p99_after_s - c.p99_before_s);
  return out;
}

}  // namespace floorsim::app
