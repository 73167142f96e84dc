// WrfCache (schedulers/slurm/wrf_cache.hpp): backfill's will-run answers kept under one plan.
// An answer is given back only for the same plan generation, GPU count and every mask word;
// table-driven over the ways a kept answer must not be taken.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "schedulers/slurm/wrf_cache.hpp"

using floorsim::slurm::WrfCache;

namespace {
std::vector<uint64_t> mask_of(size_t nw, uint64_t seed) {
  std::vector<uint64_t> m(nw);
  uint64_t x = 0x9E3779B97F4A7C15ull ^ seed;
  for (auto& w : m) x ^= x << 13, x ^= x >> 7, x ^= x << 17, w = x;
  return m;
}
}  // namespace

TEST_CASE("WrfCache: a kept answer only for the same generation, GPUs and mask", "[slurm][backfill]") {
  for (const size_t nw : {1u, 2u, 3u, 8u, 33u}) {
    WrfCache c;
    c.reset(nw);
    INFO(nw << " words, table " << c.table());
    CHECK(c.table() == (nw > 2));
    const auto m = mask_of(nw, 1);
    c.put(m.data(), 16, 7, {true, 12, 3600.0});
    const WrfCache::Answer* a = c.find(m.data(), 16, 7);
    REQUIRE(a != nullptr);
    CHECK(a->ok);
    CHECK(a->k == 12);
    CHECK(a->t == 3600.0);
    struct Row {
      const char* what;
      int32_t gpus;
      uint64_t gen;
      size_t word;  // the word whose bit 0 is flipped (nw: none)
    };
    const Row misses[] = {
        {"another GPU count", 8, 7, nw},
        {"another plan", 16, 8, nw},
        {"the first word differs", 16, 7, 0},
        {"the last word differs", 16, 7, nw - 1},
    };
    for (const auto& r : misses) {
      INFO(r.what);
      auto q = m;
      if (r.word < nw) q[r.word] ^= 1;
      CHECK(c.find(q.data(), r.gpus, r.gen) == nullptr);
    }
    CHECK(c.find(m.data(), 16, 7) != nullptr);
  }
}

// Many masks under one plan: each found again with its own answer, or not at all (an evicted
// one), never another's; a new generation finds none of them. Without the table (up to 2
// words) only the last answer put is found.
TEST_CASE("WrfCache: many masks under one plan, then another plan", "[slurm][backfill]") {
  for (const size_t nw : {2u, 3u, 8u, 300u}) {
    INFO(nw << " words");
    WrfCache c;
    c.reset(nw);
    const int n = 3000;  // more than the table holds: evictions
    auto gpus_of = [](int i) { return 1 + i % 5; };
    for (int i = 0; i < n; ++i) {
      const auto m = mask_of(nw, static_cast<uint64_t>(i));
      c.put(m.data(), gpus_of(i), 2, {i % 3 != 0, static_cast<uint32_t>(i), static_cast<double>(i)});
    }
    int found = 0;
    for (int i = 0; i < n; ++i) {
      const auto m = mask_of(nw, static_cast<uint64_t>(i));
      const WrfCache::Answer* a = c.find(m.data(), gpus_of(i), 2);
      if (a == nullptr) continue;
      ++found;
      INFO("mask " << i);
      CHECK(a->k == static_cast<uint32_t>(i));
      CHECK(a->ok == (i % 3 != 0));
      CHECK(c.find(m.data(), gpus_of(i + 1), 2) == nullptr);
    }
    if (c.table()) CHECK(found >= 64);  // the table holds at least 64 answers, most of the last ones put
    else CHECK(found == 1);             // the last one
    for (int i = 0; i < n; i += 97) {
      const auto m = mask_of(nw, static_cast<uint64_t>(i));
      CHECK(c.find(m.data(), gpus_of(i), 3) == nullptr);
    }
    const auto last = mask_of(nw, n - 1);
    CHECK(c.find(last.data(), gpus_of(n - 1), 2) != nullptr);
  }
}
