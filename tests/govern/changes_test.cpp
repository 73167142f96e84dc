// Policy change events end to end: delivery at their time, effects at once, association
// deletion, models that reject, and the property that a pricing-side change without risk
// sign-off never takes effect.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "sim/app/changes.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::app;
using json = nlohmann::json;

namespace {

// One 8-GPU node; pricing (desk) and risk (risk) share it under the slurm model.
json slurm_base() {
  return json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "classes": {"pricing": {"floor_gpus": 4}, "risk": {"floor_gpus": 4}},
    "scheduler": {"type": "slurm", "priority_type": "multifactor", "priority_weight_qos": 10000,
      "accounting_storage_enforce": ["limits", "qos"], "preempt_type": "preempt/qos", "preempt_mode": "REQUEUE",
      "qos": [{"name": "pricing", "priority": 100}, {"name": "risk", "priority": 100, "grp_tres": "gres/gpu=0"}],
      "users": [{"name": "pricer", "account": "desk"}, {"name": "varbatch", "account": "risk"}],
      "accounts": [{"name": "desk"}, {"name": "risk"}]},
    "workload": {"jobs": [
      {"id": 1, "submit_s": 0, "runtime_s": 600, "gpus": 4, "class": "pricing", "user": "pricer", "account": "desk", "qos": "pricing"},
      {"id": 2, "submit_s": 0, "runtime_s": 600, "gpus": 4, "class": "risk", "user": "varbatch", "account": "risk", "qos": "risk"},
      {"id": 3, "submit_s": 100, "runtime_s": 3000, "gpus": 4, "class": "pricing", "user": "pricer", "account": "desk", "qos": "pricing"},
      {"id": 4, "submit_s": 2000, "runtime_s": 100, "gpus": 4, "class": "pricing", "user": "pricer", "account": "desk", "qos": "pricing"}
    ]},
    "governance": {}
  })");
}

json person(const std::string& u, const std::string& role, const std::string& team) {
  return {{"user", u}, {"role", role}, {"team", team}};
}

json change(const std::string& id, double t, json requester, json what, json approvals = json::array()) {
  return {{"id", id}, {"time_s", t}, {"requester", std::move(requester)}, {"what", std::move(what)}, {"approvals", std::move(approvals)}};
}

const json kAdmin = person("ops1", "cluster_admin", "platform");
const json kRiskLead = person("riskhead", "quant", "risk");
const json kPriceLead = person("pricehead", "quant", "pricing");
const json kPricer = person("pricer", "quant", "pricing");

Scenario load(const json& doc) { return load_scenario(doc, "test.json", "."); }

const JobRun& run_of(const Scenario& sc, const RunResult& r, int64_t id) {
  for (size_t i = 0; i < sc.workload.jobs.size(); ++i)
    if (sc.workload.jobs[i].id == id) return r.runs[i];
  throw std::logic_error("no job");
}

RunResult run(const Scenario& sc) {
  RunOptions o;
  o.keep_runs = true;
  return run_scenario(sc, o);
}

}  // namespace

TEST_CASE("changes: an approved change takes effect at once and shows in the metrics", "[govern][engine]") {
  json doc = slurm_base();
  // risk's GrpTRES is 0: its job cannot start until the cap is raised.
  doc["changes"] = json::array({change("raise-risk", 1000, kAdmin, {{"kind", "qos"}, {"target", "risk"}, {"field", "GrpTRES"}, {"value", "gres/gpu=8"}},
                                       json::array({kRiskLead, kPriceLead}))});
  const Scenario sc = load(doc);
  const RunResult r = run(sc);
  REQUIRE(r.approval_log.size() == 1);
  CHECK(r.approval_log[0]["outcome"] == "applied");
  CHECK(r.approval_log[0]["before"] == "gres/gpu=0");
  CHECK(r.approval_log[0]["after"] == "gres/gpu=8");
  // Job 1 ends at 600, job 3 holds 4 GPUs: risk fits the moment the change lands.
  CHECK(run_of(sc, r, 2).first_start_s == 1000);
  CHECK(r.metrics["classes"]["risk"]["wait_s"]["max"].get<double>() == 1000);
  CHECK(r.metrics["governance"]["applied"] == 1);

  // The same change without risk's sign-off is rejected: risk never starts.
  doc["changes"][0]["approvals"] = json::array({kPriceLead});
  const Scenario sc2 = load(doc);
  const RunResult r2 = run(sc2);
  CHECK(r2.approval_log[0]["outcome"] == "rejected");
  CHECK(r2.approval_log[0]["missing_signoff"] == json::array({"risk"}));
  CHECK(run_of(sc2, r2, 2).first_start_s < 0);
  CHECK(r2.metrics["governance"]["rejected"] == 1);
}

