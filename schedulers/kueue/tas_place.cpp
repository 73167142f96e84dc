// TAS over the cluster: Topology levels onto nodes, leaves and fabric levels; the podset
// annotations of each job class; a job's pods from a tas::Assignment to node shares.
#include "schedulers/kueue/tas_place.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::kueue {

namespace {
constexpr const char* kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr const char* kUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr const char* kMinParallelism = "kueue.x-k8s.io/job-min-parallelism";
constexpr uint32_t kNoLeaf = UINT32_MAX;

// By level: 1 when the cluster's node labels give it (some node carries that label key), so
// the level's domains are the label's values; else it is laid onto the cluster's structure.
std::vector<uint8_t> label_levels(const std::vector<std::string>& levels, const ClusterConfig& cluster) {
  std::vector<uint8_t> out(levels.size(), 0);
  if (!cluster.gives_labels()) return out;
  for (size_t i = 0; i < levels.size(); ++i)
    for (const auto& set : cluster.label_sets)
      if (set.count(levels[i])) out[i] = 1;
  return out;
}
}  // namespace

std::vector<JobAnnotations> read_job_annotations(const cfg::json& block, const StringTable& strings,
                                                 const std::string& file, std::vector<std::string>& warnings) {
  std::vector<JobAnnotations> out(strings.size());
  for (const auto& [klass, anns] : block.items()) {
    const std::string ptr = cfg::child("/scheduler/job_annotations", klass);
    if (!anns.is_object()) throw InputError(file, ptr, "got " + anns.dump() + "; expected an object of annotation -> string");
    JobAnnotations a;
    int topology_keys = 0;
    for (const auto& [key, v] : anns.items()) {
      const std::string at = cfg::child(ptr, key);
      if (!v.is_string()) throw InputError(file, at, "got " + v.dump() + "; expected a string (annotations are strings)");
      const std::string value = v.get<std::string>();
      if (key == kRequired || key == kPreferred) {
        if (value.empty()) throw InputError(file, at, "empty; expected a Topology level (a node label such as kubernetes.io/hostname)");
        a.topology = true;
        a.kind = key == kRequired ? tas::Kind::Required : tas::Kind::Preferred;
        a.level = value;
        ++topology_keys;
      } else if (key == kUnconstrained) {
        if (value != "true" && value != "false") throw InputError(file, at, "got \"" + value + "\"; expected \"true\" or \"false\"");
        if (value == "true") a.topology = true, a.kind = tas::Kind::Unconstrained, ++topology_keys;
      } else if (key == kMinParallelism) {
        int64_t n = 0;
        try {
          size_t used = 0;
          n = std::stoll(value, &used);
          if (used != value.size()) n = 0;
        } catch (const std::exception&) {
          n = 0;
        }
        if (n < 1) throw InputError(file, at, "got \"" + value + "\"; expected a positive integer (pods)");
        a.min_count = static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX));  // partial admission: podsets_config.cpp
      } else {
        warnings.push_back(fmt::format("scheduler.job_annotations.{}: annotation {} is not modelled; ignored", klass, key));
      }
    }
    if (topology_keys > 1)
      throw InputError(file, ptr, "more than one of podset-required-topology, podset-preferred-topology and "
                                  "podset-unconstrained-topology; expected one (Kueue rejects the workload)");
    const StrId id = strings.find(klass);
    if (id == StringTable::kMissing) {
      warnings.push_back("scheduler.job_annotations." + klass + ": no job has this class; ignored");
      continue;
    }
    out[id] = a;
  }
  return out;
}

