// `floorsim review` arithmetic on hand-computed cases.
#include <catch2/catch.hpp>

#include "sim/app/review.hpp"

using namespace floorsim::app::review;
using nlohmann::json;

namespace {
constexpr double kMon = 1767571200;  // 2026-01-05 00:00 UTC, a Monday
Entitlements ent() {
  return load_entitlements(json::parse(R"({"capacity_gpus": 16, "classes": {
      "var": {"floor_gpus": 8, "reserved": true, "sla_margin_s": 1800}, "train": {"floor_gpus": 8}}})"), "e.json");
}
}  // namespace

TEST_CASE("review: weeks start on Monday, months on the 1st", "[review]") {
  CHECK(period_start(kMon + 3 * 86400 + 5, Period::Week) == kMon);
  CHECK(period_label(kMon, Period::Week) == "2026-01-05");
  CHECK(period_start(kMon, Period::Month) == kMon - 4 * 86400);  // 2026-01-01
  CHECK(period_label(next_period(kMon - 4 * 86400, Period::Month), Period::Month) == "2026-02");
  CHECK(percentile({5, 1, 3, 2, 4}, 0.5) == 3);
  CHECK(percentile({5, 1, 3, 2, 4}, 0.95) == 5);
  CHECK(gpu_h_in({.klass = "x", .gpus = 8, .submit_s = 0, .start_s = 0, .end_s = 7200}, 3600, 100000) == 8);
}

TEST_CASE("review: used, entitled and allocated; reserved idle booked as used", "[review]") {
  // var: one 8-GPU job for 2 h on Monday; train: one 8-GPU job for 1 h after waiting 1 h.
  std::vector<JobRecord> jobs{{"var", 8, kMon, kMon, kMon + 7200},
                              {"train", 8, kMon + 3600, kMon + 7200, kMon + 10800}};
  const Review r = review(jobs, ent());
  REQUIRE(r.totals.size() == 2);
  const ClassTotal& tr = r.totals[0];  // sorted: train, var
  const ClassTotal& va = r.totals[1];
  CHECK(va.used_gpu_h == 16);
  CHECK(va.entitled_gpu_h == 24);   // 8 GPUs x the 3 h span
  CHECK(va.allocated_gpu_h == 24);  // reserved: the idle hour is booked as used
  CHECK(tr.used_gpu_h == 8);
  CHECK(tr.allocated_gpu_h == 8);
  CHECK(tr.wait_p95_s == 3600);
  CHECK(r.weekly.size() == 2);
  CHECK(r.monthly.size() == 2);
  // Capacity 16 x 3 h = 48; used 24; idle 24, of which 0 while the train job waited (var ran on 8 of 16: 8 idle).
  REQUIRE(r.capacity_weekly.size() == 1);
  CHECK(r.capacity_weekly[0].capacity_gpu_h == 48);
  CHECK(r.capacity_weekly[0].idle_gpu_h == 24);
  CHECK(r.capacity_weekly[0].idle_while_waiting_gpu_h == 8);  // 1 h x 8 idle GPUs while train waited
  CHECK(va.demand_p95_gpus == 8);
}

TEST_CASE("review: rebalancing moves floor toward demand and keeps the total", "[review]") {
  // a needs 12 (floor 8: +4 short), b needs 2 (floor 8: 6 spare), c needs 9 (floor 4: +5 short).
  const auto out = rebalance({{"a", {8, 12}}, {"b", {8, 2}}, {"c", {4, 9}}});
  REQUIRE(out.size() == 3);
  // Shift = min(9 short, 6 spare) = 6: a +6x4/9 = 2.67, c +6x5/9 = 3.33, b -6; floored 10, 2, 7 = 19;
  // the lost GPU goes to the largest remaining shortfall (a and c are both 2 short: the first listed).
  CHECK(out[0].proposed_floor_gpus == 11);
  CHECK(out[1].proposed_floor_gpus == 2);
  CHECK(out[2].proposed_floor_gpus == 7);
  CHECK(out[0].proposed_floor_gpus + out[1].proposed_floor_gpus + out[2].proposed_floor_gpus == 20);
}

