// Adapter: engine events -> kueue::Core; Core decisions -> engine Decisions (Kueue's
// pkg/controller/jobs and pkg/workload; kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready).
//
// Time model. Every engine pass runs Kueue cycles until one changes nothing (spec kueue §4),
// so at one instant the result is what a continuously cycling Kueue converges to.
// Placement (`placement`). admit_then_place (default, as Kueue): admission reserves quota and
// creates the pods; the pods then wait for nodes (kube-scheduler, first fit, retried at every
// pass in priority order) while the workload holds its quota: pending reason NoNodes. A
// namespace ResourceQuota (core/v1, from the manifests) is a ceiling on the pods a namespace
// may create, never capacity: pods beyond it are refused (ResourceQuotaExceeded) and retried,
// and a namespace well within its ceiling still waits when the cluster is full.
// place_at_admission: a workload is admitted only if nodes are found now (within quota but
// unplaceable: not admitted, NoNodes, retried when GPUs free up).
// waitForPodsReady (spec §8): a workload admitted but not running `timeout_s` later is evicted
// (its quota released), requeued no earlier than now + min(base 2^(n-1), max) with the
// eviction time as its queue timestamp; past backoff_limit_count it is deactivated.
// Eviction by preemption (spec §8): the victim is preempted with a grace time and keeps its
// quota until the engine reports it stopped (JobEvent Requeued); it is then requeued with its
// original timestamp and no backoff. A victim whose pods were never placed stops at once.
#include "schedulers/kueue/kueue_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedulers/common/node_resources.hpp"
#include "schedulers/common/placement.hpp"
#include "schedulers/kueue/core.hpp"
#include "schedulers/kueue/flavor_nodes.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "schedulers/kueue/podsets_config.hpp"
#include "schedulers/kueue/provisioning.hpp"
#include "schedulers/kueue/tas_place.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kueue {
namespace {

enum Code : uint16_t {
  kNone = 0, kNoFit, kNoCandidates, kPendingPreemption, kSkipped, kNoNodes, kInactive, kNoLocalQueue,
  kResourceQuotaExceeded, kBackoff, kDeactivated, kBlockedByPodsReady, kNeverFits, kLocalQueueStopped,
  kNamespaceNotSelected, kProvisioning, kTopologyNotFit, kProvisioningRetry, kProvisioningRejected, kCodes
};
constexpr const char* kCodeNames[kCodes] = {"None", "NoFit", "NoCandidates", "PendingPreemption",
                                            "FailedAfterNomination", "NoNodes", "InactiveClusterQueue",
                                            "NoLocalQueue", "ResourceQuotaExceeded", "PodsReadyBackoff",
                                            "Deactivated", "WaitForPodsReadyBlocked", "NeverFitsCluster",
                                            "LocalQueueStopped", "NamespaceNotSelected", "Provisioning",
                                            "TopologyNotFit", "ProvisioningRetry", "ProvisioningRejected"};

struct PodsReady {  // waitForPodsReady (spec §8, kueue apis/config/v1beta2/defaults.go)
  bool enable = true;
  double timeout_s = 1800;
  bool block_admission = false;
  bool eviction_timestamp = true;  // requeuingStrategy.timestamp: Eviction (else Creation)
  double backoff_base_s = 60, backoff_max_s = 3600;
  int64_t backoff_limit = -1;      // backoffLimitCount; -1 = nil (requeue forever)
};

class KueueScheduler final : public Scheduler {
 public:
  // What the manifests and the block give that the model cannot apply (also in scheduler_report).
  const std::vector<std::string>& warnings() const { return warnings_; }
  KueueScheduler(const cfg::json& p, const SchedulerContext& ctx, BuiltModel built)
      : core_(std::move(built.model), settings(p, built.model), ctx.workload.jobs.size()),
        warnings_(std::move(built.warnings)),
        grace_s_(p.at("eviction_grace_s").get<double>()),
        charge_cpu_(p.at("charge_cpu").get<bool>()),
        job_req_(job_requests(p, core_.model())),
        admit_then_place_(p.at("placement").get<std::string>() == "admit_then_place"),
        wfpr_(pods_ready(p.at("wait_for_pods_ready"))) {
    const auto& jobs = ctx.workload.jobs;
    const auto& strings = ctx.workload.strings;
    const size_t n = jobs.size();
    job_cq_.assign(n, kNoNode);
    job_lq_.assign(n, 0);
    prio_.assign(n, 0);
    queue_ts_.assign(n, 0);
    requeue_at_.assign(n, 0);
    admitted_s_.assign(n, 0);
    pr_count_.assign(n, 0);
    started_pass_.assign(n, 0);
    gpus_.resize(n);
    for (size_t j = 0; j < n; ++j) gpus_[j] = jobs[j].gpus;
    pods_.assign(n, 0);
    pod_reason_.assign(n, kNone);
    waited_nodes_.assign(n, 0);
    deactivated_.assign(n, 0);
    const std::string from = p.at("queue_from").get<std::string>();
    const auto& qmap = p.at("queue_map");
    const auto& pmap = p.at("priority_classes");
    for (size_t j = 0; j < n; ++j) {
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
      if (auto h = built.lq_held.find(lq); h != built.lq_held.end())
        held_.emplace(j, h->second == "LocalQueueStopped" ? kLocalQueueStopped : kNamespaceNotSelected);
      prio_[j] = js.priority;
      queue_ts_[j] = js.submit_s;
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
    // LocalQueue weights (admission fair sharing) and namespaces (ResourceQuota ceilings).
    std::vector<double> weights;
    for (const auto& lq : lq_names_) {
      auto w = built.lq_weight.find(lq);
      weights.push_back(w == built.lq_weight.end() ? 1.0 : w->second);
      const std::string ns = lq.substr(0, lq.find('/'));
      auto f = std::find(ns_names_.begin(), ns_names_.end(), ns);
      lq_ns_.push_back(static_cast<uint32_t>(f - ns_names_.begin()));
      if (f == ns_names_.end()) {
        ns_names_.push_back(ns);
        auto c = built.ns_gpu_ceiling.find(ns);
        ns_hard_.push_back(c == built.ns_gpu_ceiling.end() ? -1 : c->second);
      }
    }
    lq_untolerated_ = lq_untolerated(p, built, lq_names_, ctx.scenario_file);
    ns_used_.assign(ns_names_.size(), 0);
    ns_peak_.assign(ns_names_.size(), 0);
    ns_refused_.assign(ns_names_.size(), 0);
    for (const auto& [ns, q] : built.ns_gpu_ceiling)
      if (std::find(ns_names_.begin(), ns_names_.end(), ns) == ns_names_.end())
        warnings_.push_back("ResourceQuota in namespace " + ns + ": no LocalQueue the jobs map to is in it");
    core_.set_local_queue_weights(std::move(weights));
    // Flavors onto node sets: nodeLabels over the cluster's node labels, or flavor_nodes.
    const Model& m = core_.model();
    flavor_mask_ = flavor_node_masks(built.flavors, m.flavor_names, p.at("flavor_nodes"), ctx.cluster,
                                     ctx.scenario_file, warnings_);
    flavor_.assign(n, -1);
    ann_ = read_job_annotations(p.at("job_annotations"), strings, ctx.scenario_file, warnings_);
    tas_ = TasPlacer(built, ctx.cluster, ctx.fabric_tree, warnings_);
    tas_.warn_unplaceable(ann_, strings, warnings_);
    read_podsets(p, ctx);
    const auto& pr = p.at("provisioning_request");
    const double prov_delay_s = pr.at("delay_s").get<double>();
    prov_ = Provisioner(built.cq_provisioning, prov_delay_s, pr.at("failure_probability").get<double>(), ctx.seed, n);
    gpu_resource_ = p.at("gpu_resource").get<std::string>();
    for (const auto& [res, q] : p.at("requests_per_job").items())
      if (request_quantity(q) > 0) res_per_job_.push_back(res);
    for (const auto& [res, q] : p.at("requests_per_gpu").items())
      if (request_quantity(q) > 0) res_per_gpu_.push_back(res);
    if (tas_.any() && prov_delay_s > 0 && prov_.any())
      warnings_.push_back("provisioning_request does not delay workloads admitted to a TAS flavor: their pods are "
                          "placed by the topology assignment at admission (the check passes at once)");
    if (!admit_then_place_ && prov_delay_s > 0 && prov_.any())
      warnings_.push_back("provisioning_request applies with placement admit_then_place only; with "
                          "place_at_admission the ProvisioningRequest checks pass at once");
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
        drop_pods(j);
        if (core_.is_admitted(j)) core_.release(j, ev.time_s);
        core_.retry_waiting_for_nodes();
        ++requeued_;
        deferred_.push_back(j);
        break;
      case JobEvent::Kind::Ended:
        drop_pods(j);
        drop_unplaced(j);
        if (core_.is_admitted(j)) core_.release(j, ev.time_s);
        else core_.forget(j);
        core_.retry_waiting_for_nodes();
        break;
      default:
        break;
    }
  }

