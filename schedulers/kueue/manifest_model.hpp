#pragma once
// Kueue manifests -> the model: ResourceFlavors, ClusterQueues and Cohorts into the quota tree
// and CQ configs, LocalQueues, WorkloadPriorityClasses and ResourceQuota GPU ceilings, following
// apis/kueue/v1beta1/*_types.go and kueue.sigs.k8s.io/docs/concepts (cluster_queue, cohort).
#include <map>
#include <string>
#include <vector>

#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/model.hpp"

namespace floorsim::kueue {

enum ResKind { kGpu = 0, kCpu = 1, kMemory = 2 };

// Resource names Kueue manifests use -> our kinds, with the unit conversion from base units
// (cpu in millicores, memory in MiB). False for a resource the model does not have.
bool resource_kind(const std::string& name, int& kind, double& scale);

struct BuiltModel {
  Model model;
  std::vector<std::string> warnings;
  std::map<std::string, NodeId> cq_by_name;
  std::map<std::string, std::string> lq_to_cq;  // "ns/name" -> CQ name
  std::map<std::string, int32_t> priority_classes;
  std::map<std::string, double> lq_weight;      // "ns/name" -> fairSharing.weight
  std::map<std::string, Qty> ns_gpu_ceiling;    // namespace -> ResourceQuota hard GPUs
};

// Throws InputError (file:line) for duplicate names, unmodelled quota resources, too many
// flavors or a Cohort cycle; what is read but not modelled goes to `warnings`.
BuiltModel build_model(const Manifests& mf, const std::string& scen_file);

}  // namespace floorsim::kueue
