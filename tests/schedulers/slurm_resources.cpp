// Conformance: CPUs and memory as consumable resources beside GPUs (select/cons_tres,
// https://slurm.schedmd.com/cons_tres.html): CPU-only nodes and jobs, memory that keeps a GPU
// job out, mixed partitions, and backfill that checks CPUs.
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {

struct Node {
  std::string name;
  int32_t gpus, cpus;
  int64_t mem_mib = 0;
};
struct Ask {
  int64_t id;
  int32_t cpus;
  int32_t mem_mib = 0;
  JobSpec::MemPer per = JobSpec::MemPer::None;
};

std::unique_ptr<Result> run_res(const SlurmConfig& cfg, const std::vector<J>& jobs, const std::vector<Ask>& asks,
                                const std::vector<Node>& nodes) {
  auto r = std::make_unique<Result>();
  r->wl = workload(jobs);
  for (const auto& a : asks)
    for (auto& js : r->wl.jobs)
      if (js.id == a.id) js.cpus = a.cpus, js.mem_mib = a.mem_mib, js.mem_per = a.per;
  bool mem = false;
  for (const auto& n : nodes) {
    r->cl.node_names.push_back(n.name);
    r->cl.node_gpus.push_back(n.gpus);
    r->cl.node_cpus.push_back(n.cpus);
    r->cl.node_mem_bytes.push_back(n.mem_mib << 20);
    r->cl.node_leaf.push_back(0);
    mem = mem || n.mem_mib > 0;
  }
  if (!mem) r->cl.node_mem_bytes.clear();
  r->cl.leaf_names = {"leaf"};
  r->sched = slurm::make_model(cfg, r->wl, r->cl, "test");
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(r->wl, r->cl, *r->sched, ec);
  e.run();
  r->runs = e.runs();
  for (size_t j = 0; j < r->wl.jobs.size(); ++j) {
    auto a = e.final_allocation(static_cast<JobIdx>(j));
    r->alloc.emplace_back(a.begin(), a.end());
  }
  return r;
}

SlurmConfig quick() {
  SlurmConfig c;
  c.sched.batch_sched_delay_s = 0;
  return c;
}

}  // namespace

TEST_CASE("cons_tres: CPU-only jobs share a CPU-only node by its CPUs", "[slurm][resources]") {
  // One node of 0 GPUs and 32 CPUs: two 16-CPU jobs run together, the third waits for one.
  auto r = run_res(quick(), {{1, 0, 100, 100, 0}, {2, 0, 100, 100, 0}, {3, 0, 50, 50, 0}},
                   {{1, 16}, {2, 16}, {3, 16}}, {{"c001", 0, 32}});
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 0);
  CHECK(r->start(3) == 100);
  CHECK(r->run(3).state == JobState::Completed);
  REQUIRE(r->alloc[r->idx(1)].size() == 1);
  CHECK(r->alloc[r->idx(1)][0].cpus == 16);
  CHECK(r->alloc[r->idx(1)][0].gpus == 0);
}

TEST_CASE("cons_tres: a GPU job waits for memory while GPUs are free", "[slurm][resources]") {
  // 8 GPUs, 64 CPUs, 256 GiB. Job 1 holds 1 GPU and 200 GiB. Job 3 asks 1 GPU and 8 GiB per
  // CPU x 4 CPUs = 32 GiB: it fits beside job 1 at once. Job 2 asks 1 GPU and 100 GiB: 6 GPUs
  // are free but the memory is not, so it starts when job 1 ends.
  const int32_t gib = 1024;
  auto r = run_res(quick(), {{1, 0, 100, 100, 1}, {3, 1, 10, 10, 1}, {2, 2, 10, 10, 1}},
                   {{1, 1, 200 * gib, JobSpec::MemPer::Node}, {2, 1, 100 * gib, JobSpec::MemPer::Node},
                    {3, 4, 8 * gib, JobSpec::MemPer::Cpu}},
                   {{"g001", 8, 64, 256 * gib}});
  CHECK(r->start(1) == 0);
  CHECK(r->start(3) == 1);
  CHECK(r->alloc[r->idx(3)][0].mem_mib == 32 * gib);
  CHECK(r->start(2) == 100);
}

