// The empirical (epsilon, delta) lower bound of a Monte-Carlo privacy audit over threshold events of
// a scalar statistic (docs/mechanisms.md I.1 "The end-to-end audits"), shared by the audits of the
// central training mechanisms (chapter I).
#ifndef LDP_TESTS_SUPPORT_DP_AUDIT_H
#define LDP_TESTS_SUPPORT_DP_AUDIT_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "stats.h"

namespace ldp::test {

// x and y: the statistic of independent runs of a mechanism on two neighbouring inputs. For each t in
// `thresholds` two events are audited, {s >= t} (x's probability over y's) and {s < t} (y's over x's):
// if the mechanism is (epsilon, delta)-DP, P(E | x) <= e^epsilon P(E | y) + delta for every event, so
// ln((lo(P(E | x)) - delta) / hi(P(E | y))) with Clopper-Pearson bounds (each proportion two-sided at
// alpha) is below epsilon except with probability alpha per event. Returns the largest such bound
// (-infinity when no event's lower proportion exceeds delta): with 2 |thresholds| events, the
// probability that it exceeds a true epsilon is at most 2 |thresholds| alpha.
inline double epsilon_lower_bound(const std::vector<double>& x, const std::vector<double>& y,
                                  const std::vector<double>& thresholds, double delta, double alpha) {
  const auto bound = [&](uint64_t hits_more, uint64_t n_more, uint64_t hits_less, uint64_t n_less) {
    const double lo = clopper_pearson(hits_more, n_more, alpha).lo - delta;
    const double hi = clopper_pearson(hits_less, n_less, alpha).hi;
    return lo > 0 ? std::log(lo / hi) : -std::numeric_limits<double>::infinity();
  };
  double best = -std::numeric_limits<double>::infinity();
  for (const double t : thresholds) {
    const auto above = [t](const std::vector<double>& s) {
      return static_cast<uint64_t>(std::count_if(s.begin(), s.end(), [t](double v) { return v >= t; }));
    };
    const uint64_t nx = x.size(), ny = y.size(), ax = above(x), ay = above(y);
    best = std::max({best, bound(ax, nx, ay, ny), bound(ny - ay, ny, nx - ax, nx)});
  }
  return best;
}

// Thresholds fixed before the audit from an independent pilot run of each input (so the audit's events
// do not depend on the audited sample): for each c, the pilot y's mean + c sd (an upper-tail event that
// x's larger statistic hits more often) and x's mean - c sd (the lower tail, y's side). The statistic
// is oriented so that x's is the larger.
inline std::vector<double> pilot_thresholds(const std::vector<double>& pilot_x, const std::vector<double>& pilot_y,
                                            const std::vector<double>& cs) {
  const auto moments = [](const std::vector<double>& s) {
    double m = 0, m2 = 0;
    for (const double v : s) m += v;
    m /= static_cast<double>(s.size());
    for (const double v : s) m2 += (v - m) * (v - m);
    return std::pair<double, double>{m, std::sqrt(m2 / static_cast<double>(s.size() - 1))};
  };
  const auto [mx, sx] = moments(pilot_x);
  const auto [my, sy] = moments(pilot_y);
  std::vector<double> t;
  for (const double c : cs) {
    t.push_back(my + c * sy);
    t.push_back(mx - c * sx);
  }
  return t;
}

}  // namespace ldp::test

#endif
