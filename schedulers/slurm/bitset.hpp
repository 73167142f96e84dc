#pragma once
// Node bitsets (64 nodes a word) for the backfill plan: popcounts and packing byte-per-node masks
// into words. Pure helpers, inline: they sit on the backfill pass's hot path.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <vector>

namespace floorsim::slurm {

// Bits set in x. Without POPCNT (FLOORSIM_POPCNT=OFF, or not x86-64 with it) std::popcount
// becomes a library call; the fallback is a few instructions inline.
inline int popcount64(uint64_t x) {
#if defined(__POPCNT__) || defined(__ARM_NEON)
  return std::popcount(x);
#else
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

// Bit k: byte k of p[0..8) is not 0 (SWAR: a byte's high bit after the add says "not 0", the
// multiply gathers the 8 high bits into the top byte).
inline uint64_t pack8_nonzero(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
  const uint64_t hi = (((x & lo7) + lo7) | x) & ~lo7;
  return ((hi >> 7) * 0x0102040810204080ULL) >> 56;
}

// A node bitset (64 nodes a word, (n + 63) / 64 words at out) of the nodes whose value is not 0.
// Wider values are narrowed to bytes first (a loop the compiler vectorizes).
template <class T>
[[gnu::always_inline]] inline void pack_nonzero(const T* __restrict src, size_t n, uint64_t* __restrict out) {
  alignas(8) uint8_t buf[64];
  for (size_t w = 0; w * 64 < n; ++w) {
    const size_t n0 = w * 64, m = std::min<size_t>(64, n - n0);
    const uint8_t* b;
    if constexpr (sizeof(T) == 1) {
      b = reinterpret_cast<const uint8_t*>(src + n0);
    } else {
      for (size_t i = 0; i < m; ++i) buf[i] = src[n0 + i] != 0;
      b = buf;
    }
    uint64_t word = 0;
    size_t i = 0;
    for (; i + 8 <= m; i += 8) word |= pack8_nonzero(b + i) << i;
    for (; i < m; ++i) word |= static_cast<uint64_t>(b[i] != 0) << i;
    out[w] = word;
  }
}

// kSpread[b]: the 8 bits of b as 8 bytes of 0/1, lowest bit in the first byte (little endian).
inline constexpr auto kSpread = [] {
  std::array<uint64_t, 256> t{};
  for (uint64_t b = 0; b < 256; ++b)
    for (uint64_t i = 0; i < 8; ++i)
      if ((b >> i) & 1) t[b] |= uint64_t{1} << (8 * i);
  return t;
}();

// The AND of a window of node bitsets (nw words each) whose ends only move forward: a queue
// with push at the tail and pop at the head (two stacks). The head part keeps suffix ANDs,
// rebuilt from the items when the head passes it; the tail part keeps one running AND. Each
// item is ANDed about twice in all, so a window of W items costs O(nw) a query instead of
// O(W nw) (backfill_job's retries AND the slices of a window that slides along the map).
class SlideAnd {
 public:
  void clear(size_t nw) {
    nw_ = nw;
    len_ = 0;  // the storage stays: one backfill test after another refills it
    head_ = mid_ = tail_ = 0;
    back_.assign(nw, ~uint64_t{0});
  }
  size_t size() const { return tail_ - head_; }
  void push(const uint64_t* __restrict bits) {
    // A few words: copied inline (an insert calls memmove, a call per slice that enters).
    const size_t at = len_;
    len_ += nw_;
    if (len_ > items_.size()) items_.resize(std::max(len_, 2 * items_.size()));
    uint64_t* __restrict it = items_.data() + at;
    uint64_t* __restrict bk = back_.data();
    for (size_t w = 0; w < nw_; ++w) {
      it[w] = bits[w];
      bk[w] &= bits[w];
    }
    ++tail_;
  }
  void pop() {
    if (head_ < tail_) ++head_;
  }
  // out (nw words) = the AND of the items in the window; all ones when it is empty.
  void and_into(uint64_t* __restrict out) {
    if (head_ >= mid_) rebuild();
    const uint64_t* __restrict bk = back_.data();
    if (head_ < mid_) {
      const uint64_t* __restrict f = suf_.data() + head_ * nw_;
      for (size_t w = 0; w < nw_; ++w) out[w] = f[w] & bk[w];
    } else {
      for (size_t w = 0; w < nw_; ++w) out[w] = bk[w];
    }
  }
  // Positions count items pushed since clear(); the window is [head, tail).
  size_t head() const { return head_; }
  size_t tail() const { return tail_; }
  // The last position q in [from, tail) at which the AND of the items over [q, tail) has no bit
  // of sel outside keep; SIZE_MAX if there is none. That AND only gains bits as q grows, so the
  // positions that pass are the ones up to the answer. From the tail back over the items pushed
  // since the last rebuild, then a binary search on the suffix ANDs (no item ANDed again).
  size_t last_within(size_t from, const uint64_t* sel, const uint64_t* keep) {
    if (head_ >= mid_) rebuild();
    from = std::max(from, head_);
    acc_.assign(nw_, ~uint64_t{0});
    auto passes = [&](const uint64_t* a, const uint64_t* b) {
      uint64_t out = 0;
      for (size_t w = 0; w < nw_; ++w) out |= a[w] & b[w] & sel[w] & ~keep[w];
      return out == 0;
    };
    for (size_t q = tail_; q-- > std::max(from, mid_);) {
      const uint64_t* it = items_.data() + q * nw_;
      for (size_t w = 0; w < nw_; ++w) acc_[w] &= it[w];
      if (passes(acc_.data(), acc_.data())) return q;
    }
    if (from >= mid_ || !passes(suf_.data() + from * nw_, back_.data())) return SIZE_MAX;
    size_t lo = from, hi = mid_ - 1;  // lo passes
    while (lo < hi) {
      const size_t m = hi - (hi - lo) / 2;
      if (passes(suf_.data() + m * nw_, back_.data())) lo = m;
      else hi = m - 1;
    }
    return lo;
  }

 private:
  // The whole window becomes the head part: suffix ANDs from the tail back.
  void rebuild() {
    if (suf_.size() < len_) suf_.resize(std::max(len_, 2 * suf_.size()));
    for (size_t p = tail_; p-- > head_;) {
      const uint64_t* __restrict it = items_.data() + p * nw_;
      uint64_t* __restrict d = suf_.data() + p * nw_;
      const uint64_t* __restrict after = d + nw_;  // position p + 1's suffix AND
      if (p + 1 == tail_) std::copy_n(it, nw_, d);
      else
        for (size_t w = 0; w < nw_; ++w) d[w] = it[w] & after[w];
    }
    mid_ = tail_;
    std::fill(back_.begin(), back_.end(), ~uint64_t{0});
  }
  size_t nw_ = 0;
  std::vector<uint64_t> items_, suf_, back_;  // items and suffix ANDs by position, nw words each
  size_t len_ = 0;                            // items_'s words in use (its size only grows)
  std::vector<uint64_t> acc_;                 // last_within: the AND from the tail back
  size_t head_ = 0, mid_ = 0, tail_ = 0;      // window [head, tail); suffix ANDs over [head, mid)
};

}  // namespace floorsim::slurm
