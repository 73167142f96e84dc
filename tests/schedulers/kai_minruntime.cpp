// The minruntime plugin's resolver, against the table of KAI's own tests
// (pkg/scheduler/plugins/minruntime/resolver_test.go, createTestQueues), with the queues read
// from Queue manifests: preemptMinRuntime / reclaimMinRuntime and their inheritance.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "schedulers/kai/kai_scheduler.hpp"

using namespace floorsim::kai;

namespace {

// dev (5s/10s) -> dev-team1 (-/8s), dev-team2 (3s/-); prod (20s/30s) -> prod-team1 (-/25s),
// prod-team2 (15s/35s); research (4s/6s) -> research-project (7s/9s). preempt/reclaim.
const char* kQueues = R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: dev}
spec: {preemptMinRuntime: 5s, reclaimMinRuntime: 10s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: prod}
spec: {preemptMinRuntime: 20s, reclaimMinRuntime: 30s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: research}
spec: {preemptMinRuntime: 4s, reclaimMinRuntime: 6s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: dev-team1}
spec: {parentQueue: dev, reclaimMinRuntime: 8s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: dev-team2}
spec: {parentQueue: dev, preemptMinRuntime: 3s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: prod-team1}
spec: {parentQueue: prod, reclaimMinRuntime: 25s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: prod-team2}
spec: {parentQueue: prod, preemptMinRuntime: 15s, reclaimMinRuntime: 35s}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: research-project}
spec: {parentQueue: research, preemptMinRuntime: 7s, reclaimMinRuntime: 9s}
)";

struct Fixture {
  std::vector<std::string> warnings;
  QueueTree t = load_queues_text(kQueues, "queues.yaml", warnings);
  int q(const std::string& name) const {
    for (int i = 0; i < t.size(); ++i)
      if (t[i].name == name) return i;
    FAIL("no queue " << name);
    return -1;
  }
};

constexpr double kDefaultPreempt = 2, kDefaultReclaim = 1;  // the test's resolver defaults

}  // namespace

TEST_CASE("kai minruntime: preemptMinRuntime from the queue or its nearest ancestor", "[kai][conformance][minruntime]") {
  Fixture f;
  CHECK(f.warnings.empty());
  CHECK(preempt_min_runtime(f.t, f.q("prod-team2"), kDefaultPreempt) == 15);
  CHECK(preempt_min_runtime(f.t, f.q("prod-team1"), kDefaultPreempt) == 20);
  CHECK(preempt_min_runtime(f.t, f.q("dev-team1"), kDefaultPreempt) == 5);
  CHECK(preempt_min_runtime(f.t, f.q("prod"), kDefaultPreempt) == 20);
  CHECK(preempt_min_runtime(f.t, f.q("research"), kDefaultPreempt) == 4);
}

TEST_CASE("kai minruntime: reclaimMinRuntime, queue method", "[kai][conformance][minruntime]") {
  Fixture f;
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team1"), f.q("prod-team2"), kDefaultReclaim, false) == 35);
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team1"), f.q("dev-team2"), kDefaultReclaim, false) == 10);
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team1"), f.q("research-project"), kDefaultReclaim, false) == 9);
}

TEST_CASE("kai minruntime: reclaimMinRuntime, lowest-common-ancestor method", "[kai][conformance][minruntime]") {
  Fixture f;
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team1"), f.q("prod-team2"), kDefaultReclaim, true) == 30);
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team2"), f.q("dev-team1"), kDefaultReclaim, true) == 8);
  CHECK(reclaim_min_runtime(f.t, f.q("prod-team1"), f.q("prod-team2"), kDefaultReclaim, true) == 35);
  CHECK(reclaim_min_runtime(f.t, f.q("prod-team2"), f.q("prod-team2"), kDefaultReclaim, true) == 35);
  CHECK(reclaim_min_runtime(f.t, f.q("dev-team1"), f.q("research-project"), kDefaultReclaim, true) == 6);
}

TEST_CASE("kai minruntime: a top-level queue without a value falls back to the default", "[kai][conformance][minruntime]") {
  std::vector<std::string> w;
  const QueueTree t = load_queues_text(std::string(kQueues) + R"(---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: no-reclaim}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: leaf}
spec: {parentQueue: no-reclaim}
)", "q.yaml", w);
  int dev1 = -1, leaf = -1;
  for (int i = 0; i < t.size(); ++i) {
    if (t[i].name == "dev-team1") dev1 = i;
    if (t[i].name == "leaf") leaf = i;
  }
  CHECK(reclaim_min_runtime(t, dev1, leaf, kDefaultReclaim, true) == kDefaultReclaim);
}
