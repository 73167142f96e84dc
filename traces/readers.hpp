#pragma once
// One reader per format (internal to traces/). Each reads its file's lines from a LineSource
// (streamed, plain or gzip, lines capped: sim/core/input.hpp); Philly, a JSON document, takes it whole.
#include <string>
#include <string_view>

#include "sim/core/input.hpp"
#include "traces/trace.hpp"

namespace floorsim::traces::detail {

TraceData read_swf(input::LineSource& src, const ReadOptions& opts);
TraceData read_helios(input::LineSource& src, const ReadOptions& opts);
TraceData read_philly(input::LineSource& src, const ReadOptions& opts);
TraceData read_pai(input::LineSource& src, const ReadOptions& opts);
TraceData read_sacct(input::LineSource& src, const ReadOptions& opts);
TraceData read_csv(input::LineSource& src, const ReadOptions& opts);

}  // namespace floorsim::traces::detail
