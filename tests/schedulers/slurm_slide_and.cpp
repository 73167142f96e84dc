// SlideAnd (schedulers/slurm/bitset.hpp): the AND of a sliding window of node bitsets, which
// backfill_job's retries use instead of ANDing every slice of each window again. Every query is
// checked against the AND recomputed from the window's items.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "schedulers/slurm/bitset.hpp"

using floorsim::slurm::SlideAnd;

namespace {
// Runs ops on a SlideAnd of nw words: 'p' pushes the next item, 'o' pops the head, 'q' checks
// the window's AND against the items in it (all ones when empty), 'l' checks last_within from
// every position. Items are taken in turn.
// s is cleared first (a SlideAnd is reused from one backfill test to the next).
void run_ops(SlideAnd& s, size_t nw, const std::vector<std::vector<uint64_t>>& items, const std::string& ops) {
  s.clear(nw);
  size_t head = 0, tail = 0;
  std::vector<uint64_t> out(nw);
  for (const char op : ops) {
    if (op == 'p') {
      REQUIRE(tail < items.size());
      s.push(items[tail++].data());
    } else if (op == 'o') {
      s.pop();
      if (head < tail) ++head;
    } else if (op == 'l') {
      // last_within from every position, against the suffix ANDs recomputed: keep = the
      // window's AND (every position passes) and the AND of its second half (the answer moves),
      // with every bit selected and every other one. The answer is the last passing position
      // at or after `from`.
      std::vector<std::vector<uint64_t>> suf(tail - head + 1, std::vector<uint64_t>(nw, ~uint64_t{0}));
      for (size_t i = tail; i-- > head;)
        for (size_t w = 0; w < nw; ++w) suf[i - head][w] = suf[i - head + 1][w] & items[i][w];
      for (const auto& keep : {suf[0], suf[(tail - head) / 2]})
        for (const uint64_t selw : {~uint64_t{0}, uint64_t{0x5555555555555555}}) {
          const std::vector<uint64_t> sel(nw, selw);
          size_t last = SIZE_MAX;
          for (size_t q = head; q < tail; ++q) {
            uint64_t out = 0;
            for (size_t w = 0; w < nw; ++w) out |= suf[q - head][w] & sel[w] & ~keep[w];
            if (out == 0) last = q;
          }
          for (size_t from = head; from < tail; ++from) {
            INFO("from " << from << " head " << head << " tail " << tail);
            CHECK(s.last_within(from, sel.data(), keep.data()) == (last != SIZE_MAX && last >= from ? last : SIZE_MAX));
          }
        }
    } else {
      std::vector<uint64_t> want(nw, ~uint64_t{0});
      for (size_t i = head; i < tail; ++i)
        for (size_t w = 0; w < nw; ++w) want[w] &= items[i][w];
      s.and_into(out.data());
      CHECK(s.size() == tail - head);
      CHECK(out == want);
    }
  }
}

void run_ops(size_t nw, const std::vector<std::vector<uint64_t>>& items, const std::string& ops) {
  SlideAnd s;
  run_ops(s, nw, items, ops);
}

// Items of nw mostly-set words from a xorshift seeded by seed.
std::vector<std::vector<uint64_t>> random_items(size_t n, size_t nw, uint64_t seed) {
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  std::vector<std::vector<uint64_t>> items(n, std::vector<uint64_t>(nw));
  for (auto& it : items)
    for (auto& w : it) {
      uint64_t v = ~uint64_t{0};
      for (int k = 0; k < 2; ++k) x ^= x << 13, x ^= x >> 7, x ^= x << 17, v &= ~(x & (x >> 5));
      w = v;
    }
  return items;
}
}  // namespace

TEST_CASE("SlideAnd: the window's AND after pushes and pops", "[slurm][backfill][bitset]") {
  struct Row {
    const char* what;
    size_t nw;
    std::vector<std::vector<uint64_t>> items;
    std::string ops;
  };
  const std::vector<Row> rows = {
      {"empty window: all ones", 1, {}, "q"},
      {"one item", 1, {{0b1011}}, "pq"},
      {"pushes only (tail part alone)", 1, {{0b1111}, {0b0111}, {0b0110}}, "pqpqpq"},
      {"a pop moves the head into the suffix part", 1, {{0b0001}, {0b1110}, {0b1100}}, "pppqoqoqoq"},
      {"pushes after a rebuild join the tail part", 1, {{0b0011}, {0b1111}, {0b0110}, {0b0100}}, "ppqopqpqoqoq"},
      {"popping past every item empties it", 1, {{0b01}, {0b10}, {0b11}}, "ppoooqpq"},
      {"two words, one cleared in the head only", 2, {{0, ~0ull}, {~0ull, 1}, {~0ull, 3}}, "pppqoqoqoq"},
      {"last_within over the suffix part and the tail part", 1,
       {{0b1110}, {0b0111}, {0b1011}, {0b1101}, {0b1111}, {0b0110}}, "pppqlpplopqlolool"},
      {"three words sliding by one", 3,
       {{1, 2, 4}, {3, 6, 12}, {7, 14, 28}, {5, 10, 20}, {15, 30, 60}},
       "ppqopqopqopqoqoqoq"},
  };
  for (const auto& r : rows) {
    SECTION(r.what) { run_ops(r.nw, r.items, r.ops); }
  }
}

TEST_CASE("SlideAnd: long random slides match the recomputed AND", "[slurm][backfill][bitset]") {
  for (size_t nw : {1u, 2u, 5u}) {
    uint64_t x = 0x9E3779B97F4A7C15ull * (nw + 1);
    auto next = [&x] {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      return x;
    };
    std::vector<std::vector<uint64_t>> items(400, std::vector<uint64_t>(nw));
    // Mostly-set words, so that a window's AND is rarely 0 and a wrong item shows.
    for (auto& it : items)
      for (auto& w : it) w = next() | next() | next();
    std::string ops;
    size_t pushed = 0;
    while (pushed < items.size()) {
      const uint64_t r = next() % 8;
      if (r < 4) ops += 'p', ++pushed;
      else if (r < 6) ops += 'o';
      ops += 'q';
      if (r == 7) ops += 'l';
    }
    run_ops(nw, items, ops);
  }
}

// clear() keeps the storage: a window after a longer or wider one must not see its items or
// suffix ANDs (nothing of the last test's window is left in the next one's AND).
TEST_CASE("SlideAnd: reused after clear, windows of other lengths and widths", "[slurm][backfill][bitset]") {
  SlideAnd s;
  const std::string slide = "pppqlopqlopqopqloqoql";
  run_ops(s, 8, random_items(40, 8, 1), "pppppppppppppppppppppppppppppppqloooooooooooql" + slide);
  run_ops(s, 3, random_items(10, 3, 2), slide);
  run_ops(s, 1, random_items(10, 1, 3), slide);
  run_ops(s, 12, random_items(60, 12, 4), slide + slide + "ppppppppppqlooooooqlpppppppppppppql");
  run_ops(s, 2, random_items(8, 2, 5), slide);
}
