#include "sim/app/size.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::app {

std::vector<TimelinePoint> parse_timeline(const std::string& csv, const std::string& file) {
  std::vector<TimelinePoint> out;
  std::istringstream in(csv);
  std::string line;
  size_t ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (ln == 1) {
      if (line.rfind("time_s,class,gpus_allocated,gpus_demanded", 0) != 0)
        throw InputError(file, "1", "not a timeline.csv header; expected time_s,class,gpus_allocated,gpus_demanded,floor_gpus");
      continue;
    }
    if (line.empty()) continue;
    // The class may be quoted (RFC 4180); the other fields are numbers.
    std::vector<std::string> f;
    std::string cur;
    bool q = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (q) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { cur += '"'; ++i; }
        else if (c == '"') q = false;
        else cur += c;
      } else if (c == '"') {
        q = true;
      } else if (c == ',') {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    try {
      if (f.size() < 4) throw std::invalid_argument("fields");
      out.push_back({std::stod(f[0]), f[1], std::stoll(f[2]), std::stoll(f[3])});
    } catch (const std::exception&) {
      throw InputError(file, std::to_string(ln), "malformed timeline row; expected time_s,class,gpus_allocated,gpus_demanded,floor_gpus");
    }
  }
  return out;
}

Sizing size_floors(const Scenario& sc, const std::vector<TimelinePoint>& timeline, SimTime end_s) {
  Sizing s;
  for (size_t n = 0; n < sc.base_nodes; ++n) s.capacity_gpus += sc.cluster.node_gpus[n];
  const auto& strings = sc.workload.strings;
  struct Win {
    SimTime from = kNever, to = 0;
    double work = 0;
    bool deadline = false;
  };
  std::map<std::string, Win> win;
  for (const auto& j : sc.workload.jobs) {
    if (j.deadline_s == kNever) continue;
    Win& w = win[strings.str(j.klass)];
    w.deadline = true;
    w.from = std::min(w.from, j.submit_s);
    w.to = std::max(w.to, j.deadline_s);
    w.work += j.runtime_s * j.gpus;
  }
  // Per-class step functions, in timeline order.
  std::map<std::string, std::vector<const TimelinePoint*>> rows;
  for (const auto& p : timeline) rows[p.klass].push_back(&p);
  for (StrId k : sc.classes) {
    ClassSizing c;
    c.klass = strings.str(k);
    c.current_floor_gpus = k < sc.floors.size() ? sc.floors[k] : 0;
    const Win w = win.count(c.klass) ? win[c.klass] : Win{};
    c.deadline = w.deadline;
    c.window_from_s = w.deadline ? w.from : 0;
    c.window_to_s = w.deadline ? w.to : end_s;
    if (w.deadline && w.to > w.from) c.need_gpus = w.work / (w.to - w.from);
    int64_t demand = 0;
    bool opened = false;
    auto see = [&](int64_t d) { c.peak_demand_gpus = std::max(c.peak_demand_gpus, std::min(d, s.capacity_gpus)); };
    for (const auto* p : rows[c.klass]) {
      if (p->time_s > c.window_to_s) break;
      if (p->time_s < c.window_from_s) {  // before the window: only the value in effect when it opens counts
        demand = p->demanded;
        continue;
      }
      if (!opened) see(demand);
      opened = true;
      demand = p->demanded;
      see(demand);
    }
    if (!opened) see(demand);
    s.classes.push_back(c);
  }
  // Deadline floors: peaks, or needs plus a proportional share when the peaks do not fit.
  double peak_sum = 0, need_sum = 0, extra_sum = 0;
  for (auto& c : s.classes)
    if (c.deadline) {
      peak_sum += static_cast<double>(c.peak_demand_gpus);
      need_sum += std::ceil(c.need_gpus);
      extra_sum += std::max(0.0, static_cast<double>(c.peak_demand_gpus) - std::ceil(c.need_gpus));
    }
  const double cap = static_cast<double>(s.capacity_gpus);
  if (need_sum > cap) {
    s.deadline_fits = false;
    s.warnings.push_back(fmt::format("the deadline classes need {:.0f} GPUs on average over their windows but the cluster has {}: "
                                     "no floors fit; no configuration can fix it", need_sum, s.capacity_gpus));
  }
  for (auto& c : s.classes) {
    if (c.deadline) {
      if (peak_sum <= cap) {
        c.proposed_floor_gpus = c.peak_demand_gpus;
      } else {
        const double need = std::ceil(c.need_gpus);
        const double share = extra_sum > 0 ? std::max(0.0, cap - need_sum) * std::max(0.0, c.peak_demand_gpus - need) / extra_sum : 0;
        c.proposed_floor_gpus = static_cast<int64_t>(std::floor(std::min(need, cap) + share));
      }
    } else {
      c.proposed_floor_gpus = std::min<int64_t>(s.capacity_gpus, static_cast<int64_t>(std::ceil(1.5 * static_cast<double>(c.peak_demand_gpus))));
    }
  }
  // Floor utilisation while the class had demand.
  for (auto& c : s.classes) {
    auto util = [&](int64_t floor) {
      if (floor <= 0) return 0.0;
      double used = 0, held = 0;
      int64_t alloc = 0, demand = 0;
      SimTime last = 0;
      bool started = false;
      auto flush = [&](SimTime t) {
        if (started && demand > 0 && t > last) {
          used += static_cast<double>(std::min(alloc, floor)) * (t - last);
          held += static_cast<double>(floor) * (t - last);
        }
      };
      for (const auto* p : rows[c.klass]) {
        flush(p->time_s);
        alloc = p->allocated;
        demand = p->demanded;
        last = p->time_s;
        started = true;
      }
      flush(end_s);
      return held > 0 ? used / held : 0.0;
    };
    c.current_utilisation = util(c.current_floor_gpus);
    c.proposed_utilisation = util(c.proposed_floor_gpus);
    c.warn = c.proposed_floor_gpus > 0 && c.proposed_utilisation >= 0.8;
    if (c.warn)
      s.warnings.push_back(fmt::format("{}: the proposed floor of {} GPUs would run at {:.0f}% utilisation (>= 80%)", c.klass,
                                       c.proposed_floor_gpus, c.proposed_utilisation * 100));
  }
  return s;
}

