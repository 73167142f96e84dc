#include "sim/app/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <omp.h>

#include <fmt/format.h>

#include "fabric/signoff.hpp"
#include "kernels/contention.hpp"
#include "kernels/job_runtime.hpp"
#include "sim/app/rehearse.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::app::sweep {

namespace fs = std::filesystem;
using cfg::fail;

namespace {

constexpr const char* kFormat = "floorsim-sweep/1";
const std::set<std::string> kSweepKeys = {"name", "kind", "base", "patch", "rehearse", "mode", "samples", "seed", "axes",
                                          "runtime_jobs", "runtime_traffic"};
const std::set<std::string> kAxisKeys = {"name", "pointer", "values", "from", "to", "steps", "min", "max", "integer"};

// Platform-independent uniform draw in [0, 1) (mt19937_64's output is fixed by the standard).
double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

json number_value(double v, bool integer) {
  if (integer) return json(static_cast<int64_t>(std::llround(v)));
  return json(v);
}

double get_number(const json& j, const std::string& file, const std::string& ptr) {
  if (!j.is_number()) fail(file, ptr, "expected a number, got " + j.dump());
  return j.get<double>();
}

// Latin hypercube: each axis's [min, max] cut into `n` equal strata; every stratum is used once
// per axis, in a seeded random order, at a seeded random offset inside the stratum.
std::vector<std::vector<json>> latin_hypercube(const std::vector<Axis>& axes, size_t n, uint64_t seed) {
  std::vector<std::vector<json>> pts(n, std::vector<json>(axes.size()));
  for (size_t a = 0; a < axes.size(); ++a) {
    std::mt19937_64 g(seed * 1000003ull + a);
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[g() % i]);  // Fisher-Yates
    for (size_t i = 0; i < n; ++i) {
      const double u = (static_cast<double>(perm[i]) + uniform01(g)) / static_cast<double>(n);
      pts[i][a] = number_value(axes[a].min + (axes[a].max - axes[a].min) * u, axes[a].integer);
    }
  }
  return pts;
}

// The axis at fault for a parser error at `where`: the one whose pointer is, or contains, or
// lies under `where` (longest match); -1 when none (the base itself).
int axis_at_fault(const SweepSpec& s, const std::string& where) {
  int best = -1;
  size_t best_len = 0;
  for (size_t a = 0; a < s.axes.size(); ++a) {
    const std::string& p = s.axes[a].pointer;
    const bool under = where.rfind(p, 0) == 0 && (where.size() == p.size() || where[p.size()] == '/');
    const bool above = p.rfind(where, 0) == 0 && (where.size() == p.size() || p[where.size()] == '/');
    if ((under || above) && std::min(p.size(), where.size()) + 1 > best_len) {
      best = static_cast<int>(a);
      best_len = std::min(p.size(), where.size()) + 1;
    }
  }
  return best;
}

std::string describe_point(const SweepSpec& s, size_t index) {
  std::string d;
  for (size_t a = 0; a < s.axes.size(); ++a)
    d += fmt::format("{}{} = {}", a ? ", " : "", s.axes[a].pointer, s.points[index][a].dump());
  return d;
}

Scenario load_point(const SweepSpec& s, size_t index, Warnings* warnings) {
  const json doc = point_document(s, index);
  return s.rehearse ? load_rehearsal(doc, s.base_file, s.base_dir, 1.0, warnings) : load_scenario(doc, s.base_file, s.base_dir, warnings);
}

// Pricing/VaR jobs whose runtimes a fabric sweep evaluates (kernels/job_runtime.hpp). They sit
// in the point's document under "runtime_jobs" (from the sweep file), so axes can address
// their fields too ("/runtime_jobs/0/paths"): runtime-only axes.
struct RuntimeJobs {
  kernels::JobBatch batch;
  std::vector<std::string> names;
};

