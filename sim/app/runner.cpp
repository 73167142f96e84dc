#include "sim/app/runner.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "schedulers/idle_pool/idle_pool.hpp"
#include "schedulers/registry.hpp"
#include "sim/app/changes.hpp"
#include "sim/app/delay_scheduling.hpp"
#include "sim/app/inputs.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {

std::string dump(const json& j) { return j.dump(2) + "\n"; }

namespace {

// Numbers in CSV: shortest round-trip form, empty for "unknown".
std::string num(double v) { return v < 0 ? std::string() : fmt::format("{}", v); }

using io::csv_field;

using io::json_finite;

}  // namespace

std::unique_ptr<Scheduler> make_scheduler(const Scenario& sc, Warnings* caller) {
  const SchedulerEntry* entry = find_scheduler(sc.resolved["scheduler"]["type"]);
  WarningScope warnings(caller);
  SchedulerContext ctx{sc.workload, sc.cluster, sc.base_dir, sc.file, sc.seed};
  ctx.warnings = &warnings.sink();
  ctx.t0_wall_s = std::isnan(sc.t0_wall_s) ? 0 : sc.t0_wall_s;
  if (!sc.scheduler_given.is_null()) ctx.given = &sc.scheduler_given;
  // Read while the model is built only (models copy what they need of it).
  const std::vector<std::vector<uint32_t>> fabric_tree = fabric_switch_tree(sc.fabric, sc.cluster.nodes());
  if (sc.fabric.fabric) ctx.fabric_tree = &fabric_tree;
  std::unique_ptr<Scheduler> model = entry->make(sc.resolved["scheduler"], ctx);
  warnings.done();
  return model;
}

