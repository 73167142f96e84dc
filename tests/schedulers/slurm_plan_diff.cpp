// Differential test: backfill's release plan (bitsets, cheap retry decisions, lazy placement)
// must give exactly what the plain _will_run_test walk gives (spec slurm-model.md §2). Random
// workloads, seeded, on clusters that take each of the plan's builds: 1-GPU nodes (node
// bitsets), more GPUs per node (bit planes), over 64 and 128 nodes (several words).
#include <catch2/catch.hpp>

#include <random>

#include <fmt/format.h>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {

std::vector<J> random_jobs(uint32_t seed, int n_jobs, int cluster_gpus) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<J> jobs;
  SimTime t = 0;
  for (int i = 0; i < n_jobs; ++i) {
    t += pick(0, 240);
    // Mostly small jobs, some up to the whole cluster; limits from 2 minutes to 3 hours, run
    // times up to the limit (many end early, which is what moves the plan).
    const int gpus = pick(0, 3) == 0 ? pick(1, cluster_gpus) : pick(1, std::max(1, cluster_gpus / 4));
    const SimTime limit = 60.0 * pick(2, 180);
    const SimTime runtime = std::max<SimTime>(1, limit * pick(10, 100) / 100.0);
    jobs.push_back({i + 1, t, runtime, limit, gpus, 0, "u" + std::to_string(pick(1, 5))});
  }
  return jobs;
}

void same_outcome(const Result& a, const Result& b) {
  REQUIRE(a.runs.size() == b.runs.size());
  for (const auto& js : a.wl.jobs) {
    INFO("job " << js.id);
    CHECK(a.start(js.id) == b.start(js.id));
    CHECK(a.run(js.id).end_s == b.run(js.id).end_s);
    CHECK(a.nodes(js.id) == b.nodes(js.id));
    CHECK(a.planned(js.id) == b.planned(js.id));
    CHECK(a.reason(js.id) == b.reason(js.id));
  }
}

}  // namespace

TEST_CASE("slurm §2: the backfill release plan answers as the plain will_run walk", "[slurm][backfill][plan]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
    double bf_window_s;
    bool multifactor;
  };
  const Shape shapes[] = {
      {8, 1, 86400, false},   // node bitsets, one word
      {6, 4, 86400, true},    // 3 bit planes
      {13, 8, 86400, true},   // 4 bit planes (quant nodes of 8 GPUs)
      {70, 1, 3600, true},    // two words; ends past a 1 h window
      {90, 4, 86400, true},   // two words, 3 planes
      {140, 2, 86400, false},  // three words, 2 planes
      {300, 8, 3600, true},    // five words, 4 planes; most ends past the window
  };
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, seed " << seed);
      SlurmConfig c;
      c.sched.bf_window_s = sh.bf_window_s;
      if (sh.multifactor) {
        c.prio.type = floorsim::slurm::PriorityType::Multifactor;
        c.prio.weight_age = 1000;
        c.prio.weight_jobsize = 1000;
        c.prio.weight_fairshare = 10000;
      }
      const auto jobs = random_jobs(seed * 7919 + static_cast<uint32_t>(sh.nodes), 80, static_cast<int>(sh.nodes) * sh.gpus);
      c.plan_backfill = true;
      auto fast = run(c, jobs, sh.nodes, sh.gpus);
      c.plan_backfill = false;
      auto plain = run(c, jobs, sh.nodes, sh.gpus);
      same_outcome(*fast, *plain);
      // The workload queues: backfill has to plan and start jobs for the comparison to mean much.
      CHECK(fast->report.at("backfill_starts").get<int64_t>() > 0);
    }
}

// The map's count summary is per partition: a job's window is pruned by the GPUs of its own
// partition's nodes in each slice. Two overlapping partitions, jobs in either.
TEST_CASE("slurm §2: backfill's per-partition slice counts prune as the plain walk decides", "[slurm][backfill][plan]") {
  for (const size_t nodes : {size_t{20}, size_t{200}})
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      INFO(nodes << " nodes, seed " << seed);
      SlurmConfig c;
      c.prio.type = floorsim::slurm::PriorityType::Multifactor;
      c.prio.weight_age = 1000;
      c.prio.weight_jobsize = 1000;
      std::vector<std::string> all, some;
      for (size_t n = 1; n <= nodes; ++n) {
        all.push_back(fmt::format("n{:03}", n));
        if (n % 3 != 0) some.push_back(all.back());
      }
      c.partitions = {part("all", all), part("some", some)};
      auto jobs = random_jobs(seed * 104729 + static_cast<uint32_t>(nodes), 80, static_cast<int>(some.size()) * 4);
      std::mt19937 rng(seed);
      for (auto& j : jobs) j.part = rng() % 2 ? "all" : "some";
      c.plan_backfill = true;
      auto fast = run(c, jobs, nodes, 4);
      c.plan_backfill = false;
      auto plain = run(c, jobs, nodes, 4);
      same_outcome(*fast, *plain);
      CHECK(fast->report.at("backfill_starts").get<int64_t>() > 0);
    }
}
