#include "schedulers/registry.hpp"

#include "schedulers/baseline/baseline.hpp"
#include "schedulers/hybrid/hybrid.hpp"
#include "schedulers/kai/job_ask.hpp"
#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kueue/job_ask.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/slurm/slurm.hpp"

namespace floorsim {
namespace {

std::shared_ptr<const cfg::ObjectSpec> type_only(const std::string& type, const std::string& doc) {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "scheduler(" + type + ")";
  s->doc = doc;
  s->fields = {cfg::string("type", type, "scheduler model").must()};
  return s;
}

std::vector<SchedulerEntry> build_registry() {
  std::vector<SchedulerEntry> r;
  r.push_back({"fifo", "strict FIFO: the first job that does not fit blocks the queue",
               [] { return type_only("fifo", "strict FIFO, first-fit placement"); },
               [](const cfg::json&, const SchedulerContext&) { return baseline::make_fifo(); },
               {}});
  r.push_back({"easy_backfill", "EASY backfill: a reservation for the head job only, planned with time limits",
               [] { return type_only("easy_backfill", "EASY backfill, first-fit placement"); },
               [](const cfg::json&, const SchedulerContext&) { return baseline::make_easy_backfill(); },
               {}});
  r.push_back({"conservative_backfill", "conservative backfill: a reservation for every queued job",
               [] { return type_only("conservative_backfill", "conservative backfill, first-fit placement"); },
               [](const cfg::json&, const SchedulerContext&) { return baseline::make_conservative_backfill(); },
               {}});
  r.push_back({"kueue", "Kueue-like admission: ClusterQueues, cohorts, flavors, preemption, from Kueue YAML",
               kueue::kueue_params_spec, kueue::make_kueue, {},
               [](const cfg::json& p) -> SchedulerEntry::NodeAskOf { return [a = kueue::JobNodeAsk(p)](const JobSpec& js) { return a.of(js); }; }});
  r.push_back({"kai", "KAI-like scheduling: hierarchical queues (quota, over-quota weight, limit), fair share, reclaim, "
               "preempt, consolidation, GPU fractions, from KAI Queue YAML",
               kai::kai_params_spec, kai::make_kai, {},
               [](const cfg::json& p) -> SchedulerEntry::NodeAskOf { return [a = kai::JobAsk(p)](const JobSpec& js) { return a.node_ask(js); }; }});
  r.push_back(slurm::registry_entry());
  r.push_back(hybrid::registry_entry());
  return r;
}

}  // namespace

const std::vector<SchedulerEntry>& scheduler_registry() {
  static const std::vector<SchedulerEntry> registry = build_registry();  // immutable after init
  return registry;
}

const SchedulerEntry* find_scheduler(const std::string& type) {
  for (const auto& e : scheduler_registry())
    if (e.type == type) return &e;
  return nullptr;
}

}  // namespace floorsim
