#pragma once
// The reader fuzz targets, one table shared by the libFuzzer binary (fuzz_readers, clang
// -fsanitize=fuzzer) and the replay binary (fuzz_replay, any compiler, run by ctest on the
// regression inputs). A target feeds bytes to one reader and accepts exactly two outcomes:
// success, or floorsim::InputError. Anything else (another exception, a crash, a sanitizer
// report, a hang) is a bug in the reader. One target is not a reader: slurm_sim builds a Slurm
// scenario from the bytes (slurm_scenario.hpp) and runs it, and must finish (see targets.cpp).
//
// Adding a reader = one row in kTargets (targets.cpp) + its seeds: either files in the repo
// (tests/fuzz/seeds/<name>/ is always used) or globs in the row's `seeds` (relative to the
// repo root; traces/data/ holds the bundled real traces, .gz ones decompressed by run.sh).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace floorsim::fuzz {

struct Target {
  const char* name;
  // Feeds `data` to the reader; returns normally on success or InputError, throws
  // std::logic_error describing anything else.
  void (*run)(std::string_view data);
  const char* seeds;  // space-separated globs relative to the repo root (may be empty)
  // Targets that build their input from the bytes: what `data` becomes (fuzz_replay --show).
  std::string (*show)(std::string_view data) = nullptr;
};

std::span<const Target> targets();
const Target* find_target(std::string_view name);

// Runs one input; on an unexpected outcome prints it to stderr and returns false.
bool run_one(const Target& t, std::string_view data);

}  // namespace floorsim::fuzz
