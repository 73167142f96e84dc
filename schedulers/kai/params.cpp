// The kai scheduler block: its keys, defaults and cross-key checks (docs/scenario.md is
// generated from this table).
#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"

namespace floorsim::kai {

std::shared_ptr<const cfg::ObjectSpec> kai_params_spec() {
  auto minruntime = cfg::obj(
      "kai.minruntime", "the minruntime plugin's arguments; a Queue's preemptMinRuntime / reclaimMinRuntime override them",
      {cfg::number("default_preempt_min_runtime_s", 0, "defaultPreemptMinRuntime: a job younger than this is not a preempt victim")
           .at_least(0).in_unit("s"),
       cfg::number("default_reclaim_min_runtime_s", 0, "defaultReclaimMinRuntime: a job younger than this is not a reclaim victim")
           .at_least(0).in_unit("s"),
       cfg::choice("reclaim_resolve_method", {"lca", "queue"}, "lca",
                   "reclaimResolveMethod: which queue's reclaimMinRuntime applies (below the lowest common ancestor, or "
                   "the victim's own)")});
  auto usage = cfg::obj(
      "kai.usage_params", "usageParams of the SchedulingShard's usageDBConfig (KAI docs: timeaware)",
      {cfg::number("half_life_period_s", 0, "halfLifePeriod: usage this old counts half (0 = no decay)")
           .at_least(0).in_unit("s"),
       cfg::number("window_size_s", 604800, "windowSize: the span of history considered (KAI default one week)")
           .in_unit("s"),
       cfg::choice("window_type", {"sliding", "tumbling", "cron"}, "sliding",
                   "windowType: the last window_size_s (sliding) or since the last reset at "
                   "tumbling_window_start_s + k x window_size_s (tumbling); cron windows are not modelled"),
       cfg::number("tumbling_window_start_s", 0, "tumblingWindowStartTime, in simulated time").at_least(0).in_unit("s")});
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "scheduler(kai)";
  s->doc = "KAI-like scheduling: hierarchical queues with quota, over-quota weight and limit, fair share, GPU fractions "
           "(KAI Scheduler docs: queues, fairness, GPU sharing)";
  s->fields = {
      cfg::string("type", "kai", "scheduler model").must(),
      cfg::array_of("manifests", cfg::Type::String,
                    "KAI Queue YAML files (scheduling.run.ai/v2 Queue), relative to the scenario file").must(),
      cfg::choice("queue_from", {"class", "account", "user", "qos", "partition"}, "class",
                  "job field whose value selects the leaf queue"),
      cfg::map_of("queue_map", cfg::Type::String,
                  "value -> leaf Queue name (\"*\" = any other value); without an entry the value itself names the queue")
          .with_default(cfg::json::object()),
      cfg::map_of("priority_classes", cfg::Type::String,
                  "job class -> KAI priority class (train 50, build-preemptible 75, build 100, inference 125); other "
                  "jobs keep their trace priority")
          .with_default(cfg::json::object()),
      cfg::map_of("preemptibility", cfg::Type::String,
                  "job class -> preemptible | non-preemptible (podgroup preemptibility); other jobs are preemptible "
                  "iff priority < 100")
          .with_default(cfg::json::object()),
      cfg::boolean("gpu_sharing", false,
                   "pack fractional jobs (gpu_fraction / gpu_memory_mib) onto shared GPUs (KAI global.gpuSharing); "
                   "off: a fractional job holds a whole GPU"),
      cfg::array_of("actions", cfg::Type::String, "actions run each session, in KAI's order (a subset of allocate, "
                                                  "consolidation, reclaim, preempt)")
          .with_default(cfg::json::array({"allocate", "consolidation", "reclaim", "preempt"})),
      cfg::number("reclaimer_utilization_multiplier", 1.0,
                  "reclaim: the reclaimer's saturation times this must stay below the victim queue's").at_least(1),
      cfg::integer("consolidation_max_preemptees", 16, "consolidation: most jobs moved for one pending job").at_least(1),
      cfg::object("minruntime", minruntime, "the minruntime plugin (KAI docs: plugins/minruntime)"),
      cfg::number("eviction_grace_s", 0, "time an evicted job keeps its GPUs and quota before it stops")
          .at_least(0).in_unit("s"),
      cfg::boolean("time_aware_fairness", false,
                   "time-aware fairness (KAI docs: timeaware): historical usage lowers a queue's over-quota share "
                   "(KAI: a usageDBConfig on the SchedulingShard; off without one)"),
      cfg::number("k_value", 1.0, "kValue: weight of historical usage in the over-quota division "
                                  "(max(0, w + k(w - usage)))").at_least(0),
      cfg::object("usage_params", usage, "usageDBConfig.usageParams: the window and decay of historical usage"),
      cfg::number("session_period_s", 0, "schedulePeriod: a session this often while jobs wait (0 = a session at each "
                                         "job event only; KAI runs one every second)").at_least(0).in_unit("s"),
      cfg::map_of("requests_per_job", cfg::Type::Any,
                  "cpu / memory every job requests (e.g. {\"cpu\": 2, \"memory\": \"16Gi\"}), charged against the "
                  "Queues' cpu (millicores) and memory (MB) quotas and limits").with_default(cfg::json::object()),
      cfg::map_of("requests_per_gpu", cfg::Type::Any,
                  "cpu / memory a job requests per GPU (e.g. {\"cpu\": 8, \"memory\": \"64Gi\"})")
          .with_default(cfg::json::object()),
  };
  s->check = [](const cfg::json& r, const std::string& ptr, const std::string& file) {
    static const char* kOrder[] = {"allocate", "consolidation", "reclaim", "preempt"};
    size_t next = 0;
    for (size_t i = 0; i < r.at("actions").size(); ++i) {
      const std::string a = r.at("actions")[i].get<std::string>();
      size_t k = next;
      while (k < 4 && a != kOrder[k]) ++k;
      if (k == 4)
        cfg::fail(file, cfg::child(cfg::child(ptr, "actions"), i),
                  "got " + a + "; expected allocate, consolidation, reclaim, preempt, each at most once and in that order");
      next = k + 1;
    }
    for (const char* key : {"requests_per_job", "requests_per_gpu"})
      for (const auto& [res, q] : r.at(key).items()) {
        if (res != "cpu" && res != "memory")
          cfg::fail(file, cfg::child(cfg::child(ptr, key), res),
                    "resource " + res + " is not divided by KAI queues; expected cpu or memory (GPUs come from the job)");
        if (kueue::request_quantity(q) < 0)
          cfg::fail(file, cfg::child(cfg::child(ptr, key), res),
                    "got " + q.dump() + "; expected a non-negative quantity (a number, or a string such as \"64Gi\", \"500m\")");
      }
    const auto& up = r.at("usage_params");
    if (up.at("window_type") == "cron")
      cfg::fail(file, cfg::child(cfg::child(ptr, "usage_params"), "window_type"),
                "cron windows are not modelled (no wall clock in simulated time); expected sliding or tumbling");
    if (!(up.at("window_size_s").get<double>() > 0))
      cfg::fail(file, cfg::child(cfg::child(ptr, "usage_params"), "window_size_s"),
                "got " + up.at("window_size_s").dump() + "; expected a window longer than 0 s");
    for (auto it = r.at("preemptibility").begin(); it != r.at("preemptibility").end(); ++it)
      if (it.value() != "preemptible" && it.value() != "non-preemptible")
        cfg::fail(file, cfg::child(cfg::child(ptr, "preemptibility"), it.key()),
                  "got " + it.value().dump() + "; expected preemptible or non-preemptible");
  };
  return s;
}

}  // namespace floorsim::kai
