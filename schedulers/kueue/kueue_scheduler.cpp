// Adapter: engine events -> kueue::Core; Core decisions -> engine Decisions.
//
// Time model. Every engine pass runs Kueue cycles until one changes nothing (spec kueue §4),
// so at one instant the result is what a continuously cycling Kueue converges to.
// Placement. The simulator is GPU-node-level: a workload is admitted only if it fits in quota
// AND first-fit finds nodes for it now; within quota but unplaceable it stays pending with
// reason NoNodes (the ResourceQuota caveat: quota is a ceiling, not capacity), and is retried
// whenever GPUs are freed.
// Eviction (spec §8): the victim is preempted with a grace time and keeps its quota until the
// engine reports it stopped (JobEvent Requeued); it is then requeued with its original
// timestamp and no backoff.
#include "schedulers/kueue/kueue_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/kueue/core.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kueue {
namespace {

enum ResKind { kGpu = 0, kCpu = 1, kMemory = 2 };

// Resource names Kueue manifests use -> our kinds, with the unit conversion from base units.
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

Policy policy_of(const std::string& s) {
  if (s == "LowerPriority") return Policy::LowerPriority;
  if (s == "LowerOrNewerEqualPriority") return Policy::LowerOrNewerEqualPriority;
  if (s == "Any") return Policy::Any;
  return Policy::Never;
}

enum Code : uint16_t {
  kNone = 0, kNoFit, kNoCandidates, kPendingPreemption, kSkipped, kNoNodes, kInactive, kNoLocalQueue,
  kCodes
};
constexpr const char* kCodeNames[kCodes] = {"None", "NoFit", "NoCandidates", "PendingPreemption",
                                            "FailedAfterNomination", "NoNodes", "InactiveClusterQueue",
                                            "NoLocalQueue"};

struct Built {
  Model model;
  std::vector<std::string> warnings;
  std::map<std::string, NodeId> cq_by_name;
  std::map<std::string, std::string> lq_to_cq;  // "ns/name" -> CQ name
  std::map<std::string, int32_t> priority_classes;
};

Built build(const Manifests& mf, const std::string& scen_file) {
  Built b;
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
  }
  for (const auto& p : mf.priority_classes) b.priority_classes[p.name] = p.value;
  return b;
}

class KueueScheduler final : public Scheduler {
 public:
  KueueScheduler(const cfg::json& p, const SchedulerContext& ctx, Built built)
      : core_(std::move(built.model), settings(p), ctx.workload.jobs.size()),
        warnings_(std::move(built.warnings)),
        grace_s_(p.at("eviction_grace_s").get<double>()),
        charge_cpu_(p.at("charge_cpu").get<bool>()) {
    const auto& jobs = ctx.workload.jobs;
    const auto& strings = ctx.workload.strings;
    job_cq_.assign(jobs.size(), kNoNode);
    job_lq_.assign(jobs.size(), 0);
    prio_.assign(jobs.size(), 0);
    const std::string from = p.at("queue_from").get<std::string>();
    const auto& qmap = p.at("queue_map");
    const auto& pmap = p.at("priority_classes");
    for (size_t j = 0; j < jobs.size(); ++j) {
      const JobSpec& js = jobs[j];
      const StrId sid = from == "account" ? js.account : from == "user" ? js.user : from == "qos" ? js.qos
                        : from == "partition" ? js.partition : js.klass;
      const std::string& value = strings.str(sid);
      std::string lq = value;
      if (auto it = qmap.find(value); it != qmap.end()) lq = it->get<std::string>();
      else if (auto d = qmap.find("*"); d != qmap.end()) lq = d->get<std::string>();
      if (lq.find('/') == std::string::npos) lq = "default/" + lq;
      job_lq_[j] = lq_names_.size();
      auto found = std::find(lq_names_.begin(), lq_names_.end(), lq);
      if (found == lq_names_.end()) lq_names_.push_back(lq);
      else job_lq_[j] = static_cast<size_t>(found - lq_names_.begin());
      if (auto it = built.lq_to_cq.find(lq); it != built.lq_to_cq.end())
        if (auto c = built.cq_by_name.find(it->second); c != built.cq_by_name.end()) job_cq_[j] = c->second;
      prio_[j] = js.priority;
      const std::string& klass = strings.str(js.klass);
      if (auto it = pmap.find(klass); it != pmap.end()) {
        const std::string pc = it->get<std::string>();
        auto v = built.priority_classes.find(pc);
        if (v == built.priority_classes.end())
          throw InputError(ctx.scenario_file, "/scheduler/priority_classes/" + klass,
                           "WorkloadPriorityClass " + pc + " is not in the manifests; expected a declared class");
        prio_[j] = v->second;
      }
    }
  }

