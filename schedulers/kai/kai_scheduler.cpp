// Adapter: engine snapshot -> KAI actions -> engine Decisions. Spec kueue-kai-model.md §10.
//
// Time model. One KAI session per engine pass: fair shares are recomputed from the queues'
// allocation and pending requests, then the actions run in KAI's order (allocate,
// consolidation, reclaim, preempt; stalegangeviction has nothing to do here because the engine
// starts gangs whole). Queue state is rebuilt from the snapshot each pass, so there is no
// accounting to drift.
// Eviction. A victim is preempted (requeued, keeping its id) after `eviction_grace_s`; while it
// terminates it keeps its GPUs and its queue's allocation, and the job it was evicted for is
// "pipelined": it is allocated before anything else once the GPUs are free (KAI pipelines the
// preemptor onto releasing resources).
// GPU sharing (docs/gpu-sharing). With gpu_sharing on, a job with gpu_milli (gpu-fraction, or
// gpu-memory converted at load as memory / the cluster's GPU memory) is packed onto one GPU
// shared with other fractional jobs (best fit: the fullest GPU that still has room, else a
// fresh GPU), and is charged its share against quota. There is no isolation: the burst limit
// (gpu_milli_limit) is not reserved, so devices whose summed limits exceed one GPU are counted
// as oversubscribed in the report.
// CPU and memory. Jobs' cpu / memory come from the scheduler block (requests_per_job /
// requests_per_gpu), a CPU-only job's own cpus and every job's own mem_per_*_mib; they are
// charged against the Queues' cpu / memory limits and quotas and divided per resource like
// GPUs, only when some job requests them (otherwise nothing changes). Where the nodes give
// CPUs or memory, a job is placed only on nodes that have them free (common/node_resources).
#include "schedulers/kai/kai_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "schedulers/common/node_resources.hpp"
#include "schedulers/common/placement.hpp"
#include "schedulers/kai/usage.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::kai {
namespace {

// Consolidation: a moved job is re-created and placed again this long after its eviction.
constexpr SimTime kRelocationDelay_s = 1.0;

enum Code : uint16_t { kNone = 0, kWhyNoQueue, kOverLimit, kOverQuota, kNoNodes, kPendingReclaim, kPendingPreemption, kCodes };
constexpr const char* kCodeNames[kCodes] = {"None", "NoQueue", "OverQueueLimit", "NonPreemptibleOverQuota",
                                            "NoNodes", "PendingReclaim", "PendingPreemption"};

// KAI's default priority classes (spec §10 Preemptibility).
int32_t kai_priority_class(const std::string& name, bool& ok) {
  ok = true;
  if (name == "train") return 50;
  if (name == "build-preemptible") return 75;
  if (name == "build") return 100;
  if (name == "inference") return 125;
  ok = false;
  return 0;
}

struct Params {
  std::vector<int32_t> prio;        // by JobIdx
  std::vector<uint8_t> preemptible;
  std::vector<int> queue;           // leaf, or kNoQueue
};

class KaiScheduler final : public Scheduler {
 public:
  KaiScheduler(const cfg::json& p, const SchedulerContext& ctx, QueueTree tree, std::vector<std::string> warnings)
      : t_(std::move(tree)), warnings_(std::move(warnings)), sharing_(p.at("gpu_sharing").get<bool>()),
        grace_s_(p.at("eviction_grace_s").get<double>()),
        preempt_min_s_(p.at("minruntime").at("default_preempt_min_runtime_s").get<double>()),
        reclaim_min_s_(p.at("minruntime").at("default_reclaim_min_runtime_s").get<double>()),
        reclaim_lca_(p.at("minruntime").at("reclaim_resolve_method").get<std::string>() == "lca"),
        max_preemptees_(p.at("consolidation_max_preemptees").get<int>()),
        time_aware_(p.at("time_aware_fairness").get<bool>()), k_value_(p.at("k_value").get<double>()),
        session_period_s_(p.at("session_period_s").get<double>()) {
    rcfg_.reclaimer_utilization_multiplier = p.at("reclaimer_utilization_multiplier").get<double>();
    for (const auto& a : p.at("actions")) {
      const std::string s = a.get<std::string>();
      (s == "allocate" ? do_allocate_ : s == "consolidation" ? do_consolidation_ : s == "reclaim" ? do_reclaim_ : do_preempt_) = true;
    }
    const auto& jobs = ctx.workload.jobs;
    const auto& strings = ctx.workload.strings;
    const size_t n = jobs.size();
    queue_.assign(n, kNoQueue);
    prio_.assign(n, 0);
    preemptible_.assign(n, 0);
    req_.assign(n, 0);
    pipelined_.assign(n, 0);
    last_slot_.assign(n, -1);
    const std::string from = p.at("queue_from").get<std::string>();
    const auto& qmap = p.at("queue_map");
    const auto& pmap = p.at("priority_classes");
    const auto& emap = p.at("preemptibility");
    for (auto it = qmap.begin(); it != qmap.end(); ++it) {
      const int q = t_.find(it.value().get<std::string>());
      if (q == kNoQueue || !t_.leaf(q))
        throw InputError(ctx.scenario_file, cfg::child("/scheduler/queue_map", it.key()),
                         "queue " + it.value().get<std::string>() + (q == kNoQueue ? " is not in the manifests" : " is a parent queue") +
                             "; expected a leaf Queue (only leaves take jobs)");
    }
    for (auto it = pmap.begin(); it != pmap.end(); ++it) {
      bool ok;
      kai_priority_class(it.value().get<std::string>(), ok);
      if (!ok)
        throw InputError(ctx.scenario_file, cfg::child("/scheduler/priority_classes", it.key()),
                         "priority class " + it.value().get<std::string>() + " is not a KAI class; expected train, build-preemptible, build or inference");
    }
    std::map<std::string, size_t> unmapped;
    for (size_t j = 0; j < n; ++j) {
      const JobSpec& js = jobs[j];
      const StrId sid = from == "account" ? js.account : from == "user" ? js.user : from == "qos" ? js.qos
                        : from == "partition" ? js.partition : js.klass;
      const std::string& value = strings.str(sid);
      std::string qn = value;
      if (auto it = qmap.find(value); it != qmap.end()) qn = it->get<std::string>();
      else if (auto d = qmap.find("*"); d != qmap.end()) qn = d->get<std::string>();
      const int q = t_.find(qn);
      if (q != kNoQueue && t_.leaf(q)) queue_[j] = q;
      else ++unmapped[qn];
      const std::string& klass = strings.str(js.klass);
      prio_[j] = js.priority;
      if (auto it = pmap.find(klass); it != pmap.end()) {
        bool ok;
        prio_[j] = kai_priority_class(it->get<std::string>(), ok);
      }
      if (auto it = emap.find(klass); it != emap.end()) preemptible_[j] = it->get<std::string>() == "preemptible";
      else preemptible_[j] = preemptible_by_priority(prio_[j]);
      req_[j] = sharing_ && js.gpu_milli > 0 ? js.gpu_milli : static_cast<Milli>(js.gpus) * 1000;
    }
    job_cpu_memory(p, ctx);
    if (time_aware_) usage_history(p.at("usage_params"), ctx.cluster);
    for (const auto& [qn, count] : unmapped)
      warnings_.push_back(fmt::format("{} jobs map to queue '{}', which is not a leaf Queue in the manifests; they stay pending (NoQueue)", count, qn));
    const size_t qs = static_cast<size_t>(t_.size());
    alloc_.assign(qs, 0);
    np_alloc_.assign(qs, 0);
    request_.assign(qs, 0);
    lists_.assign(qs, {});
    cursor_.assign(qs, 0);
    fair_s_.assign(qs, 0);
    fair_.assign(qs, 0);
    alloc_s_.assign(qs, 0);
    // GPU slots, node-major, numbered as the engine's ClusterView::gpu_first.
    for (size_t nd = 0; nd < ctx.cluster.node_gpus.size(); ++nd) {
      gpu_first_.push_back(static_cast<uint32_t>(slot_node_.size()));
      for (int32_t g = 0; g < ctx.cluster.node_gpus[nd]; ++g) slot_node_.push_back(static_cast<NodeIdx>(nd));
    }
    slot_limit_.assign(slot_node_.size(), 0);
    slot_jobs_.assign(slot_node_.size(), 0);
    victim_of_.assign(n, kNoJob);
    moved_once_.assign(n, 0);
    waiting_.assign(n, 0);
    started_pass_.assign(n, 0);
    for (size_t j = 0; j < n; ++j)
      if (sharing_ && jobs[j].gpu_milli > 0) {
        any_fractional_ = true;
        break;
      }
  }

