#include "sim/core/warnings.hpp"

#include <algorithm>
#include <cstdio>

namespace floorsim {

void Warnings::add(std::string message) {
  // Linear: a run raises a handful of warnings, and the order kept is the order raised.
  if (std::find(list_.begin(), list_.end(), message) == list_.end()) list_.push_back(std::move(message));
}

void Warnings::print() const {
  for (const auto& m : list_) std::fprintf(stderr, "floorsim: warning: %s\n", m.c_str());
}

}  // namespace floorsim
