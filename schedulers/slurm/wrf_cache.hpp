#pragma once
// will_run_fast's answers kept within one release plan (backfill.cpp): the answer is a function
// of the tested mask, the job's GPUs and the plan alone, and the jobs of one backfill pass test
// the same windows of the same map again and again (64% of the tests at 500 nodes x 8 GPUs ask
// a mask and a GPU count asked before under the same plan). A fixed table, no allocation per
// test; an answer is taken only for an exact match of plan generation, GPUs and every word of
// the mask (the hash only picks the slots).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::slurm {

class WrfCache {
 public:
  struct Answer {
    bool ok = false;  // a start was found: at level k, time t
    uint32_t k = 0;
    SimTime t = 0;
  };
  // Masks of nw words from now on; every kept answer is dropped. The table holds up to 1,024
  // answers, fewer for very wide masks (its masks stay within 1 MiB).
  void reset(size_t nw) {
    nw_ = nw;
    size_t n = 1024;
    while (n > 64 && n * nw * sizeof(uint64_t) > (size_t{1} << 20)) n >>= 1;
    slots_.assign(n, Slot{});
    masks_.assign(n * nw, 0);
    last_ = 0;
  }
  size_t words() const { return nw_; }
  // Whether answers other than the last are kept: over 2 words (128 nodes). At 1 or 2 words the
  // hash costs about what the will-run test it spares does.
  bool table() const { return nw_ > 2; }
  // The answer kept for (mask, gpus) under plan generation gen (never 0); nullptr if none. The
  // last answer kept or found is tried first (a job's next retry mostly asks it again), then,
  // with table(), the slots the hash picks.
  const Answer* find(const uint64_t* mask, int32_t gpus, uint64_t gen) {
    if (slots_.empty()) return nullptr;
    const Slot& l = slots_[last_];
    if (l.gen == gen && l.gpus == gpus && same(masks_.data() + last_ * nw_, mask)) return &l.a;
    if (!table()) return nullptr;
    const uint64_t h = hash(mask, gpus);
    const size_t m = slots_.size() - 1;
    for (size_t p = 0; p < kProbe; ++p) {
      const size_t i = (h + p) & m;
      const Slot& s = slots_[i];
      if (s.gen == gen && s.hash == h && s.gpus == gpus && same(masks_.data() + i * nw_, mask)) {
        last_ = i;
        return &s.a;
      }
    }
    return nullptr;
  }
  // Keeps a: without table(), in the last answer's slot; else in the first slot of the probe
  // sequence not of this generation, or the slot the hash picks first where all are (the oldest
  // kept answer is not tracked: a miss costs one test).
  void put(const uint64_t* mask, int32_t gpus, uint64_t gen, const Answer& a) {
    if (slots_.empty()) return;
    if (!table()) {  // only the last answer is asked for: no hash
      slots_[last_] = Slot{gen, 0, gpus, a};
      std::copy_n(mask, nw_, masks_.begin() + static_cast<ptrdiff_t>(last_ * nw_));
      return;
    }
    const uint64_t h = hash(mask, gpus);
    const size_t m = slots_.size() - 1;
    size_t at = h & m;
    for (size_t p = 0; p < kProbe; ++p) {
      const size_t i = (h + p) & m;
      if (slots_[i].gen != gen) {
        at = i;
        break;
      }
    }
    slots_[at] = Slot{gen, h, gpus, a};
    std::copy_n(mask, nw_, masks_.begin() + static_cast<ptrdiff_t>(at * nw_));
    last_ = at;
  }

 private:
  static constexpr size_t kProbe = 8;
  struct Slot {
    uint64_t gen = 0;  // 0: empty
    uint64_t hash = 0;
    int32_t gpus = 0;
    Answer a;
  };
  // A multiply-add over the words, mixed once at the end (fixed constants: the same slots on
  // every run; the slot index is the low bits, which the final shifts fill from the high ones).
  uint64_t hash(const uint64_t* mask, int32_t gpus) const {
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(static_cast<uint32_t>(gpus));
    for (size_t w = 0; w < nw_; ++w) x = x * 0xbf58476d1ce4e5b9ULL + mask[w];
    x ^= x >> 31;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 29);
  }
  bool same(const uint64_t* __restrict a, const uint64_t* __restrict b) const {
    uint64_t d = 0;  // compared inline: a memcmp call costs more at a few words
    for (size_t w = 0; w < nw_; ++w) d |= a[w] ^ b[w];
    return d == 0;
  }
  size_t nw_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint64_t> masks_;  // slot i's mask: words [i * nw_, (i + 1) * nw_)
  size_t last_ = 0;              // the slot last kept or found
};

}  // namespace floorsim::slurm
