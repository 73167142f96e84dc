#include "sim/app/review.hpp"

#include <algorithm>
#include <ctime>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "sim/core/config_spec.hpp"

namespace floorsim::app::review {
using namespace cfg;

namespace {

constexpr double kDay = 86400, kWeek = 7 * kDay;

std::shared_ptr<const ObjectSpec> entitlements_spec() {
  auto klass = obj("class_entitlement", "one class's entitlement and alert thresholds",
                   {number("floor_gpus", nullptr, "GPUs guaranteed to the class").at_least(0).in_unit("gpus").must(),
                    boolean("reserved", false, "the floor is a reservation: its idle time is charged to the class as used"),
                    number("wait_alert_s", nullptr, "queueing-delay alert threshold (null = the class's measured p95 wait)").at_least(0).in_unit("s").or_null(),
                    number("sla_margin_s", nullptr, "alert when the projected deadline margin falls below this (null = no deadline alert)").at_least(0).in_unit("s").or_null()});
  return obj("entitlements", "entitlements reviewed by `floorsim review`",
             {number("capacity_gpus", nullptr, "GPUs of the cluster").at_least(1).in_unit("gpus").must(),
              choice("class_from", {"account", "qos", "partition", "user", "class"}, "account", "which job field names the class (sacct input)"),
              number("quota_fraction", 0.8, "alert when a class uses this share of its floor").at_least(0.01).at_most(1),
              number("alert_for_s", 900.0, "how long a condition must hold before an alert fires (the rule's `for`)").at_least(0).in_unit("s"),
              number("pileup_factor", 2.0, "a day piles up when its cumulative wait exceeds this x the class's mean day").at_least(1),
              map_of("classes", klass, "per class").must()});
}

double nan_or(const json& v) { return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>(); }

std::string day_label(double t) {
  const auto tt = static_cast<std::time_t>(std::floor(t));
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

double wait_of(const JobRecord& j, double horizon) { return (j.start_s >= 0 ? j.start_s : horizon) - j.submit_s; }

std::vector<Rollup> rollups(const std::vector<JobRecord>& jobs, const Entitlements& e, const std::vector<std::string>& classes,
                            double from, double to, Period p) {
  std::vector<Rollup> out;
  for (double a = period_start(from, p); a < to; a = next_period(a, p)) {
    const double b = next_period(a, p), lo = std::max(a, from), hi = std::min(b, to);
    for (const auto& k : classes) {
      Rollup r{.period = period_label(a, p), .klass = k};
      std::vector<double> waits;
      for (const auto& j : jobs) {
        if (j.klass != k) continue;
        r.used_gpu_h += gpu_h_in(j, lo, hi);
        if (j.submit_s >= lo && j.submit_s < hi) ++r.jobs, waits.push_back(wait_of(j, to));
      }
      const auto it = e.classes.find(k);
      const double floor = it == e.classes.end() ? 0 : it->second.floor_gpus;
      r.entitled_gpu_h = floor * (hi - lo) / 3600;
      r.allocated_gpu_h = it != e.classes.end() && it->second.reserved ? std::max(r.used_gpu_h, r.entitled_gpu_h) : r.used_gpu_h;
      r.wait_p50_s = percentile(waits, 0.5), r.wait_p95_s = percentile(waits, 0.95);
      r.wait_max_s = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
      out.push_back(r);
    }
  }
  return out;
}

// Idle capacity, and idle capacity while some job waited, by sweeping start/end/submit events.
std::vector<Capacity> capacity_rollup(const std::vector<JobRecord>& jobs, double cap, double from, double to, Period p) {
  struct Ev { double t; double run, wait; };
  std::vector<Ev> ev;
  for (const auto& j : jobs) {
    ev.push_back({j.submit_s, 0, 1});
    if (j.start_s >= 0) ev.push_back({j.start_s, static_cast<double>(j.gpus), -1}), ev.push_back({j.end_s, -static_cast<double>(j.gpus), 0});
  }
  std::sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.t < b.t; });
  std::vector<Capacity> out;
  for (double a = period_start(from, p); a < to; a = next_period(a, p)) {
    const double lo = std::max(a, from), hi = std::min(next_period(a, p), to);
    Capacity c{.period = period_label(a, p), .capacity_gpu_h = cap * (hi - lo) / 3600};
    double run = 0, wait = 0, t = lo;
    size_t i = 0;
    for (; i < ev.size() && ev[i].t <= lo; ++i) run += ev[i].run, wait += ev[i].wait;
    while (t < hi) {
      const double next = i < ev.size() && ev[i].t < hi ? ev[i].t : hi;
      const double idle = std::max(0.0, cap - run) * (next - t) / 3600;
      c.used_gpu_h += std::min(run, cap) * (next - t) / 3600;
      c.idle_gpu_h += idle;
      if (wait > 0.5) c.idle_while_waiting_gpu_h += idle;
      t = next;
      if (next < hi) run += ev[i].run, wait += ev[i].wait, ++i;
    }
    out.push_back(c);
  }
  return out;
}

// Days whose cumulative wait (jobs submitted that day) exceeds factor x the class's mean day,
// merged into runs of consecutive days.
std::vector<Pileup> pileups(const std::vector<JobRecord>& jobs, const std::vector<std::string>& classes, double from, double to, double factor) {
  std::vector<Pileup> out;
  const double d0 = std::floor(from / kDay) * kDay;
  const auto days = static_cast<size_t>(std::ceil((to - d0) / kDay));
  for (const auto& k : classes) {
    std::vector<double> wait_h(days, 0);
    for (const auto& j : jobs)
      if (j.klass == k) wait_h[std::min(days - 1, static_cast<size_t>((j.submit_s - d0) / kDay))] += wait_of(j, to) / 3600;
    const double mean = std::accumulate(wait_h.begin(), wait_h.end(), 0.0) / static_cast<double>(days);
    const double thr = factor * mean;
    for (size_t d = 0; d < days;) {
      if (!(wait_h[d] > thr && wait_h[d] > 0)) { ++d; continue; }
      Pileup p;
      p.klass = k, p.from = day_label(d0 + static_cast<double>(d) * kDay), p.threshold_h = thr;
      size_t e = d;
      for (; e < days && wait_h[e] > thr; ++e) p.wait_h += wait_h[e];
      p.to = day_label(d0 + static_cast<double>(e - 1) * kDay);
      out.push_back(p);
      d = e;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Pileup& a, const Pileup& b) { return a.wait_h > b.wait_h; });
  return out;
}

// The class's demand (GPUs running + waiting) over time, capped at the capacity: the p95 over
// the time it had any demand (time-weighted), as a floor must hold it when the class wants it.
double demand_p95_gpus(const std::vector<JobRecord>& jobs, const std::string& k, double cap, double to) {
  std::vector<std::pair<double, double>> ev;  // time, change of demand
  for (const auto& j : jobs) {
    if (j.klass != k) continue;
    ev.push_back({j.submit_s, static_cast<double>(j.gpus)});
    ev.push_back({j.start_s >= 0 ? j.end_s : to, -static_cast<double>(j.gpus)});
  }
  std::sort(ev.begin(), ev.end());
  std::vector<std::pair<double, double>> level_time;  // demand, duration
  double level = 0, total = 0;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    level += ev[i].second;
    const double dt = ev[i + 1].first - ev[i].first;
    if (level > 0.5 && dt > 0) level_time.push_back({std::min(level, cap), dt}), total += dt;
  }
  if (total <= 0) return 0;
  std::sort(level_time.begin(), level_time.end());
  double acc = 0;
  for (const auto& [l, dt] : level_time)
    if ((acc += dt) >= 0.95 * total) return l;
  return level_time.back().first;
}

}  // namespace

