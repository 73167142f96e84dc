// Engine-level tests of the KAI-like model: KAI Queue YAML, hand-built workloads on
// uniform_cluster, run through floorsim::Engine (with invariant checks). Covers GPU fractions
// packed onto shared GPUs and charged against quota, queue limits, reclaim and preempt with the
// eviction grace time, consolidation, and manifest errors/warnings with file and line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "tests/schedulers/kai_harness.hpp"

using namespace floorsim;

using namespace floorsim::kai_test;

TEST_CASE("kai GPU sharing: four quarter-GPU jobs share one GPU, a fifth waits", "[kai]") {
  Run x;
  for (int i = 1; i <= 5; ++i) x.w.jobs.push_back(job(x.w, i, "pricing", 0, 100, 1, 125, 250));
  x.go("share", queue_yaml("pricing", 1), {{"gpu_sharing", true}}, 1, 1);
  CHECK(x.started_at(0) == Ids{1, 2, 3, 4});
  CHECK(x.r(5).first_start_s == 100);
  // each packed job is charged its share in GPU-seconds: 5 x 0.25 x 100
  double gpu_s = 0;
  for (const auto& r : x.engine->runs()) gpu_s += r.alloc_gpu_s;
  CHECK(gpu_s == Approx(125));
  const auto rep = x.sched->report(x.engine->snapshot());
  CHECK(rep["gpu_sharing"]["max_jobs_on_one_gpu"] == 4);
  CHECK(rep["gpu_sharing"]["packed_starts"] == 5);
}

TEST_CASE("kai GPU sharing: fractions count against the queue limit", "[kai]") {
  Run x;
  for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "pricing", 0, 100, 1, 125, 250));
  x.go("limit", queue_yaml("pricing", 0.5, 0.5), {{"gpu_sharing", true}}, 1, 8);
  CHECK(x.started_at(0) == Ids{1, 2});
  CHECK(x.started_at(100) == Ids{3, 4});
}

TEST_CASE("kai GPU sharing off: a fractional job holds a whole GPU", "[kai]") {
  Run x;
  for (int i = 1; i <= 3; ++i) x.w.jobs.push_back(job(x.w, i, "pricing", 0, 100, 1, 125, 250));
  x.go("noshare", queue_yaml("pricing", 8), {}, 1, 2);
  CHECK(x.started_at(0) == Ids{1, 2});
  CHECK(x.r(3).first_start_s == 100);
}

TEST_CASE("kai GPU sharing: a whole-GPU job cannot use a partly used GPU; best fit packs", "[kai]") {
  Run x;
  x.w.jobs.push_back(job(x.w, 1, "pricing", 0, 100, 1, 125, 500));
  x.w.jobs.push_back(job(x.w, 2, "pricing", 1, 50, 1, 125, 0));    // whole GPU: the other one
  x.w.jobs.push_back(job(x.w, 3, "pricing", 2, 10, 1, 125, 250));  // joins job 1's GPU
  x.w.jobs.push_back(job(x.w, 4, "pricing", 3, 10, 1, 125, 0));    // waits for job 2
  x.go("mixed", queue_yaml("pricing", 4), {{"gpu_sharing", true}}, 1, 2);
  CHECK(x.r(2).first_start_s == 1);
  CHECK(x.r(3).first_start_s == 2);
  CHECK(x.r(3).gpu_slot == -1);  // ended
  CHECK(x.r(4).first_start_s == 51);
}

TEST_CASE("kai reclaim: a queue under its fair share takes back GPUs lent to another", "[kai]") {
  Run x;
  // research borrows the whole cluster (4 preemptible jobs), then risk (quota 2) asks for 2.
  for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "research", 0, 1000, 1, 50));
  x.w.jobs.push_back(job(x.w, 10, "risk", 10, 100, 2, 100));
  const std::string yaml = queue_yaml("risk", 2) + queue_yaml("research", 2);
  x.go("reclaim", yaml, {{"eviction_grace_s", 5}}, 1, 4);
  CHECK(x.preempted() == Ids{3, 4});  // newest first; research keeps its fair share of 2
  CHECK(x.r(10).first_start_s == 15);  // after the 5 s grace
  CHECK(x.r(3).requeues == 1);
  const auto rep = x.sched->report(x.engine->snapshot());
  CHECK(rep["actions"]["reclaim_victims"] == 2);
}

TEST_CASE("kai reclaim never takes non-preemptible jobs (priority >= 100)", "[kai]") {
  Run x;
  // research's jobs are non-preemptible, so they must fit its quota (4); risk (quota 2) is
  // within its fair share but finds no victim.
  for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "research", 0, 1000, 1, 100));
  x.w.jobs.push_back(job(x.w, 10, "risk", 10, 100, 2, 50));
  x.go("reclaim-np", queue_yaml("risk", 2) + queue_yaml("research", 4), {}, 1, 4);
  CHECK(x.preempted().empty());
  CHECK(x.r(10).first_start_s == 1000);
}

