// The batch kernel against fabric/'s CPU solver (MaxMinSolver + complete), scenario by scenario.
#include <catch2/catch.hpp>

#include "fabric/maxmin.hpp"
#include "kernels/contention.hpp"
#include "kernels_test_util.hpp"

using namespace floorsim;
using namespace floorsim::kernels;

TEST_CASE("OMP batch equals fabric's MaxMinSolver on random scenarios (1e-9 relative)", "[kernels][fabric]") {
  std::vector<fabric::FlowSet> sets;
  const auto b = kernels::test::random_batch(80, 4242, &sets);
  const auto r = omp::batch_contention(b);
  fabric::MaxMinSolver solver;
  double worst_rate = 0, worst_finish = 0;
  for (size_t s = 0; s < sets.size(); ++s) {
    const auto& fs = sets[s];
    std::vector<double> rates;
    solver.solve(fs, rates);
    const fabric::Completion c = fabric::complete(fs, solver);
    const size_t f0 = b.flow_offsets[s];
    std::vector<double> mine_rate(r.flow_rate_bytes_per_s.begin() + f0, r.flow_rate_bytes_per_s.begin() + f0 + fs.flows());
    std::vector<double> mine_finish(r.flow_completion_s.begin() + f0, r.flow_completion_s.begin() + f0 + fs.flows());
    rates.resize(fs.flows());
    worst_rate = std::max(worst_rate, kernels::test::max_rel_diff(mine_rate, rates));
    worst_finish = std::max(worst_finish, kernels::test::max_rel_diff(mine_finish, c.finish_s));
  }
  INFO("max relative difference: rates " << worst_rate << ", completion times " << worst_finish);
  CHECK(worst_rate < 1e-9);
  CHECK(worst_finish < 1e-9);
}
