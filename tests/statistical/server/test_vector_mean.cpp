// Vector mean estimation end to end (docs/mechanisms.md B.5, D.2, D.3): device reports through the wire
// format into the server aggregator, with fixed seeds.
// - Unbiasedness for point-mass, spiky (x = R e_1) and isotropic data, both mechanisms: per
//   coordinate z-tests (Bonferroni) and a chi-square over the coordinates.
// - Variance: the mean squared error against the [derived] exact formula evaluated on the data,
//   and the aggregator's reported variance against the same formula.
// - Clipping of the rotated coordinate happens with frequency <= beta (B.4 "Concentration").
// - MSE slope in d~: about 1 + 1/ln(2 d~ / beta) with the rotation, 2 without (the no-rotation
//   variant is simulated here with the same scalar core and a Horvitz-Thompson sum).
// - A device/server rotation seed mismatch shows up as a large error.
// - Monte-Carlo privacy audit (D.2 (b)): the worst-case pair x, -x with (U x)_0 = r and the event
//   {j = 0 and the scalar output in Table D.2's event}.
// Each case states its false-failure probability (at most 1e-6) and what it detects.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "audit.h"
#include "device_context.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/rotation.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/mean.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"

using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

const unsigned char rotation_seed[32] = {0xd5, 0x03, 0x77};
constexpr unsigned frac = 16;
constexpr double grid = 1.0 / 65536;

using vectors = std::vector<std::vector<int64_t>>;

ldp::wire::derived_params block(mechanism m, uint32_t d, double epsilon, double beta,
                                const unsigned char* seed = rotation_seed) {
  return m == mechanism::vector_duchi ? ldp::wire::make_vector_duchi(d, 1.0, frac, epsilon, beta, seed)
                                      : ldp::wire::make_vector_laplace(d, 1.0, frac, epsilon, beta, seed);
}

// A device holding a block: the context on its workspace, and the rotation signs it derived.
struct device {
  ldp::test::owned_context<ldp::device::vector_mean_context> ctx;
  ldp::span<const uint32_t> signs;

  explicit device(const ldp::wire::params& p) : ctx(p), signs(ctx->signs()) { REQUIRE(ctx.code == status::ok); }

  // The exact rotated vector v = H D clip(x) (before the scale).
  std::vector<int32_t> rotate(const std::vector<int64_t>& x) {
    const auto& p = ctx->parameters();
    std::vector<int32_t> v(static_cast<std::size_t>(p.get(field::hadamard_dim)));
    ldp::device::clip_to_ball(x, p.get_signed(field::radius), ldp::wire::rotation_log2(p), v);
    ldp::kernels::native().rotate_i32(v.data(), signs.data(), ldp::wire::rotation_log2(p));
    return v;
  }
};

// One aggregation of every user's report (payloads through the wire format).
std::vector<double> aggregate(const ldp::wire::params& server_block, device& dev, const vectors& users,
                              ldp::random::drbg& rng, std::vector<double>* variances = nullptr) {
  std::unique_ptr<aggregator> agg;
  REQUIRE(aggregator::create(server_block, &agg) == status::ok);
  std::vector<unsigned char> out(ldp::wire::max_payload_size(server_block));
  for (const auto& x : users) {
    std::size_t size = 0;
    REQUIRE(dev.ctx->randomize(x, rng, out, ldp::device::framing::payload, &size) == status::ok);
    REQUIRE(agg->add_payload(ldp::span<const unsigned char>(out.data(), size)) == status::ok);
  }
  const auto e = agg->estimate_all();
  std::vector<double> values;
  for (const auto& v : e) values.push_back(v.value);
  if (variances != nullptr) {
    variances->clear();
    for (const auto& v : e) variances->push_back(v.variance);
  }
  return values;
}

std::vector<double> true_mean(const vectors& users) {
  std::vector<double> m(users[0].size(), 0.0);
  for (const auto& x : users) {
    for (std::size_t i = 0; i < x.size(); ++i) m[i] += static_cast<double>(x[i]) * grid;
  }
  for (double& v : m) v /= static_cast<double>(users.size());
  return m;
}

