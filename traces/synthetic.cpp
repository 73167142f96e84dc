#include "traces/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/input.hpp"
#include "traces/parse_util.hpp"

namespace floorsim::traces {

std::vector<RatePiece> read_rate_profile(const std::string& path, std::string_view text) {
  input::LineSource src(path, text);
  detail::CsvReader rd(src);
  std::vector<std::string_view> f;
  if (!rd.next(f)) detail::fail(path, 1, "empty rate file; expected a header with time_s,rate_per_s");
  detail::Header h;
  for (auto v : f) h.names.emplace_back(detail::trim(v));
  const int ct = h.need("time_s", path, rd.line()), cr = h.need("rate_per_s", path, rd.line());
  std::vector<RatePiece> out;
  while (rd.next(f)) {
    if (static_cast<int>(f.size()) <= std::max(ct, cr))
      detail::fail(path, rd.line(), fmt::format("{} fields; expected at least {}", f.size(), std::max(ct, cr) + 1));
    const auto t = detail::to_double(f[ct]);
    const auto r = detail::to_double(f[cr]);
    if (!t || !std::isfinite(*t) || *t < 0)
      detail::fail(path, rd.line(), fmt::format("time_s \"{}\"; expected a finite number of seconds >= 0", f[ct]));
    if (!r || !std::isfinite(*r) || *r < 0)
      detail::fail(path, rd.line(), fmt::format("rate_per_s \"{}\"; expected a finite rate >= 0", f[cr]));
    if (!out.empty() && *t <= out.back().from_s)
      detail::fail(path, rd.line(), fmt::format("time_s {} is not after the previous row's {}; expected increasing times",
                                                detail::fmt_num(*t), detail::fmt_num(out.back().from_s)));
    if (!out.empty()) out.back().to_s = *t;
    out.push_back({*t, kNever, *r});
  }
  if (out.empty()) detail::fail(path, rd.line() + 1, "no rows; expected time_s,rate_per_s rows after the header");
  out.push_back({-kNever, kNever, 0.0});
  return out;
}


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

// A stream's window cut where its rate changes: the window's ends and every profile piece's
// ends inside it, sorted, once each. The rate is constant between two cuts.
std::vector<SimTime> stream_cuts(const ClassGen& c) {
  std::vector<SimTime> cuts{c.start_s, c.end_s};
  for (const auto& p : c.profile) {
    if (p.from_s > c.start_s && p.from_s < c.end_s) cuts.push_back(p.from_s);
    if (p.to_s > c.start_s && p.to_s < c.end_s) cuts.push_back(p.to_s);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) : gen_(splitmix64(seed ^ splitmix64(stream + 1))) {}
double Rng::uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
double Rng::exponential() { return -std::log1p(-uniform()); }

int32_t scaled_count(int32_t n, double m) {
  const double v = std::floor(static_cast<double>(n) * m + 0.5);
  return v <= 0 ? 0 : static_cast<int32_t>(std::min(v, 2e9));
}

double expected_jobs(const ClassGen& c, double m) {
  switch (c.kind) {
    case GenKind::DeadlineBatch: return static_cast<double>(scaled_count(c.core_jobs, m)) + scaled_count(c.jobs, m);
    case GenKind::Gang:
    case GenKind::Burst: return scaled_count(c.jobs, m);
    case GenKind::Stream: break;
  }
  if (!(c.rate_per_s > 0) || !(m > 0) || !(c.end_s > c.start_s)) return 0;
  const std::vector<SimTime> cuts = stream_cuts(c);
  double mass = 0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) mass += c.rate_per_s * m * multiplier_at(c.profile, cuts[i]) * (cuts[i + 1] - cuts[i]);
  return mass;
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
    const StrId core_qos = w.strings.intern(c.core_qos.empty() ? c.qos : c.core_qos);
    const StrId partition = w.strings.intern(c.partition);
    auto make = [&](SimTime submit, int32_t prio_bonus, StrId job_qos) {
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
      j.qos = job_qos;
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
        for (int32_t i = 0; i < core; ++i) make(c.start_s, 1, core_qos);
        for (int32_t i = 0; i < grid; ++i) g.grid_ids.push_back(make(c.start_s + c.grid_after_s, 0, qos));
        break;
      }
      case GenKind::Stream: {
        // Non-homogeneous Poisson by time change: the k-th arrival is where the cumulative
        // intensity m x rate x profile reaches the sum of k unit exponentials.
        const std::vector<SimTime> cuts = stream_cuts(c);
        size_t seg = 0;
        double target = rng.exponential(), acc = 0;  // acc: intensity integrated up to cuts[seg]
        while (seg + 1 < cuts.size() && c.rate_per_s > 0 && m > 0) {
          const SimTime a = cuts[seg], b = cuts[seg + 1];
          const double rate = c.rate_per_s * m * multiplier_at(c.profile, a);
          const double mass = rate * (b - a);
          if (rate > 0 && acc + mass > target) {
            const SimTime t = a + (target - acc) / rate;
            make(t, 0, qos);
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
        for (int32_t i = 0; i < n; ++i) make(c.start_s + (c.spread_s > 0 ? std::round(rng.uniform() * c.spread_s) : 0), 0, qos);
        break;
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace floorsim::traces
