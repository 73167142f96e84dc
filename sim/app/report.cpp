#include "sim/app/report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/compare.hpp"
#include "sim/app/report_review.hpp"
#include "sim/app/report_svg.hpp"
#include "sim/app/report_text.hpp"
#include "sim/app/scenario.hpp"
#include "sim/app/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::report {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n') {
      if (any || !cell.empty()) row.push_back(std::move(cell));
      if (!row.empty()) rows.push_back(std::move(row));
      row.clear();
      cell.clear();
      any = false;
    } else if (c != '\r') {
      cell += c;
      any = true;
    }
  }
  if (any || !cell.empty()) row.push_back(std::move(cell));
  if (!row.empty()) rows.push_back(std::move(row));
  return rows;
}

namespace {

// A table-like CSV with a header: column lookup by name.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
};

Csv read_csv(const fs::path& p, const std::vector<std::string>& required) {
  Csv c;
  auto rows = parse_csv(io::read_file(p));
  if (rows.empty()) throw InputError(p.string(), "1", "empty; expected a header line");
  c.header = rows[0];
  for (const auto& r : required)
    if (c.col(r) < 0) throw InputError(p.string(), "1", "has no column '" + r + "'; expected the floorsim output format");
  c.rows.assign(rows.begin() + 1, rows.end());
  for (size_t i = 0; i < c.rows.size(); ++i)
    if (c.rows[i].size() < c.header.size())
      throw InputError(p.string(), std::to_string(i + 2), fmt::format("has {} fields; expected {}", c.rows[i].size(), c.header.size()));
  return c;
}

double to_d(const std::string& s, const fs::path& file, size_t line) {
  if (s.empty()) return std::nan("");
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError(file.string(), std::to_string(line), "'" + s + "' is not a number");
}


// ------------------------------------------------------------------ run report

struct JobRow {
  std::string id, cls;
  double gpus, submit, start, end, wait;
  int preemptions, requeues;
  std::string state;
};

// The run's classes in metrics.json order, each with its chart colour.
struct ClassColours {
  std::vector<std::string> classes;
  std::map<std::string, std::string> colour;
  std::vector<std::pair<std::string, std::string>> legend;
};

ClassColours class_colours(const json& m) {
  ClassColours cc;
  for (auto it = m["classes"].begin(); it != m["classes"].end(); ++it) cc.classes.push_back(it.key());
  for (size_t i = 0; i < cc.classes.size(); ++i) cc.colour[cc.classes[i]] = kPalette[i % 10];
  for (const auto& c : cc.classes) cc.legend.emplace_back(c, cc.colour[c]);
  return cc;
}

// The run's summary: the question (the scenario's description), the verdict when it was
// rehearsed, and the key figures in human units.
std::string run_summary_html(const json& m, const json& resolved, const json& verdict, const std::string& name, const fs::path& dir) {
  std::string h = "<section id=\"summary\"><h2>Summary</h2>\n";
  const std::string desc = resolved.is_object() ? resolved.value("description", std::string()) : std::string();
  h += fmt::format("<p><b>Question:</b> {}</p>\n",
                   html_esc(desc.empty() ? "how does " + name + " run under " + m.value("scheduler", std::string("?")) + "?" : desc));
  if (verdict.is_object() && verdict.contains("criteria")) {
    size_t failed = 0, total = 0;
    std::string first;
    for (const auto& c : verdict["criteria"]) {
      if (!c.value("evaluated", true)) continue;
      ++total;
      if (!c.value("pass", true) && failed++ == 0) first = c.value("name", std::string()) + " (fix: " + c.value("layer", std::string()) + ")";
    }
    h += failed ? fmt::format("<p><b>Verdict:</b> <span class=\"fail\">FAIL</span>: {} of {} criteria failed; first {}.</p>\n", failed, total, html_esc(first))
                : fmt::format("<p><b>Verdict:</b> <span class=\"pass\">PASS</span>: all {} criteria held.</p>\n", total);
  } else {
    h += "<p><b>Verdict:</b> none (a plain run; <code>floorsim rehearse</code> judges one).</p>\n";
  }
  double lost = 0, misses = 0;
  for (auto it = m["classes"].begin(); it != m["classes"].end(); ++it)
    lost += it.value().value("lost_gpu_s", 0.0), misses += it.value().value("deadline_misses", 0.0);
  h += "<table><tr><th>figure</th><th>value</th></tr>\n";
  auto row = [&](const std::string& k, const std::string& v) { h += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", html_esc(k), v); };
  row("jobs", num(m.value("jobs", 0.0)));
  row("makespan (h:mm)", hmm(m.value("makespan_s", 0.0)));
  row("GPU utilization", fmt::format("{:.1f}%", 100 * m.value("utilization", 0.0)));
  row("p99 wait (h:mm)", m.contains("wait_s") ? hmm(m["wait_s"].value("p99", 0.0)) : "-");
  row("preemptions (cascading)", fmt::format("{} ({})", num(m.value("preemptions", 0.0)), num(m.value("cascade_preemptions", 0.0))));
  row("lost work (GPU-hours)", fmt::format("{:.1f}", lost / 3600));
  row("deadline misses", num(misses));
  h += "</table>\n";
  h += fmt::format("<p class=\"note\">{} under {}. Source: {}</p>\n", html_esc(name), html_esc(m.value("scheduler", std::string("?"))), html_esc(dir.string()));
  return h + "</section>\n";
}

std::string verdict_html(const json& verdict) {
  if (!verdict.is_object() || !verdict.contains("criteria")) return "";
  std::string h = "<h2>Verdict</h2>\n<table><tr><th>criterion</th><th>measured</th><th>target</th><th>result</th><th>layer</th></tr>\n";
  for (const auto& c : verdict["criteria"]) {
    const bool ev = c.value("evaluated", true), ok = c.value("pass", true);
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n", html_esc(c.value("name", "")),
                     html_esc(c.value("measured", "")), html_esc(c.value("target", "")), ok ? "pass" : "fail", !ev ? "n/a" : ok ? "PASS" : "FAIL",
                     html_esc(c.value("layer", "")));
  }
  h += "</table>\n";
  return h;
}

