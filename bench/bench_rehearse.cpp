// Wall time of the default rehearsal and of its --growth search (issue 7 targets: under 2 s and
// under 30 s). Prints figures; asserts nothing.
#include <chrono>
#include <cstdio>

#include "sim/app/rehearse.hpp"

using namespace floorsim;

int main() {
  using clk = std::chrono::steady_clock;
  const app::json night = app::default_night();
  auto t0 = clk::now();
  const app::Scenario sc = app::load_rehearsal(night, "<built-in>", ".");
  const app::RunResult r = app::run_scenario(sc);
  const app::Verdict v = app::judge(sc, r.metrics);
  const double one = std::chrono::duration<double>(clk::now() - t0).count();
  std::printf("default rehearsal: %.3f s wall (%zu jobs, %llu events, %llu passes, verdict %s)\n", one,
              sc.workload.jobs.size(), static_cast<unsigned long long>(r.stats.events),
              static_cast<unsigned long long>(r.stats.passes), v.pass() ? "PASS" : "FAIL");
  t0 = clk::now();
  const app::Growth g = app::search_growth(night, "<built-in>", ".");
  const double grow = std::chrono::duration<double>(clk::now() - t0).count();
  std::printf("rehearse --growth: %.3f s wall (%d runs, headroom x%.3f, first failing x%.3f: %s -> %s)\n", grow, g.runs,
              g.max_ok, g.first_fail, g.first_fail_criterion.c_str(), g.first_fail_layer.c_str());
  return 0;
}
