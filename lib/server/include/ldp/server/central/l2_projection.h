// Projection onto the L2 ball {w : ||w||_2 <= radius} around 0: the "projected" of the projected SGD
// that the training drivers run (docs/mechanisms.md I.1-I.3: dp_sgd, levy_training, ghazi_sgd) and
// that ldp train's local baseline applies (I.4). A public post-processing step: no privacy cost.
#ifndef LDP_SERVER_CENTRAL_L2_PROJECTION_H
#define LDP_SERVER_CENTRAL_L2_PROJECTION_H

#include <cmath>
#include <vector>

namespace ldp::server {

// w scaled by radius / ||w||_2 when its norm is above radius; radius <= 0 means no projection.
inline void project_l2_ball(std::vector<double>& w, double radius) noexcept {
  if (radius <= 0) return;
  double norm2 = 0;
  for (const double v : w) norm2 += v * v;
  const double norm = std::sqrt(norm2);
  if (norm <= radius) return;
  for (double& v : w) v *= radius / norm;
}

}  // namespace ldp::server

#endif
