#pragma once
// The Kueue adapter's class, internal to schedulers/kueue: its state and small helpers. Its
// mechanisms are defined one per file: kueue_scheduler.cpp (engine events and passes into
// kueue::Core: admission, eviction, requeue; the report), kueue_pods.cpp (an admitted
// workload's pods onto nodes: placement, TAS, ResourceQuota ceilings, ProvisioningRequest
// checks, waitForPodsReady) and kueue_changes.cpp (policy changes to quotas at run time). The
// model's notes head kueue_scheduler.cpp.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedulers/common/node_resources.hpp"
#include "schedulers/common/placement.hpp"
#include "schedulers/kueue/core.hpp"
#include "schedulers/kueue/flavor_nodes.hpp"
#include "schedulers/kueue/job_ask.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "schedulers/kueue/podsets_config.hpp"
#include "schedulers/kueue/provisioning.hpp"
#include "schedulers/kueue/tas_place.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kueue::adapter {


enum Code : uint16_t {
  kNone = 0, kNoFit, kNoCandidates, kPendingPreemption, kSkipped, kNoNodes, kInactive, kNoLocalQueue,
  kResourceQuotaExceeded, kBackoff, kDeactivated, kBlockedByPodsReady, kNeverFits, kLocalQueueStopped,
  kNamespaceNotSelected, kProvisioning, kTopologyNotFit, kProvisioningRetry, kProvisioningRejected, kCodes
};
inline constexpr const char* kCodeNames[kCodes] = {"None", "NoFit", "NoCandidates", "PendingPreemption",
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
  KueueScheduler(const cfg::json& p, const SchedulerContext& ctx, BuiltModel built);

  std::string_view name() const override { return "kueue"; }

  void on_job_event(const JobEvent& ev, const Snapshot& v) override;

  void schedule(const Snapshot& v, Decisions& out) override;

  // Policy changes (issue 9): ClusterQueue quotas only; everything else is not a Kueue object.
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions&) override;

  ChangeScope change_scope(const PolicyChange& c, const Snapshot& v) const override;

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

  nlohmann::json report(const Snapshot&) const override;

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
  bool locate(const PolicyChange& c, NodeId& cq, FrId& fr, double& scale, std::string& err) const;
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
  bool create_pods(JobIdx j);
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
  bool place_nodes(JobIdx j);
  // A job's own CPUs as its cpu request, millicores: always for a CPU-only job (they are all it
  // asks), for a GPU job with charge_cpu.
  Qty own_cpu_milli(const JobSpec& js) const {
    return charge_cpu_ || js.gpus <= 0 ? static_cast<Qty>(js.cpus) * 1000 : 0;
  }
  // What the job's pods ask of nodes besides GPUs: the cpu and memory of its request (PodSets
  // other than its own pods are not placed), scaled to the GPUs a partial admission gave it.
  placement::NodeAsk node_ask(JobIdx j) const {
    const JobSpec& js = view_->jobs[j];
    placement::NodeAsk a = node_ask_.of(js);  // = request_of(js, j)'s cpu and memory
    if (js.gpus > 0 && gpus_[j] != js.gpus) {
      a.cpu_milli = a.cpu_milli * gpus_[j] / js.gpus;
      a.mem_mib = a.mem_mib * gpus_[j] / js.gpus;
    }
    return a;
  }

  // Core placement hook, called for a workload that fits in quota.
  bool place(uint32_t key);

  // A TAS flavor: the topology assignment is part of admission (Kueue's flavor assigner), so
  // the pods go to their assigned nodes now, or the workload is not admitted and is retried
  // when GPUs free up (pending reason TopologyNotFit).
  bool place_tas(JobIdx j);

  // Admitted workloads whose pods wait (for nodes, or for room under the namespace ceiling):
  // kube-scheduler order (priority, then admission time); waitForPodsReady timeouts.
  void place_unplaced();

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
  bool provisioning_passed(JobIdx j, SimTime now);
  nlohmann::json provisioning_report() const;

  // waitForPodsReady timeout (spec §8, pkg/workload UpdateRequeueState): evict, release the
  // quota, requeue after an exponential backoff, or deactivate past backoffLimitCount.
  void pods_ready_timeout(JobIdx j, SimTime now);

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
  JobNodeAsk node_ask_;
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

}  // namespace floorsim::kueue::adapter
