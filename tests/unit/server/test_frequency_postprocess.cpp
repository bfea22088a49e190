// Server side of the frequency oracles, post-processing (docs/mechanisms.md A.9): non-negative
// estimates that sum to n, idempotent projections, degenerate inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

TEST_CASE("post-processing: non-negative, sums to n, idempotent projections (A.9)") {
  // Hand-checked: c = (5, 3, -2), n = 6.
  std::vector<estimate> raw(3);
  const double values[3] = {5, 3, -2};
  for (uint32_t i = 0; i < 3; ++i) raw[i] = estimate{i, values[i], 1.0, 0.0, 0.0};
  using ldp::server::postprocess;
  const auto ns = ldp::server::apply_postprocess(raw, 6, postprocess::norm_sub);
  REQUIRE(ns.size() == 3);
  CHECK(ns[0].value == doctest::Approx(4));
  CHECK(ns[1].value == doctest::Approx(2));
  CHECK(ns[2].value == 0);
  CHECK(std::isnan(ns[0].variance));
  CHECK(std::isnan(ns[0].ci_low));
  const auto cr = ldp::server::apply_postprocess(raw, 6, postprocess::clip_renormalize);
  CHECK(cr[0].value == doctest::Approx(3.75));
  CHECK(cr[1].value == doctest::Approx(2.25));
  CHECK(cr[2].value == 0);
  const auto none = ldp::server::apply_postprocess(raw, 6, postprocess::none);
  CHECK(none[2].value == -2);
  CHECK(none[2].variance == 1.0);

  // Real estimates with negatives: few reports, many items.
  const params p = block(mechanism::grr, 1.0, 40);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "post", 60)) REQUIRE(a->add_report(b) == status::ok);
  const std::vector<estimate> est = a->estimate_all();
  CHECK(std::any_of(est.begin(), est.end(), [](const estimate& e) { return e.value < 0; }));
  for (postprocess how : {postprocess::clip_renormalize, postprocess::norm_sub, postprocess::simplex}) {
    const auto out = ldp::server::apply_postprocess(est, 60, how);
    REQUIRE(out.size() == est.size());
    double sum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(out[i].item == est[i].item);
      CHECK(out[i].value >= 0);
      CHECK(std::isnan(out[i].variance));
      sum += out[i].value;
    }
    CHECK(sum == doctest::Approx(60).epsilon(1e-12));
    const auto again = ldp::server::apply_postprocess(out, 60, how);
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(again[i].value == doctest::Approx(out[i].value).epsilon(1e-12));
    }
  }
  // Norm-Sub is the Euclidean projection onto {x >= 0, sum x = n}: it agrees with simplex.
  const auto ns2 = ldp::server::apply_postprocess(est, 60, postprocess::norm_sub);
  const auto sp = ldp::server::apply_postprocess(est, 60, postprocess::simplex);
  for (std::size_t i = 0; i < est.size(); ++i) CHECK(sp[i].value == doctest::Approx(ns2[i].value).epsilon(1e-12));

  // Degenerate inputs: all negative (clip leaves zeros), n = 0, empty.
  std::vector<estimate> negative(4);
  for (uint32_t i = 0; i < 4; ++i) negative[i] = estimate{i, -1.0 - i, 1.0, 0.0, 0.0};
  for (const estimate& e : ldp::server::apply_postprocess(negative, 10, postprocess::clip_renormalize)) {
    CHECK(e.value == 0);
  }
  const auto projected = ldp::server::apply_postprocess(negative, 10, postprocess::norm_sub);
  double total = 0;
  for (const estimate& e : projected) total += e.value;
  CHECK(total == doctest::Approx(10));
  for (postprocess how : {postprocess::norm_sub, postprocess::simplex}) {
    for (const estimate& e : ldp::server::apply_postprocess(raw, 0, how)) CHECK(e.value == 0);
  }
  CHECK(ldp::server::apply_postprocess(span<const estimate>(), 5, postprocess::simplex).empty());
}