TEST_CASE("changes: deleting an association cancels its running and pending jobs at once", "[govern][engine]") {
  json doc = slurm_base();
  doc["changes"] = json::array({change("drop-desk", 300, kAdmin, {{"kind", "association_delete"}, {"target", "pricer@desk"}},
                                       json::array({kPriceLead}))});
  const Scenario sc = load(doc);
  const RunResult r = run(sc);
  REQUIRE(r.approval_log[0]["outcome"] == "applied");
  // Job 1 ran since 0, job 3 was queued behind it (or running): both cancelled at 300.
  CHECK(run_of(sc, r, 1).state == JobState::Cancelled);
  CHECK(run_of(sc, r, 1).end_s == 300);
  CHECK(run_of(sc, r, 3).state == JobState::Cancelled);
  CHECK(run_of(sc, r, 3).end_s == 300);
  // Job 4 is submitted after the deletion: cancelled at its submission, never started.
  CHECK(run_of(sc, r, 4).state == JobState::Cancelled);
  CHECK(run_of(sc, r, 4).end_s == 2000);
  CHECK(run_of(sc, r, 4).first_start_s < 0);
  CHECK(r.approval_log[0]["cancelled_jobs"] == json::array({1, 3}));
  // Cancellation is not preemption.
  CHECK(r.metrics["preemptions"] == 0);
}

TEST_CASE("changes: a change at the time of a submission applies before it (event order step 4)", "[govern][engine]") {
  json doc = slurm_base();
  doc["changes"] = json::array({change("drop-desk", 2000, kAdmin, {{"kind", "association_delete"}, {"target", "desk"}},
                                       json::array({kPriceLead}))});
  const Scenario sc = load(doc);
  const RunResult r = run(sc);
  CHECK(run_of(sc, r, 4).state == JobState::Cancelled);
  CHECK(run_of(sc, r, 4).first_start_s < 0);
}

TEST_CASE("changes: models reject what they do not support, with a reason", "[govern][engine]") {
  json doc = slurm_base();
  doc["scheduler"] = {{"type", "easy_backfill"}};
  doc["changes"] = json::array({change("w", 10, kAdmin, {{"kind", "priority_weight"}, {"target", "PriorityWeightQOS"}, {"value", 5}})});
  Scenario sc = load(doc);
  RunResult r = run(sc);
  CHECK(r.approval_log[0]["outcome"] == "rejected");
  CHECK(r.approval_log[0]["reason"].get<std::string>().find("does not support") != std::string::npos);
  // The slurm model rejects a Kueue change kind, and an unknown QOS.
  doc = slurm_base();
  doc["changes"] = json::array({change("q", 10, kAdmin, {{"kind", "cluster_queue"}, {"target", "cq"}, {"field", "nominalQuota"}, {"value", 4}}),
                                change("u", 20, kAdmin, {{"kind", "qos"}, {"target", "nope"}, {"field", "Priority"}, {"value", 4}})});
  sc = load(doc);
  r = run(sc);
  CHECK(r.approval_log[0]["outcome"] == "rejected");
  CHECK(r.approval_log[1]["outcome"] == "rejected");
  CHECK(r.approval_log[1]["reason"].get<std::string>().find("no QOS named 'nope'") != std::string::npos);
}

TEST_CASE("changes: bad change specs are input errors with a JSON pointer", "[govern][engine]") {
  json doc = slurm_base();
  doc["changes"] = json::array({change("x", 10, kAdmin, {{"kind", "qos"}, {"target", "risk"}, {"field", "Colour"}, {"value", 1}})});
  try {
    load(doc);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("/changes/0/what/field") != std::string::npos);
  }
}

TEST_CASE("changes: reservations are created, updated and deleted at once", "[govern][engine]") {
  json doc = slurm_base();
  doc["cluster"]["nodes"] = 2;
  doc["changes"] = json::array(
      {change("make", 0, kAdmin, {{"kind", "reservation_create"}, {"target", "hold"}, {"value", {{"start_s", 0}, {"duration_s", 100000}, {"nodes", "gpu002"}, {"users", {"nobody"}}}}},
              json::array({kRiskLead, kPriceLead})),
       change("drop", 1500, kAdmin, {{"kind", "reservation_delete"}, {"target", "hold"}}, json::array({kRiskLead, kPriceLead}))});
  doc["scheduler"]["qos"][1]["grp_tres"] = "";
  const Scenario sc = load(doc);
  const RunResult r = run(sc);
  REQUIRE(r.approval_log[0]["outcome"] == "applied");
  REQUIRE(r.approval_log[1]["outcome"] == "applied");
  // With gpu002 held, jobs 1 and 2 fill gpu001; job 3 (4 GPUs) waits for job 1's end (600).
  CHECK(run_of(sc, r, 3).first_start_s == 600);
  // After the deletion at 1500 job 4 (submitted at 2000) starts at once on the freed node.
  CHECK(run_of(sc, r, 4).first_start_s == 2000);
}

