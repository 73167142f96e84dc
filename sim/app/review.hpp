#pragma once
// `floorsim review`: months of accounting (a sacct dump, or a run's jobs.csv) against the
// entitlements. Per class and per week / calendar month: GPU-hours used, entitled and allocated
// (a reserved floor's idle time is booked as used, as Slurm's reservation accounting books unused
// reserved time to the eligible accounts), wait percentiles; capacity idle, and idle while jobs
// waited (fragmented or held back); the days where cumulative wait piles up; a rebalancing of
// the floors toward classes whose demand exceeds them; and Prometheus alerting rules.
// The arithmetic is in pure functions over JobRecord.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/table.hpp"

namespace floorsim::app::review {

using json = nlohmann::json;

struct JobRecord {
  std::string klass;
  int64_t gpus = 0;
  double submit_s = 0;  // wall clock, seconds since 1970-01-01 UTC
  double start_s = -1;  // -1: never started
  double end_s = -1;
};

struct ClassEntitlement {
  double floor_gpus = 0;
  bool reserved = false;  // the floor is a reservation: its idle time is charged as used
  double wait_alert_s = std::numeric_limits<double>::quiet_NaN();  // NaN: the measured p95 wait
  double sla_margin_s = std::numeric_limits<double>::quiet_NaN();  // NaN: no deadline alert
};

struct Entitlements {
  double capacity_gpus = 0;
  std::string class_from = "account";  // sacct: which field names the class
  double quota_fraction = 0.8;
  double alert_for_s = 900;
  double pileup_factor = 2;
  std::map<std::string, ClassEntitlement> classes;
};

Entitlements load_entitlements(const json& doc, const std::string& file);

enum class Period { Week, Month };
// Start of the week (Monday 00:00 UTC) or calendar month holding `t`, and the next one.
double period_start(double t, Period p);
double next_period(double start, Period p);
std::string period_label(double start, Period p);  // "2026-01-05" (week of) or "2026-01"

struct Rollup {
  std::string period, klass;
  size_t jobs = 0;
  double used_gpu_h = 0, entitled_gpu_h = 0, allocated_gpu_h = 0;
  double wait_p50_s = 0, wait_p95_s = 0, wait_max_s = 0;
};

struct Capacity {
  std::string period;
  double capacity_gpu_h = 0, used_gpu_h = 0, idle_gpu_h = 0, idle_while_waiting_gpu_h = 0;
};

struct Pileup {
  std::string klass, from, to;  // days, inclusive
  double wait_h = 0;            // cumulative wait of the jobs submitted in the window
  double threshold_h = 0;       // per day
};

struct Rebalance {
  std::string klass;
  double floor_gpus = 0, demand_gpus = 0, proposed_floor_gpus = 0;
};

struct ClassTotal {
  std::string klass;
  size_t jobs = 0;
  double used_gpu_h = 0, entitled_gpu_h = 0, allocated_gpu_h = 0, wait_p95_s = 0;
  double peak_week_gpus = 0;   // the busiest week's mean GPUs in use
  double demand_p95_gpus = 0;  // GPUs running + waiting, p95 over the time the class had demand
};

// One Prometheus alerting rule: what alerts.yml holds, and the review's HTML report lists.
struct AlertRule {
  std::string alert, klass, severity, expr, summary, description;
  double threshold = 0;  // in the expression's unit: a share of the floor, seconds
};

struct Review {
  std::string source;           // what was reviewed: "sacct FILE", "run DIR"
  double from_s = 0, to_s = 0;  // the span reviewed
  double capacity_gpus = 0, alert_for_s = 0;
  std::vector<ClassTotal> totals;
  std::vector<Rollup> weekly, monthly;
  std::vector<Capacity> capacity_weekly, capacity_monthly;
  std::vector<Pileup> pileups;
  std::vector<Rebalance> rebalance;
  std::vector<AlertRule> alerts;
  std::vector<std::string> warnings;
};

// Nearest-rank percentile (q in (0, 1]) of `v`; 0 when empty.
double percentile(std::vector<double> v, double q);
// GPU-hours of [start, end) x gpus inside [a, b).
double gpu_h_in(const JobRecord& j, double a, double b);
// The floors moved toward demand (the p95 of GPUs running + waiting while the class wanted any): deficit classes gain in proportion to their deficit, surplus
// classes give in proportion to their surplus, the total is kept; whole GPUs.
std::vector<Rebalance> rebalance(const std::vector<std::pair<std::string, std::pair<double, double>>>& floor_and_demand);

Review review(const std::vector<JobRecord>& jobs, const Entitlements& e);

json to_json(const Review& r);
TextTable rollup_table(const std::vector<Rollup>& rows);
TextTable capacity_table(const std::vector<Capacity>& rows, Period p = Period::Week);
std::string to_markdown(const Review& r, const std::string& source);
// Per class: near quota (a floor), queueing delay, and with sla_margin_s the SLA margin.
std::vector<AlertRule> alert_rules(const Review& r, const Entitlements& e);
// Prometheus alerting rules (rule file format), one group; the metrics they expect are listed
// in docs/cost.md.
std::string alert_rules_yaml(const Review& r, const Entitlements& e);

}  // namespace floorsim::app::review