std::string classes_table_html(const json& m, const std::vector<std::string>& classes) {
  std::string h = "<h2>Classes</h2>\n<table><tr><th>class</th><th>jobs</th><th>floor GPUs</th><th>floor attainment</th><th>p50 wait (h:mm)</th>"
                  "<th>p99 wait (h:mm)</th><th>deadline margin (h:mm)</th><th>preemptions</th><th>requeues</th><th>lost GPU-hours</th></tr>\n";
  for (const auto& c : classes) {
    const json& k = m["classes"][c];
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     html_esc(c), num(k.value("jobs", 0.0)), num(k.value("floor_gpus", 0.0)), fmt::format("{:.1f}%", 100 * k.value("floor_attainment", 0.0)),
                     k.contains("wait_s") ? hmm(k["wait_s"].value("p50", 0.0)) : "-", k.contains("wait_s") ? hmm(k["wait_s"].value("p99", 0.0)) : "-",
                     k["deadline_margin_s"].is_number() ? hmm(k["deadline_margin_s"].get<double>())
                     : k.value("deadline_misses", 0.0) > 0 ? "<span class=\"fail\">missed</span>" : "-",
                     num(k.value("preemptions", 0.0)), num(k.value("requeues", 0.0)), fmt::format("{:.1f}", k.value("lost_gpu_s", 0.0) / 3600));
  }
  h += "</table>\n";
  return h;
}

// GPUs per class over time against the floor (timeline.csv).
std::string timeline_charts_html(const fs::path& dir, const ClassColours& cc) {
  std::string h = "<h2>GPUs per class over time against the floor</h2>\n";
  const fs::path tpath = dir / "timeline.csv";
  if (!fs::exists(tpath)) return h + "<p class=\"note\">No timeline.csv in this run (output.timeline was false).</p>\n";
  const Csv t = read_csv(tpath, {"time_s", "class", "gpus_allocated", "gpus_demanded", "floor_gpus"});
  const int ct = t.col("time_s"), ccl = t.col("class"), ca = t.col("gpus_allocated"), cd = t.col("gpus_demanded"), cf = t.col("floor_gpus");
  struct Series {
    std::vector<std::pair<double, double>> alloc, demand, floor;
  };
  std::map<std::string, Series> ser;
  double tmin = INFINITY, tmax = -INFINITY, ymax = 1;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const double ts = to_d(r[ct], tpath, i + 2) / 3600, a = to_d(r[ca], tpath, i + 2), d = to_d(r[cd], tpath, i + 2),
                 fl = to_d(r[cf], tpath, i + 2);
    auto& s = ser[r[ccl]];
    s.alloc.emplace_back(ts, a);
    s.demand.emplace_back(ts, d);
    s.floor.emplace_back(ts, fl);
    tmin = std::min(tmin, ts);
    tmax = std::max(tmax, ts);
    ymax = std::max({ymax, a, fl});
  }
  if (!std::isfinite(tmin)) tmin = 0, tmax = 1;
  if (tmax <= tmin) tmax = tmin + 1;
  h += legend({{"allocated", "#1f77b4"}, {"demanded (allocated + queued)", "#bbb"}, {"floor", "#000"}});
  for (const auto& c : cc.classes) {
    if (!ser.count(c)) continue;
    const Series& s = ser[c];
    double cy = 1;
    for (const auto& p : s.alloc) cy = std::max(cy, p.second);
    for (const auto& p : s.floor) cy = std::max(cy, p.second);
    // Demand can dwarf the allocation (a whole batch queued at once): show it up to 1.5x the
    // larger of allocation and floor, clipped above, so the allocation stays readable.
    const double cap = cy * 1.5;
    for (const auto& p : s.demand) cy = std::max(cy, std::min(p.second, cap));
    Frame f;
    f.h = 170;
    f.x0 = tmin, f.x1 = tmax, f.y0 = 0, f.y1 = cy * 1.08;
    h += svg_open("chart-gpus-" + slug(c), "GPUs allocated to " + c + " over time against its floor", f, "time (h)", "GPUs");
    auto clip = s.demand;
    for (auto& p : clip) p.second = std::min(p.second, f.y1);
    h += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#bbb\" stroke-width=\"1\"/>\n", step_path(f, clip, tmax));
    h += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", step_path(f, s.alloc, tmax), cc.colour.at(c));
    h += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>\n",
                     step_path(f, s.floor, tmax));
    h += "</svg>\n";
  }
  return h;
}

