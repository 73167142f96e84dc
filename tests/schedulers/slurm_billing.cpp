// Fair-share usage as slurmctld bills it: TRESBillingWeights per partition, PriorityFlags=MAX_TRES,
// and allocated CPUs where no weights are set (slurm.conf(5); assoc_mgr_tres_weighted).
#include <catch2/catch.hpp>

#include "schedulers/slurm/billing.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::BillingWeights;
using floorsim::slurm::SlurmConfig;

TEST_CASE("slurm billing: TRESBillingWeights parse and the billable TRES of a job", "[slurm][billing]") {
  struct Row {
    const char* weights;
    bool max_tres;
    double cpus, gpus, nodes, mem_mb, billed;
  };
  const Row rows[] = {
      {"", false, 4, 8, 1, 0, 4},                                   // none: allocated CPUs
      {"", true, 4, 8, 1, 0, 4},                                    // MAX_TRES changes nothing without weights
      {"CPU=1.0,Mem=0.25G,GRES/gpu=2.0", false, 4, 8, 1, 2048, 4 + 0.5 + 16},
      {"CPU=1.0,Mem=0.25G,GRES/gpu=2.0", true, 4, 8, 1, 2048, 16},  // the largest node TRES
      {"cpu=1,node=10", true, 4, 8, 2, 0, 20},
      {"GRES/gpu=1", false, 64, 8, 1, 0, 8},                        // GPUs only: CPUs bill nothing
      {" CPU = 0.5 , gres/GPU=1 ", false, 4, 2, 1, 0, 4},
  };
  for (const auto& r : rows) {
    INFO(r.weights << " max_tres " << r.max_tres);
    BillingWeights w;
    std::vector<std::string> un;
    REQUIRE(floorsim::slurm::parse_billing_weights(r.weights, w, un).empty());
    CHECK(un.empty());
    CHECK(floorsim::slurm::billable_tres(w, r.max_tres, r.cpus, r.gpus, r.nodes, r.mem_mb) == Approx(r.billed));
  }
  BillingWeights w;
  std::vector<std::string> un;
  CHECK(floorsim::slurm::parse_billing_weights("CPU=1,license/matlab=5,GRES/gpu:a100=3", w, un).empty());
  CHECK(un == std::vector<std::string>{"license/matlab", "gres/gpu:a100"});
  CHECK_FALSE(floorsim::slurm::parse_billing_weights("CPU", w, un).empty());
  CHECK_FALSE(floorsim::slurm::parse_billing_weights("CPU=x", w, un).empty());
  CHECK_FALSE(floorsim::slurm::parse_billing_weights("CPU=2G", w, un).empty());
}

TEST_CASE("slurm billing: fair-share usage follows the billing, not GPU-seconds", "[slurm][billing]") {
  // One node x 8 GPUs. u1 runs an 8-GPU job with 1 CPU for 100 s; u2 a 1-GPU job with 16 CPUs
  // for 100 s. Without TRESBillingWeights slurmctld bills allocated CPUs: u2 used more (1600 vs
  // 100 CPU-s), so u1 ranks first. With GRES/gpu=1 it is the other way round.
  for (bool gpu_weight : {false, true}) {
    INFO("GRES/gpu weight " << gpu_weight);
    SlurmConfig c;
    c.sched.backfill = false;
    c.prio.type = floorsim::slurm::PriorityType::Multifactor;
    c.prio.weight_fairshare = 10000;
    c.prio.calc_period_s = 10;
    c.prio.decay_half_life_s = 0;
    auto p = part("gpu", {});
    p.is_default = true;
    if (gpu_weight) p.billing.set = true, p.billing.gpu = 1;
    c.partitions = {p};
    std::vector<J> jobs = {{1, 0, 100, 100, 8, 0, "u1", "", "", "a"},
                           {2, 100, 100, 100, 1, 0, "u2", "", "", "a"},
                           {3, 200, 100, 100, 8, 0, "u9", "", "", "a"},  // keeps the node busy
                           {4, 250, 10, 10, 8, 0, "u1", "", "", "a"},
                           {5, 250, 10, 10, 8, 0, "u2", "", "", "a"}};
    auto wl = workload(jobs);
    for (auto& js : wl.jobs)
      if (js.id == 2) js.cpus = 16;
    auto r = std::make_unique<Result>();
    r->wl = wl;
    r->cl = floorsim::uniform_cluster("n", 1, 8);
    r->sched = floorsim::slurm::make_model(c, r->wl, r->cl, "test");
    floorsim::EngineConfig ec;
    floorsim::Engine e(r->wl, r->cl, *r->sched, ec);
    e.run();
    r->runs = e.runs();
    const int64_t first = gpu_weight ? 5 : 4, second = gpu_weight ? 4 : 5;
    CHECK(r->start(first) == 300);
    CHECK(r->start(second) == 310);
  }
}
