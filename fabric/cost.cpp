#include "fabric/cost.hpp"

#include <algorithm>
#include <cmath>

namespace floorsim::fabric {

FabricCost fabric_cost(const Topology& nominal, const Topology& tapered, const CostPrices& p) {
  const Xgft& x = nominal.x;
  const uint32_t h = x.h;
  FabricCost c;
  for (uint32_t tier = 0; tier < h; ++tier) {
    const uint64_t links = x.nodes_at(tier) * nominal.ports_up(tier);
    const double fraction =
        tier == 0 ? 1.0 : tapered.tiers[tier].capacity_bytes_per_s / nominal.tiers[tier].capacity_bytes_per_s;
    // 1e-9: a taper that divides the links evenly must not round up by a last-bit error.
    const uint64_t cables = static_cast<uint64_t>(std::ceil(static_cast<double>(links) * fraction - 1e-9));
    c.cables_per_tier.push_back(cables);
    c.cables += cables;
    const double price = p.cable_usd.empty() ? 0 : p.cable_usd.size() == 1 ? p.cable_usd[0] : p.cable_usd[tier];
    c.cables_usd += static_cast<double>(cables) * price;
    if (std::find(p.optical_tiers.begin(), p.optical_tiers.end(), tier) != p.optical_tiers.end()) {
      c.transceivers += 2 * cables;
      c.optics_usd += 2.0 * static_cast<double>(cables) * p.optics_usd;
    }
  }
  for (uint32_t level = 1; level <= h; ++level) {
    const uint64_t down = x.m[level - 1] * x.p[level - 1];
    const uint64_t up = level < h ? nominal.ports_up(level) : 0;
    const uint64_t used = c.cables_per_tier[level - 1] + (level < h ? c.cables_per_tier[level] : 0);
    const uint64_t switches = (used + down + up - 1) / (down + up);
    c.switches_per_level.push_back(switches);
    c.switches += switches;
    c.switches_usd += static_cast<double>(switches) * (p.switch_usd + static_cast<double>(down + up) * p.switch_port_usd);
  }
  c.total_usd = c.switches_usd + c.cables_usd + c.optics_usd;
  return c;
}

}  // namespace floorsim::fabric
