// The audit pack's accounting read back by the sacct reader with no loss; every lint rule on its
// failing and passing example; rehearse's governance criterion on a purpose-built night.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "sim/app/audit.hpp"
#include "sim/app/lint.hpp"
#include "sim/app/rehearse.hpp"
#include "sim/app/runner.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::app;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {
const std::string kSrc = FLOORSIM_SOURCE_DIR;
}

TEST_CASE("audit: sacct --parsable2 accounting reads back with no loss", "[govern][audit]") {
  const Scenario sc = load_scenario_file(kSrc + "/examples/govern/changes.json");
  RunOptions o;
  o.keep_runs = true;
  const RunResult r = run_scenario(sc, o);
  const std::string text = sacct_parsable2(sc, r);
  const fs::path tmp = fs::temp_directory_path() / "floorsim_govern_sacct.txt";
  std::ofstream(tmp) << text;
  const traces::TraceData back = traces::read_trace(tmp.string(), traces::Format::Sacct);
  fs::remove(tmp);
  // Header: the real sacct column names.
  CHECK(text.rfind("JobID|JobIDRaw|JobName|Partition|Account|User|QOS|State|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqTRES|AllocTRES|NodeList|ExitCode|Reason\n", 0) == 0);
  // A job's last attempt started when it started after its last requeue; earlier attempts are
  // rows of their own (sacct --duplicates), each with a batch step.
  size_t started = 0, unstarted = 0, earlier = 0;
  std::map<int64_t, size_t> idx;
  for (size_t i = 0; i < sc.workload.jobs.size(); ++i) {
    idx[sc.workload.jobs[i].id] = i;
    const auto& a = r.attempts[i];
    earlier += a.size();
    (r.runs[i].start_s >= 0 && (a.empty() || r.runs[i].start_s > a.back().start_s) ? started : unstarted) += 1;
  }
  REQUIRE(started > 0);
  REQUIRE(earlier > 0);  // the example preempts with requeue
  // Every job whose last attempt ran comes back; every earlier attempt, step row and
  // never-started job is accounted as such.
  CHECK(back.workload.jobs.size() == started);
  CHECK(back.report.rows == sc.workload.jobs.size() + earlier + started + earlier);
  CHECK(back.report.skipped.at("step_row") == started + earlier);
  CHECK(back.report.skipped.at("requeued_earlier_attempt") == earlier);
  if (unstarted) CHECK(back.report.skipped.at("never_started") == unstarted);
  // Times come back relative to the first Submit (the reader's epoch).
  const double t0 = sc.workload.jobs.front().submit_s;
  const auto& bs = back.workload.strings;
  const auto& ss = sc.workload.strings;
  for (const auto& b : back.workload.jobs) {
    REQUIRE(idx.count(b.id));
    const JobSpec& j = sc.workload.jobs[idx[b.id]];
    const JobRun& run = r.runs[idx[b.id]];
    const auto& att = r.attempts[idx[b.id]];
    CHECK(b.submit_s == (att.empty() ? j.submit_s : att.back().end_s) - t0);  // requeueing resets Submit
    CHECK(b.recorded_start_s == run.start_s - t0);
    CHECK(b.runtime_s == run.end_s - run.start_s);
    CHECK(b.time_limit_s == j.time_limit_s);
    CHECK(b.gpus == j.gpus);
    CHECK(b.nodes == static_cast<int32_t>(run.alloc_count));
    CHECK(bs.str(b.user) == ss.str(j.user));
    CHECK(bs.str(b.account) == ss.str(j.account));
    // Named ones as named; the others as slurmctld fills them (default partition, DefaultQOS).
    if (!ss.str(j.qos).empty()) CHECK(bs.str(b.qos) == ss.str(j.qos));
    if (!ss.str(j.partition).empty()) CHECK(bs.str(b.partition) == ss.str(j.partition));
    CHECK(!bs.str(b.qos).empty());
    CHECK(bs.str(b.partition) == (ss.str(j.partition).empty() ? "gpu" : ss.str(j.partition)));
  }
  // The cancelled backtest jobs are CANCELLED rows (QOS burst: backtester's DefaultQOS), with
  // their batch steps.
  CHECK(text.find("\n1|1|backtest|gpu|research|backtester|burst|CANCELLED by 0|") != std::string::npos);
  CHECK(text.find("\n1.batch|1.batch|batch|") != std::string::npos);
}

