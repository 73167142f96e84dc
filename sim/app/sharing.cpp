#include "sim/app/sharing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "kernels/calibration.hpp"
#include "sim/core/error.hpp"

namespace floorsim::app {
using namespace cfg;
namespace sh = sharing;

namespace {

std::shared_ptr<const ObjectSpec> pool_spec() {
  return obj("sharing_pool", "a node pool whose GPUs serve requests beside batch jobs, and how a GPU is shared",
             {string("name", nullptr, "pool name (services name it)").must(),
              string("nodes", nullptr, "the pool's nodes, a Slurm hostlist (gpu[001-004]); empty = no node (dedicated GPUs only)").must(),
              choice("mode", {"exclusive", "time_slicing", "mps", "mig", "priority"}, "exclusive",
                     "exclusive: a request needs a GPU free of batch work; time_slicing: CUDA time-slices contexts; mps: CUDA MPS runs both at once; mig: a MIG instance per request server; priority: latency-critical kernels first (Orion, EuroSys 2024)"),
              integer("dedicated_gpus", 0, "GPUs outside the batch scheduler that serve this pool's requests only").at_least(0).at_most(100000).in_unit("gpus"),
              string("site_resource", "", "what the site configures for sharing (gres/shard, gres/mps, gpu-fraction, nvidia.com/gpu.shared, nvidia.com/mig-<g>g.<memory>gb): checked against mode"),
              number("kernel_s", 0.05, "time_slicing, priority: mean length of a batch kernel in flight (assumed)").at_least(0).in_unit("s"),
              choice("kernel_distribution", {"deterministic", "exponential", "uniform"}, "deterministic", "batch kernel lengths"),
              number("kernel_jitter", 0.0, "uniform: kernel length in kernel_s x [1 - j, 1 + j]").at_least(0).at_most(1),
              number("context_switch_s", 0.0001, "time_slicing: one context switch (assumed)").at_least(0).in_unit("s"),
              number("slice_s", 0.002, "time_slicing: a context's time slice (assumed)").at_least(0).in_unit("s"),
              number("mps_request_slowdown", 1.5, "mps: request service x this while batch runs beside it (assumed)").at_least(1).at_most(100),
              number("mps_batch_slowdown", 1.3, "mps: batch x this while a request runs beside it (assumed)").at_least(1).at_most(100),
              string("mig_profile", "3g.40gb", "mig: the request instance, as NVIDIA names MIG instances (<g>g.<memory>gb: g of 7 compute slices)"),
              integer("mig_instances_per_gpu", 1, "mig: request instances on each pool GPU; the batch keeps the rest").at_least(1).at_most(7),
              number("priority_blocking_fraction", 0.5, "priority: share of the in-flight batch kernel's remaining time a request waits (assumed)").at_least(0).at_most(1),
              number("priority_request_slowdown", 1.1, "priority: request service x this beside batch work (assumed)").at_least(1).at_most(100)});
}

std::shared_ptr<const ObjectSpec> piece_spec() {
  return obj("request_rate_piece", "a window where the request rate is multiplied",
             {number("from_s", nullptr, "window start").at_least(0).in_unit("s").must(),
              number("to_s", nullptr, "window end").at_least(0).in_unit("s").must(),
              number("multiplier", nullptr, "rate multiplier in the window").at_least(0).must()});
}

std::shared_ptr<const ObjectSpec> burst_spec() {
  return obj("request_burst", "extra requests arriving together",
             {number("at_s", nullptr, "first arrival").at_least(0).in_unit("s").must(),
              integer("requests", nullptr, "requests in the burst").at_least(0).at_most(10000000).must(),
              number("spread_s", 0.0, "arrivals uniform over this").at_least(0).in_unit("s")});
}

std::shared_ptr<const ObjectSpec> service_spec() {
  auto s = obj("service", "a latency-critical request stream (not scheduler jobs)",
               {string("name", nullptr, "service name").must(),
                string("pool", nullptr, "the sharing pool that serves it").must(),
                number("start_s", nullptr, "first arrivals").at_least(0).in_unit("s").must(),
                number("end_s", nullptr, "arrivals end").at_least(0).in_unit("s").must(),
                number("rate_per_s", nullptr, "Poisson arrival rate outside the profile's windows").at_least(0).in_unit("1/s").must(),
                array_of("profile", piece_spec(), "rate multipliers by window (first match wins)"),
                array_of("bursts", burst_spec(), "bursts of extra requests"),
                number("work_gpu_s", nullptr, "mean work of a request on a whole GPU (null: from paths)").at_least(0).in_unit("s").or_null(),
                number("paths_per_request", 0.0, "Monte Carlo paths a request revalues (with paths_per_s or calibration)").at_least(0),
                number("paths_per_s", 0.0, "device throughput (0 = read calibration)").at_least(0).in_unit("1/s"),
                string("calibration", "", "a file written by floorsim calibrate: its paths_per_s"),
                choice("work_distribution", {"deterministic", "exponential", "uniform"}, "deterministic", "request work"),
                number("work_jitter", 0.0, "uniform: work in mean x [1 - j, 1 + j]").at_least(0).at_most(1),
                number("latency_target_s", nullptr, "p99 latency target").at_least(0).in_unit("s").must()});
  s->check = [](const json& r, const std::string& ptr, const std::string& file) {
    if (r["end_s"].get<double>() <= r["start_s"].get<double>()) fail(file, child(ptr, "end_s"), "arrivals end before they start; expected end_s > start_s");
    const bool direct = !r["work_gpu_s"].is_null(), paths = r["paths_per_request"].get<double>() > 0;
    if (direct == paths) fail(file, child(ptr, "work_gpu_s"), "the request's work is given neither or twice; expected work_gpu_s, or paths_per_request with paths_per_s or calibration");
    if (paths && (r["paths_per_s"].get<double>() > 0) == !r["calibration"].get<std::string>().empty())
      fail(file, child(ptr, "paths_per_s"), "paths_per_request needs the device throughput once; expected paths_per_s or calibration");
  };
  return s;
}

std::shared_ptr<const ObjectSpec> window_spec() {
  return obj("latency_window", "a named window over which latencies are also reported",
             {string("name", nullptr, "window name").must(),
              number("from_s", nullptr, "start").at_least(0).in_unit("s").must(),
              number("to_s", nullptr, "end").at_least(0).in_unit("s").must()});
}

// NVIDIA MIG profile names: <g>g.<memory>gb, g compute slices of 7 (MIG User Guide, "Supported
// MIG Profiles"). Returns g, or 0 when the name is not one.
int mig_slices(const std::string& profile) {
  static const std::regex re("([1-7])g\\.[0-9]+gb");
  std::smatch m;
  if (!std::regex_match(profile, m, re)) return 0;
  const int g = std::stoi(m[1]);
  return g == 5 || g == 6 ? 0 : g;
}

// What a site's sharing resource means here (sets `maps_to`); warns when it is not `mode`.
void map_site_resource(SharingPool& p, const std::string& file, const std::string& ptr, Warnings& warnings) {
  const std::string& r = p.site_resource;
  if (r.empty()) return;
  sh::Mode want;
  if (r == "gres/shard") {
    want = sh::Mode::TimeSlicing;
    p.maps_to = "Slurm gres/shard (gres.conf(5)): jobs share a GPU with no compute fencing; CUDA time-slices their contexts";
  } else if (r == "gres/mps") {
    want = sh::Mode::Mps;
    p.maps_to = "Slurm gres/mps (gres.conf(5)): CUDA Multi-Process Service, kernels of both run at once";
  } else if (r == "gpu-fraction") {
    want = sh::Mode::TimeSlicing;
    p.maps_to = "KAI Scheduler gpu-fraction annotation: a memory share of one GPU, compute time-sliced (no MPS, no MIG)";
  } else if (r == "nvidia.com/gpu.shared") {
    want = sh::Mode::TimeSlicing;
    p.maps_to = "NVIDIA device plugin time-slicing replicas (renameByDefault): CUDA time-slicing";
  } else if (r.rfind("nvidia.com/mig-", 0) == 0 && mig_slices(r.substr(15)) > 0) {
    want = sh::Mode::Mig;
    p.maps_to = "MIG instance " + r.substr(15) + " (Kueue/Kubernetes extended resource, NVIDIA device plugin mixed strategy)";
    if (p.params.mode == sh::Mode::Mig && p.params.mig_sm_fraction != mig_slices(r.substr(15)) / 7.0)
      warnings.add(fmt::format("{}: {}: site_resource {} differs from mig_profile; the model uses mig_profile", file, ptr, r));
  } else {
    fail(file, child(ptr, "site_resource"), fmt::format("\"{}\" is not a sharing resource floorsim reads; expected gres/shard, gres/mps, gpu-fraction, nvidia.com/gpu.shared or nvidia.com/mig-<profile>", r));
  }
  if (want != p.params.mode)
    warnings.add(fmt::format("{}: {}: site_resource {} is {} mode, but the pool's mode is {}; the model uses {}", file, ptr, r,
                             sh::to_string(want), sh::to_string(p.params.mode), sh::to_string(p.params.mode)));
}

SharingPool load_pool(const json& j, const ClusterConfig& cluster, const std::string& file, const std::string& ptr,
                      Warnings& warnings) {
  SharingPool p;
  p.name = j["name"];
  p.on_node.assign(cluster.nodes(), 0);
  const std::string list = j["nodes"];
  std::vector<std::string> names;
  try {
    if (!list.empty()) names = expand_hostlist(list);
  } catch (const std::invalid_argument&) {
    fail(file, child(ptr, "nodes"), fmt::format("\"{}\" is not a hostlist; expected e.g. gpu[001-004]", list));
  }
  for (const auto& n : names) {
    auto it = std::find(cluster.node_names.begin(), cluster.node_names.end(), n);
    if (it == cluster.node_names.end()) fail(file, child(ptr, "nodes"), fmt::format("node \"{}\" is not in the cluster; expected nodes of the cluster", n));
    const auto idx = static_cast<size_t>(it - cluster.node_names.begin());
    p.on_node[idx] = 1;
    p.gpus += cluster.node_gpus[idx];
  }
  sh::ModeParams& m = p.params;
  m.mode = *sh::parse_mode(j["mode"].get<std::string>());
  m.kernel = {*sh::parse_dist(j["kernel_distribution"].get<std::string>()), j["kernel_s"], j["kernel_jitter"]};
  m.context_switch_s = j["context_switch_s"];
  m.slice_s = j["slice_s"];
  m.mps_request_slowdown = j["mps_request_slowdown"];
  m.mps_batch_slowdown = j["mps_batch_slowdown"];
  const int g = mig_slices(j["mig_profile"]);
  if (g == 0) fail(file, child(ptr, "mig_profile"), fmt::format("\"{}\" is not a MIG profile name; expected <g>g.<memory>gb with g 1, 2, 3, 4 or 7 (e.g. 3g.40gb)", j["mig_profile"].get<std::string>()));
  m.mig_sm_fraction = g / 7.0;
  m.mig_instances_per_gpu = j["mig_instances_per_gpu"];
  if (m.mode == sh::Mode::Mig && g * m.mig_instances_per_gpu >= 7)
    fail(file, child(ptr, "mig_instances_per_gpu"), fmt::format("{} instances of {} take all 7 compute slices, leaving none for batch jobs; expected fewer (or dedicated_gpus)", m.mig_instances_per_gpu, j["mig_profile"].get<std::string>()));
  m.priority_blocking_fraction = j["priority_blocking_fraction"];
  m.priority_request_slowdown = j["priority_request_slowdown"];
  p.dedicated_gpus = j["dedicated_gpus"];
  if (p.gpus + p.dedicated_gpus == 0) fail(file, child(ptr, "nodes"), "the pool has no GPU; expected nodes with GPUs or dedicated_gpus");
  p.site_resource = j["site_resource"];
  map_site_resource(p, file, ptr, warnings);
  return p;
}

// Mean work of one request on a whole GPU, and how it was derived.
double request_work(const json& j, const std::string& base_dir, json& how) {
  if (!j["work_gpu_s"].is_null()) {
    how = {{"from", "work_gpu_s"}};
    return j["work_gpu_s"];
  }
  const double paths = j["paths_per_request"];
  double rate = j["paths_per_s"];
  how = {{"from", "paths_per_request / paths_per_s"}, {"paths_per_request", paths}};
  if (rate <= 0) {
    std::filesystem::path f = j["calibration"].get<std::string>();
    if (f.is_relative()) f = std::filesystem::path(base_dir) / f;
    const kernels::Calibration c = kernels::load_calibration(f);
    rate = c.paths_per_s;
    how["from"] = "paths_per_request / calibration paths_per_s";
    how["device"] = c.device;
  }
  how["paths_per_s"] = rate;
  return paths / rate;
}

// Arrival times: a non-homogeneous Poisson stream and the bursts, generated as the synthetic
// workload generates a stream class (traces/synthetic.hpp), from a seed of their own.
std::vector<SimTime> arrivals(const json& j, uint64_t seed, size_t index) {
  traces::SyntheticSpec spec;
  spec.seed = seed ^ (0x9e3779b97f4a7c15ULL * (index + 1));
  traces::ClassGen s;
  s.name = j["name"];
  s.kind = traces::GenKind::Stream;
  s.start_s = j["start_s"];
  s.end_s = j["end_s"];
  s.rate_per_s = j["rate_per_s"];
  for (const auto& p : j.value("profile", json::array())) s.profile.push_back({p["from_s"], p["to_s"], p["multiplier"]});
  spec.classes.push_back(s);
  for (const auto& b : j.value("bursts", json::array())) {
    traces::ClassGen g;
    g.name = s.name;
    g.kind = traces::GenKind::Burst;
    g.start_s = b["at_s"];
    g.spread_s = b["spread_s"];
    g.jobs = b["requests"];
    spec.classes.push_back(g);
  }
  Workload w;
  traces::generate(spec, 1, w);
  std::vector<SimTime> t;
  t.reserve(w.jobs.size());
  for (const auto& job : w.jobs) t.push_back(job.submit_s);
  std::stable_sort(t.begin(), t.end());
  return t;
}

}  // namespace

std::shared_ptr<const ObjectSpec> sharing_spec() {
  return obj("sharing", "GPU sharing: intraday request services beside the batch, per node pool (docs/sharing.md)",
             {array_of("pools", pool_spec(), "node pools and how their GPUs are shared").must(),
              array_of("services", service_spec(), "request services").must(),
              array_of("windows", window_spec(), "named windows for latency percentiles"),
              number("peak_window_s", 3600.0, "length of the batch's peak window (most batch GPU-seconds on the pool)").at_least(1).in_unit("s"),
              array_of("deadline_classes", Type::String, "the batch classes whose deadline margin the worst case reports (empty = every class with deadlines)")});
}

bool SharingConfig::stretches_batch() const {
  for (const auto& p : pools)
    if (p.params.mode != sh::Mode::Exclusive && p.gpus > 0) return true;
  return false;
}

SharingConfig load_sharing(const json& r, const ClusterConfig& cluster, uint64_t seed, const std::string& base_dir,
                           const std::string& file, Warnings& warnings) {
  SharingConfig c;
  c.seed = seed;
  c.peak_window_s = r["peak_window_s"];
  std::map<std::string, size_t> pool_index;
  for (size_t i = 0; i < r["pools"].size(); ++i) {
    const std::string ptr = child("/sharing/pools", i);
    c.pools.push_back(load_pool(r["pools"][i], cluster, file, ptr, warnings));
    if (!pool_index.emplace(c.pools.back().name, i).second)
      fail(file, child(ptr, "name"), fmt::format("pool \"{}\" is named twice; expected each name once", c.pools.back().name));
  }
  for (size_t i = 0; i < r["services"].size(); ++i) {
    const json& j = r["services"][i];
    const std::string ptr = child("/sharing/services", i);
    SharingService s;
    s.name = j["name"];
    auto it = pool_index.find(j["pool"].get<std::string>());
    if (it == pool_index.end()) fail(file, child(ptr, "pool"), fmt::format("no pool is named \"{}\"; expected a name from /sharing/pools", j["pool"].get<std::string>()));
    s.pool = it->second;
    s.latency_target_s = j["latency_target_s"];
    const double mean = request_work(j, base_dir, s.work);
    s.work["mean_work_s"] = mean;
    const sh::Dist work{*sh::parse_dist(j["work_distribution"].get<std::string>()), mean, j["work_jitter"]};
    traces::Rng rng(seed ^ 0x5bd1e995ULL, 2000 + i);
    for (SimTime t : arrivals(j, seed, i)) s.requests.push_back({t, work.sample(rng)});
    c.services.push_back(std::move(s));
  }
  for (const auto& w : r.value("windows", json::array())) c.windows.push_back({w["name"], w["from_s"], w["to_s"]});
  for (const auto& d : r.value("deadline_classes", json::array())) c.deadline_classes.push_back(d);
  return c;
}

namespace {

class BatchRecorder final : public ForwardingScheduler {
 public:
  BatchRecorder(std::unique_ptr<Scheduler> inner, BatchLog& log)
      : ForwardingScheduler(std::move(inner)), log_(log), forward_(this->inner().wants_job_events()) {}
  void on_job_event(const JobEvent& ev, const Snapshot& view) override {
    if (open_.size() < view.jobs.size()) open_.resize(view.jobs.size());
    switch (ev.kind) {
      case JobEvent::Kind::Started:
        close(ev.job, ev.time_s);
        for (const auto& s : view.allocation_of(ev.job))
          if (s.gpus > 0) open_[ev.job].push_back(s), log_.push_back({ev.time_s, s.node, s.gpus});
        break;
      case JobEvent::Kind::Ended:
      case JobEvent::Kind::Requeued:
      case JobEvent::Kind::Suspended: close(ev.job, ev.time_s); break;
      default: break;
    }
    if (forward_) inner().on_job_event(ev, view);
  }
  bool wants_job_events() const override { return true; }

