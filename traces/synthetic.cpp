#include "traces/synthetic.hpp"

#include <algorithm>
#include <cmath>

namespace floorsim::traces {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Rate multiplier at time t: the first piece covering t, else 1.
double multiplier_at(const std::vector<RatePiece>& profile, SimTime t) {
  for (const auto& p : profile)
    if (t >= p.from_s && t < p.to_s) return p.multiplier;
  return 1;
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) : gen_(splitmix64(seed ^ splitmix64(stream + 1))) {}
double Rng::uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
double Rng::exponential() { return -std::log1p(-uniform()); }

int32_t scaled_count(int32_t n, double m) {
  const double v = std::floor(static_cast<double>(n) * m + 0.5);
  return v <= 0 ? 0 : static_cast<int32_t>(std::min(v, 2e9));
}

std::vector<GeneratedClass> generate(const SyntheticSpec& spec, int64_t first_id, Workload& w) {
  std::vector<GeneratedClass> out;
  int64_t next_id = first_id;
  const double m = spec.load_multiplier;
  for (size_t ci = 0; ci < spec.classes.size(); ++ci) {
    const ClassGen& c = spec.classes[ci];
    Rng rng(spec.seed, ci);
    GeneratedClass g;
    g.name = c.name;
    const StrId klass = w.strings.intern(c.name);
    const StrId user = w.strings.intern(c.user.empty() ? c.name : c.user);
    const StrId account = w.strings.intern(c.account.empty() ? c.name : c.account);
    const StrId qos = w.strings.intern(c.qos);
    const StrId partition = w.strings.intern(c.partition);
    auto make = [&](SimTime submit, int32_t prio_bonus) {
      JobSpec j;
      j.id = next_id++;
      j.submit_s = submit;
      const double jit = c.runtime_jitter > 0 ? c.runtime_jitter * (2 * rng.uniform() - 1) : 0;
      j.runtime_s = std::max(1.0, std::round(c.runtime_s * (1 + jit)));
      j.time_limit_s = std::ceil(j.runtime_s * std::max(1.0, c.time_limit_factor));
      j.deadline_s = c.deadline_s;
      j.checkpoint_interval_s = c.checkpoint_interval_s;
      j.gpus = c.gpus;
      j.nodes = c.nodes;
      j.priority = c.priority + prio_bonus;
      j.user = user;
      j.account = account;
      j.klass = klass;
      j.qos = qos;
      j.partition = partition;
      j.preemptible = c.preemptible;
      j.requeueable = c.requeueable;
      g.gpu_s += j.runtime_s * j.gpus;
      ++g.jobs;
      w.jobs.push_back(j);
      return j.id;
    };
    switch (c.kind) {
      case GenKind::DeadlineBatch: {
        // Core scenarios first (one priority step above the grid), then the full stress grid.
        const int32_t core = scaled_count(c.core_jobs, m), grid = scaled_count(c.jobs, m);
        for (int32_t i = 0; i < core; ++i) make(c.start_s, 1);
        for (int32_t i = 0; i < grid; ++i) g.grid_ids.push_back(make(c.start_s + c.grid_after_s, 0));
        break;
      }
      case GenKind::Stream: {
        // Non-homogeneous Poisson by time change: the k-th arrival is where the cumulative
        // intensity m x rate x profile reaches the sum of k unit exponentials.
        std::vector<SimTime> cuts{c.start_s, c.end_s};
        for (const auto& p : c.profile) {
          if (p.from_s > c.start_s && p.from_s < c.end_s) cuts.push_back(p.from_s);
          if (p.to_s > c.start_s && p.to_s < c.end_s) cuts.push_back(p.to_s);
        }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        size_t seg = 0;
        double target = rng.exponential(), acc = 0;  // acc: intensity integrated up to cuts[seg]
        while (seg + 1 < cuts.size() && c.rate_per_s > 0 && m > 0) {
          const SimTime a = cuts[seg], b = cuts[seg + 1];
          const double rate = c.rate_per_s * m * multiplier_at(c.profile, a);
          const double mass = rate * (b - a);
          if (rate > 0 && acc + mass > target) {
            const SimTime t = a + (target - acc) / rate;
            make(t, 0);
            target += rng.exponential();
            continue;
          }
          acc += mass;
          ++seg;
        }
        break;
      }
      case GenKind::Gang:
      case GenKind::Burst: {
        const int32_t n = scaled_count(c.jobs, m);
        for (int32_t i = 0; i < n; ++i) make(c.start_s + (c.spread_s > 0 ? std::round(rng.uniform() * c.spread_s) : 0), 0);
        break;
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace floorsim::traces
