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

#include <cmath>
#include <filesystem>

#include "schedulers/kueue/adapter.hpp"

namespace floorsim::kueue {
namespace adapter {

KueueScheduler::KueueScheduler(const cfg::json& p, const SchedulerContext& ctx, BuiltModel built)
    : core_(std::move(built.model), settings(p, built.model), ctx.workload.jobs.size()),
      warnings_(std::move(built.warnings)),
      grace_s_(p.at("eviction_grace_s").get<double>()),
      charge_cpu_(p.at("charge_cpu").get<bool>()), node_ask_(p),
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

void KueueScheduler::on_job_event(const JobEvent& ev, const Snapshot& v) {
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

void KueueScheduler::schedule(const Snapshot& v, Decisions& out) {
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

nlohmann::json KueueScheduler::report(const Snapshot&) const {
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
}  // namespace adapter

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
  auto s = std::make_unique<adapter::KueueScheduler>(p, ctx, std::move(b));
  for (const auto& w : s->warnings()) ctx.warn(w);
  return s;
}

}  // namespace floorsim::kueue