std::vector<JobRow> read_job_rows(const fs::path& jpath) {
  std::vector<JobRow> jobs;
  const Csv j = read_csv(jpath, {"job_id", "class", "gpus", "submit_s", "start_s", "end_s", "wait_s", "state", "requeues", "preemptions"});
  const int ci = j.col("job_id"), cc = j.col("class"), cg = j.col("gpus"), csu = j.col("submit_s"), cst = j.col("start_s"),
            ce = j.col("end_s"), cw = j.col("wait_s"), cs = j.col("state"), cr = j.col("requeues"), cp = j.col("preemptions");
  for (size_t i = 0; i < j.rows.size(); ++i) {
    const auto& r = j.rows[i];
    jobs.push_back({r[ci], r[cc], to_d(r[cg], jpath, i + 2), to_d(r[csu], jpath, i + 2), to_d(r[cst], jpath, i + 2),
                    to_d(r[ce], jpath, i + 2), to_d(r[cw], jpath, i + 2), static_cast<int>(to_d(r[cp], jpath, i + 2)),
                    static_cast<int>(to_d(r[cr], jpath, i + 2)), r[cs]});
  }
  return jobs;
}

std::string wait_cdf_html(const std::vector<JobRow>& jobs, const ClassColours& cc) {
  std::map<std::string, std::vector<double>> waits;
  double wmax = 1;
  for (const auto& jr : jobs)
    if (std::isfinite(jr.wait)) waits[jr.cls].push_back(jr.wait), wmax = std::max(wmax, jr.wait);
  Frame f;
  f.xlog1p = true;
  f.x0 = 0, f.x1 = std::pow(10, std::ceil(std::log10(wmax + 1))), f.y0 = 0, f.y1 = 1;
  std::string h = legend(cc.legend);
  h += svg_open("chart-wait-cdf", "Wait time CDF per class (jobs that started)", f, "wait (s, log scale)", "fraction of jobs");
  for (const auto& c : cc.classes) {
    auto it = waits.find(c);
    if (it == waits.end() || it->second.empty()) continue;
    auto w = it->second;
    std::sort(w.begin(), w.end());
    std::vector<std::pair<double, double>> pts{{0, 0}};
    for (size_t i = 0; i < w.size(); ++i)
      if (i + 1 == w.size() || w[i + 1] != w[i]) pts.emplace_back(w[i], static_cast<double>(i + 1) / w.size());
    h += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}: {} jobs</title></path>\n",
                     step_path(f, pts, f.x1), cc.colour.at(c), html_esc(c), w.size());
  }
  h += "</svg>\n";
  return h;
}

std::string deadline_margins_html(const json& m, const json& resolved, const ClassColours& cc) {
  std::vector<std::pair<std::string, double>> margins;
  for (const auto& c : cc.classes)
    if (m["classes"][c]["deadline_margin_s"].is_number()) margins.emplace_back(c, m["classes"][c]["deadline_margin_s"].get<double>() / 60);
  const double target = resolved.is_object() && resolved.contains("rehearse") ? resolved["rehearse"].value("min_margin_s", 0.0) / 60 : 0;
  Frame f;
  f.h = 60 + 28.0 * std::max<size_t>(1, margins.size());
  f.ml = 110;
  f.yticks = false;
  double lo = std::min(0.0, target), hi = std::max(1.0, target);
  for (const auto& [c, v] : margins) lo = std::min(lo, v), hi = std::max(hi, v);
  f.x0 = lo < 0 ? lo * 1.1 : 0, f.x1 = hi * 1.1, f.y0 = 0, f.y1 = 1;
  std::string h = svg_open("chart-deadline-margins", "Worst deadline margin per class (minutes; dashed: required margin)", f, "margin (min)", "");
  const double rowh = (f.h - f.mt - f.mb) / std::max<size_t>(1, margins.size());
  for (size_t i = 0; i < margins.size(); ++i) {
    const auto& [c, v] = margins[i];
    const double y = f.mt + rowh * i + rowh * 0.2, x0 = f.X(std::min(0.0, v)), x1 = f.X(std::max(0.0, v));
    h += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}: {} min</title></rect>\n", x0, y,
                     std::max(1.0, x1 - x0), rowh * 0.6, v < target ? "#d62728" : cc.colour.at(c), html_esc(c), num(v));
    h += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ty\">{}</text>\n", f.ml - 4, y + rowh * 0.4, html_esc(c));
  }
  if (margins.empty())
    h += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tx\">no class has deadline jobs</text>\n", f.w / 2, f.mt + 20);
  if (target > 0)
    h += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#d62728\" stroke-dasharray=\"5 3\"/>\n", f.X(target), f.mt,
                     f.h - f.mb);
  h += "</svg>\n";
  return h;
}

