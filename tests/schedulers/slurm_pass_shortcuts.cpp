// The pass-level shortcuts (skipping work that cannot change the outcome) against the same runs
// without them: same starts, nodes, planned starts, reasons and priorities. With the check on,
// every shortcut taken also does the work it skipped and counts a difference; the runs must
// take the shortcuts (else the comparison means little) and count none.
#include <catch2/catch.hpp>

#include <random>
#include <span>

#include "schedulers/slurm/model.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;
using floorsim::slurm::SlurmModel;

namespace {

std::vector<J> queueing_jobs(uint32_t seed, int n_jobs, int cluster_gpus) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<J> jobs;
  SimTime t = 0;
  for (int i = 0; i < n_jobs; ++i) {
    t += pick(0, 300);
    const int gpus = pick(0, 3) == 0 ? pick(1, cluster_gpus) : pick(1, std::max(1, cluster_gpus / 4));
    const SimTime limit = 60.0 * pick(2, 240);
    const SimTime runtime = std::max<SimTime>(1, limit * pick(5, 100) / 100.0);
    jobs.push_back({i + 1, t, runtime, limit, gpus, 0, "u" + std::to_string(pick(1, 6))});
  }
  return jobs;
}

// n jobs of few shapes: GPUs from `sizes` (at least 1), limits from `limits`, runtimes 20-100%
// of the limit, a submit every 0 to gap-1 s, four users.
std::vector<J> few_shape_jobs(std::mt19937& rng, int n, uint32_t gap, std::span<const int> sizes, std::span<const SimTime> limits) {
  std::vector<J> jobs;
  SimTime t = 0;
  for (int i = 0; i < n; ++i) {
    t += static_cast<SimTime>(rng() % gap);
    const SimTime limit = limits[rng() % limits.size()];
    jobs.push_back({i + 1, t, std::max<SimTime>(1, limit * static_cast<double>(20 + rng() % 81) / 100.0), limit,
                    std::max(1, sizes[rng() % sizes.size()]), 0, "u" + std::to_string(1 + rng() % 4)});
  }
  return jobs;
}

const SlurmModel& model_of(const Result& r) { return dynamic_cast<const SlurmModel&>(*r.sched); }

// Multifactor by age and fair-share, with this backfill window.
SlurmConfig fairshare_config(double bf_window_s) {
  SlurmConfig c;
  c.sched.bf_window_s = bf_window_s;
  c.prio.type = floorsim::slurm::PriorityType::Multifactor;
  c.prio.weight_age = 1000;
  c.prio.weight_fairshare = 10000;
  return c;
}

// A run with shortcuts against the plain one: every job's start, nodes, extra columns
// (priority, planned start, QOS, started_by) and reason.
void same_as_plain(const Result& fast, const Result& plain) {
  REQUIRE(fast.runs.size() == plain.runs.size());
  for (const auto& js : fast.wl.jobs) {
    INFO("job " << js.id);
    CHECK(fast.start(js.id) == plain.start(js.id));
    CHECK(fast.nodes(js.id) == plain.nodes(js.id));
    CHECK(fast.extras(js.id) == plain.extras(js.id));
    CHECK(fast.reason(js.id) == plain.reason(js.id));
  }
}

struct Runs {
  std::unique_ptr<Result> fast, plain;
};

// `jobs` under `c` with the shortcuts on (each taken one also checked) and off: the same starts,
// nodes, extra columns (priority, planned start, QOS, started_by), reasons and report.
Runs same_with_and_without(SlurmConfig c, const std::vector<J>& jobs, size_t nodes, int32_t gpus) {
  c.pass_shortcuts = true;
  c.check_pass_shortcuts = true;
  Runs r{run(c, jobs, nodes, gpus), nullptr};
  c.pass_shortcuts = false;
  c.check_pass_shortcuts = false;
  r.plain = run(c, jobs, nodes, gpus);
  same_as_plain(*r.fast, *r.plain);
  CHECK(r.fast->report == r.plain->report);
  return r;
}

}  // namespace

