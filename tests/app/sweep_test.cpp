// Sweeps (issue 8): point expansion (grid order, list zip, Latin hypercube strata), shards,
// result-file reading (torn last line), the fabric kind's one batch call equal to the
// per-variant path, compare's bands and verdicts, JUnit, the report's CSV reader.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "sim/app/compare.hpp"
#include "sim/app/report.hpp"
#include "sim/app/sweep.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;
namespace sw = floorsim::app::sweep;
namespace cmp = floorsim::app::compare;

namespace {

sw::SweepSpec sweep_of(const std::string& text) { return sw::load_sweep(json::parse(text), "s.json", FLOORSIM_SOURCE_DIR); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Relative closeness for the fabric comparison; null (infinite) must match null.
void require_close(const json& a, const json& b, const std::string& where) {
  INFO(where);
  REQUIRE(a.type() == b.type());
  if (a.is_object()) {
    REQUIRE(a.size() == b.size());
    for (auto it = a.begin(); it != a.end(); ++it) {
      REQUIRE(b.contains(it.key()));
      require_close(it.value(), b[it.key()], where + "/" + it.key());
    }
  } else if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    REQUIRE(std::fabs(x - y) <= 1e-9 * std::max({1e-30, std::fabs(x), std::fabs(y)}));
  } else {
    REQUIRE(a == b);
  }
}

}  // namespace

TEST_CASE("sweep: grid is a cartesian product, first axis slowest; list zips", "[sweep]") {
  auto s = sweep_of(R"({"base": "rehearse", "axes": [
      {"name": "f", "pointer": "/classes/var/floor_gpus", "values": [64, 96, 128]},
      {"name": "l", "pointer": "/workload/synthetic/load_multiplier", "from": 0.5, "to": 1.0, "steps": 2}]})");
  REQUIRE(s.points.size() == 6);
  REQUIRE(s.rehearse);
  CHECK(sw::point_axes(s, 0) == json({{"f", 64}, {"l", 0.5}}));
  CHECK(sw::point_axes(s, 1) == json({{"f", 64}, {"l", 1.0}}));
  CHECK(sw::point_axes(s, 5) == json({{"f", 128}, {"l", 1.0}}));
  const json doc = sw::point_document(s, 3);
  CHECK(doc["classes"]["var"]["floor_gpus"] == 96);
  CHECK(doc["workload"]["synthetic"]["load_multiplier"] == 1.0);

  auto l = sweep_of(R"({"base": "rehearse", "mode": "list", "axes": [
      {"pointer": "/classes/var/floor_gpus", "values": [64, 96]},
      {"pointer": "/idle_pool/nodes", "values": [1, 3]}]})");
  REQUIRE(l.points.size() == 2);
  CHECK(sw::point_axes(l, 1) == json({{"/classes/var/floor_gpus", 96}, {"/idle_pool/nodes", 3}}));
}

TEST_CASE("sweep: Latin hypercube uses every stratum once per axis, seeded", "[sweep]") {
  const std::string text = R"({"base": "rehearse", "mode": "lhs", "samples": 10, "seed": SEED, "axes": [
      {"name": "l", "pointer": "/workload/synthetic/load_multiplier", "min": 1.0, "max": 2.0},
      {"name": "f", "pointer": "/classes/var/floor_gpus", "min": 0, "max": 99, "integer": true}]})";
  auto with_seed = [&](int seed) {
    std::string t = text;
    t.replace(t.find("SEED"), 4, std::to_string(seed));
    return sweep_of(t);
  };
  const auto a = with_seed(3), b = with_seed(3), c = with_seed(4);
  REQUIRE(a.points.size() == 10);
  CHECK(a.points == b.points);
  CHECK(a.points != c.points);
  std::set<int> strata;
  for (const auto& p : a.points) {
    const double v = p[0].get<double>();
    REQUIRE(v >= 1.0);
    REQUIRE(v < 2.0);
    strata.insert(static_cast<int>(std::floor((v - 1.0) * 10)));
    REQUIRE(p[1].is_number_integer());
  }
  CHECK(strata.size() == 10);
}