RuntimeJobs parse_runtime_jobs(const json& arr, const std::string& file) {
  RuntimeJobs r;
  if (!arr.is_array()) fail(file, "/runtime_jobs", "expected an array of jobs");
  static const std::set<std::string> keys = {"name", "paths", "risk_scenarios", "instruments", "gpus",
                                             "device_revaluations_per_s", "comm_bytes_per_gpu", "serial_fraction"};
  for (size_t j = 0; j < arr.size(); ++j) {
    const std::string jp = cfg::child("/runtime_jobs", j);
    const json& o = arr[j];
    if (!o.is_object()) fail(file, jp, "expected an object");
    for (auto it = o.begin(); it != o.end(); ++it)
      if (!keys.count(it.key()))
        fail(file, cfg::child(jp, it.key()),
             "unknown key; expected name, paths, risk_scenarios, instruments, gpus, device_revaluations_per_s, comm_bytes_per_gpu, serial_fraction");
    auto number = [&](const char* k, double def, bool required, double lo, double hi) {
      if (!o.contains(k)) {
        if (required) fail(file, cfg::child(jp, k), "missing; expected a number");
        return def;
      }
      if (!o[k].is_number()) fail(file, cfg::child(jp, k), "expected a number");
      const double v = o[k].get<double>();
      if (!(v >= lo && v <= hi)) fail(file, cfg::child(jp, k), fmt::format("is {}; expected a value in [{}, {}]", v, lo, hi));
      return v;
    };
    if (!o.contains("name") || !o["name"].is_string()) fail(file, cfg::child(jp, "name"), "missing; expected a string");
    r.names.push_back(o["name"].get<std::string>());
    r.batch.paths.push_back(number("paths", 0, true, 0, 1e300));
    r.batch.risk_scenarios.push_back(number("risk_scenarios", 0, true, 0, 1e300));
    r.batch.instruments.push_back(number("instruments", 0, true, 0, 1e300));
    if (!o.contains("gpus") || !o["gpus"].is_number_unsigned() || o["gpus"].get<uint64_t>() < 1 || o["gpus"].get<uint64_t>() > 1u << 30)
      fail(file, cfg::child(jp, "gpus"), "expected an integer >= 1");
    r.batch.gpus.push_back(o["gpus"].get<uint32_t>());
    r.batch.device_revaluations_per_s.push_back(number("device_revaluations_per_s", 0, true, 1e-300, 1e300));
    r.batch.comm_bytes_per_gpu.push_back(number("comm_bytes_per_gpu", 0, false, 0, 1e300));
    r.batch.serial_fraction.push_back(number("serial_fraction", 0, false, 0, 1));
  }
  return r;
}

struct FabricPoint {
  fabric::FabricScenario scenario;
  RuntimeJobs jobs;
  std::string runtime_traffic;  // the profile whose bottleneck feeds the jobs' communication
};

FabricPoint load_fabric_point(const SweepSpec& s, size_t index) {
  json doc = point_document(s, index);
  FabricPoint p;
  json jobs = json::array();
  if (doc.contains("runtime_jobs")) {
    jobs = doc["runtime_jobs"];
    doc.erase("runtime_jobs");
  }
  p.scenario = fabric::parse_fabric_scenario(doc, s.base_file);
  p.jobs = parse_runtime_jobs(jobs, s.file);
  if (!p.jobs.names.empty()) {
    p.runtime_traffic = s.resolved.value("runtime_traffic", std::string());
    if (p.runtime_traffic.empty() && !p.scenario.traffic.empty()) p.runtime_traffic = p.scenario.traffic.front().name;
    bool found = false;
    for (const auto& t : p.scenario.traffic) found = found || t.name == p.runtime_traffic;
    if (!found) fail(s.file, "/runtime_traffic", "'" + p.runtime_traffic + "' is not a traffic profile of the fabric; expected one of its names");
  }
  return p;
}

// Validates point `index` through the normal parser; rethrows its error naming the sweep file
// and the axis pointer (so the user knows which axis value the scenario rejected).
void validate_point(SweepSpec& s, size_t index) {
  try {
    if (s.kind == "fabric")
      (void)load_fabric_point(s, index);
    else
      (void)load_point(s, index, &s.warnings);
  } catch (const InputError& e) {
    const int a = axis_at_fault(s, e.where());
    fail(s.file, a < 0 ? std::string("/base") : cfg::child(cfg::child("/axes", static_cast<size_t>(a)), "pointer"),
         fmt::format("point {} ({}) is rejected: {}", index, describe_point(s, index), e.what()));
  }
}

// The metrics kept in a result line: the run's metrics.json without its bulky model reports
// (the full files are what `floorsim run` is for).
json line_metrics(json m) {
  for (const char* k : {"workload", "validation"}) m.erase(k);
  return m;
}

json line_verdict(const Verdict& v) {
  json crit = json::object();
  for (const auto& c : v.criteria) {
    json e = {{"pass", c.pass}, {"evaluated", c.evaluated}, {"value", std::isfinite(c.value) ? json(c.value) : json(nullptr)}};
    if (!c.pass) e["layer"] = c.layer;
    crit[c.name] = e;
  }
  return {{"pass", v.pass()}, {"infeasible", v.infeasible}, {"criteria", crit}};
}

