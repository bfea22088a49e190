#include "ldp/server/central/accountant.h"

#include <cmath>
#include <limits>

#include "ldp/random/discrete_gaussian.h"
#include "ldp/wire/zcdp.h"

namespace ldp::server {

double discrete_gaussian_rho(double sensitivity, double sigma2, uint64_t steps) noexcept {
  if (!(sigma2 > 0) || !(sensitivity >= 0)) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(steps) * sensitivity * sensitivity / (2 * sigma2);
}

double zcdp_to_epsilon(double rho, double delta) noexcept { return wire::zcdp_epsilon(rho, delta); }

double zcdp_to_epsilon_simple(double rho, double delta) noexcept {
  if (!(rho >= 0) || !(delta > 0) || !(delta < 1)) return std::numeric_limits<double>::quiet_NaN();
  return rho + 2 * std::sqrt(rho * std::log(1 / delta));
}

uint64_t discrete_gaussian_sigma2_for(double epsilon, double delta, uint64_t steps, double sensitivity) noexcept {
  if (!(epsilon > 0) || !(delta > 0) || !(delta < 1) || steps == 0 || !(sensitivity > 0)) return 0;
  const auto fits = [&](uint64_t sigma2) {
    return zcdp_to_epsilon(discrete_gaussian_rho(sensitivity, static_cast<double>(sigma2), steps), delta) <= epsilon;
  };
  uint64_t hi = random::discrete_gaussian_max_sigma2;
  if (!fits(hi)) return 0;
  if (fits(1)) return 1;
  // Invariant: fits(hi), !fits(lo). The returned value is one the accountant accepted.
  uint64_t lo = 1;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace ldp::server
