// The Monte-Carlo audit's verdict on one event (docs/mechanisms.md D.2), shared by the statistical
// tests that audit a mechanism's real path.
#ifndef LDP_TESTS_SUPPORT_AUDIT_H
#define LDP_TESTS_SUPPORT_AUDIT_H

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "stats.h"

namespace ldp::test {

// hits_v and hits_w of `runs` outputs each fell in the event for inputs v and w. The Clopper-Pearson
// lower bound of ln(P(E | v) / P(E | w)) (each proportion two-sided at alpha) must not exceed epsilon:
// the mechanism leaks no more than it reports. The point estimate must reach 0.9 epsilon: the event
// is near the worst case, so the first check has power.
inline void check_audit_event(uint64_t hits_v, uint64_t hits_w, uint64_t runs, double alpha, double epsilon) {
  CAPTURE(hits_v);
  CAPTURE(hits_w);
  REQUIRE(hits_w > 0);
  const interval pv = clopper_pearson(hits_v, runs, alpha), pw = clopper_pearson(hits_w, runs, alpha);
  CHECK(std::log(pv.lo / pw.hi) <= epsilon);
  CHECK(std::log(static_cast<double>(hits_v) / static_cast<double>(hits_w)) >= 0.9 * epsilon);
}

}  // namespace ldp::test

#endif
