#include "svg_plot.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "files.h"

namespace ldp::tools {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A 1, 2 or 5 times a power of ten, about a fifth of the span.
double tick_step(double span) {
  const double raw = span / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string tick_label(double v, double step) {
  if (std::fabs(v) < step / 2) return "0";
  if (step >= 1 && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

// The <svg> element's opening, white background and title.
std::string svg_head(double width, double height, double left, const std::string& title) {
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} "
             "{1:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
             "fill=\"white\"/>\n",
             width, height) +
         fmt::format("<text x=\"{:.1f}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", left,
                     escape(title));
}

// An axis over [lo, hi] widened to whole ticks: the step and the widened ends.
struct axis {
  double lo, hi, step;
  axis(double a, double b) {
    if (!(b - a > 0)) b = a + 1;
    step = tick_step(b - a);
    lo = std::floor(a / step) * step;
    hi = std::ceil(b / step) * step;
  }
};

void write_svg(const std::string& path, const std::string& svg) {
  atomic_output out(path, "plot");
  out.write(svg);
  out.commit();
}

}  // namespace

namespace {

// What a line chart's legend and x axis say; no band (and no band legend) when `band` is empty.
struct line_chart_labels {
  std::string band, line, x;
};

// A line over x with an optional band [ci_low, ci_high] under it and a dashed line at zero: the
// density plot and ldp train's loss curve.
std::string svg_line_chart(const std::vector<server::density_estimate>& density, const line_chart_labels& labels,
                           const std::string& title) {
  const double left = 72, right = 24, top = 56, bottom = 48, plot_w = 640, plot_h = 300;
  const double width = left + plot_w + right, height = top + plot_h + bottom;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool any = false;
  for (const server::density_estimate& e : density) {
    if (!std::isfinite(e.value) || !std::isfinite(e.ci_low) || !std::isfinite(e.ci_high)) continue;
    x_lo = any ? std::min(x_lo, e.x) : e.x;
    x_hi = any ? std::max(x_hi, e.x) : e.x;
    y_lo = std::min(y_lo, e.ci_low);
    y_hi = std::max(y_hi, e.ci_high);
    any = true;
  }
  const axis xs(x_lo, x_hi), ys(y_lo, y_hi);
  const auto x = [&](double v) { return left + plot_w * (v - xs.lo) / (xs.hi - xs.lo); };
  const auto y = [&](double v) { return top + plot_h * (ys.hi - v) / (ys.hi - ys.lo); };

  std::string s = svg_head(width, height, left, title);
  if (!labels.band.empty()) {
    s += fmt::format(
        "<rect x=\"{0:.1f}\" y=\"32\" width=\"10\" height=\"10\" fill=\"#c6dbef\"/><text x=\"{1:.1f}\" "
        "y=\"41\">{2}</text>\n",
        left, left + 14, labels.band);
  }
  s += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"37\" x2=\"{1:.1f}\" y2=\"37\" stroke=\"#08519c\" stroke-width=\"1.5\"/>"
      "<text x=\"{2:.1f}\" y=\"41\">{3}</text>\n",
      left + 170, left + 184, left + 190, labels.line);
  for (double v = ys.lo; v <= ys.hi + ys.step / 2; v += ys.step) {
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#dddddd\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        left, y(v), left + plot_w, y(v), left - 6, y(v) + 4, tick_label(v, ys.step));
  }
  for (double v = xs.lo; v <= xs.hi + xs.step / 2; v += xs.step) {
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4}</text>\n",
        x(v), top + plot_h, top + plot_h + 5, top + plot_h + 18, tick_label(v, xs.step));
  }
  // The band: the upper ends left to right, then the lower ends back; the estimate over it.
  std::string band, line;
  for (const server::density_estimate& e : density) {
    if (std::isfinite(e.ci_high)) band += fmt::format("{:.1f},{:.1f} ", x(e.x), y(e.ci_high));
    if (std::isfinite(e.value)) line += fmt::format("{:.1f},{:.1f} ", x(e.x), y(e.value));
  }
  for (auto e = density.rbegin(); e != density.rend(); ++e) {
    if (std::isfinite(e->ci_low)) band += fmt::format("{:.1f},{:.1f} ", x(e->x), y(e->ci_low));
  }
  if (!labels.band.empty()) s += fmt::format("<polygon points=\"{}\" fill=\"#c6dbef\" stroke=\"none\"/>\n", band);
  s += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"black\" "
      "stroke-dasharray=\"4 3\"/>\n",
      left, y(0), left + plot_w);
  s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#08519c\" stroke-width=\"1.5\"/>\n", line);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", left + plot_w / 2, height - 8,
                   labels.x);
  s += "</svg>\n";
  return s;
}

}  // namespace

