// topology/tree and topology/block placement (spec slurm-model.md §7): the pure functions of
// schedulers/slurm/topology.hpp, table-driven.
#include <catch2/catch.hpp>

#include "schedulers/slurm/topology.hpp"

using namespace floorsim;
using namespace floorsim::slurm;

namespace {

std::vector<std::string> names8() {
  std::vector<std::string> v;
  for (int i = 1; i <= 8; ++i) v.push_back("n00" + std::to_string(i));
  return v;
}

// l1: n001-n002, l2: n003-n004, l3: n005-n006, l4: n007-n008; a: l1,l2; b: l3,l4; root: a,b.
topo::Tree tree8(bool with_root) {
  std::vector<topo::SwitchDef> d = {{"l1", {"n001", "n002"}, {}}, {"l2", {"n003", "n004"}, {}},
                                    {"l3", {"n005", "n006"}, {}}, {"l4", {"n007", "n008"}, {}},
                                    {"a", {}, {"l1", "l2"}},       {"b", {}, {"l3", "l4"}}};
  if (with_root) d.push_back({"root", {}, {"a", "b"}});
  topo::Tree t;
  const auto names = names8();
  REQUIRE(topo::build_tree(d, names, t).empty());
  return t;
}

JobSpec job(int32_t gpus, int32_t nodes) {
  JobSpec j;
  j.gpus = gpus;
  j.nodes = nodes;
  return j;
}

std::vector<int> nodes_of(const std::vector<NodeShare>& out) {
  std::vector<int> v;
  for (const auto& s : out) v.push_back(static_cast<int>(s.node) + 1);
  return v;
}


}  // namespace

TEST_CASE("topology/tree: lowest switch, best fit on leaves, --switches", "[slurm][topology]") {
  struct Case {
    const char* what;
    std::vector<int32_t> free;
    int32_t gpus, nodes;
    bool root;
    uint32_t max_leaves;
    bool best_effort;
    bool ok;
    std::vector<int> nodes_out;  // 1-based
    uint32_t spans;
    bool switch_wait;
  };
  const std::vector<Case> cases = {
      {"all free: the first leaf", {8, 8, 8, 8, 8, 8, 8, 8}, 8, 1, true, 0, false, true, {1}, 1, false},
      {"best fit: the leaf with the fewest free GPUs that holds it", {8, 0, 8, 8, 8, 8, 8, 8}, 8, 0, true, 0, false, true, {1}, 1, false},
      {"best fit skips a leaf too small", {4, 0, 8, 0, 8, 8, 8, 8}, 8, 0, true, 0, false, true, {3}, 1, false},
      {"3 nodes: lowest switch a, largest leaf then the one that holds the rest", {8, 8, 8, 8, 8, 8, 8, 8}, 24, 3, true, 0, false, true, {1, 2, 3}, 2, false},
      {"3 nodes: switch b is the better fit (fewer usable nodes)", {8, 8, 8, 8, 8, 8, 8, 0}, 24, 3, true, 0, false, true, {5, 6, 7}, 2, false},
      {"best fit leaf inside the switch: the smallest that holds the rest", {8, 0, 8, 8, 8, 8, 0, 0}, 24, 3, true, 0, false, true, {1, 3, 4}, 2, false},
      {"no common parent: never spans a and b", {0, 0, 0, 8, 0, 0, 0, 8}, 16, 2, false, 0, false, false, {}, 0, false},
      {"with a root it spans them", {0, 0, 0, 8, 0, 0, 0, 8}, 16, 2, true, 0, false, true, {4, 8}, 2, false},
      {"--switches=1 waits when only 2 leaves hold it", {0, 8, 8, 0, 0, 0, 0, 0}, 16, 2, true, 1, false, false, {}, 2, true},  // spans: what it would need
      {"--switches=1 after the wait: best effort", {0, 8, 8, 0, 0, 0, 0, 0}, 16, 2, true, 1, true, true, {2, 3}, 2, false},
      {"--switches=2 is met", {0, 8, 8, 0, 0, 0, 0, 0}, 16, 2, true, 2, false, true, {2, 3}, 2, false},
      {"--switches=1 is met by one leaf", {0, 8, 8, 8, 0, 0, 0, 0}, 16, 2, true, 1, false, true, {3, 4}, 1, false},
      {"GPUs only (no node count) spread inside one leaf", {4, 4, 8, 0, 0, 0, 0, 0}, 8, 0, true, 0, false, true, {3}, 1, false},
      {"does not fit at all", {0, 0, 0, 0, 0, 0, 0, 4}, 8, 0, true, 0, false, false, {}, 0, false},
  };
  topo::Scratch s;
  std::vector<NodeShare> out;
  const std::vector<uint8_t> allowed(8, 1);
  for (const auto& c : cases) {
    INFO(c.what);
    const topo::Tree t = tree8(c.root);
    topo::Outcome oc;
    const bool ok = topo::place_tree(job(c.gpus, c.nodes), c.free, allowed, t, c.max_leaves, c.best_effort, 8, s, out, oc);
    CHECK(ok == c.ok);
    CHECK(nodes_of(out) == c.nodes_out);
    CHECK(oc.spans == c.spans);
    CHECK(oc.switch_wait == c.switch_wait);
  }
}

