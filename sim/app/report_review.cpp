// `floorsim report DIR` over a `floorsim review --out DIR` directory: the review as one HTML page
// (inline SVG, no script) from its review.json. Sections, each with its id:
//   summary            what was reviewed and what stands out
//   review-classes     entitlement, use and allocation per class; chart-review-usage
//   review-use         used as a share of the entitlement per class by week and by month
//   review-wait        wait p50 / p95 per class by week and by month
//   review-capacity    idle and idle-while-waiting capacity by week and by month
//   review-pileups     the windows where cumulative wait piles up
//   review-rebalance   the recommended floors; chart-review-rebalance
//   review-alerts      the Prometheus alerting rules (alerts.yml) and their thresholds
//   review-monthly, review-weekly   the roll-up tables (monthly.csv, weekly.csv)
#include "sim/app/report_review.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/report_svg.hpp"
#include "sim/app/report_text.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::report {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// review.json read with every access checked: a hand-edited or foreign file is one error line
// naming the JSON pointer, never an exception from deep inside.
struct Doc {
  json j;
  std::string file;
  const json& rows(const char* key) const {
    if (!j.contains(key) || !j[key].is_array())
      throw InputError(file, std::string("/") + key, "missing or not an array; expected review.json as `floorsim review --out` writes it");
    return j[key];
  }
  double number(const json& row, const char* key, const std::string& where) const {
    if (!row.is_object() || !row.contains(key) || !row[key].is_number())
      throw InputError(file, where + "/" + key, "missing or not a number; expected review.json as `floorsim review --out` writes it");
    return row[key].get<double>();
  }
  std::string text(const json& row, const char* key, const std::string& where) const {
    if (!row.is_object() || !row.contains(key) || !row[key].is_string())
      throw InputError(file, where + "/" + key, "missing or not a string; expected review.json as `floorsim review --out` writes it");
    return row[key].get<std::string>();
  }
};

