// Fabric coupling: a job's runtime depends on where it was placed and on the other running
// jobs' traffic (issue 5).
#include <catch2/catch.hpp>

#include "sim/app/fabric_coupling.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/error.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using floorsim::testing::JobBuilder;
using json = nlohmann::json;

namespace {

// Places every job on the nodes listed for it, in submit order.
class Placed : public Scheduler {
 public:
  std::vector<std::vector<NodeShare>> where;
  std::string_view name() const override { return "placed"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    for (JobIdx j : v.pending) out.start(j, where[j]);
  }
};

struct Run {
  std::vector<JobRun> runs;
  json report;
};

Run run(double comm_fraction, std::vector<std::vector<NodeShare>> where, json failures = json::array(),
        double b_submit_s = 0) {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 8, 1000, 2);
  b.add(2, b_submit_s, 100, 8, 1000, 2);
  w.jobs[0].klass = w.jobs[1].klass = w.strings.intern("training");
  const auto cl = uniform_cluster("n", 16, 8, 2);
  const json block = {{"file", "data/k4_fabric.json"},
                      {"traffic", {{"training", {{"pattern", "training_allreduce"}, {"bytes_per_collective", 1e9},
                                                 {"comm_fraction", comm_fraction}}}}},
                      {"failures", failures}};
  const auto coupling = app::load_fabric_coupling(block, FLOORSIM_SOURCE_DIR "/tests/app", "s.json", w, cl);
  auto model = std::make_unique<app::FabricRuntime>(coupling);
  Placed p;
  p.where = std::move(where);
  Engine e(w, cl, p, EngineConfig{.check_invariants = true});
  e.set_runtime_model(model.get());
  e.run();
  return {e.runs(), model->report()};
}

}  // namespace

TEST_CASE("two jobs sharing a host's link stretch the one that starts second", "[fabric][coupling]") {
  // A on hosts 0 and 2, B on hosts 1 and 2: both rings send into host 2, whose down-link they
  // share, so B's collective takes twice as long as alone. Half of B's runtime is that
  // collective: 50 s + 2 x 50 s = 150 s. A started alone: 100 s.
  auto r = run(0.5, {{{0, 4}, {2, 4}}, {{1, 4}, {2, 4}}});
  CHECK(r.runs[0].end_s == Approx(100));
  CHECK(r.runs[1].end_s == Approx(150));
  CHECK(r.report["max_slowdown"].get<double>() == Approx(2.0));
  CHECK(r.report["starts_evaluated"] == 2);
}

TEST_CASE("placement changes runtimes: disjoint hosts do not contend", "[fabric][coupling]") {
  auto r = run(0.5, {{{0, 4}, {2, 4}}, {{1, 4}, {3, 4}}});  // D-mod-K: A via agg 0, B via agg 1
  CHECK(r.runs[0].end_s == Approx(100));
  CHECK(r.runs[1].end_s == Approx(100));
}

TEST_CASE("a class that does not communicate is never stretched", "[fabric][coupling]") {
  auto r = run(0.0, {{{0, 4}, {2, 4}}, {{1, 4}, {2, 4}}});
  CHECK(r.runs[1].end_s == Approx(100));
}

TEST_CASE("a fabric smaller than the cluster is bad input", "[fabric][coupling]") {
  Workload w;
  const auto cl = uniform_cluster("n", 17, 8);
  const json block = {{"file", "data/k4_fabric.json"}, {"traffic", json::object()}};
  CHECK_THROWS_WITH(app::load_fabric_coupling(block, FLOORSIM_SOURCE_DIR "/tests/app", "s.json", w, cl),
                    Catch::StartsWith("s.json:/fabric/file: the fabric has 16 hosts but the cluster has 17 nodes"));
}

TEST_CASE("a timed switch failure reroutes jobs started while it lasts", "[fabric][coupling][failures]") {
  // k=4: A (hosts 0, 2) goes up through aggregation switch 0 of pod 0, B (hosts 1, 3) through
  // aggregation switch 1 (D-mod-K). With aggregation switch 1 lost, B's ring must share A's
  // links: slowdown 2, so B takes 50 s + 2 x 50 s = 150 s.
  const std::vector<std::vector<NodeShare>> where = {{{0, 4}, {2, 4}}, {{1, 4}, {3, 4}}};
  auto agg1 = [](double at, json dur) { return json{{"at_s", at}, {"duration_s", dur}, {"switch", {{"level", 2}, {"index", 1}}},
                                                    {"link", nullptr}, {"pod", nullptr}}; };
  SECTION("lost from t = 0 for good") {
    auto r = run(0.5, where, json::array({agg1(0, nullptr)}));
    CHECK(r.runs[0].end_s == Approx(100));
    CHECK(r.runs[1].end_s == Approx(150));
    REQUIRE(r.report["failures"].size() == 1);
    CHECK(r.report["failures"][0]["starts_during"] == 2);
    CHECK(r.report["failures"][0]["max_slowdown_during"].get<double>() == Approx(2.0));
    CHECK(r.report["failures"][0]["until_s"].is_null());
  }
  SECTION("lost after both started: running jobs keep their start-time factor") {
    auto r = run(0.5, where, json::array({agg1(10, 100)}));
    CHECK(r.runs[1].end_s == Approx(100));
    CHECK(r.report["failures"][0]["starts_during"] == 0);
  }
  SECTION("a job started after the repair is routed as on a healthy fabric") {
    auto during = run(0.5, where, json::array({agg1(0, 5)}), 4);
    CHECK(during.runs[1].end_s == Approx(4 + 150));
    auto after = run(0.5, where, json::array({agg1(0, 5)}), 5);  // repaired at 5: live at 5
    CHECK(after.runs[1].end_s == Approx(5 + 100));
    CHECK(after.report["failures"][0]["starts_during"] == 1);  // only A
  }
}

TEST_CASE("a timed failure naming a switch the fabric lacks is bad input", "[fabric][coupling][failures]") {
  Workload w;
  const auto cl = uniform_cluster("n", 16, 8);
  const json block = {{"file", "data/k4_fabric.json"},
                      {"traffic", json::object()},
                      {"failures", json::array({{{"at_s", 0}, {"duration_s", nullptr}, {"switch", {{"level", 2}, {"index", 99}}},
                                                 {"link", nullptr}, {"pod", nullptr}}})}};
  CHECK_THROWS_WITH(app::load_fabric_coupling(block, FLOORSIM_SOURCE_DIR "/tests/app", "s.json", w, cl),
                    Catch::StartsWith("s.json:/fabric/failures/0: "));
}
