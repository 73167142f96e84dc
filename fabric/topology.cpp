#include "fabric/topology.hpp"

#include <algorithm>
#include <stdexcept>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <fmt/format.h>

namespace floorsim::fabric {

uint64_t Xgft::hosts() const {
  uint64_t n = 1;
  for (auto v : m) n *= v;
  return n;
}

uint64_t Xgft::nodes_at(uint32_t level) const {
  uint64_t n = 1;
  for (uint32_t j = level; j < h; ++j) n *= m[j];  // m_{j+1} for j+1 > level
  for (uint32_t j = 0; j < level; ++j) n *= w[j];
  return n;
}

uint64_t Xgft::paths_at_lca(uint32_t level) const {
  uint64_t n = 1;
  for (uint32_t j = 0; j < level; ++j) n *= uint64_t(w[j]) * p[j];
  return n;
}

std::string Xgft::notation() const {
  auto join = [](const std::vector<uint32_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(v[i]);
    }
    return s;
  };
  return fmt::format("{};{};{};{}", h, join(m), join(w), join(p));
}

Xgft kary_fat_tree(uint32_t k) {
  if (k < 2 || k % 2) throw std::invalid_argument(fmt::format("k-ary fat-tree needs an even k >= 2, got {}", k));
  return Xgft{3, {k / 2, k / 2, k}, {1, k / 2, k / 2}, {1, 1, 1}};
}

Xgft leaf_spine(uint32_t hosts_per_leaf, uint32_t leaves, uint32_t spines, uint32_t links_per_spine) {
  return Xgft{2, {hosts_per_leaf, leaves}, {1, spines}, {1, links_per_spine}};
}

double named_link_gbps(const std::string& n) {
  struct Named { const char* name; double gbps; };
  static constexpr Named kNamed[] = {
      {"EDR", 100}, {"HDR", 200}, {"NDR", 400}, {"XDR", 800},
      {"100GbE", 100}, {"200GbE", 200}, {"400GbE", 400}, {"800GbE", 800},
  };
  for (const auto& e : kNamed)
    if (n == e.name) return e.gbps;
  return -1;
}

uint32_t Topology::node_level(uint64_t node) const {
  for (uint32_t l = 0; l + 1 < level_base.size(); ++l)
    if (node < level_base[l + 1]) return l;
  return x.h;
}

std::string Topology::node_name(uint64_t node) const {
  const uint32_t l = node_level(node);
  if (l == 0) return fmt::format("host{}", node);
  return fmt::format("L{}:{}", l, node - level_base[l]);
}

Topology build_topology(std::string kind, const Xgft& x, std::vector<TierSpec> tiers, HostModel hm) {
  if (x.h < 1 || x.m.size() != x.h || x.w.size() != x.h || x.p.size() != x.h)
    throw std::invalid_argument("XGFT needs h >= 1 and h entries in each of m, w, p");
  for (uint32_t i = 0; i < x.h; ++i)
    if (x.m[i] < 1 || x.w[i] < 1 || x.p[i] < 1) throw std::invalid_argument("XGFT m, w, p entries must be >= 1");
  if (tiers.size() != x.h) throw std::invalid_argument("one tier spec per tier (h) is needed");
  if (hm.gpus_per_host < 1 || hm.hosts_per_nvlink_domain < 1) throw std::invalid_argument("bad host model");
  Topology t;
  t.kind = std::move(kind);
  t.x = x;
  t.tiers = std::move(tiers);
  t.host_model = hm;
  const uint32_t h = x.h;
  t.weight.assign(h + 1, 1);
  t.subtree.assign(h + 1, 1);
  for (uint32_t i = 1; i <= h; ++i) {
    t.weight[i] = t.weight[i - 1] * x.w[i - 1];
    t.subtree[i] = t.subtree[i - 1] * x.m[i - 1];
  }
  t.level_base.assign(h + 2, 0);
  for (uint32_t l = 0; l <= h; ++l) t.level_base[l + 1] = t.level_base[l] + x.nodes_at(l);
  if (t.level_base.back() >= (1ull << 32)) throw std::invalid_argument("topology too large");
  t.tier_base.assign(h + 1, 0);
  for (uint32_t tier = 0; tier < h; ++tier)
    t.tier_base[tier + 1] = t.tier_base[tier] + x.nodes_at(tier) * t.ports_up(tier) * 2;
  const uint64_t nl = t.tier_base[h];
  t.link_from.resize(nl);
  t.link_to.resize(nl);
  t.link_tier.resize(nl);
  t.link_capacity_bytes_per_s.resize(nl);
  for (uint32_t tier = 0; tier < h; ++tier) {
    const uint64_t lower_n = x.nodes_at(tier);
    const uint32_t ports = t.ports_up(tier);
    for (uint64_t lo = 0; lo < lower_n; ++lo) {
      const uint64_t a = lo / t.weight[tier], b = lo % t.weight[tier];
      for (uint32_t u = 0; u < ports; ++u) {
        const uint64_t parent = (a / x.m[tier]) * t.weight[tier + 1] + (u / x.p[tier]) + x.w[tier] * b;
        const uint32_t from = static_cast<uint32_t>(t.level_base[tier] + lo);
        const uint32_t to = static_cast<uint32_t>(t.level_base[tier + 1] + parent);
        for (uint32_t dir = 0; dir < 2; ++dir) {
          const uint64_t id = t.link_id(tier, lo, u, dir);
          t.link_from[id] = dir ? to : from;
          t.link_to[id] = dir ? from : to;
          t.link_tier[id] = tier;
          t.link_capacity_bytes_per_s[id] = t.tiers[tier].capacity_bytes_per_s;
        }
      }
    }
  }
  return t;
}

