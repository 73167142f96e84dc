#include "sim/app/tune.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <set>

#include <fmt/format.h>

#include "schedulers/slurm/conf_override.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::tune {

namespace fs = std::filesystem;
using namespace cfg;

namespace {

// The slurm block keys the tuner may move: multifactor weights (slurm.conf PriorityWeight*,
// PriorityMaxAge) and the main and backfill loop parameters (SchedulerParameters).
const std::set<std::string> kTunable = {
    "priority_weight_age", "priority_weight_fairshare", "priority_weight_jobsize", "priority_weight_partition",
    "priority_weight_qos", "priority_weight_tres_gpu", "priority_max_age_s", "bf_window_min", "bf_max_job_test",
    "bf_interval_s", "bf_resolution_s", "bf_max_job_user", "sched_interval_s", "default_queue_depth"};

std::string tunable_list() {
  std::string s;
  for (const auto& k : kTunable) s += (s.empty() ? "" : ", ") + k;
  return s;
}

std::shared_ptr<const ObjectSpec> tune_spec() {
  auto objective = obj("objective", "what the search minimises (or maximises: floor attainment)",
                       {choice("metric", {"mean_wait_s", "makespan_s", "p99_wait_s", "floor_attainment"}, "mean_wait_s",
                               "mean wait, makespan, p99 wait (lower is better) or floor attainment (higher is better)"),
                        string("class", "", "the class whose wait or floor attainment counts (\"\" = all jobs; floor attainment: the lowest over classes with a floor)")});
  auto param = obj("param", "one scheduler-block key searched over [min, max] (integers)",
                   {string("name", nullptr, "a key of the slurm scheduler block").must(),
                    integer("min", nullptr, "lowest value").at_least(0).must(),
                    integer("max", nullptr, "highest value").at_least(0).must()});
  auto search = obj("search", "the seeded search",
                    {integer("seed", 1, "random seed: the same seed gives the same search and output").at_least(0),
                     integer("samples", 16, "random points before refinement").at_least(0).at_most(100000),
                     integer("rounds", 2, "coordinate refinement levels (the step halves after each)").at_least(0).at_most(20)});
  auto holdout = obj("holdout", "where the tuned values are judged: a later window of the same workload, or another scenario",
                     {number("split_at_s", nullptr, "tune on jobs submitted before this time, judge on those submitted at or after it").or_null().at_least(0).in_unit("s"),
                      string("scenario", "", "a held-out scenario file (relative to the tune file), run with the same values")});
  return obj("tune", "floorsim tune: a search over Slurm priority weights and backfill parameters",
             {string("name", "", "name (default: the file's stem)"),
              string("base", nullptr, "the scenario file to tune (relative to the tune file); its scheduler must be slurm").must(),
              object("objective", objective, "the objective"),
              array_of("params", param, "the keys searched").must(),
              object("search", search, "the search"),
              object("holdout", holdout, "the held-out part").must()});
}

json read_doc(const std::string& file, const std::string& ptr, const std::string& dir, const std::string& rel, std::string& path_out,
              std::string& dir_out) {
  const fs::path p = fs::path(dir) / rel;
  path_out = p.string();
  const std::string d = p.parent_path().string();
  dir_out = d.empty() ? "." : d;
  try {
    return parse_json_text(io::read_file(p), p.string());
  } catch (const InputError& e) {
    fail(file, ptr, e.what());
  }
}

// A parameter slurm.conf sets cannot be tuned from the block: its key wins.
void check_not_overridden(const TuneSpec& s, const std::string& file) {
  const json& sb = s.base_doc["scheduler"];
  const std::string conf = sb.value("slurm_conf", std::string());
  if (conf.empty()) return;
  const std::string path = (fs::path(s.base_dir) / conf).string();
  const std::vector<std::string> set = slurm::block_keys_set_by_conf(path);
  for (size_t i = 0; i < s.params.size(); ++i)
    if (std::find(set.begin(), set.end(), s.params[i].name) != set.end())
      fail(file, child(child("/params", i), "name"),
           fmt::format("{} is set by {} (its key wins over the scheduler block), so tuning it would change nothing; expected a key the "
                       "file does not set (remove it from the file to tune it)",
                       s.params[i].name, path));
}

}  // namespace

TuneSpec load_tune_file(const std::string& path) {
  const json doc = parse_json_text(io::read_file(path), path);
  const std::string dir = fs::path(path).parent_path().string();
  return load_tune(doc, path, dir.empty() ? "." : dir);
}