TEST_CASE("slurm: an unchanged queue is not sorted again, and sorting it would give the same order", "[slurm][shortcuts]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
    bool multifactor;
    double calc_period_s;
  };
  const Shape shapes[] = {
      {8, 1, false, 300},   // priority/basic
      {12, 4, true, 300},   // multifactor: epochs every PriorityCalcPeriod
      {13, 8, true, 60},    // epochs at every main pass
      {70, 1, true, 1e9},   // no epoch after the first: priorities fixed per job
  };
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, seed " << seed);
      SlurmConfig c;
      if (sh.multifactor) {
        c.prio.type = floorsim::slurm::PriorityType::Multifactor;
        c.prio.weight_age = 1000;
        c.prio.weight_jobsize = 1000;
        c.prio.weight_fairshare = 10000;
        c.prio.calc_period_s = sh.calc_period_s;
      }
      const auto jobs = queueing_jobs(seed * 6151 + static_cast<uint32_t>(sh.nodes), 90, static_cast<int>(sh.nodes) * sh.gpus);
      const auto [fast, plain] = same_with_and_without(c, jobs, sh.nodes, sh.gpus);
      const auto& wf = model_of(*fast).work_counts();
      const auto& wp = model_of(*plain).work_counts();
      CHECK(wf.sorts_skipped > 0);
      CHECK(wf.shortcut_differs == 0);
      CHECK(wp.sorts_skipped == 0);
      CHECK(wf.sorts + wf.sorts_skipped == wp.sorts);  // the same sorts asked for, some skipped
    }
}

// Backfill: a job shaped as one whose test, since the last start or planned start, found
// neither gets no test of its own. Few shapes and a short window, so that many tests plan nothing.
TEST_CASE("slurm: backfill skips a job shaped as one that just found no start and no planned start", "[slurm][shortcuts][backfill]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
    double bf_window_s;
  };
  const Shape shapes[] = {{10, 1, 3600}, {12, 4, 7200}, {70, 2, 3600}, {130, 8, 14400}};
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, seed " << seed);
      std::mt19937 rng(seed * 31 + static_cast<uint32_t>(sh.nodes));
      const int cap = static_cast<int>(sh.nodes) * sh.gpus;
      const int sizes[] = {1, 2, sh.gpus, cap / 4, cap / 2, cap};
      const SimTime limits[] = {1800, 7200, 14400};
      const auto jobs = few_shape_jobs(rng, 120, 200, sizes, limits);
      SlurmConfig c = fairshare_config(sh.bf_window_s);
      const auto [fast, plain] = same_with_and_without(c, jobs, sh.nodes, sh.gpus);
      const auto& wf = model_of(*fast).work_counts();
      CHECK(wf.bf_tests_skipped > 0);
      CHECK(wf.shortcut_differs == 0);
      CHECK(model_of(*plain).work_counts().bf_tests_skipped == 0);
      CHECK(fast->report.at("backfill_starts").get<int64_t>() > 0);
    }
}

// Backfill places a one-node job from the plan's level (one_node_bits: the first shortest run of
// candidates) where no candidate is short of a CPU; with the check on, select_nodes places it
// too and a different node counts. Mostly small jobs, so that most reservations are one-node.
TEST_CASE("slurm: backfill's one-node placement from the plan picks the node select_nodes picks", "[slurm][shortcuts][backfill]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
  };
  const Shape shapes[] = {{10, 1}, {12, 4}, {70, 2}, {130, 8}, {300, 8}};
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, seed " << seed);
      std::mt19937 rng(seed * 131 + static_cast<uint32_t>(sh.nodes));
      const int cap = static_cast<int>(sh.nodes) * sh.gpus;
      std::vector<J> jobs;
      SimTime t = 0;
      for (int i = 0; i < 150; ++i) {
        t += static_cast<SimTime>(rng() % 120);
        const SimTime limit = 60.0 * static_cast<double>(5 + rng() % 180);
        const int gpus = rng() % 5 == 0 ? 1 + static_cast<int>(rng() % static_cast<uint32_t>(cap)) : 1 + static_cast<int>(rng() % static_cast<uint32_t>(sh.gpus));
        jobs.push_back({i + 1, t, std::max<SimTime>(1, limit * static_cast<double>(10 + rng() % 91) / 100.0), limit, gpus, 0,
                        "u" + std::to_string(1 + rng() % 4)});
      }
      SlurmConfig c;
      c.prio.type = floorsim::slurm::PriorityType::Multifactor;
      c.prio.weight_age = 1000;
      c.prio.weight_jobsize = 1000;
      const auto [fast, plain] = same_with_and_without(c, jobs, sh.nodes, sh.gpus);
      const auto& wf = model_of(*fast).work_counts();
      CHECK(wf.one_node_picks > 0);
      CHECK(wf.shortcut_differs == 0);
      CHECK(model_of(*plain).work_counts().one_node_picks == 0);
    }
}

