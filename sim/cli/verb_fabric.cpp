// `floorsim fabric FABRIC.json --out DIR`: the fabric sign-off pack (signoff.md, signoff.json, flows.csv, links.csv,
// links_over_time.csv),
// written atomically. The work is done in fabric/ (signoff.hpp), which test_fabric covers; this
// file maps flags onto the scenario.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fabric/signoff.hpp"
#include "sim/app/progress.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kFabricDoc{
    .usage = "FABRIC.json --out DIR [--routing MODE] [--force] [--progress WHEN] [--quiet] | --format",
    .description =
        "The fat-tree sign-off pack: build the fabric (k-ary fat-tree, leaf-spine or any generalized fat-tree, with "
        "taper and link generations), route each traffic profile (D-mod-K, hash ECMP or ideal split), solve max-min "
        "fair contention, repeat for every degraded case (failed links, switches, pods), and write signoff.md and "
        "signoff.json with bisection bounds, per-tier load and the slowest flows, with every flow (flows.csv) and every "
        "link's load (links.csv, and links_over_time.csv between solver events) beside them.",
    .placeholders = {{"scenario", "FILE"}, {"out", "DIR"}, {"routing", "MODE"}, {"progress", "WHEN"}},
    .examples = {{"floorsim fabric examples/fabric/k8_quant.json --out out/fabric",
                  "sign off a k=8 fat-tree for the quant traffic"},
                 {"floorsim fabric examples/fabric/qtbs_taper.json --out out/taper --routing ecmp",
                  "the same pack with hash ECMP instead of the scenario's routing"}},
};

int verb_fabric(const Args& args) {
  po::options_description opt;
  std::string input, out, routing, progress;
  bool quiet = false;
  opt.add_options()
      ("scenario", po::value(&input), "fabric scenario JSON (required)")
      ("out,o", po::value(&out), std::string("output directory (required)").append(kDirOutRule).c_str())
      ("routing", po::value(&routing)->default_value("scenario"),
       "override the scenario's routing mode: scenario | dmodk | ecmp | split")
      ("format", po::bool_switch(), "print the scenario format (every key, its default and unit) and exit (off)")
      ("quiet,q", po::bool_switch(&quiet), "print nothing on success (off)");
  add_progress_option(opt, &progress);
  bool force = false;
  add_force_option(opt, &force);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "fabric", kFabricDoc, opt, pos, vm)) return kExitOk;
  if (vm["format"].as<bool>()) {
    std::cout << "fabric scenario format (key (type, default): description)\n\n"
              << cfg::describe(*fabric::fabric_scenario_spec());
    return kExitOk;
  }
  if (input.empty()) throw UsageError("missing the FABRIC.json scenario");
  if (out.empty()) throw UsageError("missing --out DIR");
  auto scenario = fabric::load_fabric_scenario(input);  // InputError -> exit 2 in main
  if (routing != "scenario") {
    if (!fabric::parse_routing(routing, scenario.routing.mode))
      throw UsageError("--routing is '" + routing + "'; expected scenario, dmodk, ecmp or split");
    scenario.resolved["routing"]["mode"] = routing;
  }
  const io::OutTarget target = io::check_output({out, io::OutKind::Directory, "fabric", force, {{input, false}}});
  // The command as given, for the pack's provenance (arguments with spaces or quotes single-quoted).
  std::string command = "floorsim fabric";
  for (const auto& a : args) {
    if (a.find_first_of(" \t'\"$") == std::string::npos) {
      command += " " + a;
      continue;
    }
    command += " '";
    for (char c : a) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
    command += "'";
  }
  // The progress line names the step under way; the worst-failure search counts its candidates.
  app::Progress bar(progress_stream(progress, quiet), "fabric");
  const fabric::SignoffPack result =
      fabric::run_signoff_pack(scenario, command, [&bar, shown = std::string()](const std::string& step, uint64_t done,
                                                                               uint64_t total) mutable {
        if (!bar.on()) return;
        const bool new_step = step != shown;
        if (new_step) bar.set_label("fabric: " + (shown = step));
        if (new_step || bar.due()) bar.update(done, total);
      });
  bar.finish();
  const nlohmann::json& pack = result.pack;
  io::OutputDir dir(target);
  dir.write("signoff.json", pack.dump(2) + "\n");
  dir.write("signoff.md", fabric::signoff_markdown(pack));
  dir.write("flows.csv", result.flows_csv);
  dir.write("links.csv", result.links_csv);
  dir.write("links_over_time.csv", result.links_over_time_csv);
  dir.commit();
  const auto& first = pack["traffic"][0]["results"][fabric::routing_name(scenario.routing.mode)];
  if (quiet) return kExitOk;
  std::cerr << "floorsim: fabric: wrote " << out << "/signoff.md, signoff.json, flows.csv, links.csv and links_over_time.csv (slowest flow of "
            << pack["traffic"][0]["name"].get<std::string>() << ": "
            << (!first.contains("slowest_s")       ? std::string("skipped")
                : first["slowest_s"].is_null() ? std::string("never, flows cut off")
                                               : fmt::format("{:.4g} s", first["slowest_s"].get<double>()))
            << ")\n";
  return kExitOk;
}

}  // namespace floorsim::cli
