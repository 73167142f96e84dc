// The held-back idle pool around every scheduler model (baselines, slurm, kueue: the controller
// is composable with any of them), and on-demand preemption for comparison.
#include <catch2/catch.hpp>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

// Two 8-GPU nodes; two preemptible 8-GPU batch jobs at 0; an 8-GPU intraday request at 10.
json two_nodes() {
  return json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "scheduler": {"type": "easy_backfill"},
    "workload": {"jobs": [
      {"id": 1, "submit_s": 0, "runtime_s": 1000, "gpus": 8, "nodes": 1, "class": "batch", "preemptible": true},
      {"id": 2, "submit_s": 0, "runtime_s": 1000, "gpus": 8, "nodes": 1, "class": "batch", "preemptible": true},
      {"id": 3, "submit_s": 10, "runtime_s": 100, "gpus": 8, "class": "intraday"}
    ]}
  })");
}

json run(const json& doc) { return app::run_scenario(app::load_scenario(doc, "s.json", ".")).metrics; }

// The scheduler blocks the controller is tested around; each holds the same 2-node cluster.
std::vector<std::pair<std::string, json>> models() {
  return {{"easy_backfill", {{"type", "easy_backfill"}}},
          {"fifo", {{"type", "fifo"}}},
          {"conservative_backfill", {{"type", "conservative_backfill"}}},
          {"slurm", {{"type", "slurm"}}},
          {"kueue", {{"type", "kueue"}, {"manifests", {"data/idle_pool_kueue.yaml"}}}}};
}

app::RunResult run_under(json d, const json& scheduler) {
  d["scheduler"] = scheduler;
  auto sc = app::load_scenario(d, "s.json", FLOORSIM_SOURCE_DIR "/tests/app");
  sc.engine.check_invariants = true;
  return app::run_scenario(sc);
}

}  // namespace

TEST_CASE("idle pool: without it the interactive request waits for a batch job", "[idle_pool]") {
  const json m = run(two_nodes());
  CHECK(m["classes"]["intraday"]["wait_s"]["max"] == 990.0);
  CHECK(m["preemptions"] == 0);
}

TEST_CASE("idle pool (hold): a held node serves the interactive request at once", "[idle_pool]") {
  json d = two_nodes();
  d["workload"]["jobs"][2]["runtime_s"] = 30;  // done before the first tick at 60
  d["idle_pool"] = {{"nodes", 1}, {"for_class", "intraday"}, {"interval_s", 60}};
  const json m = run(d);
  CHECK(m["classes"]["intraday"]["wait_s"]["max"] == 0.0);
  CHECK(m["preemptions"] == 0);
  // The batch model saw only one free node: job 2 waited for job 1.
  CHECK(m["classes"]["batch"]["wait_s"]["max"] == 1000.0);
  const json& ip = m["scheduler_report"]["idle_pool"];
  CHECK(ip["mode"] == "hold");
  CHECK(ip["held_idle_gpu_s"].get<double>() > 0);
  CHECK(m["cascade_preemptions"] == 0);
}

TEST_CASE("idle pool (hold): the controller requeues the latest-started preemptible job on its tick", "[idle_pool]") {
  json d = two_nodes();
  // Job 2 arrives later, so it starts last; the long intraday job takes the pool node.
  d["workload"]["jobs"][1]["submit_s"] = 5;
  d["workload"]["jobs"][2]["runtime_s"] = 1000;
  d["idle_pool"] = {{"nodes", 1}, {"for_class", "intraday"}, {"interval_s", 60}};
  auto sc = app::load_scenario(d, "s.json", ".");
  auto r = app::run_scenario(sc);
  // t=0: job 1 starts, node 2 held. t=5: job 2 cannot (masked). t=10: intraday takes node 2.
  // Tick at 60: no idle node -> job 1 (the only running preemptible job) is requeued.
  CHECK(r.metrics["classes"]["batch"]["preemptions"] == 1);
  CHECK(r.metrics["scheduler_report"]["idle_pool"]["controller_preemptions"] == 1);
  CHECK(r.metrics["cascade_preemptions"] == 0);
  CHECK(r.metrics["classes"]["batch"]["lost_gpu_s"] == 480.0);  // 60 s x 8 GPUs, no checkpoint
  CHECK(r.jobs_csv.find("\n1,batch,,,,,8,1,0,0,") != std::string::npos);  // same id after requeue
}

