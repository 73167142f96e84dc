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

Run run(double comm_fraction, std::vector<std::vector<NodeShare>> where) {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 8, 1000, 2);
  b.add(2, 0, 100, 8, 1000, 2);
  w.jobs[0].klass = w.jobs[1].klass = w.strings.intern("training");
  const auto cl = uniform_cluster("n", 16, 8, 2);
  const json block = {{"file", "data/k4_fabric.json"},
                      {"traffic", {{"training", {{"pattern", "training_allreduce"}, {"bytes_per_collective", 1e9},
                                                 {"comm_fraction", comm_fraction}}}}}};
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