std::string date_of(double s) {
  const auto t = static_cast<std::time_t>(std::floor(s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

std::string f1(double v) { return fmt::format("{:.1f}", v); }
std::string hmm_hours(double h) { return hmm(h * 3600); }
std::string percent_text(double v) { return fmt::format("{:g}%", v); }

// A table; `text` left-aligns every column (rows of words rather than figures).
std::string table_html(const std::string& id, const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       bool text = false) {
  std::string h = fmt::format("<table id=\"{}\"{}><tr>", html_esc(id), text ? " class=\"txt\"" : "");
  for (const auto& c : header) h += "<th>" + html_esc(c) + "</th>";
  h += "</tr>\n";
  for (const auto& r : rows) {
    h += "<tr>";
    for (const auto& c : r) h += "<td>" + html_esc(c) + "</td>";
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

// The classes in review.json order, each with its chart colour.
struct Classes {
  std::vector<std::string> names;
  std::string colour(const std::string& k) const {
    const auto it = std::find(names.begin(), names.end(), k);
    return kPalette[static_cast<size_t>(it - names.begin()) % 10];
  }
};

// One line (or stacked bar part) of a chart over periods: one value per period, NaN = none.
struct Series {
  std::string name, colour;
  bool dashed = false;
  std::vector<double> y;
};

enum class YUnit { Hours, Percent, GpuHours };

// A frame whose x positions are the periods (0 .. n-1), labelled instead of ticked.
Frame period_frame(size_t n) {
  Frame f;
  f.xticks = false;
  f.mb = 48;
  f.x0 = -0.5, f.x1 = static_cast<double>(n) - 0.5;
  return f;
}

// The period labels under the x axis: every one, or every k-th so that at most ~12 show.
std::string period_labels(const Frame& f, const std::vector<std::string>& periods) {
  std::string h;
  const size_t every = std::max<size_t>(1, (periods.size() + 11) / 12);
  for (size_t i = 0; i < periods.size(); i += every)
    h += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tx\">{}</text>\n", f.X(static_cast<double>(i)), f.h - f.mb + 14, html_esc(periods[i]));
  return h;
}

// Closes the chart and adds the legend of its series (dashed companions left out).
std::string close_with_legend(const std::vector<Series>& series) {
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& s : series)
    if (!s.dashed) items.emplace_back(s.name, s.colour);
  return "</svg>\n" + legend(items);
}

// Periods along x (labelled, at most ~12 labels), lines with a marker per period.
std::string period_lines_chart(const std::string& id, const std::string& title, const std::string& ylabel, YUnit unit,
                               const std::vector<std::string>& periods, const std::vector<Series>& series, double reference = NAN) {
  Frame f = period_frame(periods.size());
  double y1 = std::isnan(reference) ? 0 : reference;
  for (const auto& s : series)
    for (double v : s.y)
      if (std::isfinite(v)) y1 = std::max(y1, v);
  f.y0 = 0, f.y1 = y1 > 0 ? y1 * 1.08 : 1;
  if (unit == YUnit::Hours) {
    f.ytext = hmm_hours, f.yhours = true;
    f.y1 = std::max(2.0 / 60, std::ceil(f.y1 * 60) / 60);
  }
  if (unit == YUnit::Percent) f.ytext = percent_text;
  std::string h = svg_open(id, title, f, "period", ylabel);
  h += period_labels(f, periods);
  if (!std::isnan(reference))
    h += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#000\" stroke-dasharray=\"2,3\" class=\"ref\"/>\n", f.ml,
                     f.w - f.mr, f.Y(reference), f.Y(reference));
  for (const auto& s : series) {
    std::string d;
    for (size_t i = 0; i < s.y.size() && i < periods.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : "L", f.X(static_cast<double>(i)), f.Y(s.y[i]));
    }
    if (d.empty()) continue;
    h += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{}><title>{}</title></path>\n", d, s.colour,
                     s.dashed ? " stroke-dasharray=\"5,3\"" : "", html_esc(s.name));
    if (!s.dashed)
      for (size_t i = 0; i < s.y.size() && i < periods.size(); ++i)
        if (std::isfinite(s.y[i]))
          h += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{} {}: {}</title></circle>\n",
                           f.X(static_cast<double>(i)), f.Y(s.y[i]), s.colour, html_esc(s.name), html_esc(periods[i]),
                           unit == YUnit::Hours ? hmm_hours(s.y[i]) : unit == YUnit::Percent ? fmt::format("{:.1f}%", s.y[i]) : f1(s.y[i]));
  }
  return h + close_with_legend(series);
}

// Periods along x, one stacked bar per period.
std::string period_stack_chart(const std::string& id, const std::string& title, const std::string& ylabel,
                               const std::vector<std::string>& periods, const std::vector<Series>& parts) {
  Frame f = period_frame(periods.size());
  double top = 0;
  for (size_t i = 0; i < periods.size(); ++i) {
    double sum = 0;
    for (const auto& p : parts) sum += i < p.y.size() && std::isfinite(p.y[i]) ? p.y[i] : 0;
    top = std::max(top, sum);
  }
  f.y0 = 0, f.y1 = top > 0 ? top * 1.05 : 1;
  std::string h = svg_open(id, title, f, "period", ylabel);
  h += period_labels(f, periods);
  const double bw = (f.X(1) - f.X(0)) * 0.7;
  for (size_t i = 0; i < periods.size(); ++i) {
    double base = 0;
    for (const auto& p : parts) {
      const double v = i < p.y.size() && std::isfinite(p.y[i]) ? p.y[i] : 0;
      if (v <= 0) continue;
      h += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{} {}: {:.1f} GPU-h</title></rect>\n",
                       f.X(static_cast<double>(i)) - bw / 2, f.Y(base + v), bw, f.Y(base) - f.Y(base + v), p.colour, html_esc(periods[i]),
                       html_esc(p.name), v);
      base += v;
    }
  }
  return h + close_with_legend(parts);
}

