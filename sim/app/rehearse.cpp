#include "sim/app/rehearse.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/core/config_spec.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {
using cfg::fail;

// The built-in quant night. Times are seconds since midnight of the evening the night starts
// (18:00 = 64800, 06:00 next morning = 108000).
//   Cluster: 32 nodes x 8 GPUs = 256 GPUs, 8 nodes per leaf switch.
//   Policy: EASY backfill wrapped in the held-back idle pool (2 nodes for intraday, 60 s tick,
//     10 min PreemptExemptTime); floors var 96, eod 48, intraday 16, training 64 GPUs
//     (deadline floors 144 <= 256).
//   eod: 16 core + 32 grid shards of 8 GPUs x 20 min (+-20%), submitted 18:00, deadline 22:00.
//   var: 32 core shards then 160 grid shards, 35 min each (8 GPUs, +-20%), submitted 19:00
//     (grid 10 min later), deadline 06:00; reduced-set fallback at 04:30 (grid shards not started
//     by then are dropped, so the core results are there by the deadline).
//   intraday: 1-GPU requests of 90 s (+-50%), Poisson 1 per 30 s from 18:00 to 06:00, with
//     pile-ups x4 at 19:00-19:30 and x3 at 00:00-00:30, a quiet x0.25 window 02:00-05:00.
//   training: 4 gang jobs of 4 nodes x 8 GPUs, 8 h, hourly checkpoints, preemptible,
//     submitted 18:30-19:00.
//   backtest: 48 one-off jobs of 8 GPUs x 1 h (+-30%), preemptible QOS "spot", 20:00-21:00.
//   One node (gpu001) fails at midnight (midway between 18:00 and 06:00) for 2 hours.
//   Targets: margin >= 30 min for var and eod, intraday p99 wait <= 120 s, no cascading
//   preemption.
json default_night() {
  static const char* kText = R"JSON({
  "name": "quant-night",
  "description": "built-in quant night: VaR/stress and EOD batches, intraday stream, training, backtest burst, one node failure",
  "seed": 7,
  "cluster": {"nodes": 32, "gpus_per_node": 8, "node_prefix": "gpu", "nodes_per_leaf": 8},
  "scheduler": {"type": "easy_backfill"},
  "idle_pool": {"mode": "hold", "nodes": 2, "interval_s": 60, "for_class": "intraday", "preempt_exempt_s": 600},
  "classes": {
    "var": {"floor_gpus": 96, "description": "VaR / stress batch"},
    "eod": {"floor_gpus": 48, "description": "EOD pricing"},
    "intraday": {"floor_gpus": 16, "description": "intraday re-pricing (interactive)"},
    "training": {"floor_gpus": 64, "description": "model training"},
    "backtest": {"floor_gpus": 0, "description": "one-off backtests (spot)"}
  },
  "workload": {
    "synthetic": {
      "load_multiplier": 1.0,
      "classes": [
        {"name": "eod", "kind": "deadline_batch", "start_s": 64800, "deadline_s": 79200, "core_jobs": 16, "jobs": 32,
         "gpus": 8, "nodes": 1, "runtime_s": 1200, "runtime_jitter": 0.2, "priority": 10},
        {"name": "var", "kind": "deadline_batch", "start_s": 68400, "grid_after_s": 600, "deadline_s": 108000,
         "core_jobs": 32, "jobs": 160, "gpus": 8, "nodes": 1, "runtime_s": 2100, "runtime_jitter": 0.2, "priority": 10,
         "fallback_at_s": 102600},
        {"name": "intraday", "kind": "stream", "start_s": 64800, "end_s": 108000, "rate_per_s": 0.0333333,
         "gpus": 1, "runtime_s": 90, "runtime_jitter": 0.5, "priority": 100,
         "profile": [{"from_s": 68400, "to_s": 70200, "multiplier": 4},
                     {"from_s": 86400, "to_s": 88200, "multiplier": 3},
                     {"from_s": 93600, "to_s": 104400, "multiplier": 0.25}]},
        {"name": "training", "kind": "gang", "start_s": 66600, "spread_s": 1800, "jobs": 4, "gpus": 32, "nodes": 4,
         "runtime_s": 28800, "checkpoint_interval_s": 3600, "preemptible": true, "time_limit_factor": 2},
        {"name": "backtest", "kind": "burst", "start_s": 72000, "spread_s": 3600, "jobs": 48, "gpus": 8, "nodes": 1,
         "runtime_s": 3600, "runtime_jitter": 0.3, "preemptible": true, "qos": "spot"}
      ]
    }
  },
  "rehearse": {"min_margin_s": 1800, "interactive_class": "intraday", "p99_wait_target_s": 120,
               "burst_class": "backtest", "max_cascade_preemptions": 0,
               "inject_failure": true, "failure_node": "gpu001", "failure_duration_s": 7200}
})JSON";
  return json::parse(kText);
}