json sweep_json(const SweepSpec& s, const Shard& shard) {
  json j = {{"format", kFormat}, {"name", s.name}, {"kind", s.kind}, {"rehearse", s.rehearse}, {"points", s.points.size()},
            {"sweep", s.resolved}};
  json axes = json::array();
  for (const auto& a : s.axes) axes.push_back({{"name", a.name}, {"pointer", a.pointer}});
  j["axes"] = axes;
  if (shard.count > 1) j["shard"] = {{"index", shard.index}, {"count", shard.count}};
  return j;
}

std::string dump_line(const json& line) { return line.dump() + "\n"; }

void sort_dedup(std::vector<json>& lines) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const json& a, const json& b) { return a["index"].get<size_t>() < b["index"].get<size_t>(); });
  lines.erase(std::unique(lines.begin(), lines.end(),
                          [](const json& a, const json& b) { return a["index"] == b["index"]; }),
              lines.end());
}

std::string join_lines(const std::vector<json>& lines) {
  std::string out;
  for (const auto& l : lines) out += dump_line(l);
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard sh;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used = 0;
    const long long i = std::stoll(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("");
    const std::string n_text = text.substr(slash + 1);
    const long long n = std::stoll(n_text, &used);
    if (used != n_text.size()) throw std::invalid_argument("");
    if (n < 1 || i < 0 || i >= n) throw std::out_of_range("");
    sh.index = static_cast<size_t>(i);
    sh.count = static_cast<size_t>(n);
  } catch (const std::logic_error&) {
    throw std::invalid_argument("--shard is '" + text +
                                "'; expected i/N with 0 <= i < N (Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-(N-1))");
  }
  return sh;
}

SweepSpec load_sweep_file(const std::string& path) {
  const json doc = parse_json_text(io::read_file(path), path);
  std::string dir = fs::path(path).parent_path().string();
  return load_sweep(doc, path, dir.empty() ? "." : dir);
}

