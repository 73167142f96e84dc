#pragma once
// What a fat-tree costs at a given taper: switches, cables and optics priced from inputs, so the
// oversubscription trade-off is a table of cost against slowest-flow time per taper.
//
// A taper is modelled (topology.hpp apply_taper) as less capacity on the upper tiers; in
// hardware it is fewer uplink cables of the tier's own speed. So the cables a tier needs are
// ceil(its links x tapered capacity / untapered capacity), the ports a switch level uses are
// the downward ends of the tier below plus the upward ends of the tier above, and the switches
// bought at a level are ceil(ports used / the level's radix). Host cables (tier 0) never taper.
#include <cstdint>
#include <vector>

#include "fabric/topology.hpp"

namespace floorsim::fabric {

struct CostPrices {
  double switch_usd = 0;               // per switch
  double switch_port_usd = 0;          // per port of every switch bought (radix x switches)
  std::vector<double> cable_usd;       // per cable, by tier (one entry = every tier)
  double optics_usd = 0;               // per transceiver: two per cable on an optical tier
  std::vector<uint32_t> optical_tiers;  // tiers whose cables need optics
};

struct FabricCost {
  std::vector<uint64_t> cables_per_tier;    // by tier 0..h-1
  std::vector<uint64_t> switches_per_level;  // by level 1..h
  uint64_t switches = 0, cables = 0, transceivers = 0;
  double switches_usd = 0, cables_usd = 0, optics_usd = 0, total_usd = 0;
};

// `nominal` is the fabric without taper (every tier at its own speed), `tapered` the same
// structure with the taper applied.
FabricCost fabric_cost(const Topology& nominal, const Topology& tapered, const CostPrices& p);

}  // namespace floorsim::fabric
