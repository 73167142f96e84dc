#pragma once
// Routing over an XGFT (topology.hpp): every flow takes a shortest (up*/down*) path through its
// lowest common ancestor level L: 2L links, prod_{i<=L} w_i*p_i equal-cost paths (spec §1).
// A path is fixed by its up-ports u_1..u_L; the way down is then unique (the same b digits and
// the same parallel-link index as on the way up).
//
// Modes (the scenario chooses; spec §2):
//   dmodk  static destination-mod-K (Zahavi 2010), as OpenSM's ftree routing engine assigns
//          routes: digit r at level L = (d / prod_{i<L} w_i*p_i) mod (w_L*p_L), d = the
//          destination's rank in LID order (RoutingOptions::lid_rank; default: host index =
//          LID order, i.e. hosts numbered in the order the subnet manager assigns LIDs).
//          With parallel cables (p_L > 1) r goes to parents first, then cables: parent r mod w_L,
//          cable r / w_L -- ftree takes the least-loaded port group (the parent switch) for each
//          destination in LID order, then the least-loaded port in it; SimGrid's FAT_TREE
//          up-route numbers a child's ports the same way. CableOrder::CablesFirst (parent
//          r / p_L, cable r mod p_L) is the older assignment, kept to reproduce it. With one
//          cable per parent both are the same and route every pair exactly as SimGrid 3.32's
//          FAT_TREE (tests/fabric/test_simgrid_conformance.cpp). With parallel cables SimGrid
//          differs: its digit divides d by w_1..w_{L-1} only (not w_i p_i; the same when no
//          level below L has p > 1), and it picks the cable down from the source (src mod p_L
//          at the top), where floorsim comes down the cable it went up (destination-based, as a
//          subnet manager's forwarding tables).
//   ecmp   hash ECMP: one path per flow, up-port at each level from a hash of
//          (src, dst, flow id, seed, level) (splitmix64; stable across platforms).
//   split  ideal split: each flow becomes equal sub-flows, one per live shortest path, each
//          carrying size/paths bytes and solved as its own max-min flow; the flow completes when
//          its last sub-flow does. (Equal weights, not optimised per-path weights.)
//
// Failure policy (spec §2 asks us to state it):
//   dmodk  failover to the next live port: at each level try ports D-mod-K, +1, +2, ... (mod
//          w*p) whose up link (source side) and down link (destination side) are both live;
//          backtrack to the level below when none is (deterministic, like a subnet manager's
//          re-sweep). No live path: the flow is disconnected.
//   ecmp   re-hash over live paths: if the hashed path has a dead link, the flow takes live path
//          number hash mod (live paths), in port-lexicographic order.
//   split  split over live paths only.
// With RoutingOptions::adapt = false (SimGrid's FAT_TREE behaviour, spec §2) dmodk and ecmp keep
// their healthy-fabric path and a flow whose path has a dead link is disconnected.
// Disconnected flows (a lost pod's hosts) are reported, not routed.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fabric/flow_set.hpp"
#include "fabric/topology.hpp"

namespace floorsim::fabric {

enum class RoutingMode { DModK, Ecmp, Split };
const char* routing_name(RoutingMode m);       // "dmodk", "ecmp", "split"
bool parse_routing(const std::string& s, RoutingMode& out);

// One host-to-host transfer.
struct Demand {
  uint32_t src = 0, dst = 0;
  double bytes = 0;
  double start_s = 0;
  uint32_t tag = 0;  // caller's grouping (job index, traffic profile); carried through
  // Identity fed to the ECMP hash; kAutoId = the demand's index in the routed list. Set it when
  // the same flow is routed in different lists (alone vs with other jobs) so it keeps its path.
  static constexpr uint64_t kAutoId = ~0ull;
  uint64_t flow_id = kAutoId;
  // A path given with the flow (explicit flow sets): the up-port at each level 1..L (L = the
  // LCA level), as path_links takes them. Empty = routed by the mode. A given path is kept as
  // it is: over a dead link the flow is disconnected (no failover, any mode).
  std::vector<uint32_t> ports{};
};

enum class CableOrder { ParentsFirst, CablesFirst };

struct RoutingOptions {
  RoutingMode mode = RoutingMode::DModK;
  uint64_t seed = 1;
  bool adapt = true;  // false: no failover/re-hash; a flow over a dead link is disconnected
  CableOrder cables = CableOrder::ParentsFirst;  // D-mod-K with parallel cables
  std::vector<uint32_t> lid_rank{};  // by host: its rank in LID order (D-mod-K's d); empty = host index
};

// Demands routed into the solver's flat problem. In split mode one demand becomes several
// flows; flow_demand maps each flow back. Demands with src == dst or in one NVLink domain are
// not fabric traffic and are skipped by traffic generators, not here: a demand with src == dst
// gets zero links (the solver gives it an infinite rate).
struct RoutedFlows {
  FlowSet set;
  std::vector<uint32_t> flow_demand;     // by flow
  std::vector<uint8_t> demand_routed;    // by demand: 0 = disconnected (no live path)
  uint32_t disconnected = 0;
};

// Lowest common ancestor level of two hosts (0 when equal).
uint32_t lca_level(const Topology& t, uint64_t src, uint64_t dst);

// The D-mod-K up-ports for destination host dst, levels 1..L (healthy fabric), as port
// numbers (parent * p + cable).
std::vector<uint32_t> dmodk_ports(const Topology& t, const RoutingOptions& o, uint64_t dst, uint32_t L);

// Appends the directed link ids of the path given by up-ports (size L) to `out`.
void path_links(const Topology& t, uint64_t src, uint64_t dst, std::span<const uint32_t> ports,
                std::vector<uint32_t>& out);

// Routes one flow; returns false when no live path exists. `flow_id` feeds the ECMP hash.
// Split mode is not a single path: use route_all.
bool route_one(const Topology& t, const FailureSet& f, const RoutingOptions& o, uint64_t src, uint64_t dst,
               uint64_t flow_id, std::vector<uint32_t>& out_links);

// Every live shortest path (as up-port tuples, port-lexicographic order).
std::vector<std::vector<uint32_t>> live_paths(const Topology& t, const FailureSet& f, uint64_t src, uint64_t dst);

// Routes all demands into a FlowSet over the topology's link table (capacities of dead links
// are kept; no flow uses them). Flow id for hashing = Demand::flow_id, else the demand index.
RoutedFlows route_all(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                      std::span<const Demand> demands);

}  // namespace floorsim::fabric