std::string sizing_table(const Sizing& s) {
  std::string out = fmt::format("capacity {} GPUs\n{:<14} {:<9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}\n", s.capacity_gpus, "class", "kind",
                                "floor", "peak", "need", "proposed", "util_now", "util_new");
  for (const auto& c : s.classes)
    out += fmt::format("{:<14} {:<9} {:>9} {:>9} {:>9} {:>10} {:>8.0f}% {:>8.0f}%{}\n", c.klass, c.deadline ? "deadline" : "other",
                       c.current_floor_gpus, c.peak_demand_gpus, c.deadline ? fmt::format("{:.0f}", std::ceil(c.need_gpus)) : std::string("-"),
                       c.proposed_floor_gpus, c.current_utilisation * 100, c.proposed_utilisation * 100, c.warn ? "  WARN" : "");
  for (const auto& w : s.warnings) out += "warning: " + w + "\n";
  return out;
}

json to_json(const Sizing& s) {
  json cs = json::array();
  for (const auto& c : s.classes)
    cs.push_back({{"class", c.klass}, {"deadline", c.deadline}, {"window_from_s", c.window_from_s}, {"window_to_s", c.window_to_s},
                  {"floor_gpus", c.current_floor_gpus}, {"peak_demand_gpus", c.peak_demand_gpus}, {"need_gpus", c.need_gpus},
                  {"proposed_floor_gpus", c.proposed_floor_gpus}, {"floor_utilisation", c.current_utilisation},
                  {"proposed_floor_utilisation", c.proposed_utilisation}, {"warn", c.warn}});
  return {{"capacity_gpus", s.capacity_gpus}, {"deadline_floors_fit", s.deadline_fits}, {"classes", cs}, {"warnings", s.warnings}};
}

}  // namespace floorsim::app
