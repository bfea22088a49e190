// A hand-written SVG chart of listed estimates (docs/cli.md "--plot"): one bar per item or
// coordinate at its estimate, the confidence interval as a whisker, and the true value as a marker
// when known. Self-contained (no scripts, no external fonts or styles).
#ifndef LDP_TOOLS_SVG_PLOT_H
#define LDP_TOOLS_SVG_PLOT_H

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "estimates.h"
#include "ldp/server/distribution.h"

namespace ldp::tools {

// At most this many bars: the first ones of the listed order.
inline constexpr std::size_t plot_max_bars = 60;

std::string svg_plot(const estimate_report& r, const std::string& title);
void write_svg_plot(const std::string& path, const estimate_report& r, const std::string& title);

// The density of a distribution state (docs/cli.md "Distributions and ranges"): the estimate at the
// bucket midpoints as a line over the value range, its pointwise interval as a shaded band
// (one <polygon>), and a dashed line at zero.
std::string svg_density_plot(const std::vector<server::density_estimate>& density, double confidence,
                             const std::string& title);
void write_svg_density_plot(const std::string& path, const std::vector<server::density_estimate>& density,
                            double confidence, const std::string& title);

// A line through (x, y) points (ldp train's training-loss curve, docs/cli.md "ldp train"), the
// legend naming the line, the x axis labelled.
void write_svg_curve_plot(const std::string& path, const std::vector<std::pair<double, double>>& points,
                          const std::string& line, const std::string& x_label, const std::string& title);

}  // namespace ldp::tools

#endif
