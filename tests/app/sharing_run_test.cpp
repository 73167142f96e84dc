// GPU sharing end to end through a run: the batch timeline recorded beside the scheduler, the
// requests served against it, the worst case in metrics.json, calibration feeding the work.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

// One node of 2 GPUs: job 1 holds one GPU over [0, 100), job 2 both over [100, 200).
json doc(const std::string& mode) {
  json d = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 2, "node_prefix": "n"},
    "workload": {"jobs": [
      {"id": 1, "submit_s": 0, "runtime_s": 100, "gpus": 1, "class": "var", "deadline_s": 1000},
      {"id": 2, "submit_s": 100, "runtime_s": 100, "gpus": 2, "class": "var", "deadline_s": 1000}
    ]},
    "scheduler": {"type": "fifo"},
    "sharing": {
      "pools": [{"name": "p", "nodes": "n001"}],
      "services": [{"name": "s", "pool": "p", "start_s": 0, "end_s": 1, "rate_per_s": 0,
                    "bursts": [{"at_s": 150, "requests": 1}, {"at_s": 50, "requests": 1}],
                    "work_gpu_s": 1, "latency_target_s": 10}],
      "windows": [{"name": "early", "from_s": 0, "to_s": 100}, {"name": "late", "from_s": 100, "to_s": 300}]
    }
  })");
  d["sharing"]["pools"][0]["mode"] = mode;
  return d;
}

json sharing_of(const json& d) {
  const app::Scenario sc = app::load_scenario(d, "s.json", ".");
  return app::run_scenario(sc).metrics["sharing"];
}

}  // namespace

TEST_CASE("sharing: requests meet the batch the run recorded", "[sharing]") {
  SECTION("exclusive: the free GPU at 50, the end of the batch at 150") {
    const json s = sharing_of(doc("exclusive"));
    const json& w = s["services"]["s"]["windows_s"];
    CHECK(w["early"]["requests"] == 1);
    CHECK(w["early"]["max"].get<double>() == Approx(1));   // GPU 2 was free
    CHECK(w["late"]["max"].get<double>() == Approx(51));   // both GPUs busy until 200
    CHECK(s["pools"]["p"]["batch_gpu_s"].get<double>() == Approx(300));
    CHECK(s["pools"]["p"]["batch_stretch_mean"] == 1.0);
    CHECK(s["worst_case"]["batch_margin_s"].get<double>() == Approx(800));
    CHECK(s["worst_case"]["batch_class"] == "var");
  }
  SECTION("mps: served at once, slowed; the batch stretched only while requests run") {
    const json s = sharing_of(doc("mps"));
    CHECK(s["services"]["s"]["windows_s"]["late"]["max"].get<double>() == Approx(1.5));
    CHECK(s["pools"]["p"]["batch_stretch_mean"].get<double>() > 1.0);
  }
  SECTION("mig: a 3g instance is 7/3 slower, never disturbed; the batch keeps 4/7") {
    const json s = sharing_of(doc("mig"));
    CHECK(s["services"]["s"]["latency_s"]["max"].get<double>() == Approx(7.0 / 3));
    CHECK(s["pools"]["p"]["batch_stretch_mean"].get<double>() == Approx(7.0 / 4));
  }
}

TEST_CASE("sharing: request work from a calibrate file", "[sharing]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim_sharing_cal";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cal.json") << R"({"device": "cpu-omp", "threads": 2, "paths": 1000, "assets": 4, "options": 8,
    "seed": 1, "seconds": 0.5, "paths_per_s": 4000000, "revaluations_per_s": 32000000, "var_99": 1, "portfolio_value": 1})";
  json d = doc("exclusive");
  json& svc = d["sharing"]["services"][0];
  svc.erase("work_gpu_s");
  svc["paths_per_request"] = 2000000;
  svc["calibration"] = "cal.json";
  const app::Scenario sc = app::load_scenario(d, "s.json", dir.string());
  const json s = app::run_scenario(sc).metrics["sharing"]["services"]["s"];
  CHECK(s["work"]["mean_work_s"].get<double>() == Approx(0.5));
  CHECK(s["work"]["device"] == "cpu-omp");
  std::filesystem::remove_all(dir);
}

TEST_CASE("sharing: bad blocks name the pointer", "[sharing]") {
  auto err = [](json d) {
    try {
      app::load_scenario(d, "s.json", ".");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  json d = doc("exclusive");
  d["sharing"]["services"][0]["end_s"] = 0;
  CHECK_THAT(err(d), Catch::Contains("/sharing/services/0/end_s"));
  d = doc("exclusive");
  d["sharing"]["pools"].push_back(d["sharing"]["pools"][0]);
  CHECK_THAT(err(d), Catch::Contains("pool \"p\" is named twice"));
}

TEST_CASE("calibration sets a synthetic batch's runtimes", "[sharing]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim_batch_cal";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cal.json") << R"({"device": "cpu-omp", "threads": 2, "paths": 1000, "assets": 4, "options": 8,
    "seed": 1, "seconds": 0.5, "paths_per_s": 4000000, "revaluations_per_s": 32000000, "var_99": 1, "portfolio_value": 1})";
  json d = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "workload": {"synthetic": {"classes": [
      {"name": "var", "kind": "deadline_batch", "core_jobs": 2, "gpus": 2, "paths_per_job": 800000000, "calibration": "cal.json"}]}}
  })");
  const app::Scenario sc = app::load_scenario(d, "s.json", dir.string());
  REQUIRE(sc.workload.jobs.size() == 2);
  for (const auto& j : sc.workload.jobs) CHECK(j.runtime_s == Approx(100));  // 8e8 / (4e6 x 2)
  CHECK(sc.workload_report["runtime_from_calibration"]["var"]["paths_per_s"] == 4000000.0);
  d["workload"]["synthetic"]["classes"][0].erase("calibration");
  CHECK_THROWS_WITH(app::load_scenario(d, "s.json", dir.string()), Catch::Contains("/workload/synthetic/classes/0/calibration"));
  std::filesystem::remove_all(dir);
}
