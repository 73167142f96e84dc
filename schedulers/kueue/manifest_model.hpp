#pragma once
// Kueue manifests -> the model: ResourceFlavors, ClusterQueues and Cohorts into the quota tree
// and CQ configs, LocalQueues, WorkloadPriorityClasses and ResourceQuota GPU ceilings, following
// apis/kueue/v1beta1/*_types.go and kueue.sigs.k8s.io/docs/concepts (cluster_queue, cohort).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/model.hpp"
#include "schedulers/kueue/provisioning.hpp"

namespace floorsim::kueue {

enum ResKind { kGpu = 0, kCpu = 1, kMemory = 2 };  // fixed kinds; other names follow, in order of appearance

// Resource names Kueue manifests use -> our kinds, with the unit conversion from base units
// (cpu in millicores, memory in MiB, any other resource as counted). The three fixed names
// first; any other name is looked up in `names` (the model's resource_names). False when the
// name is in neither.
bool resource_kind(const std::string& name, int& kind, double& scale, const std::vector<std::string>& names = {});

struct BuiltModel {
  Model model;
  std::vector<std::string> warnings;
  std::map<std::string, NodeId> cq_by_name;
  std::map<std::string, std::string> lq_to_cq;  // "ns/name" -> CQ name
  std::map<std::string, int32_t> priority_classes;
  std::map<std::string, double> lq_weight;      // "ns/name" -> fairSharing.weight
  std::map<std::string, Qty> ns_gpu_ceiling;    // namespace -> ResourceQuota hard GPUs
  std::map<std::string, std::string> lq_held;   // "ns/name" -> why its workloads are never admitted
  std::map<std::string, ProvisioningCheck> cq_provisioning;  // ClusterQueue -> its ProvisioningRequest check
  std::vector<ResourceFlavorObj> flavors;       // by flavor id (declared ones; taints, tolerations, labels)
  std::map<std::string, TopologyObj> topologies;  // by name
};

// Throws InputError (file:line) for duplicate names, unmodelled quota resources, too many
// flavors or a Cohort cycle; what is read but not modelled goes to `warnings`.
// Bit f: declared flavor f has a NoSchedule or NoExecute nodeTaint that neither the pods'
// tolerations nor the flavor's own tolerations tolerate, so flavor assignment skips it
// (pkg/scheduler/flavorassigner checkFlavorForPodSets; PreferNoSchedule is ignored there).
uint64_t untolerated_flavors(const std::vector<ResourceFlavorObj>& flavors, const std::vector<Toleration>& pod);

// `job_resources` names resources the jobs request (the scheduler block) so that they have a
// kind even where no quota covers them (Kueue then finds no flavor: the workload stays pending).
BuiltModel build_model(const Manifests& mf, const std::string& scen_file, const std::vector<std::string>& job_resources = {});

}  // namespace floorsim::kueue