SweepSpec load_sweep(const json& doc, const std::string& file, const std::string& dir) {
  SweepSpec s;
  s.file = file;
  if (!doc.is_object()) fail(file, "", "expected a JSON object (the sweep)");
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!kSweepKeys.count(it.key()))
      fail(file, cfg::child("", it.key()), "unknown key; expected one of name, kind, base, patch, rehearse, mode, samples, seed, axes");
  auto str = [&](const char* key, const std::string& def) {
    if (!doc.contains(key)) return def;
    if (!doc[key].is_string()) fail(file, cfg::child("", key), "expected a string");
    return doc[key].get<std::string>();
  };
  s.name = str("name", fs::path(file).stem().string());
  s.kind = str("kind", "scenario");
  if (s.kind != "scenario" && s.kind != "fabric") fail(file, "/kind", "is '" + s.kind + "'; expected scenario or fabric");
  if (!doc.contains("base")) fail(file, "/base", "missing; expected a scenario file relative to the sweep file, or \"rehearse\"");
  const std::string base = str("base", "");
  s.mode = str("mode", "grid");
  if (s.mode != "grid" && s.mode != "list" && s.mode != "lhs") fail(file, "/mode", "is '" + s.mode + "'; expected grid, list or lhs");
  if (doc.contains("rehearse") && !doc["rehearse"].is_boolean()) fail(file, "/rehearse", "expected true or false");
  s.rehearse = doc.value("rehearse", base == "rehearse" && s.kind == "scenario");
  if (s.rehearse && s.kind == "fabric") fail(file, "/rehearse", "a fabric sweep has no rehearsal verdict; expected false");
  if (doc.contains("seed") && !doc["seed"].is_number_unsigned()) fail(file, "/seed", "expected a non-negative integer");
  s.seed = doc.value("seed", uint64_t{1});

  // The base document.
  if (base == "rehearse") {
    if (s.kind == "fabric") fail(file, "/base", "the built-in night is a scenario; a fabric sweep needs a fabric file");
    s.base_doc = default_night();
    s.base_file = "<built-in quant night>";
    s.base_dir = dir;
  } else {
    const fs::path p = fs::path(dir) / base;
    try {
      s.base_doc = parse_json_text(io::read_file(p), p.string());
    } catch (const InputError& e) {
      fail(file, "/base", e.what());
    }
    s.base_file = p.string();
    const std::string bd = p.parent_path().string();
    s.base_dir = bd.empty() ? "." : bd;
  }
  if (doc.contains("patch")) {
    if (!doc["patch"].is_object()) fail(file, "/patch", "expected an object (a JSON merge patch applied to the base)");
    s.base_doc.merge_patch(doc["patch"]);
  }
  if ((doc.contains("runtime_jobs") || doc.contains("runtime_traffic")) && s.kind != "fabric")
    fail(file, doc.contains("runtime_jobs") ? "/runtime_jobs" : "/runtime_traffic", "only a fabric sweep evaluates job runtimes; expected \"kind\": \"fabric\"");
  if (doc.contains("runtime_traffic") && !doc["runtime_traffic"].is_string()) fail(file, "/runtime_traffic", "expected a traffic profile name");
  if (doc.contains("runtime_jobs")) s.base_doc["runtime_jobs"] = doc["runtime_jobs"];  // axes may address them

  // Axes.
  if (!doc.contains("axes") || !doc["axes"].is_array() || doc["axes"].empty())
    fail(file, "/axes", "expected a non-empty array of axes ({\"pointer\": ..., \"values\": [...]})");
  std::set<std::string> names;
  for (size_t a = 0; a < doc["axes"].size(); ++a) {
    const json& j = doc["axes"][a];
    const std::string ap = cfg::child("/axes", a);
    if (!j.is_object()) fail(file, ap, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!kAxisKeys.count(it.key()))
        fail(file, cfg::child(ap, it.key()), "unknown key; expected name, pointer, values, from/to/steps, min/max, integer");
    Axis ax;
    if (!j.contains("pointer") || !j["pointer"].is_string())
      fail(file, cfg::child(ap, "pointer"), "missing; expected a JSON pointer into the base, e.g. \"/classes/var/floor_gpus\"");
    ax.pointer = j["pointer"].get<std::string>();
    try {
      json::json_pointer jp(ax.pointer);
      if (jp.empty()) throw std::invalid_argument("the empty pointer addresses the whole document");
    } catch (const std::exception& e) {
      fail(file, cfg::child(ap, "pointer"), std::string("is not a JSON pointer to a field: ") + e.what());
    }
    if (j.contains("name") && !j["name"].is_string()) fail(file, cfg::child(ap, "name"), "expected a string");
    ax.name = j.value("name", ax.pointer);
    if (!names.insert(ax.name).second) fail(file, cfg::child(ap, "name"), "'" + ax.name + "' names two axes; expected unique names");
    if (j.contains("integer") && !j["integer"].is_boolean()) fail(file, cfg::child(ap, "integer"), "expected true or false");
    ax.integer = j.value("integer", false);
    if (s.mode == "lhs") {
      if (!j.contains("min") || !j.contains("max"))
        fail(file, ap, "a Latin hypercube axis needs min and max");
      ax.min = get_number(j["min"], file, cfg::child(ap, "min"));
      ax.max = get_number(j["max"], file, cfg::child(ap, "max"));
      if (!(ax.max >= ax.min)) fail(file, cfg::child(ap, "max"), "is below min; expected max >= min");
    } else if (j.contains("values")) {
      if (!j["values"].is_array() || j["values"].empty()) fail(file, cfg::child(ap, "values"), "expected a non-empty array");
      ax.values = j["values"].get<std::vector<json>>();
    } else if (j.contains("from") && j.contains("to") && j.contains("steps")) {
      const double from = get_number(j["from"], file, cfg::child(ap, "from"));
      const double to = get_number(j["to"], file, cfg::child(ap, "to"));
      if (!j["steps"].is_number_unsigned() || j["steps"].get<size_t>() < 1)
        fail(file, cfg::child(ap, "steps"), "expected an integer >= 1");
      const size_t n = j["steps"].get<size_t>();
      for (size_t i = 0; i < n; ++i)
        ax.values.push_back(number_value(n == 1 ? from : from + (to - from) * static_cast<double>(i) / static_cast<double>(n - 1), ax.integer));
    } else {
      fail(file, ap, "expected \"values\": [...] or \"from\", \"to\", \"steps\"");
    }
    s.axes.push_back(std::move(ax));
  }

  // Points.
  if (s.mode == "grid") {
    size_t total = 1;
    for (const auto& ax : s.axes) {
      total *= ax.values.size();
      if (total > 10'000'000) fail(file, "/axes", "the grid has more than 10 million points");
    }
    s.points.assign(total, std::vector<json>(s.axes.size()));
    for (size_t i = 0; i < total; ++i) {
      size_t r = i;
      for (size_t a = s.axes.size(); a-- > 0;) {  // last axis fastest
        s.points[i][a] = s.axes[a].values[r % s.axes[a].values.size()];
        r /= s.axes[a].values.size();
      }
    }
  } else if (s.mode == "list") {
    const size_t n = s.axes[0].values.size();
    for (size_t a = 1; a < s.axes.size(); ++a)
      if (s.axes[a].values.size() != n)
        fail(file, cfg::child(cfg::child("/axes", a), "values"),
             fmt::format("has {} values, axis 0 has {}; expected the same number (list mode zips the axes)", s.axes[a].values.size(), n));
    s.points.assign(n, std::vector<json>(s.axes.size()));
    for (size_t i = 0; i < n; ++i)
      for (size_t a = 0; a < s.axes.size(); ++a) s.points[i][a] = s.axes[a].values[i];
  } else {
    if (!doc.contains("samples") || !doc["samples"].is_number_unsigned() || doc["samples"].get<size_t>() < 1)
      fail(file, "/samples", "expected an integer >= 1 (Latin hypercube points)");
    s.samples = doc["samples"].get<size_t>();
    if (s.samples > 10'000'000) fail(file, "/samples", "more than 10 million points; expected at most 10000000 (as for a grid)");
    s.points = latin_hypercube(s.axes, s.samples, s.seed);
  }

  s.resolved = doc;
  s.resolved["name"] = s.name;
  s.resolved["kind"] = s.kind;
  s.resolved["mode"] = s.mode;
  s.resolved["rehearse"] = s.rehearse;
  s.resolved["seed"] = s.seed;
  for (size_t a = 0; a < s.axes.size(); ++a) {
    s.resolved["axes"][a]["name"] = s.axes[a].name;
    s.resolved["axes"][a]["integer"] = s.axes[a].integer;
  }

  // The base alone, then every point, through the normal parser: nothing runs if one is bad.
  try {
    if (s.kind == "fabric") {
      json fdoc = s.base_doc;
      fdoc.erase("runtime_jobs");
      (void)fabric::parse_fabric_scenario(fdoc, s.base_file);
    }
    else
      (void)(s.rehearse ? load_rehearsal(s.base_doc, s.base_file, s.base_dir, 1.0, &s.warnings)
                        : load_scenario(s.base_doc, s.base_file, s.base_dir, &s.warnings));
  } catch (const InputError& e) {
    fail(file, "/base", std::string("the base is rejected: ") + e.what());
  }
  for (size_t i = 0; i < s.points.size(); ++i) validate_point(s, i);
  return s;
}

