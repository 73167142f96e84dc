// The kueue model's scheduler block: its keys, defaults and checks (cfg::ObjectSpec).
#include <fmt/format.h>

#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"

namespace floorsim::kueue {

// A request quantity in the scheduler block: a number, or a Kubernetes quantity string
// ("64Gi", "500m"); checked when the block is resolved.
double request_quantity(const cfg::json& q) {
  double v = -1;
  if (q.is_number()) v = q.get<double>();
  else if (q.is_string() && !parse_quantity(q.get<std::string>(), v)) v = -1;
  return v;
}

std::shared_ptr<const cfg::ObjectSpec> kueue_params_spec() {
  auto gates = std::make_shared<cfg::ObjectSpec>();
  gates->name = "kueue.feature_gates";
  gates->doc = "Kueue feature gates named in the spec";
  gates->fields = {
      cfg::boolean("PrioritySortingWithinCohort", true, "order the cycle's heads by priority after borrow level (Kueue feature gate)"),
      cfg::boolean("FairSharingPreemptWithinNominal", true, "fair sharing: a preemptor within nominal takes victims unconditionally (Kueue feature gate)"),
      cfg::boolean("FairSharingPrioritizeNonBorrowing", true, "fair sharing admission: non-borrowing entries first (Kueue feature gate)"),
      cfg::boolean("AdmissionFairSharing", true, "admission fair sharing may be enabled (on since Kueue v0.15)"),
      cfg::boolean("PartialAdmission", true, "a workload with a PodSet minCount may be admitted with fewer pods (beta, on by default)"),
  };
  auto wfpr = std::make_shared<cfg::ObjectSpec>();
  wfpr->name = "kueue.wait_for_pods_ready";
  wfpr->doc = "Kueue Configuration waitForPodsReady (v1beta2 defaults; Kueue docs: Setup All-or-nothing with ready Pods)";
  wfpr->fields = {
      cfg::boolean("enable", true, "evict a workload admitted but not running after timeout_s (on by default in v1beta2)"),
      cfg::number("timeout_s", 1800, "timeout").at_least(1).in_unit("s"),
      cfg::boolean("block_admission", false, "admit nothing while an admitted workload is not yet running"),
      cfg::choice("requeuing_timestamp", {"Eviction", "Creation"}, "Eviction",
                  "queue-order timestamp after a timeout eviction: the eviction time or the creation time"),
      cfg::number("backoff_base_s", 60, "requeue delay after the n-th timeout: min(base 2^(n-1), max)").at_least(0).in_unit("s"),
      cfg::number("backoff_max_s", 3600, "longest requeue delay").at_least(0).in_unit("s"),
      cfg::integer("backoff_limit_count", nullptr, "timeouts before the workload is deactivated (null = requeue forever)")
          .at_least(0).or_null(),
  };
  auto afs = std::make_shared<cfg::ObjectSpec>();
  afs->name = "kueue.admission_fair_sharing";
  afs->doc = "Kueue Configuration admissionFairSharing (Kueue docs: Admission Fair Sharing); applies to ClusterQueues with "
             "admissionScope.admissionMode UsageBasedAdmissionFairSharing";
  afs->fields = {
      cfg::boolean("enable", false, "order heads by their LocalQueue's decayed usage / LocalQueue weight"),
      cfg::number("usage_half_life_s", 604800, "usageHalfLifeTime").at_least(1).in_unit("s"),
      cfg::number("usage_sampling_interval_s", 300, "usageSamplingInterval").at_least(1).in_unit("s"),
      cfg::map_of("resource_weights", cfg::Type::Number,
                  "resourceWeights: nvidia.com/gpu (devices), cpu (millicores), memory (MiB), any other resource "
                  "(as counted) -> weight (default 1)")
          .with_default(cfg::json::object()),
  };
  afs->check = [](const cfg::json& r, const std::string& ptr, const std::string& file) {
    for (const auto& [res, w] : r.at("resource_weights").items()) {
      if (w.get<double>() < 0)
        cfg::fail(file, cfg::child(cfg::child(ptr, "resource_weights"), res), "negative weight; expected >= 0");
    }
  };
  auto fs = std::make_shared<cfg::ObjectSpec>();
  fs->name = "kueue.fair_sharing";
  fs->doc = "Kueue Configuration fairSharing (Kueue docs: Fair Sharing)";
  fs->fields = {
      cfg::boolean("enable", false, "fair sharing: DRS-ordered admission and fair preemption instead of classical"),
      cfg::array_of("preemption_strategies", cfg::Type::String,
                    "LessThanOrEqualToFinalShare (S2-a) and/or LessThanInitialShare (S2-b), in order")
          .with_default(cfg::json::array({"LessThanOrEqualToFinalShare", "LessThanInitialShare"})),
  };
  fs->check = [](const cfg::json& r, const std::string& ptr, const std::string& file) {
    const auto& st = r.at("preemption_strategies");
    const bool ok = st == cfg::json::array({"LessThanOrEqualToFinalShare"}) || st == cfg::json::array({"LessThanInitialShare"}) ||
                    st == cfg::json::array({"LessThanOrEqualToFinalShare", "LessThanInitialShare"});
    if (!ok)
      cfg::fail(file, cfg::child(ptr, "preemption_strategies"),
                "got " + st.dump() + "; expected [S2a], [S2b] or [S2a, S2b] with S2a = LessThanOrEqualToFinalShare, "
                "S2b = LessThanInitialShare");
  };
  auto prov = cfg::obj("kueue.provisioning_request",
                       "ProvisioningRequest admission checks (Kueue docs: Provisioning Admission Check)",
                       {cfg::number("delay_s", 0, "from quota reservation to the end of a provisioning attempt; the pods "
                                                  "are created then (0 = the check passes at once)").at_least(0).in_unit("s"),
                        cfg::number("failure_probability", 0, "chance an attempt fails (drawn from the scenario seed, per job "
                                                              "and attempt); retries follow the ProvisioningRequestConfig's "
                                                              "retryStrategy").at_least(0).at_most(1)});
  prov->check = [](const cfg::json& r, const std::string& ptr, const std::string& file) {
    if (r.at("failure_probability").get<double>() > 0 && r.at("delay_s").get<double>() <= 0)
      cfg::fail(file, cfg::child(ptr, "failure_probability"),
                "a failing attempt needs time to fail; expected delay_s > 0 with failure_probability > 0");
  };
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->check = [](const cfg::json& r, const std::string& ptr, const std::string& file) {
    for (const char* key : {"requests_per_job", "requests_per_gpu"})
      for (const auto& [res, q] : r.at(key).items())
        if (request_quantity(q) < 0)
          cfg::fail(file, cfg::child(cfg::child(ptr, key), res),
                    "got " + q.dump() + "; expected a non-negative quantity (a number, or a string such as \"64Gi\", \"500m\")");
    for (const auto& [lq, list] : r.at("tolerations").items()) {
      if (!list.is_array())
        cfg::fail(file, cfg::child(cfg::child(ptr, "tolerations"), lq), "got " + list.dump() + "; expected a list of tolerations");
      for (size_t i = 0; i < list.size(); ++i)
        if (!list[i].is_string())
          cfg::fail(file, cfg::child(cfg::child(cfg::child(ptr, "tolerations"), lq), i),
                    "got " + list[i].dump() + "; expected a string key=value:Effect, key:Effect or key");
    }
  };
  s->name = "scheduler(kueue)";
  s->doc = "Kueue-like admission: ClusterQueues, cohorts, flavors, preemption (Kueue docs: Concepts)";
  s->fields = {
      cfg::string("type", "kueue", "scheduler model").must(),
      cfg::array_of("manifests", cfg::Type::String,
                    "Kueue YAML files (ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass), "
                    "relative to the scenario file").must(),
      cfg::choice("queue_from", {"class", "account", "user", "qos", "partition"}, "class",
                  "job field whose value selects the LocalQueue"),
      cfg::map_of("queue_map", cfg::Type::String,
                  "value -> \"namespace/localqueue\" (\"*\" = any other value); without an entry the value itself "
                  "names the LocalQueue in namespace default").with_default(cfg::json::object()),
      cfg::map_of("priority_classes", cfg::Type::String,
                  "job class -> WorkloadPriorityClass name; other jobs keep their trace priority")
          .with_default(cfg::json::object()),
      cfg::choice("admission_rule", {"sequential", "legacy_one_borrower_per_cohort"}, "sequential",
                  "sequential admission against one snapshot (modern) or at most one borrowing admission per "
                  "cohort per cycle (kueue <= v0.4)"),
      cfg::number("eviction_grace_s", 30, "time an evicted workload keeps its GPUs and quota before it stops")
          .at_least(0).in_unit("s"),
      cfg::boolean("charge_cpu", false, "also charge the CPUs of jobs with GPUs (as millicores) against cpu quota; a CPU-only job's CPUs are always its cpu request, and every job's mem_per_*_mib its memory request"),
      cfg::string("gpu_resource", "nvidia.com/gpu",
                  "resource the job's GPUs are charged as (e.g. nvidia.com/mig-1g.10gb, example.com/gpu); \"\" = GPUs charge "
                  "no quota"),
      cfg::map_of("requests_per_job", cfg::Type::Any,
                  "resource -> quantity every job requests (e.g. {\"pods\": 1, \"memory\": \"16Gi\"}); any resource name")
          .with_default(cfg::json::object()),
      cfg::map_of("requests_per_gpu", cfg::Type::Any,
                  "resource -> quantity a job requests per GPU (e.g. {\"cpu\": 8, \"memory\": \"64Gi\"})")
          .with_default(cfg::json::object()),
      cfg::object("provisioning_request", prov, "ProvisioningRequest admission checks"),
      cfg::map_of("tolerations", cfg::Type::Any,
                  "LocalQueue (\"namespace/name\", \"*\" = any other) -> the tolerations of its workloads' pods, each "
                  "key=value:Effect (Equal), key:Effect or key (Exists); a ResourceFlavor whose nodeTaints they do not "
                  "tolerate is skipped").with_default(cfg::json::object()),
      cfg::map_of("job_annotations", cfg::Type::Any,
                  "job class -> the Kueue annotations its jobs carry: kueue.x-k8s.io/podset-required-topology, "
                  "podset-preferred-topology (a Topology level, e.g. kubernetes.io/hostname), "
                  "podset-unconstrained-topology (\"true\"), job-min-parallelism (pods)")
          .with_default(cfg::json::object()),
      cfg::map_of("job_podsets", cfg::Type::Any,
                  "job class -> the PodSets of its workloads, in order, each {name, count (pods, or \"job\": the job's "
                  "own pods, which carry its GPUs; exactly one), requests (resource -> quantity per pod), min_count "
                  "(partial admission; at most one PodSet)}").with_default(cfg::json::object()),
      cfg::choice("partial_admission_runtime", {"scaled", "unchanged"}, "scaled",
                  "a job admitted with fewer pods: scaled = its work is conserved, runtime x requested / admitted pods "
                  "(a batch Job's completions stay fixed); unchanged = its trace runtime"),
      cfg::map_of("flavor_nodes", cfg::Type::String,
                  "ResourceFlavor -> node name prefix: a workload assigned that flavor runs only on those nodes, "
                  "whatever its nodeLabels (flavors not listed: the nodes their nodeLabels select, or any node)").with_default(cfg::json::object()),
      cfg::choice("placement", {"admit_then_place", "place_at_admission"}, "admit_then_place",
                  "admit_then_place: admission reserves quota and the pods then wait for nodes (Kueue); "
                  "place_at_admission: admit only when nodes are free now"),
      cfg::object("wait_for_pods_ready", wfpr, "waitForPodsReady"),
      cfg::object("admission_fair_sharing", afs, "admission fair sharing"),
      cfg::object("feature_gates", gates, "feature gates"),
      cfg::object("fair_sharing", fs, "fair sharing"),
  };
  return s;
}

}  // namespace floorsim::kueue
