// The SVG and page helpers the HTML reports share (run, sweep and review reports).
#include "sim/app/report_svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/report_text.hpp"

namespace floorsim::app::report {

const char* const kPalette[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};


std::string slug(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  const size_t a = o.find_first_not_of('-'), b = o.find_last_not_of('-');
  return a == std::string::npos ? std::string("x") : o.substr(a, b - a + 1);
}

std::string num(double v) {
  if (!std::isfinite(v)) return "-";
  if (std::fabs(v) >= 100 || v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// ---- SVG frame: a plot area with axes, nice ticks and labels.


std::vector<double> nice_ticks(double a, double b, int n) {
  std::vector<double> t;
  if (!(b > a)) return {a};
  const double raw = (b - a) / n, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(a / step) * step; v <= b + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// Ticks for an axis in hours labelled h:mm: steps of whole minutes or hours (1, 2, 5, 10, 15,
// 30 min; 1, 2, 3, 6, 12 h; then whole days), so rounding to the minute never repeats a label.
std::vector<double> hour_ticks(double a, double b, int n) {
  if (!(b > a)) return {a};
  const double raw = (b - a) / n;
  double step = 0;
  for (double m : {1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 180.0, 360.0, 720.0, 1440.0})
    if (raw <= m / 60) {
      step = m / 60;
      break;
    }
  if (step == 0) step = 24 * std::ceil(raw / 24);
  std::vector<double> t;
  for (double k = std::ceil(a / step - 1e-9); k * step <= b + step * 1e-9; k += 1) t.push_back(k * step);
  return t;
}

std::string svg_open(const std::string& id, const std::string& title, const Frame& f, const std::string& xlabel,
                     const std::string& ylabel, bool draw_axes) {
  std::string s = fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\"><title>{}</title>\n",
      html_esc(id), f.w, f.h, f.w, f.h, html_esc(title), html_esc(title));
  s += fmt::format("<text x=\"{}\" y=\"16\" class=\"ct\">{}</text>\n", f.ml, html_esc(title));
  if (!draw_axes) return s;
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"pa\"/>\n", f.ml, f.mt, f.w - f.ml - f.mr, f.h - f.mt - f.mb);
  std::vector<double> xt;
  if (f.xlog1p) {
    for (double v = 0; v <= f.x1 * 1.0001; v = v == 0 ? 1 : v * 10) xt.push_back(v);
  } else {
    xt = nice_ticks(f.x0, f.x1);
  }
  for (double v : f.xticks ? xt : std::vector<double>{})
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"g\"/><text x=\"{0:.1f}\" y=\"{3}\" class=\"tx\">{4}</text>\n",
                     f.X(v), f.mt, f.h - f.mb, f.h - f.mb + 14, num(v));
  for (double v : !f.yticks ? std::vector<double>{} : f.yhours ? hour_ticks(f.y0, f.y1) : nice_ticks(f.y0, f.y1))
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"g\"/><text x=\"{3}\" y=\"{4:.1f}\" class=\"ty\">{5}</text>\n",
                     f.ml, f.w - f.mr, f.Y(v), f.ml - 4, f.Y(v) + 4, f.ytext ? f.ytext(v) : num(v));
  s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xl\">{}</text>\n", (f.ml + f.w - f.mr) / 2, f.h - 6, html_esc(xlabel));
  s += fmt::format("<text x=\"12\" y=\"{}\" class=\"yl\" transform=\"rotate(-90 12 {})\">{}</text>\n", (f.mt + f.h - f.mb) / 2,
                   (f.mt + f.h - f.mb) / 2, html_esc(ylabel));
  return s;
}

// A step line through (x_i, y_i) held until x_end.
std::string step_path(const Frame& f, const std::vector<std::pair<double, double>>& pts, double x_end) {
  if (pts.empty()) return "";
  std::string d = fmt::format("M{:.1f},{:.1f}", f.X(pts[0].first), f.Y(pts[0].second));
  for (size_t i = 1; i < pts.size(); ++i) d += fmt::format("H{:.1f}V{:.1f}", f.X(pts[i].first), f.Y(pts[i].second));
  d += fmt::format("H{:.1f}", f.X(x_end));
  return d;
}

std::string legend(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s = "<p class=\"lg\">";
  for (const auto& [name, colour] : items) s += fmt::format("<span style=\"color:{}\">&#9632;</span> {} &nbsp; ", colour, html_esc(name));
  return s + "</p>\n";
}

namespace {
const char* kStyle = R"CSS(
body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}table.txt td,table.txt th{text-align:left}td:first-child{white-space:nowrap}
.chart{display:block;margin:6px 0}.ct{font-size:13px;font-weight:bold}.pa{fill:#fafafa;stroke:#999}
.g{stroke:#e4e4e4}.tx{font-size:10px;text-anchor:middle}.ty{font-size:10px;text-anchor:end}
.xl,.yl{font-size:11px;text-anchor:middle}.lg{font-size:12px}.small{display:inline-block;vertical-align:top}
.fail{color:#c00;font-weight:bold}.pass{color:#070}.note{color:#666;font-size:13px}
)CSS";
}  // namespace

std::string page_open(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n",
                     html_esc(title), kStyle, html_esc(title));
}

}  // namespace floorsim::app::report