// scontrol(1) IGNORE_JOBS: a reservation made while jobs run on its nodes is refused ("Requested
// nodes are busy") unless the flag is set; NodeCnt passes over busy nodes. Running jobs are judged
// by their time limit (job 3, 8 GPUs, runs 100..3100 on gpu002 with limit 3000 s; jobs 1, 2 end at
// 600 on gpu001, which is idle when the change comes at 1000).
TEST_CASE("changes: IGNORE_JOBS decides whether a reservation may take busy nodes", "[govern][engine][slurm]") {
  struct Case {
    const char* name;
    json value;
    const char* outcome;
    double job4_start_s;  // job 4 (4 GPUs, submitted at 2000, user pricer) outside the reservation
  };
  const std::vector<Case> cases{
      // gpu002 holds job 3 until 3100: the listed node is busy, the change is refused.
      {"busy listed node, no flag", {{"start_s", 1000}, {"duration_s", 100000}, {"nodes", "gpu002"}, {"users", {"nobody"}}}, "rejected", 2000},
      // With IGNORE_JOBS it is made on gpu002; job 4 runs on idle gpu001.
      {"busy listed node, IGNORE_JOBS", {{"start_s", 1000}, {"duration_s", 100000}, {"nodes", "gpu002"}, {"users", {"nobody"}}, {"flags", {"IGNORE_JOBS"}}}, "applied", 2000},
      // NodeCnt=1 skips busy gpu002 and takes gpu001: job 4 must wait for gpu002 (3100).
      {"NodeCnt passes over a busy node", {{"start_s", 1000}, {"duration_s", 100000}, {"node_cnt", 1}, {"users", {"nobody"}}}, "applied", 3100},
      // NodeCnt=2 without the flag: only one idle node, refused.
      {"NodeCnt larger than the idle nodes", {{"start_s", 1000}, {"duration_s", 100000}, {"node_cnt", 2}, {"users", {"nobody"}}}, "rejected", 2000},
      // The job ends (by limit) before the window starts: the node is not busy for it.
      {"window after the running job's limit", {{"start_s", 3200}, {"duration_s", 100000}, {"nodes", "gpu002"}, {"users", {"nobody"}}}, "applied", 2000},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      json doc = slurm_base();
      doc["cluster"]["nodes"] = 2;
      doc["scheduler"]["qos"][1]["grp_tres"] = "";
      doc["workload"]["jobs"][2]["time_limit_s"] = 3000;
      doc["workload"]["jobs"][2]["gpus"] = 8;
      doc["workload"]["jobs"][3]["time_limit_s"] = 100;
      doc["changes"] = json::array({change("make", 1000, kAdmin, {{"kind", "reservation_create"}, {"target", "maint"}, {"value", c.value}},
                                           json::array({kRiskLead, kPriceLead}))});
      const Scenario sc = load(doc);
      const RunResult r = run(sc);
      CHECK(r.approval_log[0]["outcome"] == c.outcome);
      CHECK(run_of(sc, r, 3).first_start_s == 100);
      CHECK(run_of(sc, r, 4).first_start_s == c.job4_start_s);
    }
  }
}