// Classes down the y axis, a group of horizontal bars each (one per series), value along x.
std::string class_bars_chart(const std::string& id, const std::string& title, const std::string& xlabel,
                             const std::vector<std::string>& classes, const std::vector<Series>& series) {
  Frame f;
  f.yticks = false;
  f.ml = 90;
  const double group = 8.0 * static_cast<double>(series.size()) + 10;
  f.h = f.mt + f.mb + group * static_cast<double>(std::max<size_t>(1, classes.size()));
  double x1 = 0;
  for (const auto& s : series)
    for (double v : s.y)
      if (std::isfinite(v)) x1 = std::max(x1, v);
  f.x0 = 0, f.x1 = x1 > 0 ? x1 * 1.05 : 1;
  f.y0 = 0, f.y1 = static_cast<double>(std::max<size_t>(1, classes.size()));
  std::string h = svg_open(id, title, f, xlabel, "");
  for (size_t c = 0; c < classes.size(); ++c) {
    const double top = f.mt + group * static_cast<double>(c) + 5;
    h += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ty\">{}</text>\n", f.ml - 4, top + group / 2, html_esc(classes[c]));
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = c < series[s].y.size() ? series[s].y[c] : NAN;
      if (!std::isfinite(v)) continue;
      h += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"7\" fill=\"{}\"><title>{} {}: {}</title></rect>\n", f.ml,
                       top + 8.0 * static_cast<double>(s), std::max(0.5, f.X(v) - f.ml), series[s].colour, html_esc(classes[c]),
                       html_esc(series[s].name), f1(v));
    }
  }
  return h + close_with_legend(series);
}

// A roll-up array (weekly or monthly) as its periods and, per class, one field's values.
struct Rolled {
  std::vector<std::string> periods;
  std::map<std::string, std::map<std::string, json>> at;  // class -> period -> row
};

Rolled roll(const Doc& d, const char* key) {
  Rolled r;
  const json& rows = d.rows(key);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/{}/{}", key, i);
    const std::string p = d.text(rows[i], "period", where), k = d.text(rows[i], "class", where);
    for (const char* f : {"used_gpu_h", "entitled_gpu_h", "allocated_gpu_h", "wait_p50_s", "wait_p95_s", "wait_max_s", "jobs"})
      (void)d.number(rows[i], f, where);
    if (r.periods.empty() || r.periods.back() != p) r.periods.push_back(p);
    r.at[k][p] = rows[i];
  }
  return r;
}

std::vector<double> values(const Rolled& r, const std::string& k, double (*f)(const json&)) {
  std::vector<double> v;
  for (const auto& p : r.periods) {
    const auto c = r.at.find(k);
    v.push_back(c == r.at.end() || !c->second.count(p) ? NAN : f(c->second.at(p)));
  }
  return v;
}

double use_pct(const json& row) {
  const double e = row["entitled_gpu_h"].get<double>();
  return e > 0 ? 100 * row["used_gpu_h"].get<double>() / e : NAN;
}
double p95_h(const json& row) { return row["wait_p95_s"].get<double>() / 3600; }
double p50_h(const json& row) { return row["wait_p50_s"].get<double>() / 3600; }

std::string use_section(const Rolled& wk, const Rolled& mo, const Classes& cl) {
  std::vector<Series> w, m;
  for (const auto& k : cl.names) {
    w.push_back({k, cl.colour(k), false, values(wk, k, use_pct)});
    m.push_back({k, cl.colour(k), false, values(mo, k, use_pct)});
  }
  std::string h = "<section id=\"review-use\"><h2>Consumed against entitlement over time</h2>\n";
  h += "<p class=\"note\">GPU-hours used as a share of the floor's GPU-hours in the period (dotted: 100%). A class with no floor has "
       "no share.</p>\n";
  h += period_lines_chart("chart-review-use-weekly", "Used as % of entitlement per class, by week", "% of entitlement", YUnit::Percent,
                          wk.periods, w, 100);
  h += period_lines_chart("chart-review-use-monthly", "Used as % of entitlement per class, by month", "% of entitlement", YUnit::Percent,
                          mo.periods, m, 100);
  return h + "</section>\n";
}