TEST_CASE("topology/tree: node Weight orders nodes inside the leaf; allowed mask", "[slurm][topology]") {
  topo::Tree t = tree8(true);
  topo::Scratch s;
  std::vector<NodeShare> out;
  topo::Outcome oc;
  const std::vector<int32_t> free(8, 8);
  std::vector<uint8_t> allowed(8, 1);
  REQUIRE(topo::place_tree(job(8, 1), free, allowed, t, 0, false, 8, s, out, oc));
  CHECK(nodes_of(out) == std::vector<int>{1});
  const std::vector<NodeIdx> order = {1, 0, 2, 3, 4, 5, 6, 7};  // n002 weighs less than n001
  t.members = topo::group_nodes(t.leaf_of_node, t.switches(), order);
  REQUIRE(topo::place_tree(job(8, 1), free, allowed, t, 0, false, 8, s, out, oc));
  CHECK(nodes_of(out) == std::vector<int>{2});
  // Weight tiers (eval_nodes_topo's node weight list): the lowest weights that can hold the job.
  t.node_weight = {1, 10, 10, 10, 1, 10, 10, 10};
  t.by_weight = {0, 4, 1, 2, 3, 5, 6, 7};
  t.members = topo::group_nodes(t.leaf_of_node, t.switches(), t.by_weight);
  REQUIRE(topo::place_tree(job(16, 2), free, allowed, t, 0, false, 8, s, out, oc));
  CHECK(nodes_of(out) == std::vector<int>{1, 5});  // weight 1 wins over one leaf
  CHECK(oc.spans == 2);
  REQUIRE(topo::place_tree(job(24, 3), free, allowed, t, 0, false, 8, s, out, oc));
  CHECK(nodes_of(out) == std::vector<int>{1, 2, 3});  // weight 1 cannot hold it: every node
  t.node_weight.clear();
  allowed = {0, 0, 0, 0, 1, 1, 1, 1};  // a partition of n005-n008
  REQUIRE(topo::place_tree(job(16, 2), free, allowed, t, 0, false, 8, s, out, oc));
  CHECK(nodes_of(out) == std::vector<int>{5, 6});
}

TEST_CASE("topology/tree: tree building and errors", "[slurm][topology]") {
  const auto names = names8();
  const topo::Tree t = tree8(true);
  CHECK(t.max_level == 2);
  CHECK(t.level[6] == 2);
  CHECK(t.leaves_off[7] - t.leaves_off[6] == 4);
  topo::Tree x;
  CHECK_THAT(topo::build_tree({{"l1", {"n001", "n009"}, {}}}, names, x), Catch::Contains("lacks"));
  CHECK_THAT(topo::build_tree({{"l1", {"n001", "n002", "n003", "n004", "n005", "n006", "n007"}, {}}}, names, x),
             Catch::Contains("node n008 is under no leaf switch"));
  CHECK_THAT(topo::build_tree({{"l1", {"n00[1-8]"}, {}}, {"s", {}, {"zz"}}}, names, x), Catch::Contains("lacks"));
  std::vector<topo::SwitchDef> d = {{"l1", {"n001", "n002", "n003", "n004", "n005", "n006", "n007", "n008"}, {}},
                                    {"s", {}, {"zz"}}};
  CHECK_THAT(topo::build_tree(d, names, x), Catch::Contains("switch zz which is not defined"));
  const topo::Tree f = topo::tree_from_leaves(std::vector<uint32_t>{0, 0, 1, 1}, std::vector<std::string>{"e0", "e1"});
  CHECK(f.switches() == 3);
  CHECK(f.max_level == 1);
  CHECK(f.leaf_of_node == std::vector<uint32_t>{0, 0, 1, 1});
}

