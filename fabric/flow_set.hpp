#pragma once
// The flat max-min problem shared by fabric/'s CPU solver and kernels/'s batch solver:
// links with capacities and flows as lists of link indices (CSR). Structure of arrays, no
// pointers, so a batch of these can be copied to a device as-is.
#include <cstdint>
#include <vector>

namespace floorsim::fabric {

struct FlowSet {
  std::vector<double> link_capacity_bytes_per_s;  // by link index
  std::vector<uint32_t> link_tier;                // tier of each link (0 = host links, 1, 2, ...)
  std::vector<uint32_t> flow_offsets;             // size flows+1; flow f uses
  std::vector<uint32_t> flow_links;               //   flow_links[flow_offsets[f] .. flow_offsets[f+1])
  std::vector<double> flow_size_bytes;            // by flow (for completion times)
  std::vector<double> flow_start_s;               // by flow (arrival time; 0 = all at once)

  size_t links() const { return link_capacity_bytes_per_s.size(); }
  size_t flows() const { return flow_offsets.empty() ? 0 : flow_offsets.size() - 1; }
};

}  // namespace floorsim::fabric
