#include "fabric/signoff.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "fabric/analytic.hpp"
#include "fabric/maxmin.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
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
      cfg::boolean("compare", true, "also run every traffic profile under all three modes"),
      cfg::boolean("adapt", true,
                   "degraded fabric: dmodk fails over to the next live port, ecmp re-hashes over live paths; false = "
                   "static routes, a flow over a dead link is disconnected (SimGrid FAT_TREE)"),
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
                              "var_gather"},
                  nullptr, "traffic pattern")
          .must(),
      cfg::any("hosts", "\"all\", a host count, or a list of host indices").with_default("all"),
      cfg::choice("placement", {"packed", "strided"}, "packed",
                  "with a host count: packed = hosts 0..n-1, strided = spread evenly over the fabric"),
      cfg::number("bytes", 1e9, "bytes per flow (ring: the buffer all-reduced)").at_least(1e-9).in_unit("bytes"),
      cfg::integer("seed", 1, "seed for random patterns").at_least(0),
      cfg::integer("flows_per_host", 1, "uniform: flows each host sends").at_least(1),
      cfg::number("start_s", 0, "arrival time of the profile's flows").at_least(0).in_unit("s"),
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

std::shared_ptr<const cfg::ObjectSpec> root_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "fabric scenario";
  s->doc = "input of `floorsim fabric`";
  s->fields = {
      cfg::string("name", "fabric", "label of the pack"),
      cfg::object("topology", topology_spec(), "the fabric").must(),
      cfg::object("routing", routing_spec(), "routing mode"),
      cfg::array_of("traffic", traffic_spec(), "traffic profiles").must(),
      cfg::array_of("jobs", job_spec(), "running jobs' own traffic"),
      cfg::array_of("degraded", degraded_spec(), "degraded fabrics"),
      cfg::array_of("variants", variant_spec(), "topology variants compared under the same flows"),
      cfg::object("analytic", analytic_spec(), "analytic model settings"),
      cfg::integer("full_scale_hosts", nullptr, "hosts of the real fabric (default: the topology's)")
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

  for (size_t i = 0; i < r["traffic"].size(); ++i) {
    const json& e = r["traffic"][i];
    const std::string p = cfg::child("/traffic", i);
    NamedTraffic nt;
    nt.name = e["name"].get<std::string>();
    parse_pattern(e["pattern"].get<std::string>(), nt.spec.pattern);
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
  s.full_scale_hosts = r["full_scale_hosts"].is_null() ? n_hosts : r["full_scale_hosts"].get<uint64_t>();
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
  return parse_fabric_scenario(doc, path);
}

TrafficResult run_traffic(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                          const std::vector<Demand>& demands) {
  TrafficResult res;
  auto routed = route_all(t, f, o, demands);
  MaxMinSolver solver;
  const Completion c = complete(routed.set, solver);
  res.demands = demands.size();
  res.flows = routed.set.flows();
  res.disconnected = routed.disconnected;
  res.solves = c.solves;
  std::vector<double> finish(demands.size(), -1);
  for (size_t fl = 0; fl < routed.set.flows(); ++fl) {
    const uint32_t d = routed.flow_demand[fl];
    finish[d] = std::max(finish[d], c.finish_s[fl]);
  }
  std::vector<double> durations;
  for (size_t d = 0; d < demands.size(); ++d)
    if (routed.demand_routed[d]) durations.push_back(finish[d] - demands[d].start_s);
  res.completion = duration_stats(durations);
  std::vector<double> cap(t.h(), 0), carried(t.h(), 0);
  for (size_t l = 0; l < t.links(); ++l) {
    if (!f.dead(l)) cap[t.link_tier[l]] += t.link_capacity_bytes_per_s[l];
    carried[t.link_tier[l]] += c.link_bytes[l];
  }
  const double window = c.makespan_s - c.first_s;
  for (uint32_t tier = 0; tier < t.h(); ++tier)
    res.tier_utilisation.push_back(window > 0 && cap[tier] > 0 ? carried[tier] / (cap[tier] * window) : 0);
  return res;
}

namespace {

json result_json(const TrafficResult& r) {
  return json{{"slowest_s", r.completion.slowest_s},
              {"mean_s", r.completion.mean_s},
              {"p99_s", r.completion.p99_s},
              {"demands", r.demands},
              {"flows_solved", r.flows},
              {"disconnected", r.disconnected},
              {"solves", r.solves},
              {"tier_utilisation", r.tier_utilisation}};
}

double gbps_of(double bytes_per_s) { return bytes_per_s * 8 / 1e9; }

// Ideal split multiplies flows by the path count; beyond `limit` sub-flows the run is skipped
// (and says so) rather than exhausting memory (k=48 inter-pod: 576 sub-flows per flow).
uint64_t split_subflows(const Topology& t, const std::vector<Demand>& d) {
  uint64_t n = 0;
  for (const auto& x : d) n += t.x.paths_at_lca(lca_level(t, x.src, x.dst));
  return n;
}

json run_or_skip(const Topology& t, const FailureSet& f, const RoutingOptions& o, const std::vector<Demand>& d,
                 uint64_t limit) {
  if (o.mode == RoutingMode::Split) {
    const uint64_t n = split_subflows(t, d);
    if (n > limit)
      return json{{"skipped", fmt::format("ideal split needs {} sub-flows, above routing.max_split_subflows = {}", n, limit)}};
  }
  return result_json(run_traffic(t, f, o, d));
}

json topology_json(const Topology& t) {
  const auto sc = structure_counts(t);
  json tiers = json::array();
  for (uint32_t i = 0; i < t.h(); ++i)
    tiers.push_back({{"tier", i},
                     {"speed", t.tiers[i].speed_name.empty() ? json(nullptr) : json(t.tiers[i].speed_name)},
                     {"gbps", gbps_of(t.tiers[i].capacity_bytes_per_s)},
                     {"latency_s", t.tiers[i].latency_s}});
  return json{{"kind", t.kind},
              {"xgft", t.x.notation()},
              {"hosts", sc.hosts},
              {"switches", sc.switches},
              {"switches_per_level", sc.switches_per_level},
              {"switch_ports_per_level", sc.switch_ports_per_level},
              {"physical_links", sc.physical_links},
              {"directed_links", t.links()},
              {"tiers", tiers},
              {"gpus_per_host", t.host_model.gpus_per_host},
              {"nvlink_domain_gpus", t.host_model.gpus_per_host * t.host_model.hosts_per_nvlink_domain}};
}

json path_classes_json(const Topology& t, const FailureSet& healthy) {
  json classes = json::array();
  for (const auto& pc : path_classes(t)) {
    json c = {{"lca_level", pc.lca_level}, {"hops", pc.hops}, {"paths", pc.paths}, {"peers_per_host", pc.peers_per_host}};
    if (pc.peers_per_host > 0) {  // check the hop count on a routed sample pair
      std::vector<uint32_t> links;
      route_one(t, healthy, {RoutingMode::DModK, 1}, 0, t.subtree[pc.lca_level - 1], 0, links);
      c["hops_routed"] = links.size();
      c["live_paths_routed"] = live_paths(t, healthy, 0, t.subtree[pc.lca_level - 1]).size();
    }
    const char* names[] = {"", "same leaf/edge", "same pod", "other pod"};
    c["class"] = t.kind == "fat_tree" && pc.lca_level <= 3   ? names[pc.lca_level]
                 : t.kind == "leaf_spine" && pc.lca_level == 1 ? "same leaf"
                 : t.kind == "leaf_spine"                      ? "other leaf"
                                                               : fmt::format("LCA level {}", pc.lca_level);
    classes.push_back(c);
  }
  return classes;
}

// Analytic (uniform traffic, modelled only). `b_flow`: the healthy max-flow bisection.
json analytic_json(const FabricScenario& s, double b_flow) {
  const Topology& t = s.topology;
  const double b_formula = bisection_formula_bytes_per_s(t);
  const TierLoad sat = tier_load_uniform(t, 0);
  const double lambda = s.load_fraction * sat.saturation_bytes_per_s;
  const TierLoad load = tier_load_uniform(t, lambda);
  const auto mm1 = latency_uniform(t, lambda, s.packet_bytes, false);
  const auto md1 = latency_uniform(t, lambda, s.packet_bytes, true);
  return {
      {"assumptions", "uniform random traffic, ideal spreading over all shortest paths, Poisson arrivals for the "
                      "queueing term (M/M/1 and M/D/1 per link); GPU traffic is bursty, so these are modelled only"},
      {"mean_hops_uniform", mean_hops_uniform(t)},
      {"bisection_gbps_formula", gbps_of(b_formula)},
      {"bisection_gbps_maxflow", gbps_of(b_flow)},
      {"uniform_throughput_bound_gbps_per_host", gbps_of(uniform_throughput_bound_bytes_per_s(t, b_flow))},
      {"saturation_gbps_per_host", gbps_of(sat.saturation_bytes_per_s)},
      {"load_fraction_of_saturation", s.load_fraction},
      {"tier_rho", load.rho},
      {"tier_leave_fraction", load.leave_fraction},
      {"packet_bytes", s.packet_bytes},
      {"longest_path_latency_s", {{"zero_load", mm1.zero_load_s}, {"mm1", mm1.total_s}, {"md1", md1.total_s}}},
  };
}

// The scenario's routing mode first, then (with compare on) the other two.
std::vector<RoutingMode> modes_run(const FabricScenario& s) {
  std::vector<RoutingMode> modes = {s.routing.mode};
  if (s.compare_routing)
    for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split})
      if (m != s.routing.mode) modes.push_back(m);
  return modes;
}

