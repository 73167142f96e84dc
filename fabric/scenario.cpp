// The fabric scenario format (FABRIC.json): its declaration (cfg::ObjectSpec), parsing and
// validation into a FabricScenario. The analyses that run on it are in signoff.cpp.
#include "fabric/signoff.hpp"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "fabric/analytic.hpp"
#include "fabric/maxmin.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/sha256.hpp"
#include "sim/core/json_errors.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;
using cfg::Type;

namespace {

std::shared_ptr<const cfg::ObjectSpec> tier_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "tier";
  s->doc = "one tier of links (tier 0 = host links, 1 = leaf/edge up, 2 = aggregation up)";
  s->fields = {
      cfg::string("speed", nullptr, "named generation: EDR, HDR, NDR, XDR (InfiniBand) or 100GbE..800GbE").or_null(),
      cfg::number("gbps", nullptr, "link speed per direction when not named").at_least(1e-9).or_null().in_unit("Gb/s"),
      cfg::number("latency_s", 1e-6, "per-hop latency on this tier (zero-load term)").at_least(0).in_unit("s"),
  };
  s->check = [](const json& r, const std::string& p, const std::string& file) {
    if (r["speed"].is_null() == r["gbps"].is_null())
      cfg::fail(file, p, "give exactly one of \"speed\" (a name) and \"gbps\" (a number)");
    if (!r["speed"].is_null() && named_link_gbps(r["speed"].get<std::string>()) < 0)
      cfg::fail(file, cfg::child(p, "speed"),
                fmt::format("unknown link generation {}; expected EDR, HDR, NDR, XDR, 100GbE, 200GbE, 400GbE or 800GbE",
                            r["speed"].dump()));
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> topology_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "topology";
  s->doc = "the fat-tree: k-ary (Al-Fares), two-tier leaf-spine, or a generalized XGFT";
  s->fields = {
      cfg::choice("kind", {"fat_tree", "leaf_spine", "xgft"}, nullptr, "topology family").must(),
      cfg::integer("k", nullptr, "fat_tree: switch radix (even)").at_least(2).at_most(128).or_null(),
      cfg::integer("hosts_per_leaf", nullptr, "leaf_spine: hosts per leaf").at_least(1).or_null(),
      cfg::integer("leaves", nullptr, "leaf_spine: leaf switches").at_least(1).or_null(),
      cfg::integer("spines", nullptr, "leaf_spine: spine switches").at_least(1).or_null(),
      cfg::integer("links_per_spine", 1, "leaf_spine: parallel links from each leaf to each spine").at_least(1),
      cfg::string("notation", nullptr, "xgft: \"h;m1,..;w1,..;p1,..\" (p optional)").or_null(),
      cfg::array_of("m", Type::Int, "xgft: children per level-i switch, i = 1..h"),
      cfg::array_of("w", Type::Int, "xgft: parents per level-(i-1) node"),
      cfg::array_of("p", Type::Int, "xgft: parallel links per parent (default all 1)"),
      cfg::array_of("tiers", tier_spec(), "link speed and latency per tier (one entry = every tier)").must(),
      cfg::array_of("taper", Type::Number,
                    "oversubscription per switch level 1..h-1 (downlink/uplink capacity); sets the upper tiers' capacity"),
      cfg::integer("gpus_per_host", 8, "GPUs per host").at_least(1),
      cfg::integer("nvlink_domain_gpus", nullptr, "GPUs per NVLink domain (a multiple of gpus_per_host; 72 = rack scale)")
          .at_least(1)
          .or_null(),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> routing_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "routing";
  s->fields = {
      cfg::choice("mode", {"dmodk", "ecmp", "split"}, "dmodk",
                  "dmodk = static D-mod-K (InfiniBand ftree), ecmp = per-flow hash, split = ideal split"),
      cfg::integer("seed", 1, "ECMP hash seed").at_least(0),
      cfg::boolean("compare", false,
                   "also run every traffic profile under all three modes, and compare the modes on five random "
                   "permutations of every host (the costliest part of a large pack)"),
      cfg::boolean("adapt", true,
                   "degraded fabric: dmodk fails over to the next live port, ecmp re-hashes over live paths; false = "
                   "static routes, a flow over a dead link is disconnected (SimGrid FAT_TREE)"),
      cfg::choice("parallel_links", {"parents_first", "cables_first"}, "parents_first",
                  "dmodk with several cables to each parent: parents_first = OpenSM ftree (least-loaded parent "
                  "switch, then cable; SimGrid FAT_TREE's way up while only the top tier has parallel cables); "
                  "cables_first = consecutive destinations over one parent's cables first"),
      cfg::any("lid_order", "dmodk's destination order: \"host_index\" (host i has the i-th LID) or a list of "
                            "every host index in LID order")
          .with_default("host_index"),
      cfg::integer("max_split_subflows", 4000000, "ideal split runs needing more sub-flows are skipped (and say so)")
          .at_least(1),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> traffic_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "traffic profile";
  s->fields = {
      cfg::string("name", nullptr, "label").must(),
      cfg::choice("pattern", {"uniform", "permutation", "ring_allreduce", "all_to_all", "incast", "training_allreduce",
                              "var_gather", "explicit", "run_jobs"},
                  nullptr,
                  "traffic pattern (explicit: the flows given in \"flows\"; run_jobs: each started job's collective "
                  "over the nodes it got in a run's jobs.csv, from the job's start_s)")
          .must(),
      cfg::any("hosts", "\"all\", a host count, or a list of host indices").with_default("all"),
      cfg::choice("placement", {"packed", "strided"}, "packed",
                  "with a host count: packed = hosts 0..n-1, strided = spread evenly over the fabric"),
      cfg::number("bytes", 1e9, "bytes per flow (ring: the buffer all-reduced)").at_least(1e-9).in_unit("bytes"),
      cfg::integer("seed", 1, "seed for random patterns").at_least(0),
      cfg::integer("flows_per_host", 1, "uniform: flows each host sends").at_least(1),
      cfg::number("start_s", 0, "arrival time of the profile's flows").at_least(0).in_unit("s"),
      cfg::any("flows", "explicit: a flow-set CSV beside the scenario (src,dst,bytes[,start_s][,path]) or an inline "
                        "array of {src, dst, bytes, start_s, path}; start_s per flow, path = up-ports per level"),
      cfg::string("jobs_csv", nullptr, "run_jobs: a `floorsim run` jobs.csv beside the scenario").or_null(),
      cfg::string("node_names", nullptr,
                  "run_jobs: the fabric's hosts' node names in host-index order, as a Slurm hostlist (\"gpu[01-16]\")")
          .or_null(),
      cfg::choice("collective", {"ring_allreduce", "all_to_all"}, "ring_allreduce",
                  "run_jobs: each job's collective over its nodes (bytes = the buffer all-reduced, or per pair)"),
      cfg::any("classes", "run_jobs: {class: {\"collective\", \"bytes\"}}; when given, only these classes' jobs "
                          "(the others are counted), each with its own collective and bytes"),
      cfg::choice("source", {"profiled", "trace", "assumption"}, "assumption",
                  "where the profile comes from (profiled jobs, trace replay or an assumption)"),
      cfg::string("source_note", "", "what was profiled or replayed"),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> job_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "job";
  s->doc = "a running job's own traffic from its placement (for the scheduler coupling)";
  s->fields = {
      cfg::string("name", nullptr, "label").must(),
      cfg::choice("pattern", {"training_allreduce", "var_gather", "all_to_all", "ring_allreduce", "incast"},
                  "training_allreduce", "the job's collective")
          ,
      cfg::any("hosts", "a host count or a list of host indices (its placement)").must(),
      cfg::choice("placement", {"packed", "strided"}, "packed", "with a host count"),
      cfg::number("bytes", nullptr, "bytes per collective").at_least(1e-9).in_unit("bytes").must(),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> degraded_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "degraded case";
  s->fields = {cfg::string("name", nullptr, "label").must(),
               cfg::array_of("fail", failure_spec(), "what fails (together)").must()};
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> variant_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "variant";
  s->doc = "the same topology with other tier speeds or taper, compared under the same flows";
  s->fields = {cfg::string("name", nullptr, "label").must(),
               cfg::array_of("tiers", tier_spec(), "tier speeds (default: the topology's)"),
               cfg::array_of("taper", Type::Number, "taper per switch level (default: the topology's)")};
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> analytic_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "analytic";
  s->fields = {
      cfg::number("load_fraction", 0.7, "uniform load as a fraction of saturation for the queueing term")
          .at_least(0)
          .at_most(0.999),
      cfg::number("packet_bytes", 4096, "packet size for the queueing term (IB MTU 4096)").at_least(1).in_unit("bytes"),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> mix_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "mix";
  s->doc = "several traffic profiles solved together, each flow arriving at its own start_s";
  s->fields = {cfg::string("name", nullptr, "label").must(),
               cfg::array_of("profiles", Type::String, "names of the traffic profiles sharing the fabric").must()};
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> worst_failure_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "worst failure search";
  s->doc = "every switch and every cable, one at a time, each profile re-run, ranked by flows cut off then slowdown";
  s->fields = {
      cfg::boolean("enabled", false, "run the search"),
      cfg::integer("top", 10, "failures listed per ranking").at_least(1),
      cfg::boolean("host_links", false, "also fail host cables (each cuts off its one host)"),
      cfg::integer("max_candidates", 20000, "searches over more single failures are skipped (and say so)").at_least(1),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> cost_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "cost model";
  s->doc = "prices, and the tapers to price against their slowest flows";
  s->fields = {
      cfg::any("tapers", "tapers to compare: a list of taper lists (one entry per switch level below the top)").must(),
      cfg::number("switch_usd", 0, "price per switch").at_least(0).in_unit("USD"),
      cfg::number("switch_port_usd", 0, "price per switch port (every port of every switch bought)").at_least(0).in_unit("USD"),
      cfg::array_of("cable_usd", Type::Number, "price per cable by tier (one entry = every tier)").must(),
      cfg::number("optics_usd", 0, "price per transceiver (two per cable on an optical tier)").at_least(0).in_unit("USD"),
      cfg::array_of("optical_tiers", Type::Int, "tiers whose cables need optics (default: every tier above the hosts)"),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> root_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "fabric scenario";
  s->doc = "input of `floorsim fabric`";
  s->fields = {
      cfg::string("name", "fabric", "label of the pack"),
      cfg::object("topology", topology_spec(), "the fabric").must(),
      cfg::object("routing", routing_spec(), "routing mode"),
      cfg::array_of("traffic", traffic_spec(), "traffic profiles").must(),
      cfg::boolean("path_latency", true,
                   "completion times add the path's per-hop latency (each tier's latency_s) to the transfer time; "
                   "false = pure max-min sharing, no latency"),
      cfg::array_of("mixes", mix_spec(), "profiles solved together (staggered by their start_s)"),
      cfg::array_of("jobs", job_spec(), "running jobs' own traffic"),
      cfg::array_of("degraded", degraded_spec(), "degraded fabrics"),
      cfg::array_of("variants", variant_spec(), "topology variants compared under the same flows"),
      cfg::object("worst_failure", worst_failure_spec(), "search for the worst single failure"),
      cfg::string("measurements", nullptr,
                   "CSV beside the scenario of hardware measurements (what,where,measured,unit,modelled), each set "
                   "against the modelled figure its JSON pointer names")
          .or_null(),
      cfg::object("analytic", analytic_spec(), "analytic model settings"),
      // Checked against cost_spec() by parse_cost; absent stays absent (packs without it unchanged).
      cfg::any("cost", "cost model: {tapers, switch_usd, switch_port_usd, cable_usd, optics_usd, optical_tiers}: "
                       "switch, cable and optics prices, and the tapers priced against their slowest flows"),
      cfg::integer("full_scale_hosts", nullptr,
                   "hosts of the real fabric this model stands for (required by the sign-off pack; equal to the "
                   "topology's hosts when the model is the full fabric)")
          .at_least(1)
          .or_null(),
  };
  return s;
}

std::vector<TierSpec> parse_tiers(const json& arr, uint32_t h, const std::string& ptr, const std::string& file) {
  if (arr.size() != 1 && arr.size() != h)
    cfg::fail(file, ptr, fmt::format("got {} tiers; expected 1 (every tier alike) or {} (one per tier)", arr.size(), h));
  std::vector<TierSpec> out;
  for (uint32_t i = 0; i < h; ++i) {
    const json& e = arr[arr.size() == 1 ? 0 : i];
    TierSpec ts;
    double gbps;
    if (!e["speed"].is_null()) {
      ts.speed_name = e["speed"].get<std::string>();
      gbps = named_link_gbps(ts.speed_name);
    } else {
      gbps = e["gbps"].get<double>();
    }
    ts.capacity_bytes_per_s = gbps_to_bytes_per_s(gbps);
    ts.latency_s = e["latency_s"].get<double>();
    out.push_back(ts);
  }
  return out;
}

std::vector<double> parse_taper(const json& arr, uint32_t h, const std::string& ptr, const std::string& file) {
  if (arr.size() != h - 1)
    cfg::fail(file, ptr, fmt::format("got {} taper entries; expected {} (one per switch level below the top)", arr.size(), h - 1));
  std::vector<double> out;
  for (size_t i = 0; i < arr.size(); ++i) {
    const double v = arr[i].get<double>();
    if (!(v > 0)) cfg::fail(file, cfg::child(ptr, i), "taper must be > 0 (1 = full bisection)");
    out.push_back(v);
  }
  return out;
}

std::vector<uint32_t> parse_hosts(const json& v, const std::string& placement, uint64_t n_hosts, bool allow_all,
                                  const std::string& ptr, const std::string& file) {
  std::vector<uint32_t> out;
  if (v.is_string() && v.get<std::string>() == "all" && allow_all) return out;  // empty = every host
  if (v.is_number_integer() || v.is_number_unsigned()) {
    const int64_t n = v.get<int64_t>();
    if (n < 1 || static_cast<uint64_t>(n) > n_hosts)
      cfg::fail(file, ptr, fmt::format("got {} hosts; expected 1..{} (the fabric's hosts)", n, n_hosts));
    for (int64_t i = 0; i < n; ++i)
      out.push_back(static_cast<uint32_t>(placement == "strided" ? static_cast<uint64_t>(i) * n_hosts / n : i));
    return out;
  }
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!(v[i].is_number_integer() || v[i].is_number_unsigned()) || v[i].get<int64_t>() < 0 ||
          static_cast<uint64_t>(v[i].get<int64_t>()) >= n_hosts)
        cfg::fail(file, cfg::child(ptr, i), fmt::format("got {}; expected a host index 0..{}", v[i].dump(), n_hosts - 1));
      out.push_back(v[i].get<uint32_t>());
    }
    if (out.empty()) cfg::fail(file, ptr, "empty host list; expected at least one host");
    return out;
  }
  cfg::fail(file, ptr,
            fmt::format("got {}; expected {}a host count or a list of host indices", v.dump(), allow_all ? "\"all\", " : ""));
}

Xgft parse_notation(const std::string& s, const std::string& ptr, const std::string& file) {
  // "h;m1,..;w1,..[;p1,..]"
  std::vector<std::vector<uint32_t>> parts;
  size_t pos = 0;
  try {
    while (pos <= s.size()) {
      size_t end = s.find(';', pos);
      if (end == std::string::npos) end = s.size();
      std::vector<uint32_t> nums;
      std::string part = s.substr(pos, end - pos);
      size_t q = 0;
      while (q <= part.size()) {
        size_t c = part.find(',', q);
        if (c == std::string::npos) c = part.size();
        size_t used = 0;
        const std::string tok = part.substr(q, c - q);
        const unsigned long v = std::stoul(tok, &used);
        if (used != tok.size() || v == 0) throw std::invalid_argument(tok);
        nums.push_back(static_cast<uint32_t>(v));
        q = c + 1;
      }
      parts.push_back(nums);
      pos = end + 1;
    }
  } catch (const std::exception&) {
    cfg::fail(file, ptr, fmt::format("cannot read XGFT notation \"{}\"; expected \"h;m1,..;w1,..;p1,..\" with positive integers", s));
  }
  if (parts.size() < 3 || parts.size() > 4 || parts[0].size() != 1)
    cfg::fail(file, ptr, fmt::format("XGFT notation \"{}\" needs 3 or 4 ';'-separated parts; expected \"h;m..;w..;p..\"", s));
  Xgft x;
  x.h = parts[0][0];
  x.m = parts[1];
  x.w = parts[2];
  x.p = parts.size() == 4 ? parts[3] : std::vector<uint32_t>(x.h, 1);
  if (x.m.size() != x.h || x.w.size() != x.h || x.p.size() != x.h)
    cfg::fail(file, ptr, fmt::format("XGFT notation \"{}\": each list needs h = {} entries", s, x.h));
  return x;
}

// "host_index", or every host once in LID order; returns each host's rank (empty = identity).
std::vector<uint32_t> parse_lid_order(const json& v, uint64_t n_hosts, const std::string& ptr, const std::string& file) {
  if (v.is_string() && v.get<std::string>() == "host_index") return {};
  if (!v.is_array() || v.size() != n_hosts)
    cfg::fail(file, ptr, fmt::format("expected \"host_index\" or a list of all {} host indices in LID order", n_hosts));
  std::vector<uint32_t> rank(n_hosts, UINT32_MAX);
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() >= n_hosts || rank[v[i].get<uint64_t>()] != UINT32_MAX)
      cfg::fail(file, cfg::child(ptr, i), fmt::format("got {}; expected each host index 0..{} exactly once", v[i].dump(), n_hosts - 1));
    rank[v[i].get<uint64_t>()] = static_cast<uint32_t>(i);
  }
  return rank;
}

// A file named in the scenario, relative to the scenario's directory.
std::string beside(const std::string& scenario_file, const std::string& name) {
  const std::filesystem::path p(name);
  if (p.is_absolute()) return name;
  return (std::filesystem::path(scenario_file).parent_path() / p).lexically_normal().string();
}

// Reads a file the pack depends on and records its hash.
std::string read_input(FabricScenario& s, const std::string& path) {
  std::string text = io::read_file(path);
  s.inputs.push_back({path, io::sha256_hex(text), text.size()});
  return text;
}

ExplicitFlows read_explicit(FabricScenario& s, const json& v, const std::string& ptr, const std::string& file,
                            uint32_t tag) {
  if (v.is_string()) {
    const std::string path = beside(file, v.get<std::string>());
    return read_flows_csv(s.topology, path, read_input(s, path), tag);
  }
  return flows_from_json(s.topology, v, ptr, file, tag);
}

JobCollective job_collective(const json& collective, const json& bytes, const std::string& ptr, const std::string& file) {
  JobCollective c;
  if (!collective.is_string() || (collective != "ring_allreduce" && collective != "all_to_all"))
    cfg::fail(file, ptr, fmt::format("collective {}; expected \"ring_allreduce\" or \"all_to_all\"", collective.dump()));
  c.collective = collective == "all_to_all" ? Pattern::AllToAll : Pattern::RingAllReduce;
  if (!bytes.is_number() || !(bytes.get<double>() > 0))
    cfg::fail(file, ptr, fmt::format("bytes {}; expected a number > 0", bytes.dump()));
  c.bytes = bytes.get<double>();
  return c;
}

// A run_jobs profile: the run's jobs.csv (hashed with the other inputs) and how its nodes and
// classes map to fabric hosts and collectives.
RunJobsTraffic read_run(FabricScenario& s, const json& e, const std::string& p, const std::string& file, uint32_t tag) {
  RunJobsOptions o;
  o.tag = tag;
  if (e["node_names"].is_null())
    cfg::fail(file, p, "run_jobs without \"node_names\"; expected the hosts' node names in host-index order (\"gpu[01-16]\")");
  try {
    o.node_names = expand_hostlist(e["node_names"].get<std::string>());
  } catch (const std::invalid_argument&) {
    cfg::fail(file, cfg::child(p, "node_names"), "not a Slurm hostlist; expected names like \"gpu[01-16]\"");
  }
  if (o.node_names.size() != s.topology.hosts())
    cfg::fail(file, cfg::child(p, "node_names"),
              fmt::format("{} names; expected {} (one per fabric host)", o.node_names.size(), s.topology.hosts()));
  std::vector<std::string> sorted = o.node_names;
  std::sort(sorted.begin(), sorted.end());
  if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end())
    cfg::fail(file, cfg::child(p, "node_names"), fmt::format("\"{}\" named twice; expected each host once", *dup));
  o.every = job_collective(e["collective"], e["bytes"], p, file);
  if (e.contains("classes")) {
    const json& c = e["classes"];
    const std::string cp = cfg::child(p, "classes");
    if (!c.is_object() || c.empty())
      cfg::fail(file, cp, "expected an object {class: {\"collective\": ..., \"bytes\": ...}}");
    for (const auto& [name, v] : c.items()) {
      const std::string vp = cfg::child(cp, name);
      if (!v.is_object() || !v.contains("bytes"))
        cfg::fail(file, vp, "expected {\"bytes\": number, \"collective\": \"ring_allreduce\" | \"all_to_all\"}");
      for (const auto& [key, ignored] : v.items())
        if (key != "bytes" && key != "collective")
          cfg::fail(file, cfg::child(vp, key), "unknown key; expected \"bytes\" or \"collective\"");
      o.by_class[name] = job_collective(v.value("collective", json("ring_allreduce")), v["bytes"], vp, file);
    }
  }
  const std::string path = beside(file, e["jobs_csv"].get<std::string>());
  return read_run_jobs(s.topology, path, read_input(s, path), o);
}

// The cost model: prices and, per taper compared, the tapered fabric (its profiles are solved on it).
void parse_cost(FabricScenario& s, const json& c, const std::string& kind, const Xgft& x,
                const std::vector<TierSpec>& tiers, const HostModel& hm, const std::string& file) {
  CostStudy& cs = s.cost;
  cs.enabled = true;
  cs.nominal = build_topology(kind, x, tiers, hm);
  const json& tp = c["tapers"];
  if (!tp.is_array() || tp.empty())
    cfg::fail(file, "/cost/tapers", "expected a list of taper lists, such as [[1, 1], [2, 1]]");
  for (size_t i = 0; i < tp.size(); ++i) {
    const std::string p = cfg::child("/cost/tapers", i);
    if (!tp[i].is_array()) cfg::fail(file, p, "expected a list of numbers (one per switch level below the top)");
    for (size_t k = 0; k < tp[i].size(); ++k)
      if (!tp[i][k].is_number()) cfg::fail(file, cfg::child(p, k), "expected a number");
    cs.tapers.push_back(parse_taper(tp[i], x.h, p, file));
    Topology t = cs.nominal;
    apply_taper(t, cs.tapers.back());
    cs.tapered.push_back(std::move(t));
  }
  const json& cu = c["cable_usd"];
  if (cu.size() != 1 && cu.size() != x.h)
    cfg::fail(file, "/cost/cable_usd", fmt::format("got {} prices; expected 1 (every tier) or {} (one per tier)", cu.size(), x.h));
  for (size_t i = 0; i < cu.size(); ++i) {
    if (cu[i].get<double>() < 0) cfg::fail(file, cfg::child("/cost/cable_usd", i), "expected a price >= 0");
    cs.prices.cable_usd.push_back(cu[i].get<double>());
  }
  cs.prices.switch_usd = c["switch_usd"].get<double>();
  cs.prices.switch_port_usd = c["switch_port_usd"].get<double>();
  cs.prices.optics_usd = c["optics_usd"].get<double>();
  if (c.contains("optical_tiers")) {
    for (size_t i = 0; i < c["optical_tiers"].size(); ++i) {
      const int64_t v = c["optical_tiers"][i].get<int64_t>();
      if (v < 0 || v >= static_cast<int64_t>(x.h))
        cfg::fail(file, cfg::child("/cost/optical_tiers", i), fmt::format("got {}; expected a tier 0..{}", v, x.h - 1));
      cs.prices.optical_tiers.push_back(static_cast<uint32_t>(v));
    }
  } else {
    for (uint32_t tier = 1; tier < x.h; ++tier) cs.prices.optical_tiers.push_back(tier);
  }
}

std::vector<uint32_t> int_list(const json& a) {
  std::vector<uint32_t> v;
  for (const auto& e : a) v.push_back(e.get<uint32_t>());
  return v;
}

}  // namespace

std::shared_ptr<const cfg::ObjectSpec> failure_spec() {
  auto sw = std::make_shared<cfg::ObjectSpec>();
  sw->name = "switch failure";
  sw->fields = {cfg::integer("level", nullptr, "switch level (1 = leaf/edge, h = top)").at_least(1).must(),
                cfg::integer("index", nullptr, "switch index within its level").at_least(0).must()};
  auto ln = std::make_shared<cfg::ObjectSpec>();
  ln->name = "link failure";
  ln->fields = {cfg::integer("tier", nullptr, "tier (0 = host links)").at_least(0).must(),
                cfg::integer("lower", nullptr, "index of the lower node within its level").at_least(0).must(),
                cfg::integer("port", nullptr, "its up-port (parent * p + parallel link)").at_least(0).must()};
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "failure";
  s->doc = "exactly one of switch, link, pod";
  s->fields = {
      cfg::object("switch", sw, "a lost switch (aggregation, spine, core, ...)").or_null(),
      cfg::object("link", ln, "a lost cable (both directions)").or_null(),
      cfg::integer("pod", nullptr, "a lost top-level subtree (k-ary: pod)").at_least(0).or_null(),
  };
  s->check = [](const json& r, const std::string& p, const std::string& file) {
    int n = !r["switch"].is_null() + !r["link"].is_null() + !r["pod"].is_null();
    if (n != 1) cfg::fail(file, p, "give exactly one of \"switch\", \"link\", \"pod\"");
  };
  return s;
}


void apply_failure(const Topology& t, FailureSet& f, const json& fj, const std::string& pointer, const std::string& file) {
  try {
    if (!fj["switch"].is_null())
      fail_switch(t, f, fj["switch"]["level"].get<uint32_t>(), fj["switch"]["index"].get<uint64_t>());
    else if (!fj["link"].is_null())
      fail_link(t, f, fj["link"]["tier"].get<uint32_t>(), fj["link"]["lower"].get<uint64_t>(), fj["link"]["port"].get<uint32_t>());
    else
      fail_pod(t, f, fj["pod"].get<uint64_t>());
  } catch (const std::invalid_argument& ex) {
    cfg::fail(file, pointer, std::string(ex.what()) + "; expected a switch, link or pod of this topology");
  }
}

std::shared_ptr<const cfg::ObjectSpec> fabric_scenario_spec() { return root_spec(); }

FabricScenario parse_fabric_scenario(const json& doc, const std::string& file) {
  FabricScenario s;
  s.resolved = cfg::resolve(doc, *fabric_scenario_spec(), "", file);
  const json& r = s.resolved;
  s.name = r["name"].get<std::string>();
  s.file = file;
  const json& tj = r["topology"];
  const std::string kind = tj["kind"].get<std::string>();
  Xgft x;
  auto need = [&](const char* key) -> uint32_t {
    if (tj[key].is_null()) cfg::fail(file, cfg::child("/topology", key), fmt::format("missing \"{}\"; {} needs it", key, kind));
    return tj[key].get<uint32_t>();
  };
  if (kind == "fat_tree") {
    const uint32_t k = need("k");
    if (k % 2) cfg::fail(file, "/topology/k", fmt::format("got {}; expected an even radix", k));
    x = kary_fat_tree(k);
  } else if (kind == "leaf_spine") {
    x = leaf_spine(need("hosts_per_leaf"), need("leaves"), need("spines"), tj["links_per_spine"].get<uint32_t>());
  } else {
    if (!tj["notation"].is_null()) {
      x = parse_notation(tj["notation"].get<std::string>(), "/topology/notation", file);
    } else {
      if (!tj.contains("m") || !tj.contains("w"))
        cfg::fail(file, "/topology", "xgft needs \"notation\" or the lists \"m\" and \"w\" (and optionally \"p\")");
      x.m = int_list(tj["m"]);
      x.w = int_list(tj["w"]);
      x.h = static_cast<uint32_t>(x.m.size());
      x.p = tj.contains("p") ? int_list(tj["p"]) : std::vector<uint32_t>(x.h, 1);
      if (x.w.size() != x.h || x.p.size() != x.h || x.h == 0)
        cfg::fail(file, "/topology", "xgft lists m, w, p need the same number (h >= 1) of entries");
      for (uint32_t i = 0; i < x.h; ++i)
        if (!x.m[i] || !x.w[i] || !x.p[i]) cfg::fail(file, "/topology", "xgft m, w, p entries must be >= 1");
    }
  }
  if (x.hosts() > (1u << 22)) cfg::fail(file, "/topology", fmt::format("{} hosts; expected at most 4,194,304", x.hosts()));
  HostModel hm;
  hm.gpus_per_host = tj["gpus_per_host"].get<uint32_t>();
  const uint32_t dom = tj["nvlink_domain_gpus"].is_null() ? hm.gpus_per_host : tj["nvlink_domain_gpus"].get<uint32_t>();
  if (dom % hm.gpus_per_host)
    cfg::fail(file, "/topology/nvlink_domain_gpus",
              fmt::format("got {}; expected a multiple of gpus_per_host ({})", dom, hm.gpus_per_host));
  hm.hosts_per_nvlink_domain = dom / hm.gpus_per_host;
  auto tiers = parse_tiers(tj["tiers"], x.h, "/topology/tiers", file);
  s.topology = build_topology(kind, x, tiers, hm);
  if (tj.contains("taper")) apply_taper(s.topology, parse_taper(tj["taper"], x.h, "/topology/taper", file));
  const uint64_t n_hosts = s.topology.hosts();

  const json& rj = r["routing"];
  parse_routing(rj["mode"].get<std::string>(), s.routing.mode);
  s.routing.seed = rj["seed"].get<uint64_t>();
  s.compare_routing = rj["compare"].get<bool>();
  s.max_split_subflows = rj["max_split_subflows"].get<uint64_t>();
  s.routing.adapt = rj["adapt"].get<bool>();
  s.routing.cables = rj["parallel_links"] == "cables_first" ? CableOrder::CablesFirst : CableOrder::ParentsFirst;
  s.routing.lid_rank = parse_lid_order(rj["lid_order"], n_hosts, "/routing/lid_order", file);
  s.path_latency = r["path_latency"].get<bool>();

  for (size_t i = 0; i < r["traffic"].size(); ++i) {
    const json& e = r["traffic"][i];
    const std::string p = cfg::child("/traffic", i);
    NamedTraffic nt;
    nt.name = e["name"].get<std::string>();
    nt.explicit_flows = e["pattern"] == "explicit";
    if (nt.explicit_flows != e.contains("flows"))
      cfg::fail(file, nt.explicit_flows ? p : cfg::child(p, "flows"),
                nt.explicit_flows ? "explicit pattern without \"flows\"; expected a CSV file name or an array of flows"
                                  : "\"flows\" given; expected \"pattern\": \"explicit\" with them");
    nt.from_run = e["pattern"] == "run_jobs";
    if (nt.from_run != !e["jobs_csv"].is_null())
      cfg::fail(file, nt.from_run ? p : cfg::child(p, "jobs_csv"),
                nt.from_run ? "run_jobs pattern without \"jobs_csv\"; expected a run's jobs.csv"
                            : "\"jobs_csv\" given; expected \"pattern\": \"run_jobs\" with it");
    if (nt.explicit_flows) {
      const auto ex = read_explicit(s, e["flows"], cfg::child(p, "flows"), file, static_cast<uint32_t>(i));
      nt.flows = ex.demands;
      nt.not_fabric_flows = ex.not_fabric;
    } else if (nt.from_run) {
      nt.run = read_run(s, e, p, file, static_cast<uint32_t>(i));
      nt.flows = nt.run.demands;
    } else {
      parse_pattern(e["pattern"].get<std::string>(), nt.spec.pattern);
    }
    nt.spec.hosts = parse_hosts(e["hosts"], e["placement"].get<std::string>(), n_hosts, true, cfg::child(p, "hosts"), file);
    nt.spec.bytes = e["bytes"].get<double>();
    nt.spec.seed = e["seed"].get<uint64_t>();
    nt.spec.flows_per_host = e["flows_per_host"].get<uint32_t>();
    nt.spec.start_s = e["start_s"].get<double>();
    nt.spec.tag = static_cast<uint32_t>(i);
    nt.source = e["source"].get<std::string>();
    nt.source_note = e["source_note"].get<std::string>();
    s.traffic.push_back(nt);
  }
  if (s.traffic.empty()) cfg::fail(file, "/traffic", "no traffic profile; expected at least one");
  if (r.contains("mixes"))
    for (size_t i = 0; i < r["mixes"].size(); ++i) {
      const json& e = r["mixes"][i];
      const std::string p = cfg::child("/mixes", i);
      TrafficMix m;
      m.name = e["name"].get<std::string>();
      for (size_t k = 0; k < e["profiles"].size(); ++k) {
        const std::string want = e["profiles"][k].get<std::string>();
        const auto it = std::find_if(s.traffic.begin(), s.traffic.end(), [&](const NamedTraffic& nt) { return nt.name == want; });
        if (it == s.traffic.end())
          cfg::fail(file, cfg::child(cfg::child(p, "profiles"), k), fmt::format("no traffic profile named \"{}\"; expected one of /traffic's names", want));
        m.profiles.push_back(static_cast<uint32_t>(it - s.traffic.begin()));
      }
      if (m.profiles.empty()) cfg::fail(file, cfg::child(p, "profiles"), "empty; expected at least one profile name");
      s.mixes.push_back(std::move(m));
    }
  if (r.contains("jobs"))
    for (size_t i = 0; i < r["jobs"].size(); ++i) {
      const json& e = r["jobs"][i];
      const std::string p = cfg::child("/jobs", i);
      NamedJob j;
      j.name = e["name"].get<std::string>();
      parse_pattern(e["pattern"].get<std::string>(), j.traffic.pattern);
      j.traffic.hosts = parse_hosts(e["hosts"], e["placement"].get<std::string>(), n_hosts, false, cfg::child(p, "hosts"), file);
      j.traffic.bytes = e["bytes"].get<double>();
      s.jobs.push_back(j);
    }
  if (r.contains("degraded"))
    for (size_t i = 0; i < r["degraded"].size(); ++i) {
      const json& e = r["degraded"][i];
      DegradedCase d;
      d.name = e["name"].get<std::string>();
      for (size_t k = 0; k < e["fail"].size(); ++k) {
        const json& fj = e["fail"][k];
        apply_failure(s.topology, d.failures, fj, cfg::child(cfg::child(cfg::child("/degraded", i), "fail"), k), file);
      }
      s.degraded.push_back(std::move(d));
    }
  if (r.contains("variants"))
    for (size_t i = 0; i < r["variants"].size(); ++i) {
      const json& e = r["variants"][i];
      const std::string p = cfg::child("/variants", i);
      TopologyVariant v;
      v.name = e["name"].get<std::string>();
      auto vt = e.contains("tiers") ? parse_tiers(e["tiers"], x.h, cfg::child(p, "tiers"), file) : tiers;
      v.topology = build_topology(kind, x, vt, hm);
      if (e.contains("taper")) apply_taper(v.topology, parse_taper(e["taper"], x.h, cfg::child(p, "taper"), file));
      else if (tj.contains("taper") && !e.contains("tiers"))
        apply_taper(v.topology, parse_taper(tj["taper"], x.h, "/topology/taper", file));
      s.variants.push_back(std::move(v));
    }
  if (r.contains("cost")) {
    s.resolved["cost"] = cfg::resolve(r["cost"], *cost_spec(), "/cost", file);
    parse_cost(s, s.resolved["cost"], kind, x, tiers, hm, file);
  }
  s.full_scale_hosts = r["full_scale_hosts"].is_null() ? 0 : r["full_scale_hosts"].get<uint64_t>();
  const json& wf = r["worst_failure"];
  s.worst_failure.enabled = wf["enabled"].get<bool>();
  s.worst_failure.top = wf["top"].get<uint32_t>();
  s.worst_failure.host_links = wf["host_links"].get<bool>();
  s.worst_failure.max_candidates = wf["max_candidates"].get<uint64_t>();
  if (!r["measurements"].is_null()) {
    s.measurements_file = beside(file, r["measurements"].get<std::string>());
    s.measurements = read_measurements_csv(s.measurements_file, read_input(s, s.measurements_file));
  }
  s.load_fraction = r["analytic"]["load_fraction"].get<double>();
  s.packet_bytes = r["analytic"]["packet_bytes"].get<double>();
  return s;
}

FabricScenario load_fabric_scenario(const std::string& path) {
  const std::string text = io::read_file(path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // Line of the byte offset, for the one-line error.
    const size_t at = std::min<size_t>(e.byte, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    throw InputError(path, std::to_string(line), "not valid JSON; expected a fabric scenario object");
  } catch (const json::out_of_range& e) {  // a number beyond a double ("1e400")
    throw InputError(path, std::to_string(json_overflow_line(text, e.what())),
                     "number out of range; expected a number a double can hold");
  }
  FabricScenario s = parse_fabric_scenario(doc, path);
  s.inputs.insert(s.inputs.begin(), InputFile{path, io::sha256_hex(text), text.size()});
  return s;
}

std::vector<Demand> profile_demands(const Topology& t, const NamedTraffic& nt) {
  return nt.explicit_flows || nt.from_run ? nt.flows : make_traffic(t, nt.spec);
}

}  // namespace floorsim::fabric