TEST_CASE("audit: time formats", "[govern][audit]") {
  CHECK(sacct_time(0) == "2026-01-01T00:00:00");
  CHECK(sacct_time(86400 * 59 + 3661) == "2026-03-01T01:01:01");
  CHECK(sacct_duration(3661) == "01:01:01");
  CHECK(sacct_duration(90061) == "1-01:01:01");
  CHECK(sacct_duration(kNever) == "UNLIMITED");
}

TEST_CASE("audit: the policy part names controlled fields and roles", "[govern][audit]") {
  const Scenario sc = load_scenario_file(kSrc + "/examples/govern/loophole.json");
  const json p = policy_json(sc);
  CHECK(p["model"] == "slurm");
  bool qos = false, resv = false;
  for (const auto& c : p["controlled"]) {
    if (c["object"] == "QOS" && c["name"] == "risk") qos = c["fields"].contains("grp_tres");
    if (c["object"] == "reservation" && c["name"] == "var_window") resv = c["changed_by"].size() == 3;  // admins + loophole
  }
  CHECK(qos);
  CHECK(resv);
  CHECK(p["loopholes"]["user_resv_delete"] == true);
}

TEST_CASE("lint: every rule fails its failing example and passes its passing one", "[govern][lint]") {
  const auto& rules = lint_rules();
  REQUIRE(rules.size() == 12);
  for (const auto& rule : rules) {
    SECTION(rule.name) {
      const fs::path dir = fs::path(kSrc) / "examples/lint" / rule.name;
      std::string fail_file, pass_file;
      for (const auto& e : fs::directory_iterator(dir)) {
        const std::string stem = e.path().stem().string();
        if (stem == "fail") fail_file = e.path().string();
        if (stem == "pass") pass_file = e.path().string();
      }
      REQUIRE(!fail_file.empty());
      REQUIRE(!pass_file.empty());
      LintOptions o;
      const auto bad = lint_config(fail_file, o);
      REQUIRE(bad.size() == 1);
      CHECK(bad[0].rule == rule.name);
      CHECK(bad[0].severity == rule.severity);
      CHECK(bad[0].location.rfind(fail_file, 0) == 0);  // names the file (and line or pointer)
      // A run's warning is located at the scenario: its message names its own file and place.
      if (rule.name != "run-warning") CHECK(bad[0].location.size() > fail_file.size());
      CHECK(lint_config(pass_file, o).empty());
    }
  }
}

TEST_CASE("rehearse: the governance criterion fails on an unapproved edit", "[govern][rehearse]") {
  auto verdict = [](const std::string& f) {
    const std::string path = kSrc + "/examples/govern/" + f;
    std::ifstream in(path);
    const json doc = json::parse(in);
    const Scenario sc = load_rehearsal(doc, path, kSrc + "/examples/govern");
    return judge(sc, run_scenario(sc).metrics);
  };
  auto governance = [](const Verdict& v) {
    for (const auto& c : v.criteria)
      if (c.name == "change log: no unapproved edits") return c;
    return Criterion{};
  };
  const Criterion open = governance(verdict("loophole.json"));
  CHECK(open.evaluated);
  CHECK_FALSE(open.pass);
  CHECK(open.layer == "governance");
  CHECK(open.value == 1);
  const Criterion closed = governance(verdict("loophole-closed.json"));
  CHECK(closed.evaluated);
  CHECK(closed.pass);
}
