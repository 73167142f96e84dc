#pragma once
// Node selection as select/cons_tres does it without a topology plugin (22.05 job_test.c
// _eval_nodes_consec): among the nodes that can take the job's per-node share, sets of
// consecutive nodes (in node table order, split where the node Weight changes) are compared:
// the lowest Weight first, then the first set large enough, replaced by any later one that is
// large enough with fewer available CPUs (the tightest fit). A node's available CPUs are those
// the job could use there: its free CPUs, at most the CPUs of the job's tasks on the node (one
// CPU for the one-task jobs of floorsim), so with CPUs to spare the tightest set is the one of
// fewest nodes: the smallest run of consecutive nodes with room. A one-node job then takes the
// node of that set with the fewest available CPUs, the first of equals; a multi-node job takes
// the set's nodes in order, moving on to the next best set while it needs more. Recorded on a
// live slurmctld 22.05 (tests/oracle/workloads/bestfit.tsv, holes.tsv).
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/job_state.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm {

struct SelectInput {
  std::span<const int32_t> free_gpus;  // by node (0 where down)
  std::span<const int32_t> free_cpus;  // by node: free CPUs
  int32_t job_cpus_per_node = 1;       // CPUs the job's tasks use on a node (caps free_cpus)
  std::span<const uint8_t> allowed;    // by node
  std::span<const int32_t> weight;     // by node: slurm.conf Weight
  int32_t max_node_gpus = 0;
};

// Writes the placement into `out` (node order). Returns false, `out` empty, when the job does not
// fit. A job without a node count (nodes 0) that no single node can hold is spread greedily in
// Weight then node order, as floorsim's first fit does (slurmctld would need --gpus per job).
bool select_nodes(const JobSpec& job, const SelectInput& in, std::span<const NodeIdx> weight_order, std::vector<NodeShare>& out);

}  // namespace floorsim::slurm
