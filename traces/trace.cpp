// Format names and dispatch. The readers live in one file per format (swf.cpp, helios.cpp,
// philly.cpp, pai.cpp, sacct.cpp, csv.cpp); the options they share are applied by
// detail::JobBuilder (parse_util.cpp).
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
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

TraceData read_trace(const std::string& path, Format format, const ReadOptions& opts) {
  if (opts.gpus_per_proc <= 0)
    throw InputError(path, "", "gpus_per_proc is " + std::to_string(opts.gpus_per_proc) + "; expected >= 1");
  input::LineSource src(path);  // streamed, plain or gzip, each line capped and checked as UTF-8
  switch (format) {
    case Format::Swf: return detail::read_swf(src, opts);
    case Format::Helios: return detail::read_helios(src, opts);
    case Format::Philly: return detail::read_philly(src, opts);
    case Format::PaiOpenb: return detail::read_pai(src, opts);
    case Format::Sacct: return detail::read_sacct(src, opts);
    case Format::Csv: return detail::read_csv(src, opts);
  }
  throw std::invalid_argument("unknown trace format");
}

}  // namespace floorsim::traces