// Backfill takes at once the retries certain to follow a failed one (sure_retries: the next
// windows' masks within the failed one's, the answer or the sums after each later_start). With
// the check on they are only found, and the loop must reach the last one by retries; taken,
// the run is the plain one's. Windows both past every
// job's end (sums decide) and shorter than the limits (only the same mask and answer do).
TEST_CASE("slurm: backfill takes the retries certain to follow a failed one at once", "[slurm][shortcuts][backfill]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
    double bf_window_s;
  };
  const Shape shapes[] = {{10, 1, 86400}, {100, 1, 86400}, {100, 1, 4 * 3600}, {130, 8, 86400}, {300, 8, 6 * 3600}};
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, window " << sh.bf_window_s << " s, seed " << seed);
      const auto jobs = queueing_jobs(seed * 7919 + static_cast<uint32_t>(sh.nodes), 120, static_cast<int>(sh.nodes) * sh.gpus);
      SlurmConfig c = fairshare_config(sh.bf_window_s);
      const auto [checked, plain] = same_with_and_without(c, jobs, sh.nodes, sh.gpus);
      const auto& wc = model_of(*checked).work_counts();
      const auto& wp = model_of(*plain).work_counts();
      CHECK(wc.bf_sure_retries > 0);
      CHECK(wc.shortcut_differs == 0);
      CHECK(wp.bf_sure_retries == 0);
      c.pass_shortcuts = true;
      const auto taken = run(c, jobs, sh.nodes, sh.gpus);
      same_as_plain(*taken, *plain);
      CHECK(model_of(*taken).work_counts().bf_sure_retries > 0);
    }
}

// Backfill takes a will-run answer kept for the same mask and GPU count under the same plan
// (wrf_cache_: from the same job's last retry, and over 128 nodes from any test of the pass).
// With the check on, each kept answer is computed again and compared; taken, the run is the
// plain one's. Many jobs of few sizes, so that the tests of a pass meet the same windows.
TEST_CASE("slurm: backfill takes a will-run answer kept for the same mask under the same plan", "[slurm][shortcuts][backfill]") {
  struct Shape {
    size_t nodes;
    int32_t gpus;
    double bf_window_s;
  };
  const Shape shapes[] = {{10, 1, 86400}, {100, 1, 4 * 3600}, {130, 8, 86400}, {200, 4, 6 * 3600}, {300, 8, 2 * 3600}};
  for (const auto& sh : shapes)
    for (uint32_t seed = 1; seed <= 2; ++seed) {
      INFO("nodes " << sh.nodes << " x " << sh.gpus << " GPUs, window " << sh.bf_window_s << " s, seed " << seed);
      std::mt19937 rng(seed * 977 + static_cast<uint32_t>(sh.nodes));
      const int cap = static_cast<int>(sh.nodes) * sh.gpus;
      const int sizes[] = {1, sh.gpus, 2 * sh.gpus, cap / 8, cap / 3};
      const SimTime limits[] = {1800, 3600, 4 * 3600};
      const auto jobs = few_shape_jobs(rng, 120, 90, sizes, limits);
      SlurmConfig c = fairshare_config(sh.bf_window_s);
      const auto [checked, plain] = same_with_and_without(c, jobs, sh.nodes, sh.gpus);
      const auto& wc = model_of(*checked).work_counts();
      CHECK(wc.bf_answers_kept > 0);
      CHECK(wc.shortcut_differs == 0);
      CHECK(model_of(*plain).work_counts().bf_answers_kept == 0);
      c.pass_shortcuts = true;
      const auto taken = run(c, jobs, sh.nodes, sh.gpus);
      same_as_plain(*taken, *plain);
      CHECK(model_of(*taken).work_counts().bf_answers_kept > 0);
    }
}