// The 40 largest jobs by GPU-hours, in start order.
std::string gantt_html(const std::vector<JobRow>& jobs, const ClassColours& cc) {
  std::vector<const JobRow*> big;
  for (const auto& jr : jobs)
    if (std::isfinite(jr.start) && std::isfinite(jr.end)) big.push_back(&jr);
  std::stable_sort(big.begin(), big.end(), [](const JobRow* a, const JobRow* b) {
    return a->gpus * (a->end - a->start) > b->gpus * (b->end - b->start);
  });
  if (big.size() > 40) big.resize(40);
  std::stable_sort(big.begin(), big.end(), [](const JobRow* a, const JobRow* b) { return a->start < b->start; });
  Frame f;
  f.ml = 190;
  f.yticks = false;
  f.h = 60 + 14.0 * std::max<size_t>(1, big.size());
  double t0 = INFINITY, t1 = -INFINITY;
  for (const auto* jr : big) t0 = std::min(t0, jr->submit / 3600), t1 = std::max(t1, jr->end / 3600);
  if (!(t1 > t0)) t0 = 0, t1 = 1;
  f.x0 = t0, f.x1 = t1, f.y0 = 0, f.y1 = 1;
  std::string h = legend(cc.legend);
  h += svg_open("chart-gantt", "Largest jobs by GPU-hours: queued (grey) and running (class colour); red outline = preempted", f, "time (h)", "");
  for (size_t i = 0; i < big.size(); ++i) {
    const JobRow& jr = *big[i];
    const double y = f.mt + 14.0 * i + 2;
    h += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#bbb\" stroke-width=\"2\"/>\n", f.X(jr.submit / 3600),
                     f.X(jr.start / 3600), y + 5, y + 5);
    h += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"10\" fill=\"{}\"{}><title>job {} ({}, {} GPUs): start {} s, end {} s, "
                     "{} preemptions, state {}</title></rect>\n",
                     f.X(jr.start / 3600), y, std::max(1.0, f.X(jr.end / 3600) - f.X(jr.start / 3600)),
                     cc.colour.count(jr.cls) ? cc.colour.at(jr.cls) : "#777", jr.preemptions > 0 ? " stroke=\"#d62728\" stroke-width=\"2\"" : "",
                     html_esc(jr.id), html_esc(jr.cls), num(jr.gpus), num(jr.start), num(jr.end), jr.preemptions, html_esc(jr.state));
    h += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ty\">{} {} x{}{}</text>\n", f.ml - 4, y + 9, html_esc(jr.cls), html_esc(jr.id), num(jr.gpus),
                     jr.preemptions > 0 ? fmt::format(" (preempted {})", jr.preemptions) : "");
  }
  h += "</svg>\n";
  return h;
}

std::string preemptions_html(const json& m, const std::vector<std::string>& classes) {
  Frame f;
  f.ml = 110;
  f.yticks = false;
  f.h = 60 + 34.0 * classes.size();
  double hi = 1;
  for (const auto& c : classes)
    hi = std::max({hi, m["classes"][c].value("preemptions", 0.0), m["classes"][c].value("requeues", 0.0),
                   m["classes"][c].value("lost_gpu_s", 0.0) / 3600});
  f.x0 = 0, f.x1 = hi * 1.1, f.y0 = 0, f.y1 = 1;
  std::string h = legend({{"preemptions", "#d62728"}, {"requeues", "#ff7f0e"}, {"lost GPU-hours", "#7f7f7f"}});
  h += svg_open("chart-preemptions", fmt::format("Preemptions, requeues and lost GPU-hours per class ({} in all, {} cascading)",
                                                 num(m.value("preemptions", 0.0)), num(m.value("cascade_preemptions", 0.0))),
                f, "count / GPU-hours", "");
  for (size_t i = 0; i < classes.size(); ++i) {
    const json& k = m["classes"][classes[i]];
    const double y = f.mt + 34.0 * i + 3;
    const double vals[] = {k.value("preemptions", 0.0), k.value("requeues", 0.0), k.value("lost_gpu_s", 0.0) / 3600};
    const char* cols[] = {"#d62728", "#ff7f0e", "#7f7f7f"};
    for (int b = 0; b < 3; ++b)
      h += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"8\" fill=\"{}\"><title>{}: {}</title></rect>\n", f.ml, y + 9 * b,
                       std::max(0.5, f.X(vals[b]) - f.ml), cols[b], html_esc(classes[i]), num(vals[b]));
    h += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ty\">{}</text>\n", f.ml - 4, y + 16, html_esc(classes[i]));
  }
  h += "</svg>\n";
  return h;
}

