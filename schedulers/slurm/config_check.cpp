// Checks across the configuration files of the slurm model, once they are all read: what one
// file names that another (or the cluster) must define. The model makes the same checks when it
// is built, but reports them against the scenario; here each is reported against the file and
// line that has the problem.
#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "schedulers/slurm/config.hpp"
#include "schedulers/slurm/topology.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

namespace {

[[noreturn]] void bad_at(const Origin& o, const std::string& msg) { throw InputError(o.file, std::to_string(o.line), msg); }

void check_topology_conf(const SlurmConfig& cfg, std::span<const std::string> node_names) {
  const bool tree = cfg.topology == "tree", block = cfg.topology == "block" && cfg.version != Version::V22_05;
  std::vector<topo::SwitchDef> defs;
  std::vector<const Origin*> from;
  if (tree)
    for (const auto& w : cfg.switches) defs.push_back({w.name, w.nodes, w.switches}), from.push_back(&w.origin);
  if (block)
    for (const auto& b : cfg.blocks) defs.push_back({b.name, b.nodes, {}}), from.push_back(&b.origin);
  const auto read_from = std::find_if(from.begin(), from.end(), [](const Origin* o) { return o->line > 0; });
  if (read_from == from.end()) return;  // nothing from topology.conf: the model checks the rest
  size_t culprit = defs.size();
  std::string err;
  if (tree) {
    topo::Tree t;
    std::vector<uint32_t> unswitched;  // warned when the model is built (placement.cpp)
    err = topo::build_tree(defs, node_names, t, &culprit, &unswitched);
  } else {
    topo::Blocks b;
    err = topo::build_blocks(defs, node_names, cfg.block_sizes, b, &culprit);
  }
  if (err.empty()) return;
  const char* what = tree ? "topology/tree: " : "topology/block: ";
  if (culprit < defs.size()) {
    if (from[culprit]->line > 0) bad_at(*from[culprit], what + err);
    return;  // a switch or block of the scenario: the model names its JSON pointer
  }
  // Not about one definition: with blocks, about BlockSizes; with a tree, a node under no switch.
  if (block && cfg.block_sizes_origin.line > 0) bad_at(cfg.block_sizes_origin, what + err);
  if (std::all_of(from.begin(), from.end(), [&](const Origin* o) { return o->file == (*read_from)->file; }))
    throw InputError((*read_from)->file, "", what + err);
}

}  // namespace

void check_config_files(const SlurmConfig& cfg, std::span<const std::string> node_names) {
  std::unordered_set<std::string> nodes(node_names.begin(), node_names.end()), qos{"normal"};  // Slurm creates "normal"
  for (const auto& q : cfg.qos) qos.insert(q.name);
  // The messages are the model's, which reports the same problems of the scenario's definitions.
  for (const auto& p : cfg.partitions) {
    if (p.origin.line == 0) continue;
    for (const auto& n : p.nodes)
      if (!nodes.count(n))
        bad_at(p.origin, fmt::format("partition {} lists node {} which the cluster lacks; expected node names of the cluster", p.name, n));
    if (!p.qos.empty() && !qos.count(p.qos))
      bad_at(p.origin, fmt::format("partition {} has QOS={} which is not defined; expected a QOS from the sacctmgr dump", p.name, p.qos));
  }
  for (const auto& q : cfg.qos) {
    if (q.origin.line == 0) continue;
    for (const auto& name : q.preempt)
      if (!qos.count(name)) bad_at(q.origin, fmt::format("QOS {} preempts unknown QOS '{}'; expected a defined QOS", q.name, name));
  }
  for (const auto& u : cfg.users)
    if (u.origin.line > 0 && !u.default_qos.empty() && !qos.count(u.default_qos))
      bad_at(u.origin, fmt::format("user {} has DefaultQOS={} which is not defined; expected a defined QOS", u.name, u.default_qos));
  check_topology_conf(cfg, node_names);
}

}  // namespace floorsim::slurm
