// Kueue manifests -> the model (apis/kueue/v1beta1/*_types.go; kueue.sigs.k8s.io/docs/concepts
// cluster_queue, cohort, preemption, flavor fungibility).
#include "schedulers/kueue/manifest_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::kueue {
namespace {

Policy policy_of(const std::string& s) {
  if (s == "LowerPriority") return Policy::LowerPriority;
  if (s == "LowerOrNewerEqualPriority") return Policy::LowerOrNewerEqualPriority;
  if (s == "Any") return Policy::Any;
  return Policy::Never;
}

}  // namespace

bool resource_kind(const std::string& name, int& kind, double& scale) {
  if (name == "nvidia.com/gpu" || name == "gpu" || name == "amd.com/gpu") {
    kind = kGpu;
    scale = 1;
  } else if (name == "cpu") {
    kind = kCpu;
    scale = 1000;  // millicores
  } else if (name == "memory") {
    kind = kMemory;
    scale = 1.0 / 1048576.0;  // MiB
  } else {
    return false;
  }
  return true;
}

BuiltModel build_model(const Manifests& mf, const std::string& scen_file) {
  BuiltModel b;
  b.warnings = mf.warnings;
  Model& m = b.model;
  m.resources = 3;
  m.resource_names = {"nvidia.com/gpu", "cpu", "memory"};
  // Flavors: declared ones, in file order, then any referenced but undeclared (their CQ is
  // inactive, as in Kueue).
  std::map<std::string, int> flavor_id;
  for (const auto& f : mf.flavors) {
    if (flavor_id.count(f.name))
      throw InputError(f.pos.file, f.pos.where(), "ResourceFlavor " + f.name + " declared twice; expected unique names");
    flavor_id[f.name] = static_cast<int>(m.flavor_names.size());
    m.flavor_names.push_back(f.name);
  }
  const size_t declared_flavors = m.flavor_names.size();
  auto flavor = [&](const std::string& n) {
    auto it = flavor_id.find(n);
    if (it != flavor_id.end()) return it->second;
    flavor_id[n] = static_cast<int>(m.flavor_names.size());
    m.flavor_names.push_back(n);
    return flavor_id[n];
  };
  for (const auto& cq : mf.cluster_queues)
    for (const auto& g : cq.groups)
      for (const auto& f : g.flavors) flavor(f.flavor);
  for (const auto& co : mf.cohorts)
    for (const auto& g : co.groups)
      for (const auto& f : g.flavors) flavor(f.flavor);
  m.flavors = std::max<int>(1, static_cast<int>(m.flavor_names.size()));
  if (m.flavors * m.resources > kMaxFrs)
    throw InputError(scen_file, "", fmt::format("{} flavors x 3 resources exceed the model's {} flavor-resources; expected at most {} flavors",
                                                m.flavors, kMaxFrs, kMaxFrs / 3));
  m.tree = QuotaTree(m.flavors * m.resources);
  QuotaTree& t = m.tree;
  std::map<std::string, NodeId> cohort;
  for (const auto& co : mf.cohorts) {
    if (cohort.count(co.name))
      throw InputError(co.pos.file, co.pos.where(), "Cohort " + co.name + " declared twice; expected unique names");
    cohort[co.name] = t.add_cohort(co.name);
  }
  auto cohort_node = [&](const std::string& n) {  // undeclared name = implicit cohort (spec §1)
    auto it = cohort.find(n);
    if (it != cohort.end()) return it->second;
    return cohort[n] = t.add_cohort(n);
  };
  std::vector<int> inactive;  // CQ nodes made inactive
  auto set_groups = [&](NodeId n, const std::vector<ResourceGroupSpec>& groups, const SourcePos& pos,
                        std::vector<ResourceGroup>* out_groups) {
    for (const auto& g : groups) {
      ResourceGroup rg;
      for (const auto& r : g.covered) {
        int kind;
        double scale;
        if (!resource_kind(r, kind, scale))
          throw InputError(pos.file, pos.where(), "resource " + r + " is not modelled; expected nvidia.com/gpu, cpu or memory");
        rg.resources.push_back(kind);
      }
      for (const auto& f : g.flavors) {
        const int fl = flavor(f.flavor);
        rg.flavors.push_back(fl);
        for (const auto& q : f.resources) {
          int kind;
          double scale;
          if (!resource_kind(q.resource, kind, scale))
            throw InputError(pos.file, pos.where(), "resource " + q.resource + " is not modelled; expected nvidia.com/gpu, cpu or memory");
          auto conv = [&](double v) { return v < 0 ? kNoLimit : static_cast<Qty>(std::llround(v * scale)); };
          t.set_quota(n, m.fr(fl, kind), conv(q.nominal), conv(q.borrowing_limit), conv(q.lending_limit));
        }
      }
      if (out_groups) out_groups->push_back(std::move(rg));
    }
  };
  std::vector<CqConfig> cfgs;
  std::vector<NodeId> cq_nodes;
  for (const auto& cq : mf.cluster_queues) {
    if (b.cq_by_name.count(cq.name))
      throw InputError(cq.pos.file, cq.pos.where(), "ClusterQueue " + cq.name + " declared twice; expected unique names");
    const NodeId n = t.add_cq(cq.name);
    b.cq_by_name[cq.name] = n;
    CqConfig c;
    set_groups(n, cq.groups, cq.pos, &c.groups);
    c.strict_fifo = cq.queueing_strategy == "StrictFIFO";
    c.preemption.within = policy_of(cq.preemption.within);
    c.preemption.reclaim = policy_of(cq.preemption.reclaim);
    c.preemption.borrow_within_cohort = cq.preemption.bwc_policy == "LowerPriority";
    c.preemption.has_threshold = cq.preemption.has_threshold;
    c.preemption.threshold = cq.preemption.threshold;
    c.fungibility.borrow_try_next = cq.fungibility.when_can_borrow == "TryNextFlavor";
    c.fungibility.preempt_try_next = cq.fungibility.when_can_preempt == "TryNextFlavor";
    c.fungibility.preemption_over_borrowing = cq.fungibility.preference == "PreemptionOverBorrowing";
    c.fair_weight = cq.fair_weight;
    c.admission_fair_sharing = cq.admission_fair_sharing;
    for (const auto& g : cq.groups)
      for (const auto& f : g.flavors)
        if (static_cast<size_t>(flavor_id[f.flavor]) >= declared_flavors) {
          c.active = false;
          b.warnings.push_back(cq.pos.file + ":" + cq.pos.where() + ": ClusterQueue " + cq.name +
                               " uses undeclared ResourceFlavor " + f.flavor + "; it is inactive (as in Kueue)");
        }
    if (!cq.cohort.empty()) t.set_parent(n, cohort_node(cq.cohort));
    cfgs.push_back(c);
    cq_nodes.push_back(n);
  }
  for (const auto& co : mf.cohorts) {
    const NodeId n = cohort.at(co.name);
    set_groups(n, co.groups, co.pos, nullptr);
    if (!co.parent.empty()) t.set_parent(n, cohort_node(co.parent));
  }
  if (!t.finalize()) {
    const auto& co = mf.cohorts.empty() ? CohortObj{} : mf.cohorts.front();
    throw InputError(co.pos.file, co.pos.where(), "Cohort parentName links form a cycle; expected a tree (a cycle blocks admission in Kueue)");
  }
  m.cq.assign(t.size(), CqConfig{});
  for (size_t i = 0; i < cq_nodes.size(); ++i) m.cq[cq_nodes[i]] = cfgs[i];
  for (const auto& co : mf.cohorts) m.cq[cohort.at(co.name)].fair_weight = co.fair_weight;
  for (const auto& lq : mf.local_queues) {
    const std::string key = lq.ns + "/" + lq.name;
    if (!b.cq_by_name.count(lq.cluster_queue))
      b.warnings.push_back(lq.pos.file + ":" + lq.pos.where() + ": LocalQueue " + key + " points to unknown ClusterQueue " +
                           lq.cluster_queue + "; its workloads stay pending");
    b.lq_to_cq[key] = lq.cluster_queue;
    b.lq_weight[key] = lq.fair_weight;
  }
  for (const auto& rq : mf.resource_quotas)
    for (const auto& [res, v] : rq.hard) {
      if (res == "requests.nvidia.com/gpu" || res == "nvidia.com/gpu") {
        // Several quotas in one namespace: the tightest applies.
        const Qty q = static_cast<Qty>(std::floor(v + 1e-9));
        auto it = b.ns_gpu_ceiling.find(rq.ns);
        b.ns_gpu_ceiling[rq.ns] = it == b.ns_gpu_ceiling.end() ? q : std::min(it->second, q);
      } else {
        b.warnings.push_back(rq.pos.file + ":" + rq.pos.where() + ": ResourceQuota " + rq.ns + "/" + rq.name +
                             " hard." + res + " is not modelled (only requests.nvidia.com/gpu); ignored");
      }
    }
  for (const auto& p : mf.priority_classes) b.priority_classes[p.name] = p.value;
  return b;
}

}  // namespace floorsim::kueue
