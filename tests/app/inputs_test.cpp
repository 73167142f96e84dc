// The files a scenario names (sim/app/inputs.hpp): what an output path may not be or hold.
#include <algorithm>
#include <iterator>
#include <set>

#include <catch2/catch.hpp>

#include "schedulers/registry.hpp"
#include "sim/app/inputs.hpp"
#include "sim/app/scenario.hpp"

using namespace floorsim;

namespace {

// Every key of a string (or array-of-string) field whose text says it names a file.
void file_fields(const cfg::ObjectSpec& s, std::set<std::string>& out) {
  for (const auto& f : s.fields) {
    const bool text = f.type == cfg::Type::String || (f.type == cfg::Type::Array && f.item == cfg::Type::String);
    const bool names_file = f.doc.find("file") != std::string::npos || f.doc.find(".conf") != std::string::npos ||
                            f.doc.find("relative to") != std::string::npos;
    if (text && names_file) out.insert(f.key);
    if (f.object) file_fields(*f.object, out);
  }
}

}  // namespace

TEST_CASE("scenario_inputs finds every file a scenario names, resolved against its folder", "[inputs]") {
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "workload": {"trace": {"path": "traces/a.swf", "format": "swf"},
                 "synthetic": {"classes": [{"rate_file": "/abs/rate.csv"}, {"rate_file": ""}]}},
    "fabric": {"file": "fabric.json"},
    "scheduler": {"type": "slurm", "slurm_conf": "slurm.conf", "sacctmgr_dump": "q.dump", "topology_conf": "topology.conf",
                  "gres_conf": "gres.conf", "manifests": ["k/a.yaml", "k/b.yaml"], "name": "not/a/file"}})");
  std::set<std::string> got;
  for (const auto& in : app::scenario_inputs(doc, "/study")) {
    CHECK(!in.tree);
    got.insert(in.path.string());
  }
  const std::set<std::string> want = {"/study/traces/a.swf", "/abs/rate.csv",   "/study/fabric.json",   "/study/slurm.conf",
                                      "/study/q.dump",       "/study/topology.conf", "/study/gres.conf", "/study/k/a.yaml",
                                      "/study/k/b.yaml"};
  CHECK(got == want);
}

TEST_CASE("kPathKeys covers every field of the scenario and scheduler specs that names a file", "[inputs]") {
  std::set<std::string> keys;
  file_fields(*app::scenario_spec(), keys);
  for (const auto& e : scheduler_registry()) file_fields(*e.params(), keys);
  CHECK(keys.size() >= 8);  // path, rate_file, file, slurm_conf, sacctmgr_dump, topology_conf, gres_conf, manifests
  for (const auto& k : keys) {
    INFO("field " << k << " names a file; add it to kPathKeys (sim/app/inputs.hpp) so an output may not replace it");
    CHECK(std::find(std::begin(app::kPathKeys), std::end(app::kPathKeys), k) != std::end(app::kPathKeys));
  }
}