std::string wait_section(const Rolled& wk, const Rolled& mo, const Classes& cl) {
  std::vector<Series> w, m;
  for (const auto& k : cl.names) {
    w.push_back({k + " p95", cl.colour(k), false, values(wk, k, p95_h)});
    w.push_back({k + " p50", cl.colour(k), true, values(wk, k, p50_h)});
    m.push_back({k + " p95", cl.colour(k), false, values(mo, k, p95_h)});
    m.push_back({k + " p50", cl.colour(k), true, values(mo, k, p50_h)});
  }
  std::string h = "<section id=\"review-wait\"><h2>Wait distributions per class over time</h2>\n";
  h += "<p class=\"note\">Wait = start &minus; submit of the jobs submitted in the period (a job that never started waits to the end of "
       "the span): p95 solid with markers, p50 dashed.</p>\n";
  h += period_lines_chart("chart-review-wait-weekly", "Wait p95 and p50 per class, by week", "wait (h:mm)", YUnit::Hours, wk.periods, w);
  h += period_lines_chart("chart-review-wait-monthly", "Wait p95 and p50 per class, by month", "wait (h:mm)", YUnit::Hours, mo.periods, m);
  return h + "</section>\n";
}

std::string capacity_part(const Doc& d, const char* key, const std::string& id, const std::string& what) {
  const json& rows = d.rows(key);
  std::vector<std::string> periods;
  Series used{"used", "#1f77b4", false, {}}, waiting{"idle while jobs waited", "#d62728", false, {}}, idle{"idle, nothing waiting", "#c7c7c7", false, {}};
  std::vector<std::vector<std::string>> table;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/{}/{}", key, i);
    const double cap = d.number(rows[i], "capacity_gpu_h", where), u = d.number(rows[i], "used_gpu_h", where);
    const double id_all = d.number(rows[i], "idle_gpu_h", where), iw = d.number(rows[i], "idle_while_waiting_gpu_h", where);
    periods.push_back(d.text(rows[i], "period", where));
    used.y.push_back(u), waiting.y.push_back(iw), idle.y.push_back(std::max(0.0, id_all - iw));
    table.push_back({periods.back(), f1(cap), f1(u), f1(id_all), f1(iw), cap > 0 ? fmt::format("{:.1f}%", 100 * iw / cap) : "-"});
  }
  std::string h = period_stack_chart(id, "Capacity by " + what + ": used, idle while jobs waited, idle", "GPU-hours", periods, {used, waiting, idle});
  h += table_html("review-capacity-" + what + "ly-table", {what == "week" ? "week of" : "month", "capacity GPU-h", "used GPU-h", "idle GPU-h", "idle while waiting GPU-h",
                                  "idle while waiting (% of capacity)"}, table);
  return h;
}

std::string rollup_table_html(const Doc& d, const char* key, const std::string& id) {
  const json& rows = d.rows(key);
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    const double e = r["entitled_gpu_h"].get<double>();
    t.push_back({r["period"].get<std::string>(), r["class"].get<std::string>(), num(r["jobs"].get<double>()), f1(r["used_gpu_h"].get<double>()),
                 f1(e), f1(r["allocated_gpu_h"].get<double>()), e > 0 ? fmt::format("{:.1f}%", 100 * r["used_gpu_h"].get<double>() / e) : "-",
                 hmm(r["wait_p50_s"].get<double>()), hmm(r["wait_p95_s"].get<double>()), hmm(r["wait_max_s"].get<double>())});
  }
  return table_html(id + "-table", {"period", "class", "jobs", "used GPU-h", "entitled GPU-h", "allocated GPU-h", "used of entitled",
                                    "wait p50 (h:mm)", "wait p95 (h:mm)", "wait max (h:mm)"}, t);
}

