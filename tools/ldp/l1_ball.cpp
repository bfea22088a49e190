#include "l1_ball.h"

#include <cmath>
#include <utility>

#include "errors.h"
#include "ldp/device/context.h"
#include "ldp/server/central/l1_projection.h"

namespace ldp::tools {

bool projects_onto_l1_ball(wire::mechanism m) {
  switch (device::family_of(m)) {
    case device::family::vector_mean:
    case device::family::unit_vector:
    case device::family::projected_unit: return true;
    case device::family::none:
    case device::family::frequency:
    case device::family::mean:
    case device::family::sparse_projection:  // central DP: its release projects (C.3)
    case device::family::user_level:
    case device::family::winsorized:
    case device::family::string:
    case device::family::distribution:
    case device::family::kent_support:       // scores of the support vote, not a vector (C.1 P4)
    case device::family::public_coin:        // mean losses at grid points (H.2, H.3)
    case device::family::glm: return false;  // the means of the copies, not a learned vector (H.4)
  }
  return false;  // a value outside the enumeration
}

l1_projection project_estimates(std::vector<server::estimate>& all, double radius) {
  if (!(radius >= 0 && std::isfinite(radius))) fail("--l1-ball must be a finite radius >= 0, got {}", radius);
  l1_projection out;
  out.radius = radius;
  for (const server::estimate& e : all) {
    out.unprojected.push_back(e.value);
    out.unprojected_norm += std::fabs(e.value);
  }
  std::vector<double> projected;
  status s = server::l1_ball_threshold(out.unprojected, radius, &out.threshold);
  if (s == status::ok) s = server::project_l1_ball(out.unprojected, radius, &projected);
  if (s != status::ok) fail("cannot project the estimates onto the l1 ball: {}", describe(s));
  for (std::size_t j = 0; j < all.size(); ++j) all[j].value = projected[j];
  return out;
}

}  // namespace ldp::tools
