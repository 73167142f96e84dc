// Format names and dispatch. The readers live in one file per format (swf.cpp, helios.cpp,
// philly.cpp, pai.cpp, sacct.cpp, csv.cpp); the options they share are applied by
// detail::JobBuilder (parse_util.cpp).
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "traces/readers.hpp"
#include "traces/trace.hpp"

namespace floorsim::traces {

Format parse_format(const std::string& name) {
  if (name == "swf") return Format::Swf;
  if (name == "helios") return Format::Helios;
  if (name == "philly") return Format::Philly;
  if (name == "pai") return Format::PaiOpenb;
  if (name == "sacct") return Format::Sacct;
  if (name == "csv") return Format::Csv;
  throw std::invalid_argument("unknown trace format '" + name + "'; expected swf, helios, philly, pai, sacct or csv");
}

std::string format_name(Format f) {
  switch (f) {
    case Format::Swf: return "swf";
    case Format::Helios: return "helios";
    case Format::Philly: return "philly";
    case Format::PaiOpenb: return "pai";
    case Format::Sacct: return "sacct";
    case Format::Csv: return "csv";
  }
  return "?";
}

namespace {

// One fread of the whole file (io::read_file goes through a stringstream, 3x slower here).
std::string read_whole_file(const std::string& path) {
  // A directory opens, and its "size" from ftell is LONG_MAX: refuse it by name.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "is a directory; expected a trace file");
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw InputError(path, "", "cannot open the trace file; expected a readable file");
  std::string buf;
  if (std::fseek(fp, 0, SEEK_END) == 0) {
    const long size = std::ftell(fp);
    if (size > 0) buf.resize(static_cast<size_t>(size));
    std::rewind(fp);
  }
  size_t got = buf.empty() ? 0 : std::fread(buf.data(), 1, buf.size(), fp);
  buf.resize(got);
  // Pipes and files that grew: read whatever is left.
  char chunk[65536];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, fp)) > 0;) buf.append(chunk, n);
  const bool err = std::ferror(fp) != 0;
  std::fclose(fp);
  if (err) throw InputError(path, "", "read error; expected a readable file");
  return buf;
}

}  // namespace

TraceData read_trace(const std::string& path, Format format, const ReadOptions& opts) {
  if (opts.gpus_per_proc <= 0)
    throw InputError(path, "", "gpus_per_proc is " + std::to_string(opts.gpus_per_proc) + "; expected >= 1");
  const std::string buf = read_whole_file(path);  // one read; readers work on views into it
  io::check_utf8(buf, path);
  switch (format) {
    case Format::Swf: return detail::read_swf(path, buf, opts);
    case Format::Helios: return detail::read_helios(path, buf, opts);
    case Format::Philly: return detail::read_philly(path, buf, opts);
    case Format::PaiOpenb: return detail::read_pai(path, buf, opts);
    case Format::Sacct: return detail::read_sacct(path, buf, opts);
    case Format::Csv: return detail::read_csv(path, buf, opts);
  }
  throw std::invalid_argument("unknown trace format");
}

}  // namespace floorsim::traces
