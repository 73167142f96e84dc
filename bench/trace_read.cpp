// Prints how long read_trace takes on the real samples in ../shared/traces (best of N runs),
// and the write speed of the CSV and SWF writers. Figures only; no assertions.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "traces/trace.hpp"

using namespace floorsim::traces;

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  const std::string dir = std::string(FLOORSIM_SHARED_DIR) + "/traces/";
  struct Case { const char* file; Format f; };
  const Case cases[] = {{"swf/KTH-SP2-1996-2.1-cln.swf", Format::Swf},
                        {"swf/NASA-iPSC-1993-3.1-cln.swf", Format::Swf},
                        {"alibaba-pai/v2023/openb_pod_list_default.csv", Format::PaiOpenb},
                        {"slurm-sacct/sacct_submitline_multiline.log", Format::Sacct}};
  using clk = std::chrono::steady_clock;
  auto ms = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("%-48s %10s %8s %12s %12s\n", "file", "bytes", "jobs", "best_ms", "MB_per_s");
  TraceData kth;
  for (const auto& c : cases) {
    const std::string path = dir + c.file;
    if (!std::filesystem::exists(path)) {
      std::printf("%-48s (absent)\n", c.file);
      continue;
    }
    double best = 1e300;
    TraceData d;
    for (int r = 0; r < runs; ++r) {
      auto t0 = clk::now();
      d = read_trace(path, c.f);
      best = std::min(best, ms(t0, clk::now()));
    }
    const double bytes = static_cast<double>(std::filesystem::file_size(path));
    std::printf("%-48s %10.0f %8zu %12.3f %12.1f\n", c.file, bytes, d.workload.jobs.size(), best,
                bytes / 1e6 / (best / 1e3));
    if (c.f == Format::Swf && kth.workload.jobs.empty()) kth = std::move(d);
  }
  if (!kth.workload.jobs.empty()) {
    const auto tmp = std::filesystem::temp_directory_path();
    for (const char* kind : {"csv", "swf"}) {
      const std::string out = (tmp / (std::string("floorsim_bench_trace.") + kind)).string();
      double best = 1e300;
      for (int r = 0; r < runs; ++r) {
        auto t0 = clk::now();
        if (kind[0] == 'c') write_csv(out, kth.workload); else write_swf(out, kth.workload);
        best = std::min(best, ms(t0, clk::now()));
      }
      std::printf("write_%s KTH (%zu jobs): best %.3f ms\n", kind, kth.workload.jobs.size(), best);
      std::filesystem::remove(out);
    }
  }
  return 0;
}
