// The reduced-set fallback the risk function signs off in advance: core VaR shards in a higher
// QOS than the stress grid (deadline_batch core_qos), so they finish first when the night runs
// late. Here the night runs late because a node fails under a core shard: requeued, it becomes
// eligible again after every grid shard (Slurm restarts a requeued job's age at its new begin
// time), so in the grid's QOS it waits behind the whole grid.
#include <algorithm>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

using namespace floorsim;
using nlohmann::json;

namespace {

json late_night(const std::string& core_qos) {
  json doc = json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "scheduler": {"type": "slurm", "priority_type": "multifactor", "priority_weight_qos": 10000,
                  "priority_weight_age": 1000,
                  "qos": [{"name": "var", "priority": 10}, {"name": "varcore", "priority": 100}]},
    "workload": {"synthetic": {"classes": [
      {"name": "var", "kind": "deadline_batch", "core_jobs": 2, "jobs": 6, "grid_after_s": 60,
       "gpus": 8, "nodes": 1, "runtime_s": 1000, "qos": "var", "deadline_s": 6000}]}},
    "failures": [{"node": "gpu001", "at_s": 500, "duration_s": 10}]
  })");
  doc["workload"]["synthetic"]["classes"][0]["core_qos"] = core_qos;
  return doc;
}

struct Ends {
  double core_last = 0, grid_last = 0;
};

// jobs.csv: job_id,class,user,account,qos,...,end_s is column 10. Core shards are the first
// two ids (the generator makes them first).
Ends ends(const app::RunResult& r) {
  std::istringstream in(r.jobs_csv);
  std::string line;
  std::getline(in, line);
  Ends e;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
    const double end = std::stod(f[10]);
    (std::stol(f[0]) <= 2 ? e.core_last : e.grid_last) = std::max(end, std::stol(f[0]) <= 2 ? e.core_last : e.grid_last);
  }
  return e;
}

}  // namespace

TEST_CASE("core_qos: core VaR shards in a higher QOS finish before the stress grid on a late night", "[core_qos][synthetic]") {
  auto same = app::load_scenario(late_night(""), "s.json", ".");
  auto higher = app::load_scenario(late_night("varcore"), "s.json", ".");
  // Core shards carry their own QOS; the grid keeps the class's.
  int core = 0;
  for (const auto& j : higher.workload.jobs) core += higher.workload.strings.str(j.qos) == "varcore";
  CHECK(core == 2);
  const Ends a = ends(app::run_scenario(same)), b = ends(app::run_scenario(higher));
  CHECK(a.core_last > a.grid_last);   // in the grid's QOS the requeued core shard finishes last
  CHECK(b.core_last < b.grid_last);   // one QOS up, it runs next and the grid finishes last
  CHECK(b.core_last < a.core_last);
}

TEST_CASE("core_qos is only for deadline batches", "[core_qos][scenario]") {
  json doc = late_night("varcore");
  doc["workload"]["synthetic"]["classes"][0]["kind"] = "burst";
  CHECK_THROWS_WITH(app::load_scenario(doc, "s.json", "."), Catch::Contains("/workload/synthetic/classes/0/core_qos"));
}
