// Kueue's policy changes (adapter.hpp): a quota change at run time names a ClusterQueue, flavor
// and resource; it is applied to the core's quota tree, and its scope (which pending workloads
// it may unblock) tells the engine whether a pass is needed.
#include "schedulers/kueue/adapter.hpp"

namespace floorsim::kueue::adapter {

ChangeOutcome KueueScheduler::on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions&) {
  if (c.kind != ChangeKind::QueueQuota)
    return ChangeOutcome::rejected(fmt::format("the kueue model has no {} (QOS, reservations, associations and priority "
                                               "weights are Slurm objects); only cluster_queue quota changes apply",
                                               to_string(c.kind)));
  NodeId cq;
  FrId fr;
  double scale;
  std::string err;
  if (!locate(c, cq, fr, scale, err)) return ChangeOutcome::rejected(err);
  const int which = c.field == "nominalQuota" ? 0 : c.field == "borrowingLimit" ? 1 : 2;
  if (c.value.is_null() && which == 0) return ChangeOutcome::rejected("nominalQuota cannot be nil; expected a quantity >= 0");
  if (!c.value.is_null() && !(c.value.is_number() && c.value.get<double>() >= 0))
    return ChangeOutcome::rejected("expected a quantity >= 0 or null (no limit)");
  const Qty value = c.value.is_null() ? kNoLimit : static_cast<Qty>(std::llround(c.value.get<double>() * scale));
  Qty before = 0;
  if (std::string why = core_.set_quota(cq, fr, which, value, before); !why.empty())
    return ChangeOutcome::rejected(fmt::format("ClusterQueue {} {}: {}", c.target, c.field, why));
  auto text = [&](Qty q) { return q == kNoLimit ? std::string("nil") : fmt::format("{}", static_cast<double>(q) / scale); };
  ChangeOutcome o;
  o.status = ChangeOutcome::Status::Applied;
  o.before = text(before);
  o.after = text(value);
  ++quota_changes_;
  return o;
}

ChangeScope KueueScheduler::change_scope(const PolicyChange& c, const Snapshot& v) const {
  ChangeScope s;
  if (c.kind != ChangeKind::QueueQuota) return s;  // unknown: rejected by the model
  s.known = true;
  NodeId cq;
  FrId fr;
  double scale;
  std::string err;
  if (!locate(c, cq, fr, scale, err)) return s;  // nothing to affect: the model rejects it
  const QuotaTree& t = core_.model().tree;
  // Sum of nominal quotas of this flavor/resource after the change, against the cluster.
  Qty sum = 0;
  for (NodeId n = 0; n < t.size(); ++n)
    if (t.is_cq(n)) sum += n == cq && c.field == "nominalQuota" && c.value.is_number()
                               ? static_cast<Qty>(std::llround(c.value.get<double>() * scale)) : t.nominal(n, fr);
  int64_t cluster = 0;
  for (auto g : v.cluster.capacity_gpus) cluster += g;
  const bool over = core_.model().resource_of(fr) == kGpu && sum > cluster;
  const NodeId root = t.root(cq);
  std::vector<uint8_t> seen;
  for (size_t j = 0; j < v.jobs.size(); ++j) {
    const NodeId jc = job_cq_[j];
    if (!over && (jc == kNoNode || t.root(jc) != root)) continue;
    const StrId k = v.jobs[j].klass;
    if (seen.size() <= k) seen.resize(k + 1, 0);
    if (!seen[k]) s.classes.push_back(k);
    seen[k] = 1;
  }
  s.basis = over ? "the nominal quotas would sum past the cluster's GPUs: every class competes for the nodes"
                 : "classes queued in the ClusterQueue's cohort tree (borrowing and lending move quota between them)";
  return s;
}

bool KueueScheduler::locate(const PolicyChange& c, NodeId& cq, FrId& fr, double& scale, std::string& err) const {
  const Model& m = core_.model();
  cq = kNoNode;
  for (NodeId n = 0; n < m.tree.size(); ++n)
    if (m.tree.is_cq(n) && m.tree.name(n) == c.target) cq = n;
  if (cq == kNoNode) {
    err = fmt::format("no ClusterQueue named '{}'", c.target);
    return false;
  }
  int kind = kGpu;
  scale = 1;
  if (!c.resource.empty() && !resource_kind(c.resource, kind, scale, m.resource_names)) {
    err = fmt::format("resource '{}' is in no quota of the manifests", c.resource);
    return false;
  }
  int flavor = -1;
  for (const auto& g : m.cq[cq].groups) {
    if (std::find(g.resources.begin(), g.resources.end(), kind) == g.resources.end()) continue;
    for (int f : g.flavors)
      if (c.flavor.empty() ? flavor < 0 : m.flavor_names[f] == c.flavor) flavor = f;
  }
  if (flavor < 0) {
    err = fmt::format("ClusterQueue {} has no quota for {} in flavor '{}'", c.target,
                      c.resource.empty() ? "nvidia.com/gpu" : c.resource, c.flavor.empty() ? "(first)" : c.flavor);
    return false;
  }
  fr = m.fr(flavor, kind);
  return true;
}
}  // namespace floorsim::kueue::adapter
