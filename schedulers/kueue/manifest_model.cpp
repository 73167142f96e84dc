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

// A ClusterQueue's admission checks (admissionchecks docs): one naming no AdmissionCheck makes
// the ClusterQueue inactive, as in Kueue; the controllers themselves are not simulated.
bool admission_checks_ok(const Manifests& mf, const ClusterQueueObj& cq, std::vector<std::string>& warnings,
                         std::map<std::string, ProvisioningCheck>& provisioning) {
  bool ok = true;
  const std::string at = cq.pos.file + ":" + cq.pos.where() + ": ClusterQueue " + cq.name;
  for (const auto& name : cq.admission_checks) {
    auto it = std::find_if(mf.admission_checks.begin(), mf.admission_checks.end(),
                           [&](const AdmissionCheckObj& a) { return a.name == name; });
    if (it == mf.admission_checks.end()) {
      warnings.push_back(at + " names AdmissionCheck " + name + ", which is not in the manifests; it is inactive (as in Kueue)");
      ok = false;
    } else if (it->controller == "kueue.x-k8s.io/multikueue") {
      warnings.push_back(at + ": AdmissionCheck " + name + " (MultiKueue) is not modelled; workloads run on this cluster's nodes");
    } else if (it->controller == "kueue.x-k8s.io/provisioning-request") {
      ProvisioningCheck pc;
      if (std::string why = resolve_provisioning(mf, *it, pc); !why.empty()) {
        warnings.push_back(at + ": AdmissionCheck " + name + " (ProvisioningRequest): " + why +
                           "; the check is inactive, so is the ClusterQueue (as in Kueue)");
        ok = false;
      } else if (provisioning.count(cq.name)) {
        warnings.push_back(at + ": AdmissionCheck " + name + " is a second ProvisioningRequest check; only " +
                           provisioning.at(cq.name).check + " is modelled");
      } else {
        warnings.push_back(at + ": AdmissionCheck " + name + " (ProvisioningRequest): provisioning is modelled as a delay "
                                "(scheduler.provisioning_request.delay_s, default 0: the check passes at once) that fails "
                                "with probability failure_probability, on the nodes already in the cluster; retries follow "
                                "ProvisioningRequestConfig " + pc.config + " retryStrategy");
        provisioning.emplace(cq.name, pc);
      }
    } else {
      warnings.push_back(at + ": AdmissionCheck " + name + " (controller " + it->controller +
                         ") is not modelled; the check is taken as passing at once");
    }
  }
  return ok;
}

}  // namespace

bool resource_kind(const std::string& name, int& kind, double& scale, const std::vector<std::string>& names) {
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
    // pods, extended resources (MIG profiles, example.com/gpu), DRA device classes: counted.
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end() || it - names.begin() < 3) return false;
    kind = static_cast<int>(it - names.begin());
    scale = 1;
  }
  return true;
}

namespace {

// Every resource name the manifests and jobs use, after the three fixed ones, in order of
// appearance; InputError past the model's kMaxRes kinds.
std::vector<std::string> resource_names(const Manifests& mf, const std::vector<std::string>& job_resources,
                                        const std::string& scen_file) {
  std::vector<std::string> names = {"nvidia.com/gpu", "cpu", "memory"};
  SourcePos at{scen_file, 0};
  auto add = [&](const std::string& r, const SourcePos& pos) {
    int kind;
    double scale;
    if (resource_kind(r, kind, scale, names)) return;
    if (names.size() >= static_cast<size_t>(kMaxRes))
      throw InputError(pos.file, pos.line ? pos.where() : "",
                       fmt::format("resource {} is one more than the {} resource names one model holds; expected at most {} "
                                   "names besides nvidia.com/gpu, cpu and memory",
                                   r, kMaxRes, kMaxRes - 3));
    names.push_back(r);
  };
  auto groups = [&](const std::vector<ResourceGroupSpec>& gs, const SourcePos& pos) {
    for (const auto& g : gs) {
      for (const auto& r : g.covered) add(r, pos);
      for (const auto& f : g.flavors)
        for (const auto& q : f.resources) add(q.resource, pos);
    }
  };
  for (const auto& cq : mf.cluster_queues) groups(cq.groups, cq.pos);
  for (const auto& co : mf.cohorts) groups(co.groups, co.pos);
  for (const auto& r : job_resources) add(r, at);
  return names;
}

}  // namespace