// The traffic profiles on the healthy fabric, and what the degraded cases compare against.
struct HealthyTraffic {
  json traffic = json::array();
  std::vector<std::vector<Demand>> demands;  // per profile
  std::vector<double> slowest_s;             // per profile, under the scenario's routing mode
  uint64_t fan_out = 0;                      // the most hosts any profile spans
};

HealthyTraffic healthy_traffic(const FabricScenario& s, const std::vector<RoutingMode>& modes) {
  const Topology& t = s.topology;
  const FailureSet healthy;
  HealthyTraffic h;
  for (const auto& nt : s.traffic) {
    h.demands.push_back(make_traffic(t, nt.spec));
    const uint64_t hosts = nt.spec.hosts.empty() ? t.hosts() : nt.spec.hosts.size();
    h.fan_out = std::max(h.fan_out, hosts);
    json e = {{"name", nt.name},
              {"pattern", pattern_name(nt.spec.pattern)},
              {"source", nt.source},
              {"source_note", nt.source_note},
              {"hosts", hosts},
              {"bytes_per_flow", nt.spec.bytes},
              {"fabric_flows", h.demands.back().size()}};
    json by_mode = json::object();
    for (auto m : modes) {
      RoutingOptions o = s.routing;
      o.mode = m;
      const json r = run_or_skip(t, healthy, o, h.demands.back(), s.max_split_subflows);
      by_mode[routing_name(m)] = r;
      if (m == s.routing.mode) h.slowest_s.push_back(r.value("slowest_s", 0.0));
    }
    e["results"] = by_mode;
    h.traffic.push_back(e);
  }
  return h;
}

