#include "sim/core/alloc_archive.hpp"

#include <stdexcept>

namespace floorsim {

namespace {

// One flags byte per placement says which of CPUs and memory it carries (most give neither);
// then each share as LEB128 varints: the node as a zigzag delta from the previous share's
// (placements are mostly ascending runs of nodes), GPUs, and CPUs and MiB when flagged.
constexpr uint8_t kCpus = 1, kMem = 2;

void put(std::vector<uint8_t>& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<uint8_t>(v));
}

uint64_t get(const std::vector<uint8_t>& b, size_t& i) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t c = b.at(i++);
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return v;
  }
}

uint64_t zigzag(int64_t d) { return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63); }
int64_t unzigzag(uint64_t z) { return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1); }

}  // namespace

uint64_t AllocArchive::add(std::span<const NodeShare> shares) {
  const uint64_t at = bytes_.size();
  uint8_t flags = 0;
  for (const auto& s : shares) {
    if (s.gpus < 0 || s.cpus < 0 || s.mem_mib < 0) throw std::logic_error("archiving a share with a negative count");
    flags |= (s.cpus != 0 ? kCpus : 0) | (s.mem_mib != 0 ? kMem : 0);
  }
  bytes_.push_back(flags);
  int64_t prev = 0;
  for (const auto& s : shares) {
    put(bytes_, zigzag(static_cast<int64_t>(s.node) - prev));
    prev = s.node;
    put(bytes_, static_cast<uint64_t>(s.gpus));
    if (flags & kCpus) put(bytes_, static_cast<uint64_t>(s.cpus));
    if (flags & kMem) put(bytes_, static_cast<uint64_t>(s.mem_mib));
  }
  return at;
}

void AllocArchive::read(uint64_t at, uint32_t count, std::vector<NodeShare>& out) const {
  out.clear();
  size_t i = at;
  const uint8_t flags = bytes_.at(i++);
  int64_t prev = 0;
  for (uint32_t k = 0; k < count; ++k) {
    NodeShare s;
    prev += unzigzag(get(bytes_, i));
    s.node = static_cast<NodeIdx>(prev);
    s.gpus = static_cast<int32_t>(get(bytes_, i));
    if (flags & kCpus) s.cpus = static_cast<int32_t>(get(bytes_, i));
    if (flags & kMem) s.mem_mib = static_cast<int32_t>(get(bytes_, i));
    out.push_back(s);
  }
}

}  // namespace floorsim