namespace {

std::string minutes(double s) { return std::isfinite(s) ? fmt::format("{:.0f} min", s / 60.0) : "unfinished"; }

bool has_synthetic(const json& doc) {
  return doc.is_object() && doc.contains("workload") && doc["workload"].is_object() &&
         doc["workload"].contains("synthetic") && doc["workload"]["synthetic"].is_object();
}

struct ClassWork {
  double work_gpu_s = 0;
  SimTime first_submit_s = kNever, last_deadline_s = 0;
  size_t deadline_jobs = 0;
};

}  // namespace

Scenario load_rehearsal(const json& doc_in, const std::string& file, const std::string& base_dir, double growth,
                        Warnings* warnings) {
  json doc = doc_in;
  if (growth != 1.0) {
    if (!has_synthetic(doc)) fail(file, "/workload/synthetic", "load growth needs a synthetic workload; expected a \"synthetic\" block");
    json& syn = doc["workload"]["synthetic"];
    const double base = syn.contains("load_multiplier") && syn["load_multiplier"].is_number() ? syn["load_multiplier"].get<double>() : 1.0;
    syn["load_multiplier"] = base * growth;
  }
  Scenario sc = load_scenario(doc, file, base_dir, warnings);
  const json& rh = sc.resolved["rehearse"];
  const bool no_failures = !sc.resolved.contains("failures") || sc.resolved["failures"].empty();
  if (rh["inject_failure"].get<bool>() && no_failures && sc.base_nodes > 0) {
    SimTime at = 0;
    if (!rh["failure_at_s"].is_null()) {
      at = rh["failure_at_s"];
    } else {
      SimTime first = kNever, last_deadline = -1, last_submit = 0;
      for (const auto& j : sc.workload.jobs) {
        first = std::min(first, j.submit_s);
        last_submit = std::max(last_submit, j.submit_s);
        if (j.deadline_s != kNever) last_deadline = std::max(last_deadline, j.deadline_s);
      }
      if (first == kNever) first = 0;
      at = std::floor((first + (last_deadline >= 0 ? last_deadline : last_submit)) / 2);
    }
    const std::string name = rh["failure_node"].get<std::string>().empty() ? sc.cluster.node_names.front()
                                                                          : rh["failure_node"].get<std::string>();
    auto it = std::find(sc.cluster.node_names.begin(), sc.cluster.node_names.end(), name);
    if (it == sc.cluster.node_names.end())
      fail(file, "/rehearse/failure_node", fmt::format("unknown node \"{}\"; expected a node name such as \"{}\"", name, sc.cluster.node_names.front()));
    const auto n = static_cast<NodeIdx>(it - sc.cluster.node_names.begin());
    const double dur = rh["failure_duration_s"];
    sc.node_events.push_back({at, n, false});
    sc.node_events.push_back({at + dur, n, true});
    sc.resolved["failures"] = json::array({{{"node", name}, {"at_s", at}, {"duration_s", dur}}});
  }
  // Targets must name classes the scenario knows.
  const json dl = rh.contains("deadline_classes") ? rh["deadline_classes"] : json::array();
  for (size_t i = 0; i < dl.size(); ++i) {
    const StrId k = sc.workload.strings.find(dl[i].get<std::string>());
    if (k == StringTable::kMissing || std::find(sc.classes.begin(), sc.classes.end(), k) == sc.classes.end())
      fail(file, cfg::child("/rehearse/deadline_classes", i), fmt::format("unknown class \"{}\"; expected a class of the scenario", dl[i].get<std::string>()));
  }
  return sc;
}

