// Runs of the Kent, Berrett, Yu protocols (docs/mechanisms.md C.1) end to end for the statistical tests
// (tests/statistical/server/test_user_level*.cpp): devices write wire reports, the ordinary aggregators
// count them, the driver of ldp/server/user_level.h picks the cells and estimates.
//
// Error measures. Given the users' data and the broadcast intervals, fold j's estimate theta-hat_j
// is a_j (the mean of the fold's clamped device values, which the test reads back through
// device::user_level_value) plus the mean of m_j discrete Laplace draws, whose variance v_j the
// aggregator states exactly. So the conditional mean squared error c = sum_i (b_i^2 + var_i),
// b = the rotated-back a minus the true mean, is an unbiased, low-variance estimate of the MSE,
// and (theta-hat_j - a_j)^2 / v_j are independent chi-square(1) variables up to the normal
// approximation of a mean of >= 100 Laplace draws. Each test checks both: the noise against
// chi-square quantiles, the scaling on c.
#ifndef LDP_TESTS_SUPPORT_USER_LEVEL_RUNS_H
#define LDP_TESTS_SUPPORT_USER_LEVEL_RUNS_H

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/random.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "stats.h"
#include "user_level.h"

namespace ldp::test::kent {

using ldp::status;
using ldp::server::aggregator;
using ldp::server::user_level_config;
using ldp::server::user_level_method;
using ldp::server::user_level_plan;
using ldp::server::user_level_protocol;
using ldp::wire::field;
using ldp::wire::params;

inline constexpr int64_t one = int64_t{1} << 16;
inline constexpr double alpha_test = ldp::test::default_alpha;

inline std::unique_ptr<aggregator> aggregator_for(const params& p) {
  std::unique_ptr<aggregator> a;
  REQUIRE(aggregator::create(p, &a) == status::ok);
  return a;
}

inline void send(const params& p, const std::vector<int64_t>& data, ldp::random::drbg& rng, aggregator& to) {
  std::vector<unsigned char> report;
  REQUIRE(ldp::test::user_level_report(p, data, rng, &report) == status::ok);
  REQUIRE(to.add_report(report) == status::ok);
}

struct outcome {
  std::vector<ldp::server::estimate> estimates;  // the server's, d coordinates
  std::vector<double> theta, variance, clamped;  // per fold: estimate, its variance, a_j
};

// One run of the protocol for n users; data(u) gives user u's T x d observations.
template <class Data>
outcome run(const user_level_protocol& p, Data& data, ldp::random::drbg& rng) {
  const auto& c = p.config();
  const uint32_t folds = p.folds();
  std::vector<std::unique_ptr<aggregator>> votes, refines;
  for (uint32_t f = 0; f < folds; ++f) votes.push_back(aggregator_for(p.vote_block(f)));
  std::vector<int64_t> sums(folds, 0);
  std::vector<uint64_t> counts(folds, 0);
  for (uint64_t u = 0; u < c.users; ++u) {
    const auto a = p.assign(u);
    if (a.round == 2 && refines.empty()) {  // voters come first: the broadcast happens here
      for (uint32_t f = 0; f < folds; ++f) {
        params block = p.single_stage_block(f);
        if (p.two_stage()) REQUIRE(p.refine_block(f, *votes[f], &block) == status::ok);
        refines.push_back(aggregator_for(block));
      }
    }
    const std::vector<int64_t>& buffer = data(u);
    const uint32_t reals = c.method == user_level_method::m5 ? 1 : c.dimension;  // per observation
    REQUIRE(buffer.size() == std::size_t{c.observations} * reals);
    if (a.round == 1) {
      send(p.vote_block(a.fold), buffer, rng, *votes[a.fold]);
      continue;
    }
    const params& block = refines[a.fold]->parameters();
    send(block, buffer, rng, *refines[a.fold]);
    ldp::test::owned_context<ldp::device::user_level_context> user(block);
    REQUIRE(user.code == status::ok);
    int64_t value = 0;
    REQUIRE(user->value(buffer, &value) == status::ok);
    sums[a.fold] += ldp::wire::clamp_to_range(block, value);
    ++counts[a.fold];
  }
  outcome o;
  std::vector<const aggregator*> views;
  for (uint32_t f = 0; f < folds; ++f) {
    views.push_back(refines[f].get());
    const auto e = refines[f]->estimate_all();
    o.theta.push_back(e[0].value);
    o.variance.push_back(e[0].variance);
    o.clamped.push_back(
        std::ldexp(static_cast<double>(sums[f]) / static_cast<double>(counts[f]), -static_cast<int>(c.frac_bits)));
  }
  REQUIRE(p.estimate_all(views, 0.95, &o.estimates) == status::ok);
  REQUIRE(o.estimates.size() == c.dimension);
  return o;
}

// x = U^T y = D H y / sqrt(d~) for M3 (the first d coordinates), y itself otherwise: a dense
// reference independent of the server's FWHT.
inline std::vector<double> rotate_back(const user_level_protocol& p, const std::vector<double>& y) {
  const auto& c = p.config();
  if (c.method != user_level_method::m3) return y;
  const uint32_t n = p.folds();
  std::vector<uint32_t> signs(ldp::random::rotation_sign_words(n));
  REQUIRE(ldp::random::rotation_signs(c.rotation_seed, n, signs) == status::ok);
  std::vector<double> x(c.dimension);
  for (uint32_t i = 0; i < c.dimension; ++i) {
    double s = 0;
    for (uint32_t j = 0; j < n; ++j) s += ((ldp::popcount32(i & j) & 1) != 0 ? -y[j] : y[j]);
    x[i] = (((signs[i / 32] >> (i % 32)) & 1) != 0 ? -s : s) / std::sqrt(static_cast<double>(n));
  }
  return x;
}

// Accumulates the conditional MSE of runs and the chi-square statistic of their noise.
struct tally {
  double mse = 0;  // sum over runs of c
  int runs = 0;
  double chi2 = 0;  // sum of (theta-hat_j - a_j)^2 / v_j
  int terms = 0;

