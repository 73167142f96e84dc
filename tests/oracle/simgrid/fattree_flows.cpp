// SimGrid oracle for floorsim's fabric model: the completion time of every flow of a flow set
// on a SimGrid FAT_TREE cluster, under pure max-min sharing. Built against SimGrid 3.32 by
// tests/oracle/simgrid/record.sh (see README.md there); not built by floorsim's CMake.
//
//   fattree_flows "h;m1,..;w1,..;p1,.." TIER_BW flows.csv [--cfg=...]
//
// TIER_BW: bandwidth of every link of each tier, bytes/s, comma-separated, tier 0 (host links)
// first ("1.25e9,6.25e8,3.125e8" tapers the uplinks); one value = every tier.
// flows.csv: "src,dst,bytes,start_s" per line (host positions, SimGrid's d-mod-k index).
// Prints "flow,src,dst,bytes,start_s,simgrid_finish_s,route" per flow, the finish time with 17
// significant digits, the route as floorsim directed link ids (fabric/topology.hpp numbering)
// separated by spaces, so a test can set SimGrid's route beside floorsim's.
//
// Run with --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0:
// with zero latency CM02 is plain max-min (weight-S 0, bandwidth and latency factors 1).
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

std::vector<unsigned> split_uints(const std::string& s) {
  std::vector<unsigned> out;
  std::stringstream ss(s);
  for (std::string tok; std::getline(ss, tok, ',');) out.push_back(static_cast<unsigned>(std::stoul(tok)));
  return out;
}

std::vector<double> split_doubles(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  for (std::string tok; std::getline(ss, tok, ',');) out.push_back(std::stod(tok));
  return out;
}

struct Flow {
  unsigned src = 0, dst = 0;
  double bytes = 0, start_s = 0, finish_s = -1;
};

struct Tree {
  unsigned h = 0;
  std::vector<unsigned> m, w, p;
  std::vector<unsigned long> nodes;       // nodes per level 0..h
  std::vector<unsigned long> tier_first;  // first SimGrid link uid of each tier (links are
                                          // created tier by tier, see FatTreeZone::build_upper_levels)
  std::vector<unsigned long> fs_tier_base;  // floorsim's first directed link id of each tier

  explicit Tree(const std::string& params) {
    std::vector<std::string> parts;
    std::stringstream ss(params);
    for (std::string tok; std::getline(ss, tok, ';');) parts.push_back(tok);
    if (parts.size() != 4) throw std::invalid_argument("topology must be h;m..;w..;p..");
    h = static_cast<unsigned>(std::stoul(parts[0]));
    m = split_uints(parts[1]);
    w = split_uints(parts[2]);
    p = split_uints(parts[3]);
    nodes.assign(h + 1, 1);
    for (unsigned l = 0; l <= h; ++l)
      for (unsigned j = 0; j < h; ++j) nodes[l] *= j < l ? w[j] : m[j];
    unsigned long uid = 0, fs = 0;
    for (unsigned t = 0; t < h; ++t) {
      tier_first.push_back(uid);
      fs_tier_base.push_back(fs);
      uid += nodes[t] * w[t] * p[t];
      fs += 2 * nodes[t] * w[t] * p[t];
    }
  }
  unsigned long hosts() const { return nodes[0]; }

  // SimGrid's position of a level-l node: b_1 + w_1 b_2 + .. (b_1 least significant), then the
  // a digits. floorsim's index (topology.hpp): A * W_l + B, B = b_l + w_l * B_{l-1} (b_1 most
  // significant). Same A; the b digits are re-read.
  unsigned long floorsim_index(unsigned l, unsigned long sg_pos) const {
    unsigned long W = 1;
    for (unsigned j = 0; j < l; ++j) W *= w[j];
    unsigned long b_sg = sg_pos % W, A = sg_pos / W, B = 0;
    for (unsigned j = 0; j < l; ++j) {  // b_{j+1} = digit j of b_sg
      B = B * w[j] + b_sg % w[j];
      b_sg /= w[j];
    }
    return A * W + B;
  }