namespace {

// Work of each class's deadline jobs (a class with none has deadline_jobs 0).
using WorkByClass = std::map<StrId, ClassWork>;

WorkByClass class_work(const Scenario& sc) {
  WorkByClass work;
  for (const auto& j : sc.workload.jobs) {
    ClassWork& w = work[j.klass];
    if (j.deadline_s == kNever) continue;
    ++w.deadline_jobs;
    w.work_gpu_s += j.runtime_s * j.gpus;
    w.first_submit_s = std::min(w.first_submit_s, j.submit_s);
    w.last_deadline_s = std::max(w.last_deadline_s, j.deadline_s);
  }
  return work;
}

ClassWork work_of(const WorkByClass& work, StrId k) {
  const auto it = work.find(k);
  return it == work.end() ? ClassWork{} : it->second;
}

// rehearse.deadline_classes when given, else every class with deadline jobs.
std::vector<StrId> deadline_classes(const Scenario& sc, const WorkByClass& work) {
  const json& rh = sc.resolved["rehearse"];
  std::vector<StrId> deadline;
  if (rh.contains("deadline_classes") && !rh["deadline_classes"].empty()) {
    for (const auto& n : rh["deadline_classes"]) deadline.push_back(sc.workload.strings.find(n.get<std::string>()));
  } else {
    for (StrId k : sc.classes)
      if (work_of(work, k).deadline_jobs > 0) deadline.push_back(k);
  }
  return deadline;
}

auto floor_of(const Scenario& sc, StrId k) { return k < sc.floors.size() ? sc.floors[k] : 0; }

// 1. Physical feasibility: floors, and the work inside every window [S, D] spanned by the
// deadline classes' submissions and deadlines, against the capacity in that window
// (base nodes plus capacity blocks overlapping it). Fails only when no configuration can fix it.
Criterion feasibility_criterion(const Scenario& sc, const WorkByClass& work, const std::vector<StrId>& deadline, int64_t base_gpus) {
  Criterion c;
  c.name = "deadline floors and work fit the cluster";
  int64_t floors = 0;
  for (StrId k : deadline) floors += floor_of(sc, k);
  c.value = static_cast<double>(floors);
  c.measured = fmt::format("floors {} of {} GPUs", floors, base_gpus);
  c.target = fmt::format("<= {} GPUs", base_gpus);
  std::string reason;
  if (floors > base_gpus) {
    c.pass = false;
    reason = fmt::format("the deadline classes' floors total {} GPUs but the cluster has {}: no configuration can fix it; "
                         "add capacity (a capacity block) or shrink the deadline work", floors, base_gpus);
  }
  const json& blocks = sc.resolved.contains("capacity_blocks") ? sc.resolved["capacity_blocks"] : json::array();
  for (StrId a : deadline)
    for (StrId b : deadline) {
      const SimTime s0 = work_of(work, a).first_submit_s, d1 = work_of(work, b).last_deadline_s;
      if (!(d1 > s0)) continue;
      double need = 0;
      for (StrId k : deadline) {
        const ClassWork w = work_of(work, k);
        if (w.first_submit_s >= s0 && w.last_deadline_s <= d1) need += w.work_gpu_s;
      }
      double have = static_cast<double>(base_gpus) * (d1 - s0);
      for (size_t bi = 0; bi < blocks.size(); ++bi) {
        const json& bl = blocks[bi];
        const json& had = sc.workload_report.value("capacity_blocks", json::array());
        if (bi < had.size() && !had[bi]["had"].get<bool>()) continue;  // not had on this night
        const double lo = std::max(s0, bl["from_s"].get<double>()), hi = std::min(d1, bl["to_s"].get<double>());
        if (hi > lo) have += (hi - lo) * bl["nodes"].get<double>() * bl["gpus_per_node"].get<double>();
      }
      if (need > have && c.pass) {
        c.pass = false;
        reason = fmt::format("the deadline work between {:.0f} s and {:.0f} s needs {:.0f} GPU-h but the cluster holds {:.0f} GPU-h "
                             "in that window: no configuration can fix it; add capacity or shrink the work",
                             s0, d1, need / 3600, have / 3600);
        c.measured = fmt::format("work {:.0f} of {:.0f} GPU-h", need / 3600, have / 3600);
      }
    }
  if (!c.pass) {
    c.layer = "floor";
    c.note = reason;
  }
  return c;
}

// 2. A deadline class finishes with margin; when not, which layer failed it.
Criterion margin_criterion(const Scenario& sc, const json& m, StrId k, const ClassWork& w, bool infeasible) {
  const json& rh = sc.resolved["rehearse"];
  const double min_margin = rh["min_margin_s"];
  const std::string name = sc.workload.strings.str(k);
  Criterion c;
  c.name = name + " finishes with margin";
  c.target = ">= " + minutes(min_margin);
  if (!m["classes"].contains(name)) {
    c.evaluated = false;
    c.measured = "no jobs";
    return c;
  }
  const json& cm = m["classes"][name];
  const double margin = cm["deadline_margin_s"].is_null() ? -std::numeric_limits<double>::infinity() : cm["deadline_margin_s"].get<double>();
  const auto misses = cm["deadline_misses"].get<uint64_t>();
  c.value = std::isfinite(margin) ? margin / 60.0 : -1e300;
  c.measured = misses ? fmt::format("{} missed ({})", misses, std::isfinite(margin) ? minutes(margin) : std::string("some unfinished"))
                      : minutes(margin);
  c.pass = misses == 0 && margin >= min_margin;
  if (!c.pass) {
    const double window = w.last_deadline_s - w.first_submit_s;
    const double need = window > 0 ? w.work_gpu_s / window : std::numeric_limits<double>::infinity();
    const double attain = cm["floor_attainment"];
    if (infeasible) {
      c.layer = "floor";
      c.note = "no configuration can fix it (see the first criterion)";
    } else if (floor_of(sc, k) < need) {
      c.layer = "floor";
      c.note = fmt::format("floor {} GPUs < {:.0f} GPUs its work needs on average over its window", floor_of(sc, k), std::ceil(need));
    } else if (attain < 0.99) {
      c.layer = "isolation";
      c.note = fmt::format("its floor was delivered only {:.0f}% of the time it had demand: other classes held its GPUs", attain * 100);
    } else {
      c.layer = "slack";
      c.note = "the floor was delivered; finishing with margin needs more capacity above it";
    }
  }
  return c;
}

// 3. Interactive p99 wait.
Criterion interactive_criterion(const Scenario& sc, const json& m) {
  const json& rh = sc.resolved["rehearse"];
  const std::string name = rh["interactive_class"];
  const double target = rh["p99_wait_target_s"];
  Criterion c;
  c.name = name + " p99 wait holds";
  c.target = fmt::format("<= {:.0f} s", target);
  if (!m["classes"].contains(name)) {
    c.evaluated = false;
    c.measured = "no jobs";
    return c;
  }
  const json& cm = m["classes"][name];
  const double p99 = cm["wait_s"]["p99"];
  // Over the jobs that started (a rehearsal has no horizon, so every job that fits starts).
  c.value = p99;
  c.measured = fmt::format("{:.1f} s", p99);
  c.pass = p99 <= target;
  if (!c.pass) {
    const StrId k = sc.workload.strings.find(name);
    const json& ip = sc.resolved["idle_pool"];
    const bool pool = !ip.is_null() && ip["for_class"] == name && (ip["mode"] == "on_demand" || ip["nodes"].get<int64_t>() > 0);
    const double attain = cm["floor_attainment"];
    if ((k == StringTable::kMissing || floor_of(sc, k) == 0) && !pool) {
      c.layer = "isolation";
      c.note = "nothing holds capacity for it: give it a floor or an idle pool";
    } else if (attain < 0.99) {
      c.layer = "isolation";
      c.note = fmt::format("its floor was delivered only {:.1f}% of the time: batch classes held its GPUs", attain * 100);
    } else {
      c.layer = "floor";
      c.note = "its floor / idle pool is too small for its peak";
    }
  }
  return c;
}

// 4. The burst queue gives way without cascading preemption.
Criterion burst_criterion(const json& rh, const json& m) {
  const std::string name = rh["burst_class"];
  const auto max_casc = rh["max_cascade_preemptions"].get<uint64_t>();
  const auto casc = m["cascade_preemptions"].get<uint64_t>();
  Criterion c;
  c.name = name + " gives way without cascades";
  c.value = static_cast<double>(casc);
  const uint64_t burst_pre = m["classes"].contains(name) ? m["classes"][name]["preemptions"].get<uint64_t>() : 0;
  c.measured = fmt::format("{} cascades ({} preemptions of {})", casc, burst_pre, name);
  c.target = fmt::format("<= {} cascades", max_casc);
  c.pass = casc <= max_casc;
  if (!c.pass) {
    c.layer = "isolation";
    c.note = "preempted jobs preempt others: restrict who may preempt whom (preemption hierarchy, exempt time)";
  }
  return c;
}

// 5. Governance (issue 9): the approval log of the night's policy changes shows no change that
// took effect without the sign-off it needed (a loophole such as user_resv_delete). Rejected
// changes never took effect, so they do not fail the night; they are reported.
Criterion governance_criterion(const json& m) {
  Criterion c;
  c.name = "change log: no unapproved edits";
  c.target = "0 unapproved";
  if (!m.contains("governance")) {
    c.measured = "no change log";
    c.evaluated = false;
    c.note = "no policy changes in this scenario; not evaluated";
    return c;
  }
  const json& g = m["governance"];
  const auto unapproved = g["applied_unapproved"].get<uint64_t>();
  c.value = static_cast<double>(unapproved);
  c.measured = fmt::format("{} unapproved ({} applied, {} rejected)", unapproved, g["applied"].get<uint64_t>(),
                           g["rejected"].get<uint64_t>());
  c.pass = unapproved == 0;
  if (!c.pass) {
    c.layer = "governance";
    c.note = "a change took effect without sign-off from the teams it affects: close the loophole (user_resv_delete, USER_DELETE)";
  }
  return c;
}

// 6. GPU sharing (the scenario's "sharing" block): the two-part worst case. (a) the request
// service's p99 latency while the batch is at its peak on the pool; (b) the batch's deadline
// margin with the requests at full rate (the run carries the sharing mode's stretch).
void sharing_criteria(const json& rh, const json& m, std::vector<Criterion>& out) {
  if (!m.contains("sharing")) return;
  const json& w = m["sharing"]["worst_case"];
  Criterion lat;
  lat.name = "requests p99 at batch peak";
  if (w["p99_at_batch_peak_s"].is_null()) {
    lat.evaluated = false;
    lat.measured = "no request in the batch's peak window";
    lat.target = "-";
  } else {
    const double p99 = w["p99_at_batch_peak_s"], target = w["latency_target_s"];
    lat.name = w["service"].get<std::string>() + " p99 at batch peak";
    lat.value = p99;
    lat.measured = fmt::format("{:.3f} s", p99);
    lat.target = fmt::format("<= {:.3f} s", target);
    lat.pass = p99 <= target;
    if (!lat.pass) {
      lat.layer = "isolation";
      lat.note = "requests wait behind or beside batch kernels at the batch's peak: dedicated GPUs, a MIG instance or priority-aware sharing";
    }
  }
  out.push_back(lat);
  Criterion mar;
  mar.name = "batch margin with requests at full rate";
  const double min_margin = rh["min_margin_s"];
  mar.target = fmt::format(">= {:.0f} min", min_margin / 60);
  if (w["batch_class"].is_null()) {
    mar.evaluated = false;
    mar.measured = "no deadline class";
  } else {
    const double margin = w["batch_margin_s"].is_null() ? -std::numeric_limits<double>::infinity() : w["batch_margin_s"].get<double>();
    mar.name = w["batch_class"].get<std::string>() + " margin with requests at full rate";
    mar.value = margin / 60;
    mar.measured = std::isfinite(margin) ? fmt::format("{:.1f} min", margin / 60) : std::string("unfinished");
    mar.pass = margin >= min_margin;
    if (!mar.pass) {
      mar.layer = "isolation";
      mar.note = "sharing slows the batch on the pool (MPS interference, time slices, MIG's smaller share): fewer shared GPUs or dedicated ones";
    }
  }
  out.push_back(mar);
}

}  // namespace