 private:
  void close(JobIdx j, SimTime t) {
    for (const auto& s : open_[j]) log_.push_back({t, s.node, -s.gpus});
    open_[j].clear();
  }
  BatchLog& log_;
  bool forward_;
  std::vector<std::vector<NodeShare>> open_;
};

// Per pool GPU, when it held batch work: GPU k of a node is busy while the node holds more
// than k batch GPUs (jobs fill a node's GPUs from the first).
std::vector<sh::BusyTimeline> pool_timelines(const SharingPool& p, const BatchLog& log, const ClusterConfig& cluster, SimTime end_s) {
  std::vector<size_t> first(cluster.nodes(), 0);
  size_t n = 0;
  for (size_t i = 0; i < cluster.nodes(); ++i)
    if (p.on_node[i]) first[i] = n, n += static_cast<size_t>(cluster.node_gpus[i]);
  std::vector<sh::BusyTimeline> out(n);
  std::vector<BatchStep> steps;
  for (const auto& s : log)
    if (s.node < p.on_node.size() && p.on_node[s.node]) steps.push_back(s);
  std::stable_sort(steps.begin(), steps.end(), [](const BatchStep& a, const BatchStep& b) { return a.time_s < b.time_s; });
  std::vector<int32_t> held(cluster.nodes(), 0);
  for (const auto& s : steps) {
    const int32_t cap = cluster.node_gpus[s.node], before = std::min(held[s.node], cap);
    held[s.node] += s.delta_gpus;
    const int32_t after = std::clamp(held[s.node], 0, cap);
    for (int32_t k = before; k < after; ++k) out[first[s.node] + k].push_back({s.time_s, kNever});  // opens
    for (int32_t k = after; k < before; ++k) out[first[s.node] + k].back().to_s = s.time_s;       // closes
  }
  for (auto& g : out) {
    if (!g.empty() && g.back().to_s == kNever) g.back().to_s = end_s;
    g.erase(std::remove_if(g.begin(), g.end(), [](const sh::Interval& i) { return i.to_s <= i.from_s; }), g.end());
  }
  return out;
}

json stats_json(const sh::LatencyStats& s) {
  return {{"requests", s.n}, {"mean", s.mean_s}, {"p50", s.p50_s}, {"p99", s.p99_s}, {"p999", s.p999_s}, {"max", s.max_s},
          {"mean_queue", s.mean_queue_s}, {"mean_interference", s.mean_interference_s}, {"mean_service", s.mean_service_s},
          {"within_target", s.within_target}};
}

}  // namespace

std::unique_ptr<Scheduler> record_batch(std::unique_ptr<Scheduler> inner, BatchLog& log) {
  return std::make_unique<BatchRecorder>(std::move(inner), log);
}

double SharingRuntime::stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) {
  double f = inner_ ? inner_->stretch(j, placement, view) : 1.0;
  if (sum_.empty()) sum_.assign(c_.pools.size(), 0), jobs_.assign(c_.pools.size(), 0);
  const SimTime len = std::max<SimTime>(0, view.jobs[j].runtime_s - view.runs[j].work_done_s);
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    const SharingPool& pool = c_.pools[p];
    if (std::none_of(placement.begin(), placement.end(), [&](const NodeShare& s) { return s.gpus > 0 && pool.on_node[s.node]; })) continue;
    // The requests that arrive over the job's run, spread over every server of the pool.
    double n = 0, work = 0;
    for (const auto& s : c_.services) {
      if (s.pool != p) continue;
      auto lo = std::lower_bound(s.requests.begin(), s.requests.end(), view.now, [](const sh::Request& r, SimTime t) { return r.arrival_s < t; });
      for (auto it = lo; it != s.requests.end() && it->arrival_s < view.now + len; ++it) n += 1, work += it->work_s;
    }
    const double servers = static_cast<double>(pool.gpus + pool.dedicated_gpus);
    const double g = len > 0 && n > 0 ? sh::batch_stretch(pool.params, n / (len * servers), work / n)
                                      : (pool.params.mode == sh::Mode::Mig ? sh::batch_stretch(pool.params, 0, 0) : 1.0);
    sum_[p] += g;
    ++jobs_[p];
    f *= g;
  }
  return f;
}

