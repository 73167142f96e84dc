// Node selection as select/cons_tres does it without a topology plugin (22.05 job_test.c
// _eval_nodes_consec): lowest Weight, then the first large-enough set of consecutive nodes,
// replaced by a tighter one (fewer available CPUs); inside it the busiest node for a one-node job.
#include <catch2/catch.hpp>

#include <numeric>

#include "schedulers/slurm/select.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SelectInput;
using floorsim::slurm::SlurmConfig;

namespace {
std::vector<floorsim::NodeShare> pick(int32_t gpus, int32_t nodes, int32_t cpn, std::vector<int32_t> free, std::vector<int32_t> cpus,
                                      std::vector<int32_t> weight = {}) {
  const size_t nn = free.size();
  if (weight.empty()) weight.assign(nn, 1);
  std::vector<uint8_t> allowed(nn, 1);
  std::vector<floorsim::NodeIdx> order(nn);
  std::iota(order.begin(), order.end(), floorsim::NodeIdx{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return weight[a] < weight[b]; });
  floorsim::JobSpec js;
  js.gpus = gpus;
  js.nodes = nodes;
  std::vector<floorsim::NodeShare> out;
  const SelectInput in{free, cpus, cpn, allowed, weight, 8};
  if (!floorsim::slurm::select_nodes(js, in, order, out)) out.clear();
  return out;
}
std::vector<uint32_t> nodes_of(const std::vector<floorsim::NodeShare>& s) {
  std::vector<uint32_t> v;
  for (const auto& x : s) v.push_back(x.node);
  return v;
}
}  // namespace

TEST_CASE("slurm select: cons_tres best fit, table of rules", "[slurm][select]") {
  struct Row {
    const char* rule;
    int32_t gpus, nodes, cpus_per_node;
    std::vector<int32_t> free, cpus, weight;
    std::vector<uint32_t> want;
  };
  const std::vector<int32_t> c8(6, 8);
  const std::vector<Row> rows = {
      {"one run of nodes with room, CPUs to spare: every node ties, the first", 2, 0, 1, {6, 2, 2, 8}, {7, 5, 6, 8}, {}, {0}},
      {"a full node splits the runs: the smallest run with room wins", 2, 0, 1, {8, 8, 0, 6}, c8, {}, {3}},
      {"equally small runs: the first", 1, 0, 1, {8, 0, 8, 0, 8}, c8, {}, {0}},
      {"a node short of CPUs for the job's tasks is the tightest in its run", 1, 0, 4, {8, 8, 8, 8}, {8, 2, 8, 8}, {}, {1}},
      {"nodes without the per-node GPUs are not candidates", 4, 0, 1, {3, 4, 8, 8}, c8, {}, {1}},
      {"lowest Weight first", 1, 0, 1, {8, 8, 8, 8}, c8, {2, 1, 1, 1}, {1}},
      {"a Weight change ends a run", 1, 0, 1, {8, 8, 8, 8}, c8, {1, 1, 2, 1}, {3}},
      {"gang job: the first run holding N nodes, its nodes in order", 8, 2, 1, {8, 0, 8, 8, 8}, c8, {}, {2, 3}},
      {"gang job: a smaller run holding N nodes", 8, 2, 1, {8, 8, 8, 0, 8, 8}, c8, {}, {4, 5}},
      {"gang job: no run holds N nodes: the biggest first, then the next", 6, 3, 1, {2, 0, 2, 2, 0, 8}, c8, {}, {0, 2, 3}},
      {"no single node holds a job without a node count: spread in order", 12, 0, 1, {8, 2, 8, 0}, c8, {}, {0, 1, 2}},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    std::vector<int32_t> cpus(r.cpus.begin(), r.cpus.begin() + static_cast<std::ptrdiff_t>(r.free.size()));
    CHECK(nodes_of(pick(r.gpus, r.nodes, r.cpus_per_node, r.free, cpus, r.weight)) == r.want);
  }
}

TEST_CASE("slurm select: the model takes the smallest run of nodes with room, as slurmctld 22.05 did", "[slurm][select]") {
  // tests/oracle/workloads/holes.tsv: n001 and n002 free up at 40 s while n003 is full and n004
  // holds a 2-GPU job. Job 5 (2 GPUs, 70 s) goes to n004, the smaller run; first fit took n001.
  SlurmConfig c;
  c.sched.batch_sched_delay_s = 0;
  auto r = run(c, {{1, 10, 40, 120, 8}, {2, 11, 40, 120, 8}, {3, 12, 200, 300, 8}, {4, 13, 200, 300, 2}, {5, 70, 60, 180, 2}});
  CHECK(r->nodes(3) == std::vector<std::string>{"n003"});
  CHECK(r->nodes(4) == std::vector<std::string>{"n004"});
  CHECK(r->nodes(5) == std::vector<std::string>{"n004"});
}