// GPU sharing (metrics.json "sharing"): the two-part worst case, then latencies per service.
std::string sharing_html(const json& m) {
  if (!m.contains("sharing")) return "";
  const json& s = m["sharing"];
  const json& w = s["worst_case"];
  auto sec = [](const json& v) { return v.is_number() ? fmt::format("{:.3f} s", v.get<double>()) : std::string("-"); };
  std::string h = "<h2>GPU sharing: requests beside the batch</h2>\n<p>Worst case: ";
  h += w["service"].is_null() ? std::string("no request in the batch's peak window") :
       fmt::format("{} p99 {} in the batch's peak window (target {})", html_esc(w["service"].get<std::string>()), sec(w["p99_at_batch_peak_s"]), sec(w["latency_target_s"]));
  h += w["batch_class"].is_null() ? std::string("; no deadline class.") :
       fmt::format("; {} deadline margin with requests at full rate: {}.", html_esc(w["batch_class"].get<std::string>()),
                   w["batch_margin_s"].is_number() ? hmm(w["batch_margin_s"].get<double>()) : std::string("unfinished"));
  h += "</p>\n<table><tr><th>service</th><th>pool</th><th>mode</th><th>requests</th><th>p50</th><th>p99</th><th>p99.9</th><th>p99 at batch peak</th><th>target</th><th>within target</th></tr>\n";
  for (const auto& [name, v] : s["services"].items()) {
    const json& l = v["latency_s"];
    const json& pool = s["pools"][v["pool"].get<std::string>()];
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}%</td></tr>\n",
                     html_esc(name), html_esc(v["pool"].get<std::string>()), html_esc(pool["mode"].get<std::string>()), num(l["requests"].get<double>()),
                     sec(l["p50"]), sec(l["p99"]), sec(l["p999"]), sec(v["windows_s"]["batch_peak"]["p99"]), sec(v["latency_target_s"]),
                     l["within_target"].get<double>() * 100);
  }
  h += "</table>\n<table><tr><th>pool</th><th>mode</th><th>GPUs</th><th>dedicated GPUs</th><th>batch stretch (mean)</th><th>batch GPU-h</th><th>request GPU-h</th></tr>\n";
  for (const auto& [name, p] : s["pools"].items())
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.1f}</td><td>{:.1f}</td></tr>\n", html_esc(name),
                     html_esc(p["mode"].get<std::string>()), num(p["gpus"].get<double>()), num(p["dedicated_gpus"].get<double>()),
                     p["batch_stretch_mean"].get<double>(), p["batch_gpu_s"].get<double>() / 3600, p["request_gpu_s"].get<double>() / 3600);
  return h + "</table>\n";
}

std::string run_report(const fs::path& dir) {
  const fs::path mpath = dir / "metrics.json";
  const json m = parse_json_text(io::read_file(mpath), mpath.string());
  if (!m.is_object() || !m.contains("classes")) throw InputError(mpath.string(), "/classes", "missing; expected a floorsim metrics.json");
  json resolved, verdict;
  if (fs::exists(dir / "scenario.resolved.json"))
    resolved = parse_json_text(io::read_file(dir / "scenario.resolved.json"), (dir / "scenario.resolved.json").string());
  if (fs::exists(dir / "verdict.json")) verdict = parse_json_text(io::read_file(dir / "verdict.json"), (dir / "verdict.json").string());
  const ClassColours cc = class_colours(m);

  const std::string name = m.value("scenario", std::string("run"));
  std::string h = page_open("floorsim report: " + name);
  h += run_summary_html(m, resolved, verdict, name, dir);
  h += verdict_html(verdict);
  h += classes_table_html(m, cc.classes);
  h += sharing_html(m);
  h += timeline_charts_html(dir, cc);

  const fs::path jpath = dir / "jobs.csv";
  const bool have_jobs_csv = fs::exists(jpath);
  const std::vector<JobRow> jobs = have_jobs_csv ? read_job_rows(jpath) : std::vector<JobRow>{};
  h += "<h2>Wait time CDF per class</h2>\n";
  h += have_jobs_csv ? wait_cdf_html(jobs, cc) : "<p class=\"note\">No jobs.csv in this run (output.jobs_csv was false).</p>\n";
  h += "<h2>Deadline margins</h2>\n";
  h += deadline_margins_html(m, resolved, cc);
  h += "<h2>Largest jobs (Gantt)</h2>\n";
  h += jobs.empty() ? "<p class=\"note\">No jobs.csv (or no jobs) in this run.</p>\n" : gantt_html(jobs, cc);
  h += "<h2>Preemptions</h2>\n";
  h += preemptions_html(m, cc.classes);
  h += footer_html(resolved.is_object() ? resolved.value("description", std::string()) : std::string(),
                   {dir / "scenario.resolved.json", mpath, dir / "jobs.csv", dir / "timeline.csv", dir / "verdict.json"});
  h += "</body></html>\n";
  return h;
}