TEST_CASE("sweep: bad sweep files name the sweep file and the axis pointer", "[sweep]") {
  CHECK(error_of([] { sweep_of(R"({"base": "rehearse", "axes": [{"pointer": "/classes/var/floor_gpus", "values": [-5]}]})"); })
            .find("s.json:/axes/0/pointer: point 0") != std::string::npos);
  CHECK(error_of([] { sweep_of(R"({"base": "rehearse", "axes": [{"pointer": "classes", "values": [1]}]})"); })
            .find("s.json:/axes/0/pointer") != std::string::npos);
  CHECK(error_of([] { sweep_of(R"({"base": "rehearse", "axes": [], "x": 1})"); }).find("s.json:/x: unknown key") != std::string::npos);
  CHECK(error_of([] { sweep_of(R"({"base": "rehearse", "mode": "lhs", "axes": [{"pointer": "/seed", "min": 1, "max": 2}]})"); })
            .find("s.json:/samples") != std::string::npos);
  CHECK(error_of([] { sweep_of(R"({"axes": [{"pointer": "/seed", "values": [1]}]})"); }).find("s.json:/base") != std::string::npos);
  // A Latin hypercube is capped like a grid (10 million points), before anything is allocated.
  CHECK(error_of([] { sweep_of(R"({"base": "rehearse", "mode": "lhs", "samples": 1000000000000, "axes": [{"pointer": "/seed", "min": 1, "max": 2}]})"); })
            .find("s.json:/samples: more than 10 million points") != std::string::npos);
}

TEST_CASE("sweep: shards are 0-based slices p mod N", "[sweep]") {
  const auto s = sw::parse_shard("1/3");
  CHECK(s.index == 1);
  CHECK(s.count == 3);
  CHECK(s.owns(4));
  CHECK_FALSE(s.owns(3));
  CHECK_THROWS_AS(sw::parse_shard("3/3"), std::invalid_argument);
  CHECK_THROWS_AS(sw::parse_shard("1"), std::invalid_argument);
  CHECK_THROWS_AS(sw::parse_shard("a/2"), std::invalid_argument);
  CHECK_THROWS_AS(sw::parse_shard("0/0"), std::invalid_argument);
}

