// CPU and memory in KAI queues: a Queue's spec.resources.cpu (millicores) and .memory (MB)
// divided like GPUs, limits and the non-preemptible quota per resource, queue order by the
// dominant resource. Division cases from KAI's own table
// (pkg/scheduler/plugins/proportion/resource_division/resource_division_test.go,
// "setResourceShare - CPU", NVIDIA/KAI-Scheduler at 72de64fc8eca10fa8cca26a20156178f3edbe092).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "schedulers/kai/model.hpp"
#include "tests/schedulers/kai_harness.hpp"

using namespace floorsim;
using namespace floorsim::kai;
using namespace floorsim::kai_test;

TEST_CASE("kai cpu division: KAI's setResourceShare - CPU table (millicores, whole units of one)", "[kai][resources]") {
  struct Case {
    const char* name;
    Milli total;
    std::vector<ShareInput> in;  // {deserved, request, limit, weight, priority}
    std::vector<Milli> expect;
  };
  const std::vector<Case> cases = {
      {"one queue: gives requested CPUs", 3000, {{3000, 2000, kUnlimited, 3000, 100}}, {2000}},
      {"one queue: gives deserved in over subscription", 1000, {{3000, 2000, kUnlimited, 3000, 100}}, {2000}},
      {"two queues: queue 2 has no deserved CPU", 10000,
       {{5000, 10000, kUnlimited, 5000, 100}, {0, 5000, kUnlimited, 0, 100}}, {10000, 0}},
      {"three queues: all request what they deserve", 10000,
       {{5000, 5000, kUnlimited, 5000, 100}, {5000, 5000, kUnlimited, 5000, 100}, {5000, 5000, kUnlimited, 5000, 100}},
       {5000, 5000, 5000}},
      {"three queues: all request more than they deserve, over quota", 18000,
       {{5000, 6000, kUnlimited, 5000, 100}, {5000, 6000, kUnlimited, 5000, 100}, {5000, 6000, kUnlimited, 5000, 100}},
       {6000, 6000, 6000}},
      {"three queues: one requests more than it deserves", 10000,
       {{5000, 7000, kUnlimited, 5000, 100}, {5000, 2000, kUnlimited, 5000, 100}, {5000, 2000, kUnlimited, 5000, 100}},
       {6000, 2000, 2000}},
      {"three queues: reclaims from both allocated queues", 10000,
       {{5000, 7000, kUnlimited, 5000, 100}, {5000, 5000, kUnlimited, 5000, 100}, {5000, 2000, kUnlimited, 5000, 100}},
       {5000, 5000, 2000}},
      {"three queues: one requests more than it deserves and allowed", 10000,
       {{5000, 7000, 7000, 5000, 100}, {5000, 2000, kUnlimited, 5000, 100}, {5000, 2000, kUnlimited, 5000, 100}},
       {6000, 2000, 2000}},
      {"three queues: q2 has no deserved CPU but is allowed over quota", 10000,
       {{5000, 5000, kUnlimited, 5000, 100}, {0, 5000, kUnlimited, 5000, 100}, {5000, 5000, kUnlimited, 5000, 100}},
       {5000, 0, 5000}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      std::vector<Milli> out(c.in.size());
      DivideScratch sc;
      divide(c.total, c.in, 1, out, sc);
      CHECK(out == c.expect);
    }
  }
}

TEST_CASE("kai per-resource tree division, limits and non-preemptible quota", "[kai][resources]") {
  QueueTree t;
  QueueSpec a{"a", kNoQueue, 100, 4000, kUnlimited, 1};
  a.cpu = {2000, 3000, 1};
  QueueSpec b{"b", kNoQueue, 100, 4000, kUnlimited, 1};
  b.cpu = {6000, kUnlimited, 1};
  t.add(a);
  t.add(b);
  REQUIRE(t.finalize());
  std::vector<Milli> fair, req;
  const std::vector<Milli> cpu_req = {8000, 8000};
  fair_shares(t, 12000, cpu_req, 1, fair, req, *std::make_unique<DivideScratch>(), {}, 1.0, kCpu);
  CHECK(fair == std::vector<Milli>{3000, 8000});  // deserved 2000 / 6000; a's limit lets it take 1000 more, b its request
  fair_shares(t, 12000, cpu_req, 1, fair, req, *std::make_unique<DivideScratch>(), {}, 1.0, kGpu);
  CHECK(fair == std::vector<Milli>{6000, 6000});  // the GPU quotas (4000 each, no limit), not the cpu ones
  const std::vector<Milli> alloc = {2000, 0};
  CHECK(within_limits(t, alloc, 0, 1000, kCpu));
  CHECK_FALSE(within_limits(t, alloc, 0, 1001, kCpu));
  CHECK(within_limits(t, alloc, 0, 1001, kGpu));  // the GPU limit is unlimited
  const std::vector<Milli> np = {1500, 0};
  CHECK(nonpreemptible_within_quota(t, np, 0, 500, kCpu));
  CHECK_FALSE(nonpreemptible_within_quota(t, np, 0, 501, kCpu));
  CHECK(nonpreemptible_within_quota(t, np, 0, 0, kCpu));  // an unrequested resource never blocks
}