json point_document(const SweepSpec& s, size_t index) {
  json doc = s.base_doc;
  for (size_t a = 0; a < s.axes.size(); ++a) {
    try {
      doc[json::json_pointer(s.axes[a].pointer)] = s.points[index][a];
    } catch (const json::exception& e) {
      fail(s.file, cfg::child(cfg::child("/axes", a), "pointer"),
           fmt::format("cannot set {} in the base ({}); expected a pointer to an object member or an existing array element",
                       s.axes[a].pointer, e.what()));
    }
  }
  return doc;
}

json point_axes(const SweepSpec& s, size_t index) {
  json j = json::object();
  for (size_t a = 0; a < s.axes.size(); ++a) j[s.axes[a].name] = s.points[index][a];
  return j;
}

json evaluate_point(const SweepSpec& s, size_t index, Warnings* warnings) {
  json line = {{"index", index}, {"axes", point_axes(s, index)}};
  const Scenario sc = load_point(s, index, warnings);
  app::RunOptions ro;
  ro.render_csv = false;
  ro.warnings = warnings;
  const RunResult r = run_scenario(sc, ro);
  line["metrics"] = line_metrics(r.metrics);
  if (s.rehearse) line["verdict"] = line_verdict(judge(sc, r.metrics));
  return line;
}

// ---------------------------------------------------------------- fabric kind

