// The fabric sign-off pack as Markdown (signoff.md beside signoff.json): the same figures,
// each labelled modelled, in the order a reviewer reads them.
#include <string>

#include <fmt/format.h>

#include "fabric/signoff.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;

namespace {

std::string fmtd(double v) { return fmt::format("{:.4g}", v); }

// "1.234 (1.05x)", or "never (3 flows cut off)" when some flow has no path.
std::string outcome(const json& r) {
  if (r.contains("skipped")) return r["skipped"].get<std::string>();
  if (r["slowest_s"].is_null())
    return fmt::format("never ({} of {} flows cut off; the rest: {} s)", r["disconnected"].get<uint64_t>(),
                       r["demands"].get<uint64_t>(),
                       r["connected"]["completed"].get<uint64_t>() ? fmtd(r["connected"]["slowest_s"].get<double>()) : "-");
  return fmt::format("{} ({:.3f}x)", fmtd(r["slowest_s"].get<double>()),
                     r["slowest_vs_healthy"].is_null() ? 0.0 : r["slowest_vs_healthy"].get<double>());
}

std::string profile_rows(const json& traffic) {
  std::string md = "| profile | rerouted: slowest (s, vs healthy) | static: slowest (s, vs healthy) |\n|---|---|---|\n";
  for (const auto& r : traffic)
    md += fmt::format("| {} | {} | {} |\n", r["name"].get<std::string>(), outcome(r["rerouted"]), outcome(r["static"]));
  return md;
}

std::string degraded_markdown(const json& p) {
  std::string md = "\n## Degraded fabrics\n\n";
  md += "Rerouted: the failure policy above. Static: the healthy routes kept (before a subnet manager re-sweeps). "
        "A flow with no path never completes; its profile's slowest flow is then \"never\".\n\n";
  if (p["degraded"].empty()) md += "None given.\n";
  for (const auto& d : p["degraded"]) {
    std::string failed;
    for (const auto& w : d["failed"]) failed += (failed.empty() ? "" : ", ") + w.get<std::string>();
    md += fmt::format("### {}\n\nFailed: {}. Bisection {} Gb/s of {} ({:.2f}% lost); hosts cut off: {}.\n\n",
                      d["name"].get<std::string>(), failed, fmtd(d["bisection_gbps"].get<double>()),
                      fmtd(d["bisection_gbps_healthy"].get<double>()), 100 * d["bisection_lost_fraction"].get<double>(),
                      d["hosts_unreachable"].get<uint64_t>());
    md += profile_rows(d["traffic"]) + "\n";
  }
  if (!p.contains("worst_failure")) return md;
  const auto& w = p["worst_failure"];
  md += fmt::format("## Worst single failure\n\nSearched {} ({} failures, {} routing); ranked by {}.\n\n",
                    w["searched"].get<std::string>(), w["candidates"].get<uint64_t>(), w["routing"].get<std::string>(),
                    w["ranked_by"].get<std::string>());
  if (w.contains("skipped")) return md + fmt::format("Skipped: {}.\n\n", w["skipped"].get<std::string>());
  md += fmt::format("{} of them cut some flow off.\n\n", w["cutting_off_flows"].get<uint64_t>());
  for (const char* key : {"ranked", "ranked_without_cut_off"}) {
    md += key == std::string("ranked") ? "### Worst overall\n\n" : "### Worst that leaves every flow a path\n\n";
    md += "| rank | failed | flows cut off | worst slowdown of the rest | as a degraded case |\n|---|---|---|---|---|\n";
    for (const auto& c : w[key])
      md += fmt::format("| {} | {} | {} | {:.3f}x | `{}` |\n", c["rank"].get<int>(), c["failed"].get<std::string>(),
                        c["disconnected_flows"].get<uint64_t>(), c["worst_connected_slowdown"].get<double>(), c["fail"].dump());
    if (!w[key].empty())
      md += fmt::format("\nRank 1 ({}) per profile:\n\n{}", w[key][0]["failed"].get<std::string>(),
                        profile_rows(w[key][0]["traffic"]));
    md += "\n";
  }
  return md;
}

// Profiles solved together.
std::string mixes_markdown(const json& p) {
  if (!p.contains("mixes") || p["mixes"].empty()) return "";
  std::string md = "\n### Profiles sharing the fabric (one solve, each flow at its own start)\n\n"
                   "| mix | profile | slowest together (s) | alone (s) | slowdown |\n|---|---|---|---|---|\n";
  for (const auto& m : p["mixes"]) {
    if (m.contains("skipped")) {
      md += fmt::format("| {} | {} | | | |\n", m["name"].get<std::string>(), m["skipped"].get<std::string>());
      continue;
    }
    for (const auto& e : m["profiles"])
      md += fmt::format("| {} | {} | {} | {} | {} |\n", m["name"].get<std::string>(), e["name"].get<std::string>(),
                        e["slowest_s"].is_null() ? "never" : fmtd(e["slowest_s"].get<double>()),
                        fmtd(e["alone_slowest_s"].get<double>()),
                        e["slowdown"].is_null() ? "-" : fmt::format("{:.3f}x", e["slowdown"].get<double>()));
  }
  return md;
}

// The links that limited each profile's flows (flows.csv and links.csv have every one).
std::string bottleneck_markdown(const json& p) {
  std::string md = fmt::format(
      "\n### Bottleneck links ({} routing)\n\nThe links whose max-min share limited the most flows; every flow and "
      "link is in flows.csv and links.csv.\n\n| profile | link | tier | flows limited | full for (s) |\n|---|---|---|---|---|\n",
      p["routing"]["mode"].get<std::string>());
  json rows = p["traffic"];
  for (const auto& m : p["mixes"]) rows.push_back(m);
  for (const auto& e : rows) {
    if (!e.contains("bottleneck_links")) continue;
    for (const auto& b : e["bottleneck_links"])
      md += b.contains("more") ? fmt::format("| {} | and {} more | | | |\n", e["name"].get<std::string>(), b["more"].get<uint64_t>())
                               : fmt::format("| {} | {} | {} | {} | {} |\n", e["name"].get<std::string>(),
                                             b["link"].get<std::string>(), b["tier"].get<int>(),
                                             b["flows_limited"].get<uint64_t>(), fmtd(b["saturated_s"].get<double>()));
  }
  return md;
}

// Profiles built from a run's jobs.csv: the jobs left out, and the slowest collectives.
std::string run_jobs_markdown(const json& p) {
  std::string md;
  for (const auto& e : p["traffic"]) {
    if (!e.contains("run_jobs")) continue;
    const auto& r = e["run_jobs"];
    md += fmt::format(
        "\n### Jobs from the run: {}\n\n{} jobs in the file: {} with fabric traffic (solved together, each from its "
        "start), {} never started, {} within one NVLink domain, {} of classes not listed. Assumed: {}.\n\n"
        "| job | class | start (s) | hosts | collective | bytes | collective time (s) |\n|---|---|---|---|---|---|---|\n",
        e["name"].get<std::string>(), r["jobs_in_file"].get<uint64_t>(), r["jobs_solved"].get<uint64_t>(),
        r["not_started"].get<uint64_t>(), r["within_one_nvlink_domain"].get<uint64_t>(),
        r["class_not_listed"].get<uint64_t>(), r["assumed"].get<std::string>());
    for (const auto& j : r["slowest_jobs"])
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", j["job_id"].get<std::string>(),
                        j["class"].get<std::string>(), fmtd(j["start_s"].get<double>()), j["hosts"].get<uint64_t>(),
                        j["collective"].get<std::string>(), fmtd(j["bytes"].get<double>()),
                        j["collective_s"].is_null() ? std::string("never") : fmtd(j["collective_s"].get<double>()));
  }
  return md;
}

