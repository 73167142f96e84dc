// libFuzzer entry (clang -fsanitize=fuzzer): the target is picked by FLOORSIM_FUZZ_TARGET.
// An unexpected outcome aborts, so libFuzzer records the input as a crash.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/targets.hpp"

namespace {
const floorsim::fuzz::Target* g_target = nullptr;  // libFuzzer's C entry points leave no other way
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("FLOORSIM_FUZZ_TARGET");
  if (name) g_target = floorsim::fuzz::find_target(name);
  if (!g_target) {
    std::fprintf(stderr, "set FLOORSIM_FUZZ_TARGET to one of:");
    for (const auto& t : floorsim::fuzz::targets()) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!floorsim::fuzz::run_one(*g_target, std::string_view(reinterpret_cast<const char*>(data), size))) std::abort();
  return 0;
}