TuneSpec load_tune(const json& doc, const std::string& file, const std::string& dir) {
  TuneSpec s;
  s.file = file;
  s.resolved = resolve(doc, *tune_spec(), "", file);
  const json& r = s.resolved;
  s.name = r["name"].get<std::string>().empty() ? fs::path(file).stem().string() : r["name"].get<std::string>();
  s.resolved["name"] = s.name;
  s.base_doc = read_doc(file, "/base", dir, r["base"], s.base_file, s.base_dir);
  if (!s.base_doc.is_object() || !s.base_doc.contains("scheduler") || !s.base_doc["scheduler"].is_object() ||
      s.base_doc["scheduler"].value("type", std::string()) != "slurm")
    fail(file, "/base", "the scenario's scheduler is not slurm; expected a scenario with \"scheduler\": {\"type\": \"slurm\", ...}");
  const std::string m = r["objective"]["metric"];
  s.objective.metric = m == "makespan_s" ? Metric::Makespan : m == "p99_wait_s" ? Metric::P99Wait
                     : m == "floor_attainment" ? Metric::FloorAttainment : Metric::MeanWait;
  s.objective.klass = r["objective"]["class"];
  if (s.objective.metric == Metric::Makespan && !s.objective.klass.empty())
    fail(file, "/objective/class", "makespan is the whole workload's; expected no class");
  if (r["params"].empty()) fail(file, "/params", "expected at least one parameter");
  std::set<std::string> seen;
  for (size_t i = 0; i < r["params"].size(); ++i) {
    const json& p = r["params"][i];
    const std::string ptr = child("/params", i);
    Param q{p["name"], p["min"], p["max"]};
    if (!kTunable.count(q.name)) fail(file, child(ptr, "name"), fmt::format("'{}' is not tunable; expected one of {}", q.name, tunable_list()));
    if (!seen.insert(q.name).second) fail(file, child(ptr, "name"), fmt::format("'{}' is listed twice; expected each key once", q.name));
    if (q.max < q.min) fail(file, child(ptr, "max"), "is below min; expected max >= min");
    s.params.push_back(q);
  }
  s.seed = r["search"]["seed"];
  s.samples = r["search"]["samples"];
  s.rounds = r["search"]["rounds"];

  const json& h = r["holdout"];
  const bool by_time = !h["split_at_s"].is_null(), by_file = !h["scenario"].get<std::string>().empty();
  if (by_time == by_file) fail(file, "/holdout", "expected exactly one of split_at_s (a later window) or scenario (another workload)");
  if (by_time) {
    const double at = h["split_at_s"];
    if (at <= 0) fail(file, "/holdout/split_at_s", "is 0: nothing to tune on; expected a time after the first submission");
    s.tune_window = {0, at};
    s.holdout_window = {at, std::numeric_limits<double>::infinity()};
    s.holdout_doc = s.base_doc;
    s.holdout_file = s.base_file;
    s.holdout_dir = s.base_dir;
  } else {
    s.holdout_doc = read_doc(file, "/holdout/scenario", dir, h["scenario"], s.holdout_file, s.holdout_dir);
  }

  // The base's own values (the baseline), and every corner of the box through the scenario
  // parser, so a bad range fails here, before anything runs.
  Scenario base;
  try {
    base = load_scenario(s.base_doc, s.base_file, s.base_dir, &s.warnings);
    (void)load_scenario(s.holdout_doc, s.holdout_file, s.holdout_dir, &s.warnings);
  } catch (const InputError& e) {
    fail(file, by_file ? "/holdout/scenario" : "/base", std::string("the scenario is rejected: ") + e.what());
  }
  if (by_time && !base.fallbacks.empty())
    fail(file, "/holdout/split_at_s", "the scenario has deadline batches with reduced-set fallbacks, which a time split would cut; expected holdout.scenario instead");
  for (size_t i = 0; i < s.params.size(); ++i) {
    const json& v = base.resolved["scheduler"][s.params[i].name];
    s.baseline.push_back(static_cast<int64_t>(std::llround(v.get<double>())));
    for (const int64_t corner : {s.params[i].min, s.params[i].max}) {
      json d = s.base_doc;
      d["scheduler"][s.params[i].name] = corner;
      try {
        (void)load_scenario(d, s.base_file, s.base_dir, &s.warnings);
      } catch (const InputError& e) {
        fail(file, child(child("/params", i), corner == s.params[i].min ? "min" : "max"), fmt::format("{} is rejected: {}", corner, e.what()));
      }
    }
  }
  check_not_overridden(s, file);
  return s;
}

size_t keep_window(Workload& w, const Window& win) {
  if (win.all()) return w.jobs.size();
  std::erase_if(w.jobs, [&](const JobSpec& j) { return !(j.submit_s >= win.from_s && j.submit_s < win.to_s); });
  return w.jobs.size();
}

double objective_value(const Objective& o, const json& m) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto at = [&](const json::json_pointer& p) { return m.contains(p) && m.at(p).is_number() ? m.at(p).get<double>() : nan; };
  auto wait = [&](const char* stat) {
    return o.klass.empty() ? at(json::json_pointer("/wait_s/" + std::string(stat)))
                           : at(json::json_pointer("/classes/" + o.klass + "/wait_s/" + stat));
  };
  switch (o.metric) {
    case Metric::MeanWait: return wait("mean");
    case Metric::P99Wait: return wait("p99");
    case Metric::Makespan: return at(json::json_pointer("/makespan_s"));
    case Metric::FloorAttainment: {
      if (!o.klass.empty()) return at(json::json_pointer("/classes/" + o.klass + "/floor_attainment"));
      double lo = nan;
      if (m.contains("classes"))
        for (const auto& [k, c] : m["classes"].items())
          if (c.value("floor_gpus", 0) > 0 && c.contains("floor_attainment") && c["floor_attainment"].is_number())
            lo = std::isnan(lo) ? c["floor_attainment"].get<double>() : std::min(lo, c["floor_attainment"].get<double>());
      return lo;
    }
  }
  return nan;
}

bool better(const Objective& o, const Score& a, const Score& b) {
  if (a.unstarted != b.unstarted) return a.unstarted < b.unstarted;
  if (std::isnan(a.value)) return false;
  if (std::isnan(b.value)) return true;
  return o.maximize() ? a.value > b.value : a.value < b.value;
}

std::vector<std::vector<int64_t>> random_points(const std::vector<Param>& ps, size_t samples, uint64_t seed) {
  std::mt19937_64 g(seed);  // mt19937_64's output is fixed by the standard; the draw below is too
  std::vector<std::vector<int64_t>> out(samples, std::vector<int64_t>(ps.size()));
  for (auto& pt : out)
    for (size_t i = 0; i < ps.size(); ++i) {
      const uint64_t span = static_cast<uint64_t>(ps[i].max - ps[i].min) + 1;
      pt[i] = ps[i].min + static_cast<int64_t>(g() % span);
    }
  return out;
}

}  // namespace floorsim::app::tune
