#pragma once
// Topology-aware placement of the slurm model (topology.html): topology/tree (lowest
// switch that covers the job, best fit on its leaves, --switches) and topology/block (smallest
// block level that fits, best fit within, --segment). Pure functions over a flat tree and a
// per-node free-GPU vector, like schedulers/common/placement.hpp; the caller owns every buffer.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/core/job_state.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm::topo {

inline constexpr uint32_t kNone = UINT32_MAX;

// The nodes of each group (leaf switch or base block), CSR, each group's nodes in a given node
// order (slurm.conf Weight, then index): placement takes a group's nodes in this order.
struct GroupNodes {
  std::vector<uint32_t> off;  // group g: nodes[off[g]..off[g+1])
  std::vector<NodeIdx> nodes;
};
GroupNodes group_nodes(std::span<const uint32_t> group_of_node, size_t groups, std::span<const NodeIdx> order);

// A switch tree, flat. Leaves (level 0) hold nodes; upper switches hold switches. A switch's
// level is 1 + the highest level of its children (as switch_record_table's switch_level).
struct Tree {
  std::vector<std::string> names;       // by switch
  std::vector<uint32_t> parent;         // by switch; kNone = a root
  std::vector<uint32_t> level;          // by switch; 0 = leaf
  std::vector<uint32_t> leaf_of_node;   // by node: its leaf switch
  std::vector<uint32_t> leaves_off;     // CSR: leaves under switch s are leaves[leaves_off[s]..leaves_off[s+1])
  std::vector<uint32_t> leaves;
  uint32_t max_level = 0;
  GroupNodes members;                   // by switch (leaves only hold nodes); node index order
  std::vector<int32_t> node_weight;     // slurm.conf Weight by node; empty = all equal
  std::vector<NodeIdx> by_weight;       // nodes by (Weight, index) when node_weight is set
  size_t switches() const { return names.size(); }
  bool empty() const { return names.empty(); }
};

struct SwitchDef {
  std::string name;
  std::vector<std::string> nodes;     // a leaf switch's nodes
  std::vector<std::string> switches;  // an upper switch's children
};

// Builds the tree from topology.conf-style definitions. Returns "" or an error text (unknown
// node or switch name, a node under two leaves or under none, a switch with two parents, a
// cycle, a switch with both nodes and switches). With an error about one definition, *culprit
// (when given) is its index, so the caller can name the line it came from.
// With `unswitched` given, a node under no leaf switch is no error: such nodes are listed there
// and put on one extra leaf switch, kUnswitched, under no other (slurmctld's topology/tree warns
// "switches lack access to N nodes" and its selection never picks them: the caller keeps them
// out of service).
std::string build_tree(const std::vector<SwitchDef>& defs, std::span<const std::string> node_names, Tree& out,
                       size_t* culprit = nullptr, std::vector<uint32_t>* unswitched = nullptr);
inline constexpr const char* kUnswitched = "(no switch)";

// The tree of a cluster's leaves (ClusterConfig::node_leaf), with one root above them when
// there are several: what a fabric's edge switches give without a topology.conf.
Tree tree_from_leaves(std::span<const uint32_t> node_leaf, std::span<const std::string> leaf_names);

// Block topology: base blocks and the aggregation levels (topology/block, topology.conf(5)).
struct Blocks {
  std::vector<std::string> names;       // base blocks
  std::vector<uint32_t> block_of_node;  // by node: its base block
  std::vector<uint32_t> level_blocks;   // base blocks per aggregated block at each level: 1, 2, 4, ...
  std::vector<uint32_t> level_max_nodes;  // nodes of the largest aggregated block at each level
  GroupNodes members;                   // by base block; node index order
  std::vector<int32_t> node_weight;     // as Tree::node_weight
  std::vector<NodeIdx> by_weight;
  size_t blocks() const { return names.size(); }
};

// Builds base blocks from BlockName= lines and checks BlockSizes (in nodes: the first is the
// base block size, each later one a power-of-2 multiple, within the block count). Empty sizes:
// the default 1,2,4,8,16 base blocks, as far as the block count goes. Returns "" or an error.
// *culprit as for build_tree.
std::string build_blocks(const std::vector<SwitchDef>& defs, std::span<const std::string> node_names,
                         std::span<const int64_t> block_sizes_nodes, Blocks& out, size_t* culprit = nullptr);

// Reusable buffers of the placement functions (no allocation per call once warm).
struct Scratch {
  std::vector<int64_t> metric;     // by switch or block
  std::vector<NodeIdx> order;      // candidate nodes, in placement order
  std::vector<uint32_t> chosen;    // leaves / blocks taken, in order
  std::vector<uint32_t> cands;     // candidate blocks
  std::vector<uint8_t> taken;      // by leaf / block
  std::vector<uint8_t> seen;       // by leaf / block (counting)
  std::vector<int32_t> free2;      // by node: free GPUs while segments are placed
  std::vector<NodeShare> part;
  std::vector<uint8_t> allowed2;   // by node: the lowest-weight candidates
};

// What a placement decided about topology.
struct Outcome {
  uint32_t spans = 0;         // leaves (tree) or base blocks (block) the placement touches
  bool switch_wait = false;   // refused only because it needs more leaves than --switches allows
};

// topology/tree (eval_nodes_topo): the lowest-level switch whose nodes can hold the job, the
// one with the fewest usable resources among those of that level (best fit); within it the
// leaves best-fit: the smallest leaf that holds the rest alone, else the largest, until it fits.
// Nodes within a leaf go in Tree::members order (set it from slurm.conf Weight with group_nodes). A job never spans switches without a
// common parent. With node weights, only the lowest Weight tiers that together can hold the job
// are candidates (eval_nodes_topo's node weight list: Weight overrides topology).
// `max_leaves` > 0 (--switches): a placement over more leaves is refused
// (Outcome::switch_wait) unless `best_effort` (the wait is over). `out` lists shares in node
// order. Returns false with `out` empty when it does not fit.
bool place_tree(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                const Tree& tree, uint32_t max_leaves, bool best_effort,
                int32_t max_node_gpus, Scratch& s, std::vector<NodeShare>& out, Outcome& oc);

// topology/block (eval_nodes_block): the job's node count picks the smallest block level whose
// block holds that many nodes; the job goes strictly inside one block of that level, the one
// with the fewest free usable nodes that suffice (best fit); larger than the largest level:
// anywhere. `segment` > 0 (--segment): the job is split into node_count/segment gangs, each
// placed separately inside one base block (best fit), possibly in different higher blocks.
// The caller checks that segment divides the node count.
bool place_block(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                 const Blocks& blocks, int32_t segment, int32_t max_node_gpus,
                 Scratch& s, std::vector<NodeShare>& out, Outcome& oc);

// The node count a job asks for: JobSpec::nodes, or the fewest nodes of max_node_gpus that
// hold its GPUs when it gives none.
inline int32_t job_nodes(const JobSpec& job, int32_t max_node_gpus) {
  if (job.nodes > 0) return job.nodes;
  const int32_t m = max_node_gpus > 0 ? max_node_gpus : 1;
  const int32_t n = (job.gpus + m - 1) / m;
  return n > 0 ? n : 1;
}

// Fragmentation index at one instant: 1 - (largest free GPUs under one leaf or base block) /
// (free GPUs in all), over up nodes (`free` holds 0 for down ones); 0 when nothing is free.
double fragmentation(std::span<const int32_t> free, std::span<const uint32_t> group_of_node, size_t groups,
                     std::vector<int64_t>& scratch);

}  // namespace floorsim::slurm::topo