  // cpu (millicores) and memory (MB) per job from the scheduler block's requests_per_job /
  // requests_per_gpu, and the warnings that say where they bind and where they cannot.
  void job_cpu_memory(const cfg::json& p, const SchedulerContext& ctx) {
    double per_job[2] = {0, 0}, per_gpu[2] = {0, 0};
    for (auto [key, out] : {std::pair{"requests_per_job", per_job}, std::pair{"requests_per_gpu", per_gpu}})
      for (const auto& [res, q] : p.at(key).items()) out[res == "cpu" ? 0 : 1] = kueue::request_quantity(q);
    const double scale[2] = {1000.0, 1e-6};  // cores -> millicores, bytes -> MB (KAI's Queue units)
    // A job's own fields: a CPU-only job's cpus (millicores); its memory, MiB -> MB rounded up.
    auto own = [&](int r, const JobSpec& js) -> Milli {
      if (r == 0) return js.gpus <= 0 ? static_cast<Milli>(js.cpus) * 1000 : 0;
      return (placement::job_mem_mib(js) * 1048576 + 999999) / 1000000;
    };
    for (int r = 0; r < 2; ++r) {
      const bool any_own = std::any_of(ctx.workload.jobs.begin(), ctx.workload.jobs.end(),
                                       [&](const JobSpec& js) { return own(r, js) > 0; });
      if (per_job[r] == 0 && per_gpu[r] == 0 && !any_own) continue;
      uses_[r] = true;
      xreq_[r].assign(queue_.size(), 0);
      for (size_t j = 0; j < queue_.size(); ++j) {
        const JobSpec& js = ctx.workload.jobs[j];
        xreq_[r][j] = static_cast<Milli>(std::llround((per_job[r] + per_gpu[r] * js.gpus) * scale[r])) + own(r, js);
      }
    }
    for (const auto& js : ctx.workload.jobs) any_cpu_only_ = any_cpu_only_ || js.gpus <= 0;
    const bool node_cap[2] = {ctx.cluster.gives_cpus(), ctx.cluster.gives_mem()};
    for (int r = 0; r < 2; ++r) {
      const char* name = kResourceNames[r + 1];
      for (int q = 0; q < t_.size(); ++q) {
        const ResQuota rq = res_quota(t_[q], r + 1);
        if (!uses_[r] && (rq.quota > 0 || rq.limit != kUnlimited))  // a quota or limit that could bind
          warnings_.push_back(fmt::format("Queue {}: its {} quota / limit never binds: no job requests {} "
                                          "(scheduler block requests_per_job / requests_per_gpu)", t_[q].name, name, name));
      }
      if (!uses_[r]) continue;
      if (node_cap[r])
        cap_x_[r] = r == 0 ? [&] { Milli c = 0; for (auto n : ctx.cluster.node_cpus) c += static_cast<Milli>(n) * 1000; return c; }()
                           : [&] { Milli c = 0; for (auto b : ctx.cluster.node_mem_bytes) c += b / 1000000; return c; }();
      warnings_.push_back(node_cap[r]
          ? fmt::format("jobs request {}: queues' {} quotas and limits bind, the nodes' {} is divided as fair share, "
                        "and a job is placed only where its {} is free (fractional GPU jobs: by GPU share only)", name, name, name, name)
          : fmt::format("jobs request {} but the cluster gives no node {}: {} quotas and limits bind queue-wise, and the "
                        "fair-share division of {} takes the cluster as large as the requests", name, name, name, name));
    }
    asks_nodes_ = (uses_[0] && node_cap[0]) || (uses_[1] && node_cap[1]);
    if (asks_nodes_ && do_consolidation_)
      warnings_.push_back("consolidation is off: jobs ask the nodes' CPUs or memory, and consolidation moves jobs by GPUs only");
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) {
        const size_t qs = static_cast<size_t>(t_.size());
        xalloc_[r].assign(qs, 0);
        xnp_alloc_[r].assign(qs, 0);
        xrequest_[r].assign(qs, 0);
        xfair_[r].assign(qs, 0);
      }
  }
  bool uses_extra() const { return uses_[0] || uses_[1]; }