Entitlements load_entitlements(const json& doc, const std::string& file) {
  const json r = resolve(doc, *entitlements_spec(), "", file);
  Entitlements e;
  e.capacity_gpus = r["capacity_gpus"];
  e.class_from = r["class_from"];
  e.quota_fraction = r["quota_fraction"];
  e.alert_for_s = r["alert_for_s"];
  e.pileup_factor = r["pileup_factor"];
  for (const auto& [k, c] : r["classes"].items())
    e.classes[k] = {c["floor_gpus"], c["reserved"], nan_or(c["wait_alert_s"]), nan_or(c["sla_margin_s"])};
  return e;
}

double period_start(double t, Period p) {
  const double day = std::floor(t / kDay);
  if (p == Period::Week) return (day - std::fmod(day + 3 + 7e6, 7.0)) * kDay;  // 1970-01-01 was a Thursday
  const auto tt = static_cast<std::time_t>(day * kDay);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  tm.tm_mday = 1, tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return static_cast<double>(timegm(&tm));
}

double next_period(double start, Period p) {
  if (p == Period::Week) return start + kWeek;
  return period_start(start + 32 * kDay, Period::Month);
}

std::string period_label(double start, Period p) { return p == Period::Week ? day_label(start) : day_label(start).substr(0, 7); }

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