double taper_at(const Topology& t, uint32_t level) {
  const auto& x = t.x;
  const double down = double(x.m[level - 1]) * x.p[level - 1] * t.tiers[level - 1].capacity_bytes_per_s;
  const double up = double(x.w[level]) * x.p[level] * t.tiers[level].capacity_bytes_per_s;
  return down / up;
}

void apply_taper(Topology& t, const std::vector<double>& taper) {
  const auto& x = t.x;
  for (uint32_t i = 1; i < x.h && i <= taper.size(); ++i) {
    const double c = double(x.m[i - 1]) * x.p[i - 1] * t.tiers[i - 1].capacity_bytes_per_s /
                     (taper[i - 1] * x.w[i] * x.p[i]);
    t.tiers[i].capacity_bytes_per_s = c;
    t.tiers[i].speed_name.clear();
  }
  for (size_t id = 0; id < t.links(); ++id)
    t.link_capacity_bytes_per_s[id] = t.tiers[t.link_tier[id]].capacity_bytes_per_s;
}

void fail_link(const Topology& t, FailureSet& f, uint32_t tier, uint64_t lower, uint32_t port) {
  if (tier >= t.h() || lower >= t.x.nodes_at(tier) || port >= t.ports_up(tier))
    throw std::invalid_argument(fmt::format("no link at tier {}, lower node {}, port {}", tier, lower, port));
  if (f.link_dead.empty()) f.link_dead.assign(t.links(), 0);
  f.link_dead[t.link_id(tier, lower, port, 0)] = 1;
  f.link_dead[t.link_id(tier, lower, port, 1)] = 1;
  f.what.push_back(fmt::format("link tier {} {} port {}", tier, t.node_name(t.level_base[tier] + lower), port));
}

void fail_switch(const Topology& t, FailureSet& f, uint32_t level, uint64_t index) {
  if (level < 1 || level > t.h() || index >= t.x.nodes_at(level))
    throw std::invalid_argument(fmt::format("no switch {} at level {}", index, level));
  if (f.link_dead.empty()) f.link_dead.assign(t.links(), 0);
  const uint32_t node = static_cast<uint32_t>(t.level_base[level] + index);
  // The links of a node are those of the tier below (as upper end) and above (as lower end).
  for (size_t id = 0; id < t.links(); ++id)
    if (t.link_from[id] == node || t.link_to[id] == node) f.link_dead[id] = 1;
  f.what.push_back(fmt::format("switch {}", t.node_name(node)));
}

void fail_pod(const Topology& t, FailureSet& f, uint64_t pod) {
  const uint32_t h = t.h();
  if (h < 2 || pod >= t.x.m[h - 1]) throw std::invalid_argument(fmt::format("no pod {}", pod));
  if (f.link_dead.empty()) f.link_dead.assign(t.links(), 0);
  for (uint32_t level = 1; level < h; ++level) {
    // Switches of the pod at this level: A_level's top digit a_h == pod.
    const uint64_t per_pod = t.x.nodes_at(level) / t.x.m[h - 1];
    for (uint64_t i = pod * per_pod; i < (pod + 1) * per_pod; ++i) {
      const uint32_t node = static_cast<uint32_t>(t.level_base[level] + i);
      for (size_t id = 0; id < t.links(); ++id)
        if (t.link_from[id] == node || t.link_to[id] == node) f.link_dead[id] = 1;
    }
  }
  f.what.push_back(fmt::format("pod {}", pod));
}

StructureCounts structure_counts(const Topology& t, const FailureSet& f) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(t.nodes());
  StructureCounts c;
  for (size_t id = 0; id < t.links(); id += 2) {  // even ids are the up direction
    ++c.physical_links;
    if (!f.dead(id)) boost::add_edge(t.link_from[id], t.link_to[id], g);
  }
  c.hosts = t.hosts();
  c.switches = t.switches();
  for (uint32_t l = 1; l <= t.h(); ++l) {
    c.switches_per_level.push_back(t.x.nodes_at(l));
    // Radix in use: down ports + up ports of a level-l switch (from the structure, healthy).
    c.switch_ports_per_level.push_back(t.x.m[l - 1] * t.x.p[l - 1] + (l < t.h() ? t.ports_up(l) : 0));
  }
  std::vector<uint32_t> comp(t.nodes());
  c.connected_components = boost::connected_components(g, comp.data());
  // Hosts outside the component holding the most hosts are cut off.
  std::vector<uint64_t> hosts_in(c.connected_components, 0);
  for (uint64_t hst = 0; hst < t.hosts(); ++hst) ++hosts_in[comp[hst]];
  const uint64_t best = *std::max_element(hosts_in.begin(), hosts_in.end());
  c.hosts_unreachable = t.hosts() - best;
  return c;
}

ClusterConfig cluster_from_topology(const Topology& t, const std::string& prefix) {
  ClusterConfig c;
  const uint64_t n = t.hosts();
  const int width = static_cast<int>(std::to_string(n).size());
  for (uint64_t hst = 0; hst < n; ++hst) {
    c.node_names.push_back(fmt::format("{}{:0{}}", prefix, hst + 1, width < 3 ? 3 : width));
    c.node_gpus.push_back(static_cast<int32_t>(t.host_model.gpus_per_host));
    c.node_leaf.push_back(static_cast<uint32_t>(hst / t.x.m[0]));
  }
  for (uint64_t l = 0; l < t.x.nodes_at(1); ++l) c.leaf_names.push_back(fmt::format("leaf{}", l));
  c.gpus_per_nvlink_domain = static_cast<int32_t>(t.host_model.gpus_per_host * t.host_model.hosts_per_nvlink_domain);
  return c;
}

}  // namespace floorsim::fabric