TEST_CASE("sweep: read_results drops a torn last line, rejects a corrupt middle line", "[sweep]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim_sweep_test";
  std::filesystem::create_directories(dir);
  const auto p = (dir / "r.jsonl").string();
  std::ofstream(p) << "{\"index\":0}\n{\"index\":1}\n{\"ind";
  bool torn = false;
  auto lines = sw::read_results(p, &torn);
  CHECK(lines.size() == 2);
  CHECK(torn);
  std::ofstream(p) << "{\"index\":0}\n{\"index\":1}\n";
  lines = sw::read_results(p, &torn);
  CHECK(lines.size() == 2);
  CHECK_FALSE(torn);
  std::ofstream(p) << "{\"index\":0}\ngarbage\n{\"index\":1}\n";
  CHECK(error_of([&] { sw::read_results(p); }).find("r.jsonl:2:") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("sweep: a point runs through the scenario parser and carries the verdict", "[sweep]") {
  auto s = sweep_of(R"({"base": "rehearse", "axes": [{"name": "load", "pointer": "/workload/synthetic/load_multiplier", "values": [0.25]}]})");
  const json line = sw::evaluate_point(s, 0);
  CHECK(line["index"] == 0);
  CHECK(line["axes"]["load"] == 0.25);
  CHECK(line["metrics"]["jobs"].get<int>() > 0);
  CHECK(line["metrics"]["classes"].contains("var"));
  CHECK(line["verdict"]["pass"].is_boolean());
  CHECK(line["verdict"]["criteria"].contains("var finishes with margin"));
  CHECK(line == sw::evaluate_point(s, 0));  // deterministic
}

TEST_CASE("sweep: fabric kind, one batch contention call equals the per-variant fabric path", "[sweep][fabric]") {
  const auto s = sw::load_sweep_file(std::string(FLOORSIM_SOURCE_DIR) + "/examples/sweeps/fabric-taper.json");
  REQUIRE(s.kind == "fabric");
  std::vector<size_t> all(s.points.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto batch = sw::fabric_batch_lines(s, all);
  const auto ref = sw::fabric_reference_lines(s, all);
  REQUIRE(batch.size() == ref.size());
  for (size_t i = 0; i < batch.size(); ++i) require_close(batch[i], ref[i], "point " + std::to_string(i));
  // The axes change the answer: a 4:1 edge taper slows the permutation down against 1:1.
  const auto slow = [&](size_t i) { return batch[i]["metrics"]["traffic"]["permutation"]["healthy"]["slowest_s"].get<double>(); };
  CHECK(slow(18) > slow(2));  // k=4, taper 4 vs 1, port 0, 1e9 bytes, 1e4 paths
  // Runtime-only axis: ten times the VaR paths, a longer VaR job; the bottleneck feeds its comm term.
  const auto var_s = [&](size_t i) { return batch[i]["metrics"]["runtime"]["jobs"]["var-batch"]["healthy"].get<double>(); };
  CHECK(var_s(3) > var_s(2));
  CHECK(batch[2]["metrics"]["runtime"]["bottleneck_bytes_per_s"]["healthy"].get<double>() > 0);
  CHECK(batch[2]["metrics"]["runtime"]["jobs"]["eod-pricing"]["healthy"] == batch[3]["metrics"]["runtime"]["jobs"]["eod-pricing"]["healthy"]);
  // A subset gives the same lines as the whole batch (shards, resume).
  const auto part = sw::fabric_batch_lines(s, {3, 17});
  CHECK(part[0] == batch[3]);
  CHECK(part[1] == batch[17]);
}

TEST_CASE("compare: bands, planted regression, pass within bands", "[compare]") {
  const json bands_doc = json::parse(R"({"bands": [
      {"metric": "wait_s.p99", "upper": {"abs": 5, "rel": 0.10}},
      {"metric": "/classes/var/deadline_margin_s", "lower": {"rel": 0.05}},
      {"metric": "utilization", "min": 0.5, "max": 1.0}]})");
  const auto bands = cmp::parse_bands(bands_doc, "b.json");
  REQUIRE(bands.size() == 3);
  CHECK(bands[0].pointer == "/wait_s/p99");
  CHECK(bands[0].upper.allowed(100) == Approx(10));  // the looser of 5 and 10%
  CHECK(bands[0].upper.allowed(10) == Approx(5));
  const json base = {{"wait_s", {{"p99", 100.0}}}, {"utilization", 0.8}, {"classes", {{"var", {{"deadline_margin_s", 1000.0}}}}}};
  auto in = [](const json& d) {
    cmp::Input i;
    i.file = "m.json";
    i.sets.emplace_back(0, d);
    return i;
  };
  json ok = base;
  ok["wait_s"]["p99"] = 109.0;
  ok["classes"]["var"]["deadline_margin_s"] = 951.0;
  auto r = cmp::compare(in(base), in(ok), bands, "b.json");
  CHECK(r.failures == 0);
  json bad = base;
  bad["wait_s"]["p99"] = 111.0;                     // +11 > max(5, 10)
  bad["classes"]["var"]["deadline_margin_s"] = nullptr;  // vanished
  bad["utilization"] = 0.4;                         // below min
  r = cmp::compare(in(base), in(bad), bands, "b.json");
  CHECK(r.failures == 3);
  CHECK(r.rows[0].verdict == "REGRESSION");
  const std::string xml = cmp::junit_xml(r, "a & b");
  CHECK(xml.find("failures=\"3\"") != std::string::npos);
  CHECK(xml.find("a &amp; b") != std::string::npos);
  CHECK(cmp::table(r).find("REGRESSION: 3 of 3") != std::string::npos);
  // A band on a metric the baseline does not have is a bands-file error, with its pointer.
  const auto typo = cmp::parse_bands(json::parse(R"({"bands": [{"metric": "wait_s.p999", "max": 1}]})"), "b.json");
  CHECK(error_of([&] { cmp::compare(in(base), in(base), typo, "b.json"); }).find("b.json:/bands/0/metric") != std::string::npos);
  CHECK(error_of([] { cmp::parse_bands(json::parse(R"({"bands": [{"metric": "x", "upper": {"abs": -1}}]})"), "b.json"); })
            .find("b.json:/bands/0/upper/abs") != std::string::npos);
  CHECK(error_of([] { cmp::parse_bands(json::parse(R"({"bands": [{"metric": "x"}]})"), "b.json"); }).find("b.json:/bands/0: has no limit") !=
        std::string::npos);
}

TEST_CASE("report: CSV reader keeps quoted host lists whole", "[report]") {
  const auto rows = app::report::parse_csv("a,b,c\n1,\"gpu[001,003]\",x\n2,,\"q\"\"q\"\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][1] == "gpu[001,003]");
  CHECK(rows[2][1].empty());
  CHECK(rows[2][2] == "q\"q");
}