  void schedule(const Snapshot& v, Decisions& out) override {
    // Jobs whose (re)queue time has come enter their ClusterQueue (after any backoff).
    SimTime next_eligible = kNever;
    size_t w = 0;
    for (size_t i = 0; i < deferred_.size(); ++i) {
      const JobIdx j = deferred_[i];
      if (v.runs[j].state != JobState::Pending) continue;
      if (!v.eligible(j) || requeue_at_[j] > v.now) {
        next_eligible = std::min(next_eligible, std::max(v.runs[j].eligible_s, requeue_at_[j]));
        deferred_[w++] = j;
        if (requeue_at_[j] > v.now) out.set_reason(j, prov_.retrying(j) ? kProvisioningRetry : kBackoff);
        continue;
      }
      if (job_cq_[j] == kNoNode) {
        out.set_reason(j, kNoLocalQueue);
        continue;
      }
      if (auto h = held_.find(j); h != held_.end()) {
        out.set_reason(j, h->second);
        continue;
      }
      const Request req = enqueue_request(v.jobs[j], j);
      // Queue-order timestamp: creation, kept across preemption requeues; the eviction time
      // after a waitForPodsReady timeout (spec §3, §8).
      core_.enqueue(j, job_cq_[j], prio_[j], queue_ts_[j], j, req, static_cast<uint32_t>(job_lq_[j]));
    }
    deferred_.resize(w);
    if (next_eligible != kNever) out.wake_at(next_eligible);

    free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
    res_.reset(v.cluster);
    ++pass_id_;
    view_ = &v;
    out_ = &out;
    // Capacity came back since the last pass (ends, or a controller unmasking held nodes):
    // workloads set aside for want of nodes are worth another try.
    if (v.cluster.total_free_gpus > last_free_gpus_) core_.retry_waiting_for_nodes();
    place_unplaced();
    enqueue_ready(v);  // requeued by a failed provisioning attempt with no backoff: in this cycle
    records_.clear();
    if (wfpr_.enable && wfpr_.block_admission && !unplaced_.empty()) {
      ++blocked_passes_;  // blockAdmission: nothing more until the admitted ones run
    } else {
      for (;;) {
        evictions_.clear();
        core_.pass(v.now, place_fn_, records_, evictions_);
        bool released = false;
        for (const auto& e : evictions_) {
          ++evictions_by_reason_[static_cast<int>(e.reason)];
          // Running, or started earlier in this pass (the engine applies the start first).
          if (v.runs[e.victim].state == JobState::Running || started_pass_[e.victim] == pass_id_) {
            out.preempt(e.victim, PreemptMode::Requeue, e.by, grace_s_);
            continue;
          }
          // Admitted but its pods never ran: it stops at once and is requeued as it was.
          prov_.cancel(e.victim, v.now);
          drop_unplaced(e.victim);
          drop_pods(e.victim);
          core_.release(e.victim, v.now);
          ++requeued_;
          deferred_.push_back(e.victim);
          released = true;
        }
        if (!released) break;
        enqueue_ready(v);
      }
    }
    for (const JobIdx j : unplaced_)
      if (wfpr_.enable) out.wake_at(admitted_s_[j] + wfpr_.timeout_s);
    int64_t left = 0;
    for (int32_t f : free_) left += f;
    last_free_gpus_ = left;
    view_ = nullptr;
    out_ = nullptr;
    for (const auto& r : records_) {
      ++outcomes_[static_cast<int>(r.outcome)];
      uint16_t code = kNone;
      switch (r.outcome) {
        case Outcome::Admitted: ++admitted_; continue;
        case Outcome::NoFit: code = kNoFit; break;
        case Outcome::NoCandidates: code = kNoCandidates; break;
        case Outcome::PreemptIssued: code = kPendingPreemption; break;
        case Outcome::Skipped: code = kSkipped; break;
        case Outcome::NoNodes:
          // A pod-level quota or topology misfit says more than "no nodes".
          code = kNoNodes;
          if (pod_reason_[r.key] == kResourceQuotaExceeded || pod_reason_[r.key] == kTopologyNotFit) code = pod_reason_[r.key];
          break;
        case Outcome::Inactive: code = kInactive; break;
      }
      out.set_reason(r.key, code);
    }
    for (const JobIdx j : unplaced_) out.set_reason(j, pod_reason_[j]);
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

  std::vector<std::string> extra_columns() const override {
    std::vector<std::string> cols = {"cluster_queue", "local_queue", "pods_ready_timeouts"};
    if (partial_) cols.push_back("admitted_gpus");  // GPUs at the latest admission (partial admission)
    if (prov_.any()) cols.insert(cols.end(), {"provisioning_attempts", "provisioning_failures", "provisioning_wait_s"});
    return cols;
  }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(job_cq_[j] == kNoNode ? "" : core_.model().tree.name(job_cq_[j]));
    out.push_back(lq_names_[job_lq_[j]]);
    out.push_back(std::to_string(pr_count_[j]));  // waitForPodsReady evictions (not engine requeues)
    if (partial_) out.push_back(started_pass_[j] ? std::to_string(gpus_[j]) : "");
    if (!prov_.any()) return;
    out.push_back(std::to_string(prov_.attempts(j)));
    out.push_back(std::to_string(prov_.failures(j)));
    out.push_back(fmt::format("{:g}", prov_.wait_s(j)));
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
    r["placement"] = admit_then_place_ ? "admit_then_place" : "place_at_admission";
    nlohmann::json pr;
    pr["timeout_evictions"] = pods_ready_evictions_;
    uint64_t deact = 0;
    for (uint8_t d : deactivated_) deact += d;
    pr["deactivated"] = deact;
    pr["admitted_not_running_at_end"] = unplaced_.size();
    pr["blocked_passes"] = blocked_passes_;
    r["wait_for_pods_ready"] = pr;
    // The ResourceQuota caveat, per namespace: the ceiling, the most its pods ever requested,
    // the pod creations it refused, and the jobs that waited for nodes while within it.
    nlohmann::json rq = nlohmann::json::object();
    std::vector<uint64_t> waited(ns_names_.size(), 0);
    for (size_t j = 0; j < waited_nodes_.size(); ++j)
      if (waited_nodes_[j]) ++waited[lq_ns_[job_lq_[j]]];
    for (size_t n = 0; n < ns_names_.size(); ++n) {
      nlohmann::json e;
      e["hard_gpus"] = ns_hard_[n] < 0 ? nlohmann::json(nullptr) : nlohmann::json(ns_hard_[n]);
      e["peak_gpus"] = ns_peak_[n];
      e["pod_creations_refused"] = ns_refused_[n];
      e["jobs_waited_for_nodes_within_quota"] = waited[n];
      rq[ns_names_[n]] = e;
    }
    r["namespaces"] = rq;
    if (partial_) r["partial_admissions"] = partial_admissions_;
    if (prov_.any()) r["provisioning_request"] = provisioning_report();
    if (tas_placed_ || tas_not_fit_) r["topology_aware"] = {{"placed", tas_placed_}, {"not_fit_attempts", tas_not_fit_}};
    r["warnings"] = warnings_;
    return r;
  }