// The exact per-coordinate variance of x^ (the derivation in lib/server/src/vector_mean.cpp),
// evaluated on the users' data, with the rounding variance rho_u computed from their rotations.
std::vector<double> exact_variance(const ldp::wire::params& p, device& dev, const vectors& users) {
  const std::size_t d = users[0].size();
  const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(ldp::wire::rotation_log2(p));
  const double inverse_scale = std::ldexp(1.0, static_cast<int>(s.shift)) / static_cast<double>(s.mult);
  const double n = static_cast<double>(users.size());
  const double r = static_cast<double>(p.get_signed(field::clip_hi)) * grid;
  const bool duchi = p.mech == mechanism::vector_duchi;
  const double b = duchi ? ldp::server::duchi_scale(p) : 0;
  const double sigma2 = duchi ? 0 : ldp::server::laplace_noise_variance(p);
  std::vector<double> v(d, 0.0);
  for (const auto& x : users) {
    double norm2 = 0;
    for (int64_t xi : x) norm2 += static_cast<double>(xi) * grid * static_cast<double>(xi) * grid;
    double rho = 0;
    if (!duchi && s.shift > 0) {
      const std::vector<int32_t> rotated = dev.rotate(x);
      const uint64_t mask = (uint64_t{1} << s.shift) - 1;
      for (int32_t vj : rotated) {
        const double f = static_cast<double>(static_cast<uint64_t>(int64_t{vj} * static_cast<int64_t>(s.mult)) & mask) /
                         std::ldexp(1.0, static_cast<int>(s.shift));
        rho += f * (1 - f);
      }
      rho /= static_cast<double>(rotated.size());
    }
    for (std::size_t i = 0; i < d; ++i) {
      const double xi = static_cast<double>(x[i]) * grid;
      v[i] += duchi ? r * r * b * b * inverse_scale * inverse_scale - xi * xi
                    : norm2 - xi * xi + (sigma2 + rho) * grid * grid * inverse_scale * inverse_scale;
    }
  }
  for (double& vi : v) vi /= n * n;
  return v;
}

// The largest |s v_j| + 1 over the users' rotated coordinates, in grid units (the + 1 covers the
// rounding): below r, no report is clipped and the estimator is exactly unbiased.
double largest_rotated(const ldp::wire::params& p, device& dev, const vectors& users) {
  const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(ldp::wire::rotation_log2(p));
  double largest = 0;
  for (const auto& x : users) {
    for (int32_t vj : dev.rotate(x)) {
      largest = std::max(largest, std::fabs(static_cast<double>(vj) * static_cast<double>(s.mult) /
                                            std::ldexp(1.0, static_cast<int>(s.shift))) +
                                      1);
    }
  }
  return largest;
}

// A direction from Gaussian coordinates (Box-Muller on the test generator), scaled to `norm`, with
// every coordinate rounded toward zero so the norm stays at most `norm`.
std::vector<int64_t> random_vector(std::size_t d, double norm, ldp::random::drbg& rng) {
  std::vector<double> g(d);
  double s = 0;
  for (double& v : g) {
    const double u1 = (static_cast<double>(rng.next_u64() >> 11) + 1) / 9007199254740993.0;
    const double u2 = static_cast<double>(rng.next_u64() >> 11) / 9007199254740992.0;
    v = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    s += v * v;
  }
  std::vector<int64_t> out;
  for (double v : g) out.push_back(static_cast<int64_t>(std::trunc(v / std::sqrt(s) * norm / grid)));
  return out;
}