TEST_CASE("kai preempt: within one queue, a higher-priority job evicts lower ones", "[kai]") {
  Run x;
  x.w.jobs.push_back(job(x.w, 1, "train", 0, 1000, 2, 50));
  x.w.jobs.push_back(job(x.w, 2, "train", 0, 1000, 2, 75));
  x.w.jobs.push_back(job(x.w, 3, "train", 10, 100, 2, 100));
  x.go("preempt", queue_yaml("train", 4), {}, 1, 4);
  CHECK(x.preempted() == Ids{1});
  CHECK(x.r(3).first_start_s == 10);
  CHECK(x.r(1).first_start_s == 0);
}

TEST_CASE("kai priority classes and preemptibility from the scheduler block", "[kai]") {
  Run x;
  x.w.jobs.push_back(job(x.w, 1, "backtest", 0, 1000, 4, 0));
  x.w.jobs.push_back(job(x.w, 2, "inference", 10, 100, 4, 0));
  // Without classes both have priority 0 (equal: no preemption); inference (125) beats train (50).
  x.go("classes", queue_yaml("q", 4), {{"queue_map", {{"*", "q"}}},
                                       {"priority_classes", {{"backtest", "train"}, {"inference", "inference"}}}},
       1, 4);
  CHECK(x.preempted() == Ids{1});
  CHECK(x.r(2).first_start_s == 10);
}

TEST_CASE("kai consolidation moves a preemptible job to make room on one node", "[kai]") {
  Run x;
  // Two nodes of 4: a 2-GPU job on each leaves 2 + 2 free, but a 4-GPU job needs one node.
  x.w.jobs.push_back(job(x.w, 1, "t", 0, 1000, 2, 50));
  x.w.jobs.push_back(job(x.w, 2, "t", 0, 1000, 2, 50));
  x.w.jobs.push_back(job(x.w, 3, "t", 0, 1000, 3, 50));  // leaves n1: 2 used
  x.w.jobs.push_back(job(x.w, 9, "t", 10, 100, 4, 50));
  x.go("consolidate", queue_yaml("t", 8), {{"actions", {"allocate", "consolidation"}}}, 2, 4);
  // 1 -> n1 (2), 2 -> n1 (2), 3 -> n2 (3): 1 GPU free, job 9 cannot fit at all; no move.
  CHECK(x.preempted().empty());
  Run y;
  y.w.jobs.push_back(job(y.w, 1, "t", 0, 1000, 2, 50));
  y.w.jobs.push_back(job(y.w, 2, "t", 0, 1000, 3, 50));
  y.w.jobs.push_back(job(y.w, 3, "t", 1, 1000, 1, 50));  // n1: 1,3 (3 used); n2: 2 (3 used)
  y.w.jobs.push_back(job(y.w, 9, "t", 10, 100, 2, 50));
  y.w.jobs.back().nodes = 1;  // one pod: both GPUs on one node
  y.go("consolidate2", queue_yaml("t", 8), {{"actions", {"allocate", "consolidation"}}}, 2, 4);
  // 2 free GPUs, one per node: job 3 moves from n1 to n2, job 9 starts on n1 at once and the
  // moved job restarts after the relocation delay (1 s).
  CHECK(y.r(9).first_start_s == 10);
  CHECK(y.preempted() == Ids{3});
  CHECK(y.r(3).start_s == 11);
  CHECK(y.r(3).requeues == 1);
}

TEST_CASE("kai hierarchy: the example tree shares surplus by weight, end to end", "[kai]") {
  Run x;
  // quant{a: quota 2, b: quota 2 weight 3} on 8 GPUs; both ask for everything, 1-GPU jobs.
  for (int i = 0; i < 8; ++i) x.w.jobs.push_back(job(x.w, 100 + i, "a", 0, 100, 1, 50));
  for (int i = 0; i < 8; ++i) x.w.jobs.push_back(job(x.w, 200 + i, "b", 0, 100, 1, 50));
  const std::string yaml = queue_yaml("quant", 4) + queue_yaml("a", 2, -1, 1, "quant") + queue_yaml("b", 2, -1, 3, "quant");
  x.go("hier", yaml, {}, 1, 8);
  const auto started = x.started_at(0);
  int a = 0, b = 0;
  for (auto id : started) (id < 200 ? a : b)++;
  // fair shares: a 2 + 1 = 3, b 2 + 3 = 5 (surplus 4 split 1:3)
  CHECK(a == 3);
  CHECK(b == 5);
}

