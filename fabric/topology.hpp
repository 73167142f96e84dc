#pragma once
// Fat-tree topologies as generalized fat-trees, XGFT(h; m1..mh; w1..wh; p1..ph) (spec fabric §1,
// Öhring et al. 1995). One description serves the k-ary tree (Al-Fares), leaf-spine and any 2-
// or 3-level tree of any radix and taper, so that one router (routing.hpp) serves all.
//
// Levels: 0 = hosts, 1..h = switch levels. Tier t = the links between level t and level t+1
// (tier 0 = host links). Every physical link is two directed links in the flat link table.
//
// Node labels (XGFT): a node at level i is (a_h..a_{i+1}, b_i..b_1) with a_j < m_j (which
// subtree) and b_j < w_j (which replica). Its index within its level is
//   A_i * W_i + B_i,  A_i = mixed radix of a_h..a_{i+1} (a_{i+1} least significant),
//                     B_i = b_i + w_i * B_{i-1} (b_1 most significant), W_i = w_1*..*w_i.
// So for the k-ary tree (XGFT(3; k/2,k/2,k; 1,k/2,k/2)) edge e of pod p is p*k/2+e, aggregation
// a of pod p is p*k/2+a and core group a (the cores that aggregation a links to) is contiguous:
// cores a*k/2 .. a*k/2+k/2-1, as in Al-Fares.
//
// Up-ports: a level-(i-1) node has w_i*p_i up-ports; port u goes to parent b_i = u / p_i over
// parallel link q = u % p_i. The directed link id of (tier i-1, lower node x, port u, dir) is
//   tier_base[i-1] + (x * w_i*p_i + u) * 2 + dir   (dir 0 = up, 1 = down),
// so routing computes link ids arithmetically, without graph look-ups.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/cluster.hpp"

namespace floorsim::fabric {

// XGFT parameters (the literature's notation; SimGrid's "h;m..;w..;p..").
struct Xgft {
  uint32_t h = 0;
  std::vector<uint32_t> m;  // m[i-1] = children per level-i switch
  std::vector<uint32_t> w;  // w[i-1] = parents per level-(i-1) node
  std::vector<uint32_t> p;  // p[i-1] = parallel links between a level-(i-1) node and each parent

  uint64_t hosts() const;                       // N = prod m_i
  uint64_t nodes_at(uint32_t level) const;      // prod_{j>i} m_j * prod_{j<=i} w_j (level 0: N)
  uint64_t paths_at_lca(uint32_t level) const;  // prod_{j<=i} w_j * p_j
  std::string notation() const;                 // "3;2,2,4;1,2,2;1,1,1"
};

// k-ary fat-tree (Al-Fares): XGFT(3; k/2,k/2,k; 1,k/2,k/2; 1,1,1). k even, >= 2.
Xgft kary_fat_tree(uint32_t k);
// Two-tier leaf-spine: XGFT(2; hosts_per_leaf, leaves; 1, spines; 1, links_per_spine).
Xgft leaf_spine(uint32_t hosts_per_leaf, uint32_t leaves, uint32_t spines, uint32_t links_per_spine = 1);

// Named link generations (issue 11): InfiniBand HDR 200, NDR 400, XDR 800 Gb/s; Ethernet
// "100GbE".."800GbE". Returns Gb/s, or a negative value for an unknown name.
double named_link_gbps(const std::string& name);
inline double gbps_to_bytes_per_s(double gbps) { return gbps * 1e9 / 8.0; }

struct TierSpec {
  double capacity_bytes_per_s = 0;  // per directed link
  double latency_s = 0;             // per hop on this tier (propagation + switch), zero-load term
  std::string speed_name;           // "NDR", "400GbE", or "" when given as a number
};

// How GPUs sit on hosts: collectives inside one NVLink domain do not touch the fabric.
struct HostModel {
  uint32_t gpus_per_host = 8;
  uint32_t hosts_per_nvlink_domain = 1;  // 1 = one 8-GPU host; 9 = a 72-GPU rack-scale domain
};

struct Topology {
  std::string kind;  // "fat_tree", "leaf_spine", "xgft"
  Xgft x;
  std::vector<TierSpec> tiers;  // size h
  HostModel host_model;