// ------------------------------------------------------------------ sweep report

// Whether class `c` has deadline jobs at some point: a margin there, or a miss.
bool has_deadlines(const std::vector<json>& lines, const std::string& c) {
  for (const auto& l : lines) {
    const json k = l.contains("metrics") ? l["metrics"].value("classes", json::object()).value(c, json::object()) : json::object();
    if (k.value("deadline_margin_s", json()).is_number() || k.value("deadline_misses", 0.0) > 0) return true;
  }
  return false;
}

// Default metrics: the headline figures, each class's deadline margin (also when a point has
// none: its batch never finished) and each traffic case's slowest flow.
std::vector<std::string> default_sweep_metrics(const std::vector<json>& lines) {
  std::vector<std::string> metrics;
  for (const auto& l : lines) {
    if (!l.contains("metrics")) continue;
    const json& m = l["metrics"];
    for (const char* k : {"/utilization", "/wait_s/p99", "/makespan_s", "/preemptions"})
      if (m.contains(json::json_pointer(k))) metrics.push_back(k);
    if (m.contains("classes"))
      for (auto it = m["classes"].begin(); it != m["classes"].end(); ++it)
        if (it.value().contains("deadline_margin_s") && has_deadlines(lines, it.key())) metrics.push_back("/classes/" + it.key() + "/deadline_margin_s");
    if (m.contains("traffic"))
      for (auto it = m["traffic"].begin(); it != m["traffic"].end(); ++it)
        for (auto c = it.value().begin(); c != it.value().end(); ++c) metrics.push_back("/traffic/" + it.key() + "/" + c.key() + "/slowest_s");
    break;
  }
  return metrics;
}

struct SweepPoint {
  double x;
  std::optional<double> y;  // none: the point has no value for the metric (a run that missed)
  int verdict;              // -1 none, 0 fail, 1 pass
  size_t index;
};

std::string hmm_hours(double h) { return hmm(h * 3600); }
std::string percent_text(double v) { return fmt::format("{:g}%", v); }