 private:
  // What each job asks of its ClusterQueue's quota: its GPUs as `gpu_resource`, its CPUs when
  // charge_cpu is on, and the scheduler block's per-job and per-GPU requests (cpu, memory,
  // pods, extended resources), in the model's units.
  struct JobRequests {
    int gpu_kind = kGpu;  // -1: GPUs charge no quota
    Request per_job{}, per_gpu{};
  };
  static JobRequests job_requests(const cfg::json& p, const Model& m) {
    JobRequests r;
    const std::string g = p.at("gpu_resource").get<std::string>();
    double scale = 1;
    if (g.empty()) r.gpu_kind = -1;
    else resource_kind(g, r.gpu_kind, scale, m.resource_names);
    auto fill = [&](const char* key, Request& out) {
      for (const auto& [res, q] : p.at(key).items()) {
        int kind = 0;
        resource_kind(res, kind, scale, m.resource_names);  // every name was registered by build_model
        out[kind] += static_cast<Qty>(std::llround(request_quantity(q) * scale));
      }
    };
    fill("requests_per_job", r.per_job);
    fill("requests_per_gpu", r.per_gpu);
    return r;
  }
  // By LocalQueue: the flavors whose NoSchedule / NoExecute nodeTaints the workload's pods
  // (the scheduler block's tolerations) together with the flavor's own tolerations do not
  // tolerate (flavorassigner checkFlavorForPodSets).
  static std::vector<uint64_t> lq_untolerated(const cfg::json& p, const BuiltModel& b,
                                                   const std::vector<std::string>& lqs, const std::string& file) {
    std::vector<uint64_t> out(lqs.size(), 0);
    const auto& tol = p.at("tolerations");
    for (size_t q = 0; q < lqs.size(); ++q) {
      std::vector<Toleration> pod;
      const cfg::json* list = tol.contains(lqs[q]) ? &tol.at(lqs[q]) : tol.contains("*") ? &tol.at("*") : nullptr;
      if (list)
        for (size_t i = 0; i < list->size(); ++i) {
          Toleration t;
          if (!parse_toleration((*list)[i].get<std::string>(), t))
            throw InputError(file, cfg::child(cfg::child("/scheduler/tolerations", tol.contains(lqs[q]) ? lqs[q] : "*"), i),
                             "got \"" + (*list)[i].get<std::string>() +
                                 "\"; expected key=value:Effect, key:Effect or key (Effect NoSchedule, PreferNoSchedule or NoExecute)");
          pod.push_back(t);
        }
      out[q] = untolerated_flavors(b.flavors, pod);
    }
    return out;
  }
  Request request_of(const JobSpec& js, JobIdx j) const {
    Request req{};
    req.untolerated = lq_untolerated_[job_lq_[j]] | tas_.unfit_flavors(ann_[js.klass]);
    for (int k = 0; k < kMaxRes; ++k) req[k] = job_req_.per_job[k] + job_req_.per_gpu[k] * js.gpus;
    if (job_req_.gpu_kind >= 0) req[job_req_.gpu_kind] += js.gpus;
    req[kCpu] += own_cpu_milli(js);
    req[kMemory] += placement::job_mem_mib(js);
    return req;
  }
  static CoreSettings settings(const cfg::json& p, const Model& m) {
    CoreSettings s;
    s.legacy_one_borrower_per_cohort = p.at("admission_rule").get<std::string>() == "legacy_one_borrower_per_cohort";
    s.priority_sorting_within_cohort = p.at("feature_gates").at("PrioritySortingWithinCohort").get<bool>();
    s.partial_admission = p.at("feature_gates").at("PartialAdmission").get<bool>();
    const auto& afs = p.at("admission_fair_sharing");
    s.afs = afs.at("enable").get<bool>() && p.at("feature_gates").at("AdmissionFairSharing").get<bool>();
    s.afs_half_life_s = afs.at("usage_half_life_s").get<double>();
    s.afs_sampling_s = afs.at("usage_sampling_interval_s").get<double>();
    for (const auto& [res, wt] : afs.at("resource_weights").items()) {
      int kind;
      double scale;
      if (resource_kind(res, kind, scale, m.resource_names)) s.afs_weights[kind] = wt.get<double>();
      // else: no quota and no job names the resource, so its weight multiplies nothing
    }
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
  static PodsReady pods_ready(const cfg::json& p) {
    PodsReady r;
    r.enable = p.at("enable").get<bool>();
    r.timeout_s = p.at("timeout_s").get<double>();
    r.block_admission = p.at("block_admission").get<bool>();
    r.eviction_timestamp = p.at("requeuing_timestamp").get<std::string>() == "Eviction";
    r.backoff_base_s = p.at("backoff_base_s").get<double>();
    r.backoff_max_s = p.at("backoff_max_s").get<double>();
    r.backoff_limit = p.at("backoff_limit_count").is_null() ? -1 : p.at("backoff_limit_count").get<int64_t>();
    return r;
  }

  // Enqueues the deferred jobs that are ready now (after an in-pass release).
  void enqueue_ready(const Snapshot& v) {
    size_t w = 0;
    for (size_t i = 0; i < deferred_.size(); ++i) {
      const JobIdx j = deferred_[i];
      if (v.runs[j].state != JobState::Pending || !v.eligible(j) || requeue_at_[j] > v.now || job_cq_[j] == kNoNode) {
        deferred_[w++] = j;
        continue;
      }
      if (held_.count(j)) continue;  // reported at the pass that first saw it
      core_.enqueue(j, job_cq_[j], prio_[j], queue_ts_[j], j, enqueue_request(v.jobs[j], j), static_cast<uint32_t>(job_lq_[j]));
    }
    deferred_.resize(w);
  }

  uint32_t ns_of(JobIdx j) const { return lq_ns_[job_lq_[j]]; }
  // Pod creation against the namespace's ResourceQuota: a ceiling on what its pods request.
  bool ceiling_allows(JobIdx j) const {
    const uint32_t n = ns_of(j);
    return ns_hard_[n] < 0 || ns_used_[n] + gpus_[j] <= ns_hard_[n];
  }
  bool create_pods(JobIdx j) {
    if (pods_[j]) return true;
    const uint32_t n = ns_of(j);
    if (!ceiling_allows(j)) {
      ++ns_refused_[n];
      pod_reason_[j] = kResourceQuotaExceeded;
      return false;
    }
    ns_used_[n] += gpus_[j];
    ns_peak_[n] = std::max(ns_peak_[n], ns_used_[n]);
    pods_[j] = 1;
    return true;
  }
  void drop_pods(JobIdx j) {
    if (!pods_[j]) return;
    ns_used_[ns_of(j)] -= static_cast<Qty>(job_gpus_of(j));
    pods_[j] = 0;
  }
  int32_t job_gpus_of(JobIdx j) const { return gpus_[j]; }
  void drop_unplaced(JobIdx j) {
    auto it = std::find(unplaced_.begin(), unplaced_.end(), j);
    if (it != unplaced_.end()) unplaced_.erase(it);
  }
  bool place_nodes(JobIdx j) {
    const JobSpec js = admitted_spec(j);
    const std::span<const uint8_t> mask = flavor_[j] >= 0 ? std::span<const uint8_t>(flavor_mask_[flavor_[j]]) : std::span<const uint8_t>();
    if (!res_.first_fit(js, node_ask(j), free_, mask, shares_, view_->cluster.max_node_gpus)) return false;
    placement::take(free_, shares_);
    res_.take(shares_);
    start(j);
    return true;
  }
  // A job's own CPUs as its cpu request, millicores: always for a CPU-only job (they are all it
  // asks), for a GPU job with charge_cpu.
  Qty own_cpu_milli(const JobSpec& js) const {
    return charge_cpu_ || js.gpus <= 0 ? static_cast<Qty>(js.cpus) * 1000 : 0;
  }
  // What the job's pods ask of nodes besides GPUs: the cpu and memory of its request (PodSets
  // other than its own pods are not placed), scaled to the GPUs a partial admission gave it.
  placement::NodeAsk node_ask(JobIdx j) const {
    const JobSpec& js = view_->jobs[j];
    const Request r = request_of(js, j);
    placement::NodeAsk a{r[kCpu], r[kMemory]};
    if (js.gpus > 0 && gpus_[j] != js.gpus) {
      a.cpu_milli = a.cpu_milli * gpus_[j] / js.gpus;
      a.mem_mib = a.mem_mib * gpus_[j] / js.gpus;
    }
    return a;
  }

  // Core placement hook, called for a workload that fits in quota.
  bool place(uint32_t key) {
    flavor_[key] = -1;
    admit_counts(key);
    const Usage& u = core_.placing_usage();
    for (uint8_t k = 0; k < u.n; ++k)
      if (core_.model().resource_of(u.fr[k]) == job_req_.gpu_kind) flavor_[key] = core_.model().flavor_of(u.fr[k]);
    // A CPU-only job's pods go to the nodes of the flavor its cpu (or memory) was assigned.
    if (view_->jobs[key].gpus <= 0)
      for (uint8_t k = u.n; k-- > 0;)
        if (u.qty[k] > 0) flavor_[key] = core_.model().flavor_of(u.fr[k]);
    if (tas_.is_tas(flavor_[key]) && view_->jobs[key].gpus > 0) return place_tas(key);
    if (!admit_then_place_) {
      if (!ceiling_allows(key)) {
        ++ns_refused_[ns_of(key)];
        pod_reason_[key] = kResourceQuotaExceeded;
        return false;
      }
      pod_reason_[key] = kNoNodes;
      if (!place_nodes(key)) {
        waited_nodes_[key] = 1;
        return false;
      }
      create_pods(key);
      return true;
    }
    // Admission: quota is reserved whatever happens to the pods.
    admitted_s_[key] = view_->now;
    // A ProvisioningRequest admission check holds the quota while the nodes are provisioned;
    // the pods are created when it passes; waitForPodsReady counts from then.
    if (prov_.start(key, core_.model().tree.name(job_cq_[key]), requested_resources(view_->jobs[key]), view_->now)) {
      admitted_s_[key] = prov_.ready_at(key);
      pod_reason_[key] = kProvisioning;
      out_->wake_at(prov_.ready_at(key));
      unplaced_.push_back(key);
      return true;
    }
    if (create_pods(key) && place_nodes(key)) return true;
    if (pods_[key]) {
      pod_reason_[key] = kNoNodes;
      waited_nodes_[key] = 1;
    }
    unplaced_.push_back(key);
    return true;
  }

  // A TAS flavor: the topology assignment is part of admission (Kueue's flavor assigner), so
  // the pods go to their assigned nodes now, or the workload is not admitted and is retried
  // when GPUs free up (pending reason TopologyNotFit).
  bool place_tas(JobIdx j) {
    if (!ceiling_allows(j)) {
      ++ns_refused_[ns_of(j)];
      pod_reason_[j] = kResourceQuotaExceeded;
      return false;
    }
    const JobSpec js = admitted_spec(j);
    if (!tas_.place(flavor_[j], js, ann_[js.klass], free_, flavor_mask_[flavor_[j]], shares_).empty() ||
        !res_.fill(shares_, node_ask(j), js.gpus)) {  // the topology's nodes must have the CPUs and memory too
      pod_reason_[j] = kTopologyNotFit;
      ++tas_not_fit_;
      return false;
    }
    placement::take(free_, shares_);
    res_.take(shares_);
    start(j);
    admitted_s_[j] = view_->now;
    create_pods(j);
    ++tas_placed_;
    return true;
  }

  // Admitted workloads whose pods wait (for nodes, or for room under the namespace ceiling):
  // kube-scheduler order (priority, then admission time); waitForPodsReady timeouts.
  void place_unplaced() {
    if (unplaced_.empty()) return;
    std::sort(unplaced_.begin(), unplaced_.end(), [&](JobIdx a, JobIdx b) {
      if (prio_[a] != prio_[b]) return prio_[a] > prio_[b];
      if (admitted_s_[a] != admitted_s_[b]) return admitted_s_[a] < admitted_s_[b];
      return a < b;
    });
    const SimTime now = view_->now;
    size_t w = 0;
    for (size_t i = 0; i < unplaced_.size(); ++i) {
      const JobIdx j = unplaced_[i];
      if (view_->runs[j].state != JobState::Pending) continue;
      if (prov_.holding(j)) {
        if (prov_.ready_at(j) > now) {  // still provisioning
          unplaced_[w++] = j;
          continue;
        }
        if (!provisioning_passed(j, now)) continue;  // failed: quota released, requeued or deactivated
      }
      if (create_pods(j) && place_nodes(j)) continue;
      if (pods_[j]) {
        pod_reason_[j] = kNoNodes;
        waited_nodes_[j] = 1;
      }
      if (wfpr_.enable && now >= admitted_s_[j] + wfpr_.timeout_s) {
        pods_ready_timeout(j, now);
        continue;
      }
      unplaced_[w++] = j;
    }
    unplaced_.resize(w);
  }

  // The resources a job requests, by name (ProvisioningRequestConfig managedResources).
  std::vector<std::string> requested_resources(const JobSpec& js) const {
    std::vector<std::string> out = res_per_job_;
    if (js.gpus > 0) {
      if (!gpu_resource_.empty()) out.push_back(gpu_resource_);
      out.insert(out.end(), res_per_gpu_.begin(), res_per_gpu_.end());
    }
    if (own_cpu_milli(js) > 0) out.push_back("cpu");
    if (placement::job_mem_mib(js) > 0) out.push_back("memory");
    return out;
  }
  // A provisioning attempt ended: passed (true), or failed (Kueue's provisioning controller):
  // the quota is released and the workload requeued after the retry backoff (check Retry), or,
  // past backoffLimitCount, deactivated (check Rejected). Its queue timestamp is kept.
  bool provisioning_passed(JobIdx j, SimTime now) {
    const Provisioner::Done d = prov_.finish(j, now);
    if (d.passed) return true;
    core_.release(j, now);
    if (!d.next.retry) {
      deactivated_[j] = 1;
      out_->set_reason(j, kProvisioningRejected);
      return false;
    }
    requeue_at_[j] = now + d.next.backoff_s;
    deferred_.push_back(j);
    if (d.next.backoff_s > 0) out_->wake_at(requeue_at_[j]);  // 0: enqueued in this pass (a wake at now is none)
    out_->set_reason(j, kProvisioningRetry);
    return false;
  }
  nlohmann::json provisioning_report() const {
    uint64_t attempts = 0, failures = 0, held = 0;
    double wait = 0;
    for (size_t j = 0; j < gpus_.size(); ++j) {
      attempts += prov_.attempts(static_cast<uint32_t>(j));
      failures += prov_.failures(static_cast<uint32_t>(j));
      wait += prov_.wait_s(static_cast<uint32_t>(j));
      held += prov_.attempts(static_cast<uint32_t>(j)) > 0;
    }
    return {{"attempts", attempts}, {"failures", failures}, {"rejected", prov_.rejected()},
            {"workloads_provisioned", held}, {"total_wait_s", wait}};
  }

  // waitForPodsReady timeout (spec §8, pkg/workload UpdateRequeueState): evict, release the
  // quota, requeue after an exponential backoff, or deactivate past backoffLimitCount.
  void pods_ready_timeout(JobIdx j, SimTime now) {
    drop_pods(j);
    core_.release(j, now);
    ++pods_ready_evictions_;
    const uint32_t count = ++pr_count_[j];
    // A workload larger than the whole cluster (up nodes) or its namespace's ResourceQuota
    // would be requeued forever, as in Kueue; the simulation stops retrying it so that it ends.
    cap_.assign(view_->cluster.capacity_gpus.begin(), view_->cluster.capacity_gpus.end());
    for (size_t n = 0; n < cap_.size(); ++n)
      if (!view_->cluster.node_up[n] || (flavor_[j] >= 0 && !flavor_mask_[flavor_[j]].empty() && !flavor_mask_[flavor_[j]][n]))
        cap_[n] = 0;
    const Qty hard = ns_hard_[ns_of(j)];
    cap_res_.reset_capacity(view_->cluster);  // a CPU-only job's nodes: its flavor's (cap_ masks GPUs only)
    const std::span<const uint8_t> mask = flavor_[j] >= 0 ? std::span<const uint8_t>(flavor_mask_[flavor_[j]]) : std::span<const uint8_t>();
    if ((hard >= 0 && view_->jobs[j].gpus > hard) ||
        !cap_res_.first_fit(view_->jobs[j], node_ask(j), cap_, mask, shares_, view_->cluster.max_node_gpus)) {
      deactivated_[j] = 1;
      out_->set_reason(j, kNeverFits);
      return;
    }
    if (wfpr_.backoff_limit >= 0 && count > static_cast<uint64_t>(wfpr_.backoff_limit)) {
      deactivated_[j] = 1;
      out_->set_reason(j, kDeactivated);
      return;
    }
    requeue_at_[j] = now + std::min(wfpr_.backoff_base_s * std::ldexp(1.0, static_cast<int>(count) - 1), wfpr_.backoff_max_s);
    if (wfpr_.eviction_timestamp) queue_ts_[j] = now;
    deferred_.push_back(j);
    out_->wake_at(requeue_at_[j]);
  }

  // Partial admission and PodSets (podsets_config.cpp): the class's PodSets, the job's pods
  // admitted, its start on fewer GPUs.
  void read_podsets(const cfg::json& p, const SchedulerContext& ctx) {
    podsets_ = read_job_podsets(p.at("job_podsets"), ann_, ctx.workload.strings, ctx.scenario_file,
                                core_.model().resource_names, job_req_.gpu_kind, warnings_);
    scale_runtime_ = p.at("partial_admission_runtime").get<std::string>() == "scaled";
    bool fixed = false;
    for (const auto& c : podsets_) {
      for (const auto& t : c.sets) partial_ = partial_ || t.min_count > 0, fixed = fixed || !t.job_pods;
    }
    if (partial_ && !p.at("feature_gates").at("PartialAdmission").get<bool>())
      warnings_.push_back("feature gate PartialAdmission is off: PodSets with min_count are admitted only whole");
    if (partial_ && p.at("feature_gates").at("PartialAdmission").get<bool>())
      warnings_.push_back(scale_runtime_
                              ? "partial admission: a job admitted with fewer pods runs on fewer GPUs for runtime x requested / "
                                "admitted pods (partial_admission_runtime: scaled; its work is conserved, as a batch Job's "
                                "completions are), and is killed at its time limit if that comes first"
                              : "partial admission: a job admitted with fewer pods runs on fewer GPUs for its trace runtime "
                                "(partial_admission_runtime: unchanged)");
    if (fixed)
      warnings_.push_back("job_podsets: PodSets other than the job's own pods (count \"job\") are charged to quota but not "
                          "placed on nodes");
  }
  Request enqueue_request(const JobSpec& js, JobIdx j) {
    const ClassPodSets& c = js.klass < podsets_.size() ? podsets_[js.klass] : no_podsets_;
    if (!c.any()) return request_of(js, j);
    Request per_job = job_req_.per_job;
    per_job[kCpu] += own_cpu_milli(js);
    per_job[kMemory] += placement::job_mem_mib(js);
    const uint64_t untol = lq_untolerated_[job_lq_[j]] | tas_.unfit_flavors(ann_[js.klass]);
    PodSets ps = podsets_of(c, js, job_req_.gpu_kind, job_req_.per_gpu, per_job, untol);
    const Request req = ps.total();
    core_.set_podsets(j, std::move(ps));
    return req;
  }
  // The GPUs the workload being placed was admitted with: the job's pods per PodSet count.
  void admit_counts(JobIdx j) {
    const JobSpec& js = view_->jobs[j];
    gpus_[j] = js.gpus;
    const auto& counts = core_.placing_counts();
    if (counts.empty() || js.klass >= podsets_.size() || !podsets_[js.klass].any()) return;
    const int32_t pods = job_pods(js);
    gpus_[j] = js.gpus / pods * counts[podsets_[js.klass].job_set];
  }
  // The job as admitted: its GPUs (and nodes, one pod each) reduced by partial admission.
  JobSpec admitted_spec(JobIdx j) const {
    JobSpec js = view_->jobs[j];
    if (gpus_[j] != js.gpus) {
      if (js.nodes > 0) js.nodes = gpus_[j] / (js.gpus / js.nodes);
      js.gpus = gpus_[j];
    }
    return js;
  }
  void start(JobIdx j) {
    const int32_t full = view_->jobs[j].gpus;
    if (gpus_[j] == full) {
      out_->start(j, shares_);
    } else {
      out_->start_partial(j, shares_, gpus_[j], scale_runtime_ ? static_cast<double>(full) / gpus_[j] : 1.0);
      ++partial_admissions_;
    }
    started_pass_[j] = pass_id_;
  }

  Core core_;
  std::vector<std::string> warnings_;
  double grace_s_;
  bool charge_cpu_;
  JobRequests job_req_;
  std::map<JobIdx, uint16_t> held_;
  Provisioner prov_;                                 // ProvisioningRequest checks in flight
  std::vector<std::string> res_per_job_, res_per_gpu_;  // resources every job / every GPU requests
  std::string gpu_resource_;                            // what a job's GPUs are requested as
  std::vector<uint64_t> lq_untolerated_;  // by LocalQueue index: bit f = flavor f's taints not tolerated  // jobs whose LocalQueue never admits (stopPolicy, namespaceSelector)
  bool admit_then_place_;
  PodsReady wfpr_;
  std::vector<NodeId> job_cq_;
  std::vector<size_t> job_lq_;
  std::vector<std::string> lq_names_, ns_names_;
  std::vector<uint32_t> lq_ns_;
  std::vector<Qty> ns_hard_, ns_used_, ns_peak_;
  std::vector<uint64_t> ns_refused_;
  std::vector<int32_t> prio_, gpus_;
  std::vector<double> queue_ts_, requeue_at_, admitted_s_;
  std::vector<uint32_t> pr_count_;
  std::vector<uint64_t> started_pass_;  // pass_id_ of the pass that started the job
  uint64_t pass_id_ = 0;
  std::vector<uint8_t> pods_, waited_nodes_, deactivated_;
  std::vector<uint16_t> pod_reason_;
  std::vector<JobIdx> deferred_, unplaced_;
  std::vector<int32_t> free_, cap_;
  placement::NodeResources res_, cap_res_;  // the pass's free CPUs and memory; every up node's capacity
  std::vector<std::vector<uint8_t>> flavor_mask_;  // by flavor: allowed nodes (empty = all)
  std::vector<int32_t> flavor_;                    // by job: assigned GPU flavor (-1 = none)
  std::vector<JobAnnotations> ann_;                // by class: Kueue annotations (job_annotations)
  std::vector<ClassPodSets> podsets_;              // by class: job_podsets / job-min-parallelism
  ClassPodSets no_podsets_;
  bool partial_ = false, scale_runtime_ = true;    // some PodSet has a min_count; partial_admission_runtime
  uint64_t partial_admissions_ = 0;
  TasPlacer tas_;
  uint64_t tas_placed_ = 0, tas_not_fit_ = 0;
  int64_t last_free_gpus_ = 0;
  std::vector<NodeShare> shares_;
  std::vector<CycleRecord> records_;
  std::vector<Core::Eviction> evictions_;
  const Snapshot* view_ = nullptr;
  Decisions* out_ = nullptr;
  Core::PlaceFn place_fn_ = [this](uint32_t k) { return place(k); };
  uint64_t submitted_ = 0, admitted_ = 0, requeued_ = 0, quota_changes_ = 0, pods_ready_evictions_ = 0, blocked_passes_ = 0;
  uint64_t evictions_by_reason_[4] = {0, 0, 0, 0};
  uint64_t outcomes_[7] = {0, 0, 0, 0, 0, 0, 0};  // by Outcome
};

}  // namespace

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
  std::vector<std::string> job_resources;
  if (const std::string g = p.at("gpu_resource").get<std::string>(); !g.empty()) job_resources.push_back(g);
  for (const char* key : {"requests_per_job", "requests_per_gpu"})
    for (const auto& [res, q] : p.at(key).items()) job_resources.push_back(res);
  for (const auto& [klass, list] : p.at("job_podsets").items())  // checked in read_job_podsets
    if (list.is_array())
      for (const auto& ps : list)
        if (ps.is_object() && ps.contains("requests") && ps.at("requests").is_object())
          for (const auto& [res, q] : ps.at("requests").items()) job_resources.push_back(res);
  BuiltModel b = build_model(mf, ctx.scenario_file, job_resources);
  const auto& fsp = p.at("fair_sharing");
  b.model.fair_sharing = fsp.at("enable").get<bool>();
  const auto& st = fsp.at("preemption_strategies");
  b.model.fs_s2a = st[0] == "LessThanOrEqualToFinalShare";
  b.model.fs_s2b = st.back() == "LessThanInitialShare";
  b.model.gate_preempt_within_nominal = p.at("feature_gates").at("FairSharingPreemptWithinNominal").get<bool>();
  b.model.gate_prioritize_non_borrowing = p.at("feature_gates").at("FairSharingPrioritizeNonBorrowing").get<bool>();
  auto s = std::make_unique<KueueScheduler>(p, ctx, std::move(b));
  for (const auto& w : s->warnings()) ctx.warn(w);
  return s;
}

}  // namespace floorsim::kueue