double gpu_h_in(const JobRecord& j, double a, double b) {
  if (j.start_s < 0) return 0;
  const double lo = std::max(a, j.start_s), hi = std::min(b, j.end_s);
  return hi > lo ? (hi - lo) * static_cast<double>(j.gpus) / 3600 : 0;
}

std::vector<Rebalance> rebalance(const std::vector<std::pair<std::string, std::pair<double, double>>>& fd) {
  double need = 0, spare = 0;
  for (const auto& [k, v] : fd) (v.second > v.first ? need : spare) += std::abs(v.second - v.first);
  const double shift = std::min(need, spare);
  std::vector<Rebalance> out;
  double total = 0, proposed_total = 0;
  for (const auto& [k, v] : fd) {
    const double d = v.second - v.first;
    double moved = 0;
    if (d > 0 && need > 0) moved = shift * d / need;
    if (d < 0 && spare > 0) moved = shift * d / spare;  // negative: gives
    out.push_back({k, v.first, v.second, std::floor(v.first + moved + 1e-9)});
    total += v.first, proposed_total += out.back().proposed_floor_gpus;
  }
  // Whole GPUs: the GPUs lost to rounding down go to the classes with the largest deficit left.
  std::vector<size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return out[a].demand_gpus - out[a].proposed_floor_gpus > out[b].demand_gpus - out[b].proposed_floor_gpus;
  });
  for (size_t i = 0; proposed_total < total - 1e-9 && !order.empty(); i = (i + 1) % order.size())
    out[order[i]].proposed_floor_gpus += 1, proposed_total += 1;
  return out;
}

Review review(const std::vector<JobRecord>& jobs, const Entitlements& e) {
  Review r;
  if (jobs.empty()) return r;
  r.from_s = jobs.front().submit_s, r.to_s = r.from_s;
  std::set<std::string> names;
  for (const auto& j : jobs) {
    r.from_s = std::min(r.from_s, j.submit_s);
    r.to_s = std::max({r.to_s, j.submit_s, j.end_s});
    names.insert(j.klass);
  }
  for (const auto& [k, c] : e.classes) names.insert(k);
  const std::vector<std::string> classes(names.begin(), names.end());
  for (const auto& k : classes)
    if (!e.classes.count(k)) r.warnings.push_back(fmt::format("class {} has no entitlement: reviewed with floor 0", k));
  r.weekly = rollups(jobs, e, classes, r.from_s, r.to_s, Period::Week);
  r.monthly = rollups(jobs, e, classes, r.from_s, r.to_s, Period::Month);
  r.capacity_gpus = e.capacity_gpus, r.alert_for_s = e.alert_for_s;
  r.capacity_weekly = capacity_rollup(jobs, e.capacity_gpus, r.from_s, r.to_s, Period::Week);
  r.capacity_monthly = capacity_rollup(jobs, e.capacity_gpus, r.from_s, r.to_s, Period::Month);
  r.pileups = pileups(jobs, classes, r.from_s, r.to_s, e.pileup_factor);
  std::vector<std::pair<std::string, std::pair<double, double>>> fd;
  for (const auto& k : classes) {
    ClassTotal t{.klass = k};
    std::vector<double> waits, week_gpus;
    for (const auto& j : jobs)
      if (j.klass == k) ++t.jobs, waits.push_back(wait_of(j, r.to_s));
    for (const auto& w : r.weekly) {
      if (w.klass != k) continue;
      t.used_gpu_h += w.used_gpu_h, t.entitled_gpu_h += w.entitled_gpu_h, t.allocated_gpu_h += w.allocated_gpu_h;
      week_gpus.push_back(w.used_gpu_h / (kWeek / 3600));
    }
    t.wait_p95_s = percentile(waits, 0.95);
    t.peak_week_gpus = week_gpus.empty() ? 0 : *std::max_element(week_gpus.begin(), week_gpus.end());
    t.demand_p95_gpus = demand_p95_gpus(jobs, k, e.capacity_gpus, r.to_s);
    const auto it = e.classes.find(k);
    fd.push_back({k, {it == e.classes.end() ? 0.0 : it->second.floor_gpus, t.demand_p95_gpus}});
    r.totals.push_back(t);
  }
  r.rebalance = rebalance(fd);
  r.alerts = alert_rules(r, e);
  return r;
}

}  // namespace floorsim::app::review
