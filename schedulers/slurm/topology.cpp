#include "schedulers/slurm/topology.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"

namespace floorsim::slurm::topo {
namespace {

// What a node offers the job in the best-fit comparisons: its free GPUs for a job without a
// node count, 1 if it can take a gang share (gpus/nodes) for a job with one. Slurm compares
// CPUs and node counts (eval_nodes_topo's switch_cpus / switch_node_cnt); GPUs are this
// model's resource.
struct Metric {
  int32_t base = 0;  // 0: GPUs; > 0: nodes with at least this many free
  int64_t need = 0;
  Metric(const JobSpec& job) {
    if (job.nodes > 0) {
      base = std::max(1, job.gpus / job.nodes);
      need = job.nodes;
    } else {
      need = job.gpus;
    }
  }
  int64_t of(int32_t free) const { return base > 0 ? (free >= base ? 1 : 0) : std::max(0, free); }
};

void sort_by_node(std::vector<NodeShare>& out) {
  std::sort(out.begin(), out.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
}

uint32_t count_groups(std::span<const NodeShare> p, std::span<const uint32_t> group_of_node, std::vector<uint8_t>& seen) {
  uint32_t c = 0;
  for (const auto& sh : p) {
    const uint32_t g = group_of_node[sh.node];
    if (g == kNone) continue;
    if (g >= seen.size()) seen.resize(g + 1, 0);
    if (!seen[g]) seen[g] = 1, ++c;
  }
  for (const auto& sh : p)
    if (group_of_node[sh.node] != kNone) seen[group_of_node[sh.node]] = 0;
  return c;
}

// The allowed nodes of the groups in `chosen` (in that order), each group's in members order.
void chosen_order(std::span<const uint32_t> chosen, const GroupNodes& members, std::span<const uint8_t> allowed, Scratch& s) {
  s.order.clear();
  for (uint32_t g : chosen)
    for (uint32_t k = members.off[g]; k < members.off[g + 1]; ++k)
      if (const NodeIdx n = members.nodes[k]; allowed[n]) s.order.push_back(n);
}

// placement::first_fit's rules over the candidate list s.order only (first node that holds a
// job without a node count, else spread in order; a gang: even shares, the first gpus%nodes
// one more), so a check costs the candidates, not the cluster.
bool fits_in(const JobSpec& job, std::span<const int32_t> free, Scratch& s, std::vector<NodeShare>& out,
             int32_t max_node_gpus) {
  out.clear();
  if (job.gpus <= 0 || job.nodes > job.gpus) return false;
  if (job.nodes <= 0) {
    if (max_node_gpus <= 0 || job.gpus <= max_node_gpus)
      for (NodeIdx i : s.order)
        if (free[i] >= job.gpus) {
          out.push_back({i, job.gpus});
          return true;
        }
    int32_t need = job.gpus;
    for (NodeIdx i : s.order) {
      if (need <= 0) break;
      if (free[i] <= 0) continue;
      const int32_t g = std::min(free[i], need);
      out.push_back({i, g});
      need -= g;
    }
    if (need > 0) out.clear();
    return need <= 0;
  }
  const int32_t base = job.gpus / job.nodes;
  int32_t big = job.gpus % job.nodes, small = job.nodes - big;
  for (NodeIdx i : s.order) {
    if (big <= 0 && small <= 0) break;
    if (big > 0 && free[i] >= base + 1) {
      out.push_back({i, base + 1});
      --big;
    } else if (small > 0 && free[i] >= base) {
      out.push_back({i, base});
      --small;
    }
  }
  if (big > 0 || small > 0) {
    out.clear();
    return false;
  }
  return true;
}

// eval_nodes_topo walks nodes by increasing Weight and stops at the first weight tier after
// which the nodes taken so far can hold the job: only those are candidates, so a lower Weight
// wins over a better topology (eval_nodes_topo: node Weight comes first). `allowed` itself when no
// weights are set or only all tiers together hold the job.
std::span<const uint8_t> lowest_weights(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                                        std::span<const int32_t> weight, std::span<const NodeIdx> by_weight,
                                        int32_t max_node_gpus, Scratch& s) {
  if (weight.empty()) return allowed;
  s.allowed2.assign(allowed.size(), 0);
  s.order.clear();
  for (size_t k = 0; k < by_weight.size();) {
    const int32_t w = weight[by_weight[k]];
    for (; k < by_weight.size() && weight[by_weight[k]] == w; ++k)
      if (const NodeIdx n = by_weight[k]; allowed[n]) s.allowed2[n] = 1, s.order.push_back(n);
    if (k < by_weight.size() && fits_in(job, free, s, s.part, max_node_gpus)) return s.allowed2;
  }
  return allowed;
}

// Best fit over groups (leaves or base blocks), as eval_nodes_topo picks leaves: the smallest
// group that holds the rest alone, else the largest; repeated until the chosen groups hold the
// job. `metric` is by group. Returns the placement in `out`.
bool greedy_groups(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                   const GroupNodes& members, std::span<const uint32_t> candidates, std::span<const int64_t> metric, int64_t need,
                   int32_t max_node_gpus, Scratch& s, std::vector<NodeShare>& out) {
  s.chosen.clear();
  for (uint32_t g : candidates) {
    if (g >= s.taken.size()) s.taken.resize(g + 1, 0);
    s.taken[g] = 0;
  }
  int64_t rem = need;
  for (;;) {
    uint32_t best = kNone;
    bool best_fit = false;
    for (uint32_t g : candidates) {
      if (s.taken[g] || metric[g] <= 0) continue;
      const bool fit = metric[g] >= rem;
      if (best == kNone || (!best_fit && fit) || (fit && metric[g] < metric[best]) ||
          (!fit && !best_fit && metric[g] > metric[best])) {
        best = g;
        best_fit = fit;
      }
    }
    if (best == kNone) break;
    s.taken[best] = 1;
    s.chosen.push_back(best);
    rem -= metric[best];
    if (rem <= 0) {
      chosen_order(s.chosen, members, allowed, s);
      if (fits_in(job, free, s, out, max_node_gpus)) return true;
    }
  }
  out.clear();
  return false;
}

}  // namespace

GroupNodes group_nodes(std::span<const uint32_t> group_of_node, size_t groups, std::span<const NodeIdx> order) {
  GroupNodes g;
  g.off.assign(groups + 1, 0);
  for (NodeIdx n : order)
    if (group_of_node[n] != kNone) ++g.off[group_of_node[n] + 1];
  for (size_t i = 0; i < groups; ++i) g.off[i + 1] += g.off[i];
  g.nodes.resize(g.off[groups]);
  std::vector<uint32_t> at(g.off.begin(), g.off.end() - 1);
  for (NodeIdx n : order)
    if (group_of_node[n] != kNone) g.nodes[at[group_of_node[n]]++] = n;
  return g;
}

namespace {
std::vector<NodeIdx> identity_order(size_t n) {
  std::vector<NodeIdx> o(n);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<NodeIdx>(i);
  return o;
}

std::map<std::string, uint32_t> index_of(std::span<const std::string> node_names) {
  std::map<std::string, uint32_t> ix;
  for (size_t i = 0; i < node_names.size(); ++i) ix[node_names[i]] = static_cast<uint32_t>(i);
  return ix;
}

// Gives the listed nodes to owner i (a leaf switch or a base block, `kind`); an unknown node,
// or one another owner has (`relation`: "under two leaf switches"), is an error text.
std::string claim_nodes(const char* kind, const char* relation, uint32_t i, const SwitchDef& def,
                        const std::map<std::string, uint32_t>& node_index, std::span<const std::string> owner_names,
                        std::vector<uint32_t>& owner_of) {
  for (const auto& n : def.nodes) {
    auto it = node_index.find(n);
    if (it == node_index.end())
      return fmt::format("{} {} lists node {} which the cluster lacks; expected node names of the cluster", kind, def.name, n);
    if (owner_of[it->second] != kNone)
      return fmt::format("node {} is {} ({} and {}); expected one", n, relation, owner_names[owner_of[it->second]], def.name);
    owner_of[it->second] = i;
  }
  return {};
}
}  // namespace

std::string build_tree(const std::vector<SwitchDef>& given, std::span<const std::string> node_names, Tree& t,
                       size_t* culprit, std::vector<uint32_t>* unswitched) {
  t = Tree{};
  std::vector<SwitchDef> with_extra;
  if (unswitched) {
    unswitched->clear();
    std::set<std::string> on_leaf;
    for (const auto& d : given) on_leaf.insert(d.nodes.begin(), d.nodes.end());
    SwitchDef extra{kUnswitched, {}, {}};
    for (size_t n = 0; n < node_names.size(); ++n)
      if (!on_leaf.count(node_names[n])) extra.nodes.push_back(node_names[n]), unswitched->push_back(static_cast<uint32_t>(n));
    if (!extra.nodes.empty()) {
      with_extra = given;
      with_extra.push_back(std::move(extra));
    }
  }
  const std::vector<SwitchDef>& defs = with_extra.empty() ? given : with_extra;
  auto at = [culprit](size_t i, std::string err) {
    if (culprit) *culprit = i;
    return err;
  };
  const size_t ns = defs.size();
  std::map<std::string, uint32_t> sw_index;
  const auto node_index = index_of(node_names);
  for (size_t i = 0; i < ns; ++i) {
    if (!sw_index.emplace(defs[i].name, static_cast<uint32_t>(i)).second)
      return at(i, fmt::format("switch {} is defined twice; expected unique SwitchName values", defs[i].name));
    if (!defs[i].nodes.empty() && !defs[i].switches.empty())
      return at(i, fmt::format("switch {} has both Nodes= and Switches=; expected a leaf (Nodes=) or an upper switch (Switches=)", defs[i].name));
  }
  t.names.resize(ns);
  t.parent.assign(ns, kNone);
  t.level.assign(ns, 0);
  t.leaf_of_node.assign(node_names.size(), kNone);
  for (size_t i = 0; i < ns; ++i) {
    t.names[i] = defs[i].name;
    if (auto err = claim_nodes("switch", "under two leaf switches", static_cast<uint32_t>(i), defs[i], node_index, t.names, t.leaf_of_node);
        !err.empty())
      return at(i, err);
    for (const auto& c : defs[i].switches) {
      auto it = sw_index.find(c);
      if (it == sw_index.end())
        return at(i, fmt::format("switch {} lists switch {} which is not defined; expected a SwitchName", defs[i].name, c));
      if (t.parent[it->second] != kNone)
        return at(i, fmt::format("switch {} has two parents ({} and {}); expected a tree", c, t.names[t.parent[it->second]], defs[i].name));
      if (it->second == i) return at(i, fmt::format("switch {} lists itself; expected a tree", c));
      t.parent[it->second] = static_cast<uint32_t>(i);
    }
  }
  // "All nodes in the network must be connected to at least one switch" (topology.conf(5)).
  for (size_t n = 0; n < node_names.size(); ++n)
    if (t.leaf_of_node[n] == kNone)
      return fmt::format("node {} is under no leaf switch; expected every node in some switch's Nodes=", node_names[n]);
  // Levels: a leaf is 0, a switch 1 + its highest child (a walk up from every leaf; a cycle
  // shows as a walk longer than the switch count).
  for (size_t i = 0; i < ns; ++i) {
    if (!defs[i].switches.empty()) continue;
    uint32_t lvl = 0, s = static_cast<uint32_t>(i);
    for (size_t steps = 0; t.parent[s] != kNone; ++steps) {
      if (steps > ns) return at(s, fmt::format("switch {} is in a cycle; expected a tree", t.names[s]));
      s = t.parent[s];
      ++lvl;
      t.level[s] = std::max(t.level[s], lvl);
    }
  }
  for (size_t i = 0; i < ns; ++i)
    if (!defs[i].switches.empty() && t.level[i] == 0)
      return at(i, fmt::format("switch {} has no node below it; expected leaf switches under it", t.names[i]));
  // Leaves under every switch (CSR), in switch index order.
  std::vector<std::vector<uint32_t>> under(ns);
  for (size_t i = 0; i < ns; ++i) {
    if (!defs[i].switches.empty()) continue;
    for (uint32_t s = static_cast<uint32_t>(i); s != kNone; s = t.parent[s]) under[s].push_back(static_cast<uint32_t>(i));
  }
  t.leaves_off.assign(ns + 1, 0);
  for (size_t i = 0; i < ns; ++i) {
    t.leaves_off[i] = static_cast<uint32_t>(t.leaves.size());
    t.leaves.insert(t.leaves.end(), under[i].begin(), under[i].end());
  }
  t.leaves_off[ns] = static_cast<uint32_t>(t.leaves.size());
  for (auto l : t.level) t.max_level = std::max(t.max_level, l);
  t.members = group_nodes(t.leaf_of_node, ns, identity_order(node_names.size()));
  return "";
}

Tree tree_from_leaves(std::span<const uint32_t> node_leaf, std::span<const std::string> leaf_names) {
  std::vector<SwitchDef> defs(leaf_names.size());
  std::vector<std::string> names(node_leaf.size());
  for (size_t n = 0; n < node_leaf.size(); ++n) names[n] = std::to_string(n);
  for (size_t l = 0; l < leaf_names.size(); ++l) defs[l].name = leaf_names[l];
  for (size_t n = 0; n < node_leaf.size(); ++n) defs[node_leaf[n]].nodes.push_back(names[n]);
  // Leaves without nodes would be switches with nothing below: leave them out.
  std::vector<SwitchDef> used;
  for (auto& d : defs)
    if (!d.nodes.empty()) used.push_back(std::move(d));
  if (used.size() > 1) {
    SwitchDef root;
    root.name = "root";
    for (const auto& d : used) root.switches.push_back(d.name);
    used.push_back(std::move(root));
  }
  Tree t;
  build_tree(used, names, t);  // cannot fail: every node is on exactly one leaf
  return t;
}

std::string build_blocks(const std::vector<SwitchDef>& defs, std::span<const std::string> node_names,
                         std::span<const int64_t> sizes, Blocks& b, size_t* culprit) {
  b = Blocks{};
  auto at = [culprit](size_t i, std::string err) {
    if (culprit) *culprit = i;
    return err;
  };
  const auto node_index = index_of(node_names);
  b.block_of_node.assign(node_names.size(), kNone);
  size_t base_nodes = 0;
  for (size_t i = 0; i < defs.size(); ++i) {
    for (size_t k = 0; k < i; ++k)
      if (defs[k].name == defs[i].name) return at(i, fmt::format("block {} is defined twice; expected unique BlockName values", defs[i].name));
    b.names.push_back(defs[i].name);
    if (defs[i].nodes.empty()) return at(i, fmt::format("block {} has no nodes; expected Nodes= with at least one node", defs[i].name));
    if (auto err = claim_nodes("block", "in two blocks", static_cast<uint32_t>(i), defs[i], node_index, b.names, b.block_of_node);
        !err.empty())
      return at(i, err);
    base_nodes = std::max(base_nodes, defs[i].nodes.size());
  }
  if (b.names.empty()) return "topology/block without blocks; expected BlockName= lines (or blocks in the scheduler block)";
  // Nodes outside every block are not usable by topology/block jobs (block_of_node kNone).
  const size_t nb = b.names.size();
  b.members = group_nodes(b.block_of_node, nb, identity_order(node_names.size()));
  // The largest aggregated block of each level, in nodes (static: a job's level needs no free
  // counts).
  auto level_sizes = [&b, nb] {
    for (uint32_t lb : b.level_blocks) {
      uint32_t best = 0;
      for (uint32_t g0 = 0; g0 < nb; g0 += lb)
        best = std::max(best, b.members.off[std::min<uint32_t>(g0 + lb, static_cast<uint32_t>(nb))] - b.members.off[g0]);
      b.level_max_nodes.push_back(best);
    }
  };
  if (sizes.empty()) {
    for (size_t m = 1; m <= 16 && m <= nb; m *= 2) b.level_blocks.push_back(static_cast<uint32_t>(m));
    level_sizes();
    return "";
  }
  // BlockSizes: "the first is the base block size ... each larger size must be a power of 2
  // multiple of the base" (topology.conf(5), 23.11+), in nodes.
  if (static_cast<size_t>(sizes[0]) != base_nodes)
    return fmt::format("BlockSizes starts with {} but the base blocks hold {} nodes; expected the base block size first", sizes[0], base_nodes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t m = sizes[i] / static_cast<int64_t>(base_nodes);
    if (sizes[i] <= 0 || sizes[i] % static_cast<int64_t>(base_nodes) != 0 || (m & (m - 1)) != 0)
      return fmt::format("BlockSizes value {} is not a power-of-2 multiple of the base block size {}; expected e.g. {},{}", sizes[i], base_nodes, base_nodes, 2 * base_nodes);
    if (i > 0 && sizes[i] <= sizes[i - 1]) return fmt::format("BlockSizes {} after {}; expected increasing sizes", sizes[i], sizes[i - 1]);
    if (static_cast<size_t>(m) > nb) return fmt::format("BlockSizes value {} needs {} base blocks but there are {}; expected at most the blocks given", sizes[i], m, nb);
    b.level_blocks.push_back(static_cast<uint32_t>(m));
  }
  level_sizes();
  return "";
}

namespace {

bool tree_core(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
               const Tree& t, uint32_t max_leaves, bool best_effort,
               int32_t max_node_gpus, Scratch& s, std::vector<NodeShare>& out, Outcome& oc) {
  oc = Outcome{};
  out.clear();
  if (job.gpus <= 0 || job.nodes > job.gpus || t.empty()) return false;
  const size_t ns = t.switches(), nn = free.size();
  allowed = lowest_weights(job, free, allowed, t.node_weight, t.by_weight, max_node_gpus, s);
  const Metric M(job);
  s.metric.assign(ns, 0);
  // Per leaf, then each leaf's sum up its ancestors (cheaper than walking up from every node).
  for (size_t n = 0; n < nn; ++n)
    if (allowed[n]) s.metric[t.leaf_of_node[n]] += M.of(free[n]);
  for (uint32_t l = 0; l < ns; ++l)
    if (t.level[l] == 0 && s.metric[l] > 0)
      for (uint32_t w = t.parent[l]; w != kNone; w = t.parent[w]) s.metric[w] += s.metric[l];
  // The lowest level with a switch that holds the job; at that level the best fit (fewest
  // usable resources). A switch's nodes are those of its leaves.
  uint32_t top = kNone;
  for (uint32_t lvl = 0; lvl <= t.max_level && top == kNone; ++lvl)
    for (uint32_t w = 0; w < ns; ++w) {
      if (t.level[w] != lvl || s.metric[w] < M.need) continue;
      if (top != kNone && s.metric[w] >= s.metric[top]) continue;
      chosen_order(std::span<const uint32_t>(t.leaves).subspan(t.leaves_off[w], t.leaves_off[w + 1] - t.leaves_off[w]),
                   t.members, allowed, s);
      if (fits_in(job, free, s, s.part, max_node_gpus)) top = w;
    }
  if (top == kNone) return false;  // no switch holds it: never across unconnected switches
  const auto under = std::span<const uint32_t>(t.leaves).subspan(t.leaves_off[top], t.leaves_off[top + 1] - t.leaves_off[top]);
  if (!greedy_groups(job, free, allowed, t.members, under, s.metric, M.need, max_node_gpus, s, out)) return false;
  oc.spans = count_groups(out, t.leaf_of_node, s.seen);
  // --switches=N (sbatch(1)): more leaves than N waits (eval_nodes_topo: best_switch = false,
  // "test 0 fail: waiting for switches") until max wait has passed.
  if (max_leaves > 0 && oc.spans > max_leaves && !best_effort) {
    oc.switch_wait = true;
    out.clear();
    return false;
  }
  sort_by_node(out);
  return true;
}

bool block_core(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                const Blocks& b, int32_t segment, int32_t max_node_gpus,
                Scratch& s, std::vector<NodeShare>& out, Outcome& oc) {
  oc = Outcome{};
  out.clear();
  if (job.gpus <= 0 || job.nodes > job.gpus || b.blocks() == 0) return false;
  allowed = lowest_weights(job, free, allowed, b.node_weight, b.by_weight, max_node_gpus, s);
  const size_t nb = b.blocks(), nn = free.size();
  const int32_t nodes = job_nodes(job, max_node_gpus);
  if (segment > 0) {
    // --segment: node_count/segment gangs, each inside one base block (best fit), placed one
    // after the other on what the earlier ones left.
    const int32_t nseg = nodes / segment;
    s.free2.assign(free.begin(), free.end());
    std::vector<NodeShare>& acc = out;
    for (int32_t k = 0; k < nseg; ++k) {
      JobSpec seg = job;
      seg.nodes = segment;
      seg.gpus = job.gpus / nseg + (k < job.gpus % nseg ? 1 : 0);
      const Metric M(seg);
      s.metric.assign(nb, 0);
      for (size_t n = 0; n < nn; ++n)
        if (allowed[n] && b.block_of_node[n] != kNone) s.metric[b.block_of_node[n]] += M.of(s.free2[n]);
      uint32_t best = kNone;
      for (uint32_t g = 0; g < nb; ++g) {
        if (s.metric[g] < M.need || (best != kNone && s.metric[g] >= s.metric[best])) continue;
        const uint32_t one[1] = {g};
        chosen_order(one, b.members, allowed, s);
        if (fits_in(seg, s.free2, s, s.part, max_node_gpus)) best = g;
      }
      if (best == kNone) {
        out.clear();
        return false;
      }
      const uint32_t one[1] = {best};
      chosen_order(one, b.members, allowed, s);
      fits_in(seg, s.free2, s, s.part, max_node_gpus);
      placement::take(s.free2, s.part);
      acc.insert(acc.end(), s.part.begin(), s.part.end());
    }
    oc.spans = count_groups(out, b.block_of_node, s.seen);
    sort_by_node(out);
    return true;
  }
  const Metric M(job);
  // Nodes per aggregated block at each level: the smallest level with a block of at least the
  // job's node count is the job's level (eval_nodes_block.c: strictly inside it).
  uint32_t L = 0;
  bool found = false;
  for (size_t k = 0; k < b.level_blocks.size() && !found; ++k)
    if (b.level_max_nodes[k] >= static_cast<uint32_t>(nodes)) L = b.level_blocks[k], found = true;
  if (!found) {
    // Larger than the largest level: anywhere, base blocks best-fit over the whole set.
    s.metric.assign(nb, 0);
    for (size_t n = 0; n < nn; ++n)
      if (allowed[n] && b.block_of_node[n] != kNone) s.metric[b.block_of_node[n]] += M.of(free[n]);
    s.cands.resize(nb);
    for (uint32_t g = 0; g < nb; ++g) s.cands[g] = g;
    if (!greedy_groups(job, free, allowed, b.members, s.cands, s.metric, M.need, max_node_gpus, s, out)) return false;
    oc.spans = count_groups(out, b.block_of_node, s.seen);
    sort_by_node(out);
    return true;
  }
  // Base-block metrics, then the best-fit aggregated block of level L that holds the job.
  s.metric.assign(nb, 0);
  for (size_t n = 0; n < nn; ++n)
    if (allowed[n] && b.block_of_node[n] != kNone) s.metric[b.block_of_node[n]] += M.of(free[n]);
  uint32_t best = kNone;
  int64_t best_m = 0;
  std::vector<uint32_t>& cands = s.cands;
  for (uint32_t g0 = 0; g0 < nb; g0 += L) {
    int64_t m = 0;
    cands.clear();
    for (uint32_t g = g0; g < std::min<uint32_t>(g0 + L, static_cast<uint32_t>(nb)); ++g) m += s.metric[g], cands.push_back(g);
    if (m < M.need || (best != kNone && m >= best_m)) continue;
    chosen_order(cands, b.members, allowed, s);
    if (fits_in(job, free, s, s.part, max_node_gpus)) best = g0, best_m = m;
  }
  if (best == kNone) return false;
  cands.clear();
  for (uint32_t g = best; g < std::min<uint32_t>(best + L, static_cast<uint32_t>(nb)); ++g) cands.push_back(g);
  if (!greedy_groups(job, free, allowed, b.members, cands, s.metric, M.need, max_node_gpus, s, out)) return false;
  oc.spans = count_groups(out, b.block_of_node, s.seen);
  sort_by_node(out);
  return true;
}

}  // namespace

// A job without a node count that one node can hold is first tried as a one-node job, as
// first_fit prefers a whole node: best fit then compares nodes that can take it, not GPUs
// scattered over a leaf.
bool place_tree(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                const Tree& t, uint32_t max_leaves, bool best_effort,
                int32_t max_node_gpus, Scratch& s, std::vector<NodeShare>& out, Outcome& oc) {
  if (job.nodes == 0 && job.gpus > 0 && job.gpus <= max_node_gpus) {
    JobSpec one = job;
    one.nodes = 1;
    if (tree_core(one, free, allowed, t, max_leaves, best_effort, max_node_gpus, s, out, oc)) return true;
  }
  return tree_core(job, free, allowed, t, max_leaves, best_effort, max_node_gpus, s, out, oc);
}

bool place_block(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                 const Blocks& b, int32_t segment, int32_t max_node_gpus,
                 Scratch& s, std::vector<NodeShare>& out, Outcome& oc) {
  if (segment <= 0 && job.nodes == 0 && job.gpus > 0 && job.gpus <= max_node_gpus) {
    JobSpec one = job;
    one.nodes = 1;
    if (block_core(one, free, allowed, b, 0, max_node_gpus, s, out, oc)) return true;
  }
  return block_core(job, free, allowed, b, segment, max_node_gpus, s, out, oc);
}

double fragmentation(std::span<const int32_t> free, std::span<const uint32_t> group_of_node, size_t groups,
                     std::vector<int64_t>& g) {
  g.assign(groups, 0);
  int64_t total = 0;
  for (size_t n = 0; n < free.size(); ++n) {
    if (free[n] <= 0 || group_of_node[n] == kNone) continue;
    g[group_of_node[n]] += free[n];
    total += free[n];
  }
  if (total == 0) return 0;
  const int64_t best = *std::max_element(g.begin(), g.end());
  return 1.0 - static_cast<double>(best) / static_cast<double>(total);
}

}  // namespace floorsim::slurm::topo