TEST_CASE("cons_tres: without a memory request a job takes all of each node's memory", "[slurm][resources]") {
  // DefMemPerNode's default (unlimited): job 1 asks no memory, so job 2 (1 MiB) cannot share.
  auto r = run_res(quick(), {{1, 0, 100, 100, 1}, {2, 1, 10, 10, 1}}, {{2, 1, 1, JobSpec::MemPer::Node}},
                   {{"g001", 8, 64, 1024}});
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 100);
}

TEST_CASE("cons_tres: a mixed partition places CPU-only and GPU jobs by what each node has", "[slurm][resources]") {
  // g001: 8 GPUs, 32 CPUs; c001: no GPU, 64 CPUs. A 48-CPU job fits only c001; the GPU job
  // takes g001; a 16-CPU job fits the rest of c001; a 17-CPU job fits nowhere until one ends.
  SlurmConfig c = quick();
  c.partitions = {part("all", {"g001", "c001"})};
  c.partitions[0].is_default = true;
  auto r = run_res(c, {{1, 0, 100, 100, 0}, {2, 1, 100, 100, 8}, {3, 2, 100, 100, 0}, {4, 3, 10, 10, 0}},
                   {{1, 48}, {2, 32}, {3, 16}, {4, 17}}, {{"g001", 8, 32}, {"c001", 0, 64}});
  CHECK(r->start(1) == 0);
  CHECK(r->nodes(1) == std::vector<std::string>{"c001"});
  CHECK(r->start(2) == 1);
  CHECK(r->nodes(2) == std::vector<std::string>{"g001"});
  CHECK(r->start(3) == 2);
  CHECK(r->nodes(3) == std::vector<std::string>{"c001"});
  CHECK(r->start(4) == 100);
}

TEST_CASE("cons_tres: backfill does not start a job whose CPUs are taken", "[slurm][resources]") {
  // 8 GPUs, 16 CPUs. Job 1 holds 4 GPUs and 12 CPUs until 1000. Job 2 (8 GPUs) waits for it
  // and is planned at 1000. Job 3 (2 GPUs, 8 CPUs, ends by 300 after its start) would backfill
  // on GPUs alone (it does on a cluster without CPUs), but only 4 CPUs are free: it starts after
  // job 2. Job 4 (2 GPUs, 4 CPUs) fits the free CPUs and ends before job 2's start: backfill
  // starts it at the first backfill pass (bf_interval 30 s).
  auto r = run_res(quick(), {{1, 0, 1000, 1000, 4}, {2, 1, 1000, 1000, 8}, {3, 2, 300, 300, 2}, {4, 3, 300, 300, 2}},
                   {{1, 12}, {2, 8}, {3, 8}, {4, 4}}, {{"g001", 8, 16}});
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 1000);
  CHECK(r->start(3) == 2000);
  CHECK(r->start(4) == 30);
}

TEST_CASE("cons_tres: a GPU job spread over nodes takes CPUs in proportion", "[slurm][resources]") {
  // Two nodes of 4 GPUs and 8 CPUs; an 8-GPU job asking 16 CPUs holds 4 GPUs and 8 CPUs on each.
  auto r = run_res(quick(), {{1, 0, 10, 10, 8}}, {{1, 16}}, {{"g001", 4, 8}, {"g002", 4, 8}});
  CHECK(r->start(1) == 0);
  REQUIRE(r->alloc[r->idx(1)].size() == 2);
  CHECK(r->alloc[r->idx(1)][0].cpus == 8);
  CHECK(r->alloc[r->idx(1)][1].cpus == 8);
}