TEST_CASE("kai queue order by the dominant resource share (queue_order.go)", "[kai][resources]") {
  // Both over their fair share with the job, same priority, not starved: the smaller dominant
  // share goes first. a: GPUs 1/4, cpu 3/4 -> 3/4; b: GPUs 2/4, cpu 1/4 -> 1/2.
  QueueState a{1000, 4000, 0, 100, 0}, b{2000, 4000, 0, 100, 1};
  a.extra[0] = {3000, 4000, 2000};
  b.extra[0] = {1000, 4000, 2000};
  CHECK(queue_before(b, 4000, a, 4000));
  CHECK_FALSE(queue_before(a, 4000, b, 4000));
  // Without cpu, a's GPU share is smaller: a first.
  QueueState a0{1000, 4000, 0, 100, 0}, b0{2000, 4000, 0, 100, 1};
  CHECK(queue_before(a0, 4000, b0, 4000));
  // Within fair share must hold in cpu too: a's job fits its GPU share but not its cpu share.
  QueueState c{0, 4000, 0, 100, 0}, d{2000, 4000, 0, 100, 1};
  c.extra[0] = {3000, 4000, 2000};
  d.extra[0] = {0, 4000, 2000};
  CHECK(queue_before(d, 1000, c, 1000));
  // A zero cpu fair share with cpu allocated is the largest share there is.
  QueueState e{0, 4000, 0, 100, 0}, f{3000, 4000, 0, 100, 1};
  e.extra[0] = {1, 0, 0};
  CHECK(queue_before(f, 2000, e, 2000));
}

namespace {

std::string cpu_queue(const std::string& name, double gpu_quota, const std::string& cpu, const std::string& memory = "") {
  std::string s = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " + name +
                  "\nspec:\n  resources:\n    gpu: {quota: " + std::to_string(gpu_quota) + ", limit: -1, overQuotaWeight: 1}\n";
  if (!cpu.empty()) s += "    cpu: " + cpu + "\n";
  if (!memory.empty()) s += "    memory: " + memory + "\n";
  return s + "---\n";
}

}  // namespace

TEST_CASE("kai cpu and memory limits bind a queue (engine)", "[kai][resources]") {
  SECTION("cpu limit 4000 millicores, 2 cores per GPU: two 1-GPU jobs at a time") {
    Run x;
    for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "a", 0, 100, 1));
    x.go("cpu-limit", cpu_queue("a", 8, "{quota: 0, limit: 4000, overQuotaWeight: 1}"),
         {{"requests_per_gpu", {{"cpu", 2}}}}, 1, 8);
    CHECK(x.started_at(0) == Ids{1, 2});
    CHECK(x.started_at(100) == Ids{3, 4});
    const auto rep = x.sched->report(x.engine->snapshot());
    CHECK(rep["queues"]["a"]["cpu_millicores"]["limit"] == 4000);
  }
  SECTION("without cpu requests the cpu limit never binds, and says so") {
    Run x;
    for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "a", 0, 100, 1));
    x.go("cpu-unused", cpu_queue("a", 8, "{quota: 0, limit: 4000, overQuotaWeight: 1}"), {}, 1, 8);
    CHECK(x.started_at(0) == Ids{1, 2, 3, 4});
    const auto rep = x.sched->report(x.engine->snapshot());
    CHECK(rep["warnings"].dump().find("Queue a: its cpu quota / limit never binds") != std::string::npos);
  }
  SECTION("memory limit 40000 MB, 16Gi per job (17180 MB): two at a time") {
    Run x;
    for (int i = 1; i <= 3; ++i) x.w.jobs.push_back(job(x.w, i, "a", 0, 100, 1));
    x.go("mem-limit", cpu_queue("a", 8, "", "{quota: 0, limit: 40000, overQuotaWeight: 1}"),
         {{"requests_per_job", {{"memory", "16Gi"}}}}, 1, 8);
    CHECK(x.started_at(0) == Ids{1, 2});
    CHECK(x.r(3).first_start_s == 100);
    const auto rep = x.sched->report(x.engine->snapshot());
    CHECK(rep["queues"]["a"]["memory_mb"]["allocated_at_end"] == 0);
  }
  SECTION("non-preemptible jobs stay within the cpu quota") {
    Run x;
    for (int i = 1; i <= 3; ++i) x.w.jobs.push_back(job(x.w, i, "a", 0, 100, 1, 100));  // priority 100
    x.go("cpu-np", cpu_queue("a", 8, "{quota: 4000, limit: -1, overQuotaWeight: 1}"),
         {{"requests_per_gpu", {{"cpu", 2}}}}, 1, 8);
    CHECK(x.started_at(0) == Ids{1, 2});
    CHECK(x.r(3).first_start_s == 100);
  }
}