// One metric against one axis: every point drawn; those with no value as red crosses in a band
// under the plot, counted in the caption.
std::string sweep_chart_html(const std::string& id, const std::string& metric, const std::string& aname, bool numeric,
                             const std::vector<std::string>& cats, const std::vector<SweepPoint>& pts) {
  const MetricWords mw = describe_metric(metric);
  Frame f;
  f.w = 420, f.h = 250;
  f.mb = 56;
  if (mw.unit == Unit::Time) f.ytext = hmm_hours, f.yhours = true;
  if (mw.unit == Unit::Percent) f.ytext = percent_text;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  size_t missing = 0, failed = 0;
  for (const auto& p : pts) {
    x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
    if (p.verdict == 0) ++failed;
    if (!p.y) {
      ++missing;
      continue;
    }
    const double y = to_display(mw.unit, *p.y);
    y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  if (pts.empty()) x0 = 0, x1 = 1;
  if (y0 > y1) y0 = 0, y1 = 1;
  const double px = (x1 - x0) * 0.05 + (x1 == x0 ? 0.5 : 0), py = (y1 - y0) * 0.08 + (y1 == y0 ? std::max(1.0, std::fabs(y0) * 0.1) : 0);
  f.x0 = x0 - px, f.x1 = x1 + px, f.y0 = y0 - py, f.y1 = y1 + py;
  if (f.yhours) {  // whole minutes, at least two of them, so the axis has two distinct h:mm ticks
    f.y0 = std::floor(f.y0 * 60) / 60, f.y1 = std::ceil(f.y1 * 60) / 60;
    if (f.y1 - f.y0 < 2.0 / 60) f.y1 = f.y0 + 2.0 / 60;
  }
  const std::string title = mw.words + unit_suffix(mw.unit) + " by " + aname;
  std::string h = "<div class=\"small\">";
  h += svg_open(id, title, f, aname + (numeric ? "" : " (categories)"), mw.words + unit_suffix(mw.unit));
  if (!numeric)  // category names under their positions
    for (size_t c = 0; c < cats.size(); ++c)
      h += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tx\">{}</text>\n", f.X(static_cast<double>(c)), f.h - f.mb + 26, html_esc(cats[c]));
  const double band_y = f.h - f.mb + 38;  // the "no value" band, under the x labels
  if (missing) h += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ty missing-label\">no value</text>\n", f.ml - 4, band_y + 4);
  for (const auto& p : pts) {
    const std::string xt = numeric ? num(p.x) : html_esc(cats[static_cast<size_t>(p.x)]);
    const char* colour = p.verdict < 0 ? "#1f77b4" : p.verdict ? "#2ca02c" : "#d62728";
    if (p.y) {
      const double y = to_display(mw.unit, *p.y);
      h += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.75\" class=\"{}\"><title>point {}: {} = {}, {} = {}{}</title></circle>\n",
                       f.X(p.x), f.Y(y), colour, p.verdict == 0 ? "pt failed" : "pt", p.index, html_esc(aname), xt, html_esc(mw.words),
                       format_display(mw.unit, y), p.verdict == 0 ? " (verdict failed)" : "");
    } else {
      const double cx = f.X(p.x);
      h += fmt::format("<path d=\"M{:.1f},{:.1f}l8,8m0,-8l-8,8\" stroke=\"#d62728\" stroke-width=\"2\" class=\"pt missing\"><title>point {}: {} = {}, no {} (never reached)</title></path>\n",
                       cx - 4, band_y - 4, p.index, html_esc(aname), xt, html_esc(mw.words));
    }
  }
  if (pts.empty()) h += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tx\">no points</text>\n", f.w / 2, f.h / 2);
  h += "</svg>\n";
  std::string cap = fmt::format("{} points", pts.size());
  if (failed) cap += fmt::format("; verdict failed at {} (red)", failed);
  if (missing) cap += fmt::format("; {} with no {} (&times; under the axis)", missing, html_esc(mw.words));
  h += fmt::format("<p class=\"note cap\" id=\"{}-caption\">{}</p></div>\n", html_esc(id), cap);
  return h;
}

// The sweep's summary: the question, the verdict over its points, each metric's range, the
// axes that change nothing.
std::string sweep_summary_html(const json& sj, const std::vector<json>& lines, const std::vector<std::string>& metrics,
                               const std::vector<std::string>& noop, bool verdicts) {
  std::string axes_words;
  for (const auto& a : sj["axes"]) axes_words += (axes_words.empty() ? "" : ", ") + a.value("name", std::string("axis"));
  std::string h = "<section id=\"summary\"><h2>Summary</h2>\n";
  const std::string question = sj.value("description", std::string());
  h += fmt::format("<p><b>Question:</b> {}</p>\n",
                   html_esc(question.empty() ? "how do the results change with " + axes_words + "?" : question));
  size_t fails = 0, errors = 0;
  for (const auto& l : lines) {
    if (l.contains("verdict") && !l["verdict"].value("pass", true)) ++fails;
    if (l.contains("error")) ++errors;
  }
  if (verdicts)
    h += fmt::format("<p><b>Verdict:</b> <span class=\"{}\">held at {} of {} points, failed at {}</span>{}.</p>\n", fails ? "fail" : "pass",
                     lines.size() - fails, lines.size(), fails, errors ? fmt::format("; {} points did not run", errors) : "");
  else
    h += fmt::format("<p><b>Points:</b> {} ran{}.</p>\n", lines.size() - errors, errors ? fmt::format(", {} failed to run", errors) : "");
  h += "<table><tr><th>figure</th><th>lowest</th><th>median</th><th>highest</th><th>points with no value</th></tr>\n";
  for (const auto& metric : metrics) {
    const MetricWords mw = describe_metric(metric);
    std::vector<double> v;
    size_t none = 0;
    const json::json_pointer jp(compare::to_pointer(metric));
    for (const auto& l : lines) {
      if (l.contains("metrics") && l["metrics"].contains(jp) && l["metrics"].at(jp).is_number())
        v.push_back(to_display(mw.unit, l["metrics"].at(jp).get<double>()));
      else
        ++none;
    }
    std::sort(v.begin(), v.end());
    auto cell = [&](size_t i) { return v.empty() ? std::string("-") : format_display(mw.unit, v[i]); };
    h += fmt::format("<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n", html_esc(mw.words), unit_suffix(mw.unit),
                     cell(0), cell(v.size() / 2), cell(v.empty() ? 0 : v.size() - 1), none ? "fail" : "", none);
  }
  h += "</table>\n";
  for (const auto& a : noop)
    h += fmt::format("<p class=\"noop\" id=\"noop-{}\"><b>No effect:</b> axis {} changes none of these figures nor the verdict: "
                     "every point that differs only in it has identical results.</p>\n",
                     html_esc(slug(a)), html_esc(a));
  return h + "</section>\n";
}