namespace {

json case_metrics(const fabric::DurationStats& d, uint64_t demands, uint64_t flows, uint32_t disconnected) {
  const auto num = io::json_finite;
  return {{"slowest_s", num(d.slowest_s)}, {"mean_s", num(d.mean_s)}, {"p99_s", num(d.p99_s)},
          {"demands", demands},           {"flows", flows},          {"disconnected", disconnected}};
}

template <class F>
void for_each_case(const fabric::FabricScenario& fsn, F&& f) {
  const fabric::FailureSet healthy;
  for (const auto& tr : fsn.traffic) {
    f(tr, std::string("healthy"), healthy);
    for (const auto& d : fsn.degraded) f(tr, d.name, d.failures);
  }
}

std::vector<json> fabric_lines(const SweepSpec& s, const std::vector<size_t>& indices, bool batch) {
  std::vector<FabricPoint> pts;
  for (size_t i : indices) pts.push_back(load_fabric_point(s, i));
  std::vector<json> metrics(indices.size(), json::object());
  const auto num = io::json_finite;
  if (!batch) {
    // Per-scenario path: fabric/'s own solver and the scalar runtime formula, one problem at a time.
    fabric::MaxMinSolver solver;
    std::vector<double> rates;
    for (size_t k = 0; k < indices.size(); ++k) {
      const auto& fsn = pts[k].scenario;
      for_each_case(fsn, [&](const fabric::NamedTraffic& tr, const std::string& cname, const fabric::FailureSet& f) {
        const auto demands = fabric::profile_demands(fsn.topology, tr);
        const auto r = fabric::run_traffic(fsn.topology, f, fsn.routing, demands);
        metrics[k]["traffic"][tr.name][cname] = case_metrics(r.completion, r.demands, r.flows, r.disconnected);
        if (tr.name != pts[k].runtime_traffic) return;
        const auto routed = fabric::route_all(fsn.topology, f, fsn.routing, demands);
        solver.solve(routed.set, rates);
        double bottleneck = kernels::kInf;
        for (size_t fl = 0; fl < routed.set.flows(); ++fl) bottleneck = std::min(bottleneck, rates[fl]);
        metrics[k]["runtime"]["bottleneck_bytes_per_s"][cname] = num(bottleneck);
        for (size_t j = 0; j < pts[k].jobs.names.size(); ++j)
          metrics[k]["runtime"]["jobs"][pts[k].jobs.names[j]][cname] = num(kernels::job_runtime_reference(pts[k].jobs.batch, j, bottleneck));
      });
    }
  } else {
    // Batch path: every problem of every variant into one ContentionBatch, one kernel call.
    kernels::ContentionBatch cb;
    struct Ref {
      size_t k;
      std::string traffic, cname;
      std::vector<fabric::Demand> demands;
      std::vector<uint32_t> flow_demand;
      std::vector<uint8_t> demand_routed;
      uint32_t disconnected;
    };
    std::vector<Ref> refs;
    for (size_t k = 0; k < indices.size(); ++k) {
      const auto& fsn = pts[k].scenario;
      for_each_case(fsn, [&](const fabric::NamedTraffic& tr, const std::string& cname, const fabric::FailureSet& f) {
        Ref r{k, tr.name, cname, fabric::profile_demands(fsn.topology, tr), {}, {}, 0};
        auto routed = fabric::route_all(fsn.topology, f, fsn.routing, r.demands);
        cb.add(routed.set);
        r.flow_demand = std::move(routed.flow_demand);
        r.demand_routed = std::move(routed.demand_routed);
        r.disconnected = routed.disconnected;
        refs.push_back(std::move(r));
      });
    }
    const kernels::ContentionResults res = kernels::omp::batch_contention(cb);
    for (size_t b = 0; b < refs.size(); ++b) {
      const Ref& r = refs[b];
      const uint32_t f0 = cb.flow_offsets[b], f1 = cb.flow_offsets[b + 1];
      std::vector<double> finish(r.demands.size(), -1);
      for (uint32_t fl = f0; fl < f1; ++fl) {
        const uint32_t d = r.flow_demand[fl - f0];
        finish[d] = std::max(finish[d], res.flow_completion_s[fl]);
      }
      std::vector<double> durations;
      for (size_t d = 0; d < r.demands.size(); ++d)
        if (r.demand_routed[d]) durations.push_back(finish[d] - r.demands[d].start_s);
      metrics[r.k]["traffic"][r.traffic][r.cname] =
          case_metrics(fabric::duration_stats(durations), r.demands.size(), f1 - f0, r.disconnected);
    }
    // Job runtimes: the distinct jobs of all points x the bottlenecks of every (point, case) of
    // the runtime traffic, in ONE batch_job_runtime call; each point reads its own entries.
    // Distinct rows stay few when axes vary job fields, as each axis takes few values.
    kernels::JobBatch uniq;
    std::map<std::vector<double>, size_t> row_of;
    std::vector<std::vector<size_t>> job_row(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      const auto& jb = pts[k].jobs.batch;
      for (size_t j = 0; j < jb.jobs(); ++j) {
        const std::vector<double> key = {jb.paths[j], jb.risk_scenarios[j], jb.instruments[j], double(jb.gpus[j]),
                                         jb.device_revaluations_per_s[j], jb.comm_bytes_per_gpu[j], jb.serial_fraction[j]};
        auto [it, fresh] = row_of.emplace(key, uniq.jobs());
        if (fresh) {
          uniq.paths.push_back(key[0]);
          uniq.risk_scenarios.push_back(key[1]);
          uniq.instruments.push_back(key[2]);
          uniq.gpus.push_back(jb.gpus[j]);
          uniq.device_revaluations_per_s.push_back(key[4]);
          uniq.comm_bytes_per_gpu.push_back(key[5]);
          uniq.serial_fraction.push_back(key[6]);
        }
        job_row[k].push_back(it->second);
      }
    }
    std::vector<size_t> rt_refs;
    std::vector<double> bottlenecks;
    for (size_t b = 0; b < refs.size(); ++b)
      if (!pts[refs[b].k].jobs.names.empty() && refs[b].traffic == pts[refs[b].k].runtime_traffic) {
        rt_refs.push_back(b);
        bottlenecks.push_back(res.min_rate_bytes_per_s[b]);
      }
    if (!rt_refs.empty()) {
      uniq.validate();
      const kernels::RuntimeResults rr = kernels::omp::batch_job_runtime(uniq, bottlenecks);
      for (size_t q = 0; q < rt_refs.size(); ++q) {
        const Ref& r = refs[rt_refs[q]];
        metrics[r.k]["runtime"]["bottleneck_bytes_per_s"][r.cname] = num(bottlenecks[q]);
        for (size_t j = 0; j < job_row[r.k].size(); ++j)
          metrics[r.k]["runtime"]["jobs"][pts[r.k].jobs.names[j]][r.cname] = num(rr.runtime_s[q * rr.jobs + job_row[r.k][j]]);
      }
    }
  }
  std::vector<json> lines;
  for (size_t k = 0; k < indices.size(); ++k)
    lines.push_back({{"index", indices[k]}, {"axes", point_axes(s, indices[k])}, {"metrics", metrics[k]}});
  return lines;
}

}  // namespace

