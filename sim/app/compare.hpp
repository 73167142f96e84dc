#pragma once
// `floorsim compare BASELINE CURRENT --bands BANDS.json` (issue 8): the regression gate.
//
// BASELINE and CURRENT are each a metrics.json, a run directory holding one, a sweep directory
// (results.jsonl) or a results.jsonl. Sweeps are compared point by point (matched on index).
//
// BANDS.json, in the spirit of Kueue's performance range files (a limit per measured figure):
//   {"bands": [
//     {"metric": "wait_s.p99",  "upper": {"abs": 5, "rel": 0.10}},      // may rise by max(5, 10%)
//     {"metric": "/classes/var/deadline_margin_s", "lower": {"rel": 0.05}},  // may fall by 5%
//     {"metric": "utilization", "min": 0.5, "max": 1.0},                // absolute limits
//     {"metric": "makespan_s",  "upper": {"rel": 0.01}, "lower": {"rel": 0.01}}
//   ]}
// "metric" is a JSON pointer ("/wait_s/p99") or a dotted path ("wait_s.p99") into metrics.json
// (for sweep lines: into the line's "metrics"; "verdict..." reaches the line's verdict).
// upper/lower bound the change from the baseline: with abs a and rel r the allowed change is
// max(a, r * |baseline|) (the looser: rel alone is too tight near 0, abs alone across scales).
// max/min are absolute limits on the current value. A band needs at least one of the four.
// Verdicts: pass, REGRESSION (outside the band, or the value vanished: number -> null/absent).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace floorsim::app::compare {

using json = nlohmann::json;

struct Tolerance {
  bool set = false;
  double abs = -1, rel = -1;  // < 0: not given
  double allowed(double baseline) const;
};

struct Band {
  std::string metric;   // as written
  std::string pointer;  // JSON pointer form
  Tolerance upper, lower;
  bool has_max = false, has_min = false;
  double max = 0, min = 0;
  std::string describe() const;  // e.g. "+max(5, 10%) / -5% / <= 1"
};

// Throws InputError(file, JSON pointer, what) on anything malformed or unknown.
std::vector<Band> load_bands_file(const std::string& path);
std::vector<Band> parse_bands(const json& doc, const std::string& file);
// Dotted path -> JSON pointer ("a.b" -> "/a/b"); a pointer is returned unchanged.
std::string to_pointer(const std::string& metric);

struct Input {
  std::string file;                         // what was read
  bool sweep = false;
  std::vector<std::pair<size_t, json>> sets;  // (index, document); one set (index 0) for metrics.json
};
// Throws InputError when the path is none of the accepted forms or does not parse.
Input load_input(const std::string& path);

struct Row {
  std::string metric;  // "wait_s.p99" or "[3] wait_s.p99" for sweeps
  json baseline, current;  // number or null (absent = null + note)
  std::string band, verdict, note;
  bool pass = true;
};

struct Result {
  std::vector<Row> rows;
  size_t failures = 0;
};

// Pure. Throws InputError(bands_file, /bands/i/metric) when a band names a metric that the
// baseline does not have at all (a typo in the bands file), so a gate cannot silently pass.
Result compare(const Input& baseline, const Input& current, const std::vector<Band>& bands, const std::string& bands_file);

std::string table(const Result& r);
std::string junit_xml(const Result& r, const std::string& suite_name);
// JUnit XML with one test case, "inputs readable", in error with `error` (the one-line message
// floorsim prints): written by --junit when the inputs cannot be read.
std::string junit_error_xml(const std::string& error, const std::string& suite_name);

}  // namespace floorsim::app::compare
