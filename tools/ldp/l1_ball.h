// ldp estimate --l1-ball R (docs/cli.md "estimate", docs/mechanisms.md C.3 "LDP extension"): the
// vector of estimated means projected onto the l1 ball of radius R. Projection is post-processing
// (no privacy cost) and non-expansive, so when the true mean lies in the ball the projected vector
// is never farther from it in l2 than the unprojected one; for s-sparse data of l2 norm at most L,
// R = L sqrt(s) contains it and Lemma 3.1 bounds the error by 2 L sqrt(s) ||noise||_inf.
#ifndef LDP_TOOLS_L1_BALL_H
#define LDP_TOOLS_L1_BALL_H

#include <vector>

#include "ldp/server/aggregator.h"
#include "ldp/wire/mechanism.h"

namespace ldp::tools {

struct l1_projection {
  double radius = 0;
  double threshold = 0;         // theta of the soft threshold (0: the vector was inside the ball)
  double unprojected_norm = 0;  // ||y||_1 before the projection
  std::vector<double> unprojected;
};

// Whether --l1-ball applies: the LDP vector means (vector-mean, laplace-vector, the unit-vector
// family), whose estimates are the coordinates of one mean vector.
bool projects_onto_l1_ball(wire::mechanism m);

// Replaces the estimates' values by the coordinates of their projection onto {x : ||x||_1 <= radius}
// (server::project_l1_ball). Their variances and intervals stay the unprojected estimates': the
// projection is biased and has no closed-form variance, and those intervals still cover the true
// means at their level. cli_error for a radius that is negative or not finite.
l1_projection project_estimates(std::vector<server::estimate>& all, double radius);

}  // namespace ldp::tools

#endif