TEST_CASE("idle pool: PreemptExemptTime protects young jobs", "[idle_pool]") {
  json d = two_nodes();
  d["workload"]["jobs"][1]["submit_s"] = 5;
  d["workload"]["jobs"][2]["runtime_s"] = 1000;
  d["idle_pool"] = {{"nodes", 1}, {"for_class", "intraday"}, {"interval_s", 60}, {"preempt_exempt_s", 90}};
  const json m = run(d);
  // Job 1 becomes eligible at 90: requeued on the tick at 120, not at 60.
  CHECK(m["classes"]["batch"]["lost_gpu_s"] == 960.0);
}

TEST_CASE("on-demand preemption: the interactive request preempts the latest-started job", "[idle_pool]") {
  json d = two_nodes();
  d["idle_pool"] = {{"mode", "on_demand"}, {"nodes", 0}, {"for_class", "intraday"}};
  auto sc = app::load_scenario(d, "s.json", ".");
  auto r = app::run_scenario(sc);
  CHECK(r.metrics["classes"]["intraday"]["wait_s"]["max"] == 0.0);
  CHECK(r.metrics["classes"]["batch"]["preemptions"] == 1);
  CHECK(r.metrics["cascade_preemptions"] == 0);
  // Job 2 started after job 1 in the same pass, so it is the victim.
  CHECK(r.jobs_csv.find("\n2,batch,,,,,8,1,0,0,") != std::string::npos);
  CHECK(r.jobs_csv.find(",COMPLETED,1,1,") != std::string::npos);
}

TEST_CASE("idle pool composes with every model: held node serves intraday, LIFO requeue on the tick", "[idle_pool]") {
  for (const auto& [name, block] : models()) {
    DYNAMIC_SECTION("model " << name) {
      // As "the controller requeues the latest-started preemptible job on its tick", under `name`.
      json d = two_nodes();
      d["workload"]["jobs"][1]["submit_s"] = 5;
      d["workload"]["jobs"][2]["runtime_s"] = 1000;
      d["idle_pool"] = {{"nodes", 1}, {"for_class", "intraday"}, {"interval_s", 60}};
      const auto r = run_under(d, block);
      const json& m = r.metrics;
      CHECK(m["classes"]["intraday"]["wait_s"]["max"] == 0.0);
      CHECK(m["classes"]["batch"]["preemptions"] == 1);
      CHECK(m["scheduler_report"]["idle_pool"]["controller_preemptions"] == 1);
      CHECK(m["cascade_preemptions"] == 0);
      CHECK(m["classes"]["batch"]["lost_gpu_s"] == 480.0);
      // Every job finishes (nothing stays parked once the pool's node comes back).
      CHECK(r.jobs_csv.find("PENDING") == std::string::npos);
      CHECK(m["jobs"] == 3);
    }
  }
}

TEST_CASE("on-demand preemption composes with every model", "[idle_pool]") {
  for (const auto& [name, block] : models()) {
    DYNAMIC_SECTION("model " << name) {
      json d = two_nodes();
      d["idle_pool"] = {{"mode", "on_demand"}, {"nodes", 0}, {"for_class", "intraday"}};
      const auto r = run_under(d, block);
      CHECK(r.metrics["classes"]["intraday"]["wait_s"]["max"] == 0.0);
      CHECK(r.metrics["classes"]["batch"]["preemptions"] == 1);
      CHECK(r.metrics["cascade_preemptions"] == 0);
      CHECK(r.jobs_csv.find("PENDING") == std::string::npos);
    }
  }
}