// Per class: entitlement against use and allocation, with the chart.
std::string classes_section(const Doc& d, Classes* cl) {
  const json& rows = d.rows("classes");
  std::vector<std::vector<std::string>> t;
  Series ent{"entitled", "#7f7f7f", false, {}}, alloc{"allocated", "#ff7f0e", false, {}}, used{"used", "#1f77b4", false, {}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/classes/{}", i);
    const std::string k = d.text(rows[i], "class", where);
    const double u = d.number(rows[i], "used_gpu_h", where), e = d.number(rows[i], "entitled_gpu_h", where);
    const double a = d.number(rows[i], "allocated_gpu_h", where);
    cl->names.push_back(k);
    ent.y.push_back(e), alloc.y.push_back(a), used.y.push_back(u);
    t.push_back({k, num(d.number(rows[i], "jobs", where)), f1(u), f1(e), f1(a), e > 0 ? fmt::format("{:.1f}%", 100 * u / e) : "-",
                 f1(std::max(0.0, a - u)), hmm(d.number(rows[i], "wait_p95_s", where)), f1(d.number(rows[i], "peak_week_gpus", where)),
                 f1(d.number(rows[i], "demand_p95_gpus", where))});
  }
  std::string h = "<section id=\"review-classes\"><h2>Entitlement against consumption per class</h2>\n";
  h += table_html("review-classes-table", {"class", "jobs", "used GPU-h", "entitled GPU-h", "allocated GPU-h", "used of entitled",
                                           "booked idle GPU-h", "wait p95 (h:mm)", "busiest week (GPUs)", "demand p95 (GPUs)"}, t);
  h += "<p class=\"note\">Allocated = used, except for a reserved floor, whose idle time is booked to the class as used (Slurm's "
       "reservation accounting); booked idle = allocated &minus; used. Demand: GPUs running + waiting, the 95th percentile over the "
       "time the class wanted any.</p>\n";
  h += class_bars_chart("chart-review-usage", "GPU-hours entitled, allocated and used per class", "GPU-hours", cl->names, {ent, alloc, used});
  return h + "</section>\n";
}

std::string pileups_section(const Doc& d) {
  const json& rows = d.rows("pileups");
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/pileups/{}", i);
    t.push_back({d.text(rows[i], "class", where), d.text(rows[i], "from", where), d.text(rows[i], "to", where),
                 f1(d.number(rows[i], "wait_h", where)), f1(d.number(rows[i], "threshold_h_per_day", where))});
  }
  std::string h = "<section id=\"review-pileups\"><h2>Where cumulative wait piles up</h2>\n";
  h += "<p class=\"note\">Days whose summed wait (jobs submitted that day) exceeds the pile-up factor times the class's mean day, "
       "merged into windows of consecutive days, largest first.</p>\n";
  h += t.empty() ? std::string("<p id=\"review-pileups-table\">No window piles up.</p>\n")
                 : table_html("review-pileups-table", {"class", "from", "to", "wait (h)", "threshold (h per day)"}, t);
  return h + "</section>\n";
}