json sharing_metrics(const SharingConfig& c, const BatchLog& log, const ClusterConfig& cluster, SimTime end_s,
                     const json& classes, const SharingRuntime* runtime) {
  json out, pools = json::object(), services = json::object();
  json worst = {{"service", nullptr}, {"p99_at_batch_peak_s", nullptr}, {"latency_target_s", nullptr}, {"within_target", nullptr}};
  for (size_t p = 0; p < c.pools.size(); ++p) {
    const SharingPool& pool = c.pools[p];
    sh::Pool model{pool.params, pool_timelines(pool, log, cluster, end_s), pool.dedicated_gpus};
    const sh::Interval peak = sh::peak_window(model.gpus, c.peak_window_s);
    double batch_gpu_s = 0;
    for (const auto& g : model.gpus)
      for (const auto& i : g) batch_gpu_s += i.to_s - i.from_s;
    // Services of one pool share its servers: served together in arrival order.
    std::vector<std::pair<SimTime, std::pair<size_t, size_t>>> order;  // arrival, (service, request)
    for (size_t s = 0; s < c.services.size(); ++s)
      if (c.services[s].pool == p)
        for (size_t k = 0; k < c.services[s].requests.size(); ++k) order.push_back({c.services[s].requests[k].arrival_s, {s, k}});
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<sh::Request> merged;
    merged.reserve(order.size());
    for (const auto& o : order) merged.push_back(c.services[o.second.first].requests[o.second.second]);
    const std::vector<sh::Served> served = sh::serve(merged, model, c.seed ^ (0x2545f4914f6cdd1dULL * (p + 1)));
    std::map<size_t, std::vector<sh::Served>> by_service;
    for (size_t s = 0; s < c.services.size(); ++s)
      if (c.services[s].pool == p) by_service[s];
    double request_gpu_s = 0, dedicated_gpu_s = 0;
    for (size_t i = 0; i < served.size(); ++i) {
      by_service[order[i].second.first].push_back(served[i]);
      const double busy = served[i].service_s + served[i].interference_s;
      request_gpu_s += busy;
      if (served[i].server < static_cast<uint32_t>(pool.dedicated_gpus)) dedicated_gpu_s += busy;
    }
    for (auto& [s, list] : by_service) {
      const SharingService& svc = c.services[s];
      json w = json::object();
      for (const auto& win : c.windows) w[win.name] = stats_json(sh::latency_stats(list, win.from_s, win.to_s, svc.latency_target_s));
      const sh::LatencyStats at_peak = sh::latency_stats(list, peak.from_s, peak.to_s, svc.latency_target_s);
      w["batch_peak"] = stats_json(at_peak);
      services[svc.name] = {{"pool", pool.name}, {"latency_target_s", svc.latency_target_s}, {"work", svc.work},
                            {"latency_s", stats_json(sh::latency_stats(list, -kNever, kNever, svc.latency_target_s))},
                            {"windows_s", w}};
      if (at_peak.n > 0 && (worst["p99_at_batch_peak_s"].is_null() || at_peak.p99_s > worst["p99_at_batch_peak_s"].get<double>()))
        worst.update({{"service", svc.name}, {"p99_at_batch_peak_s", at_peak.p99_s}, {"latency_target_s", svc.latency_target_s},
                      {"within_target", at_peak.p99_s <= svc.latency_target_s}});
    }
    json pj = {{"mode", sh::to_string(pool.params.mode)}, {"gpus", pool.gpus}, {"dedicated_gpus", pool.dedicated_gpus},
               {"batch_peak_window", {{"from_s", peak.from_s}, {"to_s", peak.to_s}}}, {"batch_gpu_s", batch_gpu_s},
               {"request_gpu_s", request_gpu_s}, {"dedicated_busy_gpu_s", dedicated_gpu_s}};
    if (!pool.site_resource.empty()) pj["site_resource"] = {{"name", pool.site_resource}, {"maps_to", pool.maps_to}};
    if (runtime && !runtime->pool_jobs().empty() && runtime->pool_jobs()[p] > 0)
      pj["batch_stretch_mean"] = runtime->pool_stretch_sum()[p] / static_cast<double>(runtime->pool_jobs()[p]);
    else
      pj["batch_stretch_mean"] = 1.0;
    pools[pool.name] = pj;
  }
  // The batch's completion margin with the requests at full rate (the run already carries the
  // stretch): the smallest deadline margin over the deadline classes.
  // A class with a deadline job that never finished has no margin (null): the worst of all.
  double margin = kNever;
  json margin_class = nullptr;
  for (auto it = classes.begin(); it != classes.end(); ++it) {
    const bool listed = c.deadline_classes.empty() || std::find(c.deadline_classes.begin(), c.deadline_classes.end(), it.key()) != c.deadline_classes.end();
    const json& m = (*it)["deadline_margin_s"];
    if (!listed || (m.is_null() && (*it)["deadline_misses"].get<uint64_t>() == 0)) continue;
    const double v = m.is_null() ? -kNever : m.get<double>();
    if (margin_class.is_null() || v < margin) margin = v, margin_class = it.key();
  }
  worst["batch_margin_s"] = std::isfinite(margin) ? json(margin) : json(nullptr);
  worst["batch_class"] = margin_class;
  out["pools"] = pools;
  out["services"] = services;
  out["worst_case"] = worst;
  return out;
}

}  // namespace floorsim::app
