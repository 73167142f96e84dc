#pragma once
// Reads real Kueue (kueue.x-k8s.io) and KAI (scheduling.run.ai) YAML manifests with yaml-cpp:
// ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, Topology, AdmissionCheck, v1 ResourceQuota
// and KAI Queue, several documents per file. Unknown fields are warnings (file:line); wrong
// types and bad values are InputError with file and line.
#include <map>
#include <string>
#include <vector>

#include "schedulers/kueue/quota_tree.hpp"

namespace floorsim::kueue {

struct SourcePos {
  std::string file;
  int line = 0;  // 1-based
  std::string where() const { return std::to_string(line); }
};

struct QuotaSpec {
  std::string resource;
  double nominal = 0;              // in the resource's base unit (cores, bytes, devices)
  double borrowing_limit = -1;     // -1 = nil
  double lending_limit = -1;       // -1 = nil
};
struct FlavorQuotas {
  std::string flavor;
  std::vector<QuotaSpec> resources;
};
struct ResourceGroupSpec {
  std::vector<std::string> covered;
  std::vector<FlavorQuotas> flavors;
};
struct PreemptionSpec {
  std::string within = "Never", reclaim = "Never", bwc_policy = "Never";
  bool has_threshold = false;
  int32_t threshold = 0;
};
struct FungibilitySpec {
  std::string when_can_borrow = "MayStopSearch", when_can_preempt = "TryNextFlavor";
  std::string preference;  // "" = BorrowingOverPreemption
};

// core/v1 Taint and Toleration, as ResourceFlavor.spec.nodeTaints / tolerations carry them.
struct Taint {
  std::string key, value, effect;  // effect: NoSchedule, PreferNoSchedule or NoExecute
};
struct Toleration {
  std::string key, op = "Equal", value, effect;  // op: Equal or Exists; "" key/effect match all
};
// Does `t` tolerate `taint` (k8s.io/api core/v1 Toleration.ToleratesTaint)?
bool tolerates(const Toleration& t, const Taint& taint);
// "key=value:Effect" (Equal), "key:Effect" or "key" (Exists); false if malformed.
bool parse_toleration(const std::string& s, Toleration& out);

struct ResourceFlavorObj {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<Taint> taints;
  std::vector<Toleration> tolerations;
  std::string topology;  // spec.topologyName: a TAS flavor (schedulers/kueue/tas.hpp)
  SourcePos pos;
};
struct ClusterQueueObj {
  std::string name, cohort, queueing_strategy = "BestEffortFIFO";
  std::vector<ResourceGroupSpec> groups;
  PreemptionSpec preemption;
  FungibilitySpec fungibility;
  double fair_weight = 1;
  bool admission_fair_sharing = false;  // admissionScope.admissionMode == UsageBasedAdmissionFairSharing
  std::string stop_policy = "None";     // None, Hold or HoldAndDrain
  std::vector<std::string> admission_checks;  // names, from admissionChecks or admissionChecksStrategy
  bool namespace_selector = false;  // spec.namespaceSelector present (null selects no namespace)
  SourcePos pos;
};
struct CohortObj {
  std::string name, parent;
  std::vector<ResourceGroupSpec> groups;
  double fair_weight = 1;
  SourcePos pos;
};
struct LocalQueueObj {
  std::string ns, name, cluster_queue;
  std::string stop_policy = "None";  // None, Hold or HoldAndDrain
  double fair_weight = 1;
  SourcePos pos;
};
struct PriorityClassObj {
  std::string name;
  int32_t value = 0;
  SourcePos pos;
};
struct ResourceQuotaObj {  // core/v1 ResourceQuota: a namespace ceiling, not capacity
  std::string ns, name;
  std::map<std::string, double> hard;  // e.g. "requests.nvidia.com/gpu" -> 8
  SourcePos pos;
};
struct KaiQueueObj {  // scheduling.run.ai/v2 Queue
  std::string name, parent;
  int32_t priority = 100;
  struct Res {
    double quota = 0, over_quota_weight = 1, limit = -1;
  };
  Res gpu, cpu, memory;
  double preempt_min_runtime_s = -1, reclaim_min_runtime_s = -1;  // -1 = not set (inherit)
  SourcePos pos;
};
// kueue.x-k8s.io AdmissionCheck: its controller (kueue.x-k8s.io/provisioning-request,
// kueue.x-k8s.io/multikueue, or another) and, for ProvisioningRequest, its config's name.
struct AdmissionCheckObj {
  std::string name, controller, parameters_kind, parameters_name;
  SourcePos pos;
};

// kueue.x-k8s.io ProvisioningRequestConfig (apis/kueue/v1beta2/provisioningrequestconfig_types.go):
// the resources it manages (empty = all) and its retryStrategy, defaulted as the API does.
struct ProvisioningConfigObj {
  std::string name, class_name;
  std::vector<std::string> managed_resources;
  int32_t backoff_limit_count = 3;
  double backoff_base_s = 60, backoff_max_s = 1800;
  SourcePos pos;
};

// kueue.x-k8s.io Topology: node label keys of the hierarchy, top first (spec.levels[].nodeLabel).
struct TopologyObj {
  std::string name;
  std::vector<std::string> levels;
  SourcePos pos;
};

struct Manifests {
  std::vector<ResourceFlavorObj> flavors;
  std::vector<ClusterQueueObj> cluster_queues;
  std::vector<CohortObj> cohorts;
  std::vector<LocalQueueObj> local_queues;
  std::vector<PriorityClassObj> priority_classes;
  std::vector<ResourceQuotaObj> resource_quotas;
  std::vector<KaiQueueObj> kai_queues;
  std::vector<AdmissionCheckObj> admission_checks;
  std::vector<TopologyObj> topologies;
  std::vector<ProvisioningConfigObj> provisioning_configs;
  std::vector<std::string> warnings;  // "file:line: unknown field spec.foo (ignored)"
};

// Parses every document of `path` into `out` (appending). `display` names the file in errors.
void load_manifest_file(const std::string& path, const std::string& display, Manifests& out);
// Kubernetes duration ("30s", "5m", "1h30m", "2h45m10.5s") in seconds; false if malformed.
bool parse_duration(const std::string& s, double& out_s);
// Same, from text (tests).
void load_manifest_text(const std::string& text, const std::string& display, Manifests& out);

// Kubernetes quantity ("4", "500m", "16Gi", "1.5", "2e3") in base units; false if malformed.
bool parse_quantity(const std::string& s, double& out);

}  // namespace floorsim::kueue
