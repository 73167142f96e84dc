#include "sim/app/sharing_model.hpp"

#include <algorithm>
#include <cmath>

namespace floorsim::app::sharing {

std::optional<Mode> parse_mode(std::string_view s) {
  if (s == "exclusive") return Mode::Exclusive;
  if (s == "time_slicing") return Mode::TimeSlicing;
  if (s == "mps") return Mode::Mps;
  if (s == "mig") return Mode::Mig;
  if (s == "priority") return Mode::Priority;
  return std::nullopt;
}

const char* to_string(Mode m) {
  switch (m) {
    case Mode::Exclusive: return "exclusive";
    case Mode::TimeSlicing: return "time_slicing";
    case Mode::Mps: return "mps";
    case Mode::Mig: return "mig";
    case Mode::Priority: return "priority";
  }
  return "exclusive";
}

std::optional<Dist::Kind> parse_dist(std::string_view s) {
  if (s == "deterministic") return Dist::Kind::Deterministic;
  if (s == "exponential") return Dist::Kind::Exponential;
  if (s == "uniform") return Dist::Kind::Uniform;
  return std::nullopt;
}

double Dist::sample(traces::Rng& rng) const {
  switch (kind) {
    case Kind::Deterministic: return mean_s;
    case Kind::Exponential: return mean_s * rng.exponential();
    case Kind::Uniform: return mean_s * (1 + jitter * (2 * rng.uniform() - 1));
  }
  return mean_s;
}

double Dist::residual(traces::Rng& rng) const {
  // Two draws always, whatever the kind, so that the request stream's draws stay aligned.
  const double u1 = rng.uniform(), u2 = rng.uniform();
  switch (kind) {
    case Kind::Deterministic: return u2 * mean_s;
    case Kind::Exponential: return -mean_s * std::log1p(-u1);  // memoryless
    case Kind::Uniform: {
      // Length-biased interval: density proportional to x on [a, b], by inverting its CDF.
      const double a = mean_s * (1 - jitter), b = mean_s * (1 + jitter);
      return u2 * std::sqrt(a * a + u1 * (b * b - a * a));
    }
  }
  return 0;
}

double Dist::second_moment() const {
  switch (kind) {
    case Kind::Deterministic: return mean_s * mean_s;
    case Kind::Exponential: return 2 * mean_s * mean_s;
    case Kind::Uniform: return mean_s * mean_s * (1 + jitter * jitter / 3);
  }
  return 0;
}

bool busy_at(const BusyTimeline& b, SimTime t) {
  auto it = std::upper_bound(b.begin(), b.end(), t, [](SimTime v, const Interval& i) { return v < i.from_s; });
  return it != b.begin() && t < std::prev(it)->to_s;
}

namespace {

// The first time >= t0 from which the GPU is free of batch work for len seconds.
SimTime first_gap(const BusyTimeline& b, SimTime t0, double len) {
  auto it = std::upper_bound(b.begin(), b.end(), t0, [](SimTime v, const Interval& i) { return v < i.to_s; });
  SimTime t = t0;
  for (; it != b.end(); ++it) {
    if (it->from_s >= t + len) break;
    t = std::max(t, it->to_s);
  }
  return t;
}

struct Offer {
  SimTime start_s;  // when the server takes the request up
  double interference_s, service_s;
  SimTime end() const { return start_s + interference_s + service_s; }
};

// What one pool GPU (or MIG instance) offers a request that reaches it at t0.
Offer pool_offer(const ModeParams& p, const BusyTimeline& b, SimTime t0, double work, double residual) {
  switch (p.mode) {
    case Mode::Exclusive: return {first_gap(b, t0, work), 0, work};
    case Mode::TimeSlicing: {
      if (!busy_at(b, t0)) return {t0, 0, work};
      // The batch kernel in flight runs to its end (not preemptible), then a switch; a request
      // longer than a slice gives the batch context its slice back between its own slices.
      double extra = residual + p.context_switch_s;
      if (p.slice_s > 0 && work > p.slice_s) extra += (std::ceil(work / p.slice_s) - 1) * (p.slice_s + 2 * p.context_switch_s);
      return {t0, extra, work};
    }
    case Mode::Mps:
      return {t0, busy_at(b, t0) ? work * (p.mps_request_slowdown - 1) : 0, work};
    case Mode::Mig: return {t0, 0, work / p.mig_sm_fraction};
    case Mode::Priority:
      if (!busy_at(b, t0)) return {t0, 0, work};
      return {t0, p.priority_blocking_fraction * residual + work * (p.priority_request_slowdown - 1), work};
  }
  return {t0, 0, work};
}

}  // namespace

std::vector<Served> serve(std::span<const Request> requests, const Pool& pool, uint64_t seed) {
  const ModeParams& p = pool.params;
  const size_t per_gpu = p.mode == Mode::Mig ? static_cast<size_t>(std::max(1, p.mig_instances_per_gpu)) : 1;
  const size_t ded = static_cast<size_t>(std::max(0, pool.dedicated_gpus));
  const size_t servers = ded + pool.gpus.size() * per_gpu;
  std::vector<SimTime> free_s(servers, -kNever);
  std::vector<Served> out;
  out.reserve(requests.size());
  if (servers == 0) return out;
  traces::Rng rng(seed, 0);
  for (const Request& r : requests) {
    const double residual = p.kernel.residual(rng);
    Offer best{kNever, 0, 0};
    size_t best_s = 0;
    for (size_t s = 0; s < servers; ++s) {
      const SimTime t0 = std::max(r.arrival_s, free_s[s]);
      const Offer o = s < ded ? Offer{t0, 0, r.work_s} : pool_offer(p, pool.gpus[(s - ded) / per_gpu], t0, r.work_s, residual);
      if (o.end() < best.end()) best = o, best_s = s;
    }
    free_s[best_s] = best.end();
    out.push_back({r.arrival_s, best.start_s - r.arrival_s, best.interference_s, best.service_s, static_cast<uint32_t>(best_s)});
  }
  return out;
}

double batch_stretch(const ModeParams& p, double rate_per_gpu_s, double mean_work_s) {
  // Shares above 95% of a GPU would stretch without bound: capped (documented).
  auto busy = [](double share) { return 1 / (1 - std::clamp(share, 0.0, 0.95)); };
  switch (p.mode) {
    case Mode::Exclusive: return 1;
    case Mode::TimeSlicing: return busy(rate_per_gpu_s * (mean_work_s + 2 * p.context_switch_s));
    case Mode::Mps:
      return 1 + std::clamp(rate_per_gpu_s * mean_work_s * p.mps_request_slowdown, 0.0, 1.0) * (p.mps_batch_slowdown - 1);
    case Mode::Mig: return 1 / std::max(1e-9, 1 - p.mig_sm_fraction * p.mig_instances_per_gpu);
    case Mode::Priority: return busy(rate_per_gpu_s * mean_work_s * p.priority_request_slowdown);
  }
  return 1;
}

LatencyStats latency_stats(std::span<const Served> s, SimTime from_s, SimTime to_s, double target_s) {
  LatencyStats st;
  std::vector<double> lat;
  for (const Served& x : s) {
    if (x.arrival_s < from_s || x.arrival_s >= to_s) continue;
    lat.push_back(x.latency_s());
    st.mean_queue_s += x.queue_s;
    st.mean_interference_s += x.interference_s;
    st.mean_service_s += x.service_s;
  }
  st.n = lat.size();
  if (lat.empty()) return st;
  const double n = static_cast<double>(st.n);
  st.mean_queue_s /= n, st.mean_interference_s /= n, st.mean_service_s /= n;
  double sum = 0;
  size_t ok = 0;
  for (double v : lat) sum += v, ok += v <= target_s;
  st.mean_s = sum / n;
  st.within_target = static_cast<double>(ok) / n;
  std::sort(lat.begin(), lat.end());
  auto rank = [&](double q) { return lat[static_cast<size_t>(std::max(1.0, std::ceil(q * n))) - 1]; };
  st.p50_s = rank(0.5), st.p99_s = rank(0.99), st.p999_s = rank(0.999), st.max_s = lat.back();
  return st;
}

Interval peak_window(std::span<const BusyTimeline> gpus, double length_s) {
  std::vector<std::pair<SimTime, int>> ev;
  for (const auto& g : gpus)
    for (const auto& i : g) ev.push_back({i.from_s, 1}), ev.push_back({i.to_s, -1});
  if (ev.empty()) return {0, length_s};
  std::sort(ev.begin(), ev.end());
  // Busy GPU-seconds integrated up to each event time, then any time by interpolation.
  std::vector<double> acc(ev.size(), 0);
  std::vector<int> level(ev.size(), 0);
  int cur = 0;
  for (size_t i = 0; i < ev.size(); ++i) {
    acc[i] = i ? acc[i - 1] + cur * (ev[i].first - ev[i - 1].first) : 0;
    cur += ev[i].second;
    level[i] = cur;
  }
  auto integral = [&](SimTime t) {
    auto it = std::upper_bound(ev.begin(), ev.end(), t, [](SimTime v, const auto& e) { return v < e.first; });
    if (it == ev.begin()) return 0.0;
    const size_t i = static_cast<size_t>(it - ev.begin()) - 1;
    return acc[i] + level[i] * (t - ev[i].first);
  };
  Interval best{ev.front().first, ev.front().first + length_s};
  double best_v = -1;
  for (const auto& e : ev) {
    if (e.second < 0) continue;
    const double v = integral(e.first + length_s) - integral(e.first);
    if (v > best_v + 1e-9) best_v = v, best = {e.first, e.first + length_s};
  }
  return best;
}

}  // namespace floorsim::app::sharing