json routing_json(const FabricScenario& s, const std::vector<RoutingMode>& modes) {
  return {{"mode", routing_name(s.routing.mode)},
          {"seed", s.routing.seed},
          {"adapt", s.routing.adapt},
          {"modes_compared", [&] {
             json a = json::array();
             for (auto m : modes) a.push_back(routing_name(m));
             return a;
           }()},
          {"failure_policy",
           s.routing.adapt
               ? "dmodk: next live port (D-mod-K, +1, ...) with backtracking; ecmp: re-hash over live paths; "
                 "split: equal sub-flows over live paths; no live path = flow disconnected (reported)"
               : "static (adapt = false): dmodk and ecmp keep their healthy paths and a flow over a dead link "
                 "is disconnected (reported); split uses live paths"}};
}

// Issue 11: the slowest flow of full permutations under the three modes, several seeds
// (one seed is an anecdote: D-mod-K and ECMP collisions depend on the pairing).
json routing_comparison_json(const FabricScenario& s) {
  const Topology& t = s.topology;
  const FailureSet healthy;
  constexpr uint64_t kSeeds = 5;
  json cmp = {{"traffic", fmt::format("permutations of all {} hosts, 1e9 bytes per flow, seeds {}..{}", t.hosts(),
                                      s.routing.seed, s.routing.seed + kSeeds - 1)}};
  for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split}) {
    std::vector<double> slowest;
    std::string skipped;
    for (uint64_t k = 0; k < kSeeds && skipped.empty(); ++k) {
      TrafficSpec perm;
      perm.pattern = Pattern::Permutation;
      perm.bytes = 1e9;
      perm.seed = s.routing.seed + k;
      const auto d = make_traffic(t, perm);
      RoutingOptions o = s.routing;
      o.mode = m;
      const json r = run_or_skip(t, healthy, o, d, s.max_split_subflows);
      if (r.contains("skipped")) skipped = r["skipped"].get<std::string>();
      else slowest.push_back(r["slowest_s"].get<double>());
    }
    if (!skipped.empty()) {
      cmp[routing_name(m)] = {{"skipped", skipped}};
      continue;
    }
    std::vector<double> sorted = slowest;
    std::sort(sorted.begin(), sorted.end());
    cmp[routing_name(m)] = {{"slowest_s_by_seed", slowest},
                            {"min_slowest_s", sorted.front()},
                            {"median_slowest_s", sorted[sorted.size() / 2]},
                            {"max_slowest_s", sorted.back()}};
  }
  return cmp;
}