TEST_CASE("review: Prometheus alerting rules", "[review]") {
  std::vector<JobRecord> jobs{{"var", 8, kMon, kMon + 600, kMon + 7200}};
  const std::string y = alert_rules_yaml(review(jobs, ent()), ent());
  CHECK(y.find("groups:\n  - name: floorsim-review\n    rules:\n") == 0);
  CHECK(y.find("expr: floorsim_class_gpus_used{class=\"var\"} / floorsim_class_floor_gpus{class=\"var\"} >= 0.8") != std::string::npos);
  CHECK(y.find("expr: floorsim_class_oldest_pending_seconds{class=\"var\"} > 600") != std::string::npos);
  CHECK(y.find("expr: floorsim_class_deadline_margin_seconds{class=\"var\"} < 1800") != std::string::npos);
  CHECK(y.find("for: 900s") != std::string::npos);
  CHECK_THROWS_WITH(load_entitlements(json::parse(R"({"classes": {}})"), "e.json"), Catch::Contains("e.json:/capacity_gpus"));
}

TEST_CASE("review: capacity by calendar month splits a job across the month's end", "[review]") {
  // 2026-01-31 22:00 to 2026-02-01 02:00: one 8-GPU job running the whole 4 h span on a 16-GPU
  // cluster; another 8-GPU job submitted at the start waits 1 h into February, then runs 1 h.
  constexpr double kFeb = 1769904000;  // 2026-02-01 00:00 UTC
  std::vector<JobRecord> jobs{{"var", 8, kFeb - 7200, kFeb - 7200, kFeb + 7200},
                              {"train", 8, kFeb - 7200, kFeb + 3600, kFeb + 7200}};
  const Review r = review(jobs, ent());
  REQUIRE(r.capacity_monthly.size() == 2);
  CHECK(r.capacity_monthly[0].period == "2026-01");
  CHECK(r.capacity_monthly[0].capacity_gpu_h == 32);  // 16 GPUs x 2 h of January
  CHECK(r.capacity_monthly[0].used_gpu_h == 16);
  CHECK(r.capacity_monthly[0].idle_while_waiting_gpu_h == 16);  // 8 idle GPUs x 2 h while train waited
  CHECK(r.capacity_monthly[1].period == "2026-02");
  CHECK(r.capacity_monthly[1].used_gpu_h == 24);                // var 16 + train 8
  CHECK(r.capacity_monthly[1].idle_while_waiting_gpu_h == 8);   // the first hour of February
  CHECK(r.capacity_monthly[1].idle_gpu_h == 8);
  // The weeks: 2026-01-26 holds both months.
  REQUIRE(r.capacity_weekly.size() == 1);
  CHECK(r.capacity_weekly[0].idle_while_waiting_gpu_h == 24);
}

TEST_CASE("review: the alert rules as data, with their thresholds", "[review]") {
  // var waits 600 s (its p95); train has no job: its queueing threshold is the 60 s minimum.
  std::vector<JobRecord> jobs{{"var", 8, kMon, kMon + 600, kMon + 7200}};
  const Review r = review(jobs, ent());
  REQUIRE(r.alerts.size() == 5);  // train: quota, delay; var: quota, delay, SLA margin
  CHECK(r.alerts[0].alert == "FloorsimClassNearQuota");
  CHECK(r.alerts[0].klass == "train");
  CHECK(r.alerts[0].threshold == 0.8);
  CHECK(r.alerts[1].threshold == 60);
  CHECK(r.alerts[3].alert == "FloorsimClassQueueingDelay");
  CHECK(r.alerts[3].threshold == 600);
  CHECK(r.alerts[4].alert == "FloorsimClassSlaMargin");
  CHECK(r.alerts[4].severity == "critical");
  CHECK(r.alerts[4].threshold == 1800);
  CHECK(to_json(r)["alerts"][4]["for_s"] == 900);
}