  // Time-aware fairness: one block of channels (each queue, then the cluster's capacity) for
  // GPUs, and one for cpu and for memory where jobs request them and the nodes give them, as
  // KAI's usage database reports each of nvidia.com/gpu, cpu and memory over its own capacity
  // (pkg/scheduler/cache/usagedb/prometheus/prometheus.go GetResourceUsage).
  void usage_history(const cfg::json& u, const ClusterConfig& cluster) {
    UsageParams up;
    up.half_life_s = u.at("half_life_period_s").get<double>();
    up.window_s = u.at("window_size_s").get<double>();
    up.window = u.at("window_type").get<std::string>() == "tumbling" ? WindowType::Tumbling : WindowType::Sliding;
    up.tumbling_start_s = u.at("tumbling_window_start_s").get<double>();
    const bool node_cap[2] = {cluster.gives_cpus(), cluster.gives_mem()};
    size_t blocks = 1;
    for (int r = 0; r < 2; ++r) {
      if (!uses_[r]) continue;
      if (node_cap[r]) ublock_[r] = static_cast<int>(blocks++);
      else warnings_.push_back(fmt::format("time-aware fairness counts no {} usage: the cluster gives no node {} to "
                                           "measure it against (cluster.node_groups {})", kResourceNames[r + 1],
                                           kResourceNames[r + 1], r == 0 ? "cpus_per_node" : "mem_per_node_mib"));
    }
    history_.emplace(up, blocks * (static_cast<size_t>(t_.size()) + 1));
  }

  std::string_view name() const override { return "kai"; }
  bool wants_job_events() const override { return false; }
  bool packs_gpu_fractions() const override { return sharing_; }

  void schedule(const Snapshot& v, Decisions& out) override {
    view_ = &v;
    out_ = &out;
    if (v.now > last_pass_s_) {  // time-weighted queue figures for the report
      const double dt = v.now - last_pass_s_;
      for (int q = 0; q < t_.size(); ++q) {
        fair_s_[q] += dt * static_cast<double>(fair_[q] > 0 ? fair_[q] : 0) / 1000.0;
        alloc_s_[q] += dt * static_cast<double>(alloc_[q]) / 1000.0;
      }
      span_s_ += dt;
    }
    last_pass_s_ = v.now;
    ++pass_no_;
    if (history_) historical_usage(v.now);
    build_state(v);
    if (do_allocate_) allocate(v, out);
    if (do_consolidation_ && !asks_nodes_) consolidate(v, out);
    if (do_reclaim_) victims_pass(v, out, true);
    if (do_preempt_) victims_pass(v, out, false);
    if (history_) record_usage(v);
    // Periodic sessions (KAI's schedulePeriod) while work waits: fair shares that move with
    // historical usage can then reclaim between job events.
    if (session_period_s_ > 0 && !v.pending.empty()) out.wake_at(v.now + session_period_s_);
    view_ = nullptr;
    out_ = nullptr;
  }