double squared_error(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// z with P(|Z| > z) = alpha for a standard normal Z (bisection on normal_sf).
double two_sided_z(double alpha) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (2 * ldp::test::normal_sf(mid) > alpha ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

// Unbiasedness and variance, d = 50 (d~ = 64), n = 400 users, 150 independent aggregations per
// dataset and mechanism, epsilon = 4, beta = 1e-6 (r = 0.77 R), R = 1. The datasets are checked to
// be unclipped, so the estimator is exactly unbiased and the derived variance exact.
// False failures, each bounded for a correct build:
// - per coordinate |mean - x_bar_i| <= z sqrt(V_i / K), z at 1e-7 / 50 two-sided (Bonferroni over
//   coordinates), normal approximation of a sum of 60000 bounded or Laplace-tailed terms;
// - the chi-square of those 50 z values against chi-square(50) at 1e-7;
// - the mean over runs of ||x^ - x_bar||^2 within 5.5 of its standard errors of sum_i V_i (the
//   squared error is a sum of 50 nearly normal squares; P(|Z| > 5.5) = 4e-8);
// - the aggregator's reported variance, with its plug-in c_i^2 / n replaced by x_i^2 / n, equal to
//   the exact V_i (Duchi) or above it by at most (R^2 - ||x||^2) / n and the rounding bound
//   (Laplace), on the identical-user datasets: deterministic checks.
// 6 datasets x 2 mechanisms x 4 checks stay below 1e-6 in total. Power: a bias of 7 standard errors
// on one coordinate (0.22 R / sqrt(d) for Duchi), an overall scale error of 30% (chi-square),
// and a variance formula off by 10% are each detected with probability above 0.99.
TEST_CASE("unbiased on point-mass, spiky and isotropic data; variance as derived") {
  constexpr std::size_t d = 50, n = 400;
  constexpr int runs = 150;
  const double z = two_sided_z(1e-7 / d);
  auto data = ldp::test::seeded_drbg("vector mean datasets");
  struct dataset {
    std::string name;
    vectors users;
  };
  std::vector<dataset> datasets;
  datasets.push_back({"point mass", vectors(n, random_vector(d, 0.9, data))});
  std::vector<int64_t> spike(d, 0);
  spike[0] = int64_t{1} << frac;  // R e_1: norm exactly R
  datasets.push_back({"spiky", vectors(n, spike)});
  vectors isotropic;
  for (std::size_t u = 0; u < n; ++u) {
    const double norm = static_cast<double>(ldp::random::uniform_below(data, 1001)) / 1000;
    isotropic.push_back(random_vector(d, norm, data));
  }
  datasets.push_back({"isotropic", isotropic});

  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const auto made = block(m, d, 4.0, 1e-6);
    REQUIRE(made.code == status::ok);
    const auto& p = made.block;
    device dev(p);
    const double r = static_cast<double>(p.get_signed(field::clip_hi));
    for (const dataset& ds : datasets) {
      const std::string name = std::string(ldp::wire::mechanism_name(m)) + " " + ds.name;
      CAPTURE(name);
      REQUIRE(largest_rotated(p, dev, ds.users) <= r);
      const std::vector<double> mean = true_mean(ds.users);
      const std::vector<double> v = exact_variance(p, dev, ds.users);
      auto rng = ldp::test::seeded_drbg(name.c_str());
      std::vector<double> total(d, 0.0), errors, first, reported;
      for (int k = 0; k < runs; ++k) {
        const std::vector<double> x = aggregate(p, dev, ds.users, rng, k == 0 ? &reported : nullptr);
        if (k == 0) first = x;
        for (std::size_t i = 0; i < d; ++i) total[i] += x[i];
        errors.push_back(squared_error(x, mean));
      }
      double chi2 = 0;
      for (std::size_t i = 0; i < d; ++i) {
        CAPTURE(i);
        const double zi = (total[i] / runs - mean[i]) / std::sqrt(v[i] / runs);
        CHECK(std::fabs(zi) <= z);
        chi2 += zi * zi;
      }
      CHECK(ldp::test::chi_square_sf(chi2, static_cast<double>(d)) >= 1e-7);
      double m_err = 0;
      const double s_err = std::sqrt([&] {
        for (double e : errors) m_err += e;
        m_err /= runs;
        double s = 0;
        for (double e : errors) s += (e - m_err) * (e - m_err);
        return s / (runs - 1);
      }());
      CAPTURE(m_err);
      CAPTURE(sum(v));
      CHECK(std::fabs(m_err - sum(v)) <= 5.5 * s_err / std::sqrt(static_cast<double>(runs)));
      if (ds.name == "point mass" || ds.name == "spiky") {
        // Identical users: with the plug-in c_i^2 / n added back, the reported variance is the
        // exact V_i + x_i^2 / n (Duchi), or bounds it from above by at most (R^2 - ||x||^2) / n
        // and the rounding term (Laplace).
        const double n_users = static_cast<double>(n);
        double norm2 = 0;
        for (double mi : mean) norm2 += mi * mi;
        const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(ldp::wire::rotation_log2(p));
        const double inverse_scale = std::ldexp(1.0, static_cast<int>(s.shift)) / static_cast<double>(s.mult);
        const double slack = ((1 - norm2) + 0.25 * grid * grid * inverse_scale * inverse_scale) / n_users;
        for (std::size_t i = 0; i < d; ++i) {
          CAPTURE(i);
          const double c = std::min(1.0, std::max(-1.0, first[i]));
          const double got = reported[i] + c * c / n_users, want = v[i] + mean[i] * mean[i] / n_users;
          if (m == mechanism::vector_duchi) {
            CHECK(got == doctest::Approx(want).epsilon(1e-9));
          } else {
            CHECK(got >= want * (1 - 1e-9));
            CHECK(got <= (want + slack) * (1 + 1e-9));
          }
        }
      }
    }
  }
}

// Over 5000 rotation seeds (2000 at d~ = 1024), how often a fixed vector of norm R has a rotated coordinate beyond r
// (the event that clips a user). The flat vector (equal coordinates) and a Gaussian direction are
// near the worst case of B.4's Hoeffding bound. False failure: the Clopper-Pearson lower bound at
// 1e-7 exceeds beta only if the true frequency does. Power: with r computed from ln(d~ / beta)
// without the factor 2 of the bound (r shrinks by 1/sqrt 2), the frequency of the flat vector at
// beta = 0.2 and d~ = 64 is about 0.43, detected with certainty.
TEST_CASE("the rotated coordinate is clipped with frequency at most beta") {
  auto data = ldp::test::seeded_drbg("clip frequency data");
  const struct {
    uint32_t d;
    double beta;
  } cases[] = {{64, 0.2}, {64, 0.05}, {1024, 0.05}, {100, 0.01}};
  for (const auto& c : cases) {
    const int64_t radius = int64_t{1} << frac;
    std::vector<std::vector<int64_t>> shapes;
    shapes.push_back(
        std::vector<int64_t>(c.d, static_cast<int64_t>(std::floor(radius / std::sqrt(static_cast<double>(c.d))))));
    shapes.push_back(random_vector(c.d, 1.0, data));
    const int trials = c.d > 500 ? 2000 : 5000;
    const auto made = block(mechanism::vector_duchi, c.d, 1.0, c.beta);
    REQUIRE(made.code == status::ok);
    const auto& p = made.block;
    const unsigned log2_dim = ldp::wire::rotation_log2(p);
    const auto dim = static_cast<uint32_t>(p.get(field::hadamard_dim));
    const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(log2_dim);
    // |v_j| s > r, compared exactly: |v_j| mult > r 2^shift as 128-bit products.
    const auto beyond = [&](int32_t vj) {
      const uint64_t magnitude =
          vj < 0 ? 0 - static_cast<uint64_t>(static_cast<int64_t>(vj)) : static_cast<uint64_t>(vj);
      const ldp::u128 left = ldp::mul_64x64(magnitude, s.mult);
      const ldp::u128 right =
          ldp::mul_64x64(static_cast<uint64_t>(p.get_signed(field::clip_hi)), uint64_t{1} << s.shift);
      return left.hi > right.hi || (left.hi == right.hi && left.lo > right.lo);
    };
    std::vector<uint32_t> signs(ldp::random::rotation_sign_words(dim));
    std::vector<int32_t> v(dim);
    for (const auto& x : shapes) {
      CAPTURE(c.d);
      CAPTURE(c.beta);
      uint64_t clipped = 0;
      for (int t = 0; t < trials; ++t) {
        unsigned char seed[32] = {};
        for (int i = 0; i < 4; ++i) seed[i] = static_cast<unsigned char>(t >> (8 * i));
        REQUIRE(ldp::random::rotation_signs(seed, dim, signs) == status::ok);
        ldp::device::clip_to_ball(x, p.get_signed(field::radius), log2_dim, v);
        ldp::kernels::native().rotate_i32(v.data(), signs.data(), log2_dim);
        clipped += std::any_of(v.begin(), v.end(), beyond) ? 1 : 0;
      }
      CAPTURE(clipped);
      CHECK(ldp::test::clopper_pearson(clipped, static_cast<uint64_t>(trials), 2e-7).lo <= c.beta);
    }
  }
}

// MSE against d~ = d = 16 .. 256 for spiky data (every user x = R e_1), n = 500, 40 aggregations
// per point, Duchi at epsilon = 2, beta = 0.05 (r < R at every point). With the rotation
// E||x^ - x_bar||^2 = d~ (d~ r^2 B^2 - R^2 / d~) / n ~ 2 d~ R^2 B^2 ln(2 d~ / beta) / n: slope about
// 1 + 1/ln(2 d~ / beta), 1.13 here (the exact formula's slope is computed below); without it
// (r = R, the coordinate itself randomized) d~^2 R^2 B^2 / n: slope 2. Each slope is estimated to
// about 0.02 (the mean of 40 squared errors over 16 .. 256 near-normal coordinates); a deviation of
// 0.12 is 6 standard errors, P < 1e-8 per slope. Detects a rotation that does not spread the mass
// (slope 2) or a clip that does not shrink with d~.
TEST_CASE("MSE grows like d~ log d~ with the rotation and like d~^2 without") {
  constexpr std::size_t n = 500;
  constexpr int runs = 40;
  std::vector<double> dims, rotated, plain, formula;
  auto rng = ldp::test::seeded_drbg("mse slope");
  for (uint32_t d : {16u, 32u, 64u, 128u, 256u}) {
    const auto made = block(mechanism::vector_duchi, d, 2.0, 0.05);
    REQUIRE(made.code == status::ok);
    const auto& p = made.block;
    REQUIRE(p.get_signed(field::clip_hi) < p.get_signed(field::radius));
    device dev(p);
    std::vector<int64_t> spike(d, 0);
    spike[0] = int64_t{1} << frac;
    const vectors users(n, spike);
    const std::vector<double> mean = true_mean(users);
    REQUIRE(largest_rotated(p, dev, users) <= static_cast<double>(p.get_signed(field::clip_hi)));
    // Without rotation: the scalar Duchi core on [-R, R] applied to x_j, summed Horvitz-Thompson.
    const auto scalar = ldp::wire::make_duchi(-1.0, 1.0, frac, 2.0);
    REQUIRE(scalar.code == status::ok);
    const double b = ldp::server::duchi_scale(scalar.block);
    double mse_rotated = 0, mse_plain = 0;
    for (int k = 0; k < runs; ++k) {
      mse_rotated += squared_error(aggregate(p, dev, users, rng), mean);
      std::vector<double> sums(d, 0.0);
      for (const auto& x : users) {
        const uint32_t j = ldp::random::uniform_below(rng, d);
        const uint8_t bit = ldp::device::duchi_bit(scalar.block, x[j], rng);
        sums[j] += b * (bit == 1 ? 1.0 : -1.0);
      }
      for (double& v : sums) v *= static_cast<double>(d) / static_cast<double>(n);
      mse_plain += squared_error(sums, mean);
    }
    dims.push_back(d);
    rotated.push_back(mse_rotated / runs);
    plain.push_back(mse_plain / runs);
    formula.push_back(sum(exact_variance(p, dev, users)));
  }
  const double slope_formula = ldp::test::log_log_slope(dims, formula);
  const double slope_rotated = ldp::test::log_log_slope(dims, rotated);
  const double slope_plain = ldp::test::log_log_slope(dims, plain);
  CAPTURE(slope_formula);
  CAPTURE(slope_rotated);
  CAPTURE(slope_plain);
  CHECK(slope_formula > 1.05);
  CHECK(slope_formula < 1.25);
  CHECK(std::fabs(slope_rotated - slope_formula) <= 0.12);
  CHECK(std::fabs(slope_plain - 2.0) <= 0.12);
}

// The server inverting with another rotation seed's D: since H H = d~ I, x^ then estimates
// D' D x_bar, every coordinate where the two sign vectors differ flipped. Flat point-mass data
// (x_i = R / sqrt(d)), d = 64, n = 20000, Duchi at epsilon = 4: the matched error is about
// sum_i V_i = 0.07 R^2 (its relative standard deviation about 0.18; 3x is 11 of them, P < 1e-20);
// the mismatched one is at least 4 x_i^2 per flipped coordinate (the flips are fixed by the two
// seeds, checked below), 1.2 R^2 here, whatever the noise up to the same 11 standard deviations.
TEST_CASE("a device/server rotation seed mismatch shows as a large error") {
  constexpr uint32_t d = 64;
  constexpr std::size_t n = 20000;
  unsigned char other_seed[32];
  std::copy(rotation_seed, rotation_seed + 32, other_seed);
  other_seed[31] ^= 0x80;
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const auto made = block(m, d, 4.0, 1e-3);
    const auto server = block(m, d, 4.0, 1e-3, other_seed);
    REQUIRE(made.code == status::ok);
    REQUIRE(server.code == status::ok);
    device dev(made.block);
    const int64_t x_i = (int64_t{1} << frac) / 8;  // R / sqrt(64)
    const vectors users(n, std::vector<int64_t>(d, x_i));
    const std::vector<double> mean = true_mean(users);
    std::vector<uint32_t> theirs(ldp::random::rotation_sign_words(d));
    REQUIRE(ldp::random::rotation_signs(other_seed, d, theirs) == status::ok);
    int flips = 0;
    for (uint32_t i = 0; i < d; ++i) flips += ((dev.signs[i / 32] ^ theirs[i / 32]) >> (i % 32)) & 1u;
    REQUIRE(flips >= 20);
    const double expected = sum(exact_variance(made.block, dev, users));
    auto rng = ldp::test::seeded_drbg(name.c_str());
    const double matched = squared_error(aggregate(made.block, dev, users, rng), mean);
    const double mismatched = squared_error(aggregate(server.block, dev, users, rng), mean);
    CAPTURE(expected);
    CAPTURE(matched);
    CAPTURE(mismatched);
    CHECK(matched < 3 * expected);
    CHECK(mismatched > 0.5 * flips * 4 * (x_i * grid) * (x_i * grid));
    CHECK(mismatched > 10 * expected);
  }
}

