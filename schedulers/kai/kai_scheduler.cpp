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

#include <filesystem>

#include <fmt/format.h>

#include "schedulers/kai/adapter.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::kai {
namespace adapter {
namespace {

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

}  // namespace

KaiScheduler::KaiScheduler(const cfg::json& p, const SchedulerContext& ctx, QueueTree tree, std::vector<std::string> warnings)
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

void KaiScheduler::schedule(const Snapshot& v, Decisions& out) {
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

nlohmann::json KaiScheduler::report(const Snapshot& end) const {
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

void KaiScheduler::build_state(const Snapshot& v) {
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

bool KaiScheduler::place(JobIdx j, std::span<const int32_t> free, std::span<const int32_t> slot, const placement::NodeResources& res) {
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

void KaiScheduler::start(JobIdx j) {
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

void KaiScheduler::allocate(const Snapshot& v, Decisions& out) {
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
}  // namespace adapter

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
  auto s = std::make_unique<adapter::KaiScheduler>(p, ctx, std::move(t), std::move(warnings));
  for (const auto& w : s->warnings()) ctx.warn(w);
  return s;
}

}  // namespace floorsim::kai
