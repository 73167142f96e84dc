// The fabric sign-off pack as Markdown (signoff.md beside signoff.json): the same figures,
// each labelled modelled, in the order a reviewer reads them.
#include <string>

#include <fmt/format.h>

#include "fabric/signoff.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;

std::string signoff_markdown(const json& p) {
  std::string md;
  auto fmtd = [](double v) { return fmt::format("{:.4g}", v); };
  md += fmt::format("# Fabric sign-off: {}\n\n", p["name"].get<std::string>());
  md += "All figures below are **modelled** (see the last section); none is a hardware measurement.\n\n";
  const auto& t = p["topology"];
  md += "## Topology\n\n";
  md += fmt::format("- kind: {}, XGFT({})\n- hosts: {}, switches: {} (per level: {}), physical links: {}\n",
                    t["kind"].get<std::string>(), t["xgft"].get<std::string>(), t["hosts"].get<uint64_t>(),
                    t["switches"].get<uint64_t>(), t["switches_per_level"].dump(), t["physical_links"].get<uint64_t>());
  md += fmt::format("- GPUs per host: {}, NVLink domain: {} GPUs (collectives inside a domain do not touch the fabric)\n\n",
                    t["gpus_per_host"].get<uint32_t>(), t["nvlink_domain_gpus"].get<uint32_t>());
  md += "| tier | speed | Gb/s | latency (s) |\n|---|---|---|---|\n";
  for (const auto& tr : t["tiers"])
    md += fmt::format("| {} | {} | {} | {} |\n", tr["tier"].get<int>(), tr["speed"].is_null() ? "-" : tr["speed"].get<std::string>(),
                      fmtd(tr["gbps"].get<double>()), fmtd(tr["latency_s"].get<double>()));
  md += "\n## Oversubscription per tier\n\n| switch level | taper (downlink/uplink) |\n|---|---|\n";
  for (const auto& o : p["oversubscription"])
    md += fmt::format("| {} | {}:1 |\n", o["level"].get<int>(), fmtd(o["taper"].get<double>()));
  md += "\n## Hop counts per path class\n\n| class | LCA level | hops | hops routed | paths | peers per host |\n|---|---|---|---|---|---|\n";
  for (const auto& c : p["path_classes"])
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c["class"].get<std::string>(), c["lca_level"].get<int>(),
                      c["hops"].get<int>(), c.contains("hops_routed") ? c["hops_routed"].dump() : "-",
                      c["paths"].get<uint64_t>(), c["peers_per_host"].get<uint64_t>());
  const auto& a = p["analytic"];
  md += "\n## Analytic bounds\n\n";
  md += fmt::format("Assumptions: {}.\n\n", a["assumptions"].get<std::string>());
  md += fmt::format("- mean hop count: {}\n- bisection per direction: {} Gb/s (closed form), {} Gb/s (max flow)\n",
                    fmtd(a["mean_hops_uniform"].get<double>()), fmtd(a["bisection_gbps_formula"].get<double>()),
                    fmtd(a["bisection_gbps_maxflow"].get<double>()));
  md += fmt::format("- uniform throughput bound per host: {} Gb/s; saturation injection: {} Gb/s per host\n",
                    fmtd(a["uniform_throughput_bound_gbps_per_host"].get<double>()),
                    fmtd(a["saturation_gbps_per_host"].get<double>()));
  md += fmt::format("- at {} of saturation: tier utilisation {}; longest-path latency {} s zero-load, {} s M/M/1, {} s M/D/1\n",
                    fmtd(a["load_fraction_of_saturation"].get<double>()), a["tier_rho"].dump(),
                    fmtd(a["longest_path_latency_s"]["zero_load"].get<double>()),
                    fmtd(a["longest_path_latency_s"]["mm1"].get<double>()), fmtd(a["longest_path_latency_s"]["md1"].get<double>()));
  md += fmt::format("\n## Traffic profiles (routing: {})\n\n", p["routing"]["mode"].get<std::string>());
  md += fmt::format("Failure policy: {}.\n\n", p["routing"]["failure_policy"].get<std::string>());
  md += "| profile | pattern | source | hosts | flows | routing | slowest (s) | mean (s) | p99 (s) | tier utilisation |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : p["traffic"])
    for (auto it = e["results"].begin(); it != e["results"].end(); ++it) {
      const auto& r = it.value();
      if (r.contains("skipped")) {
        md += fmt::format("| {} | {} | | | | {} | {} | | | |\n", e["name"].get<std::string>(), e["pattern"].get<std::string>(),
                          it.key(), r["skipped"].get<std::string>());
        continue;
      }
      std::string util;
      for (const auto& u : r["tier_utilisation"]) util += (util.empty() ? "" : " / ") + fmt::format("{:.2f}", u.get<double>());
      std::string src = e["source"].get<std::string>();
      if (!e["source_note"].get<std::string>().empty()) src += " (" + e["source_note"].get<std::string>() + ")";
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", e["name"].get<std::string>(),
                        e["pattern"].get<std::string>(), src, e["hosts"].get<uint64_t>(),
                        e["fabric_flows"].get<uint64_t>(), it.key(), fmtd(r["slowest_s"].get<double>()),
                        fmtd(r["mean_s"].get<double>()), fmtd(r["p99_s"].get<double>()), util);
    }
  const auto& rc = p["routing_comparison"];
  md += fmt::format("\n## Routing modes compared\n\nSlowest flow of {}:\n\n| routing | slowest per seed (s) | min | median | max |\n|---|---|---|---|---|\n",
                    rc["traffic"].get<std::string>());
  for (const char* m : {"dmodk", "ecmp", "split"}) {
    if (rc[m].contains("skipped")) {
      md += fmt::format("| {} | {} | | | |\n", m, rc[m]["skipped"].get<std::string>());
      continue;
    }
    std::string per;
    for (const auto& v : rc[m]["slowest_s_by_seed"]) per += (per.empty() ? "" : ", ") + fmtd(v.get<double>());
    md += fmt::format("| {} | {} | {} | {} | {} |\n", m, per, fmtd(rc[m]["min_slowest_s"].get<double>()),
                      fmtd(rc[m]["median_slowest_s"].get<double>()), fmtd(rc[m]["max_slowest_s"].get<double>()));
  }
  const auto& fo = p["fan_out"];
  md += fmt::format("\n## Fan-out tested\n\n{} hosts of {} in the modelled fabric; full scale is {} hosts: {}.\n",
                    fo["hosts_tested"].get<uint64_t>(), fo["fabric_hosts"].get<uint64_t>(), fo["full_scale_hosts"].get<uint64_t>(),
                    fo["reached_full_scale"].get<bool>() ? "full scale reached" : "**full scale not reached**");
  md += "\n## Degraded fabrics\n\n";
  if (p["degraded"].empty()) md += "None given.\n";
  for (const auto& d : p["degraded"]) {
    std::string failed;
    for (const auto& w : d["failed"]) failed += (failed.empty() ? "" : ", ") + w.get<std::string>();
    md += fmt::format("### {}\n\nFailed: {}. Bisection {} Gb/s of {} ({:.2f}% lost); hosts cut off: {}.\n\n",
                      d["name"].get<std::string>(), failed, fmtd(d["bisection_gbps"].get<double>()),
                      fmtd(d["bisection_gbps_healthy"].get<double>()), 100 * d["bisection_lost_fraction"].get<double>(),
                      d["hosts_unreachable"].get<uint64_t>());
    md += "| profile | slowest (s) | vs healthy | mean (s) | p99 (s) | disconnected flows |\n|---|---|---|---|---|---|\n";
    for (const auto& r : d["traffic"])
      if (r.contains("skipped"))
        md += fmt::format("| {} | {} | | | | |\n", r["name"].get<std::string>(), r["skipped"].get<std::string>());
      else
      md += fmt::format("| {} | {} | {:.3f}x | {} | {} | {} |\n", r["name"].get<std::string>(), fmtd(r["slowest_s"].get<double>()),
                        r["slowest_vs_healthy"].get<double>(), fmtd(r["mean_s"].get<double>()), fmtd(r["p99_s"].get<double>()),
                        r["disconnected"].get<uint32_t>());
    md += "\n";
  }
  if (!p["variants"].empty()) {
    md += "## Topology variants under the same flows\n\n| variant | taper per level | bisection (Gb/s) | profile | slowest (s) | mean (s) |\n|---|---|---|---|---|---|\n";
    for (const auto& v : p["variants"])
      for (const auto& r : v["traffic"])
        if (r.contains("skipped"))
          md += fmt::format("| {} | | | {} | {} | |\n", v["name"].get<std::string>(), r["name"].get<std::string>(),
                            r["skipped"].get<std::string>());
        else
        md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", v["name"].get<std::string>(), v["oversubscription"].dump(),
                          fmtd(v["bisection_gbps"].get<double>()), r["name"].get<std::string>(),
                          fmtd(r["slowest_s"].get<double>()), fmtd(r["mean_s"].get<double>()));
    md += "\n";
  }
  if (!p["jobs"].empty()) {
    md += "## Jobs' communication (placement and contention)\n\n| job | pattern | hosts | alone (s) | with others (s) | slowdown | effective Gb/s |\n|---|---|---|---|---|---|---|\n";
    for (const auto& j : p["jobs"])
      md += fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {} |\n", j["name"].get<std::string>(), j["pattern"].get<std::string>(),
                        j["hosts"].get<uint64_t>(), fmtd(j["comm_alone_s"].get<double>()),
                        fmtd(j["comm_with_others_s"].get<double>()), j["slowdown"].get<double>(),
                        fmtd(j["effective_gbps"].get<double>()));
    md += "\n";
  }
  md += "## Modelled only\n\n";
  for (const auto& m : p["modelled_only"]) md += "- " + m.get<std::string>() + "\n";
  md += "\nMeasured on hardware: nothing.\n";
  return md;
}

}  // namespace floorsim::fabric
