#pragma once
// The files a fabric scenario may name besides itself: explicit flow sets (CSV, or the same
// fields inline as JSON) and a measurements file (what was measured on hardware, where, and
// which modelled figure of the pack it stands against).
//
// Flow set CSV: a header naming the columns, then one flow per line:
//   src,dst,bytes[,start_s][,path]
// src and dst are host indices (0..N-1, N = the fabric's hosts), bytes > 0, start_s >= 0 (the
// arrival; default 0), path = the up-port taken at each level from the source to the lowest
// common ancestor, '/'-separated ("1/0/3"; a port is parent * p + parallel link, as in a link
// failure's "port"); empty = routed by the scenario's mode.
//
// Measurements CSV: what,where,measured,unit,modelled -- `modelled` is a JSON pointer into
// signoff.json naming the figure the measurement is set against (/traffic/0/results/dmodk/slowest_s).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/routing.hpp"
#include "fabric/topology.hpp"

namespace floorsim::fabric {

// Flows of one explicit set. Flows between two hosts of one NVLink domain (or a host and
// itself) are not fabric traffic: they are counted, not solved.
struct ExplicitFlows {
  std::vector<Demand> demands;
  uint64_t not_fabric = 0;
};

// One CSV record's fields (RFC 4180 quotes, surrounding blanks trimmed); throws
// InputError(file, LINE, ...) on an unterminated quote.
std::vector<std::string> csv_fields(std::string_view line, const std::string& file, size_t line_no);

// `text` is the file's content (already read, so that its hash names what was solved).
// Throws InputError(file, LINE, ...).
ExplicitFlows read_flows_csv(const Topology& t, const std::string& file, const std::string& text, uint32_t tag);
// Inline: an array of {"src", "dst", "bytes", "start_s", "path": [ports]}. Throws
// InputError(file, JSON pointer, ...).
ExplicitFlows flows_from_json(const Topology& t, const nlohmann::json& arr, const std::string& ptr,
                              const std::string& file, uint32_t tag);

struct Measurement {
  std::string what, where, unit, modelled;  // modelled: JSON pointer into the pack
  double measured = 0;
  size_t line = 0;
};
std::vector<Measurement> read_measurements_csv(const std::string& file, const std::string& text);
// The pack's "measured" list: each measurement beside the modelled figure it names. Throws
// InputError(file, LINE, ...) when a pointer names no number in the pack.
nlohmann::json measured_json(const std::vector<Measurement>& m, const nlohmann::json& pack, const std::string& file);

}  // namespace floorsim::fabric