// Degraded fabrics: the healthy profiles' flows over each failure set.
json degraded_json(const FabricScenario& s, const HealthyTraffic& h, double b_flow) {
  const Topology& t = s.topology;
  json degraded = json::array();
  for (const auto& d : s.degraded) {
    const double b = bisection_maxflow_bytes_per_s(t, d.failures);
    const auto sc = structure_counts(t, d.failures);
    json e = {{"name", d.name},
              {"failed", d.failures.what},
              {"bisection_gbps", gbps_of(b)},
              {"bisection_gbps_healthy", gbps_of(b_flow)},
              {"bisection_lost_fraction", b_flow > 0 ? 1 - b / b_flow : 0},
              {"hosts_unreachable", sc.hosts_unreachable}};
    json tr = json::array();
    for (size_t i = 0; i < s.traffic.size(); ++i) {
      json x = run_or_skip(t, d.failures, s.routing, h.demands[i], s.max_split_subflows);
      x["name"] = s.traffic[i].name;
      if (!x.contains("skipped"))
        x["slowest_vs_healthy"] = h.slowest_s[i] > 0 ? x["slowest_s"].get<double>() / h.slowest_s[i] : 0;
      tr.push_back(x);
    }
    e["traffic"] = tr;
    degraded.push_back(e);
  }
  return degraded;
}