RunResult run_scenario(const Scenario& sc, const RunOptions& opts) {
  std::unique_ptr<Scheduler> sched = make_scheduler(sc, opts.warnings);
  if (const json& ip = sc.resolved["idle_pool"]; !ip.is_null() || !sc.fallbacks.empty()) {  // issue 7: composable with any model
    idle_pool::Params p;
    if (!ip.is_null()) {
      p.mode = ip["mode"] == "on_demand" ? idle_pool::Mode::OnDemand : idle_pool::Mode::Hold;
      p.nodes = ip["nodes"];
      p.interval_s = ip["interval_s"];
      p.for_class = sc.workload.strings.find(ip["for_class"].get<std::string>());
      p.preempt_exempt_s = ip["preempt_exempt_s"];
    } else {
      p.for_class = StringTable::kMissing;  // controller for the fallbacks only
    }
    for (const auto& f : sc.fallbacks) p.fallbacks.push_back({f.at_s, f.jobs});
    sched = idle_pool::wrap(std::move(sched), p);
  }
  // Delay scheduling sits right around the model: it re-places or holds the model's starts.
  std::unique_ptr<delay::ConsolidationRuntime> consolidation;
  if (const json& ds = sc.resolved["delay_scheduling"]; !ds.is_null()) {
    const delay::Params dp = delay::params_from(ds);
    sched = delay::wrap(std::move(sched), dp);
    consolidation = std::make_unique<delay::ConsolidationRuntime>(dp);
  }
  RunResult res;
  BatchLog batch_log;  // which GPUs held batch work when, for the request services
  if (sc.sharing) sched = record_batch(std::move(sched), batch_log);
  if (opts.keep_runs) sched = record_attempts(std::move(sched), sc.cluster, res.attempts);
  if (opts.progress && opts.progress->on()) sched = report_progress(std::move(sched), *opts.progress);
  EngineConfig ec = sc.engine;
  ec.check_invariants = ec.check_invariants || opts.check_invariants;
  if (opts.watchdog) ec.watchdog = *opts.watchdog;
  Engine engine(sc.workload, sc.cluster, *sched, ec, sc.floors);
  engine.add_node_events(sc.node_events);
  GovernanceGate gate(sc.governance, sc.workload.strings, sc.changes, opts.force_changes);
  if (!sc.changes.empty()) engine.add_policy_changes(sc.changes, &gate);
  std::unique_ptr<FabricRuntime> fabric_model;
  if (consolidation) engine.set_runtime_model(consolidation.get());
  if (sc.fabric.fabric) {
    fabric_model = std::make_unique<FabricRuntime>(sc.fabric);
    engine.set_runtime_model(fabric_model.get());
  }
  std::unique_ptr<SharingRuntime> sharing_model;  // only where sharing slows the batch
  if (sc.sharing && sc.sharing->stretches_batch()) {
    sharing_model = std::make_unique<SharingRuntime>(*sc.sharing, fabric_model.get());
    engine.set_runtime_model(sharing_model.get());
  }
  try {
    engine.run();
  } catch (const NoProgressError& e) {  // the scenario drove the model into a loop: bad input, one line
    throw StalledRunError(sc.file, "/scheduler", e.what());
  }

  const auto& jobs = sc.workload.jobs;
  const auto& runs = engine.runs();
  const auto& strings = sc.workload.strings;
  res.stats = engine.stats();

  // Per-job figures and per-class aggregation.
  struct ClassAcc {
    size_t jobs = 0, started = 0, first = 0;  // first: where its waits start in `waits`
    double gpu_s_alloc = 0, lost = 0;
    uint64_t preemptions = 0, requeues = 0, deadline_jobs = 0, deadline_misses = 0;
    double margin = std::numeric_limits<double>::infinity();
    WaitStats wait;
  };
  std::map<StrId, ClassAcc> acc;
  for (StrId k : sc.classes) acc[k];
  std::map<std::string, size_t> by_state;
  SimTime first_submit = jobs.empty() ? 0 : jobs.front().submit_s, last_end = first_submit;
  double gpu_s_total = 0;
  size_t started = 0, recorded = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& j = jobs[i];
    const JobRun& r = runs[i];
    ClassAcc& a = acc[j.klass];
    ++a.jobs;
    ++by_state[std::string(to_string(r.state))];  // Unstarted reads PENDING
    double alloc = r.alloc_gpu_s;
    if (r.state == JobState::Running)  // horizon cut; a packed job is charged its share
      alloc += (engine.now() - r.start_s) * (r.gpu_slot >= 0 ? j.gpu_milli / 1000.0 : engine.held_gpus(static_cast<JobIdx>(i)));
    a.gpu_s_alloc += alloc;
    gpu_s_total += alloc;
    a.lost += r.lost_gpu_s;
    a.preemptions += r.preemptions;
    a.requeues += r.requeues;
    if (r.first_start_s >= 0) {
      ++a.started, ++started;
      recorded += j.recorded_start_s >= 0;
    }
    if (r.end_s >= 0) last_end = std::max(last_end, r.end_s);
    if (j.deadline_s != kNever) {
      ++a.deadline_jobs;
      const double end = r.end_s >= 0 && r.state == JobState::Completed ? r.end_s : kNever;
      a.margin = std::min(a.margin, j.deadline_s - end);
      if (end > j.deadline_s) ++a.deadline_misses;
    }
  }
  // Waits in one array of 8 bytes a started job, grouped by class (each class's stats from its
  // sorted range, then the whole array's), then reused for the recorded waits: a trace of
  // millions of jobs needs no more. The stats sort their values, so the grouping changes nothing.
  std::vector<double> waits(started);
  for (size_t k = 0; auto& [c, a] : acc) a.first = k, k += a.started;
  {
    std::map<StrId, size_t> next;
    for (const auto& [c, a] : acc) next[c] = a.first;
    for (size_t i = 0; i < jobs.size(); ++i)
      if (runs[i].first_start_s >= 0) waits[next[jobs[i].klass]++] = runs[i].first_start_s - jobs[i].submit_s;
  }
  for (auto& [c, a] : acc) a.wait = wait_stats_in_place(std::span<double>(waits).subspan(a.first, a.started));
  const WaitStats all_waits = wait_stats_in_place(waits);
  WaitStats recorded_stats, simulated_stats;
  if (recorded > 0) {
    waits.clear();
    for (size_t i = 0; i < jobs.size(); ++i)
      if (runs[i].first_start_s >= 0 && jobs[i].recorded_start_s >= 0) waits.push_back(jobs[i].recorded_start_s - jobs[i].submit_s);
    recorded_stats = wait_stats_in_place(waits);
    waits.clear();
    for (size_t i = 0; i < jobs.size(); ++i)
      if (runs[i].first_start_s >= 0 && jobs[i].recorded_start_s >= 0) waits.push_back(runs[i].first_start_s - jobs[i].submit_s);
    simulated_stats = wait_stats_in_place(waits);
  }
  waits = {};
  const double makespan = last_end - first_submit;
  const int64_t total_gpus = sc.cluster.total_gpus();

  json m;
  m["output_version"] = kOutputVersion;
  m["scenario"] = sc.resolved["name"];
  m["scheduler"] = sc.resolved["scheduler"]["type"];
  m["makespan_s"] = makespan;
  m["jobs"] = jobs.size();
  m["events"] = res.stats.events;
  m["passes"] = res.stats.passes;
  m["utilization"] = makespan > 0 ? gpu_s_total / (static_cast<double>(total_gpus) * makespan) : 0.0;
  m["wait_s"] = to_json(all_waits);
  m["jobs_by_state"] = by_state;
  m["preemptions"] = res.stats.preemptions;
  m["cascade_preemptions"] = res.stats.cascade_preemptions;
  m["cluster"] = {{"nodes", sc.cluster.nodes()}, {"gpus", total_gpus}};
  json classes = json::object();
  const auto& ledger = engine.ledger();
  for (const auto& [k, a] : acc) {
    const double entitled = ledger.entitled_gpu_s(k);
    json c;
    c["jobs"] = a.jobs;
    c["wait_s"] = to_json(a.wait);
    c["gpu_s_allocated"] = a.gpu_s_alloc;
    c["gpu_s_used"] = a.gpu_s_alloc - a.lost;
    c["lost_gpu_s"] = a.lost;
    c["floor_gpus"] = k < sc.floors.size() ? sc.floors[k] : 0;
    c["floor_attainment"] = entitled > 0 ? ledger.delivered_gpu_s(k) / entitled : 1.0;
    c["deadline_margin_s"] = a.deadline_jobs ? json_finite(a.margin) : json(nullptr);
    c["deadline_misses"] = a.deadline_misses;
    c["preemptions"] = a.preemptions;
    c["requeues"] = a.requeues;
    classes[strings.str(k)] = c;
  }
  m["classes"] = classes;
  if (recorded > 0) {
    m["validation"] = {{"jobs_with_recorded_start", recorded},
                       {"recorded_wait_s", to_json(recorded_stats)},
                       {"simulated_wait_s", to_json(simulated_stats)}};
  }
  m["workload"] = sc.workload_report;
  m["scheduler_report"] = sched->report(engine.snapshot());
  if (!sc.changes.empty()) {
    // Changes after the horizon never reached the model: logged as rejected, with that reason.
    std::vector<ChangeRecord> log = engine.change_log();
    std::vector<uint8_t> seen(sc.changes.size(), 0);
    for (const auto& rec : log) seen[rec.index] = 1;
    for (size_t i = 0; i < sc.changes.size(); ++i)
      if (!seen[i])
        log.push_back({static_cast<uint32_t>(i), sc.changes[i].at_s,
                       ChangeOutcome::rejected("after the simulation's horizon: never delivered")});
    res.approval_log = approval_log_json(sc.changes, log, gate.reviews());
    size_t applied = 0, unapproved = 0, rejected = 0;
    for (const auto& rec : log) {
      applied += rec.outcome.status == ChangeOutcome::Status::Applied;
      unapproved += rec.outcome.status == ChangeOutcome::Status::AppliedUnapproved;
      rejected += rec.outcome.status == ChangeOutcome::Status::Rejected;
    }
    m["governance"] = {{"changes", sc.changes.size()}, {"delivered", engine.change_log().size()}, {"applied", applied},
                       {"applied_unapproved", unapproved}, {"rejected", rejected}};
    res.approval_csv = approval_log_csv(res.approval_log);
  }
  if (fabric_model) m["runtime_model"] = fabric_model->report();
  else if (consolidation) m["runtime_model"] = consolidation->report();
  if (sc.sharing) {
    json sh = sharing_metrics(*sc.sharing, batch_log, sc.cluster, engine.now(), classes, sharing_model.get());
    // The utilisation cost of dedicated GPUs: the cluster's and theirs together.
    double ded = 0, ded_busy = 0;
    for (const auto& [name, p] : sh["pools"].items()) ded += p["dedicated_gpus"].get<double>(), ded_busy += p["dedicated_busy_gpu_s"].get<double>();
    sh["gpus_with_dedicated"] = static_cast<double>(total_gpus) + ded;
    sh["utilization_with_dedicated"] = makespan > 0 ? (gpu_s_total + ded_busy) / ((static_cast<double>(total_gpus) + ded) * makespan) : 0.0;
    m["sharing"] = std::move(sh);
  }
  res.metrics = std::move(m);

  res.end_s = engine.now();
  if (opts.keep_runs) {
    res.runs = runs;
    res.node_lists.resize(jobs.size());
    res.attempts.resize(jobs.size());
    std::vector<std::string> nl;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (runs[i].start_s < 0) continue;
      nl.clear();
      for (const auto& s : engine.final_allocation(static_cast<JobIdx>(i))) nl.push_back(sc.cluster.node_names[s.node]);
      res.node_lists[i] = hostlist(nl);
    }
  }
  if (!opts.render_csv) return res;
  const auto extra = sched->extra_columns();
  if (sc.resolved["output"]["jobs_csv"].get<bool>()) {
    // Into RunResult::jobs_csv, or out to opts.jobs_csv_out a megabyte at a time.
    std::string& out = res.jobs_csv;
    auto flush = [&](bool last) {
      if (!opts.jobs_csv_out || (!last && out.size() < (1u << 20))) return;
      opts.jobs_csv_out->append(out);
      out.clear();
    };
    if (!opts.jobs_csv_out) out.reserve(jobs.size() * 96);
    res.jobs_csv_streamed = opts.jobs_csv_out != nullptr;
    out += "job_id,class,user,account,qos,partition,gpus,nodes,submit_s,start_s,end_s,wait_s,state,requeues,preemptions,node_list,reason";
    for (const auto& c : extra) out += "," + c;
    out += "\n";
    std::vector<std::string> names, values;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobSpec& j = jobs[i];
      const JobRun& r = runs[i];
      names.clear();
      if (r.start_s >= 0)
        for (const auto& s : engine.final_allocation(static_cast<JobIdx>(i))) names.push_back(sc.cluster.node_names[s.node]);
      const double wait = r.first_start_s >= 0 ? r.first_start_s - j.submit_s : -1;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", j.id, csv_field(strings.str(j.klass)),
                         csv_field(strings.str(j.user)), csv_field(strings.str(j.account)), csv_field(strings.str(j.qos)),
                         csv_field(strings.str(j.partition)), j.gpus, j.nodes, num(j.submit_s), num(r.first_start_s),
                         num(r.end_s), num(wait), to_string(r.state), r.requeues, r.preemptions,
                         csv_field(hostlist(names)), csv_field(std::string(sched->reason_name(r.reason))));
      if (!extra.empty()) {
        values.clear();
        sched->extra_values(static_cast<JobIdx>(i), values);
        for (const auto& v : values) out += "," + csv_field(v);
      }
      out += "\n";
      flush(false);
    }
    flush(true);
  }
  if (sc.resolved["output"]["timeline"].get<bool>()) {
    std::string& out = res.timeline_csv;
    out += "time_s,class,gpus_allocated,gpus_demanded,floor_gpus\n";
    for (const auto& row : ledger.timeline())
      out += fmt::format("{},{},{},{},{}\n", row.time_s, csv_field(strings.str(row.klass)), row.gpus_allocated,
                         row.gpus_demanded, ledger.floor(row.klass));
  }
  return res;
}

