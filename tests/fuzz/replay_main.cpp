// fuzz_replay: runs inputs through the fuzz targets without libFuzzer (any compiler).
//   fuzz_replay --list                 target names and their seed globs, one per line
//   fuzz_replay TARGET FILE|DIR...     exit 0 when every input ends in success or InputError
//   fuzz_replay --show TARGET FILE     the scenario a generating target (slurm_sim) makes of FILE
// ctest runs it on tests/fuzz/regress/<target>/ (every crash the fuzzers found, kept).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/targets.hpp"

namespace fs = std::filesystem;

namespace {
std::string read_all(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace floorsim::fuzz;
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& t : targets()) std::printf("%s\t%s\n", t.name, t.seeds);
    return 0;
  }
  if (argc == 4 && std::string(argv[1]) == "--show") {  // what a generating target makes of FILE
    const Target* t = find_target(argv[2]);
    if (!t || !t->show) {
      std::fprintf(stderr, "fuzz_replay: %s is not a target that generates its input\n", argv[2]);
      return 2;
    }
    std::fputs(t->show(read_all(argv[3])).c_str(), stdout);
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_replay --list | --show TARGET FILE | TARGET FILE|DIR...\n");
    return 2;
  }
  const Target* t = find_target(argv[1]);
  if (!t) {
    std::fprintf(stderr, "fuzz_replay: unknown target %s (see --list)\n", argv[1]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  int bad = 0;
  for (const auto& f : files) {
    if (!run_one(*t, read_all(f))) {
      std::fprintf(stderr, "fuzz_replay %s: FAIL on %s\n", t->name, f.c_str());
      ++bad;
    }
  }
  std::printf("fuzz_replay %s: %zu inputs, %d failed\n", t->name, files.size(), bad);
  return bad ? 1 : 0;
}