// Topology variants under the same flows.
json variants_json(const FabricScenario& s) {
  const FailureSet healthy;
  json variants = json::array();
  for (const auto& v : s.variants) {
    json e = {{"name", v.name}, {"topology", topology_json(v.topology)}};
    json over_v = json::array();
    for (uint32_t l = 1; l < v.topology.h(); ++l) over_v.push_back(taper_at(v.topology, l));
    e["oversubscription"] = over_v;
    e["bisection_gbps"] = gbps_of(bisection_maxflow_bytes_per_s(v.topology));
    json tr = json::array();
    for (size_t i = 0; i < s.traffic.size(); ++i) {
      json x = run_or_skip(v.topology, healthy, s.routing, make_traffic(v.topology, s.traffic[i].spec),
                           s.max_split_subflows);
      x["name"] = s.traffic[i].name;
      tr.push_back(x);
    }
    e["traffic"] = tr;
    variants.push_back(e);
  }
  return variants;
}

// Jobs' own traffic and their slowdown from each other (scheduler coupling).
json jobs_json(const FabricScenario& s) {
  json jobs = json::array();
  if (s.jobs.empty()) return jobs;
  const FailureSet healthy;
  std::vector<JobTraffic> jt;
  for (const auto& j : s.jobs) jt.push_back(j.traffic);
  MaxMinSolver solver;
  const auto comm = job_comm(s.topology, healthy, s.routing, jt, solver);
  for (size_t i = 0; i < s.jobs.size(); ++i)
    jobs.push_back({{"name", s.jobs[i].name},
                    {"pattern", pattern_name(jt[i].pattern)},
                    {"hosts", jt[i].hosts.size()},
                    {"bytes", jt[i].bytes},
                    {"comm_alone_s", comm[i].alone_time_s},
                    {"comm_with_others_s", comm[i].comm_time_s},
                    {"slowdown", comm[i].slowdown},
                    {"effective_gbps", gbps_of(comm[i].effective_bytes_per_s)}});
  return jobs;
}

}  // namespace

json run_signoff(const FabricScenario& s) {
  const Topology& t = s.topology;
  const FailureSet healthy;
  json pack;
  pack["format"] = "floorsim-fabric-signoff/1";
  pack["name"] = s.name;
  pack["topology"] = topology_json(t);

  json over = json::array();
  for (uint32_t l = 1; l < t.h(); ++l) over.push_back({{"level", l}, {"taper", taper_at(t, l)}});
  pack["oversubscription"] = over;
  pack["path_classes"] = path_classes_json(t, healthy);

  const double b_flow = bisection_maxflow_bytes_per_s(t, healthy);
  pack["analytic"] = analytic_json(s, b_flow);

  // Traffic profiles: healthy, scenario routing (+ the other two modes when compare is on).
  const std::vector<RoutingMode> modes = modes_run(s);
  const HealthyTraffic h = healthy_traffic(s, modes);
  pack["traffic"] = h.traffic;
  pack["routing"] = routing_json(s, modes);
  pack["routing_comparison"] = routing_comparison_json(s);
  pack["fan_out"] = {{"hosts_tested", h.fan_out},
                     {"fabric_hosts", t.hosts()},
                     {"full_scale_hosts", s.full_scale_hosts},
                     {"reached_full_scale", h.fan_out >= s.full_scale_hosts}};
  pack["degraded"] = degraded_json(s, h, b_flow);
  pack["variants"] = variants_json(s);
  pack["jobs"] = jobs_json(s);

  pack["modelled_only"] = json::array({
      "every completion time: flow-level max-min fair sharing (no congestion control dynamics, no packets, no "
      "latency in the sharing), re-solved at each arrival and departure",
      "bisection, tier load, saturation, throughput bound and latency: analytic, uniform traffic",
      "queueing delay: M/M/1 and M/D/1 per link (GPU traffic is bursty, not Poisson)",
      "degraded cases: routing adapts per the stated failure policy; no failover transient is modelled",
      "jobs' slowdown: steady state with every running job communicating at once",
  });
  pack["measured"] = json::array();  // nothing in this pack is a hardware measurement
  pack["scenario"] = s.resolved;
  return pack;
}

}  // namespace floorsim::fabric