TasPlacer::TasPlacer(const BuiltModel& b, const ClusterConfig& cluster,
                     const std::vector<std::vector<uint32_t>>* fabric_tree, std::vector<std::string>& warnings) {
  by_flavor_.assign(b.flavors.size(), -1);  // declared flavors (b.model may have been moved from)
  // The cluster's structure, bottom up, for every node: its name, its leaf, the fabric's levels
  // above the edge switch.
  const size_t nodes = cluster.nodes();
  auto value_at = [&](size_t n, size_t j) -> std::string {
    if (j == 0) return cluster.node_names[n];
    if (j == 1) return n < cluster.node_leaf.size() ? cluster.leaf_names[cluster.node_leaf[n]] : "leaf";
    return fmt::format("fabric-level{}-{}", j, (*fabric_tree)[j - 1][n]);
  };
  const size_t have = 2 + (fabric_tree && fabric_tree->size() > 1 ? fabric_tree->size() - 1 : 0);
  for (size_t f = 0; f < b.flavors.size(); ++f) {
    const ResourceFlavorObj& fl = b.flavors[f];
    auto it = b.topologies.find(fl.topology);
    if (fl.topology.empty() || it == b.topologies.end()) continue;
    const TopologyObj& tp = it->second;
    Snapshot s;
    s.host_leaves = tp.levels.back() == tas::kHostname;
    const size_t nl = tp.levels.size(), base = s.host_leaves ? 0 : 1;
    const std::vector<uint8_t> by_label = label_levels(tp.levels, cluster);
    for (size_t i = 0; i < nl; ++i)
      if (!by_label[i] && base + (nl - 1 - i) >= have)
        warnings.push_back(fmt::format("{}:{}: Topology {} level {} is above the structure the scenario gives (nodes, "
                                       "leaves{}); taken as one domain, the whole cluster",
                                       tp.pos.file, tp.pos.line, tp.name, tp.levels[i], have > 2 ? ", fabric levels" : ""));
    std::vector<std::vector<std::string>> paths;
    std::map<std::vector<std::string>, uint32_t> leaf_of_path;
    std::vector<uint32_t> leaf_of_node(nodes, kNoLeaf);
    size_t unlabelled = 0;
    for (size_t n = 0; n < nodes; ++n) {
      std::vector<std::string> p(nl);
      bool in_topology = true;
      for (size_t i = 0; i < nl; ++i) {
        const size_t j = base + (nl - 1 - i);
        if (by_label[i]) {  // the node's label, as Kueue reads the level (a node without it is not in the Topology)
          auto l = cluster.labels(n).find(tp.levels[i]);
          if (l != cluster.labels(n).end()) p[i] = l->second;
          else if (tp.levels[i] == tas::kHostname) p[i] = cluster.node_names[n];
          else in_topology = false;
        } else {
          p[i] = j < have ? value_at(n, j) : "cluster";
        }
      }
      if (!in_topology) {
        ++unlabelled;
        continue;
      }
      auto [pos, fresh] = leaf_of_path.emplace(p, static_cast<uint32_t>(paths.size()));
      if (fresh) paths.push_back(p);
      leaf_of_node[n] = pos->second;
    }
    s.domains = tas::build(tp.name, tp.levels, paths);
    if (unlabelled)
      warnings.push_back(fmt::format("{}:{}: Topology {}: {} node(s) lack one of its level labels and are not in it "
                                     "(workloads of its flavors never run there, as in Kueue)",
                                     tp.pos.file, tp.pos.line, tp.name, unlabelled));
    s.leaf_off.assign(paths.size() + 1, 0);
    for (uint32_t l : leaf_of_node)
      if (l != kNoLeaf) ++s.leaf_off[l + 1];
    for (size_t l = 0; l < paths.size(); ++l) s.leaf_off[l + 1] += s.leaf_off[l];
    s.leaf_nodes.resize(nodes - unlabelled);
    std::vector<uint32_t> fill(s.leaf_off.begin(), s.leaf_off.end() - 1);
    for (size_t n = 0; n < nodes; ++n)
      if (leaf_of_node[n] != kNoLeaf) s.leaf_nodes[fill[leaf_of_node[n]]++] = static_cast<uint32_t>(n);
    by_flavor_[f] = static_cast<int>(snaps_.size());
    snaps_.push_back(std::move(s));
  }
}

