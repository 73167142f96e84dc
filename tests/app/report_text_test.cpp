// The reports' words and units, no-op axes and input hashes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/app/report_text.hpp"
#include "sim/core/build_info.hpp"

using namespace floorsim::app::report;
using json = nlohmann::json;

TEST_CASE("report text: metric paths in words, with units", "[report]") {
  CHECK(describe_metric("/classes/var/deadline_margin_s").words == "var deadline margin");
  CHECK(describe_metric("classes.var.deadline_margin_s").unit == Unit::Time);
  CHECK(describe_metric("/wait_s/p99").words == "p99 wait");
  CHECK(describe_metric("/utilization").unit == Unit::Percent);
  CHECK(describe_metric("/classes/risk/lost_gpu_s").unit == Unit::GpuHours);
  CHECK(describe_metric("/traffic/allreduce/base/slowest_s").words == "allreduce, base: slowest flow");
  CHECK(describe_metric("/scheduler_report/bf_cycles_s").words == "scheduler report bf cycles");
}

TEST_CASE("report text: h:mm and percent", "[report]") {
  CHECK(hmm(0) == "0:00");
  CHECK(hmm(5400) == "1:30");
  CHECK(hmm(-300) == "-0:05");
  CHECK(hmm(99000) == "27:30");
  CHECK(format_display(Unit::Time, to_display(Unit::Time, 7200)) == "2:00");
  CHECK(format_display(Unit::Percent, to_display(Unit::Percent, 0.875)) == "87.5%");
}

TEST_CASE("report text: an axis whose values change nothing is a no-op", "[report]") {
  const json axes = json::parse(R"([{"name": "a"}, {"name": "b"}])");
  std::vector<json> lines;
  for (int a : {1, 2})
    for (int b : {1, 2}) lines.push_back({{"axes", {{"a", a}, {"b", b}}}, {"metrics", {{"m", b * 10}}}});
  const std::vector<std::string> shown{"/m"};
  CHECK(noop_axes(axes, lines, shown) == std::vector<std::string>{"a"});
  // The echo of an axis's own input is not a result: a metric not shown does not count.
  for (auto& l : lines) l["metrics"]["echo_a"] = l["axes"]["a"];
  CHECK(noop_axes(axes, lines, shown) == std::vector<std::string>{"a"});
  lines[3]["metrics"]["m"] = 99;  // a=2, b=2 differs from a=1, b=2
  CHECK(noop_axes(axes, lines, shown).empty());
  // Random designs (no two points differ in one axis only) flag nothing.
  const std::vector<json> lhs{{{"axes", {{"a", 1}, {"b", 1}}}, {"metrics", {{"m", 1}}}}, {{"axes", {{"a", 2}, {"b", 2}}}, {"metrics", {{"m", 1}}}}};
  CHECK(noop_axes(axes, lhs, shown).empty());
}

TEST_CASE("report text: the footer names version, commit and each input's SHA-256", "[report]") {
  const auto p = std::filesystem::temp_directory_path() / "floorsim_report_footer.txt";
  std::ofstream(p) << "abc";
  const std::string f = footer_html("a night", {p, p.string() + ".absent"});
  CHECK(f.find("<p>Scenario: a night</p>") != std::string::npos);
  CHECK(f.find(std::string("commit ") + floorsim::io::kCommit) != std::string::npos);
  // FIPS 180-4's "abc" example.
  CHECK(f.find("<code>ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad</code> floorsim_report_footer.txt") != std::string::npos);
  CHECK(f.find(".absent") == std::string::npos);
  std::filesystem::remove(p);
}