std::vector<json> fabric_batch_lines(const SweepSpec& s, const std::vector<size_t>& indices) {
  return fabric_lines(s, indices, true);
}
std::vector<json> fabric_reference_lines(const SweepSpec& s, const std::vector<size_t>& indices) {
  return fabric_lines(s, indices, false);
}

std::string results_csv(const SweepSpec& s, const std::vector<json>& lines) { return results_csv(sweep_json(s, {}), lines); }

Summary run_sweep(const SweepSpec& s, const io::OutTarget& out, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  Summary sum;
  sum.points = s.points.size();
  const json sj = sweep_json(s, o.shard);

  const io::Existing was = io::inspect(out.path);
  const bool has_results = (was == io::Existing::FloorsimDir || was == io::Existing::OtherDir) &&
                           (fs::exists(out.path / "sweep.json") || fs::exists(out.path / "results.jsonl"));
  if (has_results && !o.resume && !out.force)
    throw InputError(out.shown, "", "already holds sweep results; expected --resume to continue them, --force to replace them, or a new directory");
  // In place when nothing is replaced, so a killed sweep leaves what --resume continues; staged
  // (and renamed in at the end) when it replaces an earlier output.
  const bool in_place = was == io::Existing::None || was == io::Existing::EmptyDir || (o.resume && was == io::Existing::FloorsimDir);
  io::OutputDir dir = in_place ? io::OutputDir::in_place(out) : io::OutputDir(out);
  const fs::path jsonl = dir.file("results.jsonl"), meta = dir.file("sweep.json");

  std::vector<json> done;
  if (in_place && has_results) {
    if (fs::exists(meta)) {
      const json old = parse_json_text(io::read_file(meta), dir.shown("sweep.json"));
      if (without_axis_effects(old) != sj)
        throw InputError(dir.shown("sweep.json"), "", "was written by a different sweep or shard; expected the same sweep file, base and --shard to resume");
    }
    bool torn = false;
    for (auto& l : read_results(jsonl.string(), &torn)) {
      const size_t i = l["index"].get<size_t>();
      if (i < s.points.size() && o.shard.owns(i) && l["axes"] == point_axes(s, i)) done.push_back(std::move(l));
    }
    sort_dedup(done);
  }
  dir.write("sweep.json", app::dump(sj));
  // Rewrites the kept lines (drops a torn tail), so appends start on a fresh line.
  dir.write("results.jsonl", join_lines(done));
  sum.already_done = done.size();

  std::vector<size_t> todo;
  {
    std::vector<uint8_t> have(s.points.size(), 0);
    for (const auto& l : done) have[l["index"].get<size_t>()] = 1;
    for (size_t i = 0; i < s.points.size(); ++i)
      if (o.shard.owns(i)) {
        ++sum.in_shard;
        if (!have[i]) todo.push_back(i);
      }
  }

  std::ofstream app(jsonl, std::ios::binary | std::ios::app);
  if (!app) throw std::runtime_error("cannot write " + dir.shown("results.jsonl") + ": " + std::strerror(errno));
  std::mutex mu;
  size_t finished = 0;
  std::vector<Warnings> raised(todo.size());  // by todo position: folded in index order below
  auto record = [&](const json& line) {  // under mu
    app << dump_line(line);
    app.flush();
    ++finished;
    if (line.contains("error")) ++sum.errors;
    if (line.contains("verdict") && !line["verdict"]["pass"].get<bool>()) ++sum.verdict_fail;
    if (o.progress) o.progress->update(finished, todo.size());
  };

  if (s.kind == "fabric") {
    // All of the shard's remaining variants in one batch kernel call.
    omp_set_num_threads(static_cast<int>(std::max(1u, o.threads)));
    if (!todo.empty())
      for (const auto& line : fabric_batch_lines(s, todo)) record(line);
  } else {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t k; (k = next.fetch_add(1)) < todo.size();) {
        json line;
        try {
          line = evaluate_point(s, todo[k], &raised[k]);
        } catch (const std::exception& e) {
          line = {{"index", todo[k]}, {"axes", point_axes(s, todo[k])}, {"error", e.what()}};
        }
        std::lock_guard<std::mutex> lock(mu);
        record(line);
      }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(o.threads, static_cast<unsigned>(std::max<size_t>(1, todo.size()))));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }
  if (o.progress) o.progress->finish();
  app.close();
  if (!app) throw std::runtime_error("cannot write " + dir.shown("results.jsonl") + ": " + std::strerror(errno));
  sum.ran = finished;
  Warnings folded = s.warnings;  // printed when the sweep was loaded; the points' others follow
  for (const auto& w : raised)
    for (const auto& m : w.list()) folded.add(m);
  sum.warnings.assign(folded.list().begin() + static_cast<std::ptrdiff_t>(s.warnings.list().size()), folded.list().end());

  // Final form: sorted by index, so the files do not depend on thread count or finishing order.
  std::vector<json> all = read_results(jsonl.string());
  sort_dedup(all);
  dir.write("results.jsonl", join_lines(all));
  dir.write("results.csv", results_csv(sj, all));
  const json flagged = with_axis_effects(sj, all);
  dir.write("sweep.json", app::dump(flagged));
  for (const auto& a : flagged["no_effect_axes"]) sum.no_effect_axes.push_back(a.get<std::string>());
  dir.commit();
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