TEST_CASE("changes: a pricing-side change without risk sign-off never takes effect (property, seeded)", "[govern][property]") {
  std::mt19937_64 rng(20261202);
  const std::vector<json> requesters{kAdmin, kPricer, person("cb1", "change_board", "board")};
  const std::vector<json> signers{kPriceLead, kRiskLead, kAdmin};
  size_t applied_total = 0, rejected_total = 0;
  for (int round = 0; round < 12; ++round) {
    json doc = slurm_base();
    doc["scheduler"]["qos"][1]["grp_tres"] = "";
    json changes = json::array();
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) {
      json what;
      switch (rng() % 4) {
        case 0: what = {{"kind", "qos"}, {"target", "pricing"}, {"field", "Priority"}, {"value", static_cast<int>(rng() % 1000)}}; break;
        case 1: what = {{"kind", "qos"}, {"target", "pricing"}, {"field", "GrpTRES"}, {"value", fmt::format("gres/gpu={}", rng() % 9)}}; break;
        case 2: what = {{"kind", "qos"}, {"target", "risk"}, {"field", "GrpTRES"}, {"value", fmt::format("gres/gpu={}", rng() % 9)}}; break;
        default: what = {{"kind", "priority_weight"}, {"target", "PriorityWeightQOS"}, {"value", static_cast<int>(rng() % 20000)}}; break;
      }
      json approvals = json::array();
      for (const auto& s : signers)
        if (rng() % 2) approvals.push_back(s);
      changes.push_back(change(fmt::format("c{}", i), static_cast<double>(rng() % 2500), requesters[rng() % requesters.size()], what, approvals));
    }
    doc["changes"] = changes;
    const Scenario sc = load(doc);
    const RunResult r = run(sc);
    // Every change lacking risk's sign-off is rejected (both classes share the node, so every
    // change here could affect risk) ...
    json approved = json::array();
    for (const auto& e : r.approval_log) {
      bool risk_signed = false;
      for (const auto& a : e["approvers"]) risk_signed |= a["team"] == "risk" && a["user"] != e["requester"]["user"];
      if (!risk_signed) CHECK(e["outcome"] == "rejected");
      (e["outcome"] == "applied" ? applied_total : rejected_total) += 1;
      if (e["outcome"] == "applied") {
        for (const auto& c : changes)
          if (c["id"] == e["change_id"]) approved.push_back(c);
      }
    }
    // ... and takes no effect: the run equals one where only the approved changes were listed.
    json only = doc;
    only["changes"] = approved;
    const Scenario sc2 = load(only);
    RunOptions o;
    const RunResult r2 = run_scenario(sc2, o);
    CHECK(r2.jobs_csv == r.jobs_csv);
  }
  // The sequences exercised both outcomes.
  CHECK(applied_total > 0);
  CHECK(rejected_total > applied_total);
}

TEST_CASE("changes: ClusterQueue quota changes under kueue apply at once", "[govern][kueue]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim_govern_kueue";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "q.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: risk-cq}
spec:
  namespaceSelector: {}
  cohort: quant
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 0}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: pricing-cq}
spec:
  namespaceSelector: {}
  cohort: quant
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 4, lendingLimit: 0}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: risk, namespace: default}
spec: {clusterQueue: risk-cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: pricing, namespace: default}
spec: {clusterQueue: pricing-cq}
)";
  json doc = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "workload": {"jobs": [
      {"id": 1, "submit_s": 0, "runtime_s": 600, "gpus": 4, "class": "risk"},
      {"id": 2, "submit_s": 0, "runtime_s": 600, "gpus": 4, "class": "pricing"}]},
    "governance": {}
  })");
  doc["scheduler"] = {{"type", "kueue"}, {"manifests", {"q.yaml"}}};
  doc["changes"] = json::array({change("risk-quota", 200, kAdmin,
                                       {{"kind", "cluster_queue"}, {"target", "risk-cq"}, {"field", "nominalQuota"}, {"value", 4}},
                                       json::array({kRiskLead, kPriceLead}))});
  const Scenario sc = load_scenario(doc, (dir / "s.json").string(), dir.string());
  const RunResult r = run(sc);
  REQUIRE(r.approval_log[0]["outcome"] == "applied");
  CHECK(r.approval_log[0]["before"] == "0");
  CHECK(r.approval_log[0]["after"] == "4");
  CHECK(r.approval_log[0]["affected_classes"] == json::array({"pricing", "risk"}));
  CHECK(run_of(sc, r, 2).first_start_s == 0);
  CHECK(run_of(sc, r, 1).first_start_s == 200);  // admitted the moment its quota exists
  // Kueue rejects Slurm change kinds.
  doc["changes"][0]["what"] = {{"kind", "qos"}, {"target", "risk"}, {"field", "Priority"}, {"value", 1}};
  const Scenario sc2 = load_scenario(doc, (dir / "s.json").string(), dir.string());
  const RunResult r2 = run(sc2);
  CHECK(r2.approval_log[0]["outcome"] == "rejected");
  std::filesystem::remove_all(dir);
}

TEST_CASE("changes: a change after the horizon is logged as never delivered", "[govern][engine]") {
  json doc = slurm_base();
  doc["engine"] = {{"horizon_s", 100}};
  doc["changes"] = json::array({change("late", 500, kAdmin, {{"kind", "priority_weight"}, {"target", "PriorityWeightQOS"}, {"value", 5}},
                                       json::array({kRiskLead, kPriceLead}))});
  const RunResult r = run(load(doc));
  REQUIRE(r.approval_log.size() == 1);
  CHECK(r.approval_log[0]["outcome"] == "rejected");
  CHECK(r.approval_log[0]["reason"].get<std::string>().find("never delivered") != std::string::npos);
  CHECK(r.metrics["governance"]["delivered"] == 0);
}
