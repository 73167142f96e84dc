// Prints how long read_trace takes on the real traces bundled in traces/data/ (best of N runs):
// the .swf.gz files as shipped and, decompressed to a temporary file, as plain text; and the
// write speed of the CSV and SWF writers. Figures only; no assertions.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/core/input.hpp"
#include "sim/core/io.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  const std::string dir = std::string(FLOORSIM_SOURCE_DIR) + "/traces/data/";
  const auto tmp = std::filesystem::temp_directory_path();
  // Plain copies of the gzip logs, so that both paths of the reader are timed on the same text.
  auto plain_copy = [&](const std::string& gz, const std::string& name) {
    const std::string out = (tmp / ("floorsim_bench_" + name)).string();
    io::write_file_atomic(out, input::read_document(dir + gz));
    return out;
  };
  const std::string kth_plain = plain_copy("pwa/KTH-SP2-1996-2.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf");
  const std::string nasa_plain = plain_copy("pwa/NASA-iPSC-1993-3.1-cln.swf.gz", "NASA-iPSC-1993-3.1-cln.swf");
  struct Case { std::string path, label; Format f; };
  const Case cases[] = {{kth_plain, "KTH-SP2-1996-2.1-cln.swf (plain)", Format::Swf},
                        {dir + "pwa/KTH-SP2-1996-2.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf.gz", Format::Swf},
                        {nasa_plain, "NASA-iPSC-1993-3.1-cln.swf (plain)", Format::Swf},
                        {dir + "pwa/NASA-iPSC-1993-3.1-cln.swf.gz", "NASA-iPSC-1993-3.1-cln.swf.gz", Format::Swf}};
  using clk = std::chrono::steady_clock;
  auto ms = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("%-40s %10s %8s %12s %12s\n", "file", "bytes", "jobs", "best_ms", "MB_per_s");
  TraceData kth;
  for (const auto& c : cases) {
    double best = 1e300;
    TraceData d;
    for (int r = 0; r < runs; ++r) {
      auto t0 = clk::now();
      d = read_trace(c.path, c.f);
      best = std::min(best, ms(t0, clk::now()));
    }
    const double bytes = static_cast<double>(std::filesystem::file_size(c.path));
    std::printf("%-40s %10.0f %8zu %12.3f %12.1f\n", c.label.c_str(), bytes, d.workload.jobs.size(), best,
                bytes / 1e6 / (best / 1e3));
    if (c.f == Format::Swf && kth.workload.jobs.empty()) kth = std::move(d);
  }
  std::filesystem::remove(kth_plain);
  std::filesystem::remove(nasa_plain);
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
  return 0;
}
