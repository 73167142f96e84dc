// Placement under a topology plugin: topology/tree with --switches, topology/block with --segment,
// and the report of how jobs span leaves or blocks. Follows src/plugins/select/cons_tres/
// (eval_nodes_topo, eval_nodes_block); https://slurm.schedmd.com/topology.html.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"
#include <map>

namespace floorsim::slurm {

void SlurmModel::build_topology(const Workload& wl, const ClusterConfig& cluster, const std::string& file) {
  topo_mode_ = cfg_.topology == "tree" ? 1 : cfg_.topology == "block" ? 2 : 0;
  // Job options need the plugin they are for: a class asking for --switches or --segment on a
  // cluster without it is a mistake in the scenario, not something to ignore silently.
  for (const auto& o : cfg_.job_options) {
    const std::string ptr = cfg::child("/scheduler/job_options", o.klass);
    if (o.switches > 0 && topo_mode_ != 1)
      throw InputError(file, ptr + "/switches", fmt::format("class {} asks for --switches but TopologyPlugin is not topology/tree; expected topology_plugin topology/tree", o.klass));
    if (o.segment > 0 && topo_mode_ != 2)
      throw InputError(file, ptr + "/segment", fmt::format("class {} asks for --segment but TopologyPlugin is not topology/block; expected topology_plugin topology/block", o.klass));
  }
  if (topo_mode_ == 0) return;
  std::vector<topo::SwitchDef> defs;
  if (topo_mode_ == 1) {
    for (const auto& w : cfg_.switches) defs.push_back({w.name, w.nodes, w.switches});
    if (defs.empty()) {
      // No switches given: the cluster's leaves (a fabric's edge switches, or nodes_per_leaf)
      // under one root, so placement and the contention model see the same leaves.
      tree_ = topo::tree_from_leaves(cluster.node_leaf, cluster.leaf_names);
      tree_source_ = "cluster leaves";
    } else {
      // A node topology.conf puts under no leaf switch is warned about, as slurmctld does; in
      // the scenario's own switches it is an error.
      const bool from_conf = std::any_of(cfg_.switches.begin(), cfg_.switches.end(), [](const Switch& w) { return w.origin.line > 0; });
      std::vector<uint32_t> unswitched;
      const std::string err = topo::build_tree(defs, cluster.node_names, tree_, nullptr, from_conf ? &unswitched : nullptr);
      if (!err.empty()) throw InputError(file, "/scheduler/switches", "topology/tree: " + err);
      if (!unswitched.empty()) unswitched_out_of_service(cluster, unswitched);
      tree_source_ = cfg_.switches_from_fabric ? "fabric" : "switches";
    }
    group_of_node_ = &tree_.leaf_of_node;
    groups_ = tree_.switches();
    tree_.members = topo::group_nodes(tree_.leaf_of_node, groups_, node_order_);  // Weight inside a leaf
  } else {
    // topology/block was added in 23.11: 22.05 has no such plugin (topology.html).
    if (cfg_.version == Version::V22_05)
      throw InputError(file, "/scheduler/topology_plugin", "topology/block does not exist in Slurm 22.05 (added in 23.11); expected version \"master\" or another TopologyPlugin");
    for (const auto& b : cfg_.blocks) defs.push_back({b.name, b.nodes, {}});
    if (defs.empty()) {
      defs.resize(cluster.leaf_names.size());
      for (size_t l = 0; l < defs.size(); ++l) defs[l].name = cluster.leaf_names[l];
      for (size_t n = 0; n < nn_; ++n) defs[cluster.node_leaf[n]].nodes.push_back(cluster.node_names[n]);
      std::erase_if(defs, [](const topo::SwitchDef& d) { return d.nodes.empty(); });
      tree_source_ = "cluster leaves";
    } else {
      tree_source_ = "blocks";
    }
    const std::string err = topo::build_blocks(defs, cluster.node_names, cfg_.block_sizes, blocks_);
    if (!err.empty()) throw InputError(file, "/scheduler/blocks", "topology/block: " + err);
    group_of_node_ = &blocks_.block_of_node;
    groups_ = blocks_.blocks();
    blocks_.members = topo::group_nodes(blocks_.block_of_node, groups_, node_order_);
  }
  if (weighted_) {
    // Weight tiers first (eval_nodes_topo's node weight list): the candidates are the lowest
    // weights that can hold a job.
    tree_.node_weight = blocks_.node_weight = node_weight_;
    tree_.by_weight = blocks_.by_weight = node_order_;
  }
  const size_t nj = wl.jobs.size();
  jsw_.assign(nj, 0);
  jsw_wait_s_.assign(nj, cfg_.sched.max_switch_wait_s);
  jseg_.assign(nj, 0);
  jsw_from_.assign(nj, -1);
  jsw_refused_.assign(nj, 0);
  jsw_waited_s_.assign(nj, -1);
  jspans_.assign(nj, 0);
  size_t base_nodes = 0;
  for (size_t b = 0; b < blocks_.blocks(); ++b)
    base_nodes = std::max<size_t>(base_nodes, static_cast<size_t>(std::count(blocks_.block_of_node.begin(), blocks_.block_of_node.end(), b)));
  for (const auto& o : cfg_.job_options) {
    const StrId k = wl.strings.find(o.klass);
    if (k == StringTable::kMissing) continue;  // a class without jobs
    const std::string ptr = cfg::child("/scheduler/job_options", o.klass);
    if (o.segment > 0 && static_cast<size_t>(o.segment) > base_nodes)
      throw InputError(file, ptr + "/segment", fmt::format("--segment={} is larger than a base block ({} nodes); expected at most the base block size", o.segment, base_nodes));
    for (size_t j = 0; j < nj; ++j) {
      const JobSpec& js = wl.jobs[j];
      if (js.klass != k) continue;
      jsw_[j] = static_cast<uint32_t>(o.switches);
      if (o.switch_wait_s >= 0) jsw_wait_s_[j] = o.switch_wait_s;
      jseg_[j] = static_cast<int32_t>(o.segment);
      const int32_t n = topo::job_nodes(js, max_node_gpus_);
      // sbatch: "the job's node count must be a multiple of the segment size".
      if (o.segment > 0 && n % o.segment != 0)
        throw InputError(file, ptr + "/segment", fmt::format("job {} of class {} asks for {} nodes, not a multiple of --segment={}; expected a node count divisible by the segment", js.id, o.klass, n, o.segment));
    }
  }
}

// Nodes topology.conf puts under no leaf switch: slurmctld warns "switches lack access to N
// nodes" (topology_tree.c) and its tree selection picks nodes from switches only, so no job
// runs there. They stay in their partitions' sizes, as a DOWN node does.
void SlurmModel::unswitched_out_of_service(const ClusterConfig& cluster, std::span<const uint32_t> nodes) {
  std::vector<std::string> names;
  for (uint32_t n : nodes) {
    names.push_back(cluster.node_names[n]);
    for (size_t p = 0; p < part_.size(); ++p) {
      part_[p].mask[n] = 0;
      part_[p].keep[n] = 0xFF;
      part_bits_[p * nw_ + (n >> 6)] &= ~(uint64_t{1} << (n & 63));
    }
  }
  built_warnings_.push_back(fmt::format(
      "topology.conf: switches lack access to {} nodes: {} (slurmctld's topology/tree warns so, and its selection "
      "picks nodes under switches only); floorsim starts no job on them",
      names.size(), hostlist(names)));
}

bool SlurmModel::place_topo(const JobSpec& js, std::span<const int32_t> f) {
  // Every JobSpec placed is the workload's (the engine's snapshot views the same vector), so its
  // address gives its index without changing every placement call; a copy would get no options.
  const auto at = reinterpret_cast<std::uintptr_t>(&js), base = reinterpret_cast<std::uintptr_t>(wl_->jobs.data());
  const size_t j = at >= base ? static_cast<size_t>((at - base) / sizeof(JobSpec)) : SIZE_MAX;
  const bool ours = j < jsw_.size() && &wl_->jobs[j] == &js;
  topo::Outcome oc;
  if (topo_mode_ == 2)
    return topo::place_block(js, f, mask_, blocks_, ours ? jseg_[j] : 0, max_node_gpus_, tscr_, shares_, oc);
  const uint32_t max_leaves = ours ? jsw_[j] : 0;
  bool best_effort = true;
  if (max_leaves > 0) {
    // eval_nodes_topo: wait4switch_start is the first evaluation; past it + the wait, the
    // allocation is best effort.
    if (jsw_from_[j] < 0) jsw_from_[j] = now_;
    best_effort = now_ >= jsw_from_[j] + jsw_wait_s_[j];
  }
  const bool ok = topo::place_tree(js, f, mask_, tree_, max_leaves, best_effort, max_node_gpus_, tscr_, shares_, oc);
  if (oc.switch_wait) {
    jsw_refused_[j] = 1;
    // The first periodic pass after the wait ends must run even when nothing else happened.
    unskip_s_ = std::min(unskip_s_, jsw_from_[j] + jsw_wait_s_[j]);
    sw_wake_ = std::min(sw_wake_, jsw_from_[j] + jsw_wait_s_[j]);
  }
  return ok;
}

void SlurmModel::topo_begin(const Snapshot& v) {
  now_ = v.now;
  if (frag_t_ >= 0 && frag_pend_) {
    frag_int_ += frag_last_ * (v.now - frag_t_);
    frag_dur_s_ += v.now - frag_t_;
  }
  frag_t_ = v.now;
  frag_pend_ = false;
  starts_at_begin_ = main_starts_ + bf_starts_;
}

// Sampled after the pass's decisions (free_ then holds what the started jobs left): the index
// holds until the next pass, since only events (each followed by a pass) change the free GPUs.
void SlurmModel::topo_end(const Snapshot& v, Decisions& out) {
  // A --switches wait ends: backfill runs every bf_interval in slurmctld whatever happened, so
  // the first backfill pass after the end places it best effort (the main loop's next full
  // pass would too, later).
  // Kept across passes (a skipped quiet pass evaluates nothing) until it has passed.
  if (sw_wake_ <= v.now) sw_wake_ = kNever;
  if (std::isfinite(sw_wake_)) {
    const SimTime iv = cfg_.sched.backfill ? cfg_.sched.bf_interval_s : cfg_.sched.sched_interval_s;
    out.wake_at(std::max(v.now + 1, std::ceil(sw_wake_ / iv) * iv));
  }
  const uint64_t started = main_starts_ + bf_starts_ - starts_at_begin_;
  frag_pend_ = v.pending.size() > started;
  frag_last_ = topo::fragmentation(free_, *group_of_node_, groups_, frag_buf_);
  if (frag_pend_) {
    ++frag_samples_;
    frag_max_ = std::max(frag_max_, frag_last_);
  }
}

void SlurmModel::topo_started(JobIdx j, SimTime t, const Snapshot& v) {
  if (jspans_[j] != 0) return;  // counted at the first start
  uint32_t spans = 0;
  tscr_.seen.resize(groups_ + 1, 0);
  const auto alloc = v.allocation_of(j);
  for (const auto& sh : alloc) {
    const uint32_t g = (*group_of_node_)[sh.node];
    if (g != topo::kNone && !tscr_.seen[g]) tscr_.seen[g] = 1, ++spans;
  }
  for (const auto& sh : alloc)
    if ((*group_of_node_)[sh.node] != topo::kNone) tscr_.seen[(*group_of_node_)[sh.node]] = 0;
  jspans_[j] = static_cast<uint16_t>(std::min<uint32_t>(spans, UINT16_MAX));
  if (span_jobs_.size() <= spans) span_jobs_.resize(spans + 1, 0);
  ++span_jobs_[spans];
  if (jsw_[j] > 0) {
    ++sw_jobs_;
    if (jsw_refused_[j]) {
      ++sw_waited_;
      jsw_waited_s_[j] = t - jsw_from_[j];
      sw_wait_total_s_ += jsw_waited_s_[j];
    }
    if (spans > jsw_[j]) ++sw_timed_out_;
  }
}

nlohmann::json SlurmModel::topo_report(SimTime end_s) const {
  nlohmann::json t;
  t["plugin"] = topo_mode_ == 1 ? "topology/tree" : "topology/block";
  t["source"] = tree_source_;
  if (topo_mode_ == 1) {
    size_t leaves = 0;
    for (auto l : tree_.level) leaves += l == 0;
    t["leaf_switches"] = leaves;
    t["switches"] = tree_.switches();
    t["levels"] = tree_.max_level + 1;
  } else {
    t["base_blocks"] = blocks_.blocks();
    t["block_levels"] = blocks_.level_blocks;
  }
  nlohmann::json by = nlohmann::json::object();
  for (size_t k = 1; k < span_jobs_.size(); ++k)
    if (span_jobs_[k] > 0) by[std::to_string(k)] = span_jobs_[k];
  t[topo_mode_ == 1 ? "jobs_by_leaves" : "jobs_by_blocks"] = by;
  if (topo_mode_ == 1)
    t["switches_option"] = {{"jobs_started", sw_jobs_}, {"jobs_waited", sw_waited_}, {"jobs_timed_out", sw_timed_out_},
                            {"wait_s_total", sw_wait_total_s_}};
  // Time average of the index over the time some job was pending, the last interval up to the
  // end of the run included (README "Topology").
  double integ = frag_int_, dur = frag_dur_s_;
  if (frag_t_ >= 0 && frag_pend_ && end_s > frag_t_) integ += frag_last_ * (end_s - frag_t_), dur += end_s - frag_t_;
  t["fragmentation"] = {{"index_time_avg", dur > 0 ? integ / dur : 0.0}, {"index_max", frag_max_},
                        {"pending_time_s", dur}, {"samples", frag_samples_}};
  return t;
}

}  // namespace floorsim::slurm
