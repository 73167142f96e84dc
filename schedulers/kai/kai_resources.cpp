// KAI's cpu and memory (adapter.hpp): what each job requests (JobAsk) and the warnings that say
// where it binds; the usage history of time-aware fairness, per resource.
#include <fmt/format.h>

#include "schedulers/kai/adapter.hpp"
#include "schedulers/kai/job_ask.hpp"

namespace floorsim::kai::adapter {

void KaiScheduler::job_cpu_memory(const cfg::json& p, const SchedulerContext& ctx) {
  const JobAsk ask(p);
  for (int r = 0; r < 2; ++r) {
    const bool any = ask.block_asks(r) || std::any_of(ctx.workload.jobs.begin(), ctx.workload.jobs.end(),
                                                        [&](const JobSpec& js) { return ask.request(r, js) > 0; });
    if (!any) continue;
    uses_[r] = true;
    xreq_[r].assign(queue_.size(), 0);
    for (size_t j = 0; j < queue_.size(); ++j) xreq_[r][j] = ask.request(r, ctx.workload.jobs[j]);
  }
  if (uses_[1])
    for (const JobSpec& js : ctx.workload.jobs) mem_mib_.push_back(ask.node_mem_mib(js));
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

void KaiScheduler::usage_history(const cfg::json& u, const ClusterConfig& cluster) {
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

void KaiScheduler::historical_usage(double now) {
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

void KaiScheduler::record_usage(const Snapshot& v) {
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
}  // namespace floorsim::kai::adapter