std::string sweep_report(const fs::path& dir, const Options& o) {
  const fs::path spath = dir / "sweep.json";
  const json sj = parse_json_text(io::read_file(spath), spath.string());
  if (!sj.is_object() || !sj.contains("axes")) throw InputError(spath.string(), "/axes", "missing; expected a floorsim sweep.json");
  const fs::path rpath = dir / "results.jsonl";
  bool torn = false;
  const auto lines = sweep::read_results(rpath.string(), &torn);
  if (lines.empty()) throw InputError(rpath.string(), "", "holds no result lines; expected a run sweep");
  const std::vector<std::string> metrics = o.metrics.empty() ? default_sweep_metrics(lines) : o.metrics;
  for (const auto& metric : metrics) {
    try {
      (void)json::json_pointer(compare::to_pointer(metric));
    } catch (const json::exception&) {
      throw InputError("--metric", compare::to_pointer(metric), "is not a JSON pointer or dotted path");
    }
  }
  const bool verdicts = sj.value("rehearse", false);
  std::vector<std::string> pointers;
  for (const auto& m : metrics) pointers.push_back(compare::to_pointer(m));
  const std::vector<std::string> noop = noop_axes(sj["axes"], lines, pointers);
  std::string h = page_open("floorsim sweep report: " + sj.value("name", std::string("sweep")));
  h += sweep_summary_html(sj, lines, metrics, noop, verdicts);
  h += fmt::format("<p class=\"note\">{} of {} points in {} ({} sweep{}).{}</p>\n", lines.size(), num(sj.value("points", 0.0)),
                   html_esc(dir.string()), html_esc(sj.value("kind", std::string("scenario"))), torn ? "; the last line was torn" : "",
                   verdicts ? " Points whose verdict failed are red; those that held, green." : "");
  size_t ai = 0;
  for (const auto& axis : sj["axes"]) {
    const std::string aname = axis.value("name", std::string("axis"));
    const bool is_noop = std::find(noop.begin(), noop.end(), aname) != noop.end();
    h += fmt::format("<h2>By {}{}</h2>\n", html_esc(aname), is_noop ? " <span class=\"fail\">(no effect: identical figures and verdict for every value)</span>" : "");
    // Categorical positions for non-numeric axis values.
    std::vector<std::string> cats;
    bool numeric = true;
    for (const auto& l : lines)
      if (!l["axes"].contains(aname) || !l["axes"][aname].is_number()) numeric = false;
    if (!numeric) {
      std::set<std::string> seen;
      for (const auto& l : lines) {
        const std::string v = l["axes"].value(aname, json()).dump();
        if (seen.insert(v).second) cats.push_back(v);
      }
    }
    for (const auto& metric : metrics) {
      const json::json_pointer jp(compare::to_pointer(metric));
      std::vector<SweepPoint> pts;
      for (const auto& l : lines) {
        const double x = numeric ? l["axes"][aname].get<double>()
                                 : static_cast<double>(std::find(cats.begin(), cats.end(), l["axes"].value(aname, json()).dump()) - cats.begin());
        const int v = l.contains("verdict") ? (l["verdict"].value("pass", true) ? 1 : 0) : l.contains("error") ? 0 : -1;
        std::optional<double> y;
        if (l.contains("metrics") && l["metrics"].contains(jp) && l["metrics"].at(jp).is_number()) y = l["metrics"].at(jp).get<double>();
        pts.push_back({x, y, v, l["index"].get<size_t>()});
      }
      h += sweep_chart_html(fmt::format("chart-sweep-{}-{}", ai, slug(metric)), metric, aname, numeric, cats, pts);
    }
    ++ai;
  }
  h += footer_html(sj.value("description", std::string()), {spath, rpath});
  h += "</body></html>\n";
  return h;
}

}  // namespace

std::string render(const std::string& dir_text, const Options& o) {
  const fs::path dir(dir_text);
  if (!fs::is_directory(dir)) throw InputError(dir_text, "", "is not a directory; expected a run, sweep or review output directory");
  if (fs::exists(dir / "sweep.json")) return sweep_report(dir, o);
  if (fs::exists(dir / "metrics.json")) return run_report(dir);
  if (fs::exists(dir / "review.json")) return review_report(dir);
  throw InputError(dir_text, "", "holds neither metrics.json, sweep.json nor review.json; expected a run, sweep or review output directory");
}

}  // namespace floorsim::app::report