std::string usd(double v) { return fmt::format("{:.0f}", v); }

// Cost against the slowest flow, per taper.
std::string cost_markdown(const json& p) {
  if (!p.contains("cost")) return "";
  const auto& c = p["cost"];
  std::string md = fmt::format("## Cost against slowest flow per taper\n\nAssumed: {}.\n\n| taper | switches | cables | "
                               "transceivers | switches (USD) | cables (USD) | optics (USD) | total (USD) | bisection "
                               "(Gb/s) | profile | slowest (s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                               c["assumptions"].get<std::string>());
  for (const auto& r : c["by_taper"])
    for (const auto& pr : r["profiles"])
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["taper"].dump(),
                        r["switches"].get<uint64_t>(), r["cables"].get<uint64_t>(), r["transceivers"].get<uint64_t>(),
                        usd(r["switches_usd"].get<double>()), usd(r["cables_usd"].get<double>()),
                        usd(r["optics_usd"].get<double>()), usd(r["total_usd"].get<double>()),
                        fmtd(r["bisection_gbps"].get<double>()), pr["name"].get<std::string>(),
                        pr["slowest_s"].is_null() ? std::string("skipped") : fmtd(pr["slowest_s"].get<double>()));
  return md + "\n";
}

// Measurements (from the scenario's measurements file) and where the pack came from.
std::string measured_markdown(const json& p) {
  std::string md = "\n## Measured on hardware\n\n";
  if (p["measured"].empty()) {
    md += "Nothing: the scenario names no measurements file.\n";
  } else {
    md += "| what | where | measured | unit | modelled figure | modelled | measured / modelled |\n|---|---|---|---|---|---|---|\n";
    for (const auto& m : p["measured"])
      md += fmt::format("| {} | {} | {} | {} | `{}` | {} | {} |\n", m["what"].get<std::string>(), m["where"].get<std::string>(),
                        fmtd(m["measured"].get<double>()), m["unit"].get<std::string>(), m["modelled"].get<std::string>(),
                        fmtd(m["modelled_value"].get<double>()),
                        m["measured_over_modelled"].is_null() ? "-" : fmt::format("{:.3f}", m["measured_over_modelled"].get<double>()));
  }
  const auto& pv = p["provenance"];
  md += fmt::format("\n## Provenance\n\n- floorsim {} (commit {})\n- command: `{}`\n", pv["floorsim_version"].get<std::string>(),
                    pv["commit"].get<std::string>(), pv["command_line"].get<std::string>());
  for (const auto& in : pv["inputs"])
    md += fmt::format("- input {} ({} bytes), SHA-256 {}\n", in["path"].get<std::string>(), in["bytes"].get<uint64_t>(),
                      in["sha256"].get<std::string>());
  return md;
}

}  // namespace