uint64_t TasPlacer::unfit_flavors(const JobAnnotations& a) const {
  if (!a.topology) return 0;
  uint64_t bits = 0;
  for (size_t f = 0; f < by_flavor_.size() && f < 64; ++f) {
    bool ok = by_flavor_[f] >= 0;
    if (ok && a.kind != tas::Kind::Unconstrained) {
      const auto& keys = snaps_[by_flavor_[f]].domains.level_keys;
      ok = std::find(keys.begin(), keys.end(), a.level) != keys.end();
    }
    if (!ok) bits |= uint64_t{1} << f;
  }
  return bits;
}

void TasPlacer::warn_unplaceable(const std::vector<JobAnnotations>& by_class, const StringTable& strings,
                                 std::vector<std::string>& warnings) const {
  const uint64_t all = by_flavor_.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << by_flavor_.size()) - 1;
  for (size_t k = 0; k < by_class.size(); ++k) {
    const JobAnnotations& a = by_class[k];
    if (!a.topology || (unfit_flavors(a) & all) != all) continue;
    const std::string what = a.kind == tas::Kind::Unconstrained ? "no ResourceFlavor has a Topology"
                                                                 : "no ResourceFlavor's Topology has level " + a.level;
    warnings.push_back("scheduler.job_annotations." + strings.str(static_cast<StrId>(k)) + ": " + what +
                       "; these jobs are never admitted (as in Kueue)");
  }
}

std::string TasPlacer::place(int flavor, const JobSpec& js, const JobAnnotations& a, std::span<const int32_t> free,
                             std::span<const uint8_t> allowed, std::vector<NodeShare>& out) const {
  out.clear();
  const Snapshot& s = snaps_[by_flavor_[flavor]];
  const int32_t pods = js.nodes > 0 ? js.nodes : std::max(js.gpus, 1);
  const int32_t pod_gpus = (js.gpus + pods - 1) / pods;
  // A job with `nodes` set runs on exactly that many nodes: one pod per node.
  const int32_t per_node_cap = js.nodes > 0 ? 1 : pods;
  auto node_fit = [&](uint32_t n) -> int32_t {
    if (!allowed.empty() && !allowed[n]) return 0;
    return std::min(per_node_cap, pod_gpus == 0 ? pods : free[n] / pod_gpus);
  };
  std::vector<int32_t> fit(s.domains.leaves(), 0);
  for (size_t l = 0; l < fit.size(); ++l)
    for (uint32_t k = s.leaf_off[l]; k < s.leaf_off[l + 1]; ++k) fit[l] += std::min(node_fit(s.leaf_nodes[k]), pods);
  // No annotation on a TAS flavor: implied unconstrained, as Kueue (TAS implied default).
  tas::PodSetRequest r{a.topology ? a.kind : tas::Kind::Unconstrained, a.level, pods};
  const tas::Assignment asg = tas::assign(s.domains, fit, r);
  if (!asg.fits()) return asg.reason;
  // Pod i gets gpus/pods GPUs, the first gpus%pods one more (the even split first fit uses).
  int32_t next_pod = 0;
  auto pod_share = [&]() { return js.gpus / pods + (next_pod++ < js.gpus % pods ? 1 : 0); };
  for (const auto& [leaf, count] : asg.leaves) {
    int32_t left = count;  // within the leaf, nodes in index order (kube-scheduler's part)
    for (uint32_t k = s.leaf_off[leaf]; k < s.leaf_off[leaf + 1] && left > 0; ++k) {
      const uint32_t n = s.leaf_nodes[k];
      const int32_t here = std::min(left, node_fit(n));
      if (here <= 0) continue;
      NodeShare sh;
      sh.node = n;
      for (int32_t p = 0; p < here; ++p) sh.gpus += pod_share();
      out.push_back(sh);
      left -= here;
    }
  }
  return "";
}

}  // namespace floorsim::kueue