Verdict judge(const Scenario& sc, const json& m) {
  Verdict v;
  const WorkByClass work = class_work(sc);
  const std::vector<StrId> deadline = deadline_classes(sc, work);
  int64_t base_gpus = 0;
  for (size_t n = 0; n < sc.base_nodes; ++n) base_gpus += sc.cluster.node_gpus[n];

  const Criterion feasible = feasibility_criterion(sc, work, deadline, base_gpus);
  v.infeasible = !feasible.pass;
  v.infeasible_reason = feasible.note;
  v.criteria.push_back(feasible);
  for (StrId k : deadline) v.criteria.push_back(margin_criterion(sc, m, k, work_of(work, k), v.infeasible));
  v.criteria.push_back(interactive_criterion(sc, m));
  v.criteria.push_back(burst_criterion(sc.resolved["rehearse"], m));
  v.criteria.push_back(governance_criterion(m));
  sharing_criteria(sc.resolved["rehearse"], m, v.criteria);
  return v;
}

namespace {

// The first failing criterion's name and layer ("" when all hold).
std::pair<std::string, std::string> first_failure(const Verdict& v) {
  for (const auto& c : v.criteria)
    if (!c.pass) return {c.name, c.layer};
  return {"", ""};
}

Growth search_growth_runs(const json& doc, const std::string& file, const std::string& base_dir, Progress* progress,
                          Warnings& warnings) {
  Growth g;
  RunOptions ro;
  ro.render_csv = false;
  ro.warnings = &warnings;
  auto holds = [&](double f) {
    Scenario sc = load_rehearsal(doc, file, base_dir, f, &warnings);
    sc.engine.keep_timeline = false;
    g.base_multiplier = sc.resolved["workload"]["synthetic"]["load_multiplier"].get<double>() / f;
    g.tolerance = sc.resolved["rehearse"]["growth_tolerance"];
    if (progress) progress->set_label(fmt::format("growth: run {} at load x{:.3g}", g.runs + 1, f));
    ro.progress = progress;
    const RunResult r = run_scenario(sc, ro);
    ++g.runs;
    const Verdict v = judge(sc, r.metrics);
    if (!v.pass() && f < g.first_fail) {
      g.first_fail = f;
      std::tie(g.first_fail_criterion, g.first_fail_layer) = first_failure(v);
    }
    return v.pass();
  };
  const Scenario probe = load_scenario(doc, file, base_dir, &warnings);
  const double max_growth = probe.resolved["rehearse"]["growth_max"];
  if (!holds(1.0)) return g;  // no headroom
  double lo = 1.0, hi = 2.0;
  while (hi < max_growth && holds(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= max_growth) {
    hi = max_growth;
    if (holds(hi)) {
      g.max_ok = hi;
      return g;
    }
  }
  while (hi - lo > g.tolerance) {
    const double mid = (lo + hi) / 2;
    if (holds(mid)) lo = mid;
    else hi = mid;
  }
  g.max_ok = lo;
  return g;
}

}  // namespace

Growth search_growth(const json& doc, const std::string& file, const std::string& base_dir, Progress* progress,
                     Warnings* warnings) {
  if (!has_synthetic(doc)) fail(file, "/workload/synthetic", "--growth needs a synthetic workload to scale; expected a \"synthetic\" block");
  WarningScope scope(warnings);
  Growth g = search_growth_runs(doc, file, base_dir, progress, scope.sink());
  scope.done();
  return g;
}

std::string verdict_table(const Verdict& v) {
  std::string out = fmt::format("{:<40} {:<44} {:<16} {:<6} {}\n", "criterion", "measured", "target", "result", "layer to fix");
  for (const auto& c : v.criteria) {
    const std::string res = !c.evaluated ? "n/a" : c.pass ? "PASS" : "FAIL";
    out += fmt::format("{:<40} {:<44} {:<16} {:<6} {}\n", c.name, c.measured, c.target, res,
                       c.pass ? std::string("-") : c.layer + ": " + c.note);
  }
  size_t failed = 0;
  for (const auto& c : v.criteria) failed += !c.pass;
  out += v.pass() ? fmt::format("verdict: PASS ({} criteria hold)\n", v.criteria.size())
                  : fmt::format("verdict: FAIL ({} of {} criteria fail)\n", failed, v.criteria.size());
  if (v.infeasible) out += "infeasible: " + v.infeasible_reason + "\n";
  return out;
}

json to_json(const Verdict& v) {
  json j;
  j["pass"] = v.pass();
  j["infeasible"] = v.infeasible;
  j["infeasible_reason"] = v.infeasible_reason;
  json cs = json::array();
  for (const auto& c : v.criteria)
    cs.push_back({{"name", c.name}, {"measured", c.measured}, {"target", c.target}, {"value", c.value}, {"pass", c.pass},
                  {"evaluated", c.evaluated}, {"layer", c.layer}, {"note", c.note}});
  j["criteria"] = cs;
  return j;
}

json to_json(const Growth& g) {
  return {{"base_load_multiplier", g.base_multiplier},
          {"max_growth", g.max_ok},
          {"first_failing_growth", std::isfinite(g.first_fail) ? json(g.first_fail) : json(nullptr)},
          {"first_failing_criterion", g.first_fail_criterion},
          {"first_failing_layer", g.first_fail_layer},
          {"tolerance", g.tolerance},
          {"runs", g.runs}};
}

void write_rehearsal_outputs(const Scenario& sc, const RunResult& r, const json& verdict, const io::OutTarget& out) {
  io::OutputDir dir(out);
  dir.write("metrics.json", dump(r.metrics));
  dir.write("scenario.resolved.json", dump(sc.resolved));
  if (sc.resolved["output"]["jobs_csv"].get<bool>()) dir.write("jobs.csv", r.jobs_csv);
  if (sc.resolved["output"]["timeline"].get<bool>()) dir.write("timeline.csv", r.timeline_csv);
  dir.write("verdict.json", dump(verdict));
  write_approval_log(sc, r, dir);
  dir.commit();
}

}  // namespace floorsim::app