uint64_t untolerated_flavors(const std::vector<ResourceFlavorObj>& flavors, const std::vector<Toleration>& pod) {
  uint64_t out = 0;
  for (size_t f = 0; f < flavors.size() && f < 64; ++f) {
    std::vector<Toleration> all = pod;
    all.insert(all.end(), flavors[f].tolerations.begin(), flavors[f].tolerations.end());
    for (const Taint& taint : flavors[f].taints) {
      if (taint.effect == "PreferNoSchedule") continue;
      if (std::none_of(all.begin(), all.end(), [&](const Toleration& t) { return tolerates(t, taint); }))
        out |= uint64_t{1} << f;
    }
  }
  return out;
}

BuiltModel build_model(const Manifests& mf, const std::string& scen_file, const std::vector<std::string>& job_resources) {
  BuiltModel b;
  b.warnings = mf.warnings;
  Model& m = b.model;
  m.resource_names = resource_names(mf, job_resources, scen_file);
  m.resources = static_cast<int>(m.resource_names.size());
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
  for (const auto& tp : mf.topologies)
    if (!b.topologies.emplace(tp.name, tp).second)
      throw InputError(tp.pos.file, tp.pos.where(), "Topology " + tp.name + " declared twice; expected unique names");
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
    throw InputError(scen_file, "", fmt::format("{} flavors x {} resources exceed the model's {} flavor-resources; expected at most {} flavors",
                                                m.flavors, m.resources, kMaxFrs, kMaxFrs / m.resources));
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
        if (!resource_kind(r, kind, scale, m.resource_names))
          throw InputError(pos.file, pos.where(), "resource " + r + " has no kind in the model");  // names were collected above
        rg.resources.push_back(kind);
      }
      for (const auto& f : g.flavors) {
        const int fl = flavor(f.flavor);
        rg.flavors.push_back(fl);
        for (const auto& q : f.resources) {
          int kind;
          double scale;
          if (!resource_kind(q.resource, kind, scale, m.resource_names))
            throw InputError(pos.file, pos.where(), "resource " + q.resource + " has no kind in the model");
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
    // A TAS flavor whose Topology is missing: the ClusterQueue is inactive (TopologyNotFound).
    for (const auto& g : cq.groups)
      for (const auto& f : g.flavors) {
        const size_t id = static_cast<size_t>(flavor_id[f.flavor]);
        if (id >= declared_flavors || mf.flavors[id].topology.empty() || b.topologies.count(mf.flavors[id].topology)) continue;
        c.active = false;
        b.warnings.push_back(cq.pos.file + ":" + cq.pos.where() + ": ClusterQueue " + cq.name + ": there is no Topology " +
                             mf.flavors[id].topology + " for TAS flavor " + f.flavor +
                             "; it is inactive (TopologyNotFound, as in Kueue)");
      }
    // stopPolicy Hold / HoldAndDrain: the ClusterQueue is inactive, no new reservation is made
    // (clusterqueue_types.go); from the start of a run both leave nothing admitted to drain.
    if (cq.stop_policy != "None") c.active = false;
    if (!admission_checks_ok(mf, cq, b.warnings, b.cq_provisioning)) c.active = false;
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
    if (lq.stop_policy != "None") b.lq_held[key] = "LocalQueueStopped";
    for (const auto& cq : mf.cluster_queues)
      if (cq.name == lq.cluster_queue && !cq.namespace_selector) b.lq_held[key] = "NamespaceNotSelected";
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
  b.flavors = mf.flavors;
  return b;
}

}  // namespace floorsim::kueue