std::string rebalance_section(const Doc& d) {
  const json& rows = d.rows("rebalance");
  std::vector<std::vector<std::string>> t;
  std::vector<std::string> names;
  Series floor{"floor", "#7f7f7f", false, {}}, proposed{"proposed floor", "#2ca02c", false, {}}, demand{"demand p95", "#d62728", false, {}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/rebalance/{}", i);
    const double f = d.number(rows[i], "floor_gpus", where), p = d.number(rows[i], "proposed_floor_gpus", where);
    const double dm = d.number(rows[i], "demand_gpus", where);
    names.push_back(d.text(rows[i], "class", where));
    floor.y.push_back(f), proposed.y.push_back(p), demand.y.push_back(dm);
    t.push_back({names.back(), num(f), f1(dm), num(p), fmt::format("{:+.0f}", p - f)});
  }
  std::string h = "<section id=\"review-rebalance\"><h2>Recommended rebalancing</h2>\n";
  h += table_html("review-rebalance-table", {"class", "floor (GPUs)", "demand p95 (GPUs)", "proposed floor (GPUs)", "change"}, t);
  h += "<p class=\"note\">Classes whose demand exceeds their floor gain GPUs from those whose demand leaves part of theirs unused, in "
       "proportion to the shortfall and the surplus, in whole GPUs; the total of the floors is kept.</p>\n";
  h += class_bars_chart("chart-review-rebalance", "Floor, proposed floor and p95 demand per class", "GPUs", names, {floor, proposed, demand});
  return h + "</section>\n";
}

std::string alerts_section(const Doc& d) {
  const json& rows = d.rows("alerts");
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("/alerts/{}", i);
    const std::string alert = d.text(rows[i], "alert", where);
    const double thr = d.number(rows[i], "threshold", where);
    const std::string shown = alert == "FloorsimClassNearQuota" ? fmt::format("{:g}% of the floor", 100 * thr) : fmt::format("{:.0f} s ({})", thr, hmm(thr));
    t.push_back({d.text(rows[i], "class", where), alert, d.text(rows[i], "severity", where), shown,
                 fmt::format("{:.0f} s", d.number(rows[i], "for_s", where)), d.text(rows[i], "expr", where), d.text(rows[i], "description", where)});
  }
  std::string h = "<section id=\"review-alerts\"><h2>Alert thresholds (Prometheus rules, alerts.yml)</h2>\n";
  h += table_html("review-alerts-table", {"class", "alert", "severity", "threshold", "for", "expression", "basis"}, t, true);
  h += "<p class=\"note\">alerts.yml holds these rules in Prometheus's rule file format, one group floorsim-review; a site loads "
       "it with rule_files and maps its exporter's series onto the floorsim_class_* gauges with recording rules.</p>\n";
  return h + "</section>\n";
}

