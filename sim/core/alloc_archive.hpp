#pragma once
// The placements of jobs that no longer run, kept compactly for the outputs (jobs.csv's node
// list, audits): a few bytes per share instead of a 16-byte NodeShare. Nothing in a scheduling
// pass reads them; the engine moves a placement here once its job stops running.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/job_state.hpp"

namespace floorsim {

class AllocArchive {
 public:
  // Appends `shares` and returns where they start (the key for read()).
  uint64_t add(std::span<const NodeShare> shares);
  // The `count` shares added at `at`, in their order, into `out` (cleared first).
  void read(uint64_t at, uint32_t count, std::vector<NodeShare>& out) const;
  size_t bytes() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace floorsim
