// The scenario file's schema: every block and key with its default and its check (every knob
// listed with its default, as BookSim's config lists them): what load_scenario resolves a
// document against and `floorsim schema` prints.
#include <fmt/format.h>

#include "schedulers/registry.hpp"
#include "sim/app/capacity_block.hpp"
#include "sim/app/changes.hpp"
#include "sim/app/delay_scheduling.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/node_labels.hpp"

namespace floorsim::app {
using namespace cfg;

namespace {

// Node labels: Kubernetes label syntax, checked where they are written.
void check_labels(const json& r, const std::string& ptr, const std::string& file) {
  for (const auto& [k, v] : r.at("labels").items()) {
    const std::string at = child(child(ptr, "labels"), k);
    if (std::string why = label_key_problem(k); !why.empty())
      fail(file, at, "label key \"" + k + "\": " + why + "; expected a Kubernetes label key ([prefix/]name, the name up to 63 letters, digits, '-', '_', '.'), such as node.kubernetes.io/instance-type");
    if (std::string why = label_value_problem(v.get<std::string>()); !why.empty())
      fail(file, at, "label value " + v.dump() + ": " + why + "; expected up to 63 letters, digits, '-', '_' or '.'");
  }
}

Field labels_field(const char* doc) {
  return map_of("labels", Type::String, doc).with_default(json::object());
}

std::shared_ptr<const ObjectSpec> node_group_spec() {
  auto s = obj("node_group", "a group of identical nodes",
             {string("prefix", nullptr, "node name prefix; nodes are named prefix001, prefix002, ...").must(),
              integer("count", nullptr, "number of nodes").at_least(1).at_most(1000000).must(),
              integer("gpus_per_node", nullptr, "GPUs per node (0 = CPU-only nodes)").at_least(0).at_most(4096).in_unit("gpus").must(),
              integer("nodes_per_leaf", 0, "nodes per leaf switch (0 = the group is one leaf)").at_least(0),
              integer("cpus_per_node", 0, "CPUs per node, consumable (slurm.conf CPUs=; Kubernetes allocatable cpu for the kueue and kai models; 0 = not given: CPUs never bind)").at_least(0).at_most(1048576),
              integer("mem_per_node_mib", 0, "consumable memory per node (slurm.conf RealMemory= with SelectTypeParameters CR_*_Memory; Kubernetes allocatable memory for the kueue and kai models; 0 = not given: memory never binds)").at_least(0).at_most(2147483647).in_unit("MiB"),
              labels_field("Kubernetes node labels of these nodes (over the cluster's labels), e.g. {\"cloud.google.com/gke-nodepool\": \"h100-pool\"}; kubernetes.io/hostname is the node name")});
  s->check = check_labels;
  return s;
}

std::shared_ptr<const ObjectSpec> cluster_spec() {
  auto s = obj("cluster", "the nodes and their GPUs",
               {integer("nodes", 4, "number of nodes (ignored when node_groups is given)").at_least(1).at_most(1000000),
                integer("gpus_per_node", 8, "GPUs per node (ignored when node_groups is given)").at_least(1).at_most(4096).in_unit("gpus"),
                string("node_prefix", "gpu", "node name prefix"),
                integer("nodes_per_leaf", 0, "nodes per leaf switch (0 = one leaf for all)").at_least(0),
                integer("gpu_memory_mib", 81920, "memory of one GPU (the smallest, as KAI's minNodeGPUMemory): a job's gpu_memory_mib is a share of it").at_least(1).in_unit("MiB"),
                labels_field("Kubernetes node labels of every node (e.g. {\"node.kubernetes.io/instance-type\": \"p5.48xlarge\"}); kubernetes.io/hostname is the node name"),
                array_of("node_groups", node_group_spec(), "heterogeneous clusters: groups of nodes, in order")});
  s->check = check_labels;
  return s;
}

std::shared_ptr<const ObjectSpec> trace_spec() {
  return obj("trace", "a trace file replayed as the workload",
             {string("path", nullptr, "trace file, relative to the scenario file").must(),
              choice("format", {"swf", "helios", "philly", "pai", "sacct", "csv"}, nullptr, "trace format").must(),
              integer("gpus_per_proc", 1, "SWF: GPUs per processor").at_least(1).at_most(1024),
              choice("missing_time_limit", {"runtime", "unlimited"}, "runtime",
                     "a job without a time limit gets its runtime (a perfect estimate) or none"),
              boolean("drop_zero_runtime", false, "drop jobs whose runtime is 0"),
              boolean("keep_cpu_jobs", false, "keep jobs that ask no GPUs (dropped and counted otherwise); they need the slurm, kueue or kai model and nodes that give CPUs"),
              integer("max_jobs", 0, "replay only the first N jobs (0 = all)").at_least(0),
              number("time_scale", 1.0, "multiply inter-arrival times by this (< 1 = more load)").at_least(1e-6).at_most(1e6),
              string("from", "", "replay the jobs submitted from this wall-clock time (YYYY-MM-DDTHH:MM:SS as the trace writes it; needs a dated format: sacct, helios, philly); t = 0 is then this time, and jobs queued or running at it are submitted at t = 0 with the run time they had left (docs/traces.md)"),
              string("to", "", "... and before this one (empty = to the end of the trace)")});
}

std::shared_ptr<const ObjectSpec> clock_spec() {
  return obj("clock", "the wall clock of the simulation",
             {string("t0", "", "wall-clock time of t = 0, YYYY-MM-DDTHH:MM:SS[Z|+HH:MM] (empty = the trace's first submit, or workload.trace.from, when the trace is dated; else t = 0 is taken as a multiple of every period). The slurm model rounds backfill plan times to multiples of bf_resolution in epoch seconds, as slurmctld does")});
}

std::shared_ptr<const ObjectSpec> job_spec() {
  return obj("job", "one job given inline",
             {integer("id", nullptr, "job id (kept in outputs); default: position + 1").or_null(),
              number("submit_s", 0.0, "submit time").at_least(0).in_unit("s"),
              number("runtime_s", nullptr, "run time if uninterrupted").at_least(0).in_unit("s").must(),
              number("time_limit_s", nullptr, "time limit; null = the runtime").at_least(0).in_unit("s").or_null(),
              integer("gpus", nullptr, "total GPUs (0 = a CPU-only job: needs nodes that give CPUs or memory, and the slurm, kueue or kai model)").at_least(0).in_unit("gpus").must(),
              integer("nodes", 0, "exact node count (0 = any)").at_least(0),
              integer("cpus", 0, "CPUs the job asks for in all (0 = not given: one per node; Slurm's job-size factor and TRES then use its GPUs)").at_least(0).at_most(2147483647),
              integer("mem_per_node_mib", 0, "memory per node (sbatch --mem; under kueue and kai: per pod; 0 = not given)").at_least(0).at_most(2147483647).in_unit("MiB"),
              integer("mem_per_cpu_mib", 0, "memory per CPU (sbatch --mem-per-cpu; 0 = not given)").at_least(0).at_most(2147483647).in_unit("MiB"),
              integer("mem_per_gpu_mib", 0, "memory per GPU (sbatch --mem-per-gpu; 0 = not given)").at_least(0).at_most(2147483647).in_unit("MiB"),
              string("user", "", "user"),
              string("account", "", "account"),
              string("class", "", "workload class (see class_rule)"),
              string("qos", "", "QOS or queue"),
              string("partition", "", "partition"),
              integer("priority", 0, "job priority hint"),
              number("deadline_s", nullptr, "absolute deadline").at_least(0).in_unit("s").or_null(),
              number("checkpoint_interval_s", 0.0, "checkpoint interval (0 = none)").at_least(0).in_unit("s"),
              boolean("preemptible", false, "may be preempted"),
              boolean("requeueable", true, "requeued (not killed) on preemption or node failure"),
              number("gpu_fraction", 0.0, "share of one GPU (KAI gpu-fraction; 0 = whole GPUs; needs gpus 1)").at_least(0).at_most(1),
              number("gpu_fraction_limit", 0.0, "burst maximum of the share (0 = the request)").at_least(0).at_most(1),
              integer("gpu_memory_mib", 0, "GPU memory asked instead of a fraction (KAI gpu-memory; share = it / cluster.gpu_memory_mib)").at_least(0).in_unit("MiB"),
              integer("gpu_memory_limit_mib", 0, "burst maximum of gpu_memory_mib (0 = the request)").at_least(0).in_unit("MiB")});
}

std::shared_ptr<const ObjectSpec> class_spec() {
  return obj("class", "a workload class and its guaranteed floor",
             {integer("floor_gpus", 0, "GPUs guaranteed to the class while it has demand").at_least(0).in_unit("gpus"),
              string("description", "", "free text")});
}

std::shared_ptr<const ObjectSpec> class_rule_spec() {
  return obj("class_rule", "how a job's class is derived",
             {choice("from", {"class", "account", "qos", "partition", "user"}, "class", "job field that names the class"),
              map_of("map", Type::String, "field value -> class name (values not listed keep their own name)"),
              string("default", "default", "class of jobs whose field is empty")});
}

std::shared_ptr<const ObjectSpec> engine_spec() {
  return obj("engine", "engine settings",
             {boolean("enforce_time_limit", true, "kill jobs at their time limit (state TIMEOUT)"),
              number("horizon_s", nullptr, "stop the simulation at this time (null = run to completion)").at_least(0).in_unit("s").or_null(),
              number("sched_interval_s", 0.0, "periodic scheduler pass while jobs wait (0 = on events only)").at_least(0).in_unit("s"),
              number("requeue_delay_s", 0.0, "a requeued job may restart only after this delay").at_least(0).in_unit("s"),
              boolean("check_invariants", false, "verify engine invariants after every event (sim/core/invariants.hpp)")});
}

std::shared_ptr<const ObjectSpec> failure_spec() {
  return obj("failure", "a node failure",
             {string("node", nullptr, "node name").must(),
              number("at_s", nullptr, "failure time").at_least(0).in_unit("s").must(),
              number("duration_s", nullptr, "time until it recovers (null = never)").at_least(0).in_unit("s").or_null()});
}

std::shared_ptr<const ObjectSpec> output_spec() {
  return obj("output", "what `run` writes",
             {boolean("timeline", true, "write timeline.csv"),
              boolean("jobs_csv", true, "write jobs.csv")});
}

std::shared_ptr<const ObjectSpec> rate_piece_spec() {
  return obj("rate_piece", "a window where a stream's rate is multiplied (quiet windows < 1, pile-ups > 1)",
             {number("from_s", nullptr, "window start").at_least(0).in_unit("s").must(),
              number("to_s", nullptr, "window end").at_least(0).in_unit("s").must(),
              number("multiplier", nullptr, "rate multiplier in the window").at_least(0).must()});
}

// A synthetic class generator (traces/synthetic.hpp); fields that a kind does not use are ignored.
std::shared_ptr<const ObjectSpec> generator_spec() {
  auto s = obj("generator", "one synthetic workload class",
               {string("name", nullptr, "class name (also the default user and account)").must(),
                choice("kind", {"deadline_batch", "stream", "gang", "burst"}, nullptr,
                       "deadline_batch: core shards then the stress grid; stream: Poisson requests; gang: multi-node jobs; burst: a pile of jobs").must(),
                string("user", "", "user (empty = the class name)"),
                string("account", "", "account (empty = the class name)"),
                string("qos", "", "QOS or queue"),
                string("core_qos", "", "deadline_batch: QOS of the core shards, e.g. one above the grid's so they finish first when the night runs late (empty = qos)"),
                string("partition", "", "partition"),
                integer("priority", 0, "job priority hint (core shards get one more)"),
                boolean("preemptible", false, "jobs may be preempted"),
                boolean("requeueable", true, "requeued (not killed) on preemption or node failure"),
                number("checkpoint_interval_s", 0.0, "checkpoint interval (0 = none)").at_least(0).in_unit("s"),
                number("start_s", 0.0, "first submission (stream: start of the arrival window)").at_least(0).in_unit("s"),
                number("end_s", nullptr, "stream: end of the arrival window").at_least(0).in_unit("s").or_null(),
                number("spread_s", 0.0, "gang/burst: submissions spread uniformly over this").at_least(0).in_unit("s"),
                number("grid_after_s", 0.0, "deadline_batch: grid shards are submitted this long after the core").at_least(0).in_unit("s"),
                number("fallback_at_s", nullptr, "deadline_batch reduced-set fallback: grid shards not started by then are dropped (null = never)").at_least(0).in_unit("s").or_null(),
                number("deadline_s", nullptr, "absolute deadline of every job (null = none)").at_least(0).in_unit("s").or_null(),
                integer("jobs", 0, "grid shards (deadline_batch) or jobs (gang, burst), before the load multiplier").at_least(0).at_most(10000000),
                integer("core_jobs", 0, "deadline_batch: core-scenario shards, run first").at_least(0).at_most(10000000),
                integer("gpus", 1, "GPUs per job").at_least(1).in_unit("gpus"),
                number("gpu_fraction", 0.0, "share of one GPU per job (KAI gpu-fraction; 0 = whole GPUs; needs gpus 1)").at_least(0).at_most(1),
                number("gpu_fraction_limit", 0.0, "burst maximum of the share (0 = the request)").at_least(0).at_most(1),
                integer("gpu_memory_mib", 0, "GPU memory per job instead of a fraction (KAI gpu-memory)").at_least(0).in_unit("MiB"),
                integer("gpu_memory_limit_mib", 0, "burst maximum of gpu_memory_mib (0 = the request)").at_least(0).in_unit("MiB"),
                integer("nodes", 0, "exact node count per job (0 = any)").at_least(0),
                number("runtime_s", 60.0, "mean runtime").at_least(1).in_unit("s"),
                number("runtime_jitter", 0.0, "runtime uniform in runtime_s x [1 - j, 1 + j]").at_least(0).at_most(0.99),
                number("time_limit_factor", 1.5, "requested time limit = runtime x this").at_least(1).at_most(1000),
                number("rate_per_s", 0.0, "stream: base arrival rate (before the multiplier)").at_least(0).in_unit("1/s"),
                array_of("profile", rate_piece_spec(), "stream: rate multipliers by window (first match wins)"),
                string("rate_file", "", "stream: replayed arrival rate, CSV time_s,rate_per_s (piecewise constant; relative to the scenario); replaces rate_per_s and profile"),
                number("paths_per_job", nullptr, "Monte Carlo paths a job revalues: its mean runtime is paths / (calibration's paths_per_s x gpus), replacing runtime_s").at_least(1),
                string("calibration", nullptr, "with paths_per_job: a file written by floorsim calibrate (relative to the scenario)")});
  s->check = [](const json& r, const std::string& ptr, const std::string& file) {
    if (!r["rate_file"].get<std::string>().empty()) {
      if (r["kind"] != "stream") fail(file, child(ptr, "rate_file"), "only a stream has a replayed rate; expected kind \"stream\"");
      if (r["rate_per_s"].get<double>() != 0 || (r.contains("profile") && !r["profile"].empty()))
        fail(file, child(ptr, "rate_file"), "a replayed rate replaces rate_per_s and profile; expected only one of them");
    }
    if (r.contains("paths_per_job") != r.contains("calibration"))
      fail(file, child(ptr, r.contains("paths_per_job") ? "calibration" : "paths_per_job"), "paths_per_job and calibration go together; expected both or neither");
    if (!r["core_qos"].get<std::string>().empty() && r["kind"] != "deadline_batch")
      fail(file, child(ptr, "core_qos"), "only a deadline_batch has core shards; expected kind \"deadline_batch\" or no core_qos");
    if (r["kind"] == "stream" && (r["end_s"].is_null() || r["end_s"].get<double>() <= r["start_s"].get<double>()))
      fail(file, child(ptr, "end_s"), "a stream needs end_s after start_s; expected a number > start_s");
  };
  return s;
}

std::shared_ptr<const ObjectSpec> synthetic_spec() {
  return obj("synthetic", "synthetic quant workload classes, generated deterministically from the scenario seed",
             {number("load_multiplier", 1.0, "scales every class's job count and stream rate (rehearse --growth searches it)").at_least(0).at_most(1000),
              integer("max_jobs", 10000000, "refuse a workload whose classes would generate more jobs than this, before generating any (a slip in a rate, a window or the multiplier would otherwise exhaust memory); raise it for a larger study").at_least(1),
              array_of("classes", generator_spec(), "class generators, in order").must()});
}

std::shared_ptr<const ObjectSpec> failure_model_spec() {
  return obj("failure_model", "random node failures from an MTBF (seeded)",
             {number("mtbf_s", nullptr, "mean time between failures of one node").at_least(1).in_unit("s").must(),
              number("repair_s", 3600.0, "time until a failed node recovers").at_least(0).in_unit("s"),
              number("from_s", 0.0, "failures may happen from").at_least(0).in_unit("s"),
              number("to_s", nullptr, "until").at_least(0).in_unit("s").must()});
}

std::shared_ptr<const ObjectSpec> capacity_block_spec() {
  auto s = obj("capacity_block", "cloud capacity booked ahead (EC2 Capacity Blocks for ML): extra nodes available only in a window",
               {string("prefix", nullptr, "node name prefix of the block").must(),
                integer("nodes", nullptr, "instances (nodes) in the block: 1 to 64").at_least(1).at_most(100000).must(),
                integer("gpus_per_node", 8, "GPUs per node").at_least(1).at_most(4096).in_unit("gpus"),
                number("from_s", nullptr, "the block becomes available").at_least(0).in_unit("s").must(),
                number("to_s", nullptr, "the block goes away (jobs on it are requeued)").at_least(0).in_unit("s").must(),
                integer("duration_days", nullptr, "duration bought: 1 to 14 days, or 21 to 182 in 7-day steps; the window must fit in it (null = the shortest covering the window)").at_least(1).in_unit("days").or_null(),
                number("booked_ahead_s", 0.0, "booked this long before from_s: at most eight weeks (4838400 s)").at_least(0).in_unit("s"),
                number("price_usd", nullptr, "the block's upfront price (null = priced by `floorsim cost` from its prices file)").at_least(0).in_unit("USD").or_null(),
                number("unavailable_probability", 0.0, "chance the block cannot be had on the night; drawn from the seed: a block not had never comes up").at_least(0).at_most(1)});
  s->check = [](const json& r, const std::string& ptr, const std::string& file) { check_capacity_block(r, ptr, file); };
  return s;
}

std::shared_ptr<const ObjectSpec> idle_pool_spec() {
  return obj("idle_pool", "the held-back idle pool controller, wrapped around the scheduler model",
             {choice("mode", {"hold", "on_demand"}, "hold",
                     "hold: keep `nodes` idle on a cron tick; on_demand: preempt LIFO when an interactive job arrives (comparison)"),
              integer("nodes", nullptr, "whole nodes kept idle for the interactive class").at_least(0).must(),
              number("interval_s", 60.0, "controller tick").at_least(1).in_unit("s"),
              string("for_class", "intraday", "the interactive class"),
              number("preempt_exempt_s", 0.0, "minimum run time before a job may be requeued (PreemptExemptTime)").at_least(0).in_unit("s")});
}

std::shared_ptr<const ObjectSpec> rehearse_spec() {
  return obj("rehearse", "targets of `floorsim rehearse` (ignored by `run`)",
             {array_of("deadline_classes", Type::String, "classes that must finish with margin (empty = every class with deadlines)"),
              number("min_margin_s", 1800.0, "required margin before each deadline").in_unit("s"),
              string("interactive_class", "intraday", "the latency-sensitive class"),
              number("p99_wait_target_s", 120.0, "its p99 wait must not exceed this").at_least(0).in_unit("s"),
              string("burst_class", "backtest", "the preemptible burst class"),
              integer("max_cascade_preemptions", 0, "preemptions caused by preempted jobs allowed").at_least(0),
              boolean("inject_failure", true, "fail one node part-way through when the scenario lists no failures"),
              number("failure_at_s", nullptr, "when (null = midway between the first submission and the last deadline)").at_least(0).in_unit("s").or_null(),
              string("failure_node", "", "which node (empty = the first node)"),
              number("failure_duration_s", 7200.0, "until it recovers").at_least(0).in_unit("s"),
              number("growth_max", 8.0, "--growth searches load multipliers up to this").at_least(1).at_most(1000),
              number("growth_tolerance", 0.02, "--growth stops when the bracket is this narrow (multiplier units)").at_least(1e-4).at_most(1)});
}

std::shared_ptr<const ObjectSpec> workload_spec() {
  auto s = obj("workload", "the jobs: a trace, inline jobs, or both",
               {object("trace", trace_spec(), "trace to replay").or_null(),
                array_of("jobs", job_spec(), "jobs given inline"),
                object("synthetic", synthetic_spec(), "synthetic quant classes (null = none)").or_null()});
  return s;
}

}  // namespace

std::shared_ptr<const ObjectSpec> scenario_spec() {
  auto s = obj("scenario", "a floorsim scenario",
               {string("name", "scenario", "scenario name (reported in metrics.json)"),
                string("description", "", "free text"),
                integer("seed", 1, "random seed for every stochastic part").at_least(0),
                object("cluster", cluster_spec(), "the cluster (may be left out when the slurm model's slurm.conf declares the nodes)"),
                object("workload", workload_spec(), "the jobs"),
                map_of("classes", class_spec(), "workload classes by name, with their floors"),
                object("class_rule", class_rule_spec(), "how jobs map to classes"),
                any("scheduler", "the scheduler model: {\"type\": one of the models, ...its parameters}")
                    .with_default(json{{"type", "easy_backfill"}}),
                object("engine", engine_spec(), "engine settings"),
                object("clock", clock_spec(), "the wall clock of t = 0"),
                array_of("failures", failure_spec(), "node failures"),
                object("output", output_spec(), "output files"),
                object("failure_model", failure_model_spec(), "random node failures (null = none)").or_null(),
                array_of("capacity_blocks", capacity_block_spec(), "capacity booked ahead for a window"),
                object("idle_pool", idle_pool_spec(), "held-back idle pool around the scheduler (null = none)").or_null(),
                object("delay_scheduling", delay::spec(), "delay scheduling (Dally) around the scheduler: consolidation levels, timers, spread-job slowdown (null = none)").or_null(),
                object("rehearse", rehearse_spec(), "targets of floorsim rehearse"),
                object("fabric", fabric_coupling_spec(),
                       "fabric contention stretches communicating jobs' runtimes (null = none)").or_null(),
                object("governance", governance_spec(), "change control: roles, class owners, loopholes"),
                array_of("changes", change_spec(), "policy change events: applied at their time if allowed, else rejected; see governance"),
                object("sharing", sharing_spec(), "GPU sharing: intraday request services beside the batch on node pools (absent = none)")});
  return s;
}

json scenario_schema() {
  json schema = json_schema(*scenario_spec());
  json one_of = json::array();
  for (const auto& e : scheduler_registry()) {
    json m = json_schema(*e.params());
    m.erase("$schema");
    m["description"] = e.doc;
    one_of.push_back(m);
  }
  schema["properties"]["scheduler"] = {{"oneOf", one_of}, {"default", {{"type", "easy_backfill"}}},
                                       {"description", "the scheduler model and its parameters"}};
  return schema;
}

}  // namespace floorsim::app