  void add(const user_level_protocol& p, const outcome& o, const std::vector<double>& truth) {
    const std::vector<double> centre = rotate_back(p, o.clamped), reference = rotate_back(p, o.theta);
    double c = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
      // The server's estimate is the rotated-back fold estimates (checked against the reference).
      CHECK(std::fabs(o.estimates[i].value - reference[i]) <= 1e-12);
      c += (centre[i] - truth[i]) * (centre[i] - truth[i]) + o.estimates[i].variance;
    }
    mse += c;
    ++runs;
    for (std::size_t j = 0; j < o.theta.size(); ++j) {
      chi2 += (o.theta[j] - o.clamped[j]) * (o.theta[j] - o.clamped[j]) / o.variance[j];
      ++terms;
    }
  }
  double mean() const { return mse / runs; }
  // Two-sided chi-square check at alpha_test.
  void check_noise() const {
    const double upper_tail = ldp::test::chi_square_sf(chi2, terms);
    CAPTURE(chi2);
    CAPTURE(terms);
    CHECK(upper_tail > alpha_test / 2);
    CHECK(upper_tail < 1 - alpha_test / 2);
  }
};

// Users' observations, i.i.d. in coordinate 0: +1 with probability (1 + mu) / 2, else -1 (mean mu,
// the largest variance for it on [-1, 1]); other coordinates 0 (spiky data, in the l2 unit ball).
// Only the first T~ observations are drawn (as k ones then T~ - k minus ones: the local mean has
// the right law); those after T~ are +1, which would bias a device that read them.
class bernoulli_users {
 public:
  bernoulli_users(double mu, const user_level_protocol& p, std::mt19937_64& engine)
      : ones_(p.used_observations(), (1 + mu) / 2),
        used_(p.used_observations()),
        dimension_(p.config().dimension),
        engine_(engine),
        buffer_(std::size_t{p.config().observations} * dimension_, 0) {
    for (std::size_t t = used_; t < p.config().observations; ++t) buffer_[t * dimension_] = one;
  }

  const std::vector<int64_t>& operator()(uint64_t) {
    const uint32_t k = ones_(engine_);
    for (std::size_t t = 0; t < used_; ++t) buffer_[t * dimension_] = t < k ? one : -one;
    return buffer_;
  }

 private:
  std::binomial_distribution<uint32_t> ones_;
  std::size_t used_, dimension_;
  std::mt19937_64& engine_;
  std::vector<int64_t> buffer_;
};

}  // namespace ldp::test::kent

#endif