std::string svg_density_plot(const std::vector<server::density_estimate>& density, double confidence,
                             const std::string& title) {
  return svg_line_chart(
      density, {fmt::format("{:g}% pointwise interval", 100 * confidence), "estimated density", "value"}, title);
}

void write_svg_curve_plot(const std::string& path, const std::vector<std::pair<double, double>>& points,
                          const std::string& line, const std::string& x_label, const std::string& title) {
  std::vector<server::density_estimate> line_points;
  for (const auto& [x, y] : points) line_points.push_back({x, y, y, y});
  write_svg(path, svg_line_chart(line_points, {"", line, x_label}, title));
}

void write_svg_density_plot(const std::string& path, const std::vector<server::density_estimate>& density,
                            double confidence, const std::string& title) {
  write_svg(path, svg_density_plot(density, confidence, title));
}

std::string svg_plot(const estimate_report& r, const std::string& title) {
  const std::size_t bars = std::min(r.listed.size(), plot_max_bars);
  const double left = 72, right = 24, top = 56, bottom = 64, plot_h = 300;
  const double slot = std::max(12.0, 600.0 / std::max(1.0, static_cast<double>(bars)));
  const double width = left + right + slot * static_cast<double>(bars), height = top + plot_h + bottom;

  double lo = 0, hi = 0;
  const auto widen = [&](double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (std::size_t k = 0; k < bars; ++k) {
    const server::estimate& e = r.all[r.listed[k]];
    widen(e.value);
    widen(e.ci_low);
    widen(e.ci_high);
    if (r.truth) widen(r.truth->values[r.listed[k]]);
  }
  const axis ticks(lo, hi);
  const double step = ticks.step;
  lo = ticks.lo;
  hi = ticks.hi;
  const auto y = [&](double v) { return top + plot_h * (hi - v) / (hi - lo); };

  std::string s = svg_head(width, height, left, title);
  // Legend.
  s += fmt::format(
      "<rect x=\"{0:.1f}\" y=\"32\" width=\"10\" height=\"10\" fill=\"#9ecae1\"/><text x=\"{1:.1f}\" "
      "y=\"41\">estimate</text>\n"
      "<line x1=\"{2:.1f}\" y1=\"31\" x2=\"{2:.1f}\" y2=\"43\" stroke=\"#08519c\" stroke-width=\"1.5\"/>"
      "<text x=\"{3:.1f}\" y=\"41\">{4:g}% confidence interval</text>\n",
      left, left + 14, left + 80, left + 86, 100 * r.confidence);
  if (r.truth) {
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"37\" r=\"3.5\" fill=\"#d62728\"/><text x=\"{:.1f}\" y=\"41\">true value</text>\n",
        left + 245, left + 252);
  }
  // Axis and grid.
  for (double v = lo; v <= hi + step / 2; v += step) {
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#dddddd\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        left, y(v), width - right, y(v), left - 6, y(v) + 4, tick_label(v, step));
  }
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"black\"/>\n", left, y(0),
                   width - right);
  // Bars, whiskers, true values, labels.
  for (std::size_t k = 0; k < bars; ++k) {
    const std::size_t i = r.listed[k];
    const server::estimate& e = r.all[i];
    const double cx = left + slot * (static_cast<double>(k) + 0.5);
    if (std::isfinite(e.value)) {
      const double y0 = y(0), y1 = y(e.value);
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#9ecae1\"/>\n",
                       cx - slot * 0.35, std::min(y0, y1), slot * 0.7, std::fabs(y1 - y0));
    }
    if (std::isfinite(e.ci_low) && std::isfinite(e.ci_high)) {
      s += fmt::format(
          "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}M{3:.1f} {1:.1f}H{4:.1f}M{3:.1f} {2:.1f}H{4:.1f}\" stroke=\"#08519c\" "
          "stroke-width=\"1.5\" fill=\"none\"/>\n",
          cx, y(e.ci_low), y(e.ci_high), cx - slot * 0.2, cx + slot * 0.2);
    }
    if (r.truth) {
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"#d62728\"/>\n", cx, y(r.truth->values[i]));
    }
    s += fmt::format("<text transform=\"translate({:.1f} {:.1f}) rotate(-60)\" text-anchor=\"end\">{}</text>\n", cx + 3,
                     top + plot_h + 12, e.item);
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   left + (width - left - right) / 2, height - 6, r.means ? "coordinate" : "item");
  s += "</svg>\n";
  return s;
}

void write_svg_plot(const std::string& path, const estimate_report& r, const std::string& title) {
  write_svg(path, svg_plot(r, title));
}

}  // namespace ldp::tools