// What was reviewed, and what stands out: classes above their floor, booked idle reserved time,
// capacity idle while jobs waited, the largest pile-up, the floors that move, the rules written.
std::string summary_html(const Doc& d, const Classes& cl) {
  std::string h = "<section id=\"summary\"><h2>Summary</h2>\n";
  const double from = d.number(d.j, "from_s", ""), to = d.number(d.j, "to_s", ""), cap = d.number(d.j, "capacity_gpus", "");
  const std::string source = d.j.value("source", std::string());
  size_t jobs = 0;
  for (const auto& c : d.j["classes"]) jobs += static_cast<size_t>(c["jobs"].get<double>());
  h += fmt::format("<p><b>Question:</b> are the {}-GPU cluster's floors right for the load measured from {} to {} ({:.1f} weeks, {} jobs, "
                   "{} classes)?{}</p>\n<ul>\n",
                   num(cap), date_of(from), date_of(to), (to - from) / (7 * 86400.0), jobs, cl.names.size(),
                   source.empty() ? "" : " Reviewed: " + html_esc(source) + ".");
  std::string over;
  for (const auto& r : d.j["rebalance"])
    if (r["demand_gpus"].get<double>() > r["floor_gpus"].get<double>())
      over += fmt::format("{}{} ({} GPUs at p95 against a floor of {})", over.empty() ? "" : ", ", html_esc(r["class"].get<std::string>()),
                          f1(r["demand_gpus"].get<double>()), num(r["floor_gpus"].get<double>()));
  h += "<li><b>Demand above the floor:</b> " + (over.empty() ? std::string("no class") : over) + ".</li>\n";
  double booked = 0;
  for (const auto& c : d.j["classes"]) booked += std::max(0.0, c["allocated_gpu_h"].get<double>() - c["used_gpu_h"].get<double>());
  h += fmt::format("<li><b>Reserved time booked but idle:</b> {} GPU-h.</li>\n", f1(booked));
  double c_all = 0, waiting = 0;
  for (const auto& c : d.j["capacity_weekly"]) c_all += c["capacity_gpu_h"].get<double>(), waiting += c["idle_while_waiting_gpu_h"].get<double>();
  h += fmt::format("<li><b>Idle while jobs waited</b> (fragmented or held back): {} GPU-h, {:.1f}% of the capacity.</li>\n", f1(waiting),
                   c_all > 0 ? 100 * waiting / c_all : 0.0);
  const json& piles = d.j["pileups"];
  h += piles.empty() ? std::string("<li><b>Largest pile-up:</b> none.</li>\n")
                     : fmt::format("<li><b>Largest pile-up:</b> {} from {} to {}, {} h of wait ({} windows in all).</li>\n",
                                   html_esc(piles[0]["class"].get<std::string>()), html_esc(piles[0]["from"].get<std::string>()),
                                   html_esc(piles[0]["to"].get<std::string>()), f1(piles[0]["wait_h"].get<double>()), piles.size());
  std::string moves;
  for (const auto& r : d.j["rebalance"])
    if (const double ch = r["proposed_floor_gpus"].get<double>() - r["floor_gpus"].get<double>(); ch != 0)
      moves += fmt::format("{}{} {:+.0f}", moves.empty() ? "" : ", ", html_esc(r["class"].get<std::string>()), ch);
  h += "<li><b>Rebalancing:</b> " + (moves.empty() ? std::string("the floors stay as they are") : moves) + ".</li>\n";
  h += fmt::format("<li><b>Alert rules:</b> {} in alerts.yml.</li>\n</ul>\n", d.j["alerts"].size());
  for (const auto& w : d.j.value("warnings", json::array()))
    if (w.is_string()) h += "<p class=\"fail\">Warning: " + html_esc(w.get<std::string>()) + "</p>\n";
  return h + "</section>\n";
}

}  // namespace

std::string review_report(const fs::path& dir) {
  Doc d{{}, (dir / "review.json").string()};
  d.j = parse_json_text(io::read_file(d.file), d.file);
  if (!d.j.is_object()) throw InputError(d.file, "", "not a JSON object; expected review.json as `floorsim review --out` writes it");
  // Every section's rows are checked before any is laid out, so the summary reads checked data.
  Classes cl;
  const std::string classes = classes_section(d, &cl);
  const Rolled wk = roll(d, "weekly"), mo = roll(d, "monthly");
  const std::string capacity = "<section id=\"review-capacity\"><h2>Idle and fragmented capacity</h2>\n" +
                               capacity_part(d, "capacity_monthly", "chart-review-capacity-monthly", "month") +
                               capacity_part(d, "capacity_weekly", "chart-review-capacity-weekly", "week") +
                               "<p class=\"note\">Idle while jobs waited: GPUs idle while some job waited (fragmented, or held back by "
                               "policy).</p>\n</section>\n";
  const std::string piles = pileups_section(d), rebalance = rebalance_section(d), alerts = alerts_section(d);

  std::string h = page_open("floorsim review report");
  h += summary_html(d, cl);
  h += classes + use_section(wk, mo, cl) + wait_section(wk, mo, cl) + capacity + piles + rebalance + alerts;
  h += "<section id=\"review-monthly\"><h2>Monthly roll-up</h2>\n" + rollup_table_html(d, "monthly", "review-monthly") + "</section>\n";
  h += "<section id=\"review-weekly\"><h2>Weekly roll-up</h2>\n" + rollup_table_html(d, "weekly", "review-weekly") + "</section>\n";
  h += footer_html("", {dir / "review.json", dir / "alerts.yml", dir / "monthly.csv", dir / "weekly.csv"});
  h += "</body></html>\n";
  return h;
}

}  // namespace floorsim::app::report