TEST_CASE("kai manifests: unknown fields warn, wrong types and bad trees fail with file:line", "[kai]") {
  std::vector<std::string> warn;
  const std::string ok = queue_yaml("a", 2) + "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: b}\nspec:\n  colour: blue\n";
  const auto t = kai::load_queues_text(ok, "q.yaml", warn);
  CHECK(t.size() == 2);
  REQUIRE(warn.size() == 1);
  CHECK(warn[0].find("q.yaml:") == 0);
  CHECK(warn[0].find("spec.colour") != std::string::npos);
  auto fails = [](const std::string& yaml, const std::string& what) {
    std::vector<std::string> w;
    try {
      kai::load_queues_text(yaml, "q.yaml", w);
      FAIL("no error for " << what);
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("q.yaml:") == 0);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  fails("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec:\n  resources:\n    gpu: {quota: lots}\n",
        "quota");
  fails(queue_yaml("a", 2, -1, 1, "nobody"), "parentQueue nobody");
  fails(queue_yaml("a", 2, -1, 1, "b") + queue_yaml("b", 2, -1, 1, "a"), "cycle");
  fails(queue_yaml("a", 4, 2), "exceeds its limit");
  fails(queue_yaml("a", 1) + queue_yaml("a", 1), "declared twice");
}

TEST_CASE("kai scheduler block: bad queue_map, priority class and action order are rejected", "[kai]") {
  Workload w;
  w.jobs.push_back(job(w, 1, "x", 0, 1, 1));
  const ClusterConfig cluster = uniform_cluster("n", 1, 1);
  const std::string dir = temp_dir("params");
  std::ofstream(dir + "/queues.yaml") << queue_yaml("p", 1, -1, 1) + queue_yaml("c", 1, -1, 1, "p");
  SchedulerContext ctx{w, cluster, dir, "s.json", 1};
  auto make = [&](cfg::json p) {
    p["type"] = "kai";
    p["manifests"] = {"queues.yaml"};
    return kai::make_kai(cfg::resolve(p, *kai::kai_params_spec(), "/scheduler", "s.json"), ctx);
  };
  CHECK_NOTHROW(make({{"queue_map", {{"x", "c"}}}}));
  CHECK_THROWS_WITH(make({{"queue_map", {{"x", "p"}}}}), Catch::Contains("s.json:/scheduler/queue_map/x") && Catch::Contains("parent queue"));
  CHECK_THROWS_WITH(make({{"priority_classes", {{"x", "urgent"}}}}), Catch::Contains("not a KAI class"));
  CHECK_THROWS_WITH(make({{"actions", {"reclaim", "allocate"}}}), Catch::Contains("/scheduler/actions/1"));
  CHECK_THROWS_WITH(make({{"preemptibility", {{"x", "maybe"}}}}), Catch::Contains("/scheduler/preemptibility/x"));
}

TEST_CASE("kai minruntime: a job younger than its queue's reclaimMinRuntime is not reclaimed", "[kai][minruntime]") {
  Run x;
  // As the reclaim case above, with research's jobs protected for 60 s after they start: risk
  // waits until t = 60, then reclaims (5 s grace).
  for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "research", 0, 1000, 1, 50));
  x.w.jobs.push_back(job(x.w, 10, "risk", 10, 100, 2, 100));
  std::string research = queue_yaml("research", 2);
  research.replace(research.find("  priority:"), 0, "  reclaimMinRuntime: 1m\n");
  x.go("minruntime-reclaim", queue_yaml("risk", 2) + research, {{"eviction_grace_s", 5}}, 1, 4);
  CHECK(x.preempted() == Ids{3, 4});
  CHECK(x.r(10).first_start_s == 65);
  CHECK(x.sched->report(x.engine->snapshot())["actions"]["min_runtime_protected"].get<int>() > 0);
}

TEST_CASE("kai minruntime: the plugin's default preempt minimum protects a young job", "[kai][minruntime]") {
  Run x;
  x.w.jobs.push_back(job(x.w, 1, "train", 0, 1000, 2, 50));
  x.w.jobs.push_back(job(x.w, 2, "train", 0, 1000, 2, 75));
  x.w.jobs.push_back(job(x.w, 3, "train", 10, 100, 2, 100));
  x.go("minruntime-preempt", queue_yaml("train", 4), {{"minruntime", {{"default_preempt_min_runtime_s", 300}}}}, 1, 4);
  CHECK(x.preempted() == Ids{1});
  CHECK(x.r(3).first_start_s == 300);
}

TEST_CASE("kai report: mean allocation counts the stretch after the last pass", "[kai]") {
  Run x;
  // Nothing ends before the horizon: one pass at t = 0 starts a 4-GPU job that runs past it.
  x.w.jobs.push_back(job(x.w, 1, "train", 0, 10000, 4, 50));
  const std::string dir = temp_dir("mean-tail");
  std::ofstream(dir + "/queues.yaml") << queue_yaml("train", 4);
  x.cluster = uniform_cluster("n", 1, 4);
  cfg::json params = {{"type", "kai"}, {"manifests", {"queues.yaml"}}};
  const cfg::json resolved = cfg::resolve(params, *kai::kai_params_spec(), "/scheduler", "test.json");
  SchedulerContext ctx{x.w, x.cluster, dir, "test.json", 1};
  x.sched = kai::make_kai(resolved, ctx);
  EngineConfig ec;
  ec.horizon_s = 1000;
  x.engine = std::make_unique<Engine>(x.w, x.cluster, *x.sched, ec);
  x.engine->run();
  const auto q = x.sched->report(x.engine->snapshot())["queues"]["train"];
  CHECK(q["mean_allocated_gpus"].get<double>() == Approx(4));
  CHECK(q["mean_fair_share_gpus"].get<double>() == Approx(4));
}
