// Choosing a vector mechanism (docs/mechanisms.md B.6 "Choosing", the vector analogue of A.8): each
// candidate's block is built with the wire routines for (d, epsilon) on the unit ball (R = 1, f = 16;
// the variances scale with R^2), and ranked by n E||x^ - x_bar||^2 for identical users on the sphere,
// the sum over the d coordinates of the server's own per-coordinate variance, d spread - R^2:
//   vector-duchi, vector-laplace   B.5 (beta = 1e-3, an all-zero rotation seed: the variance does not
//                                  depend on it)
//   l2-ball                        B.6
//   privunitg                      B.7 (the trace of its second moment, unit_vector_total_spread)
//   projunit, fastprojunit         B.8 (k = min(d, 1000); the variance is averaged over the projection)
// Report bytes are wire::max_report_size (vector-laplace's varint is shorter on average).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ldp/server/unit_vector.h"
#include "ldp/server/vector_mean.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/unit_vector_params.h"
#include "ldp/wire/vector_params.h"

namespace ldp::server {
namespace {

constexpr unsigned frac_bits = 16;
constexpr double beta = 1e-3;

}  // namespace

std::vector<vector_recommendation> recommend_vector(uint32_t d, double epsilon, uint64_t n) {
  try {
    std::vector<vector_recommendation> out;
    if (n == 0) return out;
    const unsigned char seed[wire::seed_size] = {};
    const wire::derived_params candidates[] = {
        wire::make_privunitg(d, 1.0, frac_bits, epsilon),
        wire::make_l2_ball(d, 1.0, frac_bits, epsilon),
        wire::make_vector_duchi(d, 1.0, frac_bits, epsilon, beta, seed),
        wire::make_vector_laplace(d, 1.0, frac_bits, epsilon, beta, seed),
        wire::make_projunit(d, 0, 1.0, frac_bits, epsilon),
        wire::make_fastprojunit(d, 0, 1.0, frac_bits, epsilon),
    };
    for (const wire::derived_params& c : candidates) {
      if (c.code != status::ok) continue;
      const wire::params& p = c.block;
      const double total = is_unit_vector_mechanism(p.mech) ? unit_vector_total_spread(p)
                                                            : static_cast<double>(d) * vector_mean_spread(p);
      vector_recommendation r;
      r.mech = p.mech;
      r.variance_per_report = total - 1;
      r.l2_error = std::sqrt(r.variance_per_report / static_cast<double>(n));
      r.report_bytes = wire::max_report_size(p);
      out.push_back(r);
    }
    std::stable_sort(out.begin(), out.end(), [](const vector_recommendation& a, const vector_recommendation& b) {
      return a.variance_per_report < b.variance_per_report;
    });
    return out;
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
