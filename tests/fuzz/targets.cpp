// The fuzz targets (see targets.hpp). One row per reader, and slurm_sim.
#include <cmath>
#include "tests/fuzz/targets.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "schedulers/kueue/manifest.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/slurm/config.hpp"
#include "sim/app/compare.hpp"
#include "sim/app/rehearse.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/app/sweep.hpp"
#include "traces/synthetic.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"
#include "traces/readers.hpp"
#include "tests/fuzz/slurm_scenario.hpp"

#ifndef FLOORSIM_SOURCE_DIR
#define FLOORSIM_SOURCE_DIR "."
#endif

namespace floorsim::fuzz {
namespace {

const char* kFile = "fuzz-input";

template <auto Reader>
void trace(std::string_view data) {
  traces::ReadOptions o;
  input::LineSource src(kFile, data);  // as read_trace gives a file to the readers
  (void)Reader(src, o);
}

// Generated workloads are held in memory, so their size is the input's to choose: a load
// multiplier of 250 on the quant night is half a million jobs, legitimate and slow under ASan.
// The targets lower the loader's own cap (workload.synthetic.max_jobs) so that one input loads
// at most kFuzzJobs generated jobs in all; above it the loader's refusal is the outcome fuzzed.
constexpr double kFuzzJobs = 100'000;
void cap_generated_jobs(app::json& synthetic, double max_jobs) {
  if (!synthetic.is_object()) return;
  const app::json& given = synthetic.contains("max_jobs") ? synthetic["max_jobs"] : app::json();
  if (!given.is_number() || given.get<double>() > max_jobs) synthetic["max_jobs"] = static_cast<uint64_t>(max_jobs);
}

// Scenario JSON: parse, resolve, load (relative paths resolve against examples/, so the seeds'
// traces and Slurm/Kueue files are read too) and build the scheduler model (reads its files).
void scenario(std::string_view data) {
  const std::string text(data);
  app::json doc = app::parse_json_text(text, kFile);
  if (doc.is_object() && doc.contains("workload") && doc["workload"].is_object() && doc["workload"].contains("synthetic"))
    cap_generated_jobs(doc["workload"]["synthetic"], kFuzzJobs);
  app::Scenario sc = app::load_scenario(doc, kFile, FLOORSIM_SOURCE_DIR "/examples");
  const SchedulerEntry* e = find_scheduler(sc.resolved["scheduler"]["type"]);
  if (!e) throw std::logic_error("resolved scenario names an unknown scheduler");
  SchedulerContext ctx{sc.workload, sc.cluster, sc.base_dir, sc.file, sc.seed};
  ctx.t0_wall_s = std::isnan(sc.t0_wall_s) ? 0 : sc.t0_wall_s;
  (void)e->make(sc.resolved["scheduler"], ctx);
}

void slurm_conf(std::string_view data) {
  slurm::SlurmConfig c;
  slurm::read_slurm_conf_text(std::string(data), kFile, c);
}
void sacctmgr(std::string_view data) {
  slurm::SlurmConfig c;
  slurm::read_sacctmgr_dump_text(std::string(data), kFile, c);
}
// topology.conf and gres.conf name nodes that slurm.conf declared.
slurm::SlurmConfig four_nodes() {
  slurm::SlurmConfig c;
  slurm::read_slurm_conf_text("NodeName=n[1-4] Gres=gpu:4\nPartitionName=p Nodes=n[1-4] Default=YES\n", "base", c);
  return c;
}
void topology(std::string_view data) {
  slurm::SlurmConfig c = four_nodes();
  slurm::read_topology_conf_text(std::string(data), kFile, c);
}
void gres(std::string_view data) {
  slurm::SlurmConfig c = four_nodes();
  slurm::read_gres_conf_text(std::string(data), kFile, c);
}
void kueue(std::string_view data) {
  kueue::Manifests m;
  kueue::load_manifest_text(std::string(data), kFile, m);
}

// Sweep files: the whole loader, every point validated through the scenario parser. Sweeps
// over 64 points are skipped: validating millions of legitimate points is slow by design, and
// the point-count caps themselves are tested in test_app. A base with generated classes gets the
// generated-job cap in the patch, shared among the points; an axis that could lift it skips.
constexpr const char* kSweepDir = FLOORSIM_SOURCE_DIR "/examples/sweeps";
double sweep_points(const app::json& doc) {  // at least the loader's count, whatever the mode
  double points = 1;
  if (doc.contains("axes") && doc["axes"].is_array())
    for (const auto& ax : doc["axes"]) {
      if (!ax.is_object()) continue;
      if (ax.contains("values") && ax["values"].is_array()) points *= std::max<double>(1, static_cast<double>(ax["values"].size()));
      else if (ax.contains("steps") && ax["steps"].is_number()) points *= std::max(1.0, ax["steps"].get<double>());
    }
  if (doc.contains("samples") && doc["samples"].is_number()) points = std::max(points, doc["samples"].get<double>());
  return points;
}
bool axis_reaches_job_cap(const app::json& doc) {
  static const std::string cap = "/workload/synthetic/max_jobs";
  if (doc.contains("axes") && doc["axes"].is_array())
    for (const auto& ax : doc["axes"])
      if (ax.is_object() && ax.contains("pointer") && ax["pointer"].is_string()) {
        const std::string p = ax["pointer"];
        if (cap.rfind(p, 0) == 0 && (p.size() == cap.size() || cap[p.size()] == '/')) return true;
      }
  return false;
}
bool base_generates_jobs(const app::json& doc) {
  if (!doc.contains("base") || !doc["base"].is_string()) return false;
  const std::string base = doc["base"];
  app::json b;
  try {
    b = base == "rehearse" ? app::default_night() : app::parse_json_text(io::read_file(std::string(kSweepDir) + "/" + base), base);
  } catch (const InputError&) {
    return false;  // load_sweep refuses it
  }
  if (!b.is_object()) return false;
  if (doc.contains("patch") && doc["patch"].is_object()) b.merge_patch(doc["patch"]);
  return b.contains("workload") && b["workload"].is_object() && b["workload"].contains("synthetic") &&
         b["workload"]["synthetic"].is_object();
}
void sweep(std::string_view data) {
  app::json doc = app::parse_json_text(std::string(data), kFile);
  if (!doc.is_object()) return (void)app::sweep::load_sweep(doc, kFile, kSweepDir);
  const double points = sweep_points(doc);
  if (points > 64 || axis_reaches_job_cap(doc)) return;
  if (base_generates_jobs(doc) && (!doc.contains("patch") || doc["patch"].is_object())) {
    if (!doc.contains("patch")) doc["patch"] = app::json::object();
    app::json& w = doc["patch"]["workload"];
    if (w.is_null()) w = app::json::object();
    if (w.is_object()) {
      app::json& syn = w["synthetic"];
      if (syn.is_null()) syn = app::json::object();
      cap_generated_jobs(syn, std::max(2000.0, std::floor(kFuzzJobs / points)));
    }
  }
  (void)app::sweep::load_sweep(doc, kFile, kSweepDir);
}
void bands(std::string_view data) { (void)app::compare::parse_bands(app::parse_json_text(std::string(data), kFile), kFile); }
void rate(std::string_view data) { (void)traces::read_rate_profile(kFile, data); }

// A generated Slurm scenario (slurm_scenario.hpp), run to the end with invariant checks. It must
// finish: the engine's watchdog firing (StalledRunError) or a run over kWallLimit is a failure,
// as is any error other than InputError (the generator may combine settings the model refuses).
constexpr std::chrono::seconds kWallLimit{10};
void slurm_sim(std::string_view data) {
  const app::Scenario sc = app::load_scenario(slurm_scenario_from_bytes(data), kFile, FLOORSIM_SOURCE_DIR "/examples");
  const auto t0 = std::chrono::steady_clock::now();
  try {
    app::RunOptions o;
    o.render_csv = false;
    // Generated runs end within days of simulated time: 20,000 idle wake-ups is a loop, found
    // faster than the default million would (a loop every few minutes of simulated time).
    o.watchdog = WatchdogLimits{.idle_wakeups = 20'000};
    (void)app::run_scenario(sc, o);
  } catch (const app::StalledRunError& e) {
    throw std::logic_error(std::string("the run stopped making progress: ") + e.what());
  }
  const auto wall = std::chrono::steady_clock::now() - t0;
  if (wall > kWallLimit)
    throw std::logic_error(fmt::format("the run took {:.1f} s of wall time (limit {} s)", std::chrono::duration<double>(wall).count(), kWallLimit.count()));
}
std::string show_slurm_sim(std::string_view data) { return slurm_scenario_from_bytes(data).dump(1) + "\n"; }

constexpr Target kTargets[] = {
    {"scenario", scenario, "examples/*.json examples/slurm-quant/scenario.json tests/cli/data/*.json"},
    {"swf", trace<traces::detail::read_swf>, "tests/traces/data/swf_*.swf traces/data/pwa/*.swf*"},
    {"helios", trace<traces::detail::read_helios>, "tests/traces/data/helios_*.csv traces/data/helios/*.csv"},
    {"philly", trace<traces::detail::read_philly>, "tests/traces/data/philly_*.json traces/data/philly/*.json"},
    {"pai", trace<traces::detail::read_pai>, "tests/traces/data/pai_*.csv"},
    {"sacct", trace<traces::detail::read_sacct>, "examples/traces/*.log tests/traces/data/sacct_*.log"},
    {"csv", trace<traces::detail::read_csv>, ""},  // seeds: tests/fuzz/seeds/csv (written by trace convert)
    {"slurm_conf", slurm_conf, "examples/slurm-quant/slurm.conf"},
    {"sacctmgr", sacctmgr, "examples/slurm-quant/quant.dump"},
    {"topology", topology, ""},
    {"gres", gres, ""},
    {"kueue", kueue, "examples/kai-quant/queues.yaml examples/kueue-quant/*.yaml"},
    {"sweep", sweep, "examples/sweeps/*.json"},
    {"bands", bands, "examples/ci/bands.json"},
    {"rate", rate, "examples/traces/intraday_rate.csv"},
    {"slurm_sim", slurm_sim, "", show_slurm_sim},  // seeds: tests/fuzz/seeds/slurm_sim (bytes, see slurm_scenario.cpp)
};

}  // namespace

std::span<const Target> targets() { return kTargets; }

const Target* find_target(std::string_view name) {
  for (const auto& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

bool run_one(const Target& t, std::string_view data) {
  try {
    t.run(data);
    return true;
  } catch (const InputError&) {
    return true;  // the one accepted failure: bad input reported as such
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "fuzz %s: std::bad_alloc (a size taken from the input unchecked?)\n", t.name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz %s: unexpected exception: %s\n", t.name, e.what());
  } catch (...) {
    std::fprintf(stderr, "fuzz %s: unexpected non-std exception\n", t.name);
  }
  return false;
}

}  // namespace floorsim::fuzz