TEST_CASE("topology/block: smallest level, strict, best fit, segments", "[slurm][topology]") {
  const auto names = names8();
  std::vector<topo::SwitchDef> d = {{"b1", {"n001", "n002"}, {}}, {"b2", {"n003", "n004"}, {}},
                                    {"b3", {"n005", "n006"}, {}}, {"b4", {"n007", "n008"}, {}}};
  topo::Blocks b;
  REQUIRE(topo::build_blocks(d, names, {}, b).empty());
  CHECK(b.level_blocks == std::vector<uint32_t>{1, 2, 4});  // the default 1,2,4,8,16, cut at 4 blocks
  topo::Blocks b2;
  const std::vector<int64_t> sizes = {2, 4};
  REQUIRE(topo::build_blocks(d, names, sizes, b2).empty());
  CHECK(b2.level_blocks == std::vector<uint32_t>{1, 2});
  struct Case {
    const char* what;
    const topo::Blocks* blocks;
    std::vector<int32_t> free;
    int32_t gpus, nodes, segment;
    bool ok;
    std::vector<int> nodes_out;
    uint32_t spans;
  };
  const std::vector<Case> cases = {
      {"2 nodes: one base block, best fit", &b, {0, 8, 8, 8, 8, 8, 8, 8}, 16, 2, 0, true, {3, 4}, 1},
      {"3 nodes: level 2 blocks, best fit group, largest block first", &b, {0, 8, 8, 8, 8, 8, 8, 8}, 24, 3, 0, true, {2, 3, 4}, 2},
      {"3 nodes: strictly inside one level-2 block", &b, {8, 8, 0, 0, 8, 0, 0, 0}, 24, 3, 0, false, {}, 0},
      {"1 node (GPUs only): the fullest base block that holds it", &b, {8, 8, 8, 0, 8, 8, 8, 8}, 8, 0, 0, true, {3}, 1},
      {"6 nodes over the largest level (4 nodes): anywhere", &b2, {8, 8, 8, 8, 8, 8, 8, 8}, 48, 6, 0, true, {1, 2, 3, 4, 5, 6}, 3},
      {"4 nodes without segments: the level-2 block that holds them", &b, {0, 8, 8, 8, 8, 8, 8, 8}, 32, 4, 0, true, {5, 6, 7, 8}, 2},
      {"4 nodes in segments of 2: each in a base block", &b, {0, 8, 8, 8, 8, 8, 8, 8}, 32, 4, 2, true, {3, 4, 5, 6}, 2},
      {"segments of 2 need whole base blocks", &b, {0, 8, 8, 0, 8, 0, 8, 8}, 32, 4, 2, false, {}, 0},
  };
  topo::Scratch s;
  std::vector<NodeShare> out;
  const std::vector<uint8_t> allowed(8, 1);
  for (const auto& c : cases) {
    INFO(c.what);
    topo::Outcome oc;
    const bool ok = topo::place_block(job(c.gpus, c.nodes), c.free, allowed, *c.blocks, c.segment, 8, s, out, oc);
    CHECK(ok == c.ok);
    CHECK(nodes_of(out) == c.nodes_out);
    CHECK(oc.spans == c.spans);
  }
  topo::Blocks x;
  CHECK_THAT(topo::build_blocks(d, names, std::vector<int64_t>{2, 6}, x), Catch::Contains("power-of-2"));
  CHECK_THAT(topo::build_blocks(d, names, std::vector<int64_t>{3}, x), Catch::Contains("base blocks hold 2"));
  CHECK_THAT(topo::build_blocks(d, names, std::vector<int64_t>{2, 4, 8, 16}, x), Catch::Contains("there are 4"));
  CHECK_THAT(topo::build_blocks({{"b1", {}, {}}}, names, {}, x), Catch::Contains("block b1 has no nodes"));
}

TEST_CASE("fragmentation index", "[slurm][topology]") {
  std::vector<int64_t> g;
  const std::vector<uint32_t> grp = {0, 0, 1, 1};
  CHECK(topo::fragmentation(std::vector<int32_t>{8, 0, 0, 8}, grp, 2, g) == Approx(0.5));
  CHECK(topo::fragmentation(std::vector<int32_t>{8, 8, 0, 0}, grp, 2, g) == Approx(0.0));
  CHECK(topo::fragmentation(std::vector<int32_t>{0, 0, 0, 0}, grp, 2, g) == Approx(0.0));
  CHECK(topo::fragmentation(std::vector<int32_t>{6, 0, 2, 0}, grp, 2, g) == Approx(0.25));
}