std::string signoff_markdown(const json& p) {
  std::string md;
  // A figure that is null because some flow never completes reads "never".
  auto secs = [&](const json& v) { return v.is_null() ? std::string("never") : fmtd(v.get<double>()); };
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
  md += fmt::format("Failure policy: {}.\n\nD-mod-K LID order: {}; parallel cables: {}.\n\n",
                    p["routing"]["failure_policy"].get<std::string>(), p["routing"]["lid_order"].get<std::string>(),
                    p["routing"]["parallel_links"].get<std::string>());
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
                        e["fabric_flows"].get<uint64_t>(), it.key(), secs(r["slowest_s"]), secs(r["mean_s"]),
                        secs(r["p99_s"]), util);
    }
  md += mixes_markdown(p);
  md += bottleneck_markdown(p);
  md += run_jobs_markdown(p);
  if (p.contains("routing_comparison")) {
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
  }
  const auto& fo = p["fan_out"];
  md += fmt::format("\n## Fan-out tested\n\n{} hosts of {} in the modelled fabric; full scale is {} hosts: {}.\n",
                    fo["hosts_tested"].get<uint64_t>(), fo["fabric_hosts"].get<uint64_t>(), fo["full_scale_hosts"].get<uint64_t>(),
                    fo["reached_full_scale"].get<bool>() ? "full scale reached" : "**full scale not reached**");
  md += degraded_markdown(p);
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
  md += cost_markdown(p);
  md += "## Modelled only\n\n";
  for (const auto& m : p["modelled_only"]) md += "- " + m.get<std::string>() + "\n";
  md += measured_markdown(p);
  return md;
}

}  // namespace floorsim::fabric
