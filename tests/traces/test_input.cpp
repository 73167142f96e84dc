// The input layer under every reader (sim/core/input.hpp): gzip read by its magic bytes, lines
// streamed across chunk boundaries, and the line and document caps that end runaway inputs.
#include <zlib.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "tests/traces/test_helpers.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;
using namespace floorsim::traces::test;

namespace {

const std::string kKthGz = std::string(FLOORSIM_SOURCE_DIR) + "/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz";

void write_text(const std::string& path, const std::string& s) {
  std::ofstream o(path, std::ios::binary);
  o << s;
}
void write_gz(const std::string& path, const std::string& s) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(gzwrite(f, s.data(), static_cast<unsigned>(s.size())) == static_cast<int>(s.size()));
  gzclose(f);
}
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace

TEST_CASE("input: gzip is read by its magic bytes, whatever the name", "[traces][input][gz]") {
  TempDir tmp;
  const auto gz = read_trace(kKthGz, Format::Swf);
  REQUIRE(gz.workload.jobs.size() == 28475);  // 28,476 records, one with no processor count
  // The same bytes under a name without .gz, and a plain file decompressed from it.
  std::filesystem::copy_file(kKthGz, tmp.file("kth.swf"));
  write_text(tmp.file("plain.swf.gz"), input::read_document(kKthGz));
  for (const char* name : {"kth.swf", "plain.swf.gz"}) {
    const auto d = read_trace(tmp.file(name), Format::Swf);
    REQUIRE(d.workload.jobs.size() == gz.workload.jobs.size());
    for (size_t i = 0; i < d.workload.jobs.size(); ++i)
      REQUIRE(same_job(d.workload, d.workload.jobs[i], gz.workload, gz.workload.jobs[i]));
    CHECK(d.report.header == gz.report.header);
  }
}

TEST_CASE("input: every reader takes .gz (sacct records joined across lines too)", "[traces][input][gz]") {
  TempDir tmp;
  const struct { const char* file; Format f; } cases[] = {{"sacct_109col.log", Format::Sacct},
                                                           {"helios_quirks.csv", Format::Helios},
                                                           {"philly_quirks.json", Format::Philly},
                                                           {"pai_quirks.csv", Format::PaiOpenb}};
  ReadOptions o;
  o.keep_cpu_jobs = true;
  for (const auto& c : cases) {
    const auto plain = read_trace(data_file(c.file), c.f, o);
    write_gz(tmp.file("t.gz"), input::read_document(data_file(c.file)));
    const auto gz = read_trace(tmp.file("t.gz"), c.f, o);
    INFO(c.file);
    REQUIRE(gz.workload.jobs.size() == plain.workload.jobs.size());
    CHECK(gz.report.skipped == plain.report.skipped);
    CHECK(gz.report.adjusted == plain.report.adjusted);
    for (size_t i = 0; i < gz.workload.jobs.size(); ++i)
      CHECK(same_job(gz.workload, gz.workload.jobs[i], plain.workload, plain.workload.jobs[i]));
  }
}

TEST_CASE("input: a truncated or corrupt .gz is one error naming the file", "[traces][input][gz][errors]") {
  TempDir tmp;
  const std::string all = [] {
    std::ifstream in(kKthGz, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  write_text(tmp.file("cut.swf.gz"), all.substr(0, all.size() / 2));
  CHECK(error_of([&] { read_trace(tmp.file("cut.swf.gz"), Format::Swf); }) ==
        tmp.file("cut.swf.gz") + ": corrupt or truncated gzip data (unexpected end of file); expected a complete .gz file");
  std::string bad = all.substr(0, 4096);
  for (size_t i = 64; i < bad.size(); i += 7) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  write_text(tmp.file("bad.swf.gz"), bad);
  CHECK(error_of([&] { read_trace(tmp.file("bad.swf.gz"), Format::Swf); })
            .rfind(tmp.file("bad.swf.gz") + ": corrupt or truncated gzip data (", 0) == 0);
}

TEST_CASE("input: lines stream across chunks; CRLF and a last line without newline", "[traces][input]") {
  // Lines of every length from 0 to 3000 bytes (3 chunks' worth and more), CRLF on odd lines.
  std::string text;
  std::vector<std::string> want;
  for (size_t n = 0; text.size() < 1200000; n = (n * 7 + 13) % 3001) {
    want.push_back(std::string(n, static_cast<char>('a' + n % 26)));
    text += want.back() + (want.size() % 2 ? "\r\n" : "\n");
  }
  text += "last";
  want.push_back("last");
  TempDir tmp;
  write_text(tmp.file("lines.txt"), text);
  write_gz(tmp.file("lines.gz"), text);
  for (const char* name : {"lines.txt", "lines.gz"}) {
    input::LineSource src(tmp.file(name));
    std::string_view line;
    size_t k = 0;
    while (src.next(line)) {
      REQUIRE(k < want.size());
      REQUIRE(line == want[k]);
      REQUIRE(src.line_no() == ++k);
    }
    CHECK(k == want.size());
  }
}

TEST_CASE("input: a line past the cap is an error naming FILE:LINE", "[traces][input][errors]") {
  const std::string text = "short\n" + std::string(40, 'x') + "\nmore\n";
  input::LineSource src("mem.txt", text, 16);
  std::string_view line;
  REQUIRE(src.next(line));
  CHECK(error_of([&] { src.next(line); }) ==
        "mem.txt:2: line is longer than 16 bytes; expected text lines (is this a binary file or a stream?)");

  TempDir tmp;  // a 2 MiB line in an SWF file, plain and gzip: the reader stops at kMaxLineBytes
  const std::string big = "; Version: 2.2\n" + std::string(2 << 20, '7') + "\n";
  write_text(tmp.file("long.swf"), big);
  write_gz(tmp.file("long.swf.gz"), big);
  for (const char* name : {"long.swf", "long.swf.gz"})
    CHECK(error_of([&] { read_trace(tmp.file(name), Format::Swf); }) ==
          tmp.file(name) + ":2: line is longer than 1 MiB; expected text lines (is this a binary file or a stream?)");
}

TEST_CASE("input: /dev/zero ends in an error, not in memory exhaustion", "[traces][input][errors]") {
  if (!std::filesystem::exists("/dev/zero")) return;
  for (Format f : {Format::Swf, Format::Sacct, Format::Csv})
    CHECK(error_of([&] { read_trace("/dev/zero", f); }).rfind("/dev/zero:1: line is longer than 1 MiB", 0) == 0);
  // Whole documents (JSON) stop at their cap.
  CHECK(error_of([] { input::read_document("/dev/zero", size_t{1} << 20); }) ==
        "/dev/zero: larger than 1 MiB; expected a document of at most 1 MiB");
  CHECK(error_of([] { input::read_text("/dev/zero"); }).rfind("/dev/zero:1: line is longer than 1 MiB", 0) == 0);
}