size_t merge_shards(const io::OutTarget& out_dir, const std::vector<std::string>& shard_dirs, std::vector<std::string>* no_effect) {
  if (shard_dirs.empty()) throw InputError("", "", "no shard directories given; expected floorsim merge OUT SHARD_DIR...");
  json first;
  std::vector<json> all;
  std::map<size_t, std::string> owner;
  for (const auto& d : shard_dirs) {
    const fs::path meta = fs::path(d) / "sweep.json";
    json sj = parse_json_text(io::read_file(meta), meta.string());
    if (!sj.is_object() || sj.value("format", "") != kFormat)
      throw InputError(meta.string(), "/format", std::string("expected \"") + kFormat + "\"");
    sj.erase("shard");
    sj = without_axis_effects(std::move(sj));
    if (first.is_null())
      first = sj;
    else if (sj != first)
      throw InputError(meta.string(), "", "is a different sweep from " + shard_dirs[0] + "; expected shards of one sweep");
    const std::string rpath = (fs::path(d) / "results.jsonl").string();
    if (!fs::exists(rpath)) throw InputError(rpath, "", "missing; expected the shard's results");
    bool torn = false;
    auto lines = read_results(rpath, &torn);
    if (torn) throw InputError(rpath, "", "ends in a torn line (the shard did not finish); expected a complete shard (run it again with --resume)");
    for (auto& l : lines) {
      const size_t i = l["index"].get<size_t>();
      const auto [it, fresh] = owner.emplace(i, d);
      if (!fresh) throw InputError(rpath, "", fmt::format("index {} is also in {}; expected each index in exactly one shard", i, it->second));
      all.push_back(std::move(l));
    }
  }
  const size_t n = first["points"].get<size_t>();
  std::vector<size_t> missing;
  for (size_t i = 0; i < n; ++i)
    if (!owner.count(i)) missing.push_back(i);
  if (!missing.empty()) {
    std::string list;
    for (size_t k = 0; k < missing.size() && k < 10; ++k) list += (k ? "," : "") + std::to_string(missing[k]);
    if (missing.size() > 10) list += ",...";
    throw InputError(shard_dirs[0], "", fmt::format("{} of {} indices missing ({}); expected every shard's complete output", missing.size(), n, list));
  }
  if (owner.size() != n) throw InputError(shard_dirs[0], "", fmt::format("indices beyond the sweep's {} points", n));
  sort_dedup(all);
  io::OutputDir out(out_dir);
  const json flagged = with_axis_effects(first, all);
  if (no_effect)
    for (const auto& a : flagged["no_effect_axes"]) no_effect->push_back(a.get<std::string>());
  out.write("sweep.json", app::dump(flagged));
  out.write("results.jsonl", join_lines(all));
  out.write("results.csv", results_csv(first, all));
  out.commit();
  return all.size();
}

}  // namespace floorsim::app::sweep
