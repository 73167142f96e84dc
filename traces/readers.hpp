#pragma once
// One reader per format (internal to traces/). Each takes the whole file as a buffer.
#include <string>
#include <string_view>

#include "traces/trace.hpp"

namespace floorsim::traces::detail {

TraceData read_swf(const std::string& path, std::string_view buf, const ReadOptions& opts);
TraceData read_helios(const std::string& path, std::string_view buf, const ReadOptions& opts);
TraceData read_philly(const std::string& path, std::string_view buf, const ReadOptions& opts);
TraceData read_pai(const std::string& path, std::string_view buf, const ReadOptions& opts);
TraceData read_sacct(const std::string& path, std::string_view buf, const ReadOptions& opts);
TraceData read_csv(const std::string& path, std::string_view buf, const ReadOptions& opts);

}  // namespace floorsim::traces::detail