  std::string_view name() const override { return "kueue"; }

  void on_job_event(const JobEvent& ev, const Snapshot& v) override {
    const JobIdx j = ev.job;
    switch (ev.kind) {
      case JobEvent::Kind::Submitted:
        deferred_.push_back(j);  // enters its queue at the next pass, once eligible
        ++submitted_;
        break;
      case JobEvent::Kind::Requeued:  // an evicted job stopped: its quota is released now
        if (core_.is_admitted(j)) core_.release(j);
        core_.retry_waiting_for_nodes();
        ++requeued_;
        deferred_.push_back(j);
        break;
      case JobEvent::Kind::Ended:
        if (core_.is_admitted(j)) core_.release(j);
        else core_.forget(j);
        core_.retry_waiting_for_nodes();
        break;
      default:
        break;
    }
  }

  void schedule(const Snapshot& v, Decisions& out) override {
    // Jobs whose (re)queue time has come enter their ClusterQueue.
    SimTime next_eligible = kNever;
    size_t w = 0;
    for (size_t i = 0; i < deferred_.size(); ++i) {
      const JobIdx j = deferred_[i];
      if (v.runs[j].state != JobState::Pending) continue;
      if (!v.eligible(j)) {
        next_eligible = std::min(next_eligible, v.runs[j].eligible_s);
        deferred_[w++] = j;
        continue;
      }
      if (job_cq_[j] == kNoNode) {
        out.set_reason(j, kNoLocalQueue);
        continue;
      }
      const JobSpec& js = v.jobs[j];
      Request req{};
      req[kGpu] = js.gpus;
      if (charge_cpu_) req[kCpu] = static_cast<Qty>(js.cpus) * 1000;
      // Queue-order timestamp: creation, kept across preemption requeues (spec §8).
      core_.enqueue(j, job_cq_[j], prio_[j], js.submit_s, j, req);
    }
    deferred_.resize(w);
    if (next_eligible != kNever) out.wake_at(next_eligible);

    free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
    view_ = &v;
    out_ = &out;
    records_.clear();
    evictions_.clear();
    core_.pass(v.now, place_fn_, records_, evictions_);
    view_ = nullptr;
    out_ = nullptr;
    for (const auto& e : evictions_) {
      out.preempt(e.victim, PreemptMode::Requeue, e.by, grace_s_);
      ++evictions_by_reason_[static_cast<int>(e.reason)];
    }
    for (const auto& r : records_) {
      ++outcomes_[static_cast<int>(r.outcome)];
      uint16_t code = kNone;
      switch (r.outcome) {
        case Outcome::Admitted: ++admitted_; continue;
        case Outcome::NoFit: code = kNoFit; break;
        case Outcome::NoCandidates: code = kNoCandidates; break;
        case Outcome::PreemptIssued: code = kPendingPreemption; break;
        case Outcome::Skipped: code = kSkipped; break;
        case Outcome::NoNodes: code = kNoNodes; break;
        case Outcome::Inactive: code = kInactive; break;
      }
      out.set_reason(r.key, code);
    }
  }