  // Flat tables (built by build_topology).
  std::vector<uint64_t> level_base;  // node id = level_base[level] + index (size h+2)
  std::vector<uint64_t> tier_base;   // first directed link id of each tier (size h+1)
  std::vector<uint64_t> weight;      // W_i = prod_{j<=i} w_j (size h+1, W_0 = 1)
  std::vector<uint64_t> subtree;     // M_i = prod_{j<=i} m_j (size h+1, M_0 = 1)
  // Directed link table: both directions, indexed by link id.
  std::vector<uint32_t> link_from, link_to;  // node ids
  std::vector<uint32_t> link_tier;
  std::vector<double> link_capacity_bytes_per_s;

  uint32_t h() const { return x.h; }
  uint64_t hosts() const { return subtree.empty() ? 0 : subtree[x.h]; }
  uint64_t nodes() const { return level_base.back(); }
  uint64_t switches() const { return nodes() - hosts(); }
  size_t links() const { return link_from.size(); }
  uint32_t ports_up(uint32_t level_below) const {  // up-ports of a node at level i-1 into level i
    return x.w[level_below] * x.p[level_below];
  }
  uint64_t link_id(uint32_t tier, uint64_t lower, uint32_t port, uint32_t dir) const {
    return tier_base[tier] + (lower * ports_up(tier) + port) * 2 + dir;
  }
  uint32_t node_level(uint64_t node) const;
  uint32_t nvlink_domain(uint64_t host) const { return static_cast<uint32_t>(host / host_model.hosts_per_nvlink_domain); }
  // Top-level subtree (a "pod" for the k-ary tree: the children of the root level) of a host.
  uint64_t top_subtree_of_host(uint64_t host) const { return host / subtree[x.h - 1]; }
  std::string node_name(uint64_t node) const;  // "host12", "L1:3" (level 1 switch 3)
};

// Builds the flat tables. `tiers` must have h entries. Throws std::invalid_argument on bad sizes.
Topology build_topology(std::string kind, const Xgft& x, std::vector<TierSpec> tiers, HostModel hm = {});

// Oversubscription (taper) of a level-i switch, i in 1..h-1: its downlink capacity over its
// uplink capacity, m_i*p_i*c_{i-1} / (w_{i+1}*p_{i+1}*c_i) (spec §1; 1 = full bisection).
double taper_at(const Topology& t, uint32_t level);
// Sets tier capacities from the host tier and a taper per switch level (taper[i-1] for level i,
// i in 1..h-1): c_i = m_i*p_i*c_{i-1} / (taper_i * w_{i+1}*p_{i+1}).
void apply_taper(Topology& t, const std::vector<double>& taper);

// Counts taken from a Boost.Graph adjacency_list built from the link table (undirected, one
// edge per physical link): what the sign-off pack states about the structure.
struct StructureCounts {
  uint64_t hosts = 0, switches = 0, physical_links = 0;
  std::vector<uint64_t> switches_per_level;      // level 1..h
  std::vector<uint32_t> switch_ports_per_level;  // max degree per switch level (radix used)
  uint64_t connected_components = 0;             // over live links only
  uint64_t hosts_unreachable = 0;                // hosts not in the largest component holding hosts
};

// Failure state: dead directed links (a failed cable kills both directions; a dead switch kills
// all its links). Routing uses live links only (spec §2 failure policy in routing.hpp).
struct FailureSet {
  std::vector<uint8_t> link_dead;  // by directed link id; empty = all live
  std::vector<std::string> what;   // human-readable list of what failed
  bool dead(uint64_t link) const { return !link_dead.empty() && link_dead[link]; }
};
void fail_link(const Topology& t, FailureSet& f, uint32_t tier, uint64_t lower, uint32_t port);
void fail_switch(const Topology& t, FailureSet& f, uint32_t level, uint64_t index);
// Loses every switch below the root level in top-level subtree `pod` (k-ary: its edge and
// aggregation switches); its hosts are cut off.
void fail_pod(const Topology& t, FailureSet& f, uint64_t pod);

StructureCounts structure_counts(const Topology& t, const FailureSet& f = {});

// Maps the cluster's nodes onto the hosts (node i = host i), leaf = level-1 switch.
ClusterConfig cluster_from_topology(const Topology& t, const std::string& prefix = "gpu");

}  // namespace floorsim::fabric