// D.2 (b) on the vector pipeline, d = d~ = 4 (s = 1/2 exactly, r = R): x = (R/2) D 1 rotates to
// v = (2R, 0, 0, 0), so y_0 = R = r, and -x to y_0 = -r; reports with j != 0 are identically
// distributed under both. Event: j = 0 and b = 1 (Duchi), j = 0 and z <= -r (Laplace, likelier
// under -x), likelihood ratio exactly e^{epsilon_impl}. 100000 reports per input; Clopper-Pearson
// at 1e-7 per proportion (false failure below 4e-7 per case); the point estimate must reach
// 0.9 epsilon_impl (7 or more standard errors from the truth; detects noise for epsilon / 2).
TEST_CASE("Monte-Carlo audit of the vector pipeline: no leak, no wasted noise") {
  constexpr uint64_t runs = 100000;
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    for (double eps : {1.0, 3.0}) {
      const std::string name = std::string(ldp::wire::mechanism_name(m)) + " audit";
      CAPTURE(name);
      CAPTURE(eps);
      const auto made = block(m, 4, eps, 1e-3);
      REQUIRE(made.code == status::ok);
      const auto& p = made.block;
      const int64_t r = p.get_signed(field::clip_hi);
      REQUIRE(r == p.get_signed(field::radius));
      device dev(p);
      std::vector<int64_t> x(4);
      for (uint32_t i = 0; i < 4; ++i) x[i] = ((dev.signs[0] >> i) & 1u) != 0 ? -r / 2 : r / 2;
      std::vector<int64_t> minus(4);
      for (int i = 0; i < 4; ++i) minus[static_cast<std::size_t>(i)] = -x[static_cast<std::size_t>(i)];
      REQUIRE(dev.rotate(x)[0] == 2 * r);
      const bool duchi = m == mechanism::vector_duchi;
      const auto& likely = duchi ? x : minus;
      const auto& unlikely = duchi ? minus : x;
      auto rng = ldp::test::seeded_drbg(name.c_str());
      const auto count = [&](const std::vector<int64_t>& input) {
        uint64_t hits = 0;
        for (uint64_t i = 0; i < runs; ++i) {
          ldp::wire::report rep;
          REQUIRE(dev.ctx->fields(input, rng, &rep) == status::ok);
          hits += rep.index == 0 && (duchi ? rep.bit == 1 : rep.value <= -r) ? 1 : 0;
        }
        return hits;
      };
      const uint64_t k1 = count(likely), k0 = count(unlikely);
      CHECK(made.epsilon_impl <= eps);
      ldp::test::check_audit_event(k1, k0, runs, 1e-7, made.epsilon_impl);
    }
  }
}
