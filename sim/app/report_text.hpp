#pragma once
// The words and units of the HTML reports: metric paths in words, times as h:mm, fractions as %,
// GPU-seconds as GPU-hours; the summary's no-op axes; the footer's provenance (floorsim version,
// commit, input hashes). Pure functions, so report.cpp only lays out.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace floorsim::app::report {

// Text made safe inside HTML elements and double-quoted attributes (& < > ").
std::string html_esc(const std::string& s);

enum class Unit { Time, Percent, GpuHours, Plain };

struct MetricWords {
  std::string words;  // "var deadline margin", "p99 wait", "GPU utilization"
  Unit unit = Unit::Plain;
};

// "/classes/var/deadline_margin_s" -> {"var deadline margin", Time}; dotted paths too.
MetricWords describe_metric(const std::string& pointer);
// "(h:mm)", "(%)", "(GPU-hours)", "".
std::string unit_suffix(Unit u);
// The value as drawn on a chart axis: seconds -> hours, fraction -> percent, GPU-s -> GPU-h.
double to_display(Unit u, double v);
// A displayed value as text: hours -> "h:mm" ("-0:05", "27:30"), percent -> "87.5%", else short.
std::string format_display(Unit u, double shown);
// Seconds as "h:mm".
std::string hmm(double seconds);

// Names of the axes whose values change nothing the report shows: every group of points that
// differ only in this axis has identical values of `metrics` (JSON pointers; the metrics.json
// echo of the axis's own input, such as a class's floor_gpus, is not a result), the same
// verdict and the same error (and at least one group has two of its values).
std::vector<std::string> noop_axes(const nlohmann::json& axes, const std::vector<nlohmann::json>& lines,
                                   const std::vector<std::string>& metrics);

// <footer id="footer">: the scenario description, floorsim version and commit (io::kCommit, as
// the fabric sign-off pack names them), and the SHA-256 of
// each input file that exists.
std::string footer_html(const std::string& description, const std::vector<std::filesystem::path>& inputs);

}  // namespace floorsim::app::report
