#pragma once
// Node bitsets (64 nodes a word) for the backfill plan: popcounts and packing byte-per-node masks
// into words. Pure helpers, inline: they sit on the backfill pass's hot path.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <algorithm>

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

}  // namespace floorsim::slurm