  // Policy changes (issue 9): ClusterQueue quotas only; everything else is not a Kueue object.
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions&) override {
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

  ChangeScope change_scope(const PolicyChange& c, const Snapshot& v) const override {
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

  std::string_view reason_name(uint16_t code) const override { return code < kCodes ? kCodeNames[code] : "Other"; }

  std::vector<std::string> extra_columns() const override { return {"cluster_queue", "local_queue"}; }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(job_cq_[j] == kNoNode ? "" : core_.model().tree.name(job_cq_[j]));
    out.push_back(lq_names_[job_lq_[j]]);
  }

  nlohmann::json report(const Snapshot&) const override {
    nlohmann::json r;
    r["admissions"] = admitted_;
    r["requeues_after_eviction"] = requeued_;
    if (quota_changes_) r["quota_changes"] = quota_changes_;
    nlohmann::json ev = nlohmann::json::object();
    for (int i = 0; i < 4; ++i) ev[to_string(static_cast<Reason>(i))] = evictions_by_reason_[i];
    r["evictions_by_reason"] = ev;
    nlohmann::json oc = nlohmann::json::object();
    for (int i = 0; i <= static_cast<int>(Outcome::Inactive); ++i) oc[to_string(static_cast<Outcome>(i))] = outcomes_[i];
    r["cycle_outcomes"] = oc;
    r["warnings"] = warnings_;
    return r;
  }

 private:
  static CoreSettings settings(const cfg::json& p) {
    CoreSettings s;
    s.legacy_one_borrower_per_cohort = p.at("admission_rule").get<std::string>() == "legacy_one_borrower_per_cohort";
    s.priority_sorting_within_cohort = p.at("feature_gates").at("PrioritySortingWithinCohort").get<bool>();
    return s;
  }
  // The ClusterQueue, flavor/resource and unit scale a quota change names.
  bool locate(const PolicyChange& c, NodeId& cq, FrId& fr, double& scale, std::string& err) const {
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
    if (!c.resource.empty() && !resource_kind(c.resource, kind, scale)) {
      err = fmt::format("resource '{}' is not modelled; expected nvidia.com/gpu, cpu or memory", c.resource);
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
  bool place(uint32_t key) {
    const JobSpec& js = view_->jobs[key];
    if (!placement::first_fit(js, free_, shares_)) return false;
    placement::take(free_, shares_);
    out_->start(key, shares_);
    return true;
  }

  Core core_;
  std::vector<std::string> warnings_;
  double grace_s_;
  bool charge_cpu_;
  std::vector<NodeId> job_cq_;
  std::vector<size_t> job_lq_;
  std::vector<std::string> lq_names_;
  std::vector<int32_t> prio_;
  std::vector<JobIdx> deferred_;
  std::vector<int32_t> free_;
  std::vector<NodeShare> shares_;
  std::vector<CycleRecord> records_;
  std::vector<Core::Eviction> evictions_;
  const Snapshot* view_ = nullptr;
  Decisions* out_ = nullptr;
  Core::PlaceFn place_fn_ = [this](uint32_t k) { return place(k); };
  uint64_t submitted_ = 0, admitted_ = 0, requeued_ = 0, quota_changes_ = 0;
  uint64_t evictions_by_reason_[4] = {0, 0, 0, 0};
  uint64_t outcomes_[7] = {0, 0, 0, 0, 0, 0, 0};  // by Outcome
};

}  // namespace

std::shared_ptr<const cfg::ObjectSpec> kueue_params_spec() {
  auto gates = std::make_shared<cfg::ObjectSpec>();
  gates->name = "kueue.feature_gates";
  gates->doc = "Kueue feature gates named in the spec";
  gates->fields = {
      cfg::boolean("PrioritySortingWithinCohort", true, "order the cycle's heads by priority after borrow level (spec §4.3)"),
      cfg::boolean("FairSharingPreemptWithinNominal", true, "fair sharing: a preemptor within nominal takes victims unconditionally (spec §7)"),
      cfg::boolean("FairSharingPrioritizeNonBorrowing", true, "fair sharing admission: non-borrowing entries first (spec §7)"),
  };
  auto fs = std::make_shared<cfg::ObjectSpec>();
  fs->name = "kueue.fair_sharing";
  fs->doc = "Kueue Configuration fairSharing (spec §7)";
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
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "scheduler(kueue)";
  s->doc = "Kueue-like admission: ClusterQueues, cohorts, flavors, preemption (spec kueue-kai-model.md)";
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
      cfg::boolean("charge_cpu", false, "also charge the job's CPUs (as millicores) against cpu quota"),
      cfg::object("feature_gates", gates, "feature gates"),
      cfg::object("fair_sharing", fs, "fair sharing"),
  };
  return s;
}

std::unique_ptr<Scheduler> make_kueue(const cfg::json& p, const SchedulerContext& ctx) {
  Manifests mf;
  size_t i = 0;
  for (const auto& f : p.at("manifests")) {
    const std::string rel = f.get<std::string>();
    std::filesystem::path path(rel);
    if (path.is_relative() && !ctx.base_dir.empty()) path = std::filesystem::path(ctx.base_dir) / path;
    if (!std::filesystem::exists(path))
      throw InputError(ctx.scenario_file, "/scheduler/manifests/" + std::to_string(i),
                       "cannot read " + path.string() + "; expected a Kueue YAML file relative to the scenario");
    load_manifest_file(path.string(), path.string(), mf);
    ++i;
  }
  Built b = build(mf, ctx.scenario_file);
  const auto& fsp = p.at("fair_sharing");
  b.model.fair_sharing = fsp.at("enable").get<bool>();
  const auto& st = fsp.at("preemption_strategies");
  b.model.fs_s2a = st[0] == "LessThanOrEqualToFinalShare";
  b.model.fs_s2b = st.back() == "LessThanInitialShare";
  b.model.gate_preempt_within_nominal = p.at("feature_gates").at("FairSharingPreemptWithinNominal").get<bool>();
  b.model.gate_prioritize_non_borrowing = p.at("feature_gates").at("FairSharingPrioritizeNonBorrowing").get<bool>();
  return std::make_unique<KueueScheduler>(p, ctx, std::move(b));
}

}  // namespace floorsim::kueue