TEST_CASE("kai queue order: a queue past its cpu fair share waits (engine)", "[kai][resources]") {
  // 6 GPUs, 12 cores; a and b deserve 4 GPUs each, a 4 cores, b 8; every job 1 GPU, 2 cores.
  // GPUs alone: three jobs each. With cpu: a is past its cpu fair share after two jobs.
  auto run = [](Run& x, const std::string& name, bool cpu) {
    x.cpus_per_node = 12;
    for (int i = 1; i <= 4; ++i) x.w.jobs.push_back(job(x.w, i, "a", 0, 100, 1));
    for (int i = 11; i <= 14; ++i) x.w.jobs.push_back(job(x.w, i, "b", 0, 100, 1));
    cfg::json p = cfg::json::object();
    if (cpu) p["requests_per_gpu"] = {{"cpu", 2}};
    x.go(name, cpu_queue("a", 4, "{quota: 4000, limit: -1, overQuotaWeight: 1}") +
                   cpu_queue("b", 4, "{quota: 8000, limit: -1, overQuotaWeight: 1}"),
         p, 1, 6);
  };
  Run gpu_only, with_cpu;
  run(gpu_only, "order-gpu", false);
  CHECK(gpu_only.started_at(0) == Ids{1, 2, 3, 11, 12, 13});
  run(with_cpu, "order-cpu", true);
  CHECK(with_cpu.started_at(0) == Ids{1, 2, 11, 12, 13, 14});
}

TEST_CASE("kai requests_per_job names only cpu or memory", "[kai][resources]") {
  cfg::json p = {{"type", "kai"}, {"manifests", {"q.yaml"}}, {"requests_per_job", {{"pods", 1}}}};
  CHECK_THROWS_WITH(cfg::resolve(p, *kai_params_spec(), "/scheduler", "s.json"),
                    Catch::Contains("/scheduler/requests_per_job/pods") && Catch::Contains("expected cpu or memory"));
  p["requests_per_job"] = {{"memory", "lots"}};
  CHECK_THROWS_WITH(cfg::resolve(p, *kai_params_spec(), "/scheduler", "s.json"),
                    Catch::Contains("/scheduler/requests_per_job/memory"));
}

TEST_CASE("kai Queue cpu / memory values are checked like GPUs, with file and line", "[kai][resources]") {
  std::vector<std::string> w;
  const std::string yaml = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n"
                           "spec:\n  resources:\n    cpu: {quota: 4000, limit: 2000, overQuotaWeight: 1}\n";
  CHECK_THROWS_WITH(load_queues_text(yaml, "q.yaml", w), Catch::Contains("q.yaml") && Catch::Contains("cpu quota 4000 exceeds its limit 2000"));
  const std::string neg = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n"
                          "spec:\n  resources:\n    memory: {quota: -5, limit: -1, overQuotaWeight: 1}\n";
  CHECK_THROWS_WITH(load_queues_text(neg, "q.yaml", w), Catch::Contains("spec.resources.memory.quota is -5"));
  const std::string ok = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n"
                         "spec:\n  resources:\n    cpu: {quota: 2000, limit: 4000, overQuotaWeight: 2}\n    memory: {quota: -1}\n";
  const QueueTree t = load_queues_text(ok, "q.yaml", w);
  CHECK(t[0].cpu.quota == 2000);
  CHECK(t[0].cpu.limit == 4000);
  CHECK(t[0].cpu.weight == 2);
  CHECK(t[0].memory.quota == kUnlimited);
  CHECK(w.empty());
}
