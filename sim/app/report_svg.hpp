#pragma once
// The SVG and page helpers the HTML reports share: a chart frame with axes and ticks, step
// lines, legends, the page head with its style sheet. Inline SVG only: no script, no network.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace floorsim::app::report {

extern const char* const kPalette[10];

// "Var Floor" -> "var-floor": ids and anchors.
std::string slug(const std::string& s);
// A short number: whole above 100 or when whole, else 4 significant digits; "-" when not finite.
std::string num(double v);

// An SVG frame: a plot area with axes, nice ticks and labels.
struct Frame {
  double w = 860, h = 260, ml = 64, mr = 16, mt = 28, mb = 42;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool xlog1p = false;  // x drawn as log10(1 + x)
  bool xticks = true;   // false for charts whose x positions are labelled instead (periods)
  bool yticks = true;   // false for bar charts whose rows are labelled instead
  std::string (*ytext)(double) = nullptr;  // y tick labels (null: plain numbers)
  bool yhours = false;  // y in hours, labelled h:mm: ticks on whole minutes, so no two labels read alike
  double fx(double x) const { return xlog1p ? std::log10(1 + std::max(0.0, x)) : x; }
  double X(double x) const {
    const double a = fx(x0), b = fx(x1);
    return ml + (fx(x) - a) / (b > a ? b - a : 1) * (w - ml - mr);
  }
  double Y(double y) const { return h - mb - (y - y0) / (y1 > y0 ? y1 - y0 : 1) * (h - mt - mb); }
};

std::vector<double> nice_ticks(double a, double b, int n = 5);
// Ticks for an axis in hours labelled h:mm: whole minutes or hours, so no two labels repeat.
std::vector<double> hour_ticks(double a, double b, int n = 5);
// <svg id=...> with its <title>, the plot area, ticks and axis labels (draw_axes false: title only).
std::string svg_open(const std::string& id, const std::string& title, const Frame& f, const std::string& xlabel,
                     const std::string& ylabel, bool draw_axes = true);
// A step line through (x_i, y_i) held until x_end.
std::string step_path(const Frame& f, const std::vector<std::pair<double, double>>& pts, double x_end);
// A legend line: a coloured square and the name per item.
std::string legend(const std::vector<std::pair<std::string, std::string>>& items);
// <!DOCTYPE html> ... <body><h1>title</h1>, with the reports' style sheet.
std::string page_open(const std::string& title);

}  // namespace floorsim::app::report