  // floorsim directed link id of SimGrid link uid `uid` in direction dir (0 up, 1 down).
  unsigned long floorsim_link(unsigned long uid, unsigned dir) const {
    unsigned t = h - 1;
    while (uid < tier_first[t]) --t;
    const unsigned long q = uid - tier_first[t];
    const unsigned long child = q / (w[t] * p[t]);        // SimGrid position at level t
    const unsigned long parent_digit = (q / p[t]) % w[t];  // b_{t+1} of the parent
    const unsigned long cable = q % p[t];
    const unsigned long port = parent_digit * p[t] + cable;  // floorsim: port u -> parent u / p
    return fs_tier_base[t] + (floorsim_index(t, child) * w[t] * p[t] + port) * 2 + dir;
  }
};

// "link_from_<child>_<parent>_<uid>_UP" -> (uid, 0); "_DOWN" -> (uid, 1).
std::pair<unsigned long, unsigned> parse_link(const std::string& name) {
  const bool up = name.size() > 3 && name.compare(name.size() - 3, 3, "_UP") == 0;
  const std::string stem = name.substr(0, name.size() - (up ? 3 : 5));
  return {std::stoul(stem.substr(stem.rfind('_') + 1)), up ? 0u : 1u};
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s h;m..;w..;p.. TIER_BW flows.csv [--cfg=...]\n", argv[0]);
    return 2;
  }
  const Tree tree(argv[1]);
  std::vector<double> bw = split_doubles(argv[2]);
  if (bw.size() == 1) bw.assign(tree.h, bw[0]);
  if (bw.size() != tree.h) {
    std::fprintf(stderr, "TIER_BW needs one value or %u\n", tree.h);
    return 2;
  }

  std::vector<Flow> flows;
  std::ifstream in(argv[3]);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("src", 0) == 0) continue;
    std::stringstream ss(line);
    Flow f;
    char c;
    ss >> f.src >> c >> f.dst >> c >> f.bytes >> c >> f.start_s;
    flows.push_back(f);
  }

  // Hosts named host<position>; zero latency; split-duplex links (one per direction, as
  // floorsim's directed links). The zone is built with tier 0's bandwidth, then each link gets
  // its tier's.
  auto make_host = [](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    const sg4::Host* host = zone->create_host("host" + std::to_string(id), 1e9)->seal();
    return std::make_pair(host->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  sg4::create_fatTree_zone("fattree", nullptr, {tree.h, tree.m, tree.w, tree.p},
                           sg4::ClusterCallbacks(make_host), bw[0], 0.0,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  for (sg4::Link* link : e.get_all_links()) {
    if (link->get_name().rfind("link_from_", 0) != 0) continue;  // the model's loopback
    const auto [uid, dir] = parse_link(link->get_name());
    unsigned t = tree.h - 1;
    while (uid < tree.tier_first[t]) --t;
    if (bw[t] != bw[0]) link->set_bandwidth(bw[t]);
  }

  std::vector<sg4::Host*> hosts(tree.hosts());
  for (unsigned long i = 0; i < tree.hosts(); ++i) hosts[i] = e.host_by_name("host" + std::to_string(i));

  for (size_t i = 0; i < flows.size(); ++i) {
    sg4::Actor::create("flow" + std::to_string(i), hosts[flows[i].src], [&flows, &hosts, i]() {
      Flow& f = flows[i];
      if (f.start_s > 0) sg4::this_actor::sleep_until(f.start_s);
      sg4::Comm::sendto(hosts[f.src], hosts[f.dst], static_cast<uint64_t>(f.bytes));
      f.finish_s = sg4::Engine::get_clock();
    });
  }
  e.run();

  std::printf("# SimGrid %d.%d.%d (%s), FAT_TREE %s, tier bandwidth %s B/s, zero latency, split-duplex\n",
              SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH, SIMGRID_GIT_VERSION, argv[1],
              argv[2]);
  std::printf("flow,src,dst,bytes,start_s,simgrid_finish_s,route\n");
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    std::vector<sg4::Link*> route;
    double latency = 0;
    hosts[f.src]->route_to(hosts[f.dst], route, &latency);
    std::string r;
    for (const sg4::Link* l : route) {
      const auto [uid, dir] = parse_link(l->get_name());
      r += (r.empty() ? "" : " ") + std::to_string(tree.floorsim_link(uid, dir));
    }
    std::printf("%zu,%u,%u,%.17g,%.17g,%.17g,%s\n", i, f.src, f.dst, f.bytes, f.start_s, f.finish_s, r.c_str());
  }
  return 0;
}
