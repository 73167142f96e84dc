#pragma once
// The reference complete() is tested against: every active flow stepped at every event and
// re-solved from scratch (the loop fabric/ used before lazy progress, issue 25), with a trace
// summed over every active flow at every step. Slow (O(active flows) per event); tests only.
#include "fabric/maxmin.hpp"

namespace floorsim::fabric::test {

Completion complete_eager(const FlowSet& s, MaxMinSolver& solver, CompletionTrace* trace = nullptr);

}  // namespace floorsim::fabric::test