void write_approval_log(const Scenario& sc, const RunResult& r, const io::OutputDir& dir) {
  if (sc.changes.empty()) return;
  dir.write("approval_log.json", dump(r.approval_log));
  dir.write("approval_log.csv", r.approval_csv);
}

void write_run_outputs(const Scenario& sc, const RunResult& r, const io::OutTarget& out) {
  io::OutputDir dir(out);
  write_run_outputs(sc, r, dir);
}

void write_run_outputs(const Scenario& sc, const RunResult& r, io::OutputDir& dir) {
  dir.write("metrics.json", dump(r.metrics));
  dir.write("scenario.resolved.json", dump(sc.resolved));
  if (sc.resolved["output"]["jobs_csv"].get<bool>() && !r.jobs_csv_streamed) dir.write("jobs.csv", r.jobs_csv);
  if (sc.resolved["output"]["timeline"].get<bool>()) dir.write("timeline.csv", r.timeline_csv);
  write_approval_log(sc, r, dir);
  dir.commit();
}

std::vector<io::OutInput> run_inputs(const Scenario& sc) {
  std::vector<io::OutInput> in;
  if (!sc.file.empty()) in.push_back({sc.file, false});  // first: a refusal names the scenario before what it reads
  for (auto& i : scenario_inputs(sc.resolved, sc.base_dir)) in.push_back(std::move(i));
  return in;
}

}  // namespace floorsim::app