  std::string_view reason_name(uint16_t code) const override { return code < kCodes ? kCodeNames[code] : "Other"; }
  std::vector<std::string> extra_columns() const override { return {"kai_queue", "kai_priority", "gpu_fraction", "gpu_slot"}; }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(queue_[j] == kNoQueue ? "" : t_[queue_[j]].name);
    out.push_back(std::to_string(prio_[j]));
    out.push_back(req_[j] % 1000 ? fmt::format("{}", static_cast<double>(req_[j]) / 1000.0) : "");
    out.push_back(last_slot_[j] < 0 ? "" : fmt::format("{}:{}", slot_node_[last_slot_[j]], last_slot_[j] - static_cast<int32_t>(gpu_first_[slot_node_[last_slot_[j]]])));
  }

  nlohmann::json report(const Snapshot& end) const override {
    nlohmann::json r;
    nlohmann::json qs = nlohmann::json::object();
    // The figures accumulate between passes; the stretch after the last pass, to the end of
    // the run, holds what that pass left. A run whose every pass is at one instant (nothing
    // ends before the horizon) has no stretch at all: the means are what that pass left.
    const double tail_s = end.now > last_pass_s_ ? end.now - last_pass_s_ : 0;
    const double span_s = span_s_ + tail_s;
    for (int q = 0; q < t_.size(); ++q) {
      const double fair_s = fair_s_[q] + tail_s * static_cast<double>(fair_[q] > 0 ? fair_[q] : 0) / 1000.0;
      const double alloc_s = alloc_s_[q] + tail_s * static_cast<double>(alloc_[q]) / 1000.0;
      const QueueSpec& s = t_[q];
      auto g = [](Milli m) { return m == kUnlimited ? nlohmann::json(-1) : nlohmann::json(static_cast<double>(m) / 1000.0); };
      qs[s.name] = {{"parent", s.parent == kNoQueue ? nlohmann::json(nullptr) : nlohmann::json(t_[s.parent].name)},
                    {"priority", s.priority},
                    {"deserved_gpus", g(s.quota)},
                    {"limit_gpus", g(s.limit)},
                    {"over_quota_weight", s.weight},
                    {"mean_fair_share_gpus", span_s > 0 ? fair_s / span_s : static_cast<double>(std::max<Milli>(fair_[q], 0)) / 1000.0},
                    {"mean_allocated_gpus", span_s > 0 ? alloc_s / span_s : static_cast<double>(alloc_[q]) / 1000.0}};
      if (time_aware_) qs[s.name]["historical_usage_share"] = usage_.empty() ? 0.0 : usage_[q];
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) {
          const ResQuota rq = res_quota(s, r + 1);
          auto v = [](Milli m) { return m == kUnlimited ? nlohmann::json(-1) : nlohmann::json(m); };
          qs[s.name][r == 0 ? "cpu_millicores" : "memory_mb"] = {{"deserved", v(rq.quota)},
                                                                {"limit", v(rq.limit)},
                                                                {"over_quota_weight", rq.weight},
                                                                {"fair_share_at_end", xfair_[r][q]},
                                                                {"allocated_at_end", xalloc_[r][q]}};
          if (!xusage_[r].empty()) qs[s.name][r == 0 ? "cpu_millicores" : "memory_mb"]["historical_usage_share"] = xusage_[r][q];
        }
    }
    r["queues"] = qs;
    r["actions"] = {{"allocated", allocated_},
                    {"consolidation_moves", consolidation_moves_},
                    {"reclaim_victims", reclaim_victims_},
                    {"preempt_victims", preempt_victims_},
                    {"min_runtime_protected", min_runtime_protected_}};
    r["gpu_sharing"] = {{"enabled", sharing_},
                        {"packed_starts", packed_starts_},
                        {"shared_gpus_peak", shared_gpus_peak_},
                        {"burst_oversubscribed_starts", burst_oversubscribed_},
                        {"max_jobs_on_one_gpu", max_on_gpu_}};
    if (time_aware_) r["time_aware_fairness"] = {{"k_value", k_value_}, {"at_s", last_pass_s_}};
    r["warnings"] = warnings_;
    return r;
  }

  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // --- per-pass state ---
  // Charges (sign 1) or returns (-1) job j's GPUs, cpu and memory up its queue's path.
  void add_job(JobIdx j, int sign) {
    const bool np = !preemptible_[j];
    for (int q = queue_[j]; q != kNoQueue; q = t_[q].parent) {
      alloc_[q] += sign * req_[j];
      if (np) np_alloc_[q] += sign * req_[j];
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) {
          xalloc_[r][q] += sign * xreq_[r][j];
          if (np) xnp_alloc_[r][q] += sign * xreq_[r][j];
        }
    }
  }

  void build_state(const Snapshot& v) {
    const int qs = t_.size();
    std::fill(alloc_.begin(), alloc_.end(), 0);
    std::fill(np_alloc_.begin(), np_alloc_.end(), 0);
    std::fill(request_.begin(), request_.end(), 0);
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) {
        std::fill(xalloc_[r].begin(), xalloc_[r].end(), 0);
        std::fill(xnp_alloc_[r].begin(), xnp_alloc_[r].end(), 0);
        std::fill(xrequest_[r].begin(), xrequest_[r].end(), 0);
      }
    for (auto& l : lists_) l.clear();
    std::fill(cursor_.begin(), cursor_.end(), 0);
    running_.clear();
    for (JobIdx j : v.running) {
      const int q = queue_[j];
      if (q == kNoQueue) continue;
      add_job(j, 1);
      request_[q] += req_[j];
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) xrequest_[r][q] += xreq_[r][j];
      // A victim that is terminating keeps its quota but is no candidate again; the job it was
      // evicted for waits for it (stays pipelined).
      if (v.runs[j].stop_s < 0) running_.push_back({j, q, prio_[j], preemptible_[j] != 0, v.runs[j].start_s, req_[j]});
      else if (victim_of_[j] != kNoJob) waiting_[victim_of_[j]] = pass_no_;
    }
    for (JobIdx j : v.pending) {
      if (!v.eligible(j) || v.runs[j].state != JobState::Pending) continue;
      const int q = queue_[j];
      if (q == kNoQueue) {
        out_->set_reason(j, kWhyNoQueue);
        continue;
      }
      lists_[q].push_back(j);
      request_[q] += req_[j];
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) xrequest_[r][q] += xreq_[r][j];
    }
    // Job order within a queue (KAI job order): pipelined first, higher priority, then the
    // engine's queue order (submission / requeue time, id). Usually already sorted.
    auto before = [&](JobIdx a, JobIdx b) {
      if (pipelined_[a] != pipelined_[b]) return pipelined_[a] > pipelined_[b];
      return prio_[a] > prio_[b];
    };
    for (int q = 0; q < qs; ++q)
      if (!std::is_sorted(lists_[q].begin(), lists_[q].end(), before))
        std::stable_sort(lists_[q].begin(), lists_[q].end(), before);
    fair_shares(t_, v.cluster.total_up_gpus * 1000, request_, 1000, fair_, subtree_req_, div_scratch_, usage_, k_value_);
    // cpu and memory by the same rule (resource_division.go SetResourcesShare, per resource);
    // without node capacities the cluster is taken as large as all requests. Whole units are
    // one millicore / one MB (KAI floors in its own units: millicores, bytes).
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) {
        Milli cap = cap_x_[r];
        if (cap <= 0)
          for (int q = 0; q < t_.size(); ++q) cap += t_.leaf(q) ? xrequest_[r][q] : 0;
        fair_shares(t_, cap, xrequest_[r], 1, xfair_[r], subtree_req_, div_scratch_, xusage_[r], k_value_, r + 1);
      }
    free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
    res_.reset(v.cluster);
    free_total_ = v.cluster.total_free_gpus;
    slot_.assign(v.cluster.gpu_used_milli.begin(), v.cluster.gpu_used_milli.end());
    if (any_fractional_) {
      std::fill(slot_limit_.begin(), slot_limit_.end(), 0);
      std::fill(slot_jobs_.begin(), slot_jobs_.end(), 0);
      for (JobIdx j : v.running)
        if (v.runs[j].gpu_slot >= 0) {
          slot_limit_[v.runs[j].gpu_slot] += limit_milli(j);
          ++slot_jobs_[v.runs[j].gpu_slot];
        }
      shared_now_ = 0;
      for (auto m : slot_) shared_now_ += m > 0;
    }
    if (any_fractional_) update_best_room();
    else best_room_ = 0;
  }

  // Time-aware fairness: each queue's usage over the window, over the cluster's capacity over
  // the same window (each block's last channel), per resource, as KAI's usage database reports
  // it; each resource's division weighs its own usage (resource_division.go calcShareWeights).
  void historical_usage(double now) {
    history_->window_sums(now, sums_);
    const size_t qs = static_cast<size_t>(t_.size());
    auto block = [&](size_t b, std::vector<double>& out) {
      const double cap = sums_[b * (qs + 1) + qs];
      out.assign(qs, 0.0);
      for (size_t q = 0; q < qs; ++q) out[q] = cap > 0 ? sums_[b * (qs + 1) + q] / cap : 0.0;
    };
    block(0, usage_);
    for (int r = 0; r < 2; ++r)
      if (ublock_[r] > 0) block(static_cast<size_t>(ublock_[r]), xusage_[r]);
  }
  // The allocation this pass leaves holds until the next pass (every start and end is a pass):
  // GPUs; cpu in cores and memory in MB against the up nodes' capacity.
  void record_usage(const Snapshot& v) {
    const size_t qs = static_cast<size_t>(t_.size());
    rates_.assign(history_->channels(), 0.0);
    for (size_t q = 0; q < qs; ++q) rates_[q] = static_cast<double>(alloc_[q]) / 1000.0;
    rates_[qs] = static_cast<double>(v.cluster.total_up_gpus);
    for (int r = 0; r < 2; ++r) {
      if (ublock_[r] <= 0) continue;
      const size_t b = static_cast<size_t>(ublock_[r]) * (qs + 1);
      for (size_t q = 0; q < qs; ++q) rates_[b + q] = static_cast<double>(xalloc_[r][q]) / (r == 0 ? 1000.0 : 1.0);
      const auto cap = r == 0 ? v.cluster.capacity_cpus : v.cluster.capacity_mem_mib;
      double up = 0;
      for (size_t n = 0; n < cap.size(); ++n)
        if (v.cluster.node_up[n]) up += static_cast<double>(cap[n]);
      rates_[b + qs] = r == 0 ? up : up * 1.048576;  // MiB -> MB
    }
    history_->record(v.now, rates_);
  }

  Milli limit_milli(JobIdx j) const {
    const JobSpec& js = view_->jobs[j];
    return js.gpu_milli_limit > js.gpu_milli ? js.gpu_milli_limit : js.gpu_milli;
  }
  bool packed(JobIdx j) const { return sharing_ && view_->jobs[j].gpu_milli > 0; }

  // Placement of job j against `free`/`slot` (the pass's copies or a scratch what-if).
  // Whole GPUs: first fit. Fractional: the fullest shared GPU with room, else a fresh GPU on
  // the first node with one free. Writes shares_ / pack_node_, pack_gpu_.
  bool place(JobIdx j, std::span<const int32_t> free, std::span<const int32_t> slot, const placement::NodeResources& res) {
    const JobSpec& js = view_->jobs[j];
    if (!packed(j)) return res.first_fit(js, node_ask(j), free, {}, shares_, view_->cluster.max_node_gpus);
    int best = -1;
    for (size_t s = 0; s < slot.size(); ++s)
      if (slot[s] > 0 && slot[s] + js.gpu_milli <= 1000 && view_->cluster.node_up[slot_node_[s]] &&
          (best < 0 || slot[s] > slot[best]))
        best = static_cast<int>(s);
    if (best < 0)
      for (size_t nd = 0; nd < free.size() && best < 0; ++nd)
        if (free[nd] > 0)
          for (uint32_t s = gpu_first_[nd]; s < gpu_first_[nd] + static_cast<uint32_t>(view_->cluster.capacity_gpus[nd]); ++s)
            if (slot[s] == 0) {
              best = static_cast<int>(s);
              break;
            }
    if (best < 0) return false;
    pack_slot_ = best;
    return true;
  }
  // What j's pods ask of nodes besides GPUs (0 where no job requests cpu / memory).
  placement::NodeAsk node_ask(JobIdx j) const {
    placement::NodeAsk a;
    if (uses_[0]) a.cpu_milli = xreq_[0][j];
    if (uses_[1]) a.mem_mib = (xreq_[1][j] * 1000000 + 1048575) / 1048576;  // MB -> MiB, rounded up
    return a;
  }
  // Applies the last place() of j to `free`/`slot`.
  void take(JobIdx j, std::span<int32_t> free, std::span<int32_t> slot) {
    if (!packed(j)) {
      res_.take(shares_);
      return placement::take(free, shares_);
    }
    if (slot[pack_slot_] == 0) --free[slot_node_[pack_slot_]];
    slot[pack_slot_] += view_->jobs[j].gpu_milli;
  }
  // Returns a running job's GPUs to `free`/`slot`.
  void give(JobIdx j, std::span<int32_t> free, std::span<int32_t> slot, placement::NodeResources& res) {
    const int32_t s = view_->runs[j].gpu_slot;
    if (s < 0) {
      res.give(view_->allocation_of(j));
      return placement::give(free, view_->allocation_of(j));
    }
    slot[s] -= view_->jobs[j].gpu_milli;
    if (slot[s] == 0) ++free[slot_node_[s]];
  }
  // Emits the start of j at the last place(), updating the pass state.
  void start(JobIdx j) {
    take(j, free_, slot_);
    if (packed(j)) {
      const JobSpec& js = view_->jobs[j];
      if (slot_jobs_[pack_slot_] == 0) {
        ++shared_now_;
        --free_total_;
        shared_gpus_peak_ = std::max(shared_gpus_peak_, shared_now_);
      }
      ++slot_jobs_[pack_slot_];
      max_on_gpu_ = std::max<uint64_t>(max_on_gpu_, slot_jobs_[pack_slot_]);
      slot_limit_[pack_slot_] += limit_milli(j);
      if (slot_limit_[pack_slot_] > 1000) ++burst_oversubscribed_;
      ++packed_starts_;
      const NodeIdx nd = slot_node_[pack_slot_];
      out_->start_packed(j, nd, pack_slot_ - static_cast<int32_t>(gpu_first_[nd]));
      last_slot_[j] = pack_slot_;
      update_best_room();
      (void)js;
    } else {
      free_total_ -= view_->jobs[j].gpus;
      out_->start(j, shares_);
    }
    add_job(j, 1);
    pipelined_[j] = 0;
    started_pass_[j] = pass_no_;
    ++allocated_;
  }
  bool started_now(JobIdx j) const { return started_pass_[j] == pass_no_; }
  void reason(JobIdx j, uint16_t code) {
    if (view_->runs[j].reason != code) out_->set_reason(j, code);
  }
  // Upper bound on the GPUs reclaim could free for a job of `leaf` (a cheap pre-test, no
  // candidate list): the preemptible allocation of every queue beside the leaf's path that is
  // over min(its fair-share floor, its deserved quota), i.e. that either victim test could pass.
  int64_t reclaimable_gpus_bound(int leaf) const {
    Milli sum = 0;
    for (int q = leaf; q != kNoQueue; q = t_[q].parent) {
      const auto& sibs = t_[q].parent == kNoQueue ? t_.roots() : t_.children(t_[q].parent);
      for (int v : sibs) {
        if (v == q) continue;
        const QueueSpec& s = t_[v];
        Milli keep = std::max(s.quota == kUnlimited ? fair_[v] : s.quota, fair_[v]);
        if (s.limit != kUnlimited) keep = std::min(keep, s.limit);
        const Milli floor = s.quota == kUnlimited ? keep : std::min(keep, s.quota);
        if (alloc_[v] > floor) sum += alloc_[v] - np_alloc_[v];
      }
    }
    return sum / 1000 + 1;  // whole GPUs, rounded up generously for packed victims
  }
  // Gives victims' GPUs back to the pass state (grace 0: they stop before the next start).
  void release_victims(std::span<const uint32_t> victims) {
    for (uint32_t k : victims) {
      give(k, free_, slot_, res_);
      add_job(k, -1);
    }
    free_total_ = placement::sum(free_);
    if (any_fractional_) update_best_room();
  }

  // Quota checks for starting j now (allocate and the victim actions).
  // `removed` (gpu, cpu, memory) is what same-queue victims give back on the job's path.
  uint16_t quota_block(JobIdx j, const Milli (&removed)[kResources] = kNothing) {
    const int q = queue_[j];
    if (!within_limits_minus(q, req_[j], removed[kGpu], alloc_, kGpu)) return kOverLimit;
    for (int r = 0; r < 2; ++r)
      if (uses_[r] && !within_limits_minus(q, xreq_[r][j], removed[r + 1], xalloc_[r], r + 1)) return kOverLimit;
    if (preemptible_[j]) return kNone;
    if (!nonpreemptible_within_quota(t_, np_alloc_, q, req_[j])) return kOverQuota;
    for (int r = 0; r < 2; ++r)
      if (uses_[r] && !nonpreemptible_within_quota(t_, xnp_alloc_[r], q, xreq_[r][j], r + 1)) return kOverQuota;
    return kNone;
  }
  static constexpr Milli kNothing[kResources] = {0, 0, 0};
  bool within_limits_minus(int leaf, Milli req, Milli removed, std::span<const Milli> alloc, int resource) const {
    if (removed == 0) return within_limits(t_, alloc, leaf, req, resource);
    for (int q = leaf; q != kNoQueue; q = t_[q].parent) {
      const Milli limit = res_quota(t_[q], resource).limit;
      if (limit != kUnlimited && alloc[q] - removed + req > limit) return false;
    }
    return true;
  }
  // Exact for whole-GPU jobs that may spread (nodes 0); a necessary test otherwise.
  bool could_fit_whole(JobIdx j) const {
    if (packed(j)) return free_total_ > 0 || view_->jobs[j].gpu_milli <= best_room_;
    return view_->jobs[j].gpus <= free_total_;
  }
  // Largest room left on a shared GPU (0 when none), for the quick test above.
  void update_best_room() {
    best_room_ = 0;
    for (auto m : slot_)
      if (m > 0 && 1000 - m > best_room_) best_room_ = 1000 - m;
  }

  // Picks the leaf to serve next: descend from the roots, at each level the child whose best
  // leaf's head job comes first by queue order (PP/queue_order).
  int pick(int q) {
    if (t_.leaf(q)) return cursor_[q] < lists_[q].size() ? q : kNoQueue;
    return pick_among(t_.children(q));
  }
  int pick_among(const std::vector<int>& kids) {
    int best_child = kNoQueue, best_leaf = kNoQueue;
    for (int c : kids) {
      const int l = pick(c);
      if (l == kNoQueue) continue;
      if (best_leaf == kNoQueue ||
          queue_before(state(c, head(l)), req_[head(l)], state(best_child, head(best_leaf)), req_[head(best_leaf)])) {
        best_child = c;
        best_leaf = l;
      }
    }
    return best_leaf;
  }
  JobIdx head(int leaf) const { return lists_[leaf][cursor_[leaf]]; }
  QueueState state(int q, JobIdx head_job) const {
    QueueState s{alloc_[q], fair_[q], t_[q].quota == kUnlimited ? fair_[q] : t_[q].quota, t_[q].priority, q};
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) s.extra[r] = {xalloc_[r][q], xfair_[r][q], xreq_[r][head_job]};
    return s;
  }

  void allocate(const Snapshot& v, Decisions& out) {
    unplaced_.clear();
    blocked_limit_req_.assign(t_.size(), std::numeric_limits<Milli>::max());
    blocked_np_req_.assign(t_.size(), std::numeric_limits<Milli>::max());
    // Pipelined jobs (evicted for, or moved by consolidation) are placed before anything else;
    // the mark stays while a victim of theirs is still terminating.
    for (int q = 0; q < t_.size(); ++q)
      while (cursor_[q] < lists_[q].size() && pipelined_[head(q)]) {
        const JobIdx j = head(q);
        ++cursor_[q];
        if (!quota_block(j) && could_fit_whole(j) && place(j, free_, slot_, res_)) {
          start(j);
          continue;
        }
        if (waiting_[j] != pass_no_) pipelined_[j] = 0;
        out.set_reason(j, kNoNodes);
        unplaced_.push_back(j);
      }
    // Queue order decides who gets GPUs; a job that cannot start changes nothing, so after a
    // pick the leaf's jobs are tried in order until one starts, and only then is the next leaf
    // picked. With no GPU and no shared room left, nothing more can start: each leaf's next job
    // is recorded (the claimant of reclaim / preempt) and the scan stops.
    for (;;) {
      if (free_total_ <= 0 && best_room_ <= 0 && !any_cpu_only_) {  // CPU-only jobs may still start
        for (int q = 0; q < t_.size(); ++q)
          if (t_.leaf(q) && cursor_[q] < lists_[q].size()) {
            out.set_reason(head(q), kNoNodes);
            unplaced_.push_back(head(q));
          }
        break;
      }
      const int leaf = pick_among(t_.roots());
      if (leaf == kNoQueue) break;
      while (cursor_[leaf] < lists_[leaf].size()) {
        const JobIdx j = head(leaf);
        ++cursor_[leaf];
        if (!could_fit_whole(j)) {  // the O(1) capacity test first: most of a backlog fails it
          reason(j, kNoNodes);
          unplaced_.push_back(j);
          continue;
        }
        // Within one allocate, allocations only grow: a leaf blocked by quota for a request
        // stays blocked for any request as large (saves a walk up the tree per backlog job).
        // (The non-preemptible quota rule binds non-preemptible jobs only.)
        // (Not with cpu / memory requests: a smaller one of those may fit where a GPU-equal job did not.)
        if (!uses_extra() && (req_[j] >= blocked_limit_req_[leaf] || (!preemptible_[j] && req_[j] >= blocked_np_req_[leaf]))) {
          reason(j, req_[j] >= blocked_limit_req_[leaf] ? kOverLimit : kOverQuota);
          continue;
        }
        if (const uint16_t b = quota_block(j)) {
          Milli& memo = b == kOverLimit ? blocked_limit_req_[leaf] : blocked_np_req_[leaf];
          memo = std::min(memo, req_[j]);
          reason(j, b);
          continue;
        }
        if (place(j, free_, slot_, res_)) {
          start(j);
          break;
        }
        reason(j, kNoNodes);
        unplaced_.push_back(j);
      }
    }
  }

  // Consolidation (actions/consolidation): for an unplaced whole-GPU job that fits on one node
  // and for which enough GPUs are free in total, move preemptible single-node jobs off one node
  // if every one of them can be placed elsewhere now. A job is moved at most once, so that two
  // pending jobs cannot make consolidation move the same jobs back and forth. The moved jobs
  // are requeued (they restart, as relocated pods do) and pipelined so that the next pass
  // re-places them first.
  void consolidate(const Snapshot& v, Decisions& out) {
    const size_t nodes = free_.size();
    for (JobIdx j : unplaced_) {
      const JobSpec& js = v.jobs[j];
      if (started_now(j) || packed(j) || pipelined_[j] || js.nodes > 1 || js.gpus > v.cluster.max_node_gpus || js.gpus > free_total_) continue;
      if (quota_block(j)) continue;
      for (size_t nd = 0; nd < nodes; ++nd) {
        if (!v.cluster.node_up[nd] || v.cluster.capacity_gpus[nd] < js.gpus) continue;
        movers_.clear();
        for (const auto& r : running_)
          if (r.preemptible && !moved_once_[r.key] && v.runs[r.key].gpu_slot < 0 && v.runs[r.key].alloc_count == 1 &&
              v.allocation_of(r.key)[0].node == nd && !moved_this_pass(r.key))
            movers_.push_back(r.key);
        std::stable_sort(movers_.begin(), movers_.end(), [&](JobIdx a, JobIdx b) { return v.jobs[a].gpus < v.jobs[b].gpus; });
        int32_t have = free_[nd];
        size_t take_n = 0;
        while (have < js.gpus && take_n < movers_.size() && static_cast<int>(take_n) < max_preemptees_) have += v.jobs[movers_[take_n++]].gpus;
        if (have < js.gpus || take_n == 0) continue;
        movers_.resize(take_n);
        // What-if: free the movers, put j on nd, then re-place every mover off nd.
        scratch_free_ = free_;
        for (JobIdx m : movers_) scratch_free_[nd] += v.jobs[m].gpus;
        scratch_free_[nd] -= js.gpus;
        const int32_t keep_nd = scratch_free_[nd];
        scratch_free_[nd] = 0;
        bool ok = true;
        for (JobIdx m : movers_) {
          if (!placement::first_fit(v.jobs[m], scratch_free_, shares_, v.cluster.max_node_gpus)) {
            ok = false;
            break;
          }
          placement::take(scratch_free_, shares_);
        }
        if (!ok) continue;
        for (JobIdx m : movers_) {
          out.preempt(m, PreemptMode::Requeue, j, 0);
          pipelined_[m] = 1;
          moved_once_[m] = 1;
          moved_.push_back(m);
          add_job(m, -1);
          free_[nd] += v.jobs[m].gpus;
          free_total_ += v.jobs[m].gpus;
          ++consolidation_moves_;
        }
        // j starts now on nd; the movers' new room stays free for their restart, which comes
        // after the relocation delay (pod re-creation), first in their queues (pipelined).
        shares_.assign(1, NodeShare{static_cast<NodeIdx>(nd), js.gpus});
        start(j);
        out.wake_at(v.now + kRelocationDelay_s);
        (void)keep_nd;
        break;
      }
    }
    // Movers are gone from running_ for the victim actions of this pass.
    if (!moved_.empty()) {
      std::erase_if(running_, [&](const RunningJob& r) { return moved_this_pass(r.key); });
      moved_.clear();
    }
  }
  bool moved_this_pass(JobIdx j) const { return std::find(moved_.begin(), moved_.end(), j) != moved_.end(); }

  // Reclaim (other queues' over-share jobs) or preempt (same queue, lower priority): one
  // claimant per leaf queue per pass, its first job left unplaced, queues in queue order.
  void victims_pass(const Snapshot& v, Decisions& out, bool reclaim) {
    claimants_.clear();
    for (JobIdx j : unplaced_)
      if (!pipelined_[j] && !started_now(j) &&
          std::none_of(claimants_.begin(), claimants_.end(), [&](JobIdx c) { return queue_[c] == queue_[j]; }))
        claimants_.push_back(j);
    std::stable_sort(claimants_.begin(), claimants_.end(), [&](JobIdx a, JobIdx b) {
      return queue_before(state(queue_[a], a), req_[a], state(queue_[b], b), req_[b]);
    });
    for (JobIdx j : claimants_) {
      if (pipelined_[j]) continue;
      const Claimant c{queue_[j], prio_[j], preemptible_[j] != 0, req_[j]};
      if (reclaim) {
        if (!may_reclaim(t_, alloc_, fair_, np_alloc_, c) || !extra_within_fair(j) || quota_block(j)) continue;
        if (!packed(j) && free_total_ + reclaimable_gpus_bound(c.queue) < v.jobs[j].gpus) continue;
        reclaim_candidates(t_, alloc_, fair_, running_, c, cands_);
      } else {
        preempt_candidates(running_, c, cands_);
      }
      drop_min_runtime_protected(v, out, c.queue, reclaim);
      if (cands_.empty()) continue;
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) xremoved_[r].assign(static_cast<size_t>(t_.size()), 0);
      const AdmissibleFn admissible = [&](const RunningJob& cand, std::span<const Milli> removed) {
        if (!reclaim) return true;
        if (!uses_extra()) return reclaim_victim_ok(t_, alloc_, fair_, removed, c, cand.queue, cand.req, rcfg_);
        return reclaim_victim_ok_extra(j, c, cand, removed);
      };
      const FitsFn fits = [&](std::span<const uint32_t> chosen) {
        if (!packed(j)) {  // cheap count test before a placement
          int64_t could = free_total_;
          for (uint32_t k : chosen) could += v.runs[k].gpu_slot < 0 ? v.jobs[k].gpus : 1;
          if (could < v.jobs[j].gpus) return false;
        }
        if (!reclaim) {  // same queue: the victims' quota comes back on the job's own path
          Milli back[kResources] = {0, 0, 0};
          for (uint32_t k : chosen) {
            back[kGpu] += req_[k];
            for (int r = 0; r < 2; ++r)
              if (uses_[r]) back[r + 1] += xreq_[r][k];
          }
          if (quota_block(j, back)) return false;
        }
        scratch_free_ = free_;
        scratch_slot_ = slot_;
        scratch_res_ = res_;
        for (uint32_t k : chosen) give(k, scratch_free_, scratch_slot_, scratch_res_);
        return place(j, scratch_free_, scratch_slot_, scratch_res_);
      };
      if (!select_victims(t_, cands_, admissible, fits, chosen_)) continue;
      for (uint32_t k : chosen_) {
        out.preempt(k, PreemptMode::Requeue, j, grace_s_);
        (reclaim ? reclaim_victims_ : preempt_victims_)++;
      }
      std::erase_if(running_, [&](const RunningJob& r) {
        return std::find(chosen_.begin(), chosen_.end(), r.key) != chosen_.end();
      });
      if (grace_s_ > 0) {  // victims keep GPUs and quota until they stop; j waits for them
        for (uint32_t k : chosen_) victim_of_[k] = j;
        pipelined_[j] = 1;
        out.set_reason(j, reclaim ? kPendingReclaim : kPendingPreemption);
        continue;
      }
      release_victims(chosen_);
      if (place(j, free_, slot_, res_)) start(j);
    }
  }

  // CanReclaimResources over cpu and memory: the reclaimer's queue path stays within its fair
  // share of each with the job (a non-preemptible one: quota_block holds it to deserved).
  bool extra_within_fair(JobIdx j) const {
    if (!preemptible_[j]) return true;
    for (int r = 0; r < 2; ++r)
      if (uses_[r])
        for (int q = queue_[j]; q != kNoQueue; q = t_[q].parent)
          if (xalloc_[r][q] + xreq_[r][j] > xfair_[r][q]) return false;
    return true;
  }
  // The victim test over gpu, cpu and memory (reclaim_victim_ok_res): the cpu and memory taken
  // so far follow the GPUs select_victims counts; a refused candidate's are given back.
  bool reclaim_victim_ok_extra(JobIdx j, const Claimant& c, const RunningJob& cand, std::span<const Milli> removed) {
    for (int r = 0; r < 2; ++r)
      if (uses_[r])
        for (int q = cand.queue; q != kNoQueue; q = t_[q].parent) xremoved_[r][q] += xreq_[r][cand.key];
    ResState res[kResources];
    Milli in_req[kResources] = {req_[j], 0, 0}, v_req[kResources] = {cand.req, 0, 0};
    res[kGpu] = {alloc_, fair_, removed};
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) {
        res[r + 1] = {xalloc_[r], xfair_[r], xremoved_[r]};
        in_req[r + 1] = xreq_[r][j];
        v_req[r + 1] = xreq_[r][cand.key];
      }
    const bool ok = reclaim_victim_ok_res(t_, res, c, in_req, cand.queue, v_req, rcfg_);
    if (!ok)
      for (int r = 0; r < 2; ++r)
        if (uses_[r])
          for (int q = cand.queue; q != kNoQueue; q = t_[q].parent) xremoved_[r][q] -= xreq_[r][cand.key];
    return ok;
  }

  // The minruntime plugin's victim filters: a candidate that started less than its minimum
  // runtime ago is protected; the pass that follows its protection's end may take it.
  void drop_min_runtime_protected(const Snapshot& v, Decisions& out, int claimant_queue, bool reclaim) {
    std::erase_if(cands_, [&](const RunningJob& r) {
      const double min_s = reclaim ? reclaim_min_runtime(t_, claimant_queue, r.queue, reclaim_min_s_, reclaim_lca_)
                                   : preempt_min_runtime(t_, r.queue, preempt_min_s_);
      const double until = v.runs[r.key].start_s + min_s;
      if (min_s <= 0 || v.runs[r.key].start_s < 0 || v.now >= until) return false;
      out.wake_at(until);
      ++min_runtime_protected_;
      return true;
    });
  }

  QueueTree t_;
  std::vector<std::string> warnings_;
  bool sharing_;
  double grace_s_;
  double preempt_min_s_, reclaim_min_s_;  // the minruntime plugin's defaults
  bool reclaim_lca_;
  uint64_t min_runtime_protected_ = 0;
  int max_preemptees_;
  ReclaimConfig rcfg_;
  bool time_aware_;
  double k_value_;
  double session_period_s_;  // 0: a session at engine events only
  std::optional<UsageHistory> history_;  // time-aware fairness only
  std::vector<double> usage_, sums_, rates_;  // by queue: normalised historical usage (empty = off)
  std::vector<double> xusage_[2];             // the same for cpu and memory (empty = not counted)
  int ublock_[2] = {-1, -1};                  // their channel block in history_ (-1 = none)
  // cpu (index 0, millicores) and memory (1, MB), only where some job requests them (uses_)
  bool uses_[2] = {false, false};
  Milli cap_x_[2] = {0, 0};                    // the nodes' total; 0 = not given
  std::vector<Milli> xreq_[2];                 // by JobIdx
  std::vector<Milli> xalloc_[2], xnp_alloc_[2], xrequest_[2], xfair_[2];  // by queue
  std::vector<Milli> xremoved_[2];  // by queue: cpu / memory of the victims chosen so far (reclaim)
  bool do_allocate_ = false, do_consolidation_ = false, do_reclaim_ = false, do_preempt_ = false;
  bool any_fractional_ = false;
  // by JobIdx
  std::vector<int> queue_;
  std::vector<int32_t> prio_;
  std::vector<uint8_t> preemptible_, pipelined_;
  std::vector<uint8_t> moved_once_;  // consolidation moves a job at most once (no ping-pong)
  std::vector<Milli> req_;
  std::vector<int32_t> last_slot_;
  // by queue
  std::vector<Milli> alloc_, np_alloc_, request_, fair_, subtree_req_;
  DivideScratch div_scratch_;
  std::vector<std::vector<JobIdx>> lists_;
  std::vector<size_t> cursor_;
  std::vector<double> fair_s_, alloc_s_;
  double span_s_ = 0, last_pass_s_ = 0;
  // GPU slots
  std::vector<NodeIdx> slot_node_;
  std::vector<uint32_t> gpu_first_;
  std::vector<Milli> slot_limit_;
  std::vector<uint32_t> slot_jobs_;
  // pass scratch
  const Snapshot* view_ = nullptr;
  Decisions* out_ = nullptr;
  std::vector<RunningJob> running_, cands_;
  std::vector<int32_t> free_, slot_, scratch_free_, scratch_slot_;
  placement::NodeResources res_, scratch_res_;  // the pass's free CPUs and memory; a what-if copy
  bool asks_nodes_ = false;    // some job asks CPUs or memory the nodes give: placement checks them
  bool any_cpu_only_ = false;  // some job asks no GPUs
  int64_t free_total_ = 0;
  Milli best_room_ = 0;
  // by leaf, per allocate: smallest request blocked by a limit / by the non-preemptible quota
  std::vector<Milli> blocked_limit_req_, blocked_np_req_;
  std::vector<NodeShare> shares_;
  int32_t pack_slot_ = -1;
  std::vector<JobIdx> unplaced_, movers_, moved_, claimants_;
  std::vector<JobIdx> victim_of_;           // by JobIdx: whom a terminating victim was evicted for
  std::vector<uint32_t> waiting_, started_pass_;  // by JobIdx: pass stamps
  uint32_t pass_no_ = 0;
  std::vector<uint32_t> chosen_;
  // report
  uint64_t allocated_ = 0, consolidation_moves_ = 0, reclaim_victims_ = 0, preempt_victims_ = 0;
  uint64_t packed_starts_ = 0, burst_oversubscribed_ = 0, max_on_gpu_ = 0;
  int64_t shared_now_ = 0, shared_gpus_peak_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_kai(const cfg::json& p, const SchedulerContext& ctx) {
  kueue::Manifests mf;
  size_t i = 0;
  for (const auto& f : p.at("manifests")) {
    std::filesystem::path path(f.get<std::string>());
    if (path.is_relative() && !ctx.base_dir.empty()) path = std::filesystem::path(ctx.base_dir) / path;
    if (!std::filesystem::exists(path))
      throw InputError(ctx.scenario_file, "/scheduler/manifests/" + std::to_string(i),
                       "cannot read " + path.string() + "; expected a KAI Queue YAML file relative to the scenario");
    kueue::load_manifest_file(path.string(), path.string(), mf);
    ++i;
  }
  std::vector<std::string> warnings;
  QueueTree t = check_queues(mf, warnings);
  auto s = std::make_unique<KaiScheduler>(p, ctx, std::move(t), std::move(warnings));
  for (const auto& w : s->warnings()) ctx.warn(w);
  return s;
}

}  // namespace floorsim::kai
